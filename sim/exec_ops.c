/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/exec_ops.c — the simulator as core/exec.h's executor descriptor:
 * its setting is a struct cc_sim_opts (fabric, network, limits), whose
 * seeds, faults and check the common options replace. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/exec.h"

static int ops_run(const struct cc_schedule *s, const struct cc_exec_common *c, const void *ctx,
		   void *res, char *err, size_t errlen)
{
	struct cc_sim_opts o;
	int rc;

	if (!ctx) {
		snprintf(err, errlen, "the simulator needs its options: a fabric and a network");
		return -EINVAL;
	}
	o = *(const struct cc_sim_opts *)ctx;
	o.seed = c->seed;
	o.faults = c->faults;
	o.nfaults = c->nfaults;
	o.check = c->check;
	o.cancel = c->cancel;
	rc = cc_sim_run(s, &o, res);
	if (rc) {
		/* what the run said of it, else the error's name */
		const char *msg = ((const struct cc_sim_result *)res)->err.msg;

		snprintf(err, errlen, "%s", *msg ? msg : strerror(-rc));
	}
	return rc;
}

static const struct cc_run_error *ops_error(const void *res)
{
	return &((const struct cc_sim_result *)res)->err;
}

static uint64_t ops_wrong(const void *res)
{
	const struct cc_sim_result *r = res;

	return r->checked ? r->wrong : 0;
}

static double ops_time_us(const void *res)
{
	return (double)((const struct cc_sim_result *)res)->time_ps / 1e6;
}

static void ops_free(void *res)
{
	cc_sim_result_free(res);
}

const struct cc_executor_ops cc_sim_executor = {
	.id = CC_EXEC_SIM,
	.caps = CC_EXEC_CAP_TIME | CC_EXEC_CAP_DATA | CC_EXEC_CAP_LINKS,
	.result_size = sizeof(struct cc_sim_result),
	.run = ops_run,
	.error = ops_error,
	.wrong = ops_wrong,
	.time_us = ops_time_us,
	.result_free = ops_free,
};
