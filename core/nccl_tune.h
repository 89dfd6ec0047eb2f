/* SPDX-License-Identifier: BSD-3-Clause */
/* core/nccl_tune.h — NCCL's own choices: the algorithm, protocol and
 * channel count NCCL picks for a collective of a given size on a given
 * system, from the model NCCL itself uses (src/graph/tuning.cc
 * ncclTopoTuneModel and ncclTopoGetAlgoTime, src/enqueue.cc
 * topoGetAlgoInfo, the channel rules of src/graph/search.cc and
 * connect.cc), for the NCCL release a scenario names.
 *
 * This is NCCL's estimate, not cclab's: it tells which algorithm and
 * protocol a real run of nccl-tests used at each size, so that the
 * simulator runs the same one and a comparison is fair.  The simulator
 * then predicts the time; the estimate's own time is shown beside it
 * (`cclab tune`), never used as cclab's prediction.
 *
 * Units as tuning.cc: latencies in microseconds, bandwidths in GB/s
 * (1e9 B/s); time_us = lat + bytes / (1000 * bw). */
#ifndef CCLAB_CORE_NCCL_TUNE_H
#define CCLAB_CORE_NCCL_TUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/proto.h"
#include "core/schedule.h"

/* NCCL's algorithms, in NCCL's order (nccl.h NCCL_ALGO_*). */
enum cc_nccl_algo {
	CC_NCCL_TREE,
	CC_NCCL_RING,
	CC_NCCL_COLLNET_DIRECT,
	CC_NCCL_COLLNET_CHAIN,
	CC_NCCL_NVLS,
	CC_NCCL_NVLS_TREE,
	CC_NCCL_PAT,
	CC_NCCL_ALGO_COUNT
};
/* As NCCL_ALGO and NCCL_DEBUG=INFO spell them: "Tree", "Ring",
 * "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT". */
extern const char *const cc_nccl_algo_name[CC_NCCL_ALGO_COUNT];

/* NCCL's protocols are cclab's (core/proto.h): LL, LL128, Simple. */

/* GPU generations with tables of their own in tuning.cc. */
enum cc_gpu_arch { CC_GPU_VOLTA, CC_GPU_AMPERE, CC_GPU_HOPPER, CC_GPU_BLACKWELL,
		   CC_GPU_ARCH_COUNT };
extern const char *const cc_gpu_arch_name[CC_GPU_ARCH_COUNT]; /* "volta", ... */
int cc_gpu_arch_parse(const char *s, enum cc_gpu_arch *out);   /* also "a100", "h100", "h200", "b200", "v100" */

/* The host CPU: tuning.cc's LL bandwidth row and net overhead differ;
 * "other" is a CPU that is not x86 (Arm). */
enum cc_cpu_vendor { CC_CPU_INTEL, CC_CPU_AMD, CC_CPU_OTHER, CC_CPU_VENDOR_COUNT };
extern const char *const cc_cpu_vendor_name[CC_CPU_VENDOR_COUNT];
int cc_cpu_vendor_parse(const char *s, enum cc_cpu_vendor *out);

/* NCCL's distances between a GPU and a device (src/include/graph.h
 * PATH_*, numbered as 2.30 numbers them), as NCCL_NET_GDR_LEVEL names
 * them: "LOC", "NVL", ..., "SYS". */
enum cc_nccl_path {
	CC_NCCL_PATH_LOC,
	CC_NCCL_PATH_NVL,
	CC_NCCL_PATH_NVB,
	CC_NCCL_PATH_C2C,
	CC_NCCL_PATH_PIX,
	CC_NCCL_PATH_PXB,
	CC_NCCL_PATH_P2C,
	CC_NCCL_PATH_PXN,
	CC_NCCL_PATH_PHB,
	CC_NCCL_PATH_SYS,
	CC_NCCL_PATH_COUNT
};
extern const char *const cc_nccl_path_name[CC_NCCL_PATH_COUNT];

/* A release, as "2.23.4", "2.23" (patch 0) or "v2.23.4-1". */
struct cc_nccl_version {
	uint32_t major, minor, patch;
};
/* The release whose rules are the default: the newest cclab knows. */
extern const struct cc_nccl_version cc_nccl_version_default;
/* The oldest release whose rules cclab has (older ones are refused). */
extern const struct cc_nccl_version cc_nccl_version_oldest;
/* 0, or -EINVAL with a message in err ("2.17: cclab has NCCL's rules
 * from 2.18 on"; a minor release newer than the default's is refused
 * too: its rules are not known). */
int cc_nccl_version_parse(const char *s, struct cc_nccl_version *out, char *err, size_t len);
/* <0, 0, >0 as a is older, the same, newer than major.minor.patch. */
int cc_nccl_version_cmp(const struct cc_nccl_version *a, uint32_t major, uint32_t minor,
			uint32_t patch);

/* The machine, as NCCL's topology detection sees it. */
struct cc_nccl_system {
	enum cc_gpu_arch arch;
	enum cc_cpu_vendor cpu;
	uint32_t nranks;
	uint32_t nnodes;        /* nranks / nnodes GPUs per node (ppn) */
	bool nvswitch;          /* the node's GPUs meet at an NVSwitch */
	uint32_t nvlink_links;  /* NVLinks per GPU; NCCL's topology counts each at
				 * its generation's rate (topo.h SM90_NVLINK_BW ...) */
	double nvlink_gbs;      /* per GPU, per direction, all its NVLinks, GB/s
				 * (the hardware's: 450 on H100); 0: GPUs of a node
				 * talk over PCIe */
	double pci_gbs;         /* a GPU's PCIe link, per direction, GB/s */
	double sys_gbs;         /* the link between CPU sockets that every GPU-NIC
				 * path of a node crosses (PATH_SYS), per direction,
				 * GB/s as NCCL's topology counts it (topo.h AMD_BW,
				 * *_QPI_BW); 0: each GPU's NIC on its socket, or
				 * the link unlimited */
	uint32_t nics_per_node; /* network ports NCCL uses in a node */
	double nic_gbs;         /* one NIC port's rate, GB/s (400 Gb/s: 50) */
	double net_latency_us;  /* the NIC's latency as the net plugin reports it
				 * (latencyInter); 0 as net_ib does */
	bool gdr;               /* GPUDirect RDMA used (NCCL_NET_GDR_LEVEL allows it) */
	bool collnet;           /* switches with in-network reduction (SHARP) and
				 * the CollNet plugin present */
	bool ib;                /* InfiniBand (adaptive routing on); false: RoCE */
};

/* The NCCL_* variables that change NCCL's choices, as a scenario's
 * `env:` block or the environment gives them.  Unset fields keep NCCL's
 * default. */
struct cc_nccl_env {
	/* NCCL_ALGO / NCCL_PROTO: per collective, which algorithms and
	 * protocols stay enabled (bit a of algo[coll] for cc_nccl_algo a;
	 * bit p of proto[coll] for cc_proto p).  All bits set: not given. */
	uint32_t algo[CC_COLL_COUNT];
	uint32_t proto[CC_COLL_COUNT];
	/* Bit coll: NCCL_PROTO named this collective's protocols, so LL128
	 * is on or off as the list says rather than by NCCL's default rule
	 * (tuning.cc: LL128 is "2", auto, only while NCCL_PROTO is unset). */
	uint32_t proto_given;
	uint32_t min_nchannels;    /* NCCL_MIN_NCHANNELS; 0 unset */
	uint32_t max_nchannels;    /* NCCL_MAX_NCHANNELS; 0 unset */
	/* NCCL_MIN_CTAS / NCCL_MAX_CTAS (the config's minCTAs, maxCTAs):
	 * bound the communicator's channels as the two above do, and NVLS's
	 * channels too (transport/nvls.cc); 0 unset. */
	uint32_t min_ctas, max_ctas;
	int nvls_enable;           /* NCCL_NVLS_ENABLE: -1 unset (auto), 0, 1 */
	int collnet_enable;        /* NCCL_COLLNET_ENABLE: -1 unset (0), 0, 1 */
	int net_gdr_level;         /* NCCL_NET_GDR_LEVEL as an enum cc_nccl_path: -1
				    * unset; CC_NCCL_PATH_LOC: GDR off */
	uint32_t ib_qps_per_connection; /* NCCL_IB_QPS_PER_CONNECTION; 0 unset (1) */
	int ib_split_data_on_qps;  /* NCCL_IB_SPLIT_DATA_ON_QPS: -1 unset (version's default) */
	uint32_t nvls_nchannels;   /* NCCL_NVLS_NCHANNELS; 0 unset */
	uint64_t buffsize;         /* NCCL_BUFFSIZE; 0 unset (4 MiB) */
	int64_t ib_ar_threshold;   /* NCCL_IB_AR_THRESHOLD; -1 unset (8192) */
	int ib_adaptive_routing;   /* NCCL_IB_ADAPTIVE_ROUTING: -1 unset (on for IB) */
	int net_force_flush;       /* NCCL_NET_FORCE_FLUSH: -1 unset (0) */
	int gdr_flush_disable;     /* NCCL_GDR_FLUSH_DISABLE: -1 unset (0) */
	uint64_t nvls_chunksize;   /* NCCL_NVLS_CHUNKSIZE; 0 unset (128 KiB) */
	uint64_t nvlstree_max_chunksize; /* NCCL_NVLSTREE_MAX_CHUNKSIZE; 0 unset (64 KiB
					  * from 4 nodes on, else the NVLS chunk) */
	int64_t net_overhead_ns;   /* NCCL_NET_OVERHEAD, ns; -1 unset (by CPU maker) */
	/* NCCL's choice reads algo, proto, proto_given, the channel bounds,
	 * nvls_enable, nvls_nchannels, collnet_enable and net_overhead_ns
	 * (its cost model's alone: no simulated cost follows it); the rest is read
	 * here for the simulator's transport (GDR, QPs, flush, AR) and NVLS's
	 * chunk. */
};
void cc_nccl_env_init(struct cc_nccl_env *e);
/* Sets one variable from its text.  0; -ENOENT for a name cclab does not
 * know (the caller says which names it takes: cc_nccl_env_names); -EINVAL
 * with a message in err for a bad value ("NCCL_ALGO: 'rnig' is not an
 * algorithm (Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree,
 * PAT)").  NCCL_ALGO and NCCL_PROTO take NCCL's syntax: a list
 * ("Ring,LL128"), a leading '^' to exclude, and per-collective
 * "allreduce:tree,ring;allgather:ring"; names case-insensitive. */
int cc_nccl_env_set(struct cc_nccl_env *e, const char *name, const char *value, char *err,
		    size_t len);
/* How NCCL's IB transport sends a message on a port of this link layer
 * (ib: InfiniBand; else RoCE): whether it splits one above the
 * adaptive-routing threshold into a WRITE and a 0-byte WRITE WITH IMM,
 * and that threshold (cc_coll_params.ar_split / ar_threshold).
 * NCCL_IB_ADAPTIVE_ROUTING, unset, is on exactly on InfiniBand ports
 * (net_ib/init.cc); NCCL_IB_AR_THRESHOLD, unset, is 8192 (p2p.cc). */
void cc_nccl_env_ar(const struct cc_nccl_env *e, bool ib, bool *split, uint64_t *threshold);
/* Whether NCCL flushes GPUDirect RDMA receives on a GPU of this
 * generation (cc_coll_params.gdr_flush): on Ampere and earlier, or with
 * NCCL_NET_FORCE_FLUSH=1 (graph/paths.cc ncclTopoNeedFlush), and never
 * with NCCL_GDR_FLUSH_DISABLE=1 (net_ib/connect.cc: the IB plugin then
 * turns its flush off). */
bool cc_nccl_env_gdr_flush(const struct cc_nccl_env *e, enum cc_gpu_arch arch);
/* The names cc_nccl_env_set takes, NULL-terminated. */
extern const char *const cc_nccl_env_names[];

/* One of NCCL's communication graphs as its topology search leaves it:
 * channels, per-channel bandwidth inside a node and between nodes. */
struct cc_nccl_graph {
	uint32_t nchannels;
	double bw_intra, bw_inter; /* GB/s per channel */
	bool nvlink_intra;         /* typeIntra is NVLink (else PCI) */
};

/* Everything NCCL settles once per communicator: the graphs, the
 * communicator's channel count, which algorithms it can run at all. */
struct cc_nccl_comm {
	struct cc_nccl_version version;
	struct cc_nccl_system sys;
	struct cc_nccl_env env;
	struct cc_nccl_graph graph[CC_NCCL_ALGO_COUNT]; /* nchannels 0: not available */
	uint32_t nchannels;       /* the communicator's (ring and tree) after duplication
				   * and NCCL_MIN/MAX_NCHANNELS */
	uint32_t nvls_nchannels;  /* NVLS's own channel count */
	bool ll128_enabled;       /* NCCL's default rule lets LL128 run (on the ring's
				   * graph); NCCL_PROTO can still say otherwise */
	/* Per collective, algorithm and protocol: bandwidth (GB/s, NCCL's
	 * algorithm bandwidth) and latency (us) of tuning.cc; bw 0: not
	 * available. */
	double bw[CC_COLL_COUNT][CC_NCCL_ALGO_COUNT][CC_PROTO_COUNT];
	double lat[CC_COLL_COUNT][CC_NCCL_ALGO_COUNT][CC_PROTO_COUNT];
	/* 2.19 to 2.23 only (tuning.cc ringbdw): the ring's bandwidth kept
	 * aside, which NCCL falls back on when NCCL_ALGO/NCCL_PROTO leave a
	 * collective nothing; all 0 in other releases. */
	double ring_backup_bw[CC_COLL_COUNT][CC_PROTO_COUNT];
};

/* Fills c for version v, system s and env e: the graphs (a documented
 * reading of NCCL's search: channels per NIC from the speed arrays,
 * duplication, the Hopper+ doubling, NCCL_MIN/MAX_NCHANNELS), then the
 * tables of tuning.cc for that release.  0, or -EINVAL with a message
 * (nranks not a multiple of nnodes, no rank, ...). */
int cc_nccl_comm_init(struct cc_nccl_comm *c, const struct cc_nccl_version *v,
		      const struct cc_nccl_system *s, const struct cc_nccl_env *e, char *err,
		      size_t len);

/* NCCL's choice for one collective of `bytes` (nccl-tests' size: the
 * buffer an allreduce reduces; ncclFuncMaxSendRecvCount x type size). */
struct cc_nccl_choice {
	enum cc_nccl_algo algo;
	enum cc_proto proto;
	uint32_t nchannels;  /* after the per-size reduction of topoGetAlgoInfo */
	uint32_t nthreads;
	double time_us;      /* NCCL's own estimate for the winner */
};
/* 0 and *out; -ENOENT when nothing is left enabled for this collective
 * (NCCL: "No algorithm/protocol available"), with a message in err. */
int cc_nccl_choose(const struct cc_nccl_comm *c, enum cc_coll coll, uint64_t bytes,
		   struct cc_nccl_choice *out, char *err, size_t len);
/* NCCL's estimate for one algorithm and protocol: time_us, or a negative
 * value when that pair is not available (bandwidth 0 or disabled). */
double cc_nccl_time_us(const struct cc_nccl_comm *c, enum cc_coll coll,
		       enum cc_nccl_algo a, enum cc_proto p, uint64_t bytes);

/* How NCCL runs one ncclSend or ncclRecv of `bytes` to a peer
 * (nccl-tests' sendrecv_perf and alltoall_perf group one per peer): no
 * algorithm or tuning table, but the rules of its point-to-point path
 * (core/nccl_p2p.c), as 2.22 to 2.30 have them. */
struct cc_nccl_p2p {
	uint32_t per_peer;     /* p2pnChannelsPerPeer: the most channels an op takes */
	uint32_t nchannels;    /* the channels this op's bytes are cut over */
	enum cc_proto proto;   /* LL on one node up to NCCL_P2P_LL_THRESHOLD a channel,
				* else Simple */
	uint64_t step_bytes;   /* a step of the connection's buffer (Simple:
				* p2pChunkSize), NCCL_STEPS of them */
	uint64_t chunk_bytes;  /* the data one step carries (LL: half its lines) */
};
/* max_peers: the communicator's maxP2pPeers (2.30; 0: nranks). */
void cc_nccl_p2p(const struct cc_nccl_comm *c, uint64_t bytes, uint32_t max_peers,
		 struct cc_nccl_p2p *out);

#endif /* CCLAB_CORE_NCCL_TUNE_H */
