/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/sweep_grid_file.c — `cclab sweep --grid-file FILE`: the points of a
 * sweep listed one by one rather than as a product of --grid lists.
 *
 * The file is YAML: a list of mappings, each a point, its keys those
 * --set names, every point the same keys (in any order):
 *
 *   - {algorithm: ring, protocol: simple, channels: 8}
 *   - {algorithm: tree, protocol: ll, channels: 2}
 *
 * Points run and merge in the file's order.  Refused, with the file, line
 * and column: anything but a non-empty list of mappings of scalars, a point
 * whose keys are not the first point's, a point that repeats another, an
 * empty value or one with a line break. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sweep.h"
#include "util/yaml.h"

/* Key i's index of value v, added if new; -1 when the key has as many as
 * it may. */
static int64_t value_index(struct sweep_key *k, const char *v, size_t len)
{
	char **vals;

	for (uint32_t i = 0; i < k->nvals; i++)
		if (strlen(k->vals[i]) == len && !memcmp(k->vals[i], v, len))
			return i;
	if (k->nvals == SWEEP_MAX_VALUES)
		return -1;
	vals = realloc(k->vals, (k->nvals + 1) * sizeof(*vals));
	if (!vals)
		return -1;
	k->vals = vals;
	if (!(k->vals[k->nvals] = strndup(v, len)))
		return -1;
	return k->nvals++;
}

/* The first point's keys become the sweep's, in its order. */
static int first_keys(struct sweep_args *a, const struct cy_node *m, struct cy_error *err)
{
	if (m->n > SWEEP_MAX_KEYS)
		return cy_fail(err, m, "a point of %zu keys: at most %u", m->n, SWEEP_MAX_KEYS);
	for (size_t i = 0; i < m->n; i++) {
		if (!(a->keys[i].key = strdup(m->keys[i]->str)))
			return cy_fail(err, m, "out of memory");
		a->nkeys = (uint32_t)i + 1;
	}
	return 0;
}

/* Point p (mapping m) into a->list. */
static int add_point(struct sweep_args *a, uint64_t p, const struct cy_node *m,
		     struct cy_error *err)
{
	uint32_t *idx = a->list + p * a->nkeys;

	if (m->kind != CY_MAP || !m->n)
		return cy_fail(err, m, "a point is a mapping of keys to values, such as {algorithm: "
			       "ring, channels: 8}; this is %s", cy_kind_name(m));
	if (!p && first_keys(a, m, err))
		return -EINVAL;
	if (m->n != a->nkeys)
		return cy_fail(err, m, "point %llu has %zu keys, the first point %u: every point sets "
			       "the same keys", (unsigned long long)p, m->n, a->nkeys);
	for (uint32_t i = 0; i < a->nkeys; i++) {
		const struct cy_node *v = cy_get(m, a->keys[i].key);
		int64_t vi;

		if (!v)
			return cy_fail(err, m, "point %llu has no '%s', which the first point sets",
				       (unsigned long long)p, a->keys[i].key);
		if (v->kind != CY_SCALAR || !v->len || memchr(v->str, '\n', v->len) ||
		    v->len > SWEEP_VALUE_MAX)
			return cy_fail(err, v, "'%s': expected a value of one line, at most %u "
				       "bytes", a->keys[i].key, SWEEP_VALUE_MAX);
		if ((vi = value_index(&a->keys[i], v->str, v->len)) < 0)
			return cy_fail(err, v, "'%s': more than %u values, or out of memory",
				       a->keys[i].key, SWEEP_MAX_VALUES);
		idx[i] = (uint32_t)vi;
	}
	for (uint64_t q = 0; q < p; q++)
		if (!memcmp(a->list + q * a->nkeys, idx, a->nkeys * sizeof(*idx)))
			return cy_fail(err, m, "point %llu repeats point %llu", (unsigned long long)p,
				       (unsigned long long)q);
	return 0;
}

int sweep_grid_file(struct sweep_args *a, const char *path, struct cy_error *err)
{
	struct cy_doc doc;
	const struct cy_node *root;
	int rc = cy_load_file(path, &doc, err);

	if (rc)
		return rc;
	root = doc.root;
	if (root->kind != CY_SEQ || !root->n) {
		rc = cy_fail(err, root, "a grid file is a list of points, one mapping each, such as "
			     "- {algorithm: ring, channels: 8}; this is %s",
			     root->kind == CY_SEQ ? "an empty list" : cy_kind_name(root));
	} else if (root->n > SWEEP_MAX_POINTS) {
		rc = cy_fail(err, root, "%zu points: at most %u", root->n, SWEEP_MAX_POINTS);
	} else if (!(a->list = calloc(root->n * SWEEP_MAX_KEYS, sizeof(*a->list)))) {
		rc = cy_fail(err, root, "out of memory");
	} else {
		a->nlist = root->n;
		for (size_t p = 0; p < root->n && !rc; p++)
			rc = add_point(a, p, root->vals[p], err);
	}
	cy_free(&doc);
	return rc ? -EINVAL : 0;
}
