/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_wire.c — sim/wire.c: the RC opcode table against the IBA
 * (and rxe_opcode.c), per-packet byte counts with the formula written out,
 * and segmentation of messages at the path MTU. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "sim/wire.h"

/* Opcode values and header bytes (BTH 12 + extended headers), row by row. */
static void test_opcode_table(void **state)
{
	static const struct {
		enum sim_bth_op op;
		unsigned value, hdr;
		const char *name;
	} want[] = {
		{SIM_BTH_SEND_FIRST, 0x00, 12, "SEND_FIRST"},
		{SIM_BTH_SEND_MIDDLE, 0x01, 12, "SEND_MIDDLE"},
		{SIM_BTH_SEND_LAST, 0x02, 12, "SEND_LAST"},
		{SIM_BTH_SEND_LAST_IMM, 0x03, 12 + 4, "SEND_LAST_WITH_IMMEDIATE"},
		{SIM_BTH_SEND_ONLY, 0x04, 12, "SEND_ONLY"},
		{SIM_BTH_SEND_ONLY_IMM, 0x05, 12 + 4, "SEND_ONLY_WITH_IMMEDIATE"},
		{SIM_BTH_WRITE_FIRST, 0x06, 12 + 16, "RDMA_WRITE_FIRST"},
		{SIM_BTH_WRITE_MIDDLE, 0x07, 12, "RDMA_WRITE_MIDDLE"},
		{SIM_BTH_WRITE_LAST, 0x08, 12, "RDMA_WRITE_LAST"},
		{SIM_BTH_WRITE_LAST_IMM, 0x09, 12 + 4, "RDMA_WRITE_LAST_WITH_IMMEDIATE"},
		{SIM_BTH_WRITE_ONLY, 0x0a, 12 + 16, "RDMA_WRITE_ONLY"},
		{SIM_BTH_WRITE_ONLY_IMM, 0x0b, 12 + 16 + 4, "RDMA_WRITE_ONLY_WITH_IMMEDIATE"},
		{SIM_BTH_READ_REQUEST, 0x0c, 12 + 16, "RDMA_READ_REQUEST"},
		{SIM_BTH_READ_RESP_FIRST, 0x0d, 12 + 4, "RDMA_READ_RESPONSE_FIRST"},
		{SIM_BTH_READ_RESP_MIDDLE, 0x0e, 12, "RDMA_READ_RESPONSE_MIDDLE"},
		{SIM_BTH_READ_RESP_LAST, 0x0f, 12 + 4, "RDMA_READ_RESPONSE_LAST"},
		{SIM_BTH_READ_RESP_ONLY, 0x10, 12 + 4, "RDMA_READ_RESPONSE_ONLY"},
		{SIM_BTH_ACK, 0x11, 12 + 4, "ACKNOWLEDGE"},
		{SIM_BTH_ATOMIC_ACK, 0x12, 12 + 4 + 8, "ATOMIC_ACKNOWLEDGE"},
		{SIM_BTH_COMPARE_SWAP, 0x13, 12 + 28, "COMPARE_SWAP"},
		{SIM_BTH_FETCH_ADD, 0x14, 12 + 28, "FETCH_ADD"},
		{SIM_BTH_CNP, 0x15, 12 + 16, "CNP"},
	};
	(void)state;

	assert_int_equal(sizeof(want) / sizeof(want[0]), SIM_BTH_OP_COUNT);
	for (size_t i = 0; i < SIM_BTH_OP_COUNT; i++) {
		const struct sim_bth_info *b = &sim_bth_info[want[i].op];
		assert_int_equal(want[i].op, want[i].value);
		assert_string_equal(b->name, want[i].name);
		assert_int_equal(b->hdr_bytes, want[i].hdr);
		/* the flags name exactly the extended headers counted */
		unsigned ext = (b->flags & SIM_PKT_RETH ? 16 : 0) + (b->flags & SIM_PKT_IMMDT ? 4 : 0) +
			       (b->flags & SIM_PKT_AETH ? 4 : 0) + (b->flags & SIM_PKT_ATMETH ? 28 : 0) +
			       (b->flags & SIM_PKT_ATMACK ? 8 : 0) + (b->flags & SIM_PKT_CNP ? 16 : 0);
		assert_int_equal(b->hdr_bytes, 12 + ext);
		/* a packet is exactly one of: first/last/only, middle */
		unsigned pos = b->flags & (SIM_PKT_FIRST | SIM_PKT_MIDDLE | SIM_PKT_LAST);
		assert_true(pos != 0);
		assert_true(!(pos & SIM_PKT_MIDDLE) || pos == SIM_PKT_MIDDLE);
		/* a request or a response, or else a CNP */
		assert_true((b->flags & SIM_PKT_CNP) ? !(b->flags & (SIM_PKT_REQ | SIM_PKT_RESP))
						     : !!(b->flags & SIM_PKT_REQ) != !!(b->flags & SIM_PKT_RESP));
	}
	/* which packets need a receive WQE (rxe RXE_RWR_MASK) */
	assert_true(sim_bth_info[SIM_BTH_SEND_FIRST].flags & SIM_PKT_RWQE);
	assert_false(sim_bth_info[SIM_BTH_SEND_MIDDLE].flags & SIM_PKT_RWQE);
	assert_false(sim_bth_info[SIM_BTH_WRITE_ONLY].flags & SIM_PKT_RWQE);
	assert_true(sim_bth_info[SIM_BTH_WRITE_ONLY_IMM].flags & SIM_PKT_RWQE);
	assert_true(sim_bth_info[SIM_BTH_WRITE_LAST_IMM].flags & SIM_PKT_RCQE);
	assert_false(sim_bth_info[SIM_BTH_ACK].flags & SIM_PKT_PAYLOAD);
	assert_false(sim_bth_info[SIM_BTH_READ_REQUEST].flags & SIM_PKT_PAYLOAD);
}

static void test_packet_bytes_rocev2(void **state)
{
	(void)state;
	/* Eth 14 + 802.1Q 4 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + 4096 + ICRC 4 + FCS 4 */
	assert_int_equal(sim_wire_frame_bytes(SIM_LINK_ROCEV2_IPV4, SIM_BTH_WRITE_ONLY, 4096),
			 14 + 4 + 20 + 8 + 12 + 16 + 4096 + 4 + 4); /* 4178 */
	/* + preamble/SFD 8 + IFG 12 */
	assert_int_equal(sim_wire_bytes(SIM_LINK_ROCEV2_IPV4, SIM_BTH_WRITE_ONLY, 4096),
			 14 + 4 + 20 + 8 + 12 + 16 + 4096 + 4 + 4 + 8 + 12); /* 4198 */
	assert_int_equal(sim_wire_frame_bytes(SIM_LINK_ROCEV2_IPV4_UNTAGGED, SIM_BTH_WRITE_ONLY, 4096),
			 14 + 20 + 8 + 12 + 16 + 4096 + 4 + 4); /* 4174 */
	assert_int_equal(sim_wire_bytes(SIM_LINK_ROCEV2_IPV6, SIM_BTH_WRITE_ONLY, 4096),
			 14 + 4 + 40 + 8 + 12 + 16 + 4096 + 4 + 4 + 8 + 12); /* 4218 */
	assert_int_equal(sim_wire_frame_bytes(SIM_LINK_ROCEV2_IPV6_UNTAGGED, SIM_BTH_WRITE_MIDDLE, 4096),
			 14 + 40 + 8 + 12 + 4096 + 4 + 4); /* 4178 */
	/* ACK: BTH + AETH, no payload */
	assert_int_equal(sim_wire_frame_bytes(SIM_LINK_ROCEV2_IPV4, SIM_BTH_ACK, 0),
			 14 + 4 + 20 + 8 + 12 + 4 + 4 + 4); /* 70 */
	assert_int_equal(sim_wire_bytes(SIM_LINK_ROCEV2_IPV4, SIM_BTH_ACK, 0),
			 14 + 4 + 20 + 8 + 12 + 4 + 4 + 4 + 8 + 12); /* 90 */
	/* the smallest RoCEv2 frame is above Ethernet's 64-byte minimum */
	assert_int_equal(sim_wire_frame_bytes(SIM_LINK_ROCEV2_IPV4_UNTAGGED, SIM_BTH_ACK, 0),
			 14 + 20 + 8 + 12 + 4 + 4 + 4); /* 66 */
	/* READ request: BTH + RETH; SEND_ONLY_IMM of 0 bytes: BTH + ImmDt */
	assert_int_equal(sim_wire_frame_bytes(SIM_LINK_ROCEV2_IPV4, SIM_BTH_READ_REQUEST, 0),
			 14 + 4 + 20 + 8 + 12 + 16 + 4 + 4); /* 82 */
	assert_int_equal(sim_wire_frame_bytes(SIM_LINK_ROCEV2_IPV4, SIM_BTH_SEND_ONLY_IMM, 0),
			 14 + 4 + 20 + 8 + 12 + 4 + 4 + 4); /* 70 */
	/* 1-byte payload padded to 4 (BTH PadCnt = 3) */
	assert_int_equal(sim_wire_frame_bytes(SIM_LINK_ROCEV2_IPV4, SIM_BTH_SEND_ONLY, 1),
			 14 + 4 + 20 + 8 + 12 + 1 + 3 + 4 + 4); /* 70 */
}

static void test_packet_bytes_ib(void **state)
{
	(void)state;
	/* LRH 8 + BTH 12 + RETH 16 + 4096 + ICRC 4 + VCRC 2; no preamble/IFG */
	assert_int_equal(sim_wire_bytes(SIM_LINK_IB, SIM_BTH_WRITE_ONLY, 4096),
			 8 + 12 + 16 + 4096 + 4 + 2); /* 4138 */
	assert_int_equal(sim_wire_bytes(SIM_LINK_IB_GRH, SIM_BTH_WRITE_ONLY, 4096),
			 8 + 40 + 12 + 16 + 4096 + 4 + 2); /* 4178 */
	assert_int_equal(sim_wire_bytes(SIM_LINK_IB, SIM_BTH_WRITE_ONLY_IMM, 4096),
			 8 + 12 + 16 + 4 + 4096 + 4 + 2); /* 4142 */
	assert_int_equal(sim_wire_bytes(SIM_LINK_IB, SIM_BTH_ACK, 0), 8 + 12 + 4 + 4 + 2); /* 30 */
	assert_int_equal(sim_wire_bytes(SIM_LINK_IB, SIM_BTH_SEND_ONLY, 1),
			 8 + 12 + 1 + 3 + 4 + 2); /* 30 */
	assert_int_equal(sim_wire_bytes(SIM_LINK_IB, SIM_BTH_READ_RESP_FIRST, 1024),
			 8 + 12 + 4 + 1024 + 4 + 2); /* 1054 */
	assert_int_equal(sim_wire_bytes(SIM_LINK_IB, SIM_BTH_READ_RESP_MIDDLE, 1024),
			 8 + 12 + 1024 + 4 + 2); /* 1050 */
	assert_int_equal(sim_wire_bytes(SIM_LINK_IB, SIM_BTH_COMPARE_SWAP, 0),
			 8 + 12 + 28 + 4 + 2); /* 54 */
	assert_int_equal(sim_wire_bytes(SIM_LINK_IB, SIM_BTH_ATOMIC_ACK, 0),
			 8 + 12 + 4 + 8 + 4 + 2); /* 38 */
	assert_int_equal(sim_wire_pad(0), 0);
	assert_int_equal(sim_wire_pad(1), 3);
	assert_int_equal(sim_wire_pad(2), 2);
	assert_int_equal(sim_wire_pad(3), 1);
	assert_int_equal(sim_wire_pad(4097), 3);
}

/* Segmentation at M = 1024 and 4096 of 0, 1, M, M+1, 10M bytes. */
static void test_segment(void **state)
{
	static const uint32_t mtus[] = {1024, 4096};
	(void)state;

	for (size_t k = 0; k < 2; k++) {
		uint32_t m = mtus[k];
		struct sim_wire_seg s;

		assert_int_equal(sim_wire_segment(SIM_MSG_WRITE, 0, m, &s), 0);
		assert_int_equal(s.npkts, 1); /* zero-length: one packet */
		assert_int_equal(s.first, SIM_BTH_WRITE_ONLY);
		assert_int_equal(s.last, SIM_BTH_WRITE_ONLY);
		assert_int_equal(s.last_payload, 0);

		assert_int_equal(sim_wire_segment(SIM_MSG_WRITE, 1, m, &s), 0);
		assert_int_equal(s.npkts, 1);
		assert_int_equal(s.first, SIM_BTH_WRITE_ONLY);
		assert_int_equal(s.last_payload, 1);

		assert_int_equal(sim_wire_segment(SIM_MSG_WRITE, m, m, &s), 0);
		assert_int_equal(s.npkts, 1);
		assert_int_equal(s.first, SIM_BTH_WRITE_ONLY);
		assert_int_equal(s.last_payload, m);

		assert_int_equal(sim_wire_segment(SIM_MSG_WRITE, m + 1, m, &s), 0);
		assert_int_equal(s.npkts, 2);
		assert_int_equal(s.first, SIM_BTH_WRITE_FIRST);
		assert_int_equal(s.last, SIM_BTH_WRITE_LAST);
		assert_int_equal(s.last_payload, 1);
		/* RoCEv2 IPv4 wire: per packet 14+4+20+8+12+4+4 = 66 frame + 20 gap;
		 * RETH 16 on the first; the 1-byte last padded by 3 */
		struct sim_wire_sum sum = sim_wire_msg_sum(SIM_LINK_ROCEV2_IPV4, &s);
		assert_int_equal(sum.pkts, 2);
		assert_int_equal(sum.payload, m + 1);
		assert_int_equal(sum.wire, (86 + 16 + m) + (86 + 1 + 3));

		assert_int_equal(sim_wire_segment(SIM_MSG_WRITE, 10 * (uint64_t)m, m, &s), 0);
		assert_int_equal(s.npkts, 10);
		assert_int_equal(s.first, SIM_BTH_WRITE_FIRST);
		assert_int_equal(s.middle, SIM_BTH_WRITE_MIDDLE);
		assert_int_equal(s.last, SIM_BTH_WRITE_LAST);
		assert_int_equal(s.last_payload, m);
		sum = sim_wire_msg_sum(SIM_LINK_ROCEV2_IPV4, &s);
		assert_int_equal(sum.wire, 10 * (uint64_t)m + 10 * 86 + 16); /* 41836 at 4096 */
		assert_int_equal(sum.frame, 10 * (uint64_t)m + 10 * 66 + 16);

		/* WITH_IMM: ImmDt only on the last (or only) packet */
		assert_int_equal(sim_wire_segment(SIM_MSG_WRITE_IMM, m + 1, m, &s), 0);
		assert_int_equal(s.first, SIM_BTH_WRITE_FIRST);
		assert_int_equal(s.last, SIM_BTH_WRITE_LAST_IMM);
		assert_int_equal(sim_wire_msg_sum(SIM_LINK_ROCEV2_IPV4, &s).wire,
				 (86 + 16 + m) + (86 + 4 + 1 + 3));
		assert_int_equal(sim_wire_segment(SIM_MSG_SEND_IMM, 0, m, &s), 0);
		assert_int_equal(s.first, SIM_BTH_SEND_ONLY_IMM);
		assert_int_equal(sim_wire_segment(SIM_MSG_SEND, 10 * (uint64_t)m, m, &s), 0);
		assert_int_equal(s.first, SIM_BTH_SEND_FIRST);
		assert_int_equal(s.middle, SIM_BTH_SEND_MIDDLE);
		assert_int_equal(s.last, SIM_BTH_SEND_LAST);

		/* READ responses over IB: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26 per
		 * packet, AETH 4 on the first and last */
		assert_int_equal(sim_wire_segment(SIM_MSG_READ_RESP, 10 * (uint64_t)m, m, &s), 0);
		assert_int_equal(s.first, SIM_BTH_READ_RESP_FIRST);
		assert_int_equal(s.last, SIM_BTH_READ_RESP_LAST);
		assert_int_equal(sim_wire_msg_sum(SIM_LINK_IB, &s).wire, 10 * (uint64_t)m + 10 * 26 + 2 * 4);
		assert_int_equal(sim_wire_segment(SIM_MSG_READ_RESP, 1, m, &s), 0);
		assert_int_equal(s.first, SIM_BTH_READ_RESP_ONLY);
	}
}

static void test_segment_invalid(void **state)
{
	struct sim_wire_seg s;
	(void)state;

	assert_int_equal(sim_wire_segment(SIM_MSG_WRITE, 10, 1000, &s), -EINVAL);
	assert_int_equal(sim_wire_segment(SIM_MSG_WRITE, 10, 8192, &s), -EINVAL);
	assert_int_equal(sim_wire_segment(SIM_MSG_WRITE, 10, 128, &s), -EINVAL);
	assert_int_equal(sim_wire_segment(SIM_MSG_COUNT, 10, 1024, &s), -EINVAL);
	assert_int_equal(sim_wire_segment(SIM_MSG_WRITE, SIM_MSG_MAX_BYTES + 1, 4096, &s), -EINVAL);
	assert_int_equal(sim_wire_segment(SIM_MSG_WRITE, SIM_MSG_MAX_BYTES, 4096, &s), 0);
	assert_int_equal(s.npkts, 524288); /* 2^31 / 2^12 */
	assert_int_equal(s.last_payload, 4096);
	assert_int_equal(sim_wire_msg_sum(SIM_LINK_IB, &s).payload, SIM_MSG_MAX_BYTES);
}

/* The closed-form sums equal a packet-by-packet walk, for every stream, link
 * and MTU, over lengths around the MTU boundaries. */
static void test_sum_matches_walk(void **state)
{
	static const uint32_t mtus[] = {256, 512, 1024, 2048, 4096};
	(void)state;

	for (int msg = 0; msg < SIM_MSG_COUNT; msg++)
		for (int link = 0; link < SIM_LINK_COUNT; link++)
			for (size_t k = 0; k < 5; k++) {
				uint32_t m = mtus[k];
				const uint64_t lens[] = {0, 1, 3, m - 1, m, m + 1, 2 * m, 2 * m + 5,
							 7 * m + 2, 33 * (uint64_t)m};
				for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
					struct sim_wire_seg s;
					struct sim_wire_sum w = {0};
					assert_int_equal(sim_wire_segment((enum sim_msg)msg, lens[j], m, &s), 0);
					for (uint32_t i = 0; i < s.npkts; i++) {
						uint32_t pay;
						enum sim_bth_op op = sim_wire_seg_pkt(&s, i, &pay);
						unsigned f = sim_bth_info[op].flags;
						/* position flags agree with the index */
						assert_true(!!(f & SIM_PKT_FIRST) == (i == 0));
						assert_true(!!(f & SIM_PKT_LAST) == (i == s.npkts - 1));
						w.pkts++;
						w.payload += pay;
						w.frame += sim_wire_frame_bytes((enum sim_link)link, op, pay);
						w.wire += sim_wire_bytes((enum sim_link)link, op, pay);
					}
					struct sim_wire_sum c = sim_wire_msg_sum((enum sim_link)link, &s);
					assert_int_equal(c.pkts, w.pkts);
					assert_int_equal(c.payload, lens[j]);
					assert_int_equal(c.payload, w.payload);
					assert_int_equal(c.frame, w.frame);
					assert_int_equal(c.wire, w.wire);
				}
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opcode_table),
		cmocka_unit_test(test_packet_bytes_rocev2),
		cmocka_unit_test(test_packet_bytes_ib),
		cmocka_unit_test(test_segment),
		cmocka_unit_test(test_segment_invalid),
		cmocka_unit_test(test_sum_matches_walk),
	};
	return cmocka_run_group_tests_name("sim_wire", tests, NULL, NULL);
}
