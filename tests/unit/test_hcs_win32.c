/* The Host Compute Service's documents as hcs_win32.c gets them, under Wine
 * (which has no computecore.dll), against the model of its calls
 * (fake_computecore_win32.c): the list of compute systems and a container's
 * process list through the system's container host into an inventory, every
 * operation and system closed, no call breaking its contract; access
 * denied is "no inventory" with the reason, and an unknown Id no process
 * list. */
#include "tests/fakes/test_support.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/containers/container_inventory.h"
#include "src/containers/hcs.h"
#include "tests/fakes/fake_computecore_win32.h"

#include <string.h>

static void check_clean(void)
{
  if (fake_computecore.violations)
    fail_msg("%s", fake_computecore.last_violation);
  assert_int_equal(fake_computecore.open_operations, 0);
  assert_int_equal(fake_computecore.open_systems, 0);
}

static void the_inventory_comes_through_computecore(void **state)
{
  struct container_inventory inv;
  (void)state;
  fake_computecore_install();
  fake_computecore.systems =
      L"[{\"Id\":\"6d9f6d0c\",\"SystemType\":\"Container\",\"Name\":\"web\",\"Owner\":\"docker\","
      L"\"RuntimeId\":\"6D9F6D0C-57F8-5F0C-898D-2DC82CC922E0\",\"State\":\"Running\"},"
      L"{\"Id\":\"gone\",\"SystemType\":\"Container\",\"Name\":\"gone\"}]";
  fake_computecore.processes =
      L"{\"ProcessList\":[{\"ProcessId\":1676,\"ImageName\":\"dotnet.exe\"}]}";
  fake_computecore.known_id = L"6d9f6d0c";
  container_inventory_take(&inv, container_host_system(), INT64_C(133000000000000000));
  assert_true(inv.available);
  assert_int_equal(inv.count, 2);
  assert_string_equal(inv.systems[0].name, "web");
  assert_string_equal(inv.systems[0].runtime_id, "6D9F6D0C-57F8-5F0C-898D-2DC82CC922E0");
  assert_true(inv.systems[0].have_pids);
  assert_int_equal(inv.systems[0].pid_count, 1);
  assert_int_equal(inv.systems[0].pids[0], 1676);
  /* The second has gone between the list and the open: no process list. */
  assert_false(inv.systems[1].have_pids);
  assert_non_null(strstr(inv.systems[1].pids_why, "0xC037010E"));
  assert_int_equal(fake_computecore.documents, 2);
  container_inventory_release(&inv);
  check_clean();
  fake_computecore_uninstall();
}

static void access_denied_is_no_inventory_with_its_reason(void **state)
{
  struct container_inventory inv;
  (void)state;
  fake_computecore_install();
  fake_computecore.enumerate_hr = E_ACCESSDENIED;
  container_inventory_take(&inv, container_host_system(), INT64_C(133000000000000000));
  assert_true(inv.taken);
  assert_false(inv.available);
  assert_non_null(strstr(inv.why, "HcsEnumerateComputeSystems failed with HRESULT 0x80070005"));
  assert_non_null(strstr(inv.why, "elevated"));
  container_inventory_release(&inv);
  check_clean();
  fake_computecore_uninstall();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_inventory_comes_through_computecore),
    cmocka_unit_test(access_denied_is_no_inventory_with_its_reason),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
