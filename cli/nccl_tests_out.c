/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/nccl_tests_out.c — nccl-tests' whole text for nccl-tests' mode, line
 * for line as its src/util.cu 2.19.6 prints it, so the parsers of its
 * output read this one: writeDeviceReport() (version, the test, the
 * parameters, "# Using devices" and one line per rank), writeResultHeader()
 * (both halves of the columns), writeBenchmarkLine*() (a row with its
 * out-of-place and in-place halves), writeResultFooter(), finalizeFooter()
 * and writeErrors().  What is cclab's own goes in "# cclab: ..." lines where
 * nccl-tests puts its optional notes (after the parameters line): every
 * parser skips a line that starts with '#'. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/nccl_tests.h"
#include "core/algo.h"
#include "core/dtype.h"
#include "core/nccl_tune.h"

#define TIME_STRING_FORMAT "%Y-%m-%d %H:%M:%S" /* util.cu */

int nt_nccl_code(const struct cli_opts *o)
{
	const struct cc_nccl_version *v = &o->nccl_own.version;
	bool new_code = v->major > 2 || (v->major == 2 && v->minor >= 9);

	return (int)(v->major * (new_code ? 10000 : 1000) + v->minor * 100 + v->patch);
}

void nt_device(const struct cli_opts *o, uint32_t r, char *host, size_t len, uint32_t *dev)
{
	/* The simulated network's hosts: a node of --ranks-per-node GPUs,
	 * else each rank a host of its own on the fabric. */
	uint32_t per = o->p.ranks_per_node ? o->p.ranks_per_node : 1;

	snprintf(host, len, "sim-node%" PRIu32, r / per);
	*dev = r % per;
}

void nt_device_info(const struct cli_opts *o, char *buf, size_t len)
{
	snprintf(buf, len, "cclab simulated %s GPU, fabric %s",
		 cc_gpu_arch_name[o->fabric.host.gpu_arch], o->fabric.name);
}

static void now_text(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, TIME_STRING_FORMAT, &tm))
		snprintf(buf, len, "?");
}

/* What the header says of the simulation, once (cclab's notes). */
static void cclab_notes(const struct nt_opts *n, const struct cli_opts *o)
{
	printf("# cclab %s simulation (cclab sim): %s, fabric %s, topology %s, link %s %g Gb/s; "
	       "%" PRIu32 " ranks = %" PRIu32 " process%s%s%s%s x -t %" PRIu32 " x -g %" PRIu32 "\n",
	       CCLAB_VERSION, cc_coll_name[o->p.coll], o->fabric.name, sim_topo_kind_name[o->topo],
	       sim_link_info[o->fabric.link.type].name, (double)o->fabric.link.rate_bps / 1e9,
	       n->nranks, n->nprocs, n->nprocs > 1 ? "es" : "", n->nprocs_from ? " (" : "",
	       n->nprocs_from ? n->nprocs_from : "", n->nprocs_from ? ")" : "", n->nthreads,
	       n->ngpus);
	printf("# cclab: the time is simulated, without run-to-run noise: -w %" PRIu64 " warm-up "
	       "and -n %" PRIu64 " iterations do not change it; -a %d: %s over "
	       "%" PRIu32 " thread%s, a thread's time the end of the last of its -g GPUs\n",
	       n->warmup, n->iters, n->average,
	       (const char *const[]){"thread 0's", "the mean", "the least", "the largest"}
	       [n->average], n->nprocs * n->nthreads, n->nprocs * n->nthreads > 1 ? "s" : "");
	printf("# cclab: in-place repeats out-of-place: cclab models one buffer layout\n");
	if (n->ranks_per_node)
		printf("# cclab: %" PRIu32 " node%s of %" PRIu32 " GPUs joined by NVLink (a process's "
		       "-t x -g GPUs share its host; %" PRIu32 " process%s per node%s%s%s), topology "
		       "%s; --ranks-per-node or --topology change it\n",
		       n->nranks / n->ranks_per_node, n->nranks > n->ranks_per_node ? "s" : "",
		       n->ranks_per_node, n->procs_per_node, n->procs_per_node > 1 ? "es" : "",
		       n->procs_per_node_from ? " from " : "",
		       n->procs_per_node_from ? n->procs_per_node_from : "",
		       n->procs_per_node_from ? "" : ", the launcher saying none",
		       sim_topo_kind_name[o->topo]);
	else if (!o->p.ranks_per_node)
		printf("# cclab: each rank a host of its own on the fabric; --ranks-per-node G or "
		       "--topology node puts G GPUs on one NVLink node\n");
	if (n->nccl_chooses)
		printf("# cclab: algorithm, protocol and channels: NCCL %u.%u.%u's own choice per "
		       "size (-A auto; --algorithm, --protocol, --channels fix them)\n",
		       o->nccl_own.version.major, o->nccl_own.version.minor,
		       o->nccl_own.version.patch);
	if (o->hosts.pcie_switches)
		printf("# cclab: %u PCIe switches per node: the GPUs and NICs behind one share its "
		       "uplink to host memory (--pcie-switches)\n", o->hosts.pcie_switches);
	if (o->hosts.nics > 1)
		printf("# cclab: %u NICs per GPU, NCCL's channels dealt over them (--nics)\n",
		       o->hosts.nics);
	if (o->model == CC_SIM_MODEL_FLOW)
		printf("# cclab: model: flow: each message a flow, links shared max-min fairly; no "
		       "loss, PFC, credits, ECN or switch queues (--model)\n");
	fputs(n->notes, stdout);
	/* cclab sim's lines of buffers and NCCL's transport, without its
	 * "auto" line: that one promises notes after the rows, which
	 * nccl-tests' rows do not have (cclab sim prints them) */
	cli_preamble_buffers(o, false);
}

/* writeDeviceReport()'s ranks: "#  Rank  0 Group  0 Pid  1234 on ..." */
static void device_lines(const struct nt_opts *n, const struct cli_opts *o)
{
	char host[32], info[96];
	uint32_t dev;

	nt_device_info(o, info, sizeof(info));
	printf("# Using devices\n");
	for (uint32_t r = 0; r < n->nranks; r++) {
		nt_device(o, r, host, sizeof(host), &dev);
		printf("#  Rank %2" PRIu32 " Group %2d Pid %6d on %10s device %2" PRIu32
		       " [%04x:%02x:%02x] %s\n", r, 0, (int)getpid(), host, dev, 0u, dev & 0xffu, 0u,
		       info);
	}
}

void nt_header(const struct cli_opts *o, void *ctx)
{
	struct nt_run *r = ctx;
	const struct nt_opts *n = r->n;
	const char *ts_lbl = n->timestamps ? "timestamp" : "";
	const char *ts_fmt = n->timestamps ? TIME_STRING_FORMAT : "";
	int ts_pad = n->timestamps ? 19 : 0;
	int code = nt_nccl_code(o);

	if (r->header_done)
		return;
	r->header_done = true;
	if (r->json_path)
		printf("# Writing JSON output to %s\n", r->json_path);
	/* nccl-tests' version first, where parsers read it; cclab's in
	 * parentheses after it */
	printf("# nccl-tests version %s (cclab %s simulation) nccl-headers=%d nccl-library=%d\n",
	       NT_VERSION, CCLAB_VERSION, code, code);
	printf("# Collective test starting: %s\n", n->prog);
	printf("# nThread %" PRIu32 " nGpus %" PRIu32 " minBytes %" PRIu64 " maxBytes %" PRIu64
	       " step: %" PRIu64 "(%s) warmup iters: %" PRIu64 " iters: %" PRIu64 " agg iters: %"
	       PRIu64 " validation: %" PRIu64 " graph: %" PRIu64 " unalign: %" PRIu64 "\n",
	       n->nthreads, n->ngpus, n->minbytes, n->maxbytes,
	       n->stepfactor > 1 ? n->stepfactor : n->stepbytes,
	       n->stepfactor > 1 ? "factor" : "bytes", n->warmup, n->iters, n->agg_iters,
	       n->check, n->graph, n->unalign);
	if (n->blocking == 1)
		printf("# Blocking Enabled: wait and barrier after each inner iteration (-m) \n");
	if (n->blocking == 2)
		printf("# Blocking Enabled: wait after each inner iteration (-m), no barrier \n");
	if (n->blocking == 3)
		printf("# Blocking Enabled: wait and barrier after each outer iteration (-n); "
		       "time excludes barrier \n");
	if (n->parallel_init)
		printf("# Parallel Init Enabled: threads call into NcclInitRank concurrently \n");
	cclab_notes(n, o);
	printf("#\n");
	device_lines(n, o);
	if (r->j)
		nt_json_begin(r->j, n, o);
	printf("#\n");
	printf("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place"
	       "          \n", "", "", "", "", "");
	printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "size",
	       "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
	       "algbw", "busbw", "#wrong", ts_pad, ts_lbl);
	printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)",
	       "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
	       "", ts_pad, ts_fmt);
}

/* util.cu getFloatStr(): the most decimals that fit the width. */
static void float_str(double v, int w, char *s, size_t len)
{
	if (snprintf(s, len, "%*.2f", w, v) <= w)
		return;
	if (snprintf(s, len, "%*.1f", w, v) <= w)
		return;
	if (snprintf(s, len, "%*.0f", w, v) <= w)
		return;
	snprintf(s, len, w >= 7 ? "%*.1e" : "%*.0e", w, v);
}

/* writeBenchmarkLineBody(): one half of a row. */
static void half(const struct cc_result_row *row, bool have, double algbw, double busbw,
		 bool checked)
{
	char t[16] = "N/A", a[16] = "N/A", b[16] = "N/A";

	if (have) {
		float_str(row->time_us, 7, t, sizeof(t));
		float_str(algbw, 6, a, sizeof(a));
		float_str(busbw, 6, b, sizeof(b));
	}
	if (!checked)
		printf("  %7s  %6s  %6s    N/A", t, a, b);
	else
		printf("  %7s  %6s  %6s  %6g", t, a, b, (double)row->wrong);
}

void nt_row(const struct cli_opts *o, void *ctx, const struct cc_result_row *row)
{
	struct nt_run *r = ctx;
	double algbw = 0, busbw = 0;
	bool have = !row->failed &&
		    cc_result_bw(row->size, row->time_us, row->busbw_factor, &algbw, &busbw);
	char root[16];

	(void)o;
	/* writeBenchmarkLinePreamble(): the root through "%6i" into a string */
	snprintf(root, sizeof(root), "%6i", row->root);
	printf("%12" PRIu64 "  %12" PRIu64 "  %8s  %6s  %6s", row->size, row->count, row->type,
	       row->redop, root);
	/* out-of-place, then in-place: the same schedule here (the header
	 * says so), so the same figures; sendrecv's in-place half is never
	 * checked (sendrecv.cu: "We don't support in-place sendrecv") */
	bool checked = !row->unchecked, checked_ip = checked && r->n->coll != CC_SENDRECV;

	half(row, have, algbw, busbw, checked);
	half(row, have, algbw, busbw, checked_ip);
	if (r->n->timestamps) {
		char now[64];

		now_text(now, sizeof(now));
		printf("%21s", now);
	}
	printf("\n");
	/* CheckData(): one error per half with wrong elements; BenchTime():
	 * both halves' busbw into the average */
	if (row->failed)
		r->errors += 2;
	else if (row->wrong)
		r->errors += (uint32_t)checked + (uint32_t)checked_ip;
	if (have) {
		r->bw_sum += 2 * busbw;
		r->bw_count += 2;
	}
	if (r->j)
		nt_json_row(r->j, row, checked, checked_ip, r->n->iters);
}

bool nt_bw_ok(const struct nt_run *r)
{
	return r->n->min_bw < 0 ||
	       (r->bw_count && r->bw_sum / r->bw_count >= r->n->min_bw * 0.9);
}

void nt_footer(const struct nt_run *r)
{
	const char *verdict = r->n->min_bw < 0 ? "" : nt_bw_ok(r) ? "OK" : "FAILED";

	printf("# %-20s : %" PRIu32 " %s\n", "Out of bounds values", r->errors,
	       r->errors ? "FAILED" : "OK");
	if (r->bw_count)
		printf("# %-20s : %g %s\n", "Avg bus bandwidth", r->bw_sum / r->bw_count, verdict);
	else
		printf("# %-20s : %s %s\n", "Avg bus bandwidth", "N/A", verdict);
	printf("#\n");
	printf("# Collective test concluded: %s\n", r->n->prog);
	printf("#\n");  /* finalizeFooter() */
	printf("\n");   /* writeErrors(): no NCCL error */
}
