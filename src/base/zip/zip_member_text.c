/* See zip_member_text.h. */
#include "src/base/zip/zip_member_text.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/zip/zip_directory.h"

#include <stdio.h>
#include <string.h>

struct text_sink {
  char *text;
  size_t len, max;
};

static int to_text(void *ctx, const void *data, size_t len)
{
  struct text_sink *s = ctx;
  if (len > s->max - s->len)
    return ETWCAP_E_RANGE; /* longer than its directory entry said */
  memcpy(s->text + s->len, data, len);
  s->len += len;
  return 0;
}

/* The last entry named `name`, or NULL. */
static const struct zip_entry *find(const struct zip_directory *dir, const char *name)
{
  size_t i;
  for (i = 0; i < dir->count; i++)
    if (strcmp(dir->entries[i].name, name) == 0 && !zip_directory_is_shadowed(dir, i))
      return &dir->entries[i];
  return NULL;
}

int zip_member_text(const char *path, const char *name, size_t max, char **text, size_t *len,
                    char *why, size_t why_size)
{
  struct byte_source src;
  struct zip_directory dir;
  struct text_sink s = { NULL, 0, 0 };
  const struct zip_entry *e;
  uint64_t size;
  uint32_t crc;
  int rc;

  *text = NULL;
  *len = 0;
  why[0] = '\0';
  if (byte_source_open_file(&src, path) != 0)
    return ETWCAP_E_NOENT;
  memset(&dir, 0, sizeof(dir));
  if (zip_directory_read(&src, &dir, why, why_size) != 0) {
    why[0] = '\0'; /* not a zip, or not one we can list: no such member */
    byte_source_close(&src);
    return ETWCAP_E_NOENT;
  }
  e = find(&dir, name);
  if (!e) {
    rc = ETWCAP_E_NOENT;
  } else if (e->uncompressed_size > max) {
    snprintf(why, why_size, "%s!%s: larger than %lu bytes", path, name, (unsigned long)max);
    rc = ETWCAP_E_RANGE;
  } else if ((s.text = etwcap_malloc((size_t)e->uncompressed_size + 1)) == NULL) {
    rc = ETWCAP_E_NOMEM;
  } else {
    s.max = (size_t)e->uncompressed_size;
    rc = zip_entry_read(&src, e, to_text, &s, &size, &crc, why, why_size);
  }
  zip_directory_release(&dir);
  byte_source_close(&src);
  if (rc) {
    etwcap_free(s.text);
    return rc;
  }
  s.text[s.len] = '\0';
  *text = s.text;
  *len = s.len;
  return 0;
}
