/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/loop.c — nccl-tests' size loop, which `cclab check`, `cclab sim` and
 * `cclab run`'s verbs ranks share: the loop itself with its report file and
 * exit status, the step from one size to the next, and the preamble lines
 * that do not depend on the executor (one size: cli/loop_size.c).  One
 * copy, so the commands' tables, files and exit codes cannot drift
 * apart. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/check.h"
#include "cli/mem_budget.h"
#include "core/algo.h"
#include "core/check_io.h"
#include "core/dtype.h"
#include "sim/scenario.h"
#include "util/mem_limit.h"
#include "util/units.h"

bool cli_next_size(const struct cli_opts *o, uint64_t *size)
{
	return cc_result_next_size(size, o->stepfactor, o->maxbytes);
}

void cli_preamble_begin(const struct cli_opts *o, bool validation)
{
	const struct cc_coll_params *p = &o->p;

	/* The same facts nccl-tests' run() prints, in its style, plus ours. */
	printf("# cclab %s %s: %s, algorithm %s, transport %s, %" PRIu32 " ranks, type %s, "
	       "redop %s\n", CCLAB_VERSION, cli_cmd_name(o->cmd), cc_coll_name[p->coll],
	       cli_algo_label(o), cc_transport_name[p->transport], p->nranks,
	       cc_dtype_name[p->dtype], cli_redop_label(p));
	printf("# minBytes %" PRIu64 " maxBytes %" PRIu64 " step: %" PRIu64 "(factor)"
	       " validation: %d\n", o->minbytes, o->maxbytes, o->stepfactor, validation ? 1 : 0);
}

void cli_preamble_buffers(const struct cli_opts *o, bool auto_line)
{
	const struct cc_coll_params *p = &o->p;
	char chunk[CC_FMT_BYTES_LEN], slot[CC_FMT_BYTES_LEN];

	cc_format_bytes(chunk, sizeof(chunk), p->chunk_bytes);
	cc_format_bytes(slot, sizeof(slot), p->slot_bytes);
	if (cli_chunk_auto(o))
		printf("# chunk: per size, NCCL's rule for what the size runs");
	else if (cc_coll_chunk_per_size(p) && p->algo == CC_ALGO_NVLS)
		printf("# chunk: per size, NCCL's NVLS rule (128 KiB to 16 KiB a head)");
	else if (cc_coll_chunk_per_size(p) && p->algo == CC_ALGO_NVLS_TREE)
		printf("# chunk: per size, NCCL's NVLSTree rule (128 KiB to 32 KiB a head)");
	else if (cc_coll_chunk_per_size(p) && p->algo == CC_ALGO_COLLNET_CHAIN)
		printf("# chunk: per size, NCCL's CollNetChain rule (256 KiB to 32 KiB)");
	else if (cc_coll_chunk_per_size(p))
		printf("# chunk: per size, NCCL's tree rule (one slot or less)");
	else
		printf("# chunk: %s (%" PRIu64 " B)", chunk, p->chunk_bytes);
	if (cli_slot_auto(o))
		printf("  slot: per size, the protocol's  slots: %" PRIu32, p->nslots);
	else
		printf("  slot: %s (%" PRIu64 " B)  slots: %" PRIu32, slot, p->slot_bytes, p->nslots);
	if (o->nccl && o->nccl->channels)
		printf("  channels: per size");
	else if (p->nchannels > 1)
		printf("  channels: %" PRIu32, p->nchannels);
	if (p->ring_order == CC_RING_ORDER_RAIL)
		printf("  ring order: rail%s", o->nccl && o->nccl->algo ? " (where a size runs the ring)"
									 : "");
	if ((p->algo == CC_ALGO_HIER && p->ranks_per_node) || cc_tree_on_nodes(p))
		printf("  nodes: %" PRIu32 " x %" PRIu32 " ranks%s", p->nranks / p->ranks_per_node,
		       p->ranks_per_node, p->algo == CC_ALGO_TREE ? " (the tree: a chain each)" : "");
	if (p->proto != CC_PROTO_SIMPLE)
		printf("  protocol: %s (%s lines on the wire)", cc_proto_name[p->proto],
		       p->proto == CC_PROTO_LL ? "16-byte, 8 data bytes" : "128-byte, 120 data bytes");
	printf("\n");
	if (o->nccl && auto_line) {
		const struct cc_nccl_auto *a = o->nccl;

		printf("# auto:%s%s%s NCCL %u.%u.%u's choice per size (noted after each row, as "
		       "NCCL_DEBUG=INFO says it); communicator: %u channels, NVLS %u\n",
		       a->algo ? " algorithm" : "", a->proto ? " protocol" : "",
		       a->channels ? " channels" : "", a->version.major, a->version.minor,
		       a->version.patch, a->comm.nchannels, a->comm.nvls_nchannels);
	}
	if (p->transport == CC_WRITE_IMM && p->ar_split)
		printf("# InfiniBand adaptive routing: a message above %" PRIu64 " B goes as an RDMA "
		       "WRITE and a 0-byte WRITE WITH IMM (NCCL_IB_AR_THRESHOLD)\n",
		       p->ar_threshold);
	if (p->qps_per_conn > 1)
		printf("# QPs per network connection: %" PRIu32 ", each message whole on one, round "
		       "robin (NCCL_IB_QPS_PER_CONNECTION)\n", p->qps_per_conn);
	if (p->gdr_flush && p->proto == CC_PROTO_SIMPLE && cc_coll_stage_mem(p) == CC_MEM_GPU)
		printf("# GDR flush: each Simple slice received from another node is made visible "
		       "to the GPU by a 1-byte RDMA READ on a loopback QP before the kernel reads "
		       "it (NCCL before Hopper, NCCL_NET_FORCE_FLUSH)\n");
	if (p->mem == CC_MEM_GPU && cc_coll_stage_mem(p) == CC_MEM_HOST)
		printf("# staging: host memory (no GPUDirect RDMA): the GPU reads and writes the "
		       "staging slots across its PCIe link\n");
}

void cli_print_pcie(const struct sim_net *net, const struct sim_params *fabric)
{
	char line[256];

	if (net && sim_net_pcie_text(net, fabric->pcie.rate_bps, line, sizeof(line)))
		printf("# PCIe: %s\n", line);
	if (fabric->host.nic_socket != SIM_NIC_SOCKET_REMOTE)
		return;
	if (fabric->host.socket_link_bytes_per_s)
		snprintf(line, sizeof(line), "%.3f GB/s each way",
			 (double)fabric->host.socket_link_bytes_per_s / 1e9);
	else
		snprintf(line, sizeof(line), "unlimited");
	printf("# NICs: on the other CPU socket from their GPUs: what they move to and from the "
	       "GPU's socket crosses the link between the sockets, %s, shared by a host's NICs "
	       "(host.nic_socket, host.socket_link_bytes_per_s)\n", line);
}

/* Sizes in the sweep, for the progress line. */
static uint32_t count_sizes(const struct cli_opts *o)
{
	uint64_t size = o->minbytes;
	uint32_t n = 1;

	while (cli_next_size(o, &size))
		n++;
	return n;
}

/* A progress line on stderr, only when stderr is a terminal (a log or a
 * pipe gets nothing): which size of how many is running. */
static void progress(bool on, uint32_t i, uint32_t n, uint64_t size)
{
	char b[CC_FMT_BYTES_LEN];

	if (!on)
		return;
	if (i == n) {
		fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "\r\033[K[%u/%u] %s ...", i + 1, n, cc_format_bytes(b, sizeof(b), size));
	fflush(stderr);
}

/* Opens --json and --csv before the run, so a bad path fails at once. */
static int open_outputs(const struct cli_opts *o, struct cc_atomic_file *jf,
			struct cc_atomic_file *cf)
{
	const char *cmd = cli_opts_cmd(o);
	int rc;

	if (o->json && (rc = cli_output_open(cmd, o->json, jf)))
		return rc;
	if (o->csv && (rc = cli_output_open(cmd, o->csv, cf))) {
		if (o->json)
			cc_atomic_abort(jf);
		return rc;
	}
	if (o->csv)
		cli_csv_header(cf->f);
	return 0;
}

/* What a refusal for memory ends with where data is carried: how to time
 * the run without it. */
static void carry_hint(const struct cli_opts *o)
{
	if (o->cmd != CLI_CHECK)
		fprintf(stderr, "; %s times the run without carrying data",
			o->scenario ? "a smaller 'check: SIZE' (or false)" : "--check 0");
}

void cli_refuse_memory(const struct cli_opts *o, uint64_t size)
{
	struct cc_mem_limit lim;
	char l[96];

	cc_mem_limit(&lim);
	fprintf(stderr, "cclab %s: %" PRIu64 " bytes: the buffers of all ranks would not fit in "
		"this machine's memory (refused up front); the limit is %s", cli_opts_cmd(o), size,
		cc_mem_limit_text(&lim, l, sizeof(l)));
	carry_hint(o);
	fputc('\n', stderr);
}

/* A run whose schedule and simulator state (l->mem_need) would not fit in
 * `left`, what the memory limit left before its schedule was built, is
 * refused before any runs: past it, the OOM killer ends the process or
 * swapping stalls it, and nothing says why.  0 or an exit code after a
 * message. */
static int weigh_run(const struct cli_opts *o, const struct cli_loop *l,
		     const struct cc_schedule *s, uint64_t bytes, uint64_t shown, bool carried,
		     const struct cc_mem_limit *lim, double left)
{
	double need = l->mem_need(o, l->ctx, s, bytes, carried);
	double sched = (double)cc_schedule_bytes(s);
	char t[96], a[CC_FMT_BYTES_LEN], b[CC_FMT_BYTES_LEN], c[CC_FMT_BYTES_LEN],
		d[CC_FMT_BYTES_LEN];

	if (need <= left)
		return 0;
	fprintf(stderr, "cclab %s: %" PRIu64 " bytes on %u ranks: the run would hold about %s "
		"(the schedule %s, the simulator's state %s) where %s is left (refused up front); "
		"the limit is %s; use fewer ranks or a smaller size",
		cli_opts_cmd(o), shown, s->nranks, cc_format_bytes(a, sizeof(a), (uint64_t)need),
		cc_format_bytes(b, sizeof(b), (uint64_t)sched),
		cc_format_bytes(c, sizeof(c), (uint64_t)(need - sched)),
		cc_format_bytes(d, sizeof(d), left > 0 ? (uint64_t)left : 0),
		cc_mem_limit_text(lim, t, sizeof(t)));
	if (carried)
		carry_hint(o);
	fputc('\n', stderr);
	return CLI_EXIT_FAIL;
}

/* Ops a second a simulation reaches: about 1 M on the development machine
 * at any scale (docs/performance.md: 0.5-0.7 M at 1024 ranks on either
 * model), and ten times that as a bound no run has come near. */
#define OPS_PER_S_SEEN 1e6
#define OPS_PER_S_BOUND 1e7

/* A size whose schedule has more ops than a simulation gets through in
 * --wall-limit at OPS_PER_S_SEEN gets a note before anything is built
 * (the ring's 2(k - 1) steps a rank: 10^11 ops at 100,000 ranks, where
 * the run would otherwise say nothing until the limit stops it); under
 * the default limit, one that would not end in it even at
 * OPS_PER_S_BOUND is refused (a limit given is the user's to spend).
 * 0 or an exit code after a message. */
static int weigh_time(const struct cli_opts *o, const struct cli_loop *l, uint64_t bytes)
{
	struct cc_coll_params p;
	uint64_t count, shown;
	double limit_s = (double)o->wall_limit_ms / 1e3, ops;

	if (!l->wall_limited || !o->wall_limit_ms)
		return 0;
	cc_result_counts(o->p.coll, o->p.nranks, cc_dtype_size(o->p.dtype), bytes, &count, &shown);
	if (cli_size_params(o, shown, &p, NULL, NULL, 0))
		return 0; /* the build says why */
	p.count = count;
	ops = cc_build_estimate_ops(&p);
	if (ops <= OPS_PER_S_SEEN * limit_s)
		return 0;
	if (o->wall_limit_given || ops <= OPS_PER_S_BOUND * limit_s) {
		fprintf(stderr, "cclab %s: note: %" PRIu64 " bytes on %u ranks: about %.2g ops to "
			"simulate, %.3g s at the %.0g a second a simulation reaches here, more than "
			"--wall-limit's %.3g s, which may stop it\n", cli_opts_cmd(o), shown, p.nranks,
			ops, ops / OPS_PER_S_SEEN, OPS_PER_S_SEEN, limit_s);
		return 0;
	}
	fprintf(stderr, "cclab %s: %" PRIu64 " bytes on %u ranks: about %.2g ops to simulate, more "
		"than the default --wall-limit of %.3g s allows even at %.0g a second, ten times "
		"what a simulation reaches (refused up front); use fewer ranks, a smaller size or "
		"an algorithm with fewer steps (-A tree), or give --wall-limit to run it until then\n",
		cli_opts_cmd(o), shown, p.nranks, ops, limit_s, OPS_PER_S_BOUND);
	return CLI_EXIT_FAIL;
}

/* A ring in rank order on rail-optimised nodes leaves each node from its
 * last GPU's rail and enters the next at its first GPU's, through the
 * spine, for every channel: rings NCCL never builds (docs/schedule.md,
 * Ring order), whose time is that collision's, so `sim` says so. */
static void note_rail_crossings(const struct cli_opts *o)
{
	static bool said; /* once a process: nccl-tests' -d all sweeps again and again */
	uint32_t g = o->p.ranks_per_node;

	if (said || o->cmd != CLI_SIM || o->nccl || o->ring_order_given ||
	    o->topo != SIM_TOPO_RAILOPT || o->p.algo != CC_ALGO_RING ||
	    o->p.ring_order != CC_RING_ORDER_RANK || g < 2 || o->p.nranks <= g)
		return;
	said = true;
	fprintf(stderr, "cclab %s: note: the ring in rank order leaves every node from GPU %u's "
		"rail and enters the next at GPU 0's, through the spine, on every channel; NCCL's "
		"rings stay on one rail (--ring-order rail, which -A auto takes)\n",
		cli_opts_cmd(o), g - 1);
}

/* Builds the schedule of size `bytes` and weighs it: its buffers when
 * `carried`, and what its run would hold where the command says
 * (l->mem_need).  0 or an exit code after a message. */
static int weigh(const struct cli_opts *o, const struct cli_loop *l, uint64_t bytes, bool carried)
{
	struct cli_opts quiet = *o;
	uint64_t count, shown;
	struct cc_schedule *s;
	struct cc_mem_limit lim;
	int rc;

	quiet.nfaults = 0; /* --fault is checked, and noted, as each size runs */
	/* Under the wall-clock limit, as the size's own build
	 * (cli_size_build()): past it, nothing is weighed and the size says so
	 * when it runs. */
	struct cc_build_opts bo = { .timing_only = l->wall_limited && !carried,
				    .one_rank = l->one_rank, .rank = l->rank,
				    .generated = l->generates && !o->nfaults };

	if (l->wall_limited)
		bo.deadline_ns = cli_wall_deadline(o->wall_limit_ms, cc_clock_ns());
	/* what is left before the schedule takes its part, which the run's
	 * weight counts (the network is built already, and held) */
	cc_mem_limit(&lim);
	double left = cli_mem_left(&lim);

	rc = cli_build_with(&quiet, bytes, &bo, &s, &count, &shown);
	if (rc == CLI_BUILD_TIME_LIMIT)
		return 0;
	if (rc)
		return rc;
	if (carried && cc_check_io_too_big(s, true, 0)) {
		cli_refuse_memory(o, shown);
		rc = CLI_EXIT_FAIL;
	} else if (l->mem_need) {
		rc = weigh_run(o, l, s, bytes, shown, carried, &lim, left);
	}
	cc_schedule_free(s);
	return rc;
}

/* Before the first row, the sweep's largest size is built (cc_build()
 * refuses a schedule too large to hold), its run weighed, and the largest
 * that carries data weighed with its buffers: a sweep that would fail at
 * its end is refused now, not after its smaller sizes ran, whose rows the
 * refusal would throw away (a report is complete or absent).  0 or an exit
 * code after a message. */
static int preflight(const struct cli_opts *o, const struct cli_loop *l)
{
	uint64_t size = o->minbytes, last, big = 0;
	bool any = false;
	int rc;

	note_rail_crossings(o);
	if (!l->carries)
		return 0;
	do {
		last = size;
		if (l->carries(o, size)) {
			big = size;
			any = true;
		}
	} while (cli_next_size(o, &size));
	if ((rc = weigh_time(o, l, last)))
		return rc;
	rc = weigh(o, l, last, any && big == last);
	if (!rc && any && big != last)
		rc = weigh(o, l, big, true);
	return rc;
}

/* The closed report (err: why it could not be closed) to `cclab run`'s
 * comparison (cli.h, report_fd).  A failure costs the comparison only,
 * which says it has nothing to compare. */
static void send_report(const struct cli_opts *o, const struct cc_json *j, int err)
{
	size_t done = 0;

	while (!err && done < j->len) {
		ssize_t n = write(o->report_fd, j->buf + done, j->len - done);

		if (n > 0)
			done += (size_t)n;
		else if (n == 0 || errno != EINTR)
			err = n ? -errno : -EIO;
	}
	if (err)
		fprintf(stderr, "cclab %s: the report for the comparison: %s\n", cli_opts_cmd(o),
			strerror(-err));
}

/* The sweep's sizes, one run each, with a result and a setting apiece
 * (jobs > 1) or shared (one size at a time).  NULL: out of memory. */
static struct cli_size_run *runs_new(const struct cli_opts *o, const struct cli_loop *l,
				     uint32_t n, bool own)
{
	struct cli_size_run *runs = calloc(n, sizeof(*runs));
	size_t each = l->x->result_size + l->setting_size;
	uint8_t *mem = calloc(own ? n : 1, each ? each : 1);
	uint64_t size = o->minbytes;

	if (!runs || !mem) {
		free(runs);
		free(mem);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *m = mem + (own ? i : 0) * each;

		runs[i].bytes = size;
		runs[i].last = i + 1 == n;
		runs[i].res = m;
		runs[i].setting = l->setting_size ? m + l->x->result_size : NULL;
		cli_next_size(o, &size);
	}
	return runs;
}

static void runs_free(struct cli_size_run *runs)
{
	if (runs)
		free(runs[0].res); /* the block of every result and setting */
	free(runs);
}

/* The progress line of sizes that run at once: how many are done. */
static void progress_done(uint32_t done, uint32_t n)
{
	fprintf(stderr, "\r\033[K[%u/%u sizes done] ...", done, n);
	fflush(stderr);
}

/* Every size, one at a time: each built and run, then reported. */
static int one_by_one(const struct cli_opts *o, const struct cli_loop *l,
		      struct cli_size_run *runs, uint32_t n, struct cc_results_summary *sum,
		      const struct cli_sink *out, bool *all_ok, bool tty)
{
	for (uint32_t i = 0; i < n; i++) {
		bool ok = false;
		int rc;

		progress(tty, i, n, runs[i].bytes);
		cli_size_build(o, l, &runs[i], stderr);
		if (runs[i].s)
			cli_size_run(l, &runs[i]);
		if ((rc = cli_size_report(o, l, &runs[i], sum, out, &ok)))
			return rc;
		*all_ok = *all_ok && ok;
	}
	return 0;
}

/* cli_loop_run() with the sweep's runs. */
static int loop(const struct cli_opts *o, const struct cli_loop *l, struct cli_size_run *runs,
		uint32_t nsizes, uint32_t jobs)
{
	const char *cmd = cli_opts_cmd(o);
	struct cc_results_summary sum = {0};
	struct cc_atomic_file af = {0}, cf = {0};
	struct cc_json j;
	struct cli_sink out = {0};
	bool all_ok = true, tty = !o->quiet && isatty(STDERR_FILENO);
	int rc = 0, err;

	if ((rc = open_outputs(o, &af, &cf)))
		return rc;
	if ((rc = preflight(o, l))) {
		if (o->json)
			cc_atomic_abort(&af);
		if (o->csv)
			cc_atomic_abort(&cf);
		return rc;
	}
	cc_json_init(&j);
	if (o->json || o->report_fd >= 0) {
		l->json_begin(&j, o);
		out.j = &j;
	}
	out.csv = o->csv ? cf.f : NULL;
	if (l->table) {
		l->table->header(o, l->table->ctx);
	} else {
		l->preamble(o, l->ctx);
		printf("#\n");
		cc_results_print_header(stdout);
	}
	if (jobs > 1)
		rc = cli_loop_jobs(o, l, runs, nsizes, jobs, &sum, &out, &all_ok,
				   tty ? progress_done : NULL);
	else
		rc = one_by_one(o, l, runs, nsizes, &sum, &out, &all_ok, tty);
	progress(tty, nsizes, nsizes, 0);
	if (rc) {
		/* No report: the files are complete or absent, never partial. */
		if (o->json)
			cc_atomic_abort(&af);
		if (o->csv)
			cc_atomic_abort(&cf);
		cc_json_free(&j);
		return rc;
	}
	if (!l->table)
		cc_results_print_summary(stdout, &sum);
	if (o->csv)
		rc = cli_output_commit(cmd, o->csv, &cf);
	if (l->finish) {
		int frc = l->finish(o, l->ctx);

		rc = rc ? rc : frc;
	}
	if (o->json && (err = cli_json_end(&j, &af, all_ok && !rc)))
		rc = cli_output_error(cmd, o->json, err);
	else if (o->report_fd >= 0)
		send_report(o, &j, o->json ? 0 : cli_json_end(&j, NULL, all_ok && !rc));
	cc_json_free(&j);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cclab %s: cannot write the output: %s\n", cmd, strerror(errno));
		return CLI_EXIT_FAIL;
	}
	if (rc)
		return rc;
	return all_ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

int cli_loop_run(const struct cli_opts *o, const struct cli_loop *l)
{
	uint32_t n = count_sizes(o);
	/* Sizes at once where the command can (l->mem_need) and was let;
	 * never more threads than sizes. */
	uint32_t jobs = l->mem_need && o->jobs > 1 ? (o->jobs < n ? o->jobs : n) : 1;
	struct cli_size_run *runs = runs_new(o, l, n, jobs > 1);
	int rc;

	if (!runs) {
		fprintf(stderr, "cclab %s: out of memory\n", cli_opts_cmd(o));
		return CLI_EXIT_FAIL;
	}
	rc = loop(o, l, runs, n, jobs);
	runs_free(runs);
	return rc;
}
