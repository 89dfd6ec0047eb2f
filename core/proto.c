/* SPDX-License-Identifier: BSD-3-Clause */
/* core/proto.c — line formats of the LL and LL128 protocols (proto.h). */
#include "proto.h"

#include <errno.h>
#include <string.h>

#include "word.h"

const char *const cc_proto_name[CC_PROTO_COUNT] = {
	[CC_PROTO_SIMPLE] = "simple",
	[CC_PROTO_LL] = "ll",
	[CC_PROTO_LL128] = "ll128",
};

int cc_proto_parse(const char *s, enum cc_proto *out)
{
	for (int i = 0; i < CC_PROTO_COUNT; i++)
		if (!strcmp(s, cc_proto_name[i])) {
			*out = (enum cc_proto)i;
			return 0;
		}
	return -EINVAL;
}

/* LL is handled as 8-byte halves (4 data bytes, 4 flag bytes) grouped in
 * 16-byte lines; LL128 as 128-byte lines. */
#define LL_HALF 8u
#define LL_DATA 4u
#define LL_LINE 16u
#define LL128_LINE 128u
#define LL128_DATA 120u

uint64_t cc_proto_max_flag(enum cc_proto p)
{
	return p == CC_PROTO_LL ? UINT32_MAX : UINT64_MAX;
}

uint64_t cc_proto_wire_bytes(enum cc_proto p, uint64_t bytes)
{
	switch (p) {
	case CC_PROTO_LL: return (bytes + 2 * LL_DATA - 1) / (2 * LL_DATA) * LL_LINE;
	case CC_PROTO_LL128: return (bytes + LL128_DATA - 1) / LL128_DATA * LL128_LINE;
	default: return bytes;
	}
}

uint64_t cc_proto_line_data(enum cc_proto p, uint64_t wire)
{
	switch (p) {
	case CC_PROTO_LL: return wire / LL_LINE * 2 * LL_DATA;
	case CC_PROTO_LL128: return wire / LL128_LINE * LL128_DATA;
	default: return wire;
	}
}

uint64_t cc_proto_slot_bytes(enum cc_proto p)
{
	switch (p) {
	case CC_PROTO_LL: return 512u * 1024 / 8 / 2;
	case CC_PROTO_LL128: return 4915200u / 8 / LL128_LINE * LL128_DATA;
	default: return 4u * 1024 * 1024 / 8;
	}
}

uint64_t cc_proto_chunk_bytes(enum cc_proto p)
{
	return p == CC_PROTO_SIMPLE ? 4 * cc_proto_slot_bytes(p) : cc_proto_slot_bytes(p);
}

uint64_t cc_proto_last_flag_offset(enum cc_proto p, uint64_t bytes)
{
	uint64_t wire = cc_proto_wire_bytes(p, bytes);

	return wire ? wire - 8 : 0;
}

uint64_t cc_proto_flag_word(enum cc_proto p, uint64_t flag)
{
	/* An LL half reads as data | flag << 32: >= flag << 32 exactly when
	 * its flag is >= flag, whatever its data. */
	return p == CC_PROTO_LL ? flag << 32 : flag;
}

/* Lines hold whole groups: an LL line's two halves, an LL128 line. */
static uint64_t group_data(enum cc_proto p)
{
	return p == CC_PROTO_LL ? LL_DATA : LL128_DATA;
}
static uint64_t group_size(enum cc_proto p)
{
	return p == CC_PROTO_LL ? LL_HALF : LL128_LINE;
}

void cc_proto_pack(enum cc_proto p, uint8_t *lines, const uint8_t *data, uint64_t bytes,
		   uint64_t flag)
{
	uint64_t gd = group_data(p), gs = group_size(p);
	uint64_t ngroups = cc_proto_wire_bytes(p, bytes) / gs, g = 0;

	if (p == CC_PROTO_LL && data) {
		/* The full halves, in fixed-size stores the compiler inlines:
		 * 4 data bytes, then the flag's low 32 bits, little-endian. */
		for (; g < bytes / LL_DATA; g++) {
			uint8_t *line = lines + g * LL_HALF;

			memcpy(line, data + g * LL_DATA, LL_DATA);
			for (unsigned i = 0; i < LL_HALF - LL_DATA; i++)
				line[LL_DATA + i] = (uint8_t)(flag >> 8 * i);
		}
	}
	for (; g < ngroups; g++) {
		uint8_t *line = lines + g * gs;
		uint64_t off = g * gd, n = off < bytes ? (bytes - off < gd ? bytes - off : gd) : 0;

		if (data && n)
			memcpy(line, data + off, n);
		memset(line + (data ? n : 0), 0, gd - (data ? n : 0));
		if (p == CC_PROTO_LL) {
			uint8_t word[8];

			cc_word_store(word, flag << 32);
			memcpy(line + LL_DATA, word + LL_DATA, LL_HALF - LL_DATA);
		} else {
			cc_word_store(line + LL128_DATA, flag);
		}
	}
}

int cc_proto_lines_ready(enum cc_proto p, const uint8_t *lines, uint64_t bytes, uint64_t flag)
{
	uint64_t gs = group_size(p), ngroups = cc_proto_wire_bytes(p, bytes) / gs;

	for (uint64_t g = 0; g < ngroups; g++) {
		const uint8_t *w = lines + g * gs + (p == CC_PROTO_LL ? 0 : LL128_DATA);
		uint64_t v = cc_word_load(w);

		if ((p == CC_PROTO_LL ? v >> 32 : v) != flag)
			return 0;
	}
	return 1;
}

void cc_proto_unpack(enum cc_proto p, uint8_t *data, const uint8_t *lines, uint64_t bytes)
{
	uint64_t gd = group_data(p), gs = group_size(p);

	for (uint64_t off = 0, g = 0; off < bytes; off += gd, g++)
		memcpy(data + off, lines + g * gs, bytes - off < gd ? bytes - off : gd);
}
