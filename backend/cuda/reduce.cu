/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/cuda/reduce.cu — the schedule's reduce and copy ops as CUDA
 * kernels: reduce_ops.cuh holds the arithmetic and what each thread does
 * (and says why); this file holds the kernels, their grid and the dispatch
 * from (dtype, redop) to one of 40 instantiations.  avg runs the sum kernel
 * with postdiv, as NCCL's FuncSumPostDiv is a sum with a final divide. */
#include <cuda_runtime.h>

#include <atomic>
#include <stdint.h>

#include "backend/cuda/reduce.cuh"
#include "backend/cuda/reduce_ops.cuh"

using namespace ccgpu;

namespace {

template <int DT, int OP> __global__ void __launch_bounds__(THREADS) reduce_kernel(Args a)
{
	reduce_body<DT, OP>(a, blockIdx.x, threadIdx.x, gridDim.x);
}

__global__ void __launch_bounds__(THREADS) copy_kernel(Args a)
{
	copy_body(a, blockIdx.x, threadIdx.x, gridDim.x);
}

/* The SM count of each device, asked once: a reduce is launched per slice,
 * and the attribute query is cheap but not free. */
std::atomic<int> sm_cache[64];

int sm_count(void)
{
	int dev = 0, n = 0;

	if (cudaGetDevice(&dev) != cudaSuccess)
		return 1;
	if (dev >= 0 && dev < 64 && (n = sm_cache[dev].load(std::memory_order_relaxed)) > 0)
		return n;
	if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n < 1)
		n = 1;
	if (dev >= 0 && dev < 64)
		sm_cache[dev].store(n, std::memory_order_relaxed);
	return n;
}

/* Blocks of `kernel` an SM holds at once (its registers decide: 48 to 68
 * per thread on sm_90, so 3 to 5 blocks of 256), asked once per kernel;
 * the first device asked answers for all, which only matters for grid
 * size on a mix of GPU generations. */
int resident(std::atomic<int> *cache, const void *kernel)
{
	int n = cache->load(std::memory_order_relaxed);

	if (n > 0)
		return n;
	if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, THREADS, 0) != cudaSuccess || n < 1) {
		(void)cudaGetLastError();
		n = 2048 / THREADS;
	}
	cache->store(n, std::memory_order_relaxed);
	return n;
}

/* One full wave of resident blocks at most, so no block waits for another
 * to finish (the grid-stride loops cover any count); fewer when there is
 * less work; at least one, whose first threads also do the head and tail. */
unsigned grid_for(uint64_t threads, int per_sm)
{
	uint64_t want = (threads + THREADS - 1) / THREADS;
	uint64_t cap = (uint64_t)sm_count() * (uint64_t)per_sm;

	return (unsigned)(want < 1 ? 1 : want > cap ? cap : want);
}

template <int DT, int OP> void launch(const Args &a, cudaStream_t s)
{
	static std::atomic<int> occupancy;
	uint64_t threads = a.mode == MODE_VEC ? (a.nvec + UNROLL - 1) / UNROLL : a.count;
	unsigned grid = grid_for(threads, resident(&occupancy, (const void *)reduce_kernel<DT, OP>));

	reduce_kernel<DT, OP><<<grid, THREADS, 0, s>>>(a);
}

template <int DT> void launch_dt(int op, const Args &a, cudaStream_t s)
{
	switch (op) {
	case CC_PROD:
		launch<DT, CC_PROD>(a, s);
		break;
	case CC_MIN:
		launch<DT, CC_MIN>(a, s);
		break;
	case CC_MAX:
		launch<DT, CC_MAX>(a, s);
		break;
	default: /* CC_SUM, CC_AVG (postdiv divides) */
		launch<DT, CC_SUM>(a, s);
		break;
	}
}

} // namespace

cudaError_t cc_gpu_launch_calc(const struct cc_op_calc *c, void *const *src, void *const *dst,
			       cudaStream_t s)
{
	Args a = setup(c, src, dst);

	if (c->nsrc == 1) {
		if (a.mode != MODE_VEC) {
			/* Source and destinations disagree modulo 16: the copy
			 * engine's path, one copy per destination that is not the
			 * source itself. */
			for (int j = 0; j < c->ndst; j++) {
				unsigned char *d = j ? a.dst1 : a.dst0;
				cudaError_t e = d == a.src0 ? cudaSuccess
							    : cudaMemcpyAsync(d, a.src0, a.count,
									      cudaMemcpyDeviceToDevice, s);
				if (e != cudaSuccess)
					return e;
			}
			return cudaSuccess;
		}
		static std::atomic<int> occupancy;
		unsigned grid = grid_for((a.nvec + UNROLL - 1) / UNROLL,
					 resident(&occupancy, (const void *)copy_kernel));

		copy_kernel<<<grid, THREADS, 0, s>>>(a);
		return cudaGetLastError();
	}

	switch (c->dtype) {
	case CC_INT8: launch_dt<CC_INT8>(c->redop, a, s); break;
	case CC_UINT8: launch_dt<CC_UINT8>(c->redop, a, s); break;
	case CC_INT32: launch_dt<CC_INT32>(c->redop, a, s); break;
	case CC_UINT32: launch_dt<CC_UINT32>(c->redop, a, s); break;
	case CC_INT64: launch_dt<CC_INT64>(c->redop, a, s); break;
	case CC_UINT64: launch_dt<CC_UINT64>(c->redop, a, s); break;
	case CC_FLOAT16: launch_dt<CC_FLOAT16>(c->redop, a, s); break;
	case CC_BFLOAT16: launch_dt<CC_BFLOAT16>(c->redop, a, s); break;
	case CC_FLOAT32: launch_dt<CC_FLOAT32>(c->redop, a, s); break;
	default: launch_dt<CC_FLOAT64>(c->redop, a, s); break;
	}
	return cudaGetLastError();
}

cudaError_t cc_gpu_probe_kernels(void)
{
	cudaFuncAttributes fa;

	return cudaFuncGetAttributes(&fa, reduce_kernel<CC_FLOAT32, CC_SUM>);
}
