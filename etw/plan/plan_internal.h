/* Internals shared by the plan builder's files (plan.c, plan_events.c,
 * plan_sessions.c, plan_defaults.c).  Not for other modules: they use
 * plan.h. */
#ifndef ETWCAP_PLAN_INTERNAL_H
#define ETWCAP_PLAN_INTERNAL_H

#include "etw/plan/plan.h"
#include "src/base/log.h"

#include <stdint.h>

#define PLAN_ALL_KEYWORDS 0xFFFFFFFFFFFFFFFFull

/* What the options come to once PerfView's presets and overrides are
 * applied (plan_events.c), read by the session builders. */
struct plan_state {
  const struct plan_options *opt;
  uint64_t kernel;      /* kernel keywords as requested (PerfView names) */
  uint64_t clr;         /* /ClrEvents as given or preset */
  uint64_t clr_enabled; /* what the CLR provider gets (NGen rules applied) */
  uint8_t clr_level;
  uint64_t tpl;
  int no_rundown, no_clr_rundown, no_ngen_rundown;
  uint32_t focus_pid;
  int focus_by_pid;
  const char *focus_name;
  struct provider_spec *specs; /* /Providers then /OnlyProviders, parsed */
  size_t spec_count;
  int64_t circular_mb;
  char base[PLAN_NAME_MAX - 64]; /* /SessionName is at most 900 bytes */
};


/* plan.c: messages and small builders. */
int plan_fail(struct plan *plan, int code, const char *fmt, ...) LOG_PRINTF(3, 4);
int plan_note(struct plan *plan, const char *fmt, ...) LOG_PRINTF(2, 3);
int plan_at_least(const struct plan *plan, unsigned major, unsigned minor, unsigned build);
char *plan_change_extension(const char *path, const char *ext);
void plan_set_buffers(struct plan_session *s, int64_t mb);
struct plan_session *plan_new_session(struct plan *plan, enum plan_role role, const char *name);
struct plan_provider *plan_push_provider(struct plan_session *s);
int plan_add_known(struct plan_session *s, const char *name, uint8_t level, uint64_t any,
                   int stacks, const char *origin);

/* plan_events.c: keywords, levels, focus and /Providers specs. */
int plan_choose_events(struct plan *plan, struct plan_state *st);
int plan_parse_focus(struct plan *plan, struct plan_state *st);
int plan_parse_specs(struct plan *plan, struct plan_state *st);

/* plan_sessions.c: one function per session. */
int plan_kernel_session(struct plan *plan, struct plan_state *st);
int plan_user_session(struct plan *plan, struct plan_state *st);
int plan_rundown_session(struct plan *plan, struct plan_state *st);
int plan_kernel_rundown_session(struct plan *plan, struct plan_state *st);
/* plan->periodic_rundown from /RundownPeriodSec, once every session has its
 * route (plan.h, struct plan_periodic_rundown); a note for the routes whose
 * kernel part is undocumented or missing.  0 or ETWCAP_E_NOMEM. */
int plan_periodic_rundown(struct plan *plan, const struct plan_state *st);
int plan_trigger_session(struct plan *plan, struct plan_state *st);

/* plan_kernel_route.c: a note when the kernel goes by the System Providers
 * route, whose start-time rundown is not proven yet (README, "Kernel
 * route"). */
int plan_note_kernel_route(struct plan *plan);

/* plan_kernel_extras.c: /CpuCounters (PMC sampling) and /LbrSources,
 * /LbrFilters on the kernel session.  pmc_keywords checks and adds the
 * PMCProfile keyword before the session is made; extras fills the
 * session's profile sources and LBR settings; without_session notes what
 * has no kernel session to go on. */
int plan_kernel_pmc_keywords(struct plan *plan, const struct plan_options *o, uint64_t *kernel);
int plan_kernel_extras(struct plan *plan, const struct plan_options *o, struct plan_session *s);
int plan_kernel_extras_without_session(struct plan *plan, const struct plan_options *o);

/* plan_packet_capture.c: /NetworkCapture and /NetMonCapture (netsh's
 * file and arguments; the providers are plan_defaults.c's). */
int plan_packet_capture(struct plan *plan, const struct plan_options *o);
/* plan_heap.c: the OS heap session (/OSHeapProcess, /OSHeapExe,
 * /OSHeapMaxMB); wanted says whether the options ask for one (the kernel
 * session then adds VirtualAlloc, as PerfView). */
int plan_heap_wanted(const struct plan_options *o);
int plan_heap_session(struct plan *plan, struct plan_state *st);

/* plan_defaults.c: PerfView's default user-mode providers. */
int plan_default_providers(struct plan *plan, struct plan_session *s, struct plan_state *st);
/* plan_wpr.c: /Wpr's list, in place of the defaults' and the CLR block. */
int plan_wpr_providers(struct plan *plan, struct plan_session *s);

#endif
