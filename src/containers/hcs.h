/* The Host Compute Service's documents, as UTF-8 JSON: the compute systems
 * (HcsEnumerateComputeSystems) and one system's process list
 * (HcsGetComputeSystemProperties with {"PropertyTypes":["ProcessList"]}).
 * hcs_win32.c loads computecore.dll from System32 at run time, so
 * etwcap.exe starts where it is absent (before Windows 10 1809 / Server
 * 2019, Nano Server without the container feature); hcs_posix.c has none.
 * Errors come with `why`: what failed and what it means for the capture. */
#ifndef ETWCAP_HCS_H
#define ETWCAP_HCS_H

#include <stddef.h>

/* *json allocated (etwcap_free).  ETWCAP_E_UNSUPPORTED when there is no
 * HCS here, else the error HCS gave. */
int hcs_systems_json(char **json, char *why, size_t why_size);
int hcs_processes_json(const char *id, char **json, char *why, size_t why_size);

#endif
