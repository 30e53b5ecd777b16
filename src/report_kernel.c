/* See report_kernel.h.  Process and thread layouts come from
 * trigger_builtin's kernel table (the MOF classes TraceEvent decodes), the
 * Image layout from image_identity; SampleProf is read here: InstructionPointer
 * (pointer), ThreadId (u32), Count (u16) (TraceEvent's SampledProfileTraceData). */
#include "report_kernel.h"

#include "alloc.h"
#include "error.h"
#include "image_identity.h"
#include "trigger_builtin.h"
#include "trigger_payload.h"
#include "trigger_schema.h"

#include <stdlib.h>
#include <string.h>

#define TID_SLOTS (1u << 18)
#define PID_SLOTS (1u << 17)
#define IMAGE_SLOTS (1u << 15) /* REPORT_MAX_IMAGES fits in three quarters */

int report_kernel_init(struct report_kernel *k)
{
  int rc;
  memset(k, 0, sizeof(*k));
  rc = report_idmap_init(&k->tid_to_pid, TID_SLOTS);
  if (!rc)
    rc = report_idmap_init(&k->pid_to_process, PID_SLOTS);
  if (!rc)
    rc = report_idmap_init(&k->image_by_hash, IMAGE_SLOTS);
  if (rc)
    report_kernel_release(k);
  return rc;
}

void report_kernel_release(struct report_kernel *k)
{
  size_t i;
  for (i = 0; i < k->process_count; i++)
    etwcap_free(k->processes[i].command_line);
  for (i = 0; i < k->image_count; i++) {
    etwcap_free(k->images[i].name);
    etwcap_free(k->images[i].raw);
  }
  etwcap_free(k->processes);
  etwcap_free(k->images);
  report_idmap_release(&k->tid_to_pid);
  report_idmap_release(&k->pid_to_process);
  report_idmap_release(&k->image_by_hash);
  memset(k, 0, sizeof(*k));
}

static int field_text(const struct bi_event *row, const struct etw_event *ev, const char *name,
                      char *out, size_t cap)
{
  struct tv_value v;
  if (tf_find(&row->layout, ev->user_data, ev->user_len, ev->pointer_size, name, &v) != 1 ||
      v.type != TV_TEXT)
    return 0;
  tv_copy(out, cap, v.text);
  return 1;
}

static int field_u32(const struct bi_event *row, const struct etw_event *ev, const char *name,
                     uint32_t *out)
{
  struct tv_value v;
  if (tf_find(&row->layout, ev->user_data, ev->user_len, ev->pointer_size, name, &v) != 1)
    return 0;
  *out = (uint32_t)(v.type == TV_INT ? (uint64_t)v.i : v.u);
  return 1;
}

static int process_event(struct report_kernel *k, const struct etw_event *ev, int64_t filetime)
{
  const struct bi_event *row = bi_lookup(BI_KERNEL, ev);
  uint32_t pid, index;
  struct report_process *p;
  char cmd[REPORT_COMMAND_LINE_MAX];
  if (!row || !field_u32(row, ev, "ProcessID", &pid))
    return 0;
  if (ev->opcode == 2 || ev->opcode == 4) { /* Stop, DCStop */
    if (report_idmap_get(&k->pid_to_process, pid, &index) && ev->opcode == 2)
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
                  sizeof(*k->processes), 64) != 0)
    return ETWCAP_E_NOMEM;
  p = &k->processes[k->process_count];
  memset(p, 0, sizeof(*p));
  p->pid = pid;
  field_text(row, ev, "ImageFileName", p->name, sizeof(p->name));
  if (field_text(row, ev, "CommandLine", cmd, sizeof(cmd)) && cmd[0]) {
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

static void thread_event(struct report_kernel *k, const struct etw_event *ev)
{
  const struct bi_event *row = bi_lookup(BI_KERNEL, ev);
  uint32_t pid, tid;
  if (!row || (ev->opcode != 1 && ev->opcode != 3) || !field_u32(row, ev, "ProcessID", &pid) ||
      !field_u32(row, ev, "ThreadID", &tid))
    return;
  if (report_idmap_put(&k->tid_to_pid, tid, pid) != 0)
    k->threads_dropped++;
}

static void sample_event(struct report_kernel *k, const struct etw_event *ev)
{
  struct pl_cursor c;
  uint32_t tid, pid, index;
  k->cpu_samples++;
  pl_init(&c, ev->user_data, ev->user_len, ev->pointer_size);
  pl_ptr(&c);
  tid = pl_u32(&c);
  if (!c.bad && report_idmap_get(&k->tid_to_pid, tid, &pid) &&
      report_idmap_get(&k->pid_to_process, pid, &index))
    k->processes[index].cpu_samples++;
  else
    k->samples_unattributed++;
}

/* A hash of the file name as logged (UTF-16 bytes): its length, its first
 * 8 and its last 32 bytes, where paths differ.  Constant time: image events
 * are most events of a rundown, so this is on the hot path; a collision only
 * costs the memcmp that confirms a match. */
static uint32_t name_hash(const uint8_t *p, size_t n)
{
  uint64_t h = 0x9E3779B97F4A7C15u ^ n, v;
  size_t i, from = n > 32 ? n - 32 : 0;
  if (n >= 8) {
    memcpy(&v, p, 8);
    h = (h ^ v) * 0xFF51AFD7ED558CCDu;
  }
  for (i = from; i + 8 <= n; i += 8) {
    memcpy(&v, p + i, 8);
    h = (h ^ v) * 0xFF51AFD7ED558CCDu;
    h ^= h >> 32;
  }
  for (; i < n; i++)
    h = (h ^ p[i]) * 0x100000001B3u;
  return (uint32_t)(h ^ (h >> 29));
}

static int same_name(const struct report_image *im, const uint8_t *raw, size_t n)
{
  return im->raw_size == n && !memcmp(im->raw, raw, n);
}

static struct report_image *find_image(struct report_kernel *k, const uint8_t *raw, size_t n,
                                       uint32_t hash)
{
  uint32_t index;
  size_t i;
  if (report_idmap_get(&k->image_by_hash, hash, &index) && same_name(&k->images[index], raw, n))
    return &k->images[index];
  /* Two names with one hash: rare enough for a scan. */
  for (i = k->image_count; i-- > 0;)
    if (same_name(&k->images[i], raw, n))
      return &k->images[i];
  return NULL;
}

static int add_image(struct report_kernel *k, const struct image_event *img, uint32_t hash,
                     struct report_image **out)
{
  char name[REPORT_IMAGE_NAME_MAX];
  struct report_image *im;
  uint32_t other;
  *out = NULL;
  if (k->image_count >= REPORT_MAX_IMAGES) {
    k->images_dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&k->images, &k->image_cap, k->image_count, sizeof(*k->images), 64) !=
      0)
    return ETWCAP_E_NOMEM;
  im = &k->images[k->image_count];
  memset(im, 0, sizeof(*im));
  pl_utf16_to_utf8(img->file_name, img->file_name_bytes / 2, name, sizeof(name));
  im->name = etwcap_strdup(name);
  im->raw = etwcap_malloc(img->file_name_bytes ? img->file_name_bytes : 1);
  if (!im->name || !im->raw) {
    etwcap_free(im->name);
    etwcap_free(im->raw);
    return ETWCAP_E_NOMEM;
  }
  memcpy(im->raw, img->file_name, img->file_name_bytes);
  im->raw_size = img->file_name_bytes;
  if (!report_idmap_get(&k->image_by_hash, hash, &other))
    report_idmap_put(&k->image_by_hash, hash, (uint32_t)k->image_count);
  k->image_count++;
  *out = im;
  return 0;
}

static int image_event(struct report_kernel *k, const struct etw_event *ev)
{
  struct image_event img;
  struct report_image *im;
  unsigned cpu = ev->cpu < REPORT_MAX_CPUS ? ev->cpu : 0;
  int with_id, with_pdb, rc;
  uint32_t hash;
  if (image_identity_parse_image_event(ev, &img) != 0)
    return 0;
  with_id = k->pending_id_base[cpu] == img.image_base && img.image_base;
  with_pdb = k->pending_pdb_base[cpu] == img.image_base && img.image_base;
  k->pending_id_base[cpu] = k->pending_pdb_base[cpu] = 0;
  hash = name_hash(img.file_name, img.file_name_bytes);
  im = find_image(k, img.file_name, img.file_name_bytes, hash);
  if (!im && ((rc = add_image(k, &img, hash, &im)) != 0 || !im))
    return rc;
  im->events++;
  im->with_id += (uint32_t)with_id;
  im->with_pdb += (uint32_t)with_pdb;
  return 0;
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

int report_kernel_event(struct report_kernel *k, const struct etw_event *ev, int64_t filetime)
{
  unsigned group;
  if (!ev->is_kernel && (ev->has & ETW_HAS_PROVIDER) &&
      guid_equal(&ev->provider, &image_identity_guid)) {
    identity_event(k, ev);
    return 0;
  }
  if (image_identity_is_image_event(ev))
    return image_event(k, ev);
  group = bi_kernel_group(ev);
  if (!group)
    return 0;
  if (group == REPORT_GROUP_THREAD && ev->opcode == REPORT_OPCODE_CSWITCH) {
    k->context_switches++;
    return REPORT_SAW_CSWITCH;
  }
  if (group == REPORT_GROUP_PERFINFO && ev->opcode == REPORT_OPCODE_SAMPLE) {
    sample_event(k, ev);
    return REPORT_SAW_CPU_SAMPLE;
  }
  if (group == KERNEL_GROUP_PROCESS && ev->opcode >= 1 && ev->opcode <= 4)
    return process_event(k, ev, filetime);
  if (group == KERNEL_GROUP_THREAD)
    thread_event(k, ev);
  return REPORT_SAW_OTHER;
}

const struct report_process *report_kernel_process(const struct report_kernel *k, uint32_t pid)
{
  uint32_t index;
  return report_idmap_get(&k->pid_to_process, pid, &index) ? &k->processes[index] : NULL;
}

static int by_name(const void *a, const void *b)
{
  const struct report_image *x = a, *y = b;
  return strcmp(x->name, y->name);
}

void report_kernel_finish(struct report_kernel *k)
{
  if (k->image_count)
    qsort(k->images, k->image_count, sizeof(*k->images), by_name);
  /* The hash index points at the old order. */
  report_idmap_release(&k->image_by_hash);
}
