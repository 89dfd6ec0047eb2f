/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/mem_budget.h — the memory that runs going on at once share (`cclab
 * tune`'s candidates, the sizes of `cclab sim --jobs`): each reserves its
 * estimate before it builds, and the reservations together stay within
 * the budget (cli/mem_budget.c). */
#ifndef CCLAB_CLI_MEM_BUDGET_H
#define CCLAB_CLI_MEM_BUDGET_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/mem_limit.h"

struct cli_mem_budget {
	pthread_mutex_t lock;
	pthread_cond_t freed;     /* a reservation ended or shrank */
	struct cc_mem_limit limit;
	double budget;            /* bytes all reservations must fit in */
	double in_use;            /* the running runs' reservations */
	uint32_t running;
	uint64_t turn;            /* the ticket that never waits (acquire_turn) */
	bool closed;              /* nobody waits any more (close) */
};
/* What limit `lim` (cc_mem_limit()) leaves beside what the process holds
 * now; 1e300 when nothing limits it. */
double cli_mem_left(const struct cc_mem_limit *lim);
/* The budget: 3/4 of what the limit leaves beside what the process holds
 * (the same for any --jobs); under ulimit -v or -d lowers *jobs (to 1 at
 * least) so that what the threads reserve themselves (stacks, malloc
 * arenas) fits in the remaining quarter. */
void cli_mem_budget_init(struct cli_mem_budget *m, uint32_t *jobs);
void cli_mem_budget_destroy(struct cli_mem_budget *m);
/* Reserves `bytes` (the budget, if more: such a run runs alone), waiting
 * until they fit beside the others' or no other runs.  Returns what it
 * reserved, for cli_mem_budget_resize() and cli_mem_budget_release(). */
double cli_mem_budget_acquire(struct cli_mem_budget *m, double bytes);
/* The same for runs reported in order whose results are kept until then:
 * the one whose turn it is (its ticket is the budget's turn, 0 at first)
 * never waits, since the reservations of those after it are only given
 * back after it (cli/loop_jobs.c).  Else it would wait for them forever. */
double cli_mem_budget_acquire_turn(struct cli_mem_budget *m, double bytes, uint64_t ticket);
/* Makes the reservation *held `bytes` if that fits now (always when no
 * other runs): true; false leaves it as it was. */
bool cli_mem_budget_resize(struct cli_mem_budget *m, double *held, double bytes);
/* The same for a ticket: the one whose turn it is always may. */
bool cli_mem_budget_resize_turn(struct cli_mem_budget *m, double *held, double bytes,
				uint64_t ticket);
void cli_mem_budget_release(struct cli_mem_budget *m, double held);
/* cli_mem_budget_release(), and the ticket `turn` never waits from now. */
void cli_mem_budget_release_turn(struct cli_mem_budget *m, double held, uint64_t turn);
/* From now on nobody waits: for runs that are being called off. */
void cli_mem_budget_close(struct cli_mem_budget *m);
/* "2.85 GiB: 3/4 of 3.8 GiB: the address-space limit (ulimit -v), less
 * what cclab already holds", for messages; buf. */
const char *cli_mem_budget_text(const struct cli_mem_budget *m, char *buf, size_t len);

#endif
