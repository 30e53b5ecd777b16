/* controller.h off Windows: there is no ETW, so every operation says so.
 * The commands that need it are refused earlier (main.c); this keeps the
 * portable command code linking everywhere. */
#include "etw/session/controller.h"

#include "src/base/error.h"

static int fail(struct controller *c, const char *api)
{
  return controller_fail(c, ETWCAP_E_NEEDS_WINDOWS, api, 0, "no ETW on this OS");
}

static int start(struct controller *c, const struct plan_session *s, uint64_t *handle,
                 char *file, size_t file_size)
{
  (void)s;
  *handle = 0;
  if (file && file_size)
    file[0] = '\0';
  return fail(c, "StartTraceW");
}

static int enable_provider(struct controller *c, uint64_t handle, const struct plan_provider *p,
                           unsigned params_version)
{
  (void)handle, (void)p, (void)params_version;
  return fail(c, "EnableTraceEx2");
}

static int set_group_mask(struct controller *c, uint64_t handle,
                          const uint32_t mask[PLAN_GROUP_MASK_WORDS])
{
  (void)handle, (void)mask;
  return fail(c, "TraceSetInformation");
}

static int query_group_mask(struct controller *c, uint64_t handle,
                            uint32_t mask[PLAN_GROUP_MASK_WORDS])
{
  (void)handle, (void)mask;
  return fail(c, "TraceQueryInformation");
}

static int set_stack_ids(struct controller *c, uint64_t handle, const struct plan_stack_id *ids,
                         size_t count)
{
  (void)handle, (void)ids, (void)count;
  return fail(c, "TraceSetInformation");
}

static int set_profile_interval(struct controller *c, uint32_t interval_100ns)
{
  (void)interval_100ns;
  return fail(c, "TraceSetInformation");
}

static int set_stack_caching(struct controller *c, uint64_t handle, int enabled,
                             uint32_t cache_size, uint32_t bucket_count)
{
  (void)handle, (void)enabled, (void)cache_size, (void)bucket_count;
  return fail(c, "TraceSetInformation");
}

static int enable_profile_privilege(struct controller *c)
{
  return fail(c, "AdjustTokenPrivileges");
}

static int query(struct controller *c, const char *name, struct controller_status *out)
{
  (void)name, (void)out;
  return fail(c, "ControlTraceW");
}

static int flush(struct controller *c, const struct plan_session *s, const char *name,
                 const char *file)
{
  (void)s, (void)name, (void)file;
  return fail(c, "ControlTraceW");
}

static int stop(struct controller *c, const char *name, struct controller_status *out)
{
  (void)name, (void)out;
  return fail(c, "ControlTraceW");
}

static int list(struct controller *c, controller_list_fn fn, void *ctx)
{
  (void)fn, (void)ctx;
  return fail(c, "QueryAllTracesW");
}

static int switch_file(struct controller *c, const struct plan_session *s, const char *name,
                       const char *file)
{
  (void)s, (void)name, (void)file;
  return fail(c, "ControlTraceW");
}

static int query_profile_sources(struct controller *c, struct plan_machine_source *out,
                                 size_t max, size_t *count)
{
  (void)out, (void)max;
  *count = 0;
  return fail(c, "TraceQueryInformation");
}

static int set_source_interval(struct controller *c, uint32_t source, uint32_t interval)
{
  (void)source, (void)interval;
  return fail(c, "TraceSetInformation");
}

static int set_profile_sources(struct controller *c, const uint32_t *ids, size_t count)
{
  (void)ids, (void)count;
  return fail(c, "TraceSetInformation");
}

static int set_lbr(struct controller *c, uint64_t handle, uint32_t filters,
                   const uint32_t *sources, size_t count)
{
  (void)handle, (void)filters, (void)sources, (void)count;
  return fail(c, "TraceSetInformation");
}

static int query_provider_keywords(struct controller *c, const struct etw_guid *provider,
                                   uint64_t *match_all)
{
  (void)provider;
  *match_all = 0;
  return fail(c, "EnumerateTraceGuidsEx");
}

const struct controller_ops controller_system_ops = {
  "none", start, enable_provider, set_group_mask, query_group_mask, set_stack_ids, set_profile_interval,
  set_stack_caching, enable_profile_privilege, query, flush, stop, list, switch_file,
  query_profile_sources, set_source_interval, set_profile_sources, set_lbr,
  query_provider_keywords,
};
