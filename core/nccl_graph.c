/* SPDX-License-Identifier: BSD-3-Clause */
/* core/nccl_graph.c — NCCL's communication graphs and channel counts: the
 * first half of ncclTopoTuneModel's inputs, from a cc_nccl_system.
 *
 * NCCL searches its topology for graphs (src/graph/search.cc
 * ncclTopoCompute): per-channel paths through GPUs, NVSwitch, PCIe and
 * NICs, each channel taking bandwidth off every link it crosses.  cclab
 * keeps the search's control flow exactly — the per-release speed
 * arrays, the starting speed (the first not above system->maxBw whose
 * minChannels copies fit in system->totalBw, scaled by ngpus/(ngpus-1)
 * for non-ring patterns), pass 1 lowering the speed while the next one
 * is more than .49 of the best found and stopping at maxChannels or at
 * nChannels * bwInter >= totalBw, ncclTopoDupChannels, pass 2 raising
 * the ring's speed, NVLS's bwInter and trees' bwIntra, the comparison of
 * ncclTopoCompareGraphs — and replaces the path search itself by a
 * count: how many channels of bandwidth (bwIntra, bwInter) the node's
 * links can carry.  The counts (fit() below):
 *
 *   ring, one node       each channel crosses every GPU's link once each
 *                        way: floor(link / bwIntra);
 *   trees, one node      a chain's last GPU sends nothing and chains
 *                        rotate: floor(link * g / (g-1) / bwIntra) (the
 *                        same g/(g-1) NCCL puts on totalBw);
 *   ring and trees,      each channel leaves through one NIC, and through
 *   several nodes        the PCIe link of the GPU beside it:
 *                        min(nics * floor(nic / bwInter),
 *                            min(g, nics) * floor(pci / bwInter)), and
 *                        the NVLink of a GPU carries each channel except
 *                        those that leave through it (every GPU has a NIC)
 *                        or all of them (a ring, fewer NICs than GPUs);
 *   NVLS                 one head per GPU (per NIC between nodes) and a
 *                        head's link carries its channel twice
 *                        (ncclTopoSearchTryNvls): (n + 1) * bwIntra <= link;
 *   CollNet direct       one head per NIC-GPU, at most 8; a head sends its
 *                        share to all others (ncclTopoSearchTryCollnetDirect):
 *                        bwIntra * (1 + (n-1)/(g-1)) <= link.
 *
 * where g is the GPUs of a node, link a GPU's NVLink total as NCCL counts
 * it (nvlink_total(); its PCIe link without NVLink), pci its PCIe link,
 * nic a port's rate; where the NICs sit on the other CPU socket (PATH_SYS),
 * every channel also crosses the link between the sockets, which all of a
 * node's channels share: at most floor(sys / bwInter) of them.  system->maxBw is
 * the GPU-GPU path's bandwidth on one node (the NVLink total through an
 * NVSwitch, link / (g-1) to one peer of an NVLink mesh, the PCIe link)
 * and min(nic, pci, sys) between nodes; totalBw is max(pci, NVLink total)
 * (ncclTopoSearchInit).  These give NCCL's published graphs on the
 * standard systems: DGX H100 one node ring 6 x 60 duplicated to 12 x 30,
 * NVLS 8 x 40 (bwInter raised to 60), two nodes ring 8 x 48, NVLS 8 x 40
 * / 48; DGX A100 ring 6 x 40 duplicated to 12 x 20.  What the count does
 * not see: PCIe switches shared by two GPUs or a GPU and a NIC, the Intel
 * P2P overhead on PHB paths, CPU links (QPI, xGMI) inside a node, rails and crossNic
 * (channels use any NIC), the search's time-outs, and sameChannels (taken
 * as 1).
 *
 * Then init.cc and connect.cc ncclTopoPostset: the communicator's
 * channels are min(ring, tree) doubled, +50% for CollNet, doubled again
 * on Hopper+ between nodes at bwIntra > 45, then bounded by
 * NCCL_MIN/MAX_NCHANNELS and NCCL_MIN/MAX_CTAS; NVLS's own count is
 * transport/nvls.cc's. */
#include "nccl_tune_int.h"

#include <math.h>
#include <string.h>

/* Graph patterns (src/include/graph.h NCCL_TOPO_PATTERN_*). */
enum pattern { BALANCED_TREE, TREE, RING, NVLS, COLLNET_DIRECT };

/* Speed arrays (search.cc speedArray*, sm90SpeedArray*, sm100SpeedArray*):
 * the per-channel bandwidths the search tries, GB/s, from the first tag
 * that has each. */
struct speeds {
	uint32_t minor, patch;
	const double *v;
	size_t n;
};
#define SPEEDS(minor, patch, a) { minor, patch, a, sizeof(a) / sizeof(a[0]) }

static const double intra_any[] = { 40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3 };
static const double inter_any[] = {
	48, 30, 28, 24, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12,
};
static const double sm90_intra_18[] = { 60, 40, 30, 24, 20, 15, 12, 6, 3 };
static const double sm90_intra_19[] = { 60, 50, 40, 30, 24, 20, 15, 12, 6, 3 };
static const double sm90_intra_21[] = { 60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3 };
static const double sm90_inter_18_1[] = {
	48, 45, 42, 40, 30, 24, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12,
};
static const double sm90_inter_18_3[] = {
	48, 45, 42, 40, 30, 24, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12,
};
static const double sm90_inter_19_3[] = {
	48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12,
};
static const double sm100_intra_25[] = { 90, 80, 70, 60, 50, 40, 30, 24, 20, 19 };
static const double sm100_intra_27[] = { 90, 80, 70, 60, 50, 40, 30, 24, 20, 19, 18 };
static const double sm100_intra_29[] = { 90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18 };
static const double sm100_inter_27_3[] = {
	47.9, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12,
};
static const double sm100_inter_27_5[] = {
	48, 45.1, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12,
};
static const double sm100_inter_27_6[] = {
	96, 48, 45.1, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12,
};
static const double sm100_inter_29_7[] = {
	96, 80, 48, 45.1, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12,
};
static const double sm100_inter_30[] = {
	96, 86, 80, 48, 45.1, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12,
};

static const struct speeds speeds_intra_any[] = { SPEEDS(18, 0, intra_any) };
static const struct speeds speeds_inter_any[] = { SPEEDS(18, 0, inter_any) };
static const struct speeds speeds_sm90_intra[] = {
	SPEEDS(18, 0, sm90_intra_18), SPEEDS(19, 0, sm90_intra_19), SPEEDS(21, 0, sm90_intra_21),
};
static const struct speeds speeds_sm90_inter[] = {
	SPEEDS(18, 0, sm90_inter_18_1), SPEEDS(18, 3, sm90_inter_18_3),
	SPEEDS(19, 3, sm90_inter_19_3),
};
static const struct speeds speeds_sm100_intra[] = {
	SPEEDS(25, 0, sm100_intra_25), SPEEDS(27, 0, sm100_intra_27), SPEEDS(29, 0, sm100_intra_29),
};
static const struct speeds speeds_sm100_inter[] = {
	SPEEDS(25, 0, sm90_inter_19_3), SPEEDS(27, 0, sm100_inter_27_3),
	SPEEDS(27, 5, sm100_inter_27_5), SPEEDS(27, 6, sm100_inter_27_6),
	SPEEDS(29, 7, sm100_inter_29_7), SPEEDS(30, 0, sm100_inter_30),
};

/* The node as the search sees it. */
struct node {
	const struct cc_nccl_version *v;
	int cc;                /* compute capability */
	uint32_t g, nics;      /* GPUs, NIC ports */
	bool inter;            /* several nodes: the NICs are in the graph */
	double link, pci, nic; /* a GPU's intra-node link, its PCIe link, a port */
	double sys;            /* the CPU link the NICs' paths share; 0: none */
	double max_bw, total_bw;
	struct speeds sp;
};

static struct speeds pick(const struct cc_nccl_version *v, const struct speeds *list, size_t n)
{
	size_t i = 0;

	while (i + 1 < n && cc_nccl_ge(v, 2, list[i + 1].minor, list[i + 1].patch))
		i++;
	return list[i];
}
#define PICK(v, list) pick(v, list, sizeof(list) / sizeof(list[0]))

double cc_nccl_nvlink_bw(const struct cc_nccl_comm *c)
{
	const struct cc_nccl_version *v = &c->version;

	switch (c->sys.arch) {
	case CC_GPU_HOPPER: return cc_nccl_ge(v, 2, 20, 0) ? 20.6 : 20.0;
	case CC_GPU_BLACKWELL: return cc_nccl_ge(v, 2, 27, 5) ? 40.1 : 40.0;
	default: return 20.0;
	}
}

/* A GPU's NVLinks as NCCL's topology counts them: links x its rate per
 * link, not the hardware's. */
static double nvlink_total(const struct cc_nccl_comm *c)
{
	return c->sys.nvlink_links * cc_nccl_nvlink_bw(c);
}

static void node_init(struct node *m, const struct cc_nccl_comm *c)
{
	const struct cc_nccl_system *s = &c->sys;
	double nvlink = nvlink_total(c);
	bool nvl = nvlink > 0;

	m->v = &c->version;
	m->cc = cc_nccl_compcap(s->arch);
	m->g = cc_nccl_ppn(s);
	m->nics = s->nics_per_node;
	m->inter = s->nnodes > 1;
	m->link = nvl ? nvlink : s->pci_gbs;
	m->pci = s->pci_gbs;
	m->nic = s->nic_gbs;
	m->sys = m->inter ? s->sys_gbs : 0;
	if (m->inter)
		m->max_bw = fmin(s->nic_gbs, m->sys > 0 ? fmin(s->pci_gbs, m->sys) : s->pci_gbs);
	else
		m->max_bw = nvl && !s->nvswitch && m->g > 1 ? m->link / (m->g - 1) : m->link;
	m->total_bw = fmax(s->pci_gbs, nvlink);
	if (m->cc >= 100)
		m->sp = m->inter ? PICK(m->v, speeds_sm100_inter) : PICK(m->v, speeds_sm100_intra);
	else if (m->cc >= 90)
		m->sp = m->inter ? PICK(m->v, speeds_sm90_inter) : PICK(m->v, speeds_sm90_intra);
	else
		m->sp = m->inter ? PICK(m->v, speeds_inter_any) : PICK(m->v, speeds_intra_any);
}

/* Channels of bandwidth bw that capacity cap holds. */
static uint64_t fits(double cap, double bw)
{
	return (uint64_t)floor(cap / bw + 1e-9);
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* How many channels of (intra, inter) the node carries (the file's
 * comment). */
static uint64_t fit(const struct node *m, enum pattern p, double intra, double inter)
{
	uint64_t exits = min64(m->g, m->nics), n;
	/* the share of a channel's intra-node traffic on one GPU's link */
	double share = m->g > 1 ? (m->g - 1.0) / m->g : 1.0;

	if (p == NVLS) {
		n = min64(m->g, 32);
		if (m->inter)
			n = min64(n, m->nic >= inter ? m->nics : 0);
		return min64(n, fits(m->link, intra) > 0 ? fits(m->link, intra) - 1 : 0);
	}
	if (p == COLLNET_DIRECT) {
		n = min64(min64(8, m->g), m->nic >= inter ? m->nics : 0);
		while (n > 0 && m->g > 1 && intra * (1 + (n - 1.0) / (m->g - 1)) > m->link)
			n--;
		return n;
	}
	if (!m->inter)
		return fits(p == RING ? m->link : m->link / share, intra);
	n = min64(m->nics * fits(m->nic, inter), exits * fits(m->pci, inter));
	if (m->sys > 0)
		n = min64(n, fits(m->sys, inter));
	if (m->g > 1)
		n = min64(n, fits(m->link / (p == RING && exits < m->g ? 1.0 : share), intra));
	return n;
}

struct found {
	uint64_t n;
	double intra, inter;
};

/* ncclTopoCompareGraphs: NVLS wants more heads, then more bwInter;
 * the others more nChannels * bwIntra. */
static bool better(const struct node *m, enum pattern p, const struct found *f,
		   const struct found *best)
{
	if (p == NVLS)
		return (f->n > best->n && f->n <= m->g) || f->n * f->inter > best->n * best->inter;
	return f->n * f->intra > best->n * best->intra;
}

/* One search at (intra, inter): keeps it in *best if it is better. */
static void attempt(const struct node *m, enum pattern p, uint64_t lo, uint64_t hi, double intra,
		    double inter, struct found *best)
{
	struct found f = { min64(fit(m, p, intra, inter), hi), intra, inter };

	if (f.n > 0 && f.n >= lo && better(m, p, &f, best))
		*best = f;
}

/* ncclTopoDupChannels. */
static void dup_channels(const struct node *m, enum pattern p, uint64_t max_ch, struct found *f)
{
	uint64_t d, div;

	if (!f->n || p == NVLS || f->intra < 25.0 || (m->cc > 80 && f->intra < 50.0 && f->n > 4))
		return;
	d = min64(2 * f->n, max_ch);
	div = (d + f->n - 1) / f->n;
	f->intra /= (double)div;
	f->inter /= (double)div;
	f->n = d;
}

/* ncclTopoCompute with fit() for the path search. */
static struct found search(const struct node *m, enum pattern p, uint64_t min_ch, uint64_t max_ch)
{
	const double *sp = m->sp.v;
	size_t n = m->sp.n, i = 0;
	bool from_2_19 = cc_nccl_ge(m->v, 2, 19, 0);
	double total = m->total_bw;
	struct found best = { 0, 0, 0 }, tmp;
	uint64_t lo, hi;

	if (p != RING)
		total = m->g > 1 ? total * m->g / (m->g - 1.0) : cc_nccl_ge(m->v, 2, 23, 0) ? total : INFINITY;
	while (i + 1 < n && (sp[i] > m->max_bw || sp[i] * (double)min_ch > total))
		i++;
	for (;;) {
		attempt(m, p, min_ch, max_ch, sp[i], sp[i], &best);
		if (best.n == max_ch || (best.n && best.n * best.inter >= m->total_bw))
			break;
		if (i + 1 < n && (!best.n || sp[i + 1] / best.inter > .49)) {
			i++;
			continue;
		}
		break;
	}
	if (!best.n)
		return best;
	if (from_2_19)
		dup_channels(m, p, max_ch, &best);
	/* Pass 2, from the first speed not above the solution's bwInter. */
	for (i = 0; i + 1 < n && sp[i] > best.inter;)
		i++;
	tmp.intra = tmp.inter = sp[i];
	lo = best.n;
	hi = max_ch;
	while (i > 0) {
		if (from_2_19 && p == RING) {
			tmp.intra = tmp.inter = sp[--i];
		} else if (from_2_19 && p == NVLS && tmp.inter == best.inter && tmp.inter < 2 * tmp.intra) {
			lo = hi = best.n;
			tmp.inter = sp[--i];
		} else if (p != RING && tmp.intra == best.intra && tmp.intra < 2 * tmp.inter) {
			tmp.intra = sp[--i];
		} else {
			break;
		}
		attempt(m, p, lo, hi, tmp.intra, tmp.inter, &best);
	}
	if (!from_2_19)
		dup_channels(m, p, max_ch, &best);
	return best;
}

/* A graph as tuning.cc reads it.  A ring or tree the search could not
 * place falls back to one channel at 0.1 GB/s over PCI (search.cc
 * "falling back to simple order"). */
static struct cc_nccl_graph as_graph(const struct found *f, bool nvlink)
{
	struct cc_nccl_graph g = { (uint32_t)f->n, f->intra, f->inter, nvlink };

	return g;
}

static struct cc_nccl_graph ring_or_tree(const struct node *m, enum pattern p, uint64_t min_ch,
					 uint64_t max_ch, bool nvlink)
{
	struct found f = search(m, p, min_ch, max_ch), fallback = { 1, 0.1, 0.1 };

	return f.n ? as_graph(&f, nvlink) : as_graph(&fallback, false);
}

static uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* NCCL_MIN/MAX_CTAS as the config holds them (init.cc): each at most
 * MAXCHANNELS, min at most max; unset 1 and MAXCHANNELS. */
static void ctas(const struct cc_nccl_comm *c, uint32_t maxch, uint32_t *lo, uint32_t *hi)
{
	*hi = c->env.max_ctas ? min32(c->env.max_ctas, maxch) : maxch;
	*lo = c->env.min_ctas ? min32(c->env.min_ctas, maxch) : 1;
	*lo = min32(*lo, *hi);
}

/* n channels within NCCL_MAX_NCHANNELS and NCCL_MAX_CTAS, then raised to
 * NCCL_MIN_NCHANNELS and NCCL_MIN_CTAS (ncclTopoPostset: "combining max,
 * then min"), each at most MAXCHANNELS. */
static uint32_t bounded(const struct cc_nccl_comm *c, uint32_t n)
{
	uint32_t maxch = cc_nccl_maxchannels(&c->version), lo, hi, max_n, min_n;

	ctas(c, maxch, &lo, &hi);
	max_n = c->env.max_nchannels ? min32(c->env.max_nchannels, maxch) : maxch;
	min_n = min32(c->env.min_nchannels, maxch);
	n = min32(min32(max_n, n), hi);
	if (n < min_n)
		n = min_n;
	return n < lo ? lo : n;
}

/* connect.cc ncclTopoPostset: the communicator's channels from the
 * searched count n. */
static uint32_t postset(const struct cc_nccl_comm *c, uint32_t n)
{
	const struct cc_nccl_version *v = &c->version;
	const struct cc_nccl_system *s = &c->sys;
	const struct cc_nccl_graph *ring = &c->graph[CC_NCCL_RING];
	uint32_t maxch = cc_nccl_maxchannels(v);
	int cc = cc_nccl_compcap(s->arch);
	bool hopper = cc_nccl_ge(v, 2, 25, 0) ? cc >= 90 : cc == 90;

	n = min32(maxch, 2 * n);
	if (c->graph[CC_NCCL_COLLNET_CHAIN].nchannels) {
		/* "more channels to saturate intra-node bandwidth", on the
		 * chain's graph from 2.22, the direct one's before */
		const struct cc_nccl_graph *g =
			&c->graph[cc_nccl_ge(v, 2, 22, 0) ? CC_NCCL_COLLNET_CHAIN : CC_NCCL_COLLNET_DIRECT];

		if (g->bw_intra > g->bw_inter && s->nranks > s->nnodes)
			n = min32(maxch, n + n / 2);
	}
	/* "4 compute channels per search channel": n < 16 from 2.20, the
	 * doubled count within MAXCHANNELS before */
	if (hopper && s->nnodes > 1 && ring->bw_intra > 45.0 &&
	    (cc_nccl_ge(v, 2, 20, 0) ? n < 16 : 2 * n <= maxch))
		n *= 2;
	return bounded(c, n);
}

/* transport/nvls.cc: NVLS's channel count.  2.18-2.24 NCCL_NVLS_NCHANNELS
 * 16; 2.25 32 on Blackwell; 2.27 24 on one Blackwell node; 2.30 by the
 * NIC's rate on several Blackwell nodes (ncclNvlsTreeSm100Tuning). */
static uint32_t nvls_channels(const struct cc_nccl_comm *c)
{
	const struct cc_nccl_version *v = &c->version;
	const struct cc_nccl_system *s = &c->sys;
	bool blackwell = s->arch == CC_GPU_BLACKWELL, multi = s->nnodes > 1;
	uint32_t n = 16, lo, hi;

	if (blackwell && cc_nccl_ge(v, 2, 25, 0))
		n = multi || !cc_nccl_ge(v, 2, 27, 0) ? 32 : 24;
	if (blackwell && multi && cc_nccl_ge(v, 2, 30, 0)) {
		if (s->nnodes == 2 && s->nic_gbs >= 48)
			n = 32;
		else if (s->nic_gbs >= 96)
			n = cc_nccl_ppn(s) <= 8 ? 24 : 32;
		else if (s->nic_gbs >= 48)
			n = 24;
	}
	if (c->env.nvls_nchannels)
		n = c->env.nvls_nchannels;
	ctas(c, cc_nccl_maxchannels(v), &lo, &hi);
	n = min32(n, hi);
	return n < lo ? lo : n;
}

void cc_nccl_graphs(struct cc_nccl_comm *c)
{
	const struct cc_nccl_system *s = &c->sys;
	uint32_t maxch = cc_nccl_maxchannels(&c->version), ppn = cc_nccl_ppn(s);
	bool nvlink = s->nvlink_links > 0 && ppn > 1;
	struct cc_nccl_graph ring, tree;
	struct node m;

	memset(c->graph, 0, sizeof(c->graph));
	if (s->nranks == 1) {
		/* one rank: nothing to search (NCCL's search of a lone GPU is
		 * not modelled); one channel, bounded as any */
		c->nchannels = bounded(c, 1);
		c->nvls_nchannels = 0;
		return;
	}
	node_init(&m, c);
	/* init.cc: the ring first, then trees, CollNet's chain with the
	 * ring's channel count; a single GPU's trees are plain trees. */
	ring = ring_or_tree(&m, RING, 1, maxch / 2, nvlink);
	tree = ring_or_tree(&m, ppn == 1 ? TREE : BALANCED_TREE, ring.nchannels, ring.nchannels, nvlink);
	if (c->env.collnet_enable == 1 && s->collnet && s->nnodes >= 2) {
		struct found chain = search(&m, TREE, ring.nchannels, ring.nchannels), direct = { 0, 0, 0 };

		if (chain.n && s->nvswitch && ppn <= 8)
			direct = search(&m, COLLNET_DIRECT, 1, maxch);
		c->graph[CC_NCCL_COLLNET_CHAIN] = as_graph(&chain, nvlink);
		c->graph[CC_NCCL_COLLNET_DIRECT] = as_graph(&direct, nvlink);
	}
	if (c->env.nvls_enable != 0 && s->arch >= CC_GPU_HOPPER && s->nvswitch && ppn >= 2) {
		uint64_t heads = min64(ppn, 32);
		struct found nvls = search(&m, NVLS, s->nnodes > 1 ? 1 : heads, heads);

		c->graph[CC_NCCL_NVLS] = c->graph[CC_NCCL_NVLS_TREE] = as_graph(&nvls, true);
	}
	/* init.cc: ring and tree end with the smaller count of the two */
	ring.nchannels = tree.nchannels = min32(ring.nchannels, tree.nchannels);
	c->graph[CC_NCCL_RING] = ring;
	c->graph[CC_NCCL_TREE] = c->graph[CC_NCCL_PAT] = tree;
	c->nchannels = postset(c, ring.nchannels);
	c->nvls_nchannels = c->graph[CC_NCCL_NVLS].nchannels ? nvls_channels(c) : 0;
}
