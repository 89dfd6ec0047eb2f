/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/sim_sched.h — schedules the simulator tests share: a ring
 * collective from the core, a collective's time on a star, a schedule's
 * data checked on both executors, ops added by hand, and an incast built
 * by hand.  Include after cmocka.h. */
#ifndef CCLAB_TESTS_SIM_SCHED_H
#define CCLAB_TESTS_SIM_SCHED_H

#include <string.h>

#include "core/algo.h"
#include "core/exec_data.h"
#include "core/results.h"
#include "sim/exec.h"
#include "tests/run_status.h"

/* A ring collective of k ranks, `bytes` in nccl-tests' size column, float32
 * sum, its staging buffers in `stage` memory (CC_MEM_HOST: no GPUDirect RDMA). */
static inline struct cc_schedule *ring_sched_staged(enum cc_coll coll, enum cc_transport t,
						    uint32_t k, uint64_t bytes,
						    enum cc_mem_kind stage)
{
	struct cc_coll_params p;
	uint64_t count, size;
	char err[256];

	cc_coll_params_default(&p);
	p.coll = coll;
	p.transport = t;
	p.nranks = k;
	p.stage_mem = stage;
	cc_result_counts(coll, k, cc_dtype_size(p.dtype), bytes, &count, &size);
	p.count = count;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	return s;
}

/* The same with GPUDirect RDMA: staging beside the user buffers. */
static inline struct cc_schedule *ring_sched(enum cc_coll coll, enum cc_transport t, uint32_t k,
					     uint64_t bytes)
{
	return ring_sched_staged(coll, t, k, bytes, CC_MEM_GPU);
}

/* The simulated time of schedule s on fabric f, star topology, in
 * microseconds: the run must complete. */
static inline double sim_sched_star_us(const struct cc_schedule *s, const struct sim_params *f)
{
	struct cc_sim_result res;
	struct cc_sim_opts o = { .fabric = f, .topo = SIM_TOPO_STAR, .seed = 1 };
	double us;

	assert_int_equal(cc_sim_run(s, &o, &res), 0);
	assert_run_status(res.err, CC_RUN_OK);
	us = (double)res.time_ps / 1e6;
	cc_sim_result_free(&res);
	return us;
}

/* Schedule s carries its data right, #wrong 0, on the data executor
 * (seed, order_seed) and on the simulator (fabric f, star topology). */
static inline void both_executors_right(const struct cc_schedule *s, const struct sim_params *f,
					uint64_t seed, uint64_t order_seed)
{
	struct cc_data_opts d = { .seed = seed, .order_seed = order_seed };
	struct cc_data_result dr;
	struct cc_sim_opts o = { .fabric = f, .topo = SIM_TOPO_STAR, .seed = 1, .check = true };
	struct cc_sim_result sr;

	assert_int_equal(cc_data_run(s, &d, &dr), 0);
	assert_run_status(dr.err, CC_RUN_OK);
	assert_int_equal(dr.wrong, 0);
	cc_data_result_free(&dr);
	assert_int_equal(cc_sim_run(s, &o, &sr), 0);
	assert_run_status(sr.err, CC_RUN_OK);
	assert_int_equal(sr.wrong, 0);
	cc_sim_result_free(&sr);
}

/* The same for collective p, built here, on preset `fabric`. */
static inline double sim_star_us(const struct cc_coll_params *p, const char *fabric)
{
	struct sim_params f;
	char err[256];
	struct cc_schedule *s = cc_build(p, err, sizeof(err));
	double us;

	assert_non_null(s);
	assert_int_equal(sim_params_preset(fabric, &f), 0);
	us = sim_sched_star_us(s, &f);
	cc_schedule_free(s);
	return us;
}

/* Two ranks joined by nqp QP pairs (rnr_retry `rnr_retry`), each with a
 * GPU data buffer of `bytes` (buffer and MR 0: local and remote write,
 * remote read) and the flags the peer writes (buffer and MR 1, host
 * memory, 64 B), one CQ of 16; no ops. */
static inline struct cc_schedule *two_rank_sched(uint32_t nqp, uint64_t bytes, uint8_t rnr_retry)
{
	struct cc_coll_params p;
	cc_coll_params_default(&p);
	p.nranks = 2;
	p.count = 0; /* no collective: the checker has nothing to compare */
	struct cc_schedule *s = cc_schedule_new(&p);
	assert_non_null(s);
	for (uint32_t r = 0; r < 2; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];
		cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_GPU, CC_BUF_INPUT, bytes, -1, 0 });
		/* the flags the peer writes: its connection's, as a builder's */
		cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_HOST, CC_BUF_FLAG, 64, (int32_t)(1 - r),
						       0 });
		cc_add_mr(rs, 0, CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE |
				 CC_ACCESS_REMOTE_READ);
		cc_add_mr(rs, 1, CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE);
		cc_add_cq(rs, 16);
		for (uint32_t q = 0; q < nqp; q++)
			cc_add_qp(rs, &(struct cc_qp){ .peer = 1 - r, .peer_qp = q, .max_send_wr = 4,
						       .max_recv_wr = 4, .max_inline = 64,
						       .retry_cnt = 7, .rnr_retry = rnr_retry });
	}
	return s;
}

/* Op of rank r after op dep (UINT32_MAX: none); its index. */
static inline uint32_t op_add(struct cc_schedule *s, uint32_t r, struct cc_op op, uint32_t dep)
{
	return cc_add_op(&s->ranks[r], &op, &dep, dep == UINT32_MAX ? 0 : 1);
}

/* post_send + doorbell of one WQE on qp; returns the doorbell's index. */
static inline uint32_t send_op(struct cc_schedule *s, uint32_t r, uint32_t qp,
			       struct cc_op_send o, uint32_t dep)
{
	o.qp = qp;
	uint32_t i = op_add(s, r, (struct cc_op){ .kind = CC_OP_POST_SEND, .u.send = o }, dep);
	return op_add(s, r, (struct cc_op){ .kind = CC_OP_DOORBELL, .u.doorbell = { qp, 1 } }, i);
}

/* Polls CQ 0 of rank r for wr_id. */
static inline uint32_t poll_op(struct cc_schedule *s, uint32_t r, uint64_t wr_id, uint32_t dep)
{
	return op_add(s, r, (struct cc_op){ .kind = CC_OP_POLL_CQ, .u.poll = { 0, wr_id } }, dep);
}

/* n senders (ranks 1..n) each RDMA WRITE `bytes` into rank 0 at once, one
 * signaled WQE each: on a star, the switch port to rank 0 is the
 * bottleneck.  Buffer 0 is the data, MR 0 over it. */
static inline struct cc_schedule *incast_sched(uint32_t n, uint32_t bytes)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.nranks = n + 1;
	p.count = 0; /* no collective: the checker has nothing to compare */
	struct cc_schedule *s = cc_schedule_new(&p);
	assert_non_null(s);
	for (uint32_t r = 0; r <= n; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];

		cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_GPU, CC_BUF_INPUT,
						       r ? bytes : (uint64_t)n * bytes, -1, 0 });
		cc_add_mr(rs, 0, CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE);
		cc_add_cq(rs, 16);
		for (uint32_t q = 0; q < (r ? 1 : n); q++)
			cc_add_qp(rs, &(struct cc_qp){ .peer = r ? 0 : q + 1, .peer_qp = r ? r - 1 : 0,
						       .max_send_wr = 4, .max_recv_wr = 4,
						       .max_inline = 64, .retry_cnt = 7,
						       .rnr_retry = 7 });
	}
	for (uint32_t r = 1; r <= n; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];
		struct cc_op post = { .kind = CC_OP_POST_SEND, .u.send = {
			.qp = 0, .wr_id = 1, .opcode = CC_WR_RDMA_WRITE, .flags = CC_SEND_SIGNALED,
			.num_sge = 1, .sge = { 0, 0, bytes }, .remote_mr = 0,
			.remote_offset = (uint64_t)(r - 1) * bytes } };
		uint32_t i = cc_add_op(rs, &post, NULL, 0);
		struct cc_op db = { .kind = CC_OP_DOORBELL, .u.doorbell = { 0, 1 } };
		uint32_t d = cc_add_op(rs, &db, &i, 1);
		struct cc_op poll = { .kind = CC_OP_POLL_CQ, .u.poll = { 0, 1 } };
		cc_add_op(rs, &poll, &d, 1);
	}
	return s;
}

/* Wire bytes a run's links to or from a switch named "spine..." carried:
 * what a rail-aligned schedule keeps at 0 on a rail-optimised network. */
static inline uint64_t sim_spine_bytes(const struct cc_sim_result *res)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < res->nlinks; i++)
		if (strstr(res->links[i].from, "spine") || strstr(res->links[i].to, "spine"))
			sum += res->links[i].tx_bytes;
	return sum;
}

#endif /* CCLAB_TESTS_SIM_SCHED_H */
