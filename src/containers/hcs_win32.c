/* computecore.dll's documents (hcs.h).  The calls and their order are those
 * of Microsoft's HCS reference pages (learn.microsoft.com/virtualization/
 * api/hcs/reference): HcsCreateOperation, then HcsEnumerateComputeSystems
 * or HcsOpenComputeSystem + HcsGetComputeSystemProperties on it, then
 * HcsWaitForOperationResult, whose result document the caller frees with
 * LocalFree; HcsCloseOperation and HcsCloseComputeSystem after.  The DLL is
 * loaded from System32 only (LoadLibraryExW, LOAD_LIBRARY_SEARCH_SYSTEM32),
 * never from the current folder or PATH. */
#include "src/containers/hcs.h"
#include "src/containers/hcs_result_error.h"
#include "src/containers/hcs_win32.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/utf16_win32.h"

#include <stdio.h>
#include <string.h>
#include <windows.h>

#ifndef LOAD_LIBRARY_SEARCH_SYSTEM32
#define LOAD_LIBRARY_SEARCH_SYSTEM32 0x00000800
#endif
/* HcsWaitForOperationResult's "The operation did not complete in time"
 * (winerror.h; Learn's HCS error codes page). */
#define HCS_OPERATION_TIMEOUT ((HRESULT)0x80370118L)

/* A compute system answers within seconds; a stuck service must not hold
 * the capture's start or stop longer than this. */
#define WAIT_MS 5000
/* The part of a ResultError's message that goes into `why`. */
#define MESSAGE_MAX 200

static const struct hcs_kernel32 kernel32 = { LoadLibraryExW, GetProcAddress, FreeLibrary,
                                              LocalFree };
static const struct hcs_kernel32 *k32 = &kernel32;

/* Why LoadLibraryExW found no computecore.dll. */
static void not_loaded(DWORD err, char *why, size_t why_size)
{
  static const char no_hcs[] = "this Windows has no Host Compute Service API (it needs Windows "
                               "10 1809 or Server 2019 with the Containers feature)";
  /* LoadLibraryExW: LOAD_LIBRARY_SEARCH_SYSTEM32 "requires KB2533623" on
   * Windows 7 / Server 2008 R2 and before.  Without it the flag is refused
   * with ERROR_INVALID_PARAMETER before any file is looked for (the page
   * names no code; this is the one such systems give), so "not in System32"
   * would be a guess. */
  if (err == ERROR_INVALID_PARAMETER)
    snprintf(why, why_size, "LoadLibraryExW refused LOAD_LIBRARY_SEARCH_SYSTEM32 (error 87: "
             "Windows 7 or Server 2008 R2 without update KB2533623), so computecore.dll was not "
             "looked for; %s", no_hcs);
  else if (err == ERROR_MOD_NOT_FOUND)
    snprintf(why, why_size, "computecore.dll is not in System32 (error 126): %s", no_hcs);
  else
    snprintf(why, why_size, "computecore.dll could not be loaded from System32 (error %lu)",
             (unsigned long)err);
}

/* An export's address; the first missing name goes to *missing. */
static FARPROC export_of(HMODULE dll, const char *name, const char **missing)
{
  FARPROC p = k32->get_proc_address(dll, name);
  if (!p && !*missing)
    *missing = name;
  return p;
}

/* GetProcAddress's FARPROC becomes each member's own type through
 * void (*)(void), the one function pointer type every other converts to
 * and back. */
#define EXPORT(type, name) ((type)(void (*)(void))export_of(dll, name, &missing))

static int load(struct hcs_api *a, char *why, size_t why_size)
{
  HMODULE dll = k32->load_library_ex(L"computecore.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
  const char *missing = NULL, *optional = NULL;
  if (!dll) {
    not_loaded(GetLastError(), why, why_size);
    return ETWCAP_E_UNSUPPORTED;
  }
  a->create_operation = EXPORT(hcs_create_operation_fn, "HcsCreateOperation");
  a->close_operation = EXPORT(hcs_close_operation_fn, "HcsCloseOperation");
  a->enumerate = EXPORT(hcs_enumerate_fn, "HcsEnumerateComputeSystems");
  a->wait_result = EXPORT(hcs_wait_result_fn, "HcsWaitForOperationResult");
  a->open_system = EXPORT(hcs_open_system_fn, "HcsOpenComputeSystem");
  a->close_system = EXPORT(hcs_close_system_fn, "HcsCloseComputeSystem");
  a->properties = EXPORT(hcs_properties_fn, "HcsGetComputeSystemProperties");
  /* Optional: only asked for after a wait that timed out. */
  a->cancel_operation = (hcs_cancel_operation_fn)(void (*)(void))export_of(
      dll, "HcsCancelOperation", &optional);
  if (missing) {
    snprintf(why, why_size, "computecore.dll has no %s: an HCS older than its documented API",
             missing);
    k32->free_library(dll);
    return ETWCAP_E_UNSUPPORTED;
  }
  return 0; /* kept loaded: the process asks again at the capture's stop */
}

/* Loaded once per process.  Today only the main thread asks (a capture's
 * start and stop; the background merge job takes no inventory,
 * capture_background.c), but hcs.h promises no such thing, so the first
 * caller loads under InitOnceExecuteOnce and any other waits for it; the
 * outcome, `why` included, is only read after that. */
static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
static struct {
  struct hcs_api api;
  int rc;
  char why[512];
} loaded;

static BOOL CALLBACK load_once(PINIT_ONCE o, PVOID param, PVOID *context)
{
  (void)o, (void)param, (void)context;
  loaded.rc = load(&loaded.api, loaded.why, sizeof(loaded.why));
  return TRUE;
}

void hcs_use_kernel32(const struct hcs_kernel32 *calls)
{
  static const INIT_ONCE fresh = INIT_ONCE_STATIC_INIT;
  k32 = calls ? calls : &kernel32;
  once = fresh;
  memset(&loaded, 0, sizeof(loaded));
}

static int api(const struct hcs_api **out, char *why, size_t why_size)
{
  InitOnceExecuteOnce(&once, load_once, NULL, NULL);
  if (loaded.rc)
    snprintf(why, why_size, "%s", loaded.why);
  *out = &loaded.api;
  return loaded.rc;
}

/* 0 when the call started the operation, else its failure in `why`. */
static int started(HRESULT hr, const char *what, char *why, size_t why_size)
{
  if (SUCCEEDED(hr))
    return 0;
  snprintf(why, why_size, "%s failed with HRESULT 0x%08lX%s", what, (unsigned long)hr,
           hr == E_ACCESSDENIED ? " (access denied: run from an elevated prompt)" : "");
  return hr == E_ACCESSDENIED ? ETWCAP_E_ACCES : ETWCAP_E_IO;
}

/* Adds a failed operation's ResultError message to `why`. */
static void add_message(const char *doc, char *why, size_t why_size)
{
  char message[MESSAGE_MAX + 1];
  size_t used = strlen(why);
  if (hcs_result_error_message(doc, strlen(doc), message, sizeof(message)) && used < why_size)
    snprintf(why + used, why_size - used, ": \"%s\"", message);
}

/* The operation's result document as UTF-8. */
static int wait_json(const struct hcs_api *a, hcs_operation op, const char *what, char **json,
                     char *why, size_t why_size)
{
  PWSTR doc = NULL;
  HRESULT hr = a->wait_result(op, WAIT_MS, &doc);
  char *text = doc ? utf16_to_utf8(doc) : NULL;
  int rc = 0;
  if (hr == HCS_OPERATION_TIMEOUT) {
    /* Still running: HcsCloseOperation releases only the tracking, so ask
     * for a cancel first where computecore exports one (its Learn page says
     * it returns E_NOTIMPL for now; a Windows that implements it stops the
     * work). */
    if (a->cancel_operation)
      a->cancel_operation(op);
    snprintf(why, why_size, "%s did not finish within %d s (HRESULT 0x%08lX, "
             "HCS_E_OPERATION_TIMEOUT): the Host Compute Service is busy or stuck",
             what, WAIT_MS / 1000, (unsigned long)hr);
    rc = ETWCAP_E_TIMEOUT;
  } else if (FAILED(hr)) {
    rc = started(hr, what, why, why_size);
    if (text)
      add_message(text, why, why_size);
  } else if (!text) {
    snprintf(why, why_size, "%s returned no readable document", what);
    rc = ETWCAP_E_FORMAT;
  } else {
    *json = text;
    text = NULL;
  }
  etwcap_free(text);
  if (doc)
    k32->local_free(doc);
  return rc;
}

int hcs_systems_json(char **json, char *why, size_t why_size)
{
  const struct hcs_api *a;
  hcs_operation op;
  int rc;
  *json = NULL;
  if ((rc = api(&a, why, why_size)) != 0)
    return rc;
  if (!(op = a->create_operation(NULL, NULL))) {
    snprintf(why, why_size, "HcsCreateOperation failed");
    return ETWCAP_E_NOMEM;
  }
  /* No query: every compute system, the utility VMs of Hyper-V isolated
   * containers included, so those can be named as such. */
  rc = started(a->enumerate(NULL, op), "HcsEnumerateComputeSystems", why, why_size);
  if (!rc)
    rc = wait_json(a, op, "HcsEnumerateComputeSystems", json, why, why_size);
  a->close_operation(op);
  return rc;
}

int hcs_processes_json(const char *id, char **json, char *why, size_t why_size)
{
  const struct hcs_api *a;
  hcs_operation op = NULL;
  hcs_system sys = NULL;
  wchar_t *wid;
  int rc;
  *json = NULL;
  if ((rc = api(&a, why, why_size)) != 0)
    return rc;
  if (!(wid = utf8_to_utf16(id)))
    return ETWCAP_E_NOMEM;
  /* HcsOpenComputeSystem: requestedAccess "must be GENERIC_ALL".  What a
   * failed open leaves in its _Out_ handle is not documented, so the handle
   * is closed only after a successful open. */
  rc = started(a->open_system(wid, GENERIC_ALL, &sys), "HcsOpenComputeSystem", why, why_size);
  etwcap_free(wid);
  if (rc)
    return rc;
  if (!(op = a->create_operation(NULL, NULL))) {
    snprintf(why, why_size, "HcsCreateOperation failed");
    rc = ETWCAP_E_NOMEM;
  }
  if (!rc)
    rc = started(a->properties(sys, op, L"{\"PropertyTypes\":[\"ProcessList\"]}"),
                 "HcsGetComputeSystemProperties", why, why_size);
  if (!rc)
    rc = wait_json(a, op, "HcsGetComputeSystemProperties", json, why, why_size);
  if (op)
    a->close_operation(op);
  a->close_system(sys);
  return rc;
}
