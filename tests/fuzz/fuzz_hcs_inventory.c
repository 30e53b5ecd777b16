/* libFuzzer target: the Host Compute Service's documents as the container
 * inventory reads them (src/containers/container_inventory.c): the list of
 * compute systems and a ProcessList, Docker's layerchain.json, the
 * inventory a session record keeps for `stop` and the volume map a capture
 * manifest recorded (src/containers/container_capture.c), and the message
 * of a failed operation's ResultError (src/containers/hcs_result_error.c),
 * from arbitrary bytes, and the manifest JSON written from what was read. */
#include "src/base/alloc.h"
#include "src/containers/container_capture.h"
#include "src/containers/container_inventory.h"
#include "src/containers/hcs_result_error.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct container_inventory inv;
  struct container_capture cc;
  struct container_system s;
  struct strbuf b;
  char why[256], message[201], *json = NULL, *layers[CONTAINER_LAYERS_MAX];
  size_t layer_count = 0, i;
  memset(&inv, 0, sizeof(inv));
  memset(&s, 0, sizeof(s));
  if (container_inventory_parse_systems(&inv, (const char *)data, size, why, sizeof(why)) == 0) {
    inv.available = 1;
    memset(&b, 0, sizeof(b));
    container_inventory_json(&b, &inv);
    if (strbuf_finish(&b, &json) == 0)
      etwcap_free(json);
  }
  container_inventory_release(&inv);
  if (container_inventory_parse_record(&inv, (const char *)data, size, why, sizeof(why)) == 0)
    container_inventory_release(&inv);
  if (container_inventory_parse_processes(&s, (const char *)data, size, why, sizeof(why)) == 0)
    etwcap_free(s.pids);
  container_inventory_parse_layerchain((const char *)data, size, layers, &layer_count, why,
                                       sizeof(why));
  for (i = 0; i < layer_count; i++)
    etwcap_free(layers[i]);
  if (hcs_result_error_message((const char *)data, size, message, sizeof(message)) &&
      (strlen(message) >= sizeof(message) || strpbrk(message, "\r\n\033")))
    __builtin_trap(); /* bounded, and no control character gets through */
  container_capture_init(&cc, NULL);
  container_capture_recall_volumes_json(&cc, (const char *)data, size);
  container_capture_release(&cc);
  return 0;
}
