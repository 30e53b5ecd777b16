/* Keyword names <-> values both ways, with the values of
 * docs/perfview-collection.md §4.1, §4.3, §4.4 typed in, and PerfView's composite
 * syntax (commandLine.cs ParseCompositeEnumValue). */
#include "tests/fakes/test_support.h"

#include "etw/event/keywords.h"
#include "src/base/error.h"

#include <string.h>

static uint64_t parse_ok(const struct keyword_set *set, const char *text)
{
  uint64_t v = 0;
  char err[256];
  int rc = keywords_parse(set, text, &v, err, sizeof(err));
  if (rc)
    fail_msg("'%s' did not parse: %s", text, err);
  return v;
}

static void kernel_reference_values(void **state)
{
  (void)state;
  assert_int_equal(parse_ok(&keywords_kernel, "Default"), 0x0101270F);
  assert_int_equal(parse_ok(&keywords_kernel, "ThreadTime"), 0x01012F1F);
  assert_int_equal(parse_ok(&keywords_kernel, "Verbose"), 0x0703FF1F);
  assert_int_equal(parse_ok(&keywords_kernel, "OS"), 0x00B00060);
  assert_int_equal(parse_ok(&keywords_kernel, "None"), 0);
  /* Default is exactly the ten groups the reference lists. */
  assert_int_equal(parse_ok(&keywords_kernel, "DiskIO|DiskFileIO|DiskIOInit|ImageLoad|"
                                              "MemoryHardFaults|NetworkTCPIP|Process|"
                                              "ProcessCounters|Profile|Thread"),
                   0x0101270F);
  assert_int_equal(parse_ok(&keywords_kernel, "Default+ContextSwitch+Dispatcher"), 0x01012F1F);
}

static void kernel_single_bits_both_ways(void **state)
{
  static const struct {
    const char *name;
    uint64_t value;
  } bits[] = {
    { "Process", 0x1 },         { "Thread", 0x2 },          { "ImageLoad", 0x4 },
    { "ProcessCounters", 0x8 }, { "ContextSwitch", 0x10 },  { "DeferedProcedureCalls", 0x20 },
    { "Interrupt", 0x40 },      { "SystemCall", 0x80 },     { "DiskIO", 0x100 },
    { "DiskFileIO", 0x200 },    { "DiskIOInit", 0x400 },    { "Dispatcher", 0x800 },
    { "Memory", 0x1000 },       { "MemoryHardFaults", 0x2000 }, { "VirtualAlloc", 0x4000 },
    { "VAMap", 0x8000 },        { "NetworkTCPIP", 0x10000 }, { "Registry", 0x20000 },
    { "AdvancedLocalProcedureCalls", 0x100000 }, { "SplitIO", 0x200000 },
    { "Handle", 0x400000 },     { "Driver", 0x800000 },     { "Profile", 0x1000000 },
    { "FileIO", 0x2000000 },    { "FileIOInit", 0x4000000 }, { "IOQueue", 0x10000000 },
    { "ThreadPriority", 0x20000000 }, { "ReferenceSet", 0x40000000 },
    { "PMCProfile", 0x80000000 },
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
    char buf[64];
    assert_int_equal(parse_ok(&keywords_kernel, bits[i].name), bits[i].value);
    keywords_format(&keywords_kernel, bits[i].value, buf, sizeof(buf));
    assert_string_equal(buf, bits[i].name);
  }
}

static void clr_reference_values(void **state)
{
  static const struct {
    const char *name;
    uint64_t value;
  } bits[] = {
    { "GC", 0x1 }, { "GCHandle", 0x2 }, { "Binder", 0x4 }, { "Loader", 0x8 }, { "Jit", 0x10 },
    { "NGen", 0x20 }, { "StartEnumeration", 0x40 }, { "StopEnumeration", 0x80 },
    { "Security", 0x400 }, { "AppDomainResourceManagement", 0x800 }, { "JitTracing", 0x1000 },
    { "Interop", 0x2000 }, { "Contention", 0x4000 }, { "Exception", 0x8000 },
    { "Threading", 0x10000 }, { "JittedMethodILToNativeMap", 0x20000 },
    { "SupressNGen", 0x40000 }, { "Type", 0x80000 }, { "GCHeapDump", 0x100000 },
    { "GCSampledObjectAllocationHigh", 0x200000 }, { "GCHeapSurvivalAndMovement", 0x400000 },
    { "GCHeapCollect", 0x800000 }, { "GCHeapAndTypeNames", 0x1000000 },
    { "GCSampledObjectAllocationLow", 0x2000000 }, { "PerfTrack", 0x20000000 },
    { "Stack", 0x40000000 }, { "ThreadTransfer", 0x80000000 }, { "Debugger", 0x100000000 },
    { "Monitoring", 0x200000000 }, { "Codesymbols", 0x400000000 },
    { "Compilation", 0x1000000000 }, { "CompilationDiagnostic", 0x2000000000 },
    { "MethodDiagnostic", 0x4000000000 }, { "TypeDiagnostic", 0x8000000000 },
    { "WaitHandle", 0x40000000000 }, { "AllocationSampling", 0x80000000000 },
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
    char buf[64];
    assert_int_equal(parse_ok(&keywords_clr, bits[i].name), bits[i].value);
    keywords_format(&keywords_clr, bits[i].value, buf, sizeof(buf));
    assert_string_equal(buf, bits[i].name);
  }
  assert_int_equal(parse_ok(&keywords_clr, "Default"), 0x14C14FCCBDull);
  assert_int_equal(parse_ok(&keywords_clr, "JITSymbols"), 0x60098);
  assert_int_equal(parse_ok(&keywords_clr, "OverrideAndSuppressNGenEvents"), 0x40000);
  /* The GCOnly preset is the ten keywords the reference names. */
  assert_int_equal(parse_ok(&keywords_clr, "GC|GCHeapSurvivalAndMovement|Stack|Jit|"
                                           "StopEnumeration|SupressNGen|Loader|Exception|Type|"
                                           "GCHeapAndTypeNames"),
                   0x414C8099);
  assert_int_equal(parse_ok(&keywords_clr, "Default-NGen-SupressNGen"), 0x14C14BCC9Dull);
}

static void rundown_reference_values(void **state)
{
  (void)state;
  assert_int_equal(parse_ok(&keywords_clr_rundown, "Default"), 0x1080060139ull);
  assert_int_equal(parse_ok(&keywords_clr_rundown, "Loader+ForceEndRundown"), 0x108);
  assert_int_equal(parse_ok(&keywords_clr_rundown, "Default-NGen-Loader"), 0x1080060111ull);
}

static void composition_is_left_to_right(void **state)
{
  (void)state;
  /* PerfView: ',' and '+' OR, '-' removes the next token, left to right. */
  assert_int_equal(parse_ok(&keywords_kernel, "Default-Profile"), 0x0001270F);
  assert_int_equal(parse_ok(&keywords_kernel, "ThreadTime+Registry"), 0x01032F1F);
  assert_int_equal(parse_ok(&keywords_kernel, "Process,Thread"), 0x3);
  assert_int_equal(parse_ok(&keywords_kernel, "Process|Thread"), 0x3);
  assert_int_equal(parse_ok(&keywords_kernel, "Process-Process+Thread"), 0x2);
  assert_int_equal(parse_ok(&keywords_kernel, "0x10+1"), 0x11);
  assert_int_equal(parse_ok(&keywords_kernel, "default-PROFILE"), 0x0001270F);
  assert_int_equal(parse_ok(&keywords_clr, "Default+GCSampledObjectAllocationHigh"),
                   0x14C16FCCBDull);
}

static void default_minus_profile_for_clr(void **state)
{
  (void)state;
  /* PerfView has no ClrEvents 'Profile' (it rejects that line of
   * docs/perfview-collection.md §10); etwcap reads it as the manifest's
   * Profiler keyword, not in Default. */
  assert_int_equal(parse_ok(&keywords_clr, "Default-Profile"), 0x14C14FCCBDull);
  assert_int_equal(parse_ok(&keywords_clr, "Profiler"), 0x20000000000ull);
  assert_int_equal(parse_ok(&keywords_clr, "AssemblyLoader"), 0x4);
}

static void errors_name_the_token(void **state)
{
  static const struct {
    const struct keyword_set *set;
    const char *text, *token;
  } bad[] = {
    { &keywords_kernel, "Default+Bogus", "'Bogus'" },
    { &keywords_kernel, "0xZZ", "'0xZZ'" },
    { &keywords_kernel, "Default+", "empty name" },
    { &keywords_kernel, "-Profile", "empty name" },
    { &keywords_clr, "Defualt", "'Defualt'" },
    { &keywords_clr, "0x1FFFFFFFFFFFFFFFFF", "'0x1FFFFFFFFFFFFFFFFF'" },
    { &keywords_clr, "", "needs a value" },
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    uint64_t v;
    char err[256] = "";
    assert_int_equal(keywords_parse(bad[i].set, bad[i].text, &v, err, sizeof(err)),
                     ETWCAP_E_USAGE);
    if (!strstr(err, bad[i].token))
      fail_msg("'%s': message '%s' does not contain %s", bad[i].text, err, bad[i].token);
  }
}

static void format_lists_names_then_hex(void **state)
{
  char buf[256];
  (void)state;
  keywords_format(&keywords_kernel, 0x0101270F, buf, sizeof(buf));
  assert_string_equal(buf, "Process|Thread|ImageLoad|ProcessCounters|DiskIO|DiskFileIO|"
                           "DiskIOInit|MemoryHardFaults|NetworkTCPIP|Profile");
  keywords_format(&keywords_kernel, 0x100000000ull | 0x1, buf, sizeof(buf));
  assert_string_equal(buf, "Process|0x100000000");
  keywords_format(&keywords_kernel, 0, buf, sizeof(buf));
  assert_string_equal(buf, "0");
  /* Truncation still reports the full length. */
  assert_int_equal(keywords_format(&keywords_kernel, 0x3, buf, 4), strlen("Process|Thread"));
}

static void levels(void **state)
{
  uint8_t l;
  (void)state;
  assert_int_equal(level_parse("Verbose", 7, &l), 0);
  assert_int_equal(l, 5);
  assert_int_equal(level_parse("informational", 13, &l), 0);
  assert_int_equal(l, 4);
  assert_int_equal(level_parse("Critical", 8, &l), 0);
  assert_int_equal(l, 1);
  assert_int_equal(level_parse("255", 3, &l), 0);
  assert_int_equal(l, 255);
  assert_int_equal(level_parse("256", 3, &l), -1);
  assert_int_equal(level_parse("Loud", 4, &l), -1);
  assert_int_equal(level_parse("", 0, &l), -1);
  assert_string_equal(level_name(4), "Informational");
  assert_null(level_name(9));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(kernel_reference_values),
    cmocka_unit_test(kernel_single_bits_both_ways),
    cmocka_unit_test(clr_reference_values),
    cmocka_unit_test(rundown_reference_values),
    cmocka_unit_test(composition_is_left_to_right),
    cmocka_unit_test(default_minus_profile_for_clr),
    cmocka_unit_test(errors_name_the_token),
    cmocka_unit_test(format_lists_names_then_hex),
    cmocka_unit_test(levels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
