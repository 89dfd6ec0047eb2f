/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_bootstrap.c — the real backend's bootstrap without a NIC:
 * launcher detection (backend/launch.h) for every launcher, its precedence
 * and every error; rendezvous addresses; the wire format
 * (backend/bootstrap_msg.h) — round trips, every truncation, every header
 * byte corrupted, bad counts and 24-bit fields, trailing bytes, random
 * input; and the TCP rendezvous (backend/bootstrap.h) on 127.0.0.1 with
 * fork()ed ranks: allgather and barrier for k = 1, 2, 3, 5, and a rank that
 * never connects, connects and stays silent, dies, or has the wrong world
 * size — each an error naming it within the deadline; and connections that
 * are not ranks — 100 idle ones, one trickling its hello, one sending junk —
 * among which the real ranks still join at once. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include "backend/bootstrap.h"
#include "backend/bootstrap_msg.h"
#include "backend/launch.h"
#include "tests/clock.h"

/* ------------------------------------------------------------------ */
/* launcher detection                                                  */

static struct cc_launch detect_ok(const char *const *env)
{
	struct cc_launch l;
	char err[256] = "";
	int rc = cc_launch_detect(env, &l, err, sizeof err);

	if (rc)
		fail_msg("unexpected error: %s", err);
	return l;
}

/* The error must contain want, and *out stay untouched. */
static void detect_err(const char *const *env, const char *want)
{
	struct cc_launch l;
	char err[256] = "";

	memset(&l, 0x5a, sizeof l);
	assert_true(cc_launch_detect(env, &l, err, sizeof err) < 0);
	if (!strstr(err, want))
		fail_msg("error \"%s\" does not contain \"%s\"", err, want);
	assert_int_equal(l.rank, 0x5a5a5a5a);
}

static void test_launch_none(void **state)
{
	const char *env[] = {"HOME=/root", "PATH=/bin", "NOEQUALS", NULL};
	struct cc_launch l;

	(void)state;
	l = detect_ok(env);
	assert_int_equal(l.launcher, CC_LAUNCH_NONE);
	assert_int_equal(l.rank, 0);
	assert_int_equal(l.size, 1);
	assert_string_equal(cc_launcher_name[l.launcher], "none");
}

static void test_launch_each(void **state)
{
	const char *slurm[] = {"SLURM_PROCID=3", "SLURM_NTASKS=8", "SLURM_LOCALID=1", NULL};
	const char *slurm_old[] = {"SLURM_PROCID=2", "SLURM_NPROCS=4", NULL};
	const char *slurm_both[] = {"SLURM_NPROCS=4", "SLURM_PROCID=2", "SLURM_NTASKS=4", NULL};
	const char *ompi[] = {"OMPI_COMM_WORLD_RANK=5", "OMPI_COMM_WORLD_SIZE=16",
			      "OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=4", NULL};
	const char *pmi[] = {"PMI_RANK=0", "PMI_SIZE=2", "MPI_LOCALRANKID=0", "MPI_LOCALNRANKS=1",
			     NULL};
	const char *local[] = {"CCLAB_RANK=1", "CCLAB_WORLD_SIZE=3", "CCLAB_LOCAL_RANK=1",
			       "CCLAB_LOCAL_SIZE=3", NULL};
	const char *same_twice[] = {"PMI_RANK=1", "PMI_SIZE=2", "PMI_RANK=1", NULL};
	const char *leading_zero[] = {"PMI_RANK=007", "PMI_SIZE=0010", NULL};
	struct cc_launch l;

	(void)state;
	l = detect_ok(slurm);
	assert_int_equal(l.launcher, CC_LAUNCH_SLURM);
	assert_int_equal(l.rank, 3);
	assert_int_equal(l.size, 8);
	assert_int_equal(l.local_rank, 1);
	assert_int_equal(l.local_size, -1);
	l = detect_ok(slurm_old);
	assert_int_equal(l.launcher, CC_LAUNCH_SLURM);
	assert_int_equal(l.size, 4);
	assert_int_equal(l.local_rank, -1);
	l = detect_ok(slurm_both);
	assert_int_equal(l.rank, 2);
	l = detect_ok(ompi);
	assert_int_equal(l.launcher, CC_LAUNCH_OPENMPI);
	assert_int_equal(l.rank, 5);
	assert_int_equal(l.size, 16);
	assert_int_equal(l.local_rank, 1);
	assert_int_equal(l.local_size, 4);
	l = detect_ok(pmi);
	assert_int_equal(l.launcher, CC_LAUNCH_PMI);
	assert_int_equal(l.rank, 0);
	assert_int_equal(l.size, 2);
	assert_int_equal(l.local_size, 1);
	l = detect_ok(local);
	assert_int_equal(l.launcher, CC_LAUNCH_LOCAL);
	assert_int_equal(l.rank, 1);
	assert_int_equal(l.size, 3);
	assert_string_equal(cc_launcher_name[l.launcher], "local");
	l = detect_ok(same_twice);
	assert_int_equal(l.rank, 1);
	l = detect_ok(leading_zero);
	assert_int_equal(l.rank, 7);
	assert_int_equal(l.size, 10);
}

/* The innermost launcher wins; a stale outer one is not even read. */
static void test_launch_precedence(void **state)
{
	const char *mpirun_in_sbatch[] = {"SLURM_PROCID=0", "SLURM_NTASKS=1",
					  "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4", NULL};
	const char *hydra_in_sbatch[] = {"SLURM_PROCID=0", "SLURM_NTASKS=2", "PMI_RANK=5",
					 "PMI_SIZE=8", NULL};
	const char *ompi_over_pmi[] = {"PMI_RANK=0", "PMI_SIZE=1", "OMPI_COMM_WORLD_RANK=1",
				       "OMPI_COMM_WORLD_SIZE=2", NULL};
	const char *cclab_run_under_srun[] = {"SLURM_PROCID=7", "SLURM_NTASKS=8", "CCLAB_RANK=2",
					      "CCLAB_WORLD_SIZE=4", NULL};
	const char *stale_garbage[] = {"SLURM_PROCID=junk", "OMPI_COMM_WORLD_RANK=0",
				       "OMPI_COMM_WORLD_SIZE=1", NULL};
	struct cc_launch l;

	(void)state;
	l = detect_ok(mpirun_in_sbatch);
	assert_int_equal(l.launcher, CC_LAUNCH_OPENMPI);
	assert_int_equal(l.rank, 3);
	l = detect_ok(hydra_in_sbatch);
	assert_int_equal(l.launcher, CC_LAUNCH_PMI);
	assert_int_equal(l.rank, 5);
	l = detect_ok(ompi_over_pmi);
	assert_int_equal(l.launcher, CC_LAUNCH_OPENMPI);
	l = detect_ok(cclab_run_under_srun);
	assert_int_equal(l.launcher, CC_LAUNCH_LOCAL);
	assert_int_equal(l.rank, 2);
	assert_int_equal(l.size, 4);
	l = detect_ok(stale_garbage);
	assert_int_equal(l.launcher, CC_LAUNCH_OPENMPI);
}

static void test_launch_errors(void **state)
{
	static const struct {
		const char *env[5];
		const char *want;
	} cases[] = {
		{{"PMI_RANK=x1", "PMI_SIZE=2"}, "PMI_RANK=\"x1\" is not a decimal number"},
		{{"PMI_RANK=-1", "PMI_SIZE=2"}, "PMI_RANK=\"-1\" is not a decimal number"},
		{{"PMI_RANK= 1", "PMI_SIZE=2"}, "PMI_RANK=\" 1\" is not a decimal"},
		{{"PMI_RANK=1 ", "PMI_SIZE=2"}, "PMI_RANK=\"1 \" is not a decimal"},
		{{"PMI_RANK=0x1", "PMI_SIZE=2"}, "PMI_RANK=\"0x1\""},
		{{"PMI_RANK=", "PMI_SIZE=2"}, "PMI_RANK is empty"},
		{{"PMI_RANK=0", "PMI_SIZE=1e3"}, "PMI_SIZE=\"1e3\""},
		{{"PMI_RANK=0", "PMI_SIZE=99999999999999999999"}, "PMI_SIZE=99999999999999999999 is too large"},
		{{"PMI_RANK=0", "PMI_SIZE=65537"}, "PMI_SIZE=65537 is too large (at most 65536)"},
		{{"PMI_RANK=2", "PMI_SIZE=2"}, "PMI_RANK=2 is not below PMI_SIZE=2"},
		{{"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=0"}, "OMPI_COMM_WORLD_SIZE=0"},
		{{"OMPI_COMM_WORLD_RANK=0"}, "OMPI_COMM_WORLD_RANK is set but OMPI_COMM_WORLD_SIZE is not"},
		{{"OMPI_COMM_WORLD_SIZE=2"}, "OMPI_COMM_WORLD_SIZE is set but OMPI_COMM_WORLD_RANK is not"},
		{{"SLURM_NPROCS=2"}, "SLURM_NPROCS is set but SLURM_PROCID is not"},
		{{"SLURM_PROCID=0", "SLURM_NTASKS=4", "SLURM_NPROCS=2"}, "SLURM_NTASKS=4 and SLURM_NPROCS=2 disagree"},
		{{"SLURM_PROCID=1", "SLURM_NTASKS=2", "SLURM_PROCID=0"}, "SLURM_PROCID is set twice, to \"1\" and \"0\""},
		{{"SLURM_PROCID=1", "SLURM_NTASKS=2", "SLURM_LOCALID=2"}, "SLURM_LOCALID=2 is not below SLURM_NTASKS=2"},
		{{"SLURM_PROCID=1", "SLURM_NTASKS=2", "SLURM_LOCALID=a"}, "SLURM_LOCALID=\"a\""},
		{{"CCLAB_RANK=0", "CCLAB_WORLD_SIZE=4", "CCLAB_LOCAL_RANK=2", "CCLAB_LOCAL_SIZE=2"}, "CCLAB_LOCAL_RANK=2 is not below CCLAB_LOCAL_SIZE=2"},
		{{"CCLAB_RANK=0", "CCLAB_WORLD_SIZE=4", "CCLAB_LOCAL_SIZE=5"}, "CCLAB_LOCAL_SIZE=5 is not in 1..CCLAB_WORLD_SIZE (4)"},
		{{"CCLAB_RANK=0", "CCLAB_WORLD_SIZE=4", "CCLAB_LOCAL_SIZE=0"}, "CCLAB_LOCAL_SIZE=0 is not in 1.."},
		{{"CCLAB_RANK=0", "CCLAB_WORLD_SIZE=4", "CCLAB_WORLD_SIZE=5"}, "CCLAB_WORLD_SIZE is set twice"},
		/* an error in the launcher that would win is not hidden by a lower one */
		{{"OMPI_COMM_WORLD_RANK=9", "OMPI_COMM_WORLD_SIZE=4", "SLURM_PROCID=0", "SLURM_NTASKS=4"}, "OMPI_COMM_WORLD_RANK=9 is not below"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		detect_err(cases[i].env, cases[i].want);
}

static void test_launch_process_env(void **state)
{
	struct cc_launch l;
	char err[256];

	(void)state;
	assert_int_equal(setenv("CCLAB_RANK", "1", 1), 0);
	assert_int_equal(setenv("CCLAB_WORLD_SIZE", "2", 1), 0);
	assert_int_equal(cc_launch_detect(NULL, &l, err, sizeof err), 0);
	assert_int_equal(l.launcher, CC_LAUNCH_LOCAL);
	assert_int_equal(l.rank, 1);
	assert_int_equal(l.size, 2);
	unsetenv("CCLAB_RANK");
	unsetenv("CCLAB_WORLD_SIZE");
}

/* ------------------------------------------------------------------ */
/* rendezvous addresses                                                */

static void rdv_ok(const char *s, const char *host, enum cc_host_kind kind, unsigned port)
{
	struct cc_rendezvous r;
	char err[256] = "";

	if (cc_rendezvous_parse(s, &r, err, sizeof err))
		fail_msg("\"%s\": %s", s, err);
	assert_string_equal(r.host, host);
	assert_int_equal(r.kind, kind);
	assert_int_equal(r.port, port);
}

static void rdv_err(const char *s, const char *want)
{
	struct cc_rendezvous r;
	char err[256] = "";

	memset(&r, 0x5a, sizeof r);
	assert_int_equal(cc_rendezvous_parse(s, &r, err, sizeof err), -EINVAL);
	if (!strstr(err, want))
		fail_msg("\"%s\": error \"%s\" does not contain \"%s\"", s ? s : "(null)", err,
			 want);
	assert_int_equal(r.port, 0x5a5a);
}

static void test_rendezvous_parse(void **state)
{
	char label64[80], long_name[300];
	size_t i;

	(void)state;
	rdv_ok("127.0.0.1:5000", "127.0.0.1", CC_HOST_IPV4, 5000);
	rdv_ok("10.1.2.3:1", "10.1.2.3", CC_HOST_IPV4, 1);
	rdv_ok("[::1]:5000", "::1", CC_HOST_IPV6, 5000);
	rdv_ok("[fe80::1%eth0]:65535", "fe80::1%eth0", CC_HOST_IPV6, 65535);
	rdv_ok("[::ffff:10.0.0.1]:80", "::ffff:10.0.0.1", CC_HOST_IPV6, 80);
	rdv_ok("node-01.cluster:29500", "node-01.cluster", CC_HOST_NAME, 29500);
	rdv_ok("localhost:00080", "localhost", CC_HOST_NAME, 80);
	rdv_ok("a:7", "a", CC_HOST_NAME, 7);
	rdv_ok("1host:7", "1host", CC_HOST_NAME, 7);

	rdv_err(NULL, "empty");
	rdv_err("", "empty");
	rdv_err("127.0.0.1", "missing :PORT");
	rdv_err("::1:5000", "needs brackets");
	rdv_err("fe80::1:5000", "needs brackets");
	rdv_err("[::1]5000", "want [IPV6]:PORT");
	rdv_err("[::1]", "want [IPV6]:PORT");
	rdv_err("[::1:5000", "without ']'");
	rdv_err("[]:5000", "bad IPv6");
	rdv_err("[zz::1]:5000", "bad IPv6 address \"zz::1\"");
	rdv_err("[10.0.0.1]:5000", "bad IPv6");
	rdv_err("[fe80::1%]:5000", "bad IPv6");
	rdv_err("[fe80::1%e/0]:5000", "bad IPv6");
	rdv_err(":5000", "missing host");
	rdv_err("host:", "missing port");
	rdv_err("[::1]:", "missing port");
	rdv_err("host:0", "port 0 is not in 1..65535");
	rdv_err("host:65536", "port 65536 is not in 1..65535");
	rdv_err("host:123456", "not a number in 1..65535");
	rdv_err("host:12a", "port \"12a\" is not a number");
	rdv_err("host:-1", "port \"-1\"");
	rdv_err("host:+1", "port \"+1\"");
	rdv_err("host: 1", "port \" 1\"");
	rdv_err("1.2.3.256:5", "bad IPv4 address \"1.2.3.256\"");
	rdv_err("1.2.3:5", "bad IPv4");
	rdv_err("01.2.3.4:5", "bad IPv4");
	rdv_err("-host:5", "bad host name");
	rdv_err("host-:5", "bad host name");
	rdv_err("a..b:5", "bad host name");
	rdv_err(".a:5", "bad host name");
	rdv_err("a.:5", "bad host name");
	rdv_err("a_b:5", "bad host name");
	rdv_err("a b:5", "bad host name");
	rdv_err("h\xc3\xa9:5", "bad host name");
	memset(label64, 'a', 64);
	snprintf(label64 + 64, sizeof label64 - 64, ":5");
	rdv_err(label64, "bad host name");
	label64[63] = ':';
	label64[64] = '5';
	label64[65] = '\0';
	rdv_ok(label64, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	       CC_HOST_NAME, 5);
	for (i = 0; i < 255; i++)
		long_name[i] = i % 2 ? '.' : 'a';
	snprintf(long_name + 255, sizeof long_name - 255, ":5");
	rdv_err(long_name, "bad host name"); /* 255 characters */
	long_name[253] = '\0';
	{
		char want[254];

		memcpy(want, long_name, 254);
		snprintf(long_name + 253, sizeof long_name - 253, ":5");
		rdv_ok(long_name, want, CC_HOST_NAME, 5); /* 253: the most DNS allows */
	}
	memset(long_name, 'a', 290);
	snprintf(long_name + 290, sizeof long_name - 290, ":5");
	rdv_err(long_name, "host name longer than 253");
}

static void test_rendezvous_get(void **state)
{
	const char *env[] = {"CCLAB_BOOTSTRAP=10.0.0.1:5000", NULL};
	const char *bad_env[] = {"CCLAB_BOOTSTRAP=10.0.0.1", NULL};
	const char *twice[] = {"CCLAB_BOOTSTRAP=a:1", "CCLAB_BOOTSTRAP=b:1", NULL};
	const char *none[] = {NULL};
	struct cc_rendezvous r;
	char err[256] = "";

	(void)state;
	assert_int_equal(cc_rendezvous_get(NULL, env, &r, err, sizeof err), 0);
	assert_string_equal(r.host, "10.0.0.1");
	assert_int_equal(r.port, 5000);
	assert_int_equal(cc_rendezvous_get("", env, &r, err, sizeof err), 0);
	assert_string_equal(r.host, "10.0.0.1");
	assert_int_equal(cc_rendezvous_get("[::1]:6000", env, &r, err, sizeof err), 0);
	assert_string_equal(r.host, "::1");
	assert_int_equal(r.port, 6000);
	assert_int_equal(cc_rendezvous_get(NULL, none, &r, err, sizeof err), -ENOENT);
	assert_non_null(strstr(err, "pass --bootstrap HOST:PORT or set CCLAB_BOOTSTRAP"));
	assert_int_equal(cc_rendezvous_get(NULL, bad_env, &r, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "CCLAB_BOOTSTRAP: \"10.0.0.1\": missing :PORT"));
	assert_int_equal(cc_rendezvous_get("x:0", env, &r, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "--bootstrap: \"x:0\": port 0"));
	assert_int_equal(cc_rendezvous_get(NULL, twice, &r, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "CCLAB_BOOTSTRAP is set twice"));
}

/* ------------------------------------------------------------------ */
/* wire format                                                         */

static const struct cc_bmsg_ep sample_eps[3] = {
	{.qp_index = 0, .peer = 1, .qpn = 0x000102, .psn = 0, .lid = 0x1234,
	 .gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, .gid_index = 3, .mtu = 5},
	{.qp_index = 1, .peer = 3, .qpn = 0xffffff, .psn = 0xffffff, .lid = 0,
	 .gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1}, .gid_index = 255, .mtu = 1},
	{.qp_index = 7, .peer = 2, .qpn = 2, .psn = 0x123456, .lid = 0xffff, .gid = {0},
	 .gid_index = 0, .mtu = 3},
};

static const struct cc_bmsg_mr sample_mrs[3] = {
	{.index = 0, .addr = 0x7f0000001000, .rkey = 0xdeadbeef, .length = 4096},
	{.index = 2, .addr = 0, .rkey = 0, .length = 0},
	{.index = 3, .addr = UINT64_MAX - 10, .rkey = 1, .length = 10},
};

/* The sample endpoint message of rank 2 of 4; returns its size. */
static size_t eps_msg(uint8_t *buf, size_t cap)
{
	char err[256];
	size_t need;

	assert_int_equal(cc_bmsg_encode_eps(buf, cap, &need, 2, 4, sample_eps, 3, err, sizeof err),
			 0);
	return need;
}

static size_t mrs_msg(uint8_t *buf, size_t cap)
{
	char err[256];
	size_t need;

	assert_int_equal(cc_bmsg_encode_mrs(buf, cap, &need, 2, 4, sample_mrs, 3, err, sizeof err),
			 0);
	return need;
}

static void eps_bad(const uint8_t *buf, size_t len, const char *want)
{
	static struct cc_bmsg_ep sentinel;
	struct cc_bmsg_hdr h;
	struct cc_bmsg_ep *eps = &sentinel; /* must stay as it is */
	uint32_t n = 12345;
	char err[256] = "";

	assert_int_equal(cc_bmsg_decode_eps(buf, len, &h, &eps, &n, err, sizeof err), -EPROTO);
	if (!strstr(err, want))
		fail_msg("len %zu: error \"%s\" does not contain \"%s\"", len, err, want);
	assert_ptr_equal(eps, &sentinel);
	assert_int_equal(n, 12345);
}

static void mrs_bad(const uint8_t *buf, size_t len, const char *want)
{
	struct cc_bmsg_hdr h;
	struct cc_bmsg_mr *mrs = NULL;
	uint32_t n = 12345;
	char err[256] = "";

	assert_int_equal(cc_bmsg_decode_mrs(buf, len, &h, &mrs, &n, err, sizeof err), -EPROTO);
	if (!strstr(err, want))
		fail_msg("len %zu: error \"%s\" does not contain \"%s\"", len, err, want);
	assert_null(mrs);
}

static void test_msg_round_trip(void **state)
{
	uint8_t buf[512];
	struct cc_bmsg_hdr h;
	struct cc_bmsg_ep *eps;
	struct cc_bmsg_mr *mrs, dummy;
	uint32_t n, i;
	size_t len, need;
	char err[256];

	(void)state;
	len = eps_msg(buf, sizeof buf);
	assert_int_equal(len, CC_BMSG_HDR_BYTES + 4 + 3 * CC_BMSG_EP_BYTES);
	/* The header, byte for byte. */
	assert_memory_equal(buf, "CCLB\0\1\0\7\0\0\0\2\0\0\0\4", 16);
	assert_int_equal(cc_bmsg_get32(buf + 16), 4 + 3 * CC_BMSG_EP_BYTES);
	assert_int_equal(cc_bmsg_get32(buf + 20), 3);
	/* The second endpoint's QPN 0xffffff, big-endian, at its offset. */
	assert_memory_equal(buf + 24 + CC_BMSG_EP_BYTES + 8, "\0\xff\xff\xff", 4);
	assert_int_equal(cc_bmsg_decode_eps(buf, len, &h, &eps, &n, err, sizeof err), 0);
	assert_int_equal(h.type, CC_BMSG_ENDPOINTS);
	assert_int_equal(h.rank, 2);
	assert_int_equal(h.world, 4);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++)
		assert_memory_equal(&eps[i], &sample_eps[i], sizeof eps[i]);
	free(eps);

	len = mrs_msg(buf, sizeof buf);
	assert_int_equal(len, CC_BMSG_HDR_BYTES + 4 + 3 * CC_BMSG_MR_BYTES);
	assert_int_equal(cc_bmsg_decode_mrs(buf, len, &h, &mrs, &n, err, sizeof err), 0);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(mrs[i].index, sample_mrs[i].index);
		assert_true(mrs[i].addr == sample_mrs[i].addr);
		assert_int_equal(mrs[i].rkey, sample_mrs[i].rkey);
		assert_true(mrs[i].length == sample_mrs[i].length);
	}
	free(mrs);

	/* Empty lists; a world of one. */
	assert_int_equal(cc_bmsg_encode_mrs(buf, sizeof buf, &need, 0, 1, NULL, 0, err, sizeof err),
			 0);
	assert_int_equal(need, 24);
	mrs = &dummy;
	assert_int_equal(cc_bmsg_decode_mrs(buf, need, &h, &mrs, &n, err, sizeof err), 0);
	assert_int_equal(n, 0);
	assert_null(mrs);
	/* Odd alignment: decoding reads bytes, not words. */
	len = eps_msg(buf + 1, sizeof buf - 1);
	assert_int_equal(cc_bmsg_decode_eps(buf + 1, len, &h, &eps, &n, err, sizeof err), 0);
	assert_int_equal(eps[1].qpn, 0xffffff);
	free(eps);
}

static void test_msg_encode_errors(void **state)
{
	struct cc_bmsg_ep e[2];
	struct cc_bmsg_mr m[2];
	uint8_t buf[256];
	size_t need = 0;
	char err[256];

	(void)state;
	/* The size first, then too small by one byte. */
	assert_int_equal(cc_bmsg_encode_eps(NULL, 0, &need, 2, 4, sample_eps, 3, err, sizeof err),
			 -ENOSPC);
	assert_int_equal(need, 20 + 4 + 3 * 36);
	assert_int_equal(cc_bmsg_encode_eps(buf, need - 1, &need, 2, 4, sample_eps, 3, err,
					    sizeof err),
			 -ENOSPC);
	assert_non_null(strstr(err, "need 132 bytes, have 131"));

#define EP_ERR(field, value, want)                                                              \
	do {                                                                                    \
		memcpy(e, sample_eps, sizeof e);                                                \
		e[1].field = value;                                                             \
		assert_int_equal(cc_bmsg_encode_eps(buf, sizeof buf, &need, 2, 4, e, 2, err,    \
						    sizeof err),                                \
				 -EINVAL);                                                      \
		if (!strstr(err, want))                                                         \
			fail_msg("%s: \"%s\"", #field, err);                                    \
	} while (0)
	EP_ERR(qpn, 0x1000000, "endpoint 1 (qp 1): QPN does not fit in 24 bits");
	EP_ERR(qpn, 1, "QPN 0 and 1");
	EP_ERR(qpn, 0, "QPN 0 and 1");
	EP_ERR(psn, 0x1000000, "PSN does not fit in 24 bits");
	EP_ERR(psn, UINT32_MAX, "PSN does not fit");
	EP_ERR(mtu, 0, "MTU is not an enum ibv_mtu");
	EP_ERR(mtu, 6, "MTU is not an enum ibv_mtu");
	EP_ERR(peer, 4, "peer rank is not below the world size");
	EP_ERR(qp_index, 0, "QP indices are not strictly increasing");
#undef EP_ERR
	assert_int_equal(cc_bmsg_encode_eps(buf, sizeof buf, &need, 4, 4, sample_eps, 1, err,
					    sizeof err),
			 -EINVAL);
	assert_non_null(strstr(err, "rank 4 / world size 4"));
	assert_int_equal(cc_bmsg_encode_eps(NULL, 0, &need, 0, 1, NULL, CC_BMSG_MAX_QPS + 1, err,
					    sizeof err),
			 -EINVAL);
	assert_non_null(strstr(err, "16385 entries, at most 16384"));

	memcpy(m, sample_mrs, sizeof m);
	m[1].index = 0;
	assert_int_equal(cc_bmsg_encode_mrs(buf, sizeof buf, &need, 0, 1, m, 2, err, sizeof err),
			 -EINVAL);
	assert_non_null(strstr(err, "MR 1 (index 0): MR indices are not strictly increasing"));
	memcpy(m, sample_mrs, sizeof m);
	m[0].addr = UINT64_MAX - 4095;
	assert_int_equal(cc_bmsg_encode_mrs(buf, sizeof buf, &need, 0, 1, m, 2, err, sizeof err),
			 -EINVAL);
	assert_non_null(strstr(err, "address + length passes 2^64"));
}

static void test_msg_truncated_and_trailing(void **state)
{
	uint8_t buf[512];
	size_t len, cut;

	(void)state;
	len = eps_msg(buf, sizeof buf);
	for (cut = 0; cut < len; cut++)
		eps_bad(buf, cut, cut < CC_BMSG_HDR_BYTES ? "truncated header" : "truncated payload");
	buf[len] = 0;
	eps_bad(buf, len + 1, "1 trailing bytes after the 112-byte payload");
	eps_bad(buf, len + 100, "100 trailing bytes");
	len = mrs_msg(buf, sizeof buf);
	for (cut = 0; cut < len; cut++)
		mrs_bad(buf, cut, cut < CC_BMSG_HDR_BYTES ? "truncated header" : "truncated payload");
	mrs_bad(buf, len + 3, "3 trailing bytes");
	eps_bad(buf, len, "a MRS message where ENDPOINTS was expected");
	len = eps_msg(buf, sizeof buf);
	mrs_bad(buf, len, "a ENDPOINTS message where MRS was expected");
}

/* Every byte of the header, xor'ed with every mask 1..255: the magic, version,
 * type and length are always refused, with the field's message.  The
 * header carries no checksum, so a changed rank or world size that is
 * still consistent decodes — and then reports exactly the bytes sent. */
static void test_msg_header_corruption(void **state)
{
	uint8_t good[512], buf[512];
	size_t len, i;
	unsigned m;
	unsigned accepted = 0;

	(void)state;
	len = eps_msg(good, sizeof good);
	for (i = 0; i < CC_BMSG_HDR_BYTES; i++) {
		for (m = 1; m < 256; m++) {
			struct cc_bmsg_hdr h;
			struct cc_bmsg_ep *eps = NULL;
			uint32_t n;
			char err[256] = "";
			int rc;

			memcpy(buf, good, len);
			buf[i] ^= (uint8_t)m;
			rc = cc_bmsg_decode_eps(buf, len, &h, &eps, &n, err, sizeof err);
			if (i < 4) {
				assert_int_equal(rc, -EPROTO);
				assert_non_null(strstr(err, "bad magic"));
			} else if (i < 6) {
				assert_int_equal(rc, -EPROTO);
				assert_non_null(strstr(err, "protocol version"));
			} else if (i < 8) {
				assert_int_equal(rc, -EPROTO);
				if (!strstr(err, "unknown message type") &&
				    !strstr(err, "where ENDPOINTS was expected") &&
				    !strstr(err, "at most")) /* another type's smaller limit */
					fail_msg("type byte %zu: %s", i, err);
			} else if (i >= 16) {
				assert_int_equal(rc, -EPROTO);
				if (!strstr(err, "truncated payload") && !strstr(err, "trailing") &&
				    !strstr(err, "at most"))
					fail_msg("length byte %zu: %s", i, err);
			} else if (rc == 0) {
				assert_int_equal(h.rank, cc_bmsg_get32(buf + 8));
				assert_int_equal(h.world, cc_bmsg_get32(buf + 12));
				assert_true(h.rank < h.world);
				assert_int_equal(n, 3);
				free(eps);
				accepted++;
			} else {
				if (!strstr(err, "sender rank") && !strstr(err, "world size") &&
				    !strstr(err, "peer rank is not below"))
					fail_msg("rank/world byte %zu mask %02x: %s", i, m, err);
				assert_null(eps);
			}
		}
	}
	assert_true(accepted > 0); /* e.g. rank 2 -> 3 of 4 */
}

static void test_msg_bad_fields(void **state)
{
	uint8_t good[512], buf[512];
	const size_t e1 = 24 + CC_BMSG_EP_BYTES; /* the second endpoint */
	const size_t m1 = 24 + CC_BMSG_MR_BYTES; /* the second MR */
	size_t len, mlen;

	(void)state;
	len = eps_msg(good, sizeof good);
#define PATCH32(off, v) (memcpy(buf, good, len), cc_bmsg_put32(buf + (off), (v)))
	PATCH32(e1 + 8, 0x1000000);
	eps_bad(buf, len, "rank 2 endpoint 1 (qp 1): QPN does not fit in 24 bits");
	PATCH32(e1 + 8, 0xffffffff);
	eps_bad(buf, len, "QPN does not fit in 24 bits");
	PATCH32(e1 + 8, 1);
	eps_bad(buf, len, "QPN 0 and 1");
	PATCH32(e1 + 12, 0x1000000);
	eps_bad(buf, len, "PSN does not fit in 24 bits");
	PATCH32(e1 + 4, 4);
	eps_bad(buf, len, "peer rank is not below the world size");
	PATCH32(e1, 0);
	eps_bad(buf, len, "QP indices are not strictly increasing");
	memcpy(buf, good, len);
	buf[e1 + 35] = 0;
	eps_bad(buf, len, "MTU is not an enum ibv_mtu");
	buf[e1 + 35] = 6;
	eps_bad(buf, len, "MTU is not an enum ibv_mtu");
	/* Counts: over the limit (no overflow for the largest), or not matching the length. */
	PATCH32(20, CC_BMSG_MAX_QPS + 1);
	eps_bad(buf, len, "16385 entries, at most 16384 allowed");
	PATCH32(20, 0xffffffff);
	eps_bad(buf, len, "4294967295 entries, at most");
	PATCH32(20, 2);
	eps_bad(buf, len, "2 entries need a 76-byte payload, the header says 112");
	PATCH32(20, 4);
	eps_bad(buf, len, "4 entries need a 148-byte payload");
	/* A payload length over the type's limit is refused from the header alone. */
	PATCH32(16, 4 + (CC_BMSG_MAX_QPS + 1) * CC_BMSG_EP_BYTES);
	eps_bad(buf, len, "ENDPOINTS payload of 589864 bytes, at most 589828 allowed");
	PATCH32(16, 0);
	eps_bad(buf, CC_BMSG_HDR_BYTES, "payload of 0 bytes has no entry count");
	/* Header fields. */
	PATCH32(8, 4);
	eps_bad(buf, len, "sender rank 4 is not below world size 4");
	PATCH32(12, 0);
	eps_bad(buf, len, "world size 0 is not in 1..65536");
	PATCH32(12, 65537);
	eps_bad(buf, len, "world size 65537");
#undef PATCH32

	mlen = mrs_msg(good, sizeof good);
	memcpy(buf, good, mlen);
	cc_bmsg_put32(buf + m1 + 4, 0xffffffff); /* address high word */
	cc_bmsg_put32(buf + m1 + 16, 0xffffffff);
	mrs_bad(buf, mlen, "rank 2 MR 1 (index 2): address + length passes 2^64");
	memcpy(buf, good, mlen);
	cc_bmsg_put32(buf + m1, 0);
	mrs_bad(buf, mlen, "MR indices are not strictly increasing");
}

static void test_msg_header_decode(void **state)
{
	uint8_t h[CC_BMSG_HDR_BYTES];
	struct cc_bmsg_hdr x;
	char err[256];

	(void)state;
	cc_bmsg_hdr_encode(h, CC_BMSG_HELLO, 3, 4, 0);
	assert_int_equal(cc_bmsg_hdr_decode(h, sizeof h, &x, err, sizeof err), 0);
	assert_int_equal(x.type, CC_BMSG_HELLO);
	assert_int_equal(x.rank, 3);
	assert_int_equal(cc_bmsg_hdr_decode(h, sizeof h - 1, &x, err, sizeof err), -EPROTO);
	assert_non_null(strstr(err, "header of 19 bytes, expected 20"));
	cc_bmsg_hdr_encode(h, CC_BMSG_HELLO, 3, 4, 1);
	assert_int_equal(cc_bmsg_hdr_decode(h, sizeof h, &x, err, sizeof err), -EPROTO);
	assert_non_null(strstr(err, "HELLO payload of 1 bytes, at most 0 allowed"));
	cc_bmsg_hdr_encode(h, CC_BMSG_ABORT, 0, 1, CC_BMSG_MAX_TEXT + 1);
	assert_int_equal(cc_bmsg_hdr_decode(h, sizeof h, &x, err, sizeof err), -EPROTO);
	cc_bmsg_hdr_encode(h, CC_BMSG_TYPE_END, 0, 1, 0);
	assert_int_equal(cc_bmsg_hdr_decode(h, sizeof h, &x, err, sizeof err), -EPROTO);
	assert_non_null(strstr(err, "unknown message type 9"));
	cc_bmsg_hdr_encode(h, 0, 0, 1, 0);
	assert_int_equal(cc_bmsg_hdr_decode(h, sizeof h, &x, err, sizeof err), -EPROTO);
	assert_non_null(strstr(err, "unknown message type 0"));
	cc_bmsg_hdr_encode(h, CC_BMSG_BARRIER, 0, 1, 0);
	h[5] = 2;
	assert_int_equal(cc_bmsg_hdr_decode(h, sizeof h, &x, err, sizeof err), -EPROTO);
	assert_non_null(strstr(err, "protocol version 2, this build speaks 1"));
	assert_string_equal(cc_bmsg_type_name(CC_BMSG_ALL), "ALL");
	assert_string_equal(cc_bmsg_type_name(1000), "?");
}

/* Random bytes and random mutations of valid messages: a clean result or
 * a clean error, never a crash or a sanitizer report. */
static void test_msg_random(void **state)
{
	uint8_t eps_good[512], mrs_good[512], buf[600];
	size_t elen, mlen;
	unsigned seed = 12345, i;

	(void)state;
	elen = eps_msg(eps_good, sizeof eps_good);
	mlen = mrs_msg(mrs_good, sizeof mrs_good);
	for (i = 0; i < 20000; i++) {
		struct cc_bmsg_hdr h;
		struct cc_bmsg_ep *eps = NULL;
		struct cc_bmsg_mr *mrs = NULL;
		size_t len, k, flips;
		uint32_t n;
		char err[256];
		int rc;

		seed = seed * 1103515245u + 12345u;
		if (i % 4 == 0) {
			len = (seed >> 8) % sizeof buf;
			for (k = 0; k < len; k++) {
				seed = seed * 1103515245u + 12345u;
				buf[k] = (uint8_t)(seed >> 16);
			}
			if (len >= 4 && i % 8 == 0)
				memcpy(buf, "CCLB\0\1", len >= 6 ? 6 : 4);
		} else {
			const uint8_t *g = i % 2 ? eps_good : mrs_good;

			len = i % 2 ? elen : mlen;
			memcpy(buf, g, len);
			flips = 1 + (seed >> 20) % 4;
			for (k = 0; k < flips; k++) {
				seed = seed * 1103515245u + 12345u;
				buf[(seed >> 8) % len] ^= (uint8_t)(1u << ((seed >> 4) % 8));
			}
			if (i % 16 == 3)
				len -= (seed >> 12) % len;
		}
		err[0] = '\0';
		rc = cc_bmsg_decode_eps(buf, len, &h, &eps, &n, err, sizeof err);
		assert_true(rc == 0 || (rc == -EPROTO && err[0]));
		if (rc == 0)
			free(eps);
		rc = cc_bmsg_decode_mrs(buf, len, &h, &mrs, &n, err, sizeof err);
		assert_true(rc == 0 || (rc == -EPROTO && err[0]));
		if (rc == 0)
			free(mrs);
	}
}

/* ------------------------------------------------------------------ */
/* the TCP rendezvous, with fork()ed ranks                             */

#define SHORT_MS 300   /* the deadline of the failure tests */
#define LONG_MS 20000  /* a deadline the passing tests never reach */

static struct cc_rendezvous loopback(uint16_t port)
{
	struct cc_rendezvous r;

	memset(&r, 0, sizeof r);
	snprintf(r.host, sizeof r.host, "127.0.0.1");
	r.kind = CC_HOST_IPV4;
	r.port = port;
	return r;
}

/* Rank 0's socket on a port the kernel picks, so parallel runs never collide. */
static int listen_loopback(uint16_t *port)
{
	struct cc_rendezvous r = loopback(0);
	char err[256];
	int fd = -1;

	if (cc_boot_listen(&r, &fd, port, err, sizeof err))
		fail_msg("listen: %s", err);
	assert_true(*port != 0);
	return fd;
}

static size_t blob_len(uint32_t rank, int round)
{
	return round == 0 ? rank * 7 : 200000 + rank; /* round 1: many reads and writes */
}

static uint8_t blob_byte(uint32_t rank, int round, size_t i)
{
	return (uint8_t)(rank * 31 + i * 7 + (size_t)round);
}

/* What a rank does once it has joined: two allgathers checked byte by
 * byte, a barrier; then it closes b.  0, or the step that failed with the
 * reason in err. */
static int run_joined(struct cc_boot *b, char *err, size_t errlen)
{
	uint32_t rank = b->rank, world = b->world;
	int round, rc = 0;

	for (round = 0; round < 2 && !rc; round++) {
		size_t n = blob_len(rank, round), i;
		uint8_t *mine = malloc(n + 1);
		struct cc_boot_blobs all;
		uint32_t q;

		for (i = 0; i < n; i++)
			mine[i] = blob_byte(rank, round, i);
		if (cc_boot_allgather(b, mine, n, &all, err, errlen))
			rc = 2;
		free(mine);
		if (rc)
			break;
		if (all.n != world) {
			snprintf(err, errlen, "%u blobs", (unsigned)all.n);
			rc = 3;
		}
		for (q = 0; q < all.n && !rc; q++) {
			if (all.len[q] != blob_len(q, round)) {
				snprintf(err, errlen, "blob %u: %zu bytes", (unsigned)q, all.len[q]);
				rc = 3;
			}
			for (i = 0; i < all.len[q] && !rc; i++)
				if (all.data[q][i] != blob_byte(q, round, i)) {
					snprintf(err, errlen, "blob %u byte %zu", (unsigned)q, i);
					rc = 3;
				}
		}
		cc_boot_blobs_free(&all);
	}
	if (!rc && cc_boot_barrier(b, err, errlen))
		rc = 4;
	cc_boot_close(b);
	return rc;
}

/* One rank's whole run: join, then run_joined(). */
static int run_rank_opts(uint32_t rank, uint32_t world, uint16_t port, int lfd,
			 const struct cc_boot_opts *o, char *err, size_t errlen)
{
	struct cc_rendezvous r = loopback(port);
	struct cc_boot b;

	if (cc_boot_open(&b, &r, lfd, rank, world, o, err, errlen))
		return 1;
	return run_joined(&b, err, errlen);
}

static int run_rank(uint32_t rank, uint32_t world, uint16_t port, int lfd, int timeout_ms,
		    FILE *log, char *err, size_t errlen)
{
	struct cc_boot_opts o = {.timeout_ms = timeout_ms, .log = log};

	return run_rank_opts(rank, world, port, lfd, &o, err, errlen);
}

enum child_kind {
	RANK,
	SILENT_CONNECT,
	SILENT_AFTER_JOIN,
	DIE_AFTER_JOIN,
	RAW_HELLOS,
	SLOW_HELLO, /* a valid hello, a byte every 50 ms: must be closed at the hello deadline */
	GARBAGE,    /* 64 KiB of junk: must be refused on its first 20 bytes */
};

struct child {
	enum child_kind kind;
	uint32_t rank, world;
	uint16_t port;
	int timeout_ms;
	const char *want; /* RANK: NULL to succeed, else what its error must say;
			   * SLOW_HELLO, GARBAGE: what rank 0's ABORT must say */
	int64_t within_ms; /* RANK with want: fail no later than this (0: any time);
			    * SLOW_HELLO, GARBAGE: the ABORT must come by then */
	int64_t after_ms;  /* SLOW_HELLO: ... and not before this */
	int delay_ms;      /* RANK: connect this late */
};

static int raw_connect(uint16_t port)
{
	struct sockaddr_in sa;
	struct timeval tv = {.tv_sec = 5};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	return fd;
}

/* Reads an ABORT from fd; 0 when its reason contains want. */
static int expect_abort(int fd, const char *want)
{
	uint8_t h[CC_BMSG_HDR_BYTES];
	char text[CC_BMSG_MAX_TEXT + 1], err[256];
	struct cc_bmsg_hdr x;
	ssize_t n = recv(fd, h, sizeof h, MSG_WAITALL);

	if (n != (ssize_t)sizeof h || cc_bmsg_hdr_decode(h, sizeof h, &x, err, sizeof err) ||
	    x.type != CC_BMSG_ABORT) {
		fprintf(stderr, "expected an ABORT saying \"%s\"\n", want);
		return 1;
	}
	n = x.len ? recv(fd, text, x.len, MSG_WAITALL) : 0;
	if (n != (ssize_t)x.len)
		return 1;
	text[n] = '\0';
	if (!strstr(text, want)) {
		fprintf(stderr, "ABORT \"%s\" does not say \"%s\"\n", text, want);
		return 1;
	}
	return 0;
}

/* A hand-made hello to rank 0 of a world of 3, then its refusal. */
static int raw_refused(uint16_t port, const uint8_t *hello, size_t n, const char *want)
{
	int fd = raw_connect(port), rc;

	if (fd < 0 || send(fd, hello, n, MSG_NOSIGNAL) != (ssize_t)n)
		return 1;
	rc = expect_abort(fd, want);
	close(fd);
	return rc;
}

/* SLOW_HELLO: a valid hello for rank 1, trickled a byte per 50 ms (a
 * second in all), until rank 0's ABORT arrives; 0 when it says want
 * between after_ms and within_ms of connecting. */
static int slow_hello(const struct child *c)
{
	uint8_t h[CC_BMSG_HDR_BYTES];
	int64_t t0 = monotonic_ms();
	int fd = raw_connect(c->port);
	size_t i;

	if (fd < 0)
		return 1;
	cc_bmsg_hdr_encode(h, CC_BMSG_HELLO, 1, c->world, 0);
	for (i = 0; monotonic_ms() - t0 < 3000; i++) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};

		if (i < sizeof h)
			(void)send(fd, h + i, 1, MSG_NOSIGNAL); /* fails once rank 0 has closed */
		if (poll(&pfd, 1, 50) == 1) {
			int64_t t = monotonic_ms() - t0;
			int rc = expect_abort(fd, c->want);

			if (!rc && (t < c->after_ms || t > c->within_ms)) {
				fprintf(stderr, "slow hello: ABORT after %lld ms, wanted "
					"%lld..%lld\n", (long long)t, (long long)c->after_ms,
					(long long)c->within_ms);
				rc = 1;
			}
			close(fd);
			return rc;
		}
	}
	fprintf(stderr, "slow hello: still open after %lld ms\n", (long long)(monotonic_ms() - t0));
	return 1;
}

/* GARBAGE: a stream of junk, then rank 0's ABORT saying want, soon. */
static int garbage(const struct child *c)
{
	static uint8_t junk[64 << 10];
	int64_t t0 = monotonic_ms();
	int fd = raw_connect(c->port), rc;

	if (fd < 0)
		return 1;
	memset(junk, 0xab, sizeof junk);
	(void)send(fd, junk, sizeof junk, MSG_NOSIGNAL | MSG_DONTWAIT);
	rc = expect_abort(fd, c->want);
	if (!rc && monotonic_ms() - t0 > c->within_ms) {
		fprintf(stderr, "garbage: ABORT after %lld ms\n", (long long)(monotonic_ms() - t0));
		rc = 1;
	}
	close(fd);
	return rc;
}

static int child_main(const struct child *c)
{
	char err[512] = "";
	uint8_t h[CC_BMSG_HDR_BYTES + 1];
	int64_t t0 = monotonic_ms();
	int rc, fd, bad = 0;

	switch (c->kind) {
	case RANK:
		if (c->delay_ms) {
			struct timespec ts = {c->delay_ms / 1000,
					      (long)(c->delay_ms % 1000) * 1000000};

			nanosleep(&ts, NULL);
			t0 = monotonic_ms();
		}
		rc = run_rank(c->rank, c->world, c->port, -1, c->timeout_ms, NULL, err, sizeof err);
		if (!c->want) {
			if (rc)
				fprintf(stderr, "rank %u: step %d: %s\n", (unsigned)c->rank, rc, err);
			return rc;
		}
		if (rc && strstr(err, c->want) && (!c->within_ms || monotonic_ms() - t0 <= c->within_ms))
			return 0;
		fprintf(stderr, "rank %u: rc %d after %lld ms, \"%s\", wanted \"%s\"\n",
			(unsigned)c->rank, rc, (long long)(monotonic_ms() - t0), err, c->want);
		return 10;
	case SILENT_CONNECT:
		fd = raw_connect(c->port);
		sleep(30); /* killed by the parent */
		return fd < 0;
	case SILENT_AFTER_JOIN:
	case DIE_AFTER_JOIN: {
		struct cc_rendezvous r = loopback(c->port);
		struct cc_boot_opts o = {.timeout_ms = c->timeout_ms};
		struct cc_boot b;

		if (cc_boot_open(&b, &r, -1, c->rank, c->world, &o, err, sizeof err)) {
			fprintf(stderr, "rank %u: %s\n", (unsigned)c->rank, err);
			return 1;
		}
		if (c->kind == SILENT_AFTER_JOIN)
			sleep(30); /* killed by the parent */
		return 0; /* exit: the kernel closes the socket */
	}
	case RAW_HELLOS:
		/* Rank 1 joins first (its hello on the first connection)... */
		fd = raw_connect(c->port);
		cc_bmsg_hdr_encode(h, CC_BMSG_HELLO, 1, 3, 0);
		if (fd < 0 || send(fd, h, CC_BMSG_HDR_BYTES, MSG_NOSIGNAL) != CC_BMSG_HDR_BYTES)
			return 1;
		/* ...then every bad hello, each refused with its reason. */
		bad |= raw_refused(c->port, h, CC_BMSG_HDR_BYTES,
				   "rank 1 has joined already (duplicate)");
		h[0] = 'X';
		bad |= raw_refused(c->port, h, CC_BMSG_HDR_BYTES, "bad hello: bad magic");
		cc_bmsg_hdr_encode(h, CC_BMSG_HELLO, 2, 3, 0);
		h[5] = 2;
		bad |= raw_refused(c->port, h, CC_BMSG_HDR_BYTES,
				   "bad hello: protocol version 2, this build speaks 1");
		cc_bmsg_hdr_encode(h, CC_BMSG_HELLO, 0, 3, 0);
		bad |= raw_refused(c->port, h, CC_BMSG_HDR_BYTES, "rank 0 is the rendezvous itself");
		cc_bmsg_hdr_encode(h, CC_BMSG_HELLO, 2, 4, 0);
		bad |= raw_refused(c->port, h, CC_BMSG_HDR_BYTES,
				   "rank 2 says world size 4, expected 3");
		cc_bmsg_hdr_encode(h, CC_BMSG_HELLO, 3, 3, 0);
		bad |= raw_refused(c->port, h, CC_BMSG_HDR_BYTES,
				   "sender rank 3 is not below world size 3");
		cc_bmsg_hdr_encode(h, CC_BMSG_BARRIER, 2, 3, 0);
		bad |= raw_refused(c->port, h, CC_BMSG_HDR_BYTES, "BARRIER where HELLO was expected");
		cc_bmsg_hdr_encode(h, CC_BMSG_HELLO, 2, 3, 1);
		h[CC_BMSG_HDR_BYTES] = 0;
		bad |= raw_refused(c->port, h, CC_BMSG_HDR_BYTES + 1,
				   "HELLO payload of 1 bytes, at most 0 allowed");
		/* Rank 2 never comes: rank 0 tells the rank that did join. */
		bad |= expect_abort(fd, "rank 2 did not join");
		close(fd);
		return bad;
	case SLOW_HELLO:
		return slow_hello(c);
	case GARBAGE:
		return garbage(c);
	}
	return 99;
}

static pid_t spawn(const struct child *c, int lfd)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (lfd >= 0)
			close(lfd);
		_exit(child_main(c));
	}
	return pid;
}

static void reap(pid_t pid, bool kill_it)
{
	int status;

	if (kill_it)
		kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (kill_it)
		return;
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) != 0)
		fail_msg("child %d exited with %d", (int)pid, WEXITSTATUS(status));
}

static void allgather_k(uint32_t k)
{
	pid_t pids[8];
	uint16_t port;
	int lfd = listen_loopback(&port);
	char err[512] = "";
	uint32_t r;
	int rc;

	for (r = 1; r < k; r++) {
		struct child c = {.kind = RANK, .rank = r, .world = k, .port = port,
				  .timeout_ms = LONG_MS};

		pids[r] = spawn(&c, lfd);
	}
	rc = run_rank(0, k, port, lfd, LONG_MS, NULL, err, sizeof err);
	for (r = 1; r < k; r++)
		reap(pids[r], false);
	if (rc)
		fail_msg("rank 0, step %d: %s", rc, err);
}

static void test_tcp_allgather(void **state)
{
	char err[256];

	(void)state;
	/* One rank: no socket at all (port 1 is never used). */
	assert_int_equal(run_rank(0, 1, 1, -1, SHORT_MS, NULL, err, sizeof err), 0);
	allgather_k(2);
	allgather_k(3);
	allgather_k(5);
}

/* Rank 0 of 3 listens itself (listen_fd -1), on an address it is given. */
static void test_tcp_root_listens_itself(void **state)
{
	uint16_t port;
	int lfd = listen_loopback(&port);
	struct child c1 = {.kind = RANK, .rank = 1, .world = 2, .timeout_ms = LONG_MS};
	char err[512] = "";
	pid_t pid;
	int rc;

	(void)state;
	close(lfd); /* a port that was free a moment ago */
	c1.port = port;
	pid = spawn(&c1, -1);
	rc = run_rank(0, 2, port, -1, LONG_MS, NULL, err, sizeof err);
	reap(pid, false);
	if (rc)
		fail_msg("step %d: %s", rc, err);
}

static void test_tcp_rank_never_connects(void **state)
{
	uint16_t port;
	int lfd = listen_loopback(&port);
	struct child c1 = {.kind = RANK, .rank = 1, .world = 3, .port = port,
			   .timeout_ms = SHORT_MS, .want = "rank 0 gave up: rank 2 did not join"};
	struct cc_rendezvous r = loopback(port);
	struct cc_boot_opts o = {.timeout_ms = SHORT_MS};
	struct cc_boot b;
	char err[512] = "";
	int64_t t0;
	pid_t pid;

	(void)state;
	pid = spawn(&c1, lfd);
	t0 = monotonic_ms();
	assert_int_equal(cc_boot_open(&b, &r, lfd, 0, 3, &o, err, sizeof err), -ETIMEDOUT);
	assert_true(monotonic_ms() - t0 >= SHORT_MS - 5);
	assert_true(monotonic_ms() - t0 < 3000);
	if (!strstr(err, "rank 2 did not join within 300 ms"))
		fail_msg("%s", err);
	reap(pid, false);

	/* Nobody at all: every missing rank is named. */
	lfd = listen_loopback(&port);
	assert_int_equal(cc_boot_open(&b, &r, lfd, 0, 4, &o, err, sizeof err), -ETIMEDOUT);
	assert_string_equal(err, "ranks 1, 2, 3 did not join within 300 ms");

	/* And a rank whose rank 0 never listens gives up too, naming it. */
	lfd = listen_loopback(&port);
	close(lfd);
	r = loopback(port);
	t0 = monotonic_ms();
	assert_int_equal(cc_boot_open(&b, &r, -1, 1, 2, &o, err, sizeof err), -ECONNREFUSED);
	assert_true(monotonic_ms() - t0 < 3000);
	if (!strstr(err, "rank 0 at 127.0.0.1:") || !strstr(err, "not reachable within 300 ms"))
		fail_msg("%s", err);
}

static void test_tcp_silent_connection(void **state)
{
	uint16_t port;
	int lfd = listen_loopback(&port);
	struct child c = {.kind = SILENT_CONNECT, .port = port};
	struct cc_rendezvous r = loopback(port);
	struct cc_boot_opts o = {.timeout_ms = SHORT_MS};
	struct cc_boot b;
	char err[512] = "";
	int64_t t0;
	pid_t pid;

	(void)state;
	pid = spawn(&c, lfd);
	t0 = monotonic_ms();
	assert_int_equal(cc_boot_open(&b, &r, lfd, 0, 2, &o, err, sizeof err), -ETIMEDOUT);
	assert_true(monotonic_ms() - t0 < 3000);
	reap(pid, true);
	if (!strstr(err, "rank 1 did not join within 300 ms; 1 connection(s) sent no hello"))
		fail_msg("%s", err);
}

/* A rank that joined and then stays silent, or dies: rank 0's allgather
 * names it, the other rank hears why, later calls are refused. */
static void joined_then(enum child_kind kind, const char *want)
{
	uint16_t port;
	int lfd = listen_loopback(&port);
	struct child c1 = {.kind = RANK, .rank = 1, .world = 3, .port = port,
			   .timeout_ms = SHORT_MS, .want = want};
	struct child c2 = {.kind = kind, .rank = 2, .world = 3, .port = port,
			   .timeout_ms = SHORT_MS};
	struct cc_rendezvous r = loopback(port);
	struct cc_boot_opts o = {.timeout_ms = SHORT_MS};
	struct cc_boot_blobs all;
	struct cc_boot b;
	char err[512] = "";
	int64_t t0;
	pid_t p1, p2;

	p1 = spawn(&c1, lfd);
	p2 = spawn(&c2, lfd);
	assert_int_equal(cc_boot_open(&b, &r, lfd, 0, 3, &o, err, sizeof err), 0);
	t0 = monotonic_ms();
	assert_true(cc_boot_allgather(&b, "x", 1, &all, err, sizeof err) < 0);
	assert_true(monotonic_ms() - t0 < 3000);
	assert_null(all.data);
	if (!strstr(err, want))
		fail_msg("%s", err);
	assert_int_equal(cc_boot_barrier(&b, err, sizeof err), -EPIPE);
	assert_string_equal(err, "the bootstrap failed earlier");
	cc_boot_close(&b);
	reap(p1, false);
	reap(p2, kind == SILENT_AFTER_JOIN);
}

static void test_tcp_silent_after_join(void **state)
{
	(void)state;
	joined_then(SILENT_AFTER_JOIN, "rank 2 sent nothing within 300 ms (waiting for BLOB)");
}

static void test_tcp_dead_after_join(void **state)
{
	(void)state;
	joined_then(DIE_AFTER_JOIN, "rank 2 closed the connection (waiting for BLOB)");
}

static void test_tcp_wrong_world(void **state)
{
	uint16_t port;
	int lfd = listen_loopback(&port);
	/* Refused at once, with the reason: long before any deadline. */
	struct child c = {.kind = RANK, .rank = 1, .world = 3, .port = port,
			  .timeout_ms = 5000, .within_ms = 2000,
			  .want = "rank 0 gave up: rank 1 says world size 3, expected 2"};
	struct cc_rendezvous r = loopback(port);
	char *logbuf = NULL;
	size_t logn = 0;
	FILE *log = open_memstream(&logbuf, &logn);
	struct cc_boot_opts o = {.timeout_ms = SHORT_MS, .log = log};
	struct cc_boot b;
	char err[512] = "";
	pid_t pid;

	(void)state;
	pid = spawn(&c, lfd);
	assert_int_equal(cc_boot_open(&b, &r, lfd, 0, 2, &o, err, sizeof err), -ETIMEDOUT);
	reap(pid, false);
	fclose(log);
	if (!strstr(err, "rank 1 did not join within 300 ms; refused: rank 1 says world size 3, "
			 "expected 2"))
		fail_msg("%s", err);
	if (!strstr(logbuf, "cclab bootstrap: refused 127.0.0.1:"))
		fail_msg("log: %s", logbuf);
	free(logbuf);
}

static void test_tcp_refusals(void **state)
{
	uint16_t port;
	int lfd = listen_loopback(&port);
	struct child c = {.kind = RAW_HELLOS, .port = port};
	struct cc_rendezvous r = loopback(port);
	char *logbuf = NULL;
	size_t logn = 0;
	FILE *log = open_memstream(&logbuf, &logn);
	struct cc_boot_opts o = {.timeout_ms = 1500, .log = log};
	struct cc_boot b;
	char err[512] = "";
	pid_t pid;

	(void)state;
	pid = spawn(&c, lfd);
	assert_int_equal(cc_boot_open(&b, &r, lfd, 0, 3, &o, err, sizeof err), -ETIMEDOUT);
	reap(pid, false);
	fclose(log);
	if (!strstr(err, "rank 2 did not join within 1500 ms; refused: bad hello: HELLO payload of 1 bytes"))
		fail_msg("%s", err);
	assert_non_null(strstr(logbuf, "(duplicate)"));
	assert_non_null(strstr(logbuf, "bad magic"));
	assert_non_null(strstr(logbuf, "protocol version 2"));
	assert_non_null(strstr(logbuf, "rank 0 is the rendezvous itself"));
	assert_non_null(strstr(logbuf, "says world size 4"));
	free(logbuf);
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)) != NULL; s++)
		n++;
	return n;
}

/* Issue 23 #14: idle connections to rank 0's port — more than it holds —
 * and ranks that connect after them.  Before, the 65th connection was
 * closed on accept (the real rank failed at once, "rank 0 closed the
 * connection", and rank 0 waited out its timeout).  Now each new
 * connection closes the oldest unidentified one, so the real ranks join
 * long before any hello deadline (5 s by default) could have freed a
 * slot. */
#define IDLE_CONNS 100
static void test_tcp_idle_flood(void **state)
{
	uint16_t port;
	int lfd = listen_loopback(&port);
	int idle[IDLE_CONNS], i;
	struct child c = {.kind = RANK, .world = 3, .timeout_ms = LONG_MS, .delay_ms = 300};
	char *logbuf = NULL;
	size_t logn = 0;
	FILE *log = open_memstream(&logbuf, &logn);
	struct cc_boot_opts o = {.timeout_ms = LONG_MS, .log = log};
	struct cc_rendezvous r = loopback(port);
	struct cc_boot b;
	char err[512] = "";
	int64_t t0, took;
	pid_t p1, p2;
	int rc;

	(void)state;
	/* They wait in the accept queue; rank 0 takes them all at once. */
	for (i = 0; i < IDLE_CONNS; i++) {
		idle[i] = raw_connect(port);
		assert_true(idle[i] >= 0);
	}
	c.port = port;
	c.rank = 1;
	p1 = spawn(&c, lfd);
	c.rank = 2;
	p2 = spawn(&c, lfd);
	t0 = monotonic_ms();
	rc = cc_boot_open(&b, &r, lfd, 0, 3, &o, err, sizeof err);
	took = monotonic_ms() - t0;
	if (rc)
		fail_msg("rank 0 after %lld ms: %s", (long long)took, err);
	/* The ranks come 300 ms after rank 0 starts, when it holds 64 idle
	 * connections; they then complete two allgathers and a barrier. */
	print_message("2 ranks joined among %d idle connections %lld ms after rank 0 started "
		      "(they wait %d ms before connecting)\n", IDLE_CONNS, (long long)took,
		      c.delay_ms);
	assert_true(took < c.delay_ms + 1000);
	rc = run_joined(&b, err, sizeof err);
	reap(p1, false);
	reap(p2, false);
	fclose(log);
	if (rc)
		fail_msg("rank 0, step %d: %s", rc, err);
	/* Every idle connection beyond the 64 held made way for a newer one,
	 * the oldest first, and was told why. */
	if (count_of(logbuf, "the oldest is closed") < IDLE_CONNS - 64)
		fail_msg("log: %s", logbuf);
	assert_int_equal(expect_abort(idle[0], "64 newer connections wait to identify "
					       "themselves: the oldest is closed"), 0);
	for (i = 0; i < IDLE_CONNS; i++)
		close(idle[i]);
	free(logbuf);
}

/* Issue 23 #14: a connection that trickles its hello a byte at a time, and
 * one that sends a stream of junk, while the real rank is late.  The junk
 * is refused on its first 20 bytes; the trickle is closed at its hello
 * deadline (300 ms here), told why; the real rank joins. */
static void test_tcp_slow_and_garbage_hello(void **state)
{
	uint16_t port;
	int lfd = listen_loopback(&port);
	struct child slow = {.kind = SLOW_HELLO, .world = 2, .port = port, .after_ms = 250,
			     .within_ms = 900,
			     .want = "no whole hello within 300 ms of connecting ("};
	struct child junk = {.kind = GARBAGE, .world = 2, .port = port, .within_ms = 1000,
			     .want = "bad hello: bad magic ab ab ab ab"};
	struct child rank1 = {.kind = RANK, .rank = 1, .world = 2, .port = port,
			      .timeout_ms = LONG_MS, .delay_ms = 1200};
	char *logbuf = NULL;
	size_t logn = 0;
	FILE *log = open_memstream(&logbuf, &logn);
	struct cc_boot_opts o = {.timeout_ms = 5000, .hello_ms = SHORT_MS, .log = log};
	char err[512] = "";
	pid_t ps, pj, p1;
	int64_t t0, took;
	int rc;

	(void)state;
	ps = spawn(&slow, lfd);
	pj = spawn(&junk, lfd);
	p1 = spawn(&rank1, lfd);
	t0 = monotonic_ms();
	rc = run_rank_opts(0, 2, port, lfd, &o, err, sizeof err);
	took = monotonic_ms() - t0;
	reap(ps, false);
	reap(pj, false);
	reap(p1, false);
	fclose(log);
	if (rc)
		fail_msg("rank 0, step %d: %s", rc, err);
	assert_true(took < rank1.delay_ms + 1500);
	if (!strstr(logbuf, "no whole hello within 300 ms of connecting") ||
	    !strstr(logbuf, "bad magic"))
		fail_msg("log: %s", logbuf);
	free(logbuf);
}

/* The hello deadline never outlasts the join's, and counts in its error:
 * a silent connection closed at 100 ms still shows as one that sent no
 * hello when the rank never comes. */
static void test_tcp_hello_deadline_in_error(void **state)
{
	uint16_t port;
	int lfd = listen_loopback(&port);
	struct child c = {.kind = SILENT_CONNECT, .port = port};
	struct cc_rendezvous r = loopback(port);
	struct cc_boot_opts o = {.timeout_ms = SHORT_MS, .hello_ms = 100};
	struct cc_boot b;
	char err[512] = "";
	pid_t pid;

	(void)state;
	pid = spawn(&c, lfd);
	assert_int_equal(cc_boot_open(&b, &r, lfd, 0, 2, &o, err, sizeof err), -ETIMEDOUT);
	reap(pid, true);
	assert_string_equal(err,
			    "rank 1 did not join within 300 ms; 1 connection(s) sent no hello");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_none),
		cmocka_unit_test(test_launch_each),
		cmocka_unit_test(test_launch_precedence),
		cmocka_unit_test(test_launch_errors),
		cmocka_unit_test(test_launch_process_env),
		cmocka_unit_test(test_rendezvous_parse),
		cmocka_unit_test(test_rendezvous_get),
		cmocka_unit_test(test_msg_round_trip),
		cmocka_unit_test(test_msg_encode_errors),
		cmocka_unit_test(test_msg_truncated_and_trailing),
		cmocka_unit_test(test_msg_header_corruption),
		cmocka_unit_test(test_msg_bad_fields),
		cmocka_unit_test(test_msg_header_decode),
		cmocka_unit_test(test_msg_random),
		cmocka_unit_test(test_tcp_allgather),
		cmocka_unit_test(test_tcp_root_listens_itself),
		cmocka_unit_test(test_tcp_rank_never_connects),
		cmocka_unit_test(test_tcp_silent_connection),
		cmocka_unit_test(test_tcp_silent_after_join),
		cmocka_unit_test(test_tcp_dead_after_join),
		cmocka_unit_test(test_tcp_wrong_world),
		cmocka_unit_test(test_tcp_refusals),
		cmocka_unit_test(test_tcp_idle_flood),
		cmocka_unit_test(test_tcp_slow_and_garbage_hello),
		cmocka_unit_test(test_tcp_hello_deadline_in_error),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
