/* Frame names for the CPU stacks of `etwcap report` and `convert`, from the
 * trace itself (no symbol files), in this order (docs/stacks.md):
 *   - an address inside a CLR method of the process, live at the sample's
 *     time (MethodLoadVerbose, rundown MethodDCStartVerbose and
 *     MethodDCEndVerbose), is "Namespace.Name";
 *   - an address inside an image of the process (kernel Image Load,
 *     DCStart, DCEnd, Unload) is the file's base name and "!?",
 *     "clr.dll!?";
 *   - a kernel address is looked for in the images of processes 0 and 4;
 *   - anything else is "?!?".
 * A method or image is live from its Load or DCStart (a DCStart: from
 * before the trace) to its Unload or DCEnd (one known only from its end:
 * from before the trace); where two contain the address, the one live at
 * the sample's time wins, the later loaded of two live ones.  The same
 * method or image at the same place seen live several times (a rundown
 * repeated, as periodic rundowns do) is one range over all those times.
 * Names are interned: a frame is a small number, 0 is "?!?".  Memory is
 * bounded by the caps below; what does not fit is counted.
 *
 * Lifetime: init, events, stack_frames_finish, lookups, release. */
#ifndef ETWCAP_STACK_FRAMES_H
#define ETWCAP_STACK_FRAMES_H

#include "etw/event/etw_event.h"
#include "etw/image/image_identity.h"
#include "etw/stacks/stack_keymap.h"

#include <stddef.h>
#include <stdint.h>

#define STACK_MAX_CODE_RANGES (1u << 21)
#define STACK_MAX_FRAME_NAMES (1u << 20)
#define STACK_FRAME_NAME_MAX 512
#define STACK_FRAME_UNKNOWN 0u
#define STACK_MAX_ORPHAN_IMAGES 65536

/* An image event of a process not known when it came. */
struct stack_orphan_image {
  uint64_t base, size;
  int64_t when;
  uint32_t pid, frame;
  int opening;
};

/* A method's or image's code, [lo, hi), live in [start, end] (filetimes). */
struct stack_code_range {
  uint64_t lo, hi;
  int64_t start, end;
  uint32_t pid, frame;
  uint64_t max_hi; /* after finish: the largest hi of this range and those before it */
};

/* The ranges of one kind (methods or images), sorted by (pid, lo) after
 * finish, with where each pid's run starts. */
struct stack_code_ranges {
  struct stack_code_range *list;
  size_t count, cap;
  struct stack_keymap open;   /* (address, pid) -> index + 1 of its latest range */
  struct stack_keymap by_pid; /* after finish: pid -> index + 1 of its first range */
  size_t last;                 /* index + 1 of the range the last event found */
};

/* A lookup remembered: the frame of (pid, address) for times in [lo, hi),
 * where no range holding the address starts or ends. */
struct stack_frame_memo {
  uint64_t address;
  int64_t lo, hi;
  uint32_t pid, frame;
};
#define STACK_FRAME_MEMO (1u << 16)

struct stack_frames {
  struct stack_code_ranges methods, images;
  struct stack_frame_memo *memo; /* STACK_FRAME_MEMO entries after finish, by hash */
  char *text;                  /* the names, NUL-terminated, one after another */
  size_t text_len, text_cap;
  uint32_t *name_at;           /* frame -> offset in text */
  size_t frame_count, frame_cap;
  struct stack_keymap by_name; /* (hash, length) -> frame + 1 */
  struct stack_orphan_image *orphans;
  size_t orphan_count, orphan_cap;
  uint64_t ranges_dropped, names_dropped;
};

int stack_frames_init(struct stack_frames *f);
void stack_frames_release(struct stack_frames *f);
/* A kernel Image event (img as image_identity_parse_image_fields leaves it;
 * its name's length may be measured).  known: whether its process is
 * known yet (0 and 4 always are).  The images of unknown processes are
 * set aside, up to STACK_MAX_ORPHAN_IMAGES, for a process whose start
 * the file stores after them (each CPU's buffers apart); past that they
 * are counted as dropped: a rundown of thousands of processes the trace
 * never names costs nothing.  0 or ETWCAP_E_NOMEM. */
int stack_frames_image(struct stack_frames *f, struct image_event *img, int64_t filetime,
                        int known);
/* A CLR runtime or rundown event (the caller checked the provider; rundown
 * says which): the method events are kept.  0 or ETWCAP_E_NOMEM. */
int stack_frames_clr(struct stack_frames *f, const struct etw_event *ev, int rundown,
                      int64_t filetime);
/* Takes the images set aside whose process known(ctx, pid) now knows,
 * and sorts the ranges for lookups: 0 or ETWCAP_E_NOMEM.  No events after
 * it. */
int stack_frames_finish(struct stack_frames *f, int (*known)(void *ctx, uint32_t pid),
                         void *ctx);

/* The frame of address in process pid at filetime (pointer_size: the
 * trace's).  Remembers the answer for the next lookups of the address. */
uint32_t stack_frames_lookup(struct stack_frames *f, uint32_t pid, uint64_t address,
                              int64_t filetime, unsigned pointer_size);
/* The same, narrowing [*lo, *hi) (which holds filetime) to the times for
 * which the answer stays. */
uint32_t stack_frames_lookup_window(struct stack_frames *f, uint32_t pid, uint64_t address,
                                     int64_t filetime, unsigned pointer_size, int64_t *lo,
                                     int64_t *hi);
/* A frame's name (UTF-8 from the trace: escape it). */
const char *stack_frames_name(const struct stack_frames *f, uint32_t frame);
/* The frame named text (interned on first use): 0 also when the names are
 * full, or ETWCAP_E_NOMEM as a negative value. */
int64_t stack_frames_intern(struct stack_frames *f, const char *text, size_t len);

#endif
