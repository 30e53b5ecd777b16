/* test_mkdir on Windows (test_support.h); test paths are ASCII. */
#include "tests/fakes/test_support.h"

#include <windows.h>

int test_mkdir(const char *path)
{
  return CreateDirectoryA(path, NULL) || GetLastError() == ERROR_ALREADY_EXISTS ? 0 : -1;
}
