/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/compute.h — a GPU or a CPU thread as lanes of serial work for the
 * schedule's reduce and copy ops.
 *
 * Cost of one job (docs/simulator.md, "One schedule, timed"):
 *   overhead + ceil((bytes read + bytes written) * 1e12 / bandwidth) ps
 * with overhead = host.gpu_step_ps (a step of the collective's one kernel,
 * which is launched when the collective starts: no job starts before
 * host.gpu_launch_ps has passed)
 * or host.cpu_call_ps, and bandwidth = host.gpu_mem_bytes_per_s or
 * host.cpu_thread_bytes_per_s.  Reduce and copy are memory-bound (a few
 * flops per byte, far under either device's flop:byte ratio), so traffic
 * over bandwidth is the roofline bound (Williams, Waterman, Patterson,
 * "Roofline", CACM 2009); that is the model, not a measurement.  Bytes
 * moved: a reduce of n bytes from s sources into d destinations reads s*n
 * and writes d*n — 2 sources, 1 destination: 3n; 2 destinations: 4n; a copy
 * to d destinations moves (1 + d) n.  Bandwidth 0 is unlimited: only the
 * overhead counts.  Integer math throughout, rounded up: a job never ends
 * before its last byte could have moved.  A GPU job whose operands are
 * partly in pinned host memory moves those across the GPU's PCIe link
 * instead, at the same time (sim_compute_submit_on(), sim/gpu_host.h):
 * overhead + max(memory time of the rest, that link's time).
 *
 * A thread group's pace.  The memory's rate is what all lanes share; a
 * lane alone is also bounded by how many loads its warps keep in flight
 * (Little's law): NCCL's warps each load a hunk (4 KiB with Simple, 256 B
 * of data with LL, 1920 B with LL128), wait for it and store it, so w
 * warps make at most w hunks of output per memory latency
 * (sim_compute_pace_ps(), sim/params.c WARP_PACE).  A job's pace holds
 * its lane, not the memory.
 *
 * Lanes.  A job runs on a lane, and each lane runs its jobs one at a time
 * in submission order, each starting when the previous one ends; lanes run
 * at once and share the memory.  The GPU has a lane per thread block:
 * NCCL's kernel runs one block per channel (its grid is nChannels blocks,
 * src/enqueue.cc), and a tree allreduce's block splits in two thread
 * groups, reduce up and broadcast down, that run at the same time
 * (runTreeSplit, src/device/all_reduce.h); so a block's step
 * overhead (waiting on a flag) does not hold up another block.  A CPU
 * thread (the proxy) is one lane.  A job pays the overhead on its lane,
 * then its memory time on the shared memory, which serves jobs in the
 * order their lanes started them (reserved when the job starts), so two
 * lanes never move bytes faster than the bandwidth together; with one
 * lane that is the overhead and the memory time back to back.  A job
 * whose bytes also take another path (sim_compute_submit_on(): a GPU's
 * loads and stores to host memory over its PCIe link) reserves that path,
 * shared by the lanes the same way, alongside its memory time, and ends
 * when the later of the two does.  A completion callback fires at a job's
 * end.  One pending engine event at
 * most per busy lane (sim/event.h's head-of-line contract): the end of its
 * running job.
 */
#ifndef CCLAB_SIM_COMPUTE_H
#define CCLAB_SIM_COMPUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/event.h"
#include "sim/params.h"
#include "sim/pcie.h"
#include "sim/time.h"

enum sim_compute_kind {
	SIM_COMPUTE_GPU,
	SIM_COMPUTE_CPU,
	SIM_COMPUTE_KIND_COUNT
};

/* done_ps is when the job ended; it equals sim_now(). */
typedef void (*sim_compute_done_fn)(struct sim_engine *eng, void *ctx, uint64_t arg,
				    sim_time_ps done_ps);

struct sim_compute_job; /* compute.c */

struct sim_compute_stats {
	uint64_t jobs;        /* completed */
	uint64_t bytes_moved; /* read + written, completed jobs */
};

struct sim_compute_lane {
	struct sim_compute_job *q_head, *q_tail; /* waiting */
	struct sim_compute_job *cur;             /* running, or NULL */
	sim_time_ps cur_start;
};

struct sim_compute {
	struct sim_engine *eng;
	sim_time_ps overhead_ps;
	sim_time_ps ready_ps; /* no job starts before: the kernel's launch (GPU) */
	uint64_t bytes_per_s; /* 0: unlimited */
	uint32_t slow_milli;  /* sim_compute_slow()'s factor, for paces; 0: none */
	struct sim_compute_lane *lane; /* nlanes of them, grown by submission */
	uint32_t nlanes, nbusy;
	struct sim_compute_job *free;
	sim_time_ps mem_free_ps;  /* the shared memory is reserved until */
	sim_time_ps other_free_ps; /* the other path (submit_on's other_ps) until */
	sim_time_ps busy_ps;      /* union of the started jobs' spans */
	sim_time_ps span_start, span_end; /* the last span of that union */
	sim_time_ps ended_start;  /* the start of the job whose callback runs */
	struct sim_compute_stats st;
};

/* Pending events per lane that has a job. */
#define SIM_COMPUTE_MAX_EVENTS 1
/* Lanes a resource may have (a channel and its thread group, for the GPU). */
#define SIM_COMPUTE_MAX_LANES 4096u

/* A resource with the given costs.  0, or -EINVAL for a NULL engine. */
int sim_compute_init(struct sim_compute *c, struct sim_engine *eng, sim_time_ps overhead_ps,
		     uint64_t bytes_per_s);

/* The GPU or one CPU thread of a host section.  The GPU runs the
 * collective as NCCL does, in one persistent kernel, launched when the
 * collective starts (now): no job starts before host.gpu_launch_ps has
 * passed, and every job pays host.gpu_step_ps.  A CPU thread pays
 * host.cpu_call_ps per job.  0, or -EINVAL for a NULL argument or a bad
 * kind. */
int sim_compute_init_host(struct sim_compute *c, struct sim_engine *eng,
			  enum sim_compute_kind kind, const struct sim_host_params *h);

/* A straggler (fault injection, sim/fault.h slow-gpu): every later job
 * runs `milli` / 1000 times slower — the overhead and a job's pace times
 * that, rounded up, the bandwidth divided by it, rounded down (unlimited
 * stays unlimited),
 * so a job of cost c takes milli c / 1000 up to rounding: exactly, when
 * overhead x F, bandwidth / F and bytes x 1e12 / bandwidth are whole
 * numbers.  Set before the first job; milli <= 1000: no change. */
void sim_compute_slow(struct sim_compute *c, uint32_t milli);

/* Frees every job, queued or running (their callbacks never run), and
 * the lanes. */
void sim_compute_destroy(struct sim_compute *c);

/* overhead + ceil(bytes_moved * 1e12 / bandwidth), saturating at
 * SIM_TIME_NEVER (the launch wait, ready_ps, is not part of it). */
sim_time_ps sim_compute_cost_ps(const struct sim_compute *c, uint64_t bytes_moved);

/* Queues a job moving `bytes_moved` bytes on lane 0; fn (may be NULL) at
 * its end.  0 or -ENOMEM. */
int sim_compute_submit(struct sim_compute *c, uint64_t bytes_moved, sim_compute_done_fn fn,
		       void *ctx, uint64_t arg);

/* A job on `lane` (< SIM_COMPUTE_MAX_LANES, else -EINVAL) whose memory
 * traffic may go two ways at once: bytes_moved through this resource's own
 * memory (bandwidth above) and, alongside, a stream elsewhere that takes
 * other_ps (a GPU's loads and stores to pinned host memory across its PCIe
 * link, sim/gpu_host.h).  The SMs issue both, so they overlap and the
 * slower bounds the job:
 *   overhead + max(ceil(bytes_moved * 1e12 / bandwidth), other_ps).
 * Lane 0 and other_ps 0 is sim_compute_submit(). */
int sim_compute_submit_on(struct sim_compute *c, uint32_t lane, uint64_t bytes_moved,
			  sim_time_ps other_ps, sim_compute_done_fn fn, void *ctx, uint64_t arg);
/* The same, paying the resource's overhead only when `step` (a GPU op
 * whose peers are all over NVLink has no handshake on its block:
 * sim/exec.c), and lasting at least pace_ps after the overhead: its
 * thread group's own pace, which holds its lane but not the shared
 * memory (sim_compute_pace_ps()):
 *   overhead + max(memory time, other_ps, pace_ps). */
int sim_compute_submit_step(struct sim_compute *c, uint32_t lane, uint64_t bytes_moved,
			    sim_time_ps other_ps, sim_time_ps pace_ps, bool step,
			    sim_compute_done_fn fn, void *ctx, uint64_t arg);

/* The part of a job's other stream that also crosses a PCIe switch's
 * uplink (its loads and stores of host memory, sim/pcie.h): ps[d] of
 * uplink `up`'s direction d, reserved when the job starts, as its other
 * path's time is; the job ends no earlier than tail_ps after the later
 * direction's end (the last TLP's flight past the uplink). */
struct sim_compute_via {
	struct sim_pcie_uplink *up;
	sim_time_ps ps[SIM_PCIE_NDIR];
	uint64_t payload[SIM_PCIE_NDIR], wire[SIM_PCIE_NDIR]; /* data, and the TLPs' bytes */
	sim_time_ps tail_ps;
};

/* sim_compute_submit_step() with the other stream's uplink share *via
 * (NULL: none). */
int sim_compute_submit_via(struct sim_compute *c, uint32_t lane, uint64_t bytes_moved,
			   sim_time_ps other_ps, sim_time_ps pace_ps, bool step,
			   const struct sim_compute_via *via, sim_compute_done_fn fn, void *ctx,
			   uint64_t arg);

/* The pace of a thread group of `warps` warps making n output bytes with
 * protocol proto: ceil(n / (warps x B)) rounds of loads, each
 * host.gpu_mem_latency_ps but the first, which is inside the hop's own
 * latency (the P2P hop NCCL's tuner measures, host.gpu_step_ps), where B,
 * a warp's data per round, is
 * host.gpu_warp_load_bytes with Simple (NCCL's reduceCopy: a warp's hunk
 * of loads is in flight at once, the next waits for it; the sources of a
 * reduce are loaded together), 256 with LL (a 16 B line a thread, 8 of
 * it data) and 1920 with LL128 (8 u64 a thread of 128 B lines).  0 when
 * warps, the latency, host.gpu_warp_load_bytes or the bytes are 0. */
sim_time_ps sim_compute_pace_ps(const struct sim_host_params *h, enum cc_proto proto,
				uint32_t warps, uint64_t n);

/* A reduce of n bytes from nsrc sources into ndst destinations: (nsrc +
 * ndst) * n bytes.  -EINVAL for nsrc < 1, ndst < 1 or an overflowing size. */
int sim_compute_reduce(struct sim_compute *c, uint64_t n, unsigned nsrc, unsigned ndst,
		       sim_compute_done_fn fn, void *ctx, uint64_t arg);

/* A copy of n bytes to ndst destinations: (1 + ndst) * n bytes. */
int sim_compute_copy(struct sim_compute *c, uint64_t n, unsigned ndst, sim_compute_done_fn fn,
		     void *ctx, uint64_t arg);

/* Time during which at least one lane ran a job, up to sim_now(), the
 * running jobs' elapsed parts included. */
sim_time_ps sim_compute_busy_ps(const struct sim_compute *c);

/* In a job's completion callback: when that job started on its lane. */
static inline sim_time_ps sim_compute_job_start(const struct sim_compute *c)
{
	return c->ended_start;
}

/* No lane runs a job. */
static inline bool sim_compute_idle(const struct sim_compute *c) { return !c->nbusy; }

#endif /* CCLAB_SIM_COMPUTE_H */
