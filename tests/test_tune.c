/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_tune.c — `cclab tune`, run as a user would, on small
 * scenarios written into the test's temporary directory: who wins where on
 * ib-hdr (halving-doubling's fewer steps beat the ring at 4 B on a star of
 * 8, the ring's bandwidth wins at 4 MiB), every algorithm x protocol x
 * transport in the files, the winner and runner-up against the JSON's
 * times, the per-protocol columns and the protocol summary against the
 * CSV's, --all, candidates that are n/a (the topology or the collective),
 * each protocol's slot and chunk, runs that fail, byte-identical reruns,
 * and every way the command line or the scenario can be wrong — with no
 * output file left behind.
 *
 * The candidates are enumerated from the library's name tables
 * (core/schedule.h, core/proto.h), so another algorithm needs no change
 * here.  The binary's path comes from $CCLAB (tests/run.sh sets it);
 * without it every test here is skipped. */
#include <math.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/proto.h"
#include "core/schedule.h"
#include "tests/files.h"
#include "tests/run_cclab.h"
#include "util/units.h"

/* Candidates per algorithm, and in all: cli/tune.h's order. */
#define NPT (CC_PROTO_COUNT * CC_TRANSPORT_COUNT)
/* Every algorithm but nvls, nvlstree and collnetchain, which run on
 * NVSwitch hosts or SHARP switches only and are no candidates on these
 * topologies and fabrics (the last three in enum order). */
#define NALGOS (CC_ALGO_COUNT - 3)
#define NCAND (NALGOS * NPT)

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("tune");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

/* A scenario file in tmpdir: 8 ranks on `generator`, ib-hdr, allreduce,
 * 4 B to 4 MiB by 32 unless --set says otherwise (LL at 64 MiB would take
 * a minute).  Returns its path (a
 * static buffer per slot). */
static const char *scenario(const char *name, const char *generator)
{
	static char paths[4][128];
	static int slot;
	char *path = paths[slot++ % 4];
	FILE *f;

	snprintf(path, sizeof(paths[0]), "%s/%s.yaml", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "name: %s\n"
		   "topology: {generator: %s, ranks: 8}\n"
		   "fabric: {preset: ib-hdr}\n"
		   "collective: allreduce\n"
		   "algorithm: ring\n"
		   "transport: write_imm\n"
		   "sizes: {min: 4, max: 4MiB, factor: 32}\n"
		   "check: 1MiB\n",
		name, generator);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* The table row of `bytes` split at blanks: size, count, type, redop,
 * root, best, time, busbw, runner-up, time, margin, then the cells (F_*
 * index them).  Fails the test when there is no such row. */
enum { F_TYPE = 2, F_ROOT = 4, F_BEST, F_TIME, F_BUSBW, F_SECOND, F_TIME2, F_MARGIN, F_CELLS };
#define MAX_FIELDS (F_CELLS + NCAND + 1)
struct row {
	char buf[8192];
	char *f[MAX_FIELDS];
	char nccl[64]; /* NCCL's choice noted after the row, "" if none */
	int n;
};

static void row_of(const char *out, unsigned long long bytes, struct row *r)
{
	char head[32], *note;
	const char *p = out, *end;

	snprintf(head, sizeof(head), "%12llu ", bytes);
	while (p && strncmp(p, head, strlen(head)))
		if ((p = strchr(p, '\n')))
			p++;
	if (!p || !*p)
		fail_msg("no row for %llu bytes in:\n%s", bytes, out);
	end = strchr(p, '\n');
	snprintf(r->buf, sizeof(r->buf), "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
	/* the table's fields end where NCCL's choice is noted */
	if ((note = strstr(r->buf, "  # NCCL: "))) {
		snprintf(r->nccl, sizeof(r->nccl), "%s", note + strlen("  # NCCL: "));
		*note = '\0';
	} else {
		r->nccl[0] = '\0';
	}
	r->n = 0;
	for (char *s = strtok(r->buf, " "); s && r->n < MAX_FIELDS; s = strtok(NULL, " "))
		r->f[r->n++] = s;
	assert_true(r->n > F_CELLS);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* A candidate's time at `bytes` from the --csv file: NAN when it has none
 * (n/a); *best gets its best column.  Fails the test when the line is
 * missing. */
static double csv_time(const char *csv, unsigned long long bytes, const char *algo,
		       const char *proto, const char *transport, int *best)
{
	char key[128];
	const char *p;
	char *q;
	double t = NAN;

	snprintf(key, sizeof(key), "\n%llu,%s,%s,%s,", bytes, algo, proto, transport);
	p = strstr(csv, key);
	if (!p)
		fail_msg("no CSV line %s in:\n%s", key + 1, csv);
	p += strlen(key);
	if (*p != ',')
		t = strtod(p, &q);
	else
		q = (char *)p;
	q = strchr(q + 1, ','); /* past busbw */
	assert_non_null(q);
	if (best)
		*best = atoi(q + 1);
	return t;
}

/* The fastest time t1 of size `bytes` in the --csv file, every
 * candidate's line read; t2 the fastest of another algorithm or protocol
 * than t1's (the runner-up, cli/cmd_tune.c; the first in candidate order
 * on a tie, as there); the time of the line marked best, and how many
 * are. */
static void csv_fastest(const char *csv, unsigned long long bytes, double *t1, double *t2,
			double *best_t, int *nbest)
{
	char key[32], pair[NCAND][64];
	double time[NCAND];
	int n = 0, b = -1;
	const char *p = csv;

	*t1 = *t2 = *best_t = INFINITY;
	*nbest = 0;
	snprintf(key, sizeof(key), "\n%llu,", bytes);
	while ((p = strstr(p, key)) && n < NCAND) {
		const char *a = p + strlen(key), *f = strchr(strchr(a, ',') + 1, ',') + 1;
		char *end;

		p += strlen(key);
		f = strchr(f, ',') + 1; /* past algorithm, protocol, transport */
		if (*f == ',')
			continue; /* n/a */
		/* "algorithm,protocol," */
		snprintf(pair[n], sizeof(pair[n]), "%.*s", (int)(strchr(strchr(a, ',') + 1, ',') - a),
			 a);
		time[n] = strtod(f, &end);
		end = strchr(end + 1, ','); /* past busbw */
		if (atoi(end + 1)) {
			*best_t = time[n];
			++*nbest;
		}
		if (b < 0 || time[n] < time[b])
			b = n;
		n++;
	}
	if (b < 0)
		return;
	*t1 = time[b];
	for (int i = 0; i < n; i++)
		if (strcmp(pair[i], pair[b]) && time[i] < *t2)
			*t2 = time[i];
}

/* The fastest time of algorithm a with protocol pr at `bytes` over the
 * transports (NAN: none has a time), and through *tr which transport. */
static double csv_group(const char *csv, unsigned long long bytes, int a, int pr, int *tr)
{
	double best = NAN;

	for (int x = 0; x < CC_TRANSPORT_COUNT; x++) {
		double t = csv_time(csv, bytes, cc_algo_name[a], cc_proto_name[pr],
				    cc_transport_name[x], NULL);

		if (!isnan(t) && (isnan(best) || t < best)) {
			best = t;
			if (tr)
				*tr = x;
		}
	}
	return best;
}

/* The printed time `s` (nccl-tests' three precisions) is `t`. */
static void assert_time(const char *s, double t)
{
	if (fabs(strtod(s, NULL) - t) > t * 0.0005 + 0.005)
		fail_msg("printed %s, expected %f", s, t);
}

/* Every algorithm's "# ALGO protocols:" line as the CSV says it should
 * be: over consecutive sizes, the protocol of its fastest run (the first
 * in candidate order on a tie), sizes as cc_format_bytes() writes them. */
static void expect_protocols(const char *out, const char *csv, const unsigned long long *sizes,
			     int n)
{
	for (int a = 0; a < NALGOS; a++) {
		char want[1024], lo[CC_FMT_BYTES_LEN], hi[CC_FMT_BYTES_LEN];
		int fast[16], len;
		bool any = false;

		assert_true(n <= 16);
		len = snprintf(want, sizeof(want), "\n# %s protocols:", cc_algo_name[a]);
		for (int i = 0; i < n; i++) {
			double best = NAN;

			fast[i] = -1;
			for (int pr = 0; pr < CC_PROTO_COUNT; pr++) {
				double t = csv_group(csv, sizes[i], a, pr, NULL);

				if (!isnan(t) && (isnan(best) || t < best)) {
					best = t;
					fast[i] = pr;
				}
			}
		}
		for (int i = 0, e; i < n; i = e) {
			e = i + 1;
			if (fast[i] < 0)
				continue;
			while (e < n && fast[e] == fast[i])
				e++;
			len += snprintf(want + len, sizeof(want) - len, "%s %s %s", any ? "," : "",
					cc_proto_name[fast[i]], cc_format_bytes(lo, sizeof(lo), sizes[i]));
			if (e - 1 > i)
				len += snprintf(want + len, sizeof(want) - len, "..%s",
						cc_format_bytes(hi, sizeof(hi), sizes[e - 1]));
			any = true;
		}
		snprintf(want + len, sizeof(want) - len, "%s\n", any ? "" : " no size");
		if (!strstr(out, want))
			fail_msg("no line '%s' in:\n%s", want + 1, out);
	}
}

/* The time_us of the object at p ("best" or "runner_up"), with its
 * algorithm and protocol; false for null. */
static bool json_pick(const char *p, char *algo, char *proto, double *t)
{
	if (starts(p, "null"))
		return false;
	assert_int_equal(sscanf(p, "{ \"algorithm\": \"%31[^\"]\", \"protocol\": \"%15[^\"]\"",
				algo, proto), 2);
	p = strstr(p, "\"time_us\": ");
	assert_non_null(p);
	*t = strtod(p + strlen("\"time_us\": "), NULL);
	return true;
}

/* Each size of the --json file: times[] holds every candidate, best's
 * time is their minimum and runner_up's the minimum of those of another
 * algorithm or protocol, exactly (the same doubles, written the same
 * way).  Returns how many sizes there are. */
static int json_check_sizes(const char *j)
{
	static const char key[] = "\n    {\n      \"bytes\": ";
	int nsizes = 0;

	for (const char *p = strstr(j, key); p; nsizes++) {
		const char *next = strstr(p + 1, key), *q = strstr(p, "\"times\": [");
		char algo[NCAND][32], proto[NCAND][16], ba[32], bp[16], sa[32], sp[16];
		double t[NCAND], bt, st, min = INFINITY, min2 = INFINITY;
		int n = 0, b = -1;
		bool have_best, have_second;

		assert_non_null(q);
		while ((q = strstr(q, "\"algorithm\": \"")) && (!next || q < next)) {
			assert_true(n < NCAND);
			assert_int_equal(sscanf(q, "\"algorithm\": \"%31[^\"]\", \"protocol\": "
						"\"%15[^\"]\"", algo[n], proto[n]), 2);
			q = strstr(q, "\"time_us\": ") + strlen("\"time_us\": ");
			t[n] = starts(q, "null") ? NAN : strtod(q, NULL);
			if (!isnan(t[n]) && t[n] < min) {
				min = t[n];
				b = n;
			}
			n++;
		}
		assert_int_equal(n, NCAND);
		for (int i = 0; i < n; i++)
			if (b >= 0 && !isnan(t[i]) && t[i] < min2 &&
			    (strcmp(algo[i], algo[b]) || strcmp(proto[i], proto[b])))
				min2 = t[i];
		have_best = json_pick(strstr(p, "\"best\": ") + strlen("\"best\": "), ba, bp, &bt);
		have_second = json_pick(strstr(p, "\"runner_up\": ") + strlen("\"runner_up\": "), sa,
					sp, &st);
		assert_int_equal(have_best, b >= 0);
		if (have_best)
			assert_true(bt == min);
		assert_int_equal(have_second, min2 != INFINITY);
		if (have_second) {
			assert_true(st == min2);
			assert_true(strcmp(sa, ba) || strcmp(sp, bp));
		}
		p = next;
	}
	return nsizes;
}

static void test_help(void **state)
{
	(void)state;
	need_cclab();
	struct run r = run_cclab("tune --help");

	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Usage: cclab tune SCENARIO.yaml [--set KEY=VALUE]..."));
	assert_non_null(strstr(r.out, "\n       cclab tune -n K [-c COLL] [-b MIN] [-e MAX] [-f F]"));
	assert_non_null(strstr(r.out, "every algorithm x protocol x transport"));
	assert_non_null(strstr(r.out, "--json FILE"));
	assert_non_null(strstr(r.out, "--csv FILE"));
	assert_non_null(strstr(r.out, "--all "));
	run_free(&r);
	r = run_cclab("help");
	assert_non_null(strstr(r.out, "\n  tune SCENARIO "));
	assert_non_null(strstr(r.out, "\n  tune -n K "));
	run_free(&r);
	r = run_cclab("help tune");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Usage: cclab tune"));
	run_free(&r);
}

/* The default scenario's sizes. */
static const unsigned long long star_sizes[] = {4, 128, 4096, 131072, 4ull << 20};
#define NSTAR ((int)(sizeof(star_sizes) / sizeof(star_sizes[0])))

/* ib-hdr, star of 8, the Simple protocol: at 4 B the 2 log2(8) = 6 swaps
 * of halving-doubling (about 45 us) beat the ring's 2k-1 = 15 steps
 * (about 79 us); at 4 MiB the ring (about 448 us) beats
 * halving-doubling (about 502 us). */
static void test_star(void **state)
{
	char json[160], csv[160];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-star", "star");
	path_of(json, sizeof(json), "star.json");
	path_of(csv, sizeof(csv), "star.csv");
	struct run r = run_cclab("tune %s --json %s --csv %s", sc, json, csv);
	char *j = text_of(json), *c = text_of(csv);
	struct row row;
	char want[256];
	int best;

	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "# cclab 0.1.0 tune: allreduce, every algorithm x protocol x "
				      "transport, 8 ranks, type float, redop sum\n"));
	assert_non_null(strstr(r.out, "# minBytes 4 maxBytes 4194304 step: 32(factor) "
				      "validation: 0\n"));
	assert_non_null(strstr(r.out, "# fabric: ib-hdr  topology: star  link: ib 200 Gb/s"));
	/* Each protocol's NCCL slot and chunk (core/proto.h). */
	assert_non_null(strstr(r.out, "# slots: 8  chunk and slot: NCCL's defaults for each "
				      "protocol\n"
				      "#   simple  chunk: 2MiB (2097152 B)  slot: 512KiB (524288 B)\n"
				      "#   ll      chunk: 32KiB (32768 B)  slot: 32KiB (32768 B); "));
	assert_non_null(strstr(r.out, "\n#   ll128   chunk: 562.5KiB (576000 B)  slot: 562.5KiB "
				      "(576000 B); "));
	assert_non_null(strstr(r.out, "# timing only: no data carried"));
	snprintf(want, sizeof(want), "# candidates: %d, algorithm/protocol/transport: {ring, "
		 "halving-doubling, ", NCAND);
	assert_non_null(strstr(r.out, want));
	assert_non_null(strstr(r.out, "} x {simple, ll, ll128} x {write_imm, send_recv, "
				      "write_flag}\n"));
	/* one-GPU hosts: hierarchical would be the flat ring again */
	assert_non_null(strstr(r.out, "\n# n/a: hierarchical/*: one GPU per host: hierarchical is "
				      "the ring\n"));
	assert_non_null(strstr(r.out, "\n#       size         count      type   redop    root  "));
	assert_non_null(strstr(r.out, "   simple       ll    ll128   simple       ll    ll128"));
	assert_non_null(strstr(r.out, " ring ---"));
	assert_non_null(strstr(r.out, "# Out of bounds values : 0 OK\n"));
	assert_int_equal(count_rows(r.out), NSTAR);

	double hd4 = csv_time(c, 4, "halving-doubling", "simple", "write_imm", NULL);
	double ring4 = csv_time(c, 4, "ring", "simple", "write_imm", NULL);
	double hd4m = csv_time(c, 4 << 20, "halving-doubling", "simple", "write_imm", NULL);
	double ring4m = csv_time(c, 4 << 20, "ring", "simple", "write_imm", NULL);

	/* docs/schedule.md's halving-doubling figures: 45 and 79 us at 4 B,
	 * 502 and 448 us at 4 MiB (A100: the ring's 14 receives each pay the
	 * GDR flush and the proxy's plugin calls, halving-doubling's 6) */
	assert_true(hd4 > 38 && hd4 < 52);
	assert_true(ring4 > 68 && ring4 < 90);
	assert_true(ring4m > 400 && ring4m < 490);
	assert_true(hd4m > 420 && hd4m < 520);
	assert_true(ring4m < hd4m);

	row_of(r.out, 4, &row);
	assert_string_equal(row.f[1], "1");
	assert_string_equal(row.f[F_TYPE], "float");
	assert_string_equal(row.f[F_TYPE + 1], "sum");
	assert_string_equal(row.f[F_ROOT], "-1");
	assert_int_equal(row.n, F_CELLS + NALGOS * CC_PROTO_COUNT);
	/* NCCL's own choice at 4 B on 8 one-GPU nodes (2.30, ppn 1: the
	 * network hops take the tree's NET latency): Tree/LL 6.8 + 2 x 3 x
	 * 5.0 = 36.8 us against Ring/LL 6.6 + 14 x 5.0 = 76.6 us; one
	 * channel left at this size. */
	assert_string_equal(row.nccl, "Tree/LL 1ch");
	assert_non_null(strstr(r.out, "# after each row, NCCL 2.30.7's own choice at that size"));
	/* No ring wins at 4 B. */
	assert_false(starts(row.f[F_BEST], "ring/"));
	assert_true(strtod(row.f[F_TIME], NULL) <= hd4 + 0.005);
	row_of(r.out, 4 << 20, &row);
	assert_string_equal(row.f[1], "1048576");
	/* Simple's large slots win at 4 MiB, and not with halving-doubling. */
	assert_non_null(strstr(row.f[F_BEST], "/simple/"));
	assert_false(starts(row.f[F_BEST], "halving-doubling/"));
	csv_time(c, 4 << 20, "halving-doubling", "simple", "write_imm", &best);
	assert_int_equal(best, 0);
	assert_non_null(strstr(r.out, "\n# ring wins:"));
	assert_non_null(strstr(r.out, "4194304 bytes (simple/"));
	assert_non_null(strstr(r.out, "\n# halving-doubling wins: "));

	/* Each row: its time is the fastest of the CSV's, exactly one CSV
	 * line of the size says best (that one), the margin is its ratio to
	 * the fastest of another algorithm or protocol, and each column is
	 * the fastest of its algorithm and protocol over the transports. */
	for (int i = 0; i < NSTAR; i++) {
		double t1, t2, best_t;
		int nbest;

		row_of(r.out, star_sizes[i], &row);
		csv_fastest(c, star_sizes[i], &t1, &t2, &best_t, &nbest);
		assert_int_equal(nbest, 1);
		assert_true(best_t == t1);
		assert_time(row.f[F_TIME], t1);
		assert_time(row.f[F_TIME2], t2);
		assert_true(fabs(strtod(row.f[F_MARGIN], NULL) - (t2 / t1 - 1) * 100) < 0.0051);
		for (int a = 0; a < NALGOS; a++)
			for (int pr = 0; pr < CC_PROTO_COUNT; pr++) {
				double g = csv_group(c, star_sizes[i], a, pr, NULL);
				const char *cell = row.f[F_CELLS + a * CC_PROTO_COUNT + pr];

				if (isnan(g))
					assert_string_equal(cell, "n/a");
				else
					assert_time(cell, g);
			}
	}
	expect_protocols(r.out, c, star_sizes, NSTAR);

	/* The JSON: every candidate, by name and in the CSV; best and
	 * runner-up exactly the minima of the times. */
	assert_int_equal(json_check_sizes(j), NSTAR);
	assert_int_equal(count_substr(j, "\"name\": "), NCAND);
	for (int a = 0; a < NALGOS; a++)
		for (int pr = 0; pr < CC_PROTO_COUNT; pr++)
			for (int tr = 0; tr < CC_TRANSPORT_COUNT; tr++) {
				snprintf(want, sizeof(want), "\"name\": \"%s/%s/%s\"", cc_algo_name[a],
					 cc_proto_name[pr], cc_transport_name[tr]);
				assert_non_null(strstr(j, want));
				for (int i = 0; i < NSTAR; i++)
					csv_time(c, star_sizes[i], cc_algo_name[a], cc_proto_name[pr],
						 cc_transport_name[tr], NULL);
			}
	assert_int_equal(count_substr(c, "\n"), 1 + NSTAR * NCAND);

	/* The JSON's keys. */
	assert_non_null(strstr(j, "\"cclab_version\": \"0.1.0\""));
	assert_non_null(strstr(j, "\"command\": \"tune\""));
	assert_non_null(strstr(j, "\"scenario\": \"tune-star\""));
	assert_non_null(strstr(j, "\"fabric\": \"ib-hdr\""));
	assert_non_null(strstr(j, "\"topology\": \"star\""));
	assert_non_null(strstr(j, "\"collective\": \"allreduce\""));
	assert_non_null(strstr(j, "\"nranks\": 8"));
	assert_non_null(strstr(j, "\"nslots\": 8,\n  \"protocols\": [\n    {\n"
				  "      \"protocol\": \"simple\",\n      \"slot_bytes\": 524288,\n"
				  "      \"chunk_bytes\": 2097152\n    },\n    {\n"
				  "      \"protocol\": \"ll\",\n      \"slot_bytes\": 32768,\n"
				  "      \"chunk_bytes\": 32768\n    },"));
	assert_non_null(strstr(j, "  ],\n  \"tree_chunk_per_size\": true,\n  \"candidates\": ["));
	assert_non_null(strstr(j, "\"candidates\": [\n    {\n      \"name\": \"ring/simple/write_imm\",\n"
				  "      \"algorithm\": \"ring\",\n      \"protocol\": \"simple\",\n"
				  "      \"transport\": \"write_imm\",\n      \"channels\": 1,\n"
				  "      \"ring_order\": \"rank\",\n      \"applicable\": true,\n"
				  "      \"reason\": null\n    },"));
	assert_non_null(strstr(j, "\"sizes\": [\n    {\n      \"bytes\": 4,\n      \"count\": 1,\n"
				  "      \"best\": {\n        \"algorithm\": "));
	assert_non_null(strstr(j, "\"runner_up\": {"));
	assert_non_null(strstr(j, "\"margin_pct\": "));
	assert_non_null(strstr(j, "\"times\": [\n"));
	assert_non_null(strstr(j, "\"time_us\": "));
	assert_non_null(strstr(j, "\"busbw_gbps\": "));
	assert_non_null(strstr(j, "\"bytes\": 4194304,\n      \"count\": 1048576,\n"
				  "      \"best\": {\n        \"algorithm\": "));
	assert_non_null(strstr(j, "\"ok\": true\n}\n"));
	assert_true(starts(c, "size_bytes,algorithm,protocol,transport,time_us,busbw_gbps,best,"
			   "channels,ring_order\n"));
	free(j);
	free(c);
	run_free(&r);
}

/* --all: a column per candidate, each the CSV's time; the files are the
 * same bytes as without it.  The scenario's slot_bytes and chunk_bytes
 * hold for every protocol. */
static void test_all(void **state)
{
	char j1[160], j2[160], c1[160], c2[160];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-all", "star");
	path_of(j1, sizeof(j1), "all1.json");
	path_of(j2, sizeof(j2), "all2.json");
	path_of(c1, sizeof(c1), "all1.csv");
	path_of(c2, sizeof(c2), "all2.csv");
	struct run a = run_cclab("tune %s --set sizes.max=4KiB --all --json %s --csv %s", sc, j1,
				 c1);
	struct run b = run_cclab("tune %s --set sizes.max=4KiB --json %s --csv %s", sc, j2, c2);
	char *ja = text_of(j1), *jb = text_of(j2), *ca = text_of(c1), *cb = text_of(c2);
	static const unsigned long long sizes[] = {4, 128, 4096};
	struct row row;

	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	assert_string_equal(ja, jb);
	assert_string_equal(ca, cb);
	assert_non_null(strstr(a.out, "simple/write_imm   simple/send_recv  simple/write_flag"));
	assert_non_null(strstr(a.out, "ll128/write_flag"));
	assert_non_null(strstr(a.out, "; then each candidate's time (us)\n"));
	assert_non_null(strstr(b.out, "; then per algorithm and protocol the fastest transport's "
				      "time (us)\n"));
	assert_int_equal(count_rows(a.out), 3);
	for (size_t i = 0; i < 3; i++) {
		row_of(a.out, sizes[i], &row);
		assert_int_equal(row.n, F_CELLS + NCAND);
		for (int x = 0; x < NCAND; x++) {
			double t = csv_time(ca, sizes[i], cc_algo_name[x / NPT],
					    cc_proto_name[x / CC_TRANSPORT_COUNT % CC_PROTO_COUNT],
					    cc_transport_name[x % CC_TRANSPORT_COUNT], NULL);

			if (isnan(t))
				assert_string_equal(row.f[F_CELLS + x], "n/a");
			else
				assert_time(row.f[F_CELLS + x], t);
		}
	}
	expect_protocols(a.out, ca, sizes, 3);
	run_free(&a);
	run_free(&b);

	/* A slot and a chunk given: every protocol's. */
	a = run_cclab("tune %s --set sizes.max=4 --set slot_bytes=8KiB --set chunk_bytes=16KiB "
		      "--json %s", sc, j1);
	free(ja);
	ja = text_of(j1);
	assert_int_equal(a.status, 0);
	assert_non_null(strstr(a.out, "# slots: 8  chunk and slot: the scenario's, for every "
				      "protocol\n"
				      "#   simple  chunk: 16KiB (16384 B)  slot: 8KiB (8192 B)\n"
				      "#   ll      chunk: 16KiB (16384 B)  slot: 8KiB (8192 B); "));
	assert_non_null(strstr(ja, "\"protocol\": \"ll128\",\n      \"slot_bytes\": 8192,\n"
				   "      \"chunk_bytes\": 16384\n"));
	run_free(&a);
	free(ja);
	free(jb);
	free(ca);
	free(cb);
}

/* On a ring topology only neighbours are cabled: halving-doubling's
 * partners at distance 2 and 4 are not, so it is n/a with every protocol
 * — and the ring wins every size, its runner-up another protocol or
 * another algorithm that runs on a ring. */
static void test_ring_topology(void **state)
{
	char json[160], csv[160];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-ring", "ring");
	path_of(json, sizeof(json), "ring.json");
	path_of(csv, sizeof(csv), "ring.csv");
	struct run r = run_cclab("tune %s --json %s --csv %s", sc, json, csv);
	char *j = text_of(json), *c = text_of(csv);
	struct row row;

	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "# n/a: halving-doubling/*"));
	assert_non_null(strstr(r.out, ": the ring topology cannot carry this schedule (a queue "
				      "pair joins ranks it does not connect)\n"));
	assert_int_equal(count_rows(r.out), NSTAR);
	for (int i = 0; i < NSTAR; i++) {
		row_of(r.out, star_sizes[i], &row);
		assert_true(starts(row.f[F_BEST], "ring/"));
		assert_string_not_equal(row.f[F_SECOND], "n/a");
		assert_string_not_equal(row.f[F_MARGIN], "n/a");
		/* ring's three protocols, then halving-doubling's n/a */
		for (int k = 0; k < CC_PROTO_COUNT; k++) {
			assert_string_not_equal(row.f[F_CELLS + k], "n/a");
			assert_string_equal(row.f[F_CELLS + CC_PROTO_COUNT + k], "n/a");
		}
		assert_true(isnan(csv_time(c, star_sizes[i], "halving-doubling", "ll", "send_recv",
					   NULL)));
		assert_false(isnan(csv_time(c, star_sizes[i], "ring", "ll128", "write_flag", NULL)));
	}
	assert_int_equal(json_check_sizes(j), NSTAR);
	expect_protocols(r.out, c, star_sizes, NSTAR);
	assert_non_null(strstr(r.out, "\n# ring wins: 4..4194304 bytes ("));
	assert_non_null(strstr(r.out, "\n# halving-doubling wins: no size\n"));
	assert_non_null(strstr(r.out, "\n# halving-doubling protocols: no size\n"));
	assert_non_null(strstr(j, "\"algorithm\": \"halving-doubling\",\n"
				  "      \"protocol\": \"simple\",\n"
				  "      \"transport\": \"write_imm\",\n"
				  "      \"channels\": 1,\n"
				  "      \"ring_order\": null,\n"
				  "      \"applicable\": false,\n"
				  "      \"reason\": \"the ring topology cannot carry this schedule"));
	assert_non_null(strstr(j, "\"algorithm\": \"halving-doubling\",\n"
				  "          \"protocol\": \"ll128\",\n"
				  "          \"transport\": \"write_flag\",\n"
				  "          \"channels\": 1,\n          \"ring_order\": null,\n"
				  "          \"time_us\": null,\n          \"status\": \"n/a\""));
	free(j);
	free(c);
	run_free(&r);
}

/* halving-doubling builds allreduce only: for reduce-scatter it is n/a at
 * every size, with the algorithm's own reason, and ring runs everywhere.
 * The scenario's slot_bytes holds for every protocol, each with NCCL's
 * slots per chunk. */
static void test_reducescatter(void **state)
{
	char json[160], csv[160];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-rs", "star");
	path_of(json, sizeof(json), "rs.json");
	path_of(csv, sizeof(csv), "rs.csv");
	struct run r = run_cclab("tune %s --set collective=reducescatter --set sizes.min=1KiB "
				 "--set sizes.max=1MiB --set sizes.factor=32 --set slot_bytes=64KiB "
				 "--json %s --csv %s", sc, json, csv);
	char *j = text_of(json), *c = text_of(csv);

	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "tune: reducescatter, every algorithm x protocol x transport, "
				      "8 ranks"));
	assert_non_null(strstr(r.out, "# n/a: halving-doubling/*: algorithm halving-doubling "
				      "does not build reducescatter (ring, direct or nvls)"));
	assert_non_null(strstr(r.out, "# slots: 8  chunk and slot: the scenario's slot; NCCL's "
				      "slots per chunk for each protocol\n"
				      "#   simple  chunk: 256KiB (262144 B)  slot: 64KiB (65536 B)\n"
				      "#   ll      chunk: 64KiB (65536 B)  slot: 64KiB (65536 B); "));
	assert_int_equal(count_rows(r.out), 3); /* 1 KiB, 32 KiB, 1 MiB */
	static const unsigned long long sizes[] = {1024, 32768, 1 << 20};
	for (size_t i = 0; i < 3; i++)
		for (int pr = 0; pr < CC_PROTO_COUNT; pr++)
			for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
				assert_false(isnan(csv_time(c, sizes[i], "ring", cc_proto_name[pr],
							    cc_transport_name[t], NULL)));
				assert_true(isnan(csv_time(c, sizes[i], "halving-doubling",
							   cc_proto_name[pr], cc_transport_name[t],
							   NULL)));
			}
	/* halving-doubling's candidates are not applicable, the ring's are. */
	assert_int_equal(count_substr(j, "\"algorithm\": \"halving-doubling\",\n      "
					 "\"protocol\": "), NPT);
	assert_int_equal(count_substr(j, "\"applicable\": false,\n      \"reason\": \"algorithm "
					 "halving-doubling does not build reducescatter"), NPT);
	assert_int_equal(count_substr(j, "\"algorithm\": \"ring\",\n      \"protocol\": "), NPT);
	for (int pr = 0; pr < CC_PROTO_COUNT; pr++)
		for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
			char want[256];

			snprintf(want, sizeof(want), "\"algorithm\": \"ring\",\n      \"protocol\": "
				 "\"%s\",\n      \"transport\": \"%s\",\n      \"channels\": 1,\n"
				 "      \"ring_order\": \"rank\",\n      \"applicable\": true,\n"
				 "      \"reason\": null\n", cc_proto_name[pr], cc_transport_name[t]);
			assert_non_null(strstr(j, want));
		}
	assert_non_null(strstr(j, "\"collective\": \"reducescatter\""));
	assert_non_null(strstr(j, "\"protocol\": \"simple\",\n      \"slot_bytes\": 65536,\n"
				  "      \"chunk_bytes\": 262144\n"));
	assert_int_equal(json_check_sizes(j), 3);
	free(j);
	free(c);
	run_free(&r);
}

/* Every packet lost: each run ends in IBV_WC_RETRY_EXC_ERR.  Each is
 * named on stderr, its cell says failed, no size has a winner, the files
 * are still written (saying so), and the exit status is 1. */
static void test_failed_runs(void **state)
{
	char json[160], csv[160];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-lossy", "star");
	path_of(json, sizeof(json), "lossy.json");
	path_of(csv, sizeof(csv), "lossy.csv");
	struct run r = run_cclab("tune %s --set sizes.max=4 --set fabric.link.loss_ppb=1000000000 "
				 "--json %s --csv %s", sc, json, csv);
	char *j = text_of(json), *c = text_of(csv);
	struct row row;

	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cclab tune: 4 bytes: ring/simple/write_imm: "
				      "completion_error: "));
	assert_non_null(strstr(r.err, "cclab tune: 4 bytes: ring/ll128/write_flag: "));
	assert_non_null(strstr(r.err, "IBV_WC_RETRY_EXC_ERR"));
	/* every run but hierarchical's, n/a on one-GPU hosts */
	assert_int_equal(count_lines_starting(r.err, "cclab tune: 4 bytes: "),
			 count_substr(c, "\n4,") - count_substr(c, "\n4,hierarchical,"));
	row_of(r.out, 4, &row);
	assert_string_equal(row.f[F_BEST], "n/a");
	assert_string_equal(row.f[F_SECOND], "n/a");
	for (int i = F_CELLS; i < row.n; i++)
		assert_string_equal(row.f[i], i < row.n - 3 ? "failed" : "n/a");
	assert_non_null(strstr(r.out, "\n# ring wins: no size\n"));
	assert_non_null(strstr(r.out, "\n# ring protocols: no size\n"));
	assert_null(strstr(r.out, "# Out of bounds values : 0 OK"));
	assert_non_null(strstr(j, "\"best\": null,\n      \"runner_up\": null,\n"
				  "      \"margin_pct\": null,"));
	assert_non_null(strstr(j, "\"status\": \"completion_error\""));
	assert_non_null(strstr(j, "\"ok\": false\n}\n"));
	assert_non_null(strstr(c, "\n4,ring,simple,write_imm,,,0,1,rank\n"));
	assert_non_null(strstr(c, "\n4,ring,ll,send_recv,,,0,1,rank\n"));
	free(j);
	free(c);
	run_free(&r);
}

/* The same scenario twice: the same bytes on stdout and in both files. */
static void expect_refused(int status, const char *pattern, const char *args);

static void test_deterministic(void **state)
{
	char j1[160], j2[160], c1[160], c2[160];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-det", "star");
	path_of(j1, sizeof(j1), "d1.json");
	path_of(j2, sizeof(j2), "d2.json");
	path_of(c1, sizeof(c1), "d1.csv");
	path_of(c2, sizeof(c2), "d2.csv");
	/* One run at a time, then three at once: the same bytes. */
	struct run a = run_cclab("tune %s --set sizes.max=1MiB --set sizes.factor=16 --json %s "
				 "--csv %s --jobs 1", sc, j1, c1);
	struct run b = run_cclab("tune %s --set sizes.max=1MiB --set sizes.factor=16 --json=%s "
				 "--csv=%s --jobs=3", sc, j2, c2);
	char *ja = text_of(j1), *jb = text_of(j2), *ca = text_of(c1), *cb = text_of(c2);

	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	assert_string_equal(a.out, b.out);
	assert_true(strlen(ja) > 100);
	assert_string_equal(ja, jb);
	assert_true(strlen(ca) > 100);
	assert_string_equal(ca, cb);
	free(ja);
	free(jb);
	free(ca);
	free(cb);
	run_free(&a);
	run_free(&b);

	/* Failed runs are named on stderr in candidate order, however many
	 * run at once. */
	const char *lossy = "--set sizes.max=4 --set fabric.link.loss_ppb=1000000000";
	a = run_cclab("tune %s %s --jobs 1", sc, lossy);
	b = run_cclab("tune %s %s --jobs 4", sc, lossy);
	assert_int_equal(a.status, 1);
	assert_int_equal(b.status, 1);
	assert_true(count_lines_starting(a.err, "cclab tune: 4 bytes: ") > 10);
	assert_string_equal(a.err, b.err);
	assert_string_equal(a.out, b.out);
	run_free(&a);
	run_free(&b);
	expect_refused(2, "invalid value '0' for --jobs", "tune x.yaml --jobs 0");
	expect_refused(2, "invalid value '257' for --jobs", "tune x.yaml --jobs 257");
	expect_refused(2, "invalid value '2x' for --jobs", "tune x.yaml --jobs 2x");
}

/* Exit `status` with nothing on stdout and stderr matching `pattern`. */
static void expect_refused(int status, const char *pattern, const char *args)
{
	regex_t re;
	struct run r = run_cclab("%s", args);

	assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	if (r.status != status || regexec(&re, r.err, 0, NULL, 0))
		fail_msg("%s: status %d, stderr '%s', wanted %d and /%s/", args, r.status, r.err,
			 status, pattern);
	assert_string_equal(r.out, "");
	regfree(&re);
	run_free(&r);
}

static void test_errors(void **state)
{
	char args[512], p2p[160], bad[160];
	FILE *f;

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-err", "star");

	expect_refused(2, "cannot read: No such file", "tune /nonexistent/tune.yaml");

	path_of(bad, sizeof(bad), "bad.yaml");
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("name: bad\ntopology: {generator: star, ranks: 8}\ncollective: allreduce\n"
	      "sizes: {min: 4, max: 64, factr: 4}\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(args, sizeof(args), "tune %s", bad);
	expect_refused(2, "^cclab tune: .*bad\\.yaml:4:[0-9]+: unknown key 'factr'", args);

	path_of(p2p, sizeof(p2p), "p2p.yaml");
	f = fopen(p2p, "w");
	assert_non_null(f);
	fputs("name: p2p\ntopology: {generator: star, ranks: 2}\nfabric: {preset: roce-100g}\n"
	      "p2p: {op: write, mode: lat}\nsizes: {min: 8, max: 64, factor: 2}\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(args, sizeof(args), "tune %s", p2p);
	expect_refused(2, "p2p\\.yaml: tune compares collective algorithms; this scenario is a "
		       "p2p test", args);

	snprintf(args, sizeof(args), "tune %s --frobnicate", sc);
	expect_refused(2, "unknown or ambiguous option '--frobnicate'\nTry 'cclab tune --help'\\.",
		       args);
	expect_refused(2, "expected a scenario file \\(cclab tune SCENARIO\\.yaml\\), or sim's "
		       "options \\(cclab tune -n K \\.\\.\\.\\)", "tune");
	snprintf(args, sizeof(args), "tune %s %s", sc, sc);
	expect_refused(2, "unexpected argument", args);
	snprintf(args, sizeof(args), "tune %s --json", sc);
	expect_refused(2, "option '--json' needs a value", args);
	snprintf(args, sizeof(args), "tune %s --all=1", sc);
	expect_refused(2, "option '--all=1' takes no value", args);
	snprintf(args, sizeof(args), "tune %s --json x.out --csv x.out", sc);
	expect_refused(2, "--json and --csv name the same file", args);
	snprintf(args, sizeof(args), "tune %s --set sizes.max=lots", sc);
	expect_refused(2, "--set sizes\\.max=lots.*not a size", args);
}

/* The table's lines (the rows and the summary), without the preamble,
 * which names the scenario; malloc'd. */
static char *table_of(const char *out)
{
	char *t = calloc(1, strlen(out) + 1), *o = t;

	assert_non_null(t);
	for (const char *p = out; *p; ) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p + 1) : strlen(p);
		char *line = strndup(p, n);

		assert_non_null(line);
		if (*p != '#' || strstr(line, " wins: ") || strstr(line, " protocols: "))
			o += sprintf(o, "%s", line);
		free(line);
		p += n;
	}
	assert_non_null(strstr(t, " wins: "));
	return t;
}

/* A --json file without its "scenario" member (the file's name, or null
 * for sim's options); malloc'd. */
static char *json_but_scenario(const char *path)
{
	char *j = text_of(path), *at = strstr(j, "\n  \"scenario\": "), *end;

	assert_non_null(at);
	end = strchr(at + 1, '\n');
	assert_non_null(end);
	memmove(at, end, strlen(end) + 1);
	return j;
}

/* issue 29: without a scenario, sim's options make the setting as `cclab
 * sim` makes it, and the table is the one of the scenario that says the
 * same, row for row and in --json: the fastest candidate, its time, the
 * runner-up, every cell. */
static void test_options_as_sim(void **state)
{
	static const struct {
		const char *opts, *yaml;
		unsigned long long bytes;
	} same[] = {
		{"-n 8 -b 1M -e 1M",
		 "topology: {generator: star, ranks: 8}\ncollective: allreduce\n"
		 "sizes: {min: 1MiB, max: 1MiB}\n", 1ull << 20},
		{"-n 4 -c reducescatter -b 64K -e 256K -f 4 --fabric roce-100g --topology ring "
		 "--chunk-bytes 128K --seed 7 -d half --channels 1,2",
		 "topology: {generator: ring, ranks: 4}\nfabric: {preset: roce-100g}\n"
		 "collective: reducescatter\nsizes: {min: 64KiB, max: 256KiB, factor: 4}\n"
		 "chunk_bytes: 128KiB\nseed: 7\ndtype: half\n", 256ull << 10},
		/* nodes of 4 GPUs: the hierarchical algorithm and the rail ring */
		{"-n 8 --ranks-per-node 4 --topology railopt -b 4K -e 4K",
		 "topology: {generator: railopt, nodes: 2, gpus_per_node: 4, spines: 1}\n"
		 "collective: allreduce\nsizes: 4KiB\n", 4096},
	};

	(void)state;
	need_cclab();
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		char sc[160], js[160], jo[160], name[32];
		struct row a, b;
		FILE *f;

		snprintf(name, sizeof(name), "same%zu.yaml", i);
		path_of(sc, sizeof(sc), name);
		path_of(js, sizeof(js), "same-sc.json");
		path_of(jo, sizeof(jo), "same-opts.json");
		f = fopen(sc, "w");
		assert_non_null(f);
		fputs(same[i].yaml, f);
		assert_int_equal(fclose(f), 0);
		/* --channels goes with either */
		struct run rs = run_cclab("tune %s --json %s%s", sc, js,
					  strstr(same[i].opts, "--channels") ? " --channels 1,2" : "");
		struct run ro = run_cclab("tune %s --json %s", same[i].opts, jo);

		if (rs.status || ro.status)
			fail_msg("#%zu: status %d and %d:\n%s\n%s", i, rs.status, ro.status, rs.err,
				 ro.err);
		assert_non_null(strstr(ro.out, "\n# scenario: none, the options as 'cclab sim' "
					       "takes them\n"));
		char *ts = table_of(rs.out), *to = table_of(ro.out);

		assert_string_equal(ts, to);
		row_of(rs.out, same[i].bytes, &a);
		row_of(ro.out, same[i].bytes, &b);
		assert_string_equal(a.f[F_BEST], b.f[F_BEST]);
		assert_string_equal(a.f[F_TIME], b.f[F_TIME]);
		assert_string_equal(a.f[F_SECOND], b.f[F_SECOND]);
		assert_true(strchr(b.f[F_BEST], '/'));
		assert_true(strtod(b.f[F_TIME], NULL) > 0);
		free(ts);
		free(to);
		ts = json_but_scenario(js);
		to = json_but_scenario(jo);
		assert_string_equal(ts, to);
		free(ts);
		free(to);
		to = text_of(jo);
		assert_non_null(strstr(to, "\n  \"scenario\": null,\n"));
		free(to);
		run_free(&rs);
		run_free(&ro);
	}
}

/* What tune tries every value of cannot be fixed by an option, and a
 * scenario's setting is the file's: each refused by name, exit 2. */
static void test_options_refused(void **state)
{
	char args[512];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-opts", "star");

	expect_refused(2, "^cclab tune: option -A/--algorithm does not apply to 'cclab tune': "
		       "tune runs every algorithm of the collective\n", "tune -n 8 -A ring");
	expect_refused(2, "option -P/--protocol does not apply to 'cclab tune': tune runs every "
		       "protocol", "tune -n 8 -P ll");
	expect_refused(2, "option -t/--transport does not apply to 'cclab tune': tune runs every "
		       "transport", "tune -n 8 --transport send_recv");
	expect_refused(2, "option --ring-order does not apply to 'cclab tune': tune tries each "
		       "ring order of --ring-orders", "tune -n 8 --ring-order rail");
	expect_refused(2, "option --check does not apply to 'cclab tune': tune times every run "
		       "without carrying data", "tune -n 8 --check 1");
	expect_refused(2, "option --trace does not apply to 'cclab tune'", "tune -n 8 --trace t.json");
	snprintf(args, sizeof(args), "tune %s -A tree", sc);
	expect_refused(2, "option -A/--algorithm does not apply to 'cclab tune'", args);
	snprintf(args, sizeof(args), "tune %s -n 8", sc);
	expect_refused(2, "^cclab tune: option -n/--nranks applies to 'cclab tune' without a "
		       "scenario; the scenario file says it, or --set changes it\n", args);
	snprintf(args, sizeof(args), "tune --fabric roce-100g %s", sc);
	expect_refused(2, "option --fabric applies to 'cclab tune' without a scenario", args);
	expect_refused(2, "--set applies to 'cclab tune SCENARIO\\.yaml' only",
		       "tune -n 8 --set sizes.max=1M");
	expect_refused(2, "missing -n/--nranks", "tune -b 1M --fabric roce-100g");
	expect_refused(2, "invalid value 'x' for -n: expected a whole number", "tune -n x");
	expect_refused(2, "invalid value 'fast' for --fabric", "tune -n 8 --fabric fast");
	expect_refused(2, "-b/--minbytes 2097152 is larger than -e/--maxbytes 1048576",
		       "tune -n 8 -b 2M -e 1M");
	expect_refused(2, "--topology railopt: railopt needs nodes", "tune -n 8 --topology railopt");
	expect_refused(2, "--channels 1,1: 1 is listed twice", "tune -n 8 --channels 1,1");
	expect_refused(2, "-n given twice \\(-n 8, then --nranks 4\\)", "tune -n 8 --nranks 4");
}

/* An output path that cannot be written: exit 1 before any run, and no
 * file at all, the other output's included. */
static void test_unwritable(void **state)
{
	char args[512], dir[160], csv[192], json[192];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-out", "star");
	path_of(dir, sizeof(dir), "out");
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(csv, sizeof(csv), "%s/t.csv", dir);
	snprintf(json, sizeof(json), "%s/t.json", dir);

	snprintf(args, sizeof(args), "tune %s --json %s/missing/t.json --csv %s", sc, tmpdir, csv);
	expect_refused(1, "cannot write '.*/missing/t\\.json': No such file", args);
	snprintf(args, sizeof(args), "tune %s --json %s --csv %s/missing/t.csv", sc, json, tmpdir);
	expect_refused(1, "cannot write '.*/missing/t\\.csv': No such file", args);
	assert_int_equal(dir_entries(dir), 0);
	assert_int_equal(access(csv, F_OK), -1);
	assert_int_equal(access(json, F_OK), -1);
}

/* The ring's layouts on a topology of nodes (railopt, 2 nodes x 4 GPUs):
 * by default rank and rail order; --channels and --ring-orders choose,
 * and --channels the tree's too.  Each layout's time is the one `cclab
 * run` gives with the same algorithm, channels and order, and the other
 * algorithms still run (on one channel). */
static void test_ring_layouts(void **state)
{
	char path[160], csv[160];
	FILE *f;

	(void)state;
	need_cclab();
	path_of(path, sizeof(path), "rail.yaml");
	path_of(csv, sizeof(csv), "rail.csv");
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "name: rail\n"
		   "topology: {generator: railopt, nodes: 2, gpus_per_node: 4, spines: 1}\n"
		   "fabric: {preset: ib-hdr}\n"
		   "collective: allreduce\n"
		   "sizes: {min: 64KiB, max: 1MiB, factor: 16}\n");
	assert_int_equal(fclose(f), 0);

	struct run r = run_cclab("tune %s --set sizes.min=1MiB", path);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# rings: ring (rank order, 1 channel), ring-rail (rail order, "
				      "1 channel); the other algorithms: 1 channel\n"));
	run_free(&r);

	r = run_cclab("tune %s --channels 1,2 --csv %s", path, csv);
	char *c = text_of(csv);
	assert_int_equal(r.status, 0);
	/* nvlstree too: the railopt hosts are NVSwitch nodes */
	assert_non_null(strstr(r.out, "# candidates: 90, algorithm/protocol/transport: {ring, "
				      "ring-2ch, ring-rail, ring-rail-2ch, halving-doubling, direct, "
				      "tree, tree-2ch, hierarchical, nvlstree} x {"));
	assert_non_null(strstr(r.out, "# n/a: nvlstree/ll/*, nvlstree/ll128/*: nvls and nvlstree "
				      "run the Simple protocol only"));
	assert_non_null(strstr(r.out, "# rings: ring (rank order, 1 channel), ring-2ch (rank "
				      "order, 2 channels), ring-rail (rail order, 1 channel), "
				      "ring-rail-2ch (rail order, 2 channels); trees: tree (1 channel "
				      "pair), tree-2ch (2 channel pairs); the other algorithms: 1 "
				      "channel\n"));
	assert_non_null(strstr(r.out, "\n# ring-rail-2ch wins: "));
	assert_int_equal(count_substr(c, ",ring,"), 2 * 4 * NPT);
	assert_int_equal(count_substr(c, ",tree,"), 2 * 2 * NPT);
	/* every layout against `cclab run` with its channels and order (the
	 * tree's: none) */
	static const char *const layout[][3] = {
		{"ring", "1", "rank"}, {"ring", "2", "rank"}, {"ring", "1", "rail"},
		{"ring", "2", "rail"}, {"tree", "2", ""}, {"nvlstree", "1", ""},
	};
	for (size_t i = 0; i < sizeof(layout) / sizeof(layout[0]); i++) {
		char key[96], run_str[32], tune_str[32];
		const char *line;
		double tune_us;

		snprintf(key, sizeof(key), "\n1048576,%s,simple,write_imm,", layout[i][0]);
		line = c;
		for (;;) {
			line = strstr(line, key);
			assert_non_null(line);
			const char *eol = strchr(line + 1, '\n');
			char tail[32];

			snprintf(tail, sizeof(tail), ",%s,%s\n", layout[i][1], layout[i][2]);
			if (eol && !strncmp(eol - strlen(tail) + 1, tail, strlen(tail)))
				break;
			line++;
		}
		assert_int_equal(sscanf(line + strlen(key), "%lf", &tune_us), 1);
		struct run x = run_cclab("run %s --set sizes.min=1MiB --set executors=[sim] "
					 "--set algorithm=%s --set channels=%s --set ring_order=%s",
					 path, layout[i][0], layout[i][1],
					 *layout[i][2] ? layout[i][2] : "rank");
		const char *row = strstr(x.out, "\n     1048576 ");

		assert_int_equal(x.status, 0);
		assert_non_null(row);
		assert_int_equal(sscanf(row, " %*s %*s %*s %*s %*s %31s", run_str), 1);
		/* run prints nccl-tests' precision (BenchTime()): the same here */
		snprintf(tune_str, sizeof(tune_str), tune_us >= 10000.0 ? "%.0f" : tune_us >= 100.0
			 ? "%.1f" : "%.2f", tune_us);
		print_message("    %s %s channel(s), %s order: tune %.6f us, run %s us\n",
			      layout[i][0], layout[i][1], layout[i][2], tune_us, run_str);
		assert_string_equal(tune_str, run_str);
		run_free(&x);
	}
	free(c);
	run_free(&r);

	/* Only what is asked for: one layout, and the options checked. */
	r = run_cclab("tune %s --set sizes.min=1MiB --ring-orders rail --channels 4", path);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# candidates: 54, algorithm/protocol/transport: "
				      "{ring-rail-4ch, halving-doubling, "));
	run_free(&r);
	expect_refused(2, "--channels 1,1: 1 is listed twice", "tune x.yaml --channels 1,1");
	expect_refused(2, "invalid value '0' for --channels", "tune x.yaml --channels 0");
	expect_refused(2, "--channels 1,2,3,4,5: at most 4 counts",
		       "tune x.yaml --channels 1,2,3,4,5");
	expect_refused(2, "invalid value 'ring' for --ring-orders", "tune x.yaml --ring-orders ring");
	expect_refused(2, "nothing after the last comma", "tune x.yaml --ring-orders rail,");
}

/* Under a memory limit (here ulimit -v 1 GB): the candidates whose
 * staging cannot fit (1024 slots a connection: the LL protocols' slots of
 * halving-doubling, direct and the tree take 2 to 12 GiB, the ring's 0.25)
 * are refused, each on one line naming the limit, "failed" in its cells
 * and "refused" in the files, while the others run and the row is printed
 * — no abort ("out of memory building a schedule", SIGABRT with --jobs
 * 64), no sweep cut short.  The budget is shared by the jobs and the same
 * for any --jobs: 1 and 4 give the same bytes. */
static void test_memory_budget(void **state)
{
	static const char *const jobs[] = {"1", "4"};
	char path[160], json[160];
	struct run r[2];
	FILE *f;

	(void)state;
	need_cclab();
	need_no_asan();
	path_of(path, sizeof(path), "tune-mem.yaml");
	path_of(json, sizeof(json), "mem.json");
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("name: tune-mem\ntopology: {generator: star, ranks: 16}\nfabric: {preset: ib-hdr}\n"
	      "collective: allreduce\nslots: 1024\nsizes: 64KiB\n", f);
	assert_int_equal(fclose(f), 0);
	for (int i = 0; i < 2; i++)
		r[i] = run_cclab_env("ulimit -v 1000000;", "tune %s --jobs %s --json %s", path,
				     jobs[i], json);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(r[i].status, 1);
		assert_null(strstr(r[i].err, "out of memory building a schedule"));
		assert_non_null(strstr(r[i].err, "cclab tune: 65536 bytes: direct/ll/write_imm: "
						 "refused: "));
		assert_non_null(strstr(r[i].err, "the address-space limit (ulimit -v)"));
		/* LL and LL128 of halving-doubling, direct and the tree */
		assert_int_equal(count_lines_starting(r[i].err, "cclab tune: 65536 bytes: "),
				 3 * 2 * CC_TRANSPORT_COUNT);
	}
	assert_string_equal(r[0].out, r[1].out);
	assert_string_equal(r[0].err, r[1].err);
	struct row row;

	row_of(r[0].out, 65536, &row);
	assert_string_equal(row.f[F_BEST], "halving-doubling/simple/send_recv");
	for (int p = 0; p < CC_PROTO_COUNT; p++) /* the ring: every protocol timed */
		assert_true(strtod(row.f[F_CELLS + p], NULL) > 0);
	assert_string_equal(row.f[F_CELLS + 2 * CC_PROTO_COUNT + 1], "failed"); /* direct ll */
	char *j = text_of(json);

	assert_non_null(strstr(j, "\"status\": \"refused\""));
	free(j);
	run_free(&r[0]);
	run_free(&r[1]);
}

/* Under srun or mpirun (--out DIR): the runs spread over the tasks, and
 * rank 0's table, --csv and --json the same bytes as one process's; a
 * launch without --out, or a job array, refused.  Two processes with
 * mpirun's variables, on a star (n/a cells) and on lossy links (failed
 * runs and their notes), and a real mpirun when Open MPI is here. */
static void rc_is(int st, int want)
{
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), want);
}

/* tmpdir/name's text is `want` (tests/files.h's file_is()). */
static void tmp_file_is(const char *name, const char *want)
{
	char path[160];

	path_of(path, sizeof(path), name);
	file_is(path, want);
}

/* tmpdir/a and tmpdir/b hold the same bytes. */
static void same_files(const char *a, const char *b)
{
	char path[160];
	char *text;

	path_of(path, sizeof(path), b);
	text = text_of(path);
	tmp_file_is(a, text);
	free(text);
}

static void test_launcher_tasks(void **state)
{
	static const char *const sets[] = {
		"--set sizes.max=256KiB",
		"--set sizes.max=4 --set fabric.link.loss_ppb=1000000000",
	};
	char cmd[2048];

	(void)state;
	need_cclab();
	const char *sc = scenario("tune-tasks", "star");

	for (size_t k = 0; k < 2; k++) {
		struct run r = run_cclab("tune %s %s --csv %s/one.csv --json %s/one.json", sc,
					 sets[k], tmpdir, tmpdir);

		assert_int_equal(r.status, k ? 1 : 0);
		/* $CCLAB may be relative to here: no cd, every path in tmpdir */
		snprintf(cmd, sizeof(cmd), "T='%s'; (OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 "
			 "'%s' tune %s %s --out $T/d%zu >$T/r1.out 2>&1 &) ; OMPI_COMM_WORLD_RANK=0 "
			 "OMPI_COMM_WORLD_SIZE=2 '%s' tune %s %s --out $T/d%zu --csv $T/two.csv "
			 "--json $T/two.json >$T/two.out 2>$T/two.err; rc=$?; wait; exit $rc",
			 tmpdir, cclab, sc, sets[k], k, cclab, sc, sets[k], k);
		rc_is(system(cmd), k ? 1 : 0);
		tmp_file_is("two.out", r.out);
		tmp_file_is("two.err", r.err);
		same_files("two.csv", "one.csv");
		same_files("two.json", "one.json");
		if (!k && !system("command -v mpirun >/dev/null 2>&1")) {
			snprintf(cmd, sizeof(cmd), "T='%s'; OMPI_ALLOW_RUN_AS_ROOT=1 "
				 "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 2 '%s' "
				 "tune %s %s --out $T/dm --csv $T/m.csv >$T/m.out 2>$T/m.err", tmpdir,
				 cclab, sc, sets[k]);
			assert_int_equal(system(cmd), 0);
			tmp_file_is("m.out", r.out);
			same_files("m.csv", "one.csv");
		} else if (!k) {
			print_message("SKIP (part): no mpirun here\n");
		}
		run_free(&r);
	}
	struct run r = run_cclab_env("OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2",
				     "tune %s --set sizes.max=4", sc);

	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "OMPI_COMM_WORLD_RANK: 2 tasks: tune spreads its runs"));
	run_free(&r);
	r = run_cclab_env("SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=2",
			  "tune %s --set sizes.max=4 --out %s/arr", sc, tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "not over a job array"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_star),
		cmocka_unit_test(test_all),
		cmocka_unit_test(test_ring_topology),
		cmocka_unit_test(test_reducescatter),
		cmocka_unit_test(test_failed_runs),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_options_as_sim),
		cmocka_unit_test(test_options_refused),
		cmocka_unit_test(test_unwritable),
		cmocka_unit_test(test_ring_layouts),
		cmocka_unit_test(test_memory_budget),
		cmocka_unit_test(test_launcher_tasks),
	};

	return cmocka_run_group_tests_name("tune", t, setup, teardown);
}
