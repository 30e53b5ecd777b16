/* A file_io that compresses what is written to it, for a writer that would
 * otherwise write a file only to have it zipped: the ETL writer feeds the
 * merge's output straight to the compressor (one pass, no merged file).
 *
 * Such writers patch their first record at the end (the ETL header buffer
 * learns its buffer count and end time last), so the sink's contract is:
 * the stream is opened once, for writing; the first write is the head,
 * which is written now as stored blocks (deflate_stream_store) and kept; a
 * seek to an offset inside the head rewrites the head in memory (the
 * caller overwrites its stored bytes in the output afterwards, since only
 * it knows where they landed); everything else is appended and deflated.
 * Reading, seeking elsewhere and renaming are refused (ETWCAP_E_INTERNAL):
 * a writer that needs them cannot be fed this way.  Removing the path
 * marks the output abandoned. */
#ifndef ETWCAP_DEFLATE_SINK_H
#define ETWCAP_DEFLATE_SINK_H

#include "src/base/file_io.h"
#include "src/base/zip/deflate_parallel.h"

#include <stddef.h>
#include <stdint.h>

struct deflate_sink {
  struct file_io io; /* pass this to the writer */
  struct deflate_stream *stream;
  uint8_t *head; /* the head as last written */
  size_t head_len;
  uint64_t size;   /* bytes written, the head once */
  uint64_t pos;    /* where the next write goes */
  int opened, closed, abandoned;
  int error;       /* sticky */
};

/* Points s->io at the sink; bytes go to `stream` (not owned). */
void deflate_sink_init(struct deflate_sink *s, struct deflate_stream *stream);
/* Frees the kept head. */
void deflate_sink_release(struct deflate_sink *s);

#endif
