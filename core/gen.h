/* SPDX-License-Identifier: BSD-3-Clause */
/* core/gen.h — a schedule generated as it runs.
 *
 * A built schedule holds every op of every rank before the run: a ring
 * allreduce's 2k(k-1) steps make it grow as k^2.  A generated one holds
 * every rank's resources (buffers, MRs, CQs, QPs) and makes each rank's ops
 * when the executor asks, step by step, with the same indices,
 * dependencies and contents as the built schedule's (tests/test_gen.c
 * checks them op for op).  The executor gives back what it is done with,
 * so only ops in flight take memory.
 *
 * Index space.  A rank's ops are numbered as in the built schedule: first
 * the invitations of its first slots (stream 0, made at once), then the
 * algorithm's streams (core/algo_int.h struct cc_gen_walk): the ring's
 * channels in channel order (stream 1 + c), the tree's and CollNetChain's
 * one walk of chunks.  Streams run at once, so each is made on its own, into its own
 * range of indices, which a dry run that counts every rank's ops fixes up
 * front.  The ops are in blocks of CC_OPBLK (cc_rank_sched.opblk), taken
 * from a pool as they are made and given back to it once all of a block's
 * ops are dropped, so an executor reads cc_rank_op(rs, i) either way; an
 * op not made yet, or in a block given back, reads as zeros.  The
 * dependency array is address space reserved for all of them (mmap,
 * MAP_NORESERVE): a dependency is at its index, as in a built schedule;
 * pages given back are zero again.
 *
 * What is generated: the ring (allreduce, reduce-scatter, all-gather,
 * broadcast, reduce), the tree (allreduce, broadcast, reduce, on ranks or
 * on nodes) and CollNetChain on two ranks or more, every protocol and
 * transport, channels, QPs per connection; each rank's streams use
 * connections of their own, so a stream's ops depend on its own state
 * alone (and the walk's own, which the generator keeps per rank).  None of
 * them posts atomics (sim/rnic_flow.c need not look for any).  The other
 * algorithms are built (cc_gen_supported()).
 */
#ifndef CCLAB_CORE_GEN_H
#define CCLAB_CORE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

struct cc_gen;

/* Room a rank's dependency array keeps past its last dependency:
 * cc_add_op() wants room for every dependency it is handed before it
 * drops duplicates (sim/exec_gen.c weighs it too). */
#define CC_GEN_DEP_SLACK 64u

/* Whether p's schedule can be generated (p as cc_build_with() takes it). */
bool cc_gen_supported(const struct cc_coll_params *p);

/* Rank r's stream j (0 .. cc_gen_streams() - 1): ops [first, end), made
 * below `made`; its dependencies from dep_first, made below dep_made. */
struct cc_gen_stream {
	uint32_t first, end, made;
	uint32_t dep_first, dep_made;
	uint32_t dropped;   /* ops below it given back (cc_gen_drop) */
	uint64_t step, nsteps;
};

/* The schedule of p (its chunk as cc_build_with() applies it), generated:
 * every rank's resources; nops and ndeps the totals, ops and deps reserved
 * (s->gen set).  NULL with errno and a message: ENOMEM, or EOVERFLOW when
 * LL's flags would repeat (as cc_build()). */
struct cc_schedule *cc_gen_build(const struct cc_coll_params *p, char *err, size_t errlen);
/* What cc_schedule_free() does with a generated schedule's op arrays and
 * generator. */
void cc_gen_free(struct cc_schedule *s);

uint32_t cc_gen_streams(const struct cc_gen *g);
/* The window an executor should start with (ops made ahead of a stream's
 * oldest op not done), where the algorithm has one: 0 for its own. */
uint32_t cc_gen_window(const struct cc_gen *g);
const struct cc_gen_stream *cc_gen_stream(const struct cc_gen *g, uint32_t r, uint32_t j);
/* The stream of rank r that op i is in. */
uint32_t cc_gen_stream_of(const struct cc_gen *g, uint32_t r, uint32_t i);
/* Makes the next step's ops of rank r's stream j: 1, 0 when it has none
 * left, or -ENOMEM (no block for them: the stream is then unusable). */
int cc_gen_next(struct cc_gen *g, uint32_t r, uint32_t j);
/* Gives back rank r's stream j below op `upto` (its ops' blocks, once a
 * block's ops are all given back, and its dependencies' pages), which the
 * caller will not read again. */
void cc_gen_drop(struct cc_gen *g, uint32_t r, uint32_t j, uint32_t upto);
/* Whether rank rs's op block b (ops b * CC_OPBLK on) is held: from when
 * its first op is made (a rewind keeps it) until all its ops are given
 * back, whichever streams they are in (an executor's own per-op state
 * follows it). */
bool cc_gen_block_held(const struct cc_rank_sched *rs, uint32_t b);

/* Where cc_add_op() writes op i of a generated rank (v: the rank's view
 * as the generator hands it out), taking its block from the pool if it
 * has none; NULL when out of memory. */
struct cc_op *cc_gen_op_slot(struct cc_rank_sched *v, uint32_t i);

/* Back to where cc_gen_build() left it: every stream but 0 unmade (a run
 * that starts again). */
void cc_gen_rewind(struct cc_gen *g);
/* Calls fn for each op of rank r in index order, made for the purpose a
 * step at a time (a step's ops in memory) and leaving the streams as they
 * are: what a scan of a built schedule's ops finds (an op's dependencies
 * are not there to read).  0 or -ENOMEM. */
int cc_gen_scan(struct cc_gen *g, uint32_t r, void (*fn)(void *ctx, const struct cc_op *o),
		void *ctx);

/* Address space for n elements of `size` bytes, zero, taking memory only
 * as pages are written (NULL: none); cc_span_drop() gives back the pages
 * that elements [from, to) complete, none below element `floor` (where
 * the range's owner starts: a page it shares with what is before stays),
 * cc_span_free() all of it.  A span of less than a page is plain heap
 * memory: a page of its own would waste the rest of it (16384 ranks of
 * a tree have a few dozen ops each, in a score of arrays). */
void *cc_span_new(size_t n, size_t size);
void cc_span_drop(void *p, size_t size, size_t floor, size_t from, size_t to);
void cc_span_free(void *p, size_t n, size_t size);

#endif /* CCLAB_CORE_GEN_H */
