/* The plan for people (a table) and for scripts (JSON, schema in
 * docs/plan-json.md).  Both return a string the caller prints and frees
 * with etwcap_free: library code does not print. */
#ifndef ETWCAP_PLAN_DESCRIBE_H
#define ETWCAP_PLAN_DESCRIBE_H

#include "etw/event/keywords.h"
#include "etw/plan/plan.h"

#include <stddef.h>

/* Return 0 or ETWCAP_E_NOMEM. */
int plan_to_text(const struct plan *plan, char **out);
int plan_to_json(const struct plan *plan, char **out);

/* Names shared by both forms. */
const char *plan_role_name(enum plan_role role);         /* "kernel", "user", ... */
/* The role a name stands for; PLAN_ROLE_USER for one it does not know. */
enum plan_role plan_role_from_name(const char *name);
const char *plan_filter_kind(uint32_t type);             /* "pid", "exe", ... */
/* "FILE_MODE_CIRCULAR|SYSTEM_LOGGER_MODE" style; snprintf-like. */
size_t plan_log_file_mode_names(uint32_t mode, char *buf, size_t size);
size_t plan_enable_property_names(uint32_t props, char *buf, size_t size);
/* The keyword names that apply to a provider (CLR, CLR rundown), or NULL. */
const struct keyword_set *plan_provider_keywords(const struct plan_provider *p);

#endif
