/* A file_io over plain files that fails on demand: the Nth write fails
 * with ENOSPC, or writes half and stops, or is silently corrupted (to prove
 * verification catches it); rename can fail. */
#ifndef ETWCAP_FAULT_IO_H
#define ETWCAP_FAULT_IO_H

#include "src/base/file_io.h"

struct fault_io {
  struct file_io io; /* pass &f.io; its opaque is the fault_io */
  unsigned writes;      /* writes seen so far */
  unsigned data_writes; /* writes of FAULT_IO_DATA_BYTES or more: member data */
  unsigned fail_write_at, short_write_at; /* 1-based over all writes; 0 = never */
  unsigned corrupt_data_write_at;         /* 1-based over data writes; 0 = never */
  int fail_rename;      /* ETWCAP_E_* to return from rename, 0 = succeed */
};

/* minizip writes headers field by field and member data in large blocks. */
#define FAULT_IO_DATA_BYTES 512

void fault_io_init(struct fault_io *f);

#endif
