/* The portable part of the controller seam: error texts, and the enable
 * that adapts to an older Windows (container flags dropped first, then the
 * scope filters, the provider data kept; any other error passed through). */
#include "test_support.h"

#include "controller.h"
#include "error.h"
#include "fake_controller.h"

#include <stdio.h>
#include <string.h>

static void error_texts_name_the_api_and_the_code(void **state)
{
  static struct fake_controller f; /* too big for a Windows stack */
  char buf[160];
  (void)state;
  fake_controller_init(&f);
  assert_string_equal(controller_error_text(&f.ctl, buf, sizeof(buf)), "no system call failed");
  assert_int_equal(controller_fail(&f.ctl, ETWCAP_E_ACCES, "StartTraceW", 5,
                                   "ERROR_ACCESS_DENIED"),
                   ETWCAP_E_ACCES);
  assert_string_equal(controller_error_text(&f.ctl, buf, sizeof(buf)),
                      "StartTraceW: ERROR_ACCESS_DENIED (5)");
  controller_fail(&f.ctl, ETWCAP_E_SYSTEM, "ControlTraceW", 0x1069, NULL);
  assert_string_equal(controller_error_text(&f.ctl, buf, sizeof(buf)),
                      "ControlTraceW: error 4201 (0x1069)");
}

struct warnings {
  unsigned calls, last;
  char text[600];
};

static void on_warn(void *ctx, unsigned dropped, const char *text)
{
  struct warnings *w = ctx;
  w->calls++;
  w->last = dropped;
  snprintf(w->text, sizeof(w->text), "%s", text);
}

static uint8_t pid_bytes[4] = { 0xD2, 0x04, 0, 0 };
static uint8_t data_bytes[8] = "k\0v\0";

/* A provider as the plan makes it for /EnableEventsInContainers
 * /FocusProcess:1234 with EventSource arguments. */
static void provider(struct plan_provider *p)
{
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "Test");
  p->guid.data1 = 0x12345678;
  p->level = 5;
  p->match_any = 0xFF;
  p->control_code = PLAN_CONTROL_ENABLE_PROVIDER;
  p->enable_property = PLAN_ENABLE_PROPERTY_STACK_TRACE | PLAN_ENABLE_PROPERTY_ENABLE_SILOS;
  p->filters[0].type = PLAN_FILTER_PROVIDER_DATA;
  p->filters[0].data = data_bytes;
  p->filters[0].size = sizeof(data_bytes);
  p->filters[1].type = PLAN_FILTER_PID;
  p->filters[1].data = pid_bytes;
  p->filters[1].size = 4;
  p->filter_count = 2;
}

static uint64_t start_session(struct fake_controller *f)
{
  struct plan_session s;
  uint64_t h = 0;
  memset(&s, 0, sizeof(s));
  snprintf(s.name, sizeof(s.name), "etwcap");
  s.role = PLAN_ROLE_USER;
  assert_int_equal(f->ctl.ops->start(&f->ctl, &s, &h, NULL, 0), 0);
  return h;
}

static void containers_then_filters_are_dropped(void **state)
{
  static struct fake_controller f; /* too big for a Windows stack */
  struct plan_provider p;
  struct warnings w;
  struct fake_fail *x;
  unsigned dropped = 0;
  uint64_t h;
  (void)state;
  fake_controller_init(&f);
  f.write_files = 0;
  h = start_session(&f);
  provider(&p);
  memset(&w, 0, sizeof(w));
  x = fake_controller_fail(&f, "enable", NULL, ETWCAP_E_UNSUPPORTED);
  x->property_mask = PLAN_ENABLE_PROPERTY_ENABLE_SILOS;
  x = fake_controller_fail(&f, "enable", NULL, ETWCAP_E_UNSUPPORTED);
  x->filters = 1;
  assert_int_equal(controller_enable_adapting(&f.ctl, h, &p, 2, &dropped, on_warn, &w), 0);
  assert_int_equal(dropped, CONTROLLER_DROP_CONTAINERS | CONTROLLER_DROP_FILTERS);
  assert_int_equal(w.calls, 2);
  assert_non_null(strstr(w.text, "/FocusProcess"));
  /* Three calls: as planned, without the container flag, without filters. */
  assert_int_equal(fake_controller_count(&f, "enable", NULL), 3);
  assert_int_equal(f.calls[1].value, PLAN_ENABLE_PROPERTY_STACK_TRACE | PLAN_ENABLE_PROPERTY_ENABLE_SILOS);
  assert_int_equal(f.calls[2].value, PLAN_ENABLE_PROPERTY_STACK_TRACE);
  assert_int_equal(f.calls[2].filter_count, 2);
  assert_int_equal(f.calls[3].value, PLAN_ENABLE_PROPERTY_STACK_TRACE);
  assert_int_equal(f.calls[3].filter_count, 1); /* the provider data stays */
  /* The plan's provider is untouched. */
  assert_int_equal(p.filter_count, 2);
  assert_true(p.enable_property & PLAN_ENABLE_PROPERTY_ENABLE_SILOS);
}

static void known_drops_are_applied_up_front(void **state)
{
  static struct fake_controller f; /* too big for a Windows stack */
  struct plan_provider p;
  unsigned dropped = CONTROLLER_DROP_CONTAINERS | CONTROLLER_DROP_FILTERS;
  uint64_t h;
  (void)state;
  fake_controller_init(&f);
  f.write_files = 0;
  h = start_session(&f);
  provider(&p);
  assert_int_equal(controller_enable_adapting(&f.ctl, h, &p, 2, &dropped, NULL, NULL), 0);
  assert_int_equal(fake_controller_count(&f, "enable", NULL), 1);
  assert_int_equal(f.calls[1].value, PLAN_ENABLE_PROPERTY_STACK_TRACE);
  assert_int_equal(f.calls[1].filter_count, 1);
}

static void other_errors_are_not_retried(void **state)
{
  static struct fake_controller f; /* too big for a Windows stack */
  struct plan_provider p;
  unsigned dropped = 0;
  uint64_t h;
  (void)state;
  fake_controller_init(&f);
  f.write_files = 0;
  h = start_session(&f);
  provider(&p);
  fake_controller_fail(&f, "enable", NULL, ETWCAP_E_ACCES);
  assert_int_equal(controller_enable_adapting(&f.ctl, h, &p, 2, &dropped, NULL, NULL),
                   ETWCAP_E_ACCES);
  assert_int_equal(fake_controller_count(&f, "enable", NULL), 1);
  assert_int_equal(dropped, 0);
}

static void unsupported_without_anything_to_drop_is_an_error(void **state)
{
  static struct fake_controller f; /* too big for a Windows stack */
  struct plan_provider p;
  unsigned dropped = 0;
  uint64_t h;
  (void)state;
  fake_controller_init(&f);
  f.write_files = 0;
  h = start_session(&f);
  provider(&p);
  p.enable_property = 0;
  p.filter_count = 1; /* provider data only */
  fake_controller_fail(&f, "enable", NULL, ETWCAP_E_UNSUPPORTED);
  assert_int_equal(controller_enable_adapting(&f.ctl, h, &p, 2, &dropped, NULL, NULL),
                   ETWCAP_E_UNSUPPORTED);
  assert_int_equal(fake_controller_count(&f, "enable", NULL), 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(error_texts_name_the_api_and_the_code),
    cmocka_unit_test(containers_then_filters_are_dropped),
    cmocka_unit_test(known_drops_are_applied_up_front),
    cmocka_unit_test(other_errors_are_not_retried),
    cmocka_unit_test(unsupported_without_anything_to_drop_is_an_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
