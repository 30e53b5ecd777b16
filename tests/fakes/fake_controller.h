/* A fake of the controller seam (etw/session/controller.h) for the portable
 * lifecycle tests: it keeps sessions in memory, records every operation,
 * fails the ones a test scripts, and writes small valid ETL files for file
 * sessions (at start, and again with events at stop) so the merge and zip
 * at the end of a capture have real inputs.  Also a virtual clock for
 * collection_env, so waits of minutes take no time.
 *
 * Lifetime: everything lives in the caller's struct; no allocation. */
#ifndef ETWCAP_FAKE_CONTROLLER_H
#define ETWCAP_FAKE_CONTROLLER_H

#include "etw/session/controller.h"
#include "src/capture/collection_env.h"

#include <stddef.h>
#include <stdint.h>

#define FAKE_MAX_SESSIONS 16
#define FAKE_MAX_CALLS 2048
#define FAKE_MAX_FAILS 16

struct fake_call {
  char op[24];    /* "start", "enable", "kernel_flags", "query_mask", "stack_ids",
                     "profile_interval", "stack_caching", "privilege", "query", "flush",
                     "stop", "list", "query_sources", "source_interval",
                     "profile_sources", "lbr", "keywords" */
  char session[PLAN_NAME_MAX];
  uint64_t handle;
  uint32_t value; /* flags, interval, id count, EnableProperty, LogFileMode */
  struct etw_guid guid;
  uint8_t level;
  uint64_t any, all;
  size_t filter_count;
  unsigned params_version;
  uint32_t control_code;                /* enable: PLAN_CONTROL_* */
  uint32_t mask[PLAN_GROUP_MASK_WORDS]; /* kernel_flags: the group mask */
  uint32_t cache_size, buckets;         /* stack_caching */
  int flush_props;                      /* flush: a plan session's block came with it */
  uint32_t source;                      /* source_interval: the source (interval in value) */
  uint32_t ids[PLAN_MAX_PROFILE_SOURCES]; /* profile_sources: ids; lbr: sources (filters in value) */
  size_t id_count;
  int rc;         /* what the fake answered */
};

struct fake_session {
  char name[PLAN_NAME_MAX];
  char file[CONTROLLER_PATH_MAX];
  uint32_t log_file_mode, buffer_size_kb, minimum_buffers, maximum_buffers;
  uint32_t maximum_file_size_mb, enable_flags;
  uint64_t handle;
  uint32_t group_mask[PLAN_GROUP_MASK_WORDS]; /* from EnableFlags at start, or kernel_flags */
  int mask_set;   /* a system logger: group_mask is its kernel groups in effect */
  unsigned pending; /* fake_event_kind bits its file gets at the next write */
  int stack_caching; /* TraceStackCachingInfo enabled it: stacks come as keys */
  /* What a query answers (tests change them between queries); a started
   * session has written 3 buffers. */
  uint32_t buffers_written, events_lost, log_buffers_lost, realtime_buffers_lost;
  int foreign;    /* another tool's: ours must never stop it */
  int running;
};

struct fake_fail {
  char op[24];
  char session[PLAN_NAME_MAX]; /* "" = any */
  int code;
  uint32_t property_mask;      /* enable: only when EnableProperty has one of these bits */
  int filters;                 /* enable: only when a scope filter (not provider data) is there */
  int times;                   /* how many calls fail; 0 = every one */
};

/* Called before each operation (e.g. to deliver Ctrl+C in the middle). */
typedef void (*fake_before_fn)(void *ctx, const char *op, const char *session);

struct fake_controller {
  struct controller ctl; /* hand &ctl to the code under test */
  struct fake_session sessions[FAKE_MAX_SESSIONS];
  size_t session_count;
  struct fake_call calls[FAKE_MAX_CALLS];
  size_t call_count;
  struct fake_fail fails[FAKE_MAX_FAILS];
  size_t fail_count;
  fake_before_fn before;
  void *before_ctx;
  int write_files;       /* default 1 */
  /* Groups this "Windows" leaves out of every group mask it is given, so a
   * query_mask shows less than was asked (the read-back test). */
  uint32_t drop_groups[PLAN_GROUP_MASK_WORDS];
  uint64_t next_handle;
  /* Other tools' enables of a provider: query_provider_keywords answers
   * the MatchAllKeyword of these and of this fake's own enables of it in
   * sessions that still run. */
  struct {
    struct etw_guid guid;
    uint64_t all;
  } foreign_keywords[4];
  size_t foreign_keyword_count;
  /* What query_sources answers: this "machine's" profile sources. */
  struct plan_machine_source sources[PLAN_MAX_MACHINE_SOURCES];
  size_t source_count;
};

void fake_controller_init(struct fake_controller *f);
/* Scripts a failure of `op` (for `session`, or any when NULL). */
struct fake_fail *fake_controller_fail(struct fake_controller *f, const char *op,
                                       const char *session, int code);
/* A session of another tool, already running. */
void fake_controller_add_foreign(struct fake_controller *f, const char *name);
/* Sessions running now, foreign ones left out. */
size_t fake_controller_running(const struct fake_controller *f);
int fake_controller_is_running(const struct fake_controller *f, const char *name);
/* Calls of `op` (for `session`, or any when NULL). */
size_t fake_controller_count(const struct fake_controller *f, const char *op,
                             const char *session);
/* The index of the first call of `op` for `session` at or after `from`, or
 * (size_t)-1. */
size_t fake_controller_find(const struct fake_controller *f, const char *op, const char *session,
                            size_t from);

/* Writes a small valid ETL: the header (logger `logger`, QPC clock, the
 * same boot and frequency for every file, so files of one capture merge)
 * and `events` classic events.  0 or ETWCAP_E_*. */
int fake_etl_write(const char *path, const char *logger, unsigned events, unsigned seed);

/* A virtual clock for collection_env: sleeping advances it; `on_sleep`
 * (may be NULL) runs after each sleep with the new time. */
struct fake_clock {
  uint64_t now_ms;
  uint64_t slept_ms;
  uint64_t free_disk;   /* what free_disk reports; default 1 TB */
  int free_disk_fails;
  void (*on_sleep)(void *ctx, uint64_t now_ms);
  void *on_sleep_ctx;
};

/* The Windows the fake environment plans for: Windows Server 2022, what
 * `plan` assumes off Windows, so a capture plans alike natively and under
 * Wine (whatever version Wine reports). */
extern const struct os_version fake_env_os;

/* env: the fake controller (or any controller: `ctl`), the virtual clock,
 * real file sizes, fake_env_os. */
void fake_env_init(struct collection_env *env, struct controller *ctl, struct fake_clock *clock);

#endif
