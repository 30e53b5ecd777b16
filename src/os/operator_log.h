/* Entries in the Windows Application log for the operators of a capture
 * that runs unattended (/EventLog): the monitoring a fleet already has
 * reads that log, so a fire or a problem reaches it without a new agent.
 * Source "etwcap"; the event ids are README's ("Week-long capture").  The
 * text is the entry's one insertion string; etwcap.exe's message table
 * (etwcap_messages.mc) makes each id exactly that string, once the source
 * is registered (operator_log_source.h). */
#ifndef ETWCAP_OPERATOR_LOG_H
#define ETWCAP_OPERATOR_LOG_H

enum operator_event {
  OPERATOR_CAPTURE_STARTED = 1000,  /* information */
  OPERATOR_TRIGGER_FIRED = 1001,    /* warning: what the capture waited for */
  OPERATOR_SNAPSHOT_WRITTEN = 1002, /* information */
  OPERATOR_SEGMENT_WRITTEN = 1003,  /* information */
  OPERATOR_SEGMENT_DELETED = 1004,  /* information: retention */
  OPERATOR_HEALTH_PROBLEM = 1005,   /* warning: events lost, a silent session, ... */
  OPERATOR_CAPTURE_ENDED = 1006     /* information */
};

/* Writes one entry (RegisterEventSourceW + ReportEventW), the type by id.
 * 0, or an ETWCAP_E_* (ETWCAP_E_NEEDS_WINDOWS off Windows). */
int operator_log_write(enum operator_event id, const char *text);

#endif
