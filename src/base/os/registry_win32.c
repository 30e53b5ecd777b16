/* registry.h with advapi32: HKEY_LOCAL_MACHINE, 64-bit view of the keys as
 * given (etwcap.exe is a 64-bit process, so "Software\\Wow6432Node\\..." is
 * written literally where TraceEvent's 64-bit writer puts it). */
#include "src/base/os/registry.h"

#include "src/base/os/compat_win32.h"

/* A 32-bit process's "Software" is redirected to Wow6432Node, so the
 * literal path above would land in Wow6432Node\Wow6432Node, where no .NET
 * reader looks ("Registry Redirector"; docs/win32-contract.md §6.3). */
#if !defined(_WIN64)
#error "registry_win32.c writes the 64-bit registry view: build etwcap as a 64-bit program"
#endif

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/utf16_win32.h"
#include "src/base/os/win32_error_win32.h"

#include <string.h>

static int open_key(const char *key, REGSAM access, HKEY *out)
{
  wchar_t *w = utf8_to_utf16(key);
  LONG code;
  if (!w)
    return ETWCAP_E_NOMEM;
  code = RegOpenKeyExW(HKEY_LOCAL_MACHINE, w, 0, access, out);
  etwcap_free(w);
  return win32_error((DWORD)code, ETWCAP_E_SYSTEM);
}

/* Opens `key` and converts the value's name: 0 with both (close the key,
 * free the name), or an error with neither. */
static int open_value(const char *key, const char *value, REGSAM access, HKEY *h, wchar_t **w)
{
  int rc = open_key(key, access, h);
  if (rc)
    return rc;
  if (!(*w = utf8_to_utf16(value))) {
    RegCloseKey(*h);
    return ETWCAP_E_NOMEM;
  }
  return 0;
}

/* Creates `key` as needed and sets one value of type `type`. */
static int set_value(const char *key, const char *value, DWORD type, const void *data,
                     size_t size)
{
  wchar_t *wk = utf8_to_utf16(key), *wv = utf8_to_utf16(value);
  HKEY h = NULL;
  LONG code = ERROR_NOT_ENOUGH_MEMORY;
  if (wk && wv) {
    code = RegCreateKeyExW(HKEY_LOCAL_MACHINE, wk, 0, NULL, 0, KEY_SET_VALUE, NULL, &h, NULL);
    if (code == ERROR_SUCCESS) {
      code = RegSetValueExW(h, wv, 0, type, (const BYTE *)data, (DWORD)size);
      RegCloseKey(h);
    }
  }
  etwcap_free(wk);
  etwcap_free(wv);
  return win32_error((DWORD)code, ETWCAP_E_SYSTEM);
}

static int set_binary(void *impl, const char *key, const char *value, const void *data,
                      size_t size)
{
  (void)impl;
  return set_value(key, value, REG_BINARY, data, size);
}

static int set_dword(void *impl, const char *key, const char *value, uint32_t data)
{
  DWORD d = data;
  (void)impl;
  return set_value(key, value, REG_DWORD, &d, sizeof(d));
}

static int set_expand_string(void *impl, const char *key, const char *value, const char *text)
{
  wchar_t *w = utf8_to_utf16(text);
  int rc;
  (void)impl;
  if (!w)
    return ETWCAP_E_NOMEM;
  rc = set_value(key, value, REG_EXPAND_SZ, w, (wcslen(w) + 1) * sizeof(wchar_t));
  etwcap_free(w);
  return rc;
}

static int get_dword(void *impl, const char *key, const char *value, uint32_t *out)
{
  HKEY h;
  DWORD type = 0, d = 0, size = sizeof(d);
  wchar_t *w;
  LONG code;
  int rc = open_value(key, value, KEY_QUERY_VALUE, &h, &w);
  (void)impl;
  if (rc)
    return rc;
  code = RegQueryValueExW(h, w, NULL, &type, (BYTE *)&d, &size);
  etwcap_free(w);
  RegCloseKey(h);
  if (code == ERROR_MORE_DATA || (code == ERROR_SUCCESS && (type != REG_DWORD || size != 4)))
    return ETWCAP_E_FORMAT;
  if (code != ERROR_SUCCESS)
    return win32_error((DWORD)code, ETWCAP_E_SYSTEM);
  *out = d;
  return 0;
}

/* Every subkey (kfn) or every value with its data (vfn) of `key`. */
static int walk(const char *key, registry_key_fn kfn, registry_value_fn vfn, void *ctx)
{
  HKEY h;
  DWORD i;
  int rc = open_key(key, kfn ? KEY_ENUMERATE_SUB_KEYS : KEY_QUERY_VALUE, &h);
  if (rc)
    return rc;
  for (i = 0; !rc; i++) {
    wchar_t name[256];
    unsigned char data[4096];
    DWORD len = 256, size = sizeof(data), type = 0;
    char *u;
    LONG code = kfn ? RegEnumKeyExW(h, i, name, &len, NULL, NULL, NULL, NULL)
                    : RegEnumValueW(h, i, name, &len, NULL, &type, data, &size);
    if (code == ERROR_NO_MORE_ITEMS)
      break;
    if (code == ERROR_MORE_DATA && !kfn)
      continue; /* a value larger than any etwcap writes: not ours */
    if (code != ERROR_SUCCESS) {
      rc = win32_error((DWORD)code, ETWCAP_E_SYSTEM);
      break;
    }
    if (!(u = utf16_to_utf8(name))) {
      rc = ETWCAP_E_NOMEM;
      break;
    }
    rc = kfn ? kfn(ctx, u) : vfn(ctx, u, data, type == REG_BINARY ? size : 0);
    etwcap_free(u);
  }
  RegCloseKey(h);
  return rc;
}

static int subkeys(void *impl, const char *key, registry_key_fn fn, void *ctx)
{
  (void)impl;
  return walk(key, fn, NULL, ctx);
}

static int values(void *impl, const char *key, registry_value_fn fn, void *ctx)
{
  (void)impl;
  return walk(key, NULL, fn, ctx);
}

static int delete_value(void *impl, const char *key, const char *value)
{
  HKEY h;
  wchar_t *w;
  LONG code;
  int rc = open_value(key, value, KEY_SET_VALUE, &h, &w);
  (void)impl;
  if (rc)
    return rc;
  code = RegDeleteValueW(h, w);
  etwcap_free(w);
  RegCloseKey(h);
  return win32_error((DWORD)code, ETWCAP_E_SYSTEM);
}

static int delete_key_if_empty(void *impl, const char *key)
{
  HKEY h;
  DWORD nkeys = 0, nvalues = 0;
  wchar_t *w;
  LONG code;
  int rc = open_key(key, KEY_QUERY_VALUE, &h);
  (void)impl;
  if (rc)
    return rc;
  code = RegQueryInfoKeyW(h, NULL, NULL, NULL, &nkeys, NULL, NULL, &nvalues, NULL, NULL, NULL,
                          NULL);
  RegCloseKey(h);
  if (code != ERROR_SUCCESS)
    return win32_error((DWORD)code, ETWCAP_E_SYSTEM);
  if (nkeys || nvalues)
    return 0;
  if (!(w = utf8_to_utf16(key)))
    return ETWCAP_E_NOMEM;
  code = RegDeleteKeyW(HKEY_LOCAL_MACHINE, w);
  etwcap_free(w);
  return win32_error((DWORD)code, ETWCAP_E_SYSTEM);
}

/* RegQueryValueExW does not promise a NUL: "the string may not have been
 * stored with the proper terminating null characters" (RegQueryValueExW,
 * remarks), so the buffer gets one past what was read. */
static int get_string(void *impl, const char *key, const char *value, char *out, size_t size)
{
  HKEY h;
  DWORD type = 0, bytes;
  wchar_t *w, text[1024];
  char *u;
  LONG code;
  int rc = open_value(key, value, KEY_QUERY_VALUE, &h, &w);
  (void)impl;
  if (rc)
    return rc;
  bytes = sizeof(text) - sizeof(wchar_t);
  code = RegQueryValueExW(h, w, NULL, &type, (BYTE *)text, &bytes);
  etwcap_free(w);
  RegCloseKey(h);
  if (code == ERROR_SUCCESS && type != REG_SZ && type != REG_EXPAND_SZ)
    return ETWCAP_E_FORMAT;
  if (code == ERROR_MORE_DATA)
    return ETWCAP_E_RANGE;
  if (code != ERROR_SUCCESS)
    return win32_error((DWORD)code, ETWCAP_E_SYSTEM);
  text[bytes / sizeof(wchar_t)] = 0;
  if (!(u = utf16_to_utf8(text)))
    return ETWCAP_E_NOMEM;
  rc = strlen(u) < size ? 0 : ETWCAP_E_RANGE;
  if (!rc)
    memcpy(out, u, strlen(u) + 1);
  etwcap_free(u);
  return rc;
}

static const struct registry_ops advapi_ops = { set_binary, subkeys, values, delete_value,
                                                delete_key_if_empty, get_dword, set_dword,
                                                set_expand_string, get_string };

void registry_system(struct registry *r)
{
  r->ops = &advapi_ops;
  r->impl = NULL;
}
