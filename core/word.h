/* SPDX-License-Identifier: BSD-3-Clause */
/* core/word.h — the 64-bit control words of schedules (flags, clear-to-send
 * credits, atomics) as they sit in memory: little-endian, as on x86 and as
 * the backends write them.  Byte by byte, so alignment never matters. */
#ifndef CCLAB_CORE_WORD_H
#define CCLAB_CORE_WORD_H

#include <stdint.h>

static inline uint64_t cc_word_load(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline void cc_word_store(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

#endif /* CCLAB_CORE_WORD_H */
