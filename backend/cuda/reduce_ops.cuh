/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/cuda/reduce_ops.cuh — the element arithmetic and the per-thread
 * bodies of reduce.cu's kernels, bit for bit core/dtype.c (cc_reduce,
 * cc_postdiv).  Everything here is __host__ __device__, so
 * tests/cuda/test_reduce_host.cu runs the very same code on the CPU, one
 * emulated thread after another, against dtype.c on machines without a GPU
 * (the kernels' threads share nothing, so the order does not matter).
 *
 * Elements travel as their bit patterns (unsigned integers of the element's
 * width, as dtype.c's ld/st do), and each operator does what dtype.c does:
 *   integers   + and * wrap in the unsigned type of the element's width
 *              (arithmetic mod 2^bits, signed or not); min/max compare
 *              with the sign bit flipped, NCCL's FuncMinMax xormask trick
 *              (src/device/reduce_kernel.h), which dtype.c also uses;
 *   half/bf16  widened to float exactly, one float operation, rounded to
 *              nearest even by __float2half_rn / __float2bfloat16_rn
 *              (cvt.rn.f16.f32 / cvt.rn.bf16.f32): the correctly rounded
 *              result, which __hadd / __hmul also give (dtype.c cites
 *              Figueroa 1995 for why the double rounding is innocuous);
 *   float      __fadd_rn / __fmul_rn, double __dadd_rn / __dmul_rn: the
 *              explicit round-to-nearest intrinsics, so neither
 *              -use_fast_math nor FMA contraction can change a result
 *              (nvcc's default keeps subnormals, as the host does); on the
 *              host the plain operators, IEEE on x86-64 SSE as in dtype.c;
 *   min/max    on floats, IEEE minNum/maxNum with dtype.c's pinned
 *              choices: a NaN operand is ignored, two NaNs give the
 *              canonical quiet NaN, -0 < +0; the result is one operand's
 *              bit pattern, never a re-rounded value;
 *   postdiv    (avg) after the operator, in the same pass: integers divide
 *              the magnitude and negate (truncation toward zero, NCCL's
 *              FuncSumPostDiv::divide); floats divide in double by the
 *              exact uint32 divisor, round to float, then to half / bf16 —
 *              the same two roundings as dtype.c's elem_div.
 *
 * Memory (NCCL's reduceCopy, src/device/common_kernel.h): one pass reads the
 * sources and writes every destination, grid-stride.  When all pointers
 * share their offset modulo 16 bytes, the elements before the first 16-byte
 * boundary and after the last whole vector go one per thread and the rest
 * as 16-byte loads and stores, UNROLL of them per thread and source issued
 * before any is used, so each warp keeps enough bytes in flight to approach
 * HBM bandwidth.  Otherwise element by element when every pointer is
 * element-aligned, else byte by byte (schedule offsets are in bytes and
 * dtype.c needs no alignment). */
#ifndef CCLAB_BACKEND_CUDA_REDUCE_OPS_CUH
#define CCLAB_BACKEND_CUDA_REDUCE_OPS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <vector_types.h>

#include <stdint.h>
#include <string.h>

extern "C" {
#include "core/schedule.h"
}

/* nvcc's unroll pragma for the device pass only: the host compiler, which
 * also sees these __host__ __device__ bodies, does not know it. */
#ifdef __CUDA_ARCH__
#define CC_UNROLL _Pragma("unroll")
#else
#define CC_UNROLL
#endif

namespace ccgpu {

constexpr unsigned THREADS = 256;
constexpr unsigned UNROLL = 4;

enum Mode { MODE_VEC, MODE_ELEM, MODE_BYTE };

struct Args {
	const unsigned char *src0, *src1; /* src1 unused by copies */
	unsigned char *dst0, *dst1;       /* dst1 NULL with one destination */
	uint64_t count;                   /* elements (bytes for copies) */
	uint64_t head;                    /* MODE_VEC: elements before the 16-byte boundary */
	uint64_t nvec;                    /* MODE_VEC: 16-byte vectors after them */
	uint32_t postdiv;                 /* > 1: divide after the operator */
	int mode;
};

/* Chooses the mode and the vector split; ptrs are every source and
 * destination, es the element size (1 for copies). */
inline void plan(Args *a, const unsigned char *const *ptrs, int n, size_t es)
{
	uintptr_t mis = (uintptr_t)ptrs[0] % 16;
	bool same = true, aligned = true;

	for (int k = 0; k < n; k++) {
		same = same && (uintptr_t)ptrs[k] % 16 == mis;
		aligned = aligned && (uintptr_t)ptrs[k] % es == 0;
	}
	a->head = a->nvec = 0;
	if (same && mis % es == 0) {
		uint64_t head = mis ? (16 - mis) / es : 0;

		a->mode = MODE_VEC;
		a->head = head < a->count ? head : a->count;
		a->nvec = (a->count - a->head) * es / 16;
	} else {
		a->mode = aligned ? MODE_ELEM : MODE_BYTE;
	}
}

/* The kernel arguments of op c on resolved pointers (as cc_gpu_calc takes
 * them), already checked: nsrc 1 is a copy, whose count becomes bytes. */
inline Args setup(const struct cc_op_calc *c, void *const *src, void *const *dst)
{
	const unsigned char *ptrs[4];
	size_t es = cc_dtype_size(c->dtype);
	int n = 0;
	Args a;

	a.src0 = static_cast<const unsigned char *>(src[0]);
	a.src1 = c->nsrc == 2 ? static_cast<const unsigned char *>(src[1]) : nullptr;
	a.dst0 = static_cast<unsigned char *>(dst[0]);
	a.dst1 = c->ndst == 2 ? static_cast<unsigned char *>(dst[1]) : nullptr;
	a.postdiv = c->postdiv;
	a.count = c->nsrc == 2 ? c->count : c->count * es;
	ptrs[n++] = a.src0;
	if (a.src1)
		ptrs[n++] = a.src1;
	ptrs[n++] = a.dst0;
	if (a.dst1)
		ptrs[n++] = a.dst1;
	plan(&a, ptrs, n, c->nsrc == 2 ? es : 1);
	return a;
}

/* ---- element types ------------------------------------------------------ */

enum Kind { K_INT, K_HALF, K_BF16, K_F32, K_F64 };

template <int DT> struct Elem;
template <> struct Elem<CC_INT8> { typedef uint8_t S; static const int kind = K_INT; static constexpr S sbit = 0x80; };
template <> struct Elem<CC_UINT8> { typedef uint8_t S; static const int kind = K_INT; static constexpr S sbit = 0; };
template <> struct Elem<CC_INT32> { typedef uint32_t S; static const int kind = K_INT; static constexpr S sbit = 0x80000000u; };
template <> struct Elem<CC_UINT32> { typedef uint32_t S; static const int kind = K_INT; static constexpr S sbit = 0; };
template <> struct Elem<CC_INT64> { typedef uint64_t S; static const int kind = K_INT; static constexpr S sbit = UINT64_C(0x8000000000000000); };
template <> struct Elem<CC_UINT64> { typedef uint64_t S; static const int kind = K_INT; static constexpr S sbit = 0; };
/* Floats: qnan is what two NaNs give (dtype.c: 0x7e00, 0x7fc0, C's NAN). */
template <> struct Elem<CC_FLOAT16> { typedef uint16_t S; static const int kind = K_HALF; static constexpr S qnan = 0x7e00; };
template <> struct Elem<CC_BFLOAT16> { typedef uint16_t S; static const int kind = K_BF16; static constexpr S qnan = 0x7fc0; };
template <> struct Elem<CC_FLOAT32> { typedef uint32_t S; static const int kind = K_F32; static constexpr S qnan = 0x7fc00000u; };
template <> struct Elem<CC_FLOAT64> { typedef uint64_t S; static const int kind = K_F64; static constexpr S qnan = UINT64_C(0x7ff8000000000000); };

/* Bits <-> the value computed with.  Widening is exact; narrowing rounds to
 * nearest even.  memcpy reinterprets on both sides (a register move on the
 * device). */
template <int K> struct Val;
template <> struct Val<K_HALF> {
	typedef float F;
	static __host__ __device__ __forceinline__ F get(uint16_t s) { return __half2float(__ushort_as_half(s)); }
	static __host__ __device__ __forceinline__ uint16_t put(F f) { return __half_as_ushort(__float2half_rn(f)); }
};
template <> struct Val<K_BF16> {
	typedef float F;
	static __host__ __device__ __forceinline__ F get(uint16_t s) { return __bfloat162float(__ushort_as_bfloat16(s)); }
	static __host__ __device__ __forceinline__ uint16_t put(F f) { return __bfloat16_as_ushort(__float2bfloat16_rn(f)); }
};
template <> struct Val<K_F32> {
	typedef float F;
	static __host__ __device__ __forceinline__ F get(uint32_t s) { F f; memcpy(&f, &s, 4); return f; }
	static __host__ __device__ __forceinline__ uint32_t put(F f) { uint32_t s; memcpy(&s, &f, 4); return s; }
};
template <> struct Val<K_F64> {
	typedef double F;
	static __host__ __device__ __forceinline__ F get(uint64_t s) { F f; memcpy(&f, &s, 8); return f; }
	static __host__ __device__ __forceinline__ uint64_t put(F f) { uint64_t s; memcpy(&s, &f, 8); return s; }
};

#ifdef __CUDA_ARCH__
__device__ __forceinline__ float add_rn(float x, float y) { return __fadd_rn(x, y); }
__device__ __forceinline__ double add_rn(double x, double y) { return __dadd_rn(x, y); }
__device__ __forceinline__ float mul_rn(float x, float y) { return __fmul_rn(x, y); }
__device__ __forceinline__ double mul_rn(double x, double y) { return __dmul_rn(x, y); }
__device__ __forceinline__ double div_rn(double x, double y) { return __ddiv_rn(x, y); }
__device__ __forceinline__ float to_float_rn(double x) { return __double2float_rn(x); }
#else
inline float add_rn(float x, float y) { return x + y; }
inline double add_rn(double x, double y) { return x + y; }
inline float mul_rn(float x, float y) { return x * y; }
inline double mul_rn(double x, double y) { return x * y; }
inline double div_rn(double x, double y) { return x / y; }
inline float to_float_rn(double x) { return (float)x; }
#endif

/* dtype.c's pick_min / pick_max: <0 take a, >0 take b, 0 both NaN.  NaN
 * is x != x; the sign comes from the operand's bits (neg), which is what
 * signbit reads. */
template <class F>
__host__ __device__ __forceinline__ int pick(F x, F y, bool xneg, bool is_min)
{
	bool xnan = x != x, ynan = y != y;

	if (xnan)
		return ynan ? 0 : 1;
	if (ynan)
		return -1;
	if (is_min) {
		if (x < y)
			return -1;
		if (y < x)
			return 1;
		return xneg ? -1 : 1; /* equal: prefer -0 */
	}
	if (x > y)
		return -1;
	if (y > x)
		return 1;
	return xneg ? 1 : -1; /* equal: prefer +0 */
}

/* a op b; CC_AVG arrives as CC_SUM (the division is postdiv's). */
template <int DT, int OP>
__host__ __device__ __forceinline__ typename Elem<DT>::S apply(typename Elem<DT>::S a,
							       typename Elem<DT>::S b)
{
	typedef Elem<DT> E;
	typedef typename E::S S;

	if constexpr (E::kind == K_INT) {
		if constexpr (OP == CC_PROD)
			return (S)(a * b); /* uint8 promotes to int: 255 * 255 fits */
		else if constexpr (OP == CC_MIN)
			return (S)(a ^ E::sbit) < (S)(b ^ E::sbit) ? a : b;
		else if constexpr (OP == CC_MAX)
			return (S)(a ^ E::sbit) > (S)(b ^ E::sbit) ? a : b;
		else
			return (S)(a + b);
	} else {
		typedef Val<E::kind> V;
		typename V::F x = V::get(a), y = V::get(b);

		if constexpr (OP == CC_PROD) {
			return V::put(mul_rn(x, y));
		} else if constexpr (OP == CC_MIN || OP == CC_MAX) {
			int c = pick(x, y, (a >> (8 * sizeof(S) - 1)) != 0, OP == CC_MIN);
			return c < 0 ? a : c > 0 ? b : E::qnan;
		} else {
			return V::put(add_rn(x, y));
		}
	}
}

/* x / d as cc_postdiv does it, d > 1. */
template <int DT>
__host__ __device__ __forceinline__ typename Elem<DT>::S divide(typename Elem<DT>::S x, uint32_t d)
{
	typedef Elem<DT> E;
	typedef typename E::S S;

	if constexpr (E::kind == K_INT) {
		if constexpr (E::sbit != 0) {
			if (x & E::sbit) {
				S mag = (S)(0 - x); /* mod 2^bits: INT_MIN's magnitude fits */
				return (S)(0 - mag / d);
			}
		}
		return (S)(x / d);
	} else if constexpr (E::kind == K_F64) {
		return Val<K_F64>::put(div_rn(Val<K_F64>::get(x), (double)d));
	} else {
		typedef Val<E::kind> V;

		return V::put(to_float_rn(div_rn((double)V::get(x), (double)d)));
	}
}

/* ---- memory ------------------------------------------------------------- */

template <class S>
__host__ __device__ __forceinline__ S load(const unsigned char *p, uint64_t i, int mode)
{
	if (mode != MODE_BYTE)
		return reinterpret_cast<const S *>(p)[i];
	S v = 0;
	p += i * sizeof(S);
CC_UNROLL
	for (unsigned k = 0; k < sizeof(S); k++)
		v |= (S)((S)p[k] << (8 * k)); /* little-endian, as the host */
	return v;
}

template <class S>
__host__ __device__ __forceinline__ void store(unsigned char *p, uint64_t i, S v, int mode)
{
	if (mode != MODE_BYTE) {
		reinterpret_cast<S *>(p)[i] = v;
		return;
	}
	p += i * sizeof(S);
CC_UNROLL
	for (unsigned k = 0; k < sizeof(S); k++)
		p[k] = (unsigned char)(v >> (8 * k));
}

template <int DT, int OP>
__host__ __device__ __forceinline__ void reduce_one(const Args &a, uint64_t i)
{
	typedef typename Elem<DT>::S S;
	S r = apply<DT, OP>(load<S>(a.src0, i, a.mode), load<S>(a.src1, i, a.mode));

	if (a.postdiv > 1)
		r = divide<DT>(r, a.postdiv);
	store<S>(a.dst0, i, r, a.mode);
	if (a.dst1)
		store<S>(a.dst1, i, r, a.mode);
}

template <int DT, int OP>
__host__ __device__ __forceinline__ uint4 reduce_vec(uint4 x, uint4 y, uint32_t postdiv)
{
	typedef typename Elem<DT>::S S;
	constexpr int N = 16 / sizeof(S);
	S xs[N], ys[N];
	uint4 r;

	memcpy(xs, &x, 16);
	memcpy(ys, &y, 16);
CC_UNROLL
	for (int k = 0; k < N; k++) {
		xs[k] = apply<DT, OP>(xs[k], ys[k]);
		if (postdiv > 1)
			xs[k] = divide<DT>(xs[k], postdiv);
	}
	memcpy(&r, xs, 16);
	return r;
}

/* What thread `thread` of block `block` (of `nblocks`, THREADS each) does. */
template <int DT, int OP>
__host__ __device__ __forceinline__ void reduce_body(const Args &a, uint64_t block, unsigned thread,
						     uint64_t nblocks)
{
	typedef typename Elem<DT>::S S;
	constexpr uint64_t N = 16 / sizeof(S);
	const uint64_t tid = block * THREADS + thread;
	const uint64_t nthreads = nblocks * THREADS;

	if (a.mode != MODE_VEC) {
		for (uint64_t i = tid; i < a.count; i += nthreads)
			reduce_one<DT, OP>(a, i);
		return;
	}
	/* Fewer than N elements each side of the vectors: the first threads. */
	const uint64_t tail = a.head + a.nvec * N;
	if (tid < a.head)
		reduce_one<DT, OP>(a, tid);
	if (tid < a.count - tail)
		reduce_one<DT, OP>(a, tail + tid);

	const uint4 *s0 = reinterpret_cast<const uint4 *>(a.src0 + a.head * sizeof(S));
	const uint4 *s1 = reinterpret_cast<const uint4 *>(a.src1 + a.head * sizeof(S));
	uint4 *d0 = reinterpret_cast<uint4 *>(a.dst0 + a.head * sizeof(S));
	uint4 *d1 = a.dst1 ? reinterpret_cast<uint4 *>(a.dst1 + a.head * sizeof(S)) : nullptr;

	for (uint64_t base = block * THREADS * UNROLL; base < a.nvec; base += nthreads * UNROLL) {
		uint4 x[UNROLL], y[UNROLL];
CC_UNROLL
		for (unsigned u = 0; u < UNROLL; u++) {
			uint64_t v = base + (uint64_t)u * THREADS + thread;
			x[u] = y[u] = make_uint4(0, 0, 0, 0);
			if (v < a.nvec) {
				x[u] = s0[v];
				y[u] = s1[v];
			}
		}
CC_UNROLL
		for (unsigned u = 0; u < UNROLL; u++) {
			uint64_t v = base + (uint64_t)u * THREADS + thread;
			if (v < a.nvec) {
				uint4 r = reduce_vec<DT, OP>(x[u], y[u], a.postdiv);
				d0[v] = r;
				if (d1)
					d1[v] = r;
			}
		}
	}
}

/* A copy in MODE_VEC (count in bytes): one read, one write per destination. */
__host__ __device__ __forceinline__ void copy_body(const Args &a, uint64_t block, unsigned thread,
						   uint64_t nblocks)
{
	const uint64_t tid = block * THREADS + thread;
	const uint64_t nthreads = nblocks * THREADS;
	const uint64_t tail = a.head + a.nvec * 16;

	if (tid < a.head) {
		a.dst0[tid] = a.src0[tid];
		if (a.dst1)
			a.dst1[tid] = a.src0[tid];
	}
	if (tid < a.count - tail) {
		a.dst0[tail + tid] = a.src0[tail + tid];
		if (a.dst1)
			a.dst1[tail + tid] = a.src0[tail + tid];
	}
	const uint4 *s0 = reinterpret_cast<const uint4 *>(a.src0 + a.head);
	uint4 *d0 = reinterpret_cast<uint4 *>(a.dst0 + a.head);
	uint4 *d1 = a.dst1 ? reinterpret_cast<uint4 *>(a.dst1 + a.head) : nullptr;

	for (uint64_t base = block * THREADS * UNROLL; base < a.nvec; base += nthreads * UNROLL) {
		uint4 x[UNROLL];
CC_UNROLL
		for (unsigned u = 0; u < UNROLL; u++) {
			uint64_t v = base + (uint64_t)u * THREADS + thread;
			x[u] = make_uint4(0, 0, 0, 0);
			if (v < a.nvec)
				x[u] = s0[v];
		}
CC_UNROLL
		for (unsigned u = 0; u < UNROLL; u++) {
			uint64_t v = base + (uint64_t)u * THREADS + thread;
			if (v < a.nvec) {
				d0[v] = x[u];
				if (d1)
					d1[v] = x[u];
			}
		}
	}
}

} // namespace ccgpu

#endif
