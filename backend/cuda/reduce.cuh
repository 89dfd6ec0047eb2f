/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/cuda/reduce.cuh — between gpu_cuda.cu (the C API, its checks and
 * error messages) and reduce.cu (the kernels).  C++ / CUDA only. */
#ifndef CCLAB_BACKEND_CUDA_REDUCE_CUH
#define CCLAB_BACKEND_CUDA_REDUCE_CUH

#include <cuda_runtime.h>

extern "C" {
#include "core/schedule.h"
}

/* Queues one reduce (c->nsrc == 2) or copy (c->nsrc == 1) on stream s.
 * The caller has checked c (dtype, redop, nsrc, ndst, count > 0, pointers);
 * the return is the launch's cudaGetLastError(). */
cudaError_t cc_gpu_launch_calc(const struct cc_op_calc *c, void *const *src, void *const *dst,
			       cudaStream_t s);

/* cudaSuccess when the current device can run the kernels (an image for
 * its architecture, or PTX it can compile), else the loader's error. */
cudaError_t cc_gpu_probe_kernels(void);

#endif
