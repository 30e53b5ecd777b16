/* The record `start` (and `collect`) leaves next to the data file, so that
 * `stop` — another process, maybe days later, maybe another user — knows
 * which sessions make up the capture and what their files are:
 * X.etl.etwcap-session.json, schema "etwcap-session/1" (README.md, "Live
 * collection").  Also the request file another process writes to ask a
 * running `collect` to stop or abort: X.etl.etwcap-request.
 *
 * Lifetime: session_record_read fills a caller-owned struct whose strings
 * are freed by session_record_release. */
#ifndef ETWCAP_SESSION_RECORD_H
#define ETWCAP_SESSION_RECORD_H

#include "etw/plan/plan.h"
#include "etw/session/controller.h"
#include "etw/session/heap_tracing_flag.h"

#include <stddef.h>
#include <stdint.h>

#define SESSION_RECORD_SCHEMA "etwcap-session/1"
#define SESSION_RECORD_SUFFIX ".etwcap-session.json"
#define SESSION_REQUEST_SUFFIX ".etwcap-request"
#define SESSION_RECORD_MAX_WARNINGS 16

struct session_record_session {
  char role[16];                     /* "kernel", "user" */
  char name[PLAN_NAME_MAX];
  char file[CONTROLLER_PATH_MAX];    /* "" for an in-memory session */
  uint32_t log_file_mode;
  uint32_t buffer_size_kb, minimum_buffers, maximum_buffers;
  uint32_t maximum_file_size_mb;
  uint32_t enable_flags;             /* kernel sessions */
  /* Only for writing: the plan's session, whose providers are listed as
   * the record's plan summary.  NULL when read back. */
  const struct plan_session *plan;
  /* Only for writing, beside plan: the EventSource session keyword bit
   * each provider was enabled with (0 none), COLLECTION_KEYWORD_PROVIDERS
   * of them; NULL when unknown. */
  const uint8_t *keyword_bits;
  size_t keyword_bit_count;
};

struct session_record {
  char mode[16];                     /* "start" or "collect" */
  unsigned long pid;                 /* the process that started it */
  int64_t pid_created;               /* its creation time (FILETIME), 0 unknown */
  char machine[256];
  char data_file[CONTROLLER_PATH_MAX];
  int64_t start_filetime;            /* UTC FILETIME */
  uint32_t profile_interval_100ns;   /* set machine-wide by start; 0 = untouched */
  struct heap_tracing_flag heap_flag; /* /OSHeapExe's TracingFlags to put back; exe "" none */
  struct session_record_session sessions[PLAN_MAX_SESSIONS];
  size_t session_count;
  char *warnings[SESSION_RECORD_MAX_WARNINGS]; /* features Windows refused */
  size_t warning_count;
  char *command_line;
  char *start_log;                   /* the log of `start`, for LogFile.txt */
  /* The host's containers when `start` ran (container_inventory.h's record
   * form, JSON text), for `stop`'s manifest; NULL: not taken. */
  char *containers_at_start;
  /* /NetworkCapture: netsh's traceFile while its capture runs ("" none),
   * and whether it is kept for Network Monitor; `stop` and `abort` run
   * 'netsh trace stop' for it (packet_capture.h). */
  char packet_capture_file[CONTROLLER_PATH_MAX];
  int packet_capture_netmon;
};

/* "X.etl" -> "X.etl.etwcap-session.json" (or the request file).  0 or
 * ETWCAP_E_RANGE. */
int session_record_path(const char *data_file, char *out, size_t size);
int session_request_path(const char *data_file, char *out, size_t size);

/* Writes the record (to PATH.tmp, then renamed over PATH, so a reader never
 * sees half of it).  0 or ETWCAP_E_IO / NOMEM. */
int session_record_write(const char *path, const struct session_record *r);
/* Reads a record.  ETWCAP_E_NOENT when there is none, ETWCAP_E_FORMAT when
 * it is not one (why says what is wrong). */
int session_record_read(const char *path, struct session_record *r, char *why, size_t why_size);
/* The same from the record's text (session_record_read reads the file and
 * calls this): 0, or an error with `why` saying what is wrong. */
int session_record_parse(const char *text, size_t len, struct session_record *r, char *why,
                         size_t why_size);
void session_record_release(struct session_record *r);
/* Adds a warning (copied); beyond the limit they are dropped. */
int session_record_warn(struct session_record *r, const char *text);

/* Asks a running collect to "stop" or "abort" (writes the request file);
 * reads and removes it (*request "" when there is none). */
int session_request_write(const char *path, const char *request);
int session_request_take(const char *path, char *request, size_t size);

/* This process's id and creation time; whether the recorded owner still
 * runs (a pid with another creation time is another process).  OS files:
 * session_record_win32.c, session_record_posix.c. */
void session_record_self(unsigned long *pid, int64_t *created);
int session_record_owner_alive(unsigned long pid, int64_t created);

#endif
