/* os_proc.h on POSIX: argv is already UTF-8 on the systems we support. */
#define _POSIX_C_SOURCE 200809L
#include "src/os/os_proc.h"

#include "src/base/error.h"

#include <stdio.h>
#include <sys/utsname.h>
#include <unistd.h>

void os_process_setup(void)
{
}

int os_get_utf8_argv(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  return 0;
}

void os_free_utf8_argv(int argc, char **argv)
{
  (void)argc;
  (void)argv;
}

int os_is_elevated(void)
{
  return geteuid() == 0;
}

int os_is_windows(void)
{
  return 0;
}

const char *os_describe(char *buf, unsigned size)
{
  struct utsname u;
  if (uname(&u) == 0)
    snprintf(buf, size, "%s %s %s", u.sysname, u.release, u.machine);
  else
    snprintf(buf, size, "POSIX");
  return buf;
}

const char *os_hostname(char *buf, unsigned size)
{
  if (gethostname(buf, size) != 0 || !buf[0])
    snprintf(buf, size, "unknown");
  buf[size - 1] = '\0';
  return buf;
}

int os_stderr_is_terminal(void)
{
  return isatty(STDERR_FILENO);
}

int os_exe_path(char *buf, unsigned size)
{
  ssize_t n = readlink("/proc/self/exe", buf, size ? size - 1 : 0);
  if (n < 0)
    return ETWCAP_E_NOENT;
  buf[n] = '\0';
  return (size_t)n + 1 < size ? 0 : ETWCAP_E_RANGE;
}

int os_current_dir(char *buf, unsigned size)
{
  return getcwd(buf, size) ? 0 : ETWCAP_E_RANGE;
}
