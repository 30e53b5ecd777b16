/* One small member of a zip archive read whole, as text: for the few
 * members read by name rather than streamed (a capture's manifest).  Goes
 * through zip_directory's checked stream, so the member's size and CRC-32
 * are proven as it is read; of members sharing the name the last counts,
 * as extracting the archive would leave it.  Knows nothing of ETW. */
#ifndef ETWCAP_ZIP_MEMBER_TEXT_H
#define ETWCAP_ZIP_MEMBER_TEXT_H

#include <stddef.h>

/* Reads member `name` of the zip at `path` (UTF-8) into *text, NUL-ended
 * (etwcap_free), *len bytes before the NUL.  ETWCAP_E_NOENT, with why
 * empty, when `path` cannot be opened, is not a zip, or has no such member;
 * ETWCAP_E_RANGE when the member holds more than `max` bytes; the reader's
 * error (FORMAT, CORRUPT, UNSUPPORTED, ...) with a message in why. */
int zip_member_text(const char *path, const char *name, size_t max, char **text, size_t *len,
                    char *why, size_t why_size);

#endif
