/* A model of computecore.dll as hcs_win32.c loads and calls it (the kernel32
 * table of hcs_win32.h: LoadLibraryExW, GetProcAddress, FreeLibrary and the
 * LocalFree of each result document), for the Windows unit tests: scripted
 * compute systems, failures and timeouts, each call checked against
 * Microsoft's HCS reference pages (rules and sources:
 * tests/fakes/README.md).  A breach is recorded as a violation. */
#ifndef ETWCAP_FAKE_COMPUTECORE_WIN32_H
#define ETWCAP_FAKE_COMPUTECORE_WIN32_H

#include <windows.h>

#include <stddef.h>

/* HcsOpenComputeSystem's "no such system": winerror.h's
 * HCS_E_SYSTEM_NOT_FOUND, and the same code with the severity bits hcsshim
 * names (internal/hcs/errors.go, ErrComputeSystemDoesNotExist). */
#define FAKE_HCS_SYSTEM_NOT_FOUND ((HRESULT)0x8037010EL)
#define FAKE_HCS_SYSTEM_NOT_FOUND_HCSSHIM ((HRESULT)0xC037010EL)

enum fake_computecore_dll {
  FAKE_DLL_PRESENT,          /* loads */
  FAKE_DLL_ABSENT,           /* ERROR_MOD_NOT_FOUND */
  FAKE_DLL_NO_SEARCH_FLAGS   /* Windows 7 without KB2533623: ERROR_INVALID_PARAMETER */
};

struct fake_computecore {
  /* scripted */
  enum fake_computecore_dll dll;
  const char *missing_export;    /* GetProcAddress finds no such name */
  int cancel_not_exported;       /* GetProcAddress finds no HcsCancelOperation */
  HANDLE load_gate;              /* the first load waits for it (if set) ... */
  HANDLE load_entered;           /* ... after setting this */
  const wchar_t *systems;        /* the enumeration's result document */
  const wchar_t *processes;      /* the properties' result document (any system) */
  const wchar_t *known_id;       /* the one Id HcsOpenComputeSystem opens */
  HRESULT not_found_hr;          /* an unknown Id's failure (0: FAKE_HCS_SYSTEM_NOT_FOUND) */
  HRESULT enumerate_hr;          /* HcsEnumerateComputeSystems returns it (0: S_OK) */
  HRESULT wait_hr;               /* a started operation fails with it (0: succeeds) ... */
  const wchar_t *error_document; /* ... handing back this ResultError, if set */
  int wait_times_out;            /* every wait: HCS_E_OPERATION_TIMEOUT, the operation pending */
  /* observed */
  unsigned loads, frees;         /* LoadLibraryExW that succeeded, FreeLibrary */
  unsigned open_operations, open_systems; /* not closed yet */
  unsigned documents, documents_freed;    /* handed out, given back to LocalFree */
  unsigned cancels;              /* HcsCancelOperation */
  unsigned closed_pending;       /* operations closed while pending, not cancelled */
  unsigned violations;
  char last_violation[256];
};

extern struct fake_computecore fake_computecore;

/* Resets the model and puts it in place of kernel32's calls. */
void fake_computecore_install(void);
void fake_computecore_uninstall(void);

#endif
