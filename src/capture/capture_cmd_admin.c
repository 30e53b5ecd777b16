/* `abort` (stop every etwcap session, merge nothing) and `listSessions`
 * (see capture_cmd.h).  Ours are recognised by name: the /SessionName
 * prefix ("etwcap" by default), plus whatever a session record names (the
 * shared "NT Kernel Logger" on Windows 7).  Another tool's session is never
 * touched, nor a session of an `etwcap selftest` that still runs. */
#include "src/capture/capture_cmd_internal.h"

#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/base/strutil.h"
#include "src/capture/packet_capture.h"
#include "src/capture/session_record.h"
#include "src/cli/cli.h"
#include "src/selftest/selftest_run.h"

#include <stdio.h>
#include <string.h>

#define MAX_NAMES 128

struct names {
  char list[MAX_NAMES][PLAN_NAME_MAX];
  size_t count;
};

static void add_name(struct names *n, const char *name)
{
  size_t i;
  for (i = 0; i < n->count; i++)
    if (str_caseeq(n->list[i], name))
      return;
  if (n->count < MAX_NAMES)
    snprintf(n->list[n->count++], PLAN_NAME_MAX, "%s", name);
}

static int is_ours(const char *name, const char *prefix)
{
  return str_ncaseeq(name, prefix, strlen(prefix));
}

struct gather {
  struct names *names;
  const char *prefix;
};

/* A running `etwcap selftest` finishes and stops its own sessions; once
 * its process is gone they are leftovers like any other. */
static int spared(const char *name)
{
  unsigned long owner;
  if (!selftest_session_owner(name, &owner) || !session_record_owner_alive(owner, 0))
    return 0;
  log_info("left '%s' running: it belongs to 'etwcap selftest' (process %lu), which still runs",
           name, owner);
  return 1;
}

static int gather_ours(void *ctx, const struct controller_status *s)
{
  struct gather *g = ctx;
  if (is_ours(s->name, g->prefix) && !spared(s->name))
    add_name(g->names, s->name);
  return 0;
}

int capture_cmd_abort(const struct cli *cli, const struct collection_env *env)
{
  static struct names names; /* large; abort runs once per process */
  struct controller *ctl = env->ctl;
  const char *prefix = capture_cmd_prefix(cli);
  struct session_record r;
  struct gather g;
  struct plan plan;
  char record[CONTROLLER_PATH_MAX], request[CONTROLLER_PATH_MAX], why[512], detail[160];
  static const char *const suffixes[] = { "", "Kernel", "Heap", "Rundown", "KernelRundown", NULL };
  int have_record = 0, owner_alive = 0, rc, stopped = 0, failed = 0;
  size_t i;

  memset(&names, 0, sizeof(names));
  memset(&r, 0, sizeof(r));
  record[0] = request[0] = '\0';
  /* The record of the DataFile (default etwcapData.etl) names sessions the
   * prefix does not cover. */
  if (capture_cmd_plan(env, cli, "collect", NULL, NULL, &plan) == 0 &&
      session_record_path(plan.data_file, record, sizeof(record)) == 0 &&
      session_request_path(plan.data_file, request, sizeof(request)) == 0 &&
      session_record_read(record, &r, why, sizeof(why)) == 0) {
    have_record = 1;
    for (i = 0; i < r.session_count; i++)
      add_name(&names, r.sessions[i].name);
    owner_alive = str_caseeq(r.mode, "collect") && session_record_owner_alive(r.pid, r.pid_created);
    if (owner_alive)
      session_request_write(request, "abort");
  }
  g.names = &names;
  g.prefix = prefix;
  rc = ctl->ops->list(ctl, gather_ours, &g);
  if (rc == ETWCAP_E_ACCES) {
    log_error("cannot list the trace sessions (%s): run from an elevated prompt",
              controller_error_text(ctl, detail, sizeof(detail)));
    session_record_release(&r);
    plan_release(&plan);
    return rc;
  }
  if (rc)
    log_warn("cannot list the trace sessions (%s); stopping etwcap's usual names",
             controller_error_text(ctl, detail, sizeof(detail)));
  /* More sessions than one listing shows, or a failed listing: the names
   * etwcap gives are tried as well. */
  for (i = 0; suffixes[i]; i++) {
    char name[PLAN_NAME_MAX];
    snprintf(name, sizeof(name), "%s%s", prefix, suffixes[i]);
    if (!spared(name))
      add_name(&names, name);
  }

  for (i = 0; i < names.count; i++) {
    struct controller_status st;
    int src = ctl->ops->stop(ctl, names.list[i], &st);
    if (src == 0) {
      stopped++;
      printf("Stopped %s%s%s\n", names.list[i], st.file[0] ? " -> " : "", st.file);
      log_info("aborted '%s' (%lu events lost)", names.list[i], (unsigned long)st.events_lost);
    } else if (src != ETWCAP_E_NO_SESSION) {
      failed++;
      log_warn("cannot stop '%s' (%s): %s", names.list[i],
               controller_error_text(ctl, detail, sizeof(detail)), etwcap_strerror(src));
    }
  }
  collection_remove_provider_data(env, prefix, 1);
  /* A running collect ends its own packet capture when it sees the abort
   * request; a killed one left it to the record. */
  if (have_record && !owner_alive && r.packet_capture_file[0]) {
    struct packet_capture pc;
    packet_capture_adopt(&pc, r.packet_capture_file, r.packet_capture_netmon);
    if (packet_capture_stop(&pc, env) != 0)
      failed++;
    else
      printf("Stopped the packet capture ('netsh trace stop').\n");
  }
  if (have_record && r.profile_interval_100ns && r.profile_interval_100ns != 10000 &&
      ctl->ops->set_profile_interval(ctl, 10000) != 0)
    log_warn("cannot put the CPU sampling interval back to 1 ms");
  /* A running collect removes its own record when it ends, and puts its
   * TracingFlags back; a record whose flag is still set is kept for the
   * next abort. */
  if (have_record && !owner_alive) {
    if (collection_heap_flag_clear(env, &r.heap_flag) != 0)
      failed++;
    else
      os_remove(record);
  }
  if (stopped)
    printf("Aborted %d session%s; their files are kept as they are, not merged.\n", stopped,
           stopped == 1 ? "" : "s");
  else
    printf("No etwcap session (named %s...) was running.\n", prefix);
  session_record_release(&r);
  plan_release(&plan);
  return failed ? ETWCAP_E_SYSTEM : 0;
}

/* --- listSessions ---------------------------------------------------------- */

struct lister {
  const char *prefix;
  unsigned count;
};

static void mode_text(const struct controller_status *s, char *buf, size_t size)
{
  const char *kind = (s->log_file_mode & PLAN_BUFFERING_MODE)         ? "in memory"
                     : (s->log_file_mode & PLAN_FILE_MODE_CIRCULAR)   ? "circular"
                     : (s->log_file_mode & PLAN_FILE_MODE_SEQUENTIAL) ? "sequential"
                     : (s->log_file_mode & PLAN_REAL_TIME_MODE)       ? "real time"
                                                                      : "other";
  if (s->maximum_file_size_mb)
    snprintf(buf, size, "%s %lu MB%s", kind, (unsigned long)s->maximum_file_size_mb,
             (s->log_file_mode & PLAN_SYSTEM_LOGGER_MODE) ? ", system logger" : "");
  else
    snprintf(buf, size, "%s%s", kind,
             (s->log_file_mode & PLAN_SYSTEM_LOGGER_MODE) ? ", system logger" : "");
}

static int print_one(void *ctx, const struct controller_status *s)
{
  struct lister *l = ctx;
  char mode[64];
  char size[24];
  if (!l->count)
    printf("  %-32s %-26s %9s %13s %10s  %s\n", "SESSION", "MODE", "LOST", "BUFFERS", "SIZE",
           "FILE");
  mode_text(s, mode, sizeof(mode));
  if (s->file_bytes >= 0)
    snprintf(size, sizeof(size), "%.1f MB", (double)s->file_bytes / 1048576.0);
  else
    snprintf(size, sizeof(size), "-");
  printf("%c %-32s %-26s %9lu %6lu/%-6lu %10s  %s\n", is_ours(s->name, l->prefix) ? '*' : ' ',
         s->name, mode, (unsigned long)s->events_lost, (unsigned long)s->buffers,
         (unsigned long)s->maximum_buffers, size, s->file[0] ? s->file : "-");
  l->count++;
  return 0;
}

int capture_cmd_list(const struct cli *cli, const struct collection_env *env)
{
  struct controller *ctl = env->ctl;
  struct lister l;
  char detail[160];
  int rc;
  l.prefix = capture_cmd_prefix(cli);
  l.count = 0;
  rc = ctl->ops->list(ctl, print_one, &l);
  if (rc) {
    log_error("cannot list the trace sessions (%s): %s%s",
              controller_error_text(ctl, detail, sizeof(detail)), etwcap_strerror(rc),
              rc == ETWCAP_E_ACCES ? "; run from an elevated prompt" : "");
    return rc;
  }
  if (!l.count)
    printf("No ETW sessions are running.\n");
  else
    printf("%u session%s (* = etwcap's, named %s...; LOST = events lost, BUFFERS = in use / "
           "maximum).\n",
           l.count, l.count == 1 ? "" : "s", l.prefix);
  return 0;
}
