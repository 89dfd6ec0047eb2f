/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/cuda/gpu_none.c — backend/cuda/gpu.h when nvcc was not found at
 * build time (or CCLAB_CUDA=0): no GPU, and every call says why, so a run
 * that asks for GPU buffers fails with a sentence rather than a link error,
 * and `make test-cuda` prints SKIP.  cc_gpu_peermem_loaded and
 * cc_gpu_page_span need no CUDA and live in gpu_sys.c. */
#include "backend/cuda/gpu.h"

#include <errno.h>
#include <stdio.h>

#define NO_CUDA "cclab was built without CUDA (nvcc not found at build time)"

static int no_cuda(char *err, size_t len)
{
	if (err && len)
		snprintf(err, len, "%s", NO_CUDA);
	return -ENOSYS;
}

int cc_gpu_available(char *why, size_t len)
{
	no_cuda(why, len);
	return 0;
}

int cc_gpu_select(int device, char *err, size_t len)
{
	(void)device;
	return no_cuda(err, len);
}

int cc_gpu_info(struct cc_gpu_info *info, char *err, size_t len)
{
	(void)info;
	return no_cuda(err, len);
}

int cc_gpu_alloc(void **p, size_t n, char *err, size_t len)
{
	(void)n;
	if (p)
		*p = NULL;
	return no_cuda(err, len);
}

void cc_gpu_free(void *p)
{
	(void)p;
}

int cc_gpu_memset(void *p, int byte, size_t n, char *err, size_t len)
{
	(void)p, (void)byte, (void)n;
	return no_cuda(err, len);
}

int cc_gpu_copy_to_device(void *dst, const void *src_host, size_t n, char *err, size_t len)
{
	(void)dst, (void)src_host, (void)n;
	return no_cuda(err, len);
}

int cc_gpu_copy_to_host(void *dst_host, const void *src, size_t n, char *err, size_t len)
{
	(void)dst_host, (void)src, (void)n;
	return no_cuda(err, len);
}

int cc_gpu_calc(const struct cc_op_calc *c, void *const *src_ptrs, void *const *dst_ptrs,
		char *err, size_t len)
{
	(void)c, (void)src_ptrs, (void)dst_ptrs;
	return no_cuda(err, len);
}

int cc_gpu_time_calc(const struct cc_op_calc *c, void *const *src_ptrs, void *const *dst_ptrs,
		     unsigned warmup, unsigned iters, double *seconds, char *err, size_t len)
{
	(void)c, (void)src_ptrs, (void)dst_ptrs, (void)warmup, (void)iters;
	if (seconds)
		*seconds = 0;
	return no_cuda(err, len);
}

int cc_gpu_flush_rdma_writes(char *err, size_t len)
{
	return no_cuda(err, len);
}

int cc_gpu_dmabuf_fd(void *p, size_t n, int *fd, uint64_t *offset, char *err, size_t len)
{
	(void)p, (void)n;
	if (fd)
		*fd = -1;
	if (offset)
		*offset = 0;
	return no_cuda(err, len);
}

int cc_gpu_count(int *n, char *err, size_t len)
{
	if (n)
		*n = 0;
	return no_cuda(err, len);
}

int cc_gpu_pci_bus_id(int device, char *buf, size_t n, char *err, size_t len)
{
	(void)device;
	if (buf && n)
		buf[0] = '\0';
	return no_cuda(err, len);
}

int cc_gpu_host_alloc(void **host, void **dev, size_t n, char *err, size_t len)
{
	(void)n;
	if (host)
		*host = NULL;
	if (dev)
		*dev = NULL;
	return no_cuda(err, len);
}

void cc_gpu_host_free(void *host)
{
	(void)host;
}
