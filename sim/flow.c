/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/flow.c — max-min fair flows on shared resources (sim/flow.h). */
#include "sim/flow.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model.h"
#include "util/grow.h"

#define NO_FLOW UINT32_MAX

int sim_flownet_init(struct sim_flownet *n, struct sim_engine *eng, uint32_t nres)
{
	memset(n, 0, sizeof(*n));
	n->eng = eng;
	n->free_head = NO_FLOW;
	n->nres = nres;
	n->res = calloc(nres ? nres : 1, sizeof(*n->res));
	return n->res ? 0 : -ENOMEM;
}

void sim_flownet_destroy(struct sim_flownet *n)
{
	for (uint32_t i = 0; n->res && i < n->nres; i++)
		free(n->res[i].flows);
	free(n->res);
	free(n->fl);
	free(n->dirty);
	free(n->cf);
	free(n->cr);
	free(n->fr);
	free(n->act);
	memset(n, 0, sizeof(*n));
}

void sim_flownet_set_rate(struct sim_flownet *n, uint32_t res, uint64_t rate_bps)
{
	n->res[res].cap = (double)rate_bps / 8.0 / (double)SIM_PS_PER_S;
}

uint32_t sim_flownet_active(const struct sim_flownet *n)
{
	uint32_t a = 0;

	for (uint32_t i = 0; i < n->nfl; i++)
		a += n->fl[i].active;
	return a;
}

static void touch(struct sim_flownet *n, uint32_t r);
static void flow_end(struct sim_engine *eng, void *ctx, uint64_t arg);

/* Progress: the bytes flow f moved since its rate was last set. */
static void progress(struct sim_flownet *n, struct sim_flow *f)
{
	sim_time_ps now = sim_now(n->eng);

	if (f->rate > 0 && now > f->t_last) {
		f->left -= f->rate * (double)(now - f->t_last);
		if (f->left < 0)
			f->left = 0;
	}
	f->t_last = now;
}

/* (Re)schedules f's end from its rate and what it has left. */
static void schedule_end(struct sim_flownet *n, uint32_t id)
{
	struct sim_flow *f = &n->fl[id];
	sim_time_ps now = sim_now(n->eng), at = now;

	if (f->ev != SIM_EVENT_NONE)
		sim_cancel(n->eng, f->ev);
	if (f->left > 0 && isfinite(f->rate) && f->rate > 0) {
		double d = ceil(f->left / f->rate);

		at = d >= (double)(SIM_TIME_NEVER - now) ? SIM_TIME_NEVER - 1 : now + (sim_time_ps)d;
	}
	f->ev = sim_schedule(n->eng, at, flow_end, n, id);
	if (f->ev == SIM_EVENT_NONE)
		sim__nomem(__FILE__, __LINE__, "flow");
}

/* Resource r joins the component of visit e, once. */
static void take_res(struct sim_flownet *n, uint32_t r, uint32_t e)
{
	if (n->res[r].mark == e)
		return;
	n->res[r].mark = e;
	n->res[r].local = n->ncr;
	if (cc_grow(&n->cr, &n->room_cr, (uint64_t)n->ncr + 1, sizeof(*n->cr)))
		sim__nomem(__FILE__, __LINE__, "flow");
	n->cr[n->ncr++] = r;
}

/* Gathers into cf / cr every flow and resource connected to the dirty
 * resources, in the order met (deterministic). */
static void component(struct sim_flownet *n)
{
	uint32_t e = ++n->epoch;

	n->ncf = n->ncr = 0;
	for (uint32_t i = 0; i < n->ndirty; i++) {
		n->res[n->dirty[i]].dirty = false;
		take_res(n, n->dirty[i], e);
	}
	n->ndirty = 0;
	for (uint32_t i = 0; i < n->ncr; i++) {
		const struct sim_flow_res *rs = &n->res[n->cr[i]];

		for (uint32_t j = 0; j < rs->n; j++) {
			struct sim_flow *f = &n->fl[rs->flows[j]];

			if (f->mark == e)
				continue;
			f->mark = e;
			if (cc_grow(&n->cf, &n->room_cf, (uint64_t)n->ncf + 1, sizeof(*n->cf)))
				sim__nomem(__FILE__, __LINE__, "flow");
			n->cf[n->ncf++] = rs->flows[j];
			for (uint32_t k = 0; k < f->nres; k++)
				take_res(n, f->res[k], e);
		}
	}
}

/* A flow reaches its rate: it stops rising, and its resources' rising
 * weight loses it. */
static void fix(struct sim_flownet *n, struct sim_flow *f, double level)
{
	f->fixed = true;
	f->rate = level;
	for (uint32_t k = 0; k < f->nres; k++) {
		struct sim_flow_fill *x = &n->fr[n->res[f->res[k]].local];

		x->wsum -= f->w[k];
		if (--x->live == 0)
			x->wsum = 0;
	}
}

/* Progressive filling over the component: the common level rises by the
 * most the tightest resource allows; the flows of every resource then
 * full are fixed at it.  A level's passes go over the resources with
 * flows still rising alone (act): one whose flows are all fixed takes no
 * part in any of them, and in a large component most are. */
static void fill(struct sim_flownet *n)
{
	uint32_t rising = n->ncf, nact = n->ncr;
	double level = 0;

	if (cc_grow(&n->fr, &n->room_fr, n->ncr, sizeof(*n->fr)) ||
	    cc_grow(&n->act, &n->room_act, n->ncr, sizeof(*n->act)))
		sim__nomem(__FILE__, __LINE__, "flow");
	for (uint32_t i = 0; i < n->ncr; i++) {
		const struct sim_flow_res *r = &n->res[n->cr[i]];

		n->fr[i] = (struct sim_flow_fill){ .left = r->cap, .lim = 1e-9 * r->cap,
						   .live = r->n };
		n->act[i] = i;
	}
	for (uint32_t i = 0; i < n->ncf; i++) {
		struct sim_flow *f = &n->fl[n->cf[i]];

		f->fixed = false;
		for (uint32_t k = 0; k < f->nres; k++)
			n->fr[n->res[f->res[k]].local].wsum += f->w[k];
	}
	while (rising) {
		double inc = INFINITY;
		uint32_t keep = 0;

		for (uint32_t a = 0; a < nact; a++) {
			const struct sim_flow_fill *x = &n->fr[n->act[a]];

			if (x->live && x->wsum > 0 && x->left / x->wsum < inc)
				inc = x->left / x->wsum;
		}
		if (!isfinite(inc)) {
			/* nothing limits the rest (weights 0) */
			for (uint32_t i = 0; i < n->ncf; i++)
				if (!n->fl[n->cf[i]].fixed)
					n->fl[n->cf[i]].fixed = true, n->fl[n->cf[i]].rate = INFINITY;
			break;
		}
		if (inc < 0)
			inc = 0;
		level += inc;
		for (uint32_t a = 0; a < nact; a++) {
			struct sim_flow_fill *x = &n->fr[n->act[a]];

			if (x->live)
				x->left -= inc * x->wsum;
		}
		for (uint32_t a = 0; a < nact; a++) {
			const struct sim_flow_fill *x = &n->fr[n->act[a]];
			const struct sim_flow_res *r;

			/* full: what is left is rounding */
			if (!x->live || x->wsum <= 0 || x->left > x->lim)
				continue;
			r = &n->res[n->cr[n->act[a]]];
			for (uint32_t j = 0; j < r->n; j++) {
				struct sim_flow *f = &n->fl[r->flows[j]];

				if (!f->fixed) {
					fix(n, f, level);
					rising--;
				}
			}
		}
		for (uint32_t a = 0; a < nact; a++)
			if (n->fr[n->act[a]].live)
				n->act[keep++] = n->act[a];
		nact = keep;
	}
}

static void solve(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sim_flownet *n = ctx;

	(void)eng;
	(void)arg;
	n->armed = false;
	component(n);
	n->solves++;
	n->solved_flows += n->ncf;
	for (uint32_t i = 0; i < n->ncf; i++)
		progress(n, &n->fl[n->cf[i]]);
	/* the old rates, to keep the end events of flows whose rate stays */
	for (uint32_t i = 0; i < n->ncf; i++)
		n->fl[n->cf[i]].old_rate = n->fl[n->cf[i]].rate;
	fill(n);
	for (uint32_t i = 0; i < n->ncf; i++) {
		const struct sim_flow *f = &n->fl[n->cf[i]];

		if (f->ev == SIM_EVENT_NONE || f->old_rate != f->rate)
			schedule_end(n, n->cf[i]);
	}
}

/* A flow started or ended on resource r: its component is solved again. */
static void touch(struct sim_flownet *n, uint32_t r)
{
	if (!n->res[r].dirty) {
		n->res[r].dirty = true;
		if (cc_grow(&n->dirty, &n->room_dirty, (uint64_t)n->ndirty + 1, sizeof(*n->dirty)))
			sim__nomem(__FILE__, __LINE__, "flow");
		n->dirty[n->ndirty++] = r;
	}
	if (!n->armed) {
		n->armed = true;
		if (sim_schedule(n->eng, sim_now(n->eng), solve, n, 0) == SIM_EVENT_NONE)
			sim__nomem(__FILE__, __LINE__, "flow");
	}
}

static void flow_end(struct sim_engine *eng, void *ctx, uint64_t arg)
{
	struct sim_flownet *n = ctx;
	uint32_t id = (uint32_t)arg;
	struct sim_flow *f = &n->fl[id];
	sim_flow_done_fn fn = f->fn;
	void *fctx = f->ctx;
	uint64_t farg = f->arg;

	progress(n, f);
	for (uint32_t k = 0; k < f->nres; k++) {
		struct sim_flow_res *r = &n->res[f->res[k]];
		uint32_t last = r->flows[--r->n];

		/* swap-remove: the last flow of the list takes f's place */
		if (last != id) {
			struct sim_flow *g = &n->fl[last];

			for (uint32_t m = 0; m < g->nres; m++)
				if (g->res[m] == f->res[k]) {
					g->pos[m] = f->pos[k];
					break;
				}
			r->flows[f->pos[k]] = last;
		}
		touch(n, f->res[k]);
	}
	f->active = false;
	f->ev = SIM_EVENT_NONE;
	f->next_free = n->free_head;
	n->free_head = id;
	fn(eng, fctx, farg);
}

int sim_flow_start(struct sim_flownet *n, uint64_t bytes, const uint32_t *res, const double *w,
		   uint32_t nres, sim_flow_done_fn fn, void *ctx, uint64_t arg)
{
	uint32_t id;
	struct sim_flow *f;

	if (nres > SIM_FLOW_MAX_RES)
		sim__model_die(__FILE__, __LINE__, "flow: %u resources, at most %u", nres,
			       SIM_FLOW_MAX_RES);
	if (n->free_head != NO_FLOW) {
		id = n->free_head;
		n->free_head = n->fl[id].next_free;
	} else {
		if (cc_grow(&n->fl, &n->room_fl, (uint64_t)n->nfl + 1, sizeof(*n->fl)))
			return -ENOMEM;
		id = n->nfl++;
	}
	f = &n->fl[id];
	*f = (struct sim_flow){ .left = (double)bytes, .t_last = sim_now(n->eng), .active = true,
				.fn = fn, .ctx = ctx, .arg = arg, .ev = SIM_EVENT_NONE };
	for (uint32_t i = 0; bytes && i < nres; i++) {
		struct sim_flow_res *r = &n->res[res[i]];

		if (r->cap <= 0 || w[i] <= 0)
			continue; /* unlimited, or not used */
		for (uint32_t k = 0; k < f->nres; k++)
			if (f->res[k] == res[i])
				sim__model_die(__FILE__, __LINE__, "flow: resource %u twice", res[i]);
		if (cc_grow(&r->flows, &r->room, (uint64_t)r->n + 1, sizeof(*r->flows)))
			return -ENOMEM;
		f->res[f->nres] = res[i];
		f->w[f->nres] = w[i];
		f->pos[f->nres] = r->n;
		r->flows[r->n++] = id;
		r->bytes += w[i] * (double)bytes;
		f->nres++;
	}
	if (f->nres == 0) {
		f->rate = INFINITY;
		schedule_end(n, id);
		return 0;
	}
	for (uint32_t k = 0; k < f->nres; k++)
		touch(n, f->res[k]);
	return 0;
}
