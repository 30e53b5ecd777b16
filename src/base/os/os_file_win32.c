/* os_file.h on Windows: UTF-8 paths converted to UTF-16 for the W APIs. */
#define _CRT_RAND_S /* rand_s */
#include <windows.h>

#include "src/base/os/os_file.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/utf16_win32.h"
#include "src/base/os/win32_error_win32.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* The code of this thread's last failure, as errno is on POSIX: per thread,
 * so a worker's failure never reads as another thread's. */
static _Thread_local DWORD last_win32_error;

static int translate(DWORD e)
{
  last_win32_error = e;
  return win32_error(e, ETWCAP_E_IO);
}

/* The C runtime reports through errno; map the common values to Win32 codes
 * so one translation serves both. */
static DWORD errno_to_win32(int e)
{
  switch (e) {
  case ENOENT:
    return ERROR_FILE_NOT_FOUND;
  case EEXIST:
    return ERROR_FILE_EXISTS;
  case ENOSPC:
    return ERROR_DISK_FULL;
  case EACCES:
    return ERROR_ACCESS_DENIED;
  case ENOMEM:
    return ERROR_NOT_ENOUGH_MEMORY;
  default:
    return ERROR_GEN_FAILURE;
  }
}

int os_last_error(void)
{
  return translate(last_win32_error);
}

const char *os_last_error_text(char *buf, size_t size)
{
  DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
                           last_win32_error, 0, buf, (DWORD)size, NULL);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == '.'))
    buf[--n] = '\0';
  if (n == 0)
    snprintf(buf, size, "Windows error %lu", (unsigned long)last_win32_error);
  else
    snprintf(buf + n, size - n, " (Win32 error %lu)", (unsigned long)last_win32_error);
  return buf;
}

/* Every stream is opened with 'N' (_O_NOINHERIT, fopen's "Specifies that
 * the file isn't inherited by child processes"): the tools etwcap starts
 * with inherited handles (netsh, ngen, run's command, /StopCommand) must
 * not hold its log or its outputs open. */
FILE *os_fopen(const char *path, const char *mode)
{
  char no_inherit[8];
  wchar_t *wpath = utf8_to_utf16(path), *wmode;
  FILE *f = NULL;
  snprintf(no_inherit, sizeof(no_inherit), "%.6sN", mode);
  wmode = utf8_to_utf16(no_inherit);
  if (wpath && wmode) {
    f = _wfopen(wpath, wmode);
    if (!f)
      last_win32_error = errno_to_win32(errno);
  } else {
    last_win32_error = ERROR_NOT_ENOUGH_MEMORY;
  }
  etwcap_free(wpath);
  etwcap_free(wmode);
  return f;
}

/* Flags for every CreateFileW here: a name may be a pipe, and a pipe's
 * server must not act as us (SECURITY_SQOS_PRESENT with
 * SECURITY_IDENTIFICATION: it may identify the client, never impersonate
 * it; ImpersonateNamedPipeClient's page). */
#define OPEN_FLAGS (SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION)

/* What names the file of handle h: FILE_ID_INFO's 64-bit volume serial and
 * 128-bit file id where the file system has one (ReFS's 64-bit index is not
 * unique; BY_HANDLE_FILE_INFORMATION's page), else the volume serial and
 * 64-bit index of *info. */
static void identity_of(HANDLE h, const BY_HANDLE_FILE_INFORMATION *info, struct os_file_id *id)
{
  FILE_ID_INFO fid;
  uint64_t high = 0, low = 0;
  if (GetFileInformationByHandleEx(h, FileIdInfo, &fid, sizeof(fid))) {
    memcpy(&high, fid.FileId.Identifier, 8);
    memcpy(&low, fid.FileId.Identifier + 8, 8);
  }
  if (high || low) {
    id->volume = fid.VolumeSerialNumber;
    id->index_high = high;
    id->index_low = low;
  } else {
    id->volume = info->dwVolumeSerialNumber;
    id->index_high = info->nFileIndexHigh;
    id->index_low = info->nFileIndexLow;
  }
}

/* A C stream on handle h (which it then owns); NULL, with h closed, when the
 * C runtime has no room for one. */
static FILE *stream_of(HANDLE h, int access, const char *mode)
{
  int fd = _open_osfhandle((intptr_t)h, access | _O_BINARY);
  FILE *f = fd >= 0 ? _fdopen(fd, mode) : NULL;
  if (!f) {
    last_win32_error = ERROR_NOT_ENOUGH_MEMORY;
    if (fd >= 0)
      _close(fd);
    else
      CloseHandle(h);
  }
  return f;
}

FILE *os_fopen_regular(const char *path, struct os_file_id *id)
{
  wchar_t *w = utf8_to_utf16(path);
  BY_HANDLE_FILE_INFORMATION info;
  HANDLE h;
  FILE *f;
  if (!w) {
    last_win32_error = ERROR_NOT_ENOUGH_MEMORY;
    return NULL;
  }
  /* The sharing _wfopen's "rb" grants; a handle that is not inherited. */
  h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                  FILE_ATTRIBUTE_NORMAL | OPEN_FLAGS, NULL);
  etwcap_free(w);
  if (h == INVALID_HANDLE_VALUE) {
    last_win32_error = GetLastError();
    return NULL;
  }
  /* A pipe, console or other device is FILE_TYPE_PIPE or FILE_TYPE_CHAR
   * (GetFileType's page): reading one could block for ever. */
  if (GetFileType(h) != FILE_TYPE_DISK || !GetFileInformationByHandle(h, &info) ||
      (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
    CloseHandle(h);
    last_win32_error = ERROR_BAD_FILE_TYPE;
    return NULL;
  }
  if (!(f = stream_of(h, _O_RDONLY, "rb")))
    return NULL;
  if (id)
    identity_of(h, &info, id);
  return f;
}

int os_remove_same(const char *path, const struct os_file_id *id)
{
  wchar_t *w = utf8_to_utf16(path);
  BY_HANDLE_FILE_INFORMATION info;
  FILE_DISPOSITION_INFO dispose = { TRUE };
  struct os_file_id now;
  HANDLE h;
  int rc;
  if (!w)
    return ETWCAP_E_NOMEM;
  /* The name's file itself (a link is not followed), checked and deleted
   * through one handle: no other file can take the name in between (one
   * may rename it away meanwhile; then it goes under its new name). */
  h = CreateFileW(w, DELETE | FILE_READ_ATTRIBUTES,
                  FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                  FILE_FLAG_OPEN_REPARSE_POINT | OPEN_FLAGS, NULL);
  etwcap_free(w);
  if (h == INVALID_HANDLE_VALUE)
    return translate(GetLastError());
  if (!GetFileInformationByHandle(h, &info)) {
    rc = translate(GetLastError());
  } else {
    identity_of(h, &info, &now);
    if (now.volume != id->volume || now.index_high != id->index_high ||
        now.index_low != id->index_low || (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT))
      rc = ETWCAP_E_REPLACED;
    else
      rc = 0;
  }
  if (!rc)
    rc = SetFileInformationByHandle(h, FileDispositionInfo, &dispose, sizeof(dispose))
           ? 0
           : translate(GetLastError());
  CloseHandle(h);
  return rc;
}

int os_path_id(const char *path, struct os_file_id *id)
{
  wchar_t *w = utf8_to_utf16(path);
  BY_HANDLE_FILE_INFORMATION info;
  HANDLE h;
  int rc = 0;
  if (!w)
    return ETWCAP_E_NOMEM;
  /* No data access and every sharing mode: this opens beside any handle,
   * ours included.  BACKUP_SEMANTICS lets a folder be opened too; a pipe
   * or device is opened without waiting (CreateFileW's page), though a
   * pipe's server sees a client connect. */
  h = CreateFileW(w, FILE_READ_ATTRIBUTES,
                  FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                  FILE_FLAG_BACKUP_SEMANTICS | OPEN_FLAGS, NULL);
  etwcap_free(w);
  if (h == INVALID_HANDLE_VALUE)
    return translate(GetLastError());
  if (!GetFileInformationByHandle(h, &info))
    rc = translate(GetLastError());
  else
    identity_of(h, &info, id);
  CloseHandle(h);
  return rc;
}

static int is_separator(char c)
{
  return c == '\\' || c == '/';
}

static int is_drive_letter(const char *p)
{
  return ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':';
}

int os_path_is_remote(const char *path)
{
  wchar_t root[4] = { 0, L':', L'\\', 0 };
  /* \\server\share, \\?\UNC\server\share, \\.\device and \??\ (which passes
   * an NT object name straight through: \??\UNC\..., a pipe) are not local
   * files; \\?\C:\... is (the long-path form of a drive path). */
  if (is_separator(path[0]) && path[1] == '?' && path[2] == '?' && is_separator(path[3]))
    return 1;
  if (is_separator(path[0]) && is_separator(path[1])) {
    if (!(path[2] == '?' && is_separator(path[3]) && is_drive_letter(path + 4)))
      return 1;
    path += 4;
  }
  if (!is_drive_letter(path))
    return 0;
  root[0] = (wchar_t)path[0];
  return GetDriveTypeW(root) == DRIVE_REMOTE;
}

FILE *os_fcreate(const char *path)
{
  wchar_t *w = utf8_to_utf16(path);
  HANDLE h;
  if (!w) {
    last_win32_error = ERROR_NOT_ENOUGH_MEMORY;
    return NULL;
  }
  /* CREATE_NEW fails on anything already there, a link included;
   * FILE_FLAG_OPEN_REPARSE_POINT keeps it from following one. */
  h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ, NULL, CREATE_NEW,
                  FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT | OPEN_FLAGS, NULL);
  etwcap_free(w);
  if (h == INVALID_HANDLE_VALUE) {
    last_win32_error = GetLastError();
    return NULL;
  }
  return stream_of(h, _O_WRONLY, "wb");
}

int os_temp_name(const char *base, char *out, size_t cap)
{
  unsigned int r[2];
  int n;
  /* rand_s draws from the system's cryptographic generator (RtlGenRandom). */
  if (rand_s(&r[0]) != 0 || rand_s(&r[1]) != 0)
    return ETWCAP_E_SYSTEM;
  n = snprintf(out, cap, "%s.%08x%08x.tmp", base, r[0], r[1]);
  return n < 0 || (size_t)n >= cap ? ETWCAP_E_RANGE : 0;
}

int os_fseek64(FILE *f, int64_t offset, int whence)
{
  if (_fseeki64(f, offset, whence) == 0)
    return 0;
  return translate(errno_to_win32(errno));
}

int64_t os_ftell64(FILE *f)
{
  return _ftelli64(f);
}

int os_rename_replace(const char *from, const char *to)
{
  wchar_t *wfrom = utf8_to_utf16(from), *wto = utf8_to_utf16(to);
  int rc = ETWCAP_E_NOMEM;
  DWORD attributes = wto ? GetFileAttributesW(wto) : INVALID_FILE_ATTRIBUTES;
  if (attributes != INVALID_FILE_ATTRIBUTES &&
      (attributes & (FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DIRECTORY)))
    rc = ETWCAP_E_EXIST; /* only a regular file is replaced */
  else if (wfrom && wto)
    rc = MoveFileExW(wfrom, wto, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)
             ? 0
             : translate(GetLastError());
  etwcap_free(wfrom);
  etwcap_free(wto);
  return rc;
}

int os_remove(const char *path)
{
  wchar_t *w = utf8_to_utf16(path);
  int rc;
  if (!w)
    return ETWCAP_E_NOMEM;
  rc = DeleteFileW(w) ? 0 : translate(GetLastError());
  etwcap_free(w);
  return rc;
}

int os_remove_dir(const char *path)
{
  wchar_t *w = utf8_to_utf16(path);
  int rc;
  if (!w)
    return ETWCAP_E_NOMEM;
  rc = RemoveDirectoryW(w) ? 0 : translate(GetLastError());
  etwcap_free(w);
  return rc;
}

int os_full_path(const char *path, char *out, size_t size)
{
  wchar_t *w = utf8_to_utf16(path), full[32768];
  char *utf8;
  DWORD n;
  int rc = 0;
  if (!w)
    return ETWCAP_E_NOMEM;
  n = GetFullPathNameW(w, (DWORD)(sizeof(full) / sizeof(full[0])), full, NULL);
  etwcap_free(w);
  if (n == 0)
    return translate(GetLastError());
  if (n >= sizeof(full) / sizeof(full[0]))
    return ETWCAP_E_RANGE;
  if (!(utf8 = utf16_to_utf8(full)))
    return ETWCAP_E_NOMEM;
  if ((size_t)snprintf(out, size, "%s", utf8) >= size)
    rc = ETWCAP_E_RANGE;
  etwcap_free(utf8);
  return rc;
}

int os_file_size(const char *path, int64_t *size)
{
  WIN32_FILE_ATTRIBUTE_DATA data;
  wchar_t *w = utf8_to_utf16(path);
  int rc;
  if (!w)
    return ETWCAP_E_NOMEM;
  if (GetFileAttributesExW(w, GetFileExInfoStandard, &data)) {
    *size = (int64_t)(((uint64_t)data.nFileSizeHigh << 32) | data.nFileSizeLow);
    rc = 0;
  } else {
    rc = translate(GetLastError());
  }
  etwcap_free(w);
  return rc;
}

int os_make_dir(const char *path)
{
  wchar_t *w = utf8_to_utf16(path);
  int rc = 0;
  if (!w)
    return ETWCAP_E_NOMEM;
  if (!CreateDirectoryW(w, NULL)) {
    DWORD code = GetLastError();
    if (code == ERROR_ALREADY_EXISTS)
      rc = os_is_directory(path) ? 0 : ETWCAP_E_EXIST;
    else
      rc = translate(code);
  }
  etwcap_free(w);
  return rc;
}

/* The path's attributes, INVALID_FILE_ATTRIBUTES when it is not there. */
static DWORD attributes(const char *path)
{
  wchar_t *w = utf8_to_utf16(path);
  DWORD attr;
  if (!w)
    return INVALID_FILE_ATTRIBUTES;
  attr = GetFileAttributesW(w);
  etwcap_free(w);
  return attr;
}

int os_is_directory(const char *path)
{
  DWORD attr = attributes(path);
  return attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY);
}

int os_is_plain_dir(const char *path)
{
  DWORD attr = attributes(path);
  return attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY) &&
         !(attr & FILE_ATTRIBUTE_REPARSE_POINT);
}

int os_free_disk_bytes(const char *path, uint64_t *bytes)
{
  ULARGE_INTEGER avail;
  wchar_t *w = utf8_to_utf16(path);
  int rc;
  if (!w)
    return ETWCAP_E_NOMEM;
  rc = GetDiskFreeSpaceExW(w, &avail, NULL, NULL) ? 0 : translate(GetLastError());
  if (rc == 0)
    *bytes = avail.QuadPart;
  etwcap_free(w);
  return rc;
}

void os_native_path(char *path)
{
  (void)path;
}

int os_nt_path_to_dos(const char *nt_path, char *out, size_t size)
{
  wchar_t drive[3] = L"A:", target[1024];
  char *device;
  size_t len;
  /* Ask each drive letter which device it names; the longest match wins
   * (\Device\HarddiskVolume1 must not match \Device\HarddiskVolume10). */
  for (; drive[0] <= L'Z'; drive[0]++) {
    if (!QueryDosDeviceW(drive, target, sizeof(target) / sizeof(target[0])))
      continue;
    device = utf16_to_utf8(target);
    if (!device)
      return ETWCAP_E_NOMEM;
    len = strlen(device);
    if (_strnicmp(nt_path, device, len) == 0 && (nt_path[len] == '\\' || !nt_path[len])) {
      snprintf(out, size, "%c:%s", (char)drive[0], nt_path + len);
      etwcap_free(device);
      return 0;
    }
    etwcap_free(device);
  }
  return ETWCAP_E_NOENT;
}
