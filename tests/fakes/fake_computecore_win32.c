/* computecore.dll's model (see fake_computecore_win32.h). */
#include "tests/fakes/fake_computecore_win32.h"

#include "src/containers/hcs_win32.h"

#include <stdio.h>
#include <string.h>

struct fake_computecore fake_computecore;

#define HCS_E_SYSTEM_NOT_FOUND ((HRESULT)0xC037010EL) /* hcsshim errors.go */
#define MAX_OPS 8

/* An operation: made, then started by one call, then waited on. */
struct op {
  int open, started;
  const wchar_t *result;
};
static struct op ops[MAX_OPS];
static int system_handle;

static void violation(const char *what)
{
  fake_computecore.violations++;
  snprintf(fake_computecore.last_violation, sizeof(fake_computecore.last_violation), "%s", what);
}

static struct op *op_of(hcs_operation h)
{
  size_t i = (size_t)(ULONG_PTR)h;
  return i >= 1 && i <= MAX_OPS && ops[i - 1].open ? &ops[i - 1] : NULL;
}

static hcs_operation WINAPI create_operation(const void *context, void *callback)
{
  size_t i;
  (void)context, (void)callback;
  for (i = 0; i < MAX_OPS; i++)
    if (!ops[i].open) {
      memset(&ops[i], 0, sizeof(ops[i]));
      ops[i].open = 1;
      fake_computecore.open_operations++;
      return (hcs_operation)(ULONG_PTR)(i + 1);
    }
  return NULL;
}

static void WINAPI close_operation(hcs_operation h)
{
  struct op *o = op_of(h);
  if (!o) {
    violation("HcsCloseOperation on an operation that is not open");
    return;
  }
  o->open = 0;
  fake_computecore.open_operations--;
}

/* A call starts a fresh operation (HcsCreateOperation's handle "is used to
 * track" that call; HcsWaitForOperationResult then gives its result). */
static int start(hcs_operation h, const wchar_t *result, const char *call)
{
  struct op *o = op_of(h);
  char text[160];
  if (!o || o->started) {
    snprintf(text, sizeof(text), "%s on an operation that is not open or already started", call);
    violation(text);
    return 0;
  }
  o->started = 1;
  o->result = result;
  return 1;
}

static HRESULT WINAPI enumerate(PCWSTR query, hcs_operation h)
{
  (void)query; /* optional: NULL lists every compute system */
  if (fake_computecore.enumerate_hr)
    return fake_computecore.enumerate_hr;
  return start(h, fake_computecore.systems, "HcsEnumerateComputeSystems") ? S_OK : E_INVALIDARG;
}

static HRESULT WINAPI wait_result(hcs_operation h, DWORD timeout_ms, PWSTR *result)
{
  struct op *o = op_of(h);
  size_t n;
  (void)timeout_ms;
  if (!result) {
    violation("HcsWaitForOperationResult without a place for the result document");
    return E_POINTER;
  }
  *result = NULL;
  if (!o || !o->started) {
    violation("HcsWaitForOperationResult on an operation no call started");
    return E_INVALIDARG;
  }
  /* The caller frees the document with LocalFree. */
  n = (wcslen(o->result) + 1) * sizeof(wchar_t);
  if (!(*result = LocalAlloc(LMEM_FIXED, n)))
    return E_OUTOFMEMORY;
  memcpy(*result, o->result, n);
  fake_computecore.documents++;
  return S_OK;
}

static HRESULT WINAPI open_system(PCWSTR id, DWORD access, hcs_system *sys)
{
  /* HcsOpenComputeSystem: requestedAccess "must be GENERIC_ALL". */
  if (access != GENERIC_ALL)
    violation("HcsOpenComputeSystem with another access than GENERIC_ALL");
  *sys = NULL;
  if (!id || wcscmp(id, fake_computecore.known_id) != 0)
    return HCS_E_SYSTEM_NOT_FOUND;
  fake_computecore.open_systems++;
  *sys = &system_handle;
  return S_OK;
}

static void WINAPI close_system(hcs_system sys)
{
  if (sys != &system_handle || !fake_computecore.open_systems) {
    violation("HcsCloseComputeSystem on a system that is not open");
    return;
  }
  fake_computecore.open_systems--;
}

static HRESULT WINAPI properties(hcs_system sys, hcs_operation h, PCWSTR query)
{
  if (sys != &system_handle || !fake_computecore.open_systems)
    violation("HcsGetComputeSystemProperties on a system that is not open");
  /* A PropertyQuery document: {"PropertyTypes": [...]} (hcsshim schema2). */
  if (!query || !wcsstr(query, L"\"PropertyTypes\"") || !wcsstr(query, L"\"ProcessList\""))
    violation("HcsGetComputeSystemProperties without a PropertyTypes query for ProcessList");
  return start(h, fake_computecore.processes, "HcsGetComputeSystemProperties") ? S_OK
                                                                               : E_INVALIDARG;
}

static const struct hcs_api fake_api = { create_operation, close_operation, enumerate,
                                         wait_result,      open_system,     close_system,
                                         properties };

void fake_computecore_install(void)
{
  memset(&fake_computecore, 0, sizeof(fake_computecore));
  memset(ops, 0, sizeof(ops));
  hcs_use_api(&fake_api);
}

void fake_computecore_uninstall(void)
{
  hcs_use_api(NULL);
}
