/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_gpu_path.c — GPU buffers on the verbs executor, what needs no
 * GPU: the choice of dma-buf, peer memory or host staging for every
 * combination of facts (backend/gpu_path.c, NCCL's rules), the PCIe
 * distance class of made-up sysfs paths (backend/pcie.c), the
 * --device-map parser and the GPU each rank picks (backend/gpu_map.c), and
 * `cclab run --memory gpu` refused, with why, on a host without a GPU. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend/gpu_map.h"
#include "backend/gpu_path.h"
#include "backend/pcie.h"
#include "tests/files.h"
#include "tests/run_cclab.h"

enum { P_DMABUF = CC_GPU_PATH_DMABUF, P_PEERMEM = CC_GPU_PATH_PEERMEM,
       P_STAGING = CC_GPU_PATH_HOST_STAGING, REFUSED = -1, NO_GPU = -2 };

/* The whole table: cuda x gpu dma-buf x nic dma-buf x NCCL_DMABUF_ENABLE
 * x peermem x distance x NCCL_NET_GDR_LEVEL x --gpu-dma, each against
 * the rule written out independently here. */
static int expected(const struct cc_gpu_facts *f)
{
	bool dmabuf = !f->dmabuf_disable && f->gpu_dmabuf == 1 && f->nic_dmabuf == 1;
	bool mech = dmabuf || f->peermem;
	int level = f->gdr_level < 0 ? CC_NCCL_PATH_PXB : f->gdr_level;

	if (!f->cuda)
		return NO_GPU;
	if (f->want == CC_GPU_DMA_HOST_STAGING)
		return P_STAGING;
	if (!mech)
		return f->want == CC_GPU_DMA_GDR ? REFUSED : P_STAGING;
	if (f->want == CC_GPU_DMA_AUTO &&
	    (level == CC_NCCL_PATH_LOC || (f->distance >= 0 && f->distance > level)))
		return P_STAGING;
	return dmabuf ? P_DMABUF : P_PEERMEM;
}

static void test_table(void **state)
{
	static const int tri[] = { 1, 0, -1 };
	static const int dist[] = { -1, CC_NCCL_PATH_PIX, CC_NCCL_PATH_PXB, CC_NCCL_PATH_PHB,
				    CC_NCCL_PATH_SYS };
	static const int level[] = { -1, CC_NCCL_PATH_LOC, CC_NCCL_PATH_PIX, CC_NCCL_PATH_PXB,
				     CC_NCCL_PATH_PHB, CC_NCCL_PATH_SYS };
	unsigned cases = 0, counts[4] = { 0 };

	(void)state;
	for (int cuda = 0; cuda < 2; cuda++)
	for (int g = 0; g < 3; g++)
	for (int n = 0; n < 3; n++)
	for (int off = 0; off < 2; off++)
	for (int pm = 0; pm < 2; pm++)
	for (unsigned d = 0; d < sizeof(dist) / sizeof(dist[0]); d++)
	for (unsigned l = 0; l < sizeof(level) / sizeof(level[0]); l++)
	for (int w = 0; w < CC_GPU_DMA_COUNT; w++) {
		struct cc_gpu_facts f = { .cuda = cuda, .gpu_dmabuf = tri[g], .nic_dmabuf = tri[n],
					  .dmabuf_disable = off, .peermem = pm, .distance = dist[d],
					  .gdr_level = level[l], .want = (enum cc_gpu_dma)w };
		enum cc_gpu_path p = CC_GPU_PATH_COUNT;
		char why[256] = "";
		int rc = cc_gpu_path_choose(&f, &p, why, sizeof(why));
		int want = expected(&f);

		cases++;
		assert_true(strlen(why) > 0);
		if (want == NO_GPU) {
			assert_int_equal(rc, -ENODEV);
			continue;
		}
		if (want == REFUSED) {
			assert_int_equal(rc, -EOPNOTSUPP);
			assert_non_null(strstr(why, "no GPUDirect RDMA"));
			counts[3]++;
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(p, want);
		counts[p]++;
	}
	assert_int_equal(cases, 2 * 3 * 3 * 2 * 2 * 5 * 6 * 3);
	/* every outcome occurs */
	for (int i = 0; i < 4; i++)
		assert_true(counts[i] > 0);
}

/* The reasons, word for word, where they matter to a user. */
static void test_reasons(void **state)
{
	struct cc_gpu_facts f = { .cuda = true, .gpu_dmabuf = 1, .nic_dmabuf = 1, .peermem = true,
				  .distance = CC_NCCL_PATH_PIX, .gdr_level = -1 };
	enum cc_gpu_path p;
	char why[256];

	(void)state;
	assert_int_equal(cc_gpu_path_choose(&f, &p, why, sizeof(why)), 0);
	assert_int_equal(p, CC_GPU_PATH_DMABUF);
	assert_string_equal(why, "dma-buf (GPU and RDMA provider support it); GPU-NIC distance "
			    "PIX <= PXB");
	f.nic_dmabuf = 0;
	assert_int_equal(cc_gpu_path_choose(&f, &p, why, sizeof(why)), 0);
	assert_int_equal(p, CC_GPU_PATH_PEERMEM);
	assert_string_equal(why, "peer memory (nvidia_peermem; no dma-buf: the RDMA provider or "
			    "kernel has no dma-buf MRs); GPU-NIC distance PIX <= PXB");
	f.distance = CC_NCCL_PATH_SYS;
	assert_int_equal(cc_gpu_path_choose(&f, &p, why, sizeof(why)), 0);
	assert_int_equal(p, CC_GPU_PATH_HOST_STAGING);
	assert_string_equal(why, "GPU-NIC distance SYS > PXB (NCCL_NET_GDR_LEVEL's default): "
			    "GPUDirect RDMA off");
	f.gdr_level = CC_NCCL_PATH_SYS; /* NCCL_NET_GDR_LEVEL=SYS lets it through */
	assert_int_equal(cc_gpu_path_choose(&f, &p, why, sizeof(why)), 0);
	assert_int_equal(p, CC_GPU_PATH_PEERMEM);
	f.gdr_level = CC_NCCL_PATH_LOC;
	f.distance = -1;
	assert_int_equal(cc_gpu_path_choose(&f, &p, why, sizeof(why)), 0);
	assert_int_equal(p, CC_GPU_PATH_HOST_STAGING);
	assert_string_equal(why, "NCCL_NET_GDR_LEVEL=LOC turns GPUDirect RDMA off");
	f.gdr_level = -1;
	assert_int_equal(cc_gpu_path_choose(&f, &p, why, sizeof(why)), 0);
	assert_string_equal(why, "peer memory (nvidia_peermem; no dma-buf: the RDMA provider or "
			    "kernel has no dma-buf MRs); GPU-NIC distance unknown, not checked");
	/* gdr: past the distance rule, refused without a mechanism */
	f.distance = CC_NCCL_PATH_SYS;
	f.want = CC_GPU_DMA_GDR;
	assert_int_equal(cc_gpu_path_choose(&f, &p, why, sizeof(why)), 0);
	assert_int_equal(p, CC_GPU_PATH_PEERMEM);
	f.peermem = false;
	assert_int_equal(cc_gpu_path_choose(&f, &p, why, sizeof(why)), -EOPNOTSUPP);
	assert_string_equal(why, "no GPUDirect RDMA: no peer-memory client (nvidia_peermem) and no "
			    "dma-buf (the RDMA provider or kernel has no dma-buf MRs)");
	f.dmabuf_disable = true;
	f.nic_dmabuf = 1;
	assert_int_equal(cc_gpu_path_choose(&f, &p, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "NCCL_DMABUF_ENABLE=0"));
	f.cuda = false;
	assert_int_equal(cc_gpu_path_choose(&f, &p, why, sizeof(why)), -ENODEV);
}

static void test_dma_words(void **state)
{
	enum cc_gpu_dma d;

	(void)state;
	assert_int_equal(cc_gpu_dma_parse("auto", &d), 0);
	assert_int_equal(d, CC_GPU_DMA_AUTO);
	assert_int_equal(cc_gpu_dma_parse("gdr", &d), 0);
	assert_int_equal(d, CC_GPU_DMA_GDR);
	assert_int_equal(cc_gpu_dma_parse("host-staging", &d), 0);
	assert_int_equal(d, CC_GPU_DMA_HOST_STAGING);
	assert_int_equal(cc_gpu_dma_parse("GDR", &d), -EINVAL);
	assert_int_equal(cc_gpu_dma_parse("", &d), -EINVAL);
}

#define SYS "/sys/devices/"

static int klass(const char *a, int an, const char *b, int bn, char *why)
{
	enum cc_nccl_path p = CC_NCCL_PATH_COUNT;
	int rc = cc_pcie_classify(a, an, b, bn, &p, why, 256);

	return rc ? rc : (int)p;
}

static void test_pcie(void **state)
{
	/* One switch: root port 17:00.0, upstream 18:00.0, downstream ports
	 * 19:00.0 and 19:08.0, GPU and NIC beneath them. */
	const char *gpu = SYS "pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0";
	const char *nic = SYS "pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:08.0/0000:1b:00.0";
	/* The NIC behind a second switch below the first's port 19:10.0 */
	const char *deep = SYS "pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:10.0/0000:1c:00.0/"
			   "0000:1d:04.0/0000:1e:00.0";
	const char *other_port = SYS "pci0000:17/0000:17:02.0/0000:20:00.0";
	const char *other_root = SYS "pci0000:80/0000:80:01.0/0000:81:00.0";
	char why[256];

	(void)state;
	assert_int_equal(klass(gpu, 0, nic, 0, why), CC_NCCL_PATH_PIX);
	assert_string_equal(why, "one PCIe switch below 0000:18:00.0");
	assert_int_equal(klass(nic, 0, gpu, 0, why), CC_NCCL_PATH_PIX);
	assert_int_equal(klass(gpu, 0, deep, 0, why), CC_NCCL_PATH_PXB);
	assert_string_equal(why, "several PCIe switches below 0000:18:00.0");
	assert_int_equal(klass(deep, 0, gpu, 0, why), CC_NCCL_PATH_PXB);
	assert_int_equal(klass(gpu, 0, other_port, 0, why), CC_NCCL_PATH_PHB);
	assert_string_equal(why, "one root complex (pci0000:17), different root ports");
	assert_int_equal(klass(gpu, 0, other_root, 0, why), CC_NCCL_PATH_PHB);
	assert_int_equal(klass(gpu, -1, other_root, -1, why), CC_NCCL_PATH_PHB);
	assert_int_equal(klass(gpu, 0, other_root, 1, why), CC_NCCL_PATH_SYS);
	assert_string_equal(why, "root complexes of two CPUs: pci0000:17 and pci0000:80, NUMA "
			    "node 0 and 1");
	assert_int_equal(klass(gpu, -1, other_root, 1, why), CC_NCCL_PATH_SYS);
	/* Two functions of one card: PIX (the same slot) */
	assert_int_equal(klass(SYS "pci0000:00/0000:00:01.0/0000:01:00.0", 0,
			       SYS "pci0000:00/0000:00:01.0/0000:01:00.1", 0, why),
			 CC_NCCL_PATH_PIX);
	/* Devices on the root bus itself (integrated): through the host bridge */
	assert_int_equal(klass(SYS "pci0000:00/0000:00:02.0", 0, SYS "pci0000:00/0000:00:03.0", 0,
			       why), CC_NCCL_PATH_PHB);
	/* A trailing file, upper-case hex, a doubled slash */
	assert_int_equal(klass(SYS "pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1A:00.0/"
			       "numa_node", 0, SYS "pci0000:17//0000:17:00.0/0000:18:00.0/"
			       "0000:19:08.0/0000:1b:00.0", 0, why), CC_NCCL_PATH_PIX);
	/* Not PCI device paths, or one device twice */
	assert_int_equal(klass("/sys/devices/virtual/net/eth0", 0, gpu, 0, why), -EINVAL);
	assert_non_null(strstr(why, "is not a PCI device path"));
	assert_int_equal(klass(SYS "pci0000:17", 0, gpu, 0, why), -EINVAL);
	assert_int_equal(klass(SYS "pci0000:17/0000:17:00", 0, gpu, 0, why), -EINVAL);
	assert_int_equal(klass(gpu, 0, gpu, 0, why), -EINVAL);
	assert_non_null(strstr(why, "the same device"));
	assert_int_equal(klass(SYS "pci0000:17/0000:17:00.0/0000:18:00.0", 0, gpu, 0, why), -EINVAL);
}

static void test_pcie_address(void **state)
{
	char a[16];

	(void)state;
	assert_int_equal(cc_pcie_address(SYS "pci0000:17/0000:17:00.0/0000:1a:00.0", a, sizeof(a)),
			 0);
	assert_string_equal(a, "0000:1a:00.0");
	assert_int_equal(cc_pcie_address("/sys/devices/virtual/infiniband/rxe0", a, sizeof(a)),
			 -EINVAL);
	assert_int_equal(cc_pcie_address(SYS "pci0000:17/0000:17:00.0", a, 8), -EINVAL);
}

static void test_map_parse(void **state)
{
	static struct cc_gpu_map m;
	static const char *const bad[] = { "", ",", "0,", ",0", "0,,1", "-1", "+1", " 1", "1 ",
					   "0x1", "a", "1024", "00000", "1.5", "0;1" };
	char why[160], big[CC_GPU_MAP_MAX * 2 + 8];

	(void)state;
	assert_int_equal(cc_gpu_map_parse("0,1,2,3", &m, why, sizeof(why)), 0);
	assert_int_equal(m.n, 4);
	assert_int_equal(m.dev[0], 0);
	assert_int_equal(m.dev[3], 3);
	assert_int_equal(cc_gpu_map_parse("7", &m, why, sizeof(why)), 0);
	assert_int_equal(m.n, 1);
	assert_int_equal(m.dev[0], 7);
	assert_int_equal(cc_gpu_map_parse("3,3,1023,0007", &m, why, sizeof(why)), 0);
	assert_int_equal(m.dev[2], 1023);
	assert_int_equal(m.dev[3], 7);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(cc_gpu_map_parse(bad[i], &m, why, sizeof(why)), -EINVAL);
		assert_true(strlen(why) > 0);
	}
	assert_int_equal(cc_gpu_map_parse("0,,1", &m, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "entry 2: expected device numbers separated by commas, such as "
			    "0,1,2,3");
	assert_int_equal(cc_gpu_map_parse("1024", &m, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "entry 1: a device number is at most 1023");
	/* CC_GPU_MAP_MAX entries, then one more */
	size_t off = 0;
	for (int i = 0; i < CC_GPU_MAP_MAX; i++)
		off += (size_t)snprintf(big + off, sizeof(big) - off, "%s0", i ? "," : "");
	assert_int_equal(cc_gpu_map_parse(big, &m, why, sizeof(why)), 0);
	assert_int_equal(m.n, CC_GPU_MAP_MAX);
	snprintf(big + off, sizeof(big) - off, ",1");
	assert_int_equal(cc_gpu_map_parse(big, &m, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "more than 1024 entries"));
}

static void test_pick(void **state)
{
	static struct cc_gpu_map m;
	char why[256];
	int dev = -1;

	(void)state;
	/* default: the local rank modulo the GPUs, else the rank */
	assert_int_equal(cc_gpu_pick(NULL, 5, 0, 4, &dev, why, sizeof(why)), 0);
	assert_int_equal(dev, 1);
	assert_int_equal(cc_gpu_pick(NULL, -1, 6, 4, &dev, why, sizeof(why)), 0);
	assert_int_equal(dev, 2);
	assert_int_equal(cc_gpu_pick(NULL, 0, 0, 0, &dev, why, sizeof(why)), -EINVAL);
	/* a map */
	assert_int_equal(cc_gpu_map_parse("3,2,1,0", &m, why, sizeof(why)), 0);
	assert_int_equal(cc_gpu_pick(&m, 1, 9, 4, &dev, why, sizeof(why)), 0);
	assert_int_equal(dev, 2);
	assert_int_equal(cc_gpu_pick(&m, 4, 9, 4, &dev, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "--device-map has 4 entries, local rank 4 needs one more at least");
	assert_int_equal(cc_gpu_pick(&m, -1, 0, 4, &dev, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "no local rank"));
	assert_int_equal(cc_gpu_pick(&m, 0, 0, 2, &dev, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "--device-map: local rank 0's GPU 3, but 2 GPUs are visible (0..1; "
			    "CUDA_VISIBLE_DEVICES renumbers them)");
}

static void test_local_rank(void **state)
{
	const char *from;
	char why[256];
	int local;

	(void)state;
	{
		const char *env[] = { "OMPI_COMM_WORLD_RANK=5", "OMPI_COMM_WORLD_SIZE=8",
				      "OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=4",
				      "LOCAL_RANK=3", NULL };
		assert_int_equal(cc_gpu_local_rank(env, &local, &from, why, sizeof(why)), 0);
		assert_int_equal(local, 1);
		assert_string_equal(from, "OMPI_COMM_WORLD_LOCAL_RANK");
	}
	{
		const char *env[] = { "SLURM_PROCID=9", "SLURM_NTASKS=16", "SLURM_LOCALID=1", NULL };
		assert_int_equal(cc_gpu_local_rank(env, &local, &from, why, sizeof(why)), 0);
		assert_int_equal(local, 1);
		assert_string_equal(from, "SLURM_LOCALID");
	}
	{
		const char *env[] = { "PMI_RANK=2", "PMI_SIZE=4", "MPI_LOCALRANKID=0",
				      "MPI_LOCALNRANKS=2", NULL };
		assert_int_equal(cc_gpu_local_rank(env, &local, &from, why, sizeof(why)), 0);
		assert_int_equal(local, 0);
		assert_string_equal(from, "MPI_LOCALRANKID");
	}
	{
		const char *env[] = { "CCLAB_RANK=1", "CCLAB_WORLD_SIZE=2", "CCLAB_LOCAL_RANK=1",
				      "CCLAB_LOCAL_SIZE=2", NULL };
		assert_int_equal(cc_gpu_local_rank(env, &local, &from, why, sizeof(why)), 0);
		assert_int_equal(local, 1);
		assert_string_equal(from, "CCLAB_LOCAL_RANK");
	}
	{ /* torchrun: LOCAL_RANK alone */
		const char *env[] = { "LOCAL_RANK=3", NULL };
		assert_int_equal(cc_gpu_local_rank(env, &local, &from, why, sizeof(why)), 0);
		assert_int_equal(local, 3);
		assert_string_equal(from, "LOCAL_RANK");
	}
	{
		const char *env[] = { NULL };
		assert_int_equal(cc_gpu_local_rank(env, &local, &from, why, sizeof(why)), 0);
		assert_int_equal(local, -1);
		assert_string_equal(from, "");
	}
	{
		const char *env[] = { "LOCAL_RANK=-1", NULL };
		assert_int_equal(cc_gpu_local_rank(env, &local, &from, why, sizeof(why)), -EINVAL);
		assert_string_equal(why, "LOCAL_RANK='-1': expected a number 0..65536");
	}
	{ /* the launcher's own checks still apply */
		const char *env[] = { "SLURM_PROCID=1", NULL };
		assert_int_equal(cc_gpu_local_rank(env, &local, &from, why, sizeof(why)), -EINVAL);
	}
}

/* Without a GPU, `cclab run --memory gpu` stops before it needs an RDMA
 * device, and says why: no CUDA in the build, or no device. */
static void test_run_refused(void **state)
{
	struct run r;

	(void)state;
	need_cclab_binary();
	r = run_cclab_env("CUDA_VISIBLE_DEVICES=", "run -n 2 --memory gpu -b 8 -e 8");
	if (r.status == 0 || !strstr(r.err, "--memory gpu:")) {
		/* a host with a usable GPU and an RDMA device: nothing to refuse */
		print_message("cclab run --memory gpu was not refused here (a GPU?): %s\n", r.err);
		run_free(&r);
		skip();
	}
	assert_int_equal(r.status, 1);
	assert_true(strstr(r.err, "cclab run: --memory gpu: cclab was built without CUDA") ||
		    strstr(r.err, "cclab run: --memory gpu: no CUDA device"));
	assert_non_null(strstr(r.err, "run with --memory host, or on a host with an NVIDIA GPU"));
	assert_null(strstr(r.err, "no RDMA device"));
	run_free(&r);
	/* bad input first, with exit status 2 */
	r = run_cclab("run -n 2 --memory gpu --device-map 0,x -b 8");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "invalid value '0,x' for --device-map: entry 2"));
	run_free(&r);
	r = run_cclab("run -n 2 --memory gpu --gpu-dma gpu -b 8");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "for --gpu-dma: auto, gdr (or gpudirect-rdma) or host-staging"));
	run_free(&r);
}

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("gpu_path");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_dma_words),
		cmocka_unit_test(test_pcie),
		cmocka_unit_test(test_pcie_address),
		cmocka_unit_test(test_map_parse),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_local_rank),
		cmocka_unit_test(test_run_refused),
	};

	return cmocka_run_group_tests_name("gpu_path", t, setup, teardown);
}
