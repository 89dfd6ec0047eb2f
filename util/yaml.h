/* SPDX-License-Identifier: BSD-3-Clause */
/* util/yaml.h — YAML documents as a tree with positions, and the strict,
 * friendly checks scenario and topology files go through.
 *
 * Parsing is libyaml's (yaml_parser_parse, event by event); the tree keeps
 * every node's line and column (1-based, as editors show them), so any
 * later check can say exactly where the problem is:
 *
 *   scenarios/x.yaml:12:5: unknown key 'latncy' in 'link' (did you mean 'latency'?);
 *   expected one of: rate, latency, mtu
 *
 * Rules, stricter than YAML itself, because a typo in a scenario must never
 * run silently with a default:
 *   - one document per file; an empty file is an error;
 *   - duplicate keys in a mapping are an error (YAML 1.2 says so; libyaml
 *     does not check);
 *   - anchors, aliases and merge keys ('<<') are refused (scenarios are
 *     short; a shared piece belongs in a topology file);
 *   - mapping keys are scalars, plain or quoted (a list or a mapping as a
 *     key is refused, and so is an empty key);
 *   - tags (!!str, !foo) are refused;
 *   - scalars stay text: typed reading (numbers with units, booleans,
 *     enums) is done by the cy_* getters below, so "1e3", "0x10", "yes"
 *     mean nothing special and "on" is not a boolean.
 *
 * Errors: every function that can fail fills a struct cy_error with one
 * message, "file:line:col: what is wrong; what was expected", and returns
 * -EINVAL (-ENOMEM; for a file that cannot be read, -errno such as -ENOENT,
 * -EACCES or -EISDIR, and -EFBIG past 16 MiB (256 MiB for JSON): then the message has the file
 * and the reason, no position).  Nothing prints.
 */
#ifndef CCLAB_UTIL_YAML_H
#define CCLAB_UTIL_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cy_kind { CY_SCALAR, CY_MAP, CY_SEQ };

struct cy_node {
	enum cy_kind kind;
	uint32_t line, col;     /* where the node starts, 1-based */
	const char *file;       /* the document's name, owned by the document */
	/* CY_SCALAR */
	char *str;              /* NUL-terminated text (may contain no NUL) */
	size_t len;
	bool quoted;            /* written '...' or "..." */
	/* CY_MAP: keys[i] (a CY_SCALAR) -> vals[i]; CY_SEQ: vals[i] */
	struct cy_node **keys, **vals;
	size_t n;
};

struct cy_doc {
	char *name;             /* the path given, or the name for a string */
	struct cy_node *root;
	void *arena;            /* every node and string: freed at once */
};

#define CY_ERR_LEN 512
struct cy_error {
	char msg[CY_ERR_LEN];
};

/* Loads the single document of a file (or a buffer, named `name` in
 * messages).  Returns 0 with doc filled, or an error (doc left empty). */
int cy_load_file(const char *path, struct cy_doc *doc, struct cy_error *err);
int cy_load_string(const char *name, const char *text, size_t len, struct cy_doc *doc,
		   struct cy_error *err);
void cy_free(struct cy_doc *doc);

/* The same for a JSON document (RFC 8259, parsed by jansson in
 * util/yaml_json.c), as the same tree: an object is a CY_MAP, an array a
 * CY_SEQ, a string a quoted CY_SCALAR (escapes decoded to UTF-8, surrogate
 * pairs included), a number a plain CY_SCALAR with its text as written,
 * true, false and null the plain scalars "true", "false" and "null".
 * Refused at file:line:col: a syntax error, a duplicate key, a NUL
 * (raw or \u0000), a number out of a double's range, nesting deeper than
 * 64.  -EINVAL for those; -ENOMSG, with the syntax error in err, when the
 * text is not JSON from its first character on (a CSV table, a YAML
 * file), so that a caller may say what the file is instead. */
int cy_load_json_file(const char *path, struct cy_doc *doc, struct cy_error *err);
int cy_load_json_string(const char *name, const char *text, size_t len, struct cy_doc *doc,
			struct cy_error *err);
/* 0 when the document is a mapping, else a message that says what the
 * file holds instead ("a topology file must hold a YAML mapping ..."). */
int cy_doc_map(const struct cy_doc *doc, const char *what, struct cy_error *err);

/* Applies "key.path=value" to a loaded document whose root is a mapping:
 * sets that key (creating the mappings on the path), the value parsed as
 * YAML on its own ("1GiB", "[sim, data]", "{min: 1K}"), so every later
 * check treats it as if the file said it; its messages are located at
 * "--set key.path=value:1:col".  0, -EINVAL or -ENOMEM. */
int cy_set(struct cy_doc *doc, const char *assignment, struct cy_error *err);

/* Fills err with "file:line:col: " + the formatted text; returns -EINVAL
 * (so a check can `return cy_fail(...)`): util/err.h's cc_errf() with the
 * node's position in front. */
int cy_fail(struct cy_error *err, const struct cy_node *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "a mapping", "a list", "a number", ... for messages: what node n is. */
const char *cy_kind_name(const struct cy_node *n);

/* The candidate closest to word by edit distance (Damerau-Levenshtein:
 * insertions, deletions, substitutions, adjacent transpositions), if it is
 * within max(1, strlen(word) / 3) edits; else NULL.  candidates is
 * NULL-terminated. */
const char *cy_closest(const char *word, const char *const *candidates);

/* ---- mappings ---- */

/* n must be a mapping (`what` names it in the message: "'link'", "the
 * scenario") whose keys are all in allowed (NULL-terminated); an unknown key
 * is reported at the key, with the closest allowed one and the full list. */
int cy_check_map(const struct cy_node *n, const char *what, const char *const *allowed,
		 struct cy_error *err);

/* The value of key in mapping m, or NULL when absent (m may be NULL). */
const struct cy_node *cy_get(const struct cy_node *m, const char *key);

/* The same, but absent is an error reported at m: "missing required key
 * 'collective' in the scenario". */
int cy_require(const struct cy_node *m, const char *what, const char *key,
	       const struct cy_node **out, struct cy_error *err);

/* ---- typed scalars ----
 * Each reports a wrong kind ("expected a size such as 4KiB, found a
 * list"), a bad text and an out-of-range value at the node, naming the key
 * when the caller passes it (`key` may be NULL). */

/* A whole number in [min, max], decimal digits only. */
int cy_uint(const struct cy_node *n, const char *key, uint64_t min, uint64_t max, uint64_t *out,
	    struct cy_error *err);
/* A size (util/units.h cc_parse_size: "4096", "4KiB", "1G") in [min, max]. */
int cy_size(const struct cy_node *n, const char *key, uint64_t min, uint64_t max, uint64_t *out,
	    struct cy_error *err);
/* A rate (cc_parse_rate: "100Gbps", "400Gb/s", "25GB/s"), > 0, bits/s. */
int cy_rate(const struct cy_node *n, const char *key, uint64_t *bits_per_s,
	    struct cy_error *err);
/* A time (cc_parse_time: "1us", "600ns", "0"), picoseconds. */
int cy_time(const struct cy_node *n, const char *key, uint64_t *ps, struct cy_error *err);
/* A message rate (cc_parse_msg_rate: "9.2Mpps"), messages per second. */
int cy_msg_rate(const struct cy_node *n, const char *key, uint64_t *per_s, struct cy_error *err);
/* true/false only. */
int cy_bool(const struct cy_node *n, const char *key, bool *out, struct cy_error *err);
/* One of names[0 .. count) (NULL entries skipped); the index. */
int cy_enum(const struct cy_node *n, const char *key, const char *const *names, unsigned count,
	    unsigned *out, struct cy_error *err);
/* Any non-empty scalar text. */
int cy_string(const struct cy_node *n, const char *key, const char **out, struct cy_error *err);

#endif /* CCLAB_UTIL_YAML_H */
