/* File-system services with UTF-8 paths on every OS.  On Windows the paths
 * are converted to UTF-16 and the W functions are used, so non-ASCII names
 * and long paths work; POSIX passes them through.  Implemented by
 * os_file_posix.c and os_file_win32.c.  Errors are ETWCAP_E_* codes. */
#ifndef ETWCAP_OS_FILE_H
#define ETWCAP_OS_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* fopen with a UTF-8 path; binary modes only ("rb", "wb", "r+b", "ab"). */
FILE *os_fopen(const char *path, const char *mode);
/* What tells one file from another on a machine (POSIX: st_dev and st_ino;
 * Windows: the volume serial number and the file index), so that a file can
 * be told from one put under its name later. */
struct os_file_id {
  uint64_t volume, index_high, index_low;
};

/* Opens `path` for reading ("rb") only when it is a regular file: a FIFO,
 * device, socket or folder is refused (NULL, os_last_error ETWCAP_E_NOTFILE;
 * for a folder ETWCAP_E_ISDIR on POSIX, ETWCAP_E_ACCES on Windows) without
 * blocking, so a name taken from a trace or found in a folder cannot hang
 * the reader.  POSIX never opens a device (stat first); on Windows only a
 * disk file qualifies (GetFileType FILE_TYPE_DISK), and a pipe's server
 * cannot act as us.  Fills *id when id is not NULL. */
FILE *os_fopen_regular(const char *path, struct os_file_id *id);
/* Removes `path` only while it is still the file `id` describes:
 * ETWCAP_E_REPLACED (nothing removed) when another file has taken its name.
 * Windows checks and deletes through one handle; POSIX compares lstat's
 * identity and then unlinks: two system calls, between which a writer of
 * the folder could swap the file (so it is for folders only we write). */
int os_remove_same(const char *path, const struct os_file_id *id);
/* Fills *id with the identity of the file `path` names, links followed:
 * two names of one file (another spelling, a hard or symbolic link) give
 * equal ids.  0, ETWCAP_E_NOENT when nothing is there, or the OS error.
 * Opens nothing for reading or writing: a FIFO is not waited on. */
int os_path_id(const char *path, struct os_file_id *id);
/* 1 when `path` names a file on another machine (a UNC path, \\server\share
 * or \\?\UNC\..., or on Windows a drive letter mapped to a network share):
 * names taken from a trace are not opened there, so reading a trace never
 * makes SMB connections.  Always 0 for POSIX paths. */
int os_path_is_remote(const char *path);
/* Creates `path` for writing ("wb"), exclusively: NULL (os_last_error:
 * ETWCAP_E_EXIST) when anything is there, a symbolic link or junction
 * included, which is never followed.  Every file etwcap writes in a user's
 * folder is created so: a planted link cannot redirect the write. */
FILE *os_fcreate(const char *path);
/* Fills out (cap bytes) with `base` + "." + 16 random hex digits + ".tmp":
 * a temporary name beside `base` that another user cannot predict. */
int os_temp_name(const char *base, char *out, size_t cap);
/* 64-bit seek/tell on a FILE* from os_fopen. */
int os_fseek64(FILE *f, int64_t offset, int whence);
int64_t os_ftell64(FILE *f);

/* Atomically replaces `to` with `from` (same volume).  `to` must be a
 * regular file or nothing: a link, junction or folder there is refused
 * (ETWCAP_E_EXIST), never replaced or followed. */
int os_rename_replace(const char *from, const char *to);
int os_remove(const char *path);
/* Removes an empty folder. */
int os_remove_dir(const char *path);
/* `path` made absolute against the current folder (GetFullPathNameW; POSIX:
 * the current folder joined on): for a name another process, run from
 * elsewhere, will use.  0, ETWCAP_E_RANGE when `out` is too small, or the
 * OS error. */
int os_full_path(const char *path, char *out, size_t size);
/* 0 and *size, or ETWCAP_E_NOENT / ETWCAP_E_IO. */
int os_file_size(const char *path, int64_t *size);
int os_is_directory(const char *path);
/* Creates the folder `path` (its parent must exist); 0 also when a folder
 * is there already, ETWCAP_E_EXIST when something else is. */
int os_make_dir(const char *path);
/* 1 when `path` is a folder itself, not a link or junction to one. */
int os_is_plain_dir(const char *path);
/* Free bytes available to this user on the volume holding `path`. */
int os_free_disk_bytes(const char *path, uint64_t *bytes);
/* Makes a Windows-style path (backslashes) usable here: POSIX turns the
 * backslashes into slashes, Windows leaves it as it is.  In place. */
void os_native_path(char *path);
/* Maps an NT device path ("\Device\HarddiskVolume3\Windows\x.dll") to a
 * drive path ("C:\Windows\x.dll") through the running system's DOS device
 * table.  ETWCAP_E_NOENT when there is no mapping (always, off Windows). */
int os_nt_path_to_dos(const char *nt_path, char *out, size_t size);
/* Translates the last OS error (errno or GetLastError) to ETWCAP_E_*. */
int os_last_error(void);
/* Text of the last OS error for log lines ("No space left on device (errno 28)"). */
const char *os_last_error_text(char *buf, size_t size);

#endif
