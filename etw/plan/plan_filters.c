/* EVENT_FILTER_DESCRIPTOR payloads, byte for byte (evntprov.h layouts,
 * docs/perfview-collection.md §4.5-§4.6, docs/win32-contract.md §5.6), built
 * once in the plan so the controller only points EnableTraceEx2 at them and
 * the tests can check every byte. */
#include "etw/plan/plan.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

struct bytes {
  uint8_t *data;
  size_t size, cap;
  int failed;
};

static void put(struct bytes *b, const void *p, size_t n)
{
  if (b->failed)
    return;
  if (b->size + n > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 64;
    uint8_t *grown;
    while (cap < b->size + n)
      cap *= 2;
    grown = etwcap_realloc(b->data, cap);
    if (!grown) {
      b->failed = 1;
      return;
    }
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->size, p, n);
  b->size += n;
}

static void put_u16(struct bytes *b, uint32_t v)
{
  uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
  put(b, x, 2);
}

static void put_u32(struct bytes *b, uint32_t v)
{
  uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
  put(b, x, 4);
}

static void put_cstr(struct bytes *b, const char *s)
{
  put(b, s, strlen(s) + 1);
}

/* UTF-8 to UTF-16LE units; invalid bytes become U+FFFD. */
static void put_utf16(struct bytes *b, const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    uint32_t cp = 0xFFFD;
    size_t n = 1;
    if (p[0] < 0x80)
      cp = p[0];
    else if ((p[0] & 0xE0) == 0xC0 && (p[1] & 0xC0) == 0x80) {
      cp = (uint32_t)(p[0] & 0x1F) << 6 | (p[1] & 0x3F);
      n = 2;
    } else if ((p[0] & 0xF0) == 0xE0 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
      cp = (uint32_t)(p[0] & 0x0F) << 12 | (uint32_t)(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
      n = 3;
    } else if ((p[0] & 0xF8) == 0xF0 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 &&
               (p[3] & 0xC0) == 0x80) {
      cp = (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3F) << 12 |
           (uint32_t)(p[2] & 0x3F) << 6 | (p[3] & 0x3F);
      n = 4;
    }
    p += n;
    if (cp >= 0x10000 && cp <= 0x10FFFF) {
      cp -= 0x10000;
      put_u16(b, 0xD800 + (cp >> 10));
      put_u16(b, 0xDC00 + (cp & 0x3FF));
    } else {
      put_u16(b, cp);
    }
  }
  put_u16(b, 0);
}

static int add(struct plan_provider *p, uint32_t type, struct bytes *b)
{
  if (b->failed) {
    etwcap_free(b->data);
    return ETWCAP_E_NOMEM;
  }
  if (p->filter_count == PLAN_MAX_FILTERS) {
    etwcap_free(b->data);
    return ETWCAP_E_RANGE;
  }
  p->filters[p->filter_count].type = type;
  p->filters[p->filter_count].data = b->data;
  p->filters[p->filter_count].size = (uint32_t)b->size;
  p->filter_count++;
  return 0;
}

static int add_ids(struct plan_provider *p, uint32_t type, const struct provider_id_filter *f)
{
  struct bytes b = { 0 };
  size_t i;
  uint8_t head[2] = { (uint8_t)(f->filter_in ? 1 : 0), 0 }; /* FilterIn, Reserved */
  put(&b, head, 2);
  put_u16(&b, (uint32_t)f->count);
  for (i = 0; i < f->count; i++)
    put_u16(&b, f->ids[i]);
  return add(p, type, &b);
}

static int build_filters(struct plan_provider *p, const char *session_name, int keyword_bit)
{
  size_t i;
  int rc;
  plan_provider_release_filters(p);

  if (p->arg_count) {
    /* TraceEvent's layout: the session's name and keyword bit, then the
     * user's key/value pairs, each NUL-terminated UTF-8.  Command=... is not
     * an argument but the descriptor type. */
    struct bytes b = { 0 };
    uint32_t type = PLAN_FILTER_PROVIDER_DATA;
    char bit[8];
    snprintf(bit, sizeof(bit), "%d", keyword_bit);
    put_cstr(&b, "EtwSessionName");
    put_cstr(&b, session_name);
    put_cstr(&b, "EtwSessionKeyword");
    put_cstr(&b, bit);
    for (i = 0; i < p->arg_count; i++) {
      if (str_caseeq(p->args[i].key, "Command") &&
          (str_caseeq(p->args[i].value, "SendManifest") || str_caseeq(p->args[i].value, "Update"))) {
        if (str_caseeq(p->args[i].value, "SendManifest"))
          type = PLAN_FILTER_SEND_MANIFEST;
        continue;
      }
      put_cstr(&b, p->args[i].key);
      put_cstr(&b, p->args[i].value);
    }
    if ((rc = add(p, type, &b)) != 0)
      return rc;
  }
  if (p->pid_count) {
    struct bytes b = { 0 };
    for (i = 0; i < p->pid_count; i++)
      put_u32(&b, p->pids[i]);
    if ((rc = add(p, PLAN_FILTER_PID, &b)) != 0)
      return rc;
  }
  if (p->exe_names) {
    struct bytes b = { 0 };
    put_utf16(&b, p->exe_names);
    if ((rc = add(p, PLAN_FILTER_EXECUTABLE_NAME, &b)) != 0)
      return rc;
  }
  if (p->events.present && (rc = add_ids(p, PLAN_FILTER_EVENT_ID, &p->events)) != 0)
    return rc;
  if (p->stack_events.present &&
      (rc = add_ids(p, PLAN_FILTER_STACKWALK, &p->stack_events)) != 0)
    return rc;
  return 0;
}

int plan_provider_build_filters(struct plan_provider *p, const char *session_name)
{
  return build_filters(p, session_name, PLAN_EVENTSOURCE_SESSION_KEYWORD_BIT);
}

int plan_session_keyword_free(uint64_t in_use)
{
  int bit;
  for (bit = PLAN_EVENTSOURCE_SESSION_KEYWORD_BIT; bit <= PLAN_EVENTSOURCE_SESSION_KEYWORD_LAST;
       bit++)
    if (!(in_use & (1ull << bit)))
      return bit;
  return -1;
}

int plan_provider_with_session_keyword(const struct plan_provider *p, const char *session_name,
                                       int bit, struct plan_provider *out)
{
  uint64_t reserved = 0;
  int b, rc;
  for (b = PLAN_EVENTSOURCE_SESSION_KEYWORD_BIT; b <= PLAN_EVENTSOURCE_SESSION_KEYWORD_LAST; b++)
    reserved |= 1ull << b;
  *out = *p;
  out->filter_count = 0; /* p's stay p's */
  if (bit < PLAN_EVENTSOURCE_SESSION_KEYWORD_BIT || bit > PLAN_EVENTSOURCE_SESSION_KEYWORD_LAST)
    return ETWCAP_E_RANGE;
  out->match_all = (p->match_all & ~reserved) | (1ull << bit);
  if ((rc = build_filters(out, session_name, bit)) != 0)
    plan_provider_release_filters(out);
  return rc;
}
