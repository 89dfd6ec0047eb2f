/* SPDX-License-Identifier: BSD-3-Clause */
/* util/yaml_json.c — JSON documents as the trees util/yaml.h builds from
 * YAML (cy_load_json_file, cy_load_json_string), parsed by jansson.
 *
 * JSON is not YAML 1.1: libyaml calls the surrogate pair "\ud83d\ude00"
 * (which Python's json.dump writes for U+1F600) a syntax error, and takes
 * what JSON refuses ('nan', trailing commas, unquoted keys).  So JSON goes
 * through a JSON parser, and comes out as the same cy_node tree, which
 * every typed getter and every message with file:line:col already reads.
 *
 * jansson keeps no positions in its values, only in its errors.  The
 * positions are found by a second pass over the text, which jansson has
 * by then accepted: a walk that only skips strings, numbers and literals
 * and follows jansson's tree in step (an object's members come in the
 * order they were read: jansson keeps insertion order since 2.8).  The
 * values themselves (decoded strings) are jansson's; a number keeps its
 * text, so that "18446744073709551615" is still a whole number to
 * cy_uint() and not a double.
 */
#include "util/yaml.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/yaml_int.h"

/* ---- the position walk ---- */

struct walk {
	struct cy_doc *doc;
	struct cy_error *err;
	const char *s;
	size_t len, i;        /* the text, and the walk's offset in it */
	uint32_t line, col;   /* of s[i], 1-based, columns in characters */
};

/* JSON's whitespace (RFC 8259 section 2). */
static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void advance(struct walk *w, size_t n)
{
	for (; n && w->i < w->len; n--, w->i++) {
		if (w->s[w->i] == '\n') {
			w->line++;
			w->col = 1;
		} else if ((w->s[w->i] & 0xC0) != 0x80) {
			w->col++;
		}
	}
}

static void skip_space(struct walk *w)
{
	while (w->i < w->len && blank(w->s[w->i]))
		advance(w, 1);
}

static char peek(const struct walk *w)
{
	return w->i < w->len ? w->s[w->i] : '\0';
}

static int out_of_memory(struct walk *w)
{
	cy_fail(w->err, NULL, "%s: out of memory", w->doc->name);
	return -ENOMEM;
}

/* jansson accepted a text this walk cannot follow: a bug, said as one
 * (never a wrong tree). */
static int lost(struct walk *w)
{
	struct cy_node at = {.file = w->doc->name, .line = w->line, .col = w->col};

	return cy_fail(w->err, &at, "internal error: the JSON text and jansson's reading of it "
		       "disagree here");
}

static int expect(struct walk *w, char c)
{
	skip_space(w);
	if (peek(w) != c)
		return lost(w);
	advance(w, 1);
	return 0;
}

/* Past a string, at its opening quote (escapes are two characters or
 * \uXXXX, whose X are never a quote). */
static int skip_string(struct walk *w)
{
	if (peek(w) != '"')
		return lost(w);
	advance(w, 1);
	while (w->i < w->len && w->s[w->i] != '"')
		advance(w, w->s[w->i] == '\\' ? 2 : 1);
	if (peek(w) != '"')
		return lost(w);
	advance(w, 1);
	return 0;
}

static struct cy_node *new_node(struct walk *w, enum cy_kind kind)
{
	struct cy_node *n = cy__arena_alloc(&w->doc->arena, sizeof(*n), _Alignof(struct cy_node));

	if (n)
		*n = (struct cy_node){.kind = kind, .line = w->line, .col = w->col,
				      .file = w->doc->name};
	return n;
}

static struct cy_node *new_scalar(struct walk *w, const char *text, size_t len, bool quoted)
{
	struct cy_node *n = new_node(w, CY_SCALAR);

	if (!n || !(n->str = cy__arena_strndup(&w->doc->arena, text, len)))
		return NULL;
	n->len = len;
	n->quoted = quoted;
	return n;
}

static int node_of(struct walk *w, json_t *v, unsigned depth, struct cy_node **out);

/* An object's members or an array's elements, in order, into n: count of
 * them, `close` the bracket that ends them. */
static int members(struct walk *w, json_t *v, unsigned depth, struct cy_node *n, size_t count,
		   char close)
{
	void *it = json_is_object(v) ? json_object_iter(v) : NULL;
	int rc;

	n->vals = cy__arena_alloc(&w->doc->arena, (count ? count : 1) * sizeof(*n->vals),
				  _Alignof(struct cy_node *));
	if (json_is_object(v))
		n->keys = cy__arena_alloc(&w->doc->arena, (count ? count : 1) * sizeof(*n->keys),
					  _Alignof(struct cy_node *));
	if (!n->vals || (json_is_object(v) && !n->keys))
		return out_of_memory(w);
	advance(w, 1); /* the opening bracket */
	for (size_t k = 0; k < count; k++) {
		json_t *val = json_array_get(v, k);

		if (k && (rc = expect(w, ',')))
			return rc;
		if (json_is_object(v)) {
			const char *key = it ? json_object_iter_key(it) : NULL;

			skip_space(w);
			if (!key)
				return lost(w);
			if (!(n->keys[k] = new_scalar(w, key, strlen(key), true)))
				return out_of_memory(w);
			if ((rc = skip_string(w)) || (rc = expect(w, ':')))
				return rc;
			val = json_object_iter_value(it);
			it = json_object_iter_next(v, it);
		}
		if ((rc = node_of(w, val, depth + 1, &n->vals[k])))
			return rc;
		n->n = k + 1;
	}
	return expect(w, close);
}

/* The node of jansson's value v, whose text starts at the walk's offset
 * (after blanks); the walk ends past it. */
static int node_of(struct walk *w, json_t *v, unsigned depth, struct cy_node **out)
{
	struct cy_node *n = NULL;
	size_t start;

	skip_space(w);
	start = w->i;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
	case JSON_ARRAY:
		if (peek(w) != (json_is_object(v) ? '{' : '['))
			return lost(w);
		if (depth == CY__MAX_DEPTH) {
			struct cy_node at = {.file = w->doc->name, .line = w->line, .col = w->col};

			return cy_fail(w->err, &at, "nesting deeper than %d levels; expected a "
				       "flatter document", CY__MAX_DEPTH);
		}
		n = new_node(w, json_is_object(v) ? CY_MAP : CY_SEQ);
		if (!n)
			return out_of_memory(w);
		*out = n;
		return members(w, v, depth, n, json_is_object(v) ? json_object_size(v)
			       : json_array_size(v), json_is_object(v) ? '}' : ']');
	case JSON_STRING:
		n = new_scalar(w, json_string_value(v), json_string_length(v), true);
		if (n && skip_string(w))
			return -EINVAL;
		break;
	case JSON_INTEGER:
	case JSON_REAL:
		while (w->i < w->len && strchr("+-0123456789.eE", w->s[w->i]))
			w->i++; /* no newline in a number: the column moves by as much */
		if (w->i == start)
			return lost(w);
		n = new_scalar(w, w->s + start, w->i - start, false);
		w->col += (uint32_t)(w->i - start);
		break;
	case JSON_TRUE:
	case JSON_FALSE:
	case JSON_NULL: {
		const char *word = json_is_true(v) ? "true" : json_is_false(v) ? "false" : "null";
		size_t len = strlen(word);

		if (w->len - w->i < len || memcmp(w->s + w->i, word, len))
			return lost(w);
		n = new_scalar(w, word, len, false);
		advance(w, len);
		break;
	}
	}
	if (!n)
		return out_of_memory(w);
	*out = n;
	return 0;
}

/* ---- jansson's errors ---- */

/* The opening quote of the string whose closing quote is text[close]: the
 * nearest quote before it not escaped by an odd run of '\'; close when
 * there is none. */
static size_t string_start(const char *text, size_t close)
{
	for (size_t q = close; q--; ) {
		size_t slashes = 0;

		if (text[q] != '"')
			continue;
		while (q > slashes && text[q - 1 - slashes] == '\\')
			slashes++;
		if (slashes % 2 == 0)
			return q;
	}
	return close;
}

/* The key whose value starts at text[at], as written ("time_us"), into
 * buf; "" when text[at] is no object's value. */
static const char *key_before(const char *text, size_t at, char *buf, size_t len)
{
	size_t q, i = at;

	buf[0] = '\0';
	while (i && blank(text[i - 1]))
		i--;
	if (!i || text[--i] != ':')
		return buf;
	while (i && blank(text[i - 1]))
		i--;
	if (!i || text[--i] != '"')
		return buf;
	q = string_start(text, i);
	if (q < i)
		snprintf(buf, len, "%.*s", (int)(i - q - 1), text + q + 1);
	return buf;
}

/* jansson's error as cclab's: at the start of the token it names, the key
 * whose value it is in front, in words for the errors a file of ours can
 * meet; *at is that start.  jansson reports the line and column of the
 * token's last character; e.position (bytes read) and the token it quotes
 * ("... near 'nan'") give its first, checked against the text. */
static int syntax_error(struct cy_doc *doc, const char *text, size_t len, const json_error_t *e,
			size_t *at, struct cy_error *err)
{
	static const char near[] = " near '";
	const char *cut = strstr(e->text, near), *tok = cut ? cut + sizeof(near) - 1 : "";
	size_t end = e->position >= 0 && (size_t)e->position <= len ? (size_t)e->position : len;
	size_t tlen = strlen(tok);
	char token[CY__SHOW_LEN], problem[JSON_ERROR_TEXT_LENGTH], key[CY__SHOW_LEN];
	char s1[CY__SHOW_LEN], s2[CY__SHOW_LEN], lab[CY__SHOW_LEN + 8] = "";
	struct cy_node pos = {.file = doc->name};

	/* A quoted token ends in its quote.  jansson quotes none longer than
	 * 20 bytes: a duplicate key or a number out of range, just read, is
	 * then found in the text; any other error is placed at the end of
	 * its token. */
	*at = end;
	if (tlen && tok[tlen - 1] == '\'' && tlen - 1 <= end &&
	    !memcmp(text + end - (tlen - 1), tok, tlen - 1)) {
		*at = end - --tlen;
	} else {
		if (json_error_code(e) == json_error_duplicate_key && end && text[end - 1] == '"')
			*at = string_start(text, end - 1);
		else if (json_error_code(e) == json_error_numeric_overflow)
			while (*at && strchr("+-0123456789.eE", text[*at - 1]))
				--*at;
		tok = text + *at;
		tlen = end - *at;
	}
	snprintf(token, sizeof(token), "%.*s", (int)(tlen < sizeof(token) ? tlen
						     : sizeof(token) - 1), tok);
	/* jansson's words without the token, said after them as quoted */
	snprintf(problem, sizeof(problem), "%.*s", tlen && cut ? (int)(cut - e->text)
		 : (int)sizeof(problem), e->text);
	cy__offset_position(text, *at, &pos.line, &pos.col);
	if (*key_before(text, *at, key, sizeof(key)))
		snprintf(lab, sizeof(lab), "'%s': ", cy__show(s1, key));
	cy__show(s2, token);
	switch (json_error_code(e)) {
	case json_error_out_of_memory:
		cy_fail(err, NULL, "%s: out of memory", doc->name);
		return -ENOMEM;
	case json_error_duplicate_key:
		/* Which of the two values was meant is not ours to guess
		 * (jansson's JSON_REJECT_DUPLICATES). */
		return cy_fail(err, &pos, "duplicate key %s in an object; expected each key once",
			       s2);
	case json_error_null_character:
		return cy_fail(err, &pos, "%sa NUL character (\\u0000) in a string; expected text "
			       "without it", lab);
	case json_error_numeric_overflow:
		return cy_fail(err, &pos, "%sthe number '%s' is out of range", lab, s2);
	case json_error_stack_overflow:
		return cy_fail(err, &pos, "nesting deeper than %d levels; expected a flatter "
			       "document", CY__MAX_DEPTH);
	case json_error_invalid_utf8:
		return cy_fail(err, &pos, "%sJSON syntax error: %s; expected UTF-8 text", lab,
			       cy__show(s1, problem));
	default:
		break;
	}
	if (!strcasecmp(token, "nan") || !strcasecmp(token, "inf") ||
	    !strcasecmp(token, "infinity") || !strcasecmp(token, "-infinity"))
		return cy_fail(err, &pos, "%sJSON syntax error: '%s' is not a JSON value; JSON has no "
			       "NaN or infinity (cclab writes null)", lab, s2);
	if (tlen)
		return cy_fail(err, &pos, "%sJSON syntax error: %s near '%s'", lab,
			       cy__show(s1, problem), s2);
	return cy_fail(err, &pos, "%sJSON syntax error: %s", lab, cy__show(s1, problem));
}

/* ---- loading ---- */

static int parse_json(struct cy_doc *doc, const char *text, size_t len, struct cy_error *err)
{
	struct walk w = {.doc = doc, .err = err, .s = text, .len = len, .line = 1, .col = 1};
	size_t first = 0, at;
	json_error_t e;
	json_t *root;
	int rc;

	/* Any value at the top, so that a reader can say what a file that is
	 * not an object holds; numbers as doubles, so that none is refused
	 * for exceeding a long long (the text is what the tree keeps). */
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY |
			  JSON_DECODE_INT_AS_REAL, &e);
	if (root) {
		rc = node_of(&w, root, 0, &doc->root);
		json_decref(root);
		return rc;
	}
	while (first < len && blank(text[first]))
		first++;
	if (first == len) {
		struct cy_node pos = {.file = doc->name};

		cy__offset_position(text, len, &pos.line, &pos.col);
		return cy_fail(err, &pos, "empty document; expected JSON text");
	}
	rc = syntax_error(doc, text, len, &e, &at, err);
	/* Wrong from its first word on, which opens no object, list or
	 * string: likely another kind of file, which the caller may name. */
	if (rc == -EINVAL && at == first && !strchr("{[\"", text[first]))
		rc = -ENOMSG;
	return rc;
}

int cy_load_json_string(const char *name, const char *text, size_t len, struct cy_doc *doc,
			struct cy_error *err)
{
	return cy__load_text(name, text, len, "JSON", parse_json, doc, err);
}

int cy_load_json_file(const char *path, struct cy_doc *doc, struct cy_error *err)
{
	/* A --json result holds about 1.1 KB per rank and size (a sim's
	 * per-rank counters): 256 MiB is a 1024-rank sweep of 200 sizes, and
	 * its tree a few GB at most; past that it is a wrong path. */
	return cy__load_path(path, "a --json result", (size_t)256 << 20, cy_load_json_string, doc,
			     err);
}
