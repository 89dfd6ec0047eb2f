/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/run_status.h — a run's status checked with its reason: when an
 * executor's run ends otherwise than a test expects, the failure prints
 * the run's one-line message (which rank, QP, op and why), not only the
 * two numbers.  Include after <cmocka.h> and core/exec.h. */
#ifndef CCLAB_TESTS_RUN_STATUS_H
#define CCLAB_TESTS_RUN_STATUS_H

#define assert_run_status(err, want)                                                       \
	do {                                                                               \
		const struct cc_run_error *e_ = &(err);                                    \
		if (e_->status != (want))                                                  \
			fail_msg("run status %d, want %d (%s): %.*s", (int)e_->status,      \
				 (int)(want), #want, (int)sizeof(e_->msg), e_->msg);       \
	} while (0)

#endif /* CCLAB_TESTS_RUN_STATUS_H */
