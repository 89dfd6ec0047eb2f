/* SPDX-License-Identifier: BSD-3-Clause */
/* util/json.h — a streaming JSON writer into memory.
 *
 * Output is deterministic: keys in the order written, two-space
 * indentation, one member or element per line except in arrays opened with
 * cc_json_array_begin_flat(), which stay on one line ("[1, 2, 3]").  Integers are printed exactly; doubles with the
 * fewest digits that read back to the same double ("%.17g" at most), NaN
 * and infinities as null.  Strings are escaped per RFC 8259: quote,
 * backslash and control characters escaped (\n \t ... or \u00XX), bytes
 * that are not valid UTF-8 replaced by U+FFFD, so the output is always
 * valid JSON.
 *
 * Errors (out of memory, a key outside an object, a value where a key is
 * due, unbalanced ends, nesting deeper than CC_JSON_MAX_DEPTH) are sticky:
 * the first one is kept, later calls do nothing, cc_json_finish() returns
 * it.  So a caller writes a whole document and checks once. */
#ifndef CCLAB_UTIL_JSON_H
#define CCLAB_UTIL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CC_JSON_MAX_DEPTH 32

struct cc_json {
	char *buf;
	size_t len, cap;
	int err;
	uint32_t depth;
	bool after_key; /* a key was written; its value is due */
	bool done;      /* the top-level value is complete */
	struct {
		bool is_array, flat;
		uint32_t n; /* members or elements so far */
	} level[CC_JSON_MAX_DEPTH];
};

void cc_json_init(struct cc_json *j);
void cc_json_free(struct cc_json *j);
void cc_json_object_begin(struct cc_json *j);
void cc_json_object_end(struct cc_json *j);
void cc_json_array_begin(struct cc_json *j);
void cc_json_array_begin_flat(struct cc_json *j);
void cc_json_array_end(struct cc_json *j);
void cc_json_key(struct cc_json *j, const char *key);
void cc_json_string(struct cc_json *j, const char *s); /* NULL: null */
void cc_json_uint(struct cc_json *j, uint64_t v);
/* A whole JSON value as text, such as a document this writer made (its
 * lines re-indented to where it goes); trusted to be valid JSON. */
void cc_json_raw(struct cc_json *j, const char *text, size_t len);
void cc_json_int(struct cc_json *j, int64_t v);
void cc_json_double(struct cc_json *j, double v);
void cc_json_bool(struct cc_json *j, bool v);
void cc_json_null(struct cc_json *j);
/* One member of an object: cc_json_key() and the value, in one call. */
void cc_json_kv_string(struct cc_json *j, const char *key, const char *s);
void cc_json_kv_uint(struct cc_json *j, const char *key, uint64_t v);
void cc_json_kv_int(struct cc_json *j, const char *key, int64_t v);
void cc_json_kv_double(struct cc_json *j, const char *key, double v);
void cc_json_kv_bool(struct cc_json *j, const char *key, bool v);
void cc_json_kv_null(struct cc_json *j, const char *key);
/* Ends the document (a newline is appended).  Returns 0 and the text
 * (owned by j, NUL-terminated) or the first error: -ENOMEM, or -EINVAL for
 * misuse and for a document that is empty or not closed. */
int cc_json_finish(struct cc_json *j, const char **text, size_t *len);

#endif
