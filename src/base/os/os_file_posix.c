/* os_file.h on POSIX. */
#define _FILE_OFFSET_BITS 64
#define _DEFAULT_SOURCE 1 /* O_NOFOLLOW, getrandom */
#define _POSIX_C_SOURCE 200809L
#include "src/base/os/os_file.h"

#include "src/base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

static int translate(int e)
{
  switch (e) {
  case 0:
    return 0;
  case ENOENT:
  case ENOTDIR:
    return ETWCAP_E_NOENT;
  case EEXIST:
    return ETWCAP_E_EXIST;
  case ENOSPC:
  case EDQUOT:
  case EFBIG:
    return ETWCAP_E_NOSPC;
  case EACCES:
  case EPERM:
  case EROFS:
    return ETWCAP_E_ACCES;
  case ENOMEM:
    return ETWCAP_E_NOMEM;
  case ENAMETOOLONG:
    return ETWCAP_E_NAMETOOLONG;
  case EISDIR:
    return ETWCAP_E_ISDIR;
  case ENODEV:
  case ENXIO:
  case ELOOP:
    return ETWCAP_E_NOTFILE;
  default:
    return ETWCAP_E_IO;
  }
}

int os_last_error(void)
{
  return translate(errno);
}

const char *os_last_error_text(char *buf, size_t size)
{
  int e = errno;
  snprintf(buf, size, "%s (errno %d)", strerror(e), e);
  return buf;
}

FILE *os_fopen(const char *path, const char *mode)
{
  return fopen(path, mode);
}

static void identity_of(const struct stat *st, struct os_file_id *id)
{
  id->volume = (uint64_t)st->st_dev;
  id->index_high = 0;
  id->index_low = (uint64_t)st->st_ino;
}

FILE *os_fopen_regular(const char *path, struct os_file_id *id)
{
  struct stat st;
  FILE *f;
  int fd, e, flags;
  /* A device is never opened: its driver's open may act (a watchdog arms,
   * a tape rewinds).  stat first; the fstat below checks the file opened. */
  if (stat(path, &st) != 0)
    return NULL;
  if (!S_ISREG(st.st_mode)) {
    errno = S_ISDIR(st.st_mode) ? EISDIR : ENODEV;
    return NULL;
  }
  /* O_NONBLOCK: opening a FIFO put there since waits for a writer
   * otherwise.  O_NOCTTY: a terminal device never becomes ours. */
  fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  e = fstat(fd, &st) != 0 ? errno : S_ISREG(st.st_mode) ? 0 : ENODEV;
  if (e) {
    close(fd);
    errno = e;
    return NULL;
  }
  /* A regular file never blocks; clear the flag so reads behave as usual. */
  if ((flags = fcntl(fd, F_GETFL)) == -1 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ||
      !(f = fdopen(fd, "rb"))) {
    e = errno;
    close(fd);
    errno = e;
    return NULL;
  }
  if (id)
    identity_of(&st, id);
  return f;
}

int os_remove_same(const char *path, const struct os_file_id *id)
{
  struct stat st;
  struct os_file_id now;
  if (lstat(path, &st) != 0)
    return translate(errno);
  identity_of(&st, &now);
  if (now.volume != id->volume || now.index_low != id->index_low || !S_ISREG(st.st_mode))
    return ETWCAP_E_REPLACED;
  return unlink(path) == 0 ? 0 : translate(errno);
}

int os_path_id(const char *path, struct os_file_id *id)
{
  struct stat st;
  if (stat(path, &st) != 0)
    return translate(errno);
  identity_of(&st, id);
  return 0;
}

int os_path_is_remote(const char *path)
{
  (void)path;
  return 0; /* a POSIX path is local or a mount the administrator made */
}

FILE *os_fcreate(const char *path)
{
  FILE *f;
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0)
    return NULL;
  f = fdopen(fd, "wb");
  if (!f) {
    int e = errno;
    close(fd);
    errno = e;
  }
  return f;
}

int os_temp_name(const char *base, char *out, size_t cap)
{
  unsigned char r[8];
  size_t got = 0;
  int n;
  while (got < sizeof(r)) {
    ssize_t k = getrandom(r + got, sizeof(r) - got, 0);
    if (k < 0 && errno != EINTR)
      return ETWCAP_E_SYSTEM;
    if (k > 0)
      got += (size_t)k;
  }
  n = snprintf(out, cap, "%s.%02x%02x%02x%02x%02x%02x%02x%02x.tmp", base, r[0], r[1], r[2], r[3],
               r[4], r[5], r[6], r[7]);
  return n < 0 || (size_t)n >= cap ? ETWCAP_E_RANGE : 0;
}

int os_fseek64(FILE *f, int64_t offset, int whence)
{
  return fseeko(f, (off_t)offset, whence) == 0 ? 0 : translate(errno);
}

int64_t os_ftell64(FILE *f)
{
  return (int64_t)ftello(f);
}

int os_rename_replace(const char *from, const char *to)
{
  struct stat st;
  if (lstat(to, &st) == 0 && !S_ISREG(st.st_mode))
    return ETWCAP_E_EXIST;
  return rename(from, to) == 0 ? 0 : translate(errno);
}

int os_remove(const char *path)
{
  return remove(path) == 0 ? 0 : translate(errno);
}

int os_remove_dir(const char *path)
{
  return rmdir(path) == 0 ? 0 : translate(errno);
}

int os_full_path(const char *path, char *out, size_t size)
{
  char cwd[4096];
  int n;
  if (path[0] == '/')
    n = snprintf(out, size, "%s", path);
  else if (!getcwd(cwd, sizeof(cwd)))
    return translate(errno);
  else
    n = snprintf(out, size, "%s/%s", cwd, path);
  return n < 0 || (size_t)n >= size ? ETWCAP_E_RANGE : 0;
}

int os_file_size(const char *path, int64_t *size)
{
  struct stat st;
  if (stat(path, &st) != 0)
    return translate(errno);
  *size = (int64_t)st.st_size;
  return 0;
}

int os_is_directory(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int os_is_plain_dir(const char *path)
{
  struct stat st;
  return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int os_make_dir(const char *path)
{
  if (mkdir(path, 0777) == 0)
    return 0;
  if (errno == EEXIST)
    return os_is_directory(path) ? 0 : ETWCAP_E_EXIST;
  return translate(errno);
}

int os_free_disk_bytes(const char *path, uint64_t *bytes)
{
  struct statvfs vfs;
  if (statvfs(path, &vfs) != 0)
    return translate(errno);
  *bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
  return 0;
}

void os_native_path(char *path)
{
  for (; *path; path++)
    if (*path == '\\')
      *path = '/';
}

int os_nt_path_to_dos(const char *nt_path, char *out, size_t size)
{
  (void)nt_path;
  (void)out;
  (void)size;
  return ETWCAP_E_NOENT; /* no DOS device table here: /PathMap does the mapping */
}
