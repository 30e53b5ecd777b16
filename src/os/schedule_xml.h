/* The Task Scheduler task of `etwcap schedule create`, as the XML of the
 * Task Scheduler 1.2 schema (namespace
 * http://schemas.microsoft.com/windows/2004/02/mit/task), which schtasks
 * /Create /XML registers and /WhatIf prints.  Pure: the same text on every
 * OS. */
#ifndef ETWCAP_SCHEDULE_XML_H
#define ETWCAP_SCHEDULE_XML_H

#include <stddef.h>

struct schedule_task {
  const char *name;            /* the task's name under \etwcap\ */
  const char *exe;             /* etwcap.exe's full path */
  const char *encoding;        /* the declaration's: "UTF-16" for schtasks, "UTF-8" printed */
  const char *work_dir;        /* where a relative DataFile lands; NULL: the service's */
  char *const *abort_args;     /* arguments of the abort run before each start */
  size_t abort_arg_count;
  char *const *capture_args;   /* `collect` and its qualifiers */
  size_t capture_arg_count;
};

/* The XML (etwcap_free).  0 or ETWCAP_E_NOMEM.  Every string of `t` must
 * pass schedule_xml_text_ok. */
int schedule_task_xml(const struct schedule_task *t, char **xml);

/* 1 when `s` is valid UTF-8 that XML 1.0 can hold (escaped where needed):
 * no control characters but tab, no U+FFFE/U+FFFF.  A string that is not
 * cannot be put in the task at all, so the caller refuses it. */
int schedule_xml_text_ok(const char *s);

/* Appends `arg` to `b` quoted for a Windows command line (the rules
 * CommandLineToArgvW and the C runtime read back): as it is when it holds
 * no space, tab or quote, else in quotes with each quote and the
 * backslashes before it escaped. */
struct strbuf;
void schedule_append_arg(struct strbuf *b, const char *arg);

#endif
