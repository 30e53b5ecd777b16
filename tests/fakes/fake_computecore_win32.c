/* computecore.dll's model (see fake_computecore_win32.h). */
#include "tests/fakes/fake_computecore_win32.h"

#include "src/containers/hcs_win32.h"

#include <stdio.h>
#include <string.h>

struct fake_computecore fake_computecore;

/* HcsWaitForOperationResult's "The operation did not complete in time"
 * (winerror.h HCS_E_OPERATION_TIMEOUT). */
#define HCS_E_OPERATION_TIMEOUT ((HRESULT)0x80370118L)
/* HcsCancelOperation's page: "not currently implemented and will always
 * return an E_NOTIMPL". */
#define CANCEL_RESULT E_NOTIMPL
#define MAX_OPS 8
#define MAX_DOCS 16

/* An operation: made, then started by one call, then waited on; a wait
 * that timed out leaves it pending. */
struct op {
  int open, started, pending, cancelled;
  const wchar_t *result;
};
static struct op ops[MAX_OPS];
static void *documents[MAX_DOCS]; /* handed out, not yet given to LocalFree */
static int system_handle, stale_handle, module;

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

static hcs_operation create_operation_unlocked(const void *context, void *callback)
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

static void close_operation_unlocked(hcs_operation h)
{
  struct op *o = op_of(h);
  if (!o) {
    violation("HcsCloseOperation on an operation that is not open");
    return;
  }
  if (o->pending && !o->cancelled)
    fake_computecore.closed_pending++;
  o->open = 0;
  fake_computecore.open_operations--;
}

static HRESULT cancel_operation_unlocked(hcs_operation h)
{
  struct op *o = op_of(h);
  if (!o) {
    violation("HcsCancelOperation on an operation that is not open");
    return E_INVALIDARG;
  }
  o->cancelled = 1;
  fake_computecore.cancels++;
  return CANCEL_RESULT;
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

static HRESULT enumerate_unlocked(PCWSTR query, hcs_operation h)
{
  (void)query; /* optional: NULL lists every compute system */
  if (fake_computecore.enumerate_hr)
    return fake_computecore.enumerate_hr;
  return start(h, fake_computecore.systems, "HcsEnumerateComputeSystems") ? S_OK : E_INVALIDARG;
}

/* A copy of `text` in LocalAlloc'd memory, the caller's to LocalFree. */
static HRESULT hand_out(const wchar_t *text, PWSTR *result)
{
  size_t n = (wcslen(text) + 1) * sizeof(wchar_t), i;
  for (i = 0; i < MAX_DOCS && documents[i]; i++)
    ;
  if (i == MAX_DOCS || !(*result = LocalAlloc(LMEM_FIXED, n)))
    return E_OUTOFMEMORY;
  memcpy(*result, text, n);
  documents[i] = *result;
  fake_computecore.documents++;
  return S_OK;
}

static HRESULT wait_result_unlocked(hcs_operation h, DWORD timeout_ms, PWSTR *result)
{
  struct op *o = op_of(h);
  HRESULT hr;
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
  if (fake_computecore.wait_times_out) {
    o->pending = 1; /* not finished: no document */
    return HCS_E_OPERATION_TIMEOUT;
  }
  if (fake_computecore.wait_hr) {
    /* "On failure, it can optionally receive an error JSON document". */
    if (fake_computecore.error_document &&
        FAILED(hr = hand_out(fake_computecore.error_document, result)))
      return hr;
    return fake_computecore.wait_hr;
  }
  return hand_out(o->result, result);
}

static HRESULT open_system_unlocked(PCWSTR id, DWORD access, hcs_system *sys)
{
  /* HcsOpenComputeSystem: requestedAccess "must be GENERIC_ALL". */
  if (access != GENERIC_ALL)
    violation("HcsOpenComputeSystem with another access than GENERIC_ALL");
  if (!id || wcscmp(id, fake_computecore.known_id) != 0) {
    /* What a failed open leaves in the _Out_ handle is not documented:
     * something that is no open system. */
    *sys = &stale_handle;
    return fake_computecore.not_found_hr ? fake_computecore.not_found_hr
                                         : FAKE_HCS_SYSTEM_NOT_FOUND;
  }
  fake_computecore.open_systems++;
  *sys = &system_handle;
  return S_OK;
}

static void close_system_unlocked(hcs_system sys)
{
  if (sys != &system_handle || !fake_computecore.open_systems) {
    violation("HcsCloseComputeSystem on a system that is not open");
    return;
  }
  fake_computecore.open_systems--;
}

static HRESULT properties_unlocked(hcs_system sys, hcs_operation h, PCWSTR query)
{
  if (sys != &system_handle || !fake_computecore.open_systems)
    violation("HcsGetComputeSystemProperties on a system that is not open");
  /* A PropertyQuery document: {"PropertyTypes": [...]} (hcsshim schema2). */
  if (!query || !wcsstr(query, L"\"PropertyTypes\"") || !wcsstr(query, L"\"ProcessList\""))
    violation("HcsGetComputeSystemProperties without a PropertyTypes query for ProcessList");
  return start(h, fake_computecore.processes, "HcsGetComputeSystemProperties") ? S_OK
                                                                               : E_INVALIDARG;
}

static HLOCAL local_free_unlocked(HLOCAL mem)
{
  size_t i;
  for (i = 0; i < MAX_DOCS; i++)
    if (documents[i] && documents[i] == mem) {
      documents[i] = NULL;
      fake_computecore.documents_freed++;
      return LocalFree(mem);
    }
  violation("LocalFree of memory HcsWaitForOperationResult did not hand out");
  return mem;
}

/* Two threads may call at once (a test of the loader's once): each entry
 * point runs under one lock. */
static SRWLOCK lock = SRWLOCK_INIT;
#define LOCKED(type, name, params, args)                                                     \
  static type WINAPI name params                                                             \
  {                                                                                          \
    type ret_;                                                                               \
    AcquireSRWLockExclusive(&lock);                                                          \
    ret_ = name##_unlocked args;                                                             \
    ReleaseSRWLockExclusive(&lock);                                                          \
    return ret_;                                                                             \
  }
#define LOCKED_VOID(name, type, arg)                                                         \
  static void WINAPI name(type arg)                                                          \
  {                                                                                          \
    AcquireSRWLockExclusive(&lock);                                                          \
    name##_unlocked(arg);                                                                    \
    ReleaseSRWLockExclusive(&lock);                                                          \
  }
LOCKED(hcs_operation, create_operation, (const void *c, void *cb), (c, cb))
LOCKED_VOID(close_operation, hcs_operation, h)
LOCKED(HRESULT, cancel_operation, (hcs_operation h), (h))
LOCKED(HRESULT, enumerate, (PCWSTR q, hcs_operation h), (q, h))
LOCKED(HRESULT, wait_result, (hcs_operation h, DWORD ms, PWSTR *r), (h, ms, r))
LOCKED(HRESULT, open_system, (PCWSTR id, DWORD access, hcs_system *sys), (id, access, sys))
LOCKED_VOID(close_system, hcs_system, sys)
LOCKED(HRESULT, properties, (hcs_system sys, hcs_operation h, PCWSTR q), (sys, h, q))
LOCKED(HLOCAL, local_free, (HLOCAL mem), (mem))

static HMODULE WINAPI load_library_ex(LPCWSTR name, HANDLE file, DWORD flags)
{
  int first;
  if (!name || _wcsicmp(name, L"computecore.dll") != 0 || file ||
      flags != LOAD_LIBRARY_SEARCH_SYSTEM32)
    violation("LoadLibraryExW of another name than computecore.dll, or not from System32 only");
  AcquireSRWLockExclusive(&lock);
  first = fake_computecore.loads++ == 0;
  ReleaseSRWLockExclusive(&lock);
  if (first && fake_computecore.load_gate) {
    SetEvent(fake_computecore.load_entered);
    WaitForSingleObject(fake_computecore.load_gate, 30000);
  }
  if (fake_computecore.dll != FAKE_DLL_PRESENT) {
    SetLastError(fake_computecore.dll == FAKE_DLL_ABSENT ? ERROR_MOD_NOT_FOUND
                                                         : ERROR_INVALID_PARAMETER);
    return NULL;
  }
  return (HMODULE)&module;
}

#define ENTRY(name, fn) { name, (FARPROC)(void (*)(void))fn }
static const struct {
  const char *name;
  FARPROC fn;
} exports[] = { ENTRY("HcsCreateOperation", create_operation),
                ENTRY("HcsCloseOperation", close_operation),
                ENTRY("HcsCancelOperation", cancel_operation),
                ENTRY("HcsEnumerateComputeSystems", enumerate),
                ENTRY("HcsWaitForOperationResult", wait_result),
                ENTRY("HcsOpenComputeSystem", open_system),
                ENTRY("HcsCloseComputeSystem", close_system),
                ENTRY("HcsGetComputeSystemProperties", properties) };

static FARPROC WINAPI get_proc_address(HMODULE dll, LPCSTR name)
{
  size_t i;
  if (dll != (HMODULE)&module)
    violation("GetProcAddress on a module LoadLibraryExW did not return");
  if ((fake_computecore.missing_export && strcmp(name, fake_computecore.missing_export) == 0) ||
      (fake_computecore.cancel_not_exported && strcmp(name, "HcsCancelOperation") == 0)) {
    SetLastError(ERROR_PROC_NOT_FOUND);
    return NULL;
  }
  for (i = 0; i < sizeof(exports) / sizeof(exports[0]); i++)
    if (strcmp(name, exports[i].name) == 0)
      return exports[i].fn;
  SetLastError(ERROR_PROC_NOT_FOUND);
  return NULL;
}

static BOOL WINAPI free_library(HMODULE dll)
{
  if (dll != (HMODULE)&module) {
    violation("FreeLibrary on a module LoadLibraryExW did not return");
    return FALSE;
  }
  fake_computecore.frees++;
  return TRUE;
}


static const struct hcs_kernel32 fake_kernel32 = { load_library_ex, get_proc_address,
                                                   free_library, local_free };

void fake_computecore_install(void)
{
  memset(&fake_computecore, 0, sizeof(fake_computecore));
  memset(ops, 0, sizeof(ops));
  memset(documents, 0, sizeof(documents));
  hcs_use_kernel32(&fake_kernel32);
}

void fake_computecore_uninstall(void)
{
  hcs_use_kernel32(NULL);
}
