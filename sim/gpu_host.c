/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/gpu_host.c — the GPU's PCIe link to pinned host memory: the cost
 * formula and the counters (model and sources in gpu_host.h).
 */
#include "sim/gpu_host.h"

static sim_time_ps add_sat(sim_time_ps a, sim_time_ps b)
{
	return b > SIM_TIME_NEVER - a ? SIM_TIME_NEVER : a + b;
}

static sim_time_ps mul_sat(uint64_t n, sim_time_ps t)
{
	return n && t > SIM_TIME_NEVER / n ? SIM_TIME_NEVER : n * t;
}

/* One TLP of `wire` bytes; rate 0 is an unlimited link (sim/pcie.c). */
static sim_time_ps tlp_ps(const struct sim_pcie_params *pp, uint64_t wire)
{
	return pp->rate_bps ? sim_serialize_ps(wire, pp->rate_bps) : 0;
}

/* `bytes` as TLPs of at most `max` payload bytes, `oh` more each, each
 * rounded up on its own as sim/pcie.c does. */
static sim_time_ps tlps_ps(const struct sim_pcie_params *pp, uint64_t bytes, uint64_t max,
			   uint64_t oh)
{
	uint64_t n = bytes / max + (bytes % max != 0);

	if (!bytes)
		return 0;
	return add_sat(mul_sat(n - 1, tlp_ps(pp, max + oh)),
		       tlp_ps(pp, bytes - (n - 1) * max + oh));
}

void sim_gpu_host_cost(const struct sim_pcie_params *pp, uint64_t rd, uint64_t wr,
		       struct sim_gpu_host_cost *out)
{
	uint64_t mrrs = pp->mrrs_bytes ? pp->mrrs_bytes : 1, mps = pp->mps_bytes ? pp->mps_bytes : 1;
	uint64_t nreq = rd / mrrs + (rd % mrrs != 0);
	sim_time_ps mrd = tlp_ps(pp, pp->tlp_overhead_bytes);
	sim_time_ps up, down, t = 0;

	/* Completions are made per request (sim/pcie.c), so a request's last
	 * CplD may be short even when rd is a multiple of MPS. */
	down = mul_sat(rd / mrrs, tlps_ps(pp, mrrs, mps, pp->cpl_overhead_bytes));
	down = add_sat(down, tlps_ps(pp, rd % mrrs, mps, pp->cpl_overhead_bytes));
	up = add_sat(tlps_ps(pp, wr, mps, pp->tlp_overhead_bytes), mul_sat(nreq, mrd));
	if (rd) /* the first request's round trip before any data flows */
		t = add_sat(add_sat(mrd, pp->latency_ps), pp->latency_ps);
	/* then both directions at once; the first request is behind us */
	t = add_sat(t, up - (rd ? mrd : 0) > down ? up - (rd ? mrd : 0) : down);
	if (wr) /* the last store's flight */
		t = add_sat(t, pp->latency_ps);
	out->ps = t;
	out->dir_ps[SIM_PCIE_UP] = up;
	out->dir_ps[SIM_PCIE_DOWN] = down;
	/* The same TLPs counted in bytes: MWr and MRd up, CplD down (per
	 * request, as above). */
	out->wire[SIM_PCIE_UP] = wr + (wr / mps + (wr % mps != 0)) * pp->tlp_overhead_bytes +
				 nreq * pp->tlp_overhead_bytes;
	out->wire[SIM_PCIE_DOWN] = rd + ((rd / mrrs) * (mrrs / mps + (mrrs % mps != 0)) +
					 (rd % mrrs) / mps + ((rd % mrrs) % mps != 0)) *
						pp->cpl_overhead_bytes;
}

void sim_gpu_host_init(struct sim_gpu_host *g, const struct sim_pcie_params *pp)
{
	*g = (struct sim_gpu_host){ .pp = pp };
}

sim_time_ps sim_gpu_host_charge(struct sim_gpu_host *g, uint64_t rd, uint64_t wr)
{
	struct sim_gpu_host_cost c;

	if (!rd && !wr)
		return 0;
	sim_gpu_host_cost(g->pp, rd, wr, &c);
	g->bytes[SIM_PCIE_UP] += wr;
	g->bytes[SIM_PCIE_DOWN] += rd;
	for (int d = 0; d < SIM_PCIE_NDIR; d++)
		g->busy_ps[d] = add_sat(g->busy_ps[d], c.dir_ps[d]);
	return c.ps;
}
