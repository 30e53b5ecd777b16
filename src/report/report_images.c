/* See report_images.h.  Most events of a kernel rundown are image events,
 * each naming one of a few thousand files: each event's name is first
 * compared with those of the images last seen under its file key (the
 * fields before the name), and only then looked for by a hash of it. */
#include "src/report/report_images.h"

#include "etw/event/payload_cursor.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdlib.h>
#include <string.h>

#define IMAGE_SLOTS (1u << 15) /* REPORT_MAX_IMAGES fits in three quarters */
/* The images last seen under file keys, in buckets of four (a key's high
 * 32 bits, then the image's index + 1; 0: empty), the one found by the
 * latest search first: 2^12 buckets, 128 KiB.  Four, because a few
 * thousand keys in one table of single slots left one key in six sharing
 * its slot with another, and files with one key (a DLL's resources in
 * each language) take turns; each time, a search by the name's hash. */
#define BY_KEY_BUCKETS (1u << 12)
#define BY_KEY_WAYS 4
/* The first block of images, mapped (above glibc's threshold): a page is
 * only touched when an entry reaches it. */
#define FIRST_IMAGES 4096

int report_images_init(struct report_images *s)
{
  int rc;
  memset(s, 0, sizeof(*s));
  rc = report_idmap_init(&s->by_hash, IMAGE_SLOTS);
  if (!rc && !(s->by_key = etwcap_calloc((size_t)BY_KEY_BUCKETS * BY_KEY_WAYS, sizeof(uint64_t))))
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
  etwcap_free(s->by_key);
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
  /* The index has room for twice REPORT_MAX_IMAGES: only memory can fail. */
  if (report_idmap_add(&s->by_hash, (uint32_t)hash, (uint32_t)s->count) != 0) {
    image_release(im);
    return ETWCAP_E_NOMEM;
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

/* Folds 64 bits into a key (one step of a multiplicative hash). */
static uint64_t fold(uint64_t h, uint64_t v)
{
  return (h ^ v) * 0xFF51AFD7ED558CCDu;
}

/* Which file an image event names, as its fixed fields say: the PE's size,
 * checksum and time stamp, and the bytes the name has room for.  Every
 * event of one DLL gives one key, in every process and at every base;
 * different files almost never share one, and a name compared in full
 * tells them apart when they do. */
static uint64_t file_key(const struct image_event *img)
{
  uint64_t h = fold(0x9E3779B97F4A7C15u, img->image_size);
  h = fold(h, (uint64_t)img->image_checksum << 32 | img->time_date_stamp);
  h = fold(h, img->file_name_bytes);
  return h ^ h >> 29;
}

/* The image img names, found or added: *out is NULL when there are too
 * many images.  The images last seen under img's file key are tried
 * first: a comparison of names each, and no hash of one. */
static int image_of(struct report_images *s, struct image_event *img, struct report_image **out)
{
  uint64_t key = file_key(img);
  uint64_t *bucket = &s->by_key[(key & (BY_KEY_BUCKETS - 1)) * BY_KEY_WAYS];
  size_t way;
  int rc;
  for (way = 0; way < BY_KEY_WAYS && (uint32_t)bucket[way]; way++)
    if (bucket[way] >> 32 == key >> 32 && same_name(&s->list[(uint32_t)bucket[way] - 1], img)) {
      *out = &s->list[(uint32_t)bucket[way] - 1];
      return 0;
    }
  if ((rc = search_image(s, img, out)) != 0 || !*out)
    return rc;
  /* In front; the earliest found of a full bucket is forgotten. */
  memmove(bucket + 1, bucket, (BY_KEY_WAYS - 1) * sizeof(*bucket));
  bucket[0] = (key >> 32) << 32 | (uint32_t)(*out - s->list + 1);
  return 0;
}

int report_images_count(struct report_images *s, struct image_event *img, int with_id,
                        int with_pdb)
{
  struct report_image *im;
  int rc = image_of(s, img, &im);
  if (rc || !im)
    return rc;
  im->events++;
  im->with_id += (uint32_t)with_id;
  im->with_pdb += (uint32_t)with_pdb;
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
  etwcap_free(s->by_key);
  s->by_key = NULL;
  return 0;
}
