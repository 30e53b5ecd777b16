/* See report_export.h. */
#include "src/report/report_export.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/path_name.h"

#include <stdio.h>
#include <string.h>

/* The deepest path of any process's call tree (a node comes after its
 * parent): the length of the buffer paths are read into, or 0 when memory
 * ran out. */
static size_t deepest(const struct report_cpu *c)
{
  size_t i, j, most = 1;
  for (i = 0; i < c->count; i++) {
    const struct report_cpu_process *p = &c->list[i];
    uint32_t *depth = etwcap_calloc(p->node_count + 1, sizeof(*depth));
    if (!depth)
      return 0;
    for (j = 1; j < p->node_count; j++) {
      depth[j] = depth[p->nodes[j].parent] + 1;
      if (depth[j] > most)
        most = depth[j];
    }
    etwcap_free(depth);
  }
  return most;
}

/* A frame of a folded line: its name without the separator or breaks. */
static void folded_name(struct report_writer *w, const char *name)
{
  char piece[256];
  size_t n = 0;
  for (; *name; name++) {
    char ch = *name == ';' ? ':' : (*name == '\n' || *name == '\r') ? ' ' : *name;
    piece[n++] = ch;
    if (n == sizeof(piece) - 1) {
      piece[n] = '\0';
      rw_puts(w, piece);
      n = 0;
    }
  }
  piece[n] = '\0';
  rw_puts(w, piece);
}

static void folded(struct report_writer *w, const struct report *r, uint32_t *path, size_t cap)
{
  size_t i, j, k;
  for (i = 0; i < r->cpu.count; i++) {
    const struct report_cpu_process *p = &r->cpu.list[i];
    for (j = 0; j < p->node_count; j++) {
      size_t n;
      if (!p->nodes[j].weight)
        continue;
      n = report_cpu_path(p, (uint32_t)j, path, cap);
      folded_name(w, p->name[0] ? p->name : "?");
      for (k = 0; k < n; k++) {
        rw_puts(w, ";");
        folded_name(w, stack_frames_name(&r->frames, path[k]));
      }
      rw_puts(w, " ");
      rw_uint(w, p->nodes[j].weight);
      rw_puts(w, "\n");
    }
  }
}

/* speedscope's frames are the frames the exported processes use, in order
 * of first use; index_of maps a frame to its index + 1. */
static void speedscope(struct report_writer *w, const struct report *r, uint32_t *path,
                       size_t cap, uint32_t *index_of)
{
  size_t i, j, k, frames = 0;
  char label[REPORT_PROCESS_NAME_MAX + 32];
  rw_puts(w, "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
             "\"exporter\": \"etwcap\", \"name\": ");
  rw_json_string(w, path_base_name(r->trace));
  rw_puts(w, ", \"activeProfileIndex\": 0,\n\"shared\": {\"frames\": [");
  for (i = 0; i < r->cpu.count; i++) {
    const struct report_cpu_process *p = &r->cpu.list[i];
    for (j = 1; j < p->node_count; j++) {
      uint32_t f = p->nodes[j].frame;
      if (index_of[f])
        continue;
      index_of[f] = (uint32_t)++frames;
      rw_puts(w, frames > 1 ? ",\n{\"name\": " : "\n{\"name\": ");
      rw_json_string(w, stack_frames_name(&r->frames, f));
      rw_puts(w, "}");
    }
  }
  rw_puts(w, "]},\n\"profiles\": [");
  for (i = 0; i < r->cpu.count; i++) {
    const struct report_cpu_process *p = &r->cpu.list[i];
    int first = 1;
    snprintf(label, sizeof(label), "%s (%u)", p->name[0] ? p->name : "?", (unsigned)p->pid);
    rw_puts(w, i ? ",\n{\"type\": \"sampled\", \"name\": " : "\n{\"type\": \"sampled\", \"name\": ");
    rw_json_string(w, label);
    rw_puts(w, ", \"unit\": \"none\", \"startValue\": 0, \"endValue\": ");
    rw_uint(w, p->samples);
    rw_puts(w, ",\n\"samples\": [");
    for (j = 0; j < p->node_count; j++) {
      size_t n;
      if (!p->nodes[j].weight)
        continue;
      n = report_cpu_path(p, (uint32_t)j, path, cap);
      rw_puts(w, first ? "\n[" : ",\n[");
      first = 0;
      for (k = 0; k < n; k++) {
        if (k)
          rw_puts(w, ",");
        rw_uint(w, index_of[path[k]] - 1);
      }
      rw_puts(w, "]");
    }
    rw_puts(w, "],\n\"weights\": [");
    first = 1;
    for (j = 0; j < p->node_count; j++) {
      if (!p->nodes[j].weight)
        continue;
      rw_puts(w, first ? "" : ",");
      first = 0;
      rw_uint(w, p->nodes[j].weight);
    }
    rw_puts(w, "]}");
  }
  rw_puts(w, "]}\n");
}

int report_export_write(struct report_writer *w, const struct report *r,
                        enum report_export_format format)
{
  size_t cap = deepest(&r->cpu);
  uint32_t *path = cap ? etwcap_calloc(cap, sizeof(*path)) : NULL;
  uint32_t *index_of = NULL;
  if (!path)
    return ETWCAP_E_NOMEM;
  if (format == REPORT_EXPORT_FOLDED) {
    folded(w, r, path, cap);
  } else {
    index_of = etwcap_calloc(r->frames.frame_count + 1, sizeof(*index_of));
    if (!index_of) {
      etwcap_free(path);
      return ETWCAP_E_NOMEM;
    }
    speedscope(w, r, path, cap, index_of);
  }
  etwcap_free(index_of);
  etwcap_free(path);
  return 0;
}
