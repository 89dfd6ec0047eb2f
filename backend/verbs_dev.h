/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/verbs_dev.h — the RDMA devices this host has, their ports and
 * GIDs, and which GID a QP should use: what `cclab devices` prints and
 * what the verbs executor will choose by default (`--device`, `--port`,
 * `--gid-index` override it).
 *
 * The default address, as perftest and NCCL choose it: on an InfiniBand
 * port, the LID (GID index 0 only for routing across subnets); on an
 * Ethernet port (RoCE), a RoCE v2 GID holding an IPv4 address
 * (::ffff:a.b.c.d), else any RoCE v2 GID, else RoCE v1 — RoCE v2 is what
 * routes over IP and what ECN/DCQCN act on (NCCL_IB_ROCE_VERSION_NUM 2,
 * NCCL_IB_ADDR_FAMILY AF_INET by default).
 */
#ifndef CCLAB_BACKEND_VERBS_DEV_H
#define CCLAB_BACKEND_VERBS_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#define CC_VERBS_MAX_GIDS 32 /* per port, the ones we list */

struct cc_verbs_gid {
	uint32_t index;
	union ibv_gid gid;
	enum ibv_gid_type type; /* IBV_GID_TYPE_IB, _ROCE_V1, _ROCE_V2 */
};

struct cc_verbs_port {
	uint8_t num;             /* from 1 */
	enum ibv_port_state state;
	uint8_t link_layer;      /* IBV_LINK_LAYER_INFINIBAND or _ETHERNET */
	enum ibv_mtu active_mtu;
	uint16_t lid;
	uint32_t ngids;
	struct cc_verbs_gid gids[CC_VERBS_MAX_GIDS];
};

struct cc_verbs_dev {
	char name[IBV_SYSFS_NAME_MAX];
	uint64_t node_guid;      /* host order */
	uint32_t max_qp_rd_atom; /* ibv_query_device: READs/atomics a QP may serve at once */
	uint32_t max_qp_init_rd_atom; /* ... and may have out as the initiator */
	uint32_t nports;
	struct cc_verbs_port *ports;
};

/* Every device and port.  0 with *n >= 1; or -ENODEV with a message in
 * err that says why there is none and what to do (no kernel RDMA support,
 * no driver loaded, no device configured); or -errno of a failed query. */
int cc_verbs_devices(struct cc_verbs_dev **devs, uint32_t *n, char *err, size_t errlen);
void cc_verbs_devices_free(struct cc_verbs_dev *devs, uint32_t n);

/* The GID index a QP on port p should use (see above); -1 when the port
 * has no usable one (an InfiniBand port: address by LID, index 0). */
int cc_verbs_default_gid(const struct cc_verbs_port *p);

/* "::ffff:10.0.0.1" or the full form "fe80:0000:...", into buf. */
void cc_verbs_gid_str(const union ibv_gid *g, char *buf, size_t len);

/* "IB", "RoCE v1", "RoCE v2". */
const char *cc_verbs_gid_type_name(enum ibv_gid_type t);

#endif /* CCLAB_BACKEND_VERBS_DEV_H */
