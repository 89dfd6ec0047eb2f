/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/flow.h — resources shared max-min fairly by fluid flows: the network
 * of the flow-level model (`--model flow`, sim/rnic_flow.c).
 *
 * A resource is one direction of a link (network, NVLink, PCIe) with a
 * rate (given in bits per second, kept in bytes per picosecond).  A flow is a message: `bytes` of payload
 * over a list of resources, using w_i bytes of resource i per payload byte
 * (its wire bytes over its payload: headers, framing, TLPs).  The flows on
 * the resources get the max-min fair allocation (Bertsekas and Gallager,
 * "Data Networks", 6.5.2): every flow's rate rises together until a
 * resource is full; the flows through it keep that rate, and the others
 * rise on (progressive filling, with the weights: a resource is full when
 * the sum of w x rate over its flows reaches its capacity).
 *
 * The allocation is recomputed whenever a flow starts or ends, and only on
 * the flows that share a resource with it, directly or through other
 * flows (its connected component): others keep their rates and their end
 * events.  Flows starting or ending at one picosecond are solved together:
 * the first change arms a solve at the same time, which runs after the
 * events already queued for it (a change made after that solve arms
 * another).
 *
 * Rates are doubles, in bytes per picosecond; a flow's end is rounded up to
 * the next picosecond.  The same calls in the same order give the same
 * times: the solve visits resources and flows in a fixed order.
 */
#ifndef CCLAB_SIM_FLOW_H
#define CCLAB_SIM_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/event.h"
#include "sim/time.h"

/* Resources one flow may cross: a NIC's PCIe link and the link between
 * its host's sockets, up to a dozen network hops, the peer's two. */
#define SIM_FLOW_MAX_RES 16

/* The flow's last byte is through every resource at `done` (= sim_now()). */
typedef void (*sim_flow_done_fn)(struct sim_engine *eng, void *ctx, uint64_t arg);

struct sim_flow_res {
	double cap;          /* bytes per ps; 0: unlimited, no constraint */
	uint32_t *flows;     /* the flows on it, unordered */
	uint32_t n, room;
	uint32_t mark;       /* the solve's visit mark */
	uint32_t local;      /* in a solve: its index in the component (cr, fr) */
	bool dirty;          /* a flow started or ended on it since the last solve */
	double bytes;        /* resource bytes carried (w x payload), for reports */
};

struct sim_flow {
	uint32_t res[SIM_FLOW_MAX_RES];
	uint32_t pos[SIM_FLOW_MAX_RES]; /* its index in each resource's list */
	double w[SIM_FLOW_MAX_RES];
	uint32_t nres;
	double left;         /* payload bytes still to go */
	double rate;         /* bytes per ps */
	double old_rate;     /* in a solve: the rate before it */
	sim_time_ps t_last;  /* `left` is as of then */
	sim_event_id ev;     /* its end, SIM_EVENT_NONE while unsolved */
	uint32_t mark;
	bool active, fixed;
	sim_flow_done_fn fn;
	void *ctx;
	uint64_t arg;
	uint32_t next_free;
};

struct sim_flownet {
	struct sim_engine *eng;
	struct sim_flow_res *res;
	uint32_t nres;
	struct sim_flow *fl;
	uint32_t nfl, room_fl, free_head;
	uint32_t *dirty;     /* resources marked dirty, in order */
	uint32_t ndirty, room_dirty;
	uint32_t *cf, ncf, room_cf; /* a solve's component: flows */
	uint32_t *cr, ncr, room_cr; /* and resources */
	/* The filling's state of the component's resources, fr[i] for cr[i],
	 * dense so that a level's passes stream through it; and the indices
	 * of those that had flows still rising when the level began, in cr's
	 * order (a level's passes skip those it leaves without any). */
	struct sim_flow_fill {
		double left;  /* capacity left */
		double wsum;  /* weight of its flows still rising */
		double lim;   /* 1e-9 of its capacity: full below that */
		uint32_t live; /* its flows still rising */
	} *fr;
	uint32_t room_fr, *act, room_act;
	uint32_t epoch;
	bool armed;          /* a solve is scheduled at sim_now() */
	uint64_t solves, solved_flows; /* how much work the solves did */
};

/* nres resources, every one unlimited until sim_flownet_set_rate(); 0 or
 * -ENOMEM. */
int sim_flownet_init(struct sim_flownet *n, struct sim_engine *eng, uint32_t nres);
void sim_flownet_destroy(struct sim_flownet *n);
/* Resource `res` carries rate_bps (0: unlimited).  Before any flow. */
void sim_flownet_set_rate(struct sim_flownet *n, uint32_t res, uint64_t rate_bps);

/* Starts a flow of `bytes` payload bytes over res[0 .. nres) (at most
 * SIM_FLOW_MAX_RES; a resource twice is a model bug), w[i] resource bytes
 * per payload byte on res[i] (>= 0); fn(eng, ctx, arg) when its last byte
 * is through.  A flow of 0 bytes, or on no limited resource, ends at once
 * (in an event at sim_now()).  0, or -ENOMEM. */
int sim_flow_start(struct sim_flownet *n, uint64_t bytes, const uint32_t *res, const double *w,
		   uint32_t nres, sim_flow_done_fn fn, void *ctx, uint64_t arg);

/* Flows in progress. */
uint32_t sim_flownet_active(const struct sim_flownet *n);

#endif /* CCLAB_SIM_FLOW_H */
