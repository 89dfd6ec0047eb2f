/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/loop_jobs.c — the sizes of one sweep built and run at once (`cclab
 * sim --jobs N`), reported in order.
 *
 * Each size is a simulation of its own: the same inputs give the same
 * result whichever thread runs it and whatever runs beside it (the
 * simulator keeps no state between runs).  So threads take the sizes in
 * the loop's order, and this thread prints each row when its size and all
 * before it are done, with what its build said on stderr (a note, an
 * error), kept until then.  The table, --csv, --json, --trace and --links
 * are those of --jobs 1 byte for byte; only the progress line differs.
 *
 * Sizes share memory the way `cclab tune`'s runs do (cli/mem_budget.h): a
 * size reserves what its parameters say it will take before it builds,
 * and what its schedule says (the simulator's state and carried buffers
 * included) before it runs; one that does not fit beside the others
 * gives its schedule back and waits until it does, and is built again
 * then.  An error that ends the loop calls off the runs going on.  A result waiting to be reported keeps its reservation; the first
 * size not yet reported never waits (cli_mem_budget_acquire_turn()), so
 * the loop always moves.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/check.h"
#include "cli/mem_budget.h"


struct size_slot {
	char *said;       /* what the build wrote for stderr (open_memstream) */
	size_t said_len;
	double held;      /* its reservation */
	bool done;
};

struct jobs {
	const struct cli_opts *o;
	const struct cli_loop *l;
	struct cli_size_run *runs;
	struct size_slot *slots;
	uint32_t n;
	uint32_t next;   /* the next size to take */
	bool stop;       /* the loop ended early: take no more */
	bool cancel;     /* ... and the runs going on stop (atomic) */
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct cli_mem_budget mem;
};

static bool stopped(struct jobs *J)
{
	bool stop;

	pthread_mutex_lock(&J->lock);
	stop = J->stop;
	pthread_mutex_unlock(&J->lock);
	return stop;
}

/* Builds size i within its reservation, grown to what its schedule says
 * it will hold before it runs, then runs it; false when the loop was
 * called off meanwhile (nothing kept). */
static bool compute(struct jobs *J, uint32_t i)
{
	const struct cli_loop *l = J->l;
	struct cli_size_run *r = &J->runs[i];
	struct size_slot *z = &J->slots[i];
	bool check = cli_size_carried(J->o, l, r->bytes);
	double need = l->mem_need(J->o, l->ctx, NULL, r->bytes, check);
	FILE *errs;

	r->c.cancel = &J->cancel;
	for (;;) {
		z->held = cli_mem_budget_acquire_turn(&J->mem, need, i);
		if (stopped(J))
			break;
		free(z->said);
		z->said = NULL;
		z->said_len = 0;
		errs = open_memstream(&z->said, &z->said_len);
		/* No stream: no memory to keep a message in either; say it
		 * now rather than lose it. */
		cli_size_build(J->o, l, r, errs ? errs : stderr);
		if (errs)
			fclose(errs);
		else
			z->said_len = 0;
		if (!r->s)
			return true; /* its row says why, in its turn */
		need = l->mem_need(J->o, l->ctx, r->s, r->bytes, check);
		if (cli_mem_budget_resize_turn(&J->mem, &z->held, need, i)) {
			cli_size_run(l, r);
			return true;
		}
		/* More than its parameters said, and the others hold the
		 * rest: built again when it fits (the same inputs, the same
		 * schedule; nothing has run). */
		cli_size_run_clear(l, r);
		cli_mem_budget_release(&J->mem, z->held);
	}
	cli_mem_budget_release(&J->mem, z->held);
	z->held = 0;
	return false;
}

static void *worker(void *arg)
{
	struct jobs *J = arg;

	for (;;) {
		uint32_t i;

		pthread_mutex_lock(&J->lock);
		if (J->stop || J->next == J->n) {
			pthread_mutex_unlock(&J->lock);
			return NULL;
		}
		i = J->next++;
		pthread_mutex_unlock(&J->lock);
		if (!compute(J, i))
			return NULL;
		pthread_mutex_lock(&J->lock);
		J->slots[i].done = true;
		pthread_cond_broadcast(&J->done);
		pthread_mutex_unlock(&J->lock);
	}
}

/* Size i's row, once it and every size before it are done. */
static int report(struct jobs *J, uint32_t i, struct cc_results_summary *sum,
		  const struct cli_sink *out, bool *all_ok)
{
	struct size_slot *z = &J->slots[i];
	bool ok = false;
	int rc;

	pthread_mutex_lock(&J->lock);
	while (!z->done)
		pthread_cond_wait(&J->done, &J->lock);
	pthread_mutex_unlock(&J->lock);
	if (z->said_len) {
		fflush(stdout); /* in the order --jobs 1 would print them */
		fwrite(z->said, 1, z->said_len, stderr);
	}
	rc = cli_size_report(J->o, J->l, &J->runs[i], sum, out, &ok);
	cli_mem_budget_release_turn(&J->mem, z->held, i + 1);
	z->held = 0;
	*all_ok = *all_ok && ok;
	return rc;
}

int cli_loop_jobs(const struct cli_opts *o, const struct cli_loop *l, struct cli_size_run *runs,
		  uint32_t n, uint32_t jobs, struct cc_results_summary *sum,
		  const struct cli_sink *out, bool *all_ok, void (*progress)(uint32_t done, uint32_t n))
{
	struct jobs J = { .o = o, .l = l, .runs = runs, .n = n };
	pthread_t th[CLI_MAX_JOBS];
	uint32_t started = 0, i;
	int rc = 0;

	if (jobs > CLI_MAX_JOBS)
		jobs = CLI_MAX_JOBS;
	J.slots = calloc(n, sizeof(*J.slots));
	if (!J.slots) {
		fprintf(stderr, "cclab %s: out of memory\n", cli_opts_cmd(o));
		return CLI_EXIT_FAIL;
	}
	pthread_mutex_init(&J.lock, NULL);
	pthread_cond_init(&J.done, NULL);
	cli_mem_budget_init(&J.mem, &jobs);
	while (started < jobs && !pthread_create(&th[started], NULL, worker, &J))
		started++;
	for (i = 0; i < n && !rc; i++) {
		if (progress)
			progress(i, n);
		if (!started) /* no thread to be had: this one runs them, in turn */
			J.slots[i].done = compute(&J, i);
		rc = report(&J, i, sum, out, all_ok);
	}
	pthread_mutex_lock(&J.lock);
	J.stop = true;
	pthread_mutex_unlock(&J.lock);
	/* Sizes going on or waiting to start are called off: their rows
	 * would never be printed. */
	__atomic_store_n(&J.cancel, true, __ATOMIC_RELAXED);
	cli_mem_budget_close(&J.mem);
	while (started)
		pthread_join(th[--started], NULL);
	/* Sizes done after the one that ended the loop: never reported. */
	for (; i < n; i++)
		if (J.slots[i].done)
			cli_size_run_clear(l, &runs[i]);
	for (i = 0; i < n; i++)
		free(J.slots[i].said);
	cli_mem_budget_destroy(&J.mem);
	pthread_cond_destroy(&J.done);
	pthread_mutex_destroy(&J.lock);
	free(J.slots);
	return rc;
}
