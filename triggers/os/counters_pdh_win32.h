/* The pdh.dll entry points counters_pdh_win32.c calls, as a table (loaded
 * with LoadLibraryW/GetProcAddress: pdh is not on every Windows and must
 * not be a static import).  The Windows tests put a scripted PDH here.
 * Only *_win32.c files include this. */
#ifndef ETWCAP_COUNTERS_PDH_WIN32_H
#define ETWCAP_COUNTERS_PDH_WIN32_H

#include "src/base/os/compat_win32.h"

#include <pdh.h>
#include <pdhmsg.h>

#include "triggers/os/counters_pdh.h"

struct counters_pdh_api {
  PDH_STATUS(WINAPI *open_query)(LPCWSTR source, DWORD_PTR user, PDH_HQUERY *query);
  PDH_STATUS(WINAPI *add_english_counter)(PDH_HQUERY query, LPCWSTR path, DWORD_PTR user,
                                          PDH_HCOUNTER *counter);
  PDH_STATUS(WINAPI *collect)(PDH_HQUERY query);
  PDH_STATUS(WINAPI *get_array)(PDH_HCOUNTER counter, DWORD format, LPDWORD size,
                                LPDWORD count, PPDH_FMT_COUNTERVALUE_ITEM_W items);
  PDH_STATUS(WINAPI *close_query)(PDH_HQUERY query);
};

/* Replaces pdh.dll for every source opened from now on; NULL goes back to
 * loading pdh.dll.  For tests only. */
void counters_pdh_win32_set_api(const struct counters_pdh_api *api);

/* "\\Category(Instance)\\Counter" (no instance part when it is "") in
 * UTF-16, as PdhAddEnglishCounterW takes it; 0 or ETWCAP_E_RANGE/NOMEM. */
int counters_pdh_win32_path(const struct trigger_counter_spec *spec, wchar_t *out, size_t cap);

#endif
