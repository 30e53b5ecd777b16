/* See report_kernel.h.  Process and thread layouts come from
 * trigger_builtin's kernel table (the MOF classes TraceEvent decodes), the
 * Image layout from image_identity; SampleProf is read here: InstructionPointer
 * (pointer), ThreadId (u32), Count (u16) (TraceEvent's SampledProfileTraceData). */
#include "report_kernel.h"

#include "alloc.h"
#include "error.h"
#include "image_identity.h"
#include "builtin_events.h"
#include "payload_cursor.h"
#include "payload_layout.h"

#include <stdlib.h>
#include <string.h>

#define TID_SLOTS (1u << 18)
#define PID_SLOTS (1u << 17)
#define IMAGE_SLOTS (1u << 15) /* REPORT_MAX_IMAGES fits in three quarters */
/* Recent images remembered, 4 MiB: a rundown of a busy machine names tens
 * of thousands of (process, base) pairs.  When full, all are added to
 * their images and forgotten, and the cache starts again.  They are found
 * through a table of 2^15 slots, 256 KiB, small enough to stay in a core's
 * cache: a slot holds the last one of its fingerprints, so a miss, the
 * common case on a trace of many processes, touches no entry. */
#define RECENT_MAX (1u << 17)
#define RECENT_AT_BITS 15
/* The first blocks of processes and images: a rundown names thousands.
 * Above the C library's threshold for mapping (glibc: 128 KiB), they are
 * mapped: a page is only touched when an entry reaches it, and growing
 * remaps rather than copies (each page first touched is a fault, the cost
 * that counts most when the entries are few bytes each). */
#define FIRST_PROCESSES 2048
#define FIRST_IMAGES 4096

int report_kernel_init(struct report_kernel *k)
{
  int rc;
  memset(k, 0, sizeof(*k));
  rc = report_idmap_init(&k->tid_to_pid, TID_SLOTS);
  if (!rc)
    rc = report_idmap_init(&k->pid_to_process, PID_SLOTS);
  if (!rc)
    rc = report_idmap_init(&k->image_by_hash, IMAGE_SLOTS);
  if (!rc && !(k->recent = etwcap_malloc(RECENT_MAX * sizeof(*k->recent))))
    rc = ETWCAP_E_NOMEM;
  if (!rc && !(k->recent_at = etwcap_calloc((size_t)1 << RECENT_AT_BITS, sizeof(uint64_t))))
    rc = ETWCAP_E_NOMEM;
  if (rc)
    report_kernel_release(k);
  return rc;
}

static void image_release(struct report_image *im)
{
  etwcap_free(im->name);
  etwcap_free(im->raw);
}

void report_kernel_release(struct report_kernel *k)
{
  size_t i;
  for (i = 0; i < k->process_count; i++)
    etwcap_free(k->processes[i].command_line);
  for (i = 0; i < k->image_count; i++)
    image_release(&k->images[i]);
  etwcap_free(k->processes);
  etwcap_free(k->images);
  report_idmap_release(&k->tid_to_pid);
  report_idmap_release(&k->pid_to_process);
  report_idmap_release(&k->image_by_hash);
  etwcap_free(k->recent);
  etwcap_free(k->recent_at);
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
                  sizeof(*k->processes), FIRST_PROCESSES) != 0)
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

static void thread_event(struct report_kernel *k, const struct etw_event *ev)
{
  const struct report_kernel_row *row;
  uint32_t pid, tid;
  if (ev->opcode != 1 && ev->opcode != 3)
    return;
  row = kernel_row(k, ev, KERNEL_GROUP_THREAD);
  if (!row || !field_u32(row, ev, row->pid_at, &pid) || !field_u32(row, ev, row->tid_at, &tid))
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

/* One step of a lane of name_hash: the next eight bytes, multiplied in. */
static uint64_t mix(uint64_t lane, const uint8_t *p)
{
  uint64_t v;
  memcpy(&v, p, 8);
  return (lane ^ v) * 0xFF51AFD7ED558CCDu;
}

/* A hash of the file name as logged (UTF-16 bytes), all of it: paths often
 * differ only in the middle (one assembly in two versions' directories),
 * and a hash of their ends sent a tenth of the image events of a Visual
 * Studio trace to a scan of every image.  Four lanes, whose multiplications
 * do not wait for each other: image events are most of a kernel rundown.
 * The end folds the high bits, where each lane gathers its bytes, into the
 * low ones. */
static uint64_t name_hash(const uint8_t *p, size_t n)
{
  uint64_t lane[4] = { n, 0x9E3779B97F4A7C15u, 0xC2B2AE3D27D4EB4Fu, 0x165667B19E3779F9u };
  uint64_t tail = 0, h;
  size_t i, j;
  for (i = 0; i + 32 <= n; i += 32)
    for (j = 0; j < 4; j++)
      lane[j] = mix(lane[j], p + i + 8 * j);
  for (j = 0; i + 8 <= n; i += 8, j++)
    lane[j] = mix(lane[j], p + i);
  for (j = 0; i < n; i++, j += 8)
    tail |= (uint64_t)p[i] << j;
  h = lane[0] ^ (lane[1] << 16 | lane[1] >> 48) ^ (lane[2] << 32 | lane[2] >> 32) ^
      (lane[3] << 48 | lane[3] >> 16) ^ tail;
  h = (h ^ h >> 32) * 0xFF51AFD7ED558CCDu;
  return h ^ h >> 29;
}

/* 1 when the name of img is exactly that of im: known names hold no NUL,
 * so one that fills the payload or is followed by a NUL ends there. */
static int same_name(const struct report_image *im, const struct image_event *img)
{
  const uint8_t *p = img->file_name;
  size_t n = im->raw_size, room = img->file_name_bytes;
  return n <= room && !memcmp(im->raw, p, n) && (n + 2 > room || (!p[n] && !p[n + 1]));
}

static struct report_image *find_image(struct report_kernel *k, const struct image_event *img,
                                       size_t n, uint64_t hash)
{
  size_t cursor = 0;
  uint32_t index;
  while (report_idmap_next(&k->image_by_hash, (uint32_t)hash, &cursor, &index)) {
    struct report_image *im = &k->images[index];
    if (im->hash == hash && im->raw_size == n && same_name(im, img))
      return im;
  }
  return NULL;
}

static int add_image(struct report_kernel *k, const struct image_event *img, uint64_t hash,
                     struct report_image **out)
{
  struct report_image *im;
  size_t n = img->file_name_bytes;
  *out = NULL;
  if (k->image_count >= REPORT_MAX_IMAGES) {
    k->images_dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&k->images, &k->image_cap, k->image_count, sizeof(*k->images),
                  FIRST_IMAGES) != 0)
    return ETWCAP_E_NOMEM;
  im = &k->images[k->image_count];
  memset(im, 0, sizeof(*im));
  im->raw = etwcap_malloc(n ? n : 1);
  if (!im->raw)
    return ETWCAP_E_NOMEM;
  memcpy(im->raw, img->file_name, n);
  im->raw_size = (uint32_t)n;
  im->hash = hash;
  /* An image the index cannot hold could not be found again. */
  if (report_idmap_add(&k->image_by_hash, (uint32_t)hash, (uint32_t)k->image_count) != 0) {
    image_release(im);
    k->images_dropped++;
    return 0;
  }
  k->image_count++;
  *out = im;
  return 0;
}

/* The image img names, by name, added when new: *out is NULL when there
 * are too many.  Most payloads end with the name's NUL, so the name is
 * first taken to be all but the payload's last character, which needs no
 * search for the NUL: a known name equal to it proves it. */
static int search_image(struct report_kernel *k, struct image_event *img,
                        struct report_image **out)
{
  const uint8_t *p = img->file_name;
  size_t room = img->file_name_bytes;
  uint64_t hash;
  if (room >= 2 && room % 2 == 0 && !p[room - 2] && !p[room - 1]) {
    hash = name_hash(p, room - 2);
    if ((*out = find_image(k, img, room - 2, hash)) != NULL)
      return 0;
  }
  image_identity_measure_name(img);
  hash = name_hash(p, img->file_name_bytes);
  *out = find_image(k, img, img->file_name_bytes, hash);
  return *out ? 0 : add_image(k, img, hash, out);
}

/* Folds 64 bits into a fingerprint (one step of a multiplicative hash). */
static uint64_t fold(uint64_t h, uint64_t v)
{
  return (h ^ v) * 0xFF51AFD7ED558CCDu;
}

/* What tells one image event's image from another's without reading its
 * name: the process and base (where), the PE's size, checksum and time
 * stamp and the bytes the name has room for.  A rundown names each image
 * of each process at its start and at its end, and an unload follows a
 * load: each gives one fingerprint.  Two files at one base of one process
 * can share one only one after the other, the first unloaded; so a load,
 * and any event after an unload, has its name compared in full (see
 * recent_image).  Only when the unload was lost can an event count under
 * the image before it, and then only when all of these fields agree. */
static uint64_t fingerprint(const struct image_event *img)
{
  uint64_t h = fold(0x9E3779B97F4A7C15u, img->image_base);
  h = fold(h, (uint64_t)img->process_id << 32 | img->image_checksum);
  h = fold(h, img->image_size);
  h = fold(h, (uint64_t)img->time_date_stamp << 32 | (uint32_t)img->file_name_bytes);
  return h ^ h >> 29;
}

/* Adds what each remembered image gathered to its image, and forgets
 * them (the table still points at them). */
static void settle_recent(struct report_kernel *k)
{
  size_t i;
  for (i = 0; i < k->recent_count; i++) {
    const struct report_recent_image *e = &k->recent[i];
    struct report_image *im = &k->images[e->image];
    im->events += e->events;
    im->with_id += e->with_id;
    im->with_pdb += e->with_pdb;
  }
  k->recent_count = 0;
  k->recent_last1 = 0;
}

static uint64_t *recent_slot(struct report_kernel *k, uint64_t fp)
{
  return &k->recent_at[fp & ((1u << RECENT_AT_BITS) - 1)];
}

static struct report_recent_image *recent_by_fingerprint(struct report_kernel *k, uint64_t fp)
{
  uint64_t at = *recent_slot(k, fp);
  struct report_recent_image *e;
  if (!(uint32_t)at || at >> 32 != fp >> 32)
    return NULL;
  e = &k->recent[(uint32_t)at - 1];
  return e->fingerprint == fp ? e : NULL;
}

/* A new entry for img's image (found by name): *out is NULL when there are
 * too many images. */
static int remember_image(struct report_kernel *k, struct image_event *img, uint64_t fp,
                          struct report_recent_image **out)
{
  struct report_image *im;
  struct report_recent_image *e;
  int rc;
  *out = NULL;
  if ((rc = search_image(k, img, &im)) != 0 || !im)
    return rc;
  if (k->recent_count == RECENT_MAX) {
    settle_recent(k);
    memset(k->recent_at, 0, ((size_t)1 << RECENT_AT_BITS) * sizeof(uint64_t));
  }
  *recent_slot(k, fp) = (fp >> 32) << 32 | (uint32_t)(k->recent_count + 1);
  e = &k->recent[k->recent_count++];
  memset(e, 0, sizeof(*e));
  e->fingerprint = fp;
  e->image = (uint32_t)(im - k->images);
  *out = e;
  return 0;
}

/* Makes entry e name the image img names, when it named another (the
 * fields of the fingerprint agree, the name does not): its counts so far
 * go to the image it named.  *ok is 0 when there are too many images. */
static int verify_recent(struct report_kernel *k, struct image_event *img,
                         struct report_recent_image *e, int *ok)
{
  struct report_image *im;
  int rc;
  *ok = 0;
  if ((rc = search_image(k, img, &im)) != 0 || !im)
    return rc;
  if ((uint32_t)(im - k->images) != e->image) {
    struct report_image *before = &k->images[e->image];
    before->events += e->events;
    before->with_id += e->with_id;
    before->with_pdb += e->with_pdb;
    e->events = e->with_id = e->with_pdb = 0;
    e->image = (uint32_t)(im - k->images);
  }
  e->unloaded = 0;
  *ok = 1;
  return 0;
}

/* The entry of img's image, found or made: *out is NULL when there are too
 * many images.  Image events come in runs that repeat (a rundown at the
 * start and at the end names each process's images in the same order), so
 * the entry after the last one is tried first: that walks the entries in
 * order, touching neither the index, nor the images, nor their names. */
static int recent_image(struct report_kernel *k, struct image_event *img,
                        struct report_recent_image **out)
{
  uint64_t fp = fingerprint(img);
  struct report_recent_image *last = k->recent_last1 ? &k->recent[k->recent_last1 - 1] : NULL;
  struct report_recent_image *e = NULL;
  int rc, ok = 1;
  *out = NULL;
  if (last && last->next1 && k->recent[last->next1 - 1].fingerprint == fp)
    e = &k->recent[last->next1 - 1];
  if (!e)
    e = recent_by_fingerprint(k, fp);
  if (e && (img->opcode == IMAGE_EVENT_LOAD || e->unloaded)) {
    if ((rc = verify_recent(k, img, e, &ok)) != 0 || !ok)
      return rc;
  } else if (!e) {
    if ((rc = remember_image(k, img, fp, &e)) != 0 || !e)
      return rc;
    last = k->recent_last1 ? &k->recent[k->recent_last1 - 1] : NULL; /* settled? */
  }
  if (img->opcode == IMAGE_EVENT_UNLOAD)
    e->unloaded = 1;
  k->recent_last1 = (uint32_t)(e - k->recent + 1);
  if (last && last->next1 != k->recent_last1)
    last->next1 = k->recent_last1;
  *out = e;
  return 0;
}

static int image_event(struct report_kernel *k, const struct etw_event *ev)
{
  struct image_event img;
  struct report_recent_image *slot;
  unsigned cpu = ev->cpu < REPORT_MAX_CPUS ? ev->cpu : 0;
  int with_id, with_pdb, rc;
  if (image_identity_parse_image_fields(ev, &img) != 0)
    return 0;
  with_id = k->pending_id_base[cpu] == img.image_base && img.image_base;
  with_pdb = k->pending_pdb_base[cpu] == img.image_base && img.image_base;
  k->pending_id_base[cpu] = k->pending_pdb_base[cpu] = 0;
  if ((rc = recent_image(k, &img, &slot)) != 0 || !slot)
    return rc;
  slot->events++;
  slot->with_id += (uint32_t)with_id;
  slot->with_pdb += (uint32_t)with_pdb;
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
  /* Start, Stop, DCStart.  A DCStop (4) changes nothing, and decoding its
   * ProcessID is not free: a rundown has one per process. */
  if (group == KERNEL_GROUP_PROCESS && ev->opcode >= 1 && ev->opcode <= 3)
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

int report_kernel_finish(struct report_kernel *k)
{
  char name[REPORT_IMAGE_NAME_MAX];
  size_t i;
  settle_recent(k);
  /* The names as the page shows them, made only now: each one takes the
   * place of the UTF-16 copy no longer needed, rather than new pages. */
  for (i = 0; i < k->image_count; i++) {
    struct report_image *im = &k->images[i];
    pl_utf16_to_utf8(im->raw, im->raw_size / 2, name, sizeof(name));
    etwcap_free(im->raw);
    im->raw = NULL;
    if (!(im->name = etwcap_strdup(name)))
      return ETWCAP_E_NOMEM;
  }
  if (k->image_count)
    qsort(k->images, k->image_count, sizeof(*k->images), by_name);
  /* The indexes point at the old order. */
  report_idmap_release(&k->image_by_hash);
  etwcap_free(k->recent);
  etwcap_free(k->recent_at);
  k->recent = NULL;
  k->recent_at = NULL;
  return 0;
}
