/* computecore.dll's entry points as hcs_win32.c calls them (computecore.h's
 * prototypes: mingw-w64 has no such header), and the kernel32 calls that
 * load the DLL and free its documents, as a table a test may put in place
 * of kernel32's (tests/fakes/fake_computecore_win32.c models computecore's
 * documented contract under Wine, which has no computecore.dll).  Only
 * *_win32.c files include this. */
#ifndef ETWCAP_HCS_WIN32_H
#define ETWCAP_HCS_WIN32_H

#include <windows.h>

typedef void *hcs_operation;
typedef void *hcs_system;

typedef hcs_operation(WINAPI *hcs_create_operation_fn)(const void *context, void *callback);
typedef void(WINAPI *hcs_close_operation_fn)(hcs_operation op);
typedef HRESULT(WINAPI *hcs_cancel_operation_fn)(hcs_operation op);
typedef HRESULT(WINAPI *hcs_enumerate_fn)(PCWSTR query, hcs_operation op);
typedef HRESULT(WINAPI *hcs_wait_result_fn)(hcs_operation op, DWORD timeout_ms, PWSTR *result);
typedef HRESULT(WINAPI *hcs_open_system_fn)(PCWSTR id, DWORD access, hcs_system *sys);
typedef void(WINAPI *hcs_close_system_fn)(hcs_system sys);
typedef HRESULT(WINAPI *hcs_properties_fn)(hcs_system sys, hcs_operation op, PCWSTR query);

/* Filled from computecore.dll's exports, one member per export. */
struct hcs_api {
  hcs_create_operation_fn create_operation;   /* HcsCreateOperation */
  hcs_close_operation_fn close_operation;     /* HcsCloseOperation */
  hcs_cancel_operation_fn cancel_operation;   /* HcsCancelOperation; NULL when not exported */
  hcs_enumerate_fn enumerate;                 /* HcsEnumerateComputeSystems */
  hcs_wait_result_fn wait_result;             /* HcsWaitForOperationResult */
  hcs_open_system_fn open_system;             /* HcsOpenComputeSystem */
  hcs_close_system_fn close_system;           /* HcsCloseComputeSystem */
  hcs_properties_fn properties;               /* HcsGetComputeSystemProperties */
};

/* The kernel32 calls around computecore.dll. */
struct hcs_kernel32 {
  HMODULE(WINAPI *load_library_ex)(LPCWSTR name, HANDLE file, DWORD flags);
  FARPROC(WINAPI *get_proc_address)(HMODULE dll, LPCSTR name);
  BOOL(WINAPI *free_library)(HMODULE dll);
  HLOCAL(WINAPI *local_free)(HLOCAL mem); /* frees each result document */
};

/* Loads and frees through `calls` from the next hcs_* call on (NULL:
 * kernel32's own), forgetting whatever was loaded before.  Tests only,
 * while no other thread is inside hcs_*. */
void hcs_use_kernel32(const struct hcs_kernel32 *calls);

#endif
