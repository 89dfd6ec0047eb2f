/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_fairq.c — deficit round robin over flows (sim/fairq.c):
 * the exact order packets leave in, against the order DRR's definition
 * gives (written beside each assertion), byte fairness between packet
 * sizes, flows leaving and rejoining the round, and the flow table's
 * growth.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "sim/fairq.h"
#include "sim/packet.h"

#define DATA 4122 /* an IB WRITE_MIDDLE of 4096 B: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 */
#define ACK 30    /* an IB ACK: LRH 8 + BTH 12 + AETH 4 + ICRC 4 + VCRC 2 */

static struct sim_packet *pkts(size_t n, uint32_t frame)
{
	struct sim_packet *p = calloc(n, sizeof(*p));

	assert_non_null(p);
	for (size_t i = 0; i < n; i++) {
		p[i].frame_bytes = p[i].wire_bytes = frame;
		p[i].psn = (uint32_t)i;
	}
	return p;
}

/* Equal flows alternate packet by packet, whatever order they came in,
 * starting with the flow that became active first. */
static void test_alternate(void **state)
{
	struct sim_fairq q;
	struct sim_packet *a = pkts(3, DATA), *b = pkts(3, DATA);

	(void)state;
	sim_fairq_init(&q);
	assert_null(sim_fairq_pop(&q));
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(sim_fairq_push(&q, 7, &a[i]), 0);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(sim_fairq_push(&q, 9, &b[i]), 0);
	assert_int_equal(q.count, 6);
	assert_int_equal(q.bytes, 6 * DATA);
	for (size_t i = 0; i < 3; i++) {
		assert_ptr_equal(sim_fairq_pop(&q), &a[i]);
		assert_ptr_equal(sim_fairq_pop(&q), &b[i]);
	}
	assert_true(sim_fairq_empty(&q));
	assert_int_equal(q.bytes, 0);
	assert_null(sim_fairq_pop(&q));
	sim_fairq_destroy(&q);
	free(a);
	free(b);
}

/* Bytes, not packets, are shared.  The quantum is one DATA frame: a
 * visit to the DATA flow sends one, a visit to the ACK flow
 * floor((carry + 4122) / 30) ACKs and carries the rest: 137 (12 over),
 * 137 (24 over), 138 (6 over).  The DATA flow leaves the round with its
 * last packet, and the ACKs left (500 - 412 = 88) follow it. */
static void test_bytes(void **state)
{
	enum { NDATA = 4, NACK = 500 };
	static const size_t want_runs[] = {137, 137, 138, 88};
	struct sim_fairq q;
	struct sim_packet *d = pkts(NDATA, DATA), *k = pkts(NACK, ACK), *p;
	size_t runs[NDATA] = {0}, ndata = 0;

	(void)state;
	sim_fairq_init(&q);
	for (size_t i = 0; i < NDATA; i++)
		assert_int_equal(sim_fairq_push(&q, 1, &d[i]), 0);
	for (size_t i = 0; i < NACK; i++)
		assert_int_equal(sim_fairq_push(&q, 2, &k[i]), 0);
	assert_int_equal(q.quantum, DATA);
	while ((p = sim_fairq_pop(&q))) {
		if (p->frame_bytes == DATA) {
			assert_ptr_equal(p, &d[ndata]);
			ndata++;
		} else {
			assert_true(ndata > 0);
			runs[ndata - 1]++;
		}
	}
	assert_int_equal(ndata, NDATA);
	for (size_t i = 0; i < NDATA; i++)
		assert_int_equal(runs[i], want_runs[i]);
	sim_fairq_destroy(&q);
	free(d);
	free(k);
}

/* A flow that runs empty leaves the round and comes back at its end: C,
 * new while A and B wait, goes after both; A, emptied and refilled, goes
 * after C. */
static void test_rejoin(void **state)
{
	struct sim_fairq q;
	struct sim_packet *p = pkts(6, DATA);

	(void)state;
	sim_fairq_init(&q);
	assert_int_equal(sim_fairq_push(&q, 10, &p[0]), 0); /* A */
	assert_int_equal(sim_fairq_push(&q, 20, &p[1]), 0); /* B */
	assert_int_equal(sim_fairq_push(&q, 20, &p[2]), 0); /* B */
	assert_ptr_equal(sim_fairq_pop(&q), &p[0]);        /* A: empty, leaves */
	assert_int_equal(sim_fairq_push(&q, 30, &p[3]), 0); /* C joins after B */
	assert_int_equal(sim_fairq_push(&q, 10, &p[4]), 0); /* A rejoins after C */
	assert_ptr_equal(sim_fairq_pop(&q), &p[1]);
	assert_ptr_equal(sim_fairq_pop(&q), &p[3]);
	assert_ptr_equal(sim_fairq_pop(&q), &p[4]);
	assert_ptr_equal(sim_fairq_pop(&q), &p[2]);
	assert_null(sim_fairq_pop(&q));
	assert_int_equal(q.nflow, 3);
	sim_fairq_destroy(&q);
	free(p);
}

/* Many flows (the table rehashes several times): one round sends each
 * flow's first packet in the order the flows came, the next its second. */
static void test_many_flows(void **state)
{
	enum { NF = 1000 };
	struct sim_fairq q;
	struct sim_packet *p = pkts(2 * NF, DATA);

	(void)state;
	sim_fairq_init(&q);
	for (size_t r = 0; r < 2; r++)
		for (size_t f = 0; f < NF; f++) /* keys far apart: (node << 24) | qpn */
			assert_int_equal(sim_fairq_push(&q, (uint64_t)f << 24 | 5, &p[r * NF + f]),
					 0);
	assert_int_equal(q.nflow, NF);
	assert_true(q.nslot >= 2 * NF);
	for (size_t i = 0; i < 2 * NF; i++)
		assert_ptr_equal(sim_fairq_pop(&q), &p[i]);
	assert_true(sim_fairq_empty(&q));
	sim_fairq_destroy(&q);
	free(p);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_alternate),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_rejoin),
		cmocka_unit_test(test_many_flows),
	};

	return cmocka_run_group_tests_name("sim_fairq", t, NULL, NULL);
}
