/* The kernel session's hardware sampling settings, as PerfView makes them:
 * /CpuCounters (PMC sampling: CommandProcessor SetCpuCounters, TraceEvent
 * TraceEventProfileSources) and /LbrSources, /LbrFilters (last-branch
 * recording: CommandLineArgs CommandLineLbrSources/CommandLineLbrFilters,
 * TraceEventSession EnableLastBranchRecordingIfConfigured).  Pure: the
 * machine's profile sources come in plan_options, read by the program. */
#include "etw/plan/plan_internal.h"

#include "etw/event/keywords.h"
#include "src/base/error.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TraceEvent's LbrSource.PmcInterrupt: EVENT_TRACE_GROUP_PERFINFO | 0x2f. */
#define LBR_PMC_INTERRUPT 0x0F2Fu

/* TraceEvent's LbrFilterFlags, by the names PerfView's /LbrFilters takes
 * ("the same names as xperf", CommandLineLbrFilters.Parse). */
#define LBR_KERNEL 0x001u
#define LBR_USER 0x002u
#define LBR_STACK_MODE 0x200u
static const struct {
  const char *name;
  uint32_t bit;
} lbr_filters[] = {
  { "StackMode", LBR_STACK_MODE },   { "ConditionalBranches", 0x004 },
  { "NearRelativeCalls", 0x008 },    { "NearIndirectCalls", 0x010 },
  { "NearReturns", 0x020 },          { "NearIndirectJumps", 0x040 },
  { "NearRelativeJumps", 0x080 },    { "FarBranches", 0x100 },
  { "Kernel", LBR_KERNEL },          { "User", LBR_USER },
};

static int parse_counter(struct plan *plan, const char *spec, struct plan_profile_source *out);

int plan_kernel_pmc_keywords(struct plan *plan, const struct plan_options *o, uint64_t *kernel)
{
  struct plan_profile_source check;
  size_t i;
  int rc;
  /* A malformed spec is an error on every Windows version. */
  for (i = 0; i < o->cpu_counter_count; i++)
    if ((rc = parse_counter(plan, o->cpu_counters[i], &check)) != 0)
      return rc;
  if (!o->cpu_counter_count) {
    if (*kernel & KW_KERNEL_PMCPROFILE)
      return plan_fail(plan, ETWCAP_E_USAGE,
                       "/KernelEvents: PMCProfile is not set by name (as in PerfView): "
                       "/CpuCounters:NAME:COUNT turns it on with the counters to sample");
    return 0;
  }
  /* "Profile source only available on Win8 and beyond" (TraceEvent). */
  if (!plan_at_least(plan, 6, 2, 0))
    return plan_note(plan, "/CpuCounters dropped: hardware counter sampling "
                           "(TraceProfileSourceConfigInfo) needs Windows 8 or later.");
  *kernel |= KW_KERNEL_PMCPROFILE;
  return 0;
}

/* "NAME:COUNT" -> name and interval (PerfView's "(.*?):(\d+)"). */
static int parse_counter(struct plan *plan, const char *spec, struct plan_profile_source *out)
{
  const char *colon = strchr(spec, ':');
  char *end;
  unsigned long long n;
  size_t len = colon ? (size_t)(colon - spec) : 0;
  if (!colon || len == 0 || len >= sizeof(out->name) || colon[1] < '0' || colon[1] > '9')
    return plan_fail(plan, ETWCAP_E_USAGE,
                     "/CpuCounters: '%s' is not NAME:COUNT (e.g. BranchMispredictions:10000; "
                     "'etwcap ListCpuCounters' lists the names)", spec);
  n = strtoull(colon + 1, &end, 10);
  if (*end || n > 0x7FFFFFFFull)
    return plan_fail(plan, ETWCAP_E_USAGE,
                     "/CpuCounters: '%s': COUNT must be a whole number up to 2147483647", spec);
  memset(out, 0, sizeof(*out));
  memcpy(out->name, spec, len);
  out->interval = (uint32_t)n;
  return 0;
}

/* The machine's sources as "Timer, TotalIssues, ..." for an error. */
static void source_names(const struct plan_machine_source *m, size_t count, char *buf,
                         size_t size)
{
  size_t i, n = 0;
  buf[0] = '\0';
  for (i = 0; i < count && n < size; i++)
    n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", m[i].name);
  if (!count)
    snprintf(buf, size, "none");
}

int plan_resolve_profile_sources(struct plan_profile_source *list, size_t n,
                                 const struct plan_machine_source *m, size_t count, char *err,
                                 size_t err_size)
{
  char names[1024];
  size_t i, j;
  for (i = 0; i < n; i++) {
    struct plan_profile_source *p = &list[i];
    const struct plan_machine_source *found = NULL;
    for (j = 0; j < count; j++)
      if (str_caseeq(m[j].name, p->name))
        found = &m[j];
    if (!found) {
      source_names(m, count, names, sizeof(names));
      snprintf(err, err_size, "/CpuCounters: this machine has no profile source '%s'; it has: %s",
               p->name, names);
      return ETWCAP_E_USAGE;
    }
    /* PerfView's SetCpuCounters: below MinInterval or above MaxInterval is an error. */
    if (p->interval < found->min_interval || p->interval > found->max_interval) {
      snprintf(err, err_size,
               "/CpuCounters: %s:%lu is outside the interval this machine allows for it (%lu "
               "to %lu)",
               found->name, (unsigned long)p->interval, (unsigned long)found->min_interval,
               (unsigned long)found->max_interval);
      return ETWCAP_E_USAGE;
    }
    snprintf(p->name, sizeof(p->name), "%s", found->name);
    p->id = found->id;
    p->resolved = 1;
  }
  return 0;
}

static int cpu_counters(struct plan *plan, const struct plan_options *o, struct plan_session *s)
{
  size_t i;
  int rc;
  if (!(s->kernel_keywords & KW_KERNEL_PMCPROFILE))
    return 0; /* dropped for the Windows version */
  if (o->cpu_counter_count > PLAN_MAX_PROFILE_SOURCES)
    return plan_fail(plan, ETWCAP_E_USAGE, "/CpuCounters: %lu counters; etwcap takes at most %d",
                     (unsigned long)o->cpu_counter_count, PLAN_MAX_PROFILE_SOURCES);
  s->pmc_profile = 1;
  s->needs_profile_privilege = 1; /* TraceEventProfileSources.Set enables it first */
  for (i = 0; i < o->cpu_counter_count; i++) {
    struct plan_profile_source *p = &s->profile_sources[s->profile_source_count];
    if ((rc = parse_counter(plan, o->cpu_counters[i], p)) != 0)
      return rc;
    s->profile_source_count++;
  }
  if (o->machine_sources_known &&
      (rc = plan_resolve_profile_sources(s->profile_sources, s->profile_source_count,
                                         o->machine_sources, o->machine_source_count,
                                         plan->error, sizeof(plan->error))) != 0)
    return rc;
  if (!o->machine_sources_known)
    return plan_note(plan, "/CpuCounters: the names are shown as asked, not resolved (%s); "
                           "collect looks them up in the machine's profile sources "
                           "('etwcap ListCpuCounters' lists them) and stops if one is missing.",
                     o->machine_sources_why[0] ? o->machine_sources_why
                                               : "the machine's profile sources are unknown");
  return 0;
}

static int parse_lbr_source(struct plan *plan, const char *entry, uint32_t *out)
{
  char *end;
  unsigned long long v;
  if (str_caseeq(entry, "PmcInterrupt")) {
    *out = LBR_PMC_INTERRUPT;
    return 0;
  }
  /* "0x" + hex, as PerfView; a plain number too, as its Enum.TryParse takes. */
  if (entry[0] == '0' && (entry[1] == 'x' || entry[1] == 'X'))
    v = strtoull(entry + 2, &end, 16);
  else
    v = strtoull(entry, &end, 10);
  if (!entry[0] || *end || end == entry || v > 0xFFFFFFFFull || entry[0] == '-')
    return plan_fail(plan, ETWCAP_E_USAGE,
                     "/LbrSources: cannot read '%s': give 0xHEX event ids or PmcInterrupt",
                     entry);
  *out = (uint32_t)v;
  return 0;
}

/* Calls fn on each comma-separated, trimmed entry of text. */
static int each_entry(struct plan *plan, const char *text, struct plan_session *s,
                      int (*fn)(struct plan *, const char *, struct plan_session *))
{
  const char *p = text;
  char entry[128];
  int rc;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    while (len && (*p == ' ' || *p == '\t'))
      p++, len--;
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
      len--;
    snprintf(entry, sizeof(entry), "%.*s", (int)(len < sizeof(entry) ? len : sizeof(entry) - 1),
             p);
    if ((rc = fn(plan, entry, s)) != 0)
      return rc;
    if (!comma)
      return 0;
    p = comma + 1;
  }
}

static int add_lbr_source(struct plan *plan, const char *entry, struct plan_session *s)
{
  uint32_t v = 0;
  int rc = parse_lbr_source(plan, entry, &v);
  if (rc)
    return rc;
  if (s->lbr_source_count >= PLAN_MAX_LBR_SOURCES)
    return plan_fail(plan, ETWCAP_E_USAGE, "/LbrSources: at most %d sources can be specified",
                     PLAN_MAX_LBR_SOURCES);
  s->lbr_sources[s->lbr_source_count++] = v;
  return 0;
}

static int add_lbr_filter(struct plan *plan, const char *entry, struct plan_session *s)
{
  size_t i;
  for (i = 0; i < sizeof(lbr_filters) / sizeof(lbr_filters[0]); i++)
    if (str_caseeq(lbr_filters[i].name, entry)) {
      s->lbr_filters |= lbr_filters[i].bit;
      return 0;
    }
  return plan_fail(plan, ETWCAP_E_USAGE,
                   "/LbrFilters: '%s' is not an LBR filter (StackMode, ConditionalBranches, "
                   "NearRelativeCalls, NearIndirectCalls, NearReturns, NearIndirectJumps, "
                   "NearRelativeJumps, FarBranches, Kernel, User)", entry);
}

static int lbr(struct plan *plan, const struct plan_options *o, struct plan_session *s)
{
  int rc;
  if (o->lbr_filters && (rc = each_entry(plan, o->lbr_filters, s, add_lbr_filter)) != 0)
    return rc;
  if ((s->lbr_filters & LBR_STACK_MODE) &&
      (s->lbr_filters & ~(LBR_STACK_MODE | LBR_KERNEL | LBR_USER)))
    return plan_fail(plan, ETWCAP_E_USAGE,
                     "/LbrFilters: only Kernel or User can be given with StackMode");
  if ((s->lbr_filters & (LBR_KERNEL | LBR_USER)) == (LBR_KERNEL | LBR_USER))
    return plan_fail(plan, ETWCAP_E_USAGE, "/LbrFilters: give Kernel or User, not both");
  if (o->lbr_sources && (rc = each_entry(plan, o->lbr_sources, s, add_lbr_source)) != 0)
    return rc;
  if (!s->lbr_source_count) {
    if (o->lbr_filters) {
      s->lbr_filters = 0;
      return plan_note(plan, "/LbrFilters has no effect without /LbrSources (as in PerfView): "
                             "no last-branch recording.");
    }
    return 0;
  }
  if (!plan_at_least(plan, 10, 0, PLAN_LBR_BUILD)) {
    s->lbr_source_count = 0;
    s->lbr_filters = 0;
    return plan_note(plan, "/LbrSources dropped: last-branch recording "
                           "(TraceLbrConfigurationInfo) needs Windows 10 19H1 / Server 1903 "
                           "(build %u) or later.", PLAN_LBR_BUILD);
  }
  return 0;
}

int plan_kernel_extras(struct plan *plan, const struct plan_options *o, struct plan_session *s)
{
  int rc = cpu_counters(plan, o, s);
  if (rc)
    return rc;
  return lbr(plan, o, s);
}

int plan_kernel_extras_without_session(struct plan *plan, const struct plan_options *o)
{
  if (o->lbr_sources)
    return plan_note(plan, "/LbrSources dropped: last-branch recording goes on the kernel "
                           "session, and there is none (/KernelEvents is None), as in PerfView.");
  return 0;
}
