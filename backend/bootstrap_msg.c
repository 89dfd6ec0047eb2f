/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/bootstrap_msg.c — the bootstrap wire format (see
 * backend/bootstrap_msg.h).  Integers are read and written a byte at a
 * time, so alignment and host byte order never matter. */
#include "backend/bootstrap_msg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/launch.h"

static const char *const type_names[CC_BMSG_TYPE_END] = {
	[CC_BMSG_HELLO] = "HELLO",	   [CC_BMSG_READY] = "READY", [CC_BMSG_ABORT] = "ABORT",
	[CC_BMSG_BLOB] = "BLOB",	   [CC_BMSG_ALL] = "ALL",     [CC_BMSG_BARRIER] = "BARRIER",
	[CC_BMSG_ENDPOINTS] = "ENDPOINTS", [CC_BMSG_MRS] = "MRS",
};

const char *cc_bmsg_type_name(uint32_t type)
{
	return type > 0 && type < CC_BMSG_TYPE_END ? type_names[type] : "?";
}

uint32_t cc_bmsg_max_payload(uint32_t type)
{
	switch (type) {
	case CC_BMSG_HELLO:
	case CC_BMSG_READY:
	case CC_BMSG_BARRIER:
		return 0;
	case CC_BMSG_ABORT:
		return CC_BMSG_MAX_TEXT;
	case CC_BMSG_BLOB:
		return CC_BMSG_MAX_BLOB;
	case CC_BMSG_ALL:
		return CC_BMSG_MAX_PAYLOAD;
	case CC_BMSG_ENDPOINTS:
		return 4 + CC_BMSG_MAX_QPS * CC_BMSG_EP_BYTES;
	case CC_BMSG_MRS:
		return 4 + CC_BMSG_MAX_MRS * CC_BMSG_MR_BYTES;
	default:
		return 0;
	}
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

uint32_t cc_bmsg_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint64_t cc_bmsg_get64(const uint8_t *p)
{
	return (uint64_t)cc_bmsg_get32(p) << 32 | cc_bmsg_get32(p + 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void cc_bmsg_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

void cc_bmsg_put64(uint8_t *p, uint64_t v)
{
	cc_bmsg_put32(p, (uint32_t)(v >> 32));
	cc_bmsg_put32(p + 4, (uint32_t)v);
}

void cc_bmsg_hdr_encode(uint8_t out[CC_BMSG_HDR_BYTES], uint16_t type, uint32_t rank,
			uint32_t world, uint32_t len)
{
	memcpy(out, CC_BMSG_MAGIC, 4);
	put16(out + 4, CC_BMSG_VERSION);
	put16(out + 6, type);
	cc_bmsg_put32(out + 8, rank);
	cc_bmsg_put32(out + 12, world);
	cc_bmsg_put32(out + 16, len);
}

int cc_bmsg_hdr_decode(const uint8_t *buf, size_t n, struct cc_bmsg_hdr *h, char *err,
		       size_t errlen)
{
	struct cc_bmsg_hdr x;

	if (n != CC_BMSG_HDR_BYTES) {
		snprintf(err, errlen, "header of %zu bytes, expected %d", n, CC_BMSG_HDR_BYTES);
		return -EPROTO;
	}
	if (memcmp(buf, CC_BMSG_MAGIC, 4) != 0) {
		snprintf(err, errlen, "bad magic %02x %02x %02x %02x (expected \"CCLB\")", buf[0],
			 buf[1], buf[2], buf[3]);
		return -EPROTO;
	}
	x.version = get16(buf + 4);
	x.type = get16(buf + 6);
	x.rank = cc_bmsg_get32(buf + 8);
	x.world = cc_bmsg_get32(buf + 12);
	x.len = cc_bmsg_get32(buf + 16);
	if (x.version != CC_BMSG_VERSION) {
		snprintf(err, errlen, "protocol version %u, this build speaks %d", (unsigned)x.version,
			 CC_BMSG_VERSION);
		return -EPROTO;
	}
	if (x.type == 0 || x.type >= CC_BMSG_TYPE_END) {
		snprintf(err, errlen, "unknown message type %u", (unsigned)x.type);
		return -EPROTO;
	}
	if (x.world == 0 || x.world > CC_LAUNCH_MAX_RANKS) {
		snprintf(err, errlen, "world size %u is not in 1..%d", (unsigned)x.world,
			 CC_LAUNCH_MAX_RANKS);
		return -EPROTO;
	}
	if (x.rank >= x.world) {
		snprintf(err, errlen, "sender rank %u is not below world size %u", (unsigned)x.rank,
			 (unsigned)x.world);
		return -EPROTO;
	}
	if (x.len > cc_bmsg_max_payload(x.type)) {
		snprintf(err, errlen, "%s payload of %u bytes, at most %u allowed",
			 cc_bmsg_type_name(x.type), (unsigned)x.len,
			 (unsigned)cc_bmsg_max_payload(x.type));
		return -EPROTO;
	}
	*h = x;
	return 0;
}

/* ---- encoders ---- */

static const char *ep_invalid(const struct cc_bmsg_ep *e, uint32_t world)
{
	if (e->peer >= world)
		return "peer rank is not below the world size";
	if (e->qpn > 0xffffff)
		return "QPN does not fit in 24 bits";
	if (e->qpn < 2)
		return "QPN 0 and 1 are the special QPs, never an RC QP";
	if (e->psn > 0xffffff)
		return "PSN does not fit in 24 bits";
	if (e->mtu < 1 || e->mtu > 5)
		return "MTU is not an enum ibv_mtu (1..5)";
	return NULL;
}

static const char *mr_invalid(const struct cc_bmsg_mr *m)
{
	if (m->length > UINT64_MAX - m->addr)
		return "address + length passes 2^64";
	return NULL;
}

static int begin_encode(uint8_t *buf, size_t cap, size_t *need, uint32_t rank, uint32_t world,
			uint32_t n, uint32_t max, size_t each, char *err, size_t errlen)
{
	*need = CC_BMSG_HDR_BYTES + 4 + (size_t)n * each;
	if (world == 0 || world > CC_LAUNCH_MAX_RANKS || rank >= world) {
		snprintf(err, errlen, "rank %u / world size %u out of range", (unsigned)rank,
			 (unsigned)world);
		return -EINVAL;
	}
	if (n > max) {
		snprintf(err, errlen, "%u entries, at most %u", (unsigned)n, (unsigned)max);
		return -EINVAL;
	}
	if (!buf || cap < *need) {
		snprintf(err, errlen, "need %zu bytes, have %zu", *need, buf ? cap : (size_t)0);
		return -ENOSPC;
	}
	return 0;
}

int cc_bmsg_encode_eps(uint8_t *buf, size_t cap, size_t *need, uint32_t rank, uint32_t world,
		       const struct cc_bmsg_ep *eps, uint32_t n, char *err, size_t errlen)
{
	uint8_t *p;
	uint32_t i;
	int rc = begin_encode(buf, cap, need, rank, world, n, CC_BMSG_MAX_QPS, CC_BMSG_EP_BYTES,
			      err, errlen);

	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		const char *why = ep_invalid(&eps[i], world);

		if (!why && i > 0 && eps[i].qp_index <= eps[i - 1].qp_index)
			why = "QP indices are not strictly increasing";
		if (why) {
			snprintf(err, errlen, "endpoint %u (qp %u): %s", (unsigned)i,
				 (unsigned)eps[i].qp_index, why);
			return -EINVAL;
		}
	}
	cc_bmsg_hdr_encode(buf, CC_BMSG_ENDPOINTS, rank, world,
			   (uint32_t)(*need - CC_BMSG_HDR_BYTES));
	p = buf + CC_BMSG_HDR_BYTES;
	cc_bmsg_put32(p, n);
	p += 4;
	for (i = 0; i < n; i++, p += CC_BMSG_EP_BYTES) {
		cc_bmsg_put32(p, eps[i].qp_index);
		cc_bmsg_put32(p + 4, eps[i].peer);
		cc_bmsg_put32(p + 8, eps[i].qpn);
		cc_bmsg_put32(p + 12, eps[i].psn);
		put16(p + 16, eps[i].lid);
		memcpy(p + 18, eps[i].gid, 16);
		p[34] = eps[i].gid_index;
		p[35] = eps[i].mtu;
	}
	return 0;
}

int cc_bmsg_encode_mrs(uint8_t *buf, size_t cap, size_t *need, uint32_t rank, uint32_t world,
		       const struct cc_bmsg_mr *mrs, uint32_t n, char *err, size_t errlen)
{
	uint8_t *p;
	uint32_t i;
	int rc = begin_encode(buf, cap, need, rank, world, n, CC_BMSG_MAX_MRS, CC_BMSG_MR_BYTES,
			      err, errlen);

	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		const char *why = mr_invalid(&mrs[i]);

		if (!why && i > 0 && mrs[i].index <= mrs[i - 1].index)
			why = "MR indices are not strictly increasing";
		if (why) {
			snprintf(err, errlen, "MR %u (index %u): %s", (unsigned)i,
				 (unsigned)mrs[i].index, why);
			return -EINVAL;
		}
	}
	cc_bmsg_hdr_encode(buf, CC_BMSG_MRS, rank, world, (uint32_t)(*need - CC_BMSG_HDR_BYTES));
	p = buf + CC_BMSG_HDR_BYTES;
	cc_bmsg_put32(p, n);
	p += 4;
	for (i = 0; i < n; i++, p += CC_BMSG_MR_BYTES) {
		cc_bmsg_put32(p, mrs[i].index);
		cc_bmsg_put64(p + 4, mrs[i].addr);
		cc_bmsg_put32(p + 12, mrs[i].rkey);
		cc_bmsg_put64(p + 16, mrs[i].length);
	}
	return 0;
}

/* ---- decoders ---- */

/* Header, type, exact length and the entry count of a list message. */
static int begin_decode(const uint8_t *buf, size_t len, uint16_t type, uint32_t max,
			size_t each, struct cc_bmsg_hdr *h, uint32_t *count, char *err,
			size_t errlen)
{
	struct cc_bmsg_hdr x;
	uint32_t n;
	int rc;

	if (len < CC_BMSG_HDR_BYTES) {
		snprintf(err, errlen, "truncated header: %zu of %d bytes", len, CC_BMSG_HDR_BYTES);
		return -EPROTO;
	}
	rc = cc_bmsg_hdr_decode(buf, CC_BMSG_HDR_BYTES, &x, err, errlen);
	if (rc)
		return rc;
	if (x.type != type) {
		snprintf(err, errlen, "a %s message where %s was expected",
			 cc_bmsg_type_name(x.type), cc_bmsg_type_name(type));
		return -EPROTO;
	}
	if (len - CC_BMSG_HDR_BYTES < x.len) {
		snprintf(err, errlen, "truncated payload: %zu of %u bytes",
			 len - CC_BMSG_HDR_BYTES, (unsigned)x.len);
		return -EPROTO;
	}
	if (len - CC_BMSG_HDR_BYTES > x.len) {
		snprintf(err, errlen, "%zu trailing bytes after the %u-byte payload",
			 len - CC_BMSG_HDR_BYTES - x.len, (unsigned)x.len);
		return -EPROTO;
	}
	if (x.len < 4) {
		snprintf(err, errlen, "payload of %u bytes has no entry count", (unsigned)x.len);
		return -EPROTO;
	}
	n = cc_bmsg_get32(buf + CC_BMSG_HDR_BYTES);
	if (n > max) {
		snprintf(err, errlen, "%u entries, at most %u allowed", (unsigned)n, (unsigned)max);
		return -EPROTO;
	}
	if ((size_t)x.len != 4 + (size_t)n * each) {
		snprintf(err, errlen, "%u entries need a %zu-byte payload, the header says %u",
			 (unsigned)n, 4 + (size_t)n * each, (unsigned)x.len);
		return -EPROTO;
	}
	*h = x;
	*count = n;
	return 0;
}

int cc_bmsg_decode_eps(const uint8_t *buf, size_t len, struct cc_bmsg_hdr *h,
		       struct cc_bmsg_ep **out, uint32_t *n, char *err, size_t errlen)
{
	struct cc_bmsg_hdr x;
	struct cc_bmsg_ep *eps = NULL;
	const uint8_t *p;
	uint32_t count, i;
	int rc = begin_decode(buf, len, CC_BMSG_ENDPOINTS, CC_BMSG_MAX_QPS, CC_BMSG_EP_BYTES, &x,
			      &count, err, errlen);

	if (rc)
		return rc;
	if (count) {
		eps = calloc(count, sizeof *eps);
		if (!eps) {
			snprintf(err, errlen, "out of memory for %u endpoints", (unsigned)count);
			return -ENOMEM;
		}
	}
	p = buf + CC_BMSG_HDR_BYTES + 4;
	for (i = 0; i < count; i++, p += CC_BMSG_EP_BYTES) {
		struct cc_bmsg_ep *e = &eps[i];
		const char *why;

		e->qp_index = cc_bmsg_get32(p);
		e->peer = cc_bmsg_get32(p + 4);
		e->qpn = cc_bmsg_get32(p + 8);
		e->psn = cc_bmsg_get32(p + 12);
		e->lid = get16(p + 16);
		memcpy(e->gid, p + 18, 16);
		e->gid_index = p[34];
		e->mtu = p[35];
		why = ep_invalid(e, x.world);
		if (!why && i > 0 && e->qp_index <= eps[i - 1].qp_index)
			why = "QP indices are not strictly increasing";
		if (why) {
			snprintf(err, errlen, "rank %u endpoint %u (qp %u): %s", (unsigned)x.rank,
				 (unsigned)i, (unsigned)e->qp_index, why);
			free(eps);
			return -EPROTO;
		}
	}
	*h = x;
	*out = eps;
	*n = count;
	return 0;
}

int cc_bmsg_decode_mrs(const uint8_t *buf, size_t len, struct cc_bmsg_hdr *h,
		       struct cc_bmsg_mr **out, uint32_t *n, char *err, size_t errlen)
{
	struct cc_bmsg_hdr x;
	struct cc_bmsg_mr *mrs = NULL;
	const uint8_t *p;
	uint32_t count, i;
	int rc = begin_decode(buf, len, CC_BMSG_MRS, CC_BMSG_MAX_MRS, CC_BMSG_MR_BYTES, &x, &count,
			      err, errlen);

	if (rc)
		return rc;
	if (count) {
		mrs = calloc(count, sizeof *mrs);
		if (!mrs) {
			snprintf(err, errlen, "out of memory for %u MRs", (unsigned)count);
			return -ENOMEM;
		}
	}
	p = buf + CC_BMSG_HDR_BYTES + 4;
	for (i = 0; i < count; i++, p += CC_BMSG_MR_BYTES) {
		struct cc_bmsg_mr *m = &mrs[i];
		const char *why;

		m->index = cc_bmsg_get32(p);
		m->addr = cc_bmsg_get64(p + 4);
		m->rkey = cc_bmsg_get32(p + 12);
		m->length = cc_bmsg_get64(p + 16);
		why = mr_invalid(m);
		if (!why && i > 0 && m->index <= mrs[i - 1].index)
			why = "MR indices are not strictly increasing";
		if (why) {
			snprintf(err, errlen, "rank %u MR %u (index %u): %s", (unsigned)x.rank,
				 (unsigned)i, (unsigned)m->index, why);
			free(mrs);
			return -EPROTO;
		}
	}
	*h = x;
	*out = mrs;
	*n = count;
	return 0;
}
