/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/bootstrap_msg.h — the wire format of the bootstrap exchange.
 *
 * Every message is a 20-byte header, then payload_len bytes; all integers
 * big-endian (network order), no padding:
 *
 *   off size field
 *     0   4  magic "CCLB"
 *     4   2  version (CC_BMSG_VERSION)
 *     6   2  type (enum cc_bmsg_type)
 *     8   4  sender rank        (< world)
 *    12   4  world size         (1..CC_LAUNCH_MAX_RANKS)
 *    16   4  payload length     (bounded per type, below)
 *
 * Payloads:
 *   HELLO, READY, BARRIER   none
 *   ABORT                   a reason, text, at most CC_BMSG_MAX_TEXT bytes
 *   BLOB                    one rank's opaque bytes, at most CC_BMSG_MAX_BLOB
 *   ALL                     world x (u32 length, bytes): every rank's blob
 *   ENDPOINTS               u32 count (<= CC_BMSG_MAX_QPS), then per QP 36 bytes:
 *        u32 qp index (the sender's, in its schedule; strictly increasing),
 *        u32 peer rank (< world), u32 QPN (24 bits, not 0 or 1),
 *        u32 first PSN (24 bits), u16 LID, u8[16] GID, u8 GID index,
 *        u8 port MTU (enum ibv_mtu: 1..5 = 256..4096 bytes)
 *   MRS                     u32 count (<= CC_BMSG_MAX_MRS), then per MR 24 bytes:
 *        u32 MR index (strictly increasing), u64 address, u32 rkey,
 *        u64 length (address + length must not pass 2^64)
 *
 * Decoding checks everything before a value is used — magic, version,
 * type, rank < world, the payload length against the type's bound, counts
 * against their limits and the length exactly (no trailing bytes), each
 * field's range — and reports the first fault.  Byte access is memcpy and
 * shifts only, so any input is safe to hand to a decoder.
 *
 * Functions return 0 or a negative errno with a message in err.
 */
#ifndef CCLAB_BACKEND_BOOTSTRAP_MSG_H
#define CCLAB_BACKEND_BOOTSTRAP_MSG_H

#include <stddef.h>
#include <stdint.h>

#define CC_BMSG_MAGIC "CCLB"
#define CC_BMSG_VERSION 1
#define CC_BMSG_HDR_BYTES 20
#define CC_BMSG_EP_BYTES 36
#define CC_BMSG_MR_BYTES 24

#define CC_BMSG_MAX_TEXT 512
#define CC_BMSG_MAX_QPS 16384
#define CC_BMSG_MAX_MRS 16384
#define CC_BMSG_MAX_BLOB (1u << 20)       /* one rank's blob */
#define CC_BMSG_MAX_PAYLOAD (64u << 20)   /* any message, ALL included */

enum cc_bmsg_type {
	CC_BMSG_HELLO = 1,  /* rank -> 0: here I am, with my rank and world */
	CC_BMSG_READY,      /* 0 -> rank: every rank is here */
	CC_BMSG_ABORT,      /* either way: giving up, and why */
	CC_BMSG_BLOB,       /* rank -> 0: my part of an allgather */
	CC_BMSG_ALL,        /* 0 -> rank: every rank's part */
	CC_BMSG_BARRIER,    /* both ways */
	CC_BMSG_ENDPOINTS,  /* a rank's QPs (a blob's contents) */
	CC_BMSG_MRS,        /* a rank's MRs (a blob's contents) */
	CC_BMSG_TYPE_END
};

const char *cc_bmsg_type_name(uint32_t type); /* "?" for an unknown one */

struct cc_bmsg_hdr {
	uint16_t version, type;
	uint32_t rank, world, len;
};

/* The largest payload a message of this type may carry (0 for unknown). */
uint32_t cc_bmsg_max_payload(uint32_t type);

void cc_bmsg_hdr_encode(uint8_t out[CC_BMSG_HDR_BYTES], uint16_t type, uint32_t rank,
			uint32_t world, uint32_t len);
/* Checks n == CC_BMSG_HDR_BYTES, magic, version, type, rank < world,
 * world in range, len <= the type's bound. */
int cc_bmsg_hdr_decode(const uint8_t *buf, size_t n, struct cc_bmsg_hdr *h, char *err,
		       size_t errlen);

struct cc_bmsg_ep {
	uint32_t qp_index, peer, qpn, psn;
	uint16_t lid;
	uint8_t gid[16];
	uint8_t gid_index, mtu;
};

struct cc_bmsg_mr {
	uint32_t index;
	uint32_t rkey;
	uint64_t addr, length;
};

/* Encoders write header + payload into buf when cap is enough and set
 * *need to the whole size either way; -ENOSPC when cap < *need (buf may be
 * NULL then), -EINVAL when an entry is out of range (nothing written). */
int cc_bmsg_encode_eps(uint8_t *buf, size_t cap, size_t *need, uint32_t rank, uint32_t world,
		       const struct cc_bmsg_ep *eps, uint32_t n, char *err, size_t errlen);
int cc_bmsg_encode_mrs(uint8_t *buf, size_t cap, size_t *need, uint32_t rank, uint32_t world,
		       const struct cc_bmsg_mr *mrs, uint32_t n, char *err, size_t errlen);

/* Decoders take a whole message (header + payload, exactly).  On success
 * *out is a malloc'ed array of *n entries (NULL when *n is 0) for the
 * caller to free, and *h the header; on error nothing is allocated. */
int cc_bmsg_decode_eps(const uint8_t *buf, size_t len, struct cc_bmsg_hdr *h,
		       struct cc_bmsg_ep **out, uint32_t *n, char *err, size_t errlen);
int cc_bmsg_decode_mrs(const uint8_t *buf, size_t len, struct cc_bmsg_hdr *h,
		       struct cc_bmsg_mr **out, uint32_t *n, char *err, size_t errlen);

/* Big-endian byte helpers, shared with bootstrap.c and the verbs executor
 * (verbs_setup.c, verbs_gather.c). */
uint32_t cc_bmsg_get32(const uint8_t *p);
void cc_bmsg_put32(uint8_t *p, uint32_t v);
uint64_t cc_bmsg_get64(const uint8_t *p);
void cc_bmsg_put64(uint8_t *p, uint64_t v);

#endif
