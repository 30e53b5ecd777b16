/* NGEN PDBs for the zip: for each .NET Framework native image the trace
 * needs symbols for (ngen_modules.h), `ngen.exe createPDB IMAGE DIR` of the
 * image's framework makes its PDB, which goes into the zip as
 * symbols/NAME.pdb/GUIDAGE/NAME.pdb, where PerfView's merge puts it and its
 * zip reader (ZippedETLReader, and etwcap unzip) looks.  As PerfView's
 * SymbolReader.GenerateNGenSymbolsForModule:
 *   - the framework comes from the image's folder (GetClrDirectoryForNGenImage):
 *     ...\assembly\NativeImages_v4..._64\ (or _32, _ARM64), the per-user
 *     caches ...\Microsoft\CLR_v4.0[_64]\NativeImages, and
 *     ...\Microsoft.NET\Framework[64]\v4...\NativeImages; runtimes before 4
 *     have no createPDB and are skipped;
 *   - the PDB is named by the image's first CodeView (RSDS) record, must end
 *     in .ni.pdb, and ngen writes it to DIR\NAME\GUIDAGE\NAME (GUID as 32
 *     lower-case hex digits, age in decimal);
 *   - COMPLUS_NGenEnableCreatePdb=1 is set for ngen.
 * Not as PerfView: no _NT_SYMBOL_PATH (it serves /lines, and PerfView's
 * line-number argument is empty too) and no framework folder added to PATH
 * (ngen.exe runs from it anyway); no COMPLUS_NGenLocalWorker for 4.0
 * runtimes older than 4.5; a private runtime's image cache is served by the
 * machine's framework; no search of the machine cache for an image loaded
 * through a link (PerfView's InsurePathIsInNIC); and ngen writes into
 * etwcap's folder also for a per-user cache, where PerfView uses that
 * cache's Temp\NGenPdb (writable by a Store app).
 *
 * Nothing here fails a merge: every image that gets no PDB is named in the
 * log, and when ngen cannot run at all (not Windows, no ngen.exe) one line
 * says so.  The caller owns the result and removes its files with
 * ngen_pdbs_release. */
#ifndef ETWCAP_NGEN_PDB_H
#define ETWCAP_NGEN_PDB_H

#include <stddef.h>

/* Runs `%WINDIR%\Microsoft.NET\FRAMEWORK\v4.0.30319\ngen.exe createPDB
 * "IMAGE" "OUT_DIR"` and waits: 0 with *exit_code; ETWCAP_E_NOENT when
 * that ngen.exe does not exist; ETWCAP_E_NEEDS_WINDOWS off Windows; else
 * an ETWCAP_E_* with the reason in why.  ngen_pdb_win32.c is the real one;
 * tests pass a model of ngen. */
struct ngen_runner {
  int (*run)(void *ctx, const char *framework, const char *image, const char *out_dir,
             int *exit_code, char *why, size_t why_size);
  void *ctx;
};

/* The real ngen of this OS (off Windows: always ETWCAP_E_NEEDS_WINDOWS). */
extern const struct ngen_runner ngen_runner_os;

/* The framework folder whose ngen makes the PDB of the native image at
 * `image` ("Framework", "Framework64", "FrameworkARM64"), or NULL when the
 * path is in no native image cache of a runtime 4 or later. */
const char *ngen_pdb_framework(const char *image);

struct ngen_pdb_file {
  char *path;     /* where ngen wrote it */
  char *zip_name; /* symbols/NAME.pdb/GUIDAGE/NAME.pdb */
};

struct ngen_pdbs {
  char *work_dir; /* DATAFILE.<random>.tmp, ngen's output folder */
  struct ngen_pdb_file *files;
  size_t count;
};

/* Makes the PDBs of `images` (paths as the trace logs them; NT paths are
 * mapped to drive paths here) in a new folder beside `data_file`.  Always
 * returns with `out` filled (maybe empty); problems are logged. */
void ngen_pdbs_make(const char *const *images, size_t image_count, const char *data_file,
                    const struct ngen_runner *runner, struct ngen_pdbs *out);
/* Deletes the files and the folder ngen_pdbs_make made; frees `p`. */
void ngen_pdbs_release(struct ngen_pdbs *p);

#endif
