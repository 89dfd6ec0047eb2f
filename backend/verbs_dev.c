/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/verbs_dev.c — RDMA devices, ports and GIDs through libibverbs;
 * see verbs_dev.h. */
#include "backend/verbs_dev.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cc_verbs_gid_type_name(enum ibv_gid_type t)
{
	switch (t) {
	case IBV_GID_TYPE_IB: return "IB";
	case IBV_GID_TYPE_ROCE_V1: return "RoCE v1";
	case IBV_GID_TYPE_ROCE_V2: return "RoCE v2";
	default: return "?";
	}
}

static bool gid_is_zero(const union ibv_gid *g)
{
	static const uint8_t zero[16];

	return !memcmp(g->raw, zero, 16);
}

/* ::ffff:a.b.c.d, an IPv4 address as RoCE v2 carries it. */
static bool gid_is_ipv4(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	return !memcmp(g->raw, prefix, 12);
}

void cc_verbs_gid_str(const union ibv_gid *g, char *buf, size_t len)
{
	if (gid_is_ipv4(g)) {
		char ip[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, g->raw + 12, ip, sizeof(ip));
		snprintf(buf, len, "::ffff:%s", ip);
		return;
	}
	snprintf(buf, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 g->raw[0], g->raw[1], g->raw[2], g->raw[3], g->raw[4], g->raw[5], g->raw[6],
		 g->raw[7], g->raw[8], g->raw[9], g->raw[10], g->raw[11], g->raw[12], g->raw[13],
		 g->raw[14], g->raw[15]);
}

int cc_verbs_default_gid(const struct cc_verbs_port *p)
{
	int v2 = -1, v1 = -1;

	if (p->link_layer != IBV_LINK_LAYER_ETHERNET)
		return -1;
	for (uint32_t i = 0; i < p->ngids; i++) {
		const struct cc_verbs_gid *g = &p->gids[i];

		if (g->type == IBV_GID_TYPE_ROCE_V2 && gid_is_ipv4(&g->gid))
			return (int)g->index;
		if (g->type == IBV_GID_TYPE_ROCE_V2 && v2 < 0)
			v2 = (int)g->index;
		if (g->type == IBV_GID_TYPE_ROCE_V1 && v1 < 0)
			v1 = (int)g->index;
	}
	return v2 >= 0 ? v2 : v1;
}

/* One port's state and its non-zero GIDs. */
static int query_port(struct ibv_context *ctx, uint8_t num, int gid_tbl_len,
		      struct cc_verbs_port *out)
{
	struct ibv_port_attr pa;
	int rc = ibv_query_port(ctx, num, &pa);

	if (rc)
		return -rc;
	*out = (struct cc_verbs_port){ .num = num, .state = pa.state, .link_layer = pa.link_layer,
				       .active_mtu = pa.active_mtu, .lid = pa.lid };
	for (int i = 0; i < gid_tbl_len && out->ngids < CC_VERBS_MAX_GIDS; i++) {
		struct ibv_gid_entry e;

		/* An empty slot reads as an error (ENODATA) or a zero GID. */
		if (ibv_query_gid_ex(ctx, num, (uint32_t)i, &e, 0) || gid_is_zero(&e.gid))
			continue;
		out->gids[out->ngids++] = (struct cc_verbs_gid){ .index = (uint32_t)i, .gid = e.gid,
								 .type = (enum ibv_gid_type)e.gid_type };
	}
	return 0;
}

static int query_dev(struct ibv_device *d, struct cc_verbs_dev *out, char *err, size_t errlen)
{
	struct ibv_context *ctx = ibv_open_device(d);
	struct ibv_device_attr da;
	int rc;

	snprintf(out->name, sizeof(out->name), "%s", ibv_get_device_name(d));
	if (!ctx) {
		rc = errno ? -errno : -EIO;
		snprintf(err, errlen, "%s: cannot open the device: %s (are /dev/infiniband/* "
			 "readable by this user?)", out->name, strerror(-rc));
		return rc;
	}
	rc = -ibv_query_device(ctx, &da);
	if (!rc) {
		out->node_guid = be64toh(ibv_get_device_guid(d));
		out->max_qp_rd_atom = (uint32_t)da.max_qp_rd_atom;
		out->max_qp_init_rd_atom = (uint32_t)da.max_qp_init_rd_atom;
		out->ports = calloc(da.phys_port_cnt ? da.phys_port_cnt : 1, sizeof(*out->ports));
		rc = out->ports ? 0 : -ENOMEM;
	}
	for (uint8_t p = 1; !rc && p <= da.phys_port_cnt; p++) {
		struct ibv_port_attr pa;

		rc = -ibv_query_port(ctx, p, &pa);
		if (!rc)
			rc = query_port(ctx, p, pa.gid_tbl_len, &out->ports[out->nports++]);
	}
	if (rc && !err[0])
		snprintf(err, errlen, "%s: query failed: %s", out->name, strerror(-rc));
	ibv_close_device(ctx);
	return rc;
}

int cc_verbs_devices(struct cc_verbs_dev **devs, uint32_t *n, char *err, size_t errlen)
{
	int count = 0, rc = 0;
	struct ibv_device **list;

	*devs = NULL;
	*n = 0;
	err[0] = '\0';
	errno = 0;
	list = ibv_get_device_list(&count);
	if (!list || count == 0) {
		if (errno == ENOSYS)
			snprintf(err, errlen, "no RDMA device: this kernel has no RDMA support "
				 "(ibv_get_device_list: %s); on a machine with an RNIC load its "
				 "driver (e.g. modprobe mlx5_ib), or try soft-RoCE: modprobe "
				 "rdma_rxe; rdma link add rxe0 type rxe netdev eth0", strerror(ENOSYS));
		else
			snprintf(err, errlen, "no RDMA device: libibverbs found none (%s); load the "
				 "RNIC's driver (e.g. modprobe mlx5_ib) and check `rdma link show`, "
				 "or create a soft-RoCE device: rdma link add rxe0 type rxe netdev "
				 "eth0", errno ? strerror(errno) : "empty list");
		if (list)
			ibv_free_device_list(list);
		return -ENODEV;
	}
	*devs = calloc((size_t)count, sizeof(**devs));
	if (!*devs) {
		ibv_free_device_list(list);
		return -ENOMEM;
	}
	for (int i = 0; i < count && !rc; i++) {
		rc = query_dev(list[i], &(*devs)[i], err, errlen);
		*n = (uint32_t)i + 1;
	}
	ibv_free_device_list(list);
	if (rc) {
		cc_verbs_devices_free(*devs, *n);
		*devs = NULL;
		*n = 0;
	}
	return rc;
}

void cc_verbs_devices_free(struct cc_verbs_dev *devs, uint32_t n)
{
	for (uint32_t i = 0; devs && i < n; i++)
		free(devs[i].ports);
	free(devs);
}
