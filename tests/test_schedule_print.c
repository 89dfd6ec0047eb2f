/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_schedule_print.c — the schedule text format (docs/schedule.md)
 * and the primitive-step listing.
 *
 * Exact lines are pinned on purpose: the format is diffed by people and
 * scripts, so a change must show up here.  The per-step chunk numbers are
 * checked against NCCL's runRing (src/device/all_reduce.h, reduce_scatter.h,
 * all_gather.h) derived independently of core/ring.c: at step s, rank r of
 * a ring 0..k-1 handles chunk (r - 1 - s) mod k in allreduce and
 * reduce-scatter, and (r - s) mod k in all-gather.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/schedule_text.h"

#include "core/algo.h"
#include "core/schedule.h"


/* 0 for a size field means "the default". */
static struct cc_schedule *build(enum cc_coll coll, enum cc_transport t, uint32_t k,
				 uint64_t count, uint64_t slot_bytes, uint64_t chunk_bytes,
				 uint32_t nslots)
{
	struct cc_coll_params p;
	char err[256] = "";

	cc_coll_params_default(&p);
	p.coll = coll;
	p.transport = t;
	p.nranks = k;
	p.count = count;
	if (slot_bytes)
		p.slot_bytes = slot_bytes;
	if (chunk_bytes)
		p.chunk_bytes = chunk_bytes;
	if (nslots)
		p.nslots = nslots;
	struct cc_schedule *s = cc_build(&p, err, sizeof(err));
	if (!s)
		fail_msg("cc_build: %s", err);
	return s;
}

/* The first line of text that starts with prefix, without its newline,
 * or "" when there is none (so a miss fails assert_string_equal readably). */
static char line_buf[4096];
static const char *line_starting(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *p = text; *p;) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len >= n && !memcmp(p, prefix, n) && len < sizeof(line_buf)) {
			memcpy(line_buf, p, len);
			line_buf[len] = '\0';
			return line_buf;
		}
		p += len + (end != NULL);
	}
	return "";
}

static unsigned int count_lines(const char *text)
{
	unsigned int n = 0;
	for (; *text; text++)
		n += *text == '\n';
	return n;
}

static unsigned int count_prefix(const char *text, const char *prefix)
{
	unsigned int n = 0;
	size_t len = strlen(prefix);

	for (const char *p = text; *p;) {
		n += !strncmp(p, prefix, len);
		const char *end = strchr(p, '\n');
		if (!end)
			break;
		p = end + 1;
	}
	return n;
}

/* ---- the full dump ---- */

static void test_header(void **state)
{
	(void)state;
	struct cc_schedule *s = build(CC_ALLREDUCE, CC_WRITE_IMM, 2, 16, 0, 0, 0);
	char *out = schedule_text(cc_schedule_print, s, -1);

	assert_true(!strncmp(out, "schedule ", 9));
	assert_string_equal(line_starting(out, "schedule "),
			    "schedule format=5 coll=allreduce transport=write_imm ranks=2 "
			    "dtype=float redop=sum count=16 chunk_bytes=2097152 "
			    "slot_bytes=524288 slots=8 mem=gpu stage_mem=gpu");
	free(out);
	cc_schedule_free(s);

	struct cc_coll_params p;
	char err[128];
	cc_coll_params_default(&p);
	p.coll = CC_REDUCESCATTER;
	p.transport = CC_SEND_RECV;
	p.dtype = CC_FLOAT64;
	p.redop = CC_MAX;
	p.nranks = 3;
	p.count = 7;
	p.chunk_bytes = 64;
	p.slot_bytes = 16;
	p.nslots = 4;
	p.mem = CC_MEM_HOST;
	s = cc_build(&p, err, sizeof(err));
	assert_non_null(s);
	out = schedule_text(cc_schedule_print, s, 2);
	/* The header comes first, whichever rank is asked for. */
	assert_true(!strncmp(out, "schedule ", 9));
	assert_string_equal(line_starting(out, "schedule "),
			    "schedule format=5 coll=reducescatter transport=send_recv ranks=3 "
			    "dtype=double redop=max count=7 chunk_bytes=64 slot_bytes=16 slots=4 "
			    "mem=host stage_mem=host");
	/* Host buffers: reduce/copy run on the CPU. */
	assert_true(strstr(out, " on=cpu ") != NULL);
	assert_null(strstr(out, " on=gpu "));
	free(out);
	cc_schedule_free(s);
}

static void test_setup_lines(void **state)
{
	(void)state;
	struct cc_schedule *s = build(CC_ALLREDUCE, CC_WRITE_IMM, 2, 16, 0, 0, 0);
	char *out = schedule_text(cc_schedule_print, s, 0);
	static const char *const want[] = {
		"schedule format=5 coll=allreduce transport=write_imm ranks=2 dtype=float "
		"redop=sum count=16 chunk_bytes=2097152 slot_bytes=524288 slots=8 mem=gpu "
		"stage_mem=gpu",
		"r0 rank bufs=6 mrs=4 cqs=1 qps=2 ops=20",
		"r0 buf 0 role=input mem=gpu size=64 peer=- ch=0",
		"r0 buf 1 role=output mem=gpu size=64 peer=- ch=0",
		"r0 buf 2 role=send_stage mem=gpu size=256 peer=1 ch=0",
		"r0 buf 3 role=recv_stage mem=gpu size=256 peer=1 ch=0",
		"r0 buf 4 role=cts mem=host size=64 peer=1 ch=0",
		"r0 buf 5 role=flag mem=host size=64 peer=1 ch=0",
		"r0 mr 0 buf=2 access=LOCAL_WRITE",
		"r0 mr 1 buf=3 access=LOCAL_WRITE|REMOTE_WRITE",
		"r0 mr 2 buf=4 access=LOCAL_WRITE|REMOTE_WRITE",
		"r0 mr 3 buf=5 access=LOCAL_WRITE|REMOTE_WRITE",
		"r0 cq 0 depth=32",
		"r0 qp 0 peer=1 peer_qp=1 send_cq=0 recv_cq=0 max_send_wr=16 max_recv_wr=8 "
		"max_inline=64 retry_cnt=7 rnr_retry=7 ch=0",
		"r0 qp 1 peer=1 peer_qp=0 send_cq=0 recv_cq=0 max_send_wr=16 max_recv_wr=8 "
		"max_inline=64 retry_cnt=7 rnr_retry=7 ch=0",
	};
	/* Records come in this order, setup before ops. */
	const char *p = out;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		size_t n = strlen(want[i]);
		if (strncmp(p, want[i], n) || p[n] != '\n')
			fail_msg("line %zu: want \"%s\", got \"%.*s\"", i, want[i],
				 (int)strcspn(p, "\n"), p);
		p += n + 1;
	}
	assert_true(!strncmp(p, "r0 op 0 ", 8));
	free(out);
	cc_schedule_free(s);
}

/* The 2-rank write_imm allreduce of 16 floats is docs/schedule.md's worked
 * example, read op by op there against core/ring.c; here a line of each
 * kind, on both ranks. */
static void test_op_lines_write_imm(void **state)
{
	(void)state;
	struct cc_schedule *s = build(CC_ALLREDUCE, CC_WRITE_IMM, 2, 16, 0, 0, 0);
	char *out = schedule_text(cc_schedule_print, s, -1);

	assert_string_equal(line_starting(out, "r0 op 0 "),
			    "r0 op 0 post_recv qp=1 wr_id=0 sge=- deps=-");
	assert_string_equal(line_starting(out, "r0 op 1 "),
			    "r0 op 1 post_send qp=1 wr_id=1 opcode=RDMA_WRITE flags=SIGNALED|INLINE "
			    "sge=inline:8 remote=r1.mr2+0 inline=1 payload=ctrl deps=0 call=irecv");
	assert_string_equal(line_starting(out, "r0 op 2 "), "r0 op 2 doorbell qp=1 nwqe=1 deps=1");
	assert_string_equal(line_starting(out, "r0 op 3 "), "r0 op 3 poll_cq cq=0 wr_id=1 deps=2");
	/* The second CTS is unsignaled (only slot 0's is, as ncclIbPostFifo). */
	assert_string_equal(line_starting(out, "r0 op 5 "),
			    "r0 op 5 post_send qp=1 wr_id=5 opcode=RDMA_WRITE flags=INLINE "
			    "sge=inline:8 remote=r1.mr2+8 inline=2 payload=ctrl deps=4,2 call=irecv");
	assert_string_equal(line_starting(out, "r0 op 7 "),
			    "r0 op 7 copy src=b0+32 dst=b2+0 count=8 dtype=float redop=sum postdiv=1 "
			    "on=gpu warps=16 deps=- prim=send chunk=1 step=0 slice=0 ch=0");
	assert_string_equal(line_starting(out, "r0 op 8 "),
			    "r0 op 8 wait_mem word=b4+0 ge=1 deps=- prim=send chunk=1 step=0 slice=0 "
			    "ch=0");
	assert_string_equal(line_starting(out, "r0 op 9 "),
			    "r0 op 9 post_send qp=0 wr_id=9 opcode=RDMA_WRITE_WITH_IMM flags=SIGNALED "
			    "sge=mr0+0:32 remote=r1.mr1+0 imm=32 payload=data deps=7,8 prim=send "
			    "chunk=1 step=0 slice=0 ch=0 call=isend");
	assert_string_equal(line_starting(out, "r0 op 12 "),
			    "r0 op 12 poll_cq cq=0 wr_id=0 deps=0 prim=recvReduceCopySend chunk=0 "
			    "step=1 slice=0 ch=0");
	assert_string_equal(line_starting(out, "r0 op 13 "),
			    "r0 op 13 reduce src=b3+0,b0+0 dst=b1+0,b2+32 count=8 dtype=float "
			    "redop=sum postdiv=1 on=gpu warps=16 deps=12 prim=recvReduceCopySend chunk=0 "
			    "step=1 slice=0 ch=0");
	assert_string_equal(line_starting(out, "r1 op 19 "),
			    "r1 op 19 copy src=b3+32 dst=b1+0 count=8 dtype=float redop=sum "
			    "postdiv=1 on=gpu warps=16 deps=18 prim=recv chunk=0 step=2 slice=0 ch=0");
	/* The remote rank is the QP's peer: rank 1 writes back into rank 0. */
	assert_string_equal(line_starting(out, "r1 op 9 "),
			    "r1 op 9 post_send qp=0 wr_id=9 opcode=RDMA_WRITE_WITH_IMM flags=SIGNALED "
			    "sge=mr0+0:32 remote=r0.mr1+0 imm=32 payload=data deps=7,8 prim=send "
			    "chunk=0 step=0 slice=0 ch=0 call=isend");
	assert_int_equal(count_prefix(out, "r0 op "), s->ranks[0].nops);
	assert_int_equal(count_prefix(out, "r1 op "), s->ranks[1].nops);
	free(out);
	cc_schedule_free(s);
}

static void test_op_lines_send_recv(void **state)
{
	(void)state;
	struct cc_schedule *s = build(CC_ALLREDUCE, CC_SEND_RECV, 2, 16, 0, 0, 0);
	char *out = schedule_text(cc_schedule_print, s, 0);

	/* SEND lands in the receive WQE's SGE: the slot. */
	assert_string_equal(line_starting(out, "r0 op 0 "),
			    "r0 op 0 post_recv qp=1 wr_id=0 sge=mr1+0:32 deps=-");
	assert_string_equal(line_starting(out, "r0 op 4 "),
			    "r0 op 4 post_recv qp=1 wr_id=4 sge=mr1+32:32 deps=0");
	/* A SEND has no remote address and no immediate. */
	assert_string_equal(line_starting(out, "r0 op 9 "),
			    "r0 op 9 post_send qp=0 wr_id=9 opcode=SEND flags=SIGNALED sge=mr0+0:32 "
			    "payload=data deps=7,8 prim=send chunk=1 step=0 slice=0 ch=0 call=isend");
	free(out);
	cc_schedule_free(s);
}

static void test_op_lines_write_flag(void **state)
{
	(void)state;
	struct cc_schedule *s = build(CC_ALLREDUCE, CC_WRITE_FLAG, 2, 16, 0, 0, 0);
	char *out = schedule_text(cc_schedule_print, s, 0);

	/* No receive WQEs at all: the CTS is the first op. */
	assert_int_equal(count_prefix(out, "r0 op 0 post_send "), 1);
	assert_null(strstr(out, " post_recv "));
	assert_string_equal(line_starting(out, "r0 op 7 "),
			    "r0 op 7 post_send qp=0 wr_id=7 opcode=RDMA_WRITE flags=- sge=mr0+0:32 "
			    "remote=r1.mr1+0 payload=data deps=5,6 prim=send chunk=1 step=0 "
			    "slice=0 ch=0 call=isend");
	assert_string_equal(line_starting(out, "r0 op 8 "),
			    "r0 op 8 post_send qp=0 wr_id=8 opcode=RDMA_WRITE flags=SIGNALED|INLINE "
			    "sge=inline:8 remote=r1.mr3+0 inline=1 payload=ctrl deps=7 prim=send "
			    "chunk=1 step=0 slice=0 ch=0");
	assert_string_equal(line_starting(out, "r0 op 9 "),
			    "r0 op 9 doorbell qp=0 nwqe=2 deps=8 prim=send chunk=1 step=0 slice=0 "
			    "ch=0");
	/* Arrival is the flag word in memory, not a completion. */
	assert_string_equal(line_starting(out, "r0 op 11 "),
			    "r0 op 11 wait_mem word=b5+0 ge=1 deps=1 prim=recvReduceCopySend "
			    "chunk=0 step=1 slice=0 ch=0");
	free(out);
	cc_schedule_free(s);
}

static void test_rank_filter(void **state)
{
	(void)state;
	struct cc_schedule *s = build(CC_ALLGATHER, CC_WRITE_IMM, 3, 8, 0, 0, 0);
	char *all = schedule_text(cc_schedule_print, s, -1);
	char *one = schedule_text(cc_schedule_print, s, 1);
	char *none = schedule_text(cc_schedule_print, s, 3);

	/* rank 1 alone: the header and exactly rank 1's lines of the full dump. */
	unsigned int n1 = count_prefix(all, "r1 ");
	assert_true(n1 > 0);
	assert_int_equal(count_prefix(one, "r1 "), n1);
	assert_int_equal(count_lines(one), n1 + 1);
	assert_int_equal(count_prefix(one, "r0 ") + count_prefix(one, "r2 "), 0);
	const char *r1 = strstr(all, "\nr1 ");
	const char *r2 = strstr(all, "\nr2 ");
	assert_non_null(r1);
	assert_non_null(r2);
	assert_true(!strncmp(one + strcspn(one, "\n"), r1, (size_t)(r2 - r1)));
	assert_int_equal(count_lines(all), 1 + count_prefix(all, "r0 ") + n1 +
						   count_prefix(all, "r2 "));
	/* A rank that does not exist: the header only. */
	assert_int_equal(count_lines(none), 1);
	assert_true(!strncmp(none, "schedule ", 9));
	free(all);
	free(one);
	free(none);
	cc_schedule_free(s);
}

static void test_count_zero(void **state)
{
	(void)state;
	struct cc_schedule *s = build(CC_ALLREDUCE, CC_WRITE_IMM, 2, 0, 0, 0, 0);
	char *out = schedule_text(cc_schedule_print, s, -1);
	char *prims = schedule_text(cc_schedule_print_primitives, s, -1);

	assert_string_equal(line_starting(out, "r1 rank "), "r1 rank bufs=6 mrs=4 cqs=1 qps=2 ops=0");
	assert_string_equal(line_starting(out, "r0 buf 0 "), "r0 buf 0 role=input mem=gpu size=0 peer=- ch=0");
	assert_int_equal(count_prefix(out, "r0 op ") + count_prefix(out, "r1 op "), 0);
	assert_string_equal(prims, "");
	free(out);
	free(prims);
	cc_schedule_free(s);
}

/* ---- primitive steps ---- */

static void assert_text(const char *got, const char *want)
{
	if (strcmp(got, want))
		fail_msg("want:\n%sgot:\n%s", want, got);
}

static void test_prims_allreduce_k4(void **state)
{
	(void)state;
	struct cc_schedule *s = build(CC_ALLREDUCE, CC_WRITE_IMM, 4, 4096, 0, 0, 0);
	char *out = schedule_text(cc_schedule_print_primitives, s, 1);

	assert_text(out, "rank 1 channel 0 chunk 0 step 0 send\n"
			 "rank 1 channel 0 chunk 3 step 1 recvReduceSend\n"
			 "rank 1 channel 0 chunk 2 step 2 recvReduceSend\n"
			 "rank 1 channel 0 chunk 1 step 3 recvReduceCopySend\n"
			 "rank 1 channel 0 chunk 0 step 4 recvCopySend\n"
			 "rank 1 channel 0 chunk 3 step 5 recvCopySend\n"
			 "rank 1 channel 0 chunk 2 step 6 recv\n");
	free(out);
	cc_schedule_free(s);
}

static void test_prims_reducescatter_allgather_k4(void **state)
{
	(void)state;
	struct cc_schedule *s = build(CC_REDUCESCATTER, CC_SEND_RECV, 4, 1024, 0, 0, 0);
	char *out = schedule_text(cc_schedule_print_primitives, s, 1);

	assert_text(out, "rank 1 channel 0 chunk 0 step 0 send\n"
			 "rank 1 channel 0 chunk 3 step 1 recvReduceSend\n"
			 "rank 1 channel 0 chunk 2 step 2 recvReduceSend\n"
			 "rank 1 channel 0 chunk 1 step 3 recvReduceCopy\n");
	free(out);
	cc_schedule_free(s);

	s = build(CC_ALLGATHER, CC_WRITE_FLAG, 4, 1024, 0, 0, 0);
	out = schedule_text(cc_schedule_print_primitives, s, 1);
	assert_text(out, "rank 1 channel 0 chunk 1 step 0 copySend\n"
			 "rank 1 channel 0 chunk 0 step 1 recvCopySend\n"
			 "rank 1 channel 0 chunk 3 step 2 recvCopySend\n"
			 "rank 1 channel 0 chunk 2 step 3 recv\n");
	free(out);
	cc_schedule_free(s);
}

/* NCCL's primitive at step s of a loop with k ranks. */
static const char *nccl_prim(enum cc_coll coll, uint32_t k, uint32_t s)
{
	switch (coll) {
	case CC_ALLREDUCE:
		return s == 0 ? "send" :
		       s < k - 1 ? "recvReduceSend" :
		       s == k - 1 ? "recvReduceCopySend" :
		       s < 2 * k - 2 ? "recvCopySend" : "recv";
	case CC_REDUCESCATTER:
		return s == 0 ? "send" : s < k - 1 ? "recvReduceSend" : "recvReduceCopy";
	default:
		return s == 0 ? "copySend" : s < k - 1 ? "recvCopySend" : "recv";
	}
}

static uint32_t nccl_chunk(enum cc_coll coll, uint32_t k, uint32_t r, uint32_t s)
{
	int64_t c = (int64_t)r - (coll == CC_ALLGATHER ? 0 : 1) - s;
	return (uint32_t)(((c % k) + k) % k);
}

/* Every rank of every collective for k = 2..6, all three transports: one
 * line per step, NCCL's primitive and chunk, in step order. */
static void test_prims_match_nccl(void **state)
{
	(void)state;
	for (int coll = 0; coll <= CC_ALLGATHER; coll++)
		for (int t = 0; t < CC_TRANSPORT_COUNT; t++)
			for (uint32_t k = 2; k <= 6; k++) {
				struct cc_schedule *s = build((enum cc_coll)coll, (enum cc_transport)t,
							      k, 64 * k, 0, 0, 0);
				char *out = schedule_text(cc_schedule_print_primitives, s, -1);
				uint32_t nsteps = cc_ring_steps((enum cc_coll)coll, k);
				char *want = NULL;
				size_t wlen = 0;
				FILE *w = open_memstream(&want, &wlen);

				assert_non_null(w);
				for (uint32_t r = 0; r < k; r++)
					for (uint32_t st = 0; st < nsteps; st++)
						fprintf(w, "rank %u channel 0 chunk %u step %u %s\n", r,
							nccl_chunk((enum cc_coll)coll, k, r, st), st,
							nccl_prim((enum cc_coll)coll, k, st));
				assert_int_equal(fclose(w), 0);
				if (strcmp(out, want))
					fail_msg("%s %s k=%u\nwant:\n%sgot:\n%s", cc_coll_name[coll],
						 cc_transport_name[t], k, want, out);
				free(want);
				free(out);
				cc_schedule_free(s);
			}
}

static void test_prims_k1(void **state)
{
	(void)state;
	for (int coll = 0; coll <= CC_ALLGATHER; coll++) {
		struct cc_schedule *s = build((enum cc_coll)coll, CC_WRITE_IMM, 1, 100, 0, 0, 0);
		char *out = schedule_text(cc_schedule_print_primitives, s, -1);
		char *dump = schedule_text(cc_schedule_print, s, 0);

		assert_text(out, "rank 0 channel 0 chunk 0 step 0 copy\n");
		assert_string_equal(line_starting(dump, "r0 op 0 "),
				    "r0 op 0 copy src=b0+0 dst=b1+0 count=100 dtype=float redop=sum "
				    "postdiv=1 on=gpu warps=16 deps=- prim=copy chunk=0 step=0 slice=0 ch=0");
		assert_string_equal(line_starting(dump, "r0 rank "),
				    "r0 rank bufs=2 mrs=0 cqs=0 qps=0 ops=1");
		free(out);
		free(dump);
		cc_schedule_free(s);
	}
}

/* Several slices per chunk still make one step; several loops number their
 * chunks loop * k + chunk. */
static void test_prims_slices_and_loops(void **state)
{
	(void)state;
	/* 10 floats, chunk 2 elements, slot 1 element: loops at 0, 4, 8; the
	 * last loop's chunks are 1 element (min(chunk, ceil(rest / k))). */
	struct cc_schedule *s = build(CC_ALLREDUCE, CC_WRITE_IMM, 2, 10, 4, 8, 2);
	char *out = schedule_text(cc_schedule_print_primitives, s, 0);
	char *dump = schedule_text(cc_schedule_print, s, 0);

	assert_text(out, "rank 0 channel 0 chunk 1 step 0 send\n"
			 "rank 0 channel 0 chunk 0 step 1 recvReduceCopySend\n"
			 "rank 0 channel 0 chunk 1 step 2 recv\n"
			 "rank 0 channel 0 chunk 3 step 0 send\n"
			 "rank 0 channel 0 chunk 2 step 1 recvReduceCopySend\n"
			 "rank 0 channel 0 chunk 3 step 2 recv\n"
			 "rank 0 channel 0 chunk 5 step 0 send\n"
			 "rank 0 channel 0 chunk 4 step 1 recvReduceCopySend\n"
			 "rank 0 channel 0 chunk 5 step 2 recv\n");
	/* ...while the dump has both slices of the first send. */
	assert_true(strstr(dump, " prim=send chunk=1 step=0 slice=1 ch=0\n") != NULL);
	assert_null(strstr(dump, " prim=send chunk=5 step=0 slice=1 "));
	free(out);
	free(dump);
	cc_schedule_free(s);
}

/* A chunk with no elements has no ops, but NCCL still runs its step (with
 * nelem = 0): 3 floats over 4 ranks leave chunk 3 empty, and its steps are
 * listed all the same. */
static void test_prims_empty_chunk(void **state)
{
	(void)state;
	struct cc_schedule *s = build(CC_ALLREDUCE, CC_WRITE_IMM, 4, 3, 0, 0, 0);
	char *out = schedule_text(cc_schedule_print_primitives, s, 3);

	assert_text(out, "rank 3 channel 0 chunk 2 step 0 send\n"
			 "rank 3 channel 0 chunk 1 step 1 recvReduceSend\n"
			 "rank 3 channel 0 chunk 0 step 2 recvReduceSend\n"
			 "rank 3 channel 0 chunk 3 step 3 recvReduceCopySend\n"
			 "rank 3 channel 0 chunk 2 step 4 recvCopySend\n"
			 "rank 3 channel 0 chunk 1 step 5 recvCopySend\n"
			 "rank 3 channel 0 chunk 0 step 6 recv\n");
	free(out);
	cc_schedule_free(s);
}

/* ---- hand-made schedules: what the ring builder does not emit ---- */

static struct cc_schedule *two_rank_shell(void)
{
	struct cc_coll_params p;
	cc_coll_params_default(&p);
	struct cc_schedule *s = cc_schedule_new(&p);
	assert_non_null(s);
	for (uint32_t r = 0; r < 2; r++) {
		struct cc_rank_sched *rs = &s->ranks[r];
		cc_add_buffer(rs, &(struct cc_buffer){ CC_MEM_HOST, CC_BUF_INPUT, 4096, -1, 0 });
		cc_add_mr(rs, 0, CC_ACCESS_LOCAL_WRITE | CC_ACCESS_REMOTE_READ |
					 CC_ACCESS_REMOTE_ATOMIC | 0x40);
		cc_add_mr(rs, 0, 0);
		cc_add_cq(rs, 4);
		cc_add_qp(rs, &(struct cc_qp){ .peer = 1 - r, .peer_qp = 0, .max_send_wr = 4,
					       .max_recv_wr = 4, .max_inline = 0, .retry_cnt = 3,
					       .rnr_retry = 0, .channel = 1 });
	}
	return s;
}

static void test_handmade_ops(void **state)
{
	(void)state;
	struct cc_schedule *s = two_rank_shell();
	struct cc_rank_sched *rs = &s->ranks[0];
	uint32_t d[] = { 0, 1 };

	struct cc_op op = { .kind = CC_OP_POST_SEND };
	op.u.send = (struct cc_op_send){ .qp = 0, .wr_id = 7, .opcode = CC_WR_ATOMIC_CMP_SWP,
					 .flags = CC_SEND_SIGNALED | CC_SEND_FENCE, .num_sge = 1,
					 .sge = { 0, 8, 8 }, .remote_mr = 0, .remote_offset = 16,
					 .compare_add = 5, .swap = 9, .payload = CC_PAYLOAD_CTRL };
	cc_add_op(rs, &op, NULL, 0);
	op.u.send = (struct cc_op_send){ .qp = 0, .wr_id = 8, .opcode = CC_WR_ATOMIC_FETCH_ADD,
					 .flags = 0x10, .num_sge = 1, .sge = { 1, 0, 8 },
					 .compare_add = 1 };
	cc_add_op(rs, &op, d, 1);
	op.u.send = (struct cc_op_send){ .qp = 0, .wr_id = 9, .opcode = CC_WR_RDMA_READ,
					 .flags = CC_SEND_SIGNALED, .num_sge = 1, .sge = { 0, 0, 64 },
					 .remote_mr = 1, .remote_offset = 128 };
	cc_add_op(rs, &op, d, 2);
	op.u.send = (struct cc_op_send){ .qp = 0, .wr_id = 10, .opcode = CC_WR_SEND_WITH_IMM,
					 .num_sge = 0, .imm = 0xffffffffu };
	cc_add_op(rs, &op, NULL, 0);
	/* A reduce into one destination with an avg divisor, tagged with a
	 * channel and a thread group other than 0. */
	op = (struct cc_op){ .kind = CC_OP_REDUCE,
			     .tag = { .prim = CC_PRIM_RECV_REDUCE_COPY, .channel = 1, .chunk = 4,
				      .step = 2, .slice = 3, .group = 1 } };
	op.u.calc = (struct cc_op_calc){ .nsrc = 2, .ndst = 1, .src = { { 0, 0 }, { 0, 64 } },
					 .dst = { { 0, 128 } }, .count = 16, .dtype = CC_BFLOAT16,
					 .redop = CC_AVG, .postdiv = 2, .where = CC_ON_CPU };
	cc_add_op(rs, &op, d, 2);
	/* An opcode outside the table still prints. */
	op = (struct cc_op){ .kind = CC_OP_POST_SEND };
	op.u.send = (struct cc_op_send){ .qp = 0, .wr_id = 11, .opcode = CC_OPCODE_COUNT };
	cc_add_op(rs, &op, NULL, 0);

	char *out = schedule_text(cc_schedule_print, s, 0);
	assert_string_equal(line_starting(out, "r0 mr 0 "),
			    "r0 mr 0 buf=0 access=LOCAL_WRITE|REMOTE_READ|REMOTE_ATOMIC|0x40");
	assert_string_equal(line_starting(out, "r0 mr 1 "), "r0 mr 1 buf=0 access=-");
	assert_string_equal(line_starting(out, "r0 cq 0 "), "r0 cq 0 depth=4");
	assert_string_equal(line_starting(out, "r0 qp 0 "),
			    "r0 qp 0 peer=1 peer_qp=0 send_cq=0 recv_cq=0 max_send_wr=4 "
			    "max_recv_wr=4 max_inline=0 retry_cnt=3 rnr_retry=0 ch=1");
	assert_string_equal(line_starting(out, "r0 buf 0 "),
			    "r0 buf 0 role=input mem=host size=4096 peer=- ch=0");
	assert_string_equal(line_starting(out, "r0 op 0 "),
			    "r0 op 0 post_send qp=0 wr_id=7 opcode=ATOMIC_CMP_SWP "
			    "flags=SIGNALED|FENCE sge=mr0+8:8 remote=r1.mr0+16 compare=5 swap=9 "
			    "payload=ctrl deps=-");
	assert_string_equal(line_starting(out, "r0 op 1 "),
			    "r0 op 1 post_send qp=0 wr_id=8 opcode=ATOMIC_FETCH_ADD flags=0x10 "
			    "sge=mr1+0:8 remote=r1.mr0+0 add=1 payload=data deps=0");
	assert_string_equal(line_starting(out, "r0 op 2 "),
			    "r0 op 2 post_send qp=0 wr_id=9 opcode=RDMA_READ flags=SIGNALED "
			    "sge=mr0+0:64 remote=r1.mr1+128 payload=data deps=0,1");
	assert_string_equal(line_starting(out, "r0 op 3 "),
			    "r0 op 3 post_send qp=0 wr_id=10 opcode=SEND_WITH_IMM flags=- sge=- "
			    "imm=4294967295 payload=data deps=-");
	assert_string_equal(line_starting(out, "r0 op 4 "),
			    "r0 op 4 reduce src=b0+0,b0+64 dst=b0+128 count=16 dtype=bfloat16 "
			    "redop=avg postdiv=2 on=cpu deps=0,1 prim=recvReduceCopy chunk=4 "
			    "step=2 slice=3 ch=1 group=1");
	assert_string_equal(line_starting(out, "r0 op 5 "),
			    "r0 op 5 post_send qp=0 wr_id=11 opcode=? flags=- sge=- remote=r1.mr0+0 "
			    "payload=data deps=-");
	free(out);
	cc_schedule_free(s);
}


/* ---- the grammar, over every builder output ---- */

/* Keys of each record, in print order; an op's optional keys may be
 * missing but never reordered.  "!" marks a required key. */
static const char *const header_keys[] = { "!format", "!coll", "!transport", "!ranks", "!dtype",
					   "!redop", "!count", "!chunk_bytes", "!slot_bytes",
					   "!slots", "!mem", "!stage_mem", NULL };
static const char *const rank_keys[] = { "!bufs", "!mrs", "!cqs", "!qps", "!ops", NULL };
static const char *const buf_keys[] = { "!role", "!mem", "!size", "!peer", "!ch", NULL };
static const char *const mr_keys[] = { "!buf", "!access", NULL };
static const char *const cq_keys[] = { "!depth", NULL };
static const char *const qp_keys[] = { "!peer",	       "!peer_qp",     "!send_cq",   "!recv_cq",
				       "!max_send_wr", "!max_recv_wr", "!max_inline", "!retry_cnt",
				       "!rnr_retry",   "!ch",	       "members",    NULL };
static const char *const tag_keys[] = { "prim", "chunk", "step", "slice", "ch" };
#define OP_KEYS(...) { __VA_ARGS__, "!deps", "prim", "chunk", "step", "slice", "ch", "group", "call", NULL }
static const char *const op_keys[CC_OP_KIND_COUNT][24] = {
	[CC_OP_POST_RECV] = OP_KEYS("!qp", "!wr_id", "!sge"),
	[CC_OP_POST_SEND] = OP_KEYS("!qp", "!wr_id", "!opcode", "!flags", "!sge", "remote", "reduce", "imm",
				    "inline", "add", "compare", "swap", "!payload"),
	[CC_OP_DOORBELL] = OP_KEYS("!qp", "!nwqe"),
	[CC_OP_POLL_CQ] = OP_KEYS("!cq", "!wr_id"),
	[CC_OP_WAIT_MEM] = OP_KEYS("!word", "!ge"),
	[CC_OP_REDUCE] = OP_KEYS("!src", "!dst", "!count", "!dtype", "!redop", "!postdiv", "!on", "warps"),
	[CC_OP_COPY] = OP_KEYS("!src", "!dst", "!count", "!dtype", "!redop", "!postdiv", "!on", "warps"),
};

/* Checks "k=v k=v ..." (line after the record prefix) against keys. */
static void check_keys(const char *line, const char *rest, const char *const *keys, int is_op)
{
	char buf[1024];
	size_t ki = 0;
	int ntag = 0;

	assert_true(strlen(rest) < sizeof(buf));
	strcpy(buf, rest);
	for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq || eq == tok || !eq[1] || strchr(eq + 1, '='))
			fail_msg("not key=value: \"%s\" in \"%s\"", tok, line);
		*eq = '\0';
		while (keys[ki] && strcmp(keys[ki] + (keys[ki][0] == '!'), tok)) {
			if (keys[ki][0] == '!')
				fail_msg("missing %s before %s in \"%s\"", keys[ki] + 1, tok, line);
			ki++;
		}
		if (!keys[ki])
			fail_msg("unexpected or misplaced key %s in \"%s\"", tok, line);
		for (size_t t = 0; is_op && t < sizeof(tag_keys) / sizeof(tag_keys[0]); t++)
			ntag += !strcmp(tok, tag_keys[t]);
		ki++;
	}
	for (; keys[ki]; ki++)
		if (keys[ki][0] == '!')
			fail_msg("missing %s in \"%s\"", keys[ki] + 1, line);
	/* The tag is all or nothing. */
	if (ntag != 0 && ntag != 5)
		fail_msg("partial tag in \"%s\"", line);
}

static void check_grammar(const struct cc_schedule *s, const char *text)
{
	uint32_t rank = 0, nops = 0, nrecords = 0;
	int seen_rank = 0;
	char line[1024];

	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		assert_true(p[len] == '\n');
		assert_true(len > 0 && len < sizeof(line));
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + 1;

		if (!nrecords++) {
			assert_true(!strncmp(line, "schedule ", 9));
			check_keys(line, line + 9, header_keys, 0);
			continue;
		}
		unsigned int r, idx;
		int n = 0;
		char rec[16];
		assert_int_equal(sscanf(line, "r%u %15s %n", &r, rec, &n), 2);
		assert_true(n > 0);
		if (!strcmp(rec, "rank")) {
			assert_true(!seen_rank || r == rank + 1);
			if (seen_rank)
				assert_int_equal(nops, s->ranks[rank].nops);
			rank = r;
			nops = 0;
			seen_rank = 1;
			check_keys(line, line + n, rank_keys, 0);
			continue;
		}
		assert_true(seen_rank && r == rank);
		int m = 0;
		assert_int_equal(sscanf(line + n, "%u %n", &idx, &m), 1);
		const char *rest = line + n + m;
		if (!strcmp(rec, "buf")) {
			check_keys(line, rest, buf_keys, 0);
		} else if (!strcmp(rec, "mr")) {
			check_keys(line, rest, mr_keys, 0);
		} else if (!strcmp(rec, "cq")) {
			check_keys(line, rest, cq_keys, 0);
		} else if (!strcmp(rec, "qp")) {
			check_keys(line, rest, qp_keys, 0);
		} else if (!strcmp(rec, "op")) {
			assert_int_equal(idx, nops);
			nops++;
			int kind = -1;
			for (int k = 0; k < CC_OP_KIND_COUNT; k++) {
				size_t kl = strlen(cc_op_kind_name[k]);
				if (!strncmp(rest, cc_op_kind_name[k], kl) && rest[kl] == ' ')
					kind = k;
			}
			if (kind < 0)
				fail_msg("unknown op kind in \"%s\"", line);
			check_keys(line, rest + strlen(cc_op_kind_name[kind]) + 1, op_keys[kind], 1);
		} else {
			fail_msg("unknown record in \"%s\"", line);
		}
	}
	assert_true(seen_rank);
	assert_int_equal(rank, s->nranks - 1);
	assert_int_equal(nops, s->ranks[rank].nops);
}

static void test_grammar(void **state)
{
	(void)state;
	static const uint32_t ks[] = { 1, 2, 3, 5 };
	static const uint64_t counts[] = { 0, 1, 7, 100 };

	for (int coll = 0; coll <= CC_ALLGATHER; coll++)
		for (int t = 0; t < CC_TRANSPORT_COUNT; t++)
			for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
				for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
					/* Small slots and chunks: several slices and loops. */
					struct cc_schedule *s =
						build((enum cc_coll)coll, (enum cc_transport)t, ks[ki],
						      counts[ci], 8, 24, 3);
					char *out = schedule_text(cc_schedule_print, s, -1);
					check_grammar(s, out);
					free(out);
					cc_schedule_free(s);
				}
}

/* Printing twice gives the same bytes (no hidden state, no addresses). */
static void test_stable(void **state)
{
	(void)state;
	struct cc_schedule *a = build(CC_ALLREDUCE, CC_WRITE_FLAG, 3, 1000, 256, 768, 2);
	struct cc_schedule *b = build(CC_ALLREDUCE, CC_WRITE_FLAG, 3, 1000, 256, 768, 2);
	char *x = schedule_text(cc_schedule_print, a, -1);
	char *y = schedule_text(cc_schedule_print, b, -1);
	char *z = schedule_text(cc_schedule_print, a, -1);

	assert_string_equal(x, y);
	assert_string_equal(x, z);
	free(x);
	free(y);
	free(z);
	cc_schedule_free(a);
	cc_schedule_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_setup_lines),
		cmocka_unit_test(test_op_lines_write_imm),
		cmocka_unit_test(test_op_lines_send_recv),
		cmocka_unit_test(test_op_lines_write_flag),
		cmocka_unit_test(test_rank_filter),
		cmocka_unit_test(test_count_zero),
		cmocka_unit_test(test_prims_allreduce_k4),
		cmocka_unit_test(test_prims_reducescatter_allgather_k4),
		cmocka_unit_test(test_prims_match_nccl),
		cmocka_unit_test(test_prims_k1),
		cmocka_unit_test(test_prims_slices_and_loops),
		cmocka_unit_test(test_prims_empty_chunk),
		cmocka_unit_test(test_handmade_ops),
		cmocka_unit_test(test_grammar),
		cmocka_unit_test(test_stable),
	};
	return cmocka_run_group_tests_name("schedule_print", tests, NULL, NULL);
}
