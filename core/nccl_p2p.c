/* SPDX-License-Identifier: BSD-3-Clause */
/* core/nccl_p2p.c — NCCL's point-to-point path: the channels, protocol
 * and step size of one ncclSend/ncclRecv (core/nccl_tune.h cc_nccl_p2p).
 *
 * NCCL chooses nothing for these from its tuning tables; the numbers come
 * from three places, read in 2.22 to 2.30:
 *
 *   graph/paths.cc ncclTopoGetNchannels, ncclTopoComputeP2pChannels:
 *     channels per peer, the fewest any peer gets: an NVLink peer 2 x
 *     (path bandwidth / one NVLink's), a PCIe peer 2, a network peer 2
 *     (halved while 2 x nranks > 4 x p2pnChannels) or its local NICs if
 *     more; from 2.29 max(NICs, ceil(their GB/s / NCCL_P2P_PER_CHANNEL_
 *     NET_BW 14)), halved on several nodes while per_peer x ceil(peers /
 *     8) > p2pnChannels (peers: nranks; from 2.30 the communicator's
 *     maxP2pPeers, which nccl-tests' sendrecv sets to 2).  The local NICs
 *     are counted until their bandwidth reaches the GPU's PCIe link
 *     (topo.cc ncclTopoGetLocalNetCountByBw).  p2pnChannels is the
 *     communicator's channels; both are rounded up to powers of 2;
 *   init.cc computeBuffSizes: p2pChunkSize, the Simple step: 128 KiB
 *     across nodes (NCCL_P2P_NET_CHUNKSIZE), 512 KiB on one node of
 *     NVLink (NCCL_P2P_NVL_CHUNKSIZE), 128 KiB over PCIe, at most
 *     NCCL_BUFFSIZE / NCCL_STEPS;
 *   enqueue.cc addP2pToPlan: the channels an op takes, from the fewest
 *     (per_peer, halved while x nranks > p2pnChannels), doubled while a
 *     part is over one step (several nodes) or 32 steps (one), each part
 *     at least half a step (an eighth on one node); LL only where the
 *     connection has an LL buffer, which a network one has not
 *     (transport/net.cc: shared p2p buffers, NCCL_ALLOC_P2P_NET_LL_
 *     BUFFERS 0), and only up to per_peer x 16 KiB (NCCL_P2P_LL_
 *     THRESHOLD; from 2.29 the op's own channels x 16 KiB, those counted
 *     with the Simple step); a network step carries a quarter of the
 *     step below one step's bytes, half below eight.
 *
 * One rule serves every peer: on several nodes all as network peers
 * (NCCL decides per connection, and a node's NVLink peers could run LL).
 * Left out: NCCL_NCHANNELS_PER_NET_PEER, NCCL_CHUNK_SIZE, NCCL_ALLOC_P2P_
 * NET_LL_BUFFERS, the ARM-with-Blackwell doubling of the network chunk,
 * and 2.18-2.21's older per-op rules (the 2.22 rules run for them).
 */
#include "nccl_tune_int.h"

#include <math.h>

#define P2P_LL_THRESHOLD 16384u     /* NCCL_P2P_LL_THRESHOLD */
#define P2P_NET_CHUNK (128u << 10)  /* NCCL_P2P_NET_CHUNKSIZE */
#define P2P_NVL_CHUNK (512u << 10)  /* NCCL_P2P_NVL_CHUNKSIZE */
#define P2P_PCI_CHUNK (128u << 10)  /* NCCL_P2P_PCI_CHUNKSIZE */
#define P2P_NET_BW_PER_CHANNEL 14u  /* NCCL_P2P_PER_CHANNEL_NET_BW, GB/s (2.29) */
#define WORK_P2P_PER_BATCH 8u       /* NCCL_MAX_DEV_WORK_P2P_PER_BATCH */
#define NCCL_STEPS 8u
#define DEFAULT_BUFFSIZE (4u << 20)
/* DEFAULT_LL_BUFFSIZE: NCCL_LL_LINES_PER_THREAD x NCCL_LL_MAX_NTHREADS x
 * NCCL_STEPS x 16-byte lines */
#define LL_BUFFSIZE (8u * 512u * NCCL_STEPS * 16u)

static uint32_t pow2_up(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* A network peer's channels (ncclTopoGetNchannels, remote rank), the
 * GPU's local NICs counted as ncclTopoGetLocalNetCountByBw counts them:
 * until their bandwidth (each the lesser of the NIC and the GPU's PCIe
 * link) reaches the GPU's. */
static uint32_t net_peer_channels(const struct cc_nccl_comm *c, uint32_t p2p_channels)
{
	const struct cc_nccl_system *s = &c->sys;
	uint32_t ppn = cc_nccl_ppn(s);
	uint32_t local = s->nics_per_node > ppn ? s->nics_per_node / ppn : 1, nics = 0;
	double one = fmin(s->nic_gbs, s->pci_gbs), bw = 0;
	uint32_t most = 2;

	while (nics < local && (nics == 0 || bw < s->pci_gbs)) {
		bw += one;
		nics++;
	}
	if (cc_nccl_ge(&c->version, 2, 29, 0)) {
		uint32_t by_bw = (uint32_t)div_up((uint64_t)bw, P2P_NET_BW_PER_CHANNEL);

		return nics > by_bw ? nics : by_bw;
	}
	while (most * s->nranks > p2p_channels * 4 && most > 1)
		most /= 2;
	return nics > most ? nics : most;
}

/* p2pnChannelsPerPeer: the fewest channels any peer of a rank gets,
 * from p2pnChannels before (raw) and after its rounding. */
static uint32_t per_peer(const struct cc_nccl_comm *c, uint32_t raw, uint32_t p2p_channels,
			 uint32_t max_peers)
{
	const struct cc_nccl_system *s = &c->sys;
	bool v229 = cc_nccl_ge(&c->version, 2, 29, 0);
	uint32_t ppn = cc_nccl_ppn(s), least = v229 ? cc_nccl_maxchannels(&c->version) : raw;

	if (ppn > 1) {
		uint32_t local = 2; /* PCIe */

		if (s->nvlink_links) {
			/* the path's NVLinks: all of them through an NVSwitch,
			 * the GPU's share of them to each peer otherwise */
			uint32_t links = s->nvswitch ? s->nvlink_links : s->nvlink_links / (ppn - 1);

			local = 2 * (links > 1 ? links : 1);
		}
		least = local < least ? local : least;
	}
	if (s->nnodes > 1) {
		uint32_t net = net_peer_channels(c, raw);

		least = net < least ? net : least;
	}
	uint32_t n = pow2_up(least ? least : 1);

	if (s->nnodes > 1 && v229)
		while (n * div_up(max_peers, WORK_P2P_PER_BATCH) > p2p_channels && n > 1)
			n /= 2;
	return n < p2p_channels ? n : p2p_channels;
}

/* p2pChunkSize (computeBuffSizes). */
static uint64_t p2p_chunk(const struct cc_nccl_comm *c)
{
	const struct cc_nccl_system *s = &c->sys;
	uint64_t buff = c->env.buffsize ? c->env.buffsize : DEFAULT_BUFFSIZE;
	uint64_t chunk = s->nnodes > 1 ? P2P_NET_CHUNK
			 : s->nvlink_links && cc_nccl_ppn(s) > 1 ? P2P_NVL_CHUNK : P2P_PCI_CHUNK;

	return chunk * NCCL_STEPS > buff ? buff / NCCL_STEPS : chunk;
}

/* The channels an op of `bytes` takes with steps of `step`, from `fewest`
 * up to `most` (addP2pToPlan). */
static uint32_t op_channels(uint64_t bytes, uint64_t step, bool net, uint32_t fewest,
			    uint32_t most)
{
	if (bytes == 0)
		return 1;
	uint64_t min_part = net ? step / 2 : step / 8;
	uint64_t max_part = net ? step : step * 32;
	uint64_t n = div_up(bytes, min_part);

	n = n < fewest ? n : fewest;
	uint64_t part = div_up(bytes, n) > min_part ? div_up(bytes, n) : min_part;

	while (part > max_part && n <= most / 2) {
		n *= 2;
		part = div_up(bytes, n);
	}
	return (uint32_t)n;
}

void cc_nccl_p2p(const struct cc_nccl_comm *c, uint64_t bytes, uint32_t max_peers,
		 struct cc_nccl_p2p *out)
{
	const struct cc_nccl_system *s = &c->sys;
	uint32_t maxch = cc_nccl_maxchannels(&c->version);
	uint32_t raw = c->nchannels < maxch ? (c->nchannels ? c->nchannels : 1) : maxch;
	uint32_t p2p_channels = pow2_up(raw);
	uint32_t most = per_peer(c, raw, p2p_channels, max_peers ? max_peers : s->nranks);
	uint32_t fewest = most;
	bool net = s->nnodes > 1, v229 = cc_nccl_ge(&c->version, 2, 29, 0);
	uint64_t simple = p2p_chunk(c);

	while (fewest * s->nranks > p2p_channels && fewest > 1)
		fewest /= 2;
	out->per_peer = most;
	/* 2.29 on: the channels by the Simple step, then LL by them */
	if (v229)
		out->nchannels = op_channels(bytes, simple, net, fewest, most);
	uint64_t ll_max = (uint64_t)(v229 ? out->nchannels : most) * P2P_LL_THRESHOLD;

	out->proto = !net && bytes <= ll_max ? CC_PROTO_LL : CC_PROTO_SIMPLE;
	out->step_bytes = out->proto == CC_PROTO_SIMPLE ? simple : LL_BUFFSIZE / NCCL_STEPS;
	if (!v229)
		out->nchannels = op_channels(bytes, out->step_bytes, net, fewest, most);
	out->chunk_bytes = out->step_bytes;
	if (net) { /* Simple: a network connection has no LL buffer */
		if (bytes < out->step_bytes)
			out->chunk_bytes /= 4;
		else if (bytes < 8 * out->step_bytes)
			out->chunk_bytes /= 2;
	}
	if (out->proto == CC_PROTO_LL)
		out->chunk_bytes /= 2; /* chunkDataSize: half of each LL line is flags */
}
