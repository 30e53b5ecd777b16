/* A command line run through the command table (src/cli/command.h) in a
 * capture environment (collection_env.h): what main does with a parsed
 * line, with the test's fakes in place of the system's surroundings, so
 * the lifecycle tests dispatch as the product does. */
#ifndef ETWCAP_RUN_COMMAND_H
#define ETWCAP_RUN_COMMAND_H

struct collection_env;

/* args: the words after "etwcap" (NULL-terminated).  The line must parse
 * and name a live-capture command (a row with run_in); returns its code. */
int test_run_command(const struct collection_env *env, const char *const *args);

#endif
