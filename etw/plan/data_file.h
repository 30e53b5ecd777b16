/* PerfView's rule for the DataFile name (docs/perfview-collection.md §3.1),
 * shared by the plan and `merge`: a trailing ".zip" of "X.etl.zip" is
 * dropped, and ".etl" is appended when the name does not end with it.  Unlike
 * PerfView the ".etl" check ignores case: Windows file names do. */
#ifndef ETWCAP_DATA_FILE_H
#define ETWCAP_DATA_FILE_H

/* *out is allocated (etwcap_free).  0 or ETWCAP_E_NOMEM. */
int data_file_name(const char *given, char **out);

#endif
