/* Fixed payload layouts: a list of typed fields in payload order, as the
 * documented manifests give them (CLR: ClrEtwAll.man templates; kernel:
 * the MOF classes TraceEvent decodes).  A layout is walked field by field
 * because strings and SIDs have variable length.  Pure. */
#ifndef ETWCAP_PAYLOAD_LAYOUT_H
#define ETWCAP_PAYLOAD_LAYOUT_H

#include "etw/event/payload_cursor.h"
#include "etw/event/payload_value.h"

#include <stddef.h>

enum tf_kind {
  TF_U8, TF_U16, TF_U32, TF_U64, TF_I32, TF_I64, TF_PTR, TF_F32, TF_F64,
  TF_BOOL32, TF_GUID, TF_UTF16Z, TF_ANSIZ, TF_SID
};

struct tf_field {
  const char *name;
  enum tf_kind kind;
};

struct tf_layout {
  const struct tf_field *fields;
  size_t count;
};

/* Reads the field at the cursor into v (v may be NULL to skip it).
 * Returns 0, or -1 when the payload ended first. */
int tf_read(struct pl_cursor *c, enum tf_kind kind, struct tv_value *v);

/* Finds `name` (ASCII case-insensitive) in the layout and decodes it from
 * the payload: 1 found, 0 no such field, -1 the payload is too short. */
int tf_find(const struct tf_layout *l, const uint8_t *data, size_t len, unsigned ptr_size,
            const char *name, struct tv_value *v);
/* Decodes field `index` (0-based). Same returns. */
int tf_at(const struct tf_layout *l, const uint8_t *data, size_t len, unsigned ptr_size,
          size_t index, struct tv_value *v);
/* Index of a field name, or -1. */
int tf_index(const struct tf_layout *l, const char *name);

#endif
