/* core/results.h — reporting results: nccl-tests' table, a JSON writer, and
 * an atomic file writer.
 *
 * The table is nccl-tests' stdout table (src/common.cu: the header printed
 * in run(), the row prefix in TimeTest(), the row body in BenchTime(), the
 * closing "# Out of bounds values" / "# Avg bus bandwidth" lines), with the
 * same columns, widths and number formats, cut to the out-of-place half:
 * cclab runs each collective once, out of place.  An executor that models
 * no time prints N/A in the time, algbw and busbw columns; a run that checks
 * no data prints N/A in #wrong, as nccl-tests does with -c 0.
 *
 * Bandwidths follow nccl-tests' *GetBw(): algbw = size / time in GB/s
 * (1e9 B/s), where size is the table's size column; busbw = algbw * factor
 * with factor = cc_busbw_factor() (core/algo.h).
 */
#ifndef CCLAB_CORE_RESULTS_H
#define CCLAB_CORE_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "schedule.h"

/* ---- sizes and counts, nccl-tests' convention ---- */

/* From the size the user asked for (-b/-e) to the collective's count and the
 * size column, as nccl-tests' setupArgs() + *GetCollByteCount() do:
 *   allreduce:              count = bytes / eltsize,          size = count * eltsize
 *   reducescatter, allgather: count = bytes / eltsize / nranks, size = count * nranks * eltsize
 * (the table's size is the whole array, the count is per rank).  Recent
 * nccl-tests also round reduce-scatter and all-gather counts down to a
 * multiple of 16 bytes; we do not, so every count the user can ask for is
 * reachable.  nranks and eltsize must be >= 1. */
void cc_result_counts(enum cc_coll coll, uint32_t nranks, size_t eltsize, uint64_t bytes,
		      uint64_t *count, uint64_t *size);

/* The size after `size` in nccl-tests' loop (src/common.cu TimeTest():
 * size *= stepfactor while size <= maxbytes), or false when the loop ends.
 * nccl-tests never ends a loop that starts at 0 (0 * f = 0); we go on
 * with 1.  Overflow ends the loop. */
bool cc_result_next_size(uint64_t *size, uint64_t stepfactor, uint64_t maxbytes);

/* algbw and busbw in GB/s for `size` bytes in time_us microseconds.
 * Returns false (and stores nothing) when the time is unknown or not
 * positive. */
bool cc_result_bw(uint64_t size, double time_us, double busbw_factor, double *algbw,
		  double *busbw);

/* ---- the table ---- */

/* One row.  time_us < 0 (or NaN) means "no time": N/A columns. */
struct cc_result_row {
	uint64_t size;       /* bytes, the size column (see cc_result_counts) */
	uint64_t count;      /* elements, the count column */
	const char *type;    /* nccl-tests' type name: "float", "half", ... */
	const char *redop;   /* "sum", ...; "none" for all-gather, as nccl-tests */
	int root;            /* -1 for collectives without a root */
	uint64_t chunk_bytes; /* the chunk this size ran with (cc_coll_chunk_bytes) */
	double time_us;
	double busbw_factor; /* cc_busbw_factor(coll, nranks) */
	uint64_t wrong;      /* #wrong */
	bool unchecked;      /* no data was checked: #wrong is N/A (nccl-tests -c 0) */
	bool failed;         /* run failed for another reason (deadlock, ...) */
};

#define CC_RESULT_NO_TIME (-1.0)

/* Three header lines: the out-of-place caption, the column names, the
 * units.  nccl-tests prints "#" on a line of its own just before. */
void cc_results_print_header(FILE *f);

/* One row, with its newline.  Also formats into buf (snprintf semantics:
 * returns the length the full row needs, without the newline). */
void cc_results_print_row(FILE *f, const struct cc_result_row *row);
int cc_results_format_row(char *buf, size_t len, const struct cc_result_row *row);

/* The closing lines, accumulated row by row as nccl-tests does: a row with
 * #wrong != 0 (or failed) counts one "out of bounds" error; busbw is
 * averaged over rows that have a time. */
struct cc_results_summary {
	uint32_t errors;
	uint32_t bw_count;
	double bw_sum;
};

void cc_results_summary_add(struct cc_results_summary *sum, const struct cc_result_row *row);
/* "# Out of bounds values : N OK|FAILED", "# Avg bus bandwidth    : X ",
 * "#".  X is N/A when no row had a time. */
void cc_results_print_summary(FILE *f, const struct cc_results_summary *sum);
/* Its first line alone, for tables that have no bus bandwidth (cclab p2p):
 * scripts look for it after every run. */
void cc_results_print_errors(FILE *f, uint32_t errors);

/* ---- CSV ----
 * One text field as RFC 4180 (section 2, rules 5-7) writes it: as it is,
 * or in double quotes, its own quotes doubled, when it holds a comma, a
 * double quote or a line break, so that a scenario named "a,b" stays one
 * column.  NULL writes an empty field. */
void cc_csv_str(FILE *f, const char *s);

/* ---- JSON ----
 *
 * A streaming writer into memory.  Output is deterministic: keys in the
 * order written, two-space indentation, one member or element per line
 * except in arrays opened with cc_json_array_begin_flat(), which stay on
 * one line ("[1, 2, 3]").  Integers are printed exactly; doubles with the
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
void cc_json_int(struct cc_json *j, int64_t v);
void cc_json_double(struct cc_json *j, double v);
void cc_json_bool(struct cc_json *j, bool v);
void cc_json_null(struct cc_json *j);
/* Ends the document (a newline is appended).  Returns 0 and the text
 * (owned by j, NUL-terminated) or the first error: -ENOMEM, or -EINVAL for
 * misuse and for a document that is empty or not closed. */
int cc_json_finish(struct cc_json *j, const char **text, size_t *len);

/* ---- atomic files ----
 *
 * A result file is either complete or absent: the data goes to a temporary
 * file created (mkstemp) in the target's directory, is flushed and
 * fsync()ed, and is renamed over the target, which replaces it atomically
 * (rename(2)); the directory is then fsync()ed so the rename itself is
 * durable.  On any error the temporary file is removed and the target is
 * left as it was.  SIGINT, SIGTERM and SIGHUP remove the temporary files
 * still open before the program ends (core/atomic_file.c).
 *
 * Only a regular file (or a name not yet taken) is replaced so.  What the
 * target is decides, as a shell's '>' would, but never destroying it:
 *   "-"                         stdout itself;
 *   a symbolic link             followed: its target is replaced, the link stays;
 *   /dev/stdout, /dev/fd/N, ... the open file itself, written where it stands
 *                               (shares the offset: nothing already there is lost);
 *   a FIFO, a character device  opened and written directly (a FIFO without a
 *                               reader is refused, never waited for);
 *   a directory                 -EISDIR, at open;
 *   a block device, a socket    refused (-CC_EUNSAFE);
 *   one of the run's inputs     refused (-CC_EISINPUT, core/files.h), through links too.
 * A file written directly cannot be taken back: abort closes it as it is.
 * Functions return 0 or a negative error, named by cc_file_strerror(). */
struct cc_atomic_file {
	FILE *f;       /* write here between open and commit */
	char *tmp;     /* temporary path; NULL when written directly */
	char *path;    /* target path, links followed */
	int slot;      /* its place among the files a signal removes, or -1 */
	bool borrowed; /* f is stdout: flushed, never closed */
};

int cc_atomic_open(struct cc_atomic_file *af, const char *path);
/* Flush, fsync, close, rename.  Whatever happens, af is released. */
int cc_atomic_commit(struct cc_atomic_file *af);
/* Drop the temporary file; the target is untouched. */
void cc_atomic_abort(struct cc_atomic_file *af);
/* The three above for a buffer. */
int cc_write_file_atomic(const char *path, const void *data, size_t len);
/* What cc_atomic_open() would refuse, said before a long run without
 * creating, opening or changing anything at path. */
int cc_atomic_check(const char *path);

#endif
