/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/cuda/test_cuda.c — the CUDA module (backend/cuda/gpu.h) against
 * core/dtype.c's reference arithmetic, then the kernels' bandwidth.
 *
 * Without a usable GPU (built without CUDA, no device, kernels that do not
 * load) it prints "SKIP: <why>" and exits 0 after the checks that need no
 * GPU (cc_gpu_page_span).  With one:
 *   1. every dtype x redop, counts 1, 7, 1000, 2^20 + 3, five layouts
 *      (aligned with two destinations; all pointers one element past
 *      16-byte alignment, the vector path with a peeled head; different
 *      element offsets, the element path; in place, dst = src0; byte
 *      offsets, the unaligned path): inputs of ranks 0 and 1 from
 *      cc_fill_input, reference cc_reduce + cc_postdiv (avg divides by 3 or
 *      2), #wrong from cc_count_wrong, and the bytes around each
 *      destination must be untouched;
 *   2. random bit patterns (NaNs, infinities, subnormals, signed zeros) and
 *      every pair of special values, compared bit for bit except that any
 *      NaN equals any NaN — stricter than cc_count_wrong, which also takes
 *      +0 for -0;
 *   3. copy with one and two destinations, in place, and with pointers
 *      that disagree modulo 16 (the cudaMemcpy path);
 *   4. bandwidth of float32 sum, bfloat16 sum and copy on 256 MiB buffers
 *      (CUDA events, 3 warm-up + 20 timed ops), bytes moved = 2 reads + 1
 *      write per element (copy 1 + 1), against the peak from the memory
 *      clock and bus width attributes.  --no-bw skips it.
 * Exit status 1 on any wrong element or failed call.  CCLAB_CUDA_DEVICE
 * picks the device (default 0). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cuda/gpu.h"
#include "core/dtype.h"
#include "util/splitmix.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define GUARD 64      /* bytes checked on each side of a destination */
#define FILL 0xa5     /* what a destination holds before the op */
#define MAX_OFF 64    /* largest layout offset, bytes */

static char err[512];
static int failures;

static void fail_call(const char *what, int rc)
{
	printf("FAIL: %s: %s (%d)\n", what, err, rc);
	failures++;
}

/* ---- checks without a GPU ------------------------------------------------ */

static int check_page_span(void)
{
	static const struct {
		uintptr_t addr;
		size_t n, page;
		int rc;
		uintptr_t base;
		size_t span;
		uint64_t off;
	} c[] = {
		{ 0x10000, 1, 4096, 0, 0x10000, 4096, 0 },
		{ 0x10001, 4095, 4096, 0, 0x10000, 4096, 1 },
		{ 0x10001, 4096, 4096, 0, 0x10000, 8192, 1 },
		{ 0x12345, 0x10000, 65536, 0, 0x10000, 0x20000, 0x2345 },
		{ 0x10000, 0, 4096, -EINVAL, 0, 0, 0 },
		{ 0x10000, 16, 3000, -EINVAL, 0, 0, 0 },
		{ UINTPTR_MAX - 10, 5, 4096, -EINVAL, 0, 0, 0 },
	};
	int bad = 0;

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		uintptr_t base = 0;
		size_t span = 0;
		uint64_t off = 0;
		int rc = cc_gpu_page_span(c[i].addr, c[i].n, c[i].page, &base, &span, &off);

		if (rc != c[i].rc || (rc == 0 && (base != c[i].base || span != c[i].span ||
						  off != c[i].off))) {
			printf("FAIL: cc_gpu_page_span case %zu: rc %d base %#jx span %zu off %" PRIu64
			       "\n",
			       i, rc, (uintmax_t)base, span, off);
			bad++;
		}
	}
	return bad;
}

/* ---- device buffers ------------------------------------------------------ */

/* Four device areas (two sources, two destinations) of `cap` bytes plus
 * room for offsets and guards, and host mirrors. */
struct bufs {
	size_t cap;
	unsigned char *dev[4];
	unsigned char *a, *b, *ref, *got, *win;
};

static int bufs_init(struct bufs *B, size_t cap)
{
	size_t sz = cap + MAX_OFF + 2 * GUARD;

	memset(B, 0, sizeof(*B));
	B->cap = cap;
	for (int k = 0; k < 4; k++) {
		int rc = cc_gpu_alloc((void **)&B->dev[k], sz, err, sizeof(err));
		if (rc) {
			fail_call("cc_gpu_alloc", rc);
			return rc;
		}
	}
	B->a = malloc(cap);
	B->b = malloc(cap);
	B->ref = malloc(cap);
	B->got = malloc(cap);
	B->win = malloc(sz);
	if (!B->a || !B->b || !B->ref || !B->got || !B->win) {
		printf("FAIL: out of host memory\n");
		failures++;
		return -ENOMEM;
	}
	return 0;
}

static void bufs_free(struct bufs *B)
{
	for (int k = 0; k < 4; k++)
		cc_gpu_free(B->dev[k]);
	free(B->a);
	free(B->b);
	free(B->ref);
	free(B->got);
	free(B->win);
}

/* A layout: byte offsets of src0, src1, dst0, dst1 from their areas (after
 * the leading guard), the number of destinations, and whether dst0 is src0
 * itself. */
struct layout {
	const char *name;
	size_t off[4]; /* in elements */
	size_t byte[4]; /* plus bytes */
	int ndst;
	int in_place;
};

static const struct layout layouts[] = {
	{ "aligned, 2 dst", { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, 2, 0 },
	{ "all +1 elem", { 1, 1, 1, 1 }, { 0, 0, 0, 0 }, 1, 0 },
	{ "mixed elems, 2 dst", { 1, 3, 5, 2 }, { 0, 0, 0, 0 }, 2, 0 },
	{ "in place", { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, 1, 1 },
	{ "byte offsets", { 0, 0, 0, 1 }, { 1, 2, 3, 0 }, 2, 0 },
};

static unsigned char *area(const struct bufs *B, int k, const struct layout *L, size_t es)
{
	return B->dev[k] + GUARD + L->off[k] * es + L->byte[k];
}

/* run_layout's answers besides a count of wrong elements. */
#define RUN_FAILED UINT64_MAX        /* a call failed (already reported) */
#define RUN_OUTSIDE (UINT64_MAX - 1) /* a byte beside a destination changed */

/* Reads destination k back with GUARD bytes each side into B->got and the
 * window; RUN_OUTSIDE when a guard byte changed, else 0. */
static uint64_t read_dst(struct bufs *B, int k, const struct layout *L, size_t es, size_t count)
{
	size_t bytes = count * es;
	size_t lo = L->off[k] * es + L->byte[k]; /* the window starts GUARD before */
	int rc = cc_gpu_copy_to_host(B->win, B->dev[k] + lo, bytes + 2 * GUARD, err, sizeof(err));

	if (rc) {
		fail_call("cc_gpu_copy_to_host", rc);
		return RUN_FAILED;
	}
	memcpy(B->got, B->win + GUARD, bytes);
	for (size_t i = 0; i < GUARD; i++)
		if (B->win[i] != FILL || B->win[GUARD + bytes + i] != FILL)
			return RUN_OUTSIDE;
	return 0;
}

static int is_nan_bits(const unsigned char *p, enum cc_dtype t)
{
	uint64_t v = 0;

	memcpy(&v, p, cc_dtype_size(t)); /* little-endian host */
	switch (t) {
	case CC_FLOAT16:
		return (v & 0x7fff) > 0x7c00;
	case CC_BFLOAT16:
		return (v & 0x7fff) > 0x7f80;
	case CC_FLOAT32:
		return (v & 0x7fffffff) > 0x7f800000;
	case CC_FLOAT64:
		return (v & UINT64_C(0x7fffffffffffffff)) > UINT64_C(0x7ff0000000000000);
	default:
		return 0;
	}
}

/* Bit-exact compare of host arrays except NaN == NaN. */
static uint64_t count_not_identical(const void *got, const void *want, size_t count,
				    enum cc_dtype t)
{
	size_t es = cc_dtype_size(t);
	uint64_t wrong = 0;

	for (size_t i = 0; i < count; i++) {
		const unsigned char *g = (const unsigned char *)got + i * es;
		const unsigned char *w = (const unsigned char *)want + i * es;

		if (memcmp(g, w, es) && !(is_nan_bits(g, t) && is_nan_bits(w, t)))
			wrong++;
	}
	return wrong;
}

/* Runs one op with layout L over count elements of B->a (src0) and B->b
 * (src1); want = the expected result.  nsrc 1 copies.  Returns #wrong
 * or RUN_FAILED / RUN_OUTSIDE.  exact: bit for bit but NaN == NaN, else
 * cc_count_wrong. */
static uint64_t run_layout(struct bufs *B, const struct layout *L, enum cc_dtype t,
			   enum cc_redop op, uint32_t postdiv, int nsrc, size_t count,
			   const void *want, int exact)
{
	size_t es = cc_dtype_size(t), bytes = count * es, whole = B->cap + MAX_OFF + 2 * GUARD;
	uint64_t wrong = 0, w;
	struct cc_op_calc c = { .nsrc = (uint8_t)nsrc, .ndst = (uint8_t)L->ndst, .count = count,
				.dtype = t, .redop = op, .postdiv = postdiv, .where = CC_ON_GPU };
	void *src[2], *dst[2];
	int rc;

	for (int k = 0; k < 4; k++)
		if ((rc = cc_gpu_memset(B->dev[k], FILL, whole, err, sizeof(err)))) {
			fail_call("cc_gpu_memset", rc);
			return RUN_FAILED;
		}
	src[0] = area(B, 0, L, es);
	src[1] = area(B, 1, L, es);
	dst[0] = L->in_place ? src[0] : area(B, 2, L, es);
	dst[1] = area(B, 3, L, es);
	if ((rc = cc_gpu_copy_to_device(src[0], B->a, bytes, err, sizeof(err))) ||
	    (nsrc == 2 && (rc = cc_gpu_copy_to_device(src[1], B->b, bytes, err, sizeof(err))))) {
		fail_call("cc_gpu_copy_to_device", rc);
		return RUN_FAILED;
	}
	if ((rc = cc_gpu_calc(&c, src, dst, err, sizeof(err)))) {
		fail_call("cc_gpu_calc", rc);
		return RUN_FAILED;
	}
	for (int j = 0; j < L->ndst; j++) {
		int k = j == 0 && L->in_place ? 0 : 2 + j;

		if ((w = read_dst(B, k, L, es, count)))
			return w;
		wrong += exact ? count_not_identical(B->got, want, count, t)
			       : cc_count_wrong(B->got, want, count, t);
	}
	return wrong;
}

/* ---- 1. the matrix ------------------------------------------------------- */

static const size_t counts[] = { 1, 7, 1000, (1u << 20) + 3 };

static int matrix(struct bufs *B)
{
	int bad = 0;

	printf("\n1. cc_gpu_calc vs cc_reduce + cc_postdiv: counts 1, 7, 1000, 2^20+3; "
	       "layouts:");
	for (size_t l = 0; l < ARRAY_SIZE(layouts); l++)
		printf("%s %s", l ? ";" : "", layouts[l].name);
	printf("\n   (cell: wrong elements over all %zu cases; avg divides by 3 or 2)\n\n",
	       ARRAY_SIZE(counts) * ARRAY_SIZE(layouts));
	printf("   %-9s", "dtype");
	for (int op = 0; op < CC_REDOP_COUNT; op++)
		printf(" %9s", cc_redop_name[op]);
	printf("\n");
	for (int t = 0; t < CC_DTYPE_COUNT; t++) {
		printf("   %-9s", cc_dtype_name[t]);
		for (int op = 0; op < CC_REDOP_COUNT; op++) {
			uint64_t wrong = 0;
			int broken = 0;

			for (size_t ci = 0; ci < ARRAY_SIZE(counts); ci++) {
				size_t n = counts[ci];
				uint32_t div = op == CC_AVG ? (ci & 1 ? 3 : 2) : 1;
				uint32_t nranks = op == CC_AVG ? div : 2;
				uint64_t seed = 0x5eed + ci;

				cc_fill_input(B->a, 0, n, (enum cc_dtype)t, (enum cc_redop)op, 0, nranks,
					      seed);
				cc_fill_input(B->b, 0, n, (enum cc_dtype)t, (enum cc_redop)op, 1, nranks,
					      seed);
				cc_reduce(B->ref, B->a, B->b, n, (enum cc_dtype)t, (enum cc_redop)op);
				cc_postdiv(B->ref, n, (enum cc_dtype)t, div);
				for (size_t l = 0; l < ARRAY_SIZE(layouts); l++) {
					uint64_t w = run_layout(B, &layouts[l], (enum cc_dtype)t,
								(enum cc_redop)op, div, 2, n, B->ref, 0);
					if (w >= RUN_OUTSIDE) {
						broken = 1;
						printf("\n   FAIL: %s %s count %zu layout '%s': %s\n   %-9s",
						       cc_dtype_name[t], cc_redop_name[op], n,
						       layouts[l].name,
						       w == RUN_FAILED ? "a call failed"
								       : "wrote beside the destination",
						       "");
					} else {
						wrong += w;
					}
				}
			}
			if (broken)
				printf(" %9s", "FAIL");
			else if (wrong)
				printf(" %9" PRIu64, wrong);
			else
				printf(" %9s", "ok");
			bad += broken || wrong;
		}
		printf("\n");
	}
	return bad;
}

/* ---- 2. random bits and special values ------------------------------------ */

static uint64_t fp_bits(int s, uint64_t e, uint64_t m, unsigned E, unsigned M)
{
	return ((uint64_t)s << (E + M)) | (e << M) | m;
}

/* 22 special values of float type t: +-{0, min subnormal, max subnormal,
 * min normal, 1, 1.5, 3, max finite, inf, quiet NaN, signalling NaN}. */
static size_t specials(enum cc_dtype t, unsigned char *out)
{
	unsigned E = t == CC_FLOAT16 ? 5 : t == CC_FLOAT64 ? 11 : 8;
	unsigned M = t == CC_FLOAT16 ? 10 : t == CC_BFLOAT16 ? 7 : t == CC_FLOAT32 ? 23 : 52;
	uint64_t top = (UINT64_C(1) << E) - 1, bias = top >> 1, mm = (UINT64_C(1) << M) - 1;
	uint64_t half = UINT64_C(1) << (M - 1);
	const uint64_t mag[][2] = {
		{ 0, 0 },	{ 0, 1 },    { 0, mm },	  { 1, 0 },   { bias, 0 },  { bias, half },
		{ bias + 1, half }, { top - 1, mm }, { top, 0 }, { top, half }, { top, 1 },
	};
	size_t es = cc_dtype_size(t), n = 0;

	for (int s = 0; s < 2; s++)
		for (size_t k = 0; k < ARRAY_SIZE(mag); k++) {
			uint64_t v = fp_bits(s, mag[k][0], mag[k][1], E, M);
			memcpy(out + n++ * es, &v, es); /* little-endian host */
		}
	return n;
}

static int bits_and_specials(struct bufs *B)
{
	const struct layout *L = &layouts[0];
	int bad = 0;

	printf("\n2. bit for bit (any NaN = any NaN): 4099 random bit patterns per dtype x redop "
	       "(avg: / 3), and every pair of 22 special values (float types)\n\n");
	printf("   %-9s %-8s", "dtype", "inputs");
	for (int op = 0; op < CC_REDOP_COUNT; op++)
		printf(" %9s", cc_redop_name[op]);
	printf("\n");
	for (int t = 0; t < CC_DTYPE_COUNT; t++) {
		size_t es = cc_dtype_size((enum cc_dtype)t);

		for (int kind = 0; kind < 2; kind++) {
			size_t n = 4099;

			if (kind == 1) {
				unsigned char sp[22 * 8];
				size_t ns;

				if (!cc_dtype_is_float((enum cc_dtype)t))
					continue;
				ns = specials((enum cc_dtype)t, sp);
				n = ns * ns;
				for (size_t i = 0; i < ns; i++)
					for (size_t j = 0; j < ns; j++) {
						memcpy(B->a + (i * ns + j) * es, sp + i * es, es);
						memcpy(B->b + (i * ns + j) * es, sp + j * es, es);
					}
			} else {
				uint64_t st = 0xb175 + (uint64_t)t;
				for (size_t i = 0; i < n * es; i += 8) {
					uint64_t x = cc_splitmix64_next(&st), y = cc_splitmix64_next(&st);
					size_t m = n * es - i < 8 ? n * es - i : 8;
					memcpy(B->a + i, &x, m);
					memcpy(B->b + i, &y, m);
				}
			}
			printf("   %-9s %-8s", cc_dtype_name[t], kind ? "special" : "random");
			for (int op = 0; op < CC_REDOP_COUNT; op++) {
				uint32_t div = op == CC_AVG ? 3 : 1;
				uint64_t w;

				cc_reduce(B->ref, B->a, B->b, n, (enum cc_dtype)t, (enum cc_redop)op);
				cc_postdiv(B->ref, n, (enum cc_dtype)t, div);
				w = run_layout(B, L, (enum cc_dtype)t, (enum cc_redop)op, div, 2, n,
					       B->ref, 1);
				if (w >= RUN_OUTSIDE)
					printf(" %9s", "FAIL");
				else if (w)
					printf(" %9" PRIu64, w);
				else
					printf(" %9s", "ok");
				bad += w != 0;
			}
			printf("\n");
		}
	}
	return bad;
}

/* ---- 3. copy ------------------------------------------------------------- */

static int copies(struct bufs *B)
{
	static const enum cc_dtype types[] = { CC_UINT8, CC_BFLOAT16, CC_FLOAT32, CC_FLOAT64 };
	int bad = 0;

	printf("\n3. copy (nsrc = 1): dst[j] = src0 for the same counts and layouts\n\n");
	printf("   %-9s", "dtype");
	for (size_t l = 0; l < ARRAY_SIZE(layouts); l++)
		printf(" %20s", layouts[l].name);
	printf("\n");
	for (size_t ti = 0; ti < ARRAY_SIZE(types); ti++) {
		enum cc_dtype t = types[ti];

		printf("   %-9s", cc_dtype_name[t]);
		for (size_t l = 0; l < ARRAY_SIZE(layouts); l++) {
			uint64_t wrong = 0;
			int broken = 0;

			for (size_t ci = 0; ci < ARRAY_SIZE(counts); ci++) {
				size_t n = counts[ci];
				uint64_t w;

				cc_fill_input(B->a, 0, n, t, CC_SUM, 0, 2, 77 + ci);
				w = run_layout(B, &layouts[l], t, CC_SUM, 1, 1, n, B->a, 1);
				if (w >= RUN_OUTSIDE)
					broken = 1;
				else
					wrong += w;
			}
			if (broken)
				printf(" %20s", "FAIL");
			else if (wrong)
				printf(" %20" PRIu64, wrong);
			else
				printf(" %20s", "ok");
			bad += broken || wrong;
		}
		printf("\n");
	}
	return bad;
}

/* ---- 4. bandwidth -------------------------------------------------------- */

static int bandwidth(const struct cc_gpu_info *info)
{
	const size_t bytes = (size_t)256 << 20;
	static const struct {
		const char *name;
		enum cc_dtype t;
		int nsrc, ndst;
	} rows[] = {
		{ "float32 sum", CC_FLOAT32, 2, 1 },
		{ "bfloat16 sum", CC_BFLOAT16, 2, 1 },
		{ "copy", CC_UINT8, 1, 1 },
		{ "copy, 2 dst", CC_UINT8, 1, 2 },
	};
	void *buf[4] = { 0 };
	int bad = 0, rc;

	printf("\n4. kernel bandwidth: 256 MiB per buffer, 3 warm-up + 20 timed ops, "
	       "GB/s = 1e9 bytes/s of reads + writes\n\n");
	if (info->peak_gbps > 0)
		printf("   peak: %d MHz memory clock x %d-bit bus x 2 (DDR) = %.0f GB/s "
		       "(cudaDevAttrMemoryClockRate, cudaDevAttrGlobalMemoryBusWidth)\n",
		       info->mem_clock_khz / 1000, info->bus_width_bits, info->peak_gbps);
	else
		printf("   peak: N/A (the driver reports no %s)\n",
		       info->mem_clock_khz ? "bus width" : "memory clock rate");
	for (int k = 0; k < 4; k++) {
		if ((rc = cc_gpu_alloc(&buf[k], bytes, err, sizeof(err)))) {
			fail_call("cc_gpu_alloc (256 MiB)", rc);
			bad = 1;
			goto out;
		}
		if ((rc = cc_gpu_memset(buf[k], 0x3c, bytes, err, sizeof(err)))) {
			fail_call("cc_gpu_memset", rc);
			bad = 1;
			goto out;
		}
	}
	printf("\n   %-14s %12s %12s %10s %10s\n", "op", "bytes moved", "time/op", "GB/s",
	       "of peak");
	for (size_t r = 0; r < ARRAY_SIZE(rows); r++) {
		struct cc_op_calc c = { .nsrc = (uint8_t)rows[r].nsrc, .ndst = (uint8_t)rows[r].ndst,
					.count = bytes / cc_dtype_size(rows[r].t), .dtype = rows[r].t,
					.redop = CC_SUM, .postdiv = 1, .where = CC_ON_GPU };
		void *src[2] = { buf[0], buf[1] }, *dst[2] = { buf[2], buf[3] };
		double sec = 0, moved = (double)bytes * (rows[r].nsrc + rows[r].ndst);
		char frac[32];

		if (rows[r].nsrc == 1)
			dst[1] = buf[1]; /* src1 unused: the second destination */
		if ((rc = cc_gpu_time_calc(&c, src, dst, 3, 20, &sec, err, sizeof(err)))) {
			fail_call(rows[r].name, rc);
			bad = 1;
			continue;
		}
		if (info->peak_gbps > 0)
			snprintf(frac, sizeof(frac), "%.1f %%", 100 * moved / sec / 1e9 / info->peak_gbps);
		else
			snprintf(frac, sizeof(frac), "N/A");
		printf("   %-14s %8.0f MiB %9.1f us %10.1f %10s\n", rows[r].name, moved / (1 << 20),
		       sec * 1e6, moved / sec / 1e9, frac);
	}
out:
	for (int k = 0; k < 4; k++)
		cc_gpu_free(buf[k]);
	return bad;
}

/* ---- main ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct cc_gpu_info info;
	const char *env = getenv("CCLAB_CUDA_DEVICE");
	int device = env ? atoi(env) : 0, do_bw = 1, bad = 0, rc;
	char why[512];
	struct bufs B;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-bw")) {
			do_bw = 0;
		} else {
			fprintf(stderr, "usage: %s [--no-bw]\n", argv[0]);
			return 2;
		}
	}
	if (check_page_span()) {
		printf("FAIL: cc_gpu_page_span\n");
		return 1;
	}
	printf("cc_gpu_page_span: ok; GPU peer-memory client (nvidia_peermem / nv_peer_mem): %s\n",
	       cc_gpu_peermem_loaded() ? "loaded" : "not loaded");
	if (!cc_gpu_available(why, sizeof(why))) {
		printf("SKIP: %s\n", why);
		return 0;
	}
	if ((rc = cc_gpu_select(device, err, sizeof(err))) ||
	    (rc = cc_gpu_info(&info, err, sizeof(err)))) {
		printf("FAIL: device %d: %s\n", device, err);
		return 1;
	}
	printf("device %d: %s, sm_%d%d, %d SMs, %.1f GiB; dma-buf: %s; GPUDirect RDMA write "
	       "ordering: %d (0 none, 100 owner, 200 all devices)\n",
	       info.device, info.name, info.cc_major, info.cc_minor, info.sm_count,
	       info.total_mem / 1073741824.0,
	       info.dmabuf_supported < 0 ? "unknown" : info.dmabuf_supported ? "supported" : "no",
	       info.rdma_write_ordering);
	rc = cc_gpu_flush_rdma_writes(err, sizeof(err));
	printf("   cc_gpu_flush_rdma_writes: %s\n", rc ? err : "ok");
	if (rc && rc != -EOPNOTSUPP)
		bad++;
	if (info.dmabuf_supported == 1) {
		void *p = NULL;
		int fd = -1;
		uint64_t off = 0;

		/* An fd for an offset, odd-sized range of a real buffer: the
		 * offset must be the address's offset in its host page. */
		if ((rc = cc_gpu_alloc(&p, 1 << 21, err, sizeof(err))) == 0)
			rc = cc_gpu_dmabuf_fd((char *)p + 4100, 10000, &fd, &off, err, sizeof(err));
		if (rc) {
			/* the driver may still refuse (e.g. no kernel support):
			 * reported, not a failure of the kernels */
			printf("   cc_gpu_dmabuf_fd: %s (%d)\n", err, rc);
		} else {
			uint64_t want = ((uintptr_t)p + 4100) % (uint64_t)sysconf(_SC_PAGESIZE);

			printf("   cc_gpu_dmabuf_fd: fd %d, offset %" PRIu64 " (want %" PRIu64 ")\n",
			       fd, off, want);
			bad += off != want;
			close(fd);
		}
		cc_gpu_free(p);
	}
	if (bufs_init(&B, ((1u << 20) + 3) * 8 + 64) == 0) {
		bad += matrix(&B);
		bad += bits_and_specials(&B);
		bad += copies(&B);
	} else {
		bad++;
	}
	bufs_free(&B);
	if (do_bw)
		bad += bandwidth(&info);
	bad += failures;
	printf("\n%s\n", bad ? "FAIL: the GPU's results differ from core/dtype.c (see above)"
			     : "PASS: every GPU result equals core/dtype.c's");
	return bad ? 1 : 0;
}
