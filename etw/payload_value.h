/* One decoded payload field as the triggers compare it: a number
 * (signed, unsigned or floating) and always a text form, the way PerfView's
 * PayloadString shows it (decimal numbers, strings as they are, GUIDs in
 * registry form).  Pure data. */
#ifndef ETWCAP_PAYLOAD_VALUE_H
#define ETWCAP_PAYLOAD_VALUE_H

#include "guid.h"

#include <stddef.h>
#include <stdint.h>

#define TV_TEXT_MAX 1024

enum tv_type { TV_NONE, TV_INT, TV_UINT, TV_FLOAT, TV_TEXT, TV_GUID };

struct tv_value {
  enum tv_type type;
  int64_t i;
  uint64_t u;
  double d;
  struct etw_guid guid;
  char text[TV_TEXT_MAX];
};

void tv_set_int(struct tv_value *v, int64_t x);
void tv_set_uint(struct tv_value *v, uint64_t x);
void tv_set_float(struct tv_value *v, double x);
void tv_set_guid(struct tv_value *v, const struct etw_guid *g);
/* Text was written into v->text by the caller. */
void tv_set_text(struct tv_value *v);
/* Copies src into dst (cap bytes, always terminated, cut on a UTF-8
 * character boundary). */
void tv_copy(char *dst, size_t cap, const char *src);
/* Appends src to the string in dst the same way. */
void tv_append(char *dst, size_t cap, const char *src);
/* Numeric view: 1 and *out when the value is a number, 0 otherwise. */
int tv_as_double(const struct tv_value *v, double *out);

#endif
