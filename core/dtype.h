/* SPDX-License-Identifier: BSD-3-Clause */
/* core/dtype.h — element types, reduction operators, and the reference
 * arithmetic that both the executors and the checker use.
 *
 * Names follow nccl-tests (int8 uint8 int32 uint32 int64 uint64 half bfloat16
 * float double; sum prod min max avg), with the aliases people type
 * (float16, float32, float64).  Integer arithmetic wraps modulo 2^bits (done
 * in unsigned arithmetic, so signed overflow is never undefined behaviour).
 * float16 / bfloat16 are stored as IEEE binary16 / bfloat16 bit patterns and
 * computed in float, rounded to nearest even after every operation, which is
 * what __hadd / __hmul give on a GPU.
 */
#ifndef CCLAB_CORE_DTYPE_H
#define CCLAB_CORE_DTYPE_H

#include <stddef.h>
#include <stdint.h>

enum cc_dtype {
	CC_INT8,
	CC_UINT8,
	CC_INT32,
	CC_UINT32,
	CC_INT64,
	CC_UINT64,
	CC_FLOAT16,
	CC_BFLOAT16,
	CC_FLOAT32,
	CC_FLOAT64,
	CC_DTYPE_COUNT
};

enum cc_redop { CC_SUM, CC_PROD, CC_MIN, CC_MAX, CC_AVG, CC_REDOP_COUNT };

extern const char *const cc_dtype_name[CC_DTYPE_COUNT]; /* nccl-tests' names */
extern const char *const cc_redop_name[CC_REDOP_COUNT];

size_t cc_dtype_size(enum cc_dtype t);
int cc_dtype_is_float(enum cc_dtype t);

/* Parse a name ("float", "float32", "half", "bf16", ...); returns 0 or -EINVAL. */
int cc_dtype_parse(const char *s, enum cc_dtype *out);
int cc_redop_parse(const char *s, enum cc_redop *out);

/* dst[i] = op(a[i], b[i]) for i < count.  For CC_AVG this is the sum (the
 * division by the rank count happens once, in cc_postdiv, as NCCL's
 * SumPostDiv does).  dst may alias a or b. */
void cc_reduce(void *dst, const void *a, const void *b, size_t count, enum cc_dtype t,
	       enum cc_redop op);

/* buf[i] = buf[i] / divisor, in the type's own arithmetic (integers truncate
 * toward zero, floats round to nearest even). */
void cc_postdiv(void *buf, size_t count, enum cc_dtype t, uint32_t divisor);

/* Deterministic input of rank `rank` for element `i` (`nranks` ranks reduce
 * together with `op`).  Values are chosen so that every reduction order gives
 * bit-identical results (see docs/correctness.md): small integers whose sums
 * stay inside the type's exactly representable range, powers of two for
 * products.  Writes count elements starting at element index `first`. */
void cc_fill_input(void *buf, size_t first, size_t count, enum cc_dtype t, enum cc_redop op,
		   uint32_t rank, uint32_t nranks, uint64_t seed);

/* Number of elements of `got` that differ from `want`.  Bit-exact compare,
 * except that for floats +0 == -0 and any NaN equals any NaN. */
uint64_t cc_count_wrong(const void *got, const void *want, size_t count, enum cc_dtype t);

/* float <-> half / bfloat16, round to nearest even; exposed for tests. */
uint16_t cc_float_to_half(float f);
float cc_half_to_float(uint16_t h);
uint16_t cc_float_to_bf16(float f);
float cc_bf16_to_float(uint16_t b);

#endif
