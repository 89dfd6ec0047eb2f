/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_dtype.c — names, float16/bfloat16 conversions, the reference
 * reduction, average, input generation and the #wrong count of core/dtype.c.
 *
 * Expected bit patterns were worked out by hand from IEEE 754 binary16 /
 * bfloat16 layouts (sign | exponent | significand, round to nearest even);
 * the comments next to them show the arithmetic. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- helpers ---- */

static uint32_t fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float bitsf(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static uint64_t dbits(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return u;
}

static int half_is_nan(uint16_t h)
{
	return (h & 0x7fff) > 0x7c00;
}

static int bf16_is_nan(uint16_t b)
{
	return (b & 0x7fff) > 0x7f80;
}

/* Element i of buf as raw zero-extended bits. */
static uint64_t get_bits(const void *buf, size_t i, enum cc_dtype t)
{
	size_t sz = cc_dtype_size(t);
	uint64_t v = 0;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	const char *p = (const char *)buf + i * sz;

	switch (sz) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	default:
		memcpy(&v, p, 8);
		return v;
	}
}

/* Element i of a float-type buffer as a double (exact). */
static double get_double(const void *buf, size_t i, enum cc_dtype t)
{
	uint64_t b = get_bits(buf, i, t);
	double d;

	switch (t) {
	case CC_FLOAT16:
		return cc_half_to_float((uint16_t)b);
	case CC_BFLOAT16:
		return cc_bf16_to_float((uint16_t)b);
	case CC_FLOAT32:
		return bitsf((uint32_t)b);
	default:
		memcpy(&d, &b, 8);
		return d;
	}
}

/* Signed value of an integer element (sign-extended for signed types). */
static int64_t get_signed(const void *buf, size_t i, enum cc_dtype t)
{
	uint64_t b = get_bits(buf, i, t);
	unsigned bits = 8 * (unsigned)cc_dtype_size(t);
	int64_t v;

	if (bits < 64 && (b >> (bits - 1)) & 1)
		b |= ~UINT64_C(0) << bits;
	memcpy(&v, &b, 8);
	return v;
}

static int is_signed_t(enum cc_dtype t)
{
	return t == CC_INT8 || t == CC_INT32 || t == CC_INT64;
}

/* ---- names and parsing ---- */

static void test_names(void **state)
{
	static const char *const want[CC_DTYPE_COUNT] = {
		"int8", "uint8", "int32", "uint32", "int64", "uint64",
		"half", "bfloat16", "float", "double",
	};
	static const size_t size[CC_DTYPE_COUNT] = { 1, 1, 4, 4, 8, 8, 2, 2, 4, 8 };
	int t;

	(void)state;
	for (t = 0; t < CC_DTYPE_COUNT; t++) {
		assert_string_equal(cc_dtype_name[t], want[t]);
		assert_int_equal(cc_dtype_size((enum cc_dtype)t), size[t]);
		assert_int_equal(cc_dtype_is_float((enum cc_dtype)t), t >= CC_FLOAT16);
	}
	assert_string_equal(cc_redop_name[CC_SUM], "sum");
	assert_string_equal(cc_redop_name[CC_PROD], "prod");
	assert_string_equal(cc_redop_name[CC_MIN], "min");
	assert_string_equal(cc_redop_name[CC_MAX], "max");
	assert_string_equal(cc_redop_name[CC_AVG], "avg");
}

static void test_parse(void **state)
{
	static const struct {
		const char *s;
		enum cc_dtype t;
	} alias[] = {
		{ "char", CC_INT8 },	   { "float16", CC_FLOAT16 }, { "fp16", CC_FLOAT16 },
		{ "bf16", CC_BFLOAT16 },   { "float32", CC_FLOAT32 }, { "fp32", CC_FLOAT32 },
		{ "float64", CC_FLOAT64 }, { "fp64", CC_FLOAT64 },
	};
	static const char *const bad[] = { "", "int", "Float", "int16", "fp8", "float ", "bfloat" };
	enum cc_dtype t = CC_INT8;
	enum cc_redop op = CC_SUM;
	size_t k;

	(void)state;
	for (k = 0; k < CC_DTYPE_COUNT; k++) {
		assert_int_equal(cc_dtype_parse(cc_dtype_name[k], &t), 0);
		assert_int_equal(t, k);
	}
	for (k = 0; k < ARRAY_SIZE(alias); k++) {
		assert_int_equal(cc_dtype_parse(alias[k].s, &t), 0);
		assert_int_equal(t, alias[k].t);
	}
	t = CC_UINT64;
	for (k = 0; k < ARRAY_SIZE(bad); k++) {
		assert_int_equal(cc_dtype_parse(bad[k], &t), -EINVAL);
		assert_int_equal(t, CC_UINT64); /* untouched on error */
	}
	assert_int_equal(cc_dtype_parse(NULL, &t), -EINVAL);

	for (k = 0; k < CC_REDOP_COUNT; k++) {
		assert_int_equal(cc_redop_parse(cc_redop_name[k], &op), 0);
		assert_int_equal(op, k);
	}
	op = CC_MAX;
	assert_int_equal(cc_redop_parse("mean", &op), -EINVAL);
	assert_int_equal(cc_redop_parse("Sum", &op), -EINVAL);
	assert_int_equal(cc_redop_parse("", &op), -EINVAL);
	assert_int_equal(cc_redop_parse(NULL, &op), -EINVAL);
	assert_int_equal(op, CC_MAX);
}

/* ---- float16 ---- */

static void test_half_known(void **state)
{
	static const struct {
		float f;
		uint16_t h;
	} cases[] = {
		{ 1.0f, 0x3c00 },
		{ -2.0f, 0xc000 },
		{ 0.0f, 0x0000 },
		{ -0.0f, 0x8000 },
		{ 65504.0f, 0x7bff },		/* largest finite */
		{ 65519.0f, 0x7bff },		/* below the 65520 midpoint */
		{ 65520.0f, 0x7c00 },		/* midpoint, 0x7bff odd -> inf */
		{ -65520.0f, 0xfc00 },
		{ 1e6f, 0x7c00 },
		{ 0x1p-24f, 0x0001 },		/* smallest subnormal */
		{ 0x1p-25f, 0x0000 },		/* half of it: tie -> even 0 */
		{ 0x1.000002p-25f, 0x0001 },	/* just above the tie */
		{ 0x1.8p-24f, 0x0002 },		/* 1.5 units: tie -> even 2 */
		{ 0x1.4p-23f, 0x0002 },		/* 2.5 units: tie -> even 2 */
		{ 0x1p-14f, 0x0400 },		/* smallest normal */
		{ 0x1.ff8p-15f, 0x03ff },	/* largest subnormal, 1023 * 2^-24 */
		{ 0x1.ffcp-15f, 0x0400 },	/* 1023.5 units: tie -> 1024, normal */
		{ 0.1f, 0x2e66 },
		{ 1.0f / 3, 0x3555 },
		{ 0x1.002p0f, 0x3c00 },		/* 1 + 2^-11: tie -> even 0x3c00 */
		{ 0x1.006p0f, 0x3c02 },		/* 1 + 3*2^-11: tie -> even 0x3c02 */
		{ 0x1.0021p0f, 0x3c01 },	/* past the tie */
		{ 1e-10f, 0x0000 },
		{ 1e-40f, 0x0000 },		/* float subnormal */
		{ -1e-40f, 0x8000 },
		{ 2048.0f, 0x6800 },
		{ 2049.0f, 0x6800 },		/* tie -> even */
		{ 2051.0f, 0x6802 },		/* tie -> even */
	};
	size_t k;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++)
		assert_int_equal(cc_float_to_half(cases[k].f), cases[k].h);

	assert_int_equal(cc_float_to_half(INFINITY), 0x7c00);
	assert_int_equal(cc_float_to_half(-INFINITY), 0xfc00);
	assert_true(half_is_nan(cc_float_to_half(NAN)));
	assert_true(half_is_nan(cc_float_to_half(-NAN)));
	/* NaN whose payload sits only in bits that binary16 drops */
	assert_true(half_is_nan(cc_float_to_half(bitsf(0x7f800001))));

	assert_int_equal(fbits(cc_half_to_float(0x3c00)), fbits(1.0f));
	assert_int_equal(fbits(cc_half_to_float(0x0001)), fbits(0x1p-24f));
	assert_int_equal(fbits(cc_half_to_float(0x03ff)), fbits(1023 * 0x1p-24f));
	assert_int_equal(fbits(cc_half_to_float(0x7bff)), fbits(65504.0f));
	assert_int_equal(fbits(cc_half_to_float(0x3555)), fbits(0.333251953125f));
	assert_int_equal(fbits(cc_half_to_float(0x8000)), 0x80000000);
	assert_int_equal(fbits(cc_half_to_float(0x8001)), fbits(-0x1p-24f));
	assert_int_equal(fbits(cc_half_to_float(0x7c00)), 0x7f800000);
	assert_int_equal(fbits(cc_half_to_float(0xfc00)), 0xff800000);
	assert_true(isnan(cc_half_to_float(0x7e00)));
	assert_true(isnan(cc_half_to_float(0x7c01)));
}

/* Value of a binary16 pattern from its definition, for comparison. */
static double half_value(uint16_t h)
{
	int e = (h >> 10) & 0x1f;
	int m = h & 0x3ff;
	double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);

	return h & 0x8000 ? -v : v;
}

static void test_half_exhaustive(void **state)
{
	uint32_t h;

	(void)state;
	for (h = 0; h < 0x10000; h++) {
		float f = cc_half_to_float((uint16_t)h);

		if (half_is_nan((uint16_t)h)) {
			assert_true(isnan(f));
			assert_true(half_is_nan(cc_float_to_half(f)));
			continue;
		}
		if ((h & 0x7fff) == 0x7c00)
			assert_true(isinf(f));
		else
			assert_int_equal(dbits(f), dbits(half_value((uint16_t)h)));
		assert_int_equal(cc_float_to_half(f), h);
	}
}

/* Every midpoint between adjacent finite halves (exact in float) goes to
 * the even neighbour; one float ulp off it goes to the nearer one. */
static void test_half_ties(void **state)
{
	uint32_t h;

	(void)state;
	for (h = 0; h < 0x7bff; h++) {
		uint16_t lo = (uint16_t)h, hi = (uint16_t)(h + 1);
		float mid = (float)((half_value(lo) + half_value(hi)) / 2);
		uint16_t even = (lo & 1) ? hi : lo;

		assert_int_equal(cc_float_to_half(mid), even);
		assert_int_equal(cc_float_to_half(-mid), even | 0x8000);
		assert_int_equal(cc_float_to_half(nextafterf(mid, 0)), lo);
		assert_int_equal(cc_float_to_half(nextafterf(mid, INFINITY)), hi);
	}
}

/* ---- bfloat16 ---- */

static void test_bf16_known(void **state)
{
	static const struct {
		uint32_t f; /* float bits */
		uint16_t b;
	} cases[] = {
		{ 0x3f800000, 0x3f80 }, /* 1.0 */
		{ 0xc0000000, 0xc000 }, /* -2.0 */
		{ 0x80000000, 0x8000 }, /* -0.0 */
		{ 0x3dcccccd, 0x3dcd }, /* 0.1f: low half 0xcccd > 0x8000 -> up */
		{ 0x3eaaaaab, 0x3eab }, /* 1/3 */
		{ 0x3f808000, 0x3f80 }, /* 1 + 2^-8: tie -> even */
		{ 0x3f818000, 0x3f82 }, /* 1 + 3*2^-8: tie -> even */
		{ 0x3f808001, 0x3f81 }, /* past the tie */
		{ 0x3f807fff, 0x3f80 }, /* below the tie */
		{ 0x7f7fffff, 0x7f80 }, /* FLT_MAX rounds to inf */
		{ 0x7f7f7fff, 0x7f7f }, /* largest finite bfloat16 stays */
		{ 0x7f800000, 0x7f80 }, /* inf */
		{ 0xff800000, 0xff80 }, /* -inf */
		{ 0x00000001, 0x0000 }, /* float subnormals: same exponent range */
		{ 0x00008000, 0x0000 }, /* tie -> even 0 */
		{ 0x00018000, 0x0002 }, /* tie -> even 2 */
		{ 0x00010000, 0x0001 }, /* smallest bfloat16 subnormal */
		{ 0x43808000, 0x4380 }, /* 257: tie -> 256 */
	};
	size_t k;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++)
		assert_int_equal(cc_float_to_bf16(bitsf(cases[k].f)), cases[k].b);
	assert_true(bf16_is_nan(cc_float_to_bf16(NAN)));
	assert_true(bf16_is_nan(cc_float_to_bf16(bitsf(0x7f800001)))); /* payload in low half */
	assert_true(bf16_is_nan(cc_float_to_bf16(bitsf(0xffc00000))));
	assert_int_equal(fbits(cc_bf16_to_float(0x3f80)), 0x3f800000);
	assert_int_equal(fbits(cc_bf16_to_float(0x4380)), fbits(256.0f));
	assert_int_equal(fbits(cc_bf16_to_float(0x0001)), 0x00010000);
	assert_true(isnan(cc_bf16_to_float(0x7fc0)));
}

static void test_bf16_exhaustive(void **state)
{
	uint32_t b;

	(void)state;
	for (b = 0; b < 0x10000; b++) {
		float f = cc_bf16_to_float((uint16_t)b);

		assert_int_equal(fbits(f), b << 16);
		if (bf16_is_nan((uint16_t)b)) {
			assert_true(isnan(f));
			assert_true(bf16_is_nan(cc_float_to_bf16(f)));
			continue;
		}
		assert_int_equal(cc_float_to_bf16(f), b);
	}
	/* Midpoints between neighbours are float bits (b << 16) | 0x8000. */
	for (b = 0; b < 0x7f7f; b++) {
		uint16_t even = (b & 1) ? (uint16_t)(b + 1) : (uint16_t)b;

		assert_int_equal(cc_float_to_bf16(bitsf(b << 16 | 0x8000)), even);
		assert_int_equal(cc_float_to_bf16(bitsf(b << 16 | 0x7fff)), b);
		assert_int_equal(cc_float_to_bf16(bitsf(b << 16 | 0x8001)), b + 1);
	}
}

/* ---- reduction, hand-checked ---- */

/* One element: returns op(a, b), operands and result as the type's bits. */
static uint64_t red1(enum cc_dtype t, enum cc_redop op, uint64_t a, uint64_t b)
{
	unsigned char x[8], y[8], z[8];
	size_t sz = cc_dtype_size(t);

	/* through typed variables, so the bits land right on any endianness */
	switch (sz) {
	case 1: {
		uint8_t u = (uint8_t)a, v = (uint8_t)b;

		memcpy(x, &u, 1);
		memcpy(y, &v, 1);
		break;
	}
	case 2: {
		uint16_t u = (uint16_t)a, v = (uint16_t)b;

		memcpy(x, &u, 2);
		memcpy(y, &v, 2);
		break;
	}
	case 4: {
		uint32_t u = (uint32_t)a, v = (uint32_t)b;

		memcpy(x, &u, 4);
		memcpy(y, &v, 4);
		break;
	}
	default:
		memcpy(x, &a, 8);
		memcpy(y, &b, 8);
		break;
	}
	cc_reduce(z, x, y, 1, t, op);
	return get_bits(z, 0, t);
}

#define I8(v) ((uint64_t)(uint8_t)(int8_t)(v))
#define I32(v) ((uint64_t)(uint32_t)(int32_t)(v))
#define I64(v) ((uint64_t)(int64_t)(v))

static void test_reduce_int8_uint8(void **state)
{
	(void)state;
	assert_int_equal(red1(CC_INT8, CC_SUM, 127, 1), I8(-128));	/* wraps */
	assert_int_equal(red1(CC_INT8, CC_SUM, I8(-128), I8(-1)), 127);
	assert_int_equal(red1(CC_INT8, CC_AVG, 100, 100), I8(-56));	/* avg reduces as sum */
	assert_int_equal(red1(CC_INT8, CC_PROD, I8(-3), 50), 106);	/* -150 + 256 */
	assert_int_equal(red1(CC_INT8, CC_PROD, 16, 16), 0);
	assert_int_equal(red1(CC_INT8, CC_MIN, I8(-1), 0), I8(-1));	/* signed compare */
	assert_int_equal(red1(CC_INT8, CC_MAX, I8(-1), 0), 0);
	assert_int_equal(red1(CC_INT8, CC_MIN, 127, I8(-128)), I8(-128));
	assert_int_equal(red1(CC_INT8, CC_MAX, 127, I8(-128)), 127);

	assert_int_equal(red1(CC_UINT8, CC_SUM, 255, 1), 0);
	assert_int_equal(red1(CC_UINT8, CC_SUM, 200, 100), 44);
	assert_int_equal(red1(CC_UINT8, CC_PROD, 3, 5), 15);
	assert_int_equal(red1(CC_UINT8, CC_PROD, 16, 17), 16);		/* 272 - 256 */
	assert_int_equal(red1(CC_UINT8, CC_PROD, 255, 255), 1);		/* (-1)^2 */
	assert_int_equal(red1(CC_UINT8, CC_MIN, 255, 1), 1);		/* unsigned compare */
	assert_int_equal(red1(CC_UINT8, CC_MAX, 255, 1), 255);
}

static void test_reduce_int32_uint32(void **state)
{
	(void)state;
	assert_int_equal(red1(CC_INT32, CC_SUM, I32(-5), 3), I32(-2));
	assert_int_equal(red1(CC_INT32, CC_SUM, INT32_MAX, 1), I32(INT32_MIN));
	assert_int_equal(red1(CC_INT32, CC_PROD, I32(-7), 6), I32(-42));
	assert_int_equal(red1(CC_INT32, CC_PROD, 65536, 65536), 0);
	assert_int_equal(red1(CC_INT32, CC_MIN, I32(-7), I32(-300)), I32(-300));
	assert_int_equal(red1(CC_INT32, CC_MAX, I32(-7), I32(-300)), I32(-7));
	assert_int_equal(red1(CC_INT32, CC_MIN, I32(INT32_MIN), I32(-1)), I32(INT32_MIN));
	assert_int_equal(red1(CC_INT32, CC_MAX, I32(-1), 1), 1);

	assert_int_equal(red1(CC_UINT32, CC_SUM, 0xffffffff, 2), 1);
	assert_int_equal(red1(CC_UINT32, CC_PROD, 0x10001, 0x10001), 0x00020001);
	assert_int_equal(red1(CC_UINT32, CC_MIN, 0x80000000, 1), 1);
	assert_int_equal(red1(CC_UINT32, CC_MAX, 0x80000000, 1), 0x80000000);
}

static void test_reduce_int64_uint64(void **state)
{
	(void)state;
	assert_int_equal(red1(CC_INT64, CC_SUM, INT64_MAX, 1), I64(INT64_MIN));
	assert_int_equal(red1(CC_INT64, CC_SUM, I64(-10), I64(-20)), I64(-30));
	assert_int_equal(red1(CC_INT64, CC_PROD, I64(-3), 7), I64(-21));
	assert_int_equal(red1(CC_INT64, CC_PROD, UINT64_C(1) << 32, UINT64_C(1) << 32), 0);
	assert_int_equal(red1(CC_INT64, CC_MIN, I64(INT64_MIN), I64(-1)), I64(INT64_MIN));
	assert_int_equal(red1(CC_INT64, CC_MAX, I64(-1), 0), 0);
	assert_int_equal(red1(CC_INT64, CC_MAX, I64(INT64_MIN), INT64_MAX), INT64_MAX);

	assert_int_equal(red1(CC_UINT64, CC_SUM, UINT64_MAX, 1), 0);
	assert_int_equal(red1(CC_UINT64, CC_PROD, UINT64_MAX, UINT64_MAX), 1);
	assert_int_equal(red1(CC_UINT64, CC_MIN, UINT64_MAX, 0), 0);
	assert_int_equal(red1(CC_UINT64, CC_MAX, UINT64_MAX, 0), UINT64_MAX);
}

static void test_reduce_half(void **state)
{
	(void)state;
	assert_int_equal(red1(CC_FLOAT16, CC_SUM, 0x3c00, 0x4000), 0x4200);	/* 1 + 2 = 3 */
	assert_int_equal(red1(CC_FLOAT16, CC_AVG, 0x3c00, 0x4000), 0x4200);
	assert_int_equal(red1(CC_FLOAT16, CC_PROD, 0x4000, 0x4200), 0x4600);	/* 2 * 3 = 6 */
	assert_int_equal(red1(CC_FLOAT16, CC_SUM, 0x6800, 0x3c00), 0x6800);	/* 2048 + 1: tie -> even */
	assert_int_equal(red1(CC_FLOAT16, CC_SUM, 0x6800, 0x4200), 0x6802);	/* 2048 + 3 = 2051 -> 2052 */
	assert_int_equal(red1(CC_FLOAT16, CC_SUM, 0x7bff, 0x4c00), 0x7c00);	/* 65504 + 16: tie -> inf */
	assert_int_equal(red1(CC_FLOAT16, CC_PROD, 0x7bff, 0x4000), 0x7c00);	/* overflow */
	assert_int_equal(red1(CC_FLOAT16, CC_SUM, 0x3c00, 0xbc00), 0x0000);	/* 1 - 1 = +0 */
	assert_int_equal(red1(CC_FLOAT16, CC_PROD, 0x0001, 0x3800), 0x0000);	/* 2^-25: tie -> 0 */
	assert_int_equal(red1(CC_FLOAT16, CC_MIN, 0xc000, 0x3c00), 0xc000);	/* min(-2, 1) */
	assert_int_equal(red1(CC_FLOAT16, CC_MAX, 0xc000, 0x3c00), 0x3c00);
	assert_int_equal(red1(CC_FLOAT16, CC_MIN, 0xfc00, 0x7bff), 0xfc00);	/* -inf */
}

static void test_reduce_bf16(void **state)
{
	(void)state;
	assert_int_equal(red1(CC_BFLOAT16, CC_SUM, 0x3f80, 0x4000), 0x4040);	/* 1 + 2 = 3 */
	assert_int_equal(red1(CC_BFLOAT16, CC_SUM, 0x4380, 0x3f80), 0x4380);	/* 256 + 1: tie -> 256 */
	assert_int_equal(red1(CC_BFLOAT16, CC_SUM, 0x4380, 0x4040), 0x4382);	/* 259: tie -> 260 */
	assert_int_equal(red1(CC_BFLOAT16, CC_PROD, 0x4000, 0x4040), 0x40c0);	/* 2 * 3 = 6 */
	assert_int_equal(red1(CC_BFLOAT16, CC_PROD, 0x7f7f, 0x4000), 0x7f80);	/* overflow */
	assert_int_equal(red1(CC_BFLOAT16, CC_MIN, 0xc000, 0x3f80), 0xc000);
	assert_int_equal(red1(CC_BFLOAT16, CC_MAX, 0xc000, 0x3f80), 0x3f80);
}

static void test_reduce_float_double(void **state)
{
	(void)state;
	assert_int_equal(red1(CC_FLOAT32, CC_SUM, fbits(1.0f), fbits(2.0f)), fbits(3.0f));
	assert_int_equal(red1(CC_FLOAT32, CC_SUM, fbits(16777216.0f), fbits(1.0f)),
			 fbits(16777216.0f)); /* 2^24 + 1: tie -> even */
	assert_int_equal(red1(CC_FLOAT32, CC_PROD, fbits(-1.5f), fbits(4.0f)), fbits(-6.0f));
	assert_int_equal(red1(CC_FLOAT32, CC_MIN, fbits(-3.0f), fbits(2.0f)), fbits(-3.0f));
	assert_int_equal(red1(CC_FLOAT32, CC_MAX, fbits(-3.0f), fbits(2.0f)), fbits(2.0f));

	assert_int_equal(red1(CC_FLOAT64, CC_SUM, dbits(0x1p53), dbits(1.0)), dbits(0x1p53));
	assert_int_equal(red1(CC_FLOAT64, CC_SUM, dbits(0.5), dbits(0.25)), dbits(0.75));
	assert_int_equal(red1(CC_FLOAT64, CC_PROD, dbits(-2.0), dbits(-2.0)), dbits(4.0));
	assert_int_equal(red1(CC_FLOAT64, CC_MIN, dbits(-1e300), dbits(1e300)), dbits(-1e300));
	assert_int_equal(red1(CC_FLOAT64, CC_MAX, dbits(-1e300), dbits(1e300)), dbits(1e300));
}

/* minNum/maxNum (NCCL's fminf/fmaxf, CUDA's __hmin/__hmax): NaN is
 * ignored, -0 < +0, and the result does not depend on operand order. */
static void test_minmax_nan_zero(void **state)
{
	uint64_t fnan = fbits(NAN), dnan = dbits((double)NAN);

	(void)state;
	assert_int_equal(red1(CC_FLOAT32, CC_MIN, fnan, fbits(1.0f)), fbits(1.0f));
	assert_int_equal(red1(CC_FLOAT32, CC_MIN, fbits(1.0f), fnan), fbits(1.0f));
	assert_int_equal(red1(CC_FLOAT32, CC_MAX, fnan, fbits(-1.0f)), fbits(-1.0f));
	assert_true(isnan(bitsf((uint32_t)red1(CC_FLOAT32, CC_MIN, fnan, fnan))));
	assert_int_equal(red1(CC_FLOAT32, CC_MIN, fbits(0.0f), fbits(-0.0f)), fbits(-0.0f));
	assert_int_equal(red1(CC_FLOAT32, CC_MIN, fbits(-0.0f), fbits(0.0f)), fbits(-0.0f));
	assert_int_equal(red1(CC_FLOAT32, CC_MAX, fbits(0.0f), fbits(-0.0f)), fbits(0.0f));
	assert_int_equal(red1(CC_FLOAT32, CC_MAX, fbits(-0.0f), fbits(0.0f)), fbits(0.0f));

	assert_int_equal(red1(CC_FLOAT64, CC_MIN, dnan, dbits(2.0)), dbits(2.0));
	assert_int_equal(red1(CC_FLOAT64, CC_MAX, dbits(2.0), dnan), dbits(2.0));
	assert_int_equal(red1(CC_FLOAT64, CC_MIN, dbits(0.0), dbits(-0.0)), dbits(-0.0));
	assert_int_equal(red1(CC_FLOAT64, CC_MAX, dbits(-0.0), dbits(0.0)), dbits(0.0));

	assert_int_equal(red1(CC_FLOAT16, CC_MIN, 0x7e00, 0x3c00), 0x3c00);
	assert_int_equal(red1(CC_FLOAT16, CC_MAX, 0x3c00, 0xfe01), 0x3c00);
	assert_int_equal(red1(CC_FLOAT16, CC_MIN, 0x7e01, 0xfe00), 0x7e00); /* canonical */
	assert_int_equal(red1(CC_FLOAT16, CC_MIN, 0x0000, 0x8000), 0x8000);
	assert_int_equal(red1(CC_FLOAT16, CC_MAX, 0x8000, 0x0000), 0x0000);
	assert_int_equal(red1(CC_BFLOAT16, CC_MIN, 0x7fc1, 0x3f80), 0x3f80);
	assert_int_equal(red1(CC_BFLOAT16, CC_MAX, 0x7fc1, 0xffc0), 0x7fc0);
	assert_int_equal(red1(CC_BFLOAT16, CC_MIN, 0x0000, 0x8000), 0x8000);

	/* NaN in sums stays NaN */
	assert_true(half_is_nan((uint16_t)red1(CC_FLOAT16, CC_SUM, 0x7e00, 0x3c00)));
	assert_true(bf16_is_nan((uint16_t)red1(CC_BFLOAT16, CC_PROD, 0x3f80, 0x7fc0)));
}

/* dst aliasing a or b, and buffers at odd addresses. */
static void test_reduce_alias_unaligned(void **state)
{
	int32_t a[4] = { 1, -2, 3, INT32_MAX }, b[4] = { 10, 20, -30, 1 };
	unsigned char raw[1 + 3 * 8];
	double x[3] = { 1.5, -2.0, 0.25 }, y[3] = { 2.0, 0.5, 0.25 }, z[3];

	(void)state;
	cc_reduce(a, a, b, 4, CC_INT32, CC_SUM);
	assert_int_equal(a[0], 11);
	assert_int_equal(a[1], 18);
	assert_int_equal(a[2], -27);
	assert_int_equal(a[3], INT32_MIN);
	cc_reduce(b, a, b, 4, CC_INT32, CC_MAX);
	assert_int_equal(b[0], 11);
	assert_int_equal(b[1], 20);
	assert_int_equal(b[2], -27);
	assert_int_equal(b[3], 1);

	memcpy(raw + 1, x, sizeof(x));
	cc_reduce(raw + 1, raw + 1, y, 3, CC_FLOAT64, CC_PROD);
	memcpy(z, raw + 1, sizeof(z));
	assert_int_equal(dbits(z[0]), dbits(3.0));
	assert_int_equal(dbits(z[1]), dbits(-1.0));
	assert_int_equal(dbits(z[2]), dbits(0.0625));
	cc_reduce(raw + 1, raw + 1, raw + 1, 0, CC_FLOAT64, CC_SUM); /* count 0: no-op */
}

/* ---- average ---- */

static void test_postdiv_int(void **state)
{
	int32_t s32[6] = { -7, 7, -1, 1, INT32_MIN, INT32_MAX };
	int8_t s8[4] = { -128, 127, -3, 0 };
	int64_t s64[3] = { INT64_MIN, INT64_MAX, -5 };
	uint8_t u8[2] = { 255, 7 };
	uint64_t u64[2] = { UINT64_MAX, 5 };
	uint32_t u32[1] = { 0xffffffff };

	(void)state;
	cc_postdiv(s32, 6, CC_INT32, 2); /* C truncates toward zero */
	assert_int_equal(s32[0], -3);
	assert_int_equal(s32[1], 3);
	assert_int_equal(s32[2], 0);
	assert_int_equal(s32[3], 0);
	assert_int_equal(s32[4], -1073741824);
	assert_int_equal(s32[5], 1073741823);

	cc_postdiv(s8, 4, CC_INT8, 1); /* INT8_MIN / 1 */
	assert_int_equal(s8[0], -128);
	cc_postdiv(s8, 4, CC_INT8, 3);
	assert_int_equal(s8[0], -42);
	assert_int_equal(s8[1], 42);
	assert_int_equal(s8[2], -1);
	assert_int_equal(s8[3], 0);

	cc_postdiv(s64, 3, CC_INT64, 3);
	assert_int_equal(s64[0], INT64_C(-3074457345618258602));
	assert_int_equal(s64[1], INT64_C(3074457345618258602));
	assert_int_equal(s64[2], -1);
	memcpy(s64, (int64_t[]){ INT64_MIN }, 8);
	cc_postdiv(s64, 1, CC_INT64, 0xffffffff);
	assert_int_equal(s64[0], INT64_C(-2147483648)); /* 2^63 / (2^32 - 1) = 2^31 + 0.5.. */

	cc_postdiv(u8, 2, CC_UINT8, 2);
	assert_int_equal(u8[0], 127);
	assert_int_equal(u8[1], 3);
	cc_postdiv(u64, 2, CC_UINT64, 0xffffffff);
	assert_int_equal(u64[0], UINT64_C(0x100000001));
	assert_int_equal(u64[1], 0);
	cc_postdiv(u32, 1, CC_UINT32, 16);
	assert_int_equal(u32[0], 0x0fffffff);
	cc_postdiv(u32, 1, CC_UINT32, 0); /* divisor 0 leaves data alone */
	assert_int_equal(u32[0], 0x0fffffff);
}

static void test_postdiv_float(void **state)
{
	uint16_t h[3] = { 0x4200, 0x3c00, 0x7bff }; /* 3, 1, 65504 */
	uint16_t b[2] = { 0x3f80, 0x4040 };	    /* 1, 3 */
	float f[3] = { 1.0f, 3.0f, -7.0f };
	double d[2] = { 1.0, -7.0 };

	(void)state;
	cc_postdiv(h, 3, CC_FLOAT16, 2);
	assert_int_equal(h[0], 0x3e00); /* 1.5 */
	assert_int_equal(h[1], 0x3800); /* 0.5 */
	assert_int_equal(h[2], 0x77ff); /* 32752 */
	h[1] = 0x3c00;
	cc_postdiv(&h[1], 1, CC_FLOAT16, 3);
	assert_int_equal(h[1], 0x3555); /* 1/3 */

	cc_postdiv(b, 2, CC_BFLOAT16, 3);
	assert_int_equal(b[0], 0x3eab); /* 1/3 */
	assert_int_equal(b[1], 0x3f80); /* 3/3 */

	cc_postdiv(f, 3, CC_FLOAT32, 3);
	assert_int_equal(fbits(f[0]), 0x3eaaaaab);
	assert_int_equal(fbits(f[1]), fbits(1.0f));
	assert_int_equal(fbits(f[2]), fbits(-7.0f / 3.0f));
	/* 2^24 + 1 is not a float: dividing by (float)d would give 3 * 2^-24
	 * (0x34400000); the correctly rounded 3 / (2^24 + 1) is one ulp less. */
	f[1] = 3.0f;
	cc_postdiv(&f[1], 1, CC_FLOAT32, 16777217);
	assert_int_equal(fbits(f[1]), 0x343fffff);

	cc_postdiv(d, 2, CC_FLOAT64, 3);
	assert_int_equal(dbits(d[0]), UINT64_C(0x3fd5555555555555));
	assert_int_equal(dbits(d[1]), dbits(-7.0 / 3.0));
}

/* ---- input generation ---- */

static const uint32_t nranks_list[] = { 1, 2, 3, 17, 33, 64 };
#define NELEM 1000
#define SEED UINT64_C(0x5eed)

/* acc = op over ranks [lo, hi) of in, pairwise (a tree order). */
static void fold_tree(void *acc, char *in, size_t stride, uint32_t lo, uint32_t hi,
		      enum cc_dtype t, enum cc_redop op)
{
	uint32_t mid;
	void *tmp;

	if (hi - lo == 1) {
		memcpy(acc, in + lo * stride, stride);
		return;
	}
	mid = lo + (hi - lo) / 2;
	tmp = malloc(stride);
	assert_non_null(tmp);
	fold_tree(acc, in, stride, lo, mid, t, op);
	fold_tree(tmp, in, stride, mid, hi, t, op);
	cc_reduce(acc, tmp, acc, NELEM, t, op); /* right operand first, too */
	free(tmp);
}

/* Min/max/sum/prod of one element over n ranks, computed here in int64 /
 * uint64 / double independently of core/dtype.c, as the type's bits. */
static uint64_t ref_int(const char *in, size_t stride, uint32_t n, size_t i, enum cc_dtype t,
			enum cc_redop op)
{
	uint64_t mask = cc_dtype_size(t) == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * cc_dtype_size(t))) - 1;
	uint64_t u = get_bits(in, i, t);
	int64_t s = get_signed(in, i, t);
	uint32_t r;

	for (r = 1; r < n; r++) {
		uint64_t x = get_bits(in + r * stride, i, t);
		int64_t sx = get_signed(in + r * stride, i, t);

		switch (op) {
		case CC_PROD:
			u *= x;
			break;
		case CC_MIN:
			s = sx < s ? sx : s;
			u = x < u ? x : u;
			break;
		case CC_MAX:
			s = sx > s ? sx : s;
			u = x > u ? x : u;
			break;
		default:
			u += x;
			break;
		}
	}
	if ((op == CC_MIN || op == CC_MAX) && is_signed_t(t))
		memcpy(&u, &s, 8);
	return u & mask;
}

static double ref_float(const char *in, size_t stride, uint32_t n, size_t i, enum cc_dtype t,
			enum cc_redop op)
{
	double v = get_double(in, i, t);
	uint32_t r;

	for (r = 1; r < n; r++) {
		double x = get_double(in + r * stride, i, t);

		v = op == CC_PROD ? v * x : op == CC_MIN ? fmin(v, x) : op == CC_MAX ? fmax(v, x) : v + x;
	}
	return v;
}

/* The folded result equals the exact result computed here. */
static void check_reference(const void *res, const char *in, size_t stride, uint32_t n,
			    enum cc_dtype t, enum cc_redop op)
{
	size_t i;

	for (i = 0; i < NELEM; i++) {
		if (cc_dtype_is_float(t)) {
			double want = ref_float(in, stride, n, i, t, op);

			/* all inputs and partial results are small integers, so
			 * double arithmetic here is exact too */
			assert_int_equal(dbits(get_double(res, i, t)), dbits(want));
			if (op == CC_PROD)
				assert_true(fabs(want) == 2.0);
		} else {
			uint64_t want = ref_int(in, stride, n, i, t, op);

			assert_int_equal(get_bits(res, i, t), want);
			if (op == CC_PROD)
				assert_true(want & 1);
		}
	}
}

/* For each nranks, dtype and op: fold the inputs of all ranks forward
 * (0, 1, .., n-1), in reverse (n-1 .. 0, new value on the left) and as a
 * pairwise tree; all three must be bit-identical and equal the exact
 * result, and after cc_postdiv for avg, still bit-identical. */
static void test_fill_exact_any_order(void **state)
{
	size_t k;
	int t, op;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(nranks_list); k++) {
		uint32_t n = nranks_list[k];

		for (t = 0; t < CC_DTYPE_COUNT; t++) {
			size_t stride = NELEM * cc_dtype_size((enum cc_dtype)t);
			char *in = malloc(n * stride);
			char *fwd = malloc(stride), *rev = malloc(stride), *tree = malloc(stride);
			uint32_t r;

			assert_non_null(in);
			assert_non_null(fwd);
			assert_non_null(rev);
			assert_non_null(tree);
			for (op = 0; op < CC_REDOP_COUNT; op++) {
				enum cc_dtype dt = (enum cc_dtype)t;
				enum cc_redop o = (enum cc_redop)op;

				for (r = 0; r < n; r++)
					cc_fill_input(in + r * stride, 0, NELEM, dt, o, r, n, SEED + k);
				memcpy(fwd, in, stride);
				for (r = 1; r < n; r++)
					cc_reduce(fwd, fwd, in + r * stride, NELEM, dt, o);
				memcpy(rev, in + (n - 1) * stride, stride);
				for (r = n - 1; r-- > 0;)
					cc_reduce(rev, in + r * stride, rev, NELEM, dt, o);
				fold_tree(tree, in, stride, 0, n, dt, o);

				assert_memory_equal(fwd, rev, stride);
				assert_memory_equal(fwd, tree, stride);
				check_reference(fwd, in, stride, n, dt, o);
				if (o == CC_AVG) {
					cc_postdiv(fwd, NELEM, dt, n);
					cc_postdiv(rev, NELEM, dt, n);
					assert_memory_equal(fwd, rev, stride);
				}
			}
			free(in);
			free(fwd);
			free(rev);
			free(tree);
		}
	}
}

/* Filling [first, first + len) gives the same bytes as that part of a
 * fill of the whole buffer. */
static void test_fill_subrange(void **state)
{
	static const size_t ranges[][2] = { { 0, 257 }, { 1, 10 }, { 100, 157 }, { 256, 1 }, { 13, 0 },
					    { 77, 64 } };
	enum { N = 257 };
	uint64_t full[N], part[N + 1], far1[8], far2[8];
	size_t k;
	int t, op;

	(void)state;
	for (t = 0; t < CC_DTYPE_COUNT; t++) {
		size_t sz = cc_dtype_size((enum cc_dtype)t);

		for (op = 0; op < CC_REDOP_COUNT; op++) {
			enum cc_dtype dt = (enum cc_dtype)t;
			enum cc_redop o = (enum cc_redop)op;

			cc_fill_input(full, 0, N, dt, o, 5, 7, 42);
			for (k = 0; k < ARRAY_SIZE(ranges); k++) {
				memset(part, 0xa5, sizeof(part));
				cc_fill_input(part, ranges[k][0], ranges[k][1], dt, o, 5, 7, 42);
				if (ranges[k][1])
					assert_memory_equal(part, (char *)full + ranges[k][0] * sz,
							    ranges[k][1] * sz);
				/* nothing written past the range */
				assert_int_equal(((unsigned char *)part)[ranges[k][1] * sz], 0xa5);
			}
			/* far from 0: element 2^40 + 3 agrees however it is reached */
			cc_fill_input(far1, UINT64_C(1) << 40, 8, dt, o, 1, 3, 9);
			cc_fill_input(far2, (UINT64_C(1) << 40) + 3, 5, dt, o, 1, 3, 9);
			assert_memory_equal((char *)far1 + 3 * sz, far2, 5 * sz);
		}
	}
}

/* The value ranges docs/correctness.md promises. */
static void test_fill_ranges(void **state)
{
	static const unsigned prec[CC_DTYPE_COUNT] = {
		[CC_FLOAT16] = 11, [CC_BFLOAT16] = 8, [CC_FLOAT32] = 24, [CC_FLOAT64] = 53,
	};
	static const uint32_t nr[] = { 1, 2, 3, 17, 64, 300, 5000 };
	enum { N = 2000 };
	uint64_t buf[N];
	size_t k, i;
	int t;

	(void)state;
	for (t = CC_FLOAT16; t <= CC_FLOAT64; t++) {
		enum cc_dtype dt = (enum cc_dtype)t;

		for (k = 0; k < ARRAY_SIZE(nr); k++) {
			double a = ldexp(1, (int)prec[t]) / nr[k], seen = 0;

			a = floor(a);
			a = a < 1 ? 1 : a > 64 ? 64 : a;
			cc_fill_input(buf, 0, N, dt, CC_SUM, 0, nr[k], 3);
			for (i = 0; i < N; i++) {
				double v = get_double(buf, i, dt);

				assert_true(v == floor(v) && fabs(v) <= a);
				seen = fmax(seen, fabs(v));
			}
			assert_true(seen == a); /* the whole range is used */
		}
		cc_fill_input(buf, 0, N, dt, CC_MIN, 2, 4, 3);
		for (i = 0; i < N; i++) {
			double v = get_double(buf, i, dt);

			assert_true(v == floor(v));
			assert_true(fabs(v) <= (dt == CC_BFLOAT16 ? 256 : 1000));
		}
		/* prod: exactly one rank per element holds +-2, the rank
		 * (i + seed) % nranks; the others +-1 */
		for (i = 0; i < 50; i++) {
			uint32_t r, twos = 0;

			for (r = 0; r < 5; r++) {
				double v;

				cc_fill_input(buf, i, 1, dt, CC_PROD, r, 5, 7);
				v = get_double(buf, 0, dt);
				assert_true(fabs(v) == 1 || fabs(v) == 2);
				if (fabs(v) == 2) {
					twos++;
					assert_int_equal(r, (i + 7) % 5);
				}
			}
			assert_int_equal(twos, 1);
		}
	}
	/* integer prod inputs are odd */
	for (t = CC_INT8; t <= CC_UINT64; t++) {
		cc_fill_input(buf, 0, N, (enum cc_dtype)t, CC_PROD, 3, 8, 11);
		for (i = 0; i < N; i++)
			assert_true(get_bits(buf, i, (enum cc_dtype)t) & 1);
	}
}

/* Inputs differ from element to element, rank to rank and seed to seed,
 * so data landing in the wrong place or from the wrong rank shows. */
static void test_fill_varies(void **state)
{
	enum { N = 1000 };
	uint64_t a[N], b[N];
	int t, op;

	(void)state;
	for (t = 0; t < CC_DTYPE_COUNT; t++) {
		enum cc_dtype dt = (enum cc_dtype)t;
		size_t sz = cc_dtype_size(dt);

		for (op = 0; op < CC_REDOP_COUNT; op++) {
			enum cc_redop o = (enum cc_redop)op;
			size_t i, diff_rank = 0, diff_next = 0;

			cc_fill_input(a, 0, N, dt, o, 0, 8, 1);
			cc_fill_input(b, 0, N, dt, o, 1, 8, 1);
			for (i = 0; i < N; i++) {
				diff_rank += get_bits(a, i, dt) != get_bits(b, i, dt);
				if (i + 1 < N)
					diff_next += get_bits(a, i, dt) != get_bits(a, i + 1, dt);
			}
			/* prod on floats draws only a sign (and the +-2 rank),
			 * so about half the elements differ; the rest far more */
			assert_true(diff_rank > N / 3);
			assert_true(diff_next > N / 3);
			cc_fill_input(b, 0, N, dt, o, 0, 8, 2);
			assert_memory_not_equal(a, b, N * sz);
		}
	}
}

/* ---- #wrong ---- */

static void test_count_wrong(void **state)
{
	int32_t i1[5] = { 1, 2, 3, 4, 5 }, i2[5] = { 1, 0, 3, -4, 6 };
	int8_t c1[2] = { 0, 1 }, c2[2] = { -128, 1 };
	float f1[8] = { 0.0f, NAN, NAN, 1.0f, INFINITY, 1.0f, 2.0f, -0.0f };
	float f2[8] = { -0.0f, -NAN, 1.0f, NAN, -INFINITY, 0x1.000002p0f, 2.0f, -0.0f };
	uint16_t h1[5] = { 0x0000, 0x7e00, 0x7c00, 0x3c00, 0x7e00 };
	uint16_t h2[5] = { 0x8000, 0xfc01, 0x7e00, 0x3c01, 0x7e00 };
	uint16_t b1[4] = { 0x8000, 0x7fc0, 0x7f80, 0x3f80 };
	uint16_t b2[4] = { 0x0000, 0xff81, 0x7fc0, 0x3f80 };
	double d1[4] = { 0.0, NAN, 1.0, 0x1p-1074 };
	double d2[4] = { -0.0, -NAN, 1.0, 0.0 };
	uint64_t u1[2] = { UINT64_MAX, 0 }, u2[2] = { UINT64_MAX - 1, 0 };

	(void)state;
	assert_int_equal(cc_count_wrong(i1, i1, 5, CC_INT32), 0);
	assert_int_equal(cc_count_wrong(i1, i2, 5, CC_INT32), 3);
	assert_int_equal(cc_count_wrong(i1, i2, 0, CC_INT32), 0);
	assert_int_equal(cc_count_wrong(i1, i2, 5, CC_UINT32), 3);
	assert_int_equal(cc_count_wrong(c1, c2, 2, CC_INT8), 1); /* no -0 for integers */
	assert_int_equal(cc_count_wrong(u1, u2, 2, CC_UINT64), 1);
	/* +0/-0 equal, NaN/NaN equal, NaN/1 and 1/NaN wrong, inf/-inf
	 * wrong, one ulp wrong */
	assert_int_equal(cc_count_wrong(f1, f2, 8, CC_FLOAT32), 4);
	/* zero, NaN, inf vs NaN, one ulp */
	assert_int_equal(cc_count_wrong(h1, h2, 5, CC_FLOAT16), 2);
	assert_int_equal(cc_count_wrong(b1, b2, 4, CC_BFLOAT16), 1);
	/* smallest subnormal is not zero */
	assert_int_equal(cc_count_wrong(d1, d2, 4, CC_FLOAT64), 1);
	/* same bits in other types: int32 view of +0/-0 floats differs */
	assert_int_equal(cc_count_wrong(&f1[0], &f2[0], 1, CC_INT32), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_half_known),
		cmocka_unit_test(test_half_exhaustive),
		cmocka_unit_test(test_half_ties),
		cmocka_unit_test(test_bf16_known),
		cmocka_unit_test(test_bf16_exhaustive),
		cmocka_unit_test(test_reduce_int8_uint8),
		cmocka_unit_test(test_reduce_int32_uint32),
		cmocka_unit_test(test_reduce_int64_uint64),
		cmocka_unit_test(test_reduce_half),
		cmocka_unit_test(test_reduce_bf16),
		cmocka_unit_test(test_reduce_float_double),
		cmocka_unit_test(test_minmax_nan_zero),
		cmocka_unit_test(test_reduce_alias_unaligned),
		cmocka_unit_test(test_postdiv_int),
		cmocka_unit_test(test_postdiv_float),
		cmocka_unit_test(test_fill_exact_any_order),
		cmocka_unit_test(test_fill_subrange),
		cmocka_unit_test(test_fill_ranges),
		cmocka_unit_test(test_fill_varies),
		cmocka_unit_test(test_count_wrong),
	};

	return cmocka_run_group_tests_name("dtype", tests, NULL, NULL);
}
