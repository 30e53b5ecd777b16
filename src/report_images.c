/* See report_images.h.  Most events of a kernel rundown are image events,
 * so each is first looked for by the fields before its name (a fingerprint,
 * in a cache of recent places), and only then by its name. */
#include "report_images.h"

#include "alloc.h"
#include "error.h"
#include "payload_cursor.h"

#include <stdlib.h>
#include <string.h>

#define IMAGE_SLOTS (1u << 15) /* REPORT_MAX_IMAGES fits in three quarters */
/* Recent images remembered, 4 MiB: a rundown of a busy machine names tens
 * of thousands of (process, base) pairs.  When full, all are added to
 * their images and forgotten, and the cache starts again.  They are found
 * through a table of 2^15 slots, 256 KiB, small enough to stay in a core's
 * cache: a slot holds the last one of its fingerprints, so a miss, the
 * common case on a trace of many processes, touches no entry. */
#define RECENT_MAX (1u << 17)
#define RECENT_AT_BITS 15
/* The first block of images, mapped (above glibc's threshold): a page is
 * only touched when an entry reaches it. */
#define FIRST_IMAGES 4096

int report_images_init(struct report_images *s)
{
  int rc;
  memset(s, 0, sizeof(*s));
  rc = report_idmap_init(&s->by_hash, IMAGE_SLOTS);
  if (!rc && !(s->recent = etwcap_malloc(RECENT_MAX * sizeof(*s->recent))))
    rc = ETWCAP_E_NOMEM;
  if (!rc && !(s->recent_at = etwcap_calloc((size_t)1 << RECENT_AT_BITS, sizeof(uint64_t))))
    rc = ETWCAP_E_NOMEM;
  if (rc)
    report_images_release(s);
  return rc;
}

static void image_release(struct report_image *im)
{
  etwcap_free(im->name);
  etwcap_free(im->raw);
}

void report_images_release(struct report_images *s)
{
  size_t i;
  for (i = 0; i < s->count; i++)
    image_release(&s->list[i]);
  etwcap_free(s->list);
  report_idmap_release(&s->by_hash);
  etwcap_free(s->recent);
  etwcap_free(s->recent_at);
  memset(s, 0, sizeof(*s));
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

static struct report_image *find_image(struct report_images *s, const struct image_event *img,
                                       size_t n, uint64_t hash)
{
  size_t cursor = 0;
  uint32_t index;
  while (report_idmap_next(&s->by_hash, (uint32_t)hash, &cursor, &index)) {
    struct report_image *im = &s->list[index];
    if (im->hash == hash && im->raw_size == n && same_name(im, img))
      return im;
  }
  return NULL;
}

static int add_image(struct report_images *s, const struct image_event *img, uint64_t hash,
                     struct report_image **out)
{
  struct report_image *im;
  size_t n = img->file_name_bytes;
  *out = NULL;
  if (s->count >= REPORT_MAX_IMAGES) {
    s->dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&s->list, &s->cap, s->count, sizeof(*s->list),
                  FIRST_IMAGES) != 0)
    return ETWCAP_E_NOMEM;
  im = &s->list[s->count];
  memset(im, 0, sizeof(*im));
  im->raw = etwcap_malloc(n ? n : 1);
  if (!im->raw)
    return ETWCAP_E_NOMEM;
  memcpy(im->raw, img->file_name, n);
  im->raw_size = (uint32_t)n;
  im->hash = hash;
  /* An image the index cannot hold could not be found again. */
  if (report_idmap_add(&s->by_hash, (uint32_t)hash, (uint32_t)s->count) != 0) {
    image_release(im);
    s->dropped++;
    return 0;
  }
  s->count++;
  *out = im;
  return 0;
}

/* The image img names, by name, added when new: *out is NULL when there
 * are too many.  Most payloads end with the name's NUL, so the name is
 * first taken to be all but the payload's last character, which needs no
 * search for the NUL: a known name equal to it proves it. */
static int search_image(struct report_images *s, struct image_event *img,
                        struct report_image **out)
{
  const uint8_t *p = img->file_name;
  size_t room = img->file_name_bytes;
  uint64_t hash;
  if (room >= 2 && room % 2 == 0 && !p[room - 2] && !p[room - 1]) {
    hash = name_hash(p, room - 2);
    if ((*out = find_image(s, img, room - 2, hash)) != NULL)
      return 0;
  }
  image_identity_measure_name(img);
  hash = name_hash(p, img->file_name_bytes);
  *out = find_image(s, img, img->file_name_bytes, hash);
  return *out ? 0 : add_image(s, img, hash, out);
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
static void settle_recent(struct report_images *s)
{
  size_t i;
  for (i = 0; i < s->recent_count; i++) {
    const struct report_recent_image *e = &s->recent[i];
    struct report_image *im = &s->list[e->image];
    im->events += e->events;
    im->with_id += e->with_id;
    im->with_pdb += e->with_pdb;
  }
  s->recent_count = 0;
  s->recent_last1 = 0;
}

static uint64_t *recent_slot(struct report_images *s, uint64_t fp)
{
  return &s->recent_at[fp & ((1u << RECENT_AT_BITS) - 1)];
}

static struct report_recent_image *recent_by_fingerprint(struct report_images *s, uint64_t fp)
{
  uint64_t at = *recent_slot(s, fp);
  struct report_recent_image *e;
  if (!(uint32_t)at || at >> 32 != fp >> 32)
    return NULL;
  e = &s->recent[(uint32_t)at - 1];
  return e->fingerprint == fp ? e : NULL;
}

/* A new entry for img's image (found by name): *out is NULL when there are
 * too many images. */
static int remember_image(struct report_images *s, struct image_event *img, uint64_t fp,
                          struct report_recent_image **out)
{
  struct report_image *im;
  struct report_recent_image *e;
  int rc;
  *out = NULL;
  if ((rc = search_image(s, img, &im)) != 0 || !im)
    return rc;
  if (s->recent_count == RECENT_MAX) {
    settle_recent(s);
    memset(s->recent_at, 0, ((size_t)1 << RECENT_AT_BITS) * sizeof(uint64_t));
  }
  *recent_slot(s, fp) = (fp >> 32) << 32 | (uint32_t)(s->recent_count + 1);
  e = &s->recent[s->recent_count++];
  memset(e, 0, sizeof(*e));
  e->fingerprint = fp;
  e->image = (uint32_t)(im - s->list);
  *out = e;
  return 0;
}

/* Makes entry e name the image img names, when it named another (the
 * fields of the fingerprint agree, the name does not): its counts so far
 * go to the image it named.  *ok is 0 when there are too many images. */
static int verify_recent(struct report_images *s, struct image_event *img,
                         struct report_recent_image *e, int *ok)
{
  struct report_image *im;
  int rc;
  *ok = 0;
  if ((rc = search_image(s, img, &im)) != 0 || !im)
    return rc;
  if ((uint32_t)(im - s->list) != e->image) {
    struct report_image *before = &s->list[e->image];
    before->events += e->events;
    before->with_id += e->with_id;
    before->with_pdb += e->with_pdb;
    e->events = e->with_id = e->with_pdb = 0;
    e->image = (uint32_t)(im - s->list);
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
static int recent_image(struct report_images *s, struct image_event *img,
                        struct report_recent_image **out)
{
  uint64_t fp = fingerprint(img);
  struct report_recent_image *last = s->recent_last1 ? &s->recent[s->recent_last1 - 1] : NULL;
  struct report_recent_image *e = NULL;
  int rc, ok = 1;
  *out = NULL;
  if (last && last->next1 && s->recent[last->next1 - 1].fingerprint == fp)
    e = &s->recent[last->next1 - 1];
  if (!e)
    e = recent_by_fingerprint(s, fp);
  if (e && (img->opcode == IMAGE_EVENT_LOAD || e->unloaded)) {
    if ((rc = verify_recent(s, img, e, &ok)) != 0 || !ok)
      return rc;
  } else if (!e) {
    if ((rc = remember_image(s, img, fp, &e)) != 0 || !e)
      return rc;
    last = s->recent_last1 ? &s->recent[s->recent_last1 - 1] : NULL; /* settled? */
  }
  if (img->opcode == IMAGE_EVENT_UNLOAD)
    e->unloaded = 1;
  s->recent_last1 = (uint32_t)(e - s->recent + 1);
  if (last && last->next1 != s->recent_last1)
    last->next1 = s->recent_last1;
  *out = e;
  return 0;
}

int report_images_count(struct report_images *s, struct image_event *img, int with_id,
                        int with_pdb)
{
  struct report_recent_image *e;
  int rc = recent_image(s, img, &e);
  if (rc || !e)
    return rc;
  e->events++;
  e->with_id += (uint32_t)with_id;
  e->with_pdb += (uint32_t)with_pdb;
  return 0;
}

static int by_name(const void *a, const void *b)
{
  const struct report_image *x = a, *y = b;
  return strcmp(x->name, y->name);
}

int report_images_finish(struct report_images *s)
{
  char name[REPORT_IMAGE_NAME_MAX];
  size_t i;
  settle_recent(s);
  /* The names as the page shows them, made only now: each one takes the
   * place of the UTF-16 copy no longer needed, rather than new pages. */
  for (i = 0; i < s->count; i++) {
    struct report_image *im = &s->list[i];
    pl_utf16_to_utf8(im->raw, im->raw_size / 2, name, sizeof(name));
    etwcap_free(im->raw);
    im->raw = NULL;
    if (!(im->name = etwcap_strdup(name)))
      return ETWCAP_E_NOMEM;
  }
  if (s->count)
    qsort(s->list, s->count, sizeof(*s->list), by_name);
  /* The indexes point at the old order. */
  report_idmap_release(&s->by_hash);
  etwcap_free(s->recent);
  etwcap_free(s->recent_at);
  s->recent = NULL;
  s->recent_at = NULL;
  return 0;
}
