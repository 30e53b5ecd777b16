/* The Application log's source (see operator_log_source.h). */
#include "src/os/operator_log_source.h"

#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/base/strutil.h"

#include <string.h>

int operator_log_source_register(const struct registry *r, const char *exe_path)
{
  int rc = r->ops->set_expand_string(r->impl, OPERATOR_LOG_SOURCE_KEY, "EventMessageFile",
                                     exe_path);
  if (!rc)
    rc = r->ops->set_dword(r->impl, OPERATOR_LOG_SOURCE_KEY, "TypesSupported",
                           OPERATOR_LOG_TYPES_SUPPORTED);
  return rc;
}

/* The file EventMessageFile names: 1 with it in `out`, else 0. */
static int message_file(const struct registry *r, char *out, size_t size)
{
  return r->ops->get_string(r->impl, OPERATOR_LOG_SOURCE_KEY, "EventMessageFile", out, size) ==
             0 &&
         out[0];
}

/* Whether the viewer can still load `path`: a file there, or a value with
 * %variables% (REG_EXPAND_SZ), which etwcap never writes and does not
 * expand: someone else's, taken as sound. */
static int still_there(const char *path)
{
  int64_t size;
  return strchr(path, '%') || os_file_size(path, &size) == 0;
}

int operator_log_source_registered(const struct registry *r)
{
  char now[OPERATOR_LOG_PATH_MAX];
  return message_file(r, now, sizeof(now)) && still_there(now);
}

int operator_log_source_take(const struct registry *r, const char *exe_path)
{
  char now[OPERATOR_LOG_PATH_MAX];
  if (message_file(r, now, sizeof(now)) && !str_caseeq(now, exe_path))
    log_info("the Application log source etwcap named the message file %s; it now names %s",
             now, exe_path);
  return operator_log_source_register(r, exe_path);
}

void operator_log_source_prepare(const struct registry *r, int elevated, const char *exe_path)
{
  char now[OPERATOR_LOG_PATH_MAX] = "";
  const char *why;
  int rc;
  if (message_file(r, now, sizeof(now)) && still_there(now)) {
    /* Left alone: this etwcap.exe may run from a folder that goes away
     * (Downloads, a temporary copy), while the one named may be the
     * installed copy 'schedule create' registered. */
    if (exe_path && !str_caseeq(now, exe_path))
      log_info("/EventLog: the source etwcap keeps its message file %s (not this %s); "
               "'etwcap schedule create' registers the copy a task runs",
               now, exe_path);
    return;
  }
  if (!elevated)
    why = "this process is not elevated";
  else if (!exe_path)
    why = "etwcap.exe's own path is unknown";
  else if ((rc = operator_log_source_register(r, exe_path)) != 0)
    why = etwcap_strerror(rc);
  else {
    log_debug("/EventLog: source etwcap registered with its message file %s%s%s", exe_path,
              now[0] ? ", in place of the missing " : "", now);
    return;
  }
  log_info("/EventLog: cannot register the source etwcap (HKLM\\%s: %s), so Event Viewer shows "
           "each entry's text after a line saying its description cannot be found; an "
           "elevated capture or 'etwcap schedule create' registers it",
           OPERATOR_LOG_SOURCE_KEY, why);
}
