/* SPDX-License-Identifier: BSD-3-Clause */
/* util/splitmix.h — splitmix64 (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014; Vigna's public-domain C
 * version), the one generator and hash every deterministic draw uses:
 * input values, seeds of per-link and per-switch streams, loss and ECN
 * draws, ECMP flow hashing.  Integer arithmetic only: the same numbers on
 * every machine. */
#ifndef CCLAB_UTIL_SPLITMIX_H
#define CCLAB_UTIL_SPLITMIX_H

#include <stdint.h>

#define CC_SPLITMIX_GAMMA UINT64_C(0x9e3779b97f4a7c15)

/* The finaliser: every input bit moves every output bit. */
static inline uint64_t cc_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Value x of the sequence, computed on its own (a counter-based hash). */
static inline uint64_t cc_splitmix64(uint64_t x)
{
	return cc_mix64(x + CC_SPLITMIX_GAMMA);
}

/* The next draw of the stream whose state is *state. */
static inline uint64_t cc_splitmix64_next(uint64_t *state)
{
	return cc_mix64(*state += CC_SPLITMIX_GAMMA);
}

#endif /* CCLAB_UTIL_SPLITMIX_H */
