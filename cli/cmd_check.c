/* cli/cmd_check.c — `cclab check`: nccl-tests' size loop on the data
 * executor.
 *
 * For each size (src/common.cu TimeTest(): size = minbytes; size <=
 * maxbytes; size *= stepfactor) we build the schedule, run it once, out of
 * place, and print one row of nccl-tests' table.  The data executor models
 * no time, so time, algbw and busbw are N/A; #wrong is what counts.  Exit 0
 * only if every size ran to completion with #wrong == 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli/check.h"
#include "core/algo.h"
#include "core/dtype.h"
#include "core/units.h"

static void preamble(const struct cli_opts *o)
{
	const struct cc_coll_params *p = &o->p;
	char chunk[CC_FMT_BYTES_LEN], slot[CC_FMT_BYTES_LEN];

	cc_format_bytes(chunk, sizeof(chunk), p->chunk_bytes);
	cc_format_bytes(slot, sizeof(slot), p->slot_bytes);
	/* The same facts nccl-tests' run() prints, in its style, plus ours. */
	printf("# cclab %s check: %s, transport %s, %" PRIu32 " ranks, type %s, redop %s\n",
	       CCLAB_VERSION, cc_coll_name[p->coll], cc_transport_name[p->transport], p->nranks,
	       cc_dtype_name[p->dtype], cli_redop_label(p));
	printf("# minBytes %" PRIu64 " maxBytes %" PRIu64 " step: %" PRIu64 "(factor)"
	       " validation: 1\n", o->minbytes, o->maxbytes, o->stepfactor);
	printf("# executor: data (functional, no time)  seed: %" PRIu64 "  order seed: %" PRIu64
	       "\n", o->seed, o->order_seed);
	printf("# chunk: %s (%" PRIu64 " B)  slot: %s (%" PRIu64 " B)  slots: %" PRIu32 "\n", chunk,
	       p->chunk_bytes, slot, p->slot_bytes, p->nslots);
	printf("# out-of-place only; time, algbw and busbw are N/A\n");
	printf("#\n");
}

/* The size after `size` in nccl-tests' loop, or false when the loop ends.
 * nccl-tests never ends a loop that starts at 0 (0 * f = 0); we go on
 * with 1.  Overflow ends the loop. */
static bool next_size(const struct cli_opts *o, uint64_t *size)
{
	uint64_t next;

	if (*size == 0)
		next = 1;
	else if (__builtin_mul_overflow(*size, o->stepfactor, &next))
		return false;
	if (next > o->maxbytes)
		return false;
	*size = next;
	return true;
}

/* One size: build, run, print the row.  Returns 0 (ok says whether the run
 * was clean) or an exit code that ends the loop. */
static int run_size(const struct cli_opts *o, uint64_t bytes, struct cc_results_summary *sum,
		    struct cc_json *j, bool *ok)
{
	struct cc_data_opts dopts = {.seed = o->seed, .order_seed = o->order_seed};
	struct cc_data_result res;
	struct cc_schedule *s;
	uint64_t count, size;
	int rc = cli_build(o, bytes, &s, &count, &size);

	if (rc)
		return rc;
	memset(&res, 0, sizeof(res));
	rc = cc_data_run(s, &dopts, &res);
	if (rc < 0) {
		fprintf(stderr, "cclab check: data executor, %" PRIu64 " bytes: %s\n", size,
			rc == -E2BIG ? "the buffers of all ranks would not fit in this machine's "
				       "memory (refused up front)" : strerror(-rc));
		cc_schedule_free(s);
		return CLI_EXIT_FAIL;
	}

	struct cc_result_row row = {
		.size = size,
		.count = count,
		.type = cc_dtype_name[o->p.dtype],
		.redop = cli_redop_label(&o->p),
		.root = -1, /* nccl-tests' *RunTest() pass root -1 for these */
		.time_us = CC_RESULT_NO_TIME,
		.busbw_factor = cc_busbw_factor(o->p.coll, o->p.nranks),
		.wrong = res.wrong,
		.failed = res.err.status != CC_RUN_OK,
	};

	cc_results_print_row(stdout, &row);
	cc_results_summary_add(sum, &row);
	if (row.failed) {
		fflush(stdout); /* keep the row and its error in order on a terminal */
		fprintf(stderr, "cclab check: %" PRIu64 " bytes: %s: %.*s\n", size,
			cli_run_status_name(res.err.status), (int)sizeof(res.err.msg),
			res.err.msg);
	}
	*ok = !row.failed && row.wrong == 0;
	if (o->json)
		check_json_size(j, &row, s, &res);
	cc_data_result_free(&res);
	cc_schedule_free(s);
	return 0;
}

int cmd_check(const struct cli_opts *o)
{
	struct cc_results_summary sum = {0};
	struct cc_atomic_file af = {0};
	struct cc_json j;
	bool all_ok = true;
	uint64_t size = o->minbytes;
	int rc = 0, err;

	/* Open the report first: a bad --json path fails before the run. */
	if (o->json && (err = cc_atomic_open(&af, o->json))) {
		fprintf(stderr, "cclab check: cannot write '%s': %s\n", o->json, strerror(-err));
		return CLI_EXIT_FAIL;
	}
	cc_json_init(&j);
	if (o->json)
		check_json_begin(&j, o);
	preamble(o);
	cc_results_print_header(stdout);
	do {
		bool ok = false;

		rc = run_size(o, size, &sum, &j, &ok);
		if (rc)
			break;
		all_ok = all_ok && ok;
	} while (next_size(o, &size));
	if (rc) {
		/* No report: the file is complete or absent, never partial. */
		if (o->json)
			cc_atomic_abort(&af);
		cc_json_free(&j);
		return rc;
	}
	cc_results_print_summary(stdout, &sum);

	if (o->json && (err = check_json_end(&j, &af, all_ok))) {
		fprintf(stderr, "cclab check: cannot write '%s': %s\n", o->json, strerror(-err));
		rc = CLI_EXIT_FAIL;
	}
	cc_json_free(&j);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cclab check: cannot write the output: %s\n", strerror(errno));
		return CLI_EXIT_FAIL;
	}
	if (rc)
		return rc;
	return all_ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
