/* SPDX-License-Identifier: BSD-3-Clause */
/* core/nccl_tune.c — NCCL's cost model and its choice (nccl_tune.h): the
 * bandwidth and latency of every collective, algorithm and protocol
 * (src/graph/tuning.cc ncclTopoTuneModel), the time of one size
 * (ncclTopoGetAlgoTime) and the pick with its per-size channels and
 * threads (src/enqueue.cc updateCollCostTable, topoGetAlgoInfo), for
 * each release from 2.18 to 2.30.  Each rule that changed names the
 * release that changed it; the constants are nccl_consts.c's, the graphs
 * nccl_graph.c's.
 *
 * Not modelled: a tuner plugin, NCCL_NTHREADS, NCCL_THREAD_THRESHOLDS,
 * MNNVL, POWER CPUs, fp8's ring penalty, the data
 * type's and reduction's CollNet and NVLS support (taken as supported),
 * the CUDA 11.8 LL128 exception, aggregated operations (one op per
 * launch). */
#include "nccl_tune_int.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "util/err.h"

/* NCCL's loop order over protocols: LL, LL128, Simple (ties go to the
 * first). */
static const enum cc_proto nccl_protos[CC_PROTO_COUNT] = { CC_PROTO_LL, CC_PROTO_LL128,
							   CC_PROTO_SIMPLE };

static bool ag_rs(enum cc_coll coll)
{
	return coll == CC_ALLGATHER || coll == CC_REDUCESCATTER;
}

/* floor(log2(n)), -1 for 0 (src/include/bitops.h log2Down). */
static int log2i(uint64_t n)
{
	int l = -1;

	while (n) {
		n >>= 1;
		l++;
	}
	return l;
}

struct tune {
	struct cc_nccl_comm *c;
	const struct cc_nccl_version *v;
	struct cc_nccl_consts k;
	int cc;
	uint32_t nnodes, nranks, ppn;
	int node_class;  /* tuning.cc index2: 1 node, 2, more */
	double ll_max;   /* llMaxBw */
	bool collnet_on; /* CollNet enabled and its graphs found */
};

static bool ge(const struct tune *t, uint32_t minor, uint32_t patch)
{
	return cc_nccl_ge(t->v, 2, minor, patch);
}

/* Which algorithms tuning.cc rates for a collective, by release. */
static bool rated(const struct tune *t, enum cc_coll coll, enum cc_nccl_algo a, enum cc_proto p)
{
	if ((a == CC_NCCL_NVLS || a == CC_NCCL_NVLS_TREE || a == CC_NCCL_PAT) && p != CC_PROTO_SIMPLE)
		return false;
	switch (coll) {
	case CC_BROADCAST:
	case CC_REDUCE:
		return a == CC_NCCL_RING;
	case CC_ALLGATHER:
	case CC_REDUCESCATTER:
		/* NVLS from 2.19, CollNetDirect from 2.20, PAT from 2.23
		 * (one GPU per node: ncclPatEnable) */
		return a == CC_NCCL_RING || (a == CC_NCCL_NVLS && ge(t, 19, 0)) ||
		       (a == CC_NCCL_COLLNET_DIRECT && ge(t, 20, 0)) ||
		       (a == CC_NCCL_PAT && ge(t, 23, 0) && t->ppn == 1);
	case CC_ALLREDUCE:
		return a != CC_NCCL_PAT;
	default:
		return false;
	}
}

/* NVLS's and NVLSTree's bandwidth per channel. */
static double nvls_bw(const struct tune *t, enum cc_coll coll, enum cc_nccl_algo a, double bw)
{
	const struct cc_nccl_graph *g = &t->c->graph[a];
	double ppn = t->ppn, intra, inter;
	bool tree = a == CC_NCCL_NVLS_TREE;

	if (ge(t, 28, 0)) {
		/* 2.28.3: NVLS efficiency, the head's channel lost, allreduce
		 * pipelining two operations; NVLSTree's 2-node doubling and cap */
		intra = g->bw_intra * t->k.nvls_efficiency[t->c->sys.arch] * (g->nchannels - 1) /
			g->nchannels;
		intra *= coll == CC_ALLREDUCE ? 2.0 : (ppn - 1) / ppn;
		inter = g->bw_inter * (t->nnodes <= 2 && tree ? 2 : 1);
		bw = fmin(intra, inter);
		return tree ? fmin(bw, t->k.nvls_tree_bw[t->c->sys.arch][t->node_class]) : bw;
	}
	if (!ge(t, 19, 0))
		return bw;
	if (tree)
		return fmin(g->bw_intra, t->nnodes <= 2 ? g->bw_inter : g->bw_inter / 2);
	if (coll != CC_ALLREDUCE && ge(t, 27, 0))
		return fmin(g->bw_intra * (ppn - 1) / ppn, g->bw_inter * 0.9);
	return fmin(g->bw_intra, g->bw_inter);
}

/* CollNetDirect/Simple's bus bandwidth. */
static double collnet_direct_bw(const struct tune *t, enum cc_coll coll, double bus)
{
	const struct cc_nccl_graph *g = &t->c->graph[CC_NCCL_COLLNET_DIRECT];
	double ppn = t->ppn, factor, w;

	if (!ag_rs(coll)) {
		/* the GPU/NIC ratio, half forgiven */
		factor = ppn / g->nchannels;
		factor -= (factor - 1) / 2;
		return bus / factor * (t->cc >= 90 ? .85 : 1);
	}
	if (ge(t, 27, 0))
		return ppn * fmin(g->bw_intra, g->bw_inter * 0.9);
	/* 2.20-2.26: one GPU per NIC, then a measured correction between
	 * 1 and 8 GPUs per node */
	if (t->nnodes > 1 && t->ppn > g->nchannels)
		return 0;
	w = (ppn - 1) / (8 - 1);
	return ppn * g->bw_intra * (w * 0.85 + (1 - w) * 0.95);
}

/* tuning.cc's bandwidth of (coll, a, p): bus bandwidth, then NCCL's
 * algorithm bandwidth (ring, NVLS x nRanks/nsteps; tree, CollNet x .5). */
static double rate(const struct tune *t, enum cc_coll coll, enum cc_nccl_algo a, enum cc_proto p,
		   uint32_t nsteps)
{
	const struct cc_nccl_graph *g = &t->c->graph[a];
	const struct cc_nccl_consts *k = &t->k;
	enum cc_gpu_arch arch = t->c->sys.arch;
	bool collnet = a == CC_NCCL_COLLNET_DIRECT || a == CC_NCCL_COLLNET_CHAIN;
	bool nvls = a == CC_NCCL_NVLS || a == CC_NCCL_NVLS_TREE;
	double bw = t->nnodes <= 2 || collnet ? g->bw_intra : g->bw_inter, bus, nch = g->nchannels;
	int n = t->node_class;

	/* 2.28.3: NVLS needs two channels */
	if (!g->nchannels || (nvls && ge(t, 28, 0) && g->nchannels < 2))
		return 0;
	if (nvls)
		bw = nvls_bw(t, coll, a, bw);
	bus = nch * bw;
	switch (a) {
	case CC_NCCL_RING:
		if (p == CC_PROTO_LL) {
			/* .5 from 2.21; 1/4, or 1/3 for one node's allgather and
			 * reduce-scatter and broadcast, before */
			bool quarter = t->nnodes > 1 || coll == CC_ALLREDUCE || coll == CC_REDUCE;
			double f = ge(t, 21, 0) ? .5 : quarter ? 1.0 / 4.0 : 1.0 / 3.0;

			bus = fmin(t->ll_max, bus * f);
		} else if (p == CC_PROTO_LL128) {
			/* .7 with one GPU per node up to 2.22 */
			double f = ge(t, 23, 0) || t->ppn >= 2 ? 0.92 : 0.7;

			bus = fmin(bus * f, nch * k->ring_ll128_bw[arch][n]);
		}
		break;
	case CC_NCCL_TREE:
		bus = fmin(bus * .92, nch * k->tree_bw[arch][n]);
		if (p == CC_PROTO_LL)
			bus = fmin(bus / 3.8, t->ll_max);
		else if (p == CC_PROTO_LL128)
			bus = fmin(bus * (t->nnodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
				   nch * k->tree_ll128_bw[arch][n]);
		/* a lone GPU's tree is NCCL_TOPO_PATTERN_TREE */
		if (t->ppn == 1)
			bus *= .85;
		break;
	case CC_NCCL_PAT:
		bus *= ge(t, 24, 0) ? .75 : .85;
		break;
	case CC_NCCL_COLLNET_DIRECT:
	case CC_NCCL_COLLNET_CHAIN:
		/* Simple only; 2.28: no chain beyond 8 GPUs a node (enqueue.cc) */
		if (p != CC_PROTO_SIMPLE || (a == CC_NCCL_COLLNET_CHAIN && ge(t, 28, 0) && t->ppn > 8))
			return 0;
		if (a == CC_NCCL_COLLNET_DIRECT)
			bus = collnet_direct_bw(t, coll, bus);
		break;
	default:
		break;
	}
	/* 2.27: NVLS and CollNetDirect allgather/reduce-scatter between nodes
	 * need CollNet and a NIC head per GPU (collNetHeadsNum); before, NVLS
	 * ran them on one node only (enqueue.cc) */
	if ((a == CC_NCCL_NVLS || a == CC_NCCL_COLLNET_DIRECT) && ag_rs(coll) && t->nnodes > 1) {
		if (a == CC_NCCL_NVLS && !ge(t, 27, 0))
			return 0;
		if (ge(t, 27, 0) &&
		    (!t->collnet_on || t->ppn > t->c->graph[CC_NCCL_COLLNET_DIRECT].nchannels))
			return 0;
	}
	/* algorithm bandwidth; from 2.23 not for other algorithms than the
	 * ring's allgather/reduce-scatter, from 2.20 not for CollNetDirect's */
	if (ag_rs(coll) && a != CC_NCCL_RING &&
	    (ge(t, 23, 0) || (ge(t, 20, 0) && a == CC_NCCL_COLLNET_DIRECT)))
		return bus;
	if (a == CC_NCCL_RING || (nvls && ge(t, 28, 0)))
		return bus * t->nranks / nsteps;
	if (nvls && !ge(t, 19, 0) && a == CC_NCCL_NVLS_TREE)
		return t->nnodes > 1 ? bus * .70 * t->nnodes / (2 * (t->nnodes - 1)) : 0;
	if (nvls)
		return bus * (ge(t, 18, 3) ? 5.0 / 6.0 : .75);
	return bus * .5;
}

/* getNetOverhead: NCCL_NET_OVERHEAD (ns), else 1 us, 2 us on AMD CPUs. */
static double net_overhead(const struct tune *t)
{
	if (t->c->env.net_overhead_ns >= 0)
		return (double)t->c->env.net_overhead_ns * .001;
	return t->c->sys.cpu == CC_CPU_AMD ? 2.0 : 1.0;
}

/* tuning.cc's latency of (coll, a, p), us. */
static double latency(const struct tune *t, enum cc_coll coll, enum cc_nccl_algo a, enum cc_proto p,
		      uint32_t nsteps)
{
	const struct cc_nccl_consts *k = &t->k;
	const struct cc_nccl_graph *g = &t->c->graph[a];
	enum cc_nccl_hw intra_hw = g->nvlink_intra ? CC_NCCL_HW_NVLINK : CC_NCCL_HW_PCI;
	double lat = k->base_lat[a][p], intra = k->hw_lat[intra_hw][a][p], inter;
	double ppn1 = t->ppn - 1.0, net = t->c->sys.net_latency_us, overhead;
	uint32_t nn = t->nnodes, inter_steps;
	bool ar = coll == CC_ALLREDUCE;

	/* 2.23: with one GPU per node the tree's network latency */
	inter = (ge(t, 23, 0) && t->ppn == 1 ? k->hw_lat[CC_NCCL_HW_NET][CC_NCCL_TREE][p] :
					       k->hw_lat[CC_NCCL_HW_NET][a][p]) +
		net;
	if (p == CC_PROTO_SIMPLE)
		inter += net; /* the flush */
	switch (a) {
	case CC_NCCL_RING:
		if (coll == CC_BROADCAST || coll == CC_REDUCE)
			/* sameChannels: one step's latency */
			return lat + k->hw_lat[nn == 1 ? intra_hw : CC_NCCL_HW_NET][a][p];
		overhead = nn > 1 ? net_overhead(t) * (p == CC_PROTO_SIMPLE ? 3 : 1) : 0;
		intra = fmax(intra, overhead);
		/* 2(nNodes-1) allreduce steps cross the network from 2.23,
		 * 2 nNodes before */
		if (ge(t, 23, 0))
			inter_steps = nn == 1 ? 0 : ar ? 2 * (nn - 1) : nn - 1;
		else
			inter_steps = ar ? (nn > 1 ? 2 * nn : 0) : nn - 1;
		return lat + (nsteps - inter_steps) * intra + inter_steps * inter;
	case CC_NCCL_TREE:
		return lat + 2 * (ppn1 * intra + log2i(nn) * inter);
	case CC_NCCL_COLLNET_DIRECT:
		/* arity serialization .4 us a GPU (.5 in 2.18) */
		return lat + 2 * (fmin(1, ppn1) * intra + ppn1 * (ge(t, 19, 0) ? .4 : .5)) + inter;
	case CC_NCCL_COLLNET_CHAIN:
		return lat + 2 * ppn1 * intra + inter;
	case CC_NCCL_NVLS:
		if (!ge(t, 19, 0))
			return lat + (nn > 1 ? k->hw_lat[CC_NCCL_HW_NET][a][p] : 0);
		return intra + (nn > 1 ? inter : 0);
	case CC_NCCL_NVLS_TREE:
		if (!ge(t, 19, 0))
			return lat + 2.0 * (nn - 1) * k->hw_lat[CC_NCCL_HW_NET][a][p];
		return lat + intra + 2 * log2i(nn) * inter;
	case CC_NCCL_PAT:
		return lat + log2i(nn) * inter / 3.5 + t->nranks * 2.8;
	default:
		return lat;
	}
}

/* LL128's default (tuning.cc): on paths up to PXB/PXN between nodes
 * (cclab's NICs sit beside their GPUs) and NVLink or nothing inside one. */
static bool ll128_default(const struct tune *t, enum cc_nccl_algo a)
{
	return t->ppn == 1 || t->c->graph[a].nvlink_intra;
}

static bool algo_enabled(const struct tune *t, enum cc_coll coll, enum cc_nccl_algo a)
{
	const struct cc_nccl_env *e = &t->c->env;
	bool on[CC_NCCL_ALGO_COUNT];

	for (int i = 0; i < CC_NCCL_ALGO_COUNT; i++)
		on[i] = e->algo[coll] >> i & 1;
	/* 2.18: NCCL_ALGO never disables the ring of other collectives */
	if (!ge(t, 19, 0) && a == CC_NCCL_RING && coll != CC_ALLREDUCE)
		return true;
	if (t->nnodes == 1)
		on[CC_NCCL_NVLS_TREE] = false;
	if (!t->collnet_on) {
		on[CC_NCCL_COLLNET_DIRECT] = on[CC_NCCL_COLLNET_CHAIN] = false;
		if (t->nnodes > 1)
			on[CC_NCCL_NVLS] = false;
		/* up to 2.23: "NCCL_ALGO=COLLNET" without CollNet is ignored */
		if (!ge(t, 24, 0) && !on[CC_NCCL_RING] && !on[CC_NCCL_TREE] && !on[CC_NCCL_NVLS] &&
		    !on[CC_NCCL_NVLS_TREE])
			on[CC_NCCL_RING] = on[CC_NCCL_TREE] = true;
	}
	if (!t->c->sys.nvswitch)
		on[CC_NCCL_COLLNET_DIRECT] = false;
	return on[a];
}

static bool proto_enabled(const struct tune *t, enum cc_coll coll, enum cc_nccl_algo a,
			  enum cc_proto p)
{
	const struct cc_nccl_env *e = &t->c->env;

	if (p == CC_PROTO_LL128 && !(e->proto_given >> coll & 1))
		return ll128_default(t, a);
	return e->proto[coll] >> p & 1;
}

/* ncclTopoTuneModel for c's graphs. */
static void tune_model(struct tune *t)
{
	struct cc_nccl_comm *c = t->c;
	bool backup = ge(t, 19, 0) && !ge(t, 24, 0);

	for (int ci = 0; ci < CC_COLL_COUNT; ci++) {
		enum cc_coll coll = (enum cc_coll)ci;
		uint32_t nsteps = coll == CC_ALLREDUCE ? 2 * (t->nranks - 1) :
				  ag_rs(coll) ? t->nranks - 1 : t->nranks;
		bool any = false;

		for (int ai = 0; ai < CC_NCCL_ALGO_COUNT; ai++)
			for (int pi = 0; pi < CC_PROTO_COUNT; pi++) {
				enum cc_nccl_algo a = (enum cc_nccl_algo)ai;
				enum cc_proto p = (enum cc_proto)pi;
				double bw = rated(t, coll, a, p) ? rate(t, coll, a, p, nsteps) : 0;
				bool proto_on;

				if (!bw)
					continue;
				c->lat[coll][a][p] = latency(t, coll, a, p, nsteps);
				proto_on = proto_enabled(t, coll, a, p);
				/* ringbdw: 2.19-2.21 before the masks, 2.22-2.23
				 * after NCCL_PROTO's and LL128's */
				if (backup && a == CC_NCCL_RING)
					c->ring_backup_bw[coll][p] = proto_on || !ge(t, 22, 0) ? bw : 0;
				if (!proto_on || !algo_enabled(t, coll, a))
					bw = 0;
				c->bw[coll][a][p] = bw;
				any |= bw > 0;
			}
		/* 2.19-2.23: a collective left with nothing gets the ring back */
		if (backup && !any)
			memcpy(c->bw[coll][CC_NCCL_RING], c->ring_backup_bw[coll],
			       sizeof(c->ring_backup_bw[coll]));
	}
}

/* The checks cc_nccl_comm_init makes of its inputs. */
static int check(const struct cc_nccl_version *v, const struct cc_nccl_system *s,
		 const struct cc_nccl_env *e, char *err, size_t len)
{
	const struct cc_nccl_version *old = &cc_nccl_version_oldest, *new = &cc_nccl_version_default;

	if (cc_nccl_version_cmp(v, old->major, old->minor, old->patch) < 0 ||
	    cc_nccl_version_cmp(v, new->major, new->minor + 1, 0) >= 0)
		return cc_errf(err, len, -EINVAL, "NCCL %u.%u.%u: cclab has NCCL's rules from %u.%u to %u.%u.%u",
			       v->major, v->minor, v->patch, old->major, old->minor, new->major,
			       new->minor, new->patch);
	if ((unsigned)s->arch >= CC_GPU_ARCH_COUNT || (unsigned)s->cpu >= CC_CPU_VENDOR_COUNT)
		return cc_errf(err, len, -EINVAL, "unknown GPU architecture or CPU vendor");
	if (s->arch == CC_GPU_BLACKWELL && !cc_nccl_ge(v, 2, 25, 0))
		return cc_errf(err, len, -EINVAL, "NCCL %u.%u has no Blackwell rules (2.25 on)",
			       v->major, v->minor);
	if (!s->nranks || !s->nnodes)
		return cc_errf(err, len, -EINVAL, "no rank or no node");
	if (s->nranks % s->nnodes)
		return cc_errf(err, len, -EINVAL, "%u ranks do not fill %u nodes evenly", s->nranks,
			       s->nnodes);
	if (!(s->pci_gbs > 0) || !isfinite(s->pci_gbs) || !(s->nvlink_gbs >= 0) ||
	    !isfinite(s->nvlink_gbs) || !(s->net_latency_us >= 0) || !isfinite(s->net_latency_us))
		return cc_errf(err, len, -EINVAL,
			       "PCIe rate must be > 0, NVLink rate and network latency >= 0");
	if ((s->nvlink_links > 0) != (s->nvlink_gbs > 0))
		return cc_errf(err, len, -EINVAL,
			       "NVLink needs both its links (%u) and its rate (%g GB/s), or neither",
			       s->nvlink_links, s->nvlink_gbs);
	if (s->nvswitch && !s->nvlink_links)
		return cc_errf(err, len, -EINVAL, "an NVSwitch without NVLink");
	if (s->nnodes > 1 && (!s->nics_per_node || !(s->nic_gbs > 0) || !isfinite(s->nic_gbs)))
		return cc_errf(err, len, -EINVAL, "%u nodes but no NIC with a rate", s->nnodes);
	/* per-collective NCCL_ALGO/NCCL_PROTO came with 2.24 */
	for (int ci = CC_REDUCESCATTER; !cc_nccl_ge(v, 2, 24, 0) && ci < CC_ALLTOALL; ci++)
		if (e->algo[ci] != e->algo[CC_ALLREDUCE] || e->proto[ci] != e->proto[CC_ALLREDUCE] ||
		    (e->proto_given >> ci & 1) != (e->proto_given & 1))
			return cc_errf(err, len, -EINVAL,
				       "NCCL %u.%u takes NCCL_ALGO and NCCL_PROTO for all collectives "
				       "at once (per collective from 2.24)",
				       v->major, v->minor);
	return 0;
}

int cc_nccl_comm_init(struct cc_nccl_comm *c, const struct cc_nccl_version *v,
		      const struct cc_nccl_system *s, const struct cc_nccl_env *e, char *err,
		      size_t len)
{
	struct tune t;
	int rc = check(v, s, e, err, len), row;

	if (rc)
		return rc;
	memset(c, 0, sizeof(*c));
	c->version = *v;
	c->sys = *s;
	c->env = *e;
	cc_nccl_graphs(c);
	memset(&t, 0, sizeof(t));
	t.c = c;
	t.v = &c->version;
	cc_nccl_consts_get(v, &t.k);
	t.cc = cc_nccl_compcap(s->arch);
	t.nnodes = s->nnodes;
	t.nranks = s->nranks;
	t.ppn = cc_nccl_ppn(s);
	t.node_class = s->nnodes <= 2 ? (int)s->nnodes - 1 : 2;
	/* LL's cap: the GPU's row on one node, the CPU's between nodes */
	row = s->nnodes == 1 ? (int)s->arch : s->cpu == CC_CPU_AMD ? 1 : 0;
	t.ll_max = t.k.ll_max_bw[row][t.node_class];
	t.collnet_on = c->graph[CC_NCCL_COLLNET_CHAIN].nchannels > 0;
	c->ll128_enabled = ll128_default(&t, CC_NCCL_RING);
	if (s->nranks > 1)
		tune_model(&t);
	return 0;
}

/* Trees "not perfectly sticking to the model for medium sizes"
 * (tuning.cc treeCorrectionFactor): bandwidth factors by log2(bytes/64),
 * NCCL's rows LL, LL128, Simple.  23 entries before 2.29, the same. */
static const double tree_correction[CC_PROTO_COUNT][24] = {
	[CC_PROTO_LL] = {
		1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5,
		.4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0,
	},
	[CC_PROTO_LL128] = {
		1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6,
		.6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0,
	},
	[CC_PROTO_SIMPLE] = {
		.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
		.5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9,
	},
};

/* ncclTopoGetAlgoTime at bandwidth bw, one operation (numPipeOps 1). */
static double algo_time(const struct cc_nccl_comm *c, enum cc_coll coll, enum cc_nccl_algo a,
			enum cc_proto p, uint64_t bytes, double bw)
{
	const struct cc_nccl_system *s = &c->sys;
	double lat = c->lat[coll][a][p];
	int log_size = log2i(bytes >> 6);
	bool ar = coll == CC_ALLREDUCE;

	if (a == CC_NCCL_TREE && ar && log_size >= 0 && log_size < 23)
		bw *= tree_correction[p][log_size];
	/* 2.29: NVLSTree too, on Blackwell with x86 CPUs */
	if (a == CC_NCCL_NVLS_TREE && ar && log_size >= 0 && log_size < 24 &&
	    cc_nccl_ge(&c->version, 2, 29, 0) && s->arch == CC_GPU_BLACKWELL && s->cpu != CC_CPU_OTHER)
		bw *= tree_correction[p][log_size];
	/* "plateau effect of ring" between nodes */
	if (a == CC_NCCL_RING && p == CC_PROTO_SIMPLE && s->nnodes > 1 && ar &&
	    bytes / ((uint64_t)c->nchannels * s->nranks) >= 64)
		lat *= cc_nccl_compcap(s->arch) < 80 ? 1.9 : 1.4;
	return lat + (double)bytes / (1000 * bw);
}

double cc_nccl_time_us(const struct cc_nccl_comm *c, enum cc_coll coll, enum cc_nccl_algo a,
		       enum cc_proto p, uint64_t bytes)
{
	if ((unsigned)coll >= CC_COLL_COUNT || (unsigned)a >= CC_NCCL_ALGO_COUNT ||
	    (unsigned)p >= CC_PROTO_COUNT)
		return -1;
	/* one rank: the ring's Simple copy, at no cost (updateCollCostTable) */
	if (c->sys.nranks == 1)
		return !cc_coll_p2p(coll) && a == CC_NCCL_RING && p == CC_PROTO_SIMPLE ? 0 : -1;
	if (!(c->bw[coll][a][p] > 0))
		return -1;
	return algo_time(c, coll, a, p, bytes, c->bw[coll][a][p]);
}

/* maxThreads (tuning.cc): the ring's Simple gets 256 threads when its
 * graph moves no more than PCI_BW (12 GB/s); PAT has none set. */
static uint64_t max_threads(const struct cc_nccl_comm *c, enum cc_nccl_algo a, enum cc_proto p)
{
	const struct cc_nccl_graph *ring = &c->graph[CC_NCCL_RING];

	if (p == CC_PROTO_SIMPLE)
		switch (a) {
		case CC_NCCL_RING: return ring->bw_intra * ring->nchannels <= 12.0 ? 256 : 512;
		case CC_NCCL_TREE: return 512;
		case CC_NCCL_PAT: return 0;
		default: return 640;
		}
	if (a == CC_NCCL_RING || a == CC_NCCL_TREE)
		return p == CC_PROTO_LL ? 512 : 640;
	return 0;
}

/* threadThresholds: bytes a thread handles before more threads and
 * channels are worth it (comm.h NCCL_*_THREAD_THRESHOLD); none with one
 * rank, where tuning.cc returns before setting them. */
static uint64_t thread_threshold(const struct cc_nccl_comm *c, enum cc_nccl_algo a, enum cc_proto p)
{
	if (c->sys.nranks <= 1)
		return 0;
	if (p == CC_PROTO_SIMPLE)
		return a == CC_NCCL_COLLNET_DIRECT || a == CC_NCCL_COLLNET_CHAIN ? 512 : 64;
	return p == CC_PROTO_LL && a == CC_NCCL_RING ? 8ull * c->sys.nranks : 8;
}

/* topoGetAlgoInfo: channels and threads for the winner at this size. */
static void size_channels(const struct cc_nccl_comm *c, uint64_t bytes, struct cc_nccl_choice *out)
{
	enum cc_nccl_algo a = out->algo;
	enum cc_proto p = out->proto;
	uint64_t nc = c->nchannels, nt = max_threads(c, a, p), thr = thread_threshold(c, a, p);

	if (a == CC_NCCL_COLLNET_DIRECT) {
		/* down to 16, 8, 4, 2, 1 channels, the threshold halved at
		 * 1.5 x each step */
		uint64_t heads = c->graph[CC_NCCL_COLLNET_DIRECT].nchannels;
		bool more = true;

		for (uint64_t sw = 16; sw >= 1 && more; sw /= 2)
			while ((more = bytes < nc * nt * heads * thr) && nc > sw) {
				if (nc == sw + sw / 2)
					thr /= 2;
				nc--;
			}
	} else if (a == CC_NCCL_NVLS || a == CC_NCCL_NVLS_TREE) {
		/* 2.28: NVLS between nodes within the communicator's channels */
		nc = c->nvls_nchannels;
		if (a == CC_NCCL_NVLS && c->sys.nnodes > 1 && cc_nccl_ge(&c->version, 2, 28, 0) &&
		    c->nchannels < nc)
			nc = c->nchannels;
	} else {
		while (bytes < nc * nt * thr && nc >= 2)
			nc--;
		while (bytes < nc * nt * thr && nt % 128 == 0)
			nt /= 2;
	}
	if (p == CC_PROTO_SIMPLE && a == CC_NCCL_RING)
		nt += 32; /* a warp to synchronise */
	if (p == CC_PROTO_SIMPLE && a == CC_NCCL_TREE)
		nt += 4 * 32;
	if (nt < 3 * 32)
		nt = 3 * 32;
	/* "Tree now uses all threads always" from 2.22; PAT (2.23) too */
	if ((a == CC_NCCL_TREE && cc_nccl_ge(&c->version, 2, 22, 0)) || a == CC_NCCL_PAT)
		nt = 640;
	out->nchannels = (uint32_t)nc;
	out->nthreads = (uint32_t)nt;
}

int cc_nccl_choose(const struct cc_nccl_comm *c, enum cc_coll coll, uint64_t bytes,
		   struct cc_nccl_choice *out, char *err, size_t len)
{
	double best = DBL_MAX, t;
	bool found = false;

	if ((unsigned)coll >= CC_COLL_COUNT)
		return cc_errf(err, len, -EINVAL, "no such collective");
	if (cc_coll_p2p(coll))
		return cc_errf(err, len, -ENOENT, "NCCL runs %s as point-to-point sends: no "
			       "algorithm to choose (cc_nccl_p2p)", cc_coll_name[coll]);
	for (int a = 0; a < CC_NCCL_ALGO_COUNT; a++)
		for (int i = 0; i < CC_PROTO_COUNT; i++) {
			t = cc_nccl_time_us(c, coll, (enum cc_nccl_algo)a, nccl_protos[i], bytes);
			if (t >= 0 && t < best) {
				best = t;
				out->algo = (enum cc_nccl_algo)a;
				out->proto = nccl_protos[i];
				found = true;
			}
		}
	/* 2.19-2.23: the ring kept aside, when nothing else is left */
	for (int i = 0; !found && i < CC_PROTO_COUNT; i++) {
		enum cc_proto p = nccl_protos[i];

		if (c->bw[coll][CC_NCCL_RING][p] > 0 || !(c->ring_backup_bw[coll][p] > 0))
			continue;
		t = algo_time(c, coll, CC_NCCL_RING, p, bytes, c->ring_backup_bw[coll][p]);
		if (t < best) {
			best = t;
			out->algo = CC_NCCL_RING;
			out->proto = p;
		}
	}
	if (!found && best == DBL_MAX)
		return cc_errf(err, len, -ENOENT,
			       "no algorithm/protocol available for %s: NCCL_ALGO and NCCL_PROTO leave "
			       "nothing that runs on this system",
			       cc_coll_name[coll]);
	out->time_us = best;
	size_channels(c, bytes, out);
	return 0;
}
