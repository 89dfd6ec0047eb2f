/* SPDX-License-Identifier: BSD-3-Clause */
/* util/json.c — a streaming JSON writer into memory (util/json.h). */
#include "util/json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void cc_json_init(struct cc_json *j)
{
	memset(j, 0, sizeof(*j));
}

void cc_json_free(struct cc_json *j)
{
	free(j->buf);
	cc_json_init(j);
}

static void json_fail(struct cc_json *j, int err)
{
	if (!j->err)
		j->err = err;
}

static void json_put(struct cc_json *j, const char *s, size_t n)
{
	if (j->err)
		return;
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 256;

		while (cap < j->len + n + 1) {
			if (cap > SIZE_MAX / 2) {
				json_fail(j, -ENOMEM);
				return;
			}
			cap *= 2;
		}
		char *nb = realloc(j->buf, cap);

		if (!nb) {
			json_fail(j, -ENOMEM);
			return;
		}
		j->buf = nb;
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void json_puts(struct cc_json *j, const char *s)
{
	json_put(j, s, strlen(s));
}

static void json_newline(struct cc_json *j, uint32_t depth)
{
	json_put(j, "\n", 1);
	for (uint32_t i = 0; i < depth; i++)
		json_put(j, "  ", 2);
}

static bool json_flat(const struct cc_json *j)
{
	return j->depth && j->level[j->depth - 1].flat;
}

/* The separator and indentation before an array element or object member. */
static void json_separate(struct cc_json *j)
{
	uint32_t n = j->level[j->depth - 1].n++;

	if (n)
		json_put(j, ",", 1);
	if (json_flat(j)) {
		if (n)
			json_put(j, " ", 1);
	} else {
		json_newline(j, j->depth);
	}
}

/* Called before every value; false when the value must not be written. */
static bool json_value_begin(struct cc_json *j)
{
	if (j->err)
		return false;
	if (j->depth == 0) {
		if (j->done) {
			json_fail(j, -EINVAL); /* a second top-level value */
			return false;
		}
		return true;
	}
	if (!j->level[j->depth - 1].is_array) {
		if (!j->after_key) {
			json_fail(j, -EINVAL); /* a value where a key is due */
			return false;
		}
		j->after_key = false;
		return true;
	}
	json_separate(j);
	return true;
}

static void json_value_end(struct cc_json *j)
{
	if (j->depth == 0)
		j->done = true;
}

/* Appends s as a JSON string literal (RFC 8259 section 7). */
static void json_put_string(struct cc_json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	json_put(j, "\"", 1);
	while (*p) {
		unsigned char c = *p;
		size_t n = 0; /* length of a valid UTF-8 sequence at p */

		if (c < 0x80) {
			char esc[8];

			if (c == '"' || c == '\\') {
				esc[0] = '\\';
				esc[1] = (char)c;
				json_put(j, esc, 2);
			} else if (c < 0x20) {
				const char *short_esc = NULL;

				switch (c) {
				case '\b': short_esc = "\\b"; break;
				case '\f': short_esc = "\\f"; break;
				case '\n': short_esc = "\\n"; break;
				case '\r': short_esc = "\\r"; break;
				case '\t': short_esc = "\\t"; break;
				}
				if (short_esc) {
					json_puts(j, short_esc);
				} else {
					snprintf(esc, sizeof(esc), "\\u%04x", c);
					json_puts(j, esc);
				}
			} else {
				json_put(j, (const char *)p, 1);
			}
			p++;
			continue;
		}
		/* Well-formed UTF-8 (Unicode 15, table 3-7): no overlongs, no
		 * surrogates, nothing above U+10FFFF. */
		unsigned char lo = 0x80, hi = 0xbf;

		if (c >= 0xc2 && c <= 0xdf) {
			n = 2;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 3;
			if (c == 0xe0)
				lo = 0xa0;
			else if (c == 0xed)
				hi = 0x9f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 4;
			if (c == 0xf0)
				lo = 0x90;
			else if (c == 0xf4)
				hi = 0x8f;
		}
		for (size_t i = 1; i < n; i++) {
			unsigned char lo_i = i == 1 ? lo : 0x80, hi_i = i == 1 ? hi : 0xbf;

			if (p[i] < lo_i || p[i] > hi_i) {
				n = 0;
				break;
			}
		}
		if (n) {
			json_put(j, (const char *)p, n);
			p += n;
		} else {
			json_puts(j, "\\ufffd");
			p++;
		}
	}
	json_put(j, "\"", 1);
}

static void json_container_begin(struct cc_json *j, bool is_array, bool flat)
{
	if (!json_value_begin(j))
		return;
	if (j->depth == CC_JSON_MAX_DEPTH) {
		json_fail(j, -EINVAL);
		return;
	}
	/* Everything inside a flat array stays on its line. */
	flat = flat || json_flat(j);
	j->level[j->depth].is_array = is_array;
	j->level[j->depth].flat = flat;
	j->level[j->depth].n = 0;
	j->depth++;
	json_put(j, is_array ? "[" : "{", 1);
}

static void json_container_end(struct cc_json *j, bool is_array)
{
	if (j->err)
		return;
	if (!j->depth || j->level[j->depth - 1].is_array != is_array || j->after_key) {
		json_fail(j, -EINVAL);
		return;
	}
	bool flat = json_flat(j);
	uint32_t n = j->level[j->depth - 1].n;

	j->depth--;
	if (n && !flat)
		json_newline(j, j->depth);
	json_put(j, is_array ? "]" : "}", 1);
	json_value_end(j);
}

void cc_json_object_begin(struct cc_json *j)
{
	json_container_begin(j, false, false);
}

void cc_json_object_end(struct cc_json *j)
{
	json_container_end(j, false);
}

void cc_json_array_begin(struct cc_json *j)
{
	json_container_begin(j, true, false);
}

void cc_json_array_begin_flat(struct cc_json *j)
{
	json_container_begin(j, true, true);
}

void cc_json_array_end(struct cc_json *j)
{
	json_container_end(j, true);
}

void cc_json_key(struct cc_json *j, const char *key)
{
	if (j->err)
		return;
	if (!j->depth || j->level[j->depth - 1].is_array || j->after_key || !key) {
		json_fail(j, -EINVAL);
		return;
	}
	json_separate(j);
	json_put_string(j, key);
	json_put(j, ": ", 2);
	j->after_key = true;
}

static void json_scalar(struct cc_json *j, const char *text)
{
	if (!json_value_begin(j))
		return;
	json_puts(j, text);
	json_value_end(j);
}

void cc_json_string(struct cc_json *j, const char *s)
{
	if (!s) {
		cc_json_null(j);
		return;
	}
	if (!json_value_begin(j))
		return;
	json_put_string(j, s);
	json_value_end(j);
}

void cc_json_raw(struct cc_json *j, const char *text, size_t len)
{
	size_t from = 0;

	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--; /* the document's own closing newline */
	if (!len) {
		json_fail(j, -EINVAL); /* not a value */
		return;
	}
	if (!json_value_begin(j))
		return;
	/* Its lines indented to this depth: strings hold no raw newline. */
	for (size_t i = 0; i < len; i++) {
		if (text[i] != '\n')
			continue;
		json_put(j, text + from, i - from);
		json_newline(j, j->depth);
		from = i + 1;
	}
	json_put(j, text + from, len - from);
	json_value_end(j);
}

void cc_json_uint(struct cc_json *j, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	json_scalar(j, buf);
}

void cc_json_int(struct cc_json *j, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	json_scalar(j, buf);
}

void cc_json_double(struct cc_json *j, double v)
{
	char buf[32];

	if (isnan(v) || isinf(v)) {
		json_scalar(j, "null"); /* JSON has no NaN or infinity */
		return;
	}
	/* The shortest "%.Ng" that reads back as v: deterministic, and 0.1
	 * prints as 0.1, not 0.10000000000000001.  Needs the "C" locale's
	 * decimal point, which a program has until it calls setlocale(). */
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	json_scalar(j, buf);
}

void cc_json_bool(struct cc_json *j, bool v)
{
	json_scalar(j, v ? "true" : "false");
}

void cc_json_null(struct cc_json *j)
{
	json_scalar(j, "null");
}

void cc_json_kv_string(struct cc_json *j, const char *key, const char *s)
{
	cc_json_key(j, key);
	cc_json_string(j, s);
}

void cc_json_kv_uint(struct cc_json *j, const char *key, uint64_t v)
{
	cc_json_key(j, key);
	cc_json_uint(j, v);
}

void cc_json_kv_int(struct cc_json *j, const char *key, int64_t v)
{
	cc_json_key(j, key);
	cc_json_int(j, v);
}

void cc_json_kv_double(struct cc_json *j, const char *key, double v)
{
	cc_json_key(j, key);
	cc_json_double(j, v);
}

void cc_json_kv_bool(struct cc_json *j, const char *key, bool v)
{
	cc_json_key(j, key);
	cc_json_bool(j, v);
}

void cc_json_kv_null(struct cc_json *j, const char *key)
{
	cc_json_key(j, key);
	cc_json_null(j);
}

int cc_json_finish(struct cc_json *j, const char **text, size_t *len)
{
	if (!j->err && (!j->done || j->depth))
		json_fail(j, -EINVAL);
	if (!j->err)
		json_put(j, "\n", 1);
	if (j->err)
		return j->err;
	if (text)
		*text = j->buf;
	if (len)
		*len = j->len;
	return 0;
}
