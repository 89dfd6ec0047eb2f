/* SPDX-License-Identifier: BSD-3-Clause */
/* util/grow.c — room in a growing array (util/grow.h). */
#include "util/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cc_grow(void *arrp, uint32_t *cap, uint64_t want, size_t size)
{
	uint64_t ncap = *cap ? *cap : 16;
	void *arr, *p;

	if (want <= *cap)
		return 0;
	if (want > UINT32_MAX)
		return -ENOMEM;
	while (ncap < want)
		ncap *= 2;
	if (ncap > UINT32_MAX)
		ncap = UINT32_MAX;
	if (size && ncap > SIZE_MAX / size)
		return -ENOMEM;
	memcpy(&arr, arrp, sizeof(arr));
	if (!(p = realloc(arr, (size_t)ncap * size)))
		return -ENOMEM;
	memcpy(arrp, &p, sizeof(p));
	*cap = (uint32_t)ncap;
	return 0;
}
