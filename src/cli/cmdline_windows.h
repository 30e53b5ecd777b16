/* Splits a Windows command line into arguments by the Microsoft C runtime's
 * documented rules ("Parsing C command-line arguments"), so etwcap.exe gets
 * UTF-8 arguments without CommandLineToArgvW: shell32.dll is absent from Nano
 * Server.  Pure and portable, so the rules are tested on every OS. */
#ifndef ETWCAP_CMDLINE_WINDOWS_H
#define ETWCAP_CMDLINE_WINDOWS_H

#include "src/cli/response_file.h"

/* Appends the arguments of `cmdline` (UTF-8, program name first) to `out`. */
int cmdline_split_windows(struct token_list *out, const char *cmdline);

#endif
