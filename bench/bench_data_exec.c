/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_data_exec.c — how fast the data executor checks a collective:
 * builds a ring schedule, runs it, and reports ops executed, bytes moved,
 * wall seconds, ops per second and peak RSS.  Speed figures belong here, not
 * in the unit tests (docs/testing.md).
 *
 * usage: bench_data_exec [collective transport nranks bytes [slot_bytes]] ...
 *        default: a few representative rows (allreduce write_imm 8/33/64
 *        ranks at 64 MiB, tiny slots at 33 ranks, reduce-scatter, all-gather).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "core/algo.h"
#include "core/exec_data.h"

struct row {
	const char *coll, *transport;
	uint32_t nranks;
	uint64_t bytes, slot_bytes;
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static int run_row(const struct row *w)
{
	struct cc_coll_params p;
	char err[256];
	cc_coll_params_default(&p);
	if (cc_coll_parse(w->coll, &p.coll) || cc_transport_parse(w->transport, &p.transport)) {
		fprintf(stderr, "bench_data_exec: unknown collective or transport '%s %s'\n",
			w->coll, w->transport);
		return 2;
	}
	p.nranks = w->nranks;
	p.count = w->bytes / 4 / (p.coll == CC_ALLREDUCE ? 1 : w->nranks);
	if (w->slot_bytes) {
		p.slot_bytes = w->slot_bytes;
		p.chunk_bytes = 4 * w->slot_bytes;
	}
	double t0 = now();
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "bench_data_exec: %s\n", err);
		return 1;
	}
	double t1 = now();
	struct cc_data_opts o = { .seed = 1, .order_seed = 1 };
	struct cc_data_result res;
	if (cc_data_run(s, &o, &res)) {
		fprintf(stderr, "bench_data_exec: out of memory\n");
		cc_schedule_free(s);
		return 1;
	}
	double t2 = now();
	uint64_t ops = 0, bytes = 0;
	for (uint32_t r = 0; r < s->nranks; r++) {
		ops += res.ops_done[r];
		bytes += res.data_bytes[r];
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%-13s %-10s %5u %12" PRIu64 " %9" PRIu64 " %10" PRIu64 " %12" PRIu64
	       " %8.3f %8.3f %10.3g %8ld %6" PRIu64 "\n",
	       w->coll, w->transport, w->nranks, w->bytes, p.slot_bytes, ops, bytes, t1 - t0,
	       t2 - t1, ops / (t2 - t1), ru.ru_maxrss / 1024, res.wrong);
	int bad = res.err.status != CC_RUN_OK || res.wrong;
	cc_data_result_free(&res);
	cc_schedule_free(s);
	return bad;
}

int main(int argc, char **argv)
{
	static const struct row defaults[] = {
		{ "allreduce", "write_imm", 8, 64u << 20, 0 },
		{ "allreduce", "write_imm", 33, 64u << 20, 0 },
		{ "allreduce", "write_imm", 64, 64u << 20, 0 },
		{ "allreduce", "send_recv", 33, 1u << 20, 256 },
		{ "allreduce", "write_flag", 33, 1u << 20, 256 },
		{ "reducescatter", "write_imm", 33, 64u << 20, 0 },
		{ "allgather", "write_imm", 33, 64u << 20, 0 },
	};
	int rc = 0;
	printf("%-13s %-10s %5s %12s %9s %10s %12s %8s %8s %10s %8s %6s\n", "collective",
	       "transport", "ranks", "bytes", "slot", "ops", "data_bytes", "build_s", "run_s",
	       "ops/s", "rss_MiB", "wrong");
	if (argc > 1) {
		for (int i = 1; i + 3 < argc; i += 5) {
			struct row w = { argv[i], argv[i + 1], (uint32_t)strtoul(argv[i + 2], NULL, 0),
					 strtoull(argv[i + 3], NULL, 0),
					 i + 4 < argc ? strtoull(argv[i + 4], NULL, 0) : 0 };
			rc |= run_row(&w);
		}
		return rc;
	}
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		rc |= run_row(&defaults[i]);
	return rc;
}
