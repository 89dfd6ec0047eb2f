/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/exec.h — the simulator executor: runs a schedule on a modelled fabric
 * and says how long it took, and why.
 *
 * The same struct cc_schedule the data executor checks (core/exec_data.h)
 * runs here on the models of sim/: each rank's host CPU (posting, polling),
 * GPU or CPU (reduce, copy), RNIC (sim/rnic.h: requester, responder,
 * completer), PCIe link (sim/pcie.h) and network ports; the links and
 * switches of the topology (sim/topo.h: ring, star, or any network of
 * sim/net.h, NVLink included).  docs/simulator.md gives the costs op by
 * op.
 *
 * With `check` set, bytes move for real — at the responder's payload DMA
 * write, at a reduce or copy's end — in the data executor's memory model,
 * and #wrong is counted against the same reference (core/check_io.h): a
 * timing run is a correctness run too.  Without it only the control words
 * a wait_mem watches are carried (flags and clear-to-send credits decide
 * the timing), so runs far larger than this machine's memory can be timed.
 *
 * Deterministic: the same schedule and options give the same result and the
 * same trace, byte for byte.
 */
#ifndef CCLAB_SIM_EXEC_H
#define CCLAB_SIM_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/exec.h"
#include "core/schedule.h"
#include "core/trace.h"
#include "sim/fault.h"
#include "sim/launch.h"
#include "sim/params.h"
#include "sim/time.h"
#include "sim/topo.h"

/* How the network is modelled: every packet (the default), or each
 * message as a flow sharing the links max-min fairly (sim/rnic_flow.c:
 * what it leaves out). */
enum cc_sim_model {
	CC_SIM_MODEL_PACKET,
	CC_SIM_MODEL_FLOW,
	CC_SIM_MODEL_COUNT
};
extern const char *const cc_sim_model_name[CC_SIM_MODEL_COUNT]; /* "packet", "flow" */
/* 0, or -EINVAL for a name not in cc_sim_model_name. */
int cc_sim_model_parse(const char *s, enum cc_sim_model *out);

/* A generated schedule's window to start with: ops of a stream made ahead
 * of its oldest not done (cc_sim_opts.gen_window). */
#define CC_SIM_GEN_WINDOW 512u

struct cc_sim_opts {
	const struct sim_params *fabric;
	enum cc_sim_model model;
	enum sim_topo_kind topo;
	/* A finished network to run on instead of `topo` (sim/net.h: a
	 * generator's or a topology file's), with exactly the schedule's
	 * ranks; NULL: the `topo` network.  It must outlive the call. */
	const struct sim_net *net;
	uint64_t seed;            /* input values (as cc_data_opts.seed) */
	bool check;               /* carry data and count #wrong */
	struct cc_trace *trace;   /* NULL: no trace */
	unsigned engine_flags;    /* sim/event.h flags (SIM_ENGINE_LIFO_TIES) */
	/* A generated schedule (core/gen.h): the ops each stream keeps made
	 * ahead of its oldest not done, to start with (0: the algorithm's,
	 * cc_gen_window(), else CC_SIM_GEN_WINDOW);
	 * a run that needs more starts again with four times as many
	 * (sim/exec_gen.c).  The results do not depend on it. */
	uint32_t gen_window;
	/* Simulated time after which a run still going is stuck: 0 is
	 * CC_SIM_TIME_LIMIT_DEFAULT_PS, SIM_TIME_NEVER none. */
	sim_time_ps time_limit_ps;
	const struct cc_fault *faults; /* as the data executor's */
	uint32_t nfaults;
	/* The simulator's own faults (sim/fault.h: link-down, no-ack,
	 * slow-gpu), checked against the run's network. */
	const struct cc_sim_fault *sim_faults;
	uint32_t nsim_faults;
	/* Wall-clock time after which the run is stopped whatever its
	 * simulated time, checked every CC_SIM_WALL_CHECK_EVENTS events, so a
	 * run never hangs; 0: no limit.  A run it stops ends as a time limit
	 * does (CC_RUN_TIME_LIMIT, "the wall-clock limit"), and is the one
	 * result that depends on the machine. */
	uint64_t wall_limit_ms;
	/* When that time started (cc_clock_ns(), core/algo.h): the caller's
	 * clock when the limit is to cover building the schedule too (the
	 * CLI starts it before cc_build_with()); 0: at this call. */
	uint64_t wall_start_ns;
	/* NULL, or a flag another thread may set (atomically) to call the
	 * run off: it stops at the next watchdog check as at the wall-clock
	 * limit (a sweep whose earlier size failed, cli/loop_jobs.c). */
	const bool *cancel;
	/* NULL, or a progress report for a terminal (cclab sim's line on
	 * stderr): called from the watchdog, every CC_SIM_WALL_CHECK_EVENTS
	 * events, with the simulated time and the events executed so far,
	 * and once more at the end with done set.  It only looks: the
	 * events, their order and every result are the same with it or
	 * without it (test_sim_exec.c). */
	void (*progress)(void *ctx, sim_time_ps now, uint64_t events, bool done);
	void *progress_ctx;
	/* How a benchmark's thread launches the collective (sim/launch.h):
	 * time_ps and every rank's done_ps are at least its floor, as an
	 * iteration of nccl-tests' loop.  Zeroed: no floor. */
	struct cc_sim_launch launch;
};

/* 3600 simulated seconds (as `cclab sim`'s CLI_SIM_TIME_LIMIT_S): a
 * collective takes microseconds to seconds, and a QP whose peer is gone
 * gives up after retry_cnt + 1 local ACK timeouts (IBA 9.7.6.1.3): 8.6 s
 * at NCCL v2.19's timeout_exp 18, 34 s at 20, its later default. */
#define CC_SIM_TIME_LIMIT_DEFAULT_PS (UINT64_C(3600) * SIM_PS_PER_S)
#define CC_SIM_WALL_CHECK_EVENTS 16384u

/* Where time went, per rank: busy time of each kind of resource (not a
 * critical path: resources overlap, so the parts may add up to more than
 * the run).  wire: serialization on the rank's NIC ports (transmit);
 * switch: packets sent by this rank, from their arrival at a switch to
 * their last bit leaving it (queueing and forwarding); pcie: the busier
 * PCIe direction. */
enum cc_sim_phase {
	CC_SIM_SOFTWARE, /* host CPU: post, doorbell, poll */
	CC_SIM_PCIE,
	CC_SIM_WIRE,
	CC_SIM_SWITCH,
	CC_SIM_REDUCE,   /* GPU (or CPU) reduce and copy */
	CC_SIM_GPU_PCIE, /* the GPU's PCIe link to staging in host memory, busier direction */
	CC_SIM_PHASE_COUNT
};
extern const char *const cc_sim_phase_name[CC_SIM_PHASE_COUNT]; /* "software", ... */

struct cc_sim_rank_stats {
	uint64_t data_bytes;  /* CC_PAYLOAD_DATA bytes its WQEs carried (as the data executor) */
	uint64_t wire_bytes;  /* everything its NIC ports transmitted: frames + preamble/IFG, */
	uint64_t wire_pkts;   /*   requests, ACKs, read responses, retransmissions */
	uint64_t payload_bytes; /* payload of those packets */
	uint64_t acks;          /* ACK / NAK packets it sent */
	uint64_t rnr_naks;      /* RNR NAKs it sent */
	uint64_t retx_pkts, retx_bytes; /* retransmitted (go-back-N after a NAK or timeout) */
	uint64_t timeouts;      /* local ACK timeouts its QPs took (IBA 9.7.6.1.3) */
	uint64_t lost_pkts;     /* of the packets it sent: lost on a link or dropped by a switch */
	uint64_t ecn_rx;        /* CE-marked packets it received */
	uint64_t cnps_sent, cnps_rx; /* congestion notifications (DCQCN NP / RP) */
	uint64_t rate_cuts;     /* DCQCN rate decreases of its QPs */
	uint64_t wqes;          /* send WQEs its NIC executed */
	uint64_t gpu_host_read_bytes;  /* its GPU's loads from host memory (staging) */
	uint64_t gpu_host_write_bytes; /* its GPU's stores to host memory (staging) */
	uint64_t ops_done;
	sim_time_ps done_ps;    /* its last op completed */
	sim_time_ps busy_ps[CC_SIM_PHASE_COUNT];
};

/* One direction of one link of the network, over the whole run. */
struct cc_sim_link_stats {
	char from[SIM_NET_NAME_LEN], to[SIM_NET_NAME_LEN]; /* node names */
	bool nvlink;
	bool pcie;                  /* a PCIe switch's uplink, one way (from the switch
				     * "<host>.pcie<i>" up to "<host>.host", or down) */
	bool socket;                /* the link between a host's CPU sockets, one way
				     * (host.nic_socket remote): from the NICs'
				     * "<host>.socket1" to the GPUs' "<host>.socket0"
				     * (what they write), or back (what they read) */
	uint64_t rate_bps;
	uint64_t tx_pkts, tx_bytes; /* wire bytes serialized (PCIe: TLP bytes) */
	uint64_t tx_payload_bytes;  /* of those, packets' payload */
	uint64_t lost;              /* packets lost on it (link.loss_ppb) */
	uint64_t pauses;            /* times PFC paused its sender */
	sim_time_ps paused_ps;      /* time its sender was paused */
	uint64_t credit_stalls;     /* times its head packet waited for IB credits */
	uint64_t ecn_marks;         /* packets the switch feeding it marked CE */
	uint32_t flows;             /* QPs whose route crosses it (ECMP: > 1 is a collision) */
	sim_time_ps busy_ps;        /* serializing */
	uint64_t peak_queue_bytes;  /* most wire bytes waiting to start on it */
};

/* A link's kind as --links and the JSON name it: pcie, socket, nvlink
 * or net. */
static inline const char *cc_sim_link_kind(const struct cc_sim_link_stats *l)
{
	return l->pcie ? "pcie" : l->socket ? "socket" : l->nvlink ? "nvlink" : "net";
}

struct cc_sim_result {
	struct cc_run_error err; /* status CC_RUN_OK on success (core/exec_data.h) */
	bool checked;           /* opts.check: wrong is meaningful */
	uint64_t wrong;
	sim_time_ps time_ps;    /* every rank done (at least launch_floor_ps) */
	/* opts.launch's floor (sim/launch.h), and whether it set time_ps: the
	 * launching thread, not the collective, paced the iteration */
	sim_time_ps launch_floor_ps;
	bool launch_bound;
	uint64_t events;        /* engine events executed */
	uint64_t peak_pending;  /* most events pending at once */
	uint32_t gen_window;    /* a generated schedule: the window the run ended with
				 * (sim/exec_gen.c); 0: built whole */
	uint64_t switch_drops;  /* packets switches dropped (buffer full, no route) */
	uint64_t pause_frames;  /* PFC PAUSE frames switches sent */
	uint64_t ecn_marks;     /* packets switches marked CE */
	size_t mem_bytes;       /* the simulator's own memory, buffers excluded */
	uint32_t nranks;
	struct cc_sim_rank_stats *rank; /* per rank */
	struct cc_sim_link_stats *links; /* per link direction of the network, then per
					  * direction of each PCIe switch uplink */
	uint32_t nlinks;
};

/* Runs s.  Returns 0 when the run could be carried out (res->err says how it
 * ended: a completion error, a deadlock — ops left and no event pending — or
 * CC_RUN_TIME_LIMIT, "time limit reached", when time_limit_ps passed with
 * events pending or wall_limit_ms did), -EINVAL for
 * invalid fabric parameters or a schedule this topology cannot carry (a QP
 * between ranks it does not connect, or a network of another rank count), or
 * sim_faults that cc_sim_faults_check() rejects, -E2BIG when the buffers would not fit
 * in this machine's memory (check on), -EFAULT for a memory region over GPU
 * memory on a fabric without GPUDirect RDMA (host.gpu_dma host-staging:
 * ibv_reg_mr would fail; build with cc_sim_stage_for()), -ENOMEM (also
 * when memory runs out mid-run: the run is unwound and everything freed,
 * never an abort).  Free with cc_sim_result_free(). */
int cc_sim_run(const struct cc_schedule *s, const struct cc_sim_opts *o,
	       struct cc_sim_result *res);
void cc_sim_result_free(struct cc_sim_result *res);

/* The simulator as core/exec.h's descriptor (sim/exec_ops.c): its setting
 * a struct cc_sim_opts. */
extern const struct cc_executor_ops cc_sim_executor;

/* About what cc_sim_run(s, o) allocates before its first event (bytes):
 * its per-op, per-dependency and per-QP state and the buffers it carries
 * (all of them with o->check, else the watched control words and the LL
 * protocols' slots), from the schedule's counts; packets in flight come on
 * top.  For a caller that must keep several runs within a memory budget
 * (`cclab tune`). */
double cc_sim_mem_estimate(const struct cc_schedule *s, const struct cc_sim_opts *o);

/* The schedule parameters for fabric f: on a host without GPUDirect RDMA
 * (host.gpu_dma host-staging) the staging buffers move to host memory
 * (stage_mem, core/schedule.h), as NCCL's net transport does; otherwise p
 * is left as it is.  What `cclab sim`, `cclab run` and scenarios build. */
void cc_sim_stage_for(struct cc_coll_params *p, const struct sim_params *f);

#endif /* CCLAB_SIM_EXEC_H */
