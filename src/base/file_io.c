/* file_io on plain files, and the bridge to minizip's ioapi. */
#include "src/base/file_io.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"

#include <ioapi.h>
#include <stdio.h>

#define FILE_BUFFER_BYTES (1024 * 1024)

struct file_stream {
  FILE *f;
  char *buffer;
  int error;
};

static void *file_open(void *opaque, const char *path, int for_write, int *err)
{
  struct file_stream *s = etwcap_calloc(1, sizeof(*s));
  (void)opaque;
  if (!s) {
    *err = ETWCAP_E_NOMEM;
    return NULL;
  }
  /* Outputs are created, never opened over something already there. */
  s->f = for_write ? os_fcreate(path) : os_fopen(path, "rb");
  if (!s->f) {
    *err = os_last_error();
    /* Refused by the folder's permissions: a file error, not a need for an
     * elevated prompt. */
    if (for_write && *err == ETWCAP_E_ACCES)
      *err = ETWCAP_E_DENIED;
    etwcap_free(s);
    return NULL;
  }
  /* Large buffers: the writer emits ~1 MiB chunks and the verifier reads
   * sequentially, so fewer system calls is all the tuning this needs. */
  s->buffer = etwcap_malloc(FILE_BUFFER_BYTES);
  if (s->buffer)
    setvbuf(s->f, s->buffer, _IOFBF, FILE_BUFFER_BYTES);
  return s;
}

static size_t file_read(void *opaque, void *stream, void *buf, size_t n)
{
  struct file_stream *s = stream;
  size_t got = fread(buf, 1, n, s->f);
  (void)opaque;
  if (got < n && ferror(s->f) && !s->error)
    s->error = os_last_error();
  return got;
}

static size_t file_write(void *opaque, void *stream, const void *buf, size_t n)
{
  struct file_stream *s = stream;
  size_t put;
  (void)opaque;
  if (s->error)
    return 0;
  put = fwrite(buf, 1, n, s->f);
  if (put < n)
    s->error = os_last_error();
  return put;
}

static int file_seek(void *opaque, void *stream, int64_t offset, int whence)
{
  struct file_stream *s = stream;
  int rc = os_fseek64(s->f, offset, whence);
  (void)opaque;
  if (rc && !s->error)
    s->error = rc;
  return rc;
}

static int64_t file_tell(void *opaque, void *stream)
{
  (void)opaque;
  return os_ftell64(((struct file_stream *)stream)->f);
}

static int file_error(void *opaque, void *stream)
{
  (void)opaque;
  return ((struct file_stream *)stream)->error;
}

static int file_close(void *opaque, void *stream)
{
  struct file_stream *s = stream;
  int rc = s->error;
  (void)opaque;
  /* fclose flushes the last buffer: a full disk often shows only here. */
  if (fclose(s->f) != 0 && !rc)
    rc = os_last_error();
  etwcap_free(s->buffer);
  etwcap_free(s);
  return rc;
}

static int file_rename(void *opaque, const char *from, const char *to)
{
  (void)opaque;
  return os_rename_replace(from, to);
}

static int file_remove(void *opaque, const char *path)
{
  (void)opaque;
  return os_remove(path);
}

const struct file_io file_io_plain = {
  file_open, file_read, file_write, file_seek, file_tell,
  file_error, file_close, file_rename, file_remove, NULL,
};

/* --- minizip bridge: minizip's opaque is the file_io itself ---------- */

static voidpf ZCALLBACK mz_open(voidpf opaque, const void *filename, int mode)
{
  const struct file_io *io = opaque;
  int err = 0;
  return io->open(io->opaque, filename, (mode & ZLIB_FILEFUNC_MODE_WRITE) != 0, &err);
}

static uLong ZCALLBACK mz_read(voidpf opaque, voidpf stream, void *buf, uLong size)
{
  const struct file_io *io = opaque;
  return (uLong)io->read(io->opaque, stream, buf, size);
}

static uLong ZCALLBACK mz_write(voidpf opaque, voidpf stream, const void *buf, uLong size)
{
  const struct file_io *io = opaque;
  return (uLong)io->write(io->opaque, stream, buf, size);
}

static ZPOS64_T ZCALLBACK mz_tell(voidpf opaque, voidpf stream)
{
  const struct file_io *io = opaque;
  return (ZPOS64_T)io->tell(io->opaque, stream);
}

static long ZCALLBACK mz_seek(voidpf opaque, voidpf stream, ZPOS64_T offset, int origin)
{
  const struct file_io *io = opaque;
  int whence = origin == ZLIB_FILEFUNC_SEEK_CUR   ? SEEK_CUR
               : origin == ZLIB_FILEFUNC_SEEK_END ? SEEK_END
                                                  : SEEK_SET;
  return io->seek(io->opaque, stream, (int64_t)offset, whence) == 0 ? 0 : -1;
}

static int ZCALLBACK mz_close(voidpf opaque, voidpf stream)
{
  const struct file_io *io = opaque;
  return io->close(io->opaque, stream) == 0 ? 0 : -1;
}

static int ZCALLBACK mz_error(voidpf opaque, voidpf stream)
{
  const struct file_io *io = opaque;
  return io->error(io->opaque, stream) != 0;
}

void file_io_to_minizip(const struct file_io *io, void *def_void)
{
  zlib_filefunc64_def *def = def_void;
  def->zopen64_file = mz_open;
  def->zread_file = mz_read;
  def->zwrite_file = mz_write;
  def->ztell64_file = mz_tell;
  def->zseek64_file = mz_seek;
  def->zclose_file = mz_close;
  def->zerror_file = mz_error;
  def->opaque = (voidpf)io;
}
