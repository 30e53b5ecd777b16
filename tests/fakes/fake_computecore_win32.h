/* A model of computecore.dll's calls that hcs_win32.c makes (hcs_win32.h's
 * table), for the Windows unit tests: scripted compute systems, each call
 * checked against Microsoft's HCS reference pages (rules and sources:
 * tests/fakes/README.md).  A breach is recorded as a violation. */
#ifndef ETWCAP_FAKE_COMPUTECORE_WIN32_H
#define ETWCAP_FAKE_COMPUTECORE_WIN32_H

#include <windows.h>

#include <stddef.h>

struct fake_computecore {
  const wchar_t *systems;        /* the enumeration's result document */
  const wchar_t *processes;      /* the properties' result document (any system) */
  const wchar_t *known_id;       /* the one Id HcsOpenComputeSystem opens */
  HRESULT enumerate_hr;          /* HcsEnumerateComputeSystems returns it (0: S_OK) */
  unsigned open_operations, open_systems; /* not closed yet */
  unsigned documents;            /* result documents handed out */
  unsigned violations;
  char last_violation[256];
};

extern struct fake_computecore fake_computecore;

void fake_computecore_install(void);
void fake_computecore_uninstall(void);

#endif
