/* `etwcap selftest` (see selftest_run.h). */
#include "src/selftest/selftest_run.h"

#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/file_write.h"
#include "src/base/json_tree.h"
#include "src/base/log.h"
#include "src/base/log_memory.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_time.h"
#include "src/base/strbuf.h"
#include "src/base/strutil.h"
#include "src/base/zip/zip_member_text.h"
#include "src/capture/capture_cmd.h"
#include "src/cli/cli.h"
#include "src/finish/capture_manifest.h"
#include "src/os/os_proc.h"
#include "src/selftest/selftest_capture.h"
#include "src/selftest/selftest_checks.h"
#include "src/selftest/selftest_phases.h"
#include "src/selftest/selftest_workload.h"
#include "src/version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int selftest_session_owner(const char *name, unsigned long *pid)
{
  size_t n = strlen(SELFTEST_SESSION_PREFIX);
  unsigned long v = 0;
  const char *p;
  if (!str_ncaseeq(name, SELFTEST_SESSION_PREFIX, n))
    return 0;
  for (p = name + n; *p >= '0' && *p <= '9' && v < 100000000ul; p++)
    v = v * 10 + (unsigned long)(*p - '0');
  if (p == name + n)
    return 0;
  *pid = v;
  return 1;
}

void selftest_print_checks(FILE *out)
{
  size_t i;
  for (i = 0; i < selftest_check_count; i++)
    fprintf(out, "  %s  %s\n", selftest_checks[i].name, selftest_checks[i].what);
}

/* --- the capture ---------------------------------------------------------- */

/* The selftest's log: every line, for etwcap-selftest.txt, and the first
 * error the capture logged, for its FAIL line.  One sink, as sinks are few
 * (LOG_MAX_SINKS) and the capture adds its own. */
struct selftest_log {
  struct log_memory all;
  int capturing;
  char first_error[200];
};

static void selftest_log_sink(void *ctx, enum log_level level, const char *line)
{
  struct selftest_log *l = ctx;
  log_memory_sink(&l->all, level, line);
  if (l->capturing && level >= LOG_ERROR && !l->first_error[0])
    snprintf(l->first_error, sizeof(l->first_error), "%s", line);
}

static int capture(const struct selftest_config *cfg, const char *prefix, const char *data)
{
  char stop[96];
  const char *extra[] = { "/Providers:*" SELFTEST_TL_PROVIDER, stop, "/DelayAfterTriggerSec:2",
                          "/MaxCollectSec:40", "/RundownTimeout:20", "/CircularMB:256",
                          "/BufferSizeMB:64" };
  snprintf(stop, sizeof(stop), "/StopOnEtwEvent:*%s/%s", SELFTEST_TL_PROVIDER, SELFTEST_TL_STOP);
  return selftest_collect(cfg->env, prefix, data, extra, sizeof(extra) / sizeof(extra[0]));
}

/* --- reading the result back ------------------------------------------------ */

static void read_manifest(const char *zip, struct selftest_outcome *o)
{
  char *text, why[200];
  struct json_node *doc = NULL;
  const struct json_node *trigger, *sessions, *health;
  size_t i, j;
  size_t len;
  if (zip_member_text(zip, CAPTURE_MANIFEST_NAME, CAPTURE_MANIFEST_MAX_BYTES, &text, &len, why,
                      sizeof(why)) != 0)
    return;
  if (json_parse(text, len, &doc, why, sizeof(why)) == 0) {
    o->manifest_read = 1;
    trigger = json_get(doc, "trigger");
    if (trigger && trigger->type == JSON_OBJECT)
      snprintf(o->trigger_fired, sizeof(o->trigger_fired), "%s",
               json_string(trigger, "name", ""));
    sessions = json_get(doc, "sessions");
    for (i = 0; sessions && sessions->type == JSON_ARRAY && i < sessions->count; i++) {
      o->sessions_events_lost += (uint64_t)json_int(&sessions->items[i], "eventsLost", 0);
      o->sessions_buffers_lost += (uint64_t)json_int(&sessions->items[i], "buffersLost", 0);
    }
    health = json_get(doc, "health");
    for (i = 0; health && health->type == JSON_ARRAY && i < health->count; i++) {
      const struct json_node *s = &health->items[i];
      const struct json_node *w = json_get(s, "warnings");
      for (j = 0; w && w->type == JSON_ARRAY && j < w->count; j++) {
        if (!o->health_warnings++)
          snprintf(o->health_first, sizeof(o->health_first), "'%s' %s",
                   json_string(s, "session", "?"), w->items[j].text ? w->items[j].text : "");
      }
    }
    json_free(doc);
  }
  etwcap_free(text);
}

struct leftover_sessions {
  const char *prefix;
  char list[16][PLAN_NAME_MAX];
  size_t count;
};

static int gather_left(void *ctx, const struct controller_status *s)
{
  struct leftover_sessions *l = ctx;
  if (!str_ncaseeq(s->name, l->prefix, strlen(l->prefix)))
    return 0;
  if (l->count < 16)
    snprintf(l->list[l->count], PLAN_NAME_MAX, "%s", s->name);
  l->count++;
  return 0;
}

/* Sessions of this selftest still running: counted for the check, then
 * stopped, so the selftest never leaves one behind. */
static void sessions_left(const struct selftest_config *cfg, const char *prefix,
                          struct selftest_outcome *o)
{
  struct controller *ctl = cfg->env->ctl;
  static struct leftover_sessions l;
  size_t i, n = 0;
  memset(&l, 0, sizeof(l));
  l.prefix = prefix;
  o->sessions_listed = ctl->ops->list(ctl, gather_left, &l) == 0;
  o->sessions_left = l.count;
  for (i = 0; i < l.count && i < 16; i++) {
    if (n < sizeof(o->left_names))
      n += (size_t)snprintf(o->left_names + n, sizeof(o->left_names) - n, "%s%s",
                            i ? ", " : "", l.list[i]);
    if (ctl->ops->stop(ctl, l.list[i], NULL) == 0)
      log_warn("selftest: stopped '%s', which the capture had left running", l.list[i]);
  }
}

/* --- the verdict ---------------------------------------------------------------- */

static void print_results(FILE *out, struct strbuf *txt, const struct selftest_result *results,
                          unsigned *passed, unsigned *failed)
{
  size_t i;
  *passed = *failed = 0;
  for (i = 0; i < selftest_check_count; i++) {
    const struct selftest_result *r = &results[i];
    char line[512];
    snprintf(line, sizeof(line), "%s %s %s", selftest_verdict_name(r->verdict),
             selftest_checks[i].name, r->detail);
    fprintf(out, "%s\n", line);
    strbuf_printf(txt, "%s\n", line);
    if (r->verdict == SELFTEST_PASS)
      (*passed)++;
    else if (r->verdict == SELFTEST_FAIL)
      (*failed)++;
  }
  fprintf(out, "selftest: %u passed, %u failed\n", *passed, *failed);
  strbuf_printf(txt, "selftest: %u passed, %u failed\n", *passed, *failed);
}

static void write_report(const char *path, struct strbuf *txt, const struct log_memory *log)
{
  char *text = NULL;
  int rc;
  strbuf_puts(txt, "\n--- log ---\n");
  if (log->text)
    strbuf_puts(txt, log->text);
  rc = strbuf_finish(txt, &text);
  if (!rc)
    rc = file_write_replace(path, text, strlen(text));
  if (rc)
    log_warn("selftest: cannot write '%s': %s", path, etwcap_strerror(rc));
  etwcap_free(text);
}

static void outcome_of_workload(const struct selftest_workload_report *w,
                                struct selftest_outcome *o)
{
  o->child_rc = w->child_rc;
  o->dll_rc = w->dll_rc;
  o->events_rc = w->events_rc;
  o->threads_rc = w->threads_rc;
  o->dotnet_rc = w->dotnet_rc;
  snprintf(o->dotnet_what, sizeof(o->dotnet_what), "%s", w->dotnet_what);
  snprintf(o->dotnet_why, sizeof(o->dotnet_why), "%s", w->dotnet_why);
  o->busy_cpu_known = w->spin.cpu_known;
  o->busy_cpu_100ns = w->spin.cpu_100ns;
  o->sample_interval_100ns = SELFTEST_SAMPLE_INTERVAL_100NS;
  snprintf(o->workload_why, sizeof(o->workload_why), "%s", w->why);
}

int selftest_run(const struct selftest_config *cfg)
{
  static struct selftest_facts facts;
  struct selftest_result results[32];
  struct selftest_outcome o;
  struct selftest_expect x;
  struct selftest_workload work;
  struct selftest_workload_report wr;
  static struct selftest_log log;
  struct strbuf txt;
  char prefix[64], trigger[PLAN_NAME_MAX], data[1024], zip[1024], report[1024];
  char machine[128], os[128], when[40];
  unsigned passed, failed;
  int64_t size = 0;
  int have_zip;
  uint64_t start_ms = cfg->env->now_ms(cfg->env->ctx);

  if (selftest_check_count > sizeof(results) / sizeof(results[0]))
    return ETWCAP_E_INTERNAL;
  memset(&log, 0, sizeof(log));
  memset(&txt, 0, sizeof(txt));
  memset(&o, 0, sizeof(o));
  log_add_sink(selftest_log_sink, &log, LOG_DEBUG);
  snprintf(prefix, sizeof(prefix), "%s%lu", SELFTEST_SESSION_PREFIX, cfg->pid);
  snprintf(trigger, sizeof(trigger), "%sTrigger_%lu", prefix, cfg->pid);
  selftest_join_path(data, sizeof(data), cfg->dir, SELFTEST_DATA_FILE);
  selftest_join_path(zip, sizeof(zip), cfg->dir, SELFTEST_ZIP_FILE);
  selftest_join_path(report, sizeof(report), cfg->dir, SELFTEST_REPORT_FILE);
  os_remove(zip); /* never read back an earlier selftest's result */
  log_info("selftest: sessions %s..., workload waits for '%s'", prefix, trigger);

  selftest_workload_init(&work, cfg->os, cfg->work_env, trigger, (uint32_t)cfg->pid);
  selftest_workload_start(&work);
  log.capturing = 1;
  o.capture_rc = capture(cfg, prefix, data);
  log.capturing = 0;
  selftest_workload_join(&work, &wr);
  outcome_of_workload(&wr, &o);
  o.os_build = cfg->env->os_known ? cfg->env->os.build : 0;
  selftest_phases_run(cfg, prefix, start_ms, &o);
  /* The .NET child had to live through every CLR rundown. */
  cfg->os->stop_dotnet(cfg->os->ctx);
  have_zip = os_file_size(zip, &size) == 0;
  if (o.capture_rc)
    snprintf(o.capture_detail, sizeof(o.capture_detail), "the capture failed: %s",
             log.first_error[0] ? log.first_error : etwcap_strerror(o.capture_rc));
  else if (!have_zip) {
    o.capture_rc = ETWCAP_E_NOENT;
    snprintf(o.capture_detail, sizeof(o.capture_detail), "the capture wrote no %.200s", zip);
  } else
    snprintf(o.capture_detail, sizeof(o.capture_detail), "wrote %.200s (%.1f MB)", zip,
             (double)size / 1048576.0);

  memset(&x, 0, sizeof(x));
  x.child_pid = wr.child_pid;
  x.self_pid = (uint32_t)cfg->pid;
  x.busy_tid = wr.spin.tid;
  x.dotnet_pid = wr.dotnet_rc ? 0 : wr.dotnet_pid;
  x.dll_name = SELFTEST_DLL;
  selftest_tl_provider_guid(&x.own_provider);
  x.own_events = SELFTEST_TL_STEPS + 1;
  x.own_last_name = SELFTEST_TL_STOP;
  selftest_facts_init(&facts, &x);
  /* Whatever the capture wrote is read, even when it ended in an error. */
  if (have_zip)
    selftest_scan_file(&facts, zip);
  o.trigger_expected = "StopOnEtwEvent";
  if (have_zip)
    read_manifest(zip, &o);
  sessions_left(cfg, prefix, &o);
  selftest_judge_all(&facts, &o, results);
  selftest_facts_release(&facts);

  strbuf_printf(&txt, "etwcap %s selftest on %s (%s), %s UTC\n", ETWCAP_VERSION,
                os_hostname(machine, sizeof(machine)), os_describe(os, sizeof(os)),
                filetime_format_iso7(os_time_now_utc_filetime(), when, sizeof(when)));
  strbuf_printf(&txt, "workload: child %lu (exit %d), .NET child %lu (%s), DLL %s, %u events "
                      "written%s%s\n\n",
                (unsigned long)wr.child_pid, wr.child_exit, (unsigned long)wr.dotnet_pid,
                wr.dotnet_rc ? wr.dotnet_why : wr.dotnet_what, wr.dll_path[0] ? wr.dll_path : "-",
                wr.events_written, wr.why[0] ? "; " : "", wr.why);
  log_info("selftest: for a bug report, attach %s%s%s", report, have_zip ? " and " : "",
           have_zip ? zip : "");
  selftest_phases_print_routes(&o, cfg->out, &txt);
  print_results(cfg->out, &txt, results, &passed, &failed);
  log_remove_sink(selftest_log_sink, &log);
  write_report(report, &txt, &log.all);
  log_memory_release(&log.all);
  return failed ? ETWCAP_E_SYSTEM : 0;
}
