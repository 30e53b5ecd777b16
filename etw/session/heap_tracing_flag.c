/* /OSHeapExe's TracingFlags value (see heap_tracing_flag.h). */
#include "etw/session/heap_tracing_flag.h"

#include "src/base/error.h"
#include "src/base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int heap_tracing_flag_key(const char *exe, char *out, size_t size)
{
  int n = snprintf(out, size, "%s\\%s", PLAN_IFEO_KEY, exe);
  return n < 0 || (size_t)n >= size ? ETWCAP_E_RANGE : 0;
}

static int no_value(void *ctx, const char *name, const unsigned char *data, size_t size)
{
  (void)ctx, (void)name, (void)data, (void)size;
  return 0;
}

static int fail(int rc, char *why, size_t why_size, const char *fmt, ...) LOG_PRINTF(4, 5);

static int fail(int rc, char *why, size_t why_size, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, why_size, fmt, ap);
  va_end(ap);
  return rc;
}

int heap_tracing_flag_set(const struct registry *reg, const char *exe, struct heap_tracing_flag *f,
                          char *why, size_t why_size)
{
  char key[600];
  uint32_t now = 0;
  int rc;

  memset(f, 0, sizeof(*f));
  if (heap_tracing_flag_key(exe, key, sizeof(key)) != 0)
    return fail(ETWCAP_E_RANGE, why, why_size, "/OSHeapExe: '%s' makes too long a registry key",
                exe);
  rc = reg->ops->get_dword(reg->impl, key, HEAP_TRACING_FLAG_VALUE, &now);
  if (rc == ETWCAP_E_FORMAT) /* not the data's fault: no trace is involved */
    return fail(ETWCAP_E_SYSTEM, why, why_size,
                "/OSHeapExe:%s: HKLM\\%s has a TracingFlags value that is no REG_DWORD; "
                "etwcap leaves it alone. Remove it, or leave /OSHeapExe out",
                exe, key);
  if (rc && rc != ETWCAP_E_NOENT)
    return fail(rc, why, why_size, "/OSHeapExe:%s: cannot read TracingFlags of HKLM\\%s: %s", exe,
                key, etwcap_strerror(rc));
  if (rc == 0 && now == HEAP_TRACING_FLAG_ON) {
    log_info("TracingFlags of HKLM\\%s is already 1: the heap of new %s processes is traced "
             "already, and etwcap leaves the value as it is", key, exe);
    return 0;
  }
  f->had_value = rc == 0;
  f->prior = now;
  f->created_key =
      !f->had_value && reg->ops->values(reg->impl, key, no_value, NULL) == ETWCAP_E_NOENT;
  /* Named before the change, so a record saved from *f covers a capture
   * killed at any point after it. */
  snprintf(f->exe, sizeof(f->exe), "%s", exe);
  rc = reg->ops->set_dword(reg->impl, key, HEAP_TRACING_FLAG_VALUE, HEAP_TRACING_FLAG_ON);
  if (rc) {
    f->exe[0] = '\0';
    return fail(rc, why, why_size, "/OSHeapExe:%s: cannot set TracingFlags under HKLM\\%s: %s%s",
                exe, key, etwcap_strerror(rc),
                rc == ETWCAP_E_ACCES ? " (run from an elevated prompt)" : "");
  }
  if (f->had_value)
    log_info("set TracingFlags of HKLM\\%s to 1 (it was 0x%lx; put back at stop)", key,
             (unsigned long)f->prior);
  else
    log_info("set TracingFlags of HKLM\\%s to 1 (removed again at stop)", key);
  return 0;
}

int heap_tracing_flag_clear(const struct registry *reg, struct heap_tracing_flag *f, char *why,
                            size_t why_size)
{
  char key[600];
  uint32_t now = 0;
  int rc;

  if (!f->exe[0])
    return 0;
  if (heap_tracing_flag_key(f->exe, key, sizeof(key)) != 0) {
    f->exe[0] = '\0';
    return 0; /* no such key could have been set */
  }
  rc = reg->ops->get_dword(reg->impl, key, HEAP_TRACING_FLAG_VALUE, &now);
  if (rc == ETWCAP_E_NOENT || rc == ETWCAP_E_FORMAT || (rc == 0 && now != HEAP_TRACING_FLAG_ON)) {
    log_warn("TracingFlags of HKLM\\%s was changed by someone else since etwcap set it; left as "
             "it is", key);
    f->exe[0] = '\0';
    return 0;
  }
  if (rc)
    return fail(rc, why, why_size, "cannot read TracingFlags of HKLM\\%s (for %s): %s", key,
                f->exe, etwcap_strerror(rc));
  if (f->had_value)
    rc = reg->ops->set_dword(reg->impl, key, HEAP_TRACING_FLAG_VALUE, f->prior);
  else
    rc = reg->ops->delete_value(reg->impl, key, HEAP_TRACING_FLAG_VALUE);
  if (rc && rc != ETWCAP_E_NOENT)
    return fail(rc, why, why_size, "cannot put back TracingFlags of HKLM\\%s (for %s): %s", key,
                f->exe, etwcap_strerror(rc));
  if (f->created_key)
    reg->ops->delete_key_if_empty(reg->impl, key);
  log_info("put TracingFlags of HKLM\\%s back (%s): new %s processes are no longer heap-traced",
           key, f->had_value ? "its earlier value" : "removed", f->exe);
  f->exe[0] = '\0';
  return 0;
}
