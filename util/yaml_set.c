/* SPDX-License-Identifier: BSD-3-Clause */
/* util/yaml_set.c — `--set key.path=value`: an edit of a loaded document,
 * made before anything reads it, so an override passes every check a value
 * written in the file would (util/yaml.h). */
#include "util/yaml.h"

#include <errno.h>
#include <stdalign.h>
#include <stdio.h>
#include <string.h>

#include "util/yaml_int.h"

static struct cy_node *new_map(struct cy_doc *doc, const struct cy_node *at)
{
	struct cy_node *m = cy__arena_alloc(&doc->arena, sizeof(*m), alignof(struct cy_node));

	if (m)
		*m = (struct cy_node){.kind = CY_MAP, .line = at->line, .col = at->col,
				      .file = at->file};
	return m;
}

/* Adds key -> val to mapping m (arrays in the arena: the old ones stay
 * there until the document is freed). */
static int map_add(struct cy_doc *doc, struct cy_node *m, const char *key, size_t klen,
		   struct cy_node *val)
{
	struct cy_node **keys = cy__arena_alloc(&doc->arena, (m->n + 1) * sizeof(*keys),
						alignof(struct cy_node *));
	struct cy_node **vals = cy__arena_alloc(&doc->arena, (m->n + 1) * sizeof(*vals),
						alignof(struct cy_node *));
	struct cy_node *k = cy__arena_alloc(&doc->arena, sizeof(*k), alignof(struct cy_node));

	if (!keys || !vals || !k)
		return -ENOMEM;
	*k = (struct cy_node){.kind = CY_SCALAR, .line = val->line, .col = val->col,
			      .file = val->file, .len = klen,
			      .str = cy__arena_strndup(&doc->arena, key, klen)};
	if (!k->str)
		return -ENOMEM;
	if (m->n) {
		memcpy(keys, m->keys, m->n * sizeof(*keys));
		memcpy(vals, m->vals, m->n * sizeof(*vals));
	}
	keys[m->n] = k;
	vals[m->n] = val;
	m->keys = keys;
	m->vals = vals;
	m->n++;
	return 0;
}

/* The value of key (klen bytes) in m, as an index, or -1. */
static long find(const struct cy_node *m, const char *key, size_t klen)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->keys[i]->len == klen && !memcmp(m->keys[i]->str, key, klen))
			return (long)i;
	return -1;
}

static bool valid_path(const char *s, size_t len)
{
	bool start = true;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '.') {
			if (start)
				return false;
			start = true;
			continue;
		}
		if (!(c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9')))
			return false;
		start = false;
	}
	return len > 0 && !start;
}

int cy_set(struct cy_doc *doc, const char *assignment, struct cy_error *err)
{
	const char *eq = strchr(assignment, '=');
	struct cy_doc value = {0};
	struct cy_node *m;
	const char *part;
	int rc;

	if (!eq || !valid_path(assignment, (size_t)(eq - assignment))) {
		snprintf(err->msg, sizeof(err->msg), "--set %s: expected KEY=VALUE with KEY a path of "
			 "names joined by dots, such as sizes.max=1GiB", assignment);
		return -EINVAL;
	}
	if (!doc->root || doc->root->kind != CY_MAP) {
		snprintf(err->msg, sizeof(err->msg), "--set %s: the file does not hold a mapping",
			 assignment);
		return -EINVAL;
	}
	/* The value is YAML too ("[sim, data]", "{min: 1K}"), parsed on its own
	 * under a name that says where it came from. */
	char name[CY_ERR_LEN / 2];

	snprintf(name, sizeof(name), "--set %s", assignment);
	rc = cy_load_string(name, eq + 1, strlen(eq + 1), &value, err);
	if (rc == -EINVAL && !eq[1]) {
		snprintf(err->msg, sizeof(err->msg), "--set %s: no value after '='", assignment);
		return rc;
	}
	if (rc)
		return rc;
	/* Its blocks join the document's, which frees them. */
	struct arena_block *tail = value.arena;

	while (tail->next)
		tail = tail->next;
	tail->next = doc->arena;
	doc->arena = value.arena;

	m = doc->root;
	part = assignment;
	for (;;) {
		const char *dot = memchr(part, '.', (size_t)(eq - part));
		size_t klen = (size_t)((dot ? dot : eq) - part);
		long i = find(m, part, klen);

		if (!dot) {
			if (i >= 0) {
				m->vals[i] = value.root;
				return 0;
			}
			return map_add(doc, m, part, klen, value.root) ? -ENOMEM : 0;
		}
		if (i < 0) {
			struct cy_node *sub = new_map(doc, value.root);

			if (!sub || map_add(doc, m, part, klen, sub))
				return -ENOMEM;
			m = sub;
		} else if (m->vals[i]->kind != CY_MAP) {
			return cy_fail(err, m->vals[i], "--set %s: '%.*s' is not a mapping here, so it "
				       "has no key '%.*s'", assignment, (int)klen, part,
				       (int)(eq - dot - 1), dot + 1);
		} else {
			m = m->vals[i];
		}
		part = dot + 1;
	}
}
