/* Allocation through a replaceable table (see alloc.h). */
#include "src/base/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct etwcap_allocator current = { malloc, calloc, realloc, free };

void etwcap_set_allocator(const struct etwcap_allocator *a)
{
  static const struct etwcap_allocator libc = { malloc, calloc, realloc, free };
  current = a ? *a : libc;
}

void *etwcap_malloc(size_t size)
{
  return current.malloc_fn(size ? size : 1);
}

/* The C library's calloc, not malloc and memset: where it takes a large
 * block from fresh zeroed pages (glibc's mmap threshold, 128 KiB at
 * first), it need not clear them, and a page the caller never touches is
 * never faulted in; elsewhere it clears what memset would have. */
void *etwcap_calloc(size_t count, size_t size)
{
  if (size && count > SIZE_MAX / size)
    return NULL;
  if (!count || !size)
    count = size = 1;
  return current.calloc_fn(count, size);
}

void *etwcap_realloc(void *ptr, size_t size)
{
  return current.realloc_fn(ptr, size ? size : 1);
}

void *etwcap_reallocarray(void *ptr, size_t count, size_t size)
{
  if (size && count > SIZE_MAX / size)
    return NULL;
  return etwcap_realloc(ptr, count * size);
}

void etwcap_free(void *ptr)
{
  if (ptr)
    current.free_fn(ptr);
}

char *etwcap_strndup(const char *s, size_t n)
{
  char *copy = etwcap_malloc(n + 1);
  if (copy) {
    memcpy(copy, s, n);
    copy[n] = '\0';
  }
  return copy;
}

char *etwcap_strdup(const char *s)
{
  return etwcap_strndup(s, strlen(s));
}

int etwcap_grow(void **items, size_t *cap, size_t count, size_t size, size_t first)
{
  size_t n;
  void *p;
  if (count < *cap)
    return 0;
  n = *cap ? *cap * 2 : first;
  if (n < *cap)
    return -1;
  p = etwcap_reallocarray(*items, n, size);
  if (!p)
    return -1;
  *items = p;
  *cap = n;
  return 0;
}
