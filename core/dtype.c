/* SPDX-License-Identifier: BSD-3-Clause */
/* core/dtype.c — element types, reduction operators, reference arithmetic
 * and the deterministic input generator (see core/dtype.h and
 * docs/correctness.md).
 *
 * Every element is moved through memcpy into an unsigned integer or a
 * float / double, so buffers need no particular alignment and signed
 * overflow or out-of-range signed conversions never happen: integer types
 * are handled as their unsigned bit patterns throughout.
 */
#include "core/dtype.h"
#include "util/splitmix.h"

#include <errno.h>
#include <math.h>
#include <string.h>

const char *const cc_dtype_name[CC_DTYPE_COUNT] = {
	[CC_INT8] = "int8",	  [CC_UINT8] = "uint8",	      [CC_INT32] = "int32",
	[CC_UINT32] = "uint32",	  [CC_INT64] = "int64",	      [CC_UINT64] = "uint64",
	[CC_FLOAT16] = "half",	  [CC_BFLOAT16] = "bfloat16", [CC_FLOAT32] = "float",
	[CC_FLOAT64] = "double",
};

const char *const cc_redop_name[CC_REDOP_COUNT] = {
	[CC_SUM] = "sum", [CC_PROD] = "prod", [CC_MIN] = "min", [CC_MAX] = "max", [CC_AVG] = "avg",
};

static const size_t dtype_size[CC_DTYPE_COUNT] = {
	[CC_INT8] = 1,	 [CC_UINT8] = 1,    [CC_INT32] = 4,    [CC_UINT32] = 4,	  [CC_INT64] = 8,
	[CC_UINT64] = 8, [CC_FLOAT16] = 2, [CC_BFLOAT16] = 2, [CC_FLOAT32] = 4, [CC_FLOAT64] = 8,
};

size_t cc_dtype_size(enum cc_dtype t)
{
	return (unsigned)t < CC_DTYPE_COUNT ? dtype_size[t] : 0;
}

int cc_dtype_is_float(enum cc_dtype t)
{
	return t == CC_FLOAT16 || t == CC_BFLOAT16 || t == CC_FLOAT32 || t == CC_FLOAT64;
}

static int is_signed_int(enum cc_dtype t)
{
	return t == CC_INT8 || t == CC_INT32 || t == CC_INT64;
}

/* Names people type besides nccl-tests' own (PyTorch / NumPy spellings). */
static const struct {
	const char *name;
	enum cc_dtype t;
} dtype_alias[] = {
	{ "char", CC_INT8 },	   { "float16", CC_FLOAT16 }, { "fp16", CC_FLOAT16 },
	{ "bf16", CC_BFLOAT16 },   { "float32", CC_FLOAT32 }, { "fp32", CC_FLOAT32 },
	{ "float64", CC_FLOAT64 }, { "fp64", CC_FLOAT64 },
};

int cc_dtype_parse(const char *s, enum cc_dtype *out)
{
	size_t k;

	if (!s)
		return -EINVAL;
	for (k = 0; k < CC_DTYPE_COUNT; k++) {
		if (!strcmp(s, cc_dtype_name[k])) {
			*out = (enum cc_dtype)k;
			return 0;
		}
	}
	for (k = 0; k < sizeof(dtype_alias) / sizeof(dtype_alias[0]); k++) {
		if (!strcmp(s, dtype_alias[k].name)) {
			*out = dtype_alias[k].t;
			return 0;
		}
	}
	return -EINVAL;
}

int cc_redop_parse(const char *s, enum cc_redop *out)
{
	size_t k;

	if (!s)
		return -EINVAL;
	for (k = 0; k < CC_REDOP_COUNT; k++) {
		if (!strcmp(s, cc_redop_name[k])) {
			*out = (enum cc_redop)k;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- float <-> half / bfloat16 ------------------------------------------ */

static uint32_t float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float bits_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Rounds m / 2^shift to nearest, ties to even (IEEE 754 roundTiesToEven);
 * 1 <= shift <= 31. */
static uint32_t shift_rne(uint32_t m, unsigned shift)
{
	uint32_t q = m >> shift;
	uint32_t rem = m & ((1u << shift) - 1);
	uint32_t halfway = 1u << (shift - 1);

	if (rem > halfway || (rem == halfway && (q & 1)))
		q++;
	return q;
}

/* IEEE 754 binary32 -> binary16.  Results that round past 65504 become
 * infinity; a carry out of the significand simply bumps the exponent field
 * (0x7bff + 1 == 0x7c00 == inf, 0x03ff + 1 == 0x0400 == smallest normal). */
uint16_t cc_float_to_half(float f)
{
	uint32_t x = float_bits(f);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
	uint32_t ex = (x >> 23) & 0xff;
	uint32_t mant = x & 0x7fffff;
	int e = (int)ex - 127 + 15; /* binary16 biased exponent */

	if (ex == 0xff) {
		/* Inf stays inf.  NaN keeps the top of its payload and gets
		 * the quiet bit (IEEE 754 §6.2: operations deliver quiet NaNs),
		 * so a NaN whose payload was only in the dropped bits stays NaN. */
		if (!mant)
			return sign | 0x7c00;
		return (uint16_t)(sign | 0x7e00 | (mant >> 13));
	}
	if (e >= 31)
		return sign | 0x7c00;
	if (e <= 0) {
		/* binary16 subnormal (or zero): count units of 2^-24.  The value
		 * is (2^23 + mant) * 2^(ex-150), i.e. that many units shifted
		 * right by 126 - ex >= 14.  Beyond 25 bits of shift the value is
		 * below half a unit and rounds to zero; float subnormals
		 * (ex == 0) are all far below that. */
		unsigned shift = 126 - ex;

		if (ex == 0 || shift > 25)
			return sign;
		return (uint16_t)(sign | shift_rne(mant | 0x800000, shift));
	}
	/* Normal: exponent and significand side by side, drop 13 bits. */
	return (uint16_t)(sign | shift_rne(((uint32_t)e << 23) | mant, 13));
}

float cc_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t ex = (h >> 10) & 0x1f;
	uint32_t mant = h & 0x3ff;
	float f;

	if (ex == 0x1f)
		return bits_float(sign | 0x7f800000 | (mant << 13));
	if (ex)
		return bits_float(sign | ((ex - 15 + 127) << 23) | (mant << 13));
	/* Zero or subnormal: mant units of 2^-24, exact in float. */
	f = (float)mant * 0x1p-24f;
	return sign ? -f : f;
}

/* bfloat16 is the top half of a binary32, so rounding is adding just under
 * half a unit plus the LSB (ties to even) and truncating; this is the
 * conversion TensorFlow and CUDA's __float2bfloat16_rn perform.  The
 * exponent range is float's, so subnormals and overflow to inf fall out. */
uint16_t cc_float_to_bf16(float f)
{
	uint32_t x = float_bits(f);

	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((x >> 16) | 0x0040); /* quiet NaN, sign kept */
	x += 0x7fff + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

float cc_bf16_to_float(uint16_t b)
{
	return bits_float((uint32_t)b << 16);
}

/* ---- element access ------------------------------------------------------ */

/* Loads element i of size sz (1, 2, 4 or 8 bytes) zero-extended. */
static uint64_t ld(const void *p, size_t i, size_t sz)
{
	const unsigned char *c = (const unsigned char *)p + i * sz;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (sz) {
	case 1:
		memcpy(&u8, c, 1);
		return u8;
	case 2:
		memcpy(&u16, c, 2);
		return u16;
	case 4:
		memcpy(&u32, c, 4);
		return u32;
	default:
		memcpy(&u64, c, 8);
		return u64;
	}
}

/* Stores the low sz bytes of v as element i (truncation mod 2^bits). */
static void st(void *p, size_t i, size_t sz, uint64_t v)
{
	unsigned char *c = (unsigned char *)p + i * sz;
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (sz) {
	case 1:
		memcpy(c, &u8, 1);
		break;
	case 2:
		memcpy(c, &u16, 2);
		break;
	case 4:
		memcpy(c, &u32, 4);
		break;
	default:
		memcpy(c, &v, 8);
		break;
	}
}

static double bits_double(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

static uint64_t double_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

/* ---- reduction ----------------------------------------------------------- */

/* Integers as zero-extended bit patterns.  Sum and product in uint64_t
 * wrap, and the store keeps the low bits, which is arithmetic mod 2^bits
 * for signed and unsigned alike.  Signed min/max flip the sign bit so that
 * an unsigned compare orders them as signed: NCCL's FuncMinMax xormask
 * trick (src/device/reduce_kernel.h). */
static uint64_t int_op(uint64_t a, uint64_t b, enum cc_redop op, uint64_t sbit)
{
	switch (op) {
	case CC_PROD:
		return a * b;
	case CC_MIN:
		return (a ^ sbit) < (b ^ sbit) ? a : b;
	case CC_MAX:
		return (a ^ sbit) > (b ^ sbit) ? a : b;
	default: /* CC_SUM, CC_AVG */
		return a + b;
	}
}

/* min/max on floats.  NCCL's FuncMinMax uses fminf/fmaxf (and __hmin/__hmax
 * for half and bfloat16), IEEE 754-2008 minNum/maxNum: a NaN operand is
 * ignored, so NaN comes out only when both are NaN.  Where C leaves the
 * choice open we pin it so the operator is commutative and associative bit
 * for bit: -0 < +0 (as CUDA documents for __hmin/__hmax), and two NaNs give
 * the canonical quiet NaN.  The functions answer which operand to take:
 * <0 a, >0 b, 0 "both NaN". */
static int pick_min(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b) || a < b)
		return -1;
	if (b < a)
		return 1;
	return signbit(a) ? -1 : 1; /* equal: prefer -0 */
}

static int pick_max(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b) || a > b)
		return -1;
	if (b > a)
		return 1;
	return signbit(a) ? 1 : -1; /* equal: prefer +0 */
}

static int pick(double a, double b, enum cc_redop op)
{
	return op == CC_MIN ? pick_min(a, b) : pick_max(a, b);
}

/* half / bfloat16: computed in float and rounded once.  Since float has
 * p = 24 >= 2 * 11 + 2 bits, the double rounding (exact -> float -> half)
 * is innocuous for + * / (Figueroa, "When is double rounding innocuous?",
 * 1995): the result equals the correctly rounded half operation, i.e. what
 * __hadd / __hmul return. */
static float fp16_to_float(uint16_t h, int bf)
{
	return bf ? cc_bf16_to_float(h) : cc_half_to_float(h);
}

static uint16_t float_to_fp16(float f, int bf)
{
	return bf ? cc_float_to_bf16(f) : cc_float_to_half(f);
}

static uint16_t fp16_op(uint16_t a, uint16_t b, enum cc_redop op, int bf)
{
	float x = fp16_to_float(a, bf), y = fp16_to_float(b, bf);
	int c;

	switch (op) {
	case CC_PROD:
		return float_to_fp16(x * y, bf);
	case CC_MIN:
	case CC_MAX:
		c = pick(x, y, op);
		return c < 0 ? a : c > 0 ? b : bf ? 0x7fc0 : 0x7e00;
	default:
		return float_to_fp16(x + y, bf);
	}
}

static float f32_op(float x, float y, enum cc_redop op)
{
	int c;

	switch (op) {
	case CC_PROD:
		return x * y;
	case CC_MIN:
	case CC_MAX:
		c = pick(x, y, op);
		return c < 0 ? x : c > 0 ? y : NAN;
	default:
		return x + y;
	}
}

static double f64_op(double x, double y, enum cc_redop op)
{
	int c;

	switch (op) {
	case CC_PROD:
		return x * y;
	case CC_MIN:
	case CC_MAX:
		c = pick(x, y, op);
		return c < 0 ? x : c > 0 ? y : (double)NAN;
	default:
		return x + y;
	}
}

/* One loop per kind of element, so the type dispatch happens once per call
 * rather than per element (sz is a constant at each call site and the
 * compiler specialises the loads and stores).  Each element is read before
 * it is written, so dst may alias a or b exactly. */
static inline void reduce_int(void *dst, const void *a, const void *b, size_t n, size_t sz,
			      uint64_t sbit, enum cc_redop op)
{
	size_t i;

	for (i = 0; i < n; i++)
		st(dst, i, sz, int_op(ld(a, i, sz), ld(b, i, sz), op, sbit));
}

static void reduce_fp16(void *dst, const void *a, const void *b, size_t n, int bf,
			enum cc_redop op)
{
	size_t i;

	for (i = 0; i < n; i++)
		st(dst, i, 2, fp16_op((uint16_t)ld(a, i, 2), (uint16_t)ld(b, i, 2), op, bf));
}

static void reduce_f32(void *dst, const void *a, const void *b, size_t n, enum cc_redop op)
{
	size_t i;

	for (i = 0; i < n; i++) {
		float x = bits_float((uint32_t)ld(a, i, 4));
		float y = bits_float((uint32_t)ld(b, i, 4));

		st(dst, i, 4, float_bits(f32_op(x, y, op)));
	}
}

static void reduce_f64(void *dst, const void *a, const void *b, size_t n, enum cc_redop op)
{
	size_t i;

	for (i = 0; i < n; i++)
		st(dst, i, 8, double_bits(f64_op(bits_double(ld(a, i, 8)), bits_double(ld(b, i, 8)), op)));
}

static uint64_t sign_bit(enum cc_dtype t)
{
	return is_signed_int(t) ? UINT64_C(1) << (8 * cc_dtype_size(t) - 1) : 0;
}

void cc_reduce(void *dst, const void *a, const void *b, size_t count, enum cc_dtype t,
	       enum cc_redop op)
{
	uint64_t sbit = sign_bit(t);

	switch (t) {
	case CC_FLOAT16:
	case CC_BFLOAT16:
		reduce_fp16(dst, a, b, count, t == CC_BFLOAT16, op);
		break;
	case CC_FLOAT32:
		reduce_f32(dst, a, b, count, op);
		break;
	case CC_FLOAT64:
		reduce_f64(dst, a, b, count, op);
		break;
	case CC_INT8:
	case CC_UINT8:
		reduce_int(dst, a, b, count, 1, sbit, op);
		break;
	case CC_INT32:
	case CC_UINT32:
		reduce_int(dst, a, b, count, 4, sbit, op);
		break;
	default:
		reduce_int(dst, a, b, count, 8, sbit, op);
		break;
	}
}

/* ---- average ------------------------------------------------------------- */

/* Signed division on the bit pattern: divide the magnitude, then negate,
 * all in unsigned arithmetic.  Truncates toward zero like C's `/`, and
 * INT_MIN / 1 needs no special case (its magnitude 2^(bits-1) is fine as an
 * unsigned value) — the approach of NCCL's FuncSumPostDiv::divide. */
static uint64_t int_div(uint64_t x, uint32_t d, uint64_t sbit)
{
	if (x & sbit) {
		uint64_t mag = (0 - x) & (sbit | (sbit - 1));

		return 0 - mag / d;
	}
	return x / d;
}

/* float / half / bfloat16 divide in double, where the uint32_t divisor is
 * exact (it may not be in float), then round.  p = 53 >= 2 * 24 + 2 and
 * 24 >= 2 * 11 + 2 make each rounding step innocuous (Figueroa 1995), so
 * the result is the correctly rounded quotient in the element type.  NCCL
 * multiplies by a precomputed 1/n instead, which can differ by an ulp when
 * n is not a power of two; cclab's reference and executors both use this
 * function, so they agree. */
static uint64_t elem_div(uint64_t x, enum cc_dtype t, uint32_t d, uint64_t sbit)
{
	switch (t) {
	case CC_FLOAT16:
		return cc_float_to_half((float)((double)cc_half_to_float((uint16_t)x) / d));
	case CC_BFLOAT16:
		return cc_float_to_bf16((float)((double)cc_bf16_to_float((uint16_t)x) / d));
	case CC_FLOAT32:
		return float_bits((float)((double)bits_float((uint32_t)x) / d));
	case CC_FLOAT64:
		return double_bits(bits_double(x) / d);
	default:
		return sbit ? int_div(x, d, sbit) : x / d;
	}
}

void cc_postdiv(void *buf, size_t count, enum cc_dtype t, uint32_t divisor)
{
	size_t sz = cc_dtype_size(t);
	uint64_t sbit = sign_bit(t);
	size_t i;

	if (divisor <= 1) /* 0 is a caller bug; leave the data as it is */
		return;
	for (i = 0; i < count; i++)
		st(buf, i, sz, elem_div(ld(buf, i, sz), t, divisor, sbit));
}

/* ---- input generation ---------------------------------------------------- */

static uint64_t elem_hash(uint64_t key, uint64_t i)
{
	return cc_splitmix64(key + i * CC_SPLITMIX_GAMMA);
}

/* Significand precision p (IEEE 754 binary16 11, bfloat16 8, binary32 24,
 * binary64 53): integers up to 2^p in magnitude are exact. */
static unsigned precision(enum cc_dtype t)
{
	switch (t) {
	case CC_FLOAT16:
		return 11;
	case CC_BFLOAT16:
		return 8;
	case CC_FLOAT32:
		return 24;
	default:
		return 53;
	}
}

/* Sum inputs lie in [-A, A] with A = max(1, min(64, 2^p / nranks)): every
 * partial sum of up to nranks of them is an integer of magnitude
 * <= nranks * A <= 2^p, hence exact, whatever the order.  Once nranks
 * exceeds 2^p, A is 1 and exactness is no longer guaranteed. */
static uint64_t sum_amplitude(enum cc_dtype t, uint32_t nranks)
{
	uint64_t a = (UINT64_C(1) << precision(t)) / nranks;

	return a < 1 ? 1 : a > 64 ? 64 : a;
}

/* Integer in [-r, r] from the high 32 hash bits by multiply-shift
 * (Lemire, "Fast random integer generation in an interval", 2019) rather
 * than a division per element; its bias of under 2^-22 does not matter. */
static int64_t small_int(uint64_t h, uint64_t r)
{
	return (int64_t)(((h >> 32) * (2 * r + 1)) >> 32) - (int64_t)r;
}

static uint64_t to_elem(double v, enum cc_dtype t)
{
	switch (t) {
	case CC_FLOAT16:
		return cc_float_to_half((float)v);
	case CC_BFLOAT16:
		return cc_float_to_bf16((float)v);
	case CC_FLOAT32:
		return float_bits((float)v);
	default:
		return double_bits(v);
	}
}

/* Floats for prod: +-1 everywhere but one rank per element, rank
 * (i + seed) % nranks, which holds +-2, so the product is +-2 exactly in any
 * order.  That rank moves with i, so every rank's +-2 is exercised.  j
 * tracks (i + seed) % nranks without a division per element. */
static void fill_float_prod(void *buf, size_t first, size_t count, enum cc_dtype t,
			    uint32_t rank, uint32_t nranks, uint64_t seed, uint64_t key)
{
	size_t sz = cc_dtype_size(t);
	uint64_t j = (first % nranks + seed % nranks) % nranks;
	size_t k;

	for (k = 0; k < count; k++) {
		double v = j == rank ? 2 : 1;

		if (elem_hash(key, (uint64_t)first + k) & 1)
			v = -v;
		st(buf, k, sz, to_elem(v, t));
		if (++j == nranks)
			j = 0;
	}
}

/* Floats for sum / avg / min / max: integers in [-r, r], all exact. */
static void fill_float_int(void *buf, size_t first, size_t count, enum cc_dtype t, uint64_t r,
			   uint64_t key)
{
	size_t sz = cc_dtype_size(t);
	size_t k;

	for (k = 0; k < count; k++) {
		uint64_t h = elem_hash(key, (uint64_t)first + k);

		st(buf, k, sz, to_elem((double)small_int(h, r), t));
	}
}

/* Integers: wrapping + * min max are associative and commutative, so any
 * bits do (the low bits of the hash); odd factors keep a product from
 * collapsing to 0 mod 2^bits. */
static void fill_int(void *buf, size_t first, size_t count, size_t sz, uint64_t odd,
		     uint64_t key)
{
	size_t k;

	for (k = 0; k < count; k++)
		st(buf, k, sz, elem_hash(key, (uint64_t)first + k) | odd);
}

void cc_fill_input(void *buf, size_t first, size_t count, enum cc_dtype t, enum cc_redop op,
		   uint32_t rank, uint32_t nranks, uint64_t seed)
{
	uint64_t key = cc_splitmix64(seed ^ cc_splitmix64(rank));

	/* buf[k] receives element first + k: a caller filling part of a
	 * larger buffer passes the address of that part. */
	if (nranks == 0)
		nranks = 1;
	if (!cc_dtype_is_float(t))
		fill_int(buf, first, count, cc_dtype_size(t), op == CC_PROD, key);
	else if (op == CC_PROD)
		fill_float_prod(buf, first, count, t, rank, nranks, seed, key);
	else if (op == CC_MIN || op == CC_MAX)
		/* integers every type holds exactly (bfloat16: up to 2^8) */
		fill_float_int(buf, first, count, t, t == CC_BFLOAT16 ? 256 : 1000, key);
	else
		fill_float_int(buf, first, count, t, sum_amplitude(t, nranks), key);
}

/* ---- checking ------------------------------------------------------------ */

/* Equal as a checker sees it: same bits, or both zero (+0 == -0), or both
 * NaN (any payload).  absmask clears the sign, inf is +infinity's bits. */
static int fp_same(uint64_t x, uint64_t y, uint64_t absmask, uint64_t inf)
{
	uint64_t ax = x & absmask, ay = y & absmask;

	if (ax > inf && ay > inf)
		return 1;
	if (ax == 0 && ay == 0)
		return 1;
	return x == y;
}

static int elem_same(uint64_t x, uint64_t y, enum cc_dtype t)
{
	switch (t) {
	case CC_FLOAT16:
		return fp_same(x, y, 0x7fff, 0x7c00);
	case CC_BFLOAT16:
		return fp_same(x, y, 0x7fff, 0x7f80);
	case CC_FLOAT32:
		return fp_same(x, y, 0x7fffffff, 0x7f800000);
	case CC_FLOAT64:
		return fp_same(x, y, UINT64_C(0x7fffffffffffffff), UINT64_C(0x7ff0000000000000));
	default:
		return x == y;
	}
}

uint64_t cc_count_wrong(const void *got, const void *want, size_t count, enum cc_dtype t)
{
	size_t sz = cc_dtype_size(t);
	uint64_t wrong = 0;
	size_t i;

	/* Equal bits are equal elements: the usual answer at memcmp speed. */
	if (!count || !memcmp(got, want, count * sz))
		return 0;
	for (i = 0; i < count; i++)
		wrong += !elem_same(ld(got, i, sz), ld(want, i, sz), t);
	return wrong;
}
