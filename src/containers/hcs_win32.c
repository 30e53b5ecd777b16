/* computecore.dll's documents (hcs.h).  The calls and their order are those
 * of Microsoft's HCS reference pages (learn.microsoft.com/virtualization/
 * api/hcs/reference): HcsCreateOperation, then HcsEnumerateComputeSystems
 * or HcsOpenComputeSystem + HcsGetComputeSystemProperties on it, then
 * HcsWaitForOperationResult, whose result document the caller frees with
 * LocalFree; HcsCloseOperation and HcsCloseComputeSystem after.  The DLL is
 * loaded from System32 only (LoadLibraryExW, LOAD_LIBRARY_SEARCH_SYSTEM32),
 * never from the current folder or PATH. */
#include "src/containers/hcs.h"
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

/* A compute system answers within seconds; a stuck service must not hold
 * the capture's start or stop longer than this. */
#define WAIT_MS 5000

static int load(struct hcs_api *a, char *why, size_t why_size)
{
  static const char *const names[] = { "HcsCreateOperation", "HcsCloseOperation",
                                       "HcsEnumerateComputeSystems", "HcsWaitForOperationResult",
                                       "HcsOpenComputeSystem", "HcsCloseComputeSystem",
                                       "HcsGetComputeSystemProperties" };
  FARPROC *slot = (FARPROC *)a;
  HMODULE dll = LoadLibraryExW(L"computecore.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
  size_t i;
  if (!dll) {
    snprintf(why, why_size, "computecore.dll is not in System32 (error %lu): this Windows has "
             "no Host Compute Service API (it needs Windows 10 1809 or Server 2019 with the "
             "Containers feature)", (unsigned long)GetLastError());
    return ETWCAP_E_UNSUPPORTED;
  }
  for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    if (!(slot[i] = GetProcAddress(dll, names[i]))) {
      snprintf(why, why_size, "computecore.dll has no %s: an HCS older than its documented "
               "API", names[i]);
      FreeLibrary(dll);
      return ETWCAP_E_UNSUPPORTED;
    }
  return 0; /* kept loaded: the process asks again at the capture's stop */
}

static const struct hcs_api *injected;

void hcs_use_api(const struct hcs_api *a)
{
  injected = a;
}

static int api(const struct hcs_api **out, char *why, size_t why_size)
{
  static struct hcs_api a;
  static int rc = 1;
  if (injected) {
    *out = injected;
    return 0;
  }
  if (rc == 1)
    rc = load(&a, why, why_size);
  else if (rc)
    snprintf(why, why_size, "computecore.dll could not be loaded (see the first message)");
  *out = &a;
  return rc;
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

/* The operation's result document as UTF-8. */
static int wait_json(const struct hcs_api *a, hcs_operation op, const char *what, char **json,
                     char *why, size_t why_size)
{
  PWSTR doc = NULL;
  HRESULT hr = a->wait_result(op, WAIT_MS, &doc);
  int rc = 0;
  if (FAILED(hr)) {
    rc = started(hr, what, why, why_size);
  } else if (!doc || !(*json = utf16_to_utf8(doc))) {
    snprintf(why, why_size, "%s returned no readable document", what);
    rc = ETWCAP_E_FORMAT;
  }
  if (doc)
    LocalFree(doc);
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
  /* HcsOpenComputeSystem: requestedAccess "must be GENERIC_ALL". */
  rc = started(a->open_system(wid, GENERIC_ALL, &sys), "HcsOpenComputeSystem", why, why_size);
  etwcap_free(wid);
  if (!rc && !(op = a->create_operation(NULL, NULL))) {
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
  if (sys)
    a->close_system(sys);
  return rc;
}
