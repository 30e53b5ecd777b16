/* The HCS inventory (see container_inventory.h). */
#include "src/containers/container_inventory.h"

#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/json_tree.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"

#include <stdio.h>
#include <string.h>

/* A text member into dst: 1 when present and a string that fits (or
 * absent: ""), 0 when it is there but of another type or too long. */
static int field(const struct json_node *obj, const char *key, char *dst)
{
  const struct json_node *v = json_get(obj, key);
  dst[0] = '\0';
  if (!v || v->type == JSON_NULL)
    return 1;
  if (v->type != JSON_STRING || strlen(v->text) >= CONTAINER_FIELD_MAX)
    return 0;
  memcpy(dst, v->text, strlen(v->text) + 1);
  return 1;
}

/* Learn's "Isolation Modes": a Hyper-V isolated container runs in a
 * utility VM with its own kernel; HCS names that VM the container's
 * HostingSystemId (hcsshim schema2 Properties), and lists the VM itself as
 * SystemType "VirtualMachine". */
static enum container_isolation isolation_of(const struct container_system *s)
{
  if (strcmp(s->system_type, "VirtualMachine") == 0)
    return CONTAINER_VM;
  if (strcmp(s->system_type, "Container") != 0)
    return CONTAINER_OTHER;
  return s->hosting_system_id[0] ? CONTAINER_HYPERV : CONTAINER_PROCESS;
}

static int parse_system(const struct json_node *o, struct container_system *s)
{
  memset(s, 0, sizeof(*s));
  if (o->type != JSON_OBJECT || !field(o, "Id", s->id) || !s->id[0] ||
      !field(o, "Name", s->name) || !field(o, "Owner", s->owner) ||
      !field(o, "SystemType", s->system_type) || !field(o, "RuntimeId", s->runtime_id) ||
      !field(o, "State", s->state) || !field(o, "HostingSystemId", s->hosting_system_id))
    return 0;
  s->isolation = isolation_of(s);
  return 1;
}

static int parse(const char *json, size_t len, struct json_node **root, char *why,
                 size_t why_size)
{
  if (len > CONTAINER_DOC_MAX) {
    snprintf(why, why_size, "the document is %lu bytes, more than the %lu read",
             (unsigned long)len, (unsigned long)CONTAINER_DOC_MAX);
    return ETWCAP_E_FORMAT;
  }
  return json_parse(json, len, root, why, why_size);
}

/* A document that must be a JSON array (`what` names it in `why`). */
static int parse_array(const char *json, size_t len, const char *what, struct json_node **root,
                       char *why, size_t why_size)
{
  int rc = parse(json, len, root, why, why_size);
  if (!rc && (*root)->type != JSON_ARRAY) {
    snprintf(why, why_size, "%s is not a JSON array", what);
    json_free(*root);
    *root = NULL;
    rc = ETWCAP_E_FORMAT;
  }
  return rc;
}

/* A ProcessList array into s's pids: the ProcessId of each entry that has
 * one in 1..2^32-1.  0 or ETWCAP_E_NOMEM. */
static int processes_of(struct container_system *s, const struct json_node *list)
{
  size_t i;
  if (list->count && !(s->pids = etwcap_calloc(list->count < CONTAINER_PIDS_MAX
                                                   ? list->count
                                                   : CONTAINER_PIDS_MAX,
                                               sizeof(*s->pids))))
    return ETWCAP_E_NOMEM;
  for (i = 0; i < list->count && s->pid_count < CONTAINER_PIDS_MAX; i++) {
    int64_t pid = list->items[i].type == JSON_OBJECT
                      ? json_int(&list->items[i], "ProcessId", -1)
                      : -1;
    if (pid > 0 && pid <= (int64_t)UINT32_MAX)
      s->pids[s->pid_count++] = (uint32_t)pid;
  }
  s->have_pids = 1;
  return 0;
}

/* An array of Properties objects into inv; with_pids: each one's
 * ProcessList too (the record's form).  0 or ETWCAP_E_NOMEM. */
static int systems_of(struct container_inventory *inv, const struct json_node *list,
                      int with_pids)
{
  size_t i;
  if (list->count && !(inv->systems = etwcap_calloc(list->count < CONTAINER_SYSTEMS_MAX
                                                        ? list->count
                                                        : CONTAINER_SYSTEMS_MAX,
                                                    sizeof(*inv->systems))))
    return ETWCAP_E_NOMEM;
  for (i = 0; i < list->count; i++) {
    struct container_system *s = &inv->systems[inv->count];
    const struct json_node *pids;
    if (inv->count == CONTAINER_SYSTEMS_MAX || !parse_system(&list->items[i], s)) {
      inv->skipped++;
      continue;
    }
    inv->count++;
    pids = with_pids ? json_get(&list->items[i], "ProcessList") : NULL;
    if (pids && pids->type == JSON_ARRAY && processes_of(s, pids) != 0)
      return ETWCAP_E_NOMEM;
  }
  return 0;
}

int container_inventory_parse_systems(struct container_inventory *inv, const char *json,
                                      size_t len, char *why, size_t why_size)
{
  struct json_node *root = NULL;
  int rc = parse_array(json, len, "the list of compute systems", &root, why, why_size);
  if (rc)
    return rc;
  rc = systems_of(inv, root, 0);
  json_free(root);
  return rc;
}

int container_inventory_parse_processes(struct container_system *s, const char *json, size_t len,
                                        char *why, size_t why_size)
{
  struct json_node *root = NULL;
  const struct json_node *list;
  int rc = parse(json, len, &root, why, why_size);
  if (rc)
    return rc;
  list = root->type == JSON_OBJECT ? json_get(root, "ProcessList") : NULL;
  if (!list || list->type != JSON_ARRAY) {
    snprintf(why, why_size, "the properties have no ProcessList array");
    json_free(root);
    return ETWCAP_E_FORMAT;
  }
  rc = processes_of(s, list);
  json_free(root);
  return rc;
}

/* The process list of a process-isolated container: its PIDs are the
 * host's.  A Hyper-V isolated one's would be its guest's, so it is not
 * asked. */
static void ask_processes(struct container_system *s, const struct container_host *host)
{
  char *json = NULL;
  int rc;
  if (s->isolation != CONTAINER_PROCESS)
    return;
  rc = host->processes(host->ctx, s->id, &json, s->pids_why, sizeof(s->pids_why));
  if (!rc)
    rc = container_inventory_parse_processes(s, json, strlen(json), s->pids_why,
                                             sizeof(s->pids_why));
  if (rc)
    log_warn("container '%s': no process list: %s", s->name[0] ? s->name : s->id, s->pids_why);
  etwcap_free(json);
}

void container_inventory_take(struct container_inventory *inv, const struct container_host *host,
                              int64_t filetime)
{
  char *json = NULL;
  size_t i;
  int rc;
  memset(inv, 0, sizeof(*inv));
  inv->taken = 1;
  inv->filetime = filetime;
  rc = host->systems(host->ctx, &json, inv->why, sizeof(inv->why));
  if (!rc)
    rc = container_inventory_parse_systems(inv, json, strlen(json), inv->why, sizeof(inv->why));
  etwcap_free(json);
  if (rc) {
    log_info("no container inventory: %s", inv->why);
    container_inventory_release(inv);
    inv->taken = 1;
    inv->filetime = filetime;
    return;
  }
  inv->available = 1;
  for (i = 0; i < inv->count; i++) {
    ask_processes(&inv->systems[i], host);
    if (inv->systems[i].isolation == CONTAINER_HYPERV)
      log_warn("container '%s' is Hyper-V isolated: it runs its own kernel, so nothing inside "
               "it can be captured from the host; run etwcap inside it",
               inv->systems[i].name[0] ? inv->systems[i].name : inv->systems[i].id);
  }
}

void container_inventory_release(struct container_inventory *inv)
{
  size_t i;
  char why[sizeof(inv->why)];
  for (i = 0; i < inv->count; i++)
    etwcap_free(inv->systems[i].pids);
  etwcap_free(inv->systems);
  memcpy(why, inv->why, sizeof(why));
  memset(inv, 0, sizeof(*inv));
  memcpy(inv->why, why, sizeof(why));
}

int container_inventory_parse_layerchain(const char *json, size_t len, char **layers,
                                         size_t *count, char *why, size_t why_size)
{
  struct json_node *root = NULL;
  size_t i;
  int rc = parse_array(json, len, "layerchain.json", &root, why, why_size);
  if (rc)
    return rc;
  for (i = 0; i < root->count && *count < CONTAINER_LAYERS_MAX && !rc; i++) {
    const struct json_node *v = &root->items[i];
    /* A share is never read: a layer is a folder of this host. */
    if (v->type != JSON_STRING || !v->text[0] || strlen(v->text) >= 1024 ||
        os_path_is_remote(v->text))
      continue;
    if (!(layers[*count] = etwcap_strdup(v->text)))
      rc = ETWCAP_E_NOMEM;
    else
      (*count)++;
  }
  json_free(root);
  return rc;
}

void container_inventory_record_json(struct strbuf *b, const struct container_inventory *inv)
{
  static const char *const keys[] = { "Id", "Name", "Owner", "SystemType", "RuntimeId", "State",
                                       "HostingSystemId" };
  size_t i, k;
  strbuf_printf(b, "{\"available\": %s, \"why\": ", inv->available ? "true" : "false");
  strbuf_json_string(b, inv->why);
  strbuf_printf(b, ", \"filetime\": %lld, \"systems\": [", (long long)inv->filetime);
  for (i = 0; i < inv->count; i++) {
    const struct container_system *s = &inv->systems[i];
    const char *values[] = { s->id, s->name, s->owner, s->system_type, s->runtime_id, s->state,
                             s->hosting_system_id };
    strbuf_puts(b, i ? ", {" : "{");
    for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
      strbuf_printf(b, "%s\"%s\": ", k ? ", " : "", keys[k]);
      strbuf_json_string(b, values[k]);
    }
    if (s->have_pids) {
      strbuf_puts(b, ", \"ProcessList\": [");
      for (k = 0; k < s->pid_count; k++)
        strbuf_printf(b, "%s{\"ProcessId\": %lu}", k ? ", " : "", (unsigned long)s->pids[k]);
      strbuf_puts(b, "]");
    }
    strbuf_puts(b, "}");
  }
  strbuf_puts(b, "]}");
}

int container_inventory_parse_record(struct container_inventory *inv, const char *json,
                                     size_t len, char *why, size_t why_size)
{
  struct json_node *root = NULL;
  const struct json_node *list;
  int rc = parse(json, len, &root, why, why_size);
  memset(inv, 0, sizeof(*inv));
  if (rc)
    return rc;
  list = json_get(root, "systems");
  if (!list || list->type != JSON_ARRAY) {
    snprintf(why, why_size, "the kept inventory has no systems array");
    json_free(root);
    return ETWCAP_E_FORMAT;
  }
  inv->taken = 1;
  inv->available = json_bool(root, "available", 0);
  inv->filetime = json_int(root, "filetime", 0);
  snprintf(inv->why, sizeof(inv->why), "%s", json_string(root, "why", ""));
  rc = systems_of(inv, list, 1);
  json_free(root);
  if (rc)
    container_inventory_release(inv);
  return rc;
}

const struct container_system *container_inventory_by_pid(const struct container_inventory *inv,
                                                          uint32_t pid)
{
  size_t i, k;
  for (i = 0; inv && i < inv->count; i++)
    for (k = 0; k < inv->systems[i].pid_count; k++)
      if (inv->systems[i].pids[k] == pid)
        return &inv->systems[i];
  return NULL;
}

static const char *isolation_name(enum container_isolation i)
{
  switch (i) {
  case CONTAINER_PROCESS:
    return "process";
  case CONTAINER_HYPERV:
    return "hyperv";
  case CONTAINER_VM:
    return "virtualMachine";
  default:
    return "other";
  }
}

static void text_or_null(struct strbuf *b, const char *key, const char *value)
{
  strbuf_printf(b, ", \"%s\": ", key);
  if (value[0])
    strbuf_json_string(b, value);
  else
    strbuf_puts(b, "null");
}

static void system_json(struct strbuf *b, const struct container_system *s)
{
  size_t k;
  strbuf_puts(b, "{\"id\": ");
  strbuf_json_string(b, s->id);
  text_or_null(b, "name", s->name);
  text_or_null(b, "owner", s->owner);
  text_or_null(b, "systemType", s->system_type);
  text_or_null(b, "runtimeId", s->runtime_id);
  text_or_null(b, "state", s->state);
  text_or_null(b, "hostingSystemId", s->hosting_system_id);
  strbuf_printf(b, ", \"isolation\": \"%s\", \"processes\": ", isolation_name(s->isolation));
  if (s->have_pids) {
    strbuf_puts(b, "[");
    for (k = 0; k < s->pid_count; k++)
      strbuf_printf(b, "%s%lu", k ? ", " : "", (unsigned long)s->pids[k]);
    strbuf_puts(b, "]");
  } else {
    strbuf_puts(b, "null");
  }
  text_or_null(b, "processesWhy", s->pids_why);
  strbuf_puts(b, ", \"warning\": ");
  if (s->isolation == CONTAINER_HYPERV)
    strbuf_json_string(b, "Hyper-V isolated: it has its own kernel, so nothing inside it can "
                          "be captured from the host; run etwcap inside it");
  else if (s->isolation == CONTAINER_VM)
    strbuf_json_string(b, "a virtual machine (Hyper-V isolated containers run in one): it has "
                          "its own kernel, so nothing inside it can be captured from the host");
  else
    strbuf_puts(b, "null");
  strbuf_puts(b, "}");
}

void container_inventory_json(struct strbuf *b, const struct container_inventory *inv)
{
  char text[40];
  size_t i;
  if (!inv || !inv->available) {
    strbuf_puts(b, "null");
    return;
  }
  strbuf_printf(b, "{\"utc\": \"%s\", \"skipped\": %lu, \"systems\": [",
                filetime_format_iso7(inv->filetime, text, sizeof(text)),
                (unsigned long)inv->skipped);
  for (i = 0; i < inv->count; i++) {
    strbuf_puts(b, i ? ",\n      " : "\n      ");
    system_json(b, &inv->systems[i]);
  }
  strbuf_puts(b, inv->count ? "\n    ]}" : "]}");
}
