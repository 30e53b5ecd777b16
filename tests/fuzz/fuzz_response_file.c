/* libFuzzer target: the tokenizer of `@file` response files
 * (src/cli/response_file.c), from arbitrary bytes. */
#include "src/cli/response_file.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct token_list list = { NULL, 0 };
  response_split(&list, (const char *)data, size);
  token_list_release(&list);
  return 0;
}
