/* The Application log's source (see operator_log_source.h). */
#include "src/os/operator_log_source.h"

#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/strutil.h"


int operator_log_source_register(const struct registry *r, const char *exe_path)
{
  int rc = r->ops->set_expand_string(r->impl, OPERATOR_LOG_SOURCE_KEY, "EventMessageFile",
                                     exe_path);
  if (!rc)
    rc = r->ops->set_dword(r->impl, OPERATOR_LOG_SOURCE_KEY, "TypesSupported",
                           OPERATOR_LOG_TYPES_SUPPORTED);
  return rc;
}

static int is_message_file(void *ctx, const char *name, const unsigned char *data, size_t size)
{
  (void)ctx, (void)data;
  return str_caseeq(name, "EventMessageFile") && size > 1;
}

int operator_log_source_registered(const struct registry *r)
{
  return r->ops->values(r->impl, OPERATOR_LOG_SOURCE_KEY, is_message_file, NULL) == 1;
}

void operator_log_source_prepare(const struct registry *r, int elevated, const char *exe_path)
{
  const char *why;
  int rc;
  if (!elevated)
    why = "this process is not elevated";
  else if (!exe_path)
    why = "etwcap.exe's own path is unknown";
  else if ((rc = operator_log_source_register(r, exe_path)) != 0)
    why = etwcap_strerror(rc);
  else {
    log_debug("/EventLog: source etwcap registered with its message file %s", exe_path);
    return;
  }
  if (operator_log_source_registered(r))
    return;
  log_info("/EventLog: cannot register the source etwcap (HKLM\\%s: %s), so Event Viewer shows "
           "each entry's text after a line saying its description cannot be found; an "
           "elevated capture or 'etwcap schedule create' registers it",
           OPERATOR_LOG_SOURCE_KEY, why);
}
