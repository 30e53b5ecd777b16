/* computecore.dll's entry points as hcs_win32.c calls them (computecore.h's
 * prototypes: mingw-w64 has no such header), as a table a test may put in
 * place of the DLL (tests/fakes/fake_computecore_win32.c models their
 * documented contract under Wine, which has no computecore.dll).  Only
 * *_win32.c files include this. */
#ifndef ETWCAP_HCS_WIN32_H
#define ETWCAP_HCS_WIN32_H

#include <windows.h>

typedef void *hcs_operation;
typedef void *hcs_system;

struct hcs_api {
  hcs_operation(WINAPI *create_operation)(const void *context, void *callback);
  void(WINAPI *close_operation)(hcs_operation op);
  HRESULT(WINAPI *enumerate)(PCWSTR query, hcs_operation op);
  HRESULT(WINAPI *wait_result)(hcs_operation op, DWORD timeout_ms, PWSTR *result);
  HRESULT(WINAPI *open_system)(PCWSTR id, DWORD access, hcs_system *sys);
  void(WINAPI *close_system)(hcs_system sys);
  HRESULT(WINAPI *properties)(hcs_system sys, hcs_operation op, PCWSTR query);
};

/* Uses `api` instead of computecore.dll (NULL: the DLL again). */
void hcs_use_api(const struct hcs_api *api);

#endif
