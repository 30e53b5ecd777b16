/* The trigger qualifiers of a parsed command line (src/qualifiers_triggers.c)
 * to trigger_options.  Strings are borrowed from the cli. */
#ifndef ETWCAP_TRIGGER_CLI_H
#define ETWCAP_TRIGGER_CLI_H

#include "trigger_options.h"

struct cli;

/* Qualifiers not given keep their defaults (/MaxCollectSec included, for
 * commands that take it). */
void trigger_options_from_cli(const struct cli *cli, struct trigger_options *o);

#endif
