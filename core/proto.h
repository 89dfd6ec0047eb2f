/* SPDX-License-Identifier: BSD-3-Clause */
/* core/proto.h — NCCL's three protocols: how a slice sits in a slot.
 *
 *   simple  the data as it is; the receiver learns it has arrived from a
 *           completion (write_imm, send_recv) or a flag written after it
 *           (write_flag).  NCCL's ProtoSimple (src/device/prims_simple.h).
 *   ll      "low latency": 16-byte lines of two 8-byte halves, each 4 data
 *           bytes then a 4-byte flag (NCCL's union ncclLLFifoLine, data1
 *           flag1 data2 flag2; src/include/device.h).  Every half is one
 *           8-byte store, so a reader that sees the flag sees the data
 *           with it: the receiver polls the lines themselves, no
 *           completion or flag write needed — at half the bandwidth.
 *   ll128   128-byte lines of 120 data bytes and an 8-byte flag
 *           (NCCL_LL128_LINESIZE, NCCL_LL128_DATAELEMS = 15 of 16 u64):
 *           120/128 of the bandwidth, for fabrics that deliver a line's
 *           bytes together.
 *
 * The flag of a slice is its sequence number on the connection plus one,
 * as NCCL flags a line with its step: a slot reused nslots slices later
 * holds older, smaller flags until the new slice overwrites them.
 */
#ifndef CCLAB_CORE_PROTO_H
#define CCLAB_CORE_PROTO_H

#include <stdint.h>

enum cc_proto { CC_PROTO_SIMPLE, CC_PROTO_LL, CC_PROTO_LL128, CC_PROTO_COUNT };

extern const char *const cc_proto_name[CC_PROTO_COUNT];
int cc_proto_parse(const char *s, enum cc_proto *out);

/* Largest flag a protocol can carry: LL's is 32 bits. */
uint64_t cc_proto_max_flag(enum cc_proto p);

/* Bytes in memory and on the wire of `bytes` data bytes: whole lines
 * (LL: 16-byte lines of 8 data bytes; LL128: 128-byte lines of 120). */
uint64_t cc_proto_wire_bytes(enum cc_proto p, uint64_t bytes);
/* The data that `wire` bytes of whole lines carry (the inverse). */
uint64_t cc_proto_line_data(enum cc_proto p, uint64_t wire);

/* NCCL's default step (slot) of data and chunk per protocol: Simple 4 MiB
 * buffers in NCCL_STEPS = 8 steps, 4 steps a chunk (ALLREDUCE_CHUNKSTEPS);
 * LL DEFAULT_LL_BUFFSIZE 512 KiB of lines = 32 KiB of data a step, LL128
 * DEFAULT_LL128_BUFFSIZE 4,915,200 B of lines = 576,000 B of data a step;
 * LL and LL128 chunks are one step (all_reduce.h runRing). */
uint64_t cc_proto_slot_bytes(enum cc_proto p);
uint64_t cc_proto_chunk_bytes(enum cc_proto p);

/* Where the slice's last flag word is (byte offset from its first line)
 * and the value a wait_mem on it waits for (>=): the last line written. */
uint64_t cc_proto_last_flag_offset(enum cc_proto p, uint64_t bytes);
uint64_t cc_proto_flag_word(enum cc_proto p, uint64_t flag);

/* Writes `bytes` of data (NULL: zeros, for a simulator that does not carry
 * the data) as lines flagged `flag`, padding included. */
void cc_proto_pack(enum cc_proto p, uint8_t *lines, const uint8_t *data, uint64_t bytes,
		   uint64_t flag);
/* Whether every line of a `bytes`-byte slice carries `flag`: the reader
 * may use it only then (an RNIC may place a message's lines in any order,
 * so seeing the last is not enough). */
int cc_proto_lines_ready(enum cc_proto p, const uint8_t *lines, uint64_t bytes, uint64_t flag);
/* The data of lines (which must be ready). */
void cc_proto_unpack(enum cc_proto p, uint8_t *data, const uint8_t *lines, uint64_t bytes);

#endif /* CCLAB_CORE_PROTO_H */
