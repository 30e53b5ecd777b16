/* test_mkdir on POSIX (test_support.h). */
#include "tests/fakes/test_support.h"

#include <errno.h>
#include <sys/stat.h>

int test_mkdir(const char *path)
{
  return mkdir(path, 0777) == 0 || errno == EEXIST ? 0 : -1;
}
