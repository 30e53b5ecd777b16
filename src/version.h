/* The version printed by `etwcap version` and recorded in capture manifests. */
#ifndef ETWCAP_VERSION_H
#define ETWCAP_VERSION_H

#ifndef ETWCAP_VERSION
#define ETWCAP_VERSION "0.1.0"
#endif

/* Set by CMake: "linux-x86_64", "windows-x86_64". */
#ifndef ETWCAP_TARGET
#define ETWCAP_TARGET "unknown"
#endif

#endif
