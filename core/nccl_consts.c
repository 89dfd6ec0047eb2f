/* SPDX-License-Identifier: BSD-3-Clause */
/* core/nccl_consts.c — the constants of NCCL's tuning model, release by
 * release: base and hardware latencies, the LL cap and the per-channel
 * caps of src/graph/tuning.cc, 2.18 to 2.30.
 *
 * The table below is 2.30.7's (tuning.cc ncclTunerConstantsDefaults and
 * nvlsEfficiency).  Each older release is reached by undoing, newest
 * first, what each release changed; every step names the first tag that
 * has the newer values (git tags v2.18.1-1 ... v2.30.7-1).  Releases
 * between two tags are taken to have the older tag's values.  Blackwell
 * rows exist from 2.25 on (cclab refuses Blackwell before). */
#include "nccl_tune_int.h"

#include <string.h>

/* NCCL's column order, LL / LL128 / Simple, into cclab's protocols. */
#define P3(ll, ll128, simple) \
	{ [CC_PROTO_LL] = (ll), [CC_PROTO_LL128] = (ll128), [CC_PROTO_SIMPLE] = (simple) }
#define SIMPLE(x) P3(0, 0, x)
#define NODES(n1, n2, n4) { n1, n2, n4 }

static const struct cc_nccl_consts consts_2_30 = {
	.base_lat = {
		[CC_NCCL_TREE] = P3(6.8, 14.0, 8.4),
		[CC_NCCL_RING] = P3(6.6, 14.0, 8.4),
		[CC_NCCL_PAT] = P3(8.0, 8.0, 8.0),
	},
	.hw_lat = {
		[CC_NCCL_HW_NVLINK] = {
			[CC_NCCL_TREE] = P3(0.6, 1.25, 4.0),
			[CC_NCCL_RING] = P3(0.6, 1.9, 3.4),
			[CC_NCCL_COLLNET_DIRECT] = SIMPLE(3.7),
			[CC_NCCL_COLLNET_CHAIN] = SIMPLE(2.8),
			[CC_NCCL_NVLS] = SIMPLE(25),
			[CC_NCCL_NVLS_TREE] = SIMPLE(25),
			[CC_NCCL_PAT] = SIMPLE(4.0),
		},
		[CC_NCCL_HW_PCI] = {
			[CC_NCCL_TREE] = P3(1.0, 1.9, 4.0),
			[CC_NCCL_RING] = P3(1.0, 2.5, 5.7),
			[CC_NCCL_COLLNET_DIRECT] = SIMPLE(3.7),
			[CC_NCCL_COLLNET_CHAIN] = SIMPLE(2.8),
			[CC_NCCL_PAT] = SIMPLE(4.0),
		},
		[CC_NCCL_HW_NET] = {
			[CC_NCCL_TREE] = P3(5.0, 8.5, 14),
			[CC_NCCL_RING] = P3(2.7, 4.0, 14.0),
			[CC_NCCL_COLLNET_DIRECT] = SIMPLE(31),
			[CC_NCCL_COLLNET_CHAIN] = SIMPLE(30),
			[CC_NCCL_NVLS] = SIMPLE(18),
			[CC_NCCL_NVLS_TREE] = SIMPLE(20.9),
			[CC_NCCL_PAT] = SIMPLE(14),
		},
	},
	.ll_max_bw = {
		[CC_GPU_VOLTA] = NODES(39.0, 39.0, 20.4),
		[CC_GPU_AMPERE] = NODES(87.7, 22.5, 19.0),
		[CC_GPU_HOPPER] = NODES(141.0, 45.0, 35.0),
		[CC_GPU_BLACKWELL] = NODES(2 * 141.0, 2 * 45.0, 2 * 35.0),
	},
	.ring_ll128_bw = {
		[CC_GPU_VOLTA] = NODES(20.0, 20.0, 20.0),
		[CC_GPU_AMPERE] = NODES(20.0, 20.0, 20.0),
		[CC_GPU_HOPPER] = NODES(36.7, 36.7, 36.7),
		[CC_GPU_BLACKWELL] = NODES(40.0, 40.0, 40.0),
	},
	.tree_ll128_bw = {
		[CC_GPU_VOLTA] = NODES(20.0, 20.0, 20.0),
		[CC_GPU_AMPERE] = NODES(20.0, 20.0, 20.0),
		[CC_GPU_HOPPER] = NODES(36.7, 36.7, 29.0),
		[CC_GPU_BLACKWELL] = NODES(55.6, 31.67, 20.0),
	},
	.tree_bw = {
		[CC_GPU_VOLTA] = NODES(26.5, 18.5, 10.0),
		[CC_GPU_AMPERE] = NODES(24.0, 23.6, 17.8),
		[CC_GPU_HOPPER] = NODES(38.7, 41.4, 36.0),
		[CC_GPU_BLACKWELL] = NODES(70.0, 42.8, 24.0),
	},
	.nvls_tree_bw = {
		[CC_GPU_VOLTA] = NODES(26.5, 18.5, 10.0),
		[CC_GPU_AMPERE] = NODES(24.0, 23.6, 17.8),
		[CC_GPU_HOPPER] = NODES(0.0, 57.7, 45.5),
		[CC_GPU_BLACKWELL] = NODES(0.0, 96.0, 80.0),
	},
	.nvls_efficiency = { [CC_GPU_HOPPER] = 0.85, [CC_GPU_BLACKWELL] = 0.74 },
};

static void set3(double row[CC_NCCL_NODE_CLASSES], double n1, double n2, double n4)
{
	row[0] = n1;
	row[1] = n2;
	row[2] = n4;
}

/* 2.28.3 is the first tag of the NVLS efficiency model; before it the
 * tables had no NVLS rows, PAT's latency was written in the formula
 * (the same 8 us) and Blackwell's rows were twice Hopper's (2.25-2.27). */
static void undo_2_28(struct cc_nccl_consts *k)
{
	enum cc_gpu_arch b = CC_GPU_BLACKWELL;

	k->hw_lat[CC_NCCL_HW_NET][CC_NCCL_NVLS_TREE][CC_PROTO_SIMPLE] = 14;
	for (int h = 0; h < CC_NCCL_HW_COUNT; h++)
		k->hw_lat[h][CC_NCCL_PAT][CC_PROTO_SIMPLE] = 0;
	memset(k->nvls_tree_bw, 0, sizeof(k->nvls_tree_bw));
	memset(k->nvls_efficiency, 0, sizeof(k->nvls_efficiency));
	set3(k->ring_ll128_bw[b], 2 * 36.7, 2 * 36.7, 2 * 36.7);
	set3(k->tree_ll128_bw[b], 2 * 36.7, 2 * 36.7, 2 * 29.0);
	set3(k->tree_bw[b], 2 * 38.7, 2 * 41.4, 2 * 36.0);
}

/* 2.19.1 is the first tag with 2.19's latencies; 2.18's differ in
 * CollNet's, NVLS's and Tree/Simple's. */
static void undo_2_19(struct cc_nccl_consts *k)
{
	double (*nvl)[CC_PROTO_COUNT] = k->hw_lat[CC_NCCL_HW_NVLINK];
	double (*pci)[CC_PROTO_COUNT] = k->hw_lat[CC_NCCL_HW_PCI];
	double (*net)[CC_PROTO_COUNT] = k->hw_lat[CC_NCCL_HW_NET];

	for (int a = CC_NCCL_COLLNET_DIRECT; a <= CC_NCCL_COLLNET_CHAIN; a++) {
		k->base_lat[a][CC_PROTO_LL] = 6.8;
		k->base_lat[a][CC_PROTO_LL128] = 14.0;
	}
	k->base_lat[CC_NCCL_NVLS][CC_PROTO_SIMPLE] = 23.0;
	k->base_lat[CC_NCCL_NVLS_TREE][CC_PROTO_SIMPLE] = 23.0;
	nvl[CC_NCCL_TREE][CC_PROTO_SIMPLE] = 4;
	nvl[CC_NCCL_COLLNET_DIRECT][CC_PROTO_SIMPLE] = 8.0;
	nvl[CC_NCCL_COLLNET_CHAIN][CC_PROTO_SIMPLE] = 4.75;
	nvl[CC_NCCL_NVLS][CC_PROTO_SIMPLE] = 0;
	nvl[CC_NCCL_NVLS_TREE][CC_PROTO_SIMPLE] = 0;
	pci[CC_NCCL_TREE][CC_PROTO_SIMPLE] = 6;
	pci[CC_NCCL_COLLNET_DIRECT][CC_PROTO_SIMPLE] = 8.0;
	pci[CC_NCCL_COLLNET_CHAIN][CC_PROTO_SIMPLE] = 8.0;
	net[CC_NCCL_TREE][CC_PROTO_SIMPLE] = 14;
	net[CC_NCCL_COLLNET_DIRECT][CC_PROTO_SIMPLE] = 10.7;
	net[CC_NCCL_COLLNET_CHAIN][CC_PROTO_SIMPLE] = 14;
	net[CC_NCCL_NVLS_TREE][CC_PROTO_SIMPLE] = 19;
}

/* Tree/Simple at 28 us on every link and no base latency: 2.18.1 (2.18.3
 * has 4/6/14) and 2.19 to 2.22 again (2.23.4 has 8.4 + 4/4/14). */
static void tree_simple_28(struct cc_nccl_consts *k)
{
	k->base_lat[CC_NCCL_TREE][CC_PROTO_SIMPLE] = 0;
	for (int h = 0; h < CC_NCCL_HW_COUNT; h++)
		k->hw_lat[h][CC_NCCL_TREE][CC_PROTO_SIMPLE] = 28;
}

void cc_nccl_consts_get(const struct cc_nccl_version *v, struct cc_nccl_consts *k)
{
	double *b_ring = k->ring_ll128_bw[CC_GPU_BLACKWELL];

	*k = consts_2_30;
	if (!cc_nccl_ge(v, 2, 30, 0))
		k->nvls_tree_bw[CC_GPU_BLACKWELL][2] = 43.8; /* 80.0 from 2.30.3 */
	if (!cc_nccl_ge(v, 2, 29, 7))
		set3(b_ring, 34.5, 34.6, 34.5); /* 40.0 x 3 from 2.29.7 */
	if (!cc_nccl_ge(v, 2, 29, 0))
		set3(b_ring, 2 * 36.7, 34.6, 2 * 36.7); /* 2.28.7 */
	if (!cc_nccl_ge(v, 2, 28, 9))
		k->nvls_tree_bw[CC_GPU_BLACKWELL][2] = 43.1; /* 43.8 from 2.28.9 */
	if (!cc_nccl_ge(v, 2, 28, 7))
		b_ring[1] = 2 * 36.7; /* 34.6 from 2.28.7 */
	if (!cc_nccl_ge(v, 2, 28, 0))
		undo_2_28(k);
	if (!cc_nccl_ge(v, 2, 23, 0)) {
		/* PAT came with 2.23.4 */
		memset(k->base_lat[CC_NCCL_PAT], 0, sizeof(k->base_lat[CC_NCCL_PAT]));
		tree_simple_28(k);
	}
	if (!cc_nccl_ge(v, 2, 21, 0)) {
		/* 2.21.5: NVLS at 25 us on NVLink, Hopper's LL cap raised */
		k->hw_lat[CC_NCCL_HW_NVLINK][CC_NCCL_NVLS][CC_PROTO_SIMPLE] = 23;
		k->hw_lat[CC_NCCL_HW_NVLINK][CC_NCCL_NVLS_TREE][CC_PROTO_SIMPLE] = 23;
		set3(k->ll_max_bw[CC_GPU_HOPPER], 87.7, 22.5, 19.0);
	}
	if (!cc_nccl_ge(v, 2, 19, 0))
		undo_2_19(k);
	if (!cc_nccl_ge(v, 2, 18, 3)) {
		/* 2.18.1: one LL128 cap for ring and tree (ll128MaxBwPerCh),
		 * Hopper's tree cap on 4+ nodes 33 */
		tree_simple_28(k);
		memcpy(k->tree_ll128_bw, k->ring_ll128_bw, sizeof(k->tree_ll128_bw));
		k->tree_bw[CC_GPU_HOPPER][2] = 33.0;
	}
}
