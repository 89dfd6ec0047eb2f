/* SPDX-License-Identifier: BSD-3-Clause */
/* util/yaml_int.h — the YAML layer's arena, shared by its files (yaml.c
 * parses and checks, yaml_set.c edits a loaded document).  Internal. */
#ifndef CCLAB_UTIL_YAML_INT_H
#define CCLAB_UTIL_YAML_INT_H

#include <stddef.h>

/* One list of blocks; a document frees them all at once. */
struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

void *cy__arena_alloc(void **arena, size_t size, size_t align);
char *cy__arena_strndup(void **arena, const char *s, size_t len);
void cy__arena_release(void *arena);

#endif /* CCLAB_UTIL_YAML_INT_H */
