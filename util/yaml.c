/* SPDX-License-Identifier: BSD-3-Clause */
/* util/yaml.c — YAML documents as trees with positions, and the checks and
 * typed getters scenario and topology files go through (see util/yaml.h).
 *
 * libyaml's event parser does the YAML; we build the tree from its events,
 * refusing what the header's rules refuse as each event arrives, so the
 * first problem in the file is the one reported.  Every node and string
 * lives in one arena owned by the document: building never frees, and an
 * error anywhere is cleaned up by freeing the arena, so no error path can
 * leak a piece of a half-built tree.
 */
#include "util/yaml.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "util/err.h"
#include "util/files.h"
#include "util/units.h"
#include "util/yaml_int.h"

/* ---- the arena: one list of blocks ---- */


/* Small allocations share 64 KiB blocks; anything over a quarter of that
 * gets a block of its own, so a block never wastes more than a quarter. */
#define ARENA_BLOCK ((size_t)64 * 1024)

void *cy__arena_alloc(void **arena, size_t size, size_t align)
{
	struct arena_block *head = *arena, *b;

	if (head) {
		size_t at = (head->used + align - 1) & ~(align - 1);

		if (at <= head->cap && size <= head->cap - at) {
			head->used = at + size;
			return (char *)head->data + at;
		}
	}
	size_t cap = size > ARENA_BLOCK / 4 ? size : ARENA_BLOCK;

	if (cap > SIZE_MAX - sizeof(*b))
		return NULL;
	b = malloc(sizeof(*b) + cap);
	if (!b)
		return NULL;
	b->cap = cap;
	b->used = size;
	if (cap == size && head) {
		/* A big one goes behind the head, which keeps its free space. */
		b->next = head->next;
		head->next = b;
	} else {
		b->next = head;
		*arena = b;
	}
	return b->data;
}

void cy__arena_release(void *arena)
{
	struct arena_block *b = arena;

	while (b) {
		struct arena_block *next = b->next;

		free(b);
		b = next;
	}
}

char *cy__arena_strndup(void **arena, const char *s, size_t len)
{
	char *d;

	if (len == SIZE_MAX)
		return NULL;
	d = cy__arena_alloc(arena, len + 1, 1);
	if (!d)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

void cy_free(struct cy_doc *doc)
{
	if (!doc)
		return;
	cy__arena_release(doc->arena);
	memset(doc, 0, sizeof(*doc));
}

/* ---- messages ---- */

/* "file:line:col: " (no position when line is 0, no file when NULL), then
 * the text (util/err.h's cc_verrf()). */
static int vfail(struct cy_error *err, const char *file, uint32_t line, uint32_t col,
		 const char *fmt, va_list ap)
{
	char shown[CC_SHOWN_BUF];
	int n = 0;

	if (!err)
		return -EINVAL;
	/* A path of thousands of characters would leave no room for the
	 * reason: its two ends say which file it was. */
	if (file)
		file = cc_shown(shown, file);
	if (file && line)
		n = snprintf(err->msg, sizeof(err->msg), "%s:%" PRIu32 ":%" PRIu32 ": ", file,
			     line, col);
	else if (file)
		n = snprintf(err->msg, sizeof(err->msg), "%s: ", file);
	if (n < 0 || (size_t)n >= sizeof(err->msg))
		return -EINVAL;
	return cc_verrf(err->msg + n, sizeof(err->msg) - (size_t)n, -EINVAL, fmt, ap);
}

/* "file: " and the text, for what has no position. */
static int fail_file(struct cy_error *err, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_file(struct cy_error *err, const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, file, 0, 0, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int cy_fail(struct cy_error *err, const struct cy_node *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (at)
		vfail(err, at->file ? at->file : "-", at->line, at->col, fmt, ap);
	else
		vfail(err, NULL, 0, 0, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* User text as it goes into a message: control characters escaped, and cut
 * (at a character boundary, with "...") so that a huge value still leaves
 * room for what was expected. */
#define SHOW_MAX 48
#define SHOW_LEN CY__SHOW_LEN

const char *cy__show(char buf[CY__SHOW_LEN], const char *s)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (o >= SHOW_MAX && (*p & 0xC0) != 0x80) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (*p == '\n' || *p == '\t') {
			buf[o++] = '\\';
			buf[o++] = *p == '\n' ? 'n' : 't';
		} else if (*p < 0x20 || *p == 0x7f) {
			o += (size_t)snprintf(buf + o, SHOW_LEN - o, "\\x%02x", *p);
		} else {
			buf[o++] = (char)*p;
		}
	}
	buf[o] = '\0';
	return buf;
}

/* "'latency': " before a getter's message when the caller named the key. */
#define LABEL_LEN 80

static const char *label(char buf[LABEL_LEN], const char *key)
{
	if (!key)
		return "";
	snprintf(buf, LABEL_LEN, "'%s': ", key);
	return buf;
}

/* "a, b, c" from names[0 .. count), NULL entries skipped. */
#define NAMES_LEN 320

static const char *join_names(char buf[NAMES_LEN], const char *const *names, size_t count)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < count && o < NAMES_LEN; i++) {
		if (!names[i])
			continue;
		int n = snprintf(buf + o, NAMES_LEN - o, "%s%s", o ? ", " : "", names[i]);

		if (n < 0)
			break;
		o += (size_t)n;
	}
	return buf;
}

static bool plain_number(const char *s)
{
	if (*s < '0' || *s > '9')
		return false;
	while ((*s >= '0' && *s <= '9') || *s == '.')
		s++;
	return *s == '\0';
}

const char *cy_kind_name(const struct cy_node *n)
{
	if (!n)
		return "nothing";
	switch (n->kind) {
	case CY_MAP:
		return "a mapping";
	case CY_SEQ:
		return "a list";
	case CY_SCALAR:
		break;
	}
	if (n->quoted)
		return n->len ? "a quoted string" : "an empty string";
	if (!n->len)
		return "an empty value";
	if (plain_number(n->str))
		return "a number";
	if (!strcmp(n->str, "true") || !strcmp(n->str, "false"))
		return "a boolean";
	return "a string";
}

/* ---- suggestions ---- */

/* Words or candidates longer than this are never close: the threshold is a
 * third of the word's length, so a candidate of up to 85 characters is
 * still compared exactly, and the rows fit on the stack. */
#define CLOSEST_MAX 128

/* Optimal string alignment distance (Damerau-Levenshtein without
 * repeated edits of one substring), three rolling rows. */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t rows[3][CLOSEST_MAX + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t d = prev[j - 1] + cost;

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		size_t *t = prev2;

		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

/* cy_closest over names[0 .. count), NULL entries skipped. */
static const char *closest_in(const char *word, const char *const *names, size_t count)
{
	size_t lw = strlen(word), limit = lw / 3 > 1 ? lw / 3 : 1, best_d = SIZE_MAX;
	const char *best = NULL;

	if (lw > CLOSEST_MAX)
		return NULL;
	for (size_t i = 0; i < count; i++) {
		size_t lc;

		if (!names[i])
			continue;
		lc = strlen(names[i]);
		if (lc > CLOSEST_MAX || (lc > lw ? lc - lw : lw - lc) > limit)
			continue;
		size_t d = edit_distance(word, lw, names[i], lc);

		if (d <= limit && d < best_d) { /* strictly less: ties keep the first */
			best = names[i];
			best_d = d;
		}
	}
	return best;
}

const char *cy_closest(const char *word, const char *const *candidates)
{
	size_t count = 0;

	if (!word || !candidates)
		return NULL;
	while (candidates[count])
		count++;
	return closest_in(word, candidates, count);
}

/* ---- building the tree from libyaml's events ---- */

/* Scenarios nest a handful of levels: a fixed limit keeps the stack of open
 * nodes a plain array, and stops a runaway "[[[[..." at the first level
 * too deep. */
#define MAX_DEPTH CY__MAX_DEPTH

/* An open mapping or list.  A mapping alternates: a key arrives and waits
 * in `key` until its value does. */
struct frame {
	struct cy_node *node;
	struct cy_node *key;
	size_t cap;
};

struct builder {
	struct cy_doc *doc;
	struct cy_error *err;
	const char *text;
	size_t len;
	struct frame stack[MAX_DEPTH];
	unsigned depth;
	unsigned docs;
};

static int fail_mark(struct builder *b, yaml_mark_t m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_mark(struct builder *b, yaml_mark_t m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(b->err, b->doc->name, (uint32_t)(m.line + 1), (uint32_t)(m.column + 1), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int out_of_memory(struct cy_error *err, const char *name)
{
	fail_file(err, name, "out of memory");
	return -ENOMEM;
}

static struct cy_node *new_node(struct builder *b, enum cy_kind kind, yaml_mark_t m)
{
	struct cy_node *n = cy__arena_alloc(&b->doc->arena, sizeof(*n), _Alignof(struct cy_node));

	if (!n)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->line = (uint32_t)(m.line + 1);
	n->col = (uint32_t)(m.column + 1);
	n->file = b->doc->name;
	return n;
}

/* Anchors and tags arrive on the node events themselves. */
static int refuse_props(struct builder *b, const yaml_event_t *ev, const yaml_char_t *anchor,
			const yaml_char_t *tag)
{
	static const char core[] = "tag:yaml.org,2002:";
	char shown[SHOW_LEN];

	if (anchor)
		return fail_mark(b, ev->start_mark,
				 "anchor '&%s' is not allowed; expected the value written out in full",
				 cy__show(shown, (const char *)anchor));
	if (!tag)
		return 0;
	/* libyaml resolves "!!str" to the core schema's URI: show it as written. */
	if (!strncmp((const char *)tag, core, sizeof(core) - 1))
		return fail_mark(b, ev->start_mark,
				 "tag '!!%s' is not allowed; expected the value without a tag",
				 cy__show(shown, (const char *)tag + sizeof(core) - 1));
	return fail_mark(b, ev->start_mark, "tag '%s' is not allowed; expected the value without a tag",
			 cy__show(shown, (const char *)tag));
}

/* Room for one more entry in an open mapping or list: doubled within the
 * arena (the old arrays stay there unused; at most as much again). */
static int grow(struct builder *b, struct frame *f)
{
	struct cy_node *n = f->node;
	size_t cap = f->cap ? f->cap * 2 : 4;
	struct cy_node **vals, **keys = NULL;

	if (n->n < f->cap)
		return 0;
	if (cap > SIZE_MAX / sizeof(*vals))
		return -ENOMEM;
	vals = cy__arena_alloc(&b->doc->arena, cap * sizeof(*vals), _Alignof(struct cy_node *));
	if (vals && n->kind == CY_MAP)
		keys = cy__arena_alloc(&b->doc->arena, cap * sizeof(*keys), _Alignof(struct cy_node *));
	if (!vals || (n->kind == CY_MAP && !keys))
		return -ENOMEM;
	if (n->n) {
		memcpy(vals, n->vals, n->n * sizeof(*vals));
		if (keys)
			memcpy(keys, n->keys, n->n * sizeof(*keys));
	}
	n->vals = vals;
	n->keys = keys;
	f->cap = cap;
	return 0;
}

static int append(struct builder *b, struct frame *f, struct cy_node *key, struct cy_node *val)
{
	struct cy_node *n = f->node;

	if (grow(b, f))
		return out_of_memory(b->err, b->doc->name);
	if (key)
		n->keys[n->n] = key;
	n->vals[n->n++] = val;
	return 0;
}

/* A key about to wait for its value: a scalar, not the merge key, not one
 * this mapping already has. */
static int take_key(struct builder *b, struct frame *f, struct cy_node *key, yaml_mark_t m)
{
	const struct cy_node *map = f->node;
	char shown[SHOW_LEN];

	if (key->kind != CY_SCALAR)
		return fail_mark(b, m, "%s as a key; expected a name", cy_kind_name(key));
	if (!key->quoted && !strcmp(key->str, "<<"))
		return fail_mark(b, m,
				 "merge key '<<' is not allowed; expected the keys written out in full");
	if (!key->len)
		return fail_mark(b, m, "an empty key; expected a name");
	for (size_t i = 0; i < map->n; i++)
		if (map->keys[i]->len == key->len && !strcmp(map->keys[i]->str, key->str))
			return fail_mark(b, m,
					 "duplicate key '%s' (first on line %" PRIu32
					 "); expected each key once",
					 cy__show(shown, key->str), map->keys[i]->line);
	f->key = key;
	return 0;
}

/* A new node, complete (a scalar) or just opened: it becomes the root, the
 * next entry of the open list, or the key or value of the open mapping. */
static int place(struct builder *b, struct cy_node *node, yaml_mark_t m)
{
	struct frame *f;
	struct cy_node *key;

	if (!b->depth) {
		b->doc->root = node;
		return 0;
	}
	f = &b->stack[b->depth - 1];
	if (f->node->kind == CY_SEQ)
		return append(b, f, NULL, node);
	if (!f->key)
		return take_key(b, f, node, m);
	key = f->key;
	f->key = NULL;
	return append(b, f, key, node);
}

static int on_scalar(struct builder *b, const yaml_event_t *ev)
{
	const char *value = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	yaml_scalar_style_t style = ev->data.scalar.style;
	struct cy_node *n;
	int rc = refuse_props(b, ev, ev->data.scalar.anchor, ev->data.scalar.tag);

	if (rc)
		return rc;
	/* Only an escape ("\0", "\x00") gets a NUL this far: raw NULs were
	 * refused before parsing. */
	if (memchr(value, '\0', len))
		return fail_mark(b, ev->start_mark,
				 "a NUL character in a string; expected text without \\0");
	n = new_node(b, CY_SCALAR, ev->start_mark);
	if (!n || !(n->str = cy__arena_strndup(&b->doc->arena, value, len)))
		return out_of_memory(b->err, b->doc->name);
	n->len = len;
	n->quoted = style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
		    style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	return place(b, n, ev->start_mark);
}

static int on_open(struct builder *b, const yaml_event_t *ev, enum cy_kind kind)
{
	const yaml_char_t *anchor = kind == CY_MAP ? ev->data.mapping_start.anchor
						   : ev->data.sequence_start.anchor;
	const yaml_char_t *tag = kind == CY_MAP ? ev->data.mapping_start.tag
						: ev->data.sequence_start.tag;
	struct cy_node *n;
	int rc = refuse_props(b, ev, anchor, tag);

	if (rc)
		return rc;
	if (b->depth == MAX_DEPTH)
		return fail_mark(b, ev->start_mark,
				 "nesting deeper than %d levels; expected a flatter document",
				 MAX_DEPTH);
	n = new_node(b, kind, ev->start_mark);
	if (!n)
		return out_of_memory(b->err, b->doc->name);
	rc = place(b, n, ev->start_mark);
	if (rc)
		return rc;
	b->stack[b->depth++] = (struct frame){.node = n};
	return 0;
}

static int on_event(struct builder *b, const yaml_event_t *ev)
{
	char shown[SHOW_LEN];

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->docs++)
			return fail_mark(b, ev->start_mark,
					 "a second document; expected one document per file");
		return 0;
	case YAML_ALIAS_EVENT:
		return fail_mark(b, ev->start_mark,
				 "alias '*%s' is not allowed; expected the value written out in full",
				 cy__show(shown, (const char *)ev->data.alias.anchor));
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return on_open(b, ev, CY_SEQ);
	case YAML_MAPPING_START_EVENT:
		return on_open(b, ev, CY_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		b->depth--;
		return 0;
	case YAML_STREAM_END_EVENT:
		/* A document of nothing ("---" alone) is an empty plain scalar. */
		if (!b->docs || !b->doc->root)
			return fail_mark(b, ev->start_mark, "empty document; expected a mapping");
		if (b->doc->root->kind == CY_SCALAR && !b->doc->root->len && !b->doc->root->quoted)
			return cy_fail(b->err, b->doc->root, "empty document; expected a mapping");
		return 0;
	default:
		return 0;
	}
}

/* ---- libyaml's own errors ---- */

void cy__offset_position(const char *text, size_t off, uint32_t *line, uint32_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			++*line;
			*col = 1;
		} else if ((text[i] & 0xC0) != 0x80) {
			++*col;
		}
	}
}

/* The byte at a libyaml mark (0-based line and column in characters), or
 * NUL past the end. */
static char byte_at(const char *text, size_t len, yaml_mark_t m)
{
	size_t i = len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3) ? 3 : 0; /* the BOM is no column */

	for (size_t line = 0; line < m.line && i < len; i++)
		if (text[i] == '\n')
			line++;
	for (size_t c = 0; c < m.column && i < len; c++)
		for (i++; i < len && (text[i] & 0xC0) == 0x80; i++)
			;
	return i < len ? text[i] : '\0';
}

/* What the writer most likely meant, for the problems people actually
 * make; "" when libyaml's words are all we have. */
static const char *syntax_hint(const struct builder *b, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "";
	const char *context = p->context ? p->context : "";

	if (strstr(problem, "tab") || byte_at(b->text, b->len, p->problem_mark) == '\t')
		return "; expected spaces for indentation (YAML does not allow tabs)";
	if (strstr(context, "quoted scalar") && strstr(problem, "end of stream"))
		return "; expected a closing quote";
	if (!strcmp(problem, "could not find expected ':'"))
		return "; expected 'key: value'";
	if (!strcmp(problem, "did not find expected key") && strstr(context, "block mapping"))
		return "; expected the keys of a mapping to line up";
	if (!strcmp(problem, "mapping values are not allowed in this context"))
		return p->problem_mark.column > 1024
			       ? "; expected a key of at most 1024 characters"
			       : "; expected one 'key: value' per line (is a ':' missing above, or "
				 "does a value need quotes?)";
	return "";
}

static int syntax_error(struct builder *b, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "unknown problem";
	const yaml_mark_t *pm = &p->problem_mark, *cm = &p->context_mark;
	char context[160] = "";

	if (p->error == YAML_MEMORY_ERROR)
		return out_of_memory(b->err, b->doc->name);
	if (p->error == YAML_READER_ERROR) {
		/* Bad encoding: libyaml gives a byte offset, no mark. */
		struct cy_node at = {.file = b->doc->name};

		cy__offset_position(b->text, p->problem_offset < b->len ? p->problem_offset : b->len,
				&at.line, &at.col);
		if (p->problem_value == -1)
			return cy_fail(b->err, &at, "YAML syntax error: %s; expected UTF-8 text",
				       problem);
		return cy_fail(b->err, &at, "YAML syntax error: %s (0x%X); expected UTF-8 text",
			       problem, (unsigned)p->problem_value);
	}
	if (p->context && (cm->line != pm->line || cm->column != pm->column))
		snprintf(context, sizeof(context), " (%s that starts at %zu:%zu)", p->context,
			 cm->line + 1, cm->column + 1);
	else if (p->context)
		snprintf(context, sizeof(context), " (%s)", p->context);
	return fail_mark(b, *pm, "YAML syntax error: %s%s%s", problem, context, syntax_hint(b, p));
}

static int parse(struct builder *b)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int rc = 0;
	bool done = false;

	if (!yaml_parser_initialize(&p))
		return out_of_memory(b->err, b->doc->name);
	yaml_parser_set_input_string(&p, (const unsigned char *)b->text, b->len);
	while (!rc && !done) {
		if (!yaml_parser_parse(&p, &ev)) {
			rc = syntax_error(b, &p);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = on_event(b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return rc;
}

/* ---- loading ---- */

int cy__load_text(const char *name, const char *text, size_t len, const char *syntax,
		  cy__parse_fn *parse_fn, struct cy_doc *doc, struct cy_error *err)
{
	const char *nul;
	int rc;

	if (err)
		err->msg[0] = '\0';
	if (!doc || (!text && len))
		return -EINVAL;
	memset(doc, 0, sizeof(*doc));
	if (!text)
		text = "";
	if (!name)
		name = "<string>";
	doc->name = cy__arena_strndup(&doc->arena, name, strlen(name));
	if (!doc->name)
		return out_of_memory(err, name);
	/* The parsers would call it a control character or an invalid
	 * token; say what it is. */
	nul = memchr(text, '\0', len);
	if (nul) {
		struct cy_node at = {.file = doc->name};

		cy__offset_position(text, (size_t)(nul - text), &at.line, &at.col);
		rc = cy_fail(err, &at, "a NUL byte in the file; expected %s text", syntax);
	} else {
		rc = parse_fn(doc, text, len, err);
	}
	if (rc)
		cy_free(doc);
	return rc;
}

static int parse_yaml(struct cy_doc *doc, const char *text, size_t len, struct cy_error *err)
{
	struct builder b = {.doc = doc, .err = err, .text = text, .len = len};

	return parse(&b);
}

int cy_load_string(const char *name, const char *text, size_t len, struct cy_doc *doc,
		   struct cy_error *err)
{
	return cy__load_text(name, text, len, "YAML", parse_yaml, doc, err);
}

/* The whole of an input file (util/files.h's checks), at most max bytes,
 * into a malloc'd *buf, or an error with "path: why" in err. */
static int read_input(const char *path, const char *what, size_t max, char **buf, size_t *len,
		      struct cy_error *err)
{
	int fd, rc = cc_input_open(path, &fd);

	*buf = NULL;
	*len = 0;
	if (!rc) {
		rc = cc_read_all(fd, max, buf, len);
		close(fd);
	}
	if (rc == -CC_ENOTREG) {
		struct stat st;

		fail_file(err, path, "cannot read: %s, not a regular file",
			  stat(path, &st) ? "not a file" : cc_file_kind(&st));
		return rc;
	}
	if (rc == -EFBIG) {
		fail_file(err, path, "too large for %s (more than %zu MiB)", what, max >> 20);
		return rc;
	}
	if (rc)
		fail_file(err, path, "cannot read: %s", strerror(-rc));
	return rc;
}

int cy__load_path(const char *path, const char *what, size_t max,
		  int (*load)(const char *name, const char *text, size_t len, struct cy_doc *doc,
			      struct cy_error *err),
		  struct cy_doc *doc, struct cy_error *err)
{
	char *buf;
	size_t len;
	int rc;

	if (err)
		err->msg[0] = '\0';
	if (!path || !doc)
		return -EINVAL;
	memset(doc, 0, sizeof(*doc));
	rc = read_input(path, what, max, &buf, &len, err);
	if (rc)
		return rc;
	rc = load(path, buf, len, doc, err);
	free(buf);
	return rc;
}

int cy_load_file(const char *path, struct cy_doc *doc, struct cy_error *err)
{
	/* Scenario and topology files are a few kilobytes: a bigger one is a
	 * wrong path (a trace, a core file), not a file to parse. */
	return cy__load_path(path, "a scenario or topology file", (size_t)16 << 20, cy_load_string,
			     doc, err);
}

/* A whole file that is one scalar is not a file of ours at all (a file
 * name typed into it, /etc/passwd, a log): say what it holds. */
int cy_doc_map(const struct cy_doc *doc, const char *what, struct cy_error *err)
{
	char shown[SHOW_LEN];

	if (doc->root->kind == CY_MAP)
		return 0;
	if (doc->root->kind == CY_SCALAR)
		return cy_fail(err, doc->root, "a %s file must hold a YAML mapping of keys; this one "
			       "is plain text ('%s'): not a %s file?", what,
			       cy__show(shown, doc->root->str), what);
	return cy_fail(err, doc->root, "a %s file must hold a YAML mapping of keys, not %s", what,
		       cy_kind_name(doc->root));
}

/* ---- mappings ---- */

static int not_a_map(const struct cy_node *n, const char *what, struct cy_error *err)
{
	return cy_fail(err, n, "%s%sexpected a mapping, found %s", what ? what : "",
		       what ? ": " : "", cy_kind_name(n));
}

/* "<lead> (did you mean 'x'?); expected one of: a, b, c" at the word. */
static int fail_unknown(struct cy_error *err, const struct cy_node *word, const char *lead,
			const char *const *names, size_t count)
{
	const char *near = closest_in(word->str, names, count);
	char list[NAMES_LEN];

	join_names(list, names, count);
	if (near)
		return cy_fail(err, word, "%s (did you mean '%s'?); expected one of: %s", lead, near,
			       list);
	return cy_fail(err, word, "%s; expected one of: %s", lead, list);
}

static bool in_names(const char *s, const char *const *names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (names[i] && !strcmp(names[i], s))
			return true;
	return false;
}

int cy_check_map(const struct cy_node *n, const char *what, const char *const *allowed,
		 struct cy_error *err)
{
	size_t count = 0;

	if (!n || n->kind != CY_MAP)
		return not_a_map(n, what, err);
	while (allowed && allowed[count])
		count++;
	for (size_t i = 0; i < n->n; i++) {
		const struct cy_node *k = n->keys[i];
		char lead[2 * SHOW_LEN + LABEL_LEN], shown[SHOW_LEN];

		if (in_names(k->str, allowed, count))
			continue;
		snprintf(lead, sizeof(lead), "unknown key '%s'%s%s", cy__show(shown, k->str),
			 what ? " in " : "", what ? what : "");
		return fail_unknown(err, k, lead, allowed, count);
	}
	return 0;
}

const struct cy_node *cy_get(const struct cy_node *m, const char *key)
{
	if (!m || m->kind != CY_MAP || !key)
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->keys[i]->str, key))
			return m->vals[i];
	return NULL;
}

int cy_require(const struct cy_node *m, const char *what, const char *key,
	       const struct cy_node **out, struct cy_error *err)
{
	const struct cy_node *v;

	if (m && m->kind != CY_MAP)
		return not_a_map(m, what, err);
	v = cy_get(m, key);
	if (!v)
		return cy_fail(err, m, "missing required key '%s'%s%s", key ? key : "",
			       what ? " in " : "", what ? what : "");
	*out = v;
	return 0;
}

/* ---- typed scalars ---- */

/* "<label>expected <what>, found a list": n is not the scalar wanted.
 * Numbers and booleans are plain, so a quoted one is told how to fix it. */
static int wrong_kind(const struct cy_node *n, const char *lab, const char *what,
		      struct cy_error *err)
{
	bool quoted = n && n->kind == CY_SCALAR && n->quoted && n->len;

	return cy_fail(err, n, "%sexpected %s, found %s%s", lab, what, cy_kind_name(n),
		       quoted ? " (write it without quotes)" : "");
}

static bool is_plain_text(const struct cy_node *n)
{
	return n && n->kind == CY_SCALAR && !n->quoted && n->len;
}

/* A family of numbers: how it is parsed and how its messages read. */
struct num_type {
	const char *what;  /* for a wrong kind: "expected <what>, found a list" */
	const char *noun;  /* "'x' is not <noun>" */
	const char *help;  /* "; expected <help>" for bad text; NULL: the range */
	const char *base;  /* "not a whole number of <base>"; NULL: no fractions */
	const char *limit; /* "too large; expected <limit>" when max is UINT64_MAX */
	int (*parse)(const char *s, uint64_t *out);
	void (*format)(char *buf, size_t len, uint64_t v);
};

/* Decimal digits only: no sign, no unit, no exponent. */
static int parse_uint(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	bool too_big = false;

	if (!*s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			too_big = true;
		else
			v = v * 10 + (uint64_t)(*p - '0');
	}
	if (too_big)
		return -ERANGE;
	*out = v;
	return 0;
}

static void format_plain(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "%" PRIu64, v);
}

/* "64KiB", or the plain byte count when the short form would round. */
static void format_bytes(char *buf, size_t len, uint64_t v)
{
	uint64_t back;

	cc_format_bytes(buf, len, v);
	if (cc_parse_size(buf, &back) || back != v)
		snprintf(buf, len, "%" PRIu64 "B", v);
}

static const struct num_type uint_type = {
	.what = "a number",
	.noun = "a whole number",
	.limit = "at most 18446744073709551615",
	.parse = parse_uint,
	.format = format_plain,
};

static const struct num_type size_type = {
	.what = "a size such as 4096, 64KiB or 1GiB",
	.noun = "a size",
	.help = "a size such as 4096, 64KiB or 1GiB",
	.base = "bytes",
	.limit = "less than 16777216TiB",
	.parse = cc_parse_size,
	.format = format_bytes,
};

static const struct num_type rate_type = {
	.what = "a rate such as 100Gbps or 400Gb/s",
	.noun = "a rate",
	.help = "a rate such as 100Gbps or 400Gb/s",
	.base = "bits per second",
	.limit = "less than 18446745Tbps",
	.parse = cc_parse_rate,
	.format = format_plain,
};

static const struct num_type time_type = {
	.what = "a time such as 600ns or 1.5us",
	.noun = "a time",
	.help = "a number with a unit: ps, ns, us, ms, s (such as 600ns or 1.5us)",
	.base = "picoseconds",
	.limit = "less than 18446745s (about 213 days)",
	.parse = cc_parse_time,
	.format = format_plain,
};

static const struct num_type msg_rate_type = {
	.what = "a message rate such as 9.2Mpps",
	.noun = "a message rate",
	.help = "a number with a unit: pps, kpps, Mpps, Gpps (such as 9.2Mpps)",
	.base = "messages per second",
	.limit = "less than 18446744073Gpps",
	.parse = cc_parse_msg_rate,
	.format = format_plain,
};

#define RANGE_LEN 96

/* "1 to 4096", "at least 4", "at most 1GiB", "more than zero". */
static const char *range_text(char buf[RANGE_LEN], const struct num_type *t, uint64_t min,
			      uint64_t max)
{
	char lo[CC_FMT_BYTES_LEN], hi[CC_FMT_BYTES_LEN];

	t->format(lo, sizeof(lo), min);
	t->format(hi, sizeof(hi), max);
	if (max == UINT64_MAX && min == 1)
		return "more than zero";
	if (max == UINT64_MAX && min > 1)
		snprintf(buf, RANGE_LEN, "at least %s", lo);
	else if (min == max)
		snprintf(buf, RANGE_LEN, "exactly %s", lo);
	else if (min == 0)
		snprintf(buf, RANGE_LEN, "at most %s", hi);
	else
		snprintf(buf, RANGE_LEN, "%s to %s", lo, hi);
	return buf;
}

/* Whether s parses once edited: `drop` bytes removed from [from, to).
 * Only for short texts, which is all a hint is needed for. */
static bool parses_without(const struct num_type *t, const char *s, size_t from, size_t to,
			   char drop)
{
	char buf[SHOW_LEN];
	size_t o = 0;
	uint64_t v;

	if (strlen(s) >= sizeof(buf))
		return false;
	for (size_t i = 0; s[i]; i++)
		if (i < from || i >= to || (drop && s[i] != drop))
			buf[o++] = s[i];
	buf[o] = '\0';
	return t->parse(buf, &v) != -EINVAL;
}

static int bad_number_text(const struct cy_node *n, const char *lab, const struct num_type *t,
			   const char *help, struct cy_error *err)
{
	const char *s = n->str;
	char shown[SHOW_LEN];
	bool spaced;

	cy__show(shown, s);
	if (s[0] == '-' && parses_without(t, s, 0, 1, '\0'))
		return cy_fail(err, n, "%s%s must not be negative; expected %s", lab, shown, help);
	if (t->base && cc_units_only_fraction_wrong(t->parse, s))
		return cy_fail(err, n, "%s'%s' is not a whole number of %s; expected %s", lab, shown,
			       t->base, help);
	spaced = strchr(s, ' ') && parses_without(t, s, 0, strlen(s), ' ');
	return cy_fail(err, n, "%s'%s' is not %s; expected %s%s", lab, shown, t->noun, help,
		       spaced ? ", written without a space" : "");
}

static int read_number(const struct cy_node *n, const char *key, const struct num_type *t,
		       uint64_t min, uint64_t max, uint64_t *out, struct cy_error *err)
{
	char lab[LABEL_LEN], shown[SHOW_LEN], rbuf[RANGE_LEN];
	const char *l = label(lab, key), *range;
	uint64_t v;
	int rc;

	if (!is_plain_text(n))
		return wrong_kind(n, l, t->what, err);
	rc = t->parse(n->str, &v);
	if (rc == 0 && v >= min && v <= max) {
		*out = v;
		return 0;
	}
	range = range_text(rbuf, t, min, max);
	if (rc == 0)
		return cy_fail(err, n, "%s%s is out of range; expected %s", l, cy__show(shown, n->str),
			       range);
	if (rc == -ERANGE)
		return cy_fail(err, n, "%s%s is too large; expected %s", l, cy__show(shown, n->str),
			       max == UINT64_MAX ? t->limit : range);
	return bad_number_text(n, l, t, t->help ? t->help : range, err);
}

int cy_uint(const struct cy_node *n, const char *key, uint64_t min, uint64_t max, uint64_t *out,
	    struct cy_error *err)
{
	return read_number(n, key, &uint_type, min, max, out, err);
}

int cy_size(const struct cy_node *n, const char *key, uint64_t min, uint64_t max, uint64_t *out,
	    struct cy_error *err)
{
	return read_number(n, key, &size_type, min, max, out, err);
}

int cy_rate(const struct cy_node *n, const char *key, uint64_t *bits_per_s,
	    struct cy_error *err)
{
	/* "100G" is the one mistake everyone makes: say both readings. */
	if (is_plain_text(n) && n->len < SHOW_MAX) {
		char lab[LABEL_LEN], bps[SHOW_LEN];
		uint64_t v;

		snprintf(bps, sizeof(bps), "%sbps", n->str);
		if (cc_parse_rate(n->str, &v) == -EINVAL && cc_parse_rate(bps, &v) != -EINVAL)
			/* Only digits and a prefix get here: nothing to escape. */
			return cy_fail(err, n,
				       "%s'%s' is ambiguous (bits or bytes?); expected %sbps or %sB/s",
				       label(lab, key), n->str, n->str, n->str);
	}
	return read_number(n, key, &rate_type, 1, UINT64_MAX, bits_per_s, err);
}

int cy_time(const struct cy_node *n, const char *key, uint64_t *ps, struct cy_error *err)
{
	return read_number(n, key, &time_type, 0, UINT64_MAX, ps, err);
}

int cy_msg_rate(const struct cy_node *n, const char *key, uint64_t *per_s, struct cy_error *err)
{
	return read_number(n, key, &msg_rate_type, 0, UINT64_MAX, per_s, err);
}

int cy_bool(const struct cy_node *n, const char *key, bool *out, struct cy_error *err)
{
	char lab[LABEL_LEN], shown[SHOW_LEN];

	if (!is_plain_text(n))
		return wrong_kind(n, label(lab, key), "true or false", err);
	if (!strcmp(n->str, "true") || !strcmp(n->str, "false")) {
		*out = n->str[0] == 't';
		return 0;
	}
	return cy_fail(err, n, "%s'%s' is not a boolean; expected true or false", label(lab, key),
		       cy__show(shown, n->str));
}

int cy_enum(const struct cy_node *n, const char *key, const char *const *names, unsigned count,
	    unsigned *out, struct cy_error *err)
{
	char lab[LABEL_LEN], shown[SHOW_LEN], lead[LABEL_LEN + SHOW_LEN + 32];

	if (!n || n->kind != CY_SCALAR || !n->len) {
		char list[NAMES_LEN], what[NAMES_LEN + 32];

		snprintf(what, sizeof(what), "a name (one of: %s)", join_names(list, names, count));
		return wrong_kind(n, label(lab, key), what, err);
	}
	for (unsigned i = 0; i < count; i++) {
		if (names[i] && !strcmp(names[i], n->str)) {
			*out = i;
			return 0;
		}
	}
	snprintf(lead, sizeof(lead), "%sunknown value '%s'", label(lab, key), cy__show(shown, n->str));
	return fail_unknown(err, n, lead, names, count);
}

int cy_string(const struct cy_node *n, const char *key, const char **out, struct cy_error *err)
{
	char lab[LABEL_LEN];

	if (!n || n->kind != CY_SCALAR || !n->len)
		return wrong_kind(n, label(lab, key), "a non-empty string", err);
	*out = n->str;
	return 0;
}
