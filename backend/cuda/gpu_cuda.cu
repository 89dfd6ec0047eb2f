/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/cuda/gpu_cuda.cu — backend/cuda/gpu.h with CUDA: device selection
 * and memory through the runtime API, the reduce / copy ops through
 * reduce.cu's kernels, dma-buf export through the driver API.
 *
 * cclab links the CUDA runtime statically and never links libcuda: the
 * runtime opens the driver library (libcuda.so.1) itself when first called,
 * and the three driver functions used here (cuDeviceGet,
 * cuDeviceGetAttribute, cuMemGetHandleForAddressRange) come from
 * cudaGetDriverEntryPointByVersion.  So a binary built with CUDA starts on
 * a machine without the NVIDIA driver and reports "no CUDA device" instead
 * of failing in the dynamic loader, and no stub library is needed to link.
 */
#include <cuda.h>
#include <cuda_runtime.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern "C" {
#include "core/schedule.h"
#include "util/err.h"
}
#include "backend/cuda/gpu.h"
#include "backend/cuda/reduce.cuh"

#define STR_(...) #__VA_ARGS__
#define STR(...) STR_(__VA_ARGS__)
/* nvcc defines __CUDA_ARCH_LIST__ (CUDA >= 11.5) in host code as the
 * architectures it generated code for, e.g. 800,900. */
#ifdef __CUDA_ARCH_LIST__
#define ARCH_LIST STR(__CUDA_ARCH_LIST__)
#else
#define ARCH_LIST "?"
#endif

namespace {

/* A failed runtime call: its name, CUDA's name for the error and its
 * sentence.  Clears the (non-sticky) last error so the next call starts
 * clean. */
int cuda_fail(char *err, size_t len, const char *call, cudaError_t e)
{
	int rc;

	switch (e) {
	case cudaErrorMemoryAllocation:
		rc = -ENOMEM;
		break;
	case cudaErrorNoDevice:
	case cudaErrorInsufficientDriver:
	case cudaErrorInvalidDevice:
	case cudaErrorDevicesUnavailable:
		rc = -ENODEV;
		break;
	case cudaErrorInvalidValue:
	case cudaErrorInvalidDevicePointer:
		rc = -EINVAL;
		break;
	default:
		rc = -EIO;
		break;
	}
	(void)cudaGetLastError();
	return cc_errf(err, len, rc, "%s: %s (%s)", call, cudaGetErrorString(e), cudaGetErrorName(e));
}

#define CALL(err, len, expr)                                                                       \
	do {                                                                                       \
		cudaError_t e_ = (expr);                                                           \
		if (e_ != cudaSuccess)                                                             \
			return cuda_fail(err, len, #expr, e_);                                     \
	} while (0)

/* ---- driver API through the runtime -------------------------------------- */

typedef CUresult (*cuDeviceGet_fn)(CUdevice *, int);
typedef CUresult (*cuDeviceGetAttribute_fn)(int *, CUdevice_attribute, CUdevice);
typedef CUresult (*cuMemGetHandleForAddressRange_fn)(void *, CUdeviceptr, size_t, CUmemRangeHandleType,
						     unsigned long long);
typedef CUresult (*cuGetErrorName_fn)(CUresult, const char **);

/* The driver's function `sym` as of the CUDA 12.0 ABI (every one used here
 * is older and unchanged since). */
template <class F> int driver_fn(const char *sym, F *fn, char *err, size_t len)
{
	cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
	void *p = nullptr;
#if CUDART_VERSION >= 12050
	cudaError_t e = cudaGetDriverEntryPointByVersion(sym, &p, 12000, cudaEnableDefault, &q);
#else
	cudaError_t e = cudaGetDriverEntryPoint(sym, &p, cudaEnableDefault, &q);
#endif
	if (e != cudaSuccess)
		return cuda_fail(err, len, "cudaGetDriverEntryPoint", e);
	if (q != cudaDriverEntryPointSuccess || !p)
		return cc_errf(err, len, -EOPNOTSUPP, "the CUDA driver has no %s (query result %d)", sym,
			       (int)q);
	*fn = reinterpret_cast<F>(p);
	return 0;
}

int cu_fail(char *err, size_t len, const char *call, CUresult r)
{
	cuGetErrorName_fn name_fn = nullptr;
	const char *name = nullptr;

	if (driver_fn("cuGetErrorName", &name_fn, nullptr, 0) == 0)
		name_fn(r, &name);
	return cc_errf(err, len, r == CUDA_ERROR_NOT_SUPPORTED ? -EOPNOTSUPP : -EIO, "%s: %s (%d)", call,
		       name ? name : "CUDA driver error", (int)r);
}

/* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED of the current device: 1, 0, or a
 * negative errno. */
int dmabuf_supported(char *err, size_t len)
{
	cuDeviceGet_fn get = nullptr;
	cuDeviceGetAttribute_fn attr = nullptr;
	CUdevice cu = 0;
	CUresult r;
	int dev = 0, v = 0, rc;

	CALL(err, len, cudaGetDevice(&dev));
	if ((rc = driver_fn("cuDeviceGet", &get, err, len)) ||
	    (rc = driver_fn("cuDeviceGetAttribute", &attr, err, len)))
		return rc;
	if ((r = get(&cu, dev)) != CUDA_SUCCESS)
		return cu_fail(err, len, "cuDeviceGet", r);
	if ((r = attr(&v, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, cu)) != CUDA_SUCCESS)
		return cu_fail(err, len, "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED)", r);
	return v != 0;
}

bool dtype_ok(int t)
{
	return t >= 0 && t < CC_DTYPE_COUNT;
}

int check_calc(const struct cc_op_calc *c, void *const *src, void *const *dst, char *err,
	       size_t len)
{
	if (!c || !src || !dst)
		return cc_errf(err, len, -EINVAL, "cc_gpu_calc: NULL argument");
	if (!dtype_ok(c->dtype) || (unsigned)c->redop >= CC_REDOP_COUNT)
		return cc_errf(err, len, -EINVAL, "cc_gpu_calc: bad dtype %d or redop %d", (int)c->dtype,
			       (int)c->redop);
	if (c->nsrc < 1 || c->nsrc > 2 || c->ndst < 1 || c->ndst > 2)
		return cc_errf(err, len, -EINVAL, "cc_gpu_calc: %u sources, %u destinations (1 or 2 each)",
			       c->nsrc, c->ndst);
	if (c->count > UINT64_MAX / 8)
		return cc_errf(err, len, -EINVAL, "cc_gpu_calc: count %llu too large",
			       (unsigned long long)c->count);
	for (int k = 0; k < c->nsrc; k++)
		if (!src[k])
			return cc_errf(err, len, -EINVAL, "cc_gpu_calc: source %d is NULL", k);
	for (int k = 0; k < c->ndst; k++)
		if (!dst[k])
			return cc_errf(err, len, -EINVAL, "cc_gpu_calc: destination %d is NULL", k);
	return 0;
}

} // namespace

extern "C" int cc_gpu_available(char *why, size_t len)
{
	cudaError_t e;
	int n = 0, dev = 0;

	if ((e = cudaGetDeviceCount(&n)) != cudaSuccess) {
		int drv = 0, rt = 0;
		char hint[160] = "";

		/* "insufficient driver" is also what no driver at all gives:
		 * cudaDriverGetVersion tells the two apart (0 = none). */
		if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&drv) == cudaSuccess &&
		    cudaRuntimeGetVersion(&rt) == cudaSuccess) {
			if (drv == 0)
				snprintf(hint, sizeof(hint), "; no NVIDIA driver is installed (libcuda.so.1 not found)");
			else
				snprintf(hint, sizeof(hint), "; the driver supports CUDA %d.%d, cclab was built with %d.%d",
					 drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
		}
		cc_errf(why, len, 0, "no CUDA device: cudaGetDeviceCount: %s (%s)%s", cudaGetErrorString(e),
			cudaGetErrorName(e), hint);
		(void)cudaGetLastError();
		return 0;
	}
	if (n < 1)
		return cc_errf(why, len, 0, "no CUDA device: cudaGetDeviceCount found none");
	if ((e = cc_gpu_probe_kernels()) != cudaSuccess) {
		cudaDeviceProp p;
		int ok = cudaGetDevice(&dev) == cudaSuccess &&
			 cudaGetDeviceProperties(&p, dev) == cudaSuccess;

		cc_errf(why, len, 0, "CUDA device %d (%s, sm_%d%d) cannot run cclab's kernels, built for %s: %s (%s)",
			dev, ok ? p.name : "?", ok ? p.major : 0, ok ? p.minor : 0, ARCH_LIST,
			cudaGetErrorString(e), cudaGetErrorName(e));
		(void)cudaGetLastError();
		return 0;
	}
	return 1;
}

extern "C" int cc_gpu_select(int device, char *err, size_t len)
{
	CALL(err, len, cudaSetDevice(device));
	CALL(err, len, cudaFree(nullptr)); /* creates the primary context now */
	return 0;
}

extern "C" int cc_gpu_info(struct cc_gpu_info *info, char *err, size_t len)
{
	cudaDeviceProp p;
	int dev = 0, v = 0;

	if (!info)
		return cc_errf(err, len, -EINVAL, "cc_gpu_info: NULL argument");
	memset(info, 0, sizeof(*info));
	CALL(err, len, cudaGetDevice(&dev));
	CALL(err, len, cudaGetDeviceProperties(&p, dev));
	info->device = dev;
	snprintf(info->name, sizeof(info->name), "%s", p.name);
	info->cc_major = p.major;
	info->cc_minor = p.minor;
	info->sm_count = p.multiProcessorCount;
	info->total_mem = p.totalGlobalMem;
	/* CUDA 13 dropped cudaDeviceProp::memoryClockRate and friends; the
	 * attributes remain, and a driver may still not report them. */
	if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev) == cudaSuccess && v > 0)
		info->mem_clock_khz = v;
	if (cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess && v > 0)
		info->bus_width_bits = v;
	(void)cudaGetLastError();
	if (info->mem_clock_khz && info->bus_width_bits)
		info->peak_gbps = 2.0 * info->mem_clock_khz * 1e3 * (info->bus_width_bits / 8.0) / 1e9;
	v = dmabuf_supported(nullptr, 0);
	info->dmabuf_supported = v < 0 ? -1 : v;
	info->rdma_write_ordering = -1;
	if (cudaDeviceGetAttribute(&v, cudaDevAttrGPUDirectRDMAWritesOrdering, dev) == cudaSuccess)
		info->rdma_write_ordering = v;
	(void)cudaGetLastError();
	return 0;
}

extern "C" int cc_gpu_count(int *n, char *err, size_t len)
{
	if (!n)
		return cc_errf(err, len, -EINVAL, "cc_gpu_count: NULL argument");
	*n = 0;
	CALL(err, len, cudaGetDeviceCount(n));
	return 0;
}

extern "C" int cc_gpu_pci_bus_id(int device, char *buf, size_t n, char *err, size_t len)
{
	if (!buf || n < 13)
		return cc_errf(err, len, -EINVAL, "cc_gpu_pci_bus_id: buffer too small");
	CALL(err, len, cudaDeviceGetPCIBusId(buf, (int)n, device));
	/* "0000:1A:00.0" -> sysfs's "0000:1a:00.0" */
	for (char *c = buf; *c; c++)
		if (*c >= 'A' && *c <= 'F')
			*c = (char)(*c - 'A' + 'a');
	return 0;
}

extern "C" int cc_gpu_host_alloc(void **host, void **dev, size_t n, char *err, size_t len)
{
	if (!host || !dev)
		return cc_errf(err, len, -EINVAL, "cc_gpu_host_alloc: NULL argument");
	*host = *dev = nullptr;
	if (n == 0)
		return 0;
	cudaError_t e = cudaHostAlloc(host, n, cudaHostAllocMapped | cudaHostAllocPortable);
	if (e != cudaSuccess) {
		*host = nullptr;
		return cuda_fail(err, len, "cudaHostAlloc", e);
	}
	memset(*host, 0, n);
	if ((e = cudaHostGetDevicePointer(dev, *host, 0)) != cudaSuccess) {
		(void)cudaFreeHost(*host);
		*host = *dev = nullptr;
		return cuda_fail(err, len, "cudaHostGetDevicePointer", e);
	}
	return 0;
}

extern "C" void cc_gpu_host_free(void *host)
{
	if (host) {
		(void)cudaFreeHost(host);
		(void)cudaGetLastError();
	}
}

extern "C" int cc_gpu_alloc(void **p, size_t n, char *err, size_t len)
{
	if (!p)
		return cc_errf(err, len, -EINVAL, "cc_gpu_alloc: NULL argument");
	*p = nullptr;
	if (n == 0)
		return 0;
	cudaError_t e = cudaMalloc(p, n);
	if (e != cudaSuccess) {
		*p = nullptr;
		int rc = cuda_fail(err, len, "cudaMalloc", e);
		if (err && len) {
			size_t used = strlen(err);
			snprintf(err + used, len - used, " for %zu bytes", n);
		}
		return rc;
	}
	return 0;
}

extern "C" void cc_gpu_free(void *p)
{
	if (p) {
		(void)cudaFree(p);
		(void)cudaGetLastError();
	}
}

/* cudaMemset and device-to-device cudaMemcpy may return before the work is
 * done, and a host-to-device cudaMemcpy from pageable memory returns once
 * the data is staged, not landed; all run on the legacy default stream, so
 * synchronising it makes each call complete when it returns — which an RNIC
 * reading the buffer next (GPUDirect RDMA) relies on. */
extern "C" int cc_gpu_memset(void *p, int byte, size_t n, char *err, size_t len)
{
	CALL(err, len, cudaMemset(p, byte, n));
	CALL(err, len, cudaStreamSynchronize(nullptr));
	return 0;
}

extern "C" int cc_gpu_copy_to_device(void *dst, const void *src_host, size_t n, char *err, size_t len)
{
	CALL(err, len, cudaMemcpy(dst, src_host, n, cudaMemcpyHostToDevice));
	CALL(err, len, cudaStreamSynchronize(nullptr));
	return 0;
}

extern "C" int cc_gpu_copy_to_host(void *dst_host, const void *src, size_t n, char *err, size_t len)
{
	CALL(err, len, cudaMemcpy(dst_host, src, n, cudaMemcpyDeviceToHost));
	return 0;
}

extern "C" int cc_gpu_flush_rdma_writes(char *err, size_t len)
{
	int dev = 0, order = 0, opts = 0;

	CALL(err, len, cudaGetDevice(&dev));
	CALL(err, len, cudaDeviceGetAttribute(&order, cudaDevAttrGPUDirectRDMAWritesOrdering, dev));
	if (order >= cudaGPUDirectRDMAWritesOrderingOwner)
		return 0;
	CALL(err, len, cudaDeviceGetAttribute(&opts, cudaDevAttrGPUDirectRDMAFlushWritesOptions, dev));
	if (!(opts & cudaFlushGPUDirectRDMAWritesOptionHost))
		return cc_errf(err, len, -EOPNOTSUPP,
			       "CUDA device %d neither orders GPUDirect RDMA writes nor offers "
			       "cudaDeviceFlushGPUDirectRDMAWrites: flush with an RDMA READ on a loopback QP",
			       dev);
	CALL(err, len, cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
							   cudaFlushGPUDirectRDMAWritesToOwner));
	return 0;
}

extern "C" int cc_gpu_calc(const struct cc_op_calc *c, void *const *src_ptrs, void *const *dst_ptrs,
			   char *err, size_t len)
{
	int rc = check_calc(c, src_ptrs, dst_ptrs, err, len);

	if (rc || c->count == 0)
		return rc;
	/* The legacy default stream: ordered after every earlier copy and
	 * kernel of this device, whatever thread queued them. */
	CALL(err, len, cc_gpu_launch_calc(c, src_ptrs, dst_ptrs, nullptr));
	CALL(err, len, cudaStreamSynchronize(nullptr));
	return 0;
}

extern "C" int cc_gpu_time_calc(const struct cc_op_calc *c, void *const *src_ptrs,
				void *const *dst_ptrs, unsigned warmup, unsigned iters,
				double *seconds, char *err, size_t len)
{
	cudaEvent_t start = nullptr, stop = nullptr;
	cudaError_t e = cudaSuccess;
	const char *call = "";
	float ms = 0;
	int rc = check_calc(c, src_ptrs, dst_ptrs, err, len);

	if (rc)
		return rc;
	if (!seconds || iters == 0)
		return cc_errf(err, len, -EINVAL, "cc_gpu_time_calc: no iterations or NULL seconds");
	*seconds = 0;
	if (c->count == 0)
		return 0;
#define STEP(expr)                                                                                 \
	if (e == cudaSuccess && (e = (expr)) != cudaSuccess)                                       \
		call = #expr;
	STEP(cudaEventCreate(&start));
	STEP(cudaEventCreate(&stop));
	for (unsigned i = 0; i < warmup && e == cudaSuccess; i++)
		STEP(cc_gpu_launch_calc(c, src_ptrs, dst_ptrs, nullptr));
	STEP(cudaEventRecord(start, nullptr));
	for (unsigned i = 0; i < iters && e == cudaSuccess; i++)
		STEP(cc_gpu_launch_calc(c, src_ptrs, dst_ptrs, nullptr));
	STEP(cudaEventRecord(stop, nullptr));
	STEP(cudaEventSynchronize(stop));
	STEP(cudaEventElapsedTime(&ms, start, stop));
#undef STEP
	if (start)
		cudaEventDestroy(start);
	if (stop)
		cudaEventDestroy(stop);
	if (e != cudaSuccess)
		return cuda_fail(err, len, call, e);
	*seconds = ms / 1e3 / iters;
	return 0;
}

extern "C" int cc_gpu_dmabuf_fd(void *p, size_t n, int *fd, uint64_t *offset, char *err, size_t len)
{
	cuMemGetHandleForAddressRange_fn get_handle = nullptr;
	cudaPointerAttributes pa;
	uintptr_t base;
	size_t span;
	long page = sysconf(_SC_PAGESIZE);
	int dev = 0, rc, h = -1;
	CUresult r;

	if (!fd || !offset)
		return cc_errf(err, len, -EINVAL, "cc_gpu_dmabuf_fd: NULL argument");
	*fd = -1;
	*offset = 0;
	if (!p || n == 0)
		return cc_errf(err, len, -EINVAL, "cc_gpu_dmabuf_fd: empty range");
	if (page <= 0)
		page = 4096;
	if (cc_gpu_page_span((uintptr_t)p, n, (size_t)page, &base, &span, offset))
		return cc_errf(err, len, -EINVAL, "cc_gpu_dmabuf_fd: range %p + %zu wraps", p, n);
	/* Only cudaMalloc'd memory of the current device: the driver's
	 * condition, checked here for a clearer message. */
	CALL(err, len, cudaPointerGetAttributes(&pa, p));
	if (pa.type != cudaMemoryTypeDevice)
		return cc_errf(err, len, -EINVAL,
			       "cc_gpu_dmabuf_fd: %p is not device memory (cudaMalloc) but type %d", p,
			       (int)pa.type);
	CALL(err, len, cudaGetDevice(&dev));
	if (pa.device != dev)
		return cc_errf(err, len, -EINVAL,
			       "cc_gpu_dmabuf_fd: %p is on CUDA device %d, device %d is selected", p,
			       pa.device, dev);
	/* Driver calls need the context current on this thread; with the
	 * runtime's primary context, cudaSetDevice makes it so. */
	CALL(err, len, cudaSetDevice(dev));
	if ((rc = dmabuf_supported(err, len)) < 0)
		return rc;
	if (rc == 0)
		return cc_errf(err, len, -EOPNOTSUPP,
			       "CUDA device %d has no dma-buf support (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED "
			       "= 0: it needs Linux >= 5.12 and a driver that exports dma-bufs, NVIDIA's "
			       "open GPU kernel modules); use nvidia_peermem or host staging",
			       dev);
	if ((rc = driver_fn("cuMemGetHandleForAddressRange", &get_handle, err, len)))
		return rc;
	r = get_handle(&h, (CUdeviceptr)base, span, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (r != CUDA_SUCCESS)
		return cu_fail(err, len, "cuMemGetHandleForAddressRange(CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD)",
			       r);
	*fd = h;
	return 0;
}
