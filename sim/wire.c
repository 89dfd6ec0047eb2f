/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/wire.c — the opcode and link-layer tables and the byte arithmetic over
 * them.  Facts from the IBA (sections cited in wire.h), cross-checked against
 * rxe_opcode.c / rxe_hdr.h; tests/test_sim_wire.c spells every count out.
 */
#include "sim/wire.h"

#include <assert.h>
#include <errno.h>

#define HDR(ext) ((uint8_t)(SIM_BTH_BYTES + (ext)))

/* Designated by opcode value, so sim_bth_info[op] is the IBA row of op. */
const struct sim_bth_info sim_bth_info[SIM_BTH_OP_COUNT] = {
	/* SEND: the first packet needs a receive WQE, the last completes it. */
	[SIM_BTH_SEND_FIRST] = {"SEND_FIRST",
		SIM_PKT_FIRST | SIM_PKT_PAYLOAD | SIM_PKT_REQ | SIM_PKT_SEND | SIM_PKT_RWQE, HDR(0)},
	[SIM_BTH_SEND_MIDDLE] = {"SEND_MIDDLE",
		SIM_PKT_MIDDLE | SIM_PKT_PAYLOAD | SIM_PKT_REQ | SIM_PKT_SEND, HDR(0)},
	[SIM_BTH_SEND_LAST] = {"SEND_LAST",
		SIM_PKT_LAST | SIM_PKT_PAYLOAD | SIM_PKT_REQ | SIM_PKT_SEND | SIM_PKT_RCQE, HDR(0)},
	[SIM_BTH_SEND_LAST_IMM] = {"SEND_LAST_WITH_IMMEDIATE",
		SIM_PKT_LAST | SIM_PKT_PAYLOAD | SIM_PKT_IMMDT | SIM_PKT_REQ | SIM_PKT_SEND |
		SIM_PKT_RCQE, HDR(SIM_IMMDT_BYTES)},
	[SIM_BTH_SEND_ONLY] = {"SEND_ONLY",
		SIM_PKT_FIRST | SIM_PKT_LAST | SIM_PKT_PAYLOAD | SIM_PKT_REQ | SIM_PKT_SEND |
		SIM_PKT_RWQE | SIM_PKT_RCQE, HDR(0)},
	[SIM_BTH_SEND_ONLY_IMM] = {"SEND_ONLY_WITH_IMMEDIATE",
		SIM_PKT_FIRST | SIM_PKT_LAST | SIM_PKT_PAYLOAD | SIM_PKT_IMMDT | SIM_PKT_REQ |
		SIM_PKT_SEND | SIM_PKT_RWQE | SIM_PKT_RCQE, HDR(SIM_IMMDT_BYTES)},

	/* RDMA WRITE: RETH only where the message starts; WITH_IMMEDIATE
	 * consumes and completes a receive WQE at its last packet. */
	[SIM_BTH_WRITE_FIRST] = {"RDMA_WRITE_FIRST",
		SIM_PKT_FIRST | SIM_PKT_PAYLOAD | SIM_PKT_RETH | SIM_PKT_REQ | SIM_PKT_WRITE,
		HDR(SIM_RETH_BYTES)},
	[SIM_BTH_WRITE_MIDDLE] = {"RDMA_WRITE_MIDDLE",
		SIM_PKT_MIDDLE | SIM_PKT_PAYLOAD | SIM_PKT_REQ | SIM_PKT_WRITE, HDR(0)},
	[SIM_BTH_WRITE_LAST] = {"RDMA_WRITE_LAST",
		SIM_PKT_LAST | SIM_PKT_PAYLOAD | SIM_PKT_REQ | SIM_PKT_WRITE, HDR(0)},
	[SIM_BTH_WRITE_LAST_IMM] = {"RDMA_WRITE_LAST_WITH_IMMEDIATE",
		SIM_PKT_LAST | SIM_PKT_PAYLOAD | SIM_PKT_IMMDT | SIM_PKT_REQ | SIM_PKT_WRITE |
		SIM_PKT_RWQE | SIM_PKT_RCQE, HDR(SIM_IMMDT_BYTES)},
	[SIM_BTH_WRITE_ONLY] = {"RDMA_WRITE_ONLY",
		SIM_PKT_FIRST | SIM_PKT_LAST | SIM_PKT_PAYLOAD | SIM_PKT_RETH | SIM_PKT_REQ |
		SIM_PKT_WRITE, HDR(SIM_RETH_BYTES)},
	[SIM_BTH_WRITE_ONLY_IMM] = {"RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		SIM_PKT_FIRST | SIM_PKT_LAST | SIM_PKT_PAYLOAD | SIM_PKT_RETH | SIM_PKT_IMMDT |
		SIM_PKT_REQ | SIM_PKT_WRITE | SIM_PKT_RWQE | SIM_PKT_RCQE,
		HDR(SIM_RETH_BYTES + SIM_IMMDT_BYTES)},

	/* RDMA READ: one request carrying the RETH; the responses carry an
	 * AETH on the first and last (or only) packet, not the middle ones. */
	[SIM_BTH_READ_REQUEST] = {"RDMA_READ_REQUEST",
		SIM_PKT_FIRST | SIM_PKT_LAST | SIM_PKT_RETH | SIM_PKT_REQ | SIM_PKT_READ,
		HDR(SIM_RETH_BYTES)},
	[SIM_BTH_READ_RESP_FIRST] = {"RDMA_READ_RESPONSE_FIRST",
		SIM_PKT_FIRST | SIM_PKT_PAYLOAD | SIM_PKT_AETH | SIM_PKT_RESP | SIM_PKT_READ,
		HDR(SIM_AETH_BYTES)},
	[SIM_BTH_READ_RESP_MIDDLE] = {"RDMA_READ_RESPONSE_MIDDLE",
		SIM_PKT_MIDDLE | SIM_PKT_PAYLOAD | SIM_PKT_RESP | SIM_PKT_READ, HDR(0)},
	[SIM_BTH_READ_RESP_LAST] = {"RDMA_READ_RESPONSE_LAST",
		SIM_PKT_LAST | SIM_PKT_PAYLOAD | SIM_PKT_AETH | SIM_PKT_RESP | SIM_PKT_READ,
		HDR(SIM_AETH_BYTES)},
	[SIM_BTH_READ_RESP_ONLY] = {"RDMA_READ_RESPONSE_ONLY",
		SIM_PKT_FIRST | SIM_PKT_LAST | SIM_PKT_PAYLOAD | SIM_PKT_AETH | SIM_PKT_RESP |
		SIM_PKT_READ, HDR(SIM_AETH_BYTES)},

	/* ACK/NAK/RNR NAK (the AETH syndrome says which), and atomics. */
	[SIM_BTH_ACK] = {"ACKNOWLEDGE",
		SIM_PKT_FIRST | SIM_PKT_LAST | SIM_PKT_AETH | SIM_PKT_RESP, HDR(SIM_AETH_BYTES)},
	[SIM_BTH_ATOMIC_ACK] = {"ATOMIC_ACKNOWLEDGE",
		SIM_PKT_FIRST | SIM_PKT_LAST | SIM_PKT_AETH | SIM_PKT_ATMACK | SIM_PKT_RESP |
		SIM_PKT_ATOMIC, HDR(SIM_AETH_BYTES + SIM_ATMACK_BYTES)},
	[SIM_BTH_COMPARE_SWAP] = {"COMPARE_SWAP",
		SIM_PKT_FIRST | SIM_PKT_LAST | SIM_PKT_ATMETH | SIM_PKT_REQ | SIM_PKT_ATOMIC,
		HDR(SIM_ATMETH_BYTES)},
	[SIM_BTH_FETCH_ADD] = {"FETCH_ADD",
		SIM_PKT_FIRST | SIM_PKT_LAST | SIM_PKT_ATMETH | SIM_PKT_REQ | SIM_PKT_ATOMIC,
		HDR(SIM_ATMETH_BYTES)},
	/* CNP: from the notification point (the receiving NIC) to the QP
	 * whose packet was marked; neither request nor response. */
	[SIM_BTH_CNP] = {"CNP", SIM_PKT_FIRST | SIM_PKT_LAST | SIM_PKT_CNP, HDR(SIM_CNP_BYTES)},
};

/* IB: LRH (7.7), optional GRH (8.3), ICRC + VCRC (7.8).
 * RoCEv2 (Annex A17): the IB transport packet (BTH .. ICRC) is the payload of
 * UDP (destination port 4791) over IPv4 or IPv6 in an Ethernet frame; LRH and
 * VCRC are dropped, the Ethernet FCS protects the frame. */
#define ETH_COMMON .eth = 14, .udp = 8, .icrc = 4, .fcs = 4, .preamble = 8, .ifg = 12, \
		   .min_frame = 64
const struct sim_link_info sim_link_info[SIM_LINK_COUNT] = {
	[SIM_LINK_IB] = {.name = "ib", .lrh = 8, .icrc = 4, .vcrc = 2},
	[SIM_LINK_IB_GRH] = {.name = "ib-grh", .lrh = 8, .grh = 40, .icrc = 4, .vcrc = 2},
	[SIM_LINK_ROCEV2_IPV4] = {.name = "rocev2-ipv4", .vlan = 4, .ip = 20, ETH_COMMON},
	[SIM_LINK_ROCEV2_IPV4_UNTAGGED] = {.name = "rocev2-ipv4-untagged", .ip = 20, ETH_COMMON},
	[SIM_LINK_ROCEV2_IPV6] = {.name = "rocev2-ipv6", .vlan = 4, .ip = 40, ETH_COMMON},
	[SIM_LINK_ROCEV2_IPV6_UNTAGGED] = {.name = "rocev2-ipv6-untagged", .ip = 40, ETH_COMMON},
};

/* The opcode sequence of each stream: FIRST, MIDDLE.., LAST, or ONLY. */
static const struct {
	enum sim_bth_op first, middle, last, only;
} msg_ops[SIM_MSG_COUNT] = {
	[SIM_MSG_SEND] = {SIM_BTH_SEND_FIRST, SIM_BTH_SEND_MIDDLE, SIM_BTH_SEND_LAST,
			  SIM_BTH_SEND_ONLY},
	[SIM_MSG_SEND_IMM] = {SIM_BTH_SEND_FIRST, SIM_BTH_SEND_MIDDLE, SIM_BTH_SEND_LAST_IMM,
			      SIM_BTH_SEND_ONLY_IMM},
	[SIM_MSG_WRITE] = {SIM_BTH_WRITE_FIRST, SIM_BTH_WRITE_MIDDLE, SIM_BTH_WRITE_LAST,
			   SIM_BTH_WRITE_ONLY},
	[SIM_MSG_WRITE_IMM] = {SIM_BTH_WRITE_FIRST, SIM_BTH_WRITE_MIDDLE, SIM_BTH_WRITE_LAST_IMM,
			       SIM_BTH_WRITE_ONLY_IMM},
	[SIM_MSG_READ_RESP] = {SIM_BTH_READ_RESP_FIRST, SIM_BTH_READ_RESP_MIDDLE,
			       SIM_BTH_READ_RESP_LAST, SIM_BTH_READ_RESP_ONLY},
};

uint32_t sim_wire_frame_bytes(enum sim_link link, enum sim_bth_op op, uint32_t payload)
{
	assert((unsigned)link < SIM_LINK_COUNT && (unsigned)op < SIM_BTH_OP_COUNT);
	assert(payload <= 4096 && (payload == 0 || (sim_bth_info[op].flags & SIM_PKT_PAYLOAD)));
	const struct sim_link_info *l = &sim_link_info[link];
	uint32_t f = l->lrh + l->grh + l->eth + l->vlan + l->ip + l->udp +
		     sim_bth_info[op].hdr_bytes + payload + sim_wire_pad(payload) +
		     l->icrc + l->vcrc + l->fcs;

	return f < l->min_frame ? l->min_frame : f;
}

uint32_t sim_wire_bytes(enum sim_link link, enum sim_bth_op op, uint32_t payload)
{
	const struct sim_link_info *l = &sim_link_info[link];

	return sim_wire_frame_bytes(link, op, payload) + l->preamble + l->ifg;
}

uint32_t sim_wire_nvlink_bytes(uint32_t payload, uint32_t pkt_bytes, uint32_t overhead)
{
	uint32_t n = payload ? (payload + pkt_bytes - 1) / pkt_bytes : 1;

	return payload + n * overhead;
}

uint64_t sim_wire_nvlink_read_bytes(uint64_t len, uint32_t pkt_bytes, uint32_t overhead)
{
	return (len ? (len + pkt_bytes - 1) / pkt_bytes : 1) * overhead;
}

int sim_wire_segment(enum sim_msg msg, uint64_t len, uint32_t mtu, struct sim_wire_seg *seg)
{
	if ((unsigned)msg >= SIM_MSG_COUNT || len > SIM_MSG_MAX_BYTES)
		return -EINVAL;
	if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096)
		return -EINVAL;
	uint64_t n = len == 0 ? 1 : (len + mtu - 1) / mtu;

	*seg = (struct sim_wire_seg){
		.msg = msg,
		.mtu = mtu,
		.npkts = (uint32_t)n,
		.last_payload = (uint32_t)(len - (n - 1) * mtu),
		.first = n == 1 ? msg_ops[msg].only : msg_ops[msg].first,
		.middle = msg_ops[msg].middle,
		.last = n == 1 ? msg_ops[msg].only : msg_ops[msg].last,
	};
	return 0;
}

enum sim_bth_op sim_wire_seg_pkt(const struct sim_wire_seg *seg, uint32_t i, uint32_t *payload)
{
	assert(i < seg->npkts);
	if (i == seg->npkts - 1) {
		*payload = seg->last_payload;
		return seg->last;
	}
	*payload = seg->mtu;
	return i == 0 ? seg->first : seg->middle;
}

struct sim_wire_sum sim_wire_msg_sum(enum sim_link link, const struct sim_wire_seg *seg)
{
	uint64_t n = seg->npkts;
	struct sim_wire_sum s = {
		.pkts = n,
		.payload = (n - 1) * seg->mtu + seg->last_payload,
		.frame = sim_wire_frame_bytes(link, seg->last, seg->last_payload),
		.wire = sim_wire_bytes(link, seg->last, seg->last_payload),
	};

	if (n >= 2) { /* the first packet, then n - 2 middle ones, all full */
		s.frame += sim_wire_frame_bytes(link, seg->first, seg->mtu) +
			   (n - 2) * sim_wire_frame_bytes(link, seg->middle, seg->mtu);
		s.wire += sim_wire_bytes(link, seg->first, seg->mtu) +
			  (n - 2) * sim_wire_bytes(link, seg->middle, seg->mtu);
	}
	return s;
}
