/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/pcie.c — the PCIe distance class of two devices from their sysfs
 * paths (pcie.h), as NCCL's topology derives it: src/graph/xml.cc
 * ncclTopoGetXmlFromSys walks the same sysfs path up from each device,
 * every bridge on it a PCI node, to the host bridge and its CPU (NUMA
 * node); src/graph/paths.cc then types each GPU-NIC path by the worst link
 * it crosses (PIX, PXB, PHB, SYS). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/pcie.h"

#define MAX_DEPTH 32

static bool hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return true;
}

/* "DDDD:BB:DD.F", a device or a port */
static bool is_bdf(const char *s, size_t n)
{
	return n == 12 && hex(s, 4) && s[4] == ':' && hex(s + 5, 2) && s[7] == ':' &&
	       hex(s + 8, 2) && s[10] == '.' && s[11] >= '0' && s[11] <= '7';
}

/* "pciDDDD:BB", a host bridge */
static bool is_root(const char *s, size_t n)
{
	return n == 10 && !strncmp(s, "pci", 3) && hex(s + 3, 4) && s[7] == ':' && hex(s + 8, 2);
}

/* A device path split: the host bridge's component and the chain of
 * bridges down to the device (the last). */
struct chain {
	const char *root;
	size_t root_len;
	const char *bdf[MAX_DEPTH];
	unsigned n;
};

static int split(const char *path, struct chain *c, char *why, size_t len)
{
	const char *p = path;

	memset(c, 0, sizeof(*c));
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (!c->root && is_root(p, n)) {
			c->root = p;
			c->root_len = n;
		} else if (c->root && is_bdf(p, n)) {
			if (c->n == MAX_DEPTH) {
				snprintf(why, len, "%s: more than %d PCI levels", path, MAX_DEPTH);
				return -EINVAL;
			}
			c->bdf[c->n++] = p;
		} else if (c->root && c->n) {
			break; /* a file or folder below the device */
		}
		p += n;
		while (*p == '/')
			p++;
	}
	if (!c->root || !c->n) {
		snprintf(why, len, "%s is not a PCI device path (/sys/devices/pciDDDD:BB/.../DDDD:BB:DD.F)",
			 path);
		return -EINVAL;
	}
	return 0;
}

static bool same(const char *a, const char *b)
{
	return !strncasecmp(a, b, 12);
}

int cc_pcie_classify(const char *a, int a_numa, const char *b, int b_numa,
		     enum cc_nccl_path *out, char *why, size_t len)
{
	struct chain ca, cb;
	int rc;

	if ((rc = split(a, &ca, why, len)) || (rc = split(b, &cb, why, len)))
		return rc;
	if (ca.root_len != cb.root_len || strncasecmp(ca.root, cb.root, ca.root_len)) {
		/* Two root complexes: one CPU's, or two sockets' (NCCL joins
		 * each host bridge to the CPU of its NUMA node; CPUs to each
		 * other by the SMP link, graph/topo.cc ncclTopoConnectCpus). */
		*out = a_numa == b_numa ? CC_NCCL_PATH_PHB : CC_NCCL_PATH_SYS;
		snprintf(why, len, "%s: %.*s and %.*s, NUMA node %d and %d",
			 *out == CC_NCCL_PATH_PHB ? "two root complexes of one CPU"
						  : "root complexes of two CPUs",
			 (int)ca.root_len, ca.root, (int)cb.root_len, cb.root, a_numa, b_numa);
		return 0;
	}
	unsigned k = 0;
	while (k < ca.n && k < cb.n && same(ca.bdf[k], cb.bdf[k]))
		k++;
	if (k == ca.n || k == cb.n) {
		snprintf(why, len, "%s and %s: the same device, or one a bridge above the other", a,
			 b);
		return -EINVAL;
	}
	if (k == 0) {
		/* Different root ports: through the host bridge. */
		*out = CC_NCCL_PATH_PHB;
		snprintf(why, len, "one root complex (%.*s), different root ports", (int)ca.root_len,
			 ca.root);
		return 0;
	}
	/* Below a shared bridge: each device one port down from it (a
	 * switch's upstream port, its downstream ports, the devices) is a
	 * single switch; deeper on either side is another switch. */
	*out = ca.n - k <= 2 && cb.n - k <= 2 ? CC_NCCL_PATH_PIX : CC_NCCL_PATH_PXB;
	snprintf(why, len, "%s below %.12s", *out == CC_NCCL_PATH_PIX ? "one PCIe switch" :
		 "several PCIe switches", ca.bdf[k - 1]);
	return 0;
}

int cc_pcie_address(const char *path, char *buf, size_t len)
{
	struct chain c;
	char why[8];

	if (split(path, &c, why, sizeof(why)) || len < 13)
		return -EINVAL;
	snprintf(buf, len, "%.12s", c.bdf[c.n - 1]);
	return 0;
}

int cc_pcie_sysfs(const char *link, char *path, size_t len, int *numa, char *why,
		  size_t whylen)
{
	char real[PATH_MAX], f[PATH_MAX + 16];
	FILE *fp;

	*numa = -1;
	if (!realpath(link, real)) {
		int e = errno;
		snprintf(why, whylen, "%s: %s", link, strerror(e));
		return -e;
	}
	if (strlen(real) >= len) {
		snprintf(why, whylen, "%s: path too long", link);
		return -ENAMETOOLONG;
	}
	memcpy(path, real, strlen(real) + 1);
	snprintf(f, sizeof(f), "%s/numa_node", real);
	if ((fp = fopen(f, "r"))) {
		if (fscanf(fp, "%d", numa) != 1)
			*numa = -1;
		fclose(fp);
	}
	return 0;
}
