/* Lookup functions generated from the ETWCAP_ERRORS list in error.h. */
#include "src/base/error.h"

const char *etwcap_strerror(int err)
{
  switch (err) {
  case ETWCAP_OK:
    return "success";
#define ETWCAP_ERROR_MSG(name, value, exit_code, msg) \
  case value:                                         \
    return msg;
    ETWCAP_ERRORS(ETWCAP_ERROR_MSG)
#undef ETWCAP_ERROR_MSG
  }
  return "unknown error";
}

const char *etwcap_err_name(int err)
{
  switch (err) {
  case ETWCAP_OK:
    return "OK";
#define ETWCAP_ERROR_NAME(name, value, exit_code, msg) \
  case value:                                          \
    return #name;
    ETWCAP_ERRORS(ETWCAP_ERROR_NAME)
#undef ETWCAP_ERROR_NAME
  }
  return "UNKNOWN";
}

int etwcap_exit_code(int err)
{
  switch (err) {
  case ETWCAP_OK:
    return 0;
#define ETWCAP_ERROR_EXIT(name, value, exit_code, msg) \
  case value:                                          \
    return exit_code;
    ETWCAP_ERRORS(ETWCAP_ERROR_EXIT)
#undef ETWCAP_ERROR_EXIT
  }
  return 1;
}
