/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/bootstrap.c — TCP rendezvous, allgather and barrier with
 * deadlines (see backend/bootstrap.h).  All sockets are non-blocking;
 * every wait is a poll() bounded by the time left to the phase's
 * deadline. */
#include "backend/bootstrap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "backend/bootstrap_msg.h"

/* Connections rank 0 has accepted that have not yet sent a whole HELLO.
 * Anyone who can reach the port can open them, so they are bounded in
 * number (a new one closes the oldest) and in time (hello_ms each): idle,
 * trickling or garbage connections cannot lock the real ranks out. */
#define MAX_PENDING 64
/* Accepts per round before the pending connections are read again, so a
 * flood of connects cannot keep rank 0 in accept() past its deadlines. */
#define ACCEPT_BURST MAX_PENDING

/* ---- time ---- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int left_ms(int64_t deadline)
{
	int64_t d = deadline - now_ms();

	return d <= 0 ? 0 : d > 3600000 ? 3600000 : (int)d;
}

/* ---- byte streams with a deadline ---- */

/* 0, -ETIMEDOUT (*done bytes arrived), -ECONNRESET for EOF, -errno. */
static int read_full(int fd, void *buf, size_t n, int64_t deadline, size_t *done)
{
	uint8_t *p = buf;

	*done = 0;
	while (*done < n) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		ssize_t got;
		int rc = poll(&pfd, 1, left_ms(deadline));

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -errno;
		if (rc == 0)
			return -ETIMEDOUT;
		got = recv(fd, p + *done, n - *done, 0);
		if (got == 0)
			return -ECONNRESET;
		if (got < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				continue;
			return -errno;
		}
		*done += (size_t)got;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t n, int64_t deadline)
{
	const uint8_t *p = buf;
	size_t done = 0;

	while (done < n) {
		struct pollfd pfd = {.fd = fd, .events = POLLOUT};
		ssize_t put;
		int rc = poll(&pfd, 1, left_ms(deadline));

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -errno;
		if (rc == 0)
			return -ETIMEDOUT;
		put = send(fd, p + done, n - done, MSG_NOSIGNAL);
		if (put < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				continue;
			return errno == EPIPE ? -ECONNRESET : -errno;
		}
		done += (size_t)put;
	}
	return 0;
}

/* ---- messages ---- */

static int send_msg(int fd, uint16_t type, uint32_t rank, uint32_t world, const void *payload,
		    uint32_t len, int64_t deadline)
{
	uint8_t hdr[CC_BMSG_HDR_BYTES];
	int rc;

	cc_bmsg_hdr_encode(hdr, type, rank, world, len);
	rc = write_full(fd, hdr, sizeof hdr, deadline);
	if (!rc && len)
		rc = write_full(fd, payload, len, deadline);
	return rc;
}

/* "rank R <what went wrong>" for a stream error. */
static void stream_err(char *err, size_t errlen, uint32_t peer, int rc, size_t done,
		       int timeout_ms, const char *what)
{
	if (rc == -ETIMEDOUT && done == 0)
		snprintf(err, errlen, "rank %u sent nothing within %d ms (waiting for %s)",
			 (unsigned)peer, timeout_ms, what);
	else if (rc == -ETIMEDOUT)
		snprintf(err, errlen, "rank %u stopped in the middle of %s for %d ms",
			 (unsigned)peer, what, timeout_ms);
	else if (rc == -ECONNRESET)
		snprintf(err, errlen, "rank %u closed the connection (waiting for %s)",
			 (unsigned)peer, what);
	else
		snprintf(err, errlen, "rank %u: %s (waiting for %s)", (unsigned)peer,
			 strerror(-rc), what);
}

/* Reads one message of the expected type from rank peer; an ABORT becomes
 * an error with its reason.  *payload is malloc'ed (NULL for none). */
static int recv_msg(struct cc_boot *b, int fd, uint32_t peer, uint16_t type, int64_t deadline,
		    int wait_ms, uint8_t **payload, uint32_t *len, char *err, size_t errlen)
{
	uint8_t hbuf[CC_BMSG_HDR_BYTES];
	struct cc_bmsg_hdr h;
	char why[256];
	uint8_t *p = NULL;
	size_t done;
	int rc;

	*payload = NULL;
	*len = 0;
	rc = read_full(fd, hbuf, sizeof hbuf, deadline, &done);
	if (rc) {
		stream_err(err, errlen, peer, rc, done, wait_ms, cc_bmsg_type_name(type));
		return rc;
	}
	rc = cc_bmsg_hdr_decode(hbuf, sizeof hbuf, &h, why, sizeof why);
	if (rc) {
		snprintf(err, errlen, "rank %u sent a bad message: %s", (unsigned)peer, why);
		return rc;
	}
	if (h.rank != peer || (h.world != b->world && h.type != CC_BMSG_ABORT)) {
		snprintf(err, errlen, "rank %u sent a message as rank %u of %u (expected %u of %u)",
			 (unsigned)peer, (unsigned)h.rank, (unsigned)h.world, (unsigned)peer,
			 (unsigned)b->world);
		return -EPROTO;
	}
	if (h.type != type && h.type != CC_BMSG_ABORT) {
		snprintf(err, errlen, "rank %u sent %s where %s was expected", (unsigned)peer,
			 cc_bmsg_type_name(h.type), cc_bmsg_type_name(type));
		return -EPROTO;
	}
	if (h.len) {
		p = malloc(h.len);
		if (!p) {
			snprintf(err, errlen, "out of memory for %u bytes from rank %u",
				 (unsigned)h.len, (unsigned)peer);
			return -ENOMEM;
		}
		rc = read_full(fd, p, h.len, deadline, &done);
		if (rc) {
			stream_err(err, errlen, peer, rc, 1, wait_ms, cc_bmsg_type_name(h.type));
			free(p);
			return rc;
		}
	}
	if (h.type == CC_BMSG_ABORT) {
		uint32_t i;

		for (i = 0; i < h.len; i++) /* the reason is shown, so printable only */
			if (p[i] < 0x20 || p[i] > 0x7e)
				p[i] = '?';
		snprintf(err, errlen, "rank %u gave up: %.*s", (unsigned)peer, (int)h.len,
			 p ? (const char *)p : "");
		free(p);
		return -ECONNABORTED;
	}
	*payload = p;
	*len = h.len;
	return 0;
}

/* Best effort, wait_ms at most: tell fd why we give up. */
static void send_abort(int fd, uint32_t rank, uint32_t world, const char *why, int wait_ms)
{
	size_t n = strlen(why);

	if (fd < 0)
		return;
	if (n > CC_BMSG_MAX_TEXT)
		n = CC_BMSG_MAX_TEXT;
	(void)send_msg(fd, CC_BMSG_ABORT, rank, world, why, (uint32_t)n, now_ms() + wait_ms);
}

/* Marks b failed and passes the reason on to the peers. */
static int fail(struct cc_boot *b, int rc, const char *err)
{
	uint32_t r, n = b->rank == 0 ? b->world : 1;

	b->failed = true;
	for (r = 0; r < n; r++)
		send_abort(b->fd[r], b->rank, b->world, err, 100);
	return rc;
}

/* ---- sockets ---- */

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -errno : 0;
}

static int resolve(const struct cc_rendezvous *a, struct addrinfo **res, char *err,
		   size_t errlen)
{
	struct addrinfo hints;
	char port[8];
	int rc;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = a->kind == CC_HOST_IPV4 ? AF_INET : a->kind == CC_HOST_IPV6 ? AF_INET6
										: AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (a->kind == CC_HOST_NAME ? 0 : AI_NUMERICHOST);
	snprintf(port, sizeof port, "%u", (unsigned)a->port);
	rc = getaddrinfo(a->host, port, &hints, res);
	if (rc) {
		snprintf(err, errlen, "cannot resolve %s: %s", a->host, gai_strerror(rc));
		return -EHOSTUNREACH;
	}
	return 0;
}

static void addr_text(const struct sockaddr_storage *ss, char *out, size_t n)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof host);
		port = ntohs(s4->sin_port);
		snprintf(out, n, "%s:%u", host, port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof host);
		port = ntohs(s6->sin6_port);
		snprintf(out, n, "[%s]:%u", host, port);
	} else {
		snprintf(out, n, "?");
	}
}

int cc_boot_listen(const struct cc_rendezvous *addr, int *fd_out, uint16_t *port, char *err,
		   size_t errlen)
{
	struct addrinfo *res, *ai;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	int fd = -1, rc, e = 0, one = 1;

	rc = resolve(addr, &res, err, errlen);
	if (rc)
		return rc;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			e = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (addr->kind == CC_HOST_NAME) { /* a name: every interface of its family */
			if (ai->ai_family == AF_INET)
				((struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr =
					htonl(INADDR_ANY);
			else if (ai->ai_family == AF_INET6)
				((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr = in6addr_any;
		}
		/* The longest accept queue the kernel allows (net.core.somaxconn):
		 * thousands of ranks may connect at once, and a full queue drops
		 * their SYNs, each retried only after a second or more. */
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0)
			break;
		e = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(err, errlen, "cannot listen on %s:%u: %s", addr->host, (unsigned)addr->port,
			 strerror(e ? e : EADDRNOTAVAIL));
		return -(e ? e : EADDRNOTAVAIL);
	}
	if (set_nonblock(fd) || getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		e = errno;
		close(fd);
		snprintf(err, errlen, "listening socket: %s", strerror(e));
		return -e;
	}
	*port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
					 : ntohs(((struct sockaddr_in *)&ss)->sin_port);
	*fd_out = fd;
	return 0;
}

/* One non-blocking connect attempt, bounded by the deadline. */
static int try_connect(const struct addrinfo *ai, int64_t deadline, int *fd_out)
{
	struct pollfd pfd;
	socklen_t sl = sizeof(int);
	int fd, e = 0, rc;

	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			e = errno;
			close(fd);
			return -e;
		}
		pfd.fd = fd;
		pfd.events = POLLOUT;
		do
			rc = poll(&pfd, 1, left_ms(deadline));
		while (rc < 0 && errno == EINTR);
		if (rc <= 0) {
			close(fd);
			return rc == 0 ? -ETIMEDOUT : -errno;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &sl) < 0)
			e = errno;
		if (e) {
			close(fd);
			return -e;
		}
	}
	*fd_out = fd;
	return 0;
}

/* ---- joining ---- */

/* An accepted connection that has not yet identified itself. */
struct pending {
	int fd;
	short rev;     /* this round's poll result */
	int64_t due;   /* its whole HELLO must be in by then (accept + hello_ms) */
	size_t got;
	uint8_t hdr[CC_BMSG_HDR_BYTES];
	char from[64];
};

/* Rank 0's join: the connections pending, oldest first, and what the
 * error says if a rank never comes. */
struct join {
	struct pending pend[MAX_PENDING + 1]; /* + 1: a new one, read before any is closed */
	uint32_t npend, joined;
	uint32_t silent; /* connections closed without a whole HELLO */
	char last_refusal[256];
};

static void boot_log(struct cc_boot *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void boot_log(struct cc_boot *b, const char *fmt, ...)
{
	va_list ap;

	if (!b->log)
		return;
	va_start(ap, fmt);
	fputs("cclab bootstrap: ", b->log);
	vfprintf(b->log, fmt, ap);
	fputc('\n', b->log);
	fflush(b->log);
	va_end(ap);
}

/* Checks a complete hello; NULL when rank 0 takes it, else why not. */
static const char *hello_refused(struct cc_boot *b, const struct pending *p, char *why,
				 size_t n)
{
	struct cc_bmsg_hdr h;
	char e[200];

	if (cc_bmsg_hdr_decode(p->hdr, sizeof p->hdr, &h, e, sizeof e)) {
		snprintf(why, n, "bad hello: %s", e);
		return why;
	}
	if (h.type != CC_BMSG_HELLO || h.len != 0)
		snprintf(why, n, "%s where HELLO was expected", cc_bmsg_type_name(h.type));
	else if (h.world != b->world)
		snprintf(why, n, "rank %u says world size %u, expected %u", (unsigned)h.rank,
			 (unsigned)h.world, (unsigned)b->world);
	else if (h.rank == 0)
		snprintf(why, n, "rank 0 is the rendezvous itself");
	else if (b->fd[h.rank] >= 0)
		snprintf(why, n, "rank %u has joined already (duplicate)", (unsigned)h.rank);
	else
		return NULL;
	return why;
}

/* Removes pending connection i, keeping the others in arrival order. */
static void unlink_pending(struct join *j, uint32_t i)
{
	memmove(&j->pend[i], &j->pend[i + 1], (j->npend - i - 1) * sizeof j->pend[0]);
	j->npend--;
}

/* Closes pending connection i.  A non-NULL why goes to the log and,
 * without waiting (the socket is fresh, its send buffer empty), to the
 * peer in an ABORT. */
static void drop_pending(struct cc_boot *b, struct join *j, uint32_t i, const char *why)
{
	if (why) {
		boot_log(b, "closed %s: %s", j->pend[i].from, why);
		send_abort(j->pend[i].fd, 0, b->world, why, 0);
	}
	close(j->pend[i].fd);
	unlink_pending(j, i);
}

/* Closes the connections whose hello deadline has passed: silent ones,
 * and those that trickle a byte now and then. */
static void expire_pending(struct cc_boot *b, struct join *j, int64_t now)
{
	uint32_t i = 0;

	while (i < j->npend) {
		char why[96];

		if (j->pend[i].due > now) {
			i++;
			continue;
		}
		snprintf(why, sizeof why, "no whole hello within %d ms of connecting (%zu of %d "
			 "bytes)", b->hello_ms, j->pend[i].got, CC_BMSG_HDR_BYTES);
		j->silent++;
		drop_pending(b, j, i, why);
	}
}

/* Reads what pending connection i has sent of its HELLO and, once it is
 * whole, takes or refuses it.  Whatever it sends beyond 20 bytes is never
 * read: a garbage stream is refused on its first 20. */
static void pending_read(struct cc_boot *b, struct join *j, uint32_t i)
{
	struct pending *p = &j->pend[i];
	char why[256];
	ssize_t got = recv(p->fd, p->hdr + p->got, sizeof p->hdr - p->got, 0);
	uint32_t r;

	if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (got <= 0) {
		boot_log(b, "connection from %s closed before its hello", p->from);
		j->silent++;
		drop_pending(b, j, i, NULL);
		return;
	}
	p->got += (size_t)got;
	if (p->got < sizeof p->hdr)
		return;
	if (hello_refused(b, p, why, sizeof why)) {
		boot_log(b, "refused %s: %s", p->from, why);
		snprintf(j->last_refusal, sizeof j->last_refusal, "%s", why);
		send_abort(p->fd, 0, b->world, why, 0);
		drop_pending(b, j, i, NULL);
		return;
	}
	r = cc_bmsg_get32(p->hdr + 8);
	b->fd[r] = p->fd;
	j->joined++;
	unlink_pending(j, i);
}

/* Takes up to ACCEPT_BURST new connections.  Each is read at once: a real
 * rank sends its HELLO as soon as it is connected, so it usually joins
 * here without ever holding a pending slot.  One that has not spoken yet
 * takes a slot; when they are all held, the oldest unidentified
 * connection makes way — it has had the longest to speak — so however
 * many idle sockets are open, a rank that connects now is read. */
static void accept_burst(struct cc_boot *b, struct join *j, int lfd, int64_t now)
{
	int n;

	for (n = 0; n < ACCEPT_BURST; n++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof ss;
		int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct pending *p;
		char why[128];

		if (fd < 0)
			return;
		p = &j->pend[j->npend++]; /* the one spare slot */
		memset(p, 0, sizeof *p);
		p->fd = fd;
		p->due = now + b->hello_ms;
		addr_text(&ss, p->from, sizeof p->from);
		pending_read(b, j, j->npend - 1);
		if (j->npend <= MAX_PENDING)
			continue;
		snprintf(why, sizeof why, "no hello yet, and %d newer connections wait to identify "
			 "themselves: the oldest is closed", MAX_PENDING);
		j->silent++;
		drop_pending(b, j, 0, why);
	}
}

/* "rank(s) ... did not join within N ms", with what may explain it. */
static void join_timeout_err(struct cc_boot *b, const struct join *j, char *err, size_t errlen)
{
	size_t off = 0;
	uint32_t missing = 0, r;

	off += (size_t)snprintf(err, errlen, "%s", b->world - 1 - j->joined > 1 ? "ranks" : "rank");
	for (r = 1; r < b->world && off < errlen; r++) {
		if (b->fd[r] >= 0)
			continue;
		if (missing++ == 8) {
			off += (size_t)snprintf(err + off, errlen - off, " ...");
			break;
		}
		off += (size_t)snprintf(err + off, errlen - off, "%s %u", missing > 1 ? "," : "",
					(unsigned)r);
	}
	if (off < errlen)
		off += (size_t)snprintf(err + off, errlen - off, " did not join within %d ms",
					b->timeout_ms);
	if (off < errlen && j->npend + j->silent)
		off += (size_t)snprintf(err + off, errlen - off, "; %u connection(s) sent no hello",
					(unsigned)(j->npend + j->silent));
	if (off < errlen && j->last_refusal[0])
		snprintf(err + off, errlen - off, "; refused: %s", j->last_refusal);
}

static int root_join(struct cc_boot *b, int lfd, char *err, size_t errlen)
{
	struct join js, *j = &js;
	struct pollfd pfd[MAX_PENDING + 1];
	int64_t deadline = now_ms() + b->timeout_ms;
	uint32_t r, i;
	int rc = 0;

	memset(j, 0, sizeof *j);
	while (j->joined + 1 < b->world) {
		int wait = left_ms(deadline);

		if (wait == 0) {
			join_timeout_err(b, j, err, errlen);
			rc = -ETIMEDOUT;
			break;
		}
		expire_pending(b, j, now_ms());
		pfd[0].fd = lfd;
		pfd[0].events = POLLIN;
		for (i = 0; i < j->npend; i++) {
			pfd[i + 1].fd = j->pend[i].fd;
			pfd[i + 1].events = POLLIN;
			if (left_ms(j->pend[i].due) < wait)
				wait = left_ms(j->pend[i].due);
		}
		rc = poll(pfd, j->npend + 1, wait);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0) {
			rc = -errno;
			snprintf(err, errlen, "poll: %s", strerror(-rc));
			break;
		}
		rc = 0;
		/* Pending connections first, oldest first (a hello that came
		 * earlier is taken first); each carries its own poll result
		 * when one before it leaves. */
		for (i = 0; i < j->npend; i++)
			j->pend[i].rev = pfd[i + 1].revents;
		for (i = 0; i < j->npend;) {
			uint32_t before = j->npend;

			if (!(j->pend[i].rev & (POLLIN | POLLHUP | POLLERR))) {
				i++;
				continue;
			}
			j->pend[i].rev = 0;
			pending_read(b, j, i);
			if (j->npend == before)
				i++;
		}
		if (pfd[0].revents & POLLIN)
			accept_burst(b, j, lfd, now_ms());
	}
	for (i = 0; i < j->npend; i++)
		close(j->pend[i].fd);
	if (rc)
		return rc;
	for (r = 1; r < b->world; r++) {
		rc = send_msg(b->fd[r], CC_BMSG_READY, 0, b->world, NULL, 0, deadline + 1000);
		if (rc) {
			stream_err(err, errlen, r, rc, 0, b->timeout_ms, "READY");
			return rc;
		}
	}
	return 0;
}

static int peer_join(struct cc_boot *b, const struct cc_rendezvous *addr, char *err,
		     size_t errlen)
{
	int64_t start = now_ms(), deadline = start + b->timeout_ms;
	int delay = 10, rc = -ETIMEDOUT, fd = -1;
	struct addrinfo *res = NULL, *ai;
	uint8_t *payload;
	uint32_t len;

	rc = resolve(addr, &res, err, errlen);
	if (rc)
		return rc;
	for (;;) {
		for (ai = res; ai; ai = ai->ai_next) {
			rc = try_connect(ai, deadline, &fd);
			if (!rc)
				break;
		}
		if (!rc || now_ms() >= deadline)
			break;
		/* Rank 0 may not listen yet: wait a little longer each time. */
		{
			int n = left_ms(deadline);
			struct timespec ts;

			n = n < delay ? n : delay;
			ts.tv_sec = n / 1000;
			ts.tv_nsec = (long)(n % 1000) * 1000000;
			nanosleep(&ts, NULL);
			delay = delay * 2 > 500 ? 500 : delay * 2;
		}
	}
	freeaddrinfo(res);
	if (rc) {
		snprintf(err, errlen, "rank 0 at %s:%u not reachable within %d ms: %s", addr->host,
			 (unsigned)addr->port, b->timeout_ms, strerror(-rc));
		return rc;
	}
	{
		int one = 1;

		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	}
	b->fd[0] = fd;
	/* Rank 0 tells us after its own timeout if a rank is missing. */
	deadline = start + 2 * (int64_t)b->timeout_ms;
	rc = send_msg(fd, CC_BMSG_HELLO, b->rank, b->world, NULL, 0, deadline);
	if (rc) {
		stream_err(err, errlen, 0, rc, 0, b->timeout_ms, "HELLO to be taken");
		return rc;
	}
	rc = recv_msg(b, fd, 0, CC_BMSG_READY, deadline, 2 * b->timeout_ms, &payload, &len, err,
		      errlen);
	free(payload);
	return rc;
}

int cc_boot_open(struct cc_boot *b, const struct cc_rendezvous *addr, int listen_fd,
		 uint32_t rank, uint32_t world, const struct cc_boot_opts *opts, char *err,
		 size_t errlen)
{
	uint32_t r;
	int rc;

	memset(b, 0, sizeof *b);
	if (world == 0 || world > CC_LAUNCH_MAX_RANKS || rank >= world) {
		snprintf(err, errlen, "rank %u of world size %u is out of range", (unsigned)rank,
			 (unsigned)world);
		if (listen_fd >= 0)
			close(listen_fd);
		return -EINVAL;
	}
	b->rank = rank;
	b->world = world;
	b->timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : CC_BOOT_DEFAULT_TIMEOUT_MS;
	b->log = opts ? opts->log : NULL;
	b->hello_ms = opts && opts->hello_ms > 0 ? opts->hello_ms : CC_BOOT_DEFAULT_HELLO_MS;
	if (b->hello_ms > b->timeout_ms)
		b->hello_ms = b->timeout_ms;
	b->fd = malloc(sizeof *b->fd * (rank == 0 ? world : 1));
	if (!b->fd) {
		snprintf(err, errlen, "out of memory");
		if (listen_fd >= 0)
			close(listen_fd);
		return -ENOMEM;
	}
	for (r = 0; r < (rank == 0 ? world : 1); r++)
		b->fd[r] = -1;
	if (world == 1) {
		if (listen_fd >= 0)
			close(listen_fd);
		return 0;
	}
	if (rank == 0) {
		if (listen_fd < 0) {
			uint16_t port;

			rc = cc_boot_listen(addr, &listen_fd, &port, err, errlen);
			if (rc)
				goto out;
		}
		rc = root_join(b, listen_fd, err, errlen);
		close(listen_fd);
	} else {
		rc = peer_join(b, addr, err, errlen);
	}
	if (!rc)
		return 0;
out:
	fail(b, rc, err);
	cc_boot_close(b);
	return rc;
}

/* ---- collectives ---- */

void cc_boot_blobs_free(struct cc_boot_blobs *all)
{
	uint32_t r;

	if (all->data)
		for (r = 0; r < all->n; r++)
			free(all->data[r]);
	free(all->data);
	free(all->len);
	memset(all, 0, sizeof *all);
}

static int blobs_alloc(struct cc_boot_blobs *all, uint32_t n, char *err, size_t errlen)
{
	all->n = n;
	all->len = calloc(n, sizeof *all->len);
	all->data = calloc(n, sizeof *all->data);
	if (!all->len || !all->data) {
		cc_boot_blobs_free(all);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int usable(struct cc_boot *b, char *err, size_t errlen)
{
	if (b->failed || !b->fd) {
		snprintf(err, errlen, "the bootstrap failed earlier");
		return -EPIPE;
	}
	return 0;
}

/* Rank 0's reply: world x (u32 len, bytes). */
static int root_allgather(struct cc_boot *b, struct cc_boot_blobs *all, char *err,
			  size_t errlen)
{
	int64_t deadline = now_ms() + b->timeout_ms;
	uint64_t total = 0;
	uint8_t *msg, *p;
	uint32_t r, len;
	int rc;

	for (r = 1; r < b->world; r++) {
		rc = recv_msg(b, b->fd[r], r, CC_BMSG_BLOB, deadline, b->timeout_ms, &all->data[r],
			      &len, err, errlen);
		if (rc)
			return rc;
		all->len[r] = len;
	}
	for (r = 0; r < b->world; r++)
		total += 4 + all->len[r];
	if (total > CC_BMSG_MAX_PAYLOAD) {
		snprintf(err, errlen, "the blobs of all ranks add up to %llu bytes, at most %u",
			 (unsigned long long)total, CC_BMSG_MAX_PAYLOAD);
		return -EMSGSIZE;
	}
	msg = malloc((size_t)total);
	if (!msg) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (p = msg, r = 0; r < b->world; r++) {
		cc_bmsg_put32(p, (uint32_t)all->len[r]);
		if (all->len[r])
			memcpy(p + 4, all->data[r], all->len[r]);
		p += 4 + all->len[r];
	}
	for (r = 1; r < b->world; r++) {
		rc = send_msg(b->fd[r], CC_BMSG_ALL, 0, b->world, msg, (uint32_t)total, deadline);
		if (rc) {
			stream_err(err, errlen, r, rc, 0, b->timeout_ms, "ALL to be taken");
			break;
		}
	}
	free(msg);
	return rc;
}

/* Splits rank 0's ALL payload, checking every length. */
static int split_all(struct cc_boot *b, const uint8_t *p, uint32_t len, const void *mine,
		     size_t mylen, struct cc_boot_blobs *all, char *err, size_t errlen)
{
	size_t off = 0;
	uint32_t r;

	for (r = 0; r < b->world; r++) {
		uint32_t n;

		if (len - off < 4) {
			snprintf(err, errlen, "rank 0's ALL ends before rank %u's blob", (unsigned)r);
			return -EPROTO;
		}
		n = cc_bmsg_get32(p + off);
		off += 4;
		if (n > CC_BMSG_MAX_BLOB || n > len - off) {
			snprintf(err, errlen, "rank 0's ALL: rank %u's blob of %u bytes does not fit",
				 (unsigned)r, (unsigned)n);
			return -EPROTO;
		}
		all->data[r] = malloc(n ? n : 1);
		if (!all->data[r]) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		if (n)
			memcpy(all->data[r], p + off, n);
		all->len[r] = n;
		off += n;
	}
	if (off != len) {
		snprintf(err, errlen, "rank 0's ALL has %zu trailing bytes", len - off);
		return -EPROTO;
	}
	if (all->len[b->rank] != mylen || (mylen && memcmp(all->data[b->rank], mine, mylen))) {
		snprintf(err, errlen, "rank 0's ALL holds another blob for this rank");
		return -EPROTO;
	}
	return 0;
}

int cc_boot_allgather(struct cc_boot *b, const void *mine, size_t len, struct cc_boot_blobs *all,
		      char *err, size_t errlen)
{
	uint8_t *payload;
	uint32_t plen;
	int rc = usable(b, err, errlen);

	memset(all, 0, sizeof *all);
	if (rc)
		return rc;
	if (len > CC_BMSG_MAX_BLOB) {
		snprintf(err, errlen, "a blob of %zu bytes, at most %u", len, CC_BMSG_MAX_BLOB);
		return fail(b, -EMSGSIZE, err);
	}
	rc = blobs_alloc(all, b->world, err, errlen);
	if (rc)
		return fail(b, rc, err);
	if (b->rank == 0) {
		all->data[0] = malloc(len ? len : 1);
		if (!all->data[0]) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		} else {
			if (len)
				memcpy(all->data[0], mine, len);
			all->len[0] = len;
			rc = b->world > 1 ? root_allgather(b, all, err, errlen) : 0;
		}
	} else {
		int64_t deadline = now_ms() + 2 * (int64_t)b->timeout_ms;

		rc = send_msg(b->fd[0], CC_BMSG_BLOB, b->rank, b->world, mine, (uint32_t)len,
			      deadline);
		if (rc)
			stream_err(err, errlen, 0, rc, 0, b->timeout_ms, "BLOB to be taken");
		else
			rc = recv_msg(b, b->fd[0], 0, CC_BMSG_ALL, deadline, 2 * b->timeout_ms,
				      &payload, &plen, err, errlen);
		if (!rc) {
			rc = split_all(b, payload, plen, mine, len, all, err, errlen);
			free(payload);
		}
	}
	if (rc) {
		cc_boot_blobs_free(all);
		return fail(b, rc, err);
	}
	return 0;
}

int cc_boot_barrier(struct cc_boot *b, char *err, size_t errlen)
{
	uint8_t *payload;
	uint32_t len, r;
	int rc = usable(b, err, errlen);

	if (rc || b->world == 1)
		return rc;
	if (b->rank == 0) {
		int64_t deadline = now_ms() + b->timeout_ms;

		for (r = 1; r < b->world && !rc; r++) {
			rc = recv_msg(b, b->fd[r], r, CC_BMSG_BARRIER, deadline, b->timeout_ms,
				      &payload, &len, err, errlen);
			free(payload);
		}
		for (r = 1; r < b->world && !rc; r++) {
			rc = send_msg(b->fd[r], CC_BMSG_BARRIER, 0, b->world, NULL, 0, deadline);
			if (rc)
				stream_err(err, errlen, r, rc, 0, b->timeout_ms, "BARRIER to be taken");
		}
	} else {
		int64_t deadline = now_ms() + 2 * (int64_t)b->timeout_ms;

		rc = send_msg(b->fd[0], CC_BMSG_BARRIER, b->rank, b->world, NULL, 0, deadline);
		if (rc)
			stream_err(err, errlen, 0, rc, 0, b->timeout_ms, "BARRIER to be taken");
		else
			rc = recv_msg(b, b->fd[0], 0, CC_BMSG_BARRIER, deadline, 2 * b->timeout_ms,
				      &payload, &len, err, errlen);
		if (!rc)
			free(payload);
	}
	return rc ? fail(b, rc, err) : 0;
}

void cc_boot_close(struct cc_boot *b)
{
	uint32_t r;

	if (b->fd) {
		for (r = 0; r < (b->rank == 0 ? b->world : 1); r++)
			if (b->fd[r] >= 0)
				close(b->fd[r]);
		free(b->fd);
	}
	b->fd = NULL;
}
