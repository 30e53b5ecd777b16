/* What a capture would have kept around a fire: the events of a recorded
 * trace whose time falls in [from, to], written as new session files
 * (etl_writer) named as a collection's are, so that the capture's own merge
 * and zip (capture_finish) turn them into NAME.etl.zip.  Each ETL of the
 * trace (the file, or every .etl member of a zip) becomes one file: the
 * first ordinary one DATA.etl, kernel ones DATA.kernel*.etl, rundown ones
 * DATA.clrRundown*.etl, the others DATA.user*.etl (merge_inputs.h).  Each
 * keeps its logfile header and its header-buffer events; events without a
 * timestamp are left out.  On error the files written so far are removed. */
#ifndef ETWCAP_REPLAY_WINDOW_H
#define ETWCAP_REPLAY_WINDOW_H

#include <stddef.h>
#include <stdint.h>

struct replay_window_stats {
  unsigned files;
  uint64_t events_in, events_kept;
};

struct merge_inputs;

/* data_file must end in ".etl"; none of the files may exist yet
 * (ETWCAP_E_EXIST names it).  *written lists the files written, data_file
 * first (released with merge_inputs_release; empty when there were none):
 * the capture merges and deletes these and no other file. */
int replay_window_write(const char *trace, int64_t from, int64_t to, const char *data_file,
                        struct replay_window_stats *stats, struct merge_inputs *written,
                        char *err, size_t cap);

/* The session-file name for ETL number `index` (0-based) of a trace whose
 * member is called `member`: DATA.etl, DATA.kernel.etl, DATA.kernel2.etl,
 * DATA.clrRundown.etl, DATA.user2.etl ...  `main_taken` says DATA.etl is
 * already used.  Pure. */
int replay_window_file_name(const char *data_file, const char *member, unsigned index,
                            int main_taken, char *out, size_t cap);

#endif
