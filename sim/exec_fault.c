/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/exec_fault.c — the simulator's faults (sim/fault.h) on one run's
 * models, set before the first event:
 *
 *   link-down  outages on both directions of each link it names
 *              (sim_link_set_outages(): packets on the wire then are lost,
 *              and the transport's retransmission takes over);
 *   no-ack     the time from which the rank's responder stays silent,
 *              which sim/rnic_resp.c asks (sx_no_ack()) before it sends an
 *              ACK, a NAK or an atomic ACK;
 *   slow-gpu   the rank's GPU and CPU reduce thread slowed
 *              (sim_compute_slow()); several on one rank multiply.
 *
 * Without faults nothing is allocated or changed, so a run without them is
 * the run it always was, byte for byte.
 */
#include "sim/exec_int.h"

#include <errno.h>
#include <stdlib.h>

#include "sim/fault.h"

/* Every link-down fault's outage on each direction of its links: counted
 * per link direction first, so each direction gets one run of the array. */
static int apply_outages(struct sx *x)
{
	const struct sim_net *net = x->topo.net;
	const struct cc_sim_fault *fs = x->o->sim_faults;
	size_t ndirs = x->topo.nlinks;
	uint32_t *first = calloc(ndirs + 1, sizeof(*first));
	uint32_t *fill = calloc(ndirs + 1, sizeof(*fill));
	uint32_t *links = calloc(net->nlinks ? net->nlinks : 1, sizeof(*links));
	uint32_t total = 0;
	int err = 0;

	if (!first || !fill || !links) {
		err = -ENOMEM;
		goto out;
	}
	/* first[d + 1]: outages of direction d; then prefix sums. */
	for (uint32_t i = 0; i < x->o->nsim_faults; i++) {
		uint32_t n = cc_sim_fault_links(&fs[i], net, links, net->nlinks);

		for (uint32_t j = 0; j < n; j++) {
			first[2 * (size_t)links[j] + 1]++;
			first[2 * (size_t)links[j] + 2]++;
			total += 2;
		}
	}
	if (!total)
		goto out;
	for (size_t d = 0; d < ndirs; d++)
		first[d + 1] += first[d];
	x->outages = calloc(total, sizeof(*x->outages));
	if (!x->outages) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < x->o->nsim_faults; i++) {
		uint32_t n = cc_sim_fault_links(&fs[i], net, links, net->nlinks);

		for (uint32_t j = 0; j < n; j++)
			for (size_t d = 2 * (size_t)links[j]; d < 2 * (size_t)links[j] + 2; d++)
				x->outages[first[d] + fill[d]++] = (struct sim_link_outage){
					.from = fs[i].at_ps, .until = fs[i].until_ps };
	}
	for (size_t d = 0; d < ndirs; d++)
		sim_link_set_outages(&x->topo.links[d], &x->outages[first[d]],
				     first[d + 1] - first[d]);
out:
	free(first);
	free(fill);
	free(links);
	return err;
}

/* The earliest no-ack time of each rank. */
static int apply_no_ack(struct sx *x)
{
	const struct cc_sim_fault *fs = x->o->sim_faults;
	uint32_t k = x->s->nranks;

	for (uint32_t i = 0; i < x->o->nsim_faults; i++) {
		if (fs[i].kind != CC_SIM_FAULT_NO_ACK)
			continue;
		if (!x->no_ack_from) {
			x->no_ack_from = malloc((k ? k : 1) * sizeof(*x->no_ack_from));
			if (!x->no_ack_from)
				return -ENOMEM;
			for (uint32_t r = 0; r < k; r++)
				x->no_ack_from[r] = SIM_TIME_NEVER;
		}
		for (uint32_t r = 0; r < k; r++)
			if ((fs[i].rank == r || fs[i].rank == CC_SIM_FAULT_ALL) &&
			    fs[i].at_ps < x->no_ack_from[r])
				x->no_ack_from[r] = fs[i].at_ps;
	}
	return 0;
}

static void apply_slow_gpu(struct sx *x)
{
	const struct cc_sim_fault *fs = x->o->sim_faults;

	for (uint32_t i = 0; i < x->o->nsim_faults; i++) {
		if (fs[i].kind != CC_SIM_FAULT_SLOW_GPU)
			continue;
		for (uint32_t r = 0; r < x->s->nranks; r++)
			if (fs[i].rank == r || fs[i].rank == CC_SIM_FAULT_ALL) {
				sim_compute_slow(&x->rk[r].gpu, fs[i].factor_milli);
				sim_compute_slow(&x->rk[r].cpu_calc, fs[i].factor_milli);
			}
	}
}

int sx_faults_apply(struct sx *x)
{
	int err;

	if (!x->o->nsim_faults)
		return 0;
	if (!x->o->sim_faults ||
	    cc_sim_faults_check(x->o->sim_faults, x->o->nsim_faults, x->topo.net, NULL, 0))
		return -EINVAL;
	err = apply_outages(x);
	if (!err)
		err = apply_no_ack(x);
	if (!err)
		apply_slow_gpu(x);
	return err;
}

void sx_faults_free(struct sx *x)
{
	free(x->outages);
	free(x->no_ack_from);
	x->outages = NULL;
	x->no_ack_from = NULL;
}
