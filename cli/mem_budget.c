/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/mem_budget.c — the memory runs going on at once share: `cclab
 * tune`'s candidates of one size, `cclab sim --jobs`'s sizes.
 *
 * Runs go in parallel (--jobs), and one run can need gigabytes where
 * another needs megabytes (direct with LL on 256 ranks carries a
 * staging slot array on each of its 65,280 connections per direction).  So
 * each run reserves what it will take before it takes it, from a budget:
 * 3/4 of what the process may use (util/mem_limit.h: physical memory,
 * ulimit -v and -d, the cgroup's limit) less what it already holds.  A run
 * whose reservation does not fit waits for others to finish; one that
 * fits alone always gets to run; one that cannot fit even alone is refused
 * (cli/cmd_tune.c).  Under an address-space limit the threads' own
 * reservations — a stack each and, for each malloc arena, 64 MiB of
 * address space — must fit in the quarter the budget leaves: fewer
 * threads are started when they would not.  The budget is the same for
 * any --jobs, so which runs fit, and the table, are too.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/mem_budget.h"

/* glibc's per-arena heap reservation on 64-bit (HEAP_MAX_SIZE: twice the
 * largest mmap threshold, 2 x 32 MiB): address space, if not memory. */
#define ARENA_RESERVE (64.0 * 1024 * 1024)

/* What the process holds now, as the limit counts it (/proc/self/statm:
 * the whole address space for ulimit -v, data for -d, resident pages
 * otherwise); 0 if unknown. */
static double held_now(enum cc_mem_source src)
{
	unsigned long size, resident, shared, text, lib, data;
	long page = sysconf(_SC_PAGE_SIZE);
	FILE *f = fopen("/proc/self/statm", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%lu %lu %lu %lu %lu %lu", &size, &resident, &shared, &text, &lib, &data);
	fclose(f);
	if (n != 6 || page <= 0)
		return 0;
	return (double)page * (double)(src == CC_MEM_SRC_RLIMIT_AS     ? size
				       : src == CC_MEM_SRC_RLIMIT_DATA ? data
								       : resident);
}

/* A thread's own reservation under the limit: its stack (glibc's default,
 * RLIMIT_STACK) and, under ulimit -v, a malloc arena's address space. */
static double per_thread(enum cc_mem_source src)
{
	struct rlimit r;
	double stack = 8.0 * 1024 * 1024;

	if (src != CC_MEM_SRC_RLIMIT_AS && src != CC_MEM_SRC_RLIMIT_DATA)
		return 0; /* stacks and arenas cost only the pages they touch */
	if (!getrlimit(RLIMIT_STACK, &r) && r.rlim_cur != RLIM_INFINITY && r.rlim_cur > 0)
		stack = (double)r.rlim_cur;
	return stack + (src == CC_MEM_SRC_RLIMIT_AS ? ARENA_RESERVE : 0);
}

double cli_mem_left(const struct cc_mem_limit *lim)
{
	return lim->bytes ? (double)lim->bytes - held_now(lim->source) : 1e300;
}

void cli_mem_budget_init(struct cli_mem_budget *m, uint32_t *jobs)
{
	double avail, each;

	memset(m, 0, sizeof(*m));
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->freed, NULL);
	cc_mem_limit(&m->limit);
	if (!m->limit.bytes) {
		m->budget = 1e300; /* nothing known: no budget */
		return;
	}
	/* The budget does not depend on the threads, so neither does which
	 * run fits: --jobs changes no result.  Their own reservations go in
	 * the quarter left over. */
	avail = cli_mem_left(&m->limit);
	each = per_thread(m->limit.source);
	while (*jobs > 1 && (double)(*jobs - 1) * each > avail / 4)
		(*jobs)--;
	m->budget = avail > 0 ? 0.75 * avail : 0;
}

void cli_mem_budget_destroy(struct cli_mem_budget *m)
{
	pthread_cond_destroy(&m->freed);
	pthread_mutex_destroy(&m->lock);
}

double cli_mem_budget_acquire(struct cli_mem_budget *m, double bytes)
{
	return cli_mem_budget_acquire_turn(m, bytes, UINT64_MAX);
}

double cli_mem_budget_acquire_turn(struct cli_mem_budget *m, double bytes, uint64_t ticket)
{
	if (bytes > m->budget)
		bytes = m->budget; /* more than all: it will run alone */
	pthread_mutex_lock(&m->lock);
	while (m->running && !m->closed && ticket != m->turn && m->in_use + bytes > m->budget)
		pthread_cond_wait(&m->freed, &m->lock);
	m->in_use += bytes;
	m->running++;
	pthread_mutex_unlock(&m->lock);
	return bytes;
}

bool cli_mem_budget_resize(struct cli_mem_budget *m, double *held, double bytes)
{
	return cli_mem_budget_resize_turn(m, held, bytes, UINT64_MAX);
}

bool cli_mem_budget_resize_turn(struct cli_mem_budget *m, double *held, double bytes,
				uint64_t ticket)
{
	bool ok;

	pthread_mutex_lock(&m->lock);
	ok = m->running == 1 || ticket == m->turn || m->in_use - *held + bytes <= m->budget;
	if (ok) {
		m->in_use += bytes - *held;
		*held = bytes;
		pthread_cond_broadcast(&m->freed); /* it may have shrunk */
	}
	pthread_mutex_unlock(&m->lock);
	return ok;
}

void cli_mem_budget_release(struct cli_mem_budget *m, double held)
{
	cli_mem_budget_release_turn(m, held, UINT64_MAX);
}

void cli_mem_budget_release_turn(struct cli_mem_budget *m, double held, uint64_t turn)
{
	pthread_mutex_lock(&m->lock);
	m->in_use -= held;
	if (--m->running == 0)
		m->in_use = 0; /* no rounding left over */
	if (turn != UINT64_MAX)
		m->turn = turn;
	pthread_cond_broadcast(&m->freed);
	pthread_mutex_unlock(&m->lock);
}

void cli_mem_budget_close(struct cli_mem_budget *m)
{
	pthread_mutex_lock(&m->lock);
	m->closed = true;
	pthread_cond_broadcast(&m->freed);
	pthread_mutex_unlock(&m->lock);
}

const char *cli_mem_budget_text(const struct cli_mem_budget *m, char *buf, size_t len)
{
	char l[96];

	snprintf(buf, len, "%.2f GiB: 3/4 of %s, less what cclab already holds",
		 m->budget / (1 << 30), cc_mem_limit_text(&m->limit, l, sizeof(l)));
	return buf;
}
