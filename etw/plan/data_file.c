/* The DataFile naming rule (see data_file.h). */
#include "etw/plan/data_file.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/path_name.h"
#include "src/base/strutil.h"

#include <string.h>

int data_file_name(const char *given, char **out)
{
  size_t len = strlen(given);
  int add_etl = !str_ends_with_case(given, ".etl");
  char *name;
  if (len > 8 && str_ends_with_case(given, ".etl.zip")) {
    len = path_stem_len(given, ".zip"); /* "X.etl" of "X.etl.zip" */
    add_etl = 0;
  }
  name = etwcap_malloc(len + (add_etl ? 5 : 1));
  if (!name)
    return ETWCAP_E_NOMEM;
  memcpy(name, given, len);
  strcpy(name + len, add_etl ? ".etl" : "");
  *out = name;
  return 0;
}
