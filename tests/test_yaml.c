/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_yaml.c — YAML documents (util/yaml.h): a good document read
 * back with every position, then a corpus of broken ones, each with the
 * exact message a user would see: libyaml's syntax errors, the rules we add
 * (one document, no duplicate keys, anchors, aliases, merge keys or tags),
 * and every typed getter's wrong kind, bad text and out-of-range value.
 * Also files (missing, a directory, too large), suggestions, and freeing. */
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

#define GIB (UINT64_C(1) << 30)

static void at(const struct cy_node *n, enum cy_kind kind, uint32_t line, uint32_t col)
{
	assert_non_null(n);
	assert_int_equal(n->kind, kind);
	assert_int_equal(n->line, line);
	assert_int_equal(n->col, col);
}

static void scalar_at(const struct cy_node *n, const char *text, uint32_t line, uint32_t col)
{
	at(n, CY_SCALAR, line, col);
	assert_string_equal(n->str, text);
	assert_int_equal(n->len, strlen(text));
}

/* ---- a good document ---- */

static const char good[] =
	"# a scenario\n"                          /* 1 */
	"name: ring allreduce\n"                  /* 2 */
	"nranks: 8\n"                             /* 3 */
	"link:\n"                                 /* 4 */
	"  rate: 400Gb/s\n"                       /* 5 */
	"  latency: 1.5us   # one way\n"          /* 6 */
	"  mtu: 4096\n"                           /* 7 */
	"sizes: [1K, 64KiB, 1GiB]\n"              /* 8 */
	"algos:\n"                                /* 9 */
	"  - name: ring\n"                        /* 10 */
	"    gdr: true\n"                         /* 11 */
	"  - {name: 'tree', gdr: false}\n"        /* 12 */
	"note: \"quoted: yes\"\n"                 /* 13 */
	"empty:\n"                                /* 14 */
	"block: |\n"                              /* 15 */
	"  two\n"                                 /* 16 */
	"  lines\n";                              /* 17 */

static const char *const link_keys[] = {"rate", "latency", "mtu", NULL};
static const char *const algo_names[] = {"ring", "tree", "direct"};

static void load_good(struct cy_doc *doc)
{
	struct cy_error err;

	assert_int_equal(cy_load_string("good.yaml", good, strlen(good), doc, &err), 0);
	assert_non_null(doc->root);
	assert_string_equal(doc->name, "good.yaml");
}

static void test_good_tree(void **state)
{
	struct cy_doc doc;
	const struct cy_node *r, *link, *sizes, *algos, *a;

	(void)state;
	load_good(&doc);
	r = doc.root;
	at(r, CY_MAP, 2, 1);
	assert_int_equal(r->n, 8);
	assert_ptr_equal(r->file, doc.name);
	scalar_at(r->keys[0], "name", 2, 1);
	scalar_at(r->vals[0], "ring allreduce", 2, 7);
	scalar_at(cy_get(r, "nranks"), "8", 3, 9);

	link = cy_get(r, "link");
	at(link, CY_MAP, 5, 3);
	assert_int_equal(link->n, 3);
	scalar_at(link->keys[1], "latency", 6, 3);
	scalar_at(link->vals[1], "1.5us", 6, 12);
	scalar_at(cy_get(link, "mtu"), "4096", 7, 8);

	sizes = cy_get(r, "sizes");
	at(sizes, CY_SEQ, 8, 8);
	assert_int_equal(sizes->n, 3);
	assert_null(sizes->keys);
	scalar_at(sizes->vals[0], "1K", 8, 9);
	scalar_at(sizes->vals[1], "64KiB", 8, 13);
	scalar_at(sizes->vals[2], "1GiB", 8, 20);

	algos = cy_get(r, "algos");
	at(algos, CY_SEQ, 10, 3);
	assert_int_equal(algos->n, 2);
	at(algos->vals[0], CY_MAP, 10, 5);
	scalar_at(cy_get(algos->vals[0], "gdr"), "true", 11, 10);
	a = algos->vals[1];
	at(a, CY_MAP, 12, 5);
	scalar_at(cy_get(a, "name"), "tree", 12, 12);
	assert_true(cy_get(a, "name")->quoted);
	assert_false(cy_get(a, "gdr")->quoted);

	scalar_at(cy_get(r, "note"), "quoted: yes", 13, 7);
	assert_true(cy_get(r, "note")->quoted);
	scalar_at(cy_get(r, "empty"), "", 14, 7);
	assert_false(cy_get(r, "empty")->quoted);
	scalar_at(cy_get(r, "block"), "two\nlines\n", 15, 8);
	assert_false(cy_get(r, "block")->quoted);

	assert_null(cy_get(r, "absent"));
	assert_null(cy_get(NULL, "name"));
	assert_null(cy_get(sizes, "name")); /* not a mapping */
	cy_free(&doc);
	assert_null(doc.root);
	assert_null(doc.arena);
}

static void test_good_getters(void **state)
{
	struct cy_doc doc;
	struct cy_error err;
	const struct cy_node *r, *link, *n;
	uint64_t v;
	bool b;
	unsigned idx;
	const char *s;
	const char *const sparse[] = {"direct", NULL, "ring", "tree"};

	(void)state;
	load_good(&doc);
	r = doc.root;
	link = cy_get(r, "link");
	assert_int_equal(cy_check_map(link, "'link'", link_keys, &err), 0);
	assert_int_equal(cy_require(r, "the scenario", "nranks", &n, &err), 0);
	assert_int_equal(cy_uint(n, "nranks", 1, 4096, &v, &err), 0);
	assert_true(v == 8);
	assert_int_equal(cy_uint(n, NULL, 8, 8, &v, &err), 0);
	assert_int_equal(cy_rate(cy_get(link, "rate"), "rate", &v, &err), 0);
	assert_true(v == UINT64_C(400000000000));
	assert_int_equal(cy_time(cy_get(link, "latency"), "latency", &v, &err), 0);
	assert_true(v == 1500000);
	assert_int_equal(cy_size(cy_get(r, "sizes")->vals[2], NULL, 1, GIB, &v, &err), 0);
	assert_true(v == GIB);
	n = cy_get(r, "algos");
	assert_int_equal(cy_bool(cy_get(n->vals[0], "gdr"), "gdr", &b, &err), 0);
	assert_true(b);
	assert_int_equal(cy_bool(cy_get(n->vals[1], "gdr"), "gdr", &b, &err), 0);
	assert_false(b);
	/* NULL entries are skipped, and the index is into the full array;
	 * a quoted name is a name. */
	assert_int_equal(cy_enum(cy_get(n->vals[1], "name"), "name", sparse, 4, &idx, &err), 0);
	assert_int_equal(idx, 3);
	assert_int_equal(cy_enum(cy_get(n->vals[0], "name"), "name", algo_names, 3, &idx, &err), 0);
	assert_int_equal(idx, 0);
	assert_int_equal(cy_string(cy_get(r, "note"), "note", &s, &err), 0);
	assert_string_equal(s, "quoted: yes");
	cy_free(&doc);
}

static void test_kind_names(void **state)
{
	struct cy_doc doc;
	struct cy_error err;
	const char text[] = "a: [x]\nb: {x: 1}\nc: 42\nd: 1.5\ne: true\nf: '1'\ng: ''\nh:\ni: 1us\n";
	const struct cy_node *r;

	(void)state;
	assert_int_equal(cy_load_string(NULL, text, strlen(text), &doc, &err), 0);
	r = doc.root;
	assert_string_equal(doc.name, "<string>");
	assert_string_equal(cy_kind_name(cy_get(r, "a")), "a list");
	assert_string_equal(cy_kind_name(cy_get(r, "b")), "a mapping");
	assert_string_equal(cy_kind_name(cy_get(r, "c")), "a number");
	assert_string_equal(cy_kind_name(cy_get(r, "d")), "a number");
	assert_string_equal(cy_kind_name(cy_get(r, "e")), "a boolean");
	assert_string_equal(cy_kind_name(cy_get(r, "f")), "a quoted string");
	assert_string_equal(cy_kind_name(cy_get(r, "g")), "an empty string");
	assert_string_equal(cy_kind_name(cy_get(r, "h")), "an empty value");
	assert_string_equal(cy_kind_name(cy_get(r, "i")), "a string");
	assert_string_equal(cy_kind_name(NULL), "nothing");
	cy_free(&doc);
}

/* ---- broken documents ---- */

enum check { LOAD, CHECK_MAP, REQUIRE, UINT, SIZE, RATE, TIME, BOOL, ENUM, STRING };

struct bad {
	const char *text;
	size_t len;       /* 0: strlen(text) */
	enum check check; /* LOAD: loading itself fails */
	const char *key;  /* the root's key whose value is checked (NULL: the root);
			   * for REQUIRE, the key required of the root */
	const char *want; /* the whole message */
};

/* Runs c's check on the loaded document: UINT reads 1 to 4096, SIZE 1B to
 * 1GiB, CHECK_MAP allows link_keys, ENUM algo_names. */
static int run_check(const struct bad *c, const struct cy_doc *doc, struct cy_error *err)
{
	const struct cy_node *n = c->key ? cy_get(doc->root, c->key) : doc->root;
	char what[64];
	uint64_t v;
	unsigned idx;
	bool b;
	const char *s;

	snprintf(what, sizeof(what), "'%s'", c->key ? c->key : "");
	switch (c->check) {
	case CHECK_MAP:
		return cy_check_map(n, c->key ? what : "the scenario", link_keys, err);
	case REQUIRE:
		return cy_require(doc->root, "the scenario", c->key, &n, err);
	case UINT:
		return cy_uint(n, c->key, 1, 4096, &v, err);
	case SIZE:
		return cy_size(n, c->key, 1, GIB, &v, err);
	case RATE:
		return cy_rate(n, c->key, &v, err);
	case TIME:
		return cy_time(n, c->key, &v, err);
	case BOOL:
		return cy_bool(n, c->key, &b, err);
	case ENUM:
		return cy_enum(n, c->key, algo_names, 3, &idx, err);
	case STRING:
		return cy_string(n, c->key, &s, err);
	case LOAD:
		break;
	}
	return 0;
}

/* Whether c fails with exactly its message (printed when not, so one run
 * shows every mismatch of the corpus). */
static bool expect_bad(const struct bad *c)
{
	struct cy_doc doc;
	struct cy_error err;
	size_t len = c->len ? c->len : strlen(c->text);
	int rc = cy_load_string("t.yaml", c->text, len, &doc, &err);

	if (c->check == LOAD) {
		assert_int_equal(rc, -EINVAL);
		assert_null(doc.root);
		assert_null(doc.arena);
	} else {
		assert_int_equal(rc, 0);
		assert_int_equal(run_check(c, &doc, &err), -EINVAL);
	}
	bool ok = !strcmp(err.msg, c->want);

	if (!ok)
		print_error("input: %.60s\n  got: %s\n want: %s\n", c->text, err.msg, c->want);
	cy_free(&doc);
	return ok;
}

#define TIME_HELP "expected a number with a unit: ps, ns, us, ms, s (such as 600ns or 1.5us)"
#define SIZE_HELP "expected a size such as 4096, 64KiB or 1GiB"
#define RATE_HELP "expected a rate such as 100Gbps or 400Gb/s"
#define TABS "expected spaces for indentation (YAML does not allow tabs)"
#define MAPPING_VALUES                                                                           \
	"YAML syntax error: mapping values are not allowed in this context; expected one "       \
	"'key: value' per line (is a ':' missing above, or does a value need quotes?)"

static const struct bad corpus[] = {
	/* libyaml's syntax errors, with where the construct began and a hint. */
	{"name: \"ring\nnranks: 4\n", 0, LOAD, NULL,
	 "t.yaml:3:1: YAML syntax error: found unexpected end of stream (while scanning a quoted "
	 "scalar that starts at 1:7); expected a closing quote"},
	{"link:\n  rate: 100Gbps\n latency: 1us\n", 0, LOAD, NULL,
	 "t.yaml:3:2: YAML syntax error: did not find expected key (while parsing a block mapping "
	 "that starts at 1:1); expected the keys of a mapping to line up"},
	{"link:\n\trate: 100Gbps\n", 0, LOAD, NULL,
	 "t.yaml:2:1: YAML syntax error: found character that cannot start any token (while "
	 "scanning for the next token); " TABS},
	{"sizes:\n  - 1K\n\t- 2K\n", 0, LOAD, NULL,
	 "t.yaml:3:1: YAML syntax error: found a tab character that violates indentation (while "
	 "scanning a plain scalar that starts at 2:5); " TABS},
	{"sizes: [1K, 2K\nnranks: 4\n", 0, LOAD, NULL,
	 "t.yaml:2:7: YAML syntax error: did not find expected ',' or ']' (while parsing a flow "
	 "sequence that starts at 1:8)"},
	{"name: ring\nnranks 8\n", 0, LOAD, NULL,
	 "t.yaml:3:1: YAML syntax error: could not find expected ':' (while scanning a simple key "
	 "that starts at 2:1); expected 'key: value'"},
	{"link:\n  rate 100Gbps\n  mtu: 4096\n", 0, LOAD, NULL, "t.yaml:3:6: " MAPPING_VALUES},
	{"rate: a: b\n", 0, LOAD, NULL, "t.yaml:1:8: " MAPPING_VALUES},
	{"name: \xff\n", 0, LOAD, NULL,
	 "t.yaml:1:7: YAML syntax error: invalid leading UTF-8 octet (0xFF); expected UTF-8 text"},
	{"rate: 1\0\n", 9, LOAD, NULL, "t.yaml:1:8: a NUL byte in the file; expected YAML text"},

	/* Our rules. */
	{"rate: 1\nlatency: 2\nrate: 3\n", 0, LOAD, NULL,
	 "t.yaml:3:1: duplicate key 'rate' (first on line 1); expected each key once"},
	{"base: &b 1\n", 0, LOAD, NULL,
	 "t.yaml:1:7: anchor '&b' is not allowed; expected the value written out in full"},
	{"rate: *b\n", 0, LOAD, NULL,
	 "t.yaml:1:7: alias '*b' is not allowed; expected the value written out in full"},
	{"link:\n  <<: {rate: 1}\n", 0, LOAD, NULL,
	 "t.yaml:2:3: merge key '<<' is not allowed; expected the keys written out in full"},
	{"rate: !!str 100Gbps\n", 0, LOAD, NULL,
	 "t.yaml:1:7: tag '!!str' is not allowed; expected the value without a tag"},
	{"link: !net {rate: 1}\n", 0, LOAD, NULL,
	 "t.yaml:1:7: tag '!net' is not allowed; expected the value without a tag"},
	{"rate: 1\n---\nrate: 2\n", 0, LOAD, NULL,
	 "t.yaml:2:1: a second document; expected one document per file"},
	{"", 0, LOAD, NULL, "t.yaml:1:1: empty document; expected a mapping"},
	{"# nothing yet\n", 0, LOAD, NULL, "t.yaml:2:1: empty document; expected a mapping"},
	{"---\n", 0, LOAD, NULL, "t.yaml:2:1: empty document; expected a mapping"},
	{"? [a, b]\n: 1\n", 0, LOAD, NULL, "t.yaml:1:3: a list as a key; expected a name"},
	{"\"\": 1\n", 0, LOAD, NULL, "t.yaml:1:1: an empty key; expected a name"},
	{"name: \"a\\0b\"\n", 0, LOAD, NULL,
	 "t.yaml:1:7: a NUL character in a string; expected text without \\0"},

	/* Mappings. */
	{"- a\n- b\n", 0, CHECK_MAP, NULL, "t.yaml:1:1: the scenario: expected a mapping, found a list"},
	{"link:\n  rate: 1\n  latncy: 2\n", 0, CHECK_MAP, "link",
	 "t.yaml:3:3: unknown key 'latncy' in 'link' (did you mean 'latency'?); expected one of: "
	 "rate, latency, mtu"},
	{"link:\n  speed: 1\n", 0, CHECK_MAP, "link",
	 "t.yaml:2:3: unknown key 'speed' in 'link'; expected one of: rate, latency, mtu"},
	{"link: 100Gbps\n", 0, CHECK_MAP, "link", "t.yaml:1:7: 'link': expected a mapping, found a string"},
	{"nranks: 4\n", 0, REQUIRE, "collective",
	 "t.yaml:1:1: missing required key 'collective' in the scenario"},

	/* Wrong kinds. */
	{"nranks: [1, 2]\n", 0, UINT, "nranks", "t.yaml:1:9: 'nranks': expected a number, found a list"},
	{"rate: {gbps: 100}\n", 0, RATE, "rate",
	 "t.yaml:1:7: 'rate': " RATE_HELP ", found a mapping"},
	{"nranks: \"42\"\n", 0, UINT, "nranks",
	 "t.yaml:1:9: 'nranks': expected a number, found a quoted string (write it without quotes)"},
	{"nranks:\n", 0, UINT, "nranks", "t.yaml:1:8: 'nranks': expected a number, found an empty value"},
	{"gdr: \"true\"\n", 0, BOOL, "gdr",
	 "t.yaml:1:6: 'gdr': expected true or false, found a quoted string (write it without quotes)"},
	{"algo: [ring]\n", 0, ENUM, "algo",
	 "t.yaml:1:7: 'algo': expected a name (one of: ring, tree, direct), found a list"},
	{"name: \"\"\n", 0, STRING, "name",
	 "t.yaml:1:7: 'name': expected a non-empty string, found an empty string"},
	{"name:\n", 0, STRING, "name", "t.yaml:1:6: 'name': expected a non-empty string, found an empty value"},

	/* Numbers. */
	{"nranks: -5\n", 0, UINT, "nranks", "t.yaml:1:9: 'nranks': -5 must not be negative; expected 1 to 4096"},
	{"nranks: 0\n", 0, UINT, "nranks", "t.yaml:1:9: 'nranks': 0 is out of range; expected 1 to 4096"},
	{"nranks: 1180591620717411303424\n", 0, UINT, "nranks",
	 "t.yaml:1:9: 'nranks': 1180591620717411303424 is too large; expected 1 to 4096"},
	{"nranks: 1e3\n", 0, UINT, "nranks",
	 "t.yaml:1:9: 'nranks': '1e3' is not a whole number; expected 1 to 4096"},
	{"size: 4KX\n", 0, SIZE, "size", "t.yaml:1:7: 'size': '4KX' is not a size; " SIZE_HELP},
	{"size: 0.3K\n", 0, SIZE, "size",
	 "t.yaml:1:7: 'size': '0.3K' is not a whole number of bytes; " SIZE_HELP},
	{"size: -4K\n", 0, SIZE, "size", "t.yaml:1:7: 'size': -4K must not be negative; " SIZE_HELP},
	{"size: 2G\n", 0, SIZE, "size", "t.yaml:1:7: 'size': 2G is out of range; expected 1B to 1GiB"},
	{"size: 1180591620717411303424\n", 0, SIZE, "size",
	 "t.yaml:1:7: 'size': 1180591620717411303424 is too large; expected 1B to 1GiB"},
	{"rate: 100G\n", 0, RATE, "rate",
	 "t.yaml:1:7: 'rate': '100G' is ambiguous (bits or bytes?); expected 100Gbps or 100GB/s"},
	{"rate: 100 Gbps\n", 0, RATE, "rate",
	 "t.yaml:1:7: 'rate': '100 Gbps' is not a rate; " RATE_HELP ", written without a space"},
	{"rate: 0Gbps\n", 0, RATE, "rate", "t.yaml:1:7: 'rate': 0Gbps is out of range; expected more than zero"},
	{"latency: 5\n", 0, TIME, "latency", "t.yaml:1:10: 'latency': '5' is not a time; " TIME_HELP},
	{"latency: 1.5.3us\n", 0, TIME, "latency",
	 "t.yaml:1:10: 'latency': '1.5.3us' is not a time; " TIME_HELP},
	{"latency: 5 us\n", 0, TIME, "latency",
	 "t.yaml:1:10: 'latency': '5 us' is not a time; " TIME_HELP ", written without a space"},
	{"latency: 99999999s\n", 0, TIME, "latency",
	 "t.yaml:1:10: 'latency': 99999999s is too large; expected less than 18446745s (about 213 "
	 "days)"},

	/* Booleans and names. */
	{"gdr: yes\n", 0, BOOL, "gdr", "t.yaml:1:6: 'gdr': 'yes' is not a boolean; expected true or false"},
	{"algo: rign\n", 0, ENUM, "algo",
	 "t.yaml:1:7: 'algo': unknown value 'rign' (did you mean 'ring'?); expected one of: ring, "
	 "tree, direct"},
	{"algo: butterfly\n", 0, ENUM, "algo",
	 "t.yaml:1:7: 'algo': unknown value 'butterfly'; expected one of: ring, tree, direct"},
};

static void test_corpus(void **state)
{
	size_t wrong = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++)
		wrong += !expect_bad(&corpus[i]);
	assert_int_equal(wrong, 0);
}

/* A line of `count` copies of `piece` between head and tail (caller frees). */
static char *long_line(const char *head, const char *piece, size_t count, const char *tail)
{
	size_t hl = strlen(head), pl = strlen(piece), tl = strlen(tail);
	char *s = malloc(hl + pl * count + tl + 1), *p = s;

	assert_non_null(s);
	memcpy(p, head, hl);
	p += hl;
	for (size_t i = 0; i < count; i++, p += pl)
		memcpy(p, piece, pl);
	memcpy(p, tail, tl + 1);
	return s;
}

static void test_long_lines(void **state)
{
	char *text;
	struct cy_doc doc;
	struct cy_error err;
	const struct cy_node *sizes;

	(void)state;
	/* A huge value is cut in the message, which still says what was wanted. */
	text = long_line("size: ", "x", 5000, "\n");
	assert_true(expect_bad(&(struct bad){text, 0, SIZE, "size",
				 "t.yaml:1:7: 'size': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."
				 "' is not a size; " SIZE_HELP}));
	free(text);
	/* libyaml's 1024-character limit on a key. */
	text = long_line("", "k", 2000, ": 1\n");
	assert_true(expect_bad(&(struct bad){text, 0, LOAD, NULL,
				 "t.yaml:1:2001: YAML syntax error: mapping values are not allowed in "
				 "this context; expected a key of at most 1024 characters"}));
	free(text);
	text = long_line("", "[", 100, "\n");
	assert_true(expect_bad(&(struct bad){text, 0, LOAD, NULL,
				 "t.yaml:1:65: nesting deeper than 64 levels; expected a flatter document"}));
	free(text);
	/* A long line that is fine: 10000 entries, the last one's column exact. */
	text = long_line("sizes: [", "64K, ", 10000, "1K]\n");
	assert_int_equal(cy_load_string("t.yaml", text, strlen(text), &doc, &err), 0);
	sizes = cy_get(doc.root, "sizes");
	assert_int_equal(sizes->n, 10001);
	scalar_at(sizes->vals[10000], "1K", 1, 9 + 5 * 10000);
	cy_free(&doc);
	free(text);
}

/* ---- files ---- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void sized_file(const char *path, off_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	assert_int_equal(close(fd), 0);
}

static void test_files(void **state)
{
	struct tmpdir t;
	struct cy_doc doc;
	struct cy_error err;
	char path[128], want[256];

	(void)state;
	tmpdir_make(&t, "yaml");

	path_in(path, sizeof(path), &t, "good.yaml");
	write_file(path, good);
	assert_int_equal(cy_load_file(path, &doc, &err), 0);
	assert_string_equal(doc.name, path);
	assert_string_equal(doc.root->vals[0]->file, path);
	scalar_at(cy_get(cy_get(doc.root, "link"), "rate"), "400Gb/s", 5, 9);
	cy_free(&doc);
	assert_int_equal(unlink(path), 0);

	/* Positions in messages carry the path. */
	path_in(path, sizeof(path), &t, "dup.yaml");
	write_file(path, "a: 1\na: 2\n");
	assert_int_equal(cy_load_file(path, &doc, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s:2:1: duplicate key 'a' (first on line 1); expected each key once",
		 path);
	assert_string_equal(err.msg, want);
	assert_int_equal(unlink(path), 0);

	path_in(path, sizeof(path), &t, "missing.yaml");
	assert_int_equal(cy_load_file(path, &doc, &err), -ENOENT);
	snprintf(want, sizeof(want), "%s: cannot read: No such file or directory", path);
	assert_string_equal(err.msg, want);
	assert_null(doc.root);

	assert_int_equal(cy_load_file(t.path, &doc, &err), -EISDIR);
	snprintf(want, sizeof(want), "%s: cannot read: Is a directory", t.path);
	assert_string_equal(err.msg, want);

	/* 16 MiB is the most: one byte more is refused unread... */
	path_in(path, sizeof(path), &t, "big.yaml");
	sized_file(path, ((off_t)16 << 20) + 1);
	assert_int_equal(cy_load_file(path, &doc, &err), -EFBIG);
	snprintf(want, sizeof(want), "%s: too large for a scenario or topology file (more than 16 MiB)",
		 path);
	assert_string_equal(err.msg, want);
	/* ...and exactly 16 MiB is read (these zeros then fail as text). */
	sized_file(path, (off_t)16 << 20);
	assert_int_equal(cy_load_file(path, &doc, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s:1:1: a NUL byte in the file; expected YAML text", path);
	assert_string_equal(err.msg, want);
	assert_int_equal(unlink(path), 0);

	assert_int_equal(dir_entries(t.path), 0);
	assert_int_equal(rmdir(t.path), 0);
}

/* ---- suggestions ---- */

static void test_closest(void **state)
{
	const char *const keys[] = {"rate", "latency", "mtu", "collective", NULL};
	const char *const ties[] = {"ac", "ad", NULL};
	const char *const six[] = {"abcxyz", "abcdxy", NULL};
	char longword[300];

	(void)state;
	assert_string_equal(cy_closest("latncy", keys), "latency");    /* deletion */
	assert_string_equal(cy_closest("latenccy", keys), "latency");  /* insertion */
	assert_string_equal(cy_closest("rtae", keys), "rate");         /* transposition */
	assert_string_equal(cy_closest("Rate", keys), "rate");         /* case: one edit */
	assert_null(cy_closest("RATE", keys));                         /* four edits */
	assert_string_equal(cy_closest("mtu", keys), "mtu");           /* itself */
	assert_string_equal(cy_closest("colective", keys), "collective");
	assert_null(cy_closest("speed", keys));
	/* The threshold is max(1, strlen / 3): 2 for six letters. */
	assert_string_equal(cy_closest("abcdef", six), "abcdxy");
	assert_null(cy_closest("abcdef", (const char *const[]){"abcxyz", NULL}));
	assert_string_equal(cy_closest("mt", keys), "mtu");
	/* Ties go to the first in list order. */
	assert_string_equal(cy_closest("ab", ties), "ac");
	assert_null(cy_closest("latency", (const char *const[]){NULL}));
	assert_null(cy_closest("x", NULL));
	assert_null(cy_closest(NULL, keys));
	memset(longword, 'a', sizeof(longword) - 1);
	longword[sizeof(longword) - 1] = '\0';
	assert_null(cy_closest(longword, keys));
	assert_string_equal(cy_closest(longword + 200, (const char *const[]){longword + 201, NULL}),
			    longword + 201);
}

/* ---- the rest of the API ---- */

static void test_fail_and_free(void **state)
{
	struct cy_doc doc;
	struct cy_error err;
	const struct cy_node n = {.kind = CY_SCALAR, .line = 7, .col = 12, .file = "s.yaml"};

	(void)state;
	assert_int_equal(cy_fail(&err, &n, "'%s' is bad; expected %d", "x", 3), -EINVAL);
	assert_string_equal(err.msg, "s.yaml:7:12: 'x' is bad; expected 3");
	assert_int_equal(cy_fail(&err, NULL, "no place"), -EINVAL);
	assert_string_equal(err.msg, "no place");
	assert_int_equal(cy_fail(NULL, &n, "nowhere"), -EINVAL);

	/* A getter given nothing (an absent optional key) says so. */
	assert_int_equal(cy_uint(NULL, "nranks", 1, 2, &(uint64_t){0}, &err), -EINVAL);
	assert_string_equal(err.msg, "'nranks': expected a number, found nothing");

	memset(&doc, 0, sizeof(doc));
	cy_free(&doc);
	cy_free(&doc);
	cy_free(NULL);
	load_good(&doc);
	cy_free(&doc);
	cy_free(&doc);
	assert_int_equal(cy_load_string("x", NULL, 1, &doc, &err), -EINVAL);
	assert_int_equal(cy_load_string("x", "a: 1", 4, NULL, &err), -EINVAL);
	/* No text at all is an empty document, not a crash. */
	assert_int_equal(cy_load_string("x", NULL, 0, &doc, &err), -EINVAL);
	assert_string_equal(err.msg, "x:1:1: empty document; expected a mapping");
}

/* --set: an edit of the tree, checked like the file's own values. */
static void test_set(void **state)
{
	const char *text = "sizes: {min: 1K}\nname: x\n";
	struct cy_doc doc;
	struct cy_error err;
	const struct cy_node *v;
	uint64_t x;

	(void)state;
	assert_int_equal(cy_load_string("s.yaml", text, strlen(text), &doc, &err), 0);
	/* an existing key, a new key in an existing map, a new nested path */
	assert_int_equal(cy_set(&doc, "name=y", &err), 0);
	assert_int_equal(cy_set(&doc, "sizes.max=1GiB", &err), 0);
	assert_int_equal(cy_set(&doc, "fabric.link.rate_bps=400Gbps", &err), 0);
	assert_int_equal(cy_set(&doc, "executors=[sim, data]", &err), 0);
	assert_string_equal(cy_get(doc.root, "name")->str, "y");
	v = cy_get(cy_get(doc.root, "sizes"), "max");
	assert_int_equal(cy_size(v, "max", 0, UINT64_MAX, &x, &err), 0);
	assert_int_equal(x, 1ull << 30);
	v = cy_get(cy_get(cy_get(doc.root, "fabric"), "link"), "rate_bps");
	assert_int_equal(cy_rate(v, "rate_bps", &x, &err), 0);
	assert_int_equal(x, 400000000000ull);
	assert_int_equal(cy_get(doc.root, "executors")->kind, CY_SEQ);
	/* a bad value is reported where it came from */
	assert_int_equal(cy_set(&doc, "sizes.min=4 KiB", &err), 0);
	v = cy_get(cy_get(doc.root, "sizes"), "min");
	assert_int_equal(cy_size(v, "min", 0, UINT64_MAX, &x, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--set sizes.min=4 KiB:1:1: 'min': '4 KiB' is not a size"));
	/* errors of the assignment itself */
	assert_int_equal(cy_set(&doc, "sizes.min", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "expected KEY=VALUE"));
	assert_int_equal(cy_set(&doc, "sizes..min=1", &err), -EINVAL);
	assert_int_equal(cy_set(&doc, "name.first=z", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'name' is not a mapping here"));
	assert_int_equal(cy_set(&doc, "name=", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no value after '='"));
	assert_int_equal(cy_set(&doc, "name=[1, 2", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--set name=[1, 2:"));
	cy_free(&doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_tree),
		cmocka_unit_test(test_good_getters),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_fail_and_free),
		cmocka_unit_test(test_set),
	};

	return cmocka_run_group_tests_name("yaml", tests, NULL, NULL);
}
