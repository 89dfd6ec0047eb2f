/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/p2p_verbs.c — `cclab p2p --device NAME`: perftest's test on a real
 * RNIC, so the links can be checked before a collective is blamed.
 *
 * The same schedule `cclab p2p` simulates (core/p2p.h) runs on the verbs
 * executor (backend/verbs_exec.h) between two ranks: two forked local
 * ranks on the device, connected in loopback, or the two ranks of srun /
 * mpirun (cli/launch_local.c, verbs_launch()).  perftest's figures come
 * from rank 0's trace exactly as from the simulator's (core/p2p_report.h:
 * the post times of its WQEs and the polls of their completions), here on
 * the host's clock, so the two tables read alike; rank 0 writes --json,
 * --csv (executor "verbs", the device for the fabric) and --trace (its own
 * events of the last size) as the simulator's sweep does. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/p2p.h"
#include "cli/verbs.h"

static void preamble(const struct p2p_opts *o, const struct verbs_session *s)
{
	const struct cc_p2p_params *p = &o->p;

	printf("# cclab %s p2p: %s %s, as %s: %s, rank 0 (client) to rank 1 (server), "
	       "one RC QP pair\n", CCLAB_VERSION, cc_p2p_op_name[p->op], cc_p2p_mode_name[p->mode],
	       cc_p2p_tool(p->op, p->mode), cc_opcode_name[cc_p2p_opcode(p->op, p->mode)]);
	printf("# executor: verbs on %s port %u (%s), path MTU %u B, launcher %s\n", s->v.device,
	       s->v.port, s->v.roce ? "RoCE" : "InfiniBand", 128u << s->v.active_mtu,
	       cc_launcher_name[s->launcher]);
	printf("# iterations: %" PRIu32 "  tx depth: %" PRIu32 "  cq moderation: %" PRIu32
	       "  rx depth: %" PRIu32 "  memory: %s\n", p->iters, p->tx_depth, cc_p2p_cq_mod(p),
	       p->rx_depth, cc_mem_kind_name[p->mem]);
	printf("# times: the host's clock at each post and at each poll of a completion "
	       "(rank 0), as perftest takes them\n");
	for (uint32_t r = 0; r < s->world; r++)
		printf("#  Rank %2u %s\n", r, s->where[r]);
	fputs(p2p_dashes, stdout);
	cc_p2p_print_header(stdout, p->mode);
}

/* One size on both ranks; rank 0 prints its row.  Returns 0 with *ok, or
 * an exit code that ends the sweep. */
static int run_size(const struct p2p_opts *o, struct verbs_session *s, struct cc_trace *tr,
		    struct p2p_files *files, uint64_t size, bool *ok)
{
	struct cc_p2p_params p = o->p;
	struct cc_verbs_run_opts ro = { .iters = 1, .seed = 1, .trace = s->rank == 0 ? tr : NULL,
					.rnr_retry = -1 };
	struct cc_verbs_result res;
	struct cc_schedule *sc;
	char err[512];
	int rc;

	p.size = size;
	if (!(sc = cc_build_p2p(&p, err, sizeof(err)))) {
		fprintf(stderr, "cclab p2p: %" PRIu64 " bytes: %s\n", size, err);
		return CLI_EXIT_FAIL;
	}
	cc_trace_clear(tr);
	rc = cc_verbs_run(&s->v, &s->b, sc, &ro, &res, err, sizeof(err));
	if (rc) {
		if (verbs_rank_speaks(s) || s->b.failed)
			fprintf(stderr, "cclab p2p: rank %u, %" PRIu64 " bytes: %s\n", s->rank, size,
				err);
		cc_verbs_result_free(&res);
		cc_schedule_free(sc);
		return CLI_EXIT_FAIL;
	}
	struct p2p_row row = { .size = size, .err = &res.err };

	*ok = res.err.status == CC_RUN_OK;
	if (*ok && s->rank == 0) {
		struct cc_p2p_times t;

		*ok = !cc_p2p_times_init(&t, p.iters) && !cc_p2p_times_from_trace(&t, sc, tr) &&
		      !(p.mode == CC_P2P_BW ? cc_p2p_bw_compute(&p, &t, &row.bw)
					    : cc_p2p_lat_compute(&p, &t, &row.lat));
		cc_p2p_times_free(&t);
		if (*ok && p.mode == CC_P2P_BW)
			cc_p2p_print_bw_row(stdout, size, p.iters, &row.bw);
		else if (*ok)
			cc_p2p_print_lat_row(stdout, size, p.iters, &row.lat);
		else
			snprintf(res.err.msg, sizeof(res.err.msg), "the trace lacks timestamps");
	}
	row.failed = !*ok;
	if (s->rank == 0)
		p2p_files_row(files, o, &row);
	if (!*ok && s->rank == 0) {
		cc_p2p_print_failed_row(stdout, p.mode, size, p.iters);
		fflush(stdout);
		fprintf(stderr, "cclab p2p: %" PRIu64 " bytes: %.*s\n", size,
			(int)sizeof(res.err.msg), res.err.msg);
	}
	cc_verbs_result_free(&res);
	cc_schedule_free(sc);
	return 0;
}

static int p2p_rank(void *ctx, uint32_t rank, uint32_t world, enum cc_launcher launcher,
		    const struct cc_rendezvous *addr, int listen_fd)
{
	const struct p2p_opts *o = ctx;
	struct cc_verbs_opts vo = { .device = o->device, .port = o->port,
				    .gid_index = o->gid_index,
				    .timeout_ms = (int)o->timeout_s * 1000 };
	struct p2p_opts mine = *o;
	struct verbs_session s;
	struct p2p_files files = {0};
	struct cc_trace tr;
	uint32_t errors = 0;
	uint64_t size = o->p.size;
	int rc = 0;

	if (world != 2) {
		if (rank == 0)
			fprintf(stderr, "cclab p2p: perftest's tests take 2 ranks; the launcher (%s) "
				"started %u\n", cc_launcher_name[launcher], world);
		return CLI_EXIT_USAGE;
	}
	/* Rank 0 prints and writes the files; rank 1 only speaks on error. */
	if (rank != 0) {
		mine.json = mine.csv = mine.trace = NULL;
		if (!freopen("/dev/null", "w", stdout))
			return CLI_EXIT_FAIL;
	}
	o = &mine;
	if ((rc = verbs_session_open(&s, "p2p", &vo, (int)(2 * o->timeout_s + 20) * 1000, rank,
				     world, launcher, addr, listen_fd)))
		return rc;
	/* The files record the path the QPs took: what calibrate models. */
	mine.device_mtu = 128u << s.v.active_mtu;
	mine.device_roce = s.v.roce;
	if ((rc = p2p_files_open(o, &files))) {
		verbs_session_close(&s);
		return rc;
	}
	cc_trace_init(&tr);
	preamble(o, &s);
	do {
		bool ok = false;

		if ((rc = run_size(o, &s, &tr, &files, size, &ok)))
			break;
		errors += !ok;
	} while (p2p_next_size(o, &size));
	if (!rc) {
		fputs(p2p_dashes, stdout);
		cc_results_print_errors(stdout, errors);
		if (o->trace && p2p_write_trace(o, &tr))
			rc = CLI_EXIT_FAIL;
	}
	rc = p2p_files_close(o, &files, rc, !errors);
	if (!rc)
		rc = errors ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	cc_trace_free(&tr);
	verbs_session_close(&s);
	return rc;
}

int p2p_verbs(const struct p2p_opts *o)
{
	return verbs_launch("p2p", 0, 2, o->bootstrap, o->timeout_s, p2p_rank, (void *)o);
}
