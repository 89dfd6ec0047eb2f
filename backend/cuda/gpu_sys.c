/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/cuda/gpu_sys.c — the parts of backend/cuda/gpu.h that need no
 * CUDA: whether a GPU peer-memory client is loaded (sysfs) and the
 * page-aligned span of a dma-buf request.  Built with and without CUDA, so
 * these answers and their tests do not depend on nvcc. */
#include "backend/cuda/gpu.h"

#include <errno.h>
#include <unistd.h>

/* The files NCCL's ncclIbGdrSupport checks (src/transport/net_ib.cc):
 * nvidia_peermem, shipped with the driver since 470, shows up as a module;
 * the older Mellanox nv_peer_mem registers with the peer-memory API, which
 * creates memory_peers/<name>/version ("nv_mem_nc" is its variant for
 * non-coherent platforms). */
int cc_gpu_peermem_loaded(void)
{
	static const char *const path[] = {
		"/sys/module/nvidia_peermem/version",
		"/sys/kernel/mm/memory_peers/nv_mem/version",
		"/sys/kernel/mm/memory_peers/nv_mem_nc/version",
	};

	for (size_t i = 0; i < sizeof(path) / sizeof(path[0]); i++)
		if (access(path[i], F_OK) == 0)
			return 1;
	/* A module built without a version string still has its directory. */
	return access("/sys/module/nvidia_peermem", F_OK) == 0;
}

/* The end rounds up to (addr + n - 1) | mask, plus one, which must not wrap:
 * so the last byte must lie below the top page. */
int cc_gpu_page_span(uintptr_t addr, size_t n, size_t page, uintptr_t *base, size_t *span,
		     uint64_t *offset)
{
	uintptr_t mask = (uintptr_t)page - 1;

	if (page == 0 || (page & mask) || n == 0 || addr > UINTPTR_MAX - n ||
	    addr + n - 1 >= (UINTPTR_MAX & ~mask))
		return -EINVAL;
	*base = addr & ~mask;
	*span = (size_t)(((addr + n - 1) | mask) + 1 - *base);
	*offset = (uint64_t)(addr - *base);
	return 0;
}
