/* The DataFile naming rule (see data_file.h). */
#include "etw/plan/data_file.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/strutil.h"

#include <string.h>

int data_file_name(const char *given, char **out)
{
  size_t len = strlen(given);
  int add_etl;
  char *name;
  if (len > 8 && str_ends_with_case(given, ".etl.zip"))
    len -= 4;
  add_etl = !(len >= 4 && str_ncaseeq(given + len - 4, ".etl", 4));
  name = etwcap_malloc(len + (add_etl ? 5 : 1));
  if (!name)
    return ETWCAP_E_NOMEM;
  memcpy(name, given, len);
  strcpy(name + len, add_etl ? ".etl" : "");
  *out = name;
  return 0;
}
