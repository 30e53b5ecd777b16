/* ngen_pdb.h off Windows: there is no ngen, so a merge here makes no NGEN
 * PDBs and says so once (ngen_pdbs_make). */
#include "src/finish/ngen_pdb.h"

#include "src/base/error.h"

#include <stdio.h>

static int run_ngen(void *ctx, const char *framework, const char *image, const char *out_dir,
                    int *exit_code, char *why, size_t why_size)
{
  (void)ctx, (void)framework, (void)image, (void)out_dir;
  *exit_code = -1;
  snprintf(why, why_size, "ngen.exe runs only on the Windows that ran the trace's programs: "
           "merge there (or with PerfView) to get them");
  return ETWCAP_E_NEEDS_WINDOWS;
}

const struct ngen_runner ngen_runner_os = { run_ngen, NULL };
