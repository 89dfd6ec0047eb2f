/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/two_ranks.h — the two-rank schedule the executor tests post verbs
 * on by hand: rank 0 has a 64-byte source buffer (MR 0, LOCAL_WRITE) and
 * a result word (MR 1); rank 1 a 64-byte target buffer (MR 0, `access`)
 * and a word beside it (MR 1).  One RC QP each, connected; one CQ each; no
 * collective (count 0: nothing for the checker to compare).  Include after
 * <cmocka.h> and core/schedule.h. */
#ifndef CCLAB_TESTS_TWO_RANKS_H
#define CCLAB_TESTS_TWO_RANKS_H

static inline struct cc_schedule *two_ranks(uint32_t access, uint8_t rnr_retry)
{
	struct cc_coll_params p;

	cc_coll_params_default(&p);
	p.nranks = 2;
	struct cc_schedule *s = cc_schedule_new(&p);
	assert_non_null(s);
	for (uint32_t r = 0; r < 2; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];

		cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_HOST,
						       r ? CC_BUF_OUTPUT : CC_BUF_INPUT, 64, -1, 0 });
		cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_HOST, CC_BUF_OUTPUT, 8, -1, 0 });
		cc_add_mr(rs, 0, r ? access : CC_ACCESS_LOCAL_WRITE);
		cc_add_mr(rs, 1, CC_ACCESS_LOCAL_WRITE);
		cc_add_cq(rs, 16);
		cc_add_qp(rs, &(struct cc_qp){ .peer = 1 - r, .peer_qp = 0, .max_send_wr = 4,
					       .max_recv_wr = 4, .max_inline = 64, .retry_cnt = 7,
					       .rnr_retry = rnr_retry });
	}
	return s;
}

#endif /* CCLAB_TESTS_TWO_RANKS_H */
