/* sim/compute.c — the serial reduce/copy resource.  The cost model and its
 * reasoning are in compute.h.
 */
#include "sim/compute.h"
#include "sim/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

struct sim_compute_job {
	struct sim_compute_job *next;
	uint64_t bytes;
	sim_time_ps other_ps; /* sim_compute_submit_with() */
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
	free_list(c->q_head);
	free_list(c->cur);
	free_list(c->free);
	c->q_head = c->q_tail = c->cur = c->free = NULL;
}

sim_time_ps sim_compute_cost_ps(const struct sim_compute *c, uint64_t bytes_moved)
{
	unsigned __int128 t = 0;

	/* bytes * 1e12 needs up to 64 + 40 bits: formed in 128, as
	 * sim_serialize_ps() does. */
	if (c->bytes_per_s)
		t = ((unsigned __int128)bytes_moved * SIM_PS_PER_S + c->bytes_per_s - 1) /
		    c->bytes_per_s;
	t += c->overhead_ps;
	return t > SIM_TIME_NEVER ? SIM_TIME_NEVER : (sim_time_ps)t;
}

static void job_end(struct sim_engine *eng, void *ctx, uint64_t arg);

static void start(struct sim_compute *c)
{
	struct sim_compute_job *j = c->q_head;
	sim_time_ps now = sim_now(c->eng), cost = sim_compute_cost_ps(c, j->bytes);

	if (j->other_ps > cost - c->overhead_ps) /* the other path is the slower */
		cost = j->other_ps > SIM_TIME_NEVER - c->overhead_ps ? SIM_TIME_NEVER
								     : c->overhead_ps + j->other_ps;

	if (now < c->ready_ps)
		now = c->ready_ps; /* the kernel is still being launched */
	if (cost >= SIM_TIME_NEVER - now) {
		sim__model_die(__FILE__, __LINE__, "compute: job of %" PRIu64
			       " B ends beyond time's range", j->bytes);
	}
	c->q_head = j->next;
	if (!c->q_head)
		c->q_tail = NULL;
	j->next = NULL;
	c->cur = j;
	c->cur_start = now;
	c->cur_end = now + cost;
	if (sim_schedule(c->eng, c->cur_end, job_end, c, 0) == SIM_EVENT_NONE) {
		sim__model_die(__FILE__, __LINE__, "compute: cannot schedule an event (errno %d)",
			       errno);
	}
}

static void job_end(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sim_compute *c = ctx;
	struct sim_compute_job *j = c->cur;
	sim_compute_done_fn fn = j->fn;
	void *fn_ctx = j->ctx;
	uint64_t fn_arg = j->arg;

	(void)arg;
	c->cur = NULL;
	c->busy_ps += c->cur_end - c->cur_start;
	c->st.jobs++;
	c->st.bytes_moved += j->bytes;
	/* Recycle before the callback, which may submit (and reuse it). */
	j->next = c->free;
	c->free = j;
	if (fn)
		fn(eng, fn_ctx, fn_arg, sim_now(eng));
	if (!c->cur && c->q_head)
		start(c);
}

int sim_compute_submit(struct sim_compute *c, uint64_t bytes_moved, sim_compute_done_fn fn,
		       void *ctx, uint64_t arg)
{
	return sim_compute_submit_with(c, bytes_moved, 0, fn, ctx, arg);
}

int sim_compute_submit_with(struct sim_compute *c, uint64_t bytes_moved, sim_time_ps other_ps,
			    sim_compute_done_fn fn, void *ctx, uint64_t arg)
{
	struct sim_compute_job *j = c->free;

	if (j)
		c->free = j->next;
	else if (!(j = malloc(sizeof(*j))))
		return -ENOMEM;
	*j = (struct sim_compute_job){.bytes = bytes_moved, .other_ps = other_ps, .fn = fn,
				      .ctx = ctx, .arg = arg};
	if (c->q_tail)
		c->q_tail->next = j;
	else
		c->q_head = j;
	c->q_tail = j;
	if (!c->cur)
		start(c);
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
	sim_time_ps now = sim_now(c->eng), busy = c->busy_ps;

	if (c->cur)
		busy += (now < c->cur_end ? now : c->cur_end) - c->cur_start;
	return busy;
}
