/* cli/cmd_check.c — `cclab check`: nccl-tests' size loop (cli/loop.c) on
 * the data executor.
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

static void preamble(const struct cli_opts *o)
{
	cli_preamble_begin(o, true);
	printf("# executor: data (functional, no time)  seed: %" PRIu64 "  order seed: %" PRIu64
	       "\n", o->seed, o->order_seed);
	cli_preamble_buffers(o);
	printf("# out-of-place only; time, algbw and busbw are N/A\n");
}

/* The data executor carries every size. */
static bool carries(const struct cli_opts *o, uint64_t bytes)
{
	(void)o;
	(void)bytes;
	return true;
}

static int run_size(const struct cli_opts *o, void *ctx, uint64_t bytes,
		    struct cc_results_summary *sum, const struct cli_sink *out, bool *ok)
{
	struct cc_data_opts dopts = {.seed = o->seed, .order_seed = o->order_seed};
	struct cc_data_result res;
	struct cc_schedule *s;
	uint64_t count, size;
	int rc = cli_build(o, bytes, &s, &count, &size);

	(void)ctx;
	if (rc)
		return rc;
	memset(&res, 0, sizeof(res));
	rc = cc_data_run(s, &dopts, &res);
	if (rc < 0) {
		if (rc == -E2BIG)
			cli_refuse_memory(o, size);
		else
			fprintf(stderr, "cclab check: data executor, %" PRIu64 " bytes: %s\n", size,
				strerror(-rc));
		cc_schedule_free(s);
		return CLI_EXIT_FAIL;
	}

	struct cc_result_row row = cli_row(o, size, count);

	row.wrong = res.wrong;
	row.failed = res.err.status != CC_RUN_OK;
	cli_report_row(o, &row, &res.err, sum, out, -1);
	*ok = !row.failed && row.wrong == 0;
	if (out->j)
		check_json_size(out->j, &row, s, &res);
	cc_data_result_free(&res);
	cc_schedule_free(s);
	return 0;
}

int cmd_check(const struct cli_opts *o)
{
	const struct cli_loop loop = {
		.json_begin = check_json_begin,
		.preamble = preamble,
		.run_size = run_size,
		.carries = carries,
	};

	return cli_loop_run(o, &loop);
}
