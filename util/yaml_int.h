/* SPDX-License-Identifier: BSD-3-Clause */
/* util/yaml_int.h — the document layer's arena and helpers, shared by its
 * files (yaml.c parses YAML and checks, yaml_set.c edits a loaded
 * document, yaml_json.c parses JSON into the same trees).  Internal. */
#ifndef CCLAB_UTIL_YAML_INT_H
#define CCLAB_UTIL_YAML_INT_H

#include <stddef.h>
#include <stdint.h>

/* One list of blocks; a document frees them all at once. */
struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

void *cy__arena_alloc(void **arena, size_t size, size_t align);
char *cy__arena_strndup(void **arena, const char *s, size_t len);
void cy__arena_release(void *arena);

struct cy_doc;
struct cy_error;

/* A parser of one syntax: doc->root from text (no NUL in it: refused
 * before), or an error in err. */
typedef int cy__parse_fn(struct cy_doc *doc, const char *text, size_t len,
			 struct cy_error *err);

/* What loading a text of any syntax shares: err cleared, doc named
 * (`name`, or "<string>"), a NUL byte refused ("expected <syntax> text"),
 * then parse_fn; doc left empty on an error. */
int cy__load_text(const char *name, const char *text, size_t len, const char *syntax,
		  cy__parse_fn *parse_fn, struct cy_doc *doc, struct cy_error *err);

/* A file's whole text (util/files.h's checks, at most max bytes) given to
 * load; `what` names the kind of file in the message for one too large
 * ("a --json result"). */
int cy__load_path(const char *path, const char *what, size_t max,
		  int (*load)(const char *name, const char *text, size_t len, struct cy_doc *doc,
			      struct cy_error *err),
		  struct cy_doc *doc, struct cy_error *err);

/* Line and column (1-based, counting characters, as libyaml does) of a
 * byte offset of text. */
void cy__offset_position(const char *text, size_t off, uint32_t *line, uint32_t *col);

/* User text as a message shows it: control characters escaped, cut with
 * "..." past 48 bytes (at a character boundary).  buf: CY__SHOW_LEN bytes. */
#define CY__SHOW_LEN 64
const char *cy__show(char buf[CY__SHOW_LEN], const char *s);

/* The deepest nesting of mappings and lists a document may have, YAML or
 * JSON: cclab's files nest a handful of levels. */
#define CY__MAX_DEPTH 64

#endif /* CCLAB_UTIL_YAML_INT_H */
