/* The host's compute systems as the Host Compute Service lists them, at a
 * capture's start and at its stop: for each, Id (Docker's or containerd's
 * container ID), Name, Owner, SystemType, RuntimeId, State,
 * HostingSystemId, and the host PIDs of a process-isolated container's
 * processes (its ProcessList).  The documents are HCS's (hcs.h), outside
 * bytes: read with a bounded JSON reader, every field checked, and a
 * document too large or malformed is "no inventory", never a failed
 * capture.  Field names: hcsshim internal/hcs/schema2 (properties.go,
 * process_details.go), the schema of Microsoft's HCS JSON documents.
 *
 * Lifetime: container_inventory_release frees what take or parse filled. */
#ifndef ETWCAP_CONTAINER_INVENTORY_H
#define ETWCAP_CONTAINER_INVENTORY_H

#include "src/base/strbuf.h"
#include "src/containers/container_host.h"

#include <stddef.h>
#include <stdint.h>

#define CONTAINER_DOC_MAX (4u << 20)    /* bytes of one HCS document read */
#define CONTAINER_SYSTEMS_MAX 512       /* compute systems kept */
#define CONTAINER_PIDS_MAX 4096         /* processes kept per container */
#define CONTAINER_FIELD_MAX 256         /* bytes of one text field */

enum container_isolation {
  CONTAINER_PROCESS,    /* a process-isolated container: shares the host's kernel */
  CONTAINER_HYPERV,     /* a container hosted in a utility VM (HostingSystemId) */
  CONTAINER_VM,         /* SystemType VirtualMachine: a utility VM or a VM */
  CONTAINER_OTHER
};

struct container_system {
  char id[CONTAINER_FIELD_MAX], name[CONTAINER_FIELD_MAX], owner[CONTAINER_FIELD_MAX];
  char system_type[CONTAINER_FIELD_MAX], runtime_id[CONTAINER_FIELD_MAX];
  char state[CONTAINER_FIELD_MAX], hosting_system_id[CONTAINER_FIELD_MAX];
  enum container_isolation isolation;
  uint32_t *pids;         /* host PIDs (process-isolated containers only) */
  size_t pid_count;
  int have_pids;          /* the ProcessList was read */
  char pids_why[256];     /* why not, when it was asked for */
};

struct container_inventory {
  int taken;              /* asked */
  int available;          /* HCS answered */
  char why[512];          /* when not: what failed */
  int64_t filetime;       /* when it was taken */
  struct container_system *systems;
  size_t count;
  size_t skipped;         /* entries left out: malformed, or beyond the bound */
};

/* Asks `host` now (filetime: when).  Never fails: inv->available and
 * inv->why say what there is. */
void container_inventory_take(struct container_inventory *inv, const struct container_host *host,
                              int64_t filetime);
void container_inventory_release(struct container_inventory *inv);

/* HcsEnumerateComputeSystems' document (an array of Properties) into inv.
 * 0, ETWCAP_E_FORMAT (why says where) or ETWCAP_E_NOMEM. */
int container_inventory_parse_systems(struct container_inventory *inv, const char *json,
                                      size_t len, char *why, size_t why_size);
/* A Properties document with a ProcessList into s's pids.  0, FORMAT, NOMEM. */
int container_inventory_parse_processes(struct container_system *s, const char *json, size_t len,
                                        char *why, size_t why_size);

/* A container's layerchain.json (moby's Windows graph driver writes one
 * into each layer folder: a JSON array of its parent layers' folders,
 * topmost first) appended to *layers (*count of them; each allocated,
 * etwcap_free).  Paths that are not text, too long, or another machine's
 * are left out.  0, ETWCAP_E_FORMAT or ETWCAP_E_NOMEM. */
#define CONTAINER_LAYERS_MAX 256
int container_inventory_parse_layerchain(const char *json, size_t len, char **layers,
                                         size_t *count, char *why, size_t why_size);

/* The system whose PIDs include pid, or NULL. */
const struct container_system *container_inventory_by_pid(const struct container_inventory *inv,
                                                          uint32_t pid);

/* The inventory as `start` keeps it in its session record for `stop`
 * (another process): {"available", "why", "filetime", "systems": [...]},
 * each system in HCS's own field names with its ProcessList, so that
 * container_inventory_parse_record reads it back with the parsers of
 * HCS's documents.  The record is a file: read within the same bounds. */
void container_inventory_record_json(struct strbuf *b, const struct container_inventory *inv);
int container_inventory_parse_record(struct container_inventory *inv, const char *json,
                                     size_t len, char *why, size_t why_size);

/* {"utc": ..., "systems": [...]} or null (README.md, the capture manifest). */
void container_inventory_json(struct strbuf *b, const struct container_inventory *inv);

#endif
