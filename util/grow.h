/* SPDX-License-Identifier: BSD-3-Clause */
/* util/grow.h — room in a growing array, the one way cclab grows one.
 *
 * An array of *cap elements of `size` bytes, behind a pointer of any type
 * (passed by its address, moved with memcpy, so no cast through void ** is
 * needed), made to hold `want` elements: its capacity doubled from 16
 * until it does (git's ALLOC_GROW, amortised O(1) an element), at most
 * UINT32_MAX elements.  Returns 0, or -ENOMEM with the array and *cap as
 * they were: a failed growth leaves the caller's structure whole. */
#ifndef CCLAB_UTIL_GROW_H
#define CCLAB_UTIL_GROW_H

#include <stddef.h>
#include <stdint.h>

int cc_grow(void *arrp, uint32_t *cap, uint64_t want, size_t size);

#endif
