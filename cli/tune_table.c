/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/tune_table.c — what `cclab tune` prints on stdout (docs/tune.md):
 * the preamble, nccl-tests' three header lines, one row per size, and the
 * summary.  A row has nccl-tests' size, count, type, redop and root
 * columns, the winner and the runner-up, then under a caption per
 * algorithm one column per protocol (the fastest of its transports), as
 * NCCL's tuning table lists each algorithm's protocols; --all gives every
 * candidate its own column instead. */
#include <inttypes.h>
#include <string.h>

#include "cli/check.h"
#include "cli/tune.h"
#include "core/nccl_auto.h"
#include "core/dtype.h"
#include "sim/scenario.h"
#include "sim/wire.h"
#include "util/units.h"

/* Widths of the table's text columns, from the name tables, so another
 * algorithm, protocol or transport keeps the columns aligned. */
struct widths {
	int name;  /* best and runner-up: "algorithm/protocol/transport" */
	int cols;  /* columns per algorithm */
	int cell;  /* a column's time, headed by its label */
	int group; /* an algorithm's columns, under its caption */
};

static const char name_unit[] = "(algorithm/protocol/transport)";

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* The candidates of column j of an algorithm's group, from its first:
 * one protocol's transports, or with --all one candidate. */
static int col_first(const struct tune *t, int a, int j)
{
	return a * TUNE_NPT + j * (t->all ? 1 : CC_TRANSPORT_COUNT);
}

static const char *col_label(const struct tune *t, int j, char *buf, size_t len)
{
	const struct tune_cand *k = &t->cand[col_first(t, 0, j)];

	if (!t->all)
		return cc_proto_name[k->proto];
	snprintf(buf, len, "%s/%s", cc_proto_name[k->proto], cc_transport_name[k->transport]);
	return buf;
}

static struct widths widths_of(const struct tune *t)
{
	struct widths w = {
		.name = (int)strlen(name_unit),
		.cols = t->all ? TUNE_NPT : CC_PROTO_COUNT,
		.cell = 7,
	};
	char buf[64];

	for (int c = 0; c < t->ncand; c++)
		w.name = max_int(w.name, (int)strlen(t->cand[c].name));
	for (int j = 0; j < w.cols; j++)
		w.cell = max_int(w.cell, (int)strlen(col_label(t, j, buf, sizeof(buf))));
	w.group = w.cols * (w.cell + 2) - 2;
	for (int v = 0; v < t->nvariants; v++)
		w.group = max_int(w.group, (int)strlen(t->variants[v].label) + 2);
	/* The group's cells fill it: widen them, not the caption. */
	w.cell = (w.group + 2) / w.cols - 2;
	w.group = w.cols * (w.cell + 2) - 2;
	return w;
}

/* nccl-tests' BenchTime(): three precisions so the time stays 7 wide. */
static const char *time_str(char *buf, size_t len, sim_time_ps ps)
{
	double us = tune_us(ps);

	snprintf(buf, len, us >= 10000.0 ? "%.0f" : us >= 100.0 ? "%.1f" : "%.2f", us);
	return buf;
}

/* ---- the preamble ---- */

/* Whose slot and chunk each protocol ran with. */
static const char *buffers_origin(const struct cc_scenario *sc)
{
	if (sc->slot_given && sc->chunk_given)
		return "the scenario's, for every protocol";
	if (sc->slot_given)
		return "the scenario's slot; NCCL's slots per chunk for each protocol";
	if (sc->chunk_given)
		return "the scenario's chunk; NCCL's slot for each protocol";
	return "NCCL's defaults for each protocol";
}

static void print_buffers(const struct tune *t)
{
	const struct cc_coll_params *p = &t->sc->p;
	static const char *const lines[CC_PROTO_COUNT] = {
		[CC_PROTO_LL] = "; on the wire 16-byte lines of 8 data bytes",
		[CC_PROTO_LL128] = "; on the wire 128-byte lines of 120 data bytes",
	};

	printf("# slots: %" PRIu32 "  chunk and slot: %s\n", p->nslots, buffers_origin(t->sc));
	for (int pr = 0; pr < CC_PROTO_COUNT; pr++) {
		char chunk[CC_FMT_BYTES_LEN], slot[CC_FMT_BYTES_LEN];

		printf("#   %-6s  chunk: %s (%" PRIu64 " B)  slot: %s (%" PRIu64 " B)%s\n",
		       cc_proto_name[pr], cc_format_bytes(chunk, sizeof(chunk), t->chunk_bytes[pr]),
		       t->chunk_bytes[pr], cc_format_bytes(slot, sizeof(slot), t->slot_bytes[pr]),
		       t->slot_bytes[pr], lines[pr] ? lines[pr] : "");
	}
	if (!t->sc->chunk_given)
		printf("#   tree, simple and ll128: the chunk per size, NCCL's rules (one slot, "
		       "halved for small sizes)\n");
	if (p->mem == CC_MEM_GPU && cc_coll_stage_mem(p) == CC_MEM_HOST)
		printf("# staging: host memory (no GPUDirect RDMA): the GPU reads and writes the "
		       "staging slots across its PCIe link\n");
}

/* "a, b, c" of a name table. */
static void print_names(const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		printf("%s%s", i ? ", " : "", names[i]);
}

/* The ring's layouts: "# rings: ring (rank order, 1 channel), ring-rail
 * (rail order, 1 channel)", then the tree's when one has channels
 * ("; trees: tree (1 channel pair), tree-2ch (2 channel pairs)": a pair
 * is a tree and its mirror, NCCL's 2 channels); the other algorithms run
 * on one channel. */
static void print_rings(const struct tune *t)
{
	bool first = true, trees = false;

	printf("# rings:");
	for (int v = 0; v < t->nvariants; v++) {
		const struct tune_variant *x = &t->variants[v];

		trees |= x->algo == CC_ALGO_TREE && x->channels > 1;
		if (x->algo != CC_ALGO_RING)
			continue;
		printf("%s %s (%s order, %" PRIu32 " channel%s)", first ? "" : ",", x->label,
		       cc_ring_order_name[x->order], x->channels, x->channels > 1 ? "s" : "");
		first = false;
	}
	/* the trees' layouts, when one is not the plain one-channel tree */
	for (int v = 0, any = 0; trees && v < t->nvariants; v++) {
		const struct tune_variant *x = &t->variants[v];

		if (x->algo != CC_ALGO_TREE)
			continue;
		printf("%s %s (%" PRIu32 " channel pair%s)", any++ ? "," : "; trees:", x->label,
		       x->channels, x->channels > 1 ? "s" : "");
	}
	printf("; the other algorithms: 1 channel\n");
}

/* Those refused at the first size, consecutive ones with the same reason
 * on one line; an algorithm refused with every protocol and transport is
 * named with a star for both ("tree" "/" "*"), one protocol refused with
 * every transport with a star for the transport. */
static void print_refused(const struct tune *t)
{
	for (int c = 0; c < t->ncand; c++) {
		const struct tune_cand *k = &t->cand[c];
		int e = c;

		if (!k->refused)
			continue;
		while (e + 1 < t->ncand && t->cand[e + 1].refused &&
		       !strcmp(t->cand[e + 1].reason, k->reason))
			e++;
		printf("# n/a:");
		for (int x = c; x <= e; x++) {
			const struct tune_cand *kx = &t->cand[x];

			printf("%s ", x > c ? "," : "");
			if (x % TUNE_NPT == 0 && x + TUNE_NPT - 1 <= e) {
				printf("%s/*", t->variants[kx->variant].label);
				x += TUNE_NPT - 1;
			} else if (x % CC_TRANSPORT_COUNT == 0 && x + CC_TRANSPORT_COUNT - 1 <= e) {
				printf("%s/%s/*", t->variants[kx->variant].label,
				       cc_proto_name[kx->proto]);
				x += CC_TRANSPORT_COUNT - 1;
			} else {
				printf("%s", kx->name);
			}
		}
		printf(": %s\n", k->reason);
		c = e;
	}
}

static void preamble(const struct tune *t)
{
	const struct cc_scenario *sc = t->sc;
	const struct sim_link_params *l = &sc->fabric.link;

	printf("# cclab %s tune: %s, every algorithm x protocol x transport, %" PRIu32 " ranks, "
	       "type %s, redop %s\n", CCLAB_VERSION, cc_coll_name[sc->p.coll], sc->p.nranks,
	       cc_dtype_name[sc->p.dtype], cli_redop_label(&sc->p));
	printf("# minBytes %" PRIu64 " maxBytes %" PRIu64 " step: %" PRIu64 "(factor)"
	       " validation: 0\n", sc->minbytes, sc->maxbytes, sc->stepfactor);
	printf("# executor: sim (discrete-event, simulated time)  seed: %" PRIu64 "\n", sc->seed);
	if (*sc->file)
		printf("# scenario: %s (%s)\n", sc->name, sc->file);
	else /* tune_scenario(): sim's options */
		printf("# scenario: none, the options as 'cclab sim' takes them\n");
	printf("# fabric: %s  topology: %s  link: %s %g Gb/s  MTU: %" PRIu32 " B\n",
	       sc->fabric.name, sc->net.name, sim_link_info[l->type].name,
	       (double)l->rate_bps / 1e9, l->mtu_bytes);
	cli_print_pcie(&sc->net, &sc->fabric);
	if (sc->model == CC_SIM_MODEL_FLOW)
		printf("# model: flow: each message a flow, links shared max-min fairly; what it "
		       "does not model is refused (docs/simulator.md)\n");
	print_buffers(t);
	if (*sc->file)
		printf("# timing only: no data carried, nothing checked ('cclab run' checks it); "
		       "the scenario's\n# algorithm, protocol, transport, executors, check and "
		       "expectations are not used\n");
	else
		printf("# timing only: no data carried, nothing checked ('cclab sim' checks it)\n");
	printf("# candidates: %d, algorithm/protocol/transport: {", t->ncand);
	for (int v = 0; v < t->nvariants; v++)
		printf("%s%s", v ? ", " : "", t->variants[v].label);
	printf("} x {");
	print_names(cc_proto_name, CC_PROTO_COUNT);
	printf("} x {");
	print_names(cc_transport_name, CC_TRANSPORT_COUNT);
	printf("}\n");
	print_rings(t);
	print_refused(t);
	printf("# margin (%%) = (runner-up time / best time - 1) * 100, the runner-up being the "
	       "fastest\n# of another algorithm or protocol; then %s (us)\n", t->all
	       ? "each candidate's time" : "per algorithm and protocol the fastest transport's time");
	if (t->nccl_why[0])
		printf("# NCCL's own choice: n/a (%s)\n", t->nccl_why);
	else
		printf("# after each row, NCCL %u.%u.%u's own choice at that size (its tuning model, "
		       "docs/nccl-tuning.md)\n", sc->nccl.version.major, sc->nccl.version.minor,
		       sc->nccl.version.patch);
}

/* ---- the table ---- */

static void dashes(int n)
{
	while (n-- > 0)
		putchar('-');
}

/* The columns before the candidates': nccl-tests' five, best, runner-up. */
#define HEAD_FMT "# %10s  %12s  %8s  %6s  %6s  %*s  %7s  %6s  %*s  %7s  %7s"

/* nccl-tests' three header lines: a caption over each algorithm's
 * columns ("out-of-place" there), the names, the units. */
static void print_header(const struct tune *t, const struct widths *w)
{
	char buf[64];

	printf(HEAD_FMT, "", "", "", "", "", w->name, "", "", "", w->name, "", "", "");
	for (int a = 0; a < t->nvariants; a++) {
		int len = (int)strlen(t->variants[a].label) + 2, left = (w->group - len) / 2;

		printf("  ");
		dashes(left);
		printf(" %s ", t->variants[a].label);
		dashes(w->group - len - left);
	}
	printf("\n" HEAD_FMT, "size", "count", "type", "redop", "root", w->name, "best", "time",
	       "busbw", w->name, "runner-up", "time", "margin");
	for (int a = 0; a < t->nvariants; a++)
		for (int j = 0; j < w->cols; j++)
			printf("  %*s", w->cell, col_label(t, j, buf, sizeof(buf)));
	printf("\n" HEAD_FMT, "(B)", "(elements)", "", "", "", w->name, name_unit, "(us)", "(GB/s)",
	       w->name, name_unit, "(us)", "(%)");
	for (int c = 0; c < t->nvariants * w->cols; c++)
		printf("  %*s", w->cell, "(us)");
	printf("\n");
}

void tune_print_head(const struct tune *t)
{
	struct widths w = widths_of(t);

	preamble(t);
	printf("#\n");
	print_header(t, &w);
}

/* Column j of algorithm a: the fastest time of its candidates; else
 * "failed" when one of them failed, "n/a" when none applied. */
static const char *col_value(const struct tune *t, const struct tune_size *z, int a, int j,
			     char *buf, size_t len)
{
	int first = col_first(t, a, j), n = t->all ? 1 : CC_TRANSPORT_COUNT;
	int c = tune_fastest(z, first, n);

	if (c >= 0)
		return time_str(buf, len, z->cell[c].time_ps);
	for (c = first; c < first + n; c++)
		if (z->cell[c].state == TUNE_FAILED)
			return "failed";
	return "n/a";
}

void tune_print_row(const struct tune *t, const struct tune_size *z)
{
	const struct cc_coll_params *p = &t->sc->p;
	struct widths w = widths_of(t);
	char a[32], b[32];
	double busbw, pct;

	/* nccl-tests' root: -1 but for broadcast and reduce. */
	printf("%12" PRIu64 "  %12" PRIu64 "  %8s  %6s  %6d", z->bytes, z->count,
	       cc_dtype_name[p->dtype], cli_redop_label(p), cc_coll_rooted(p->coll) ? (int)p->root : -1);
	if (z->best < 0)
		printf("  %*s  %7s  %6s", w.name, "n/a", "n/a", "n/a");
	else if (tune_busbw(t, z, z->best, &busbw))
		printf("  %*s  %7s  %6.2f", w.name, t->cand[z->best].name,
		       time_str(a, sizeof(a), z->cell[z->best].time_ps), busbw);
	else
		printf("  %*s  %7s  %6s", w.name, t->cand[z->best].name,
		       time_str(a, sizeof(a), z->cell[z->best].time_ps), "N/A");
	if (z->second < 0)
		printf("  %*s  %7s", w.name, "n/a", "n/a");
	else
		printf("  %*s  %7s", w.name, t->cand[z->second].name,
		       time_str(b, sizeof(b), z->cell[z->second].time_ps));
	if (tune_margin(z, &pct))
		printf("  %7.2f", pct);
	else
		printf("  %7s", "n/a");
	for (int al = 0; al < t->nvariants; al++)
		for (int j = 0; j < w.cols; j++)
			printf("  %*s", w.cell, col_value(t, z, al, j, a, sizeof(a)));
	char n[CC_NCCL_PICK_TEXT_LEN];

	printf("  # NCCL: %s\n", tune_nccl_text(t, z, n, sizeof(n)));
}

const char *tune_nccl_text(const struct tune *t, const struct tune_size *z, char *buf,
			   size_t len)
{
	struct cc_nccl_choice ch;
	char err[256];

	if (!t->nccl_why[0] && cc_coll_p2p(t->sc->p.coll)) {
		struct cc_nccl_pick pick;

		cc_nccl_p2p_pick(&t->nccl, t->sc->p.coll, z->bytes, &pick);
		return cc_nccl_pick_text(&pick, buf, len);
	}
	if (t->nccl_why[0] || cc_nccl_choose(&t->nccl, t->sc->p.coll, z->bytes, &ch, err,
					     sizeof(err))) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	return cc_nccl_choice_text(&ch, buf, len);
}

/* ---- the summary ---- */

/* Whether variant a won size i. */
static bool wins(const struct tune *t, uint32_t i, int a)
{
	int b = t->sizes[i].best;

	return b >= 0 && t->cand[b].variant == a;
}

/* Per algorithm, the runs of consecutive sizes it wins, each with the
 * protocols and transports that won there: "# ring wins:
 * 1048576..67108864 bytes (simple/write_imm)". */
static void print_wins(const struct tune *t)
{
	for (int a = 0; a < t->nvariants; a++) {
		bool any = false;

		printf("# %s wins:", t->variants[a].label);
		for (uint32_t i = 0, e; i < t->nsizes; i = e) {
			bool won[TUNE_NPT] = {false}, first = true;

			if (!wins(t, i, a)) {
				e = i + 1;
				continue;
			}
			for (e = i; e < t->nsizes && wins(t, e, a); e++)
				won[t->sizes[e].best % TUNE_NPT] = true;
			printf("%s %" PRIu64, any ? "," : "", t->sizes[i].bytes);
			if (e - 1 > i)
				printf("..%" PRIu64, t->sizes[e - 1].bytes);
			printf(" bytes (");
			for (int x = 0; x < TUNE_NPT; x++)
				if (won[x]) {
					const struct tune_cand *k = &t->cand[x];

					printf("%s%s/%s", first ? "" : ", ", cc_proto_name[k->proto],
					       cc_transport_name[k->transport]);
					first = false;
				}
			printf(")");
			any = true;
		}
		printf("%s\n", any ? "" : " no size");
	}
}

/* The protocol of variant a's fastest run at size i; -1: none ran. */
static int fastest_proto(const struct tune *t, uint32_t i, int a)
{
	int c = tune_fastest(&t->sizes[i], a * TUNE_NPT, TUNE_NPT);

	return c < 0 ? -1 : (int)t->cand[c].proto;
}

/* Per algorithm, the protocol of its fastest run at each size, over runs
 * of consecutive sizes: where NCCL's tuner would switch protocols with
 * that algorithm, as the simulator sees it ("# ring protocols: ll
 * 4B..16KiB, simple 1MiB..64MiB"). */
static void print_protocols(const struct tune *t)
{
	for (int a = 0; a < t->nvariants; a++) {
		bool any = false;

		printf("# %s protocols:", t->variants[a].label);
		for (uint32_t i = 0, e; i < t->nsizes; i = e) {
			char lo[CC_FMT_BYTES_LEN], hi[CC_FMT_BYTES_LEN];
			int pr = fastest_proto(t, i, a);

			e = i + 1;
			if (pr < 0)
				continue;
			while (e < t->nsizes && fastest_proto(t, e, a) == pr)
				e++;
			printf("%s %s %s", any ? "," : "", cc_proto_name[pr],
			       cc_format_bytes(lo, sizeof(lo), t->sizes[i].bytes));
			if (e - 1 > i)
				printf("..%s", cc_format_bytes(hi, sizeof(hi), t->sizes[e - 1].bytes));
			any = true;
		}
		printf("%s\n", any ? "" : " no size");
	}
}

void tune_print_summary(const struct tune *t)
{
	print_wins(t);
	print_protocols(t);
	printf("#\n");
}
