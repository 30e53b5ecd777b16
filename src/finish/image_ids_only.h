/* `merge X.etl.zip /ImageIDsOnly`: adds image identity to a trace that was
 * merged elsewhere (PerfView's or etwcap's .etl.zip), reading the images
 * visible where it runs.  This is the container workflow: collect on the
 * host, then run this inside the container, where the container's images
 * are at the paths the trace names, so symbols resolve anywhere afterwards.
 *
 * The zip's members are extracted next to it, the ETL is merged again (one
 * input) with identity injected where it is missing, and a new zip with the
 * same members in the same order (folder entries too, each with its time
 * and extra fields, and the archive's comment) replaces the old one only
 * after it was written and verified (archive_writer.h).  Temporary files are removed
 * whatever happens.  With `ngen`, the NGEN PDBs of the native images the
 * trace used are made here too (ngen_pdb.h), as PerfView's /ImageIDsOnly
 * merge makes them, and added unless the zip holds them already. */
#ifndef ETWCAP_IMAGE_IDS_ONLY_H
#define ETWCAP_IMAGE_IDS_ONLY_H

#include "etw/merge/identity_inject.h"
#include "src/finish/ngen_pdb.h"

#include <stddef.h>
#include <stdio.h>

int image_ids_only(const char *zip_path, struct identity_injector *identity,
                   const struct ngen_runner *ngen, int low_priority, FILE *console, char *why,
                   size_t why_size);

#endif
