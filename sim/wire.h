/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/wire.h — the wire format, as tables: which packets a message becomes
 * and how many bytes each occupies on an InfiniBand or RoCEv2 link.
 *
 * Modelled on the kernel's soft-RoCE table rxe_opcode[] (drivers/infiniband/
 * sw/rxe/rxe_opcode.c, header sizes in rxe_hdr.h): one row per BTH opcode
 * with its FIRST/MIDDLE/LAST position, the extended headers it carries and
 * their length.  The numbers are the InfiniBand Architecture Specification's
 * (IBA Vol. 1): BTH 9.2 and its opcode table, extended transport headers
 * 9.3, LRH 7.7, ICRC/VCRC 7.8, GRH 8.3, RoCEv2 encapsulation Annex A17.
 * Only the RC transport is tabled: it is the only one the schedule uses.
 *
 * Nothing here knows about time; a link model turns sim_wire_bytes() into
 * picoseconds with sim_serialize_ps().
 */
#ifndef CCLAB_SIM_WIRE_H
#define CCLAB_SIM_WIRE_H

#include <stdint.h>

/* Header sizes in bytes (IBA 9.2, 9.3; the same as rxe's RXE_*_BYTES). */
enum {
	SIM_BTH_BYTES = 12,    /* base transport header */
	SIM_RETH_BYTES = 16,   /* RDMA ETH: VA 8, R_Key 4, DMA length 4 */
	SIM_IMMDT_BYTES = 4,   /* immediate data */
	SIM_AETH_BYTES = 4,    /* ACK ETH: syndrome 1, MSN 3 */
	SIM_ATMETH_BYTES = 28, /* atomic ETH: VA 8, R_Key 4, swap/add 8, compare 8 */
	SIM_ATMACK_BYTES = 8,  /* atomic ACK ETH: original remote data */
	SIM_CNP_BYTES = 16,    /* CNP: reserved, after the BTH */
};

/* RC BTH opcodes with their IBA values (transport bits 7:5 = 000 for RC). */
enum sim_bth_op {
	SIM_BTH_SEND_FIRST = 0x00,
	SIM_BTH_SEND_MIDDLE = 0x01,
	SIM_BTH_SEND_LAST = 0x02,
	SIM_BTH_SEND_LAST_IMM = 0x03,
	SIM_BTH_SEND_ONLY = 0x04,
	SIM_BTH_SEND_ONLY_IMM = 0x05,
	SIM_BTH_WRITE_FIRST = 0x06,
	SIM_BTH_WRITE_MIDDLE = 0x07,
	SIM_BTH_WRITE_LAST = 0x08,
	SIM_BTH_WRITE_LAST_IMM = 0x09,
	SIM_BTH_WRITE_ONLY = 0x0a,
	SIM_BTH_WRITE_ONLY_IMM = 0x0b,
	SIM_BTH_READ_REQUEST = 0x0c,
	SIM_BTH_READ_RESP_FIRST = 0x0d,
	SIM_BTH_READ_RESP_MIDDLE = 0x0e,
	SIM_BTH_READ_RESP_LAST = 0x0f,
	SIM_BTH_READ_RESP_ONLY = 0x10,
	SIM_BTH_ACK = 0x11,
	SIM_BTH_ATOMIC_ACK = 0x12,
	SIM_BTH_COMPARE_SWAP = 0x13,
	SIM_BTH_FETCH_ADD = 0x14,
	/* RoCEv2's Congestion Notification Packet: BTH opcode 0x81 (the CNP
	 * transport class) on the wire, kept at the next free index here so
	 * the tables stay dense.  BTH + 16 reserved bytes (RoCEv2 Annex A17
	 * 17.9.3). */
	SIM_BTH_CNP = 0x15,
	SIM_BTH_OP_COUNT /* SEND_*_WITH_INVALIDATE unused */
};

/* Per-opcode flags (rxe's RXE_*_MASK, the ones a model needs). */
enum {
	SIM_PKT_FIRST = 1u << 0,  /* first packet of a message (ONLY = FIRST|LAST) */
	SIM_PKT_MIDDLE = 1u << 1,
	SIM_PKT_LAST = 1u << 2,
	SIM_PKT_PAYLOAD = 1u << 3, /* may carry payload */
	SIM_PKT_RETH = 1u << 4,
	SIM_PKT_IMMDT = 1u << 5,
	SIM_PKT_AETH = 1u << 6,
	SIM_PKT_ATMETH = 1u << 7,
	SIM_PKT_ATMACK = 1u << 8,
	SIM_PKT_REQ = 1u << 9,   /* requester -> responder */
	SIM_PKT_RESP = 1u << 10, /* responder -> requester (ACKs, read responses) */
	SIM_PKT_SEND = 1u << 11,
	SIM_PKT_WRITE = 1u << 12,
	SIM_PKT_READ = 1u << 13,
	SIM_PKT_ATOMIC = 1u << 14,
	SIM_PKT_RWQE = 1u << 15, /* consumes a receive WQE (rxe RXE_RWR_MASK) */
	SIM_PKT_RCQE = 1u << 16, /* completes a receive WQE (rxe RXE_COMP_MASK) */
	SIM_PKT_CNP = 1u << 17,  /* congestion notification: 16 reserved bytes */
};

struct sim_bth_info {
	const char *name;
	uint32_t flags;    /* SIM_PKT_* */
	uint8_t hdr_bytes; /* BTH + extended headers */
};
extern const struct sim_bth_info sim_bth_info[SIM_BTH_OP_COUNT];

/* Link layers.  The IB rows count the packet from LRH to VCRC: IB's start/end
 * delimiters, idles and 8b/10b or 64b/66b coding are taken to be folded into
 * the link's data rate (the rate an HCA reports, e.g. 200 Gb/s HDR).  The
 * Ethernet rows add preamble + SFD and the minimum inter-frame gap, which do
 * occupy the line (IEEE 802.3).  RoCEv2 is tagged by default: PFC needs the
 * 802.1Q PCP field to pick the paused priority. */
enum sim_link {
	SIM_LINK_IB,                   /* LRH + BTH.. + ICRC + VCRC (default) */
	SIM_LINK_IB_GRH,               /* the same with a GRH (routed, or multi-subnet) */
	SIM_LINK_ROCEV2_IPV4,          /* Eth + 802.1Q + IPv4 + UDP (default RoCE) */
	SIM_LINK_ROCEV2_IPV4_UNTAGGED, /* Eth + IPv4 + UDP (DSCP-based PFC) */
	SIM_LINK_ROCEV2_IPV6,
	SIM_LINK_ROCEV2_IPV6_UNTAGGED,
	SIM_LINK_COUNT
};

struct sim_link_info {
	const char *name;
	uint8_t lrh, grh;           /* IB: local route header 8 (7.7), GRH 40 (8.3) */
	uint8_t eth, vlan, ip, udp; /* RoCEv2: MAC 14, 802.1Q 4, IPv4 20 / IPv6 40, UDP 8 */
	uint8_t icrc, vcrc, fcs;    /* invariant CRC 4 (both), IB variant CRC 2, Ethernet FCS 4 */
	uint8_t preamble, ifg;      /* Ethernet: preamble+SFD 8, inter-frame gap 12 */
	uint8_t min_frame;          /* Ethernet: 64 bytes MAC header to FCS, padded */
};
extern const struct sim_link_info sim_link_info[SIM_LINK_COUNT];

/* BTH PadCnt (IBA 9.2): the payload is padded to a multiple of 4 bytes so
 * that the ICRC is word-aligned (rxe: pad = -payload & 3). */
static inline uint32_t sim_wire_pad(uint32_t payload) { return (0u - payload) & 3u; }

/* One packet of opcode op with `payload` bytes (<= the path MTU; 0 for an
 * opcode without SIM_PKT_PAYLOAD).  frame: the bytes of the packet itself
 * (LRH .. VCRC, or MAC header .. FCS); wire: frame + preamble + IFG, the
 * bytes' worth of line time the packet occupies. */
uint32_t sim_wire_frame_bytes(enum sim_link link, enum sim_bth_op op, uint32_t payload);
uint32_t sim_wire_bytes(enum sim_link link, enum sim_bth_op op, uint32_t payload);

/* The same packet's bytes on NVLink (host.nvlink_pkt_*, sim/params.c's
 * NVLINK_FRAMING): no IB or Ethernet headers; its payload in NVLink
 * packets of at most pkt_bytes, each with overhead bytes of header flits;
 * a packet without payload (an ACK's role) one set of header flits. */
uint32_t sim_wire_nvlink_bytes(uint32_t payload, uint32_t pkt_bytes, uint32_t overhead);
/* A READ request for len bytes on NVLink: NVLink reads are per packet, so
 * one request (its header flits) for every pkt_bytes asked; the data comes
 * back framed as sim_wire_nvlink_bytes. */
uint64_t sim_wire_nvlink_read_bytes(uint64_t len, uint32_t pkt_bytes, uint32_t overhead);

/* The message streams that segment at the path MTU into FIRST, MIDDLE..,
 * LAST or a single ONLY packet (IBA 9.2 opcode sequences): what the
 * requester sends for SEND/WRITE, and what the responder returns for an RDMA
 * READ.  A READ request and the atomics are single packets of their own
 * opcode (READ_REQUEST, COMPARE_SWAP, FETCH_ADD, ATOMIC_ACK). */
enum sim_msg {
	SIM_MSG_SEND,
	SIM_MSG_SEND_IMM,
	SIM_MSG_WRITE,
	SIM_MSG_WRITE_IMM,
	SIM_MSG_READ_RESP,
	SIM_MSG_COUNT
};

/* Largest message RC allows (IBA: 2^31 bytes). */
#define SIM_MSG_MAX_BYTES (UINT64_C(1) << 31)

/* A message of `len` bytes at path MTU `mtu`: ceil(len / mtu) packets, and one
 * packet for len == 0.  Every packet but the last carries mtu bytes.  With one
 * packet, first == last == the ONLY opcode; `middle` is always the MIDDLE
 * opcode, used by packets 1 .. npkts-2. */
struct sim_wire_seg {
	enum sim_msg msg;
	uint32_t mtu;
	uint32_t npkts;
	uint32_t last_payload;
	enum sim_bth_op first, middle, last;
};

/* 0, or -EINVAL for an unknown msg, an MTU other than 256, 512, 1024, 2048,
 * 4096 (IBA path MTUs), or len > SIM_MSG_MAX_BYTES. */
int sim_wire_segment(enum sim_msg msg, uint64_t len, uint32_t mtu, struct sim_wire_seg *seg);

/* Packet i (0 .. npkts-1) of a segmented message: its opcode and payload. */
enum sim_bth_op sim_wire_seg_pkt(const struct sim_wire_seg *seg, uint32_t i, uint32_t *payload);

/* Sums over the data packets of a message (no ACKs: coalescing is a model's
 * policy), in closed form, so a 2 GiB message costs no loop. */
struct sim_wire_sum {
	uint64_t pkts, payload, frame, wire;
};
struct sim_wire_sum sim_wire_msg_sum(enum sim_link link, const struct sim_wire_seg *seg);

#endif /* CCLAB_SIM_WIRE_H */
