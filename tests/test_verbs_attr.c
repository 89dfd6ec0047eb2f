/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_verbs_attr.c — the RC QP transition attributes
 * (backend/verbs_attr.c): masks and values for InfiniBand and RoCE as
 * NCCL's net_ib.cc sets them, the path MTU, what a schedule's QP and MRs
 * contribute, and every range check.  No device needed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "backend/verbs_attr.h"
#include "backend/verbs_dev.h"

static struct cc_verbs_peer peer(void)
{
	struct cc_verbs_peer p = { .qpn = 0x1234, .psn = 0xabcdef, .lid = 7 };

	for (int i = 0; i < 16; i++)
		p.gid.raw[i] = (uint8_t)(0xf0 + i);
	return p;
}

static void init_attrs(void **state)
{
	struct cc_verbs_qp_cfg c;
	struct ibv_qp_attr a;
	int mask;

	(void)state;
	cc_verbs_qp_cfg_default(&c);
	c.port_num = 2;
	assert_int_equal(cc_verbs_attr_init(&c, &a, &mask), 0);
	assert_int_equal(mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	assert_int_equal(a.qp_state, IBV_QPS_INIT);
	assert_int_equal(a.pkey_index, 0);
	assert_int_equal(a.port_num, 2);
	assert_int_equal(a.qp_access_flags, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
}

/* InfiniBand: the peer by LID and SL, no GRH. */
static void rtr_infiniband(void **state)
{
	struct cc_verbs_qp_cfg c;
	struct cc_verbs_peer p = peer();
	struct ibv_qp_attr a;
	int mask;

	(void)state;
	cc_verbs_qp_cfg_default(&c);
	c.sl = 3;
	assert_int_equal(cc_verbs_attr_rtr(&c, &p, &a, &mask), 0);
	assert_int_equal(mask, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER);
	assert_int_equal(a.qp_state, IBV_QPS_RTR);
	assert_int_equal(a.path_mtu, IBV_MTU_4096);
	assert_int_equal(a.dest_qp_num, 0x1234);
	assert_int_equal(a.rq_psn, 0xabcdef);
	assert_int_equal(a.max_dest_rd_atomic, 1);
	assert_int_equal(a.min_rnr_timer, 12);
	assert_int_equal(a.ah_attr.dlid, 7);
	assert_int_equal(a.ah_attr.sl, 3);
	assert_int_equal(a.ah_attr.is_global, 0);
	assert_int_equal(a.ah_attr.port_num, 1);
}

/* RoCE: a GRH with the peer's GID, our GID index, hop limit 255. */
static void rtr_roce(void **state)
{
	struct cc_verbs_qp_cfg c;
	struct cc_verbs_peer p = peer();
	struct ibv_qp_attr a;
	int mask;

	(void)state;
	cc_verbs_qp_cfg_default(&c);
	c.roce = true;
	c.sgid_index = 3;
	c.traffic_class = 106; /* DSCP 26 << 2 */
	p.lid = 0;             /* RoCE has none */
	assert_int_equal(cc_verbs_attr_rtr(&c, &p, &a, &mask), 0);
	assert_int_equal(a.ah_attr.is_global, 1);
	assert_memory_equal(a.ah_attr.grh.dgid.raw, p.gid.raw, 16);
	assert_int_equal(a.ah_attr.grh.sgid_index, 3);
	assert_int_equal(a.ah_attr.grh.hop_limit, 255);
	assert_int_equal(a.ah_attr.grh.traffic_class, 106);
	assert_int_equal(a.ah_attr.dlid, 0);
}

static void rts_attrs(void **state)
{
	struct cc_verbs_qp_cfg c;
	struct ibv_qp_attr a;
	int mask;

	(void)state;
	cc_verbs_qp_cfg_default(&c);
	c.sq_psn = 0x123456;
	assert_int_equal(cc_verbs_attr_rts(&c, &a, &mask), 0);
	assert_int_equal(mask, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	assert_int_equal(a.qp_state, IBV_QPS_RTS);
	assert_int_equal(a.sq_psn, 0x123456);
	assert_int_equal(a.timeout, 18);
	assert_int_equal(a.retry_cnt, 7);
	assert_int_equal(a.rnr_retry, 7);
	assert_int_equal(a.max_rd_atomic, 1);
}

/* The path MTU: the smaller of the port's and the one asked for. */
static void path_mtu(void **state)
{
	static const uint32_t bytes[] = {256, 512, 1024, 2048, 4096};
	struct cc_verbs_qp_cfg c;

	(void)state;
	cc_verbs_qp_cfg_default(&c);
	for (int i = 0; i < 5; i++) {
		enum ibv_mtu m = cc_verbs_mtu_from_bytes(bytes[i]);

		assert_int_equal(m, IBV_MTU_256 + i);
		assert_int_equal(cc_verbs_mtu_bytes(m), bytes[i]);
	}
	assert_int_equal(cc_verbs_mtu_from_bytes(1500), 0);
	assert_int_equal(cc_verbs_mtu_bytes((enum ibv_mtu)0), 0);
	assert_int_equal(cc_verbs_path_mtu(&c), IBV_MTU_4096);
	c.active_mtu = IBV_MTU_1024; /* a RoCE port on a 1500 B Ethernet MTU */
	assert_int_equal(cc_verbs_path_mtu(&c), IBV_MTU_1024);
	c.want_mtu_bytes = 4096;
	assert_int_equal(cc_verbs_path_mtu(&c), IBV_MTU_1024);
	c.active_mtu = IBV_MTU_4096;
	c.want_mtu_bytes = 2048;
	assert_int_equal(cc_verbs_path_mtu(&c), IBV_MTU_2048);
}

/* A schedule's QP gives its retry counts; its rank's MRs the access. */
static void from_schedule(void **state)
{
	struct cc_coll_params p;
	struct cc_verbs_qp_cfg c;

	(void)state;
	cc_coll_params_default(&p);
	struct cc_schedule *s = cc_schedule_new(&p);
	assert_non_null(s);
	struct cc_rank_sched *rs = &s->ranks[0];
	cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_HOST, CC_BUF_INPUT, 64, -1, 0 });
	cc_add_mr(rs, 0, CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_WRITE);
	cc_add_qp(rs, &(struct cc_qp){ .peer = 1, .retry_cnt = 5, .rnr_retry = 3 });
	cc_verbs_qp_cfg_for(rs, 0, &c);
	assert_int_equal(c.retry_cnt, 5);
	assert_int_equal(c.rnr_retry, 3);
	assert_int_equal(c.access, IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(c.max_dest_rd_atomic, 1);
	cc_add_mr(rs, 0, CC_ACCESS_REMOTE_READ | CC_ACCESS_REMOTE_ATOMIC);
	cc_verbs_qp_cfg_for(rs, 0, &c);
	assert_int_equal(c.access, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
					   IBV_ACCESS_REMOTE_ATOMIC);
	assert_int_equal(c.max_dest_rd_atomic, 16);
	assert_int_equal(c.max_rd_atomic, 1); /* it posts no READ */
	cc_add_op(rs, &(struct cc_op){ .kind = CC_OP_POST_SEND,
				       .u.send = { .qp = 0, .opcode = CC_WR_RDMA_READ } }, NULL, 0);
	cc_verbs_qp_cfg_for(rs, 0, &c);
	assert_int_equal(c.max_rd_atomic, 16);
	cc_schedule_free(s);
}

/* Every range check names its field, and nothing is built. */
static void spoil_and_check(const char *field, struct cc_verbs_qp_cfg c, struct cc_verbs_peer p)
{
	struct ibv_qp_attr a;
	const char *got;
	int mask = 99;

	assert_non_null(cc_verbs_cfg_invalid(&c, &p, &got));
	assert_string_equal(got, field);
	assert_int_equal(cc_verbs_attr_rtr(&c, &p, &a, &mask), -EINVAL);
	assert_int_equal(mask, 0);
}

static void range_checks(void **state)
{
	struct cc_verbs_qp_cfg c0, c;
	struct cc_verbs_peer p0 = peer(), p;
	const char *field;

	(void)state;
	cc_verbs_qp_cfg_default(&c0);
	assert_null(cc_verbs_cfg_invalid(&c0, &p0, &field));
	c = c0, p = p0, c.port_num = 0, spoil_and_check("port_num", c, p);
	c = c0, p = p0, c.active_mtu = (enum ibv_mtu)6, spoil_and_check("active_mtu", c, p);
	c = c0, p = p0, c.want_mtu_bytes = 1500, spoil_and_check("want_mtu_bytes", c, p);
	c = c0, p = p0, c.sq_psn = 1u << 24, spoil_and_check("sq_psn", c, p);
	c = c0, p = p0, c.access = IBV_ACCESS_LOCAL_WRITE, spoil_and_check("access", c, p);
	c = c0, p = p0, c.timeout = 32, spoil_and_check("timeout", c, p);
	c = c0, p = p0, c.retry_cnt = 8, spoil_and_check("retry_cnt", c, p);
	c = c0, p = p0, c.rnr_retry = 8, spoil_and_check("rnr_retry", c, p);
	c = c0, p = p0, c.min_rnr_timer = 32, spoil_and_check("min_rnr_timer", c, p);
	c = c0, p = p0, c.sl = 16, spoil_and_check("sl", c, p);
	c = c0, p = p0, p.qpn = 1u << 24, spoil_and_check("peer.qpn", c, p);
	c = c0, p = p0, p.psn = 1u << 24, spoil_and_check("peer.psn", c, p);
	c = c0, p = p0, p.lid = 0, spoil_and_check("peer.lid", c, p);
	/* LID 0 is fine on RoCE */
	c = c0, p = p0, c.roce = true, p.lid = 0;
	assert_null(cc_verbs_cfg_invalid(&c, &p, &field));
}

/* The default GID: RoCE v2 with an IPv4 address first, then any RoCE v2,
 * then RoCE v1; none on an InfiniBand port (addressed by LID). */
static void default_gid_choice(void **state)
{
	struct cc_verbs_port p = { .num = 1, .link_layer = IBV_LINK_LAYER_ETHERNET };
	char buf[64];

	(void)state;
	/* index 0: link-local fe80::, RoCE v1 and v2; index 2, 3: ::ffff:10.0.0.1 */
	p.gids[0] = (struct cc_verbs_gid){ .index = 0, .type = IBV_GID_TYPE_ROCE_V1 };
	p.gids[0].gid.raw[0] = 0xfe, p.gids[0].gid.raw[1] = 0x80, p.gids[0].gid.raw[15] = 1;
	p.gids[1] = p.gids[0], p.gids[1].index = 1, p.gids[1].type = IBV_GID_TYPE_ROCE_V2;
	p.gids[2] = (struct cc_verbs_gid){ .index = 2, .type = IBV_GID_TYPE_ROCE_V1 };
	p.gids[2].gid.raw[10] = p.gids[2].gid.raw[11] = 0xff;
	p.gids[2].gid.raw[12] = 10, p.gids[2].gid.raw[15] = 1;
	p.gids[3] = p.gids[2], p.gids[3].index = 3, p.gids[3].type = IBV_GID_TYPE_ROCE_V2;
	p.ngids = 4;
	assert_int_equal(cc_verbs_default_gid(&p), 3);
	cc_verbs_gid_str(&p.gids[3].gid, buf, sizeof(buf));
	assert_string_equal(buf, "::ffff:10.0.0.1");
	cc_verbs_gid_str(&p.gids[0].gid, buf, sizeof(buf));
	assert_string_equal(buf, "fe80:0000:0000:0000:0000:0000:0000:0001");
	p.ngids = 2; /* no IPv4 GID: the first v2 */
	assert_int_equal(cc_verbs_default_gid(&p), 1);
	p.ngids = 1; /* v1 only */
	assert_int_equal(cc_verbs_default_gid(&p), 0);
	p.ngids = 0;
	assert_int_equal(cc_verbs_default_gid(&p), -1);
	p.ngids = 4;
	p.link_layer = IBV_LINK_LAYER_INFINIBAND;
	assert_int_equal(cc_verbs_default_gid(&p), -1);
	assert_string_equal(cc_verbs_gid_type_name(IBV_GID_TYPE_ROCE_V2), "RoCE v2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_attrs),
		cmocka_unit_test(rtr_infiniband),
		cmocka_unit_test(rtr_roce),
		cmocka_unit_test(rts_attrs),
		cmocka_unit_test(path_mtu),
		cmocka_unit_test(from_schedule),
		cmocka_unit_test(range_checks),
		cmocka_unit_test(default_gid_choice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
