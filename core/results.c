/* core/results.c — nccl-tests' table and a JSON writer (see core/results.h;
 * atomic result files are core/atomic_file.c).
 *
 * The printf formats below are nccl-tests' (src/common.cu: run() prints the
 * header, TimeTest() the row prefix, BenchTime() the time/algbw/busbw/#wrong
 * body, run() the closing lines); only the out-of-place half is kept.
 */
#include "core/results.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- sizes and counts ---- */

void cc_result_counts(enum cc_coll coll, uint32_t nranks, size_t eltsize, uint64_t bytes,
		      uint64_t *count, uint64_t *size)
{
	uint64_t n = nranks ? nranks : 1, e = eltsize ? eltsize : 1;

	switch (coll) {
	case CC_REDUCESCATTER:
	case CC_ALLGATHER:
	case CC_ALLTOALL:
		/* ReduceScatterGetCollByteCount / AllGatherGetCollByteCount /
		 * AlltoAllGetCollByteCount (nccl-tests since eltSize joined
		 * them): base = (count/nranks) & -(16/eltSize), whole 16-byte
		 * units per rank (per peer for all-to-all); the row prints
		 * max(sendBytes, expectedBytes) = base * nranks * eltsize and
		 * paramcount = base. */
		*count = bytes / e / n;
		if (e <= 16)
			*count &= ~(16 / e - 1);
		*size = *count * n * e;
		break;
	default:
		/* AllReduceGetCollByteCount: send = recv = param = count. */
		*count = bytes / e;
		*size = *count * e;
		break;
	}
}

bool cc_result_next_size(uint64_t *size, uint64_t stepfactor, uint64_t maxbytes)
{
	uint64_t next;

	if (*size == 0)
		next = 1;
	else if (__builtin_mul_overflow(*size, stepfactor, &next))
		return false;
	if (next > maxbytes)
		return false;
	*size = next;
	return true;
}

bool cc_result_bw(uint64_t size, double time_us, double busbw_factor, double *algbw,
		  double *busbw)
{
	if (!(time_us > 0) || isinf(time_us))
		return false;
	/* *GetBw(): baseBw = bytes / 1.0E9 / sec. */
	double a = (double)size / 1.0e9 / (time_us * 1.0e-6);

	*algbw = a;
	*busbw = a * busbw_factor;
	return true;
}

/* ---- the table ---- */

/* nccl-tests prints "%6i" of root into a string and then "%6s" of it. */
#define ROW_PREFIX_FMT "%12" PRIu64 "  %12" PRIu64 "  %8s  %6s  %6i"

void cc_results_print_header(FILE *f)
{
	/* run(): the caption line, cut after "out-of-place" (the in-place
	 * caption and its padding are not ours to print). */
	fprintf(f, "# %10s  %12s  %8s  %6s  %6s           out-of-place\n", "", "", "", "", "");
	fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s\n", "size", "count", "type",
		"redop", "root", "time", "algbw", "busbw", "#wrong");
	fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s\n", "(B)", "(elements)", "", "",
		"", "(us)", "(GB/s)", "(GB/s)", "");
}

int cc_results_format_row(char *buf, size_t len, const struct cc_result_row *row)
{
	const char *type = row->type ? row->type : "";
	const char *redop = row->redop ? row->redop : "";
	double algbw, busbw;
	char time_str[32], wrong_str[32];

	/* #wrong as "%5g" of a double, exactly as nccl-tests (so counts of a
	 * million or more print as 1e+06; the JSON output has the integer);
	 * BenchTime() prints "%5s" of "N/A" when it did not check. */
	if (row->unchecked)
		snprintf(wrong_str, sizeof(wrong_str), "%5s", "N/A");
	else
		snprintf(wrong_str, sizeof(wrong_str), "%5g", (double)row->wrong);
	if (!cc_result_bw(row->size, row->time_us, row->busbw_factor, &algbw, &busbw))
		return snprintf(buf, len, ROW_PREFIX_FMT "  %7s  %6s  %6s  %s", row->size,
				row->count, type, redop, row->root, "N/A", "N/A", "N/A", wrong_str);
	/* BenchTime(): three precisions so the time stays 7 wide. */
	if (row->time_us >= 10000.0)
		snprintf(time_str, sizeof(time_str), "%7.0f", row->time_us);
	else if (row->time_us >= 100.0)
		snprintf(time_str, sizeof(time_str), "%7.1f", row->time_us);
	else
		snprintf(time_str, sizeof(time_str), "%7.2f", row->time_us);
	return snprintf(buf, len, ROW_PREFIX_FMT "  %7s  %6.2f  %6.2f  %s", row->size, row->count,
			type, redop, row->root, time_str, algbw, busbw, wrong_str);
}

void cc_results_print_row(FILE *f, const struct cc_result_row *row)
{
	char buf[256];
	int n = cc_results_format_row(buf, sizeof(buf), row);

	if (n < 0)
		return;
	if ((size_t)n < sizeof(buf)) {
		fprintf(f, "%s\n", buf);
		return;
	}
	/* Only a very long type or redop name gets here. */
	char *big = malloc((size_t)n + 1);

	if (!big)
		return;
	cc_results_format_row(big, (size_t)n + 1, row);
	fprintf(f, "%s\n", big);
	free(big);
}

void cc_results_summary_add(struct cc_results_summary *sum, const struct cc_result_row *row)
{
	double algbw, busbw;

	/* BenchTime()/CheckData(): errors[0]++ once per test with wrongElts;
	 * an unchecked row has none to count. */
	if ((row->wrong && !row->unchecked) || row->failed)
		sum->errors++;
	if (cc_result_bw(row->size, row->time_us, row->busbw_factor, &algbw, &busbw)) {
		sum->bw_sum += busbw;
		sum->bw_count++;
	}
}

void cc_results_print_errors(FILE *f, uint32_t errors)
{
	fprintf(f, "# Out of bounds values : %" PRIu32 " %s\n", errors, errors ? "FAILED" : "OK");
}

void cc_results_print_summary(FILE *f, const struct cc_results_summary *sum)
{
	cc_results_print_errors(f, sum->errors);
	/* nccl-tests: "%g %s" with an empty verdict unless NCCL_TESTS_MIN_BW is
	 * set, hence the trailing space. */
	if (sum->bw_count)
		fprintf(f, "# Avg bus bandwidth    : %g %s\n", sum->bw_sum / sum->bw_count, "");
	else
		fprintf(f, "# Avg bus bandwidth    : %s %s\n", "N/A", "");
	fprintf(f, "#\n");
}

/* ---- CSV ---- */

void cc_csv_str(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* ---- JSON ---- */

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
