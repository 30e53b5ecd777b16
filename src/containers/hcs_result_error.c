/* A ResultError's message (hcs_result_error.h). */
#include "src/containers/hcs_result_error.h"

#include "src/base/json_tree.h"
#include "src/base/strutil.h"

#include <string.h>

int hcs_result_error_message(const char *json, size_t len, char *out, size_t out_size)
{
  struct json_node *root = NULL;
  const char *msg;
  char why[128];
  size_t n;
  if (!out_size)
    return 0;
  out[0] = '\0';
  if (len > HCS_RESULT_ERROR_MAX || json_parse(json, len, &root, why, sizeof(why)) != 0)
    return 0;
  msg = root->type == JSON_OBJECT ? json_string(root, "ErrorMessage", "") : "";
  n = strlen(msg);
  if (n >= out_size) {
    n = out_size - 1;
    while (n > 0 && ((unsigned char)msg[n] & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
      n--;
  }
  memcpy(out, msg, n);
  out[n] = '\0';
  json_free(root);
  str_neutralise_controls(out);
  return n > 0;
}
