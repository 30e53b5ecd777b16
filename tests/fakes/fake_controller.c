/* The fake controller and virtual clock (see fake_controller.h). */
#include "tests/fakes/fake_controller.h"

#include "etw/event/builtin_events.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"
#include "src/base/strutil.h"
#include "tests/fakes/fake_session_events.h"

#include <stdio.h>
#include <string.h>

static struct fake_controller *self_of(struct controller *c)
{
  return c->impl;
}

static struct fake_call *record(struct fake_controller *f, const char *op, const char *session)
{
  static struct fake_call overflow;
  struct fake_call *call = f->call_count < FAKE_MAX_CALLS ? &f->calls[f->call_count++] : &overflow;
  memset(call, 0, sizeof(*call));
  snprintf(call->op, sizeof(call->op), "%s", op);
  snprintf(call->session, sizeof(call->session), "%s", session ? session : "");
  if (f->before)
    f->before(f->before_ctx, op, session ? session : "");
  return call;
}

static struct fake_session *find(struct fake_controller *f, const char *name)
{
  size_t i;
  for (i = 0; i < f->session_count; i++)
    if (f->sessions[i].running && str_caseeq(f->sessions[i].name, name))
      return &f->sessions[i];
  return NULL;
}

/* A slot for a new session: a fresh one while there are, then one a stopped
 * session left (a stop frees its slot, as StopTraceW does: a week of
 * sessions started and stopped runs in a few), NULL when every one runs. */
static struct fake_session *free_slot(struct fake_controller *f)
{
  size_t i;
  if (f->session_count < FAKE_MAX_SESSIONS)
    return &f->sessions[f->session_count++];
  for (i = 0; i < f->session_count; i++)
    if (!f->sessions[i].running)
      return &f->sessions[i];
  return NULL;
}

static struct fake_session *by_handle(struct fake_controller *f, uint64_t handle)
{
  size_t i;
  for (i = 0; i < f->session_count; i++)
    if (f->sessions[i].running && f->sessions[i].handle == handle)
      return &f->sessions[i];
  return NULL;
}

/* A scripted failure for this call, if any. */
static int scripted(struct fake_controller *f, const char *op, const char *session,
                    uint32_t property, int has_scope_filters)
{
  size_t i;
  for (i = 0; i < f->fail_count; i++) {
    struct fake_fail *x = &f->fails[i];
    if (strcmp(x->op, op) != 0 || x->times < 0)
      continue;
    if (x->session[0] && (!session || !str_caseeq(x->session, session)))
      continue;
    if (x->property_mask && !(property & x->property_mask))
      continue;
    if (x->filters && !has_scope_filters)
      continue;
    if (x->times > 0 && --x->times == 0)
      x->times = -1; /* used up */
    return controller_fail(&f->ctl, x->code, op, 0, "scripted by the test");
  }
  return 0;
}

static void fill_status(const struct fake_session *s, struct controller_status *out)
{
  memset(out, 0, sizeof(*out));
  snprintf(out->name, sizeof(out->name), "%s", s->name);
  snprintf(out->file, sizeof(out->file), "%s", s->file);
  out->log_file_mode = s->log_file_mode;
  out->buffer_size_kb = s->buffer_size_kb ? s->buffer_size_kb : 64;
  out->minimum_buffers = s->minimum_buffers ? s->minimum_buffers : 4;
  out->maximum_buffers = s->maximum_buffers ? s->maximum_buffers : 15;
  out->maximum_file_size_mb = s->maximum_file_size_mb;
  out->enable_flags = s->enable_flags;
  out->clock_type = 1;
  out->buffers = out->minimum_buffers;
  out->free_buffers = out->minimum_buffers / 2;
  out->buffers_written = s->buffers_written;
  out->events_lost = s->events_lost;
  out->log_buffers_lost = s->log_buffers_lost;
  out->realtime_buffers_lost = s->realtime_buffers_lost;
  out->file_bytes = -1;
  if (s->file[0] && os_file_size(s->file, &out->file_bytes) != 0)
    out->file_bytes = -1;
}

static unsigned seed_of(const char *name)
{
  unsigned h = 0;
  while (*name)
    h = h * 31u + (unsigned char)*name++;
  return h % 97u;
}

/* A system logger's groups become those of `flags` (each flag's group:
 * plan_group_mask_of_flags), less what this "Windows" drops. */
static void set_groups(struct fake_controller *f, struct fake_session *s, uint32_t flags)
{
  size_t w;
  plan_group_mask_of_flags(flags, s->group_mask);
  for (w = 0; w < PLAN_GROUP_MASK_WORDS; w++)
    s->group_mask[w] &= ~f->drop_groups[w];
  s->mask_set = 1;
}

/* Writes what the session recorded since its last write into `path`: 5
 * filler events, what is pending, and the kernel events of its groups
 * (with the DCEnd rundown when it stops). */
static void write_recorded(struct fake_controller *f, struct fake_session *s, const char *path,
                           int at_stop)
{
  unsigned kinds = s->pending | (s->mask_set ? fake_kernel_kinds(s->group_mask, at_stop) : 0);
  s->pending = 0;
  /* With stack caching, a sample's stack is a key, defined by KeyRundown
   * for the keys still cached at the stop. */
  if (s->stack_caching && (kinds & FAKE_EVENT_SAMPLED_PROFILE))
    kinds |= FAKE_EVENT_STACK_KEY_KERNEL | (at_stop ? FAKE_EVENT_STACK_KEY_RUNDOWN : 0);
  if (f->write_files)
    fake_etl_write_kinds(path, s->name, 5, seed_of(s->name), kinds);
}

/* System Provider keywords -> the legacy flag each stands for (the System
 * Providers page's table; the rows etwcap's tests need): Process GENERAL
 * 0x1, THREAD 0x800, LOADER 0x1000; Scheduler CONTEXT_SWITCH 0x200,
 * DISPATCHER 0x2; Profile GENERAL 0x1. */
static const struct {
  uint32_t data1;
  uint64_t keyword;
  uint32_t flag;
} system_keywords[] = {
  { 0x151f55dc, 0x1, 0x1 },    { 0x151f55dc, 0x800, 0x2 },  { 0x151f55dc, 0x1000, 0x4 },
  { 0x599a2a76, 0x200, 0x10 }, { 0x599a2a76, 0x2, 0x800 },  { 0xbfeb0324, 0x1, 0x01000000 },
};

/* An enable's effect on what the session records: a System Provider's
 * keywords add their groups to a system logger; a CLR rundown enable or
 * capture-state request makes the runtime write its rundown into it. */
static void record_enable(struct fake_controller *f, struct fake_session *s,
                          const struct plan_provider *p)
{
  uint32_t flags = 0, mask[PLAN_GROUP_MASK_WORDS];
  size_t i;
  if (guid_equal(&p->guid, &bi_guid_clr_rundown))
    s->pending |= fake_clr_rundown_kinds(p->match_any);
  if (!s->mask_set || p->control_code != PLAN_CONTROL_ENABLE_PROVIDER)
    return;
  for (i = 0; i < sizeof(system_keywords) / sizeof(system_keywords[0]); i++)
    if (p->guid.data1 == system_keywords[i].data1 && (p->match_any & system_keywords[i].keyword))
      flags |= system_keywords[i].flag;
  plan_group_mask_of_flags(flags, mask);
  for (i = 0; i < PLAN_GROUP_MASK_WORDS; i++)
    s->group_mask[i] |= mask[i] & ~f->drop_groups[i];
}

static int fake_start(struct controller *c, const struct plan_session *ps, uint64_t *handle,
                      char *file, size_t file_size)
{
  struct fake_controller *f = self_of(c);
  struct fake_call *call = record(f, "start", ps->name);
  struct fake_session *s;
  int rc;
  call->value = ps->log_file_mode;
  *handle = 0;
  if ((rc = scripted(f, "start", ps->name, 0, 0)) != 0)
    return call->rc = rc;
  if (find(f, ps->name))
    return call->rc = controller_fail(c, ETWCAP_E_SESSION_EXISTS, "StartTraceW", 183,
                                      "ERROR_ALREADY_EXISTS");
  if (!(s = free_slot(f)))
    return call->rc = controller_fail(c, ETWCAP_E_SESSION_LIMIT, "StartTraceW", 1450,
                                      "ERROR_NO_SYSTEM_RESOURCES");
  memset(s, 0, sizeof(*s));
  snprintf(s->name, sizeof(s->name), "%s", ps->name);
  snprintf(s->file, sizeof(s->file), "%s", ps->file ? ps->file : "");
  s->log_file_mode = ps->log_file_mode;
  s->buffer_size_kb = ps->buffer_size_kb;
  s->minimum_buffers = ps->minimum_buffers;
  s->maximum_buffers = ps->maximum_buffers;
  s->maximum_file_size_mb = ps->maximum_file_size_mb;
  s->enable_flags = ps->enable_flags;
  /* A system logger's mask starts as the groups of its EnableFlags at start
   * (TRACE_QUERY_INFO_CLASS: TraceSystemTraceEnableFlagsInfo queries "the
   * setting for the EnableFlags for the system trace provider"; each flag's
   * group: krabsetw perfinfo_groupmask.hpp, as plan_group_mask_of_flags),
   * so an empty mask when they were 0 (the System Providers route). */
  if (ps->log_file_mode & PLAN_SYSTEM_LOGGER_MODE) {
    set_groups(f, s, ps->enable_flags_at_start);
    /* A kernel session started with Process / ImageLoad in its EnableFlags
     * lists the running processes and images (DCStart), as PerfView's
     * kernel rundown session relies on (CommandProcessor Stop).  Groups
     * switched on after the start are not assumed to do the same. */
    if (ps->enable_flags_at_start & 0x1)
      s->pending |= FAKE_EVENT_PROCESS_DCSTART;
    if (ps->enable_flags_at_start & 0x4)
      s->pending |= FAKE_EVENT_IMAGE_DCSTART;
  }
  s->handle = ++f->next_handle + 0x1000;
  s->running = 1;
  s->buffers_written = 3;
  if (f->write_files && ps->file)
    fake_etl_write(ps->file, ps->name, 0, seed_of(ps->name)); /* ETW writes the header at once */
  *handle = s->handle;
  call->handle = s->handle;
  if (file && file_size)
    snprintf(file, file_size, "%s", s->file);
  return 0;
}

static int has_scope(const struct plan_provider *p)
{
  size_t i;
  for (i = 0; i < p->filter_count; i++)
    if (p->filters[i].type != PLAN_FILTER_PROVIDER_DATA &&
        p->filters[i].type != PLAN_FILTER_SEND_MANIFEST)
      return 1;
  return 0;
}

static int fake_enable(struct controller *c, uint64_t handle, const struct plan_provider *p,
                       unsigned params_version)
{
  struct fake_controller *f = self_of(c);
  struct fake_session *s = by_handle(f, handle);
  struct fake_call *call = record(f, "enable", s ? s->name : "?");
  int rc;
  call->handle = handle;
  call->value = p->enable_property;
  call->guid = p->guid;
  call->level = p->level;
  call->any = p->match_any;
  call->all = p->match_all;
  call->filter_count = p->filter_count;
  call->params_version = params_version;
  call->control_code = p->control_code;
  if (!s)
    return call->rc = controller_fail(c, ETWCAP_E_SYSTEM, "EnableTraceEx2", 6,
                                      "ERROR_INVALID_HANDLE");
  if ((rc = scripted(f, "enable", s->name, p->enable_property, has_scope(p))) != 0)
    return call->rc = rc;
  record_enable(f, s, p);
  return 0;
}

static int on_handle(struct controller *c, const char *op, uint64_t handle, uint32_t value)
{
  struct fake_controller *f = self_of(c);
  struct fake_session *s = by_handle(f, handle);
  struct fake_call *call = record(f, op, s ? s->name : "");
  int rc;
  call->handle = handle;
  call->value = value;
  if (handle && !s)
    return call->rc = controller_fail(c, ETWCAP_E_SYSTEM, "TraceSetInformation", 6,
                                      "ERROR_INVALID_HANDLE");
  if ((rc = scripted(f, op, s ? s->name : NULL, 0, 0)) != 0)
    return call->rc = rc;
  return 0;
}

static int fake_kernel_flags(struct controller *c, uint64_t handle,
                             const uint32_t mask[PLAN_GROUP_MASK_WORDS])
{
  struct fake_controller *f = self_of(c);
  struct fake_session *s = by_handle(f, handle);
  int rc = on_handle(c, "kernel_flags", handle, mask[0]);
  size_t w;
  memcpy(f->calls[f->call_count - 1].mask, mask, sizeof(f->calls[0].mask));
  if (!rc && s) {
    for (w = 0; w < PLAN_GROUP_MASK_WORDS; w++)
      s->group_mask[w] = mask[w] & ~f->drop_groups[w];
    s->mask_set = 1;
  }
  return rc;
}

static int fake_query_mask(struct controller *c, uint64_t handle,
                           uint32_t mask[PLAN_GROUP_MASK_WORDS])
{
  struct fake_controller *f = self_of(c);
  struct fake_session *s = by_handle(f, handle);
  int rc = on_handle(c, "query_mask", handle, 0);
  if (rc)
    return rc;
  /* Only a mask from EnableFlags at start or kernel_flags is known here
   * (the System Providers route is modelled by the advapi32 fake, under
   * Wine). */
  if (!s || !s->mask_set)
    return f->calls[f->call_count - 1].rc =
               controller_fail(c, ETWCAP_E_UNSUPPORTED, "TraceQueryInformation", 0,
                               "the fake knows no mask for this session");
  memcpy(mask, s->group_mask, sizeof(s->group_mask));
  return 0;
}

static int fake_stack_ids(struct controller *c, uint64_t handle, const struct plan_stack_id *ids,
                          size_t count)
{
  (void)ids;
  return on_handle(c, "stack_ids", handle, (uint32_t)count);
}

static int fake_profile_interval(struct controller *c, uint32_t interval)
{
  return on_handle(c, "profile_interval", 0, interval);
}

static int fake_stack_caching(struct controller *c, uint64_t handle, int enabled,
                              uint32_t cache_size, uint32_t buckets)
{
  struct fake_controller *f = self_of(c);
  struct fake_session *s = by_handle(f, handle);
  int rc = on_handle(c, "stack_caching", handle, (uint32_t)enabled);
  f->calls[f->call_count - 1].cache_size = cache_size;
  f->calls[f->call_count - 1].buckets = buckets;
  if (!rc && s)
    s->stack_caching = enabled;
  return rc;
}

static int fake_privilege(struct controller *c)
{
  return on_handle(c, "privilege", 0, 0);
}

static int fake_query(struct controller *c, const char *name, struct controller_status *out)
{
  struct fake_controller *f = self_of(c);
  struct fake_call *call = record(f, "query", name);
  struct fake_session *s;
  int rc;
  if ((rc = scripted(f, "query", name, 0, 0)) != 0)
    return call->rc = rc;
  if (!(s = find(f, name)))
    return call->rc = controller_fail(c, ETWCAP_E_NO_SESSION, "ControlTraceW", 4201,
                                      "ERROR_WMI_INSTANCE_NOT_FOUND");
  fill_status(s, out);
  return 0;
}

static int fake_flush(struct controller *c, const struct plan_session *props, const char *name,
                      const char *file)
{
  struct fake_controller *f = self_of(c);
  struct fake_call *call = record(f, "flush", name);
  struct fake_session *s;
  int rc;
  call->flush_props = props != NULL;
  if ((rc = scripted(f, "flush", name, 0, 0)) != 0)
    return call->rc = rc;
  if (!(s = find(f, name)))
    return call->rc = controller_fail(c, ETWCAP_E_NO_SESSION, "ControlTraceW", 4201,
                                      "ERROR_WMI_INSTANCE_NOT_FOUND");
  if (file)
    write_recorded(f, s, file, 0);
  return 0;
}

static int fake_stop(struct controller *c, const char *name, struct controller_status *out)
{
  struct fake_controller *f = self_of(c);
  struct fake_call *call = record(f, "stop", name);
  struct fake_session *s;
  int rc;
  if ((rc = scripted(f, "stop", name, 0, 0)) != 0)
    return call->rc = rc;
  if (!(s = find(f, name)))
    return call->rc = controller_fail(c, ETWCAP_E_NO_SESSION, "ControlTraceW", 4201,
                                      "ERROR_WMI_INSTANCE_NOT_FOUND");
  if (out)
    fill_status(s, out);
  s->running = 0;
  /* The session's last buffers reach the file at stop. */
  if (s->file[0] && !(s->log_file_mode & PLAN_BUFFERING_MODE))
    write_recorded(f, s, s->file, 1);
  return 0;
}

static int fake_list(struct controller *c, controller_list_fn fn, void *ctx)
{
  struct fake_controller *f = self_of(c);
  struct fake_call *call = record(f, "list", NULL);
  size_t i;
  int rc;
  if ((rc = scripted(f, "list", NULL, 0, 0)) != 0)
    return call->rc = rc;
  for (i = 0; i < f->session_count; i++) {
    struct controller_status st;
    if (!f->sessions[i].running)
      continue;
    fill_status(&f->sessions[i], &st);
    if ((rc = fn(ctx, &st)) != 0)
      return rc;
  }
  return 0;
}

/* UPDATE with a new file: what was written so far stays in the old file
 * (its buffers reach it as at a stop, without the stop's rundown), the
 * session goes on in the new.  On a system logger the UPDATE's EnableFlags
 * are "the system providers that you want to enable or keep enabled", 0
 * "disable[s] all system providers" (ControlTraceW): its groups become
 * those of the flags sent, keyword enables of the System Providers lost. */
static int fake_switch_file(struct controller *c, const struct plan_session *props,
                            const char *name, const char *file)
{
  struct fake_controller *f = self_of(c);
  struct fake_call *call = record(f, "switch", name);
  struct fake_session *s;
  int rc;
  call->value = props->role == PLAN_ROLE_KERNEL ? props->enable_flags_at_start : 0;
  if ((rc = scripted(f, "switch", name, 0, 0)) != 0)
    return call->rc = rc;
  if (!(s = find(f, name)) || !s->running)
    return call->rc = controller_fail(c, ETWCAP_E_NO_SESSION, "ControlTraceW", 4201,
                                      "ERROR_WMI_INSTANCE_NOT_FOUND");
  if (s->file[0])
    write_recorded(f, s, s->file, 0);
  if (s->mask_set)
    set_groups(f, s, call->value);
  snprintf(s->file, sizeof(s->file), "%s", file);
  return 0;
}

static int fake_query_sources(struct controller *c, struct plan_machine_source *out, size_t max,
                              size_t *count)
{
  struct fake_controller *f = self_of(c);
  int rc = on_handle(c, "query_sources", 0, 0);
  size_t i;
  *count = 0;
  if (rc)
    return rc;
  for (i = 0; i < f->source_count && i < max; i++)
    out[(*count)++] = f->sources[i];
  return 0;
}

static int fake_source_interval(struct controller *c, uint32_t source, uint32_t interval)
{
  struct fake_controller *f = self_of(c);
  int rc = on_handle(c, "source_interval", 0, interval);
  f->calls[f->call_count - 1].source = source;
  return rc;
}

/* Records an id list with the call just made. */
static void keep_ids(struct fake_controller *f, const uint32_t *ids, size_t count)
{
  struct fake_call *call = &f->calls[f->call_count - 1];
  size_t i;
  for (i = 0; i < count && i < PLAN_MAX_PROFILE_SOURCES; i++)
    call->ids[i] = ids[i];
  call->id_count = count;
}

static int fake_profile_sources(struct controller *c, const uint32_t *ids, size_t count)
{
  int rc = on_handle(c, "profile_sources", 0, (uint32_t)count);
  keep_ids(self_of(c), ids, count);
  return rc;
}

static int fake_lbr(struct controller *c, uint64_t handle, uint32_t filters,
                    const uint32_t *sources, size_t count)
{
  int rc = on_handle(c, "lbr", handle, filters);
  keep_ids(self_of(c), sources, count);
  return rc;
}

static int fake_provider_keywords(struct controller *c, const struct etw_guid *provider,
                                  uint64_t *match_all)
{
  struct fake_controller *f = self_of(c);
  struct fake_call *call = record(f, "keywords", NULL);
  size_t i;
  int rc;
  call->guid = *provider;
  *match_all = 0;
  if ((rc = scripted(f, "keywords", NULL, 0, 0)) != 0)
    return call->rc = rc;
  for (i = 0; i < f->foreign_keyword_count; i++)
    if (guid_equal(&f->foreign_keywords[i].guid, provider))
      *match_all |= f->foreign_keywords[i].all;
  for (i = 0; i + 1 < f->call_count; i++)
    if (!strcmp(f->calls[i].op, "enable") && !f->calls[i].rc &&
        guid_equal(&f->calls[i].guid, provider) && find(f, f->calls[i].session))
      *match_all |= f->calls[i].all;
  return 0;
}

static const struct controller_ops fake_ops = {
  "fake",       fake_start,   fake_enable, fake_kernel_flags, fake_query_mask, fake_stack_ids,
  fake_profile_interval, fake_stack_caching, fake_privilege, fake_query, fake_flush,
  fake_stop,    fake_list,  fake_switch_file, fake_query_sources, fake_source_interval,
  fake_profile_sources, fake_lbr, fake_provider_keywords,
};

void fake_controller_init(struct fake_controller *f)
{
  memset(f, 0, sizeof(*f));
  f->ctl.ops = &fake_ops;
  f->ctl.impl = f;
  f->write_files = 1;
}

struct fake_fail *fake_controller_fail(struct fake_controller *f, const char *op,
                                       const char *session, int code)
{
  struct fake_fail *x = &f->fails[f->fail_count < FAKE_MAX_FAILS ? f->fail_count++ : 0];
  memset(x, 0, sizeof(*x));
  snprintf(x->op, sizeof(x->op), "%s", op);
  snprintf(x->session, sizeof(x->session), "%s", session ? session : "");
  x->code = code;
  return x;
}

void fake_controller_add_foreign(struct fake_controller *f, const char *name)
{
  struct fake_session *s = &f->sessions[f->session_count++];
  memset(s, 0, sizeof(*s));
  snprintf(s->name, sizeof(s->name), "%s", name);
  s->buffer_size_kb = 64;
  s->minimum_buffers = 64;
  s->maximum_buffers = 90;
  s->log_file_mode = PLAN_REAL_TIME_MODE;
  s->handle = ++f->next_handle + 0x1000;
  s->foreign = 1;
  s->running = 1;
}

size_t fake_controller_running(const struct fake_controller *f)
{
  size_t i, n = 0;
  for (i = 0; i < f->session_count; i++)
    if (f->sessions[i].running && !f->sessions[i].foreign)
      n++;
  return n;
}

int fake_controller_is_running(const struct fake_controller *f, const char *name)
{
  size_t i;
  for (i = 0; i < f->session_count; i++)
    if (f->sessions[i].running && str_caseeq(f->sessions[i].name, name))
      return 1;
  return 0;
}

size_t fake_controller_count(const struct fake_controller *f, const char *op,
                             const char *session)
{
  size_t i, n = 0;
  for (i = 0; i < f->call_count; i++)
    if (!strcmp(f->calls[i].op, op) && (!session || str_caseeq(f->calls[i].session, session)))
      n++;
  return n;
}

size_t fake_controller_find(const struct fake_controller *f, const char *op, const char *session,
                            size_t from)
{
  size_t i;
  for (i = from; i < f->call_count; i++)
    if (!strcmp(f->calls[i].op, op) && (!session || str_caseeq(f->calls[i].session, session)))
      return i;
  return (size_t)-1;
}

/* --- ETL files ------------------------------------------------------------ */

int fake_etl_write(const char *path, const char *logger, unsigned events, unsigned seed)
{
  return fake_etl_write_kinds(path, logger, events, seed, 0);
}

/* --- the virtual clock ---------------------------------------------------- */

static uint64_t clock_now(void *ctx)
{
  return ((struct fake_clock *)ctx)->now_ms;
}

static void clock_sleep(void *ctx, unsigned ms)
{
  struct fake_clock *k = ctx;
  k->now_ms += ms;
  k->slept_ms += ms;
  if (k->on_sleep)
    k->on_sleep(k->on_sleep_ctx, k->now_ms);
}

static int64_t clock_utc(void *ctx)
{
  return INT64_C(133232283966946549) + (int64_t)((struct fake_clock *)ctx)->now_ms * 10000;
}

static int real_size(void *ctx, const char *path, int64_t *size)
{
  (void)ctx;
  return os_file_size(path, size);
}

static int clock_free_disk(void *ctx, const char *path, uint64_t *bytes)
{
  struct fake_clock *k = ctx;
  (void)path;
  if (k->free_disk_fails)
    return ETWCAP_E_IO;
  *bytes = k->free_disk;
  return 0;
}

const struct os_version fake_env_os = { OS_VERSION_DEFAULT_MAJOR, OS_VERSION_DEFAULT_MINOR,
                                         OS_VERSION_DEFAULT_BUILD };

void fake_env_init(struct collection_env *env, struct controller *ctl, struct fake_clock *clock)
{
  memset(env, 0, sizeof(*env));
  if (!clock->free_disk)
    clock->free_disk = 1ull << 40;
  env->ctl = ctl;
  env->ctx = clock;
  env->now_ms = clock_now;
  env->sleep_ms = clock_sleep;
  env->utc_now = clock_utc;
  env->file_size = real_size;
  env->free_disk = clock_free_disk;
  env->os = fake_env_os;
  env->os_known = 1;
}
