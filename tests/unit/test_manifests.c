/* EventSource manifests read from a trace (etw/event/manifests.c): the work and
 * memory a hostile manifest can cost, names compared whole, and the
 * version an event is looked up by. */
#include "tests/fakes/test_support.h"

#include "etw/event/manifests.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct etw_guid source = { 0x11111111, 0x2222, 0x3333,
                                        { 0x44, 0x44, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55 } };

/* Every byte requested from the allocator (a realloc counts its new size
 * whole), and the number of requests. */
static size_t bytes_asked, calls;

static void *counting_malloc(size_t size)
{
  bytes_asked += size;
  calls++;
  return malloc(size);
}

static void *counting_calloc(size_t count, size_t size)
{
  bytes_asked += count * size;
  calls++;
  return calloc(count, size);
}

static void *counting_realloc(void *p, size_t size)
{
  bytes_asked += size;
  calls++;
  return realloc(p, size);
}

static const struct etwcap_allocator counting = { counting_malloc, counting_calloc,
                                                  counting_realloc, free };

/* Appends to a growing string. */
static void put(char **s, size_t *len, size_t *cap, const char *part)
{
  size_t n = strlen(part);
  while (*len + n + 1 > *cap) {
    *cap = *cap ? *cap * 2 : 4096;
    *s = realloc(*s, *cap);
    assert_non_null(*s);
  }
  memcpy(*s + *len, part, n + 1);
  *len += n;
}

/* F fields in one template and E events naming it: reading the manifest
 * must cost a small multiple of its size, not F x E (each event once had
 * its own copy of the template's fields, and the events array grew by one
 * at a time: a 528 KB manifest took 3 GB). */
static void many_events_on_one_large_template_cost_the_xml_size(void **state)
{
  enum { F = 300, E = 300 };
  struct manifests m = { 0 };
  char *xml = NULL, part[96];
  size_t len = 0, cap = 0, i;
  (void)state;
  put(&xml, &len, &cap, "<instrumentationManifest><events><provider name=\"P\"><templates>"
                        "<template tid=\"T\">");
  for (i = 0; i < F; i++) {
    snprintf(part, sizeof(part), "<data name=\"f%lu\" inType=\"win:UInt8\"/>", (unsigned long)i);
    put(&xml, &len, &cap, part);
  }
  put(&xml, &len, &cap, "</template></templates><events>");
  for (i = 0; i < E; i++) {
    snprintf(part, sizeof(part), "<event value=\"%lu\" template=\"T\"/>", (unsigned long)i + 1);
    put(&xml, &len, &cap, part);
  }
  put(&xml, &len, &cap, "</events></provider></events></instrumentationManifest>");
  bytes_asked = calls = 0;
  etwcap_set_allocator(&counting);
  assert_int_equal(manifests_add_xml(&m, &source, xml, len), 0);
  etwcap_set_allocator(NULL);
  print_message("%lu bytes of XML: %lu allocations, %lu bytes\n", (unsigned long)len,
                (unsigned long)calls, (unsigned long)bytes_asked);
  assert_true(bytes_asked <= 8 * len);
  assert_true(calls <= len / 16);
  for (i = 0; i < E; i++) {
    const struct man_event *e = manifests_lookup(&m, &source, (uint16_t)(i + 1), 0);
    assert_non_null(e);
    assert_int_equal(e->layout.count, F);
    assert_string_equal(e->layout.fields[F - 1].name, "f299");
  }
  manifests_free(&m);
  free(xml);
}

/* A run of n copies of c into buf. */
static char *run(char *buf, char c, size_t n)
{
  memset(buf, c, n);
  buf[n] = '\0';
  return buf;
}

/* A name longer than any buffer is kept whole: a trigger naming its first
 * 255 bytes does not name it, and two templates whose tids share their
 * first 127 bytes stay apart. */
static void long_names_are_compared_whole(void **state)
{
  struct manifests m = { 0 };
  const struct man_event *e;
  char task[301], sym[401], tid[201], xml[2048], name[400];
  (void)state;
  run(task, 'A', 300);
  run(sym, 'S', 400);
  run(tid, 'T', 200);
  snprintf(xml, sizeof(xml),
           "<templates><template tid=\"%.127s\"><data name=\"first\" inType=\"win:UInt8\"/>"
           "</template><template tid=\"%s\"><data name=\"second\" inType=\"win:UInt8\"/>"
           "</template></templates><events><event value=\"3\" task=\"%s\" opcode=\"win:Start\" "
           "symbol=\"%s\" template=\"%s\"/></events>",
           tid, tid, task, sym, tid);
  assert_int_equal(manifests_add_xml(&m, &source, xml, strlen(xml)), 0);
  e = manifests_lookup(&m, &source, 3, 0);
  assert_non_null(e);
  snprintf(name, sizeof(name), "%.255s/Start", task);
  assert_false(manifests_event_named(e, name));
  snprintf(name, sizeof(name), "%s/Start", task);
  assert_true(manifests_event_named(e, name));
  snprintf(name, sizeof(name), "%.255s", sym);
  assert_false(manifests_event_named(e, name));
  assert_true(manifests_event_named(e, sym));
  assert_int_equal(e->layout.count, 1);
  assert_string_equal(e->layout.fields[0].name, "second");
  manifests_free(&m);
}

/* The version is the highest not above the event's, whatever order the
 * manifest lists them in; an event older than every version gets the
 * oldest. */
static void versions_are_chosen_whatever_the_manifest_order(void **state)
{
  static const char xml[] =
    "<templates><template tid=\"A\"><data name=\"a\" inType=\"win:UInt8\"/></template>"
    "<template tid=\"B\"><data name=\"b\" inType=\"win:UInt8\"/></template>"
    "<template tid=\"C\"><data name=\"c\" inType=\"win:UInt8\"/></template></templates>"
    "<events><event value=\"5\" version=\"4\" template=\"C\"/>"
    "<event value=\"5\" version=\"2\" template=\"B\"/>"
    "<event value=\"9\" version=\"0\" template=\"A\"/></events>";
  struct manifests m = { 0 };
  (void)state;
  assert_int_equal(manifests_add_xml(&m, &source, xml, sizeof(xml) - 1), 0);
  assert_string_equal(manifests_lookup(&m, &source, 5, 3)->layout.fields[0].name, "b");
  assert_string_equal(manifests_lookup(&m, &source, 5, 4)->layout.fields[0].name, "c");
  assert_string_equal(manifests_lookup(&m, &source, 5, 200)->layout.fields[0].name, "c");
  assert_string_equal(manifests_lookup(&m, &source, 5, 1)->layout.fields[0].name, "b");
  assert_null(manifests_lookup(&m, &source, 6, 0));
  assert_null(manifests_lookup(&m, &source, 4, 9));
  manifests_free(&m);
}

/* Every allocation failure is reported and leaks nothing (ASan). */
static void allocation_failures_leak_nothing(void **state)
{
  static const char xml[] =
    "<templates><template tid=\"A\"><data name=\"a\" inType=\"win:UInt8\"/>"
    "<data name=\"b\" inType=\"win:UnicodeString\"/></template></templates>"
    "<events><event value=\"5\" symbol=\"S\" task=\"T\" opcode=\"win:Start\" template=\"A\"/>"
    "<event value=\"6\" symbol=\"U\" template=\"A\"/></events>";
  unsigned n, total;
  (void)state;
  test_fail_alloc_after(0);
  {
    struct manifests m = { 0 };
    assert_int_equal(manifests_add_xml(&m, &source, xml, sizeof(xml) - 1), 0);
    manifests_free(&m);
  }
  total = test_alloc_count();
  for (n = 1; n <= total; n++) {
    struct manifests m = { 0 };
    test_fail_alloc_after(n);
    assert_int_equal(manifests_add_xml(&m, &source, xml, sizeof(xml) - 1), ETWCAP_E_NOMEM);
    manifests_free(&m);
  }
  test_fail_alloc_after(0);
  etwcap_set_allocator(NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(many_events_on_one_large_template_cost_the_xml_size),
    cmocka_unit_test(long_names_are_compared_whole),
    cmocka_unit_test(versions_are_chosen_whatever_the_manifest_order),
    cmocka_unit_test(allocation_failures_leak_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
