/* The native images that need NGEN PDBs (see ngen_modules.h). */
#include "etw/image/ngen_modules.h"

#include "etw/etl/etl_bytes.h"
#include "etw/etl/etl_format.h"
#include "etw/event/builtin_events.h"
#include "etw/image/image_identity.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <string.h>

/* Kernel groups and opcodes (hook id = group << 8 | opcode), as
 * KernelTraceEventParser.cs registers them. */
#define GROUP_THREAD 0x05
#define OP_THREAD_START 1
#define OP_THREAD_END 2
#define OP_THREAD_DCSTART 3
#define OP_THREAD_DCEND 4
#define GROUP_PERFINFO 0x0F
#define OP_SAMPLED_PROFILE 46
#define GROUP_STACKWALK 0x18
#define OP_STACK 32
#define OP_KEY_DELETE 35
#define OP_KEY_RUNDOWN 36
#define OP_STACK_KEY_USER 38
#define CLR_STACK_WALK_ID 82 /* ClrStackWalk, ClrTraceEventParser.cs */

#define PAGE_64K_MASK (~(uint64_t)0xFFFF)

/* An open-addressing map from 64-bit keys to 32-bit values (a set when
 * the values are not read); doubles at half load. */
struct slot {
  uint64_t key;
  uint32_t value;
  uint32_t used;
};

struct u64_map {
  struct slot *slots;
  size_t cap, count;
};

static size_t slot_of(uint64_t key, size_t cap)
{
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdull; /* MurmurHash3's finaliser: pages differ in high bits */
  key ^= key >> 33;
  return (size_t)key & (cap - 1);
}

static struct slot *map_find(const struct u64_map *m, uint64_t key)
{
  size_t i;
  if (!m->cap)
    return NULL;
  for (i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (!m->slots[i].used)
      return NULL;
    if (m->slots[i].key == key)
      return &m->slots[i];
  }
}

static int map_put(struct u64_map *m, uint64_t key, uint32_t value)
{
  size_t i;
  if (2 * (m->count + 1) > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 1024, k;
    struct slot *s = etwcap_calloc(cap, sizeof *s);
    if (!s)
      return ETWCAP_E_NOMEM;
    for (k = 0; k < m->cap; k++)
      if (m->slots[k].used) {
        for (i = slot_of(m->slots[k].key, cap); s[i].used; i = (i + 1) & (cap - 1)) {
        }
        s[i] = m->slots[k];
      }
    etwcap_free(m->slots);
    m->slots = s;
    m->cap = cap;
  }
  for (i = slot_of(key, m->cap); m->slots[i].used; i = (i + 1) & (m->cap - 1))
    if (m->slots[i].key == key) {
      m->slots[i].value = value;
      return 0;
    }
  m->slots[i].key = key;
  m->slots[i].value = value;
  m->slots[i].used = 1;
  m->count++;
  return 0;
}

struct image {
  char *path;
  uint32_t pid;
  uint64_t base, size;
};

/* A stack definition's frame met before any reference to its key. */
struct pending_frame {
  uint64_t key, address;
};

struct pending {
  struct pending_frame *items;
  size_t count, cap;
};

struct ngen_modules {
  struct u64_map pages;      /* page | pid & 0xFFFF */
  struct u64_map thread_pid; /* tid -> pid, the latest Thread Start/DCStart */
  struct u64_map key_pid;    /* stack key -> pid of its StackKeyUser reference */
  struct image *images;
  size_t image_count, image_cap;
  struct pending stacks;  /* keyed by stack key, joined with key_pid */
  /* Samples of threads no Thread event named yet, as (tid << 32 | page
   * number) (user-mode addresses have 48 bits), joined with thread_pid. */
  struct u64_map unnamed;
  const char **chosen;
  uint64_t addresses;
};

int ngen_modules_new(struct ngen_modules **out)
{
  *out = etwcap_calloc(1, sizeof **out);
  return *out ? 0 : ETWCAP_E_NOMEM;
}

void ngen_modules_free(struct ngen_modules *m)
{
  size_t i;
  if (!m)
    return;
  for (i = 0; i < m->image_count; i++)
    etwcap_free(m->images[i].path);
  etwcap_free(m->images);
  etwcap_free(m->stacks.items);
  etwcap_free(m->unnamed.slots);
  etwcap_free(m->chosen);
  etwcap_free(m->pages.slots);
  etwcap_free(m->thread_pid.slots);
  etwcap_free(m->key_pid.slots);
  etwcap_free(m);
}

static int grow(void **array, size_t *cap, size_t count, size_t item)
{
  void *p;
  size_t n = *cap ? *cap * 2 : 16;
  if (count < *cap)
    return 0;
  if (!(p = etwcap_realloc(*array, n * item)))
    return ETWCAP_E_NOMEM;
  *array = p;
  *cap = n;
  return 0;
}

static int defer(struct pending *p, uint64_t key, uint64_t address)
{
  int rc = grow((void **)&p->items, &p->cap, p->count, sizeof(*p->items));
  if (!rc) {
    p->items[p->count].key = key;
    p->items[p->count].address = address;
    p->count++;
  }
  return rc;
}

static int add_address(struct ngen_modules *m, uint64_t address, uint32_t pid)
{
  /* A 64-bit kernel address (the upper half) is in no native image: not
   * keeping them halves the set for a trace with kernel stacks. */
  if (address >> 63)
    return 0;
  m->addresses++;
  return map_put(&m->pages, (address & PAGE_64K_MASK) + (pid & 0xFFFF), 0);
}

static uint64_t pointer_at(const uint8_t *p, unsigned pointer_size)
{
  return pointer_size == 8 ? etl_le64(p) : etl_le32(p);
}

/* `count` pointers from p, all of process pid. */
static int add_frames(struct ngen_modules *m, const uint8_t *p, size_t count,
                      unsigned pointer_size, uint32_t pid)
{
  size_t i;
  int rc = 0;
  for (i = 0; i < count && !rc; i++)
    rc = add_address(m, pointer_at(p + i * pointer_size, pointer_size), pid);
  return rc;
}

/* ".ni." anywhere in the UTF-16LE name, case-insensitive, as PerfView
 * tests the file name. */
static int is_native_image_name(const uint8_t *name, size_t bytes)
{
  static const char pattern[] = ".ni.";
  size_t i, k;
  for (i = 0; i + 8 <= bytes; i += 2) {
    for (k = 0; k < 4; k++) {
      unsigned c = etl_le16(name + i + 2 * k);
      if (c >= 'A' && c <= 'Z')
        c += 32;
      if (c != (unsigned char)pattern[k])
        break;
    }
    if (k == 4)
      return 1;
  }
  return 0;
}

static int observe_image(struct ngen_modules *m, const struct etw_event *ev)
{
  struct image_event img;
  struct image *im;
  char path[1024];
  int rc;
  if (image_identity_parse_image_event(ev, &img) != 0 ||
      !is_native_image_name(img.file_name, img.file_name_bytes))
    return 0;
  if ((rc = grow((void **)&m->images, &m->image_cap, m->image_count, sizeof(*m->images))) != 0)
    return rc;
  /* A name cut to fit would name another image: it is dropped, as a name
   * that is no native image is. */
  if (etl_utf16_to_utf8_whole(img.file_name, img.file_name_bytes, path, sizeof(path)) != 0)
    return 0;
  im = &m->images[m->image_count];
  if (!(im->path = etwcap_strdup(path)))
    return ETWCAP_E_NOMEM;
  im->pid = img.process_id;
  im->base = img.image_base;
  im->size = img.image_size;
  m->image_count++;
  return 0;
}

static int observe_definition(struct ngen_modules *m, const struct etw_event *ev)
{
  unsigned ps = ev->pointer_size;
  uint64_t key;
  const struct slot *ref;
  size_t frames, i;
  int rc = 0;
  if (ev->user_len < ps)
    return 0;
  key = pointer_at(ev->user_data, ps);
  frames = ev->user_len / ps - 1;
  ref = map_find(&m->key_pid, key);
  if (ref)
    return add_frames(m, ev->user_data + ps, frames, ps, ref->value);
  for (i = 0; i < frames && !rc; i++)
    rc = defer(&m->stacks, key, pointer_at(ev->user_data + (i + 1) * ps, ps));
  return rc;
}

/* A sample's process: its header's, else (PERFINFO headers carry none) its
 * thread's, from the Thread events so far; else it waits for a later Thread
 * event (a circular file keeps the end rundown, not the start). */
static int observe_sample(struct ngen_modules *m, const struct etw_event *ev)
{
  unsigned ps = ev->pointer_size;
  uint64_t ip = pointer_at(ev->user_data, ps);
  uint32_t tid = etl_le32(ev->user_data + ps);
  const struct slot *s;
  if ((ev->has & ETW_HAS_PID_TID) && ev->pid != 0xFFFFFFFFu)
    return ev->pid ? add_address(m, ip, ev->pid) : 0;
  if ((s = map_find(&m->thread_pid, tid)) != NULL)
    return s->value ? add_address(m, ip, s->value) : 0;
  if (ip >> 48)
    return 0; /* a kernel address (or no user-mode one): in no native image */
  return map_put(&m->unnamed, (uint64_t)tid << 32 | (uint32_t)(ip >> 16), 0);
}

static int observe_kernel(struct ngen_modules *m, const struct etw_event *ev)
{
  const uint8_t *p = ev->user_data;
  unsigned ps = ev->pointer_size;
  uint32_t pid;

  /* Thread ProcessId, TThreadId: a start names the thread from then on (as
   * TraceEvent's ThreadToProcess tracking); an end names only a thread no
   * start named. */
  if (ev->group == GROUP_THREAD && ev->user_len >= 8) {
    if (ev->opcode == OP_THREAD_START || ev->opcode == OP_THREAD_DCSTART)
      return map_put(&m->thread_pid, etl_le32(p + 4), etl_le32(p));
    if ((ev->opcode == OP_THREAD_END || ev->opcode == OP_THREAD_DCEND) &&
        !map_find(&m->thread_pid, etl_le32(p + 4)))
      return map_put(&m->thread_pid, etl_le32(p + 4), etl_le32(p));
    return 0;
  }
  if (ev->group == GROUP_PERFINFO && ev->opcode == OP_SAMPLED_PROFILE && ev->user_len >= ps + 4)
    return observe_sample(m, ev);
  if (ev->group != GROUP_STACKWALK)
    return 0;
  if (ev->opcode == OP_STACK && ev->user_len >= 16) {
    pid = etl_le32(p + 8);
    return pid ? add_frames(m, p + 16, (ev->user_len - 16) / ps, ps, pid) : 0;
  }
  if (ev->opcode == OP_STACK_KEY_USER && ev->user_len >= 16 + ps) {
    pid = etl_le32(p + 8);
    return pid ? map_put(&m->key_pid, pointer_at(p + 16, ps), pid) : 0;
  }
  if (ev->opcode == OP_KEY_DELETE || ev->opcode == OP_KEY_RUNDOWN)
    return observe_definition(m, ev);
  return 0;
}

int ngen_modules_observe(struct ngen_modules *m, const struct etw_event *ev)
{
  if (image_identity_is_image_event(ev))
    return observe_image(m, ev);
  if (ev->is_kernel)
    return observe_kernel(m, ev);
  /* ClrStackWalk: ClrInstanceID (2), Reserved1, Reserved2 (1 each),
   * FrameCount (4), then the frames. */
  if ((ev->has & ETW_HAS_DESCRIPTOR) && ev->id == CLR_STACK_WALK_ID && ev->user_len >= 8 &&
      guid_equal(&ev->provider, &bi_guid_clr) && ev->pid != 0) {
    size_t frames = etl_le32(ev->user_data + 4), room = (ev->user_len - 8) / ev->pointer_size;
    return add_frames(m, ev->user_data + 8, frames < room ? frames : room, ev->pointer_size,
                      ev->pid);
  }
  return 0;
}

/* Does any 64 KB page of the image hold an address of its process?  The
 * logged size is outside bytes (a damaged event can claim 2^64 bytes), so
 * the walk takes whichever is shorter: the image's pages, looked up one by
 * one, or the pages seen, each tested against the image's range. */
static int image_has_address(const struct ngen_modules *m, const struct image *im)
{
  uint64_t offset, page, base = im->base & PAGE_64K_MASK, pid_bits = im->pid & 0xFFFF;
  uint64_t image_pages = (im->size >> 16) + ((im->size & 0xFFFF) != 0);
  size_t i;
  if (image_pages <= m->pages.count) {
    for (offset = 0; offset < im->size; offset += 0x10000)
      if (map_find(&m->pages, base + offset + pid_bits))
        return 1;
    return 0;
  }
  for (i = 0; i < m->pages.cap; i++) {
    if (!m->pages.slots[i].used || (m->pages.slots[i].key & 0xFFFF) != pid_bits)
      continue;
    page = m->pages.slots[i].key & PAGE_64K_MASK;
    if (page >= base && page - base < im->size)
      return 1;
  }
  return 0;
}

static int already_chosen(const struct ngen_modules *m, size_t n, const char *path)
{
  size_t i;
  for (i = 0; i < n; i++)
    if (strcmp(m->chosen[i], path) == 0)
      return 1;
  return 0;
}

/* Addresses whose process came later: joined now, in either order. */
static int join_stacks(struct ngen_modules *m)
{
  size_t i;
  int rc = 0;
  for (i = 0; i < m->stacks.count && !rc; i++) {
    const struct slot *s = map_find(&m->key_pid, m->stacks.items[i].key);
    if (s)
      rc = add_address(m, m->stacks.items[i].address, s->value);
  }
  m->stacks.count = 0;
  return rc;
}

static int join_samples(struct ngen_modules *m)
{
  size_t i;
  int rc = 0;
  for (i = 0; i < m->unnamed.cap && !rc; i++) {
    const struct slot *u = &m->unnamed.slots[i], *s;
    if (u->used && (s = map_find(&m->thread_pid, u->key >> 32)) != NULL && s->value)
      rc = add_address(m, (u->key & 0xFFFFFFFFu) << 16, s->value);
  }
  return rc;
}

int ngen_modules_finish(struct ngen_modules *m, const char *const **paths, size_t *count)
{
  size_t i, n = 0;
  int rc = join_stacks(m);
  if (!rc)
    rc = join_samples(m);
  etwcap_free(m->chosen);
  m->chosen = rc ? NULL : etwcap_calloc(m->image_count + 1, sizeof(*m->chosen));
  if (!m->chosen)
    return rc ? rc : ETWCAP_E_NOMEM;
  for (i = 0; i < m->image_count; i++)
    if (!already_chosen(m, n, m->images[i].path) && image_has_address(m, &m->images[i]))
      m->chosen[n++] = m->images[i].path;
  *paths = m->chosen;
  *count = n;
  return 0;
}

void ngen_modules_counts(const struct ngen_modules *m, struct ngen_modules_counts *c)
{
  c->native_image_loads = m->image_count;
  c->addresses = m->addresses;
  c->pages = m->pages.count;
}
