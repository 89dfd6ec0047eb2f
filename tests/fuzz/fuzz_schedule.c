/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/fuzz/fuzz_schedule.c — the builders, the data executor and the
 * writers on collective parameters drawn from the input.
 *
 * The input's bytes, one a field (missing bytes read as 0), become a
 * struct cc_coll_params with every field in a small range: ranks 1..9,
 * count 0..5000, small slots and chunks, and every enum including values
 * past its end, which cc_build() must refuse.  Whatever builds must:
 *   - pass cc_schedule_validate();
 *   - run on the data executor to CC_RUN_OK with #wrong 0, each rank
 *     moving the data bytes its sends say and completing all its ops;
 *   - print (schedule, primitives, nccl-tests' table, JSON) without a
 *     sanitizer report.
 * With the flag byte's bit 0 it also runs on the simulator (star network,
 * a preset fabric) with data checked and a trace recorded: OK, #wrong 0,
 * sim_physical() (sim/physics.h): no time below the alpha-beta bound and
 * no busbw above what a rank's ports carry (what `cclab sim` calls a model
 * bug), and both trace writers succeed.  Any broken invariant aborts, which
 * libFuzzer reports with the input. */
#include <errno.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "core/results.h"
#include "core/schedule.h"
#include "core/trace.h"
#include "sim/bound.h"
#include "sim/physics.h"
#include "sim/exec.h"
#include "sim/params.h"
#include "sim/topo.h"
#include "tests/fuzz/fuzz.h"
#include "util/json.h"

struct input {
	const uint8_t *p;
	size_t n;
};

/* The next byte modulo mod; 0 once the input is used up. */
static unsigned take(struct input *in, unsigned mod)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++ % mod;
}

/* An enum of `count` values: each of them, count (the first invalid one)
 * or a far-off one. */
static unsigned take_enum(struct input *in, unsigned count)
{
	unsigned v = take(in, count + 2);

	return v == count + 1 ? 1000u : v;
}

/* 0 (not given: the protocol's default), a few bytes (less than an
 * element: refused) or multiples of 32 up to 7 KiB. */
static uint64_t take_bytes(struct input *in)
{
	unsigned b = take(in, 256);

	return b <= 16 ? b : (uint64_t)(b - 16) * 32;
}

static FILE *devnull;
static const char *scratch;

static void params_from(struct input *in, struct cc_coll_params *p)
{
	uint64_t slot, chunk;
	unsigned ch;

	cc_coll_params_default(p);
	p->nranks = 1 + take(in, 9);
	p->coll = take_enum(in, CC_COLL_COUNT);
	p->algo = take_enum(in, CC_ALGO_COUNT);
	p->transport = take_enum(in, CC_TRANSPORT_COUNT);
	p->proto = take_enum(in, CC_PROTO_COUNT);
	p->dtype = take_enum(in, CC_DTYPE_COUNT);
	p->redop = take_enum(in, CC_REDOP_COUNT);
	p->count = (take(in, 256) | take(in, 256) << 8) % 5001;
	slot = take_bytes(in);
	chunk = take_bytes(in);
	p->nslots = take(in, 10);
	p->ranks_per_node = take(in, 10);
	p->ring_order = take_enum(in, CC_RING_ORDER_COUNT);
	p->root = take(in, 10);
	ch = take(in, 12);
	p->nchannels = ch == 10 ? 64 : ch == 11 ? 65 : ch;
	p->mem = take(in, CC_MEM_KIND_COUNT);
	p->stage_mem = take(in, CC_MEM_KIND_COUNT);
	/* The CLI's rule for sizes not given, with the protocol's slot;
	 * an invalid protocol has none: leave the defaults. */
	p->slot_bytes = slot;
	p->chunk_bytes = chunk;
	if (p->proto < CC_PROTO_COUNT)
		cc_coll_params_fill(p, slot != 0, chunk != 0);
	if (!slot && p->proto >= CC_PROTO_COUNT)
		p->slot_bytes = CC_DEFAULT_SLOT_BYTES;
	if (!chunk && p->proto >= CC_PROTO_COUNT)
		p->chunk_bytes = CC_DEFAULT_CHUNK_BYTES;
}

/* Whether the schedule would have more than about 4096 sends in all.  Its
 * cost (build, run, print) grows with them, faster than linearly in the
 * data executor (core/exec_data.c dx_mem_written() scans the rank's parked
 * waits at every write), and libFuzzer learns more from many small
 * schedules a second than from a few large ones that repeat the same
 * steps: 64 channels on 9 ranks took 20 s under the sanitizers.  A rank
 * sends about twice its data in slots, and at least a slice per channel
 * and ring step.  Such inputs are skipped, never changed. */
static int too_big(const struct cc_coll_params *p)
{
	uint64_t in = cc_coll_in_count(p), out = cc_coll_out_count(p);
	uint64_t slot = p->slot_bytes < p->chunk_bytes ? p->slot_bytes : p->chunk_bytes;
	uint64_t slices, rounds;

	if (p->dtype >= CC_DTYPE_COUNT || !slot)
		return 0;
	slices = 2 * ((in > out ? in : out) * cc_dtype_size(p->dtype) / slot + 1);
	rounds = 2ull * p->nranks * (p->nchannels ? p->nchannels : 1);
	return (slices > rounds ? slices : rounds) * p->nranks > 4096;
}

static struct cc_result_row row_of(const struct cc_schedule *s)
{
	const struct cc_coll_params *p = &s->params;
	uint64_t in = cc_coll_in_count(p), out = cc_coll_out_count(p);

	return (struct cc_result_row){
		.size = (in > out ? in : out) * cc_dtype_size(p->dtype),
		.count = p->count,
		.type = cc_dtype_name[p->dtype],
		.redop = cc_redop_name[p->redop],
		.root = cc_coll_rooted(p->coll) ? (int)p->root : -1,
		.time_us = CC_RESULT_NO_TIME,
		.busbw_factor = cc_busbw_factor(p->coll, p->nranks),
	};
}

/* nccl-tests' table and a JSON document of the run: the writers must
 * agree on lengths and finish. */
static void write_results(const struct cc_schedule *s, struct cc_result_row *row,
			  const uint64_t *data_bytes)
{
	struct cc_results_summary sum = {0};
	char small[24], full[512];
	struct cc_json j;
	const char *text;
	size_t len;
	int n;

	cc_results_print_header(devnull);
	cc_results_print_row(devnull, row);
	n = cc_results_format_row(small, sizeof(small), row);
	if (n < 0 || (size_t)n >= sizeof(full) || cc_results_format_row(full, sizeof(full), row) != n ||
	    strlen(full) != (size_t)n || strncmp(small, full, sizeof(small) - 1))
		fuzz_fail("results row: %d bytes, truncated or not", n);
	cc_results_summary_add(&sum, row);
	cc_results_print_summary(devnull, &sum);
	cc_json_init(&j);
	cc_json_object_begin(&j);
	cc_json_kv_string(&j, "collective", cc_coll_name[s->params.coll]);
	cc_json_kv_uint(&j, "size", row->size);
	cc_json_kv_double(&j, "time_us", row->time_us);
	cc_json_kv_double(&j, "busbw_factor", row->busbw_factor);
	cc_json_key(&j, "data_bytes");
	cc_json_array_begin_flat(&j);
	for (uint32_t r = 0; r < s->nranks; r++)
		cc_json_uint(&j, data_bytes[r]);
	cc_json_array_end(&j);
	cc_json_object_end(&j);
	if (cc_json_finish(&j, &text, &len) || strlen(text) != len)
		fuzz_fail("JSON writer failed");
	cc_json_free(&j);
}

/* Every rank moved the data its sends say and completed every op. */
static void check_counts(const struct cc_schedule *s, const uint64_t *data_bytes,
			 const char *who)
{
	for (uint32_t r = 0; r < s->nranks; r++)
		if (data_bytes[r] != cc_rank_data_bytes(&s->ranks[r]))
			fuzz_fail("%s: rank %u moved %llu data bytes, its sends carry %llu", who, r,
				  (unsigned long long)data_bytes[r],
				  (unsigned long long)cc_rank_data_bytes(&s->ranks[r]));
}

static void run_data(const struct cc_schedule *s, unsigned seed, unsigned order_seed)
{
	struct cc_data_opts o = {.seed = seed, .order_seed = order_seed};
	struct cc_data_result res;
	struct cc_result_row row = row_of(s);
	int rc;

	memset(&res, 0, sizeof(res));
	if ((rc = cc_data_run(s, &o, &res)))
		fuzz_fail("data executor refused a schedule: %s", strerror(-rc));
	if (res.err.status != CC_RUN_OK || res.wrong)
		fuzz_fail("data executor: status %d, %llu wrong: %s", (int)res.err.status,
			  (unsigned long long)res.wrong, res.err.msg);
	check_counts(s, res.data_bytes, "data");
	for (uint32_t r = 0; r < s->nranks; r++)
		if (res.ops_done[r] != s->ranks[r].nops)
			fuzz_fail("data: rank %u did %llu of %u ops", r,
				  (unsigned long long)res.ops_done[r], s->ranks[r].nops);
	row.wrong = res.wrong;
	write_results(s, &row, res.data_bytes);
	cc_data_result_free(&res);
}

static void run_sim(const struct cc_schedule *s, const struct sim_params *f, unsigned seed)
{
	struct cc_trace t;
	struct sim_net net;
	struct cc_sim_opts o = {
		.fabric = f,
		.net = &net, /* a star (node) connects every pair: any schedule can run */
		.seed = seed,
		.check = true,
		.trace = &t,
		/* as `cclab sim`: a run still going after a simulated minute is stuck */
		.time_limit_ps = 60 * SIM_PS_PER_S,
	};
	struct cc_sim_result res;
	struct cc_result_row row = row_of(s);
	uint64_t *bytes;
	char path[512];
	int rc;

	/* nvls needs one node's NVSwitch; collnetchain nodes on rails and
	 * SHARP switches, on links that lose nothing (sim/sharp.c) */
	bool cn = s->params.algo == CC_ALGO_COLLNET_CHAIN;
	enum sim_topo_kind kind = cn ? SIM_TOPO_RAILOPT
				  : cc_schedule_has_mcast(s) ? SIM_TOPO_NODE : SIM_TOPO_STAR;
	struct sim_params fc = *f;

	if (cn) {
		fc.sw.sharp = 1;
		fc.link.loss_ppb = 0;
		f = o.fabric = &fc;
	}
	if (sim_topo_net_make_nodes(&net, kind, s->nranks,
				    s->params.ranks_per_node ? s->params.ranks_per_node : 1, path,
				    sizeof(path)))
		fuzz_fail("%s of %u ranks: %s", sim_topo_kind_name[kind], s->nranks, path);
	cc_trace_init(&t);
	memset(&res, 0, sizeof(res));
	if ((rc = cc_sim_run(s, &o, &res)))
		fuzz_fail("simulator refused a schedule: %s", strerror(-rc));
	if (res.err.status != CC_RUN_OK || res.wrong)
		fuzz_fail("simulator: status %d, %llu wrong: %s", (int)res.err.status,
			  (unsigned long long)res.wrong, res.err.msg);
	if (!sim_physical(&net, f, &s->params, row.size, res.time_ps, sim_bound_ps(s, f, &net),
			  path, sizeof(path)))
		fuzz_fail("simulator: %s", path);
	bytes = calloc(s->nranks, sizeof(*bytes));
	if (!bytes)
		abort();
	for (uint32_t r = 0; r < s->nranks; r++)
		bytes[r] = res.rank[r].data_bytes;
	check_counts(s, bytes, "sim");
	row.time_us = (double)res.time_ps / 1e6;
	write_results(s, &row, bytes);
	free(bytes);
	snprintf(path, sizeof(path), "%s/trace.json", scratch);
	if ((rc = cc_trace_write_chrome(&t, path)))
		fuzz_fail("chrome trace writer: %s", strerror(-rc));
	snprintf(path, sizeof(path), "%s/trace.csv", scratch);
	if ((rc = cc_trace_write_csv(&t, path)))
		fuzz_fail("CSV trace writer: %s", strerror(-rc));
	cc_trace_free(&t);
	cc_sim_result_free(&res);
	sim_net_free(&net);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	struct cc_coll_params p;
	struct sim_params fabric;
	const char *const *presets = sim_params_preset_names();
	unsigned npresets = 0, preset, seed, order_seed, flags;
	struct cc_schedule *s;
	char err[512];

	params_from(&in, &p);
	seed = take(&in, 256);
	order_seed = take(&in, 256);
	flags = take(&in, 256);
	while (presets[npresets])
		npresets++;
	preset = take(&in, npresets);
	if (sim_params_preset(presets[preset], &fabric))
		fuzz_fail("preset %s", presets[preset]);
	/* As `cclab sim` builds: staging in host memory on a fabric without
	 * GPUDirect RDMA, which the simulator would refuse otherwise. */
	if (flags & 1)
		cc_sim_stage_for(&p, &fabric);

	if (too_big(&p))
		return 0;
	s = cc_build(&p, err, sizeof(err));
	if (!s) {
		if (errno == ENOMEM)
			fuzz_fail("cc_build: out of memory on a small schedule");
		return 0;
	}
	if (cc_schedule_validate(s, err, sizeof(err)))
		fuzz_fail("cc_build made an invalid schedule: %s", err);
	cc_schedule_print(devnull, s, -1);
	cc_schedule_print_primitives(devnull, s, -1);
	cc_print_primitives(devnull, &p, (int)(p.root % p.nranks));
	run_data(s, seed, order_seed);
	if (flags & 1)
		run_sim(s, &fabric, seed);
	cc_schedule_free(s);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	devnull = fopen("/dev/null", "w");
	scratch = fuzz_scratch();
	if (!devnull || !scratch)
		abort();
	return 0;
}
