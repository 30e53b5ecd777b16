/* See report_kernel.h.  Process and thread layouts come from
 * trigger_builtin's kernel table (the MOF classes TraceEvent decodes), the
 * Image layout from image_identity; SampleProf is read here: InstructionPointer
 * (pointer), ThreadId (u32), Count (u16) (TraceEvent's SampledProfileTraceData).
 * A sample is charged to a process by TraceLog's rules (microsoft/perfview
 * src/TraceEvent/TraceLog.cs: thread start and end times, GetThread by
 * time): see charged_process. */
#include "src/report/report_kernel.h"

#include "etw/etl/etl_bytes.h"
#include "etw/event/builtin_events.h"
#include "etw/event/payload_cursor.h"
#include "etw/event/payload_layout.h"
#include "etw/image/image_identity.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdlib.h>
#include <string.h>

#define TID_SLOTS (1u << 18)
#define PID_SLOTS (1u << 17)
/* The first block of processes, thread intervals and held samples: a
 * rundown names thousands.
 * Above the C library's threshold for mapping (glibc: 128 KiB), they are
 * mapped: a page is only touched when an entry reaches it, and growing
 * remaps rather than copies (each page first touched is a fault, the cost
 * that counts most when the entries are few bytes each). */
#define FIRST_BLOCK 2048

int report_kernel_init(struct report_kernel *k)
{
  int rc;
  memset(k, 0, sizeof(*k));
  rc = report_idmap_init(&k->tid_to_thread, TID_SLOTS);
  if (!rc)
    rc = report_idmap_init(&k->pid_to_process, PID_SLOTS);
  if (!rc)
    rc = report_images_init(&k->images);
  if (rc)
    report_kernel_release(k);
  return rc;
}

void report_kernel_release(struct report_kernel *k)
{
  size_t i;
  for (i = 0; i < k->process_count; i++)
    etwcap_free(k->processes[i].command_line);
  report_images_release(&k->images);
  etwcap_free(k->processes);
  etwcap_free(k->threads);
  etwcap_free(k->window);
  etwcap_free(k->charges);
  report_idmap_release(&k->tid_to_thread);
  report_idmap_release(&k->pid_to_process);
  memset(k, 0, sizeof(*k));
}

/* The layout of a Process or Thread event and where its fields are.
 * bi_lookup scans the whole table of built-in events and tf_find compares
 * field names: a rundown logs thousands of these events, all of a few
 * (group, opcode, version). */
static const struct report_kernel_row *kernel_row(struct report_kernel *k,
                                                  const struct etw_event *ev, unsigned group)
{
  struct report_kernel_row *m = &k->rows[(group * 8 + ev->opcode) % REPORT_ROW_MEMO];
  if (!m->known || m->group != group || m->opcode != ev->opcode || m->version != ev->version) {
    const struct bi_event *row = bi_lookup(BI_KERNEL, ev);
    m->known = 1;
    m->group = (uint8_t)group;
    m->opcode = ev->opcode;
    m->version = ev->version;
    m->row = row;
    if (row) {
      m->pid_at = tf_index(&row->layout, "ProcessID");
      m->tid_at = tf_index(&row->layout, "ThreadID");
      m->name_at = tf_index(&row->layout, "ImageFileName");
      m->command_at = tf_index(&row->layout, "CommandLine");
    }
  }
  return m->row ? m : NULL;
}

/* Field `at` of the row (-1: the layout has none): 1 with *v, or 0. */
static int field(const struct report_kernel_row *m, const struct etw_event *ev, int at,
                 struct tv_value *v)
{
  return at >= 0 && tf_at(&m->row->layout, ev->user_data, ev->user_len, ev->pointer_size,
                          (size_t)at, v) == 1;
}

static int field_text(const struct report_kernel_row *m, const struct etw_event *ev, int at,
                      char *out, size_t cap)
{
  struct tv_value v;
  if (!field(m, ev, at, &v) || v.type != TV_TEXT)
    return 0;
  tv_copy(out, cap, v.text);
  return 1;
}

static int field_u32(const struct report_kernel_row *m, const struct etw_event *ev, int at,
                     uint32_t *out)
{
  struct tv_value v;
  if (!field(m, ev, at, &v))
    return 0;
  *out = (uint32_t)(v.type == TV_INT ? (uint64_t)v.i : v.u);
  return 1;
}

static int process_event(struct report_kernel *k, const struct etw_event *ev, int64_t filetime)
{
  const struct report_kernel_row *row = kernel_row(k, ev, KERNEL_GROUP_PROCESS);
  uint32_t pid, index;
  struct report_process *p;
  char cmd[REPORT_COMMAND_LINE_MAX];
  if (!row || !field_u32(row, ev, row->pid_at, &pid))
    return 0;
  if (ev->opcode == 2) { /* Stop */
    if (report_idmap_get(&k->pid_to_process, pid, &index))
      k->processes[index].end_filetime = filetime;
    return 0;
  }
  if (report_idmap_get(&k->pid_to_process, pid, &index) && ev->opcode == 3 &&
      k->processes[index].end_filetime == 0)
    return 0; /* the rundown repeats a process already known */
  if (k->process_count >= REPORT_MAX_PROCESSES) {
    k->processes_dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&k->processes, &k->process_cap, k->process_count,
                  sizeof(*k->processes), FIRST_BLOCK) != 0)
    return ETWCAP_E_NOMEM;
  p = &k->processes[k->process_count];
  memset(p, 0, sizeof(*p));
  p->pid = pid;
  field_text(row, ev, row->name_at, p->name, sizeof(p->name));
  if (field_text(row, ev, row->command_at, cmd, sizeof(cmd)) && cmd[0]) {
    p->command_line = etwcap_strdup(cmd);
    if (!p->command_line)
      return ETWCAP_E_NOMEM;
  }
  if (ev->opcode == 1)
    p->start_filetime = filetime;
  if (report_idmap_put(&k->pid_to_process, pid, (uint32_t)k->process_count) != 0) {
    etwcap_free(p->command_line);
    k->processes_dropped++;
    return 0;
  }
  k->process_count++;
  return 0;
}

/* The interval of tid that starts last at or before `filetime` (of equal
 * starts, the one seen last), or NULL.  Most often that is the one that
 * starts last of all: an id reused many times (one rundown after another)
 * is not walked through then. */
static struct report_thread *latest_before(struct report_kernel *k, uint32_t tid,
                                           int64_t filetime)
{
  struct report_thread *best = NULL, *t;
  uint32_t at;
  if (!report_idmap_get(&k->tid_to_thread, tid, &at))
    return NULL;
  best = &k->threads[k->threads[at].latest - 1];
  if (best->start <= filetime)
    return best;
  best = NULL;
  for (t = &k->threads[at]; t; t = t->prev ? &k->threads[t->prev - 1] : NULL)
    if (t->start <= filetime && (!best || t->start > best->start))
      best = t;
  return best;
}

/* Thread Start (1) opens an interval at its time, DCStart (3) one from
 * before the trace (the thread ran when the rundown was taken); Stop (2)
 * closes the interval it ends.  A Stop or DCStop (4) of a thread not seen
 * before is an interval of its own, from that event.  Thread id 0 is the
 * idle threads (one per CPU), charged to process 0 by their id. */
static int thread_event(struct report_kernel *k, const struct etw_event *ev, int64_t filetime)
{
  const struct report_kernel_row *row;
  struct report_thread *t;
  uint32_t pid, tid, latest, index, last;
  if (ev->opcode < 1 || ev->opcode > 4)
    return 0;
  row = kernel_row(k, ev, KERNEL_GROUP_THREAD);
  if (!row || !field_u32(row, ev, row->pid_at, &pid) || !field_u32(row, ev, row->tid_at, &tid) ||
      tid == 0)
    return 0;
  if (ev->opcode == 2 || ev->opcode == 4) {
    t = latest_before(k, tid, filetime);
    if (t) {
      if (ev->opcode == 2 && t->end == REPORT_STILL_RUNNING)
        t->end = filetime;
      return 0;
    }
  }
  if (k->thread_count >= REPORT_MAX_THREADS) {
    k->threads_dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&k->threads, &k->thread_cap, k->thread_count, sizeof(*k->threads),
                  FIRST_BLOCK) != 0)
    return ETWCAP_E_NOMEM;
  t = &k->threads[k->thread_count];
  t->start = ev->opcode == 3 ? REPORT_BEFORE_TRACE : filetime;
  t->end = ev->opcode == 2 ? filetime : REPORT_STILL_RUNNING;
  t->pid = pid;
  t->process = report_idmap_get(&k->pid_to_process, pid, &index) ? index + 1 : 0;
  t->prev = report_idmap_get(&k->tid_to_thread, tid, &latest) ? latest + 1 : 0;
  last = t->prev ? k->threads[t->prev - 1].latest : 0;
  t->latest = last && k->threads[last - 1].start > t->start ? last : (uint32_t)k->thread_count + 1;
  if (report_idmap_put(&k->tid_to_thread, tid, (uint32_t)k->thread_count) != 0) {
    k->threads_dropped++;
    return 0;
  }
  k->thread_count++;
  return 0;
}

/* The process (index + 1) a sample is charged to, or 0.  TraceLog's rules:
 * the interval of its thread id that holds its time; failing that the one
 * that starts last before it (a thread that still runs after its End);
 * failing that the one that starts first after it (a thread known only
 * from an End).  The process is the one the thread event named, or the
 * latest with that pid.  [*lo, *hi]: the times around the sample's that
 * compare the same with every interval's start and end, and so get the
 * same answer. */
static uint32_t charged_process(const struct report_kernel *k, const struct report_sample *s,
                                int64_t *lo, int64_t *hi)
{
  const struct report_thread *holds = NULL, *before = NULL, *after = NULL, *t;
  uint32_t pid = 0, at, index;
  *lo = INT64_MIN;
  *hi = INT64_MAX;
  if (s->tid != 0) {
    if (!report_idmap_get(&k->tid_to_thread, s->tid, &at))
      return 0;
    for (t = &k->threads[at]; t; t = t->prev ? &k->threads[t->prev - 1] : NULL) {
      if (t->start > s->filetime) {
        if (t->start - 1 < *hi)
          *hi = t->start - 1;
        if (!after || t->start < after->start)
          after = t;
        continue;
      }
      if (t->start > *lo)
        *lo = t->start;
      if (s->filetime <= t->end && t->end < *hi)
        *hi = t->end;
      if (s->filetime > t->end && t->end + 1 > *lo)
        *lo = t->end + 1;
      if (s->filetime <= t->end && (!holds || t->start > holds->start))
        holds = t;
      if (!before || t->start > before->start)
        before = t;
    }
    t = holds ? holds : before ? before : after;
    if (t->process)
      return t->process;
    pid = t->pid;
  }
  return report_idmap_get(&k->pid_to_process, pid, &index) ? index + 1 : 0;
}

uint32_t report_kernel_charged(const struct report_kernel *k, uint32_t tid, int64_t filetime)
{
  struct report_sample s;
  int64_t lo, hi;
  s.filetime = filetime;
  s.tid = tid;
  return charged_process(k, &s, &lo, &hi);
}

/* charged_process once the pass is over, remembered by thread id. */
static uint32_t charged_at_end(struct report_kernel *k, const struct report_sample *s)
{
  struct report_charge_memo *m = &k->charge_memo[s->tid % REPORT_CHARGE_MEMO];
  if (m->tid == s->tid && m->lo <= s->filetime && s->filetime <= m->hi)
    return m->process;
  m->tid = s->tid;
  m->process = charged_process(k, s, &m->lo, &m->hi);
  return m->process;
}

/* Charges a sample (count: a CPU sample, not a context switch's thread);
 * one the stacks hold (record) also gets its entry in charges, in the
 * stacks' order. */
static int charge(struct report_kernel *k, const struct report_sample *s, int record, int count)
{
  /* Thread 0 is Idle whatever the time: most samples of an idle machine. */
  uint32_t process;
  int64_t lo, hi;
  if (!k->idle_known)
    process = charged_process(k, s, &lo, &hi);
  else
    process = s->tid == 0 ? k->idle_process : charged_at_end(k, s);
  if (count && process)
    k->processes[process - 1].cpu_samples++;
  else if (count)
    k->samples_unattributed++;
  if (!record || k->charge_count >= STACK_MAX_SAMPLES)
    return 0;
  if (etwcap_grow((void **)&k->charges, &k->charge_cap, k->charge_count, sizeof(*k->charges),
                  FIRST_BLOCK) != 0)
    return ETWCAP_E_NOMEM;
  k->charges[k->charge_count++] = process;
  return 0;
}

/* Holds the sample back; once the window is full, the oldest is charged
 * to make room. */
static int sample_event(struct report_kernel *k, const struct etw_event *ev, int64_t filetime)
{
  unsigned ptr = ev->pointer_size == 4 ? 4 : 8;
  struct report_sample s;
  k->cpu_samples++;
  if (!ev->user_data || ev->user_len < ptr + 4) {
    k->samples_unattributed++;
    return 0;
  }
  /* The stacks keep the sample (its time and thread) until the end: it is
   * charged from there, in their order. */
  if (k->stacks) {
    int rc = stack_join_sample(k->stacks, ev, filetime);
    if (rc != STACK_NOT_KEPT)
      return rc < 0 ? rc : 0;
  }
  s.filetime = filetime;
  s.tid = etl_le32(ev->user_data + ptr);
  if (k->window_count == REPORT_SAMPLE_WINDOW) {
    if (charge(k, &k->window[k->window_head], !k->stacks, 1) != 0)
      return ETWCAP_E_NOMEM;
    k->window[k->window_head] = s;
    k->window_head = (k->window_head + 1) % REPORT_SAMPLE_WINDOW;
    return 0;
  }
  if (etwcap_grow((void **)&k->window, &k->window_cap, k->window_count, sizeof(*k->window),
                  FIRST_BLOCK) != 0)
    return ETWCAP_E_NOMEM;
  k->window[k->window_count++] = s;
  return 0;
}

static int image_event(struct report_kernel *k, const struct etw_event *ev, int64_t filetime)
{
  struct image_event img;
  unsigned cpu = ev->cpu < REPORT_MAX_CPUS ? ev->cpu : 0;
  int with_id, with_pdb, rc;
  if (image_identity_parse_image_fields(ev, &img) != 0)
    return 0;
  if (k->frames) {
    struct image_event copy = img;
    uint32_t index;
    int known = img.process_id == 0 || img.process_id == 4 ||
                report_idmap_get(&k->pid_to_process, img.process_id, &index);
    if ((rc = stack_frames_image(k->frames, &copy, filetime, known)) != 0)
      return rc;
  }
  with_id = k->pending_id_base[cpu] == img.image_base && img.image_base;
  with_pdb = k->pending_pdb_base[cpu] == img.image_base && img.image_base;
  k->pending_id_base[cpu] = k->pending_pdb_base[cpu] = 0;
  return report_images_count(&k->images, &img, with_id, with_pdb);
}

/* ImageID (Info) and DbgID_RSDS/ILRSDS start with the ImageBase they
 * describe (pointer-sized; SymbolTraceEventParser's layouts). */
static void identity_event(struct report_kernel *k, const struct etw_event *ev)
{
  struct pl_cursor c;
  unsigned cpu = ev->cpu < REPORT_MAX_CPUS ? ev->cpu : 0;
  uint64_t base;
  k->identity_events++;
  if (ev->opcode != IMAGE_ID_INFO && ev->opcode != IMAGE_ID_DBG_RSDS &&
      ev->opcode != IMAGE_ID_DBG_ILRSDS)
    return;
  pl_init(&c, ev->user_data, ev->user_len, ev->pointer_size);
  base = pl_ptr(&c);
  if (c.bad)
    return;
  if (ev->opcode == IMAGE_ID_INFO)
    k->pending_id_base[cpu] = base;
  else
    k->pending_pdb_base[cpu] = base;
}

/* PerfInfo SetInterval, CollectionStart or CollectionEnd: Source (u32, 0
 * the timer), NewInterval, OldInterval (u32, 100 ns units), then the
 * source's name (SampledProfileIntervalTraceData in TraceEvent's
 * KernelTraceEventParser.cs).  The timer's changes are kept; a start's
 * interval also holds before it (samples stored ahead of it in another
 * CPU's buffer), a set or end's OldInterval held up to it. */
static void interval_event(struct report_kernel *k, const struct etw_event *ev, int64_t filetime)
{
  struct report_interval *v;
  uint32_t after, before;
  if (!ev->user_data || ev->user_len < 12 || etl_le32(ev->user_data) != 0)
    return;
  after = etl_le32(ev->user_data + 4);
  before = etl_le32(ev->user_data + 8);
  if (!after)
    return;
  if (ev->opcode == REPORT_OPCODE_COLLECTION_START || !before)
    before = after;
  if (k->interval_count == REPORT_MAX_INTERVALS) {
    k->intervals_dropped++;
    return;
  }
  v = &k->intervals[k->interval_count++];
  v->filetime = filetime;
  v->before = before;
  v->after = after;
}

static int by_interval_time(const void *a, const void *b)
{
  const struct report_interval *x = a, *y = b;
  if (x->filetime != y->filetime)
    return x->filetime < y->filetime ? -1 : 1;
  if (x->after != y->after) /* the same order on every C library */
    return x->after < y->after ? -1 : 1;
  return x->before < y->before ? -1 : x->before > y->before;
}

uint32_t report_kernel_interval(const struct report_kernel *k, int64_t filetime)
{
  size_t i = k->interval_count;
  if (!i)
    return REPORT_DEFAULT_INTERVAL;
  while (i-- > 0)
    if (k->intervals[i].filetime <= filetime)
      return k->intervals[i].after;
  return k->intervals[0].before;
}

int report_kernel_interval_fixed(const struct report_kernel *k)
{
  size_t i;
  for (i = 0; i < k->interval_count; i++)
    if (k->intervals[i].before != k->intervals[0].before ||
        k->intervals[i].after != k->intervals[0].before)
      return 0;
  return 1;
}

/* bi_kernel_group(ev), remembered for the last provider: the events of
 * one provider come in runs. */
static unsigned kernel_group(struct report_kernel *k, const struct etw_event *ev)
{
  if (ev->is_kernel || !(ev->has & ETW_HAS_PROVIDER))
    return bi_kernel_group(ev);
  if (!k->last_provider_known || !guid_equal(&ev->provider, &k->last_provider)) {
    k->last_provider_known = 1;
    k->last_provider = ev->provider;
    k->last_provider_group = bi_kernel_group(ev);
  }
  return k->last_provider_group;
}

int report_kernel_event(struct report_kernel *k, const struct etw_event *ev, int64_t filetime)
{
  unsigned group;
  if (!ev->is_kernel && (ev->has & ETW_HAS_PROVIDER) &&
      guid_equal(&ev->provider, &image_identity_guid)) {
    identity_event(k, ev);
    return 0;
  }
  if (image_identity_is_image_event(ev))
    return image_event(k, ev, filetime);
  group = kernel_group(k, ev);
  if (!group)
    return 0;
  if (group == REPORT_GROUP_THREAD && ev->opcode == REPORT_OPCODE_CSWITCH) {
    k->context_switches++;
    return REPORT_SAW_CSWITCH;
  }
  if (group == REPORT_GROUP_PERFINFO && ev->opcode == REPORT_OPCODE_SAMPLE)
    return sample_event(k, ev, filetime) ? ETWCAP_E_NOMEM : REPORT_SAW_CPU_SAMPLE;
  if (group == REPORT_GROUP_PERFINFO && ev->opcode >= REPORT_OPCODE_SET_INTERVAL &&
      ev->opcode <= REPORT_OPCODE_COLLECTION_END) {
    interval_event(k, ev, filetime);
    return REPORT_SAW_OTHER;
  }
  /* Start, Stop, DCStart.  A DCStop (4) changes nothing, and decoding its
   * ProcessID is not free: a rundown has one per process. */
  if (group == KERNEL_GROUP_PROCESS && ev->opcode >= 1 && ev->opcode <= 3)
    return process_event(k, ev, filetime);
  if (group == KERNEL_GROUP_THREAD)
    return thread_event(k, ev, filetime);
  return REPORT_SAW_OTHER;
}

int report_kernel_knows(void *k, uint32_t pid)
{
  return report_kernel_process(k, pid) != NULL;
}

const struct report_process *report_kernel_process(const struct report_kernel *k, uint32_t pid)
{
  uint32_t index;
  return report_idmap_get(&k->pid_to_process, pid, &index) ? &k->processes[index] : NULL;
}

int report_kernel_finish(struct report_kernel *k)
{
  size_t i;
  int rc = 0;
  int64_t lo, hi;
  struct report_sample s;
  s.tid = 0;
  s.filetime = 0;
  k->idle_process = charged_process(k, &s, &lo, &hi);
  k->idle_known = 1;
  qsort(k->intervals, k->interval_count, sizeof(*k->intervals), by_interval_time);
  /* Idle's samples the stacks keep as runs, by count. */
  if (k->stacks && (rc = stack_join_settle(k->stacks)) != 0)
    return rc;
  if (k->stacks && k->idle_process)
    k->processes[k->idle_process - 1].cpu_samples += k->stacks->idle_run_samples;
  else if (k->stacks)
    k->samples_unattributed += k->stacks->idle_run_samples;
  /* The stacks' samples first, in their order, for their charges; then
   * the window's, oldest first. */
  for (i = 0; k->stacks && i < k->stacks->sample_count && !rc; i++) {
    s.filetime = k->stacks->samples[i].filetime;
    s.tid = k->stacks->samples[i].tid;
    rc = charge(k, &s, 1, !(k->stacks->samples[i].flags & STACK_SAMPLE_CSWITCH));
  }
  for (i = 0; i < k->window_count && !rc; i++)
    rc = charge(k, &k->window[(k->window_head + i) % k->window_count], !k->stacks, 1);
  k->window_count = k->window_head = 0;
  if (rc)
    return rc;
  return report_images_finish(&k->images);
}
