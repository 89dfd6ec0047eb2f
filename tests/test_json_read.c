/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_json_read.c — JSON documents read by jansson into util/yaml.h's
 * trees (util/yaml_json.c), the reader under `cclab compare` and `cclab
 * calibrate` (cli/json_read.h): a good document with every node's position
 * and value (a surrogate pair decoded to its four UTF-8 bytes, numbers kept
 * as written), then broken ones, each with the exact message a user sees:
 * syntax errors at the offending token's line and column, duplicate keys,
 * NULs, NaN, numbers out of range, nesting, another kind of file; then
 * files (missing, too large). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/files.h"

#include "util/yaml.h"

static void scalar_at(const struct cy_node *n, const char *text, bool quoted, uint32_t line,
		      uint32_t col)
{
	assert_non_null(n);
	assert_int_equal(n->kind, CY_SCALAR);
	assert_string_equal(n->str, text);
	assert_int_equal(n->len, strlen(text));
	assert_int_equal(n->quoted, quoted);
	assert_int_equal(n->line, line);
	assert_int_equal(n->col, col);
}

static const char good[] =
	"{\n"                                              /* 1 */
	"  \"name\": \"grin \\ud83d\\ude00\",\n"           /* 2 */
	"  \"count\": 18446744073709551615,\n"             /* 3 */
	"  \"list\": [1.5e3, -0, true, false, null],\n"    /* 4 */
	"  \"caf\\u00e9\": {\"\\u00e9\": \"\"},\n"         /* 5 */
	"\t\"\xc3\xa9\xc3\xa9\": [], \"deep\": {}\n"       /* 6 */
	"}\n";

/* Every node where it is, with jansson's values and the numbers' text. */
static void test_good(void **state)
{
	struct cy_doc doc;
	struct cy_error err;
	const struct cy_node *r, *list, *cafe;
	uint64_t v;

	(void)state;
	assert_int_equal(cy_load_json_string("g.json", good, strlen(good), &doc, &err), 0);
	r = doc.root;
	assert_int_equal(r->kind, CY_MAP);
	assert_int_equal(r->line, 1);
	assert_int_equal(r->col, 1);
	assert_int_equal(r->n, 6);
	scalar_at(r->keys[0], "name", true, 2, 3);
	/* U+1F600, written as Python's json.dump writes it: a surrogate
	 * pair, which YAML 1.1 (libyaml) refused as a syntax error. */
	scalar_at(r->vals[0], "grin \xF0\x9F\x98\x80", true, 2, 11);
	assert_memory_equal(r->vals[0]->str + 5, "\xF0\x9F\x98\x80", 4);
	/* Past a long long: the text stays, and is a whole number. */
	scalar_at(r->vals[1], "18446744073709551615", false, 3, 12);
	assert_int_equal(cy_uint(r->vals[1], "count", 0, UINT64_MAX, &v, &err), 0);
	assert_true(v == UINT64_MAX);
	list = cy_get(r, "list");
	assert_int_equal(list->kind, CY_SEQ);
	assert_int_equal(list->line, 4);
	assert_int_equal(list->col, 11);
	assert_int_equal(list->n, 5);
	scalar_at(list->vals[0], "1.5e3", false, 4, 12);
	scalar_at(list->vals[1], "-0", false, 4, 19);
	scalar_at(list->vals[2], "true", false, 4, 23);
	scalar_at(list->vals[3], "false", false, 4, 29);
	scalar_at(list->vals[4], "null", false, 4, 36);
	/* Keys decoded as values are; an empty string is a quoted one. */
	cafe = cy_get(r, "caf\xc3\xa9");
	assert_non_null(cafe);
	assert_int_equal(cafe->kind, CY_MAP);
	assert_int_equal(cafe->col, 16);
	scalar_at(cafe->keys[0], "\xc3\xa9", true, 5, 17);
	scalar_at(cafe->vals[0], "", true, 5, 27);
	/* Columns count characters (a tab is one, as are two-byte ones). */
	scalar_at(r->keys[4], "\xc3\xa9\xc3\xa9", true, 6, 2);
	assert_int_equal(r->vals[4]->kind, CY_SEQ);
	assert_int_equal(r->vals[4]->n, 0);
	assert_int_equal(r->vals[4]->col, 8);
	assert_int_equal(r->vals[5]->kind, CY_MAP);
	assert_int_equal(r->vals[5]->n, 0);
	assert_int_equal(r->vals[5]->col, 20);
	assert_string_equal(r->vals[5]->file, "g.json");
	/* A value that is not an object is a document too. */
	cy_free(&doc);
	assert_null(doc.root);
	assert_int_equal(cy_load_json_string("s.json", " \"x\" ", 5, &doc, &err), 0);
	scalar_at(doc.root, "x", true, 1, 2);
	cy_free(&doc);
}

/* 64 levels are read, the 65th refused at its bracket; jansson's own limit
 * (2048) is said the same way. */
static void test_depth(void **state)
{
	char text[2 * 3000 + 1];
	struct cy_doc doc;
	struct cy_error err;

	(void)state;
	for (int depth = 64; depth <= 65; depth++) {
		memset(text, '[', (size_t)depth);
		memset(text + depth, ']', (size_t)depth);
		int rc = cy_load_json_string("d.json", text, 2 * (size_t)depth, &doc, &err);

		if (depth == 64) {
			assert_int_equal(rc, 0);
			cy_free(&doc);
		} else {
			assert_int_equal(rc, -EINVAL);
			assert_string_equal(err.msg, "d.json:1:65: nesting deeper than 64 levels; "
				       "expected a flatter document");
		}
	}
	memset(text, '[', 3000);
	memset(text + 3000, ']', 3000);
	assert_int_equal(cy_load_json_string("d.json", text, 6000, &doc, &err), -EINVAL);
	assert_non_null(strstr(err.msg, ": nesting deeper than 64 levels"));
}

static const struct bad {
	const char *text, *msg;
	int rc;
} corpus[] = {
	/* at the token jansson stopped at, not past it */
	{"{\"a\": 1,}", "b.json:1:9: JSON syntax error: string or '}' expected near '}'", -EINVAL},
	{"{\"command\": \"sim\",\n  \"sizes\": [1, 2\n}\n",
	 "b.json:3:1: JSON syntax error: ']' expected near '}'", -EINVAL},
	{"{\"a\": truex}", "b.json:1:7: 'a': JSON syntax error: invalid token near 'truex'", -EINVAL},
	{"{\"\xc3\xa9\": x}", "b.json:1:7: '\xc3\xa9': JSON syntax error: invalid token near 'x'",
	 -EINVAL},
	{"{} x", "b.json:1:4: JSON syntax error: end of file expected near 'x'", -EINVAL},
	{"{\"a\": 1", "b.json:1:8: JSON syntax error: '}' expected near end of file", -EINVAL},
	{"{\"a\": \"abc", "b.json:1:7: 'a': JSON syntax error: premature end of input near '\"abc'",
	 -EINVAL},
	{"{\"a\": 'x'}", "b.json:1:7: 'a': JSON syntax error: invalid token near '''", -EINVAL},
	{"{a: 1}", "b.json:1:2: JSON syntax error: string or '}' expected near 'a'", -EINVAL},
	/* JSON_REJECT_DUPLICATES: which value was meant is not ours to guess */
	{"{\"a\": 1,\n \"a\": 2}",
	 "b.json:2:2: duplicate key \"a\" in an object; expected each key once", -EINVAL},
	{"{\"x\": {\"b\\u0061\": 1, \"ba\": 2}}",
	 "b.json:1:22: duplicate key \"ba\" in an object; expected each key once", -EINVAL},
	/* what Python's json.dump writes for float('nan') without allow_nan=False */
	{"{\"time_us\": NaN}", "b.json:1:13: 'time_us': JSON syntax error: 'NaN' is not a JSON "
			     "value; JSON has no NaN or infinity (cclab writes null)", -EINVAL},
	{"[Infinity]", "b.json:1:2: JSON syntax error: 'Infinity' is not a JSON value; JSON has "
		       "no NaN or infinity (cclab writes null)", -EINVAL},
	{"{\"t\": 1e999}", "b.json:1:7: 't': the number '1e999' is out of range", -EINVAL},
	{"{\"s\": \"a\\u0000b\"}",
	 "b.json:1:7: 's': a NUL character (\\u0000) in a string; expected text without it", -EINVAL},
	/* half a surrogate pair is no character */
	{"[\"\\ud83d\"]", "b.json:1:2: JSON syntax error: invalid Unicode '\\uD83D' near "
			  "'\"\\ud83d\"'", -EINVAL},
	{"[\"\\ude00\\ud83d\"]", "b.json:1:2: JSON syntax error: invalid Unicode '\\uDE00' near "
				 "'\"\\ude00\\ud83d\"'", -EINVAL},
	{"{\"a\":\n  \"\xff\"}",
	 "b.json:2:3: 'a': JSON syntax error: unable to decode byte 0xff; expected UTF-8 text", -EINVAL},
	/* a raw control character in a string: named, never printed */
	{"[\"a\x01\"]", "b.json:1:2: JSON syntax error: control character 0x1 near '\"a'", -EINVAL},
	{"", "b.json:1:1: empty document; expected JSON text", -EINVAL},
	{"\n \n", "b.json:3:1: empty document; expected JSON text", -EINVAL},
	/* not JSON from the first word on: cli/json_read.c says what it is */
	{"t_ps,dur_ps,kind\n", "b.json:1:1: JSON syntax error: invalid token near 't'", -ENOMSG},
	{"topology: {generator: star}\n",
	 "b.json:1:1: JSON syntax error: invalid token near 'topology'", -ENOMSG},
};

static void test_corpus(void **state)
{
	struct cy_doc doc;
	struct cy_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		const struct bad *c = &corpus[i];
		int rc = cy_load_json_string("b.json", c->text, strlen(c->text), &doc, &err);

		if (rc != c->rc || strcmp(err.msg, c->msg))
			fail_msg("#%zu '%s': rc %d, message\n  '%s'\nwanted\n  '%s'", i, c->text, rc,
				 err.msg, c->msg);
		assert_null(doc.root);
		assert_null(doc.arena);
	}
	/* A key longer than jansson's message keeps: its start from the
	 * text, shown cut. */
	char key[301], text[700];

	memset(key, 'k', 300);
	key[300] = '\0';
	snprintf(text, sizeof(text), "{\"%s\": 1, \"%s\": 2}", key, key);
	assert_int_equal(cy_load_json_string("b.json", text, strlen(text), &doc, &err), -EINVAL);
	assert_string_equal(err.msg, "b.json:1:309: duplicate key \"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
			    "kkkkkkkkkkkk... in an object; expected each key once");
	/* and a number too long for it */
	memset(key, '9', 300);
	snprintf(text, sizeof(text), "{\"n\":\n [%se9]}", key);
	assert_int_equal(cy_load_json_string("b.json", text, strlen(text), &doc, &err), -EINVAL);
	assert_string_equal(err.msg, "b.json:2:3: the number '9999999999999999999999999999999999999999"
			    "99999999...' is out of range");
	/* A raw NUL is named as such, wherever it is. */
	assert_int_equal(cy_load_json_string("b.json", "{\"a\":\n 1}\0", 10, &doc, &err), -EINVAL);
	assert_string_equal(err.msg, "b.json:2:4: a NUL byte in the file; expected JSON text");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void test_files(void **state)
{
	struct tmpdir t;
	struct cy_doc doc;
	struct cy_error err;
	char path[128], want[256];
	int fd;

	(void)state;
	tmpdir_make(&t, "json");
	path_in(path, sizeof(path), &t, "good.json");
	write_file(path, good);
	assert_int_equal(cy_load_json_file(path, &doc, &err), 0);
	assert_string_equal(doc.root->vals[0]->file, path);
	cy_free(&doc);
	write_file(path, "{\"a\": 1,\n\"a\": 2}\n");
	assert_int_equal(cy_load_json_file(path, &doc, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s:2:1: duplicate key \"a\" in an object; expected each key "
		 "once", path);
	assert_string_equal(err.msg, want);
	assert_int_equal(unlink(path), 0);

	path_in(path, sizeof(path), &t, "missing.json");
	assert_int_equal(cy_load_json_file(path, &doc, &err), -ENOENT);
	snprintf(want, sizeof(want), "%s: cannot read: No such file or directory", path);
	assert_string_equal(err.msg, want);

	/* A result is about 1.1 KB per rank and size: 20 MiB (a large
	 * sim --json) reads, past the scenarios' 16 MiB ... */
	path_in(path, sizeof(path), &t, "large.json");
	FILE *f = fopen(path, "w");
	static char mib[(1 << 20) + 1];

	assert_non_null(f);
	memset(mib, 'a', sizeof(mib) - 1);
	for (int i = 0; i < 20; i++)
		assert_true(fprintf(f, "%s\"s%d\": \"%s\"", i ? ", " : "{", i, mib) > 0);
	assert_true(fputs("}\n", f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(cy_load_json_file(path, &doc, &err), 0);
	assert_int_equal(doc.root->n, 20);
	assert_int_equal(doc.root->vals[19]->len, 1u << 20);
	cy_free(&doc);
	assert_int_equal(unlink(path), 0);
	/* ... and past 256 MiB it is the wrong file (a sparse one here). */
	path_in(path, sizeof(path), &t, "big.json");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, ((off_t)256 << 20) + 1), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(cy_load_json_file(path, &doc, &err), -EFBIG);
	snprintf(want, sizeof(want), "%s: too large for a --json result (more than 256 MiB)", path);
	assert_string_equal(err.msg, want);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(t.path), 0);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests_name("json_read", t, NULL, NULL);
}
