/* Logging for library code.  Modules never print: they call log_*() and the
 * program decides where lines go (console, LogFile.txt, a test's buffer) by
 * installing sinks.  A line is one complete message without a newline. */
#ifndef ETWCAP_LOG_H
#define ETWCAP_LOG_H

#include <stdarg.h>
#include <stdio.h>

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

/* Receives every line at or above the sink's level.  `ctx` is the pointer
 * given to log_add_sink. */
typedef void (*log_sink_fn)(void *ctx, enum log_level level, const char *line);

#define LOG_MAX_SINKS 4

/* Adds a sink; returns 0 or ETWCAP_E_RANGE when LOG_MAX_SINKS are in use. */
int log_add_sink(log_sink_fn fn, void *ctx, enum log_level min_level);
void log_remove_sink(log_sink_fn fn, void *ctx);
void log_remove_all_sinks(void);

#if defined(__MINGW_PRINTF_FORMAT) /* mingw with C99 printf: gnu_printf */
#define LOG_PRINTF(a, b) __attribute__((format(__MINGW_PRINTF_FORMAT, a, b)))
#elif defined(__GNUC__)
#define LOG_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define LOG_PRINTF(a, b)
#endif

void log_msg(enum log_level level, const char *fmt, ...) LOG_PRINTF(2, 3);
void log_vmsg(enum log_level level, const char *fmt, va_list ap);
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)

const char *log_level_name(enum log_level level);

/* Ready-made sinks.  log_stream_sink writes "etwcap: warning: ..." style lines
 * to the FILE* in ctx (the console); log_file_sink writes
 * "2026-11-22T17:02:56.123Z INFO  ..." lines to the FILE* in ctx and flushes
 * each line so an unattended capture's log survives a crash. */
void log_stream_sink(void *ctx, enum log_level level, const char *line);
void log_file_sink(void *ctx, enum log_level level, const char *line);

#endif
