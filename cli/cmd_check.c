/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cmd_check.c — `cclab check`: nccl-tests' size loop (cli/loop.c) on
 * the data executor.
 *
 * For each size (src/common.cu TimeTest(): size = minbytes; size <=
 * maxbytes; size *= stepfactor) we build the schedule, run it once, out of
 * place, and print one row of nccl-tests' table.  The data executor models
 * no time, so time, algbw and busbw are N/A; #wrong is what counts.  Exit 0
 * only if every size ran to completion with #wrong == 0.
 */
#include <inttypes.h>

#include "cli/check.h"

static void preamble(const struct cli_opts *o, void *ctx)
{
	(void)ctx;
	cli_preamble_begin(o, true);
	printf("# executor: data (functional, no time)  seed: %" PRIu64 "  order seed: %" PRIu64
	       "\n", o->seed, o->order_seed);
	cli_preamble_buffers(o, true);
	printf("# out-of-place only; time, algbw and busbw are N/A\n");
}

/* The data executor carries every size. */
static bool carries(const struct cli_opts *o, uint64_t bytes)
{
	(void)o;
	(void)bytes;
	return true;
}

/* No setting of its own: the seeds are the common options'.  The key and
 * receive faults are not passed: the data executor has never applied
 * them (a scenario's `faults: ["rkey:0:1"]` under `executors: [data]`
 * runs clean; `cclab check` takes no --fault).  Kept as it was, so the
 * loop's move to the descriptor changes no output. */
static const void *setting(const struct cli_opts *o, void *ctx, struct cc_exec_common *c,
			   uint64_t start_ns, bool last, void *own)
{
	(void)o;
	(void)ctx;
	(void)start_ns;
	(void)last;
	(void)own;
	c->faults = NULL;
	c->nfaults = 0;
	return NULL;
}

static bool after_row(const struct cli_opts *o, void *ctx, const struct cli_size *z,
		      const struct cli_sink *out)
{
	(void)o;
	(void)ctx;
	if (out->j)
		check_json_size(out->j, &z->row, z->s, z->res);
	return true;
}

int cmd_check(const struct cli_opts *o)
{
	const struct cli_loop loop = {
		.x = &cc_data_executor,
		.json_begin = check_json_begin,
		.preamble = preamble,
		.carries = carries,
		.setting = setting,
		.after_row = after_row,
	};

	return cli_loop_run(o, &loop);
}
