/* counters_pdh.h with PDH: one query per counter, the English path (so a
 * localised Windows understands "Processor(_Total)\% Processor Time"), a
 * wildcard instance read as an array (the largest value for '>', the
 * smallest for '<'), an instance that does not exist yet read as 0 (as
 * PerfView does, so a process not started yet arms the trigger), and the
 * first sample of a rate counter skipped (PDH needs two).  pdh.dll is
 * loaded at run time: it is missing on Nano Server, where counters are
 * then refused with a message and every other trigger still works. */
#include "triggers/os/counters_pdh_win32.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/utf16_win32.h"

#include <stdio.h>
#include <string.h>

static const struct counters_pdh_api *test_api;

void counters_pdh_win32_set_api(const struct counters_pdh_api *api)
{
  test_api = api;
}

struct pdh_state {
  HMODULE dll;
  struct counters_pdh_api api;
  int loaded;
};

struct pdh_counter {
  PDH_HQUERY query;
  PDH_HCOUNTER counter; /* NULL while the instance does not exist yet */
  int greater;
  wchar_t path[3 * TRIGGER_NAME_MAX + 16];
};

static int load(struct pdh_state *st, char *err, size_t cap)
{
  if (st->loaded)
    return 0;
  if (test_api) {
    st->api = *test_api;
    st->loaded = 1;
    return 0;
  }
  st->dll = LoadLibraryW(L"pdh.dll");
  if (!st->dll) {
    snprintf(err, cap, "performance counters: cannot load pdh.dll (LoadLibraryW: %lu); this "
             "Windows has no PDH (Nano Server?)",
             (unsigned long)GetLastError());
    return ETWCAP_E_UNSUPPORTED;
  }
  st->api.open_query = (PDH_STATUS(WINAPI *)(LPCWSTR, DWORD_PTR, PDH_HQUERY *))(
    void (*)(void))GetProcAddress(st->dll, "PdhOpenQueryW");
  st->api.add_english_counter =
    (PDH_STATUS(WINAPI *)(PDH_HQUERY, LPCWSTR, DWORD_PTR, PDH_HCOUNTER *))(void (*)(void))
      GetProcAddress(st->dll, "PdhAddEnglishCounterW");
  st->api.collect =
    (PDH_STATUS(WINAPI *)(PDH_HQUERY))(void (*)(void))GetProcAddress(st->dll, "PdhCollectQueryData");
  st->api.get_array = (PDH_STATUS(WINAPI *)(PDH_HCOUNTER, DWORD, LPDWORD, LPDWORD,
                                            PPDH_FMT_COUNTERVALUE_ITEM_W))(void (*)(void))
    GetProcAddress(st->dll, "PdhGetFormattedCounterArrayW");
  st->api.close_query =
    (PDH_STATUS(WINAPI *)(PDH_HQUERY))(void (*)(void))GetProcAddress(st->dll, "PdhCloseQuery");
  if (!st->api.open_query || !st->api.add_english_counter || !st->api.collect ||
      !st->api.get_array || !st->api.close_query) {
    /* PdhAddEnglishCounterW came with Vista; anything older is not ours. */
    snprintf(err, cap, "performance counters: pdh.dll lacks PdhAddEnglishCounterW or its "
             "companions");
    FreeLibrary(st->dll);
    st->dll = NULL;
    return ETWCAP_E_UNSUPPORTED;
  }
  st->loaded = 1;
  return 0;
}

int counters_pdh_win32_path(const struct trigger_counter_spec *spec, wchar_t *out, size_t cap)
{
  char path[3 * TRIGGER_NAME_MAX + 16];
  wchar_t *w;
  size_t n;
  if (spec->instance[0])
    snprintf(path, sizeof(path), "\\%s(%s)\\%s", spec->category, spec->instance, spec->counter);
  else
    snprintf(path, sizeof(path), "\\%s\\%s", spec->category, spec->counter);
  if (!(w = utf8_to_utf16(path)))
    return ETWCAP_E_NOMEM;
  n = wcslen(w);
  if (n + 1 > cap) {
    etwcap_free(w);
    return ETWCAP_E_RANGE;
  }
  memcpy(out, w, (n + 1) * sizeof(wchar_t));
  etwcap_free(w);
  return 0;
}

static const char *pdh_name(PDH_STATUS s)
{
  switch ((DWORD)s) {
  case PDH_CSTATUS_NO_OBJECT:
    return "PDH_CSTATUS_NO_OBJECT";
  case PDH_CSTATUS_NO_COUNTER:
    return "PDH_CSTATUS_NO_COUNTER";
  case PDH_CSTATUS_BAD_COUNTERNAME:
    return "PDH_CSTATUS_BAD_COUNTERNAME";
  case PDH_CSTATUS_NO_INSTANCE:
    return "PDH_CSTATUS_NO_INSTANCE";
  case PDH_ACCESS_DENIED:
    return "PDH_ACCESS_DENIED";
  default:
    return "";
  }
}

static int pdh_open(void *ctx, const struct trigger_counter_spec *spec, void **handle, char *err,
                    size_t cap)
{
  struct pdh_state *st = ctx;
  struct pdh_counter *c;
  wchar_t path[3 * TRIGGER_NAME_MAX + 16];
  PDH_STATUS s;
  int rc;
  *handle = NULL;
  if (!st)
    return ETWCAP_E_NOMEM;
  if ((rc = load(st, err, cap)) != 0)
    return rc;
  if ((rc = counters_pdh_win32_path(spec, path, sizeof(path) / sizeof(path[0]))) != 0)
    return rc;
  if (!(c = etwcap_calloc(1, sizeof(*c))))
    return ETWCAP_E_NOMEM;
  c->greater = spec->greater;
  memcpy(c->path, path, sizeof(path));
  s = st->api.open_query(NULL, 0, &c->query);
  if (s == ERROR_SUCCESS)
    s = st->api.add_english_counter(c->query, path, 0, &c->counter);
  if ((DWORD)s == PDH_CSTATUS_NO_INSTANCE) {
    /* A process not started yet: added again at each read until it is. */
    c->counter = NULL;
    s = ERROR_SUCCESS;
  }
  if (s != ERROR_SUCCESS) {
    snprintf(err, cap, "performance counter '%s:%s:%s': PdhAddEnglishCounterW: %s (0x%08lx). "
             "Check the category and counter names in English (typeperf -q lists them).",
             spec->category, spec->counter, spec->instance, pdh_name(s), (unsigned long)s);
    if (c->query)
      st->api.close_query(c->query);
    etwcap_free(c);
    return (DWORD)s == PDH_ACCESS_DENIED ? ETWCAP_E_ACCES : ETWCAP_E_NOENT;
  }
  /* The first sample of a rate counter has nothing to compare with. */
  st->api.collect(c->query);
  *handle = c;
  return 0;
}

static int pdh_read(void *ctx, void *handle, int64_t now, double *value)
{
  struct pdh_state *st = ctx;
  struct pdh_counter *c = handle;
  PDH_FMT_COUNTERVALUE_ITEM_W *items = NULL;
  DWORD size = 0, count = 0, i;
  PDH_STATUS s;
  int got = 0, missing = 0;
  (void)now;
  if (!c->counter) {
    if (st->api.add_english_counter(c->query, c->path, 0, &c->counter) != ERROR_SUCCESS) {
      c->counter = NULL;
      return 0; /* still no such instance: PerfView reads 0 */
    }
    st->api.collect(c->query); /* its first sample */
  }
  s = st->api.collect(c->query);
  if ((DWORD)s == PDH_NO_DATA || (DWORD)s == PDH_CSTATUS_NO_INSTANCE)
    return 0; /* the instance does not exist (yet): PerfView reads 0 */
  if (s != ERROR_SUCCESS)
    return TRIGGER_COUNTER_NO_SAMPLE;
  s = st->api.get_array(c->counter, PDH_FMT_DOUBLE | PDH_FMT_NOCAP100, &size, &count, NULL);
  if ((DWORD)s == PDH_CSTATUS_NO_INSTANCE || (DWORD)s == PDH_NO_DATA ||
      (s == ERROR_SUCCESS && count == 0))
    return 0; /* no instance matches the wildcard now */
  if ((DWORD)s != PDH_MORE_DATA)
    return TRIGGER_COUNTER_NO_SAMPLE; /* PDH_INVALID_DATA: a rate's first sample */
  if (!(items = etwcap_malloc(size ? size : 1)))
    return ETWCAP_E_NOMEM;
  s = st->api.get_array(c->counter, PDH_FMT_DOUBLE | PDH_FMT_NOCAP100, &size, &count, items);
  if (s == ERROR_SUCCESS) {
    for (i = 0; i < count; i++) {
      double v = items[i].FmtValue.doubleValue;
      if (items[i].FmtValue.CStatus == PDH_CSTATUS_NO_INSTANCE)
        missing = 1;
      if (items[i].FmtValue.CStatus != PDH_CSTATUS_VALID_DATA &&
          items[i].FmtValue.CStatus != PDH_CSTATUS_NEW_DATA)
        continue;
      if (!got || (c->greater ? v > *value : v < *value))
        *value = v;
      got = 1;
    }
  }
  etwcap_free(items);
  if (s != ERROR_SUCCESS)
    return TRIGGER_COUNTER_NO_SAMPLE;
  if (!got)
    return count && !missing ? TRIGGER_COUNTER_NO_SAMPLE : 0;
  return 1;
}

static void pdh_close(void *ctx, void *handle)
{
  struct pdh_state *st = ctx;
  struct pdh_counter *c = handle;
  if (!c)
    return;
  st->api.close_query(c->query);
  etwcap_free(c);
}

struct trigger_counter_source counters_pdh_system(void)
{
  struct trigger_counter_source s;
  s.ctx = etwcap_calloc(1, sizeof(struct pdh_state));
  s.open = pdh_open;
  s.read = pdh_read;
  s.close = pdh_close;
  return s;
}

void counters_pdh_release(struct trigger_counter_source *src)
{
  struct pdh_state *st = src->ctx;
  if (!st)
    return;
  if (st->dll)
    FreeLibrary(st->dll);
  etwcap_free(st);
  src->ctx = NULL;
}
