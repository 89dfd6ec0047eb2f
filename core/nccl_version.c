/* SPDX-License-Identifier: BSD-3-Clause */
/* core/nccl_version.c — the names NCCL's tuning model is spoken in: NCCL
 * releases ("2.23.4", "v2.23.4-1"), GPU architectures, CPU vendors,
 * NCCL's algorithm names (src/init.cc ncclAlgoStr) and path distances
 * (src/graph/topo.cc topoPathTypeStr). */
#include "nccl_tune_int.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "util/err.h"

const char *const cc_nccl_algo_name[CC_NCCL_ALGO_COUNT] = {
	[CC_NCCL_TREE] = "Tree",
	[CC_NCCL_RING] = "Ring",
	[CC_NCCL_COLLNET_DIRECT] = "CollNetDirect",
	[CC_NCCL_COLLNET_CHAIN] = "CollNetChain",
	[CC_NCCL_NVLS] = "NVLS",
	[CC_NCCL_NVLS_TREE] = "NVLSTree",
	[CC_NCCL_PAT] = "PAT",
};

const char *const cc_nccl_path_name[CC_NCCL_PATH_COUNT] = {
	"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS",
};

const char *const cc_gpu_arch_name[CC_GPU_ARCH_COUNT] = {
	[CC_GPU_VOLTA] = "volta",
	[CC_GPU_AMPERE] = "ampere",
	[CC_GPU_HOPPER] = "hopper",
	[CC_GPU_BLACKWELL] = "blackwell",
};

const char *const cc_cpu_vendor_name[CC_CPU_VENDOR_COUNT] = {
	[CC_CPU_INTEL] = "intel",
	[CC_CPU_AMD] = "amd",
	[CC_CPU_OTHER] = "other",
};

static int find_name(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcasecmp(s, names[i]))
			return i;
	return -1;
}

int cc_gpu_arch_parse(const char *s, enum cc_gpu_arch *out)
{
	static const struct {
		const char *name;
		enum cc_gpu_arch arch;
	} products[] = {
		{ "v100", CC_GPU_VOLTA },  { "a100", CC_GPU_AMPERE }, { "h100", CC_GPU_HOPPER },
		{ "h200", CC_GPU_HOPPER }, { "b200", CC_GPU_BLACKWELL },
	};
	int i = find_name(cc_gpu_arch_name, CC_GPU_ARCH_COUNT, s);

	if (i >= 0) {
		*out = (enum cc_gpu_arch)i;
		return 0;
	}
	for (size_t k = 0; k < sizeof(products) / sizeof(products[0]); k++)
		if (!strcasecmp(s, products[k].name)) {
			*out = products[k].arch;
			return 0;
		}
	return -EINVAL;
}

int cc_cpu_vendor_parse(const char *s, enum cc_cpu_vendor *out)
{
	int i = find_name(cc_cpu_vendor_name, CC_CPU_VENDOR_COUNT, s);

	if (i < 0)
		return -EINVAL;
	*out = (enum cc_cpu_vendor)i;
	return 0;
}

int cc_nccl_compcap(enum cc_gpu_arch a)
{
	static const int cc[CC_GPU_ARCH_COUNT] = {
		[CC_GPU_VOLTA] = 70, [CC_GPU_AMPERE] = 80, [CC_GPU_HOPPER] = 90, [CC_GPU_BLACKWELL] = 100,
	};
	return cc[a];
}

const struct cc_nccl_version cc_nccl_version_default = { 2, 30, 7 };
const struct cc_nccl_version cc_nccl_version_oldest = { 2, 18, 0 };

int cc_nccl_version_cmp(const struct cc_nccl_version *a, uint32_t major, uint32_t minor,
			uint32_t patch)
{
	const uint32_t x[3] = { a->major, a->minor, a->patch }, y[3] = { major, minor, patch };

	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

uint32_t cc_nccl_maxchannels(const struct cc_nccl_version *v)
{
	return cc_nccl_ge(v, 2, 25, 0) ? 64 : 32;
}

/* A decimal number of at most 9 digits at *p (no sign, no overflow);
 * advances *p past it. */
static int parse_part(const char **p, uint32_t *out)
{
	uint32_t v = 0;
	int n = 0;

	while (**p >= '0' && **p <= '9') {
		if (++n > 9)
			return -1;
		v = v * 10 + (uint32_t)(**p - '0');
		(*p)++;
	}
	*out = v;
	return n ? 0 : -1;
}

int cc_nccl_version_parse(const char *s, struct cc_nccl_version *out, char *err, size_t len)
{
	const struct cc_nccl_version *old = &cc_nccl_version_oldest, *new = &cc_nccl_version_default;
	struct cc_nccl_version v = { 0, 0, 0 };
	const char *p = s;
	uint32_t build;

	if (*p == 'v')
		p++;
	if (parse_part(&p, &v.major) || *p++ != '.' || parse_part(&p, &v.minor))
		goto bad;
	if (*p == '.' && (p++, parse_part(&p, &v.patch)))
		goto bad;
	if (*p == '-' && (p++, parse_part(&p, &build)))
		goto bad;
	if (*p)
		goto bad;
	if (cc_nccl_version_cmp(&v, old->major, old->minor, old->patch) < 0)
		return cc_errf(err, len, -EINVAL, "%u.%u.%u: cclab has NCCL's rules from %u.%u on",
			       v.major, v.minor, v.patch, old->major, old->minor);
	if (cc_nccl_version_cmp(&v, new->major, new->minor + 1, 0) >= 0)
		return cc_errf(err, len, -EINVAL,
			       "%u.%u.%u: cclab has NCCL's rules up to %u.%u.%u, not this release's",
			       v.major, v.minor, v.patch, new->major, new->minor, new->patch);
	*out = v;
	return 0;
bad:
	return cc_errf(err, len, -EINVAL,
		       "'%s' is not an NCCL release (2.23.4, 2.23 or v2.23.4-1)", s);
}
