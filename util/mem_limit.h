/* SPDX-License-Identifier: BSD-3-Clause */
/* util/mem_limit.h — how much memory this process may take: the smallest
 * of the machine's physical memory, its address-space and data limits
 * (ulimit -v, ulimit -d) and its cgroup's memory limit.  What every
 * up-front "would not fit" check weighs against (core/algo.c cc_build,
 * core/check_io.c, `cclab tune`'s budget), so a run under a container's
 * or a shell's limit is refused with a message instead of meeting the
 * OOM killer or a failed allocation half way. */
#ifndef CCLAB_UTIL_MEM_LIMIT_H
#define CCLAB_UTIL_MEM_LIMIT_H

#include <stddef.h>
#include <stdint.h>

/* What bounds the memory (cc_mem_limit.source). */
enum cc_mem_source {
	CC_MEM_SRC_NONE,     /* nothing known: bytes is 0 */
	CC_MEM_SRC_RAM,      /* physical memory (sysconf) */
	CC_MEM_SRC_RLIMIT_AS,
	CC_MEM_SRC_RLIMIT_DATA,
	CC_MEM_SRC_CGROUP,   /* cgroup v2 memory.max, or v1 memory.limit_in_bytes */
	CC_MEM_SRC_COUNT
};
/* "physical memory", "the address-space limit (ulimit -v)", ... */
extern const char *const cc_mem_source_name[CC_MEM_SRC_COUNT];

struct cc_mem_limit {
	uint64_t bytes;            /* the smallest limit; 0: none known */
	enum cc_mem_source source; /* which one it is */
};

/* This process's limit, read afresh (a few small files under /proc and
 * /sys/fs/cgroup; cheap). */
void cc_mem_limit(struct cc_mem_limit *l);

/* "23.5 GiB of physical memory", "3.8 GiB: the address-space limit
 * (ulimit -v)": the limit for a message; buf. */
const char *cc_mem_limit_text(const struct cc_mem_limit *l, char *buf, size_t len);

/* The cgroup memory limit of the process whose /proc/PID/cgroup and
 * /proc/PID/mountinfo are the files given: its own cgroup's and every
 * ancestor's up to the hierarchy's mount, the smallest (v2 memory.max,
 * v1 memory.limit_in_bytes; "max" and v1's near-2^63 "unlimited" are no
 * limit).  0 when there is none or it cannot be read.  Separate so a test
 * can hand it files of its own. */
uint64_t cc_mem_cgroup_limit(const char *cgroup_file, const char *mountinfo_file);

#endif /* CCLAB_UTIL_MEM_LIMIT_H */
