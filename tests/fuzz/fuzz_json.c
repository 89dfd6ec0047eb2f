/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/fuzz/fuzz_json.c — the JSON reader (util/yaml_json.c: jansson, then
 * the same node tree as YAML's, with positions) on arbitrary bytes.  Errors
 * are expected; a crash, a leak, a hang, an error without "in.json:LINE:COL"
 * or a tree that breaks its own rules is a bug:
 *   - every node has a position inside the text (line >= 1, col >= 1,
 *     line <= the text's lines + 1), and the document's name;
 *   - a scalar's len is its strlen (no NUL inside, as the reader promises);
 *   - a mapping's keys are quoted scalars, and no two are equal;
 *   - what the reader accepts, jansson accepts with the same flags (the
 *     reader only adds refusals: NUL, depth, number range). */
#include <errno.h>
#include <jansson.h>

#include "tests/fuzz/fuzz.h"
#include "util/yaml.h"

static uint32_t lines_of(const uint8_t *data, size_t size)
{
	uint32_t n = 1;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

static void check_node(const struct cy_node *n, uint32_t max_line, unsigned depth)
{
	if (!n)
		fuzz_fail("a NULL node");
	if (depth > 66)
		fuzz_fail("a tree deeper than the reader's limit");
	if (n->line < 1 || n->col < 1 || n->line > max_line)
		fuzz_fail("a node at %u:%u of a %u-line text", n->line, n->col, max_line);
	if (!n->file || strcmp(n->file, "in.json"))
		fuzz_fail("a node without the document's name");
	switch (n->kind) {
	case CY_SCALAR:
		if (!n->str || strlen(n->str) != n->len)
			fuzz_fail("a scalar whose len is not its text's");
		break;
	case CY_MAP:
		for (size_t i = 0; i < n->n; i++) {
			if (!n->keys[i] || n->keys[i]->kind != CY_SCALAR || !n->keys[i]->quoted)
				fuzz_fail("a key that is not a quoted scalar");
			for (size_t j = 0; j < i; j++)
				if (!strcmp(n->keys[i]->str, n->keys[j]->str))
					fuzz_fail("a duplicate key accepted: \"%s\"", n->keys[i]->str);
			check_node(n->keys[i], max_line, depth + 1);
			check_node(n->vals[i], max_line, depth + 1);
		}
		break;
	case CY_SEQ:
		for (size_t i = 0; i < n->n; i++)
			check_node(n->vals[i], max_line, depth + 1);
		break;
	default:
		fuzz_fail("a node of kind %d", (int)n->kind);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cy_doc doc = {0};
	struct cy_error err = {""};
	int rc = cy_load_json_string("in.json", (const char *)data, size, &doc, &err);

	if (rc) {
		if (rc != -EINVAL && rc != -ENOMSG && rc != -ENOMEM && rc != -EFBIG)
			fuzz_fail("error %d (%s)", rc, err.msg);
		if (strncmp(err.msg, "in.json:", 8))
			fuzz_fail("an error without the document's position: '%s'", err.msg);
		if (doc.root)
			fuzz_fail("a refused document left a tree");
		return 0;
	}
	check_node(doc.root, lines_of(data, size), 0);
	cy_free(&doc);
	/* jansson, with the reader's flags, accepts it too */
	json_error_t je;
	json_t *j = json_loadb((const char *)data, size,
			       JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL |
				       JSON_ALLOW_NUL, &je);

	if (!j)
		fuzz_fail("accepted here, refused by jansson: %s", je.text);
	json_decref(j);
	return 0;
}
