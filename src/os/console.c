/* What both halves of the console seam share (libuv's uv-common.c
 * pattern): console_posix.c and console_win32.c hold only what differs. */
#include "src/os/console.h"

const char *console_signal_name(enum console_signal sig)
{
  switch (sig) {
  case CONSOLE_CTRL_C:
    return "Ctrl+C";
  case CONSOLE_CTRL_BREAK:
    return "Ctrl+Break";
  case CONSOLE_CLOSE:
    return "console close";
  case CONSOLE_LOGOFF:
    return "logoff";
  case CONSOLE_SHUTDOWN:
    return "shutdown";
  default:
    return "none";
  }
}
