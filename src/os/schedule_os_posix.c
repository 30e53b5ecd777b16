/* schedule_os.h off Windows: there is no Task Scheduler to register with;
 * `schedule create /WhatIf` still prints the task. */
#include "src/os/schedule_os.h"

#include "src/base/error.h"

#include <stdio.h>

static int needs_windows(char *why, unsigned why_size)
{
  snprintf(why, why_size, "registering a task needs Windows' Task Scheduler; /WhatIf prints "
                          "the task's XML here");
  return ETWCAP_E_NEEDS_WINDOWS;
}

int schedule_os_create(const char *name, const char *xml, char *why, unsigned why_size)
{
  (void)name, (void)xml;
  return needs_windows(why, why_size);
}

int schedule_os_delete(const char *name, char *why, unsigned why_size)
{
  (void)name;
  return needs_windows(why, why_size);
}

int schedule_os_list(char *why, unsigned why_size)
{
  return needs_windows(why, why_size);
}
