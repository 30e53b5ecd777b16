/* The one allocator every etwcap module uses.  Tests replace it to fail the
 * Nth allocation and prove every error path releases what it took. */
#ifndef ETWCAP_ALLOC_H
#define ETWCAP_ALLOC_H

#include <stddef.h>

struct etwcap_allocator {
  void *(*malloc_fn)(size_t size);
  void *(*calloc_fn)(size_t count, size_t size);
  void *(*realloc_fn)(void *ptr, size_t size);
  void (*free_fn)(void *ptr);
};

/* Replaces the allocator; NULL restores the C library's. */
void etwcap_set_allocator(const struct etwcap_allocator *a);

void *etwcap_malloc(size_t size);
void *etwcap_calloc(size_t count, size_t size); /* overflow-checked, zeroed */
void *etwcap_realloc(void *ptr, size_t size);
/* Grows an array of `count` items of `size` bytes; NULL on overflow or OOM
 * (the old block is then left untouched). */
void *etwcap_reallocarray(void *ptr, size_t count, size_t size);
/* Makes room for one more item in a growing array: when count == *cap,
 * doubles *cap (first: `first`) and reallocates *items.  0, or -1 on
 * overflow or OOM (the array is then left as it was). */
int etwcap_grow(void **items, size_t *cap, size_t count, size_t size, size_t first);
void etwcap_free(void *ptr);
char *etwcap_strdup(const char *s);
char *etwcap_strndup(const char *s, size_t n);

#endif
