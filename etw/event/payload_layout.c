/* See payload_layout.h. */
#include "etw/event/payload_layout.h"

#include "src/base/strutil.h"

int tf_read(struct pl_cursor *c, enum tf_kind kind, struct tv_value *v)
{
  struct tv_value scratch;
  uint8_t g[16];
  size_t i;
  if (!v)
    v = &scratch;
  switch (kind) {
  case TF_U8: tv_set_uint(v, pl_u8(c)); break;
  case TF_U16: tv_set_uint(v, pl_u16(c)); break;
  case TF_U32: tv_set_uint(v, pl_u32(c)); break;
  case TF_U64: tv_set_uint(v, pl_u64(c)); break;
  case TF_I32: tv_set_int(v, (int32_t)pl_u32(c)); break;
  case TF_I64: tv_set_int(v, (int64_t)pl_u64(c)); break;
  case TF_PTR: tv_set_uint(v, pl_ptr(c)); break;
  case TF_F32: tv_set_float(v, pl_f32(c)); break;
  case TF_F64: tv_set_float(v, pl_f64(c)); break;
  case TF_BOOL32:
    tv_set_bool(v, pl_u32(c) != 0);
    break;
  case TF_GUID: {
    struct etw_guid gd;
    for (i = 0; i < 16; i++)
      g[i] = pl_u8(c);
    gd = guid_from_bytes(g);
    tv_set_guid(v, &gd);
    break;
  }
  case TF_UTF16Z:
    pl_utf16z(c, v->text, sizeof(v->text));
    tv_set_text(v);
    break;
  case TF_ANSIZ:
    pl_ansiz(c, v->text, sizeof(v->text));
    tv_set_text(v);
    break;
  case TF_SID:
    pl_skip_sid(c);
    v->text[0] = '\0';
    v->type = TV_NONE;
    break;
  }
  return c->bad ? -1 : 0;
}

int tf_index(const struct tf_layout *l, const char *name)
{
  size_t i;
  for (i = 0; l && i < l->count; i++)
    if (str_caseeq(l->fields[i].name, name))
      return (int)i;
  return -1;
}

int tf_at(const struct tf_layout *l, const uint8_t *data, size_t len, unsigned ptr_size,
          size_t index, struct tv_value *v)
{
  struct pl_cursor c;
  size_t i;
  if (!l || index >= l->count)
    return 0;
  pl_init(&c, data, len, ptr_size);
  for (i = 0; i < index; i++)
    if (tf_read(&c, l->fields[i].kind, NULL) != 0)
      return -1;
  return tf_read(&c, l->fields[index].kind, v) == 0 ? 1 : -1;
}

int tf_find(const struct tf_layout *l, const uint8_t *data, size_t len, unsigned ptr_size,
            const char *name, struct tv_value *v)
{
  int idx = tf_index(l, name);
  if (idx < 0)
    return 0;
  return tf_at(l, data, len, ptr_size, (size_t)idx, v);
}
