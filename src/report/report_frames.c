/* See report_frames.h.  The CLR method events' payload, as TraceEvent's
 * MethodLoadVerboseTraceData reads it (versions 0 to 2 share the head):
 * MethodID (u64), ModuleID (u64), MethodStartAddress (u64), MethodSize
 * (u32), MethodToken (u32), MethodFlags (u32), MethodNamespace,
 * MethodName, MethodSignature (NUL-terminated UTF-16).  Event ids: the
 * runtime's MethodLoadVerbose 143 and MethodUnloadVerbose 144, the rundown
 * provider's MethodDCStartVerbose 143 and MethodDCEndVerbose 144 (the
 * ClrTraceEventParser and ClrRundownTraceEventParser tables). */
#include "src/report/report_frames.h"

#include "etw/event/payload_cursor.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/report/report_stacks.h"

#include <stdlib.h>
#include <string.h>

#define OPEN_SLOTS (1u << 22)
#define NAME_SLOTS (1u << 21)
#define PID_SLOTS (1u << 18)
#define FIRST_BLOCK 4096
#define CLR_ID_METHOD_LOAD_VERBOSE 143   /* rundown: MethodDCStartVerbose */
#define CLR_ID_METHOD_UNLOAD_VERBOSE 144 /* rundown: MethodDCEndVerbose */

static void ranges_init(struct report_code_ranges *r)
{
  memset(r, 0, sizeof(*r));
  report_keymap_init(&r->open, OPEN_SLOTS);
  report_keymap_init(&r->by_pid, PID_SLOTS);
}

static void ranges_release(struct report_code_ranges *r)
{
  etwcap_free(r->list);
  report_keymap_release(&r->open);
  report_keymap_release(&r->by_pid);
  memset(r, 0, sizeof(*r));
}

int report_frames_init(struct report_frames *f)
{
  memset(f, 0, sizeof(*f));
  ranges_init(&f->methods);
  ranges_init(&f->images);
  report_keymap_init(&f->by_name, NAME_SLOTS);
  return report_frames_intern(f, "?!?", 3) == REPORT_FRAME_UNKNOWN ? 0 : ETWCAP_E_NOMEM;
}

void report_frames_release(struct report_frames *f)
{
  ranges_release(&f->methods);
  ranges_release(&f->images);
  report_keymap_release(&f->by_name);
  etwcap_free(f->text);
  etwcap_free(f->name_at);
  memset(f, 0, sizeof(*f));
}

int64_t report_frames_intern(struct report_frames *f, const char *text, size_t len)
{
  uint64_t h = 0x84222325cbf29ce4ull;
  uint32_t known;
  size_t i;
  for (i = 0; i < len; i++)
    h = (h ^ (uint8_t)text[i]) * 0x100000001b3ull;
  known = report_keymap_get(&f->by_name, h, (uint32_t)len);
  if (known && memcmp(f->text + f->name_at[known - 1], text, len) == 0)
    return known - 1;
  if (f->frame_count >= REPORT_MAX_FRAME_NAMES) {
    f->names_dropped++;
    return REPORT_FRAME_UNKNOWN;
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
  if (!known && report_keymap_put(&f->by_name, h, (uint32_t)len, (uint32_t)f->frame_count + 1))
    f->names_dropped++; /* still named, but not found again: a new frame each time */
  return (int64_t)f->frame_count++;
}

const char *report_frames_name(const struct report_frames *f, uint32_t frame)
{
  return frame < f->frame_count ? f->text + f->name_at[frame] : "?!?";
}

/* Opens a range live from `start`, or (opening 0) closes the one live at
 * [lo, ...) of pid at `end`; a close with nothing open is a range from
 * before the trace. */
static int range_event(struct report_frames *f, struct report_code_ranges *r, uint32_t pid,
                       uint64_t lo, uint64_t size, int opening, int64_t when, int64_t frame)
{
  struct report_code_range *x;
  uint32_t open = report_keymap_get(&r->open, lo, pid);
  if (!opening && open) {
    r->list[open - 1].end = when;
    report_keymap_put(&r->open, lo, pid, 0);
    return 0;
  }
  if (frame < 0)
    return (int)frame;
  if (r->count >= REPORT_MAX_CODE_RANGES) {
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
  if (opening && report_keymap_put(&r->open, lo, pid, (uint32_t)r->count + 1) != 0)
    f->ranges_dropped++; /* kept, but its end will not be seen */
  r->count++;
  return 0;
}

/* The file's base name (after the last '\' or '/') and "!?". */
static int64_t image_frame(struct report_frames *f, struct image_event *img)
{
  char name[REPORT_FRAME_NAME_MAX];
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
  return report_frames_intern(f, name, len + 2);
}

int report_frames_image(struct report_frames *f, struct image_event *img, int64_t filetime)
{
  int opening = img->opcode == IMAGE_EVENT_LOAD || img->opcode == IMAGE_EVENT_DCSTART;
  int64_t when = img->opcode == IMAGE_EVENT_DCSTART ? INT64_MIN : filetime;
  int64_t frame = 0;
  if (!img->image_size)
    return 0;
  if (opening || !report_keymap_get(&f->images.open, img->image_base, img->process_id))
    frame = image_frame(f, img);
  return range_event(f, &f->images, img->process_id, img->image_base, img->image_size, opening,
                     when, frame);
}

int report_frames_clr(struct report_frames *f, const struct etw_event *ev, int rundown,
                      int64_t filetime)
{
  struct pl_cursor c;
  char name[REPORT_FRAME_NAME_MAX];
  uint64_t start;
  uint32_t size;
  size_t len;
  int opening;
  int64_t frame = 0;
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
  if (opening || !report_keymap_get(&f->methods.open, start, ev->pid)) {
    len = pl_utf16z(&c, name, sizeof(name) - 1);
    if (len)
      name[len++] = '.';
    len += pl_utf16z(&c, name + len, sizeof(name) - len);
    if (c.bad)
      return 0;
    frame = report_frames_intern(f, name, len);
  }
  return range_event(f, &f->methods, ev->pid, start, size, opening,
                     opening && rundown ? INT64_MIN : filetime, frame);
}

static int by_pid_then_lo(const void *a, const void *b)
{
  const struct report_code_range *x = a, *y = b;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if (x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

static int ranges_finish(struct report_frames *f, struct report_code_ranges *r)
{
  size_t i;
  if (r->count)
    qsort(r->list, r->count, sizeof(*r->list), by_pid_then_lo);
  for (i = 0; i < r->count; i++) {
    struct report_code_range *x = &r->list[i];
    if (i == 0 || x->pid != r->list[i - 1].pid) {
      x->max_hi = x->hi;
      if (report_keymap_put(&r->by_pid, x->pid, 0, (uint32_t)i + 1) != 0)
        f->ranges_dropped++;
    } else {
      x->max_hi = x->hi > r->list[i - 1].max_hi ? x->hi : r->list[i - 1].max_hi;
    }
  }
  report_keymap_release(&r->open);
  return 0;
}

int report_frames_finish(struct report_frames *f)
{
  int rc = ranges_finish(f, &f->methods);
  return rc ? rc : ranges_finish(f, &f->images);
}

/* The frame of the range of pid live at `when` that holds address, or -1. */
static int64_t find(const struct report_code_ranges *r, uint32_t pid, uint64_t address,
                    int64_t when)
{
  uint32_t first = report_keymap_get(&r->by_pid, pid, 0);
  size_t lo, hi, j;
  const struct report_code_range *best = NULL;
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
    const struct report_code_range *x = &r->list[j];
    if (x->hi > address && x->start <= when && when <= x->end &&
        (!best || x->start > best->start))
      best = x;
  }
  return best ? (int64_t)best->frame : -1;
}

uint32_t report_frames_lookup(const struct report_frames *f, uint32_t pid, uint64_t address,
                              int64_t filetime, unsigned pointer_size)
{
  int64_t frame;
  if (report_is_kernel_address(address, pointer_size)) {
    frame = find(&f->images, 0, address, filetime);
    if (frame < 0)
      frame = find(&f->images, 4, address, filetime);
    return frame < 0 ? REPORT_FRAME_UNKNOWN : (uint32_t)frame;
  }
  frame = find(&f->methods, pid, address, filetime);
  if (frame < 0)
    frame = find(&f->images, pid, address, filetime);
  return frame < 0 ? REPORT_FRAME_UNKNOWN : (uint32_t)frame;
}
