/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/cuda/gpu.h — what the rest of cclab asks of a GPU: is there one,
 * device memory, the schedule's reduce and copy run as kernels, and what
 * the verbs executor needs to register GPU memory with an RNIC.
 *
 * A plain C header with no CUDA type in it, so every C file can include
 * it whether or not cclab was built with CUDA.  Two implementations:
 * backend/cuda/gpu_cuda.cu + reduce.cu when nvcc was found at build time
 * (backend/cuda/cuda.mk), backend/cuda/gpu_none.c otherwise, where every
 * call fails with "cclab was built without CUDA" and cc_gpu_available()
 * says so.  backend/cuda/gpu_sys.c (sysfs and address arithmetic, no CUDA)
 * is in both.
 *
 * Errors: 0 on success, else a negative errno value with a sentence in
 * err (when err is not NULL): -ENOSYS built without CUDA, -ENODEV no
 * usable device, -EINVAL a bad argument, -ENOMEM an allocation, -EOPNOTSUPP
 * a feature this device or driver lacks, -EIO any other CUDA error (the
 * message names the call and cudaGetErrorName / cudaGetErrorString).
 *
 * Threads: CUDA's current device is per host thread (cudaSetDevice), so a
 * thread calls cc_gpu_select() before its first other call.  Every call
 * here is synchronous: when it returns the data is in place and any
 * kernel error has been reported, which is what the executor's op model
 * wants (an op completes when its result is visible).
 *
 * Registering GPU memory for RDMA (GPUDirect RDMA).  The verbs executor
 * tries, for each GPU buffer, in this order — NCCL's order
 * (src/transport/net.cc: dma-buf first, "FALL-THROUGH to nv_peermem GDR
 * path"):
 *   1. dma-buf: cc_gpu_dmabuf_fd() gives a file descriptor for the pages
 *      under [p, p+n) and the offset of p inside it; then
 *          ibv_reg_dmabuf_mr(pd, offset, n, (uint64_t)(uintptr_t)p, fd, access)
 *      (iova = p, so remote addresses are the device pointers, as with
 *      ibv_reg_mr), then close(fd): the MR holds its own reference.  Needs
 *      the GPU side (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, which this
 *      function checks) and the RDMA side: Linux >= 5.12 and an rdma-core /
 *      provider with dma-buf MRs.  Probe the latter once per device as NCCL's
 *      ncclIbDmaBufSupport does: ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0)
 *      failing with errno EOPNOTSUPP or EPROTONOSUPPORT means no support
 *      (EBADF means the kernel understood the request).
 *   2. peer memory: when cc_gpu_peermem_loaded(), the kernel's peer-memory
 *      client (nvidia_peermem, or the older nv_peer_mem) lets
 *      ibv_reg_mr(pd, p, n, access) pin device pointers directly.
 *   3. host staging: no GPUDirect RDMA.  The RNIC reads and writes pinned
 *      host buffers and the executor copies between them and the GPU with
 *      cc_gpu_copy_to_device / cc_gpu_copy_to_host (the cost model of
 *      docs/simulator.md's staging).
 */
#ifndef CCLAB_BACKEND_CUDA_GPU_H
#define CCLAB_BACKEND_CUDA_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when cclab was built with CUDA, a device is visible and cclab's kernels
 * load on it (a GPU older than the code nvcc produced, sm_80 PTX, fails
 * here rather than at the first reduce).  Else 0 and a reason in why:
 * "cclab was built without CUDA (nvcc not found at build time)", "no CUDA
 * device: cudaGetDeviceCount: ...". */
int cc_gpu_available(char *why, size_t len);

/* Makes `device` current for this thread and creates its context. */
int cc_gpu_select(int device, char *err, size_t len);

/* What cc_gpu_info reports about the current device. */
struct cc_gpu_info {
	int device;
	char name[256];
	int cc_major, cc_minor;    /* compute capability: 9.0 for H100 / H200 */
	int sm_count;
	uint64_t total_mem;        /* bytes */
	int mem_clock_khz;         /* cudaDevAttrMemoryClockRate; 0 = unavailable */
	int bus_width_bits;        /* cudaDevAttrGlobalMemoryBusWidth; 0 = unavailable */
	double peak_gbps;          /* 2 * clock * width / 8 (double data rate), 1e9 B/s;
				    * 0 when either attribute is unavailable */
	int dmabuf_supported;      /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED; -1 unknown */
	int rdma_write_ordering;   /* cudaDevAttrGPUDirectRDMAWritesOrdering: 0 none,
				    * 100 owner, 200 all devices; -1 unknown */
};

int cc_gpu_info(struct cc_gpu_info *info, char *err, size_t len);

/* Visible CUDA devices (cudaGetDeviceCount), into *n. */
int cc_gpu_count(int *n, char *err, size_t len);

/* Device `device`'s PCI address as sysfs names it, "0000:19:00.0"
 * (cudaDeviceGetPCIBusId, lower-cased), for the GPU-NIC distance
 * (backend/pcie.h). */
int cc_gpu_pci_bus_id(int device, char *buf, size_t n, char *err, size_t len);

/* Pinned host memory mapped into the GPU's address space, zeroed: NCCL's
 * host staging buffers without GPUDirect RDMA (src/transport/net.cc,
 * ncclCudaHostCalloc: cudaHostAlloc with cudaHostAllocMapped).  *host is
 * for the CPU and the RNIC (ibv_reg_mr), *dev for kernels
 * (cudaHostGetDevicePointer; the same address under UVA).  n == 0 gives
 * NULLs and 0.  cc_gpu_host_free(NULL) does nothing. */
int cc_gpu_host_alloc(void **host, void **dev, size_t n, char *err, size_t len);
void cc_gpu_host_free(void *host);

/* Device memory on the current device (cudaMalloc: 256-byte aligned at
 * least).  n == 0 gives *p == NULL and 0.  cc_gpu_free(NULL) does nothing. */
int cc_gpu_alloc(void **p, size_t n, char *err, size_t len);
void cc_gpu_free(void *p);
int cc_gpu_memset(void *p, int byte, size_t n, char *err, size_t len);
int cc_gpu_copy_to_device(void *dst, const void *src_host, size_t n, char *err, size_t len);
int cc_gpu_copy_to_host(void *dst_host, const void *src, size_t n, char *err, size_t len);

/* One reduce or copy op of the schedule on device memory, with exactly
 * core/dtype.c's arithmetic (cc_reduce, then cc_postdiv when c->postdiv > 1),
 * so the verbs executor's results check bit for bit against the reference.
 *
 * The executor resolves the op's cc_mrefs: src_ptrs[k] = base of buffer
 * c->src[k].buf + c->src[k].offset, k < c->nsrc, and likewise dst_ptrs for
 * c->ndst destinations (c->src / c->dst themselves are not read).  The
 * kind follows from c->nsrc, as core/ring.c builds ops and
 * cc_schedule_validate enforces for reduces: nsrc == 2 reduces
 * (dst[j] = src[0] op src[1], then / postdiv), nsrc == 1 copies
 * (dst[j] = src[0]; redop and postdiv unused, as in core/exec_data.c).
 * All destinations are written in the same pass (NCCL's reduceCopy,
 * src/device/common_kernel.h).  A destination may be a source exactly
 * (in place); partial overlaps are not supported (the schedule makes none).
 * Any byte alignment works; pointers that share their offset modulo 16
 * bytes (the usual case: cudaMalloc'd buffers and element-sized offsets)
 * take the 16-byte vector path. */
int cc_gpu_calc(const struct cc_op_calc *c, void *const *src_ptrs, void *const *dst_ptrs,
		char *err, size_t len);

/* For tests and benchmarks: runs the same op `warmup` times, then `iters`
 * times back to back between two CUDA events, and gives the mean seconds
 * per op (kernel time without launch-and-wait round trips). */
int cc_gpu_time_calc(const struct cc_op_calc *c, void *const *src_ptrs, void *const *dst_ptrs,
		     unsigned warmup, unsigned iters, double *seconds, char *err, size_t len);

/* A dma-buf file descriptor for device memory [p, p+n) of the current
 * device (cuMemGetHandleForAddressRange with CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD).
 * The driver wants a range aligned to the host page size, so the fd covers
 * [p rounded down, p+n rounded up) and *offset is p's offset inside it: the
 * `offset` argument of ibv_reg_dmabuf_mr.  The caller closes *fd.
 * -EOPNOTSUPP when the device says it has no dma-buf support. */
int cc_gpu_dmabuf_fd(void *p, size_t n, int *fd, uint64_t *offset, char *err, size_t len);

/* After the CPU has seen that an RDMA WRITE into this GPU's memory is
 * complete (a CQE, or a flag in host memory), makes the written data
 * visible to kernels launched afterwards.  A no-op where the GPU orders
 * such writes itself (cc_gpu_info's rdma_write_ordering >= 100, "owner"),
 * else cudaDeviceFlushGPUDirectRDMAWrites.  -EOPNOTSUPP where neither
 * holds; the verbs executor then flushes as NCCL's ncclIbIflush does, with
 * an RDMA READ of the buffer on a loopback QP, which PCIe orders after the
 * writes. */
int cc_gpu_flush_rdma_writes(char *err, size_t len);

/* 1 when a peer-memory client for NVIDIA GPUs is loaded, so ibv_reg_mr
 * accepts device pointers: /sys/module/nvidia_peermem (the driver's own
 * module) or /sys/kernel/mm/memory_peers/nv_mem{,_nc}/version (the older
 * nv_peer_mem), the files NCCL's ncclIbGdrSupport looks for.  Reads sysfs
 * only, so it answers the same with or without CUDA. */
int cc_gpu_peermem_loaded(void);

/* The page-aligned span cc_gpu_dmabuf_fd asks the driver for: base = addr
 * rounded down to `page` (a power of two), span = (addr + n rounded up) -
 * base, offset = addr - base.  -EINVAL when page is not a power of two,
 * n == 0, or the rounded end overflows.  Pure arithmetic, tested without
 * a GPU. */
int cc_gpu_page_span(uintptr_t addr, size_t n, size_t page, uintptr_t *base, size_t *span,
		     uint64_t *offset);

#ifdef __cplusplus
}
#endif

#endif
