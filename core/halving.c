/* SPDX-License-Identifier: BSD-3-Clause */
/* core/halving.c — recursive halving-doubling allreduce (Rabenseifner,
 * "Optimization of Collective Reduction Operations", ICCS 2004; MPICH's
 * MPIR_Allreduce_intra_reduce_scatter_allgather), on the connections of
 * core/conn.h.
 *
 * With k' = 2^floor(log2 k) ranks taking part, each holding the whole
 * array of n elements split into k' blocks:
 *
 *   halving  m = log2 k' steps: at distance d = k'/2, k'/4, ..., 1 a rank
 *            swaps half of its current range with rank r' ^ d — it sends
 *            the half it gives up and reduces the half it keeps with what
 *            arrives — and ends with block r' fully reduced;
 *   doubling m steps at d = 1, 2, ..., k'/2: it sends its range to r' ^ d
 *            and receives the neighbouring range of the same size, ending
 *            with the whole array.
 *
 * Each rank sends 2 (n - n/k') elements, the same as the ring, in 2 log2 k'
 * steps instead of 2(k-1): fewer latencies, the reason it wins on small
 * messages.  For k not a power of two the first 2 (k - k') ranks pair up
 * first (MPICH's fix-up): even rank 2i sends its input to 2i+1, which
 * reduces it into its own and takes part as rank i; after the doubling,
 * 2i+1 sends the result back.  Those pairs add n elements each way.
 *
 * The output accumulates (cc_conn_step.src_out): each rank's reduces and
 * copies run in order (cc_conns.serial), and every swap is a slice-by-
 * slice interleaved send and receive (cc_conns_exchange), as NCCL's
 * sendrecv primitives are.
 */
#include "algo.h"
#include "algo_int.h"
#include "conn.h"

#include <stdlib.h>

#define NONE CC_CONN_NONE

struct hd {
	const struct cc_coll_params *p;
	uint32_t k, kp, m, rem;
	struct cc_walker w;
};

/* Ranks 2i (i < rem) sit out the core, 2i+1 take part as i, and the rest
 * as r - rem. */
static uint32_t core_rank(const struct hd *h, uint32_t r)
{
	if (r < 2 * h->rem)
		return r % 2 ? r / 2 : NONE;
	return r - h->rem;
}

static uint32_t real_rank(const struct hd *h, uint32_t cr)
{
	return cr < h->rem ? 2 * cr + 1 : cr + h->rem;
}

/* Where block b of k' starts: as even as integers allow. */
static uint64_t block_off(const struct hd *h, uint32_t b)
{
	return (uint64_t)((unsigned __int128)h->p->count * b / h->kp);
}

static void one(struct hd *h, uint32_t r, const struct cc_conn_step *st)
{
	cc_walk_step(&h->w, r, st);
}

static void pair(struct hd *h, uint32_t r, const struct cc_conn_step *send,
		 const struct cc_conn_step *recv)
{
	cc_walk_exchange(&h->w, r, send, recv);
}

static uint32_t to(const struct hd *h, uint32_t r, uint32_t peer)
{
	return cc_walk_to(&h->w, r, peer, 0);
}

static uint32_t from(const struct hd *h, uint32_t r, uint32_t peer)
{
	return cc_walk_from(&h->w, r, peer, 0);
}

/* Every step of rank r, in order. */
static void walk(struct hd *h, uint32_t r)
{
	uint64_t n = h->p->count;
	uint32_t cr = core_rank(h, r), s = 0, lo = 0, hi = h->kp;
	uint8_t acc = 0; /* the own operand is in the output from now on */

	if (cr == NONE) { /* 2i: hand the input to 2i+1, get the result back */
		one(h, r, &(struct cc_conn_step){ .prim = CC_PRIM_SEND, .nelem = n,
			    .recv = NONE, .send = to(h, r, r + 1) });
		one(h, r, &(struct cc_conn_step){ .prim = CC_PRIM_RECV, .step = 1, .nelem = n,
			    .recv = from(h, r, r + 1), .send = NONE });
		return;
	}
	if (r < 2 * h->rem) { /* 2i+1: fold 2i's input into its own */
		one(h, r, &(struct cc_conn_step){ .prim = CC_PRIM_RECV_REDUCE_COPY, .step = s++,
			    .nelem = n, .recv = from(h, r, r - 1), .send = NONE,
			    .final = h->m == 0 });
		acc = 1;
	}
	for (uint32_t d = h->kp / 2, i = 0; d >= 1; d /= 2, i++) {
		uint32_t peer = real_rank(h, cr ^ d), mid = lo + (hi - lo) / 2;
		uint32_t klo = cr & d ? mid : lo, khi = cr & d ? hi : mid;
		uint32_t glo = cr & d ? lo : mid, ghi = cr & d ? mid : hi;
		uint64_t go = block_off(h, glo), ko = block_off(h, klo);
		struct cc_conn_step give = { .prim = CC_PRIM_SEND, .step = s, .chunk = i,
			    .in_off = go, .out_off = go, .nelem = block_off(h, ghi) - go,
			    .recv = NONE, .send = to(h, r, peer), .src_out = acc };
		struct cc_conn_step keep = { .prim = CC_PRIM_RECV_REDUCE_COPY, .step = s,
			    .chunk = i, .in_off = ko, .out_off = ko,
			    .nelem = block_off(h, khi) - ko, .recv = from(h, r, peer),
			    .send = NONE, .src_out = acc, .final = d == 1 };

		pair(h, r, &give, &keep);
		s++;
		acc = 1;
		lo = klo;
		hi = khi;
	}
	for (uint32_t d = 1, i = h->m; d < h->kp; d *= 2, i++) {
		uint32_t peer = real_rank(h, cr ^ d), w = hi - lo;
		uint32_t plo = cr & d ? lo - w : hi, phi = plo + w;
		uint64_t mo = block_off(h, lo), po = block_off(h, plo);
		struct cc_conn_step mine = { .prim = CC_PRIM_SEND, .step = s, .chunk = i,
			    .in_off = mo, .out_off = mo, .nelem = block_off(h, hi) - mo,
			    .recv = NONE, .send = to(h, r, peer), .src_out = 1 };
		struct cc_conn_step theirs = { .prim = CC_PRIM_RECV, .step = s, .chunk = i,
			    .in_off = po, .out_off = po, .nelem = block_off(h, phi) - po,
			    .recv = from(h, r, peer), .send = NONE, .src_out = 1 };

		pair(h, r, &mine, &theirs);
		s++;
		lo = lo < plo ? lo : plo;
		hi = hi > phi ? hi : phi;
	}
	if (r < 2 * h->rem) /* the result back to 2i */
		one(h, r, &(struct cc_conn_step){ .prim = CC_PRIM_SEND, .step = s,
			    .chunk = 2 * h->m, .nelem = n, .recv = NONE,
			    .send = to(h, r, r - 1), .src_out = 1 });
}

static void walk_conns(void *ctx, uint32_t r, int counting)
{
	struct hd *h = ctx;

	h->w.counting = counting;
	walk(h, r);
}

static void init(struct hd *h, const struct cc_coll_params *p)
{
	*h = (struct hd){ .p = p, .k = p->nranks, .kp = 1 };
	while (h->kp * 2 <= h->k) {
		h->kp *= 2;
		h->m++;
	}
	h->rem = h->k - h->kp;
}

void cc_hd_primitives(const struct cc_coll_params *p, uint32_t rank, cc_prim_fn fn, void *ctx)
{
	struct hd h;

	init(&h, p);
	h.w = (struct cc_walker){ .list = fn, .list_ctx = ctx };
	walk(&h, rank);
}

/* The fix-up pairs, then every core rank to its partner at each distance
 * (one connection each way per pair: the halving and the doubling at one
 * distance share it). */
static int connect(void *ctx, struct cc_conns *c)
{
	struct hd *h = ctx;

	h->w.c = c;
	for (uint32_t i = 0; i < h->rem; i++)
		if (cc_conns_add(c, 2 * i, 2 * i + 1, 0) || cc_conns_add(c, 2 * i + 1, 2 * i, 0))
			return -1;
	for (uint32_t cr = 0; cr < h->kp; cr++)
		for (uint32_t d = 1; d < h->kp; d *= 2)
			if (cc_conns_add(c, real_rank(h, cr), real_rank(h, cr ^ d), 0))
				return -1;
	return 0;
}

struct cc_schedule *cc_build_hd(const struct cc_coll_params *p)
{
	struct hd h;
	/* The largest message is half the array (the first swap). */
	struct cc_conns_algo a = { .most = (p->count + 1) / 2, .serial = 1, .connect = connect,
				   .walk = walk_conns, .ctx = &h };

	init(&h, p);
	return cc_conns_build(p, &a);
}

/* A rank's steps: a swap (a send and a receive) per halving and
 * doubling, and the fix-up's two. */
double cc_hd_walk_steps(const struct cc_coll_params *p)
{
	struct hd h;

	init(&h, p);
	return (double)p->nranks * (4.0 * h.m + 2);
}

void cc_hd_staging(const struct cc_coll_params *p, double *conns, double *msg)
{
	*conns = 1; /* log2 k partners, and the fix-up */
	for (uint32_t kp = 2; kp <= p->nranks; kp *= 2)
		(*conns)++;
	*msg = (double)p->count / 2 + 1;
}
