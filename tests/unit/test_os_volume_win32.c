/* The volume map from kernel32 (os_volume_win32.c), under Wine, against the
 * model of FindFirstVolumeW / FindNextVolumeW / QueryDosDeviceW /
 * GetVolumePathNamesForVolumeNameW (fake_volumes_win32.c): each volume's
 * device and GUID path, whether a letter mounts it, the find handle
 * closed, no call breaking its contract; a refused list is an error. */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"
#include "src/base/os/os_volume.h"
#include "tests/fakes/fake_volumes_win32.h"

#include <string.h>

static void the_map_names_each_volume_and_its_device(void **state)
{
  struct os_volume_list l;
  (void)state;
  fake_volumes_install();
  fake_volumes.v[0] = (struct fake_volume){ L"\\\\?\\Volume{00000000-0000-0000-0000-000000000003}\\",
                                            L"\\Device\\HarddiskVolume3", L"C:\\\0" };
  fake_volumes.v[1] = (struct fake_volume){ L"\\\\?\\Volume{a296af82-8d67-4f46-a792-9e78ec0adf9b}\\",
                                            L"\\Device\\HarddiskVolume7", L"" };
  fake_volumes.count = 2;
  assert_int_equal(os_volume_list_take(&l), 0);
  assert_int_equal(l.count, 2);
  assert_string_equal(l.v[0].device, "\\Device\\HarddiskVolume3");
  assert_string_equal(l.v[0].guid_path, "\\\\?\\Volume{00000000-0000-0000-0000-000000000003}\\");
  assert_true(l.v[0].mounted);
  assert_string_equal(l.v[1].device, "\\Device\\HarddiskVolume7");
  assert_string_equal(l.v[1].guid_path, "\\\\?\\Volume{a296af82-8d67-4f46-a792-9e78ec0adf9b}\\");
  assert_false(l.v[1].mounted);
  assert_true(l.filetime > 0);
  os_volume_list_release(&l);
  if (fake_volumes.violations)
    fail_msg("%s", fake_volumes.last_violation);
  assert_int_equal(fake_volumes.open_finds, 0);
  fake_volumes_uninstall();
}

static void a_refused_list_is_an_error(void **state)
{
  struct os_volume_list l;
  (void)state;
  fake_volumes_install();
  fake_volumes.first_error = ERROR_ACCESS_DENIED;
  assert_int_equal(os_volume_list_take(&l), ETWCAP_E_ACCES);
  assert_int_equal(l.count, 0);
  os_volume_list_release(&l);
  assert_int_equal(fake_volumes.violations, 0);
  fake_volumes_uninstall();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_map_names_each_volume_and_its_device),
    cmocka_unit_test(a_refused_list_is_an_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
