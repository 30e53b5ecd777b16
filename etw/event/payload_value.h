/* One decoded payload field as the triggers compare it: a number (signed,
 * unsigned, floating or boolean), a GUID or a string, and the text form
 * PerfView's PayloadString shows for it (decimal numbers, True/False,
 * strings as they are, GUIDs in registry form).  A string is decoded into
 * `text`; the text of any other value is made only when asked for
 * (tv_text): most fields a reader decodes are numbers it never shows, and
 * formatting each one cost more than decoding it.  Pure data. */
#ifndef ETWCAP_PAYLOAD_VALUE_H
#define ETWCAP_PAYLOAD_VALUE_H

#include "etw/event/guid.h"

#include <stddef.h>
#include <stdint.h>

/* A string longer than this is cut (on a character boundary); a trigger
 * that matches a string decodes it whole instead (triggers/trigger_etw.c). */
#define TV_TEXT_MAX 1024

enum tv_type { TV_NONE, TV_INT, TV_UINT, TV_FLOAT, TV_BOOL, TV_TEXT, TV_GUID };

/* Room for the text of a number, a boolean or a GUID. */
#define TV_SHORT_TEXT_MAX 48

struct tv_value {
  enum tv_type type;
  int64_t i;
  uint64_t u;
  double d;
  struct etw_guid guid;
  char text[TV_TEXT_MAX]; /* TV_TEXT: the string; otherwise empty (see tv_text) */
};

void tv_set_int(struct tv_value *v, int64_t x);
void tv_set_uint(struct tv_value *v, uint64_t x);
void tv_set_float(struct tv_value *v, double x);
/* A 32-bit BOOL: its number (0 or 1), shown as True or False. */
void tv_set_bool(struct tv_value *v, int x);
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
/* The value's text: v->text for a string, "" for TV_NONE, otherwise made
 * in buf (TV_SHORT_TEXT_MAX bytes) and returned. */
const char *tv_text(const struct tv_value *v, char *buf);

#endif
