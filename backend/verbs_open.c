/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/verbs_open.c — choosing and opening the device, port and address
 * a rank's QPs use (verbs_exec.h).  The choice is cclab devices' (a RoCE
 * v2 IPv4 GID on Ethernet, the LID on InfiniBand, backend/verbs_dev.h);
 * an explicit --device / --port / --gid-index is checked, not trusted. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend/verbs_attr.h"
#include "backend/verbs_dev.h"
#include "backend/verbs_exec.h"

const char *const cc_verbs_clock_name[CC_VERBS_CLOCK_COUNT] = {
	[CC_VERBS_CLOCK_SOFTWARE] = "software",
	[CC_VERBS_CLOCK_HCA] = "hca",
	[CC_VERBS_CLOCK_WALLCLOCK] = "wallclock",
};

/* The port o asks for on d, or its first active one; NULL with a message. */
static const struct cc_verbs_port *pick_port(const struct cc_verbs_dev *d, uint8_t want,
					     char *err, size_t errlen)
{
	for (uint32_t i = 0; i < d->nports; i++) {
		const struct cc_verbs_port *p = &d->ports[i];

		if (want && p->num != want)
			continue;
		if (p->state == IBV_PORT_ACTIVE)
			return p;
		if (want) {
			snprintf(err, errlen, "%s port %u is not active: bring its link up (ip link set "
				 "<netdev> up; for rxe: rdma link show)", d->name, want);
			return NULL;
		}
	}
	if (want)
		snprintf(err, errlen, "%s has no port %u (it has %u); see cclab devices", d->name,
			 want, d->nports);
	else
		snprintf(err, errlen, "%s has no active port; see cclab devices", d->name);
	return NULL;
}

static const struct cc_verbs_dev *pick_device(const struct cc_verbs_dev *devs, uint32_t n,
					      const struct cc_verbs_opts *o, char *err,
					      size_t errlen)
{
	bool named = o->device && o->device[0];

	for (uint32_t i = 0; i < n; i++) {
		if (named && strcmp(devs[i].name, o->device))
			continue;
		if (named)
			return &devs[i];
		for (uint32_t p = 0; p < devs[i].nports; p++)
			if (devs[i].ports[p].state == IBV_PORT_ACTIVE &&
			    (!o->port || devs[i].ports[p].num == o->port))
				return &devs[i];
	}
	if (named) {
		int len = snprintf(err, errlen, "no RDMA device '%s'; this host has", o->device);

		for (uint32_t i = 0; i < n && len > 0 && (size_t)len < errlen; i++)
			len += snprintf(err + len, errlen - (size_t)len, " %s", devs[i].name);
	} else {
		snprintf(err, errlen, "no RDMA device with an active port (%u device%s, all ports "
			 "down); see cclab devices", n, n == 1 ? "" : "s");
	}
	return NULL;
}

/* The GID index to use on port p: the one asked for, checked, or the
 * default; -1 on InfiniBand without one asked for. */
static int pick_gid(const struct cc_verbs_dev *d, const struct cc_verbs_port *p, int want,
		    union ibv_gid *gid, char *err, size_t errlen)
{
	if (want < 0) {
		int g = cc_verbs_default_gid(p);

		if (g < 0 && p->link_layer == IBV_LINK_LAYER_ETHERNET) {
			snprintf(err, errlen, "%s port %u is Ethernet (RoCE) but has no RoCE GID: give "
				 "its netdev an IP address (ip addr add ... dev <netdev>)", d->name,
				 p->num);
			return -2;
		}
		want = g;
	}
	if (want < 0)
		return -1;
	for (uint32_t i = 0; i < p->ngids; i++)
		if ((int)p->gids[i].index == want) {
			*gid = p->gids[i].gid;
			return want;
		}
	snprintf(err, errlen, "%s port %u has no GID at index %d (empty or past its table); "
		 "cclab devices lists the ones it has", d->name, p->num, want);
	return -2;
}

int cc_verbs_open(const struct cc_verbs_opts *o, struct cc_verbs_ctx *v, char *err,
		  size_t errlen)
{
	struct cc_verbs_dev *devs;
	uint32_t n;
	int rc = cc_verbs_devices(&devs, &n, err, errlen);

	memset(v, 0, sizeof(*v));
	if (rc)
		return rc;
	rc = -ENODEV;
	const struct cc_verbs_dev *d = pick_device(devs, n, o, err, errlen);
	const struct cc_verbs_port *p = d ? pick_port(d, o->port, err, errlen) : NULL;
	if (!p)
		goto out;
	v->gid_index = pick_gid(d, p, o->gid_index, &v->gid, err, errlen);
	if (v->gid_index < -1) {
		rc = -EINVAL;
		goto out;
	}
	if (o->mtu_bytes && !cc_verbs_mtu_from_bytes(o->mtu_bytes)) {
		snprintf(err, errlen, "MTU %u: an IB MTU is 256, 512, 1024, 2048 or 4096 bytes",
			 o->mtu_bytes);
		rc = -EINVAL;
		goto out;
	}
	snprintf(v->device, sizeof(v->device), "%s", d->name);
	v->port = p->num;
	v->roce = p->link_layer == IBV_LINK_LAYER_ETHERNET;
	v->lid = p->lid;
	v->active_mtu = p->active_mtu;
	v->mtu_bytes = o->mtu_bytes;
	v->traffic_class = o->traffic_class;
	v->max_qp_rd_atom = d->max_qp_rd_atom;
	v->max_qp_init_rd_atom = d->max_qp_init_rd_atom;
	v->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : CC_VERBS_DEFAULT_TIMEOUT_MS;

	struct ibv_device **list = ibv_get_device_list(NULL);
	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), v->device))
			v->ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!v->ctx) {
		rc = -(errno ? errno : ENODEV);
		snprintf(err, errlen, "ibv_open_device %s: %s (is /dev/infiniband/uverbs* readable "
			 "and writable by this user?)", v->device, strerror(-rc));
		goto out;
	}
	/* Completion timestamps (ibv_create_cq_ex(3)): only where the device
	 * reports a core clock. */
	struct ibv_device_attr_ex ax;
	if (!ibv_query_device_ex(v->ctx, NULL, &ax) && ax.completion_timestamp_mask)
		v->hca_core_clock_khz = ax.hca_core_clock;
	v->pd = ibv_alloc_pd(v->ctx);
	if (!v->pd) {
		rc = -(errno ? errno : ENOMEM);
		snprintf(err, errlen, "ibv_alloc_pd on %s: %s", v->device, strerror(-rc));
		ibv_close_device(v->ctx);
		v->ctx = NULL;
		goto out;
	}
	rc = 0;
out:
	cc_verbs_devices_free(devs, n);
	return rc;
}

void cc_verbs_close(struct cc_verbs_ctx *v)
{
	if (v->pd)
		ibv_dealloc_pd(v->pd);
	if (v->ctx)
		ibv_close_device(v->ctx);
	v->pd = NULL;
	v->ctx = NULL;
}
