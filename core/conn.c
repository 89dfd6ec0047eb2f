/* SPDX-License-Identifier: BSD-3-Clause */
/* core/conn.c — connections and primitive steps (core/conn.h).  The
 * protocol is NCCL's net/IB transport (src/transport/net_ib.cc); the
 * primitive semantics NCCL's prims (src/device/prims_simple.h). */
#include "conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NONE CC_CONN_NONE

/* Slices emitted between two looks at the clock: a few microseconds'
 * work, so a deadline stops a build within a millisecond or so while the
 * clock (a vDSO call, ~20 ns) costs nothing measurable. */
#define DEADLINE_CHECK_SLICES 256u

/* The deadline of the build on this thread (cc_conns_set_deadline()):
 * per thread, since `cclab tune` builds on several at once; here so the
 * algorithms' builders need not pass it along. */
static _Thread_local uint64_t build_deadline_ns;

void cc_conns_set_deadline(uint64_t ns)
{
	build_deadline_ns = ns;
}

uint64_t cc_conns_deadline(void)
{
	return build_deadline_ns;
}

/* The one rank whose ops the build on this thread emits
 * (cc_conns_set_one_rank()), or NONE: every rank's. */
static _Thread_local uint32_t build_one_rank = NONE;

void cc_conns_set_one_rank(uint32_t rank)
{
	build_one_rank = rank;
}

bool cc_conns_builds_rank(uint32_t r)
{
	return build_one_rank == NONE || build_one_rank == r;
}

uint64_t cc_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int cc_prim_recvs(enum cc_prim p)
{
	return p != CC_PRIM_SEND && p != CC_PRIM_COPY_SEND && p != CC_PRIM_COPY;
}

int cc_prim_sends(enum cc_prim p)
{
	return p == CC_PRIM_SEND || p == CC_PRIM_COPY_SEND || p == CC_PRIM_RECV_REDUCE_SEND ||
	       p == CC_PRIM_RECV_REDUCE_COPY_SEND || p == CC_PRIM_RECV_COPY_SEND;
}

struct cc_rank_sched *cc_conns_ops_of(struct cc_conns *c, uint32_t r)
{
	return c->out ? c->out : &c->s->ranks[r];
}

/* The index the next op of rank r gets (the wr_id of a WQE it posts). */
static uint32_t next_op(struct cc_conns *c, uint32_t r)
{
	return cc_conns_ops_of(c, r)->nops;
}

static uint32_t add(struct cc_conns *c, uint32_t r, struct cc_op *op, const uint32_t *deps,
		    uint32_t ndeps)
{
	uint32_t i = cc_add_op(cc_conns_ops_of(c, r), op, deps, ndeps);

	if (i == CC_SCHED_NONE)
		c->oom = 1;
	return i;
}

/* Whether the build's deadline has passed, looked at now: between the
 * ranks of a pass that only counts, whose steps make no slices to count
 * the looks by (a ring on 100,000 ranks walks 2 x 10^10 steps). */
static int past_deadline(struct cc_conns *c)
{
	if (c->deadline_ns && !c->timed_out && cc_clock_ns() >= c->deadline_ns)
		c->timed_out = 1;
	return c->timed_out;
}

/* Whether the build is to stop: out of memory, LL's flags past their
 * range (either fails it), or past its deadline, which is looked at
 * every DEADLINE_CHECK_SLICES slices. */
static int stopped(struct cc_conns *c)
{
	if (c->oom || c->flag_wrap || c->timed_out)
		return 1;
	if (c->deadline_ns && ++c->since_check >= DEADLINE_CHECK_SLICES) {
		c->since_check = 0;
		c->timed_out = cc_clock_ns() >= c->deadline_ns;
	}
	return c->timed_out;
}

void cc_conns_user_buffers(struct cc_schedule *s, const struct cc_coll_params *p)
{
	size_t es = cc_dtype_size(p->dtype);

	for (uint32_t r = 0; r < p->nranks; r++) {
		cc_add_buffer(&s->ranks[r], &(struct cc_buffer){ p->mem, CC_BUF_INPUT,
								  cc_coll_in_count(p) * es, -1, 0 });
		cc_add_buffer(&s->ranks[r], &(struct cc_buffer){ p->mem, CC_BUF_OUTPUT,
								  cc_coll_out_count(p) * es, -1, 0 });
	}
}

static int conns_init(struct cc_conns *c, struct cc_schedule *s, const struct cc_coll_params *p,
		      uint64_t slot_elems)
{
	uint32_t ss = cc_conns_slice_steps(p);

	/* A slice of ss slots (cc_conns_slice_bytes()) takes ss of the
	 * buffer's nslots steps: nslots / ss slices in flight, as NCCL's
	 * connection holds NCCL_STEPS / StepPerSlice. */
	*c = (struct cc_conns){ .s = s, .p = p, .k = p->nranks, .nslots = p->nslots / ss,
				.es = cc_dtype_size(p->dtype), .slot_elems = slot_elems };
	cc_conns_cut(p, &c->slice_per_chunk, &c->slice_min);
	c->slot_stride = cc_proto_wire_bytes(p->proto, slot_elems * c->es);
	c->rank = calloc(c->k, sizeof(*c->rank));
	c->last_calc = malloc(c->k * sizeof(*c->last_calc));
	c->marked = calloc(c->k, sizeof(*c->marked));
	c->nmarked = calloc(c->k, sizeof(*c->nmarked));
	for (uint32_t r = 0; c->last_calc && r < c->k; r++)
		c->last_calc[r] = NONE;
	return c->rank && c->last_calc && c->marked && c->nmarked ? 0 : -1;
}

static void conns_free(struct cc_conns *c)
{
	for (uint32_t r = 0; c->rank && r < c->k; r++) {
		struct cc_conn_rank *cr = &c->rank[r];

		for (uint32_t i = 0; i < cr->nsend; i++)
			free(cr->send[i].slot_free);
		for (uint32_t j = 0; j < cr->nrecv; j++)
			free(cr->recv[j].slot_free);
		free(cr->send);
		free(cr->recv);
	}
	for (uint32_t r = 0; c->marked && r < c->k; r++)
		free(c->marked[r]);
	free(c->rank);
	free(c->last_calc);
	free(c->marked);
	free(c->nmarked);
	c->rank = NULL;
	c->last_calc = NULL;
	c->marked = NULL;
	c->nmarked = NULL;
}

static int new_end(struct cc_conns *c, struct cc_conn_end **ends, uint32_t *n, uint32_t peer,
		   uint16_t ch)
{
	struct cc_conn_end *grown = realloc(*ends, (*n + 1) * sizeof(**ends));
	struct cc_conn_end *e;

	if (!grown)
		return -1;
	*ends = grown;
	e = &grown[*n];
	*e = (struct cc_conn_end){ .peer = peer, .channel = ch, .last_post = NONE,
				   .last_recv = NONE, .flush_qp = NONE, .flush_buf = NONE,
				   .last_flush = NONE };
	e->slot_free = malloc(5 * c->nslots * sizeof(uint32_t));
	if (!e->slot_free)
		return -1;
	e->recv_wqe = e->slot_free + c->nslots;
	e->cts_poll = e->recv_wqe + c->nslots;
	e->cts_sent = e->cts_poll + c->nslots;
	e->data_poll = e->cts_sent + c->nslots;
	for (uint32_t i = 0; i < 5 * c->nslots; i++)
		e->slot_free[i] = NONE;
	(*n)++;
	return 0;
}

int cc_conns_add(struct cc_conns *c, uint32_t from, uint32_t to, uint16_t ch)
{
	if (new_end(c, &c->rank[from].send, &c->rank[from].nsend, to, ch))
		return -1;
	return new_end(c, &c->rank[to].recv, &c->rank[to].nrecv, from, ch);
}

int cc_conns_link(struct cc_conns *c, uint32_t from, uint32_t to, uint16_t ch, uint32_t *s,
		  uint32_t *d)
{
	if (cc_conns_add(c, from, to, ch))
		return -1;
	*s = c->rank[from].nsend - 1;
	*d = c->rank[to].nrecv - 1;
	return 0;
}

/* The index, among `peer`'s recv (or send) ends from (or to) r, that
 * matches r's n-th end to (from) peer: connections between one pair are
 * matched in the order they were added. */
static uint32_t peer_end(const struct cc_conn_end *ends, uint32_t nends, uint32_t r,
			 uint32_t nth)
{
	for (uint32_t i = 0; i < nends; i++)
		if (ends[i].peer == r && nth-- == 0)
			return i;
	abort(); /* cc_conns_add made both ends */
}

static uint32_t nth_to(const struct cc_conn_end *ends, uint32_t i)
{
	uint32_t n = 0;

	for (uint32_t x = 0; x < i; x++)
		n += ends[x].peer == ends[i].peer;
	return n;
}

static uint32_t buf_send_stage(const struct cc_conns *c, uint32_t r, uint32_t i)
{
	return c->rank[r].buf0 + i;
}
static uint32_t buf_recv_stage(const struct cc_conns *c, uint32_t r, uint32_t j)
{
	return c->rank[r].buf0 + c->rank[r].nsend + j;
}
static uint32_t buf_cts(const struct cc_conns *c, uint32_t r, uint32_t i)
{
	return c->rank[r].buf0 + c->rank[r].nsend + c->rank[r].nrecv + i;
}
static uint32_t buf_flag(const struct cc_conns *c, uint32_t r, uint32_t j)
{
	return c->rank[r].buf0 + 2 * c->rank[r].nsend + c->rank[r].nrecv + j;
}
/* A connection buffer's MR: the same offset from the MR base. */
static uint32_t mr_of(const struct cc_conns *c, uint32_t r, uint32_t buf)
{
	return buf - c->rank[r].buf0 + c->rank[r].mr0;
}

/* Whether rank r's connection to `peer` goes through NCCL's net transport:
 * the peer is on another node (ranks_per_node), or the nodes are not
 * known (0), which cclab's ring and star topologies mean: every rank a
 * host of its own.  Inside a node NCCL's P2P transport carries it, with
 * no verbs of its own (src/transport/p2p.cc). */
static bool crosses_network(const struct cc_conns *c, uint32_t r, uint32_t peer)
{
	uint32_t g = c->p->ranks_per_node;

	return !g || r / g != peer / g;
}

/* QPs of rank r's connection to `peer`: NCCL_IB_QPS_PER_CONNECTION's on
 * the network, one inside a node (NCCL's P2P transport has none). */
static uint32_t conn_qps(const struct cc_conns *c, uint32_t r, uint32_t peer)
{
	return c->p->qps_per_conn > 1 && crosses_network(c, r, peer) ? c->p->qps_per_conn : 1;
}

/* Whether a connection of nqp QPs cuts every slice over all of them:
 * NCCL's IB transport does with NCCL_IB_SPLIT_DATA_ON_QPS=1. */
static uint8_t split_on(const struct cc_conns *c, uint32_t nqp)
{
	return c->p->split_on_qps && nqp > 1 && c->p->transport == CC_WRITE_IMM;
}

/* The QP slice j of end e travels on: round robin over the connection's
 * (when it is cut over all of them: the first's, and the rest after). */
static uint32_t slice_qp(const struct cc_conn_end *e, uint64_t j)
{
	return e->split ? e->qp : e->qp + (uint32_t)(j % e->nqp);
}

/* A slice of len wire bytes cut over nq QPs: NCCL's part per QP,
 * DIVUP(DIVUP(len, nq), 128) * 128 bytes (net_ib/p2p.cc ncclIbMultiSend:
 * whole LL and LL128 lines), the last ones shorter or empty. */
static uint32_t part_bytes(uint32_t len, uint32_t nq)
{
	return nq > 1 ? (uint32_t)((((uint64_t)len + nq - 1) / nq + 127) / 128 * 128) : len;
}

/* The QPs slice j of end e takes: nqp with the split, else one. */
static uint32_t slice_nqp(const struct cc_conn_end *e)
{
	return e->split ? e->nqp : 1;
}

/* Whether rank r's receive end to `peer` flushes each Simple slice
 * (cc_coll_params.gdr_flush): NCCL's net transport does, with GPUDirect
 * RDMA into GPU memory (useGdr); inside a node NCCL's P2P transport has
 * no NIC to flush with. */
static bool flush_on(const struct cc_conns *c, uint32_t r, uint32_t peer)
{
	return c->p->gdr_flush && c->p->proto == CC_PROTO_SIMPLE &&
	       cc_coll_stage_mem(c->p) == CC_MEM_GPU && crosses_network(c, r, peer);
}

/* Where rank r's send (or receive) stage to `peer` lives: with the
 * staging (smem), except LL's on the network, which NCCL keeps in host
 * memory even with GPUDirect RDMA (src/transport/net.cc
 * sendProxyConnect: a buffer is in device memory only for `p !=
 * NCCL_PROTO_LL && useGdr`): the kernel's LL stores cross its PCIe link,
 * the proxy reads the lines' flags from host memory instead of waiting
 * for a tail, and the NIC reads them there.  A collective's receive stage
 * stays in GPU memory (recvProxyConnect); all-to-all's and sendrecv's
 * shared point-to-point buffers keep LL's in host memory on both sides
 * (the ALLOC_P2P_NET_LL_BUFFERS ones, which NCCL allocates only when
 * asked: its own choice runs no point-to-point LL over the network). */
static enum cc_mem_kind stage_mem_of(const struct cc_conns *c, uint32_t r, uint32_t peer,
				     bool send, enum cc_mem_kind smem)
{
	return c->p->proto == CC_PROTO_LL && (send || cc_coll_p2p(c->p->coll)) &&
			       crosses_network(c, r, peer)
		       ? CC_MEM_HOST
		       : smem;
}

/* A connection buffer's access: NCCL registers every one with
 * LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ; we ask for what each needs,
 * so a schedule that strays is caught.  A receive stage that is flushed
 * is read by the flush's READ. */
static uint32_t conn_buf_access(const struct cc_conns *c, uint32_t r, uint32_t b)
{
	const struct cc_conn_rank *cr = &c->rank[r];
	uint32_t at = b - cr->buf0;

	if (at < cr->nsend || c->s->ranks[r].bufs[b].role == CC_BUF_FLUSH)
		return CC_ACCESS_LOCAL_WRITE;
	if (at < cr->nsend + cr->nrecv && cr->recv[at - cr->nsend].flush_buf != NONE)
		return CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE | CC_ACCESS_REMOTE_READ;
	return CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE;
}

static void conns_setup(struct cc_conns *c)
{
	uint64_t stage = (uint64_t)c->nslots * c->slot_stride;
	uint64_t words = (uint64_t)c->nslots * 8;
	/* Staging follows the user buffers, or sits in host memory when the
	 * NIC cannot reach GPU memory (no GPUDirect RDMA): NCCL's net
	 * transport then allocates its Simple buffers with cudaHostAlloc and
	 * the kernel reads and writes them through the GPU mapping
	 * (src/transport/net.cc, sendProxyConnect / recvProxyConnect).  The
	 * reduces and copies still run on the GPU (`where` follows mem). */
	enum cc_mem_kind smem = cc_coll_stage_mem(c->p);

	for (uint32_t r = 0; r < c->k; r++) {
		struct cc_conn_rank *cr = &c->rank[r];
		struct cc_rank_sched *rs = &c->s->ranks[r];
		uint32_t buf0 = rs->nbufs, qp0 = rs->nqps;

		if (!cr->nsend && !cr->nrecv)
			continue;
		cr->buf0 = buf0;
		cr->mr0 = rs->nmrs;
		for (uint32_t i = 0; i < cr->nsend; i++)
			cc_add_buffer(rs, &(struct cc_buffer){ stage_mem_of(c, r, cr->send[i].peer,
										    true, smem),
							       CC_BUF_SEND_STAGE, stage,
							       (int32_t)cr->send[i].peer,
							       cr->send[i].channel });
		for (uint32_t j = 0; j < cr->nrecv; j++)
			cc_add_buffer(rs, &(struct cc_buffer){ stage_mem_of(c, r, cr->recv[j].peer,
										    false, smem),
							       CC_BUF_RECV_STAGE, stage,
							       (int32_t)cr->recv[j].peer,
							       cr->recv[j].channel });
		/* Control words live in host memory whatever the staging: the
		 * proxy thread polls them.  NCCL too: net_ib.cc's clear-to-send
		 * fifo is host memory registered with the NIC, and net.cc
		 * places sendMem / recvMem (head, tail, connFifo) in host
		 * memory with or without GPUDirect RDMA (GDRCopy's optional
		 * head in GPU memory aside). */
		for (uint32_t i = 0; i < cr->nsend; i++)
			cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_HOST, CC_BUF_CTS, words,
							       (int32_t)cr->send[i].peer,
							       cr->send[i].channel });
		for (uint32_t j = 0; j < cr->nrecv; j++)
			cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_HOST, CC_BUF_FLAG, words,
							       (int32_t)cr->recv[j].peer,
							       cr->recv[j].channel });
		/* The GDR flush's READs land in a host word of their own per
		 * receive end, as NCCL's per receive comm (net_ib/connect.cc:
		 * gpuFlushHostMem, an int). */
		for (uint32_t j = 0; j < cr->nrecv; j++)
			if (flush_on(c, r, cr->recv[j].peer))
				cr->recv[j].flush_buf = cc_add_buffer(
					rs, &(struct cc_buffer){ CC_MEM_HOST, CC_BUF_FLUSH, 8,
								 (int32_t)cr->recv[j].peer,
								 cr->recv[j].channel });
		for (uint32_t b = buf0; b < rs->nbufs; b++)
			cc_add_mr(rs, b, conn_buf_access(c, r, b));
		uint32_t q = qp0, per_slot = 0;

		for (uint32_t i = 0; i < cr->nsend; i++) {
			cr->send[i].qp = q;
			cr->send[i].nqp = conn_qps(c, r, cr->send[i].peer);
			cr->send[i].split = split_on(c, cr->send[i].nqp);
			q += cr->send[i].nqp;
		}
		for (uint32_t j = 0; j < cr->nrecv; j++) {
			cr->recv[j].qp = q;
			cr->recv[j].nqp = conn_qps(c, r, cr->recv[j].peer);
			cr->recv[j].split = split_on(c, cr->recv[j].nqp);
			q += cr->recv[j].nqp;
		}
		/* The flush QPs after every connection's, one per end. */
		for (uint32_t j = 0; j < cr->nrecv; j++)
			if (cr->recv[j].flush_buf != NONE)
				cr->recv[j].flush_qp = q++;
		/* A CQE per QP a slice takes, each end at most 2 slots' worth
		 * outstanding (the send and its slot's next, a receive and its
		 * clear-to-send). */
		for (uint32_t i = 0; i < cr->nsend; i++)
			per_slot += slice_nqp(&cr->send[i]);
		for (uint32_t j = 0; j < cr->nrecv; j++)
			per_slot += slice_nqp(&cr->recv[j]) + (cr->recv[j].flush_qp != NONE);
		cr->cq = cc_add_cq(rs, 2 * c->nslots * per_slot);
	}
	/* QPs once every rank's QP indices are known: each names its peer's. */
	for (uint32_t r = 0; r < c->k; r++) {
		struct cc_conn_rank *cr = &c->rank[r];
		struct cc_rank_sched *rs = &c->s->ranks[r];
		/* NCCL_IB_RETRY_CNT and rnr_retry default to 7 (net_ib.cc). */
		struct cc_qp qp = { .send_cq = cr->cq, .recv_cq = cr->cq,
				    .max_send_wr = 2 * c->nslots, .max_recv_wr = c->nslots,
				    .max_inline = 64, .retry_cnt = 7, .rnr_retry = 7, .channel = 0 };

		if (!cr->nsend && !cr->nrecv)
			continue;
		for (uint32_t i = 0; i < cr->nsend; i++) {
			const struct cc_conn_rank *pr = &c->rank[cr->send[i].peer];
			uint32_t j = peer_end(pr->recv, pr->nrecv, r, nth_to(cr->send, i));

			qp.peer = cr->send[i].peer;
			qp.channel = cr->send[i].channel;
			for (uint32_t n = 0; n < cr->send[i].nqp; n++) {
				qp.peer_qp = pr->recv[j].qp + n;
				cc_add_qp(rs, &qp);
			}
		}
		for (uint32_t j = 0; j < cr->nrecv; j++) {
			const struct cc_conn_rank *pr = &c->rank[cr->recv[j].peer];
			uint32_t i = peer_end(pr->send, pr->nsend, r, nth_to(cr->recv, j));

			qp.peer = cr->recv[j].peer;
			qp.channel = cr->recv[j].channel;
			for (uint32_t n = 0; n < cr->recv[j].nqp; n++) {
				qp.peer_qp = pr->send[i].qp + n;
				cc_add_qp(rs, &qp);
			}
		}
		/* NCCL's flush QP is connected to itself (net_ib/connect.cc:
		 * ncclIbRtrQp with its own qp_num): the READ never leaves the
		 * NIC. */
		for (uint32_t j = 0; j < cr->nrecv; j++)
			if (cr->recv[j].flush_qp != NONE) {
				qp.peer = r;
				qp.peer_qp = cr->recv[j].flush_qp;
				qp.channel = cr->recv[j].channel;
				cc_add_qp(rs, &qp);
			}
	}
}

/* NCCL's Simple primitives cut every step into SlicePerChunk =
 * CHUNKSTEPS / SLICESTEPS slices (src/device/prims_simple.h genericOp), in
 * elements:
 *   sliceSize = max(divUp(nelem, 16 * SlicePerChunk) * 16,
 *                   stepSize * StepPerSlice / 32)
 * A full chunk makes full slices; a shorter one (a size under a loop of
 * nChannels x k chunks) as many shorter ones, down to 1/32 of a full
 * slice.  Where that floor leaves fewer than SlicePerChunk (a step under
 * 1/16 of a slice), NCCL still runs the empty ones, zero-byte messages
 * through its proxy; cclab sends none (docs/schedule.md, Empty chunks). */
void cc_conns_cut(const struct cc_coll_params *p, uint32_t *spc, uint64_t *min)
{
	uint64_t slice = cc_conns_slice_bytes(p), full = slice / cc_dtype_size(p->dtype);

	*spc = 1;
	*min = 0;
	if (cc_conns_slice_steps(p) > 1 && p->proto == CC_PROTO_SIMPLE && full) {
		*spc = (uint32_t)((p->chunk_bytes + slice - 1) / slice);
		*min = full / 32 ? full / 32 : 1;
	}
}

uint64_t cc_conns_slice_elems(const struct cc_conns *c, uint64_t nelem)
{
	return cc_conns_cut_elems(c->slice_per_chunk, c->slice_min, c->slot_elems, nelem);
}

uint64_t cc_conns_nslices(const struct cc_conns *c, uint64_t nelem)
{
	uint64_t n = cc_conns_slice_elems(c, nelem);

	return (nelem + n - 1) / n;
}

void cc_conns_count(struct cc_conns *c, uint32_t r, const struct cc_conn_step *st)
{
	if (cc_prim_sends(st->prim))
		c->rank[r].send[st->send].total += cc_conns_nslices(c, st->nelem);
	if (cc_prim_recvs(st->prim))
		c->rank[r].recv[st->recv].total += cc_conns_nslices(c, st->nelem);
}

/* Receiver side: make slice j of rank r's recv end `je` welcome — post the
 * receive WQE, then tell the sender (RDMA WRITE of j+1 into its CTS word
 * for the slot). */
static void arm(struct cc_conns *c, uint32_t r, uint32_t je, uint64_t j)
{
	struct cc_conn_end *e = &c->rank[r].recv[je];
	const struct cc_conn_rank *pr = &c->rank[e->peer];
	uint32_t slot = (uint32_t)(j % c->nslots);
	enum cc_transport t = c->p->transport;
	struct cc_op op = { .tag = { .prim = CC_PRIM_NONE } };
	uint32_t recv = NONE;

	if (t != CC_WRITE_FLAG) {
		/* WRITE_WITH_IMM consumes a receive WQE without using its SGE
		 * (IBA 9.4.3); SEND lands in it. */
		op.kind = CC_OP_POST_RECV;
		op.u.recv = (struct cc_op_recv){ .qp = slice_qp(e, j), .wr_id = next_op(c, r) };
		if (t == CC_SEND_RECV) {
			op.u.recv.num_sge = 1;
			op.u.recv.sge = (struct cc_sge){
				mr_of(c, r, buf_recv_stage(c, r, je)), slot * c->slot_stride,
				(uint32_t)c->slot_stride };
		}
		/* The slot's previous WQE is reaped first (the LL protocols'
		 * completion, which no reduce waits for).  Cut over all QPs,
		 * one receive on each, their ops consecutive. */
		uint32_t deps[] = { e->slot_free[slot], e->last_recv, e->data_poll[slot] };

		for (uint32_t n = 0; n < slice_nqp(e); n++) {
			op.u.recv.qp = slice_qp(e, j) + n;
			op.u.recv.wr_id = next_op(c, r);
			recv = add(c, r, &op, deps, 3);
			if (n == 0)
				e->recv_wqe[slot] = recv;
			deps[1] = e->last_recv = recv;
		}
	}

	int signaled = slot == 0;
	uint32_t ie = peer_end(pr->send, pr->nsend, r, nth_to(c->rank[r].recv, je));
	op.kind = CC_OP_POST_SEND;
	op.u.send = (struct cc_op_send){
		.qp = e->qp, .wr_id = next_op(c, r), .opcode = CC_WR_RDMA_WRITE,
		.flags = CC_SEND_INLINE | (signaled ? CC_SEND_SIGNALED : 0),
		.payload = CC_PAYLOAD_CTRL, .num_sge = 1,
		.sge = { .length = 8 }, .remote_mr = mr_of(c, e->peer, buf_cts(c, e->peer, ie)),
		.remote_offset = slot * 8ull, .inline_value = j + 1,
	};
	/* ncclIbIrecv's post: the proxy's plugin call that invites the slice
	 * (none inside a node: NCCL's P2P transport has no proxy) */
	op.tag.call = crosses_network(c, r, e->peer) ? CC_CALL_IRECV : CC_CALL_NONE;
	uint32_t deps[] = { e->slot_free[slot], recv, e->last_post, e->cts_poll[slot] };
	uint32_t cts = add(c, r, &op, deps, 4);
	op.tag.call = CC_CALL_NONE;

	op.kind = CC_OP_DOORBELL;
	op.u.doorbell = (struct cc_op_doorbell){ .qp = e->qp, .nwqe = 1 };
	uint32_t db = add(c, r, &op, &cts, 1);
	e->last_post = db;
	e->cts_sent[slot] = db;

	if (signaled) {
		op.kind = CC_OP_POLL_CQ;
		op.u.poll = (struct cc_op_poll){ .cq = c->rank[r].cq, .wr_id = cts };
		e->cts_poll[slot] = add(c, r, &op, &db, 1);
	}
}

void cc_conns_start(struct cc_conns *c, uint32_t r)
{
	const struct cc_conn_rank *cr = &c->rank[r];

	for (uint32_t je = 0; je < cr->nrecv; je++)
		for (uint64_t j = 0; j < cr->recv[je].total && j < c->nslots; j++)
			arm(c, r, je, j);
}

/* The polls of slot `slot`'s receive completions on end e, one per QP
 * its slice took (consecutive receive ops, arm()), one after the other as
 * the proxy tests them; the last. */
static uint32_t reap(struct cc_conns *c, uint32_t r, const struct cc_conn_end *e, uint32_t slot,
		     const struct cc_tag *tag)
{
	struct cc_op op = { .kind = CC_OP_POLL_CQ, .tag = *tag };
	uint32_t last = NONE;

	for (uint32_t n = 0; n < slice_nqp(e); n++) {
		uint32_t wqe = e->recv_wqe[slot] + n, deps[] = { wqe, last };

		op.u.poll = (struct cc_op_poll){ .cq = c->rank[r].cq, .wr_id = wqe };
		last = add(c, r, &op, deps, n ? 2 : 1);
	}
	return last;
}

/* NCCL's GDR flush of the slice in slot `slot` of recv end je, once the
 * proxy has seen it arrive (op `got`): a signaled 1-byte RDMA READ of the
 * slot on the end's loopback QP into its host word, and the proxy's test
 * of it; only then may the kernel read the slot (net.cc
 * recvProxyProgress: the tail moves when the flush request is done).
 * Flushes go out in order, one call each (ncclIbIflush). */
static uint32_t flush(struct cc_conns *c, uint32_t r, uint32_t je, uint32_t slot, uint32_t got,
		      const struct cc_tag *tag)
{
	struct cc_conn_end *e = &c->rank[r].recv[je];
	struct cc_op op = { .kind = CC_OP_POST_SEND, .tag = *tag };
	uint32_t deps[] = { got, e->last_flush };

	op.u.send = (struct cc_op_send){
		.qp = e->flush_qp, .wr_id = next_op(c, r), .opcode = CC_WR_RDMA_READ,
		.flags = CC_SEND_SIGNALED, .payload = CC_PAYLOAD_CTRL, .num_sge = 1,
		.sge = { mr_of(c, r, e->flush_buf), 0, 1 },
		.remote_mr = mr_of(c, r, buf_recv_stage(c, r, je)),
		.remote_offset = slot * c->slot_stride,
	};
	uint32_t post = add(c, r, &op, deps, 2);

	op.kind = CC_OP_DOORBELL;
	op.u.doorbell = (struct cc_op_doorbell){ .qp = e->flush_qp, .nwqe = 1 };
	e->last_flush = add(c, r, &op, &post, 1);
	op.kind = CC_OP_POLL_CQ;
	op.u.poll = (struct cc_op_poll){ .cq = c->rank[r].cq, .wr_id = post };
	return add(c, r, &op, &e->last_flush, 1);
}

/* The op after which slice j (of `bytes` data bytes) on recv end je may
 * be read: its completion, or its flag — for the LL protocols, the flag
 * of its last line, in the slot itself.  With those, a transport's
 * completion still comes and is reaped (data_poll), but nothing waits for
 * it but the slot's next receive WQE: NCCL's LL kernels read the lines
 * while the proxy thread reposts. */
static uint32_t arrival(struct cc_conns *c, uint32_t r, uint32_t je, uint64_t j, uint64_t bytes,
			const struct cc_tag *tag)
{
	struct cc_conn_end *e = &c->rank[r].recv[je];
	uint32_t slot = (uint32_t)(j % c->nslots);
	enum cc_proto proto = c->p->proto;
	struct cc_op op = { .tag = *tag };

	if (proto != CC_PROTO_SIMPLE) {
		uint32_t len = (uint32_t)cc_proto_wire_bytes(proto, bytes), nq = slice_nqp(e);
		uint32_t part = part_bytes(len, nq), last = NONE;

		if (c->p->transport != CC_WRITE_FLAG)
			e->data_poll[slot] = reap(c, r, e, slot, tag);
		/* The last line's flag of the slice, or of each part when it
		 * was cut over several QPs, which land in any order. */
		op.kind = CC_OP_WAIT_MEM;
		for (uint32_t off = 0; off < len; off += part) {
			uint32_t end = len - off < part ? len : off + part;
			uint32_t deps[] = { e->cts_sent[slot], last };

			op.u.wait = (struct cc_op_wait){
				buf_recv_stage(c, r, je),
				slot * c->slot_stride + cc_proto_last_flag_offset(proto, bytes) -
					(len - end),
				cc_proto_flag_word(proto, j + 1) };
			last = add(c, r, &op, deps, off ? 2 : 1);
		}
		return last;
	}
	uint32_t got;

	if (c->p->transport == CC_WRITE_FLAG) {
		/* Watch the flag once the slice has been invited. */
		op.kind = CC_OP_WAIT_MEM;
		op.u.wait = (struct cc_op_wait){ buf_flag(c, r, je), slot * 8ull, j + 1 };
		got = add(c, r, &op, &e->cts_sent[slot], 1);
	} else {
		got = reap(c, r, e, slot, tag);
	}
	return e->flush_qp == NONE || !bytes ? got : flush(c, r, je, slot, got, tag);
}

/* Sender side: slice i, already in send end ie's stage slot i % nslots
 * (made by op `ready`), goes to the peer once the peer's CTS for it is
 * seen. */
static void send_slice(struct cc_conns *c, uint32_t r, uint32_t ie, uint64_t i, uint32_t ready,
		       uint64_t nelem, const struct cc_tag *tag)
{
	struct cc_conn_end *e = &c->rank[r].send[ie];
	const struct cc_conn_rank *pr = &c->rank[e->peer];
	uint32_t je = peer_end(pr->recv, pr->nrecv, r, nth_to(c->rank[r].send, ie));
	uint32_t slot = (uint32_t)(i % c->nslots);
	uint64_t slot_off = slot * c->slot_stride;
	uint32_t len = (uint32_t)cc_proto_wire_bytes(c->p->proto, nelem * c->es);
	enum cc_transport t = c->p->transport;
	/* The LL protocols' lines carry their flags: no flag WRITE. */
	int flag_write = t == CC_WRITE_FLAG && c->p->proto == CC_PROTO_SIMPLE;
	/* net_ib's adaptive-routing split; NVLink hops are not IB verbs */
	int ar = t == CC_WRITE_IMM && c->p->ar_split && len > c->p->ar_threshold &&
		 crosses_network(c, r, e->peer);
	uint32_t q = slice_qp(e, i);
	struct cc_op op = { .tag = *tag };

	/* Watch the slot's CTS word once the slot's previous send is done. */
	op.kind = CC_OP_WAIT_MEM;
	op.u.wait = (struct cc_op_wait){ buf_cts(c, r, ie), slot * 8ull, i + 1 };
	uint32_t cts = add(c, r, &op, &e->slot_free[slot], 1);

	struct cc_op_send data = {
		.qp = q, .payload = CC_PAYLOAD_DATA, .num_sge = 1,
		.sge = { mr_of(c, r, buf_send_stage(c, r, ie)), slot_off, len },
		.remote_mr = mr_of(c, e->peer, buf_recv_stage(c, e->peer, je)),
		.remote_offset = slot_off,
		/* NCCL puts the size in the immediate so the receiver learns it. */
		.imm = len,
	};
	switch (t) {
	case CC_WRITE_IMM:
		/* On InfiniBand with adaptive routing (ar_split), above the
		 * threshold: the data as a plain unsignaled WRITE, the
		 * immediate on a 0-byte WRITE WITH IMM after it (below). */
		data.opcode = ar ? CC_WR_RDMA_WRITE : CC_WR_RDMA_WRITE_WITH_IMM;
		data.flags = ar ? 0 : CC_SEND_SIGNALED;
		data.imm = ar ? 0 : len;
		break;
	case CC_SEND_RECV:
		data.opcode = CC_WR_SEND;
		data.flags = CC_SEND_SIGNALED;
		data.remote_mr = 0;
		data.remote_offset = 0;
		break;
	case CC_WRITE_FLAG:
		/* The flag write that follows completes in order on the RC QP;
		 * only it is signaled. */
		data.opcode = CC_WR_RDMA_WRITE;
		data.flags = flag_write ? 0 : CC_SEND_SIGNALED;
		break;
	default:
		abort();
	}
	/* Cut over all the QPs (split): NCCL's part of a message per QP,
	 * DIVUP(DIVUP(size, nqps), 128) * 128 bytes, the last ones shorter or
	 * empty (a 0-byte WRITE WITH IMM still goes: the receiver counts one
	 * completion per QP), each with the whole size as its immediate. */
	uint32_t nq = slice_nqp(e), part = part_bytes(len, nq), off = 0, poll = NONE;
	uint32_t deps[] = { ready, cts, e->last_post };
	uint32_t ndeps = 3;

	for (uint32_t n = 0; n < nq; n++, q++) {
		uint32_t bytes = len - off < part ? len - off : part;

		data.qp = q;
		data.num_sge = bytes || nq == 1 ? 1 : 0;
		data.sge.offset = slot_off + off;
		data.sge.length = bytes;
		data.remote_offset = t == CC_SEND_RECV ? 0 : slot_off + off;
		data.wr_id = next_op(c, r);
		op.kind = CC_OP_POST_SEND;
		op.u.send = data;
		/* one ncclIbIsend posts every QP's part: its call is the first
		 * (none inside a node, as above) */
		op.tag.call = n == 0 && crosses_network(c, r, e->peer) ? CC_CALL_ISEND : CC_CALL_NONE;
		uint32_t last = add(c, r, &op, deps, ndeps);
		uint32_t nwqe = 1;

		op.tag.call = CC_CALL_NONE;

		if (ar) {
			/* The WRITE WITH IMM behind the data, 0 bytes: it
			 * consumes the receive WQE and carries the size.  The
			 * RC QP executes it after the WRITE (IBA 9.5), and the
			 * responder completes it only once every packet before
			 * it has been placed, whatever path each took. */
			op.u.send = (struct cc_op_send){
				.qp = q, .wr_id = next_op(c, r),
				.opcode = CC_WR_RDMA_WRITE_WITH_IMM, .flags = CC_SEND_SIGNALED,
				.payload = CC_PAYLOAD_CTRL, .remote_mr = data.remote_mr,
				.remote_offset = slot_off + off, .imm = len,
			};
			last = add(c, r, &op, &last, 1);
			nwqe = 2;
		}
		if (flag_write) {
			/* The receiver polls the flag in memory, so it must not
			 * see it before the data: both WRITEs go on the same RC
			 * QP, which executes and places them in order (IBA 9.5,
			 * o9-… "ordering of requests"; NCCL's LL protocols avoid
			 * relying on it by flagging every line). */
			op.u.send = (struct cc_op_send){
				.qp = q, .wr_id = next_op(c, r), .opcode = CC_WR_RDMA_WRITE,
				.flags = CC_SEND_INLINE | CC_SEND_SIGNALED,
				.payload = CC_PAYLOAD_CTRL, .num_sge = 1, .sge = { .length = 8 },
				.remote_mr = mr_of(c, e->peer, buf_flag(c, e->peer, je)),
				.remote_offset = slot * 8ull, .inline_value = i + 1,
			};
			last = add(c, r, &op, &last, 1);
			nwqe = 2;
		}

		op.kind = CC_OP_DOORBELL;
		op.u.doorbell = (struct cc_op_doorbell){ .qp = q, .nwqe = nwqe };
		uint32_t db = add(c, r, &op, &last, 1);
		/* One thread posts: the next ibv_post_send on this QP starts
		 * after this one (WQEs and doorbell) has returned. */
		e->last_post = deps[0] = db;
		ndeps = 1;

		op.kind = CC_OP_POLL_CQ;
		op.u.poll = (struct cc_op_poll){ .cq = c->rank[r].cq, .wr_id = last };
		uint32_t pd[] = { db, poll };
		poll = add(c, r, &op, pd, n ? 2 : 1);
		off += bytes;
	}
	e->slot_free[slot] = poll;
}

static struct cc_mref mref(uint32_t buf, uint64_t elem, size_t es)
{
	return (struct cc_mref){ buf, elem * es };
}

/* Records slice t's calc of a marked step of rank r: 0, or -1 (out of
 * memory, reported through c->oom by cc_conns_build). */
static int mark_slice(struct cc_conns *c, uint32_t r, uint64_t t, uint32_t op)
{
	if (t >= c->nmarked[r]) {
		uint64_t n = 2 * t + 8;
		uint32_t *grown = realloc(c->marked[r], n * sizeof(*grown));

		if (!grown)
			return -1;
		for (uint64_t i = c->nmarked[r]; i < n; i++)
			grown[i] = NONE;
		c->marked[r] = grown;
		c->nmarked[r] = n;
	}
	c->marked[r][t] = op;
	return 0;
}

/* Slice t of step st: elements [done, done + len) of it, len its
 * slices' size (cc_conns_slice_elems()). */
static void emit_slice(struct cc_conns *c, uint32_t r, const struct cc_conn_step *st,
		       uint64_t done, uint64_t len, uint64_t t)
{
	const struct cc_coll_params *p = c->p;
	int recvs = cc_prim_recvs(st->prim), sends = cc_prim_sends(st->prim);
	int reduce = st->prim == CC_PRIM_RECV_REDUCE_SEND ||
		     st->prim == CC_PRIM_RECV_REDUCE_COPY_SEND ||
		     st->prim == CC_PRIM_RECV_REDUCE_COPY;
	uint64_t n = st->nelem - done < len ? st->nelem - done : len;
	struct cc_tag tag = { .prim = st->prim, .channel = st->channel, .chunk = st->chunk,
			      .step = st->step, .slice = (uint32_t)t, .group = st->group };
	struct cc_op op = { .tag = tag };
	struct cc_op_calc *calc = &op.u.calc;
	uint32_t deps[4] = { NONE, NONE, c->serial ? c->last_calc[r] : NONE,
			     st->dep ? st->dep : NONE };

	if (st->after)
		deps[2] = t < c->nmarked[r] ? c->marked[r][t] : NONE;
	uint64_t j = 0, i = 0;

	calc->count = n;
	calc->dtype = p->dtype;
	calc->redop = p->redop;
	calc->postdiv = 1;
	calc->where = p->mem == CC_MEM_GPU ? CC_ON_GPU : CC_ON_CPU;
	/* Sources: what arrived (if any), then this rank's own operand. */
	calc->proto = p->proto;
	calc->warps = st->warps ? st->warps : cc_nccl_block_warps(p->proto);
	if (recvs) {
		j = c->rank[r].recv[st->recv].seq++;
		deps[0] = arrival(c, r, st->recv, j, n * c->es, &tag);
		if (p->proto != CC_PROTO_SIMPLE) {
			calc->src_lines = 1;
			calc->src_flag = j + 1;
		}
		calc->src[calc->nsrc++] = (struct cc_mref){
			buf_recv_stage(c, r, st->recv), (j % c->nslots) * c->slot_stride };
	}
	if (sends) {
		i = c->rank[r].send[st->send].seq++;
		deps[1] = c->rank[r].send[st->send].slot_free[i % c->nslots];
	}
	/* Flags are sequence numbers: one that does not fit would repeat. */
	if (j >= cc_proto_max_flag(p->proto) || i >= cc_proto_max_flag(p->proto))
		c->flag_wrap = 1;
	if (!recvs || reduce)
		calc->src[calc->nsrc++] = mref(st->src_out ? CC_CONN_B_OUT : CC_CONN_B_IN,
					       st->in_off + done, c->es);
	/* Destinations: the output (if this step finalises data), then the
	 * send-stage slot (if it sends). */
	if (st->prim != CC_PRIM_SEND && st->prim != CC_PRIM_RECV_REDUCE_SEND)
		calc->dst[calc->ndst++] = mref(CC_CONN_B_OUT, st->out_off + done, c->es);
	if (sends) {
		if (p->proto != CC_PROTO_SIMPLE) {
			calc->dst_lines = (uint8_t)(1u << calc->ndst);
			calc->dst_flag = i + 1;
		}
		calc->dst[calc->ndst++] = (struct cc_mref){
			buf_send_stage(c, r, st->send), (i % c->nslots) * c->slot_stride };
	}
	op.kind = reduce ? CC_OP_REDUCE : CC_OP_COPY;
	/* avg = sum, divided once where the final value is made (NCCL's
	 * FuncSumPostDiv). */
	if (p->redop == CC_AVG && st->final)
		calc->postdiv = c->k;
	uint32_t op_calc = add(c, r, &op, deps, 4);

	if (c->serial)
		c->last_calc[r] = op_calc;
	if (st->mark && mark_slice(c, r, t, op_calc))
		c->oom = 1;
	if (st->calcs)
		st->calcs[t] = op_calc;
	if (recvs) {
		struct cc_conn_end *e = &c->rank[r].recv[st->recv];

		e->slot_free[j % c->nslots] = op_calc;
		if (j + c->nslots < e->total)
			arm(c, r, st->recv, j + c->nslots);
	}
	if (sends)
		send_slice(c, r, st->send, i, op_calc, n, &tag);
}

void cc_conns_step(struct cc_conns *c, uint32_t r, const struct cc_conn_step *st)
{
	uint64_t len = cc_conns_slice_elems(c, st->nelem);

	for (uint64_t done = 0, t = 0; done < st->nelem && !stopped(c); done += len, t++)
		emit_slice(c, r, st, done, len, t);
}

void cc_conns_exchange(struct cc_conns *c, uint32_t r, const struct cc_conn_step *send,
		       const struct cc_conn_step *recv)
{
	uint64_t ls = cc_conns_slice_elems(c, send->nelem);
	uint64_t lr = cc_conns_slice_elems(c, recv->nelem);

	for (uint64_t t = 0; (t * ls < send->nelem || t * lr < recv->nelem) && !stopped(c); t++) {
		if (t * ls < send->nelem)
			emit_slice(c, r, send, t * ls, ls, t);
		if (t * lr < recv->nelem)
			emit_slice(c, r, recv, t * lr, lr, t);
	}
}

static uint32_t first_to(const struct cc_conn_end *ends, uint32_t n, uint32_t peer,
			 uint16_t ch)
{
	for (uint32_t i = 0; i < n; i++)
		if (ends[i].peer == peer && ends[i].channel == ch)
			return i;
	return NONE;
}

uint32_t cc_conns_send_to(const struct cc_conns *c, uint32_t r, uint32_t peer, uint16_t ch)
{
	return first_to(c->rank[r].send, c->rank[r].nsend, peer, ch);
}

uint32_t cc_conns_recv_from(const struct cc_conns *c, uint32_t r, uint32_t peer, uint16_t ch)
{
	return first_to(c->rank[r].recv, c->rank[r].nrecv, peer, ch);
}

void cc_walk_step(struct cc_walker *w, uint32_t r, const struct cc_conn_step *st)
{
	if (!w->c) {
		struct cc_prim_step ps = { st->prim, st->channel, st->chunk, st->step, st->nelem };

		w->list(w->list_ctx, r, &ps);
	} else if (w->counting)
		cc_conns_count(w->c, r, st);
	else
		cc_conns_step(w->c, r, st);
}

void cc_walk_exchange(struct cc_walker *w, uint32_t r, const struct cc_conn_step *send,
		      const struct cc_conn_step *recv)
{
	if (!w->c || w->counting) {
		cc_walk_step(w, r, send);
		cc_walk_step(w, r, recv);
	} else {
		cc_conns_exchange(w->c, r, send, recv);
	}
}

uint32_t cc_walk_to(const struct cc_walker *w, uint32_t r, uint32_t peer, uint16_t ch)
{
	return w->c ? cc_conns_send_to(w->c, r, peer, ch) : 0;
}

uint32_t cc_walk_from(const struct cc_walker *w, uint32_t r, uint32_t peer, uint16_t ch)
{
	return w->c ? cc_conns_recv_from(w->c, r, peer, ch) : 0;
}

int cc_conns_prepare(struct cc_conns *c, const struct cc_coll_params *p,
		     const struct cc_conns_algo *a, struct cc_schedule **out)
{
	uint64_t slot_elems = cc_conns_slice_bytes(p) / cc_dtype_size(p->dtype);
	struct cc_schedule *s = cc_schedule_new(p);

	*out = NULL;
	memset(c, 0, sizeof(*c));
	if (!s)
		return -ENOMEM;
	if (a->most < slot_elems)
		slot_elems = a->most ? a->most : 1;
	cc_conns_user_buffers(s, p);
	if (conns_init(c, s, p, slot_elems) || (c->serial = a->serial, a->connect(a->ctx, c))) {
		conns_free(c);
		cc_schedule_free(s);
		return -ENOMEM;
	}
	c->deadline_ns = build_deadline_ns;
	if (a->resources)
		a->resources(a->ctx, s);
	conns_setup(c);
	for (uint32_t r = 0; r < c->k && !past_deadline(c); r++)
		a->walk(a->ctx, r, 1);
	if (c->timed_out || cc_schedule_oom(s)) {
		int rc = c->timed_out ? -ETIME : -ENOMEM;

		conns_free(c);
		cc_schedule_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void cc_conns_release(struct cc_conns *c)
{
	conns_free(c);
}

/* The state of one end that emitting changes: its counters and its
 * slots' five arrays. */
static size_t end_words(const struct cc_conns *c)
{
	return 5u * c->nslots;
}

int cc_conns_save(const struct cc_conns *c, uint32_t r, struct cc_conns_saved *sv)
{
	const struct cc_conn_rank *cr = &c->rank[r];
	uint32_t n = cr->nsend + cr->nrecv;

	sv->ends = malloc((n ? n : 1) * sizeof(*sv->ends));
	sv->slots = malloc((n ? n : 1) * end_words(c) * sizeof(uint32_t));
	if (!sv->ends || !sv->slots) {
		cc_conns_saved_free(sv);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct cc_conn_end *e = i < cr->nsend ? &cr->send[i] : &cr->recv[i - cr->nsend];

		sv->ends[i] = *e;
		memcpy(sv->slots + i * end_words(c), e->slot_free, end_words(c) * sizeof(uint32_t));
	}
	sv->last_calc = c->last_calc[r];
	return 0;
}

void cc_conns_restore(struct cc_conns *c, uint32_t r, const struct cc_conns_saved *sv)
{
	struct cc_conn_rank *cr = &c->rank[r];

	for (uint32_t i = 0; i < cr->nsend + cr->nrecv; i++) {
		struct cc_conn_end *e = i < cr->nsend ? &cr->send[i] : &cr->recv[i - cr->nsend];

		*e = sv->ends[i]; /* the same slot arrays: their values back */
		memcpy(e->slot_free, sv->slots + i * end_words(c), end_words(c) * sizeof(uint32_t));
	}
	c->last_calc[r] = sv->last_calc;
}

void cc_conns_saved_free(struct cc_conns_saved *sv)
{
	free(sv->ends);
	free(sv->slots);
	sv->ends = NULL;
	sv->slots = NULL;
}

struct cc_schedule *cc_conns_build(const struct cc_coll_params *p, const struct cc_conns_algo *a)
{
	uint64_t slot_elems = cc_conns_slice_bytes(p) / cc_dtype_size(p->dtype);
	struct cc_schedule *s = cc_schedule_new(p);
	struct cc_conns c;
	int failed;

	if (!s)
		return NULL;
	/* A slot never needs to be larger than the largest message the
	 * algorithm moves: size staging to that (NCCL allocates its full
	 * buffers; this keeps small collectives on many ranks small). */
	if (a->most < slot_elems)
		slot_elems = a->most ? a->most : 1;
	cc_conns_user_buffers(s, p);
	failed = conns_init(&c, s, p, slot_elems);
	if (!failed) {
		c.serial = a->serial;
		c.deadline_ns = build_deadline_ns;
		failed = a->connect(a->ctx, &c);
	}
	if (!failed) {
		if (a->resources)
			a->resources(a->ctx, s);
		conns_setup(&c);
		/* A rank's ops need only its own ends' counts (conns_start,
		 * emit_slice): a build for one rank walks that rank alone. */
		for (uint32_t r = 0; r < c.k && !past_deadline(&c); r++)
			if (cc_conns_builds_rank(r))
				a->walk(a->ctx, r, 1);
		for (uint32_t r = 0; r < c.k && !stopped(&c); r++) {
			if (!cc_conns_builds_rank(r))
				continue;
			cc_conns_start(&c, r);
			a->walk(a->ctx, r, 0);
		}
		failed = c.oom || c.flag_wrap || c.timed_out || cc_schedule_oom(s);
	}
	conns_free(&c);
	if (failed) {
		cc_schedule_free(s);
		errno = c.timed_out ? ETIME : c.flag_wrap ? EOVERFLOW : ENOMEM;
		return NULL;
	}
	return s;
}
