/* SPDX-License-Identifier: BSD-3-Clause */
/* util/mem_limit.c — the smallest of physical memory, RLIMIT_AS,
 * RLIMIT_DATA and the cgroup limit (util/mem_limit.h).
 *
 * The cgroup is found as systemd and the JVM find it: the process's path
 * in each hierarchy from /proc/self/cgroup ("0::PATH" for v2, "N:...,
 * memory,...:PATH" for v1), the hierarchy's mount and the cgroup path of
 * its root from /proc/self/mountinfo (proc(5)), the limit files in that
 * directory and its parents up to the mount (a parent's smaller limit
 * holds for its children: the kernel charges every ancestor).  In a
 * container with its own cgroup namespace the path is "/" and the mount's
 * root "/", which lands on the mount itself. */
#include "util/mem_limit.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

const char *const cc_mem_source_name[CC_MEM_SRC_COUNT] = {
	[CC_MEM_SRC_NONE] = "no known limit",
	[CC_MEM_SRC_RAM] = "physical memory",
	[CC_MEM_SRC_RLIMIT_AS] = "the address-space limit (ulimit -v)",
	[CC_MEM_SRC_RLIMIT_DATA] = "the data-segment limit (ulimit -d)",
	[CC_MEM_SRC_CGROUP] = "the cgroup's memory limit",
};

/* v1 writes "no limit" as the largest page-aligned long (2^63 - 4096); a
 * limit this large is none. */
#define CGROUP_UNLIMITED (UINT64_C(1) << 62)

#define PATH_LEN 4096

/* A cgroup limit file's value: bytes, or 0 for none ("max", unreadable). */
static uint64_t read_limit(const char *path)
{
	char buf[64];
	FILE *f = fopen(path, "re");
	uint64_t v = 0;

	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && buf[0] >= '0' && buf[0] <= '9') {
		char *end;
		unsigned long long n = strtoull(buf, &end, 10);

		if (n < CGROUP_UNLIMITED)
			v = n;
	}
	fclose(f);
	return v;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 | (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* Whether the comma-separated list has the item. */
static bool has_item(const char *list, const char *item)
{
	size_t n = strlen(item);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, item, n) && (p[n] == ',' || p[n] == '\0' || p[n] == '\n'))
			return true;
	return false;
}

/* The process's cgroup path for v2 (v2 true) or v1's memory controller,
 * from its /proc/PID/cgroup; false if it has none. */
static bool cgroup_path(const char *file, bool v2, char *path, size_t len)
{
	char line[PATH_LEN + 64];
	FILE *f = fopen(file, "re");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0'; /* the controller list ends at c2 */
		if (v2 ? c1 == line + 1 && line[0] == '0' && c2 == c1 + 1
		       : has_item(c1 + 1, "memory")) {
			c2[strcspn(c2 + 1, "\n") + 1] = '\0';
			snprintf(path, len, "%s", c2 + 1);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* The mount of the v2 hierarchy, or of v1's memory controller: its
 * mount point and the cgroup path of its root. */
static bool cgroup_mount(const char *file, bool v2, char *mnt, char *root, size_t len)
{
	char line[3 * PATH_LEN];
	FILE *f = fopen(file, "re");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *field[5], *save = NULL, *p = line, *dash = strstr(line, " - ");
		char *fstype, *super;
		int n = 0;

		if (!dash)
			continue;
		*dash = '\0';
		fstype = strtok_r(dash + 3, " \n", &save);
		strtok_r(NULL, " \n", &save); /* the source */
		super = strtok_r(NULL, " \n", &save);
		if (!fstype || (v2 ? strcmp(fstype, "cgroup2")
				   : strcmp(fstype, "cgroup") || !super || !has_item(super, "memory")))
			continue;
		save = NULL;
		for (char *t = strtok_r(p, " ", &save); t && n < 5; t = strtok_r(NULL, " ", &save))
			field[n++] = t;
		if (n < 5)
			continue;
		unescape(field[3]);
		unescape(field[4]);
		snprintf(root, len, "%s", field[3]);
		snprintf(mnt, len, "%s", field[4]);
		found = true;
	}
	fclose(f);
	return found;
}

/* The smallest limit in the process's cgroup of one hierarchy and its
 * ancestors up to the mount; 0 for none. */
static uint64_t hierarchy_limit(const char *cgroup_file, const char *mountinfo_file, bool v2)
{
	char path[PATH_LEN], mnt[PATH_LEN], root[PATH_LEN], dir[2 * PATH_LEN + 32];
	const char *rel;
	size_t base;
	uint64_t best = 0;

	if (!cgroup_path(cgroup_file, v2, path, sizeof(path)) ||
	    !cgroup_mount(mountinfo_file, v2, mnt, root, sizeof(mnt)))
		return 0;
	/* The path is from the hierarchy's root; the mount shows `root`. */
	rel = path;
	if (strcmp(root, "/") && !strncmp(path, root, strlen(root)))
		rel = path + strlen(root);
	base = strlen(mnt);
	while (base > 0 && mnt[base - 1] == '/')
		base--; /* a mount at "/" is base 0: its files are "/memory.max" */
	snprintf(dir, sizeof(dir), "%.*s%s%s", (int)base, mnt, rel[0] == '/' ? "" : "/", rel);
	for (;;) {
		char file[sizeof(dir) + 32];
		size_t n = strlen(dir);
		char *slash;
		uint64_t v;

		while (n > base && dir[n - 1] == '/')
			dir[--n] = '\0';
		snprintf(file, sizeof(file), "%s/%s", dir, v2 ? "memory.max" : "memory.limit_in_bytes");
		v = read_limit(file);
		if (v && (!best || v < best))
			best = v;
		if (n <= base || !(slash = strrchr(dir + base, '/')))
			break; /* the mount was the last */
		*slash = '\0';
	}
	return best;
}

uint64_t cc_mem_cgroup_limit(const char *cgroup_file, const char *mountinfo_file)
{
	uint64_t a = hierarchy_limit(cgroup_file, mountinfo_file, true);
	uint64_t b = hierarchy_limit(cgroup_file, mountinfo_file, false);

	return !a ? b : !b ? a : a < b ? a : b;
}

static void consider(struct cc_mem_limit *l, uint64_t bytes, enum cc_mem_source src)
{
	if (bytes && (!l->bytes || bytes < l->bytes)) {
		l->bytes = bytes;
		l->source = src;
	}
}

static uint64_t rlimit(int what)
{
	struct rlimit r;

	if (getrlimit(what, &r) || r.rlim_cur == RLIM_INFINITY)
		return 0;
	return r.rlim_cur ? (uint64_t)r.rlim_cur : 1; /* a limit of 0 is one */
}

void cc_mem_limit(struct cc_mem_limit *l)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);

	*l = (struct cc_mem_limit){ 0, CC_MEM_SRC_NONE };
	if (pages > 0 && page > 0)
		consider(l, (uint64_t)pages * (uint64_t)page, CC_MEM_SRC_RAM);
	consider(l, rlimit(RLIMIT_AS), CC_MEM_SRC_RLIMIT_AS);
	consider(l, rlimit(RLIMIT_DATA), CC_MEM_SRC_RLIMIT_DATA);
	consider(l, cc_mem_cgroup_limit("/proc/self/cgroup", "/proc/self/mountinfo"),
		 CC_MEM_SRC_CGROUP);
}

const char *cc_mem_limit_text(const struct cc_mem_limit *l, char *buf, size_t len)
{
	double gib = (double)l->bytes / (1 << 30);

	if (l->source == CC_MEM_SRC_RAM)
		snprintf(buf, len, "%.1f GiB of physical memory", gib);
	else if (l->source < CC_MEM_SRC_COUNT && l->bytes)
		snprintf(buf, len, "%.1f GiB: %s", gib, cc_mem_source_name[l->source]);
	else
		snprintf(buf, len, "%s", cc_mem_source_name[CC_MEM_SRC_NONE]);
	return buf;
}
