/* Images inside process-isolated containers, identified from the host at
 * the end of a capture (container_capture.h, identity_inject.h), against a
 * fake host with two running containers (fake_container_host.h): their
 * loads name \Device\HarddiskVolumeN paths no drive letter maps.  The
 * expected header values and PDB signatures are objdump's description of
 * the PE fixtures and the SOURCE_DATE_EPOCH tests/pe/pe_fixtures.cmake
 * builds them with, not etwcap's own reading. */
#include "tests/fakes/test_support.h"

#include "etw/etl/etl_source.h"
#include "etw/etl/etl_writer.h"
#include "etw/image/image_identity.h"
#include "etw/merge/container_image.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log_memory.h"
#include "src/base/os/os_file.h"
#include "src/base/zip/archive_writer.h"
#include "src/capture/capture_cmd.h"
#include "src/cli/cli.h"
#include "src/containers/container_capture.h"
#include "src/finish/capture_finish.h"
#include "src/finish/image_ids_only.h"
#include "tests/fakes/fake_container_host.h"
#include "tests/fakes/fake_controller.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPOCH_PE64_PDB 1300000000u     /* pe_fixtures.cmake */
#define EPOCH_PE64_VERSION 1400000000u
#define T0 1000000u
#define PID_WEB 1676u    /* the PIDs of TraceEvent's two-container baseline */
#define PID_WORKER 3476u
#define PID_STALE 1677u

struct objdump {
  unsigned size_of_image, checksum;
  char rsds[33];
};

static void read_objdump(const char *name, struct objdump *od)
{
  char path[1100], line[1024];
  FILE *f;
  unsigned age;
  char pdb[256];
  memset(od, 0, sizeof(*od));
  snprintf(path, sizeof(path), "%s.objdump.txt", test_pe_fixture(name, line, sizeof(line)));
  f = fopen(path, "r");
  assert_non_null(f);
  while (fgets(line, sizeof(line), f)) {
    const char *p = strstr(line, "(format RSDS signature ");
    if (sscanf(line, "SizeOfImage %x", &od->size_of_image) == 1 ||
        sscanf(line, "CheckSum %x", &od->checksum) == 1)
      continue;
    if (p)
      assert_true(sscanf(p, "(format RSDS signature %32[0-9a-f] age %u pdb %255[^)]", od->rsds,
                         &age, pdb) >= 2);
  }
  fclose(f);
  assert_true(od->size_of_image != 0);
  assert_int_equal(strlen(od->rsds), 32);
}

static void copy_file(const char *from, const char *to)
{
  char buf[65536];
  size_t n;
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  assert_non_null(in);
  assert_non_null(out);
  while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
    assert_int_equal(fwrite(buf, 1, n, out), n);
  fclose(in);
  fclose(out);
}

/* root/volN/app/<file> from the fixture `name`. */
static void place(const char *root, unsigned volume, const char *file, const char *name)
{
  char dir[700], path[800], src[700];
  snprintf(dir, sizeof(dir), "%s/vol%u", root, volume);
  assert_int_equal(test_mkdir(dir), 0);
  snprintf(dir, sizeof(dir), "%s/vol%u/app", root, volume);
  assert_int_equal(test_mkdir(dir), 0);
  snprintf(path, sizeof(path), "%s/%s", dir, file);
  copy_file(test_pe_fixture(name, src, sizeof(src)), path);
}

struct load {
  uint32_t pid;
  const char *path;
  uint64_t size;
  uint32_t checksum, stamp;
};

/* An Image/Load v3 (hook 0x030A) SYSTEM64 record: the payload layout of
 * KernelTraceEventParser.cs's ImageLoadTraceData (ImageBase, ImageSize,
 * ProcessID, ImageChecksum, TimeDateStamp, Reserved0, DefaultBase,
 * Reserved1..4, FileName), as docs/etl.md §4.2 frames it. */
static void write_load(struct etl_writer *w, const struct load *l, uint64_t ts)
{
  uint8_t r[1024];
  uint64_t base = 0x7ff800000000ull;
  size_t i, n = strlen(l->path), len = 56 + 2 * n + 2, head = 32;
  uint32_t tid = 100;
  memset(r, 0, sizeof(r));
  r[0] = 3;
  r[2] = 0x02;
  r[3] = 0xC0;
  r[4] = (uint8_t)(head + len);
  r[5] = (uint8_t)((head + len) >> 8);
  r[6] = 0x0A;
  r[7] = 0x03;
  memcpy(r + 8, &tid, 4);
  memcpy(r + 12, &l->pid, 4);
  memcpy(r + 16, &ts, 8);
  memcpy(r + head, &base, 8);
  memcpy(r + head + 8, &l->size, 8);
  memcpy(r + head + 16, &l->pid, 4);
  memcpy(r + head + 20, &l->checksum, 4);
  memcpy(r + head + 24, &l->stamp, 4);
  for (i = 0; i < n; i++)
    r[head + 56 + 2 * i] = (uint8_t)l->path[i];
  assert_int_equal(etl_writer_write(w, 0, ts, r, (uint32_t)(head + len)), 0);
}

static void write_trace(const char *path, const struct load *loads, size_t n)
{
  struct etl_writer_config cfg;
  struct etl_writer *w;
  size_t i;
  test_kernel_trace_config(&cfg, "etwcapKernel");
  os_remove(path);
  assert_int_equal(etl_writer_open(&w, path, &cfg), 0);
  for (i = 0; i < n; i++)
    write_load(w, &loads[i], T0 + i);
  assert_int_equal(etl_writer_finish(w), 0);
}

/* What the merged trace says per process: Info events, and the PDB
 * signature of its DbgID_RSDS (hex, as objdump prints it). */
struct seen {
  unsigned info[3], rsds[3];
  char sig[3][33];
};

static int pid_slot(uint32_t pid)
{
  return pid == PID_WEB ? 0 : pid == PID_WORKER ? 1 : 2;
}

static int scan(void *ctx, const char *display, struct etl_reader *r)
{
  struct seen *s = ctx;
  struct etw_event ev;
  int rc;
  (void)display;
  while ((rc = etl_reader_next(r, &ev)) == 1) {
    uint32_t pid;
    int k;
    if (ev.is_kernel || !guid_equal(&ev.provider, &image_identity_guid) || ev.user_len < 32)
      continue;
    /* Info: ImageBase, ImageSize, ProcessId; DbgID: ImageBase, ProcessId
     * (SymbolTraceEventParser.cs, pointers of 8 bytes here). */
    memcpy(&pid, ev.user_data + (ev.opcode == IMAGE_ID_INFO ? 16 : 8), 4);
    k = pid_slot(pid);
    if (ev.opcode == IMAGE_ID_INFO) {
      s->info[k]++;
    } else if (ev.opcode == IMAGE_ID_DBG_RSDS) {
      struct etw_guid g = guid_from_bytes(ev.user_data + 12);
      char text[GUID_STRING_SIZE], *o = s->sig[k];
      const char *p;
      s->rsds[k]++;
      guid_format(&g, text);
      for (p = text; *p; p++)
        if (*p != '-')
          *o++ = *p;
      *o = '\0';
    }
  }
  return rc;
}

struct world {
  struct fake_container_host host;
  struct objdump pdb, ver;
  char root[600], data[600], zip[700];
  struct load loads[3];
};

static void build_world(struct world *w, const char *name)
{
  char dir[600];
  snprintf(dir, sizeof(dir), "containers-%s", name);
  test_tmp_path(dir, w->root, sizeof(w->root));
  assert_int_equal(test_mkdir(w->root), 0);
  snprintf(dir, sizeof(dir), "containers-%s.etl", name);
  test_tmp_path(dir, w->data, sizeof(w->data));
  snprintf(w->zip, sizeof(w->zip), "%s.zip", w->data);
  os_remove(w->zip);
  read_objdump("pe64_pdb.dll", &w->pdb);
  read_objdump("pe64_version.dll", &w->ver);
  place(w->root, 7, "web.dll", "pe64_pdb.dll");
  place(w->root, 7, "stale.dll", "pe64_pdb.dll");
  place(w->root, 9, "worker.dll", "pe64_version.dll");
  fake_container_host_init(&w->host, w->root);
  w->host.c[0] = (struct fake_container){ "6d9f6d0c57f85f0c", "web", "docker", "Container",
                                          "6D9F6D0C-57F8-5F0C-898D-2DC82CC922E0", "Running",
                                          "", 7, "{0000a7a7-0000-0000-0000-000000000007}", 0,
                                          { PID_WEB }, 1 };
  w->host.c[1] = (struct fake_container){ "9f8804816385", "worker", "docker", "Container",
                                          "9F880481-6385-5528-93E5-5B918386652D", "Running",
                                          "", 9, "{0000a9a9-0000-0000-0000-000000000009}", 0,
                                          { PID_WORKER }, 1 };
  w->host.count = 2;
  w->loads[0] = (struct load){ PID_WEB, "\\Device\\HarddiskVolume7\\app\\web.dll",
                               w->pdb.size_of_image, w->pdb.checksum, EPOCH_PE64_PDB };
  /* The same file under another name, loaded with another TimeDateStamp:
   * what is there now is not what was loaded. */
  w->loads[1] = (struct load){ PID_STALE, "\\Device\\HarddiskVolume7\\app\\stale.dll",
                               w->pdb.size_of_image, w->pdb.checksum, EPOCH_PE64_PDB + 1 };
  w->loads[2] = (struct load){ PID_WORKER, "\\Device\\HarddiskVolume9\\app\\worker.dll",
                               w->ver.size_of_image, w->ver.checksum, EPOCH_PE64_VERSION };
  write_trace(w->data, w->loads, 3);
}

/* The capture's end as capture_cmd_finish runs it: the host's volumes and
 * identity injector at the stop, then the merge into the zip. */
static struct identity_counts finish(struct world *w, char *manifest, size_t cap)
{
  struct capture_finish_params p;
  struct capture_finish_result r;
  struct container_capture cc;
  struct identity_options io;
  struct identity_counts c;
  char why[512];
  container_capture_init(&cc, &w->host.host);
  memset(&io, 0, sizeof(io));
  container_capture_at_start(&cc, INT64_C(133000000000000000));
  assert_int_equal(container_capture_at_stop(&cc, &io, 1, INT64_C(133000000100000000)), 0);
  memset(&p, 0, sizeof(p));
  p.data_file = w->data;
  p.zip = 1;
  p.identity = cc.identity;
  p.containers = &cc;
  assert_int_equal(capture_finish(&p, &r, why, sizeof(why)), 0);
  identity_injector_counts(cc.identity, &c);
  container_capture_release(&cc);
  test_zip_text(w->zip, "etwcap-capture.json", manifest, cap);
  return c;
}

static struct seen seen_in(const char *zip)
{
  struct seen s;
  char err[512];
  memset(&s, 0, sizeof(s));
  assert_int_equal(etl_source_foreach(zip, scan, &s, err, sizeof(err)), 0);
  return s;
}

static void two_running_containers_images_get_identity(void **state)
{
  struct world w;
  struct identity_counts c;
  struct seen s;
  char manifest[65536];
  (void)state;
  build_world(&w, "running");
  c = finish(&w, manifest, sizeof(manifest));
  s = seen_in(w.zip);
  assert_int_equal(s.info[0], 1);
  assert_int_equal(s.rsds[0], 1);
  assert_string_equal(s.sig[0], w.pdb.rsds);
  assert_int_equal(s.info[1], 1);
  assert_int_equal(s.rsds[1], 1);
  assert_string_equal(s.sig[1], w.ver.rsds);
  /* The image whose header is not the load event's gets none. */
  assert_int_equal(s.info[2], 0);
  assert_int_equal(s.rsds[2], 0);
  assert_int_equal(c.identified, 2);
  assert_int_equal(c.container_mismatch, 1);
  assert_int_equal(c.container_unread, 0);
  /* The volume map, with both containers' volumes beside the host's. */
  assert_non_null(strstr(manifest, "\"volumeMap\": {\"utc\": \""));
  assert_non_null(strstr(manifest, "\"device\": \"\\\\Device\\\\HarddiskVolume7\", \"volume\": "
                                   "\"\\\\\\\\?\\\\Volume{0000a7a7-0000-0000-0000-000000000007}\\\\\""));
  assert_non_null(strstr(manifest, "\\\\Device\\\\HarddiskVolume9"));
  /* The inventory at the start and at the stop: both containers with their
   * HCS fields and host PIDs. */
  assert_non_null(strstr(manifest, "\"containers\": {\"inventory\": true, \"why\": null,"));
  assert_non_null(strstr(manifest, "\"atStart\": {\"utc\": \"2022-06-18T04:26:40.0000000Z"));
  assert_non_null(strstr(manifest, "\"atStop\": {\"utc\": "));
  assert_non_null(strstr(manifest, "{\"id\": \"6d9f6d0c57f85f0c\", \"name\": \"web\", "
                                   "\"owner\": \"docker\", \"systemType\": \"Container\", "
                                   "\"runtimeId\": \"6D9F6D0C-57F8-5F0C-898D-2DC82CC922E0\", "
                                   "\"state\": \"Running\", \"hostingSystemId\": null, "
                                   "\"isolation\": \"process\", \"processes\": [1676], "));
  assert_non_null(strstr(manifest, "\"name\": \"worker\""));
  assert_non_null(strstr(manifest, "\"processes\": [3476]"));
}

/* Without HCS (an older Windows, or access denied) the capture is written
 * and its manifest says why it has no inventory. */
static void without_hcs_the_capture_says_why(void **state)
{
  struct world w;
  struct identity_counts c;
  char manifest[65536];
  (void)state;
  build_world(&w, "nohcs");
  w.host.no_hcs = 1;
  c = finish(&w, manifest, sizeof(manifest));
  assert_int_equal(c.identified, 2); /* the volumes still serve */
  assert_non_null(strstr(manifest, "\"containers\": {\"inventory\": false, \"why\": "
                                   "\"computecore.dll is not in System32"));
  assert_non_null(strstr(manifest, "\"atStart\": null,\n    \"atStop\": null}"));
}

/* A Hyper-V isolated container (HostingSystemId names its utility VM) is
 * named as such with the warning, and its guest's PIDs are not asked. */
static void a_hyperv_isolated_container_is_named_as_such(void **state)
{
  struct world w;
  char manifest[65536];
  (void)state;
  build_world(&w, "hyperv");
  w.host.c[2] = (struct fake_container){ "iis@vm", "iis-uvm", "docker", "VirtualMachine", "",
                                         "Running", "", 0, "", 0, { 0 }, 0 };
  w.host.c[3] = (struct fake_container){ "iis", "iis", "docker", "Container", "", "Running",
                                         "iis@vm", 0, "", 0, { 4242 }, 1 };
  w.host.count = 4;
  finish(&w, manifest, sizeof(manifest));
  assert_non_null(strstr(manifest, "\"hostingSystemId\": \"iis@vm\", \"isolation\": \"hyperv\", "
                                   "\"processes\": null, \"processesWhy\": null, \"warning\": "
                                   "\"Hyper-V isolated: it has its own kernel, so nothing inside it "
                                   "can be captured from the host"));
  assert_non_null(strstr(manifest, "\"isolation\": \"virtualMachine\""));
  assert_null(strstr(manifest, "4242"));
}

/* layer/Files/app/worker.dll from the fixture `name`. */
static void layer_file(const char *layer, const char *name)
{
  static const char *const dirs[] = { "", "/Files", "/Files/app" };
  char path[1000], src[700];
  size_t i;
  for (i = 0; i < 3; i++) {
    snprintf(path, sizeof(path), "%s%s", layer, dirs[i]);
    assert_int_equal(test_mkdir(path), 0);
  }
  snprintf(path, sizeof(path), "%s/Files/app/worker.dll", layer);
  copy_file(test_pe_fixture(name, src, sizeof(src)), path);
}

/* A container that stopped before the capture's end: its volume is gone,
 * so its image is read from its image layer (layerchain.json, topmost
 * first, with the same header check); one found in no layer is listed in
 * the manifest as such. */
static void a_stopped_containers_image_is_found_in_its_layer(void **state)
{
  struct world w;
  struct identity_counts c;
  struct seen s;
  char manifest[65536], dir[700], layer_top[800], layer_base[800], path[1000];
  FILE *f;
  (void)state;
  build_world(&w, "stopped");
  /* worker (volume 9) has stopped; its layers: top (an older worker.dll:
   * the other fixture, whose headers differ) above base (the loaded one). */
  w.host.c[1].stopped = 1;
  snprintf(dir, sizeof(dir), "%s/windowsfilter", w.root);
  assert_int_equal(test_mkdir(dir), 0);
  snprintf(layer_top, sizeof(layer_top), "%s/top", dir);
  snprintf(layer_base, sizeof(layer_base), "%s/base", dir);
  snprintf(path, sizeof(path), "%s/%s", dir, w.host.c[1].id);
  assert_int_equal(test_mkdir(path), 0);
  snprintf(path, sizeof(path), "%s/%s/layerchain.json", dir, w.host.c[1].id);
  f = fopen(path, "wb");
  assert_non_null(f);
  fprintf(f, "[\"%s\",\"%s\"]", layer_top, layer_base);
  fclose(f);
  layer_file(layer_top, "pe64_pdb.dll");
  layer_file(layer_base, "pe64_version.dll");
  c = finish(&w, manifest, sizeof(manifest));
  s = seen_in(w.zip);
  assert_int_equal(s.rsds[1], 1);
  assert_string_equal(s.sig[1], w.ver.rsds);
  assert_int_equal(c.identified, 2);
  assert_null(strstr(manifest, "worker.dll"));

  /* Without the base layer, worker.dll is found nowhere: listed. */
  snprintf(path, sizeof(path), "%s/Files/app/worker.dll", layer_base);
  assert_int_equal(os_remove(path), 0);
  write_trace(w.data, w.loads, 3); /* the first merge took the session file */
  c = finish(&w, manifest, sizeof(manifest));
  s = seen_in(w.zip);
  assert_int_equal(s.rsds[1], 0);
  assert_int_equal(c.container_unread, 1);
  assert_non_null(strstr(manifest, "\"containerImagesUnread\": [\n    {\"path\": "
                                   "\"\\\\Device\\\\HarddiskVolume9\\\\app\\\\worker.dll\", "
                                   "\"pid\": 3476, \"reason\": \"container stopped before its "
                                   "identity could be read\"}\n  ],"));
}

/* `merge X.etl.zip /ImageIDsOnly` later on the host: today's volume list
 * and \\?\GLOBALROOT give nothing, but the capture's manifest recorded
 * which volume GUID each device was, and those containers still run. */
static void a_later_merge_uses_the_recorded_volume_map(void **state)
{
  static const char manifest[] =
      "{\"schema\": \"etwcap-capture/1\", \"volumeMap\": {\"utc\": "
      "\"2022-06-18T04:26:40.0000000Z\", \"volumes\": ["
      "{\"device\": \"\\\\Device\\\\HarddiskVolume7\", \"volume\": "
      "\"\\\\\\\\?\\\\Volume{0000a7a7-0000-0000-0000-000000000007}\\\\\", \"mounted\": false},"
      "{\"device\": \"\\\\Device\\\\HarddiskVolume9\", \"volume\": "
      "\"\\\\\\\\?\\\\Volume{0000a9a9-0000-0000-0000-000000000009}\\\\\", \"mounted\": false}]}}";
  struct world w;
  struct archive_member m[2];
  struct archive_options ao;
  struct archive_stats as;
  struct container_capture cc;
  struct identity_options io;
  struct seen s;
  char why[512];
  int recall;
  (void)state;
  for (recall = 0; recall < 2; recall++) {
    build_world(&w, recall ? "later" : "later-without");
    w.host.globalroot_refused = 1;
    w.host.volumes_fail = 1;
    memset(m, 0, sizeof(m));
    m[0].name = "containers.etl";
    m[0].path = w.data;
    m[1].name = "etwcap-capture.json";
    m[1].data = manifest;
    m[1].size = strlen(manifest);
    memset(&ao, 0, sizeof(ao));
    assert_int_equal(archive_write(w.zip, m, 2, &ao, &as, why, sizeof(why)), 0);
    container_capture_init(&cc, &w.host.host);
    if (recall)
      assert_int_equal(capture_manifest_recall_volumes(&cc, w.zip), 2);
    memset(&io, 0, sizeof(io));
    assert_int_equal(container_capture_at_stop(&cc, &io, 0, 0), 0);
    assert_int_equal(image_ids_only(w.zip, cc.identity, NULL, 0, NULL, why, sizeof(why)), 0);
    container_capture_release(&cc);
    s = seen_in(w.zip);
    assert_int_equal(s.rsds[0], recall ? 1 : 0);
    assert_int_equal(s.rsds[1], recall ? 1 : 0);
    if (recall) {
      assert_string_equal(s.sig[0], w.pdb.rsds);
      assert_string_equal(s.sig[1], w.ver.rsds);
    }
  }
}

/* `start` and `stop` are two processes: the inventory `start` took travels
 * in the session record, so the manifest `stop` writes has both, here the
 * worker container gone by the stop. */
static void start_then_stop_keeps_the_start_inventory(void **state)
{
  static struct fake_controller fc;
  struct fake_clock clock;
  struct collection_env env;
  struct world w;
  struct cli cli;
  char data[700], zip[800], manifest[65536], *at_stop;
  char *start_argv[] = { "etwcap", "start", data, NULL };
  char *stop_argv[] = { "etwcap", "stop", data, NULL };
  (void)state;
  build_world(&w, "startstop");
  test_tmp_path("containers-startstop-capture.etl", data, sizeof(data));
  snprintf(zip, sizeof(zip), "%s.zip", data);
  os_remove(zip);
  fake_controller_init(&fc);
  memset(&clock, 0, sizeof(clock));
  fake_env_init(&env, &fc.ctl, &clock);
  env.containers = &w.host.host;
  assert_int_equal(cli_parse(&cli, 3, start_argv), 0);
  assert_int_equal(capture_cmd_start(&cli, &env), 0);
  cli_release(&cli);
  w.host.count = 1; /* worker has gone */
  assert_int_equal(cli_parse(&cli, 3, stop_argv), 0);
  assert_int_equal(capture_cmd_stop(&cli, &env), 0);
  cli_release(&cli);
  test_zip_text(zip, "etwcap-capture.json", manifest, sizeof(manifest));
  at_stop = strstr(manifest, "\"atStop\": ");
  assert_non_null(at_stop);
  assert_non_null(strstr(manifest, "\"atStart\": {\"utc\": "));
  assert_true(strstr(manifest, "\"name\": \"worker\"") < at_stop);
  assert_non_null(strstr(manifest, "\"processes\": [3476]"));
  assert_null(strstr(at_stop, "\"name\": \"worker\""));
  assert_non_null(strstr(at_stop, "\"name\": \"web\""));
}

/* A recorded map is outside bytes too (a zip from elsewhere): only entries
 * of the form the volume functions give are kept, never a share. */
static void a_recorded_map_keeps_only_volume_names(void **state)
{
  static const char doc[] =
      "{\"volumeMap\": {\"volumes\": ["
      "{\"device\": \"\\\\Device\\\\HarddiskVolume5\", \"volume\": \"\\\\\\\\evil\\\\share\\\\\"},"
      "{\"device\": \"\\\\Device\\\\Mup\\\\evil\", \"volume\": "
      "\"\\\\\\\\?\\\\Volume{0000a7a7-0000-0000-0000-000000000007}\\\\\"},"
      "{\"device\": \"\\\\Device\\\\HarddiskVolume7\", \"volume\": "
      "\"\\\\\\\\?\\\\Volume{0000a7a7-0000-0000-0000-000000000007}\\\\\"},"
      "7, {\"device\": 7}]}}";
  struct container_capture cc;
  (void)state;
  container_capture_init(&cc, NULL);
  assert_int_equal(container_capture_recall_volumes_json(&cc, doc, strlen(doc)), 1);
  assert_string_equal(cc.recorded.v[0].device, "\\Device\\HarddiskVolume7");
  assert_int_equal(container_capture_recall_volumes_json(&cc, "[", 1), 0);
  container_capture_release(&cc);
}

/* HCS's documents are outside bytes: a list that is no array, a field too
 * long, a PID out of range are refused or left out, never trusted. */
static void hcs_documents_are_read_within_bounds(void **state)
{
  struct container_inventory inv;
  struct container_system s;
  char why[256], doc[2048], id[400];
  static const char list[] =
      "[{\"Id\":\"a\",\"SystemType\":\"Container\",\"Name\":7},"
      "{\"SystemType\":\"Container\"},"
      "{\"Id\":\"b\",\"SystemType\":\"Container\",\"Owner\":\"containerd-shim-runhcs-v1.exe\"}]";
  static const char procs[] =
      "{\"ProcessList\":[{\"ProcessId\":0},{\"ProcessId\":4294967296},{\"ProcessId\":-5},"
      "{\"ProcessId\":\"12\"},7,{\"ProcessId\":1676}]}";
  (void)state;
  memset(&inv, 0, sizeof(inv));
  assert_int_equal(container_inventory_parse_systems(&inv, "{}", 2, why, sizeof(why)),
                   ETWCAP_E_FORMAT);
  assert_int_equal(container_inventory_parse_systems(&inv, "[", 1, why, sizeof(why)),
                   ETWCAP_E_FORMAT);
  assert_int_equal(container_inventory_parse_systems(&inv, list, strlen(list), why, sizeof(why)),
                   0);
  assert_int_equal(inv.count, 1); /* a Name of another type, and no Id: skipped */
  assert_int_equal(inv.skipped, 2);
  assert_string_equal(inv.systems[0].id, "b");
  assert_string_equal(inv.systems[0].owner, "containerd-shim-runhcs-v1.exe");
  container_inventory_release(&inv);
  memset(id, 'x', sizeof(id) - 1);
  id[sizeof(id) - 1] = '\0';
  snprintf(doc, sizeof(doc), "[{\"Id\":\"%s\",\"SystemType\":\"Container\"}]", id);
  assert_int_equal(container_inventory_parse_systems(&inv, doc, strlen(doc), why, sizeof(why)), 0);
  assert_int_equal(inv.count, 0);
  assert_int_equal(inv.skipped, 1);
  container_inventory_release(&inv);
  memset(&s, 0, sizeof(s));
  assert_int_equal(container_inventory_parse_processes(&s, "[]", 2, why, sizeof(why)),
                   ETWCAP_E_FORMAT);
  assert_int_equal(container_inventory_parse_processes(&s, procs, strlen(procs), why, sizeof(why)),
                   0);
  assert_int_equal(s.pid_count, 1);
  assert_int_equal(s.pids[0], 1676);
  etwcap_free(s.pids);
}

/* When \\?\GLOBALROOT names are refused, the volume GUID path reaches the
 * same files. */
static void the_volume_guid_path_serves_when_globalroot_is_refused(void **state)
{
  struct world w;
  struct identity_counts c;
  struct seen s;
  char manifest[65536];
  (void)state;
  build_world(&w, "guid");
  w.host.globalroot_refused = 1;
  c = finish(&w, manifest, sizeof(manifest));
  s = seen_in(w.zip);
  assert_string_equal(s.sig[0], w.pdb.rsds);
  assert_string_equal(s.sig[1], w.ver.rsds);
  assert_int_equal(c.identified, 2);
  assert_true(w.host.opens >= 2);
}

/* A path that climbs out of its volume is never opened. */
static void paths_that_leave_the_volume_are_not_candidates(void **state)
{
  struct container_places none;
  char out[256];
  memset(&none, 0, sizeof(none));
  (void)state;
  assert_int_equal(container_image_device_len("\\Device\\HarddiskVolume7\\app\\x.dll"),
                   strlen("\\Device\\HarddiskVolume7"));
  assert_int_equal(container_image_device_len("\\Device\\HarddiskVolume7\\..\\Mup\\s\\x.dll"), 0);
  assert_int_equal(container_image_device_len("\\Device\\HarddiskVolume7\\a\\.\\x.dll"), 0);
  assert_int_equal(container_image_device_len("\\Device\\HarddiskVolume7\\a\\\\x.dll"), 0);
  assert_int_equal(container_image_device_len("\\Device\\Mup\\server\\x.dll"), 0);
  assert_int_equal(container_image_device_len("\\Device\\HarddiskVolume\\x.dll"), 0);
  assert_int_equal(container_image_candidate("\\Device\\HarddiskVolume7\\a.dll", 0, &none, out,
                                             sizeof(out)), 0);
  assert_string_equal(out, "\\\\?\\GLOBALROOT\\Device\\HarddiskVolume7\\a.dll");
  assert_int_equal(container_image_candidate("\\Device\\HarddiskVolume7\\a.dll", 1, &none, out,
                                             sizeof(out)), ETWCAP_E_RANGE);
  assert_int_equal(container_image_candidate("\\Device\\HarddiskVolume7\\a.dll", 2, &none, out,
                                             sizeof(out)), ETWCAP_E_NOENT);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(two_running_containers_images_get_identity),
    cmocka_unit_test(the_volume_guid_path_serves_when_globalroot_is_refused),
    cmocka_unit_test(without_hcs_the_capture_says_why),
    cmocka_unit_test(a_stopped_containers_image_is_found_in_its_layer),
    cmocka_unit_test(a_later_merge_uses_the_recorded_volume_map),
    cmocka_unit_test(a_recorded_map_keeps_only_volume_names),
    cmocka_unit_test(start_then_stop_keeps_the_start_inventory),
    cmocka_unit_test(a_hyperv_isolated_container_is_named_as_such),
    cmocka_unit_test(hcs_documents_are_read_within_bounds),
    cmocka_unit_test(paths_that_leave_the_volume_are_not_candidates),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
