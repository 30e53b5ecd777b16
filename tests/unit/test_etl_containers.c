/* Processes joined to containers (etw/etl/etl_containers.c) from hand-made
 * events: Microsoft-Windows-Kernel-Process ProcessStart (id 1) and
 * ProcessStop (id 2), whose payload starts with ProcessID (u32, the
 * provider's manifest), logged in the creator's context and so carrying
 * the creator's container ID item (as in TraceEvent's two-container
 * baseline, netcore.3.1.x64.twocontainers.baseline.txt: ProcessStart of
 * dotnet by powershell in the same container), and CLR events emitted
 * inside a container with the item.  IDs are 36 characters, the two of
 * that baseline. */
#include "tests/fakes/test_support.h"

#include "etw/etl/etl_containers.h"
#include "etw/event/builtin_events.h"

#include <string.h>

#define ID_A "6D9F6D0C-57F8-5F0C-898D-2DC82CC922E0"
#define ID_B "9F880481-6385-5528-93E5-5B918386652D"

static const struct etw_guid kernel_process = {
  0x22fb2cd6, 0x0e7b, 0x422b, { 0xa0, 0xc7, 0x2f, 0xad, 0x1f, 0xd0, 0xe7, 0x16 }
};

/* An EVENT_HEADER event of `provider`, id `id`, emitted by `pid`, with the
 * container item `id_text` (NULL: none; its length as given) and the
 * payload ProcessID `payload_pid`. */
static void feed(struct etl_containers *c, const struct etw_guid *provider, uint16_t id,
                 uint32_t pid, const char *id_text, uint32_t payload_pid, int64_t filetime)
{
  uint8_t payload[16] = { 0 };
  struct etw_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.header_type = ETW_HDR_EVENT_HEADER64;
  ev.has = ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP | ETW_HAS_PROVIDER | ETW_HAS_DESCRIPTOR;
  ev.provider = *provider;
  ev.id = id;
  ev.pid = pid;
  ev.tid = pid + 4;
  payload[0] = (uint8_t)payload_pid;
  payload[1] = (uint8_t)(payload_pid >> 8);
  payload[2] = (uint8_t)(payload_pid >> 16);
  payload[3] = (uint8_t)(payload_pid >> 24);
  ev.user_data = payload;
  ev.user_len = sizeof(payload);
  if (id_text) {
    ev.ext_count = 1;
    ev.ext[0].type = ETW_EXT_CONTAINER_ID;
    ev.ext[0].size = (uint16_t)strlen(id_text);
    ev.ext[0].data = (const uint8_t *)id_text;
  }
  etl_containers_event(c, &ev, filetime);
}

static void start(struct etl_containers *c, uint32_t creator, const char *id, uint32_t pid,
                  int64_t t)
{
  feed(c, &kernel_process, 1, creator, id, pid, t);
}

static void stop(struct etl_containers *c, uint32_t pid, const char *id, int64_t t)
{
  feed(c, &kernel_process, 2, pid, id, pid, t);
}

static void clr_event(struct etl_containers *c, uint32_t pid, const char *id, int64_t t)
{
  feed(c, &bi_guid_clr, 1, pid, id, 0, t);
}

static int at(const struct etl_containers *c, uint32_t pid, int64_t t)
{
  return etl_containers_find(c, pid, t, t);
}

/* Two containers and the host: each container's powershell starts a
 * dotnet; the host's services starts an svchost. */
static void starts_put_the_new_process_in_its_creators_container(void **state)
{
  struct etl_containers c;
  (void)state;
  etl_containers_init(&c);
  start(&c, 1200, ID_A, 1676, 100);
  start(&c, 2200, ID_B, 3476, 110);
  start(&c, 712, NULL, 5000, 120);
  clr_event(&c, 1676, ID_A, 130);
  clr_event(&c, 1676, ID_A, 131);
  clr_event(&c, 3476, ID_B, 140);
  assert_int_equal(etl_containers_finish(&c), 0);
  assert_int_equal(c.count, 2);
  assert_string_equal(c.list[0].id, ID_A);
  assert_string_equal(c.list[1].id, ID_B);
  assert_int_equal(c.list[0].events, 3); /* the start and two CLR events */
  assert_int_equal(c.list[1].events, 2);
  assert_int_equal(c.list[0].pid_count, 2);
  assert_int_equal(c.list[0].pids[0], 1200);
  assert_int_equal(c.list[0].pids[1], 1676);
  assert_int_equal(c.list[1].pid_count, 2);
  assert_int_equal(c.list[1].pids[0], 2200);
  assert_int_equal(c.list[1].pids[1], 3476);
  assert_int_equal(at(&c, 1676, 100), 0);
  assert_int_equal(at(&c, 1676, 999), 0);
  assert_int_equal(at(&c, 3476, 115), 1);
  assert_int_equal(at(&c, 1200, 50), 0); /* seen only: its life spans the trace */
  assert_int_equal(at(&c, 5000, 125), -1);
  assert_int_equal(at(&c, 712, 125), -1);
  assert_int_equal(at(&c, 4, 125), -1);
  /* A process that ran before the trace: [before, still running]. */
  assert_int_equal(etl_containers_find(&c, 1676, ETL_LIFE_BEFORE_TRACE, ETL_LIFE_STILL_RUNNING),
                   0);
  etl_containers_release(&c);
}

/* A pid reused: in container A from 10 to 20, on the host from 30.  The
 * events come out of time order, as an ETL's per-CPU buffers give them. */
static void a_reused_pid_is_joined_by_time(void **state)
{
  struct etl_containers c;
  (void)state;
  etl_containers_init(&c);
  start(&c, 712, NULL, 800, 30);
  stop(&c, 800, ID_A, 20);
  clr_event(&c, 800, ID_A, 15);
  start(&c, 1200, ID_A, 800, 10);
  clr_event(&c, 800, ID_A, 12);
  assert_int_equal(etl_containers_finish(&c), 0);
  assert_int_equal(at(&c, 800, 10), 0);
  assert_int_equal(at(&c, 800, 19), 0);
  assert_int_equal(at(&c, 800, 25), -1); /* between the two lives */
  assert_int_equal(at(&c, 800, 30), -1);
  assert_int_equal(at(&c, 800, 40), -1);
  /* A report's process of the second life: from its start to the end. */
  assert_int_equal(etl_containers_find(&c, 800, 30, ETL_LIFE_STILL_RUNNING), -1);
  assert_int_equal(etl_containers_find(&c, 800, 10, 20), 0);
  assert_int_equal(c.list[0].pid_count, 2);
  etl_containers_release(&c);
}

/* A container's first process is started from the host (no item on its
 * start); its own events then name its container. */
static void a_process_started_from_the_host_takes_the_id_it_emits(void **state)
{
  struct etl_containers c;
  (void)state;
  etl_containers_init(&c);
  start(&c, 2048, NULL, 900, 5);
  clr_event(&c, 900, ID_B, 7);
  start(&c, 900, ID_B, 901, 8);
  assert_int_equal(etl_containers_finish(&c), 0);
  assert_int_equal(at(&c, 900, 6), 0);
  assert_int_equal(at(&c, 901, 9), 0);
  assert_int_equal(at(&c, 2048, 9), -1);
  assert_int_equal(c.list[0].pid_count, 2);
  etl_containers_release(&c);
}

/* Items that are no GUID are counted, never a container; a trace with no
 * item has no container and every process is the host's. */
static void invalid_items_and_no_items(void **state)
{
  struct etl_containers c;
  (void)state;
  etl_containers_init(&c);
  clr_event(&c, 10, "6D9F6D0C-57F8-5F0C-898D-2DC82CC922E", 1); /* 34 characters */
  clr_event(&c, 10, "{6D9F6D0C-57F8-5F0C-898D-2DC82CC922E}", 2);
  start(&c, 712, NULL, 11, 3);
  assert_int_equal(etl_containers_finish(&c), 0);
  assert_int_equal(c.count, 0);
  assert_int_equal(c.invalid_items, 2);
  assert_int_equal(at(&c, 10, 1), -1);
  assert_int_equal(at(&c, 11, 4), -1);
  etl_containers_release(&c);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(starts_put_the_new_process_in_its_creators_container),
    cmocka_unit_test(a_reused_pid_is_joined_by_time),
    cmocka_unit_test(a_process_started_from_the_host_takes_the_id_it_emits),
    cmocka_unit_test(invalid_items_and_no_items),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
