/* The one list of etwcap's errors: a negative code, a stable name, a message
 * and the process exit code it maps to.  Library code returns these codes;
 * only the CLI turns them into text and exit codes.  The list is an X-macro
 * so the code, the name table and the README's exit-code table cannot drift. */
#ifndef ETWCAP_ERROR_H
#define ETWCAP_ERROR_H

/* X(NAME, value, exit code, message) */
#define ETWCAP_ERRORS(X)                                                        \
  X(USAGE,       -1, 2, "invalid command line")                                 \
  X(NOMEM,       -2, 1, "out of memory")                                        \
  X(IO,          -3, 6, "input/output error")                                   \
  X(NOENT,       -4, 6, "no such file or directory")                            \
  X(EXIST,       -5, 6, "file already exists")                                  \
  X(NOSPC,       -6, 6, "not enough disk space")                                \
  X(ACCES,       -7, 3, "access denied (run from an elevated prompt)")          \
  X(FORMAT,      -8, 5, "not a valid trace or archive")                         \
  X(TRUNCATED,   -9, 5, "input ends early")                                     \
  X(CORRUPT,    -10, 5, "input is corrupted")                                   \
  X(UNSUPPORTED,-11, 4, "not supported")                                        \
  X(NEEDS_WINDOWS,-12, 4, "this command needs Windows")                         \
  X(SESSION_EXISTS,-13, 7, "a trace session with that name is already running") \
  X(NO_SESSION, -14, 7, "no such trace session")                                \
  X(SYSTEM,     -15, 1, "operating system call failed")                         \
  X(CANCELLED,  -16, 8, "cancelled")                                            \
  X(TIMEOUT,    -17, 1, "timed out")                                            \
  X(RANGE,      -18, 2, "value out of range")                                   \
  X(NOT_FIRED,  -19, 9, "no trigger fired")                                     \
  X(INTERNAL,   -20, 1, "internal error")                                      \
  X(SESSION_LIMIT,-21, 7, "no free trace session slot (too many sessions)")     \
  X(DENIED,     -22, 6, "permission denied")                                    \
  X(NAMETOOLONG,-23, 6, "name too long")                                        \
  X(ISDIR,      -24, 6, "is a folder, not a file")                              \
  X(NOTFILE,    -25, 6, "not a regular file (a pipe, device or link)")          \
  X(REPLACED,   -26, 6, "another file has taken its name")

enum etwcap_error {
  ETWCAP_OK = 0,
#define ETWCAP_ERROR_ENUM(name, value, exit_code, msg) ETWCAP_E_##name = value,
  ETWCAP_ERRORS(ETWCAP_ERROR_ENUM)
#undef ETWCAP_ERROR_ENUM
};

/* "out of memory" for ETWCAP_E_NOMEM; "unknown error" for anything else. */
const char *etwcap_strerror(int err);
/* "NOMEM" for ETWCAP_E_NOMEM; "OK" for 0; "UNKNOWN" otherwise. */
const char *etwcap_err_name(int err);
/* The process exit code documented in README.md for an error (0 for OK). */
int etwcap_exit_code(int err);

#endif
