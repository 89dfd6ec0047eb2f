/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/launch_local.c — `cclab run -n K` (and `cclab p2p --device`) without
 * a launcher: K ranks on this host, each a forked copy of this process, connected through a bootstrap
 * listener on 127.0.0.1 that the parent opens first (port 0: any free
 * port), so rank 0 cannot lose a race for it.
 *
 * Children are forked before any verbs call: a process that has registered
 * memory must not fork (ibv_fork_init(3)).  Each child sets CCLAB_RANK,
 * CCLAB_WORLD_SIZE, CCLAB_LOCAL_RANK, CCLAB_LOCAL_SIZE and CCLAB_BOOTSTRAP,
 * as backend/launch.h reads them, for what it may start itself.
 *
 * The parent only waits.  When a rank fails (non-zero exit or a signal),
 * the others get `grace_ms` to notice and exit on their own — they report
 * the failed rank by name — after which they are killed, so `cclab run`
 * never outlives its ranks' own deadlines by much.  The exit status is the
 * worst of the ranks'. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/bootstrap.h"
#include "cli/verbs.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void set_env(const char *name, unsigned long v)
{
	char s[32];

	snprintf(s, sizeof(s), "%lu", v);
	setenv(name, s, 1);
}

static int child(uint32_t rank, uint32_t k, const struct cc_rendezvous *addr, int listen_fd,
		 verbs_rank_fn fn, void *ctx)
{
	char boot[300];

	set_env("CCLAB_RANK", rank);
	set_env("CCLAB_WORLD_SIZE", k);
	set_env("CCLAB_LOCAL_RANK", rank);
	set_env("CCLAB_LOCAL_SIZE", k);
	snprintf(boot, sizeof(boot), "%s:%u", addr->host, addr->port);
	setenv(CC_BOOTSTRAP_ENV, boot, 1);
	if (rank != 0 && listen_fd >= 0)
		close(listen_fd);
	return fn(ctx, rank, k, CC_LAUNCH_LOCAL, addr, rank == 0 ? listen_fd : -1);
}

int verbs_launch_local(const char *cmd, uint32_t k, int grace_ms, verbs_rank_fn fn, void *ctx)
{
	struct cc_rendezvous addr = { .host = "127.0.0.1", .kind = CC_HOST_IPV4 };
	pid_t *pid = calloc(k, sizeof(*pid));
	uint32_t left = 0;
	int fd, worst = CLI_EXIT_OK;
	uint64_t kill_at = 0;
	char err[256];

	if (!pid) {
		fprintf(stderr, "cclab %s: out of memory\n", cmd);
		return CLI_EXIT_FAIL;
	}
	if (cc_boot_listen(&addr, &fd, &addr.port, err, sizeof(err))) {
		fprintf(stderr, "cclab %s: bootstrap: %s\n", cmd, err);
		free(pid);
		return CLI_EXIT_FAIL;
	}
	fflush(stdout);
	fflush(stderr);
	for (uint32_t r = 0; r < k; r++) {
		pid[r] = fork();
		if (pid[r] == 0) {
			int rc = child(r, k, &addr, fd, fn, ctx);
			fflush(stdout);
			fflush(stderr);
			_exit(rc);
		}
		if (pid[r] < 0) {
			fprintf(stderr, "cclab %s: fork of rank %u: %s\n", cmd, r, strerror(errno));
			worst = CLI_EXIT_FAIL;
			kill_at = now_ms();
			break;
		}
		left++;
	}
	close(fd);
	while (left) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p < 0 && errno != EINTR)
			break;
		if (p <= 0) {
			if (kill_at && now_ms() >= kill_at) {
				for (uint32_t r = 0; r < k; r++)
					if (pid[r] > 0) {
						fprintf(stderr, "cclab %s: rank %u still running %d ms "
							"after another rank failed: killed\n", cmd, r,
							grace_ms);
						kill(pid[r], SIGKILL);
					}
				kill_at = UINT64_MAX;
			}
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
			continue;
		}
		uint32_t r = 0;
		while (r < k && pid[r] != p)
			r++;
		if (r == k)
			continue;
		pid[r] = 0;
		left--;
		int rc = CLI_EXIT_FAIL;
		if (WIFEXITED(st))
			rc = WEXITSTATUS(st);
		else if (WIFSIGNALED(st))
			fprintf(stderr, "cclab %s: rank %u was killed by signal %d (%s)\n", cmd, r,
				WTERMSIG(st), strsignal(WTERMSIG(st)));
		if (rc > worst)
			worst = rc;
		if (rc != CLI_EXIT_OK && !kill_at)
			kill_at = now_ms() + (uint64_t)grace_ms;
	}
	free(pid);
	return worst;
}
