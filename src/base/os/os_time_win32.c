/* os_time.h on Windows. */
#include <windows.h>

#include "src/base/os/os_time.h"

int64_t os_time_now_utc_filetime(void)
{
  FILETIME ft;
  GetSystemTimeAsFileTime(&ft);
  return (int64_t)(((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime);
}

uint64_t os_time_monotonic_ns(void)
{
  LARGE_INTEGER count, freq;
  QueryPerformanceCounter(&count);
  QueryPerformanceFrequency(&freq);
  /* Split to avoid overflow of count * 1e9 after ~10 days at 10 MHz. */
  return (uint64_t)(count.QuadPart / freq.QuadPart) * 1000000000u +
         (uint64_t)(count.QuadPart % freq.QuadPart) * 1000000000u / (uint64_t)freq.QuadPart;
}

void os_time_sleep_ms(unsigned ms)
{
  Sleep(ms);
}
