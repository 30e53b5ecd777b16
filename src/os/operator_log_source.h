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

/* Writes the key: EventMessageFile = exe_path (REG_EXPAND_SZ),
 * TypesSupported.  0, or the registry's error. */
int operator_log_source_register(const struct registry *r, const char *exe_path);

/* 1 when the key names a message file, else 0. */
int operator_log_source_registered(const struct registry *r);

/* For /EventLog at the start of a capture: registers the source when the
 * process is elevated and knows its own path (`exe_path` non-NULL);
 * otherwise, or when that fails, and no earlier registration is there,
 * logs why Event Viewer will show the entries without their text
 * formatting.  Never fails the capture. */
void operator_log_source_prepare(const struct registry *r, int elevated, const char *exe_path);

#endif
