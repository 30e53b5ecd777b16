/* A small JSON reader for the session record (session_record.h): objects,
 * arrays, strings (with \uXXXX escapes, surrogate pairs), numbers kept as
 * their text (a FILETIME needs all 64 bits), true, false, null.  Enough
 * for documents etwcap writes itself; not a general-purpose parser.
 *
 * Lifetime: record_json_parse allocates the tree; record_json_free frees
 * it. */
#ifndef ETWCAP_SESSION_RECORD_JSON_H
#define ETWCAP_SESSION_RECORD_JSON_H

#include <stddef.h>
#include <stdint.h>

enum record_json_type {
  RECORD_JSON_NULL,
  RECORD_JSON_BOOL,
  RECORD_JSON_NUMBER,
  RECORD_JSON_STRING,
  RECORD_JSON_ARRAY,
  RECORD_JSON_OBJECT
};

struct record_json {
  enum record_json_type type;
  char *key;                 /* member name inside an object, else NULL */
  char *text;                /* STRING: UTF-8 value; NUMBER: as written */
  int boolean;
  struct record_json *items; /* ARRAY elements, OBJECT members */
  size_t count;
};

/* Parses `len` bytes.  0, ETWCAP_E_FORMAT (why names the offset) or
 * ETWCAP_E_NOMEM. */
int record_json_parse(const char *text, size_t len, struct record_json **out, char *why,
                      size_t why_size);
void record_json_free(struct record_json *v);

/* The member `key` of an object, or NULL. */
const struct record_json *record_json_get(const struct record_json *obj, const char *key);
/* Typed reads of a member; the fallback when absent or of another type. */
const char *record_json_string(const struct record_json *obj, const char *key,
                               const char *fallback);
int64_t record_json_int(const struct record_json *obj, const char *key, int64_t fallback);
int record_json_bool(const struct record_json *obj, const char *key, int fallback);

#endif
