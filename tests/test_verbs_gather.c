/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_verbs_gather.c — what the ranks of a verbs run tell each other
 * after each size (backend/verbs_gather.h), without a NIC: fork()ed ranks
 * on the real TCP bootstrap over 127.0.0.1.
 *
 *   - stats: every rank gets every rank's mean / min / max (ns, rounded
 *     from the iteration times in us) and counters, exactly;
 *   - trace: rank 0 gets every rank's events in rank order, each field
 *     intact, across several rounds (one rank has more events than one
 *     bootstrap blob carries, another none at all); the others get none.
 *
 * Each child checks what it received and exits 0 only if all of it is
 * right; the parent asserts every child's exit status. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend/bootstrap.h"
#include "backend/verbs_gather.h"

#define WORLD 3

/* Events of rank r: rank 1 more than a blob holds (forces rounds), rank
 * 2 none. */
static size_t nevents(uint32_t r)
{
	return r == 0 ? 5 : r == 1 ? 40000 : 0;
}

static struct cc_trace_event event_of(uint32_t r, size_t i)
{
	return (struct cc_trace_event){
		.t_ps = 1000000ull * r + 7 * i, .dur_ps = i % 13, .kind = (enum cc_trace_kind)(i % CC_TRACE_KIND_COUNT),
		.rank = r, .track = i % 5 == 4 ? cc_trace_port(3) : (enum cc_trace_track)(i % 3),
		.qp = (uint32_t)(i % 4), .wr_id = (uint64_t)i << 20 | r, .bytes = i * 3,
		.op = i % 7 ? (uint32_t)i : CC_TRACE_NONE,
		.tag = { .prim = (enum cc_prim)(i % CC_PRIM_COUNT), .channel = (uint16_t)(i % 2),
			 .chunk = (uint32_t)(i / 10), .step = (uint32_t)(i % 7),
			 .slice = (uint32_t)(i % 3) },
	};
}

static bool same_event(const struct cc_trace_event *a, const struct cc_trace_event *b)
{
	return a->t_ps == b->t_ps && a->dur_ps == b->dur_ps && a->kind == b->kind &&
	       a->rank == b->rank && a->track == b->track && a->qp == b->qp &&
	       a->wr_id == b->wr_id && a->bytes == b->bytes && a->op == b->op &&
	       a->tag.prim == b->tag.prim && a->tag.channel == b->tag.channel &&
	       a->tag.chunk == b->tag.chunk && a->tag.step == b->tag.step &&
	       a->tag.slice == b->tag.slice;
}

/* Rank r's times: r + 1 iterations of 10.0004 * (r + 1) + i us. */
static double iter_us(uint32_t r, uint32_t i)
{
	return 10.0004 * (r + 1) + i;
}

static int child(uint32_t rank, const struct cc_rendezvous *addr, int lfd)
{
	struct cc_boot_opts bo = { .timeout_ms = 20000 };
	struct cc_boot b;
	struct cc_verbs_result res = { .iters = rank + 1, .wrong = rank * 11,
				       .data_bytes = 1000u + rank, .wqes = 7u * rank,
				       .doorbells = 3u * rank, .setup_us = 1.5 * rank };
	struct cc_verbs_rank_stats all[WORLD];
	double t[WORLD + 1];
	struct cc_trace mine, got;
	char err[512];

	if (cc_boot_open(&b, addr, rank == 0 ? lfd : -1, rank, WORLD, &bo, err, sizeof(err))) {
		fprintf(stderr, "rank %u: %s\n", rank, err);
		return 10;
	}
	for (uint32_t i = 0; i < res.iters; i++)
		t[i] = iter_us(rank, i);
	res.iter_us = t;
	if (cc_verbs_gather_stats(&b, &res, all, err, sizeof(err))) {
		fprintf(stderr, "rank %u: %s\n", rank, err);
		return 11;
	}
	for (uint32_t r = 0; r < WORLD; r++) {
		uint32_t n = r + 1;
		double sum = 0;
		for (uint32_t i = 0; i < n; i++)
			sum += iter_us(r, i);
		uint64_t mean = (uint64_t)(sum / n * 1e3 + 0.5);
		if (all[r].iters != n || all[r].mean_ns != mean ||
		    all[r].min_ns != (uint64_t)(iter_us(r, 0) * 1e3 + 0.5) ||
		    all[r].max_ns != (uint64_t)(iter_us(r, n - 1) * 1e3 + 0.5) ||
		    all[r].wrong != r * 11 || all[r].data_bytes != 1000u + r ||
		    all[r].wqes != 7u * r || all[r].doorbells != 3u * r ||
		    all[r].setup_ns != (uint64_t)(1500.0 * r + 0.5)) {
			fprintf(stderr, "rank %u: stats of rank %u wrong (mean %llu want %llu)\n",
				rank, r, (unsigned long long)all[r].mean_ns,
				(unsigned long long)mean);
			return 12;
		}
	}
	cc_trace_init(&mine);
	cc_trace_init(&got);
	for (size_t i = 0; i < nevents(rank); i++) {
		struct cc_trace_event e = event_of(rank, i);
		cc_trace_append(&mine, &e);
	}
	if (cc_verbs_gather_trace(&b, &mine, &got, err, sizeof(err))) {
		fprintf(stderr, "rank %u: %s\n", rank, err);
		return 13;
	}
	size_t want = 0, k = 0;
	for (uint32_t r = 0; r < WORLD; r++)
		want += nevents(r);
	if (rank != 0 && got.n != 0)
		return 14;
	if (rank == 0) {
		if (got.n != want) {
			fprintf(stderr, "rank 0 got %zu events, want %zu\n", got.n, want);
			return 15;
		}
		for (uint32_t r = 0; r < WORLD; r++)
			for (size_t i = 0; i < nevents(r); i++, k++) {
				struct cc_trace_event e = event_of(r, i);
				if (!same_event(&got.ev[k], &e)) {
					fprintf(stderr, "event %zu (rank %u #%zu) differs\n", k, r, i);
					return 16;
				}
			}
	}
	cc_trace_free(&mine);
	cc_trace_free(&got);
	cc_boot_close(&b);
	return 0;
}

static void test_gather(void **state)
{
	struct cc_rendezvous addr = { .host = "127.0.0.1", .kind = CC_HOST_IPV4 };
	pid_t pid[WORLD];
	char err[256];
	int lfd;

	(void)state;
	assert_int_equal(cc_boot_listen(&addr, &lfd, &addr.port, err, sizeof(err)), 0);
	for (uint32_t r = 0; r < WORLD; r++) {
		pid[r] = fork();
		assert_true(pid[r] >= 0);
		if (pid[r] == 0) {
			if (r != 0)
				close(lfd);
			_exit(child(r, &addr, lfd));
		}
	}
	close(lfd);
	for (uint32_t r = 0; r < WORLD; r++) {
		int st;
		assert_int_equal(waitpid(pid[r], &st, 0), pid[r]);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			fail_msg("rank %u ended with status 0x%x", r, st);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gather),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
