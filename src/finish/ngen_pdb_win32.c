/* ngen_pdb.h on Windows: %WINDIR%\Microsoft.NET\<Framework>\v4.0.30319\
 * ngen.exe (the folder every .NET Framework 4.x installs into; PerfView
 * takes the one v4.* folder there, SymbolReader.GetClrDirectoryForNGenImage)
 * run as `ngen.exe createPDB "IMAGE" "DIR"` with COMPLUS_NGenEnableCreatePdb=1
 * in its environment, as PerfView runs it.  Wine has no ngen.exe: there
 * this answers ETWCAP_E_NOENT and the merge goes on without the PDBs. */
#include "src/base/os/compat_win32.h"

#include "src/finish/ngen_pdb.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/utf16_win32.h"
#include "src/os/process_shell.h"

#include <stdio.h>
#include <wchar.h>

/* ngen createPDB of mscorlib takes seconds; a stuck one must not hold the
 * merge for ever. */
#define NGEN_TIMEOUT_MS 120000u

static const wchar_t enable_name[] = L"COMPLUS_NGenEnableCreatePdb";

static int run_ngen(void *ctx, const char *framework, const char *image, const char *out_dir,
                    int *exit_code, char *why, size_t why_size)
{
  wchar_t windir[MAX_PATH], old[64];
  char *dir, app[MAX_PATH * 3 + 96], args[3 * 1024 + 32];
  UINT n = GetSystemWindowsDirectoryW(windir, MAX_PATH);
  DWORD had;
  int rc;
  (void)ctx;
  *exit_code = -1;
  if (!n || n >= MAX_PATH) {
    snprintf(why, why_size, "GetSystemWindowsDirectoryW: %lu", (unsigned long)GetLastError());
    return ETWCAP_E_SYSTEM;
  }
  if (!(dir = utf16_to_utf8(windir)))
    return ETWCAP_E_NOMEM;
  snprintf(app, sizeof(app), "%s\\Microsoft.NET\\%s\\v4.0.30319\\ngen.exe", dir, framework);
  etwcap_free(dir);
  if ((size_t)snprintf(args, sizeof(args), "createPDB \"%s\" \"%s\"", image, out_dir) >=
      sizeof(args)) {
    snprintf(why, why_size, "the path '%s' is too long for ngen's command line", image);
    return ETWCAP_E_RANGE;
  }
  /* The child inherits it; etwcap's own value (if any) is put back. */
  had = GetEnvironmentVariableW(enable_name, old, 64);
  SetEnvironmentVariableW(enable_name, L"1");
  rc = process_run_program(app, args, NGEN_TIMEOUT_MS, exit_code, why, (unsigned)why_size);
  SetEnvironmentVariableW(enable_name, had && had < 64 ? old : NULL);
  if (rc == ETWCAP_E_NOENT)
    snprintf(why, why_size, "%s is not there: no .NET Framework 4 of that bitness is installed",
             app);
  else if (rc == ETWCAP_E_TIMEOUT)
    snprintf(why, why_size, "%s %s did not finish in %u s (left running)", app, args,
             NGEN_TIMEOUT_MS / 1000);
  return rc;
}

const struct ngen_runner ngen_runner_os = { run_ngen, NULL };
