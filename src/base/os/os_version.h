/* The Windows version the plan is made for.  On Windows it is the running
 * one (os_version_win32.c asks ntdll's RtlGetVersion, which, unlike
 * GetVersionEx, does not depend on the exe's manifest); elsewhere there is
 * none and `plan` assumes a current Windows Server. */
#ifndef ETWCAP_OS_VERSION_H
#define ETWCAP_OS_VERSION_H

struct os_version {
  unsigned major, minor, build;
};

/* Windows Server 2022, what `plan` assumes off Windows. */
#define OS_VERSION_DEFAULT_MAJOR 10
#define OS_VERSION_DEFAULT_MINOR 0
#define OS_VERSION_DEFAULT_BUILD 20348

/* Returns 0 and the running Windows version, or ETWCAP_E_UNSUPPORTED when
 * not running on Windows (or the version cannot be read). */
int os_windows_version(struct os_version *out);

/* Parses "6.1", "10.0.17763" (build optional, 0 when absent).  0 or -1. */
int os_version_parse(const char *text, struct os_version *out);
/* Compares a version with major.minor.build: <0, 0, >0. */
int os_version_cmp(const struct os_version *v, unsigned major, unsigned minor, unsigned build);

#endif
