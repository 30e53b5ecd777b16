/* The Application log's source "etwcap" (operator_log.h), registered so
 * that Event Viewer shows each entry's text cleanly: the key Event Logging
 * reads for a source ("Event Sources"; "Reporting an Event"), with
 * EventMessageFile naming etwcap.exe, whose message table
 * (src/os/etwcap_messages.mc) holds each id as its one insertion string,
 * and TypesSupported the types etwcap writes.  Without the key an entry is
 * still written; Event Viewer then puts "The description for Event ID ...
 * cannot be found" before its text.  Portable, over the registry seam. */
#ifndef ETWCAP_OPERATOR_LOG_SOURCE_H
#define ETWCAP_OPERATOR_LOG_SOURCE_H

#include "src/base/os/registry.h"

#include <stddef.h>

#define OPERATOR_LOG_SOURCE_KEY \
  "SYSTEM\\CurrentControlSet\\Services\\EventLog\\Application\\etwcap"
/* EVENTLOG_ERROR_TYPE | EVENTLOG_WARNING_TYPE | EVENTLOG_INFORMATION_TYPE */
#define OPERATOR_LOG_TYPES_SUPPORTED 7u
/* Room for the message file's path as read back (UTF-8). */
#define OPERATOR_LOG_PATH_MAX 4096

/* Writes the key: EventMessageFile = exe_path (REG_EXPAND_SZ),
 * TypesSupported.  0, or the registry's error. */
int operator_log_source_register(const struct registry *r, const char *exe_path);

/* 1 when the key names a message file that is still there (or one with
 * %variables%, which etwcap does not expand), else 0. */
int operator_log_source_registered(const struct registry *r);

/* For `schedule create`: registers `exe_path` (the copy the task runs)
 * whatever the key named, and logs the file it replaces when that was
 * another.  0, or the registry's error. */
int operator_log_source_take(const struct registry *r, const char *exe_path);

/* For /EventLog at the start of a capture.  A registration whose file is
 * still there is left as it is, even when it names another etwcap.exe (this
 * one may run from a folder that is later deleted), and the log says which
 * file it keeps.  With no key, or one naming a file that no longer exists,
 * the source is registered with `exe_path` when the process is elevated and
 * knows its own path (non-NULL); otherwise, or when that fails, the log
 * says why Event Viewer will show the entries without their text
 * formatting.  Never fails the capture. */
void operator_log_source_prepare(const struct registry *r, int elevated, const char *exe_path);

#endif
