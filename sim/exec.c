/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/exec.c — the simulator executor's host side: the schedule's ops on
 * each rank's CPU and GPU, its memory and completion queues, and the run.
 *
 * Every op of a rank runs on one resource, which serves ready ops in the
 * order they became ready (docs/simulator.md):
 *   post_send, post_recv  the host CPU (NCCL's proxy thread), software.*_ps;
 *   doorbell              the CPU's MMIO store (no CPU time of its own; the
 *                         NIC sees it rnic.doorbell_ps later, sim/rnic.c);
 *   poll_cq, wait_mem     parked, costing nothing, until the CQE or the word
 *                         is in host memory; then one poll on the CPU
 *                         (software.poll_cq_ps), as a busy-polling proxy
 *                         thread sees it at its next poll;
 *   reduce, copy          the GPU (host.gpu_*), or a CPU thread for host
 *                         buffers (host.cpu_*): sim/compute.h; a GPU op's
 *                         operands in host memory (staging without
 *                         GPUDirect RDMA) cross the GPU's PCIe link,
 *                         sim/gpu_host.h.
 * Bytes move when the op that moves them ends — a reduce or copy at its
 * end, a payload when its DMA write is done — so the data seen is the data
 * a real run would see if the schedule guards its buffers (which the data
 * executor, `cclab check`, verifies under every interleaving).
 */
#include "core/gen.h"
#include "sim/exec_int.h"

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/algo.h"
#include "core/word.h"
#include "sim/model.h"
#include "util/splitmix.h"
#include "util/units.h"

const char *const cc_sim_phase_name[CC_SIM_PHASE_COUNT] = {
	[CC_SIM_SOFTWARE] = "software",
	[CC_SIM_PCIE] = "pcie",
	[CC_SIM_WIRE] = "wire",
	[CC_SIM_SWITCH] = "switch",
	[CC_SIM_REDUCE] = "reduce",
	[CC_SIM_GPU_PCIE] = "gpu_pcie",
};

const char *const cc_sim_model_name[CC_SIM_MODEL_COUNT] = {
	[CC_SIM_MODEL_PACKET] = "packet",
	[CC_SIM_MODEL_FLOW] = "flow",
};

int cc_sim_model_parse(const char *s, enum cc_sim_model *out)
{
	for (int i = 0; i < CC_SIM_MODEL_COUNT; i++)
		if (!strcmp(s, cc_sim_model_name[i])) {
			*out = (enum cc_sim_model)i;
			return 0;
		}
	return -EINVAL;
}

_Noreturn void sx_die_nomem(void)
{
	/* A handler cannot return an error: out of memory mid-run unwinds
	 * the run (guarded()), which then fails with -ENOMEM. */
	sim__nomem(__FILE__, __LINE__, "out of memory while simulating");
}

/* ---- packets: slabs, recycled through a free list ---- */

#define SLAB_PKTS 1024u

struct sx_pkt *sx_pkt_get(struct sx *x)
{
	struct sx_pkt *k = x->free_pkts;

	if (!k) {
		SX_GROW(x->slabs, x->nslabs, x->slab_cap);
		struct sx_pkt *slab = calloc(SLAB_PKTS, sizeof(*slab)); /* data NULL */
		if (!slab)
			sx_die_nomem();
		x->slabs[x->nslabs++] = slab;
		for (uint32_t i = 0; i < SLAB_PKTS; i++) {
			slab[i].free_next = x->free_pkts;
			x->free_pkts = &slab[i];
		}
		k = x->free_pkts;
	}
	x->free_pkts = k->free_next;
	memset(k, 0, sizeof(*k));
	return k;
}

void sx_pkt_put(struct sx *x, struct sx_pkt *k)
{
	free(k->data);
	k->data = NULL;
	k->free_next = x->free_pkts;
	x->free_pkts = k;
}

void sx_trace(struct sx *x, enum cc_trace_kind kind, uint32_t r, enum cc_trace_track track,
	      uint32_t qp, uint32_t op, sim_time_ps t, sim_time_ps dur, uint64_t bytes)
{
	struct cc_trace_event e;
	const struct cc_op *o;

	if (!x->o->trace)
		return;
	o = op == SX_NONE ? NULL : cc_rank_op(&x->s->ranks[r], op);
	memset(&e, 0, sizeof(e));
	e.t_ps = t;
	e.dur_ps = dur;
	e.kind = kind;
	e.rank = r;
	e.track = track;
	e.qp = qp == SX_NONE ? CC_TRACE_NONE : qp;
	e.bytes = bytes;
	cc_trace_set_op(&e, o, op);
	if (o) {
		e.tag = o->tag;
		e.wr_id = cc_op_wr_id(o);
	}
	cc_trace_append(x->o->trace, &e);
}

/* ---- errors ---- */

static void set_error(struct sx *x, enum cc_run_status st, enum cc_wc_status wc, uint32_t r,
		      uint32_t qp, uint32_t op, const char *what)
{
	struct cc_run_error *e = &x->res->err;
	const struct cc_op *o;
	uint64_t wr_id;

	if (e->status != CC_RUN_OK)
		return; /* keep the first */
	o = cc_rank_op(&x->s->ranks[r], op);
	wr_id = cc_op_wr_id(o);
	*e = (struct cc_run_error){ .status = st, .wc = wc, .rank = r, .qp = qp, .op = op,
				    .wr_id = wr_id };
	snprintf(e->msg, sizeof(e->msg), "rank %u qp %u op %u (%s) wr_id %" PRIu64 " at %" PRIu64
		 " ps: %s", r, qp, op, cc_op_kind_name[o->kind], wr_id, sim_now(&x->eng), what);
	sim_stop(&x->eng);
}

static void report_first_error(struct sx *x)
{
	char what[96];

	snprintf(what, sizeof(what), "completed with %s",
		 cc_wc_status_name((enum cc_wc_status)x->first_err.status));
	set_error(x, CC_RUN_COMPLETION_ERROR, (enum cc_wc_status)x->first_err.status,
		  x->first_err_rank, x->first_err.qp, x->first_err.op, what);
}

/* ---- ops ---- */

static void op_ready(struct sx *x, uint32_t r, uint32_t i);

static void op_done(struct sx *x, uint32_t r, uint32_t i)
{
	struct sx_rank *rk = &x->rk[r];
	const struct cc_rank_sched *rs = &x->s->ranks[r];

	rk->ndone++;
	if (x->s->gen) {
		struct sx_opst *st = sx_opst(rk, i);

		/* done first: an op made while its users are readied sees it */
		st->done = true;
		/* the next edge read first: a user that completes at once
		 * may move its stream on and give its page back */
		for (uint32_t e = st->users.head, next; e; e = next) {
			uint32_t u = rk->uedge[e - 1].op;

			next = rk->uedge[e - 1].next;
			if (--sx_opst(rk, u)->deps_left == 0)
				op_ready(x, r, u);
		}
	} else {
		for (uint32_t u = rk->users_first[i]; u < rk->users_first[i + 1]; u++)
			if (--rk->deps_left[rk->users[u]] == 0)
				op_ready(x, r, rk->users[u]);
	}
	if (rk->ndone == rs->nops) {
		rk->st->done_ps = sim_now(&x->eng);
		if (++x->ranks_done == x->s->nranks && x->res->time_ps == 0)
			x->res->time_ps = sim_now(&x->eng);
	}
	if (x->s->gen)
		sx_gen_done(x, r, i);
}

/* What the proxy thread spends on op o: the verb's cost, and where o is
 * the post of a network plugin call (ncclIbIsend, ncclIbIrecv), its half
 * of the step's plugin cost (sim/params.c NET_STEP).  Only ops on network
 * QPs come here: NVLink's P2P transport has no proxy (op_p2p). */
static sim_time_ps cpu_cost(const struct sx *x, const struct cc_op *o)
{
	switch (o->kind) {
	case CC_OP_POST_SEND:
		return x->f->soft.post_send_ps +
		       (o->tag.call == CC_CALL_ISEND || o->tag.call == CC_CALL_IRECV
				? x->f->soft.net_step_ps / 2
				: 0);
	case CC_OP_POST_RECV: return x->f->soft.post_recv_ps;
	case CC_OP_POLL_CQ:
	case CC_OP_WAIT_MEM: return x->f->soft.poll_cq_ps;
	default: return 0;
	}
}

static void cpu_done(struct sim_engine *eng, void *ctx, uint64_t arg);

static void cpu_start(struct sx *x, uint32_t r)
{
	struct sx_rank *rk = &x->rk[r];
	const struct cc_op *o = cc_rank_op(&x->s->ranks[r], rk->cpu_q[rk->cpu_head]);

	rk->cpu_busy = true;
	rk->cpu_start = sim_now(&x->eng);
	if (sim_schedule_in(&x->eng, cpu_cost(x, o), cpu_done, rk, 0) == SIM_EVENT_NONE)
		sx_die_nomem();
}

/* Ring q of *cap slots, head to tail, doubled when full (its order kept). */
static void ring_room(uint32_t **q, uint32_t *head, uint32_t *tail, uint32_t *cap)
{
	if ((*tail + 1) % *cap != *head)
		return;
	uint32_t *n = malloc((size_t)*cap * 2 * sizeof(uint32_t)), k = 0;

	if (!n)
		sx_die_nomem();
	for (uint32_t j = *head; j != *tail; j = (j + 1) % *cap)
		n[k++] = (*q)[j];
	free(*q);
	*q = n;
	*head = 0;
	*tail = k;
	*cap *= 2;
}

static void cpu_push(struct sx *x, uint32_t r, uint32_t i)
{
	struct sx_rank *rk = &x->rk[r];

	ring_room(&rk->cpu_q, &rk->cpu_head, &rk->cpu_tail, &rk->cpu_cap);
	rk->cpu_q[rk->cpu_tail] = i;
	rk->cpu_tail = (rk->cpu_tail + 1) % rk->cpu_cap;
	if (!rk->cpu_busy)
		cpu_start(x, r);
}

/* The CQE of `wr_id` in CQ cq, or -1. */
static int64_t cq_find(const struct sx_cq *cq, uint64_t wr_id)
{
	for (uint32_t j = 0; j < cq->n; j++)
		if (cq->e[j].wr_id == wr_id)
			return j;
	return -1;
}

static bool wait_true(const struct sx *x, uint32_t r, const struct cc_op_wait *w)
{
	const uint8_t *m = x->rk[r].mem[w->buf];

	return m && cc_word_load(m + w->offset) >= w->value;
}

static void cpu_run(struct sx *x, uint32_t r, uint32_t i);

/* A poll that has seen what it waits for.  The proxy thread's (a CQ, a
 * control word) costs a poll on the CPU; a wait on a receive slot is the
 * LL protocols' kernel (or reducing thread) spinning on the lines
 * themselves, done the moment the last one lands. */
static void poll_seen(struct sx *x, uint32_t r, uint32_t i)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	const struct cc_op *o = cc_rank_op(rs, i);

	if (o->kind == CC_OP_WAIT_MEM && rs->bufs[o->u.wait.buf].role == CC_BUF_RECV_STAGE)
		op_done(x, r, i);
	else
		cpu_run(x, r, i);
}

static void unpark(struct sx *x, uint32_t r, uint32_t j)
{
	struct sx_rank *rk = &x->rk[r];
	poll_seen(x, r, sx_park_take(&rk->park, &x->s->ranks[r], j));
}

static void calc_done(struct sim_engine *eng, void *ctx, uint64_t arg, sim_time_ps done);

/* The GPU lane (sim/compute.h) of an op: its thread group of its
 * channel's block. */
static uint32_t gpu_lane(const struct cc_tag *t)
{
	return CC_TAG_GROUPS * t->channel + (t->group < CC_TAG_GROUPS ? t->group : 0u);
}

/* A staging job's loads (rd bytes) and stores (wr) of host memory also
 * cross the uplink of the PCIe switch the GPU sits behind, shared with the
 * NICs there (sim/pcie.h): their TLPs at the uplink's rate in *via, and
 * the switch's hop on each flight (a load's request and completion, a
 * store), which the job's own time gains (returned). */
static sim_time_ps staging_via(const struct sx *x, const struct sx_rank *rk, uint64_t rd,
			       uint64_t wr, struct sim_compute_via *via)
{
	struct sim_pcie_params at = x->f->pcie;
	struct sim_gpu_host_cost cost;
	sim_time_ps hop = rk->uplink->latency_ps;

	at.rate_bps = rk->uplink->rate_bps;
	sim_gpu_host_cost(&at, rd, wr, &cost);
	*via = (struct sim_compute_via){
		.up = rk->uplink,
		.ps = {cost.dir_ps[SIM_PCIE_UP], cost.dir_ps[SIM_PCIE_DOWN]},
		.payload = {wr, rd}, /* stores go up, loads' data comes down */
		.wire = {cost.wire[SIM_PCIE_UP], cost.wire[SIM_PCIE_DOWN]},
		.tail_ps = x->f->pcie.latency_ps + hop,
	};
	return (rd ? 2 * hop : 0) + (wr ? hop : 0);
}

/* A reduce or copy on the GPU, on its lane.  Operands partly in host
 * memory (staging without GPUDirect RDMA): the operands in GPU memory go
 * through HBM, the others across the GPU's PCIe link, both at once
 * (sim/gpu_host.h); every operand moves the op's n bytes once. */
static void gpu_calc_submit(struct sx *x, struct sx_rank *rk, const struct cc_rank_sched *rs,
			    uint32_t i)
{
	const struct cc_op *o = cc_rank_op(rs, i);
	const struct cc_op_calc *c = &o->u.calc;
	sim_time_ps pace = sim_compute_pace_ps(&x->f->host, c->proto, c->warps,
					       c->count * cc_dtype_size(c->dtype));
	uint64_t hbm = 0, rd = 0, wr = 0;
	sim_time_ps other;
	struct sim_compute_via via = {0};
	uint8_t path = SX_PATH_OWN;

	for (int j = 0; j < c->nsrc + c->ndst; j++) {
		int dst = j >= c->nsrc;
		const struct cc_mref *m = dst ? &c->dst[j - c->nsrc] : &c->src[j];
		uint64_t n = cc_calc_operand_bytes(c, dst, dst ? j - c->nsrc : j);

		if (rk->buf_path[m->buf] > path)
			path = rk->buf_path[m->buf];
		if (rs->bufs[m->buf].mem == CC_MEM_GPU)
			hbm += n;
		else if (j < c->nsrc)
			rd += n;
		else
			wr += n;
	}
	/* The step's handshake.  Through the proxy (a peer across the
	 * network): host.gpu_step_ps holding the block, a GPU read of a flag in
	 * host memory.  Over NVLink alone (op_p2p): none here; the hop's
	 * latency is the store's (p2p_hop_ps), which NCCL's slots pipeline. */
	other = sim_gpu_host_charge(&rk->gpu_host, rd, wr);
	if (rk->uplink && (rd || wr))
		other += staging_via(x, rk, rd, wr, &via);
	if (sim_compute_submit_via(&rk->gpu, gpu_lane(&o->tag), hbm, other, pace,
				   path != SX_PATH_P2P, via.up ? &via : NULL, calc_done, rk, i))
		sx_die_nomem();
}

static void op_ready(struct sx *x, uint32_t r, uint32_t i)
{
	struct sx_rank *rk = &x->rk[r];
	const struct cc_op *o = cc_rank_op(&x->s->ranks[r], i);

	switch (o->kind) {
	case CC_OP_REDUCE:
	case CC_OP_COPY: {
		const struct cc_op_calc *c = &o->u.calc;
		uint64_t n = 0;
		int err;

		if (c->where == CC_ON_GPU) {
			gpu_calc_submit(x, rk, &x->s->ranks[r], i);
			return;
		}
		/* Operands in lines move their lines: the mean per operand. */
		for (int j = 0; j < c->nsrc + c->ndst; j++)
			n += cc_calc_operand_bytes(c, j >= c->nsrc, j >= c->nsrc ? j - c->nsrc : j);
		n /= (uint64_t)(c->nsrc + c->ndst);
		/* A CPU thread: host memory at its own rate (a CPU reading GPU
		 * memory is not a schedule any builder makes). */
		err = o->kind == CC_OP_REDUCE
			      ? sim_compute_reduce(&rk->cpu_calc, n, c->nsrc, c->ndst, calc_done, rk, i)
			      : sim_compute_copy(&rk->cpu_calc, n, c->ndst, calc_done, rk, i);
		if (err)
			sx_die_nomem();
		return;
	}
	case CC_OP_POLL_CQ:
		if (cq_find(&rk->cq[o->u.poll.cq], o->u.poll.wr_id) < 0) {
			sx_park_add(&rk->park, &x->s->ranks[r], i);
			return;
		}
		break;
	case CC_OP_WAIT_MEM:
		if (!wait_true(x, r, &o->u.wait)) {
			sx_park_add(&rk->park, &x->s->ranks[r], i);
			return;
		}
		poll_seen(x, r, i);
		return;
	case CC_OP_POST_SEND:
	case CC_OP_POST_RECV:
	case CC_OP_DOORBELL:
		break;
	default:
		cc_exec_bad_kind("sim", r, i, (int)o->kind);
	}
	cpu_run(x, r, i);
}

void sx_op_ready(struct sx *x, uint32_t r, uint32_t i)
{
	op_ready(x, r, i);
}

bool sx_gen_would_start(struct sx *x, uint32_t r, uint32_t i)
{
	const struct cc_op *o = cc_rank_op(&x->s->ranks[r], i);

	if (o->kind == CC_OP_WAIT_MEM)
		return wait_true(x, r, &o->u.wait);
	if (o->kind == CC_OP_POLL_CQ)
		return cq_find(&x->rk[r].cq[o->u.poll.cq], o->u.poll.wr_id) >= 0;
	return true;
}

/* The data of a reduce or copy, where the run carries it: all of it when
 * checking; else only what a wait_mem watches (sx_setup), so a
 * destination in lines gets its flags with zeros for data. */
static void calc_data(struct sx *x, uint32_t r, const struct cc_op *o)
{
	const struct cc_op_calc *c = &o->u.calc;
	uint8_t *const *mem = x->rk[r].mem;
	bool all = true;

	for (int j = 0; j < c->nsrc; j++)
		all = all && mem[c->src[j].buf];
	for (int j = 0; j < c->ndst; j++)
		all = all && mem[c->dst[j].buf];
	if (all) {
		/* The run waited for the last line, and a WRITE's packets land
		 * in order: every line is there. */
		if (cc_exec_calc_host(o, mem))
			sim__model_die(__FILE__, __LINE__, "rank %u: a %s read lines before they arrived",
				       r, cc_op_kind_name[o->kind]);
		return;
	}
	for (int j = 0; j < c->ndst; j++)
		if (c->dst_lines >> j & 1 && mem[c->dst[j].buf])
			cc_proto_pack(c->proto, mem[c->dst[j].buf] + c->dst[j].offset, NULL,
				      c->count * cc_dtype_size(c->dtype), c->dst_flag);
}

static void calc_done(struct sim_engine *eng, void *ctx, uint64_t arg, sim_time_ps done)
{
	struct sx_rank *rk = ctx;
	struct sx *x = rk->x;
	uint32_t i = (uint32_t)arg;
	const struct cc_op *o = cc_rank_op(&x->s->ranks[rk->r], i);
	const struct cc_op_calc *c = &o->u.calc;
	struct sim_compute *dev = c->where == CC_ON_GPU ? &rk->gpu : &rk->cpu_calc;
	size_t bytes = c->count * cc_dtype_size(c->dtype);
	sim_time_ps cost = done - sim_compute_job_start(dev);
	/* each GPU lane its own track: blocks overlap, a track's slices nest */
	enum cc_trace_track track = c->where == CC_ON_GPU ? cc_trace_gpu(gpu_lane(&o->tag))
							 : CC_TRACE_CPU;

	(void)eng;
	calc_data(x, rk->r, o);
	sx_trace(x, o->kind == CC_OP_REDUCE ? CC_TRACE_REDUCE_BEGIN : CC_TRACE_COPY_BEGIN, rk->r,
		 track, SX_NONE, i, done - cost, cost, bytes);
	sx_trace(x, o->kind == CC_OP_REDUCE ? CC_TRACE_REDUCE_END : CC_TRACE_COPY_END, rk->r,
		 track, SX_NONE, i, done, 0, bytes);
	for (int j = 0; j < c->ndst; j++)
		sx_mem_written(x, rk->r, c->dst[j].buf, c->dst[j].offset,
			       cc_calc_operand_bytes(c, 1, j));
	op_done(x, rk->r, i);
}

/* A CQE is in host memory: into its CQ, and the poll waiting for it wakes. */
void sx_cqe_visible(struct sx *x, struct sx_pkt *k)
{
	uint32_t r = k->rank;
	struct sx_rank *rk = &x->rk[r];
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	struct sx_cq *cq = &rk->cq[k->cq];
	const struct cc_op *o = cc_rank_op(rs, k->op);
	struct sx_cqe e = {
		.wr_id = cc_op_wr_id(o), .op = k->op, .qp = k->qp,
		.status = k->status, .byte_len = k->byte_len, .imm = k->imm, .is_recv = k->is_recv,
	};

	sx_pkt_put(x, k);
	SX_GROW(cq->e, cq->n, cq->cap);
	cq->e[cq->n++] = e;
	sx_trace(x, CC_TRACE_CQE, r, CC_TRACE_NIC, e.qp, e.op, sim_now(&x->eng), 0, e.byte_len);
	if (e.status == CC_WC_SUCCESS && cq->n > rs->cqs[k->cq].depth) {
		/* A real CQ overruns: IBV_EVENT_CQ_ERR, and its QPs fail. */
		set_error(x, CC_RUN_POST_ERROR, CC_WC_SUCCESS, r, e.qp, e.op,
			  "completion queue overrun (more CQEs than its depth)");
		return;
	}
	uint32_t first = sx_park_find_poll(&rk->park, rs, k->cq, e.wr_id);

	if (first != UINT32_MAX)
		unpark(x, r, first);
}

void sx_mem_written(struct sx *x, uint32_t r, uint32_t buf, uint64_t off, uint64_t len)
{
	struct sx_rank *rk = &x->rk[r];
	const struct cc_rank_sched *rs = &x->s->ranks[r];

	const struct sx_waiters *w = &rk->park.on_buf[buf];
	uint32_t woken = UINT32_MAX, nwoken = 0;

	/* Only the buffer's own waiters: usually none (payload into a buffer
	 * nobody polls now) or one. */
	for (uint32_t j = 0; j < w->n; j++) {
		const struct cc_op_wait *o = &cc_rank_op(rs, w->op[j])->u.wait;

		if (o->offset < off + len && off < o->offset + 8 && wait_true(x, r, o)) {
			woken = w->op[j];
			nwoken++;
		}
	}
	if (nwoken <= 1) {
		if (nwoken)
			unpark(x, r, rk->park.pos[woken]);
		return;
	}
	/* Several wake: in the order a scan of the parked list meets them
	 * (an op that wakes cannot park another that this write wakes: what
	 * it starts writes memory only in later events). */
	for (uint32_t j = 0; j < rk->park.n;) {
		const struct cc_op *o = cc_rank_op(rs, rk->park.list[j]);

		if (o->kind == CC_OP_WAIT_MEM && o->u.wait.buf == buf && o->u.wait.offset < off + len &&
		    off < o->u.wait.offset + 8 && wait_true(x, r, &o->u.wait)) {
			unpark(x, r, j);
			continue;
		}
		j++;
	}
}

static void post_recv(struct sx *x, uint32_t r, uint32_t i)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	const struct cc_op_recv *p = &cc_rank_op(rs, i)->u.recv;
	struct sx_qp *qp = &x->rk[r].qp[p->qp];

	if (cc_fault_on(x->o->faults, x->o->nfaults, CC_FAULT_NO_RECV, r, i))
		return;
	/* A receive WQE's slot is free once its completion is reaped. */
	if (qp->rq_n - qp->rq_retired >= rs->qps[p->qp].max_recv_wr) {
		set_error(x, CC_RUN_POST_ERROR, CC_WC_SUCCESS, r, p->qp, i,
			  "ibv_post_recv: receive queue full (ENOMEM)");
		return;
	}
	if (qp->error) {
		sx_cqe_new(x, r, p->qp, i, true, CC_WC_WR_FLUSH_ERR, 0, 0,
			   sim_now(&x->eng) + x->f->rnic.cqe_write_ps);
		return;
	}
	SX_GROW(qp->rq, qp->rq_n, qp->rq_cap);
	qp->rq[qp->rq_n++] = i;
}

static uint32_t fault_flip(const struct sx *x, uint32_t r, uint32_t i, enum cc_fault_kind kind)
{
	return cc_fault_key_flip(x->o->faults, x->o->nfaults, kind, r, i);
}

static void post_send(struct sx *x, uint32_t r, uint32_t i)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	const struct cc_op_send *p = &cc_rank_op(rs, i)->u.send;
	const struct cc_qp *cq = &rs->qps[p->qp];
	struct sx_rank *rk = &x->rk[r];
	struct sx_qp *qp = &rk->qp[p->qp];
	bool remote = cc_opcode_remote(p->opcode);

	if (qp->sq_n - qp->retired >= cq->max_send_wr) {
		set_error(x, CC_RUN_POST_ERROR, CC_WC_SUCCESS, r, p->qp, i,
			  "ibv_post_send: send queue full (ENOMEM): unsignaled WQEs are freed only "
			  "by a later signaled completion");
		return;
	}
	if ((p->flags & CC_SEND_INLINE) &&
	    (p->sge.length > cq->max_inline || p->sge.length > sizeof(p->inline_value))) {
		set_error(x, CC_RUN_POST_ERROR, CC_WC_SUCCESS, r, p->qp, i,
			  "ibv_post_send: inline payload larger than max_inline_data (EINVAL)");
		return;
	}
	SX_GROW(qp->sq, qp->sq_n, qp->sq_cap);
	qp->sq[qp->sq_n] = (struct sx_wqe){
		.op = i,
		.lkey = (cc_send_local_sge(p) ? rk->key[p->sge.mr] : 0) ^
			fault_flip(x, r, i, CC_FAULT_LKEY),
		/* A multicast QP presents each member's key (sim/nvls.c):
		 * what is kept is what a fault flips in it. */
		.rkey = (remote && !cc_qp_mcast(cq) ? x->rk[cq->peer].key[p->remote_mr] : 0) ^
			fault_flip(x, r, i, CC_FAULT_RKEY),
	};
	*sx_sq_pos(rk, i) = qp->sq_n;
	if (qp->error) {
		qp->sq[qp->sq_n].failed = true;
		qp->sq_n++;
		qp->una = qp->cur = qp->fetched = qp->rung = qp->sq_n;
		sx_cqe_new(x, r, p->qp, i, false, CC_WC_WR_FLUSH_ERR, 0, 0,
			   sim_now(&x->eng) + x->f->rnic.cqe_write_ps);
		return;
	}
	qp->sq_n++;
}

/* Reaps the CQE op i polls for; false when the run ends on it. */
static bool poll_cq(struct sx *x, uint32_t r, uint32_t i)
{
	const struct cc_op_poll *p = &cc_rank_op(&x->s->ranks[r], i)->u.poll;
	struct sx_rank *rk = &x->rk[r];
	struct sx_cq *cq = &rk->cq[p->cq];
	int64_t j = cq_find(cq, p->wr_id);
	struct sx_cqe c;

	if (j < 0)
		sim__model_die(__FILE__, __LINE__, "exec: a poll ran without its CQE");
	c = cq->e[j];
	memmove(&cq->e[j], &cq->e[j + 1], (cq->n - (uint32_t)j - 1) * sizeof(c));
	cq->n--;
	sx_trace(x, CC_TRACE_POLL, r, CC_TRACE_CPU, c.qp, i, sim_now(&x->eng), 0, c.byte_len);
	if (c.status != CC_WC_SUCCESS) {
		/* Reaping any error ends the run, reporting the root cause. */
		report_first_error(x);
		return false;
	}
	if (c.is_recv) {
		rk->qp[c.qp].rq_retired++;
	} else {
		/* Frees this WQE and every unsignaled one before it. */
		struct sx_qp *qp = &rk->qp[c.qp];
		uint32_t upto = *sx_sq_pos(rk, c.op) + 1;

		if (upto > qp->retired)
			qp->retired = upto;
	}
	return true;
}

/* What a CPU-side op does once its time (start to now) is spent; false
 * when the run ends there. */
static bool cpu_effect(struct sx *x, uint32_t r, uint32_t i, sim_time_ps start, sim_time_ps now)
{
	const struct cc_op *o = cc_rank_op(&x->s->ranks[r], i);

	switch (o->kind) {
	case CC_OP_POST_RECV:
		post_recv(x, r, i);
		sx_trace(x, CC_TRACE_POST, r, CC_TRACE_CPU, o->u.recv.qp, i, start, now - start,
			 o->u.recv.sge.length);
		break;
	case CC_OP_POST_SEND:
		post_send(x, r, i);
		sx_trace(x, CC_TRACE_POST, r, CC_TRACE_CPU, o->u.send.qp, i, start, now - start,
			 cc_wqe_len(&o->u.send));
		break;
	case CC_OP_DOORBELL:
		sx_nic_doorbell(x, r, o->u.doorbell.qp, o->u.doorbell.nwqe);
		sx_trace(x, CC_TRACE_DOORBELL, r, CC_TRACE_CPU, o->u.doorbell.qp, i, now, 0, 0);
		break;
	case CC_OP_POLL_CQ:
		if (!poll_cq(x, r, i))
			return false;
		break;
	case CC_OP_WAIT_MEM:
		break;
	default:
		sim__model_die(__FILE__, __LINE__, "exec: %s op on the CPU queue",
			       cc_op_kind_name[o->kind]);
	}
	return x->res->err.status == CC_RUN_OK;
}

static void cpu_done(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx_rank *rk = ctx;
	struct sx *x = rk->x;
	uint32_t r = rk->r;
	uint32_t i = rk->cpu_q[rk->cpu_head];
	sim_time_ps now = sim_now(eng);

	(void)arg;
	rk->cpu_head = (rk->cpu_head + 1) % rk->cpu_cap;
	rk->cpu_busy = false;
	rk->cpu_busy_ps += now - rk->cpu_start;
	if (!cpu_effect(x, r, i, rk->cpu_start, now))
		return;
	op_done(x, r, i);
	if (!rk->cpu_busy && rk->cpu_head != rk->cpu_tail)
		cpu_start(x, r);
}

/* NCCL's P2P transport (src/transport/p2p.cc): between GPUs of one node
 * the kernel's own threads store into the peer's buffers over NVLink and
 * poll flags in GPU memory; no proxy thread, no doorbell, no WQE, no CQE.
 * The schedule's verbs ops on a QP over NVLink stand for those stores and
 * polls: they take effect at once, cost no CPU time and never queue behind
 * the proxy's work on the network; a post's stores leave one hop's latency
 * later (p2p_post), and a reduce or copy has no handshake step. */
static bool op_p2p(const struct sx *x, uint32_t r, const struct cc_op *o)
{
	const struct sx_rank *rk = &x->rk[r];

	switch (o->kind) {
	case CC_OP_POST_SEND: return rk->qp[o->u.send.qp].nvlink;
	case CC_OP_POST_RECV: return rk->qp[o->u.recv.qp].nvlink;
	case CC_OP_DOORBELL: return rk->qp[o->u.doorbell.qp].nvlink;
	case CC_OP_POLL_CQ: {
		const struct sx_cq *cq = &rk->cq[o->u.poll.cq];
		int64_t j = cq_find(cq, o->u.poll.wr_id);

		return j >= 0 && rk->qp[cq->e[j].qp].nvlink;
	}
	case CC_OP_WAIT_MEM: return rk->buf_path[o->u.wait.buf] == SX_PATH_P2P;
	default: return false;
	}
}

/* The P2P ops that became ready, taking effect in one event at the time
 * they did, in the order they did (no recursion through op_done). */
static void p2p_drain(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx_rank *rk = ctx;
	struct sx *x = rk->x;
	sim_time_ps now = sim_now(eng);

	(void)arg;
	while (rk->p2p_head != rk->p2p_tail && x->res->err.status == CC_RUN_OK) {
		uint32_t i = rk->p2p_q[rk->p2p_head];

		rk->p2p_head = (rk->p2p_head + 1) % rk->p2p_cap;
		if (cpu_effect(x, rk->r, i, now, now))
			op_done(x, rk->r, i);
	}
	rk->p2p_armed = false;
}

/* NCCL's P2P hop latency for the schedule's protocol. */
static sim_time_ps p2p_hop_ps(const struct sx *x)
{
	return sim_p2p_hop_ps(&x->f->host, x->s->params.proto);
}

/* A P2P post: the stores it stands for start one hop's latency later;
 * what the kernel does next does not wait (NCCL's slots pipeline it). */
static void p2p_post(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sx_rank *rk = ctx;
	sim_time_ps now = sim_now(eng);

	if (rk->x->res->err.status == CC_RUN_OK && cpu_effect(rk->x, rk->r, (uint32_t)arg, now, now))
		op_done(rk->x, rk->r, (uint32_t)arg);
}

/* A CPU-side op ready to run: on the proxy's queue, or at once (P2P). */
static void cpu_run(struct sx *x, uint32_t r, uint32_t i)
{
	struct sx_rank *rk = &x->rk[r];
	const struct cc_op *o = cc_rank_op(&x->s->ranks[r], i);

	if (!op_p2p(x, r, o)) {
		cpu_push(x, r, i);
		return;
	}
	if (o->kind == CC_OP_POST_SEND && p2p_hop_ps(x)) {
		if (sim_schedule_in(&x->eng, p2p_hop_ps(x), p2p_post, rk, i) == SIM_EVENT_NONE)
			sx_die_nomem();
		return;
	}
	ring_room(&rk->p2p_q, &rk->p2p_head, &rk->p2p_tail, &rk->p2p_cap);
	rk->p2p_q[rk->p2p_tail] = i;
	rk->p2p_tail = (rk->p2p_tail + 1) % rk->p2p_cap;
	if (!rk->p2p_armed) {
		rk->p2p_armed = true;
		if (sim_schedule_in(&x->eng, 0, p2p_drain, rk, 0) == SIM_EVENT_NONE)
			sx_die_nomem();
	}
}

/* ---- setup ---- */

static void *xcalloc(struct sx *x, size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (p)
		x->res->mem_bytes += n * size;
	return p;
}

/* The QP's path MTU: the smaller of its two directions' (each flow's
 * path may differ under ECMP), as both ends of an IB QP are given one
 * path MTU (ibv_modify_qp IBV_QP_PATH_MTU). */
static uint32_t qp_mtu(const struct sx *x, uint32_t r, const struct sx_qp *qp)
{
	const struct sim_topo *t = &x->topo;
	uint32_t there = sim_topo_path_mtu(t, r, qp->peer, sim_topo_qp_flow(r, qp->q));
	uint32_t back = sim_topo_path_mtu(t, qp->peer, r, sim_topo_qp_flow(qp->peer, qp->peer_q));

	return there < back ? there : back;
}

/* A QP connected to itself (NCCL's GDR flush QP): the rank's first
 * network port, whose NIC turns its packets round inside (sim/rnic.c
 * loopback()); SIM_TOPO_NO_PORT without one, which fails the run. */
static uint32_t loopback_port(const struct sx *x, uint32_t r)
{
	for (uint32_t p = 0; p < sim_topo_nic_nports(&x->topo, r); p++)
		if (!sim_topo_nic_port_nvlink(&x->topo, r, p))
			return p;
	return SIM_TOPO_NO_PORT;
}

/* The port QP q of rank r (of NCCL channel `channel`) reaches its peer
 * by.  A GPU with several NICs (its host's `nics`) deals its channels over
 * them, channel c on NIC c mod nics, as NCCL's ring search does
 * (src/graph/search.cc, ncclTopoSearchRecNet: channel c tries the NICs
 * from c mod count on); where that NIC has no shortest path to the peer (a
 * peer over NVLink) the route decides, as for every other GPU: by the
 * flow's hash among equal ports. */
static uint32_t peer_route(const struct sx *x, uint32_t r, uint32_t peer, uint32_t q,
			   uint32_t channel)
{
	const struct sim_net *n = x->topo.net;
	uint32_t want = x->rk[r].nnics > 1 ? channel % x->rk[r].nnics : SIM_TOPO_NO_PORT;
	uint32_t buf[SIM_NET_NIC_PORTS_MAX];
	const uint32_t *ports;
	uint32_t cnt = sim_net_routes(n, n->rank_node[r], peer, buf, &ports);

	for (uint32_t p = 0, i = 0; want != SIM_TOPO_NO_PORT && p < sim_topo_nic_nports(&x->topo, r);
	     p++) {
		if (sim_topo_nic_port_nvlink(&x->topo, r, p))
			continue;
		if (i++ != want)
			continue;
		for (uint32_t j = 0; j < cnt; j++)
			if (ports[j] == p)
				return p;
		break;
	}
	return sim_topo_route(&x->topo, r, peer, sim_topo_qp_flow(r, q));
}

/* A multicast QP's port: the one to its host's NVSwitch, whose host holds
 * the whole group (sim/nvls.c), or for a group of the network's (SHARP,
 * sim/sharp.c) the rank's first network port; SIM_TOPO_NO_PORT if there
 * is none, which fails the run. */
static uint32_t mcast_port(const struct sx *x, uint32_t r, const struct cc_qp *cq)
{
	if (sx_sharp_group(x, cq))
		return loopback_port(x, r);
	return sim_topo_nvswitch_port(&x->topo, r, NULL, NULL);
}

/* A multicast QP's MTU: the smallest of its members' links to the switch,
 * which every copy, share and result crosses. */
static uint32_t mcast_mtu(const struct sx *x, const struct cc_qp *cq)
{
	uint32_t mtu = UINT32_MAX;
	bool sharp = sx_sharp_group(x, cq);

	for (uint32_t j = 0; j < cq->group; j++) {
		uint32_t m = cc_qp_member(cq, j);
		uint32_t p = sharp ? loopback_port(x, m) : sim_topo_nvswitch_port(&x->topo, m, NULL, NULL);
		uint32_t v = p == SIM_TOPO_NO_PORT ? 0 : sim_topo_nic_port_mtu(&x->topo, m, p);

		if (v < mtu)
			mtu = v;
	}
	return mtu == UINT32_MAX ? 0 : mtu;
}

/* Which of a rank's buffers a run carries (carry[b] = 1): every one with
 * check on, else what a wait_mem watches and the slots the LL protocols'
 * lines are written to (their flags are what the receiver watches). */
static void carry_of(void *ctx, const struct cc_op *o)
{
	uint8_t *carry = ctx;

	if (o->kind == CC_OP_WAIT_MEM)
		carry[o->u.wait.buf] = 1;
	if ((o->kind == CC_OP_REDUCE || o->kind == CC_OP_COPY) && o->u.calc.dst_lines)
		for (int j = 0; j < o->u.calc.ndst; j++)
			carry[o->u.calc.dst[j].buf] |= o->u.calc.dst_lines >> j & 1;
}

/* 0 or -ENOMEM (a generated schedule's ops are made to be looked at). */
static int carried_bufs(const struct cc_schedule *s, uint32_t r, bool check, uint8_t *carry)
{
	memset(carry, check, s->ranks[r].nbufs);
	return check ? 0 : cc_sched_each_op(s, r, carry_of, carry);
}

/* Whose buffer b is, and how its peer is reached (SX_PATH_*): a
 * connection's staging and control buffers are their peer's, over the
 * path its QPs take; the NVLS multicast buffer is the NVSwitch's. */
static uint8_t buf_path(const struct cc_rank_sched *rs, const struct sx_rank *rk, uint32_t b)
{
	const struct cc_buffer *d = &rs->bufs[b];

	if (d->role == CC_BUF_MCAST)
		return SX_PATH_P2P;
	if (d->peer < 0 || d->role == CC_BUF_INPUT || d->role == CC_BUF_OUTPUT)
		return SX_PATH_OWN;
	for (uint32_t q = 0; q < rs->nqps; q++)
		if (rs->qps[q].peer == (uint32_t)d->peer && !cc_qp_mcast(&rs->qps[q]))
			return rk->qp[q].nvlink ? SX_PATH_P2P : SX_PATH_NET;
	return SX_PATH_OWN;
}

static int setup_rank(struct sx *x, uint32_t r)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	struct sx_rank *rk = &x->rk[r];
	uint32_t n = rs->nops;
	int err;

	rk->x = x;
	rk->r = r;
	rk->st = &x->res->rank[r];
	rk->nnics = sim_net_rank_nics(x->topo.net, r);
	/* Its NICs reach GPU memory through the GPU's own link, an x16 of the
	 * fabric's generation; the hop is in their links' latency. */
	rk->gpu_link = (struct sim_pcie_uplink){.rate_bps = x->f->pcie.rate_bps, .reversed = true};
	rk->mem = xcalloc(x, rs->nbufs, sizeof(*rk->mem));
	rk->key = xcalloc(x, rs->nmrs, sizeof(*rk->key));
	if (x->s->gen) {
		if (sx_gen_rank_init(x, r))
			return -ENOMEM;
	} else {
		rk->deps_left = xcalloc(x, n, sizeof(uint32_t));
		rk->users_first = xcalloc(x, n + 2, sizeof(uint32_t));
		rk->users = xcalloc(x, rs->ndeps, sizeof(uint32_t));
		rk->sq_pos = xcalloc(x, n, sizeof(uint32_t));
		if (!rk->deps_left || !rk->users_first || !rk->users || !rk->sq_pos)
			return -ENOMEM;
	}
	/* Rings that double when full: a built schedule's large enough */
	rk->cpu_cap = rk->p2p_cap = x->s->gen ? 64 : n + 1;
	rk->cpu_q = xcalloc(x, rk->cpu_cap, sizeof(uint32_t));
	rk->p2p_q = xcalloc(x, rk->p2p_cap, sizeof(uint32_t));
	rk->qp = xcalloc(x, rs->nqps, sizeof(*rk->qp));
	rk->cq = xcalloc(x, rs->ncqs, sizeof(*rk->cq));
	if (!rk->mem || !rk->key || !rk->cpu_q || !rk->p2p_q || !rk->qp || !rk->cq ||
	    sx_park_init(&rk->park, x->s, r, &x->res->mem_bytes))
		return -ENOMEM;
	/* Without checking, only what a wait_mem watches is carried, and the
	 * send slots of the LL protocols, whose lines bring the flags a
	 * receiver watches. */
	uint8_t *carry = calloc(rs->nbufs ? rs->nbufs : 1, 1);
	if (!carry)
		return -ENOMEM;
	err = carried_bufs(x->s, r, x->o->check, carry);
	for (uint32_t b = 0; b < rs->nbufs && !err; b++) {
		if (!carry[b])
			continue;
		/* calloc: untouched staging pages cost no memory. */
		rk->mem[b] = calloc(rs->bufs[b].size ? rs->bufs[b].size : 1, 1);
		if (!rk->mem[b])
			err = -ENOMEM;
	}
	free(carry);
	if (err)
		return err;
	/* The data executor's keys, so a fault flips the same bits. */
	cc_exec_keys(rs, r, x->o->seed, rk->key);
	if (!x->s->gen)
		cc_exec_users(rs, rk->deps_left, rk->users_first, rk->users);
	for (uint32_t q = 0; q < rs->nqps; q++) {
		struct sx_qp *qp = &rk->qp[q];

		qp->rank = r;
		qp->q = q;
		qp->peer = rs->qps[q].peer;
		qp->peer_q = rs->qps[q].peer_qp;
		qp->mcast = cc_qp_mcast(&rs->qps[q]);
		qp->port = qp->mcast		? mcast_port(x, r, &rs->qps[q])
			   : qp->peer == r	? loopback_port(x, r)
						: peer_route(x, r, qp->peer, q, rs->qps[q].channel);
		qp->peer_port = SX_NONE;
		/* The schedule asks for retry counts (NCCL: 7 and 7); the fabric's
		 * rnic.retry_cnt / rnic.rnr_retry are the deployment's ceiling,
		 * as NCCL_IB_RETRY_CNT is: the smaller of the two holds. */
		qp->retry_max = rs->qps[q].retry_cnt < x->f->rnic.retry_cnt ? rs->qps[q].retry_cnt
									      : x->f->rnic.retry_cnt;
		qp->rnr_max = rs->qps[q].rnr_retry < x->f->rnic.rnr_retry ? rs->qps[q].rnr_retry
									   : x->f->rnic.rnr_retry;
		qp->retry_left = qp->retry_max;
		qp->rnr_left = qp->rnr_max;
		if (qp->port == SIM_TOPO_NO_PORT)
			return -EINVAL;
		qp->nvlink = sim_topo_nic_port_nvlink(&x->topo, r, qp->port);
		sim_dcqcn_init(&qp->cc, sim_topo_nic_tx(&x->topo, r, qp->port)->rate_bps);
		qp->mtu = qp->mcast	    ? mcast_mtu(x, &rs->qps[q])
			  : qp->peer == r ? x->f->link.mtu_bytes
					  : qp_mtu(x, r, qp);
		if (qp->mtu == 0)
			return -EINVAL;
	}
	if (x->s->gen && sx_gen_queues_init(x, r))
		return -ENOMEM;
	if (!(rk->buf_path = xcalloc(x, rs->nbufs, 1)))
		return -ENOMEM;
	for (uint32_t b = 0; b < rs->nbufs; b++)
		rk->buf_path[b] = buf_path(rs, rk, b);
	sim_gpu_host_init(&rk->gpu_host, &x->f->pcie);
	err = sim_compute_init_host(&rk->gpu, &x->eng, SIM_COMPUTE_GPU, &x->f->host);
	if (!err)
		err = sim_compute_init_host(&rk->cpu_calc, &x->eng, SIM_COMPUTE_CPU, &x->f->host);
	if (!err)
		err = sx_nic_init(x, r);
	return err;
}

static void free_rank(struct sx *x, uint32_t r)
{
	const struct cc_rank_sched *rs = &x->s->ranks[r];
	struct sx_rank *rk = &x->rk[r];

	if (rk->mem)
		for (uint32_t b = 0; b < rs->nbufs; b++)
			free(rk->mem[b]);
	if (rk->qp && x->s->gen)
		sx_gen_queues_free(x, r);
	if (rk->qp)
		for (uint32_t q = 0; q < rs->nqps; q++) {
			free(rk->qp[q].sq);
			free(rk->qp[q].rq);
			free(rk->qp[q].rd);
			free(rk->qp[q].sr_psn);
		}
	if (rk->cq)
		for (uint32_t c = 0; c < rs->ncqs; c++)
			free(rk->cq[c].e);
	if (rk->x) {
		sim_compute_destroy(&rk->gpu);
		sim_compute_destroy(&rk->cpu_calc);
		sx_nic_destroy(x, r);
	}
	free(rk->mem);
	free(rk->buf_path);
	free(rk->key);
	if (x->s->gen) {
		sx_gen_rank_free(x, r);
	} else {
		free(rk->deps_left);
		free(rk->sq_pos);
	}
	free(rk->users_first);
	free(rk->users);
	free(rk->cpu_q);
	free(rk->p2p_q);
	sx_park_free(&rk->park, x->s, r);
	free(rk->qp);
	free(rk->cq);
}

void cc_sim_stage_for(struct cc_coll_params *p, const struct sim_params *f)
{
	if (f->host.gpu_dma == SIM_GPU_DMA_HOST_STAGING)
		p->stage_mem = CC_MEM_HOST;
}

/* Whether rank rs has an RC QP: a NIC's, not only multicast ones (those
 * reach GPU memory over NVLink, bound by cuMulticastBindMem, registered
 * with no NIC). */
static bool has_rc_qp(const struct cc_rank_sched *rs)
{
	for (uint32_t q = 0; q < rs->nqps; q++)
		if (!cc_qp_mcast(&rs->qps[q]))
			return true;
	return false;
}

/* Per MR of rank r, into use[]: 1 if an op on a multicast QP names it,
 * 2 if one on an RC QP does (its own, or a peer's naming it remote); or'd. */
struct mr_use {
	const struct cc_rank_sched *rs, *ps; /* rank r's, and the op's rank p's */
	uint32_t r, p;
	uint8_t *use;
};

static void mr_use_of(void *ctx, const struct cc_op *o)
{
	const struct mr_use *m = ctx;
	uint32_t q = o->kind == CC_OP_POST_SEND ? o->u.send.qp
		   : o->kind == CC_OP_POST_RECV ? o->u.recv.qp : UINT32_MAX;

	if (q >= m->ps->nqps)
		return;
	bool mc = cc_qp_mcast(&m->ps->qps[q]);
	const struct cc_sge *g = o->kind == CC_OP_POST_SEND ? &o->u.send.sge : &o->u.recv.sge;
	/* an inline send's data is in the WQE: no MR read */
	uint32_t nsge = o->kind == CC_OP_POST_RECV ? o->u.recv.num_sge
			: o->u.send.flags & CC_SEND_INLINE ? 0 : o->u.send.num_sge;

	if (m->p == m->r && nsge && g->mr < m->rs->nmrs)
		m->use[g->mr] |= mc ? 1 : 2;
	/* a two-sided SEND names no remote MR: its remote_mr is left 0,
	 * which would be the peer's first MR */
	if (!mc && o->kind == CC_OP_POST_SEND && m->ps->qps[q].peer == m->r &&
	    cc_opcode_remote(o->u.send.opcode) && o->u.send.remote_mr < m->rs->nmrs)
		m->use[o->u.send.remote_mr] |= 2;
}

/* 0, or -ENOMEM (use then says nothing). */
static int mr_users(const struct cc_schedule *s, uint32_t r, uint8_t *use)
{
	struct mr_use m = { .rs = &s->ranks[r], .r = r, .use = use };

	memset(use, 0, m.rs->nmrs);
	for (m.p = 0; m.p < s->nranks; m.p++) {
		m.ps = &s->ranks[m.p];
		if (cc_sched_each_op(s, m.p, mr_use_of, &m))
			return -ENOMEM;
	}
	return 0;
}

/* A memory region over GPU memory on a host without GPUDirect RDMA: the
 * NIC cannot reach it, and ibv_reg_mr would have failed (no peer-memory
 * client: EFAULT), so the run cannot start.  On a rank with multicast
 * QPs, an MR no RC QP uses is the multicast's (cuMulticastBindMem, or the
 * kernel's own loads and stores), not registered with the NIC: NVLS's,
 * beside NVLSTree's staged network. */
static bool nic_needs_gdr(const struct cc_schedule *s, const struct sim_params *f)
{
	bool need = false;

	if (f->host.gpu_dma != SIM_GPU_DMA_HOST_STAGING)
		return false;
	for (uint32_t r = 0; r < s->nranks && !need; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];
		uint8_t *use;

		if (!has_rc_qp(rs))
			continue;
		use = malloc(rs->nmrs ? rs->nmrs : 1);
		if (use && mr_users(s, r, use)) {
			free(use);
			use = NULL;
		}
		bool mcast = false;

		for (uint32_t q = 0; q < rs->nqps; q++)
			mcast |= cc_qp_mcast(&rs->qps[q]);
		for (uint32_t m = 0; m < rs->nmrs && !need; m++)
			need = rs->bufs[rs->mrs[m].buf].mem == CC_MEM_GPU &&
			       (!use || (use[m] & 2) || (!use[m] && !mcast));
		free(use);
	}
	return need;
}

/* ---- the run ---- */

/* The wall-clock limit cut the run: named at the first rank not done, by
 * the op it waits on. */
static void describe_wall(struct sx *x)
{
	char what[96];

	snprintf(what, sizeof(what), "time limit reached: the wall-clock limit (%" PRIu64 " ms) "
		 "stopped the run", x->o->wall_limit_ms);
	for (uint32_t r = 0; r < x->s->nranks; r++) {
		const struct sx_rank *rk = &x->rk[r];
		const struct cc_rank_sched *rs = &x->s->ranks[r];
		uint32_t i = 0;

		if (rk->ndone == rs->nops)
			continue;
		if (rk->park.n)
			i = rk->park.list[0];
		else if (x->s->gen)
			i = (i = sx_gen_waiting(x, r)) < rs->nops ? i : rs->nops - 1;
		else
			while (i + 1 < rs->nops && *sx_deps_left(rk, i) == 0)
				i++;
		set_error(x, CC_RUN_TIME_LIMIT, CC_WC_SUCCESS, r, 0, i, what);
		return;
	}
}

/* Ops left when the run ended: stopped by the simulated-time limit with
 * events still pending (CC_RUN_TIME_LIMIT: it might have finished given
 * longer, or, retrying RNR forever, never), or with none left, a real
 * deadlock (CC_RUN_DEADLOCK: nothing can ever happen again). */
static void describe_stuck(struct sx *x)
{
	bool limit = sim_pending(&x->eng) > 0;
	enum cc_run_status st = limit ? CC_RUN_TIME_LIMIT : CC_RUN_DEADLOCK;
	char at[SIM_TIME_FMT_LEN], what[160];

	if (x->have_err) {
		report_first_error(x);
		return;
	}
	if (x->wall_hit) {
		describe_wall(x);
		return;
	}
	sim_time_fmt(x->o->time_limit_ps ? x->o->time_limit_ps : CC_SIM_TIME_LIMIT_DEFAULT_PS, at,
		     sizeof(at));
	for (uint32_t r = 0; r < x->s->nranks; r++) {
		struct sx_rank *rk = &x->rk[r];
		const struct cc_rank_sched *rs = &x->s->ranks[r];

		for (uint32_t q = 0; q < rs->nqps; q++)
			if (rk->qp[q].rnr_wait) {
				struct sx_qp *qp = &rk->qp[q];
				uint32_t i = qp->una < qp->sq_n ? qp->sq[qp->una].op : 0;

				snprintf(what, sizeof(what), "time limit reached (%s simulated) still "
					 "retrying after RNR NAKs: the peer never posts a receive "
					 "(rnr_retry = 7 retries forever)", at);
				set_error(x, CC_RUN_TIME_LIMIT, CC_WC_SUCCESS, r, q, i, what);
				return;
			}
		if (rk->park.n) {
			snprintf(what, sizeof(what), "time limit reached (%s simulated) waiting for a "
				 "completion or flag", at);
			set_error(x, st, CC_WC_SUCCESS, r, 0, rk->park.list[0],
				  limit ? what
					: "deadlock: waits for a completion or flag that never comes");
			return;
		}
		if (rk->ndone < rs->nops) {
			uint32_t i = 0;

			if (x->s->gen)
				i = sx_gen_waiting(x, r);
			else
				while (i < rs->nops && *sx_deps_left(rk, i) == 0)
					i++;
			snprintf(what, sizeof(what), "time limit reached (%s simulated)", at);
			set_error(x, st, CC_WC_SUCCESS, r, 0, i < rs->nops ? i : 0,
				  limit ? what : "deadlock: dependencies never complete");
			return;
		}
	}
}

/* The PCIe switch uplinks' counters, two a switch (up, then down), after
 * the network's: switch i of host H is "H.pcie<i>", its root complex
 * (and host memory behind it) "H.root". */
static void collect_uplinks(const struct sx *x, struct cc_sim_link_stats *st)
{
	const struct sim_net *net = x->topo.net;

	for (uint32_t h = 0; h < net->nhosts; h++) {
		const struct sim_net_host *ho = &net->hosts[h];

		for (uint32_t i = 0; i < ho->pcie.switches; i++) {
			const struct sim_pcie_uplink *u = &x->uplinks[ho->first_pcie_switch + i];

			for (int d = 0; d < SIM_PCIE_NDIR; d++) {
				struct cc_sim_link_stats *l = st++;
				/* a host's name leaves room for ".nvswitch" (sim/net.c) */
				char sw[SIM_NET_NAME_LEN + 16], root[SIM_NET_NAME_LEN + 16];

				snprintf(sw, sizeof(sw), "%s.pcie%u", ho->name, i);
				snprintf(root, sizeof(root), "%s.root", ho->name);
				snprintf(l->from, sizeof(l->from), "%.*s", (int)sizeof(l->from) - 1,
					 d == SIM_PCIE_UP ? sw : root);
				snprintf(l->to, sizeof(l->to), "%.*s", (int)sizeof(l->to) - 1,
					 d == SIM_PCIE_UP ? root : sw);
				l->pcie = true;
				l->rate_bps = u->rate_bps;
				l->tx_bytes = u->wire_bytes[d];
				l->tx_payload_bytes = u->payload_bytes[d];
				l->busy_ps = u->busy_ps[d];
			}
		}
	}
}

/* The links between the hosts' sockets (host.nic_socket remote), two a
 * host, after the uplinks: up (what the NICs write) from "H.socket1", the
 * NICs' socket, to "H.socket0", the GPUs', then down (what they read). */
static void collect_socket_links(const struct sx *x, struct cc_sim_link_stats *st)
{
	const struct sim_net *net = x->topo.net;

	for (uint32_t h = 0; x->socket_links && h < net->nhosts; h++) {
		const struct sim_pcie_uplink *u = &x->socket_links[h];

		for (int d = 0; d < SIM_PCIE_NDIR; d++) {
			struct cc_sim_link_stats *l = st++;

			snprintf(l->from, sizeof(l->from), "%.*s.socket%d", SIM_NET_NAME_LEN - 10,
				 net->hosts[h].name, d == SIM_PCIE_UP);
			snprintf(l->to, sizeof(l->to), "%.*s.socket%d", SIM_NET_NAME_LEN - 10,
				 net->hosts[h].name, d != SIM_PCIE_UP);
			l->socket = true;
			l->rate_bps = u->rate_bps;
			l->tx_bytes = u->wire_bytes[d];
			l->tx_payload_bytes = u->payload_bytes[d];
			l->busy_ps = u->busy_ps[d];
		}
	}
}

/* Every link direction's counters, named by the nodes it joins (the
 * topology keeps network link i as links[2i], a to b, and links[2i + 1]). */
static void collect_links(struct sx *x)
{
	const struct sim_net *net = x->topo.net;
	struct cc_sim_result *res = x->res;

	size_t nsock = x->socket_links ? 2 * (size_t)net->nhosts : 0;

	res->links = calloc(x->topo.nlinks + 2 * (size_t)x->nuplinks + nsock + 1,
			    sizeof(*res->links));
	if (!res->links)
		return; /* counters are extras: a run without them is still a run */
	res->nlinks = (uint32_t)(x->topo.nlinks + 2 * (size_t)x->nuplinks + nsock);
	collect_uplinks(x, res->links + x->topo.nlinks);
	collect_socket_links(x, res->links + x->topo.nlinks + 2 * (size_t)x->nuplinks);
	for (uint32_t i = 0; i < x->topo.nlinks; i++) {
		const struct sim_net_link *nl = &net->links[i / 2];
		const struct sim_link_dir *l = &x->topo.links[i];
		struct cc_sim_link_stats *st = &res->links[i];
		uint32_t from = i % 2 ? nl->b : nl->a, to = i % 2 ? nl->a : nl->b;

		snprintf(st->from, sizeof(st->from), "%s", net->nodes[from].name);
		snprintf(st->to, sizeof(st->to), "%s", net->nodes[to].name);
		st->nvlink = nl->kind == SIM_NET_LINK_NVLINK;
		st->rate_bps = l->rate_bps;
		st->tx_pkts = l->st.tx_pkts;
		st->tx_bytes = l->st.tx_bytes;
		st->tx_payload_bytes = l->st.tx_payload_bytes;
		st->busy_ps = sim_link_busy_ps(l);
		st->lost = l->st.lost;
		st->pauses = l->st.pauses;
		st->paused_ps = sim_link_paused_ps(l);
		st->credit_stalls = l->st.credit_stalls;
		st->peak_queue_bytes = l->st.txq_peak_bytes;
		st->ecn_marks = l->st.ecn_marks;
	}
	/* ECMP: how many QPs' packets each link direction carries. */
	for (uint32_t r = 0; r < x->s->nranks; r++)
		for (uint32_t q = 0; q < x->s->ranks[r].nqps; q++) {
			const struct sx_qp *qp = &x->rk[r].qp[q];
			size_t dirs[64];
			/* a multicast QP's flow ends in its NVSwitch: its one link */
			uint32_t n = qp->mcast || qp->peer == r ? 0 /* a loopback: none */
					       : sim_topo_path(&x->topo, r, qp->port, qp->peer,
							       sim_topo_qp_flow(r, q), dirs, 64);

			if (qp->mcast)
				res->links[sim_topo_nic_tx(&x->topo, r, qp->port) - x->topo.links].flows++;

			for (uint32_t i = 0; i < n; i++)
				res->links[dirs[i]].flows++;
		}
}

static void collect(struct sx *x)
{
	collect_links(x);
	for (uint32_t s = 0; s < x->topo.nsw; s++) {
		const struct sim_switch *sw = &x->topo.sw[s];

		x->res->switch_drops += sw->no_route;
		for (uint32_t p = 0; p < sw->nports; p++) {
			x->res->switch_drops += sw->ports[p].st.drops;
			x->res->pause_frames += sw->ports[p].st.pause_frames;
			x->res->ecn_marks += sw->ports[p].st.ecn_marks;
		}
	}
	for (uint32_t r = 0; r < x->s->nranks; r++) {
		struct sx_rank *rk = &x->rk[r];
		struct cc_sim_rank_stats *st = rk->st;
		sim_time_ps up = sim_pcie_busy_ps(&rk->pcie, SIM_PCIE_UP);
		sim_time_ps down = sim_pcie_busy_ps(&rk->pcie, SIM_PCIE_DOWN);

		/* Several NICs: the busiest one's link. */
		for (uint32_t i = 0; i + 1 < rk->nnics; i++) {
			sim_time_ps u = sim_pcie_busy_ps(&rk->nic_pcie[i], SIM_PCIE_UP);
			sim_time_ps d = sim_pcie_busy_ps(&rk->nic_pcie[i], SIM_PCIE_DOWN);

			up = u > up ? u : up;
			down = d > down ? d : down;
		}

		st->ops_done = rk->ndone;
		for (uint32_t q = 0; q < x->s->ranks[r].nqps; q++)
			st->rate_cuts += rk->qp[q].cc.cuts;
		st->busy_ps[CC_SIM_SOFTWARE] = rk->cpu_busy_ps;
		st->busy_ps[CC_SIM_PCIE] = up > down ? up : down;
		st->busy_ps[CC_SIM_REDUCE] = sim_compute_busy_ps(&rk->gpu) +
					     sim_compute_busy_ps(&rk->cpu_calc);
		const sim_time_ps *gp = rk->gpu_host.busy_ps; /* host staging */
		st->busy_ps[CC_SIM_GPU_PCIE] = gp[SIM_PCIE_UP] > gp[SIM_PCIE_DOWN] ? gp[SIM_PCIE_UP]
										: gp[SIM_PCIE_DOWN];
		st->gpu_host_read_bytes = rk->gpu_host.bytes[SIM_PCIE_DOWN];
		st->gpu_host_write_bytes = rk->gpu_host.bytes[SIM_PCIE_UP];
		for (uint32_t p = 0; p < sim_topo_nic_nports(&x->topo, r); p++) {
			sim_time_ps b = sim_link_busy_ps(rk->port[p].tx);

			if (b > st->busy_ps[CC_SIM_WIRE])
				st->busy_ps[CC_SIM_WIRE] = b;
		}
	}
}

/* A packet lost on a link or dropped by a switch: back to the pool,
 * counted against the rank that sent it; the transport recovers (a
 * sequence NAK or the ACK timeout, then go-back-N). */
static void packet_lost(struct sim_engine *eng, void *ctx, struct sim_packet *pkt)
{
	struct sx *x = ctx;
	struct sx_pkt *k = (struct sx_pkt *)pkt;

	(void)eng;
	x->rk[k->rank].st->lost_pkts++;
	sx_pkt_put(x, k);
}

static void switch_dropped(struct sim_engine *eng, void *ctx, const struct sim_switch *sw,
			   uint32_t port, struct sim_packet *pkt)
{
	(void)sw;
	(void)port;
	packet_lost(eng, ctx, pkt);
}

/* Every link loses link.loss_ppb of its packets, each link drawing from
 * its own generator seeded by the run's seed and its index; switches hand
 * their drops back too. */
static void wire_losses(struct sx *x)
{
	for (size_t i = 0; i < x->topo.nlinks; i++)
		sim_link_set_loss(&x->topo.links[i], x->f->link.loss_ppb,
				  cc_mix64(cc_mix64(x->o->seed) ^ cc_mix64(i + 1)), packet_lost, x);
	for (uint32_t s = 0; s < x->topo.nsw; s++)
		sim_switch_on_drop(&x->topo.sw[s], switch_dropped, x);
}

/* ECN marking on every network switch (not an NVSwitch: NVLink marks
 * nothing), each drawing from its own generator. */
static void wire_ecn(struct sx *x)
{
	const struct sim_switch_params *p = &x->f->sw;

	for (uint32_t s = 0; s < x->topo.nsw; s++)
		if (!sim_topo_switch_nvlink(&x->topo, s))
			sim_switch_set_ecn(&x->topo.sw[s], p->ecn_kmin_bytes, p->ecn_kmax_bytes,
					   p->ecn_pmax_pct,
					   cc_mix64(cc_mix64(x->o->seed) ^ cc_mix64(~(uint64_t)s)));
}

/* Each QP's packets go to the NIC its peer QP uses, where the peer has
 * several (sim_net_pick_port()). */
static void peer_ports(struct sx *x)
{
	for (uint32_t r = 0; r < x->s->nranks; r++) {
		struct sx_rank *rk = &x->rk[r];

		for (uint32_t q = 0; q < x->s->ranks[r].nqps; q++) {
			struct sx_qp *qp = &rk->qp[q];

			if (!qp->mcast && qp->peer != r && x->rk[qp->peer].nnics > 1)
				qp->peer_port = x->rk[qp->peer].qp[qp->peer_q].port;
		}
	}
}

/* The hosts' PCIe switches' uplinks (sim_net_pcie), and each rank's. */
static int setup_uplinks(struct sx *x)
{
	const struct sim_net *n = x->topo.net;

	x->nuplinks = sim_net_pcie_switch_count(n);
	if (!x->nuplinks)
		return 0;
	if (!(x->uplinks = xcalloc(x, x->nuplinks, sizeof(*x->uplinks))))
		return -ENOMEM;
	x->uplink_rings = xcalloc(x, (size_t)x->nuplinks * SIM_PCIE_NDIR,
				  sizeof(*x->uplink_rings));
	if (!x->uplink_rings)
		return -ENOMEM;
	for (uint32_t h = 0; h < n->nhosts; h++) {
		const struct sim_net_pcie *pc = &n->hosts[h].pcie;

		for (uint32_t i = 0; i < pc->switches; i++)
			x->uplinks[n->hosts[h].first_pcie_switch + i] = (struct sim_pcie_uplink){
				.rate_bps = sim_net_pcie_uplink_bps(pc, x->f->pcie.rate_bps),
				.latency_ps = sim_net_pcie_hop_ps(pc),
				.ring = &x->uplink_rings[(size_t)(n->hosts[h].first_pcie_switch + i) *
							 SIM_PCIE_NDIR],
			};
	}
	for (uint32_t r = 0; r < x->s->nranks; r++) {
		uint32_t sw = sim_net_pcie_switch(n, r);

		x->rk[r].uplink = sw == SIM_NET_NONE ? NULL : &x->uplinks[sw];
	}
	return 0;
}

/* host.nic_socket remote: each host's link between its sockets, which its
 * NICs' DMA crosses to reach the GPU's socket (sx_buf_uplink()); refused
 * where a host's PCIe tree keeps the NICs beside their GPUs
 * (sim_net_nic_socket_ok(), which a scenario checks first). */
static int setup_socket_links(struct sx *x)
{
	const struct sim_net *n = x->topo.net;

	if (x->f->host.nic_socket != SIM_NIC_SOCKET_REMOTE)
		return 0;
	if (!sim_net_nic_socket_ok(n, x->res->err.msg, sizeof(x->res->err.msg)))
		return -EINVAL;
	if (!(x->socket_links = xcalloc(x, n->nhosts, sizeof(*x->socket_links))))
		return -ENOMEM;
	for (uint32_t h = 0; h < n->nhosts; h++) {
		x->socket_links[h].rate_bps = x->f->host.socket_link_bytes_per_s * 8;
		for (uint32_t g = 0; g < n->hosts[h].ngpus; g++)
			x->rk[n->hosts[h].first_rank + g].xsocket = &x->socket_links[h];
	}
	return 0;
}

static int setup(struct sx *x)
{
	const struct cc_schedule *s = x->s;
	int err;

	x->rk = xcalloc(x, s->nranks, sizeof(*x->rk));
	x->res->rank = calloc(s->nranks ? s->nranks : 1, sizeof(*x->res->rank));
	if (!x->rk || !x->res->rank)
		return -ENOMEM;
	if (x->o->net)
		err = x->o->net->nranks == s->nranks
			      ? sim_topo_build_net(&x->topo, &x->eng, x->o->net, x->f)
			      : -EINVAL;
	else
		err = sim_topo_build(&x->topo, &x->eng, x->o->topo, s->nranks, x->f);
	if (err)
		return err;
	wire_losses(x);
	wire_ecn(x);
	if ((err = setup_uplinks(x)) || (err = setup_socket_links(x)))
		return err;
	for (uint32_t r = 0; r < s->nranks; r++)
		if ((err = setup_rank(x, r)))
			return err;
	/* Every rank's first ops made and waiting on their dependencies
	 * before any is readied, as a built schedule's all are. */
	for (uint32_t r = 0; s->gen && r < s->nranks; r++)
		sx_gen_start(x, r);
	peer_ports(x);
	if ((err = sx_nvls_init(x)))
		return err;
	if ((err = sx_sharp_init(x, x->res->err.msg, sizeof(x->res->err.msg))))
		return err;
	if (x->o->model == CC_SIM_MODEL_FLOW &&
	    (err = sx_flow_init(x, x->res->err.msg, sizeof(x->res->err.msg))))
		return err;
	if ((err = sx_faults_apply(x)))
		return err;
	if (x->o->check) {
		uint8_t **in = calloc(s->nranks, sizeof(*in)), **out = calloc(s->nranks, sizeof(*out));

		err = in && out ? cc_check_io_init(&x->io, s) : -ENOMEM;
		if (!err) {
			x->io_ready = true;
			/* Input and output, as the data executor takes them. */
			for (uint32_t r = 0; r < s->nranks; r++) {
				in[r] = s->ranks[r].nbufs > 0 ? x->rk[r].mem[0] : NULL;
				out[r] = s->ranks[r].nbufs > 1 ? x->rk[r].mem[1] : NULL;
			}
			cc_check_io_fill(&x->io, x->o->seed, in, out);
		}
		free(in);
		free(out);
	}
	return err;
}

/* The engine's watchdog (sim_engine_watch()): past the wall-clock limit,
 * the run stops wherever it stands.  The progress report rides on it, as
 * it needs the same rare look at the run between events. */
static bool wall_check(void *ctx)
{
	struct sx *x = ctx;
	bool called_off = x->o->cancel && __atomic_load_n(x->o->cancel, __ATOMIC_RELAXED);

	if (x->o->progress)
		x->o->progress(x->o->progress_ctx, sim_now(&x->eng), sim_events_executed(&x->eng),
			       false);
	if (!called_off && (!x->o->wall_limit_ms || x->o->wall_limit_ms > UINT64_MAX / 1000000u ||
			    cc_clock_ns() - x->wall_start_ns < x->o->wall_limit_ms * 1000000u))
		return false;
	x->wall_hit = true;
	return true;
}

/* Setup, then the run until the fabric is quiet or a limit stops it. */
static int setup_and_run(struct sx *x)
{
	const struct cc_schedule *s = x->s;
	const struct cc_sim_opts *o = x->o;
	struct cc_sim_result *res = x->res;
	int err = setup(x);

	if (err)
		return err;
	for (uint32_t r = 0; r < s->nranks; r++) {
		const struct cc_rank_sched *rs = &s->ranks[r];

		for (uint32_t j = 0; s->gen && j < cc_gen_streams(s->gen); j++) {
			const struct cc_gen_stream *st = cc_gen_stream(s->gen, r, j);
			uint32_t end = st->made; /* what top-ups add, they ready */

			for (uint32_t i = st->first; i < end; i++)
				if (*sx_deps_left(&x->rk[r], i) == 0)
					op_ready(x, r, i);
		}
		for (uint32_t i = 0; !s->gen && i < rs->nops; i++)
			if (*sx_deps_left(&x->rk[r], i) == 0)
				op_ready(x, r, i);
		if (rs->nops == 0 && ++x->ranks_done == s->nranks)
			res->time_ps = 0;
	}
	/* A limit past 2^64 ns is no limit.  Setting up a large schedule
	 * takes real time too: a limit already past stops the run before
	 * its first event. */
	bool watch = (o->wall_limit_ms && o->wall_limit_ms <= UINT64_MAX / 1000000u) || o->cancel ||
		     o->progress;
	if (watch)
		sim_engine_watch(&x->eng, CC_SIM_WALL_CHECK_EVENTS, wall_check, x);
	/* Runs until the fabric is quiet, so trailing ACKs are counted; the
	 * collective's time is when its last op completed. */
	if (!watch || !wall_check(x))
		sim_run(&x->eng, o->time_limit_ps ? o->time_limit_ps : CC_SIM_TIME_LIMIT_DEFAULT_PS);
	res->events = sim_events_executed(&x->eng);
	res->peak_pending = sim_pending_peak(&x->eng);
	/* A generated run that did not end cleanly (stuck, out of simulated
	 * time, an error) is run again with every stream made at once, which
	 * is the built schedule's run, parking order and all: a stream held
	 * back by its window would look stuck, an error could come before an
	 * op made late is seen, and a report names the op a built run's
	 * would.  Not past the wall-clock limit, which bounds the attempts
	 * too. */
	if (s->gen && !x->gen_late && !x->wall_hit && x->gen_window != UINT32_MAX &&
	    (x->ranks_done < s->nranks || x->have_err || res->err.status != CC_RUN_OK))
		x->gen_late = x->gen_whole = true;
	if (x->gen_late)
		return 0;
	if (o->progress)
		o->progress(o->progress_ctx, sim_now(&x->eng), res->events, true);
	if (res->err.status == CC_RUN_OK && (x->ranks_done < s->nranks || x->have_err))
		describe_stuck(x);
	collect(x);
	if (x->io_ready) {
		uint8_t **out = calloc(s->nranks, sizeof(*out));

		if (!out)
			return -ENOMEM;
		for (uint32_t r = 0; r < s->nranks; r++)
			out[r] = s->ranks[r].nbufs > 1 ? x->rk[r].mem[1] : NULL;
		res->wrong = cc_check_io_wrong(&x->io, out);
		free(out);
	}
	res->mem_bytes += sim_engine_mem_bytes(&x->eng) +
			  (size_t)x->nslabs * SLAB_PKTS * sizeof(struct sx_pkt);
	return 0;
}

/* setup_and_run() under a recovery point: memory running out where no
 * error can be returned (an event handler, a model's queue) unwinds here
 * (sim__nomem()), and cc_sim_run() frees what there is, as after any
 * failed setup: everything allocated hangs off x.  Nothing of this frame
 * changes between setjmp and longjmp, so it is all defined after it (C11
 * 7.13.2.1). */
static int guarded(struct sx *x)
{
	jmp_buf nomem;
	int err;

	if (setjmp(nomem)) {
		sim__nomem_catch(NULL);
		return -ENOMEM;
	}
	sim__nomem_catch(&nomem);
	err = setup_and_run(x);
	sim__nomem_catch(NULL);
	return err;
}

/* One run of s, its ops made `window` ahead when generated; *late: an op
 * was made too late, and the run is to be done again (*whole: with every
 * stream made at once). */
static int run_once(const struct cc_schedule *s, const struct cc_sim_opts *o,
		    struct cc_sim_result *res, uint64_t start_ns, uint32_t window, bool *late,
		    bool *whole)
{
	struct sx x = { .s = s, .o = o, .f = o->fabric, .res = res, .gen_window = window,
			.wall_start_ns = start_ns };
	int err;

	memset(res, 0, sizeof(*res));
	if (s->gen)
		cc_gen_rewind(s->gen);
	err = sim_engine_init(&x.eng, o->engine_flags);
	if (err)
		return err;
	res->nranks = s->nranks;
	res->checked = o->check;
	err = guarded(&x);
	*late = x.gen_late;
	*whole = x.gen_whole;
	for (uint32_t r = 0; x.rk && r < s->nranks; r++)
		free_rank(&x, r);
	free(x.rk);
	sx_gen_opst_pool_free(&x);
	for (uint32_t i = 0; i < x.nslabs; i++) {
		/* Packets still in flight (a run that ended in an error) own
		 * their payload copies; free ones hold NULL. */
		for (uint32_t j = 0; j < SLAB_PKTS; j++)
			free(((struct sx_pkt *)x.slabs[i])[j].data);
		free(x.slabs[i]);
	}
	free(x.slabs);
	if (x.io_ready)
		cc_check_io_free(&x.io);
	sx_faults_free(&x);
	sx_nvls_free(&x);
	sx_sharp_free(&x);
	sx_flow_free(&x);
	free(x.uplinks);
	free(x.socket_links);
	free(x.uplink_rings);
	sim_topo_destroy(&x.topo);
	sim_engine_destroy(&x.eng);
	if (err || *late)
		cc_sim_result_free(res);
	return err;
}

/* The window a generated run starts with: the caller's, the algorithm's,
 * or the executor's default. */
static uint32_t start_window(const struct cc_schedule *s, const struct cc_sim_opts *o)
{
	uint32_t hint = s->gen ? cc_gen_window(s->gen) : 0;

	return o->gen_window ? o->gen_window : hint ? hint : CC_SIM_GEN_WINDOW;
}

/* An iteration of a benchmark's loop lasts at least as long as the thread
 * takes to launch it (sim/launch.h): the run's time and each rank's done
 * time are raised to that floor.  The events and the trace are the
 * collective's own; what is read against the time (--links' utilisation)
 * takes the raised one. */
static void launch_floor(const struct cc_schedule *s, const struct cc_sim_opts *o,
			 struct cc_sim_result *res)
{
	/* NCCL returns from a collective of no elements before it enqueues
	 * anything (src/enqueue.cc: count 0 is ncclSuccess at once) */
	sim_time_ps floor = s->params.count ? sim_launch_floor_ps(&o->launch, &o->fabric->soft,
								  s->params.mem == CC_MEM_GPU) : 0;

	res->launch_floor_ps = floor;
	if (res->time_ps >= floor)
		return;
	res->launch_bound = true;
	res->time_ps = floor;
	for (uint32_t r = 0; r < res->nranks && res->rank; r++)
		if (res->rank[r].done_ps < floor)
			res->rank[r].done_ps = floor;
}

int cc_sim_run(const struct cc_schedule *s, const struct cc_sim_opts *o,
	       struct cc_sim_result *res)
{
	uint32_t window = start_window(s, o);
	/* The wall-clock limit counts from the caller's start, or now:
	 * setting up counts too, and a run started again. */
	uint64_t start_ns = o->wall_start_ns ? o->wall_start_ns : cc_clock_ns();
	bool late;
	int err;

	memset(res, 0, sizeof(*res));
	if (cc_schedule_whole(s, "sim", res->err.msg, sizeof(res->err.msg)))
		return -EINVAL;
	if (!o->fabric || sim_params_validate(o->fabric))
		return -EINVAL;
	if (nic_needs_gdr(s, o->fabric))
		return -EFAULT;
	if (o->check && cc_check_io_too_big(s, true, 0))
		return -E2BIG;
	/* A generated schedule whose op was made too late runs again with a
	 * window four times larger: at worst a whole stream at once, which
	 * is the built schedule (sim/exec_gen.c). */
	size_t traced = o->trace ? o->trace->n : 0;
	uint64_t dropped = o->trace ? o->trace->dropped : 0;
	bool whole;

	do {
		if (o->trace) { /* what a run given up on recorded */
			o->trace->n = traced;
			o->trace->dropped = dropped;
		}
		err = run_once(s, o, res, start_ns, window, &late, &whole);
		res->gen_window = s->gen && !err ? window : 0;
		window = whole || window > UINT32_MAX / 4 ? UINT32_MAX : window * 4;
	} while (!err && late);
	if (!err && res->err.status == CC_RUN_OK)
		launch_floor(s, o, res);
	return err;
}

/* What cc_sim_mem_estimate() weighs of a rank's ops, in one look. */
struct op_weigh {
	double queues;  /* the queues and CQs keep every WQE and completion */
	double *sends, *recvs; /* per QP (a generated schedule's), or NULL */
	uint8_t *carry; /* NULL: carried_bufs() is not asked */
};

static void weigh_op(void *ctx, const struct cc_op *o)
{
	struct op_weigh *w = ctx;

	/* append-only and doubling: up to twice what they hold */
	if (o->kind == CC_OP_POST_SEND) {
		w->queues += 2.0 * (sizeof(struct sx_wqe) + sizeof(struct sx_cqe));
		if (w->sends)
			w->sends[o->u.send.qp]++;
	} else if (o->kind == CC_OP_POST_RECV) {
		w->queues += 2.0 * (sizeof(uint32_t) + sizeof(struct sx_cqe));
		if (w->recvs)
			w->recvs[o->u.recv.qp]++;
	}
	if (w->carry)
		carry_of(w->carry, o);
}

/* Generated ranks weighed, at most: each is made again to be weighed (a
 * ring rank on 4096 ranks is 75,000 ops), so past this many, ranks evenly
 * spread stand for the others. */
#define WEIGH_GEN_RANKS 256u

/* Rank r's part of cc_sim_mem_estimate(); window: a generated schedule's
 * ops in use at once, about. */
static double rank_weight(const struct cc_schedule *s, const struct cc_sim_opts *o, uint32_t r,
			  double window)
{
	const struct cc_rank_sched *rs = &s->ranks[r];
	struct op_weigh w = { .carry = malloc(rs->nbufs ? rs->nbufs : 1) };
	uint32_t nq = rs->nqps ? rs->nqps : 1;
	bool counted = true;
	double bytes;

	if (s->gen) {
		w.sends = calloc(nq, sizeof(double));
		w.recvs = calloc(nq, sizeof(double));
	}
	if (w.carry)
		memset(w.carry, o->check, rs->nbufs);
	if (o->check) {
		free(w.carry);
		w.carry = NULL;
	}
	if (cc_sched_each_op(s, r, weigh_op, &w)) { /* counts cut short */
		counted = false;
		free(w.carry);
		w.carry = NULL;
	}
	/* setup_rank(): a key per MR, per buffer a pointer and a byte;
	 * the QPs and CQs; per op (built) deps_left, users_first,
	 * sq_pos, cpu_q, p2p_q and the park's list, pos and poll_next,
	 * and users per dependency, with the queues */
	bytes = 4.0 * rs->nmrs + 9.0 * rs->nbufs + (double)rs->nqps * sizeof(struct sx_qp) +
		(double)rs->ncqs * sizeof(struct sx_cq);
	if (!s->gen)
		bytes += 8.0 * sizeof(uint32_t) * rs->nops + 4.0 * rs->ndeps + w.queues;
	else if (counted && w.sends && w.recvs)
		bytes += sx_gen_rank_bytes(s, r, window, w.sends, w.recvs);
	else /* not counted: every op's worth, and a posted WQE each */
		bytes += (40.0 + sizeof(struct cc_op) + 2.0 * (sizeof(struct sx_wqe) +
							       sizeof(struct sx_cqe))) * rs->nops;
	for (uint32_t b = 0; b < rs->nbufs; b++)
		if (!w.carry || w.carry[b])
			bytes += (double)rs->bufs[b].size;
	free(w.carry);
	free(w.sends);
	free(w.recvs);
	return bytes;
}

double cc_sim_mem_estimate(const struct cc_schedule *s, const struct cc_sim_opts *o)
{
	double bytes = (double)s->nranks * (sizeof(struct sx_rank) + sizeof(struct cc_sim_rank_stats));
	/* A generated schedule holds each stream's window and what is given
	 * back a batch at a time (sim/exec_gen.c); at most every op. */
	double window = s->gen ? (double)start_window(s, o) * cc_gen_streams(s->gen) : 0;
	uint32_t n = s->gen && s->nranks > WEIGH_GEN_RANKS ? WEIGH_GEN_RANKS : s->nranks;
	/* A stride prime to k visits n distinct ranks; odd, so that on nodes
	 * of 2^j GPUs it meets every local rank (a node's first ranks, the
	 * tree's heads, are not alike), not only one. */
	uint64_t stride = n < s->nranks ? (s->nranks / n) | 1 : 1;
	double ranks = 0;

	while (cc_gcd_u64(stride, s->nranks) != 1)
		stride += 2;
	if (o->net) /* the run's own links, switches and events */
		bytes += sim_topo_mem_estimate(o->net);
	for (uint32_t i = 0; i < n; i++)
		ranks += rank_weight(s, o, (uint32_t)((i * stride) % s->nranks), window);
	return bytes + (n ? ranks * s->nranks / n : 0);
}

void cc_sim_result_free(struct cc_sim_result *res)
{
	free(res->rank);
	free(res->links);
	res->rank = NULL;
	res->links = NULL;
	res->nlinks = 0;
}
