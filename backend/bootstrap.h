/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/bootstrap.h — the TCP rendezvous that connects the ranks before
 * any verbs work: hello, allgather of one blob per rank, barrier.
 *
 * Rank 0 listens on the rendezvous address; every other rank connects to
 * it (retrying while it is refused, until the deadline) and sends a HELLO
 * carrying its rank and world size.  Rank 0 accepts exactly world-1
 * distinct ranks 1..world-1: a connection with a bad header (magic,
 * version, type), another world size, rank 0, or a rank already taken is
 * refused — the reason is logged, sent back in an ABORT, and rank 0 keeps
 * waiting for the rank it expects.  Anyone may connect, so a connection
 * that has not identified itself is held at most hello_ms, and at most 64
 * such at once (a new one closes the oldest): idle, trickling or garbage
 * connections cannot keep a real rank out.  Once all are in, rank 0 sends
 * READY to each.  The allgather and the barrier go through rank 0 (a star:
 * each rank sends to 0, 0 answers everyone).  Messages:
 * backend/bootstrap_msg.h.
 *
 * Nothing blocks without a deadline: every connect, read and write polls
 * with the time left.  Rank 0 gives up after timeout_ms with an error
 * naming the ranks that did not join or answer (dead: "closed the
 * connection"; silent: "sent nothing within N ms") and sends that reason
 * to every other rank in an ABORT, so they fail with it too.  The other
 * ranks wait up to twice the timeout for rank 0, so its explanation
 * usually reaches them before their own deadline.  After an error the
 * handle only refuses further calls; cc_boot_close() releases it.
 *
 * Host names are resolved with getaddrinfo(), which has no deadline of
 * its own.  Functions return 0 or a negative errno, with a message in err.
 */
#ifndef CCLAB_BACKEND_BOOTSTRAP_H
#define CCLAB_BACKEND_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/launch.h"

#define CC_BOOT_DEFAULT_TIMEOUT_MS 60000
#define CC_BOOT_DEFAULT_HELLO_MS 5000

struct cc_boot_opts {
	int timeout_ms; /* per phase (join, each allgather, each barrier); <= 0: the default */
	int hello_ms;   /* rank 0: a connection's time to send its HELLO from accept; <= 0:
			 * the default; at most timeout_ms */
	FILE *log;      /* refused connections are reported here; NULL: nowhere */
};

struct cc_boot {
	uint32_t rank, world;
	int timeout_ms, hello_ms;
	FILE *log;
	int *fd; /* rank 0: fd[r] to rank r (fd[0] = -1); others: fd[0] to rank 0 */
	bool failed;
};

/* Every rank's blob after an allgather: data[r] has len[r] bytes. */
struct cc_boot_blobs {
	uint32_t n;
	size_t *len;
	uint8_t **data;
};

/* Rank 0's listening socket on addr (port 0: any free port); *port is the
 * port it got.  For an IP literal it binds that address, for a host name
 * the wildcard address of the name's family. */
int cc_boot_listen(const struct cc_rendezvous *addr, int *fd, uint16_t *port, char *err,
		   size_t errlen);

/* Joins the job.  Rank 0 uses listen_fd (from cc_boot_listen, owned and
 * closed from here on) or, when it is -1, listens on addr itself.  world 1
 * opens no socket.  On error *b holds nothing to close. */
int cc_boot_open(struct cc_boot *b, const struct cc_rendezvous *addr, int listen_fd,
		 uint32_t rank, uint32_t world, const struct cc_boot_opts *opts, char *err,
		 size_t errlen);

/* Every rank gives len bytes (at most CC_BMSG_MAX_BLOB) and gets all
 * world blobs in rank order; free them with cc_boot_blobs_free(). */
int cc_boot_allgather(struct cc_boot *b, const void *mine, size_t len, struct cc_boot_blobs *all,
		      char *err, size_t errlen);
void cc_boot_blobs_free(struct cc_boot_blobs *all);

/* Returns once every rank has entered it. */
int cc_boot_barrier(struct cc_boot *b, char *err, size_t errlen);

void cc_boot_close(struct cc_boot *b);

#endif
