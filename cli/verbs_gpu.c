/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/verbs_gpu.c — `cclab run --memory gpu`: each rank's GPU
 * (--device-map or the local rank, backend/gpu_map.h), the facts NCCL
 * decides GPUDirect RDMA on (backend/gpu_path.h, backend/pcie.h), the
 * path, and the ranks' agreement on the schedule that follows from it:
 *
 *   - host staging on any rank puts every rank's staging in host memory
 *     (one schedule for all; NCCL decides per connection end);
 *   - NCCL's GDR flush (ncclTopoNeedFlush: GPUs before Hopper, or
 *     NCCL_NET_FORCE_FLUSH=1; never NCCL_GDR_FLUSH_DISABLE=1) on any
 *     rank makes every receive flush (cc_coll_params.gdr_flush).
 *
 * NCCL_NET_GDR_LEVEL, NCCL_NET_FORCE_FLUSH, NCCL_GDR_FLUSH_DISABLE and
 * NCCL_DMABUF_ENABLE come from the environment, as NCCL reads them (a
 * variable --env set wins, where a command takes --env). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/cuda/gpu.h"
#include "backend/gpu_map.h"
#include "backend/pcie.h"
#include "cli/verbs.h"

#define LINE 400

/* Whether this host can run GPU buffers, asked in a child: the CUDA
 * runtime must not be initialised in the process that forks the ranks
 * (CUDA does not survive fork).  1, or 0 and why. */
static int gpu_usable(char *why, size_t len)
{
	int fd[2], st = 0;
	char buf[LINE + 2] = "";
	ssize_t n = 0, r;
	pid_t pid;

	if (pipe(fd)) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return 0;
	}
	if ((pid = fork()) < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return 0;
	}
	if (pid == 0) {
		char w[LINE] = "";
		int ok = cc_gpu_available(w, sizeof(w));
		ssize_t wr = write(fd[1], ok ? "1" : "0", 1);

		if (!ok && wr == 1)
			wr = write(fd[1], w, strlen(w));
		_exit(wr < 0);
	}
	close(fd[1]);
	while (n < (ssize_t)sizeof(buf) - 1 && (r = read(fd[0], buf + n, sizeof(buf) - 1 - n)) > 0)
		n += r;
	close(fd[0]);
	waitpid(pid, &st, 0);
	buf[n > 0 ? n : 0] = '\0';
	if (buf[0] == '1')
		return 1;
	snprintf(why, len, "%.380s", n > 1 ? buf + 1 : "the GPU probe failed");
	return 0;
}

int verbs_gpu_precheck(const char *cmd, const struct cli_opts *o)
{
	char why[LINE];

	if (o->p.mem != CC_MEM_GPU || gpu_usable(why, sizeof(why)))
		return 0;
	fprintf(stderr, "cclab %s: --memory gpu: %s; run with --memory host, or on a host with "
		"an NVIDIA GPU and a CUDA build (docs/gpu.md)\n", cmd, why);
	return CLI_EXIT_FAIL;
}

/* NCCL's variables for the path: --env's where given, else the environment's. */
static int gpu_env(const struct cli_opts *o, struct cc_nccl_env *e, bool *dmabuf_off, char *err,
		   size_t len)
{
	static const char *const names[] = { "NCCL_NET_GDR_LEVEL", "NCCL_NET_FORCE_FLUSH",
					     "NCCL_GDR_FLUSH_DISABLE" };
	struct cc_nccl_env dflt;
	const char *v;

	*e = o->nccl_own.env;
	cc_nccl_env_init(&dflt);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int given = i == 0 ? e->net_gdr_level != dflt.net_gdr_level
			  : i == 1 ? e->net_force_flush != dflt.net_force_flush
				   : e->gdr_flush_disable != dflt.gdr_flush_disable;
		if (!given && (v = getenv(names[i])) && cc_nccl_env_set(e, names[i], v, err, len))
			return -EINVAL;
	}
	v = getenv("NCCL_DMABUF_ENABLE");
	*dmabuf_off = v && !strcmp(v, "0");
	return 0;
}

static enum cc_gpu_arch arch_of(int cc_major)
{
	return cc_major >= 10 ? CC_GPU_BLACKWELL : cc_major == 9 ? CC_GPU_HOPPER
		: cc_major == 8 ? CC_GPU_AMPERE : CC_GPU_VOLTA;
}

/* The GPU-NIC distance, and the two addresses for the header. */
static void distance(const struct verbs_session *s, int dev, int *dist, char *txt, size_t len)
{
	char bus[32] = "?", link[PATH_MAX], gp[PATH_MAX], np[PATH_MAX],
	     nic[32] = "", why[256];
	int gn = -1, nn = -1;
	enum cc_nccl_path d;

	*dist = -1;
	cc_gpu_pci_bus_id(dev, bus, sizeof(bus), NULL, 0);
	snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s", bus);
	if (cc_pcie_sysfs(link, gp, sizeof(gp), &gn, why, sizeof(why))) {
		snprintf(txt, len, "GPU %s, NIC %s: distance unknown (%s)", bus, s->v.device, why);
		return;
	}
	snprintf(link, sizeof(link), "/sys/class/infiniband/%s/device", s->v.device);
	if (cc_pcie_sysfs(link, np, sizeof(np), &nn, why, sizeof(why)) ||
	    cc_pcie_address(np, nic, sizeof(nic))) {
		snprintf(txt, len, "GPU %s, NIC %s: not a PCI device (software RDMA?), distance "
			 "unknown", bus, s->v.device);
		return;
	}
	if (cc_pcie_classify(gp, gn, np, nn, &d, why, sizeof(why))) {
		snprintf(txt, len, "GPU %s, NIC %s %s: distance unknown (%s)", bus, s->v.device, nic,
			 why);
		return;
	}
	*dist = (int)d;
	snprintf(txt, len, "GPU %s, NIC %s %s: %s (%s)", bus, s->v.device, nic,
		 cc_nccl_path_name[d], why);
}

/* This rank's GPU, facts and path: 0, or -errno and why. */
static int choose(struct verbs_session *s, const struct cli_opts *o, struct verbs_gpu *g,
		  bool *flush, char *line, size_t len)
{
	struct cc_gpu_map map = { 0 };
	struct cc_gpu_facts f = { .want = !o->gpu_dma_given ? CC_GPU_DMA_AUTO
					  : o->gpu_dma == SIM_GPU_DMA_HOST_STAGING
						  ? CC_GPU_DMA_HOST_STAGING : CC_GPU_DMA_GDR };
	struct cc_gpu_info info;
	struct cc_nccl_env env;
	const char *from;
	char why[LINE], pci[LINE];
	int local, n = 0, rc;

	if (!(f.cuda = cc_gpu_available(why, sizeof(why)) == 1)) {
		snprintf(line, len, "--memory gpu: %.360s", why);
		return -ENODEV;
	}
	if ((o->device_map && (rc = cc_gpu_map_parse(o->device_map, &map, why, sizeof(why)))) ||
	    (rc = cc_gpu_local_rank(NULL, &local, &from, why, sizeof(why))) ||
	    (rc = cc_gpu_count(&n, why, sizeof(why))) ||
	    (rc = cc_gpu_pick(&map, local, s->rank, n, &g->g.device, why, sizeof(why))) ||
	    (rc = cc_gpu_select(g->g.device, why, sizeof(why))) ||
	    (rc = cc_gpu_info(&info, why, sizeof(why))) ||
	    (rc = gpu_env(o, &env, &f.dmabuf_disable, why, sizeof(why)))) {
		snprintf(line, len, "%.380s", why);
		return rc;
	}
	distance(s, g->g.device, &f.distance, pci, sizeof(pci));
	f.gpu_dmabuf = info.dmabuf_supported;
	f.nic_dmabuf = cc_verbs_dmabuf_probe(&s->v);
	f.peermem = cc_gpu_peermem_loaded() == 1;
	f.gdr_level = env.net_gdr_level;
	if ((rc = cc_gpu_path_choose(&f, &g->g.path, why, sizeof(why)))) {
		snprintf(line, len, "--gpu-dma %s: %.360s", cc_gpu_dma_name[f.want], why);
		return rc;
	}
	*flush = g->g.path != CC_GPU_PATH_HOST_STAGING &&
		 cc_nccl_env_gdr_flush(&env, arch_of(info.cc_major));
	snprintf(line, len, "GPU %d (%.48s, sm_%d%d; %s %d); %.150s; %s: %.150s", g->g.device,
		 info.name,
		 info.cc_major, info.cc_minor, *from ? from : "rank", *from ? local : (int)s->rank,
		 pci, cc_gpu_path_name[g->g.path], why);
	return 0;
}

int verbs_gpu_setup(struct verbs_session *s, struct cli_opts *o, struct verbs_gpu *g)
{
	char me[LINE + 8], err[512];
	struct cc_boot_blobs all = { 0 };
	bool flush = false, staging = false, any_flush = false;
	int rc;

	memset(g, 0, sizeof(*g));
	if (o->p.mem != CC_MEM_GPU)
		return 0;
	rc = choose(s, o, g, &flush, me + 3, sizeof(me) - 3);
	me[0] = rc ? '!' : (char)('0' + g->g.path);
	me[1] = flush ? 'f' : '-';
	me[2] = ' ';
	if ((rc = cc_boot_allgather(&s->b, me, strlen(me), &all, err, sizeof(err)))) {
		fprintf(stderr, "cclab run: rank %u: bootstrap: %s\n", s->rank, err);
		return CLI_EXIT_FAIL;
	}
	if (!(g->lines = calloc(all.n, sizeof(*g->lines)))) {
		cc_boot_blobs_free(&all);
		return CLI_EXIT_FAIL;
	}
	g->n = all.n;
	for (uint32_t r = 0; r < all.n; r++) {
		size_t n = all.len[r] < sizeof(g->lines[r]) ? all.len[r] : sizeof(g->lines[r]) - 1;

		memcpy(g->lines[r], all.data[r], n);
		if (n < 3 || g->lines[r][0] == '!') {
			if (verbs_rank_speaks(s))
				fprintf(stderr, "cclab run: rank %u: %s\n", r, n > 3 ? g->lines[r] + 3 : "?");
			rc = CLI_EXIT_FAIL;
			continue;
		}
		staging = staging || g->lines[r][0] == '0' + CC_GPU_PATH_HOST_STAGING;
		any_flush = any_flush || g->lines[r][1] == 'f';
	}
	cc_boot_blobs_free(&all);
	if (rc)
		return rc;
	if (staging)
		g->g.path = CC_GPU_PATH_HOST_STAGING;
	o->p.stage_mem = staging ? CC_MEM_HOST : CC_MEM_GPU;
	o->p.gdr_flush = g->flush = !staging && any_flush;
	return 0;
}

/* Every rank's GPU, distance and path; host staging and the GDR flush
 * are said by cli_preamble_buffers (cli/loop.c) as for the simulator. */
void verbs_gpu_preamble(const struct verbs_gpu *g)
{
	if (!g->n)
		return;
	printf("# GPUs (--memory gpu)\n");
	for (uint32_t r = 0; r < g->n; r++)
		printf("#  Rank %2u %s\n", r, g->lines[r] + 3);
	if (g->g.path != CC_GPU_PATH_HOST_STAGING)
		printf("# staging: GPU memory, registered with the RNIC (GPUDirect RDMA)\n");
}

void verbs_gpu_free(struct verbs_gpu *g)
{
	free(g->lines);
	g->lines = NULL;
	g->n = 0;
}
