/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/compute.c — the reduce/copy resource: serial lanes sharing one
 * memory.  The cost model and its reasoning are in compute.h.
 */
#include "sim/compute.h"
#include "sim/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sim_compute_job {
	struct sim_compute_job *next;
	uint64_t bytes;
	sim_time_ps other_ps; /* sim_compute_submit_on() */
	sim_time_ps pace_ps;  /* its thread group's own pace (sim_compute_submit_step()) */
	bool step;            /* pays the resource's overhead (sim_compute_submit_step()) */
	struct sim_compute_via via; /* via.up NULL: none (sim_compute_submit_via()) */
	uint64_t bulk[SIM_PCIE_NDIR]; /* its uplink share's ids (sim_pcie_uplink_bulk()) */
	sim_compute_done_fn fn;
	void *ctx;
	uint64_t arg;
};

int sim_compute_init(struct sim_compute *c, struct sim_engine *eng, sim_time_ps overhead_ps,
		     uint64_t bytes_per_s)
{
	if (!c || !eng)
		return -EINVAL;
	*c = (struct sim_compute){.eng = eng, .overhead_ps = overhead_ps,
				  .bytes_per_s = bytes_per_s};
	return 0;
}

int sim_compute_init_host(struct sim_compute *c, struct sim_engine *eng,
			  enum sim_compute_kind kind, const struct sim_host_params *h)
{
	int err;

	if (!h || !c)
		return -EINVAL;
	switch (kind) {
	case SIM_COMPUTE_GPU:
		/* The kernel is launched when the collective starts and can run
		 * its first step once launched, whatever that step waits for. */
		err = sim_compute_init(c, eng, h->gpu_step_ps, h->gpu_mem_bytes_per_s);
		c->ready_ps = sim_now(eng) + h->gpu_launch_ps;
		return err;
	case SIM_COMPUTE_CPU:
		return sim_compute_init(c, eng, h->cpu_call_ps, h->cpu_thread_bytes_per_s);
	default:
		return -EINVAL;
	}
}

void sim_compute_slow(struct sim_compute *c, uint32_t milli)
{
	unsigned __int128 o;

	if (milli <= 1000)
		return;
	c->slow_milli = milli;
	o = ((unsigned __int128)c->overhead_ps * milli + 999) / 1000;
	c->overhead_ps = o > SIM_TIME_NEVER ? SIM_TIME_NEVER : (sim_time_ps)o;
	if (c->bytes_per_s) {
		uint64_t bw = (uint64_t)((unsigned __int128)c->bytes_per_s * 1000 / milli);

		c->bytes_per_s = bw ? bw : 1;
	}
}

static void free_list(struct sim_compute_job *j)
{
	while (j) {
		struct sim_compute_job *next = j->next;

		free(j);
		j = next;
	}
}

void sim_compute_destroy(struct sim_compute *c)
{
	for (uint32_t l = 0; l < c->nlanes; l++) {
		free_list(c->lane[l].q_head);
		free_list(c->lane[l].cur);
	}
	free(c->lane);
	free_list(c->free);
	c->lane = NULL;
	c->nlanes = c->nbusy = 0;
	c->free = NULL;
}

/* The memory time of bytes_moved, overhead aside. */
static sim_time_ps mem_ps(const struct sim_compute *c, uint64_t bytes_moved, sim_time_ps overhead)
{
	unsigned __int128 t = 0;

	/* bytes * 1e12 needs up to 64 + 40 bits: formed in 128, as
	 * sim_serialize_ps() does. */
	if (c->bytes_per_s)
		t = ((unsigned __int128)bytes_moved * SIM_PS_PER_S + c->bytes_per_s - 1) /
		    c->bytes_per_s;
	t += overhead;
	return t > SIM_TIME_NEVER ? SIM_TIME_NEVER : (sim_time_ps)t;
}

sim_time_ps sim_compute_cost_ps(const struct sim_compute *c, uint64_t bytes_moved)
{
	return mem_ps(c, bytes_moved, c->overhead_ps);
}

static void job_end(struct sim_engine *eng, void *ctx, uint64_t arg);

static sim_time_ps add_or_die(sim_time_ps a, sim_time_ps b)
{
	if (b >= SIM_TIME_NEVER - a)
		sim__model_die(__FILE__, __LINE__, "compute: a job ends beyond time's range");
	return a + b;
}

/* Reserves `len` ps of a shared timeline that is busy until *free, from
 * `from` on; returns the end (from, when len is 0: nothing to wait for). */
static sim_time_ps reserve(sim_time_ps *free_ps, sim_time_ps from, sim_time_ps len)
{
	if (!len)
		return from;
	*free_ps = add_or_die(from > *free_ps ? from : *free_ps, len);
	return *free_ps;
}

/* Starts lane l's next job: its overhead on the lane, then its memory time
 * on the shared memory and its other path's time on that path, both
 * reserved now and at once, and its pace on the lane alone (one event:
 * the latest end). */
static void start(struct sim_compute *c, uint32_t l)
{
	struct sim_compute_lane *ln = &c->lane[l];
	struct sim_compute_job *j = ln->q_head;
	sim_time_ps now = sim_now(c->eng), mem = mem_ps(c, j->bytes, 0);
	sim_time_ps t, other, paced;

	if (now < c->ready_ps)
		now = c->ready_ps; /* the kernel is still being launched */
	t = add_or_die(now, j->step ? c->overhead_ps : 0);
	paced = add_or_die(t, j->pace_ps);
	other = reserve(&c->other_free_ps, t, j->other_ps);
	if (j->via.up) {
		for (int d = 0; d < SIM_PCIE_NDIR; d++) {
			sim_time_ps e = sim_pcie_uplink_bulk(j->via.up, (enum sim_pcie_dirn)d, t,
							     j->via.ps[d], j->via.payload[d], j->via.wire[d],
							     &j->bulk[d]);

			if (j->via.ps[d] && add_or_die(e, j->via.tail_ps) > other)
				other = e + j->via.tail_ps;
		}
	}
	t = reserve(&c->mem_free_ps, t, mem);
	if (other > t) /* the other path is the slower */
		t = other;
	if (paced > t) /* the group's loads are the slower */
		t = paced;
	ln->q_head = j->next;
	if (!ln->q_head)
		ln->q_tail = NULL;
	j->next = NULL;
	ln->cur = j;
	ln->cur_start = now;
	c->nbusy++;
	/* Busy time is the union of the jobs' spans; starts never decrease. */
	if (now > c->span_end) {
		c->busy_ps += t - now;
		c->span_start = now;
		c->span_end = t;
	} else if (t > c->span_end) {
		c->busy_ps += t - c->span_end;
		c->span_end = t;
	}
	if (sim_schedule(c->eng, t, job_end, c, l) == SIM_EVENT_NONE) {
		sim__sched_die(__FILE__, __LINE__, "compute");
	}
}

/* When job j's uplink share ends now, after the device batches that
 * shared the uplink with it since it started (sim/pcie.h), and the last
 * TLP's flight; 0 without one. */
static sim_time_ps uplink_end(const struct sim_compute_job *j)
{
	sim_time_ps end = 0;

	if (!j->via.up)
		return 0;
	for (int d = 0; d < SIM_PCIE_NDIR; d++) {
		sim_time_ps e = sim_pcie_uplink_bulk_end(j->via.up, (enum sim_pcie_dirn)d,
							 j->bulk[d]);

		if (e && add_or_die(e, j->via.tail_ps) > end)
			end = e + j->via.tail_ps;
	}
	return end;
}

static void job_end(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sim_compute *c = ctx;
	struct sim_compute_lane *ln = &c->lane[arg];
	struct sim_compute_job *j = ln->cur;
	sim_compute_done_fn fn = j->fn;
	void *fn_ctx = j->ctx;
	uint64_t fn_arg = j->arg;
	sim_time_ps t = uplink_end(j);

	/* Device batches shared its uplink since it started: its share ends
	 * that much later (checked again then). */
	if (t > sim_now(eng)) {
		if (t > c->span_end) {
			c->busy_ps += t - c->span_end;
			c->span_end = t;
		}
		if (sim_schedule(c->eng, t, job_end, c, arg) == SIM_EVENT_NONE)
			sim__sched_die(__FILE__, __LINE__, "compute");
		return;
	}
	ln->cur = NULL;
	c->nbusy--;
	c->st.jobs++;
	c->st.bytes_moved += j->bytes;
	c->ended_start = ln->cur_start;
	/* Recycle before the callback, which may submit (and reuse it). */
	j->next = c->free;
	c->free = j;
	if (fn)
		fn(eng, fn_ctx, fn_arg, sim_now(eng));
	/* c->lane may have moved: the callback may have added a lane. */
	ln = &c->lane[arg];
	if (!ln->cur && ln->q_head)
		start(c, (uint32_t)arg);
}

int sim_compute_submit(struct sim_compute *c, uint64_t bytes_moved, sim_compute_done_fn fn,
		       void *ctx, uint64_t arg)
{
	return sim_compute_submit_on(c, 0, bytes_moved, 0, fn, ctx, arg);
}

int sim_compute_submit_on(struct sim_compute *c, uint32_t lane, uint64_t bytes_moved,
			  sim_time_ps other_ps, sim_compute_done_fn fn, void *ctx, uint64_t arg)
{
	return sim_compute_submit_step(c, lane, bytes_moved, other_ps, 0, true, fn, ctx, arg);
}

int sim_compute_submit_step(struct sim_compute *c, uint32_t lane, uint64_t bytes_moved,
			    sim_time_ps other_ps, sim_time_ps pace_ps, bool step,
			    sim_compute_done_fn fn, void *ctx, uint64_t arg)
{
	return sim_compute_submit_via(c, lane, bytes_moved, other_ps, pace_ps, step, NULL, fn, ctx,
				      arg);
}

int sim_compute_submit_via(struct sim_compute *c, uint32_t lane, uint64_t bytes_moved,
			   sim_time_ps other_ps, sim_time_ps pace_ps, bool step,
			   const struct sim_compute_via *via, sim_compute_done_fn fn, void *ctx,
			   uint64_t arg)
{
	struct sim_compute_lane *ln;
	struct sim_compute_job *j;

	if (lane >= SIM_COMPUTE_MAX_LANES)
		return -EINVAL;
	if (lane >= c->nlanes) {
		ln = realloc(c->lane, (size_t)(lane + 1) * sizeof(*ln));
		if (!ln)
			return -ENOMEM;
		memset(ln + c->nlanes, 0, (size_t)(lane + 1 - c->nlanes) * sizeof(*ln));
		c->lane = ln;
		c->nlanes = lane + 1;
	}
	j = c->free;
	if (j)
		c->free = j->next;
	else if (!(j = malloc(sizeof(*j))))
		return -ENOMEM;
	if (c->slow_milli) {
		unsigned __int128 p = ((unsigned __int128)pace_ps * c->slow_milli + 999) / 1000;

		pace_ps = p > SIM_TIME_NEVER ? SIM_TIME_NEVER : (sim_time_ps)p;
	}
	*j = (struct sim_compute_job){.bytes = bytes_moved, .other_ps = other_ps,
				      .pace_ps = pace_ps, .step = step, .fn = fn, .ctx = ctx,
				      .arg = arg};
	if (via)
		j->via = *via;
	ln = &c->lane[lane];
	if (ln->q_tail)
		ln->q_tail->next = j;
	else
		ln->q_head = j;
	ln->q_tail = j;
	if (!ln->cur)
		start(c, lane);
	return 0;
}

static int submit_n(struct sim_compute *c, uint64_t n, uint64_t k, sim_compute_done_fn fn,
		    void *ctx, uint64_t arg)
{
	if (n > UINT64_MAX / k)
		return -EINVAL;
	return sim_compute_submit(c, n * k, fn, ctx, arg);
}

int sim_compute_reduce(struct sim_compute *c, uint64_t n, unsigned nsrc, unsigned ndst,
		       sim_compute_done_fn fn, void *ctx, uint64_t arg)
{
	if (nsrc < 1 || ndst < 1)
		return -EINVAL;
	return submit_n(c, n, (uint64_t)nsrc + ndst, fn, ctx, arg);
}

int sim_compute_copy(struct sim_compute *c, uint64_t n, unsigned ndst, sim_compute_done_fn fn,
		     void *ctx, uint64_t arg)
{
	if (ndst < 1)
		return -EINVAL;
	return submit_n(c, n, 1 + (uint64_t)ndst, fn, ctx, arg);
}

sim_time_ps sim_compute_busy_ps(const struct sim_compute *c)
{
	sim_time_ps now = sim_now(c->eng);

	/* The union counts started jobs whole: take off the part of the last
	 * span still ahead. */
	if (now >= c->span_end)
		return c->busy_ps;
	return c->busy_ps - (c->span_end - (now > c->span_start ? now : c->span_start));
}

/* Data bytes a warp has in flight per round with LL and LL128: one 16 B
 * line a thread, 8 of it data (prims_ll.h LLGenericOp); 8 u64 a thread of
 * 128 B lines, 120 of every 128 data (prims_ll128.h,
 * NCCL_LL128_SHMEM_ELEMS_PER_THREAD). */
#define LL_WARP_DATA_BYTES (32u * 8u)
#define LL128_WARP_DATA_BYTES (32u * 64u / 128u * 120u)

sim_time_ps sim_compute_pace_ps(const struct sim_host_params *h, enum cc_proto proto,
				uint32_t warps, uint64_t n)
{
	uint64_t per_round, rounds;
	unsigned __int128 t;

	if (!warps || !h->gpu_warp_load_bytes || !h->gpu_mem_latency_ps || !n)
		return 0;
	per_round = (uint64_t)warps * (proto == CC_PROTO_LL	 ? LL_WARP_DATA_BYTES
				       : proto == CC_PROTO_LL128 ? LL128_WARP_DATA_BYTES
								 : h->gpu_warp_load_bytes);
	rounds = n / per_round + (n % per_round != 0);
	t = (unsigned __int128)(rounds - 1) * h->gpu_mem_latency_ps;
	return t > SIM_TIME_NEVER ? SIM_TIME_NEVER : (sim_time_ps)t;
}
