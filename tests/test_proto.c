/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_proto.c — the LL and LL128 protocols (core/proto.h):
 *   - the line formats byte by byte, written out here from NCCL's
 *     ncclLLFifoLine (data1 flag1 data2 flag2) and LL128's 120 + 8 layout;
 *   - every line checked before a read: one stale flag and the read waits;
 *   - the ring allreduce's wire bytes: per slice of m data bytes, LL sends
 *     ceil(m / 8) * 16 and LL128 ceil(m / 120) * 128, no flag WRITE with
 *     write_flag, and the receiver waits on its slot, not a CQE;
 *   - NCCL's default slots and chunks per protocol;
 *   - the simulator's protocol switch on ib-hdr, k = 8 (docs/schedule.md):
 *     LL and LL128 beat Simple on small messages (no completion or flag
 *     to wait for), Simple wins large ones (LL moves twice the bytes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <cmocka.h>

#include "core/algo.h"
#include "core/exec_common.h"
#include "core/exec_data.h"
#include "core/proto.h"
#include "core/word.h"
#include "sim/nccl_system.h"
#include "sim/params.h"
#include "tests/sim_sched.h"
#include "tests/run_status.h"

static void test_names_and_defaults(void **state)
{
	enum cc_proto p;

	(void)state;
	assert_int_equal(cc_proto_parse("ll128", &p), 0);
	assert_int_equal(p, CC_PROTO_LL128);
	assert_int_equal(cc_proto_parse("LL", &p), -EINVAL);
	/* NCCL: 4 MiB / 8 steps; 512 KiB of 16-byte lines / 8 steps, half
	 * data; 120 * 640 * 8 * 8 B of 128-byte lines / 8 steps, 120/128 data. */
	assert_int_equal(cc_proto_slot_bytes(CC_PROTO_SIMPLE), 524288);
	assert_int_equal(cc_proto_slot_bytes(CC_PROTO_LL), 32768);
	assert_int_equal(cc_proto_slot_bytes(CC_PROTO_LL128), 576000);
	assert_int_equal(cc_proto_chunk_bytes(CC_PROTO_SIMPLE), 4 * 524288);
	assert_int_equal(cc_proto_chunk_bytes(CC_PROTO_LL), 32768);
	assert_int_equal(cc_proto_chunk_bytes(CC_PROTO_LL128), 576000);
	assert_int_equal(cc_proto_wire_bytes(CC_PROTO_SIMPLE, 1000), 1000);
	assert_int_equal(cc_proto_wire_bytes(CC_PROTO_LL, 1), 16);
	assert_int_equal(cc_proto_wire_bytes(CC_PROTO_LL, 8), 16);
	assert_int_equal(cc_proto_wire_bytes(CC_PROTO_LL, 9), 32);
	assert_int_equal(cc_proto_wire_bytes(CC_PROTO_LL128, 120), 128);
	assert_int_equal(cc_proto_wire_bytes(CC_PROTO_LL128, 121), 256);
	assert_int_equal(cc_proto_wire_bytes(CC_PROTO_LL, 0), 0);
	/* the inverse: the data whole lines carry */
	assert_int_equal(cc_proto_line_data(CC_PROTO_SIMPLE, 1000), 1000);
	assert_int_equal(cc_proto_line_data(CC_PROTO_LL, 32), 16);
	assert_int_equal(cc_proto_line_data(CC_PROTO_LL, 40), 16); /* a part line: none */
	assert_int_equal(cc_proto_line_data(CC_PROTO_LL128, 614400), 576000);
	assert_int_equal(cc_proto_line_data(CC_PROTO_LL128, 19200), 18000);
	for (uint64_t m = 1; m < 1000; m += 7)
		for (int pr = 0; pr < CC_PROTO_COUNT; pr++)
			assert_true(cc_proto_line_data((enum cc_proto)pr,
						       cc_proto_wire_bytes((enum cc_proto)pr, m)) >= m);
}

static void test_ll_layout(void **state)
{
	uint8_t data[12], lines[32], back[12];

	(void)state;
	for (int i = 0; i < 12; i++)
		data[i] = (uint8_t)(0xa0 + i);
	memset(lines, 0xee, sizeof(lines));
	cc_proto_pack(CC_PROTO_LL, lines, data, 12, 0x01020304);
	/* Line 0: data1 = bytes 0..3, flag1, data2 = bytes 4..7, flag2;
	 * line 1: bytes 8..11, flag, then padding (zeros) and its flag. */
	const uint8_t want[32] = {
		0xa0, 0xa1, 0xa2, 0xa3, 0x04, 0x03, 0x02, 0x01,
		0xa4, 0xa5, 0xa6, 0xa7, 0x04, 0x03, 0x02, 0x01,
		0xa8, 0xa9, 0xaa, 0xab, 0x04, 0x03, 0x02, 0x01,
		0x00, 0x00, 0x00, 0x00, 0x04, 0x03, 0x02, 0x01,
	};
	assert_memory_equal(lines, want, 32);
	assert_true(cc_proto_lines_ready(CC_PROTO_LL, lines, 12, 0x01020304));
	cc_proto_unpack(CC_PROTO_LL, back, lines, 12);
	assert_memory_equal(back, data, 12);
	/* The wait word: the last half, >= flag << 32 whatever its data. */
	assert_int_equal(cc_proto_last_flag_offset(CC_PROTO_LL, 12), 24);
	assert_true(cc_word_load(lines + 24) >= cc_proto_flag_word(CC_PROTO_LL, 0x01020304));
	assert_false(cc_word_load(lines + 24) >= cc_proto_flag_word(CC_PROTO_LL, 0x01020305));
	/* One stale half (an older slice's flag) and the slice is not ready. */
	lines[12] = 0x03;
	assert_false(cc_proto_lines_ready(CC_PROTO_LL, lines, 12, 0x01020304));
}

static void test_ll128_layout(void **state)
{
	uint8_t data[130], lines[256], back[130];

	(void)state;
	for (int i = 0; i < 130; i++)
		data[i] = (uint8_t)i;
	cc_proto_pack(CC_PROTO_LL128, lines, data, 130, 7);
	assert_memory_equal(lines, data, 120);
	assert_int_equal(cc_word_load(lines + 120), 7);
	assert_memory_equal(lines + 128, data + 120, 10);
	for (int i = 138; i < 248; i++)
		assert_int_equal(lines[i], 0);
	assert_int_equal(cc_word_load(lines + 248), 7);
	assert_int_equal(cc_proto_last_flag_offset(CC_PROTO_LL128, 130), 248);
	assert_int_equal(cc_proto_flag_word(CC_PROTO_LL128, 7), 7);
	cc_proto_unpack(CC_PROTO_LL128, back, lines, 130);
	assert_memory_equal(back, data, 130);
	/* Packing without data (the simulator without --check): flags only. */
	cc_proto_pack(CC_PROTO_LL128, lines, NULL, 130, 8);
	assert_int_equal(lines[5], 0);
	assert_true(cc_proto_lines_ready(CC_PROTO_LL128, lines, 130, 8));
}

/* A reduce reading lines: waits (-EAGAIN, nothing written) until every
 * line carries its flag, then reduces; the copy it makes into a send slot
 * is in lines with the send's flag. */
static void test_calc_waits_for_every_line(void **state)
{
	float in[300], part[300], out[300];
	uint8_t slot[2 * 1200], send[2 * 1200]; /* LL: 1200 data bytes in 2400 B of lines */
	uint8_t *mem[4] = { (uint8_t *)in, (uint8_t *)out, slot, send };
	struct cc_op o = { .kind = CC_OP_REDUCE };

	(void)state;
	for (int i = 0; i < 300; i++) {
		in[i] = (float)i;
		part[i] = 0.5f * (float)i;
		out[i] = -1;
	}
	o.u.calc = (struct cc_op_calc){
		.nsrc = 2, .ndst = 2, .src = { { 2, 0 }, { 0, 0 } }, .dst = { { 1, 0 }, { 3, 0 } },
		.count = 300, .dtype = CC_FLOAT32, .redop = CC_SUM, .postdiv = 1,
		.proto = CC_PROTO_LL, .src_lines = 1, .dst_lines = 2, .src_flag = 5, .dst_flag = 9,
	};
	cc_proto_pack(CC_PROTO_LL, slot, (const uint8_t *)part, sizeof(part), 5);
	slot[sizeof(slot) / 2 + 4] = 4; /* a line in the middle still has the old flag */
	assert_int_equal(cc_exec_calc_host(&o, mem), -EAGAIN);
	for (int i = 0; i < 300; i++)
		assert_true(out[i] == -1);
	slot[sizeof(slot) / 2 + 4] = 5;
	assert_int_equal(cc_exec_calc_host(&o, mem), 0);
	for (int i = 0; i < 300; i++)
		assert_true(out[i] == 1.5f * (float)i);
	assert_true(cc_proto_lines_ready(CC_PROTO_LL, send, sizeof(part), 9));
	float back[300];
	cc_proto_unpack(CC_PROTO_LL, (uint8_t *)back, send, sizeof(part));
	assert_memory_equal(back, out, sizeof(out));
	assert_int_equal(cc_calc_operand_bytes(&o.u.calc, 0, 0), sizeof(slot));
	assert_int_equal(cc_calc_operand_bytes(&o.u.calc, 0, 1), sizeof(in));
	assert_int_equal(cc_calc_operand_bytes(&o.u.calc, 1, 1), sizeof(send));
}

static struct cc_schedule *build(enum cc_proto proto, enum cc_transport t, uint32_t k,
				 uint64_t count)
{
	struct cc_coll_params p;
	char err[200];

	cc_coll_params_default(&p);
	p.proto = proto;
	p.transport = t;
	p.nranks = k;
	p.count = count;
	cc_coll_params_fill(&p, 0, 0);
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	if (!s)
		fail_msg("%s", err);
	return s;
}

/* The ring allreduce's slices of rank r, in the closed form of runRing
 * (core/ring.c): per loop of k chunks of `real` elements, 2(k-1) sends of
 * one chunk each; each chunk goes in slices of at most `slot` elements. */
static uint64_t ring_wire_bytes(enum cc_proto proto, uint32_t k, uint32_t r, uint64_t n,
				uint64_t chunk, uint64_t slot)
{
	uint64_t total = 0;

	for (uint64_t off = 0; off < n; off += chunk * k) {
		uint64_t rest = n - off, real = chunk < (rest + k - 1) / k ? chunk : (rest + k - 1) / k;

		/* Rank r sends chunks r-1, ..., r+1 reducing (send,
		 * recvReduceSend), r (recvReduceCopySend), then r-1, ..., r+2
		 * (recvCopySend): every chunk twice but r and r+1, once. */
		for (uint32_t c = 0; c < k; c++) {
			uint64_t o = c * real, len = o < rest ? (rest - o < real ? rest - o : real) : 0;
			uint32_t times = c == r || c == (r + 1) % k ? 1 : 2;

			for (uint64_t d = 0; d < len; d += slot)
				total += times *
					 cc_proto_wire_bytes(proto, 4 * (len - d < slot ? len - d : slot));
		}
	}
	return total;
}

static void test_ring_wire_bytes(void **state)
{
	static const uint64_t counts[] = { 1, 7, 1031, 8193, 300001 };

	(void)state;
	for (int pr = CC_PROTO_LL; pr < CC_PROTO_COUNT; pr++)
		for (uint32_t k = 2; k <= 5; k++)
			for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
				struct cc_schedule *s = build(pr, CC_WRITE_FLAG, k, counts[i]);
				uint64_t chunk = s->params.chunk_bytes / 4;

				for (uint32_t r = 0; r < k; r++) {
					const struct cc_rank_sched *rs = &s->ranks[r];
					uint64_t want = ring_wire_bytes(pr, k, r, counts[i], chunk, chunk);
					uint32_t ctrl = 0, slot_waits = 0;

					assert_int_equal(cc_rank_data_bytes(rs), want);
					/* No flag WRITE: only the receiver's 8-byte credits. */
					for (uint32_t o = 0; o < rs->nops; o++) {
						const struct cc_op *op = &rs->ops[o];

						if (op->kind == CC_OP_POST_SEND &&
						    op->u.send.payload == CC_PAYLOAD_CTRL) {
							ctrl++;
							assert_int_equal(rs->bufs[rs->mrs[op->u.send.remote_mr].buf]
										 .role,
									 0 + CC_BUF_CTS);
						}
						if (op->kind == CC_OP_WAIT_MEM &&
						    rs->bufs[op->u.wait.buf].role == CC_BUF_RECV_STAGE)
							slot_waits++;
					}
					assert_true(ctrl > 0 && slot_waits > 0);
				}
				/* Every rank's output right, all lines checked. */
				struct cc_data_opts o = { .seed = 3, .order_seed = k };
				struct cc_data_result res;
				assert_int_equal(cc_data_run(s, &o, &res), 0);
				assert_run_status(res.err, CC_RUN_OK);
				assert_int_equal(res.wrong, 0);
				cc_data_result_free(&res);
				cc_schedule_free(s);
			}
}

/* write_imm with LL: the receive WQE and its CQE still come (the proxy
 * reposts), but the reduce waits for the slot's last line only. */
static void test_ll_reduce_waits_on_slot(void **state)
{
	struct cc_schedule *s = build(CC_PROTO_LL, CC_WRITE_IMM, 3, 4096);
	const struct cc_rank_sched *rs = &s->ranks[1];

	(void)state;
	for (uint32_t i = 0; i < rs->nops; i++) {
		const struct cc_op *o = &rs->ops[i];

		if ((o->kind != CC_OP_REDUCE && o->kind != CC_OP_COPY) || !o->u.calc.src_lines)
			continue;
		const uint32_t *d = cc_op_deps(rs, o);
		int on_slot = 0;

		for (uint32_t j = 0; j < o->ndeps; j++) {
			const struct cc_op *dep = &rs->ops[d[j]];

			assert_int_not_equal(dep->kind, CC_OP_POLL_CQ);
			on_slot |= dep->kind == CC_OP_WAIT_MEM &&
				   rs->bufs[dep->u.wait.buf].role == CC_BUF_RECV_STAGE;
		}
		assert_true(on_slot);
	}
	cc_schedule_free(s);
}

/* As `cclab sim -n 8 --fabric ib-hdr --topology star` builds it: with
 * NCCL's transport on that fabric (sim_nccl_transport_for: the adaptive
 * routing split on IB, the GDR flush on its A100s). */
static double sim_us(enum cc_proto proto, enum cc_transport t, uint64_t bytes)
{
	struct cc_coll_params p;
	struct cc_nccl_env e;
	struct sim_params f;

	cc_coll_params_default(&p);
	p.proto = proto;
	p.transport = t;
	p.nranks = 8;
	p.count = bytes / 4;
	assert_int_equal(sim_params_preset("ib-hdr", &f), 0);
	cc_nccl_env_init(&e);
	sim_nccl_transport_for(&p, &f, &e);
	assert_true(p.gdr_flush && p.ar_split);
	cc_coll_params_fill(&p, 0, 0);
	return sim_star_us(&p, "ib-hdr");
}

/* The figures of docs/schedule.md's protocol section, ib-hdr, k = 8. */
static void test_sim_protocol_switch(void **state)
{
	(void)state;
	for (int t = 0; t < CC_TRANSPORT_COUNT; t++) {
		double s8 = sim_us(CC_PROTO_SIMPLE, t, 8), l8 = sim_us(CC_PROTO_LL, t, 8);
		double m8 = sim_us(CC_PROTO_LL128, t, 8);
		double s2m = sim_us(CC_PROTO_SIMPLE, t, 8 << 20), l2m = sim_us(CC_PROTO_LL, t, 8 << 20);
		double m2m = sim_us(CC_PROTO_LL128, t, 8 << 20);

		print_message("%s: 8 B simple %.2f ll %.2f ll128 %.2f us; 8 MiB simple %.1f ll %.1f "
			      "ll128 %.1f us\n", cc_transport_name[t], s8, l8, m8, s2m, l2m, m2m);
		assert_true(l8 < s8 && m8 < s8);
		assert_true(s2m < m2m && m2m < l2m);
		/* LL moves twice the bytes: at 8 MiB it takes more than twice
		 * Simple's time (and its 32 KiB slots cost per-slice work). */
		assert_true(l2m > 2 * s2m);
	}
	/* write_flag pays a second WRITE and a CPU poll per slice; LL neither. */
	assert_true(sim_us(CC_PROTO_SIMPLE, CC_WRITE_FLAG, 8) -
			    sim_us(CC_PROTO_LL, CC_WRITE_FLAG, 8) >
		    5.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_defaults),
		cmocka_unit_test(test_ll_layout),
		cmocka_unit_test(test_ll128_layout),
		cmocka_unit_test(test_calc_waits_for_every_line),
		cmocka_unit_test(test_ring_wire_bytes),
		cmocka_unit_test(test_ll_reduce_waits_on_slot),
		cmocka_unit_test(test_sim_protocol_switch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
