/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/p2p_verbs.c — `cclab p2p --device NAME`: perftest's test on a real
 * RNIC, so the links can be checked before a collective is blamed.
 *
 * The same schedule `cclab p2p` simulates (core/p2p.h) runs on the verbs
 * executor (backend/verbs_exec.h) between two ranks: two forked local
 * ranks on the device, connected in loopback, or the two ranks of srun /
 * mpirun (cli/launch_local.c, verbs_launch()).  perftest's figures come
 * from the client's trace exactly as from the simulator's (core/p2p_report.h:
 * the post times of its WQEs and the polls of their completions), here on
 * the host's clock, so the two tables read alike; with -b each rank's from
 * its own, summed (share_row()).  Rank 0 writes --json,
 * --csv (executor "verbs", the device for the fabric) and --trace (its own
 * events of the last size) as the simulator's sweep does. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/p2p.h"
#include "backend/verbs_dev.h"
#include "cli/verbs.h"

/* The client's rank, in the bootstrap and in the schedule alike. */
static uint32_t client_rank(const struct p2p_opts *o)
{
	return o->role == P2P_BOTH ? 0 : 1;
}

static void preamble(const struct p2p_opts *o, const struct verbs_session *s)
{
	const struct cc_p2p_params *p = &o->p;

	if (o->role == P2P_BOTH)
		printf("# cclab %s p2p: %s %s, as %s%s: %s, %s, one RC QP pair\n", CCLAB_VERSION,
		       cc_p2p_op_name[p->op], cc_p2p_mode_name[p->mode], cc_p2p_tool(p->op, p->mode),
		       p->bidir ? " -b" : "", cc_opcode_name[cc_p2p_opcode(p->op, p->mode)],
		       p->bidir ? "ranks 0 and 1 both sending" : "rank 0 (client) to rank 1 (server)");
	else
		printf("# cclab %s p2p: %s %s, as %s%s: %s, %sone RC QP pair; this host is the %s "
		       "(TCP port %u)\n", CCLAB_VERSION, cc_p2p_op_name[p->op],
		       cc_p2p_mode_name[p->mode], cc_p2p_tool(p->op, p->mode), p->bidir ? " -b" : "",
		       cc_opcode_name[cc_p2p_opcode(p->op, p->mode)],
		       p->bidir ? "both ranks sending, " : "", o->role == P2P_SERVER ? "server" : "client",
		       o->tcp_port);
	printf("# executor: verbs on %s port %u (%s), path MTU %u B, launcher %s\n", s->v.device,
	       s->v.port, s->v.roce ? "RoCE" : "InfiniBand", o->device_mtu,
	       cc_launcher_name[s->launcher]);
	p2p_print_depths(p, NULL);
	printf("# times: the host's clock at each post and at each poll of a completion "
	       "(%s), as perftest takes them%s\n",
	       p->bidir ? "each rank, of its own sends; the row is the two ranks' figures added "
			  "up, as perftest's -b" : "the client",
	       o->prog && p->mode == CC_P2P_LAT ? "; t without the 2 largest deltas, as perftest"
						: "");
	for (uint32_t r = 0; r < s->world; r++)
		printf("#  Rank %2u %s%s\n", r, s->where[r],
		       o->role == P2P_BOTH ? "" : r == client_rank(o) ? " (client)" : " (server)");
	fputs(p2p_dashes, stdout);
	p2p_print_header(o);
}

/* Two hosts: the client's row reaches the server (both print it).
 * Bidirectional (-b): each rank timed its own sends, and both rows reach
 * both ranks, which print their sum, rank 0's figures plus rank 1's, as
 * perftest's print_full_bw_report() adds the two sides' reports (a side
 * that failed fails the row; *failed_rank is then the other rank + 1, 0
 * where it did not).  0, or an exit code after a message. */
static int share_row(const struct p2p_opts *o, struct verbs_session *s, struct p2p_row *row,
		     uint32_t *failed_rank)
{
	struct cc_boot_blobs all = {0};
	char text[P2P_ROW_TEXT] = "-", err[512]; /* the server's: a placeholder */
	uint32_t c = client_rank(o);
	bool bidir = o->p.bidir;

	if (s->rank == c || bidir)
		p2p_row_encode(row, o->p.mode, text, sizeof(text));
	if (cc_boot_allgather(&s->b, text, strlen(text), &all, err, sizeof(err))) {
		fprintf(stderr, "cclab p2p: %" PRIu64 " bytes: the %s row: %s\n", row->size,
			bidir ? "other rank's" : "client's", err);
		return CLI_EXIT_FAIL;
	}
	struct cc_p2p_bw sum = {0};
	bool failed = false;

	for (uint32_t r = 0; r < 2; r++) {
		struct p2p_row side = *row;

		if (!bidir && (r != c || s->rank == c))
			continue;
		if (p2p_row_decode((const char *)all.data[r], all.len[r], &side)) {
			/* "-": a side that sends no row, so not started with -b */
			bool plain = all.len[r] == 1 && ((const char *)all.data[r])[0] == '-';

			fprintf(stderr, "cclab p2p: %" PRIu64 " bytes: rank %u %s\n", row->size, r,
				plain ? "was not started with -b/--bidirectional as this one was"
				      : "sent a malformed row");
			cc_boot_blobs_free(&all);
			return CLI_EXIT_FAIL;
		}
		if (!bidir) {
			*row = side;
			break;
		}
		if (side.failed && s->rank != r && !*failed_rank)
			*failed_rank = r + 1;
		failed = failed || side.failed;
		cc_p2p_bw_add(&sum, &side.bw);
	}
	if (bidir) {
		row->failed = failed;
		row->bw = sum;
	}
	cc_boot_blobs_free(&all);
	return 0;
}

/* One size on both ranks; the client's figures (-b: both ranks', summed),
 * printed by the ranks that print.  Returns 0 with *ok, or an exit code that ends the sweep. */
static int run_size(const struct p2p_opts *o, struct verbs_session *s, struct cc_trace *tr,
		    struct p2p_files *files, uint64_t size, bool *ok)
{
	struct cc_p2p_params p = o->p;
	uint32_t client = client_rank(o);
	/* the ranks that send time their own stamps: the client, or both */
	bool times = s->rank == client || p.bidir;
	struct cc_verbs_run_opts ro = { .iters = 1, .seed = 1, .trace = times ? tr : NULL,
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
	if (client != 0)
		cc_p2p_swap_ranks(sc);
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
	if (*ok && times) {
		struct cc_p2p_times t;

		*ok = !cc_p2p_times_init(&t, p.iters);
		t.client = s->rank; /* the schedule's rank is the bootstrap's (swapped above) */
		*ok = *ok && !cc_p2p_times_from_trace(&t, sc, tr) && !p2p_figures(o, &p, &t, &row);
		cc_p2p_times_free(&t);
		if (!*ok)
			snprintf(res.err.msg, sizeof(res.err.msg), "the trace lacks timestamps");
	}
	row.failed = !*ok;
	cc_schedule_free(sc);
	uint32_t other_failed = 0;

	if ((o->role != P2P_BOTH || p.bidir) && (rc = share_row(o, s, &row, &other_failed))) {
		cc_verbs_result_free(&res);
		return rc;
	}
	if (row.failed && *ok) /* the other rank's run or stamps: the client's, or -b's peer */
		snprintf(res.err.msg, sizeof(res.err.msg), "rank %u's side failed%s",
			 other_failed ? other_failed - 1 : client, o->role == P2P_BOTH ?
			 " (its run ended, or its trace lacks timestamps)" : " (its messages say why)");
	*ok = !row.failed;
	/* Both ranks print in perftest's two-host way; rank 0 alone else. */
	if (o->role != P2P_BOTH || s->rank == 0) {
		p2p_files_row(files, o, &row);
		if (*ok) {
			p2p_print_row(o, &row);
		} else {
			cc_p2p_print_failed_row(stdout, p.mode, size, p.iters);
			fflush(stdout);
			fprintf(stderr, "cclab p2p: %" PRIu64 " bytes: %.*s\n", size,
				(int)sizeof(res.err.msg), res.err.msg);
		}
	}
	cc_verbs_result_free(&res);
	return 0;
}

static int p2p_rank(void *ctx, uint32_t rank, uint32_t world, enum cc_launcher launcher,
		    const struct cc_rendezvous *addr, int listen_fd)
{
	const struct p2p_opts *o = ctx;
	struct cc_verbs_opts vo = { .device = o->device, .port = o->port,
				    .gid_index = o->gid_index, .mtu_bytes = o->mtu,
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
	/* Rank 0 prints and writes the files; rank 1 only speaks on error
	 * (perftest's server and client: each prints and writes its own). */
	if (rank != 0 && o->role == P2P_BOTH) {
		mine.json = mine.csv = mine.trace = NULL;
		if (!freopen("/dev/null", "w", stdout))
			return CLI_EXIT_FAIL;
	}
	o = &mine;
	if ((rc = verbs_session_open(&s, "p2p", &vo, (int)(2 * o->timeout_s + 20) * 1000, rank,
				     world, launcher, addr, listen_fd)))
		return rc;
	/* The files record the path the QPs took: what calibrate models. */
	mine.device_mtu = o->mtu ? o->mtu : 128u << s.v.active_mtu;
	mine.device_roce = s.v.roce;
	mine.device_rd_atom = s.v.max_qp_rd_atom < 16 ? s.v.max_qp_rd_atom : 16;
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
	struct cc_rendezvous addr = { .host = "0.0.0.0", .kind = CC_HOST_IPV4,
				      .port = o->tcp_port };
	char hp[300], err[512];

	if (o->role == P2P_BOTH)
		return verbs_launch("p2p", 0, 2, o->bootstrap, o->timeout_s, p2p_rank, (void *)o);
	/* As perftest, the device before the wait: a server without one must
	 * not wait for its client first. */
	struct cc_verbs_dev *devs;
	uint32_t n;
	bool found = false;

	if (cc_verbs_devices(&devs, &n, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", o->prog ? o->prog : "cclab p2p", err);
		return CLI_EXIT_FAIL;
	}
	for (uint32_t i = 0; i < n; i++)
		found = found || !strcmp(devs[i].name, o->device);
	cc_verbs_devices_free(devs, n);
	if (!found) {
		fprintf(stderr, "%s: no RDMA device '%s' (cclab devices lists them)\n",
			o->prog ? o->prog : "cclab p2p", o->device);
		return CLI_EXIT_FAIL;
	}
	/* perftest's server listens on every IPv4 address (its -p port); the
	 * client connects to HOST (a name, an IPv4 or IPv6 address). */
	if (o->role == P2P_CLIENT) {
		if (strchr(o->server, ':')) /* an IPv6 address, bracketed as HOST:PORT wants */
			snprintf(hp, sizeof(hp), "[%s]:%u", o->server, o->tcp_port);
		else
			snprintf(hp, sizeof(hp), "%s:%u", o->server, o->tcp_port);
		if (cc_rendezvous_parse(hp, &addr, err, sizeof(err))) {
			fprintf(stderr, "%s: server '%s': %s\n", o->prog ? o->prog : "cclab p2p",
				o->server, err);
			return CLI_EXIT_USAGE;
		}
	}
	return p2p_rank((void *)o, o->role == P2P_SERVER ? 0 : 1, 2, CC_LAUNCH_NONE, &addr, -1);
}
