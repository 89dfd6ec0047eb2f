/* cli/loop.c — nccl-tests' size loop, which `cclab check` and `cclab sim`
 * share: the loop itself with its report file and exit status, the step
 * from one size to the next, the preamble lines that do not depend on the
 * executor, and a row's report.  One copy, so the two commands' tables,
 * files and exit codes cannot drift apart. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli/check.h"
#include "core/algo.h"
#include "core/dtype.h"
#include "core/units.h"

bool cli_next_size(const struct cli_opts *o, uint64_t *size)
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

void cli_preamble_begin(const struct cli_opts *o, bool validation)
{
	const struct cc_coll_params *p = &o->p;

	/* The same facts nccl-tests' run() prints, in its style, plus ours. */
	printf("# cclab %s %s: %s, transport %s, %" PRIu32 " ranks, type %s, redop %s\n",
	       CCLAB_VERSION, cli_cmd_name(o->cmd), cc_coll_name[p->coll],
	       cc_transport_name[p->transport], p->nranks, cc_dtype_name[p->dtype],
	       cli_redop_label(p));
	printf("# minBytes %" PRIu64 " maxBytes %" PRIu64 " step: %" PRIu64 "(factor)"
	       " validation: %d\n", o->minbytes, o->maxbytes, o->stepfactor, validation ? 1 : 0);
}

void cli_preamble_buffers(const struct cli_opts *o)
{
	const struct cc_coll_params *p = &o->p;
	char chunk[CC_FMT_BYTES_LEN], slot[CC_FMT_BYTES_LEN];

	cc_format_bytes(chunk, sizeof(chunk), p->chunk_bytes);
	cc_format_bytes(slot, sizeof(slot), p->slot_bytes);
	printf("# chunk: %s (%" PRIu64 " B)  slot: %s (%" PRIu64 " B)  slots: %" PRIu32 "\n", chunk,
	       p->chunk_bytes, slot, p->slot_bytes, p->nslots);
}

struct cc_result_row cli_row(const struct cli_opts *o, uint64_t size, uint64_t count)
{
	return (struct cc_result_row){
		.size = size,
		.count = count,
		.type = cc_dtype_name[o->p.dtype],
		.redop = cli_redop_label(&o->p),
		.root = -1, /* nccl-tests' *RunTest() pass root -1 for these */
		.time_us = CC_RESULT_NO_TIME,
		.busbw_factor = cc_busbw_factor(o->p.coll, o->p.nranks),
	};
}

void cli_report_row(const struct cli_opts *o, const struct cc_result_row *row,
		    const struct cc_run_error *err, struct cc_results_summary *sum)
{
	cc_results_print_row(stdout, row);
	cc_results_summary_add(sum, row);
	if (!row->failed)
		return;
	fflush(stdout); /* keep the row and its error in order on a terminal */
	/* msg is a fixed array; do not trust it to be terminated. */
	fprintf(stderr, "cclab %s: %" PRIu64 " bytes: %s: %.*s\n", cli_cmd_name(o->cmd), row->size,
		cli_run_status_name(err->status), (int)sizeof(err->msg), err->msg);
}

int cli_loop_run(const struct cli_opts *o, const struct cli_loop *l)
{
	const char *cmd = cli_cmd_name(o->cmd);
	struct cc_results_summary sum = {0};
	struct cc_atomic_file af = {0};
	struct cc_json j;
	bool all_ok = true;
	uint64_t size = o->minbytes;
	int rc = 0, err;

	/* Open the report first: a bad --json path fails before the run. */
	if (o->json && (err = cc_atomic_open(&af, o->json))) {
		fprintf(stderr, "cclab %s: cannot write '%s': %s\n", cmd, o->json, strerror(-err));
		return CLI_EXIT_FAIL;
	}
	cc_json_init(&j);
	if (o->json)
		l->json_begin(&j, o);
	l->preamble(o);
	printf("#\n");
	cc_results_print_header(stdout);
	do {
		bool ok = false;

		rc = l->run_size(o, l->ctx, size, &sum, o->json ? &j : NULL, &ok);
		if (rc)
			break;
		all_ok = all_ok && ok;
	} while (cli_next_size(o, &size));
	if (rc) {
		/* No report: the file is complete or absent, never partial. */
		if (o->json)
			cc_atomic_abort(&af);
		cc_json_free(&j);
		return rc;
	}
	cc_results_print_summary(stdout, &sum);

	if (l->finish)
		rc = l->finish(o, l->ctx);
	if (o->json && (err = cli_json_end(&j, &af, all_ok && !rc))) {
		fprintf(stderr, "cclab %s: cannot write '%s': %s\n", cmd, o->json, strerror(-err));
		rc = CLI_EXIT_FAIL;
	}
	cc_json_free(&j);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cclab %s: cannot write the output: %s\n", cmd, strerror(errno));
		return CLI_EXIT_FAIL;
	}
	if (rc)
		return rc;
	return all_ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
