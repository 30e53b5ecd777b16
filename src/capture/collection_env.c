/* The real collection_env: os_time.h, os_file.h and os_version.h; and the
 * /EventLog report. */
#include "src/capture/collection_env.h"

#include "src/base/error.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_time.h"
#include "src/base/path_name.h"
#include "src/os/operator_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static uint64_t real_now_ms(void *ctx)
{
  (void)ctx;
  return os_time_monotonic_ns() / 1000000u;
}

static void real_sleep_ms(void *ctx, unsigned ms)
{
  (void)ctx;
  os_time_sleep_ms(ms);
}

static int64_t real_utc_now(void *ctx)
{
  (void)ctx;
  return os_time_now_utc_filetime();
}

static int real_file_size(void *ctx, const char *path, int64_t *size)
{
  (void)ctx;
  return os_file_size(path, size);
}

/* The folder of `path` ("." for a bare name): the file may not exist yet. */
static int real_free_disk(void *ctx, const char *path, uint64_t *bytes)
{
  char dir[1024];
  size_t dir_len = path_dir_len(path);
  const char *slash = dir_len ? path + dir_len - 1 : NULL;
  (void)ctx;
  if (!slash)
    snprintf(dir, sizeof(dir), ".");
  else if (slash == path)
    snprintf(dir, sizeof(dir), "%.1s", path);
  else
    snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
  /* "C:" alone means the current folder of C:, "C:\" the root. */
  if (strlen(dir) == 2 && dir[1] == ':')
    snprintf(dir + 2, sizeof(dir) - 2, "\\");
  return os_free_disk_bytes(dir, bytes);
}

void collection_env_system(struct collection_env *env, struct controller *ctl)
{
  memset(env, 0, sizeof(*env));
  env->ctl = ctl;
  env->now_ms = real_now_ms;
  env->sleep_ms = real_sleep_ms;
  env->utc_now = real_utc_now;
  env->file_size = real_file_size;
  env->free_disk = real_free_disk;
  env->os_known = os_windows_version(&env->os) == 0;
}

void collection_env_report(const struct collection_env *env, unsigned id, const char *fmt, ...)
{
  static int warned;
  char text[2048];
  va_list ap;
  int rc;
  va_start(ap, fmt);
  vsnprintf(text, sizeof(text), fmt, ap);
  va_end(ap);
  rc = env->operator_log ? env->operator_log(env->ctx, id, text)
                         : operator_log_write((enum operator_event)id, text);
  if (rc && !warned) {
    warned = 1;
    log_warn("/EventLog: cannot write to the Application log (%s); the capture goes on",
             etwcap_strerror(rc));
  }
}
