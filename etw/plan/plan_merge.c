/* Merging providers enabled more than once (semantics in plan.h).  Kept
 * apart from the Win32 calls, unlike krabsetw, so it is tested on any OS. */
#include "etw/plan/plan.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <string.h>

void plan_provider_release(struct plan_provider *p)
{
  size_t i;
  for (i = 0; i < p->arg_count; i++) {
    etwcap_free(p->args[i].key);
    etwcap_free(p->args[i].value);
  }
  etwcap_free(p->args);
  etwcap_free(p->exe_names);
  p->args = NULL;
  p->arg_count = 0;
  p->exe_names = NULL;
  plan_provider_release_filters(p);
}

void plan_provider_release_filters(struct plan_provider *p)
{
  size_t i;
  for (i = 0; i < p->filter_count; i++)
    etwcap_free(p->filters[i].data);
  p->filter_count = 0;
}

static int is_disable(const struct plan_provider *p)
{
  return p->level == 0 && p->match_any == 0;
}

/* Union of two id filters: no filter (everything) wins; two "only these"
 * lists join; otherwise (a disable list is involved) the events both would
 * drop are dropped... which a single list cannot say exactly, so the
 * permissive answer, no filter, is taken. */
static void merge_ids(struct provider_id_filter *into, const struct provider_id_filter *from)
{
  size_t i, j;
  if (!into->present)
    return;
  if (!from->present || !into->filter_in || !from->filter_in) {
    memset(into, 0, sizeof(*into));
    return;
  }
  for (i = 0; i < from->count; i++) {
    for (j = 0; j < into->count && into->ids[j] != from->ids[i]; j++) {
    }
    if (j == into->count) {
      if (into->count == PROVIDER_SPEC_MAX_EVENT_IDS) {
        memset(into, 0, sizeof(*into)); /* too many to list: take everything */
        return;
      }
      into->ids[into->count++] = from->ids[i];
    }
  }
}

static int merge_into(struct plan_provider *a, struct plan_provider *b)
{
  size_t i;
  a->match_any |= b->match_any;
  a->match_all &= b->match_all;
  if (b->level > a->level)
    a->level = b->level;
  a->enable_property |= b->enable_property;
  a->stacks |= b->stacks;
  if (b->control_code == PLAN_CONTROL_CAPTURE_STATE)
    a->control_code = b->control_code;
  /* Scope filters: an unfiltered enable means every process. */
  if (!b->pid_count)
    a->pid_count = 0;
  else if (a->pid_count) {
    for (i = 0; i < b->pid_count; i++) {
      size_t j;
      for (j = 0; j < a->pid_count && a->pids[j] != b->pids[i]; j++) {
      }
      if (j == a->pid_count) {
        if (a->pid_count == PROVIDER_SPEC_MAX_PIDS) {
          a->pid_count = 0;
          break;
        }
        a->pids[a->pid_count++] = b->pids[i];
      }
    }
  }
  if (!b->exe_names || !a->exe_names) {
    etwcap_free(a->exe_names);
    a->exe_names = NULL;
  } else if (strcmp(a->exe_names, b->exe_names) != 0) {
    size_t la = strlen(a->exe_names), lb = strlen(b->exe_names);
    char *joined = etwcap_malloc(la + lb + 2);
    if (!joined)
      return ETWCAP_E_NOMEM;
    memcpy(joined, a->exe_names, la);
    joined[la] = ';';
    memcpy(joined + la + 1, b->exe_names, lb + 1);
    etwcap_free(a->exe_names);
    a->exe_names = joined;
  }
  merge_ids(&a->events, &b->events);
  merge_ids(&a->stack_events, &b->stack_events);
  /* Arguments: the later enable's replace the earlier's, as a second
   * EnableTraceEx2 with provider data would. */
  if (b->arg_count) {
    for (i = 0; i < a->arg_count; i++) {
      etwcap_free(a->args[i].key);
      etwcap_free(a->args[i].value);
    }
    etwcap_free(a->args);
    a->args = b->args;
    a->arg_count = b->arg_count;
    b->args = NULL;
    b->arg_count = 0;
  }
  return 0;
}

int plan_merge_providers(struct plan_provider *list, size_t *count)
{
  size_t n = *count, out = 0, i, j;
  int rc = 0;
  for (i = 0; i < n; i++) {
    struct plan_provider *p = &list[i];
    int merged = 0;
    if (is_disable(p)) {
      /* Remove the earlier enables of this GUID, then drop the disable. */
      for (j = 0; j < out;) {
        if (guid_equal(&list[j].guid, &p->guid) && list[j].pass == p->pass) {
          plan_provider_release(&list[j]);
          memmove(&list[j], &list[j + 1], (out - j - 1) * sizeof(*list));
          out--;
        } else {
          j++;
        }
      }
      plan_provider_release(p);
      continue;
    }
    for (j = 0; j < out && !rc; j++) {
      if (guid_equal(&list[j].guid, &p->guid) && list[j].pass == p->pass) {
        rc = merge_into(&list[j], p);
        merged = 1;
        break;
      }
    }
    if (merged) {
      plan_provider_release(p);
      if (rc)
        break;
      continue;
    }
    if (out != i)
      list[out] = *p;
    out++;
  }
  /* On failure release what was not kept. */
  for (i = i + (i < n); rc && i < n; i++)
    plan_provider_release(&list[i]);
  *count = out;
  return rc;
}
