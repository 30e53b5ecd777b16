/* libFuzzer target: response-file text and the qualifier parser.  The bytes
 * are read as a response file's contents, split into tokens and parsed as a
 * command line, then as a Windows command line. */
#include "src/cli/cli.h"
#include "src/cli/cmdline_windows.h"
#include "src/cli/response_file.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct token_list tokens = { NULL, 0 };
  char *text;
  if (size > 65536)
    return 0;
  text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  if (response_split(&tokens, text, size) == 0 && tokens.count < 256) {
    char *argv[257];
    struct cli cli;
    size_t i;
    argv[0] = (char *)"etwcap";
    for (i = 0; i < tokens.count; i++) /* '@' would read files: not what this target tests */
      argv[i + 1] = tokens.items[i][0] == '@' ? (char *)"x" : tokens.items[i];
    cli_parse(&cli, (int)tokens.count + 1, argv);
    cli_release(&cli);
  }
  token_list_release(&tokens);
  if (cmdline_split_windows(&tokens, text) == 0)
    token_list_release(&tokens);
  free(text);
  return 0;
}
