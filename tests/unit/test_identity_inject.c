/* Image identity while merging (identity_inject.h): /PathMap items parse or
 * are refused; on the diaghub kernel session every image event is counted
 * once, as identified or unreadable; images reachable through a /PathMap
 * rule are identified and each gets its identity events, images that are
 * not are counted unreadable; a trace merged before is not identified
 * twice. */
#include "tests/fakes/test_support.h"

#include "etw/etl/etl_source.h"
#include "etw/etl/etl_writer.h"
#include "etw/image/image_identity.h"
#include "etw/merge/etl_merge.h"
#include "etw/merge/identity_inject.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"

#include <stdio.h>
#include <string.h>

static void path_maps_parse_or_are_refused(void **state)
{
  struct identity_path_map m;
  char ok[] = "\\Device\\HarddiskVolume3=D:\\copy", to_empty[] = "C:=", no_eq[] = "C:",
       no_from[] = "=D:";
  (void)state;
  assert_int_equal(identity_parse_path_map(ok, &m), 0);
  assert_string_equal(m.from, "\\Device\\HarddiskVolume3");
  assert_string_equal(m.to, "D:\\copy");
  assert_int_equal(identity_parse_path_map(to_empty, &m), 0);
  assert_string_equal(m.to, "");
  assert_int_equal(identity_parse_path_map(no_eq, &m), ETWCAP_E_USAGE);
  assert_int_equal(identity_parse_path_map(no_from, &m), ETWCAP_E_USAGE);
}

/* Merges `in` alone into `out` with the injector; returns its counts. */
static struct identity_counts merge_with(const char *in, const char *out,
                                         const struct identity_options *o)
{
  struct etl_merge_input input;
  struct etl_merge_options mo;
  struct etl_merge_stats st;
  struct identity_injector *ij;
  struct identity_counts c;
  char why[512];
  memset(&input, 0, sizeof(input));
  input.name = in;
  assert_int_equal(byte_source_open_file(&input.io, in), 0);
  assert_int_equal(identity_injector_new(&ij, o), 0);
  memset(&mo, 0, sizeof(mo));
  mo.inject = identity_inject;
  mo.inject_ctx = ij;
  os_remove(out);
  assert_int_equal(etl_merge(&input, 1, out, &mo, &st, why, sizeof(why)), 0);
  byte_source_close(&input.io);
  identity_injector_counts(ij, &c);
  identity_injector_free(ij);
  assert_int_equal(c.events_written + st.events_in, st.events_out);
  return c;
}

struct id_events {
  uint64_t identity, images;
};

static int count_ids(void *ctx, const char *display, struct etl_reader *r)
{
  struct id_events *n = ctx;
  struct etw_event ev;
  int rc;
  (void)display;
  while ((rc = etl_reader_next(r, &ev)) == 1) {
    if (image_identity_is_image_event(&ev))
      n->images++;
    else if (guid_equal(&ev.provider, &image_identity_guid))
      n->identity++;
  }
  return rc;
}

static struct id_events identity_events_in(const char *path)
{
  struct id_events n = { 0, 0 };
  char err[512];
  assert_int_equal(etl_source_foreach(path, count_ids, &n, err, sizeof(err)), 0);
  return n;
}

/* The diaghub kernel session names its images on \Device\HarddiskVolume1;
 * Wine's PE builds of three of them stand in for the real files. */
static int make_images(const char *dir)
{
  static const char *const dlls[][2] = { { "ntdll.dll", "ntdll.dll" },
                                         { "kernelbase.dll", "KernelBase.dll" },
                                         { "ucrtbase.dll", "ucrtbase.dll" } };
  char sys32[600], src[600], dst[700];
  size_t i, copied = 0;
  snprintf(sys32, sizeof(sys32), "%s/Windows", dir);
  assert_int_equal(test_mkdir(dir), 0);
  assert_int_equal(test_mkdir(sys32), 0);
  snprintf(sys32, sizeof(sys32), "%s/Windows/System32", dir);
  assert_int_equal(test_mkdir(sys32), 0);
  for (i = 0; i < sizeof(dlls) / sizeof(dlls[0]); i++) {
    FILE *in, *out;
    char buf[65536];
    size_t n;
    snprintf(src, sizeof(src), "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/%s", dlls[i][0]);
    snprintf(dst, sizeof(dst), "%s/%s", sys32, dlls[i][1]);
    if (!(in = fopen(src, "rb")))
      continue;
    out = fopen(dst, "wb");
    assert_non_null(out);
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
      assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
    copied++;
  }
  return copied > 0;
}

static void reachable_images_are_identified_once(void **state)
{
  char hub[600], kernel[600], once[600], twice[600], images[600];
  struct identity_path_map map;
  struct identity_options o;
  struct identity_counts none, some, again;
  struct id_events before, after;
  (void)state;
  if (!test_samples_dir())
    skip();
  snprintf(hub, sizeof(hub), "%s/ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip",
           test_samples_dir());
  test_tmp_path("identity-kernel.etl", kernel, sizeof(kernel));
  test_tmp_path("identity-once.etl", once, sizeof(once));
  test_tmp_path("identity-twice.etl", twice, sizeof(twice));
  test_tmp_path("identity-images", images, sizeof(images));
  test_extract_member(hub, "diaghub.kernel.1.etl", kernel);
  before = identity_events_in(kernel);

  /* Nothing reachable: every image event counted, none identified. */
  memset(&o, 0, sizeof(o));
  none = merge_with(kernel, once, &o);
  assert_int_equal(none.image_events, before.images);
  assert_int_equal(none.identified, 0);
  assert_int_equal(none.unreadable + none.already, none.image_events);

  if (!make_images(images))
    skip(); /* no Wine PE files here to stand in for the images */
  map.from = "\\Device\\HarddiskVolume1";
  map.to = images;
  o.maps = &map;
  o.map_count = 1;
  some = merge_with(kernel, once, &o);
  assert_int_equal(some.image_events, before.images);
  assert_true(some.identified > 0);
  assert_int_equal(some.identified + some.unreadable + some.already, some.image_events);
  after = identity_events_in(once);
  assert_int_equal(after.identity - before.identity, some.events_written);
  assert_true(after.identity - before.identity >= some.identified);

  /* Merged again, the identified images are known: none twice. */
  again = merge_with(once, twice, &o);
  assert_int_equal(again.identified, 0);
  assert_int_equal(again.already, some.identified + none.already);
  os_remove(kernel);
  os_remove(once);
  os_remove(twice);
}

/* One kernel Image Load event (version 2, 64-bit layout) naming `name`,
 * its payload in buf. */
static void image_load(struct etw_event *ev, uint8_t *buf, size_t cap, const char *name)
{
  size_t fixed = 3 * 8 + 32, n = strlen(name), i;
  assert_true(fixed + 2 * n + 2 <= cap);
  memset(ev, 0, sizeof(*ev));
  memset(buf, 0, fixed + 2 * n + 2);
  buf[1] = 0x10; /* ImageBase 0x1000 */
  for (i = 0; i < n; i++)
    buf[fixed + 2 * i] = (uint8_t)name[i];
  ev->is_kernel = 1;
  ev->group = IMAGE_EVENT_GROUP;
  ev->opcode = IMAGE_EVENT_LOAD;
  ev->version = 2;
  ev->pointer_size = 8;
  ev->header_type = ETW_HDR_SYSTEM64;
  ev->user_data = buf;
  ev->user_len = (uint32_t)(fixed + 2 * n + 2);
}

/* The counts of one image event naming `name`, with the one rule from=to. */
static struct identity_counts inject_one(const char *name, const char *from, const char *to)
{
  static uint8_t buf[16384];
  struct identity_path_map map;
  struct identity_options o;
  struct identity_injector *ij;
  struct identity_counts c;
  struct etl_writer_config cfg;
  struct etl_writer *w;
  struct etw_event ev;
  char out[600];
  map.from = from;
  map.to = to;
  memset(&o, 0, sizeof(o));
  o.maps = &map;
  o.map_count = 1;
  memset(&cfg, 0, sizeof(cfg));
  cfg.header.pointer_size = 8;
  cfg.header.cpus = 1;
  test_tmp_path("identity-cut.etl", out, sizeof(out));
  assert_int_equal(etl_writer_open(&w, out, &cfg), 0);
  assert_int_equal(identity_injector_new(&ij, &o), 0);
  image_load(&ev, buf, sizeof(buf), name);
  assert_int_equal(identity_inject(ij, &ev, w), 0);
  identity_injector_counts(ij, &c);
  identity_injector_free(ij);
  etl_writer_abort(w);
  assert_int_equal(c.image_events, 1);
  return c;
}

/* Appends "\\." until s (of `cap` bytes) holds `len` characters. */
static void pad_to(char *s, size_t cap, size_t len)
{
  assert_true(len < cap && (len - strlen(s)) % 2 == 0);
  while (strlen(s) < len)
    strcat(s, "\\.");
}

/* An image name that does not fit the injector's 4,096 bytes, as logged or
 * once a /PathMap rule has made it longer, is left unidentified: cut short
 * it names another file (here ntdll.dll, the name cut from
 * ntdll.dll_other.dll), whose identity would be written for this image. */
static void names_cut_to_fit_are_not_identified(void **state)
{
  static char images[600], sys32[700], name[8192], from[400], to[4200];
  struct identity_counts c;
  FILE *f;
  (void)state;
  /* The folder's name has the length (odd or even) that lets "\." pads
   * reach 4,095 characters exactly. */
  test_tmp_path("identity-cut", images, sizeof(images));
  if ((strlen(images) + strlen("/Windows/System32\\ntdll.dll")) % 2 == 0)
    strcat(images, "2");
  if (!make_images(images))
    skip(); /* no Wine PE files here to stand in for the images */
  snprintf(sys32, sizeof(sys32), "%s/Windows/System32", images);
  snprintf(name, sizeof(name), "%s/ntdll.dll", sys32);
  if (!(f = fopen(name, "rb")))
    skip();
  fclose(f);

  /* The whole name, as control: the image is read and identified. */
  c = inject_one("\\D\\ntdll.dll", "\\D", sys32);
  assert_int_equal(c.identified, 1);

  /* Logged: 4,105 characters, of which the first 4,095 end in ntdll.dll. */
  snprintf(from, sizeof(from), "\\Device\\%0300d", 0);
  if (strlen(from) % 2 == 0)
    strcat(from, "0");
  snprintf(name, sizeof(name), "%s", from);
  pad_to(name, sizeof(name), 4095 - strlen("\\ntdll.dll"));
  strcat(name, "\\ntdll.dll_other.dll");
  c = inject_one(name, from, sys32);
  assert_int_equal(c.identified, 0);
  assert_int_equal(c.unreadable, 1);

  /* Mapped: the rule's folder makes the path 4,105 characters. */
  snprintf(to, sizeof(to), "%s", sys32);
  pad_to(to, sizeof(to), 4095 - strlen("\\ntdll.dll"));
  c = inject_one("\\E\\ntdll.dll_other.dll", "\\E", to);
  assert_int_equal(c.identified, 0);
  assert_int_equal(c.unreadable, 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(path_maps_parse_or_are_refused),
    cmocka_unit_test(reachable_images_are_identified_once),
    cmocka_unit_test(names_cut_to_fit_are_not_identified),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
