/* A small JSON reader into a tree: objects, arrays, strings (with \uXXXX
 * escapes, surrogate pairs), numbers kept as their text (a FILETIME needs
 * all 64 bits), true, false, null.  It reads the documents etwcap writes
 * itself (the session record, the capture manifest) and the Host Compute
 * Service's answers; every input is bounded by its caller, nesting by a
 * depth limit.  Not a general-purpose parser (no number arithmetic).
 *
 * Lifetime: json_parse allocates the tree; json_free frees it. */
#ifndef ETWCAP_JSON_TREE_H
#define ETWCAP_JSON_TREE_H

#include <stddef.h>
#include <stdint.h>

enum json_type {
  JSON_NULL,
  JSON_BOOL,
  JSON_NUMBER,
  JSON_STRING,
  JSON_ARRAY,
  JSON_OBJECT
};

struct json_node {
  enum json_type type;
  char *key;                 /* member name inside an object, else NULL */
  char *text;                /* STRING: UTF-8 value; NUMBER: as written */
  int boolean;
  struct json_node *items; /* ARRAY elements, OBJECT members */
  size_t count;
};

/* Parses `len` bytes.  0, ETWCAP_E_FORMAT (why names the offset) or
 * ETWCAP_E_NOMEM. */
int json_parse(const char *text, size_t len, struct json_node **out, char *why,
                      size_t why_size);
void json_free(struct json_node *v);

/* The member `key` of an object, or NULL. */
const struct json_node *json_get(const struct json_node *obj, const char *key);
/* Typed reads of a member; the fallback when absent or of another type. */
const char *json_string(const struct json_node *obj, const char *key,
                               const char *fallback);
int64_t json_int(const struct json_node *obj, const char *key, int64_t fallback);
int json_bool(const struct json_node *obj, const char *key, int fallback);

#endif
