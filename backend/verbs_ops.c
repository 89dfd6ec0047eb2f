/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/verbs_ops.c — the verbs executor as core/exec.h's descriptor:
 * its setting is a struct cc_verbs_exec (the opened device, the
 * bootstrap and the run's options), whose seed, faults and check the
 * common options replace.  One process runs one rank. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend/verbs_exec.h"

static int verbs_run(const struct cc_schedule *s, const struct cc_exec_common *c,
		     const void *ctx, void *res, char *err, size_t errlen)
{
	const struct cc_verbs_exec *x = ctx;
	struct cc_verbs_run_opts o;

	if (cc_schedule_has_mcast(s))
		return cc_verbs_refuse_mcast(err, errlen);
	if (!x || !x->v || !x->boot) {
		snprintf(err, errlen, "the verbs executor needs an opened device and a bootstrap");
		return -EINVAL;
	}
	o = x->opts;
	o.seed = c->seed;
	o.faults = c->faults;
	o.nfaults = c->nfaults;
	o.check = c->check;
	return cc_verbs_run(x->v, x->boot, s, &o, res, err, errlen);
}

static const struct cc_run_error *verbs_error(const void *res)
{
	return &((const struct cc_verbs_result *)res)->err;
}

static uint64_t verbs_wrong(const void *res)
{
	return ((const struct cc_verbs_result *)res)->wrong;
}

/* nccl-tests' time: the timed iterations' mean. */
static double verbs_time_us(const void *res)
{
	const struct cc_verbs_result *r = res;
	double sum = 0;

	if (!r->iters)
		return NAN;
	for (uint32_t i = 0; i < r->iters; i++)
		sum += r->iter_us[i];
	return sum / r->iters;
}

static void verbs_free(void *res)
{
	cc_verbs_result_free(res);
}

const struct cc_executor_ops cc_verbs_executor = {
	.id = CC_EXEC_VERBS,
	.caps = CC_EXEC_CAP_TIME | CC_EXEC_CAP_DATA | CC_EXEC_CAP_DEVICE,
	.result_size = sizeof(struct cc_verbs_result),
	.run = verbs_run,
	.error = verbs_error,
	.wrong = verbs_wrong,
	.time_us = verbs_time_us,
	.result_free = verbs_free,
};
