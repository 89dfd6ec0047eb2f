/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/verbs_gpu.c — the verbs executor's GPU side: where each buffer
 * lives, how an MR over GPU memory is registered, the reduce and copy ops
 * as CUDA kernels, and copies in and out for the inputs, the poison and
 * the check.  NCCL's net transport is the model (src/transport/net.cc):
 *
 *   - GPU buffers: cudaMalloc (cc_gpu_alloc), in whole 64 KiB so the
 *     page-rounded range a dma-buf export covers stays inside the
 *     allocation (backend/cuda/gpu.h);
 *   - host buffers of a GPU run (control words, and the staging without
 *     GPUDirect RDMA): pinned and mapped into the GPU (cudaHostAlloc,
 *     NCCL's ncclCudaHostCalloc), so kernels read and write them across
 *     PCIe and the RNIC DMAs them;
 *   - an MR over GPU memory: ibv_reg_dmabuf_mr on the dma-buf fd
 *     (regMrDmaBuf), or ibv_reg_mr on the device pointer through
 *     nvidia_peermem ("FALL-THROUGH to nv_peermem GDR path");
 *   - received data in GPU memory visible to the next kernel: the
 *     schedule's loopback READ where it has one (gdr_flush, NCCL's
 *     ncclIbIflush), else cc_gpu_flush_rdma_writes (a no-op on GPUs that
 *     order RDMA writes themselves, Hopper on).
 * A host-memory run (o->gpu NULL) keeps page-aligned malloc'd buffers and
 * touches no CUDA call. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cuda/gpu.h"
#include "backend/verbs_int.h"

#define PAGE 4096u
#define GPU_GRAIN (64u << 10)

int cc_verbs_dmabuf_probe(struct cc_verbs_ctx *v)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_dmabuf_mr(v->pd, 0, 0, 0, -1, 0);
	if (mr) { /* not expected with fd -1; give it back */
		ibv_dereg_mr(mr);
		return 1;
	}
	return errno == EOPNOTSUPP || errno == EPROTONOSUPPORT ? 0 : 1;
}

/* What a GPU run cannot do yet: the kernels run the Simple protocol's
 * reduce and copy; LL and LL128 lines (flags inside the data, spun on by
 * the reader) have no kernel here, nor a wait on a word in GPU memory. */
int vx_gpu_check(const struct vx *x, char *err, size_t errlen)
{
	const struct cc_rank_sched *rs = x->rs;
	bool gpu = false;

	for (uint32_t b = 0; b < rs->nbufs; b++)
		gpu = gpu || rs->bufs[b].mem == CC_MEM_GPU;
	if (!gpu)
		return 0;
	if (!x->o->gpu) {
		snprintf(err, errlen, "buffers in GPU memory: this command's verbs executor registers "
			 "host memory only; run with host buffers (cclab p2p: --mem host), or use "
			 "cclab run --memory gpu");
		return -EOPNOTSUPP;
	}
	if (x->s->params.proto != CC_PROTO_SIMPLE) {
		snprintf(err, errlen, "-P %s with GPU buffers: the CUDA kernels run the Simple "
			 "protocol only (LL and LL128 lines are not implemented on the GPU); use -P "
			 "simple or --memory host", cc_proto_name[x->s->params.proto]);
		return -EOPNOTSUPP;
	}
	for (uint32_t i = 0; i < rs->nops; i++)
		if (rs->ops[i].kind == CC_OP_WAIT_MEM &&
		    rs->bufs[rs->ops[i].u.wait.buf].mem == CC_MEM_GPU) {
			snprintf(err, errlen, "op %u waits on a word in GPU memory: the verbs executor "
				 "polls host words only", i);
			return -EOPNOTSUPP;
		}
	return 0;
}

int vx_buf_alloc(struct vx *x, uint32_t b, char *err, size_t errlen)
{
	const struct cc_buffer *buf = &x->rs->bufs[b];
	/* A zero-sized buffer still gets a page, since an MR covers it. */
	size_t n = (buf->size + PAGE - 1) / PAGE * PAGE;
	void *p = NULL, *d = NULL;
	int rc;

	n = n ? n : PAGE;
	if (buf->mem == CC_MEM_GPU) {
		n = (n + GPU_GRAIN - 1) / GPU_GRAIN * GPU_GRAIN;
		if ((rc = cc_gpu_alloc(&p, n, err, errlen)))
			return rc;
		x->mem[b] = x->dmem[b] = p;
		x->kind[b] = VX_BUF_GPU;
		return cc_gpu_memset(p, 0, n, err, errlen);
	}
	if (x->o->gpu) {
		if ((rc = cc_gpu_host_alloc(&p, &d, n, err, errlen)))
			return rc;
		x->mem[b] = p;
		x->dmem[b] = d;
		x->kind[b] = VX_BUF_PINNED;
		return 0;
	}
	/* Page-aligned, as ibv_reg_mr pins whole pages. */
	if (posix_memalign(&p, PAGE, n)) {
		snprintf(err, errlen, "buffer: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	memset(p, 0, n);
	x->mem[b] = p;
	x->kind[b] = VX_BUF_HOST;
	return 0;
}

void vx_buf_free(struct vx *x, uint32_t b)
{
	switch (x->kind[b]) {
	case VX_BUF_HOST: free(x->mem[b]); break;
	case VX_BUF_PINNED: cc_gpu_host_free(x->mem[b]); break;
	case VX_BUF_GPU: cc_gpu_free(x->mem[b]); break;
	}
	x->kind[b] = VX_BUF_NONE;
	x->mem[b] = NULL;
}

struct ibv_mr *vx_reg_mr(struct vx *x, uint32_t m, int *e, char *err, size_t errlen)
{
	const struct cc_mr *mr = &x->rs->mrs[m];
	size_t len = x->rs->bufs[mr->buf].size ? x->rs->bufs[mr->buf].size : 1;
	void *p = x->mem[mr->buf];
	struct ibv_mr *r;

	*e = 0;
	/* CC_ACCESS_* has ibv_access_flags' values (core/schedule.h). */
	if (x->kind[mr->buf] != VX_BUF_GPU) {
		if (!(r = ibv_reg_mr(x->v->pd, p, len, (int)mr->access)))
			*e = errno ? errno : ENOMEM;
		return r;
	}
	if (x->o->gpu->path == CC_GPU_PATH_PEERMEM) {
		if (!(r = ibv_reg_mr(x->v->pd, p, len, (int)mr->access))) {
			*e = errno ? errno : ENOMEM;
			snprintf(err, errlen, "ibv_reg_mr of MR %u on GPU memory (%zu bytes, "
				 "nvidia_peermem) on %s: %s", m, len, x->v->device, strerror(*e));
		}
		return r;
	}
	if (x->o->gpu->path != CC_GPU_PATH_DMABUF) {
		*e = EINVAL;
		snprintf(err, errlen, "MR %u covers GPU memory, but the staging goes through host "
			 "memory: the schedule should have put buffer %u there", m, mr->buf);
		return NULL;
	}
	int fd = -1, rc;
	uint64_t off = 0;
	if ((rc = cc_gpu_dmabuf_fd(p, len, &fd, &off, err, errlen))) {
		*e = -rc;
		return NULL;
	}
	/* iova = p: peers address the buffer by its device pointer, as with
	 * ibv_reg_mr; the MR keeps its own reference to the dma-buf. */
	errno = 0;
	r = ibv_reg_dmabuf_mr(x->v->pd, off, len, (uint64_t)(uintptr_t)p, fd, (int)mr->access);
	if (!r) {
		*e = errno ? errno : ENOMEM;
		snprintf(err, errlen, "ibv_reg_dmabuf_mr of MR %u (%zu bytes of GPU memory, offset "
			 "%llu) on %s: %s", m, len, (unsigned long long)off, x->v->device,
			 strerror(*e));
	}
	close(fd);
	return r;
}

int vx_put(struct vx *x, uint32_t b, const void *src, size_t n, char *err, size_t errlen)
{
	if (x->kind[b] == VX_BUF_GPU)
		return cc_gpu_copy_to_device(x->mem[b], src, n, err, errlen);
	memcpy(x->mem[b], src, n);
	return 0;
}

int vx_get(struct vx *x, uint32_t b, void *dst, size_t n, char *err, size_t errlen)
{
	if (x->kind[b] == VX_BUF_GPU)
		return cc_gpu_copy_to_host(dst, x->mem[b], n, err, errlen);
	memcpy(dst, x->mem[b], n);
	return 0;
}

/* Data an RDMA WRITE put into GPU memory, read by the kernel next: flushed
 * unless the schedule's READ did it already. */
static int flush_before(struct vx *x, const struct cc_op_calc *c, char *err, size_t errlen)
{
	if (x->s->params.gdr_flush)
		return 0;
	for (uint32_t k = 0; k < c->nsrc; k++) {
		uint32_t b = c->src[k].buf;
		if (x->kind[b] == VX_BUF_GPU && x->rs->bufs[b].role == CC_BUF_RECV_STAGE)
			return cc_gpu_flush_rdma_writes(err, errlen);
	}
	return 0;
}

int vx_gpu_calc(struct vx *x, const struct cc_op *o, char *err, size_t errlen)
{
	const struct cc_op_calc *c = &o->u.calc;
	void *src[2] = { NULL, NULL }, *dst[2] = { NULL, NULL };
	int rc;

	if ((rc = flush_before(x, c, err, errlen)))
		return rc;
	for (uint32_t k = 0; k < c->nsrc && k < 2; k++)
		src[k] = x->dmem[c->src[k].buf] + c->src[k].offset;
	for (uint32_t k = 0; k < c->ndst && k < 2; k++)
		dst[k] = x->dmem[c->dst[k].buf] + c->dst[k].offset;
	return cc_gpu_calc(c, src, dst, err, errlen);
}
