/* The message in a Host Compute Service ResultError document: what
 * HcsWaitForOperationResult may hand back with a failed operation ("On
 * failure, it can optionally receive an error JSON document represented by
 * a ResultError", its Learn page).  The field names are those of hcsshim's
 * internal/hcs/errors.go (hcsResult: Error, ErrorMessage, ErrorEvents).
 * The document is outside bytes: read with a size limit, and the message
 * cut to fit and rid of control characters before it goes into a log line
 * or a capture manifest. */
#ifndef ETWCAP_HCS_RESULT_ERROR_H
#define ETWCAP_HCS_RESULT_ERROR_H

#include <stddef.h>

/* Error documents larger than this are not read. */
#define HCS_RESULT_ERROR_MAX (64u * 1024u)

/* Writes the document's ErrorMessage to `out` (always terminated, cut to
 * out_size - 1 bytes at a character boundary, control characters as '?').
 * Returns 1 when there was one, else 0 with `out` empty (not a JSON
 * object, no ErrorMessage string, an empty one, or too large). */
int hcs_result_error_message(const char *json, size_t len, char *out, size_t out_size);

#endif
