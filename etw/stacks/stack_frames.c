/* See stack_frames.h.  The CLR method events' payload, as TraceEvent's
 * MethodLoadVerboseTraceData reads it (versions 0 to 2 share the head):
 * MethodID (u64), ModuleID (u64), MethodStartAddress (u64), MethodSize
 * (u32), MethodToken (u32), MethodFlags (u32), MethodNamespace,
 * MethodName, MethodSignature (NUL-terminated UTF-16).  Event ids: the
 * runtime's MethodLoadVerbose 143 and MethodUnloadVerbose 144, the rundown
 * provider's MethodDCStartVerbose 143 and MethodDCEndVerbose 144 (the
 * ClrTraceEventParser and ClrRundownTraceEventParser tables). */
#include "etw/stacks/stack_frames.h"

#include "etw/event/payload_cursor.h"
#include "etw/stacks/stack_join.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdlib.h>
#include <string.h>

#define OPEN_SLOTS (1u << 22)
#define NAME_SLOTS (1u << 21)
#define PID_SLOTS (1u << 18)
#define FIRST_BLOCK 4096
#define CLR_ID_METHOD_LOAD_VERBOSE 143   /* rundown: MethodDCStartVerbose */
#define CLR_ID_METHOD_UNLOAD_VERBOSE 144 /* rundown: MethodDCEndVerbose */

static void ranges_init(struct stack_code_ranges *r)
{
  memset(r, 0, sizeof(*r));
  stack_keymap_init(&r->open, OPEN_SLOTS);
  stack_keymap_init(&r->by_pid, PID_SLOTS);
}

static void ranges_release(struct stack_code_ranges *r)
{
  etwcap_free(r->list);
  stack_keymap_release(&r->open);
  stack_keymap_release(&r->by_pid);
  memset(r, 0, sizeof(*r));
}

int stack_frames_init(struct stack_frames *f)
{
  memset(f, 0, sizeof(*f));
  ranges_init(&f->methods);
  ranges_init(&f->images);
  stack_keymap_init(&f->by_name, NAME_SLOTS);
  return stack_frames_intern(f, "?!?", 3) == STACK_FRAME_UNKNOWN ? 0 : ETWCAP_E_NOMEM;
}

void stack_frames_release(struct stack_frames *f)
{
  ranges_release(&f->methods);
  ranges_release(&f->images);
  stack_keymap_release(&f->by_name);
  etwcap_free(f->text);
  etwcap_free(f->name_at);
  etwcap_free(f->memo);
  etwcap_free(f->orphans);
  memset(f, 0, sizeof(*f));
}

int64_t stack_frames_intern(struct stack_frames *f, const char *text, size_t len)
{
  uint64_t h = 0x84222325cbf29ce4ull;
  uint32_t known;
  size_t i;
  for (i = 0; i < len; i++)
    h = (h ^ (uint8_t)text[i]) * 0x100000001b3ull;
  known = stack_keymap_get(&f->by_name, h, (uint32_t)len);
  if (known && memcmp(f->text + f->name_at[known - 1], text, len) == 0)
    return known - 1;
  if (f->frame_count >= STACK_MAX_FRAME_NAMES) {
    f->names_dropped++;
    return STACK_FRAME_UNKNOWN;
  }
  while (f->text_len + len + 1 > f->text_cap)
    if (etwcap_grow((void **)&f->text, &f->text_cap, f->text_cap, 1, 65536) != 0)
      return ETWCAP_E_NOMEM;
  if (etwcap_grow((void **)&f->name_at, &f->frame_cap, f->frame_count, sizeof(*f->name_at),
                  FIRST_BLOCK) != 0)
    return ETWCAP_E_NOMEM;
  f->name_at[f->frame_count] = (uint32_t)f->text_len;
  memcpy(f->text + f->text_len, text, len);
  f->text[f->text_len + len] = '\0';
  f->text_len += len + 1;
  if (!known && stack_keymap_put(&f->by_name, h, (uint32_t)len, (uint32_t)f->frame_count + 1))
    f->names_dropped++; /* still named, but not found again: a new frame each time */
  return (int64_t)f->frame_count++;
}

const char *stack_frames_name(const struct stack_frames *f, uint32_t frame)
{
  return frame < f->frame_count ? f->text + f->name_at[frame] : "?!?";
}

/* The range of pid at [lo, lo + size) for an event at `when`: an opening
 * event (Load, DCStart: `when` is then its start) or a closing one
 * (Unload, DCEnd).  The same code seen again, in a repeated rundown,
 * widens the range it has already: only what is new is named, by
 * name(f, ctx), the frame or ETWCAP_E_NOMEM as a negative value. */
static int range_event(struct stack_frames *f, struct stack_code_ranges *r, uint32_t pid,
                       uint64_t lo, uint64_t size, int opening, int64_t when,
                       int64_t (*name)(struct stack_frames *f, void *ctx), void *ctx)
{
  struct stack_code_range *x;
  uint32_t known;
  int64_t frame;
  /* A rundown lists the same code in the same order each time: the range
   * after the last one found is most often the one. */
  if (r->last < r->count && r->list[r->last].lo == lo && r->list[r->last].pid == pid)
    known = (uint32_t)r->last + 1;
  else
    known = stack_keymap_get(&r->open, lo, pid);
  r->last = known;
  if (known && r->list[known - 1].hi == lo + size) {
    x = &r->list[known - 1];
    if (opening) {
      if (when < x->start)
        x->start = when;
      if (x->end != INT64_MAX && when > x->end)
        x->end = INT64_MAX; /* loaded again after its unload */
    } else if (x->end == INT64_MAX || when > x->end) {
      x->end = when;
    }
    return 0;
  }
  frame = name(f, ctx);
  if (frame < 0)
    return (int)frame;
  if (r->count >= STACK_MAX_CODE_RANGES) {
    f->ranges_dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&r->list, &r->cap, r->count, sizeof(*r->list), FIRST_BLOCK) != 0)
    return ETWCAP_E_NOMEM;
  x = &r->list[r->count];
  x->lo = lo;
  x->hi = lo + size;
  x->pid = pid;
  x->frame = (uint32_t)frame;
  x->start = opening ? when : INT64_MIN;
  x->end = opening ? INT64_MAX : when;
  if (stack_keymap_put(&r->open, lo, pid, (uint32_t)r->count + 1) != 0)
    f->ranges_dropped++; /* kept, but not found again to end or widen */
  r->last = ++r->count;
  return 0;
}

/* The file's base name (after the last '\' or '/') and "!?". */
static int64_t image_frame(struct stack_frames *f, void *ctx)
{
  struct image_event *img = ctx;
  char name[STACK_FRAME_NAME_MAX];
  size_t units, base = 0, i, len;
  image_identity_measure_name(img);
  units = img->file_name_bytes / 2;
  for (i = 0; i < units; i++) {
    unsigned c = img->file_name[2 * i] | (unsigned)img->file_name[2 * i + 1] << 8;
    if (c == '\\' || c == '/')
      base = i + 1;
  }
  len = pl_utf16_to_utf8(img->file_name + 2 * base, units - base, name, sizeof(name) - 2);
  memcpy(name + len, "!?", 3);
  return stack_frames_intern(f, name, len + 2);
}

/* The frame an orphan already has. */
static int64_t orphan_frame(struct stack_frames *f, void *ctx)
{
  (void)f;
  return ((const struct stack_orphan_image *)ctx)->frame;
}

int stack_frames_image(struct stack_frames *f, struct image_event *img, int64_t filetime,
                        int known)
{
  int opening = img->opcode == IMAGE_EVENT_LOAD || img->opcode == IMAGE_EVENT_DCSTART;
  int64_t when = img->opcode == IMAGE_EVENT_DCSTART ? INT64_MIN : filetime, frame;
  struct stack_orphan_image *o;
  if (!img->image_size)
    return 0;
  if (known)
    return range_event(f, &f->images, img->process_id, img->image_base, img->image_size,
                       opening, when, image_frame, img);
  if (f->orphan_count >= STACK_MAX_ORPHAN_IMAGES) {
    f->ranges_dropped++;
    return 0;
  }
  if ((frame = image_frame(f, img)) < 0)
    return (int)frame;
  if (etwcap_grow((void **)&f->orphans, &f->orphan_cap, f->orphan_count, sizeof(*f->orphans),
                  256) != 0)
    return ETWCAP_E_NOMEM;
  o = &f->orphans[f->orphan_count++];
  o->base = img->image_base;
  o->size = img->image_size;
  o->when = when;
  o->pid = img->process_id;
  o->frame = (uint32_t)frame;
  o->opening = opening;
  return 0;
}

/* "Namespace.Name" of the method event whose cursor is at its
 * MethodNamespace. */
static int64_t method_frame(struct stack_frames *f, void *ctx)
{
  struct pl_cursor *c = ctx;
  char name[STACK_FRAME_NAME_MAX];
  size_t len = pl_utf16z(c, name, sizeof(name) - 1);
  if (len)
    name[len++] = '.';
  len += pl_utf16z(c, name + len, sizeof(name) - len);
  return stack_frames_intern(f, name, len);
}

int stack_frames_clr(struct stack_frames *f, const struct etw_event *ev, int rundown,
                      int64_t filetime)
{
  struct pl_cursor c;
  uint64_t start;
  uint32_t size;
  int opening;
  if (ev->id != CLR_ID_METHOD_LOAD_VERBOSE && ev->id != CLR_ID_METHOD_UNLOAD_VERBOSE)
    return 0;
  opening = ev->id == CLR_ID_METHOD_LOAD_VERBOSE;
  pl_init(&c, ev->user_data, ev->user_len, ev->pointer_size);
  pl_skip(&c, 16);
  start = pl_u64(&c);
  size = pl_u32(&c);
  pl_skip(&c, 8);
  if (c.bad || !size)
    return 0;
  return range_event(f, &f->methods, ev->pid, start, size, opening,
                     opening && rundown ? INT64_MIN : filetime, method_frame, &c);
}

static int by_pid_then_lo(const void *a, const void *b)
{
  const struct stack_code_range *x = a, *y = b;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if (x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  if (x->hi != y->hi)
    return x->hi < y->hi ? -1 : 1;
  if (x->frame != y->frame)
    return x->frame < y->frame ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorts the ranges, makes one of each run of the same code of the same
 * process (from its first start to its last end), and notes where each
 * process's ranges start and the largest end so far. */
static int ranges_finish(struct stack_frames *f, struct stack_code_ranges *r)
{
  size_t i, n = 0;
  if (r->count)
    qsort(r->list, r->count, sizeof(*r->list), by_pid_then_lo);
  for (i = 0; i < r->count; i++) {
    struct stack_code_range *x = &r->list[i], *last = n ? &r->list[n - 1] : NULL;
    if (last && last->pid == x->pid && last->lo == x->lo && last->hi == x->hi &&
        last->frame == x->frame) {
      if (x->end > last->end)
        last->end = x->end;
      continue;
    }
    r->list[n] = *x;
    x = &r->list[n++];
    if (!last || x->pid != last->pid) {
      x->max_hi = x->hi;
      if (stack_keymap_put(&r->by_pid, x->pid, 0, (uint32_t)n) != 0)
        f->ranges_dropped++;
    } else {
      x->max_hi = x->hi > last->max_hi ? x->hi : last->max_hi;
    }
  }
  r->count = n;
  stack_keymap_release(&r->open);
  return 0;
}

int stack_frames_finish(struct stack_frames *f, int (*known)(void *ctx, uint32_t pid),
                         void *ctx)
{
  size_t i;
  int rc = 0;
  for (i = 0; i < f->orphan_count && !rc; i++) {
    struct stack_orphan_image *o = &f->orphans[i];
    if (known(ctx, o->pid))
      rc = range_event(f, &f->images, o->pid, o->base, o->size, o->opening, o->when,
                       orphan_frame, o);
    else
      f->ranges_dropped++;
  }
  etwcap_free(f->orphans);
  f->orphans = NULL;
  f->orphan_count = f->orphan_cap = 0;
  if (!rc)
    rc = ranges_finish(f, &f->methods);
  if (!rc)
    rc = ranges_finish(f, &f->images);
  if (!rc && !(f->memo = etwcap_calloc(STACK_FRAME_MEMO, sizeof(*f->memo))))
    rc = ETWCAP_E_NOMEM;
  return rc;
}

/* Narrows [*lo, *hi) around `when` to exclude a boundary b of a range's
 * life (the first time it is live, or the first after it). */
static void narrow(int64_t b, int64_t when, int64_t *lo, int64_t *hi)
{
  if (b <= when && b > *lo)
    *lo = b;
  else if (b > when && b < *hi)
    *hi = b;
}

/* The frame of the range of pid live at `when` that holds address, or -1;
 * [*lo, *hi) is narrowed to the times for which that answer stays. */
static int64_t find(const struct stack_code_ranges *r, uint32_t pid, uint64_t address,
                    int64_t when, int64_t *lo_time, int64_t *hi_time)
{
  uint32_t first = stack_keymap_get(&r->by_pid, pid, 0);
  size_t lo, hi, j;
  const struct stack_code_range *best = NULL;
  if (!first)
    return -1;
  /* The last range of pid starting at or below address. */
  lo = first - 1;
  hi = r->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->list[mid].pid == pid && r->list[mid].lo <= address)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (j = lo; j-- > first - 1 && r->list[j].max_hi > address;) {
    const struct stack_code_range *x = &r->list[j];
    if (x->hi <= address)
      continue;
    if (x->start != INT64_MIN)
      narrow(x->start, when, lo_time, hi_time);
    if (x->end != INT64_MAX)
      narrow(x->end + 1, when, lo_time, hi_time);
    if (x->start <= when && when <= x->end && (!best || x->start > best->start))
      best = x;
  }
  return best ? (int64_t)best->frame : -1;
}

static uint32_t lookup(const struct stack_frames *f, uint32_t pid, uint64_t address,
                       int64_t when, unsigned pointer_size, int64_t *lo, int64_t *hi)
{
  int64_t frame;
  if (stack_is_kernel_address(address, pointer_size)) {
    frame = find(&f->images, 0, address, when, lo, hi);
    if (frame < 0)
      frame = find(&f->images, 4, address, when, lo, hi);
    return frame < 0 ? STACK_FRAME_UNKNOWN : (uint32_t)frame;
  }
  frame = find(&f->methods, pid, address, when, lo, hi);
  if (frame < 0)
    frame = find(&f->images, pid, address, when, lo, hi);
  return frame < 0 ? STACK_FRAME_UNKNOWN : (uint32_t)frame;
}

uint32_t stack_frames_lookup_window(struct stack_frames *f, uint32_t pid, uint64_t address,
                                     int64_t filetime, unsigned pointer_size, int64_t *lo_out,
                                     int64_t *hi_out)
{
  uint64_t h = (address ^ (uint64_t)pid * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
  struct stack_frame_memo *m = f->memo ? &f->memo[(h >> 40) % STACK_FRAME_MEMO] : NULL;
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  uint32_t frame;
  if (m && m->address == address && m->pid == pid && m->lo <= filetime && filetime < m->hi) {
    lo = m->lo;
    hi = m->hi;
    frame = m->frame;
  } else {
    frame = lookup(f, pid, address, filetime, pointer_size, &lo, &hi);
    if (m) {
      m->address = address;
      m->pid = pid;
      m->lo = lo;
      m->hi = hi;
      m->frame = frame;
    }
  }
  if (lo > *lo_out)
    *lo_out = lo;
  if (hi < *hi_out)
    *hi_out = hi;
  return frame;
}

uint32_t stack_frames_lookup(struct stack_frames *f, uint32_t pid, uint64_t address,
                              int64_t filetime, unsigned pointer_size)
{
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  return stack_frames_lookup_window(f, pid, address, filetime, pointer_size, &lo, &hi);
}
