/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/cuda/test_reduce_host.cu — reduce.cu's kernels run on the CPU.
 *
 * Every kernel thread of backend/cuda/reduce_ops.cuh is a __host__
 * __device__ function of (Args, block, thread, grid) that shares nothing
 * with other threads, so running all (block, thread) pairs one after another
 * on the host computes what the GPU computes — same setup() and plan(), same
 * vector split, head, tail, unrolled bounds and grid-stride, same
 * arithmetic templates — with two differences that this test cannot see:
 * the device's intrinsics (__fadd_rn, __fmul_rn, __ddiv_rn,
 * __double2float_rn: IEEE 754 round-to-nearest, as the host's SSE operators
 * are; cvt.rn.f16.f32 / cvt.rn.bf16.f32 inside __float2half_rn /
 * __float2bfloat16_rn, whose host versions are CUDA's software RNE) and
 * the real memory system.  tests/cuda/test_cuda.c checks those on a GPU.
 *
 * Checked against core/dtype.c (cc_reduce then cc_postdiv), bit for bit
 * except that any NaN equals any NaN: every dtype x redop (avg divides by 2,
 * 3 and 7), inputs from cc_fill_input, random bit patterns, and all pairs of
 * 22 special values; counts around the 16-byte vector size and the unrolled
 * tile; all pointers sharing a misalignment (vector path with a head),
 * different ones (element path), byte offsets (byte path); one and two
 * destinations; in place; grids of 1, 3 and an H200's 132 x 8 blocks; bytes
 * beside each destination untouched.  Copies (nsrc = 1) likewise, where
 * the vector path applies.  Needs nvcc to build, no GPU to run. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/reduce_ops.cuh"

extern "C" {
#include "util/splitmix.h"
}

using namespace ccgpu;

namespace {

const int GUARD = 32;
const unsigned char FILL = 0xa5;

/* Runs the kernel for (dt, op) over `grid` blocks of THREADS threads. */
template <int DT, int OP> void run_grid(const Args &a, uint64_t grid)
{
	for (uint64_t b = 0; b < grid; b++)
		for (unsigned t = 0; t < THREADS; t++)
			reduce_body<DT, OP>(a, b, t, grid);
}

template <int DT> void run_dt(int op, const Args &a, uint64_t grid)
{
	switch (op) {
	case CC_PROD: run_grid<DT, CC_PROD>(a, grid); break;
	case CC_MIN: run_grid<DT, CC_MIN>(a, grid); break;
	case CC_MAX: run_grid<DT, CC_MAX>(a, grid); break;
	default: run_grid<DT, CC_SUM>(a, grid); break;
	}
}

void run_reduce(int dt, int op, const Args &a, uint64_t grid)
{
	switch (dt) {
	case CC_INT8: run_dt<CC_INT8>(op, a, grid); break;
	case CC_UINT8: run_dt<CC_UINT8>(op, a, grid); break;
	case CC_INT32: run_dt<CC_INT32>(op, a, grid); break;
	case CC_UINT32: run_dt<CC_UINT32>(op, a, grid); break;
	case CC_INT64: run_dt<CC_INT64>(op, a, grid); break;
	case CC_UINT64: run_dt<CC_UINT64>(op, a, grid); break;
	case CC_FLOAT16: run_dt<CC_FLOAT16>(op, a, grid); break;
	case CC_BFLOAT16: run_dt<CC_BFLOAT16>(op, a, grid); break;
	case CC_FLOAT32: run_dt<CC_FLOAT32>(op, a, grid); break;
	default: run_dt<CC_FLOAT64>(op, a, grid); break;
	}
}

/* A big grid: 132 SMs (H200 / H100 SXM) x 8 blocks, the most reduce.cu can
 * launch there (it launches what occupancy allows, 3 to 5 blocks per SM). */
uint64_t h200_grid(const Args &a)
{
	uint64_t threads = a.mode == MODE_VEC ? (a.nvec + UNROLL - 1) / UNROLL : a.count;
	uint64_t want = (threads + THREADS - 1) / THREADS, cap = 132 * 8;

	return want < 1 ? 1 : want > cap ? cap : want;
}

bool is_nan(const unsigned char *p, int t)
{
	uint64_t v = 0;

	memcpy(&v, p, cc_dtype_size((enum cc_dtype)t));
	switch (t) {
	case CC_FLOAT16: return (v & 0x7fff) > 0x7c00;
	case CC_BFLOAT16: return (v & 0x7fff) > 0x7f80;
	case CC_FLOAT32: return (v & 0x7fffffff) > 0x7f800000;
	case CC_FLOAT64: return (v & UINT64_C(0x7fffffffffffffff)) > UINT64_C(0x7ff0000000000000);
	default: return false;
	}
}

uint64_t differ(const unsigned char *got, const unsigned char *want, size_t n, int t)
{
	size_t es = cc_dtype_size((enum cc_dtype)t);
	uint64_t w = 0;

	for (size_t i = 0; i < n; i++)
		if (memcmp(got + i * es, want + i * es, es) &&
		    !(is_nan(got + i * es, t) && is_nan(want + i * es, t)))
			w++;
	return w;
}

/* Offsets of src0 src1 dst0 dst1 from 64-byte-aligned bases, in elements,
 * or in bytes when `bytes`.  in_place: dst0 is src0. */
struct layout_spec {
	const char *name;
	size_t off[4];
	int bytes, ndst, in_place;
};

const layout_spec layouts[] = {
	{ "aligned, 2 dst", { 0, 0, 0, 0 }, 0, 2, 0 },
	{ "all +1 elem", { 1, 1, 1, 1 }, 0, 1, 0 },
	{ "all +3 elem, 2 dst", { 3, 3, 3, 3 }, 0, 2, 0 },
	{ "mixed elems, 2 dst", { 1, 3, 5, 2 }, 0, 2, 0 },
	{ "in place", { 0, 0, 0, 0 }, 0, 1, 1 },
	{ "in place +1, 2 dst", { 1, 1, 1, 1 }, 0, 2, 1 },
	{ "byte offsets", { 1, 2, 3, 5 }, 1, 2, 0 },
	{ "all +1 byte", { 1, 1, 1, 1 }, 1, 1, 0 },
};

struct arena {
	unsigned char *mem[4]; /* 64-byte aligned, GUARD + 64 + cap + GUARD */
	size_t cap;
};

unsigned char *base(arena &A, int k) { return A.mem[k] + GUARD + 64; }

long failures, cases;

/* One reduce (nsrc 2) or copy (nsrc 1): dst = want?  Reports the first few
 * failures. */
void check(arena &A, const layout_spec &L, int dt, int op, uint32_t div, int nsrc, size_t n,
	   const unsigned char *a, const unsigned char *b, const unsigned char *want, uint64_t grid,
	   const char *inputs)
{
	size_t es = cc_dtype_size((enum cc_dtype)dt);
	size_t off[4];
	void *src[2], *dst[2];
	int area[2];

	/* the part of each area this case can touch, and a guard after it */
	size_t used = GUARD + 64 + 64 + n * es + GUARD;

	for (int k = 0; k < 4; k++) {
		off[k] = L.bytes ? L.off[k] : L.off[k] * es;
		memset(A.mem[k], FILL, used);
	}
	src[0] = base(A, 0) + off[0];
	src[1] = base(A, 1) + off[1];
	memcpy(src[0], a, n * es);
	if (nsrc == 2)
		memcpy(src[1], b, n * es);
	dst[0] = L.in_place ? src[0] : base(A, 2) + off[2];
	dst[1] = base(A, 3) + off[3];
	area[0] = L.in_place ? 0 : 2;
	area[1] = 3;

	struct cc_op_calc c;
	memset(&c, 0, sizeof(c));
	c.nsrc = (uint8_t)nsrc;
	c.ndst = (uint8_t)L.ndst;
	c.count = n;
	c.dtype = (enum cc_dtype)dt;
	c.redop = (enum cc_redop)op;
	c.postdiv = div;
	Args args = setup(&c, src, dst);
	if (grid == 0)
		grid = h200_grid(args);
	if (nsrc == 2) {
		run_reduce(dt, op, args, grid);
	} else if (args.mode == MODE_VEC) {
		for (uint64_t bl = 0; bl < grid; bl++)
			for (unsigned t = 0; t < THREADS; t++)
				copy_body(args, bl, t, grid);
	} else {
		/* reduce.cu hands these to cudaMemcpyAsync: nothing to emulate */
		return;
	}
	cases++;
	for (int j = 0; j < L.ndst; j++) {
		unsigned char *d = (unsigned char *)dst[j];
		unsigned char *lo = A.mem[area[j]], *hi = d + n * es;
		unsigned char *end = A.mem[area[j]] + used;
		uint64_t w = differ(d, want, n, dt);
		long outside = 0;

		for (unsigned char *p = lo; p < d; p++)
			outside += *p != FILL;
		for (unsigned char *p = hi; p < end; p++)
			outside += *p != FILL;
		if (w || outside) {
			if (++failures <= 20)
				printf("FAIL: %s %s%s %s count %zu layout '%s' grid %" PRIu64
				       " mode %d dst %d: %" PRIu64 " wrong, %ld bytes written outside\n",
				       cc_dtype_name[dt], nsrc == 2 ? cc_redop_name[op] : "copy",
				       div > 1 ? "/div" : "", inputs, n, L.name, grid, args.mode, j, w,
				       outside);
		}
	}
}

uint64_t fp_bits(int s, uint64_t e, uint64_t m, unsigned E, unsigned M)
{
	return ((uint64_t)s << (E + M)) | (e << M) | m;
}

size_t specials(int t, unsigned char *out)
{
	unsigned E = t == CC_FLOAT16 ? 5 : t == CC_FLOAT64 ? 11 : 8;
	unsigned M = t == CC_FLOAT16 ? 10 : t == CC_BFLOAT16 ? 7 : t == CC_FLOAT32 ? 23 : 52;
	uint64_t top = (UINT64_C(1) << E) - 1, bias = top >> 1, mm = (UINT64_C(1) << M) - 1;
	uint64_t half = UINT64_C(1) << (M - 1);
	const uint64_t mag[][2] = { { 0, 0 },	      { 0, 1 },		{ 0, mm },   { 1, 0 },
				    { bias, 0 },      { bias, half },	{ bias + 1, half },
				    { top - 1, mm },  { top, 0 },	{ top, half }, { top, 1 } };
	size_t es = cc_dtype_size((enum cc_dtype)t), n = 0;

	for (int s = 0; s < 2; s++)
		for (size_t k = 0; k < sizeof(mag) / sizeof(mag[0]); k++) {
			uint64_t v = fp_bits(s, mag[k][0], mag[k][1], E, M);
			memcpy(out + n++ * es, &v, es);
		}
	return n;
}

} // namespace

int main(void)
{
	static const size_t counts[] = { 1, 2, 7, 15, 16, 17, 31, 33, 1000, 4099, 8192 + 5 };
	static const uint64_t grids[] = { 1, 3, 0 /* H200 */ };
	const size_t maxn = 70000, cap = maxn * 8 + 64;
	unsigned char *a = (unsigned char *)malloc(cap), *b = (unsigned char *)malloc(cap);
	unsigned char *want = (unsigned char *)malloc(cap);
	arena A;

	A.cap = cap;
	for (int k = 0; k < 4; k++) {
		A.mem[k] = (unsigned char *)aligned_alloc(64, (GUARD + 64 + cap + GUARD + 63) / 64 * 64);
		if (!A.mem[k])
			return 1;
	}
	if (!a || !b || !want)
		return 1;

	for (int t = 0; t < CC_DTYPE_COUNT; t++) {
		size_t es = cc_dtype_size((enum cc_dtype)t);

		for (int op = 0; op < CC_REDOP_COUNT; op++) {
			for (int kind = 0; kind < 3; kind++) {
				/* kind 0: cc_fill_input over the counts; 1: random
				 * bits; 2: special-value pairs (floats) */
				size_t nn = kind == 0 ? sizeof(counts) / sizeof(counts[0]) : 1;

				if (kind == 2 && !cc_dtype_is_float((enum cc_dtype)t))
					continue;
				for (size_t ci = 0; ci < nn; ci++) {
					size_t n = kind == 0 ? counts[ci] : kind == 1 ? 65536 + 13 : 0;
					uint32_t div = op == CC_AVG ? (ci % 3 == 0 ? 2 : ci % 3 == 1 ? 3 : 7) : 1;
					const char *inputs = kind == 0 ? "fill" : kind == 1 ? "random" : "special";

					if (kind == 0) {
						cc_fill_input(a, 0, n, (enum cc_dtype)t, (enum cc_redop)op, 0, div > 1 ? div : 2, 11 + ci);
						cc_fill_input(b, 0, n, (enum cc_dtype)t, (enum cc_redop)op, 1, div > 1 ? div : 2, 11 + ci);
					} else if (kind == 1) {
						uint64_t st = 0xb175 + (uint64_t)t * 8 + (uint64_t)op;
						for (size_t i = 0; i < n * es; i += 8) {
							uint64_t x = cc_splitmix64_next(&st), y = cc_splitmix64_next(&st);
							size_t m = n * es - i < 8 ? n * es - i : 8;
							memcpy(a + i, &x, m);
							memcpy(b + i, &y, m);
						}
						div = op == CC_AVG ? 3 : 1;
					} else {
						unsigned char sp[22 * 8];
						size_t ns = specials(t, sp);
						n = ns * ns;
						for (size_t i = 0; i < ns; i++)
							for (size_t j = 0; j < ns; j++) {
								memcpy(a + (i * ns + j) * es, sp + i * es, es);
								memcpy(b + (i * ns + j) * es, sp + j * es, es);
							}
						div = op == CC_AVG ? 3 : 1;
					}
					cc_reduce(want, a, b, n, (enum cc_dtype)t, (enum cc_redop)op);
					cc_postdiv(want, n, (enum cc_dtype)t, div);
					for (const layout_spec &L : layouts)
						for (uint64_t g : grids)
							check(A, L, t, op, div, 2, n, a, b, want, g, inputs);
				}
			}
		}
		/* copies: the bytes of src0 */
		for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
			size_t n = counts[ci];
			cc_fill_input(a, 0, n, (enum cc_dtype)t, CC_SUM, 0, 2, 5 + ci);
			for (const layout_spec &L : layouts)
				for (uint64_t g : grids)
					check(A, L, t, CC_SUM, 1, 1, n, a, nullptr, a, g, "fill");
		}
	}
	/* One large case per width through the H200 grid: many tiles per thread. */
	{
		static const int wide[] = { CC_INT8, CC_BFLOAT16, CC_FLOAT32, CC_FLOAT64 };
		size_t n = 65536 + 3;
		for (int t : wide) {
			cc_fill_input(a, 0, n, (enum cc_dtype)t, CC_AVG, 0, 3, 1);
			cc_fill_input(b, 0, n, (enum cc_dtype)t, CC_AVG, 1, 3, 1);
			cc_reduce(want, a, b, n, (enum cc_dtype)t, CC_AVG);
			cc_postdiv(want, n, (enum cc_dtype)t, 3);
			for (const layout_spec &L : layouts)
				check(A, L, t, CC_AVG, 3, 2, n, a, b, want, 2, "fill, 2 blocks");
		}
	}
	printf("reduce kernels on the host: %ld cases, %ld failed\n", cases, failures);
	for (int k = 0; k < 4; k++)
		free(A.mem[k]);
	free(a);
	free(b);
	free(want);
	return failures ? 1 : 0;
}
