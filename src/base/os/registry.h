/* The registry seam: the few HKEY_LOCAL_MACHINE operations etwcap needs
 * (the EventSource provider-data hand-off, eventsource_registry.h; the
 * TracingFlags value of OS heap tracing, heap_tracing_flag.h; the
 * Application log's source, operator_log_source.h), as a
 * table of operations.  registry_win32.c implements it with advapi32's Reg*
 * functions (through a function table tests may replace); registry_posix.c
 * answers ETWCAP_E_NEEDS_WINDOWS; tests/fakes/fake_registry.c keeps keys in
 * memory.  Keys are paths under HKLM ("Software\\..."), names and values
 * UTF-8; data is bytes (REG_BINARY), a number (REG_DWORD) or text
 * (REG_EXPAND_SZ). */
#ifndef ETWCAP_REGISTRY_H
#define ETWCAP_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

/* Called per subkey name / per value; non-zero stops the walk and is
 * returned. */
typedef int (*registry_key_fn)(void *ctx, const char *name);
typedef int (*registry_value_fn)(void *ctx, const char *name, const unsigned char *data,
                                 size_t size);

struct registry_ops {
  /* Creates `key` (and its parents) as needed and sets `value` to `data`
   * as REG_BINARY. */
  int (*set_binary)(void *impl, const char *key, const char *value, const void *data,
                    size_t size);
  /* Every subkey name of `key`; ETWCAP_E_NOENT when `key` does not exist. */
  int (*subkeys)(void *impl, const char *key, registry_key_fn fn, void *ctx);
  /* Every value of `key` with its data; ETWCAP_E_NOENT when no such key.
   * Only REG_BINARY data is given (size 0 for other types: read those with
   * get_dword or get_string). */
  int (*values)(void *impl, const char *key, registry_value_fn fn, void *ctx);
  /* Deletes one value; ETWCAP_E_NOENT when it is not there. */
  int (*delete_value)(void *impl, const char *key, const char *value);
  /* Deletes `key` when it has neither values nor subkeys (else leaves it,
   * returning 0). */
  int (*delete_key_if_empty)(void *impl, const char *key);
  /* Reads a REG_DWORD value: ETWCAP_E_NOENT when the key or the value is
   * not there, ETWCAP_E_FORMAT when the value has another type. */
  int (*get_dword)(void *impl, const char *key, const char *value, uint32_t *out);
  /* Creates `key` (and its parents) as needed and sets `value` to `data`
   * as REG_DWORD. */
  int (*set_dword)(void *impl, const char *key, const char *value, uint32_t data);
  /* Creates `key` (and its parents) as needed and sets `value` to the
   * UTF-8 `text` as REG_EXPAND_SZ (UTF-16 with its NUL on Windows). */
  int (*set_expand_string)(void *impl, const char *key, const char *value, const char *text);
  /* Reads a REG_SZ or REG_EXPAND_SZ value as UTF-8, %variables% left as
   * they are: ETWCAP_E_NOENT when the key or the value is not there,
   * ETWCAP_E_FORMAT when it has another type, ETWCAP_E_RANGE when it does
   * not fit in `size` bytes. */
  int (*get_string)(void *impl, const char *key, const char *value, char *out, size_t size);
};

struct registry {
  const struct registry_ops *ops;
  void *impl;
};

/* This OS's registry (HKLM on Windows; elsewhere every operation returns
 * ETWCAP_E_NEEDS_WINDOWS).  Needs no release. */
void registry_system(struct registry *r);

#endif
