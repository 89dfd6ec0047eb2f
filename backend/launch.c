/* SPDX-License-Identifier: BSD-3-Clause */
/* backend/launch.c — launcher environment and rendezvous address (see
 * backend/launch.h). */
#include "backend/launch.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *const cc_launcher_name[CC_LAUNCHER_COUNT] = {
	[CC_LAUNCH_NONE] = "none",
	[CC_LAUNCH_LOCAL] = "local",
	[CC_LAUNCH_OPENMPI] = "openmpi",
	[CC_LAUNCH_PMI] = "pmi",
	[CC_LAUNCH_SLURM] = "slurm",
};

/* One launcher's variables.  alt_size is a second name for the size that
 * must agree with the first when both are set (Slurm's SLURM_NPROCS).
 *
 * Precedence: the launcher that started *this* process wins, and that is
 * the innermost one.  Variables of an outer launcher are inherited and
 * stale: in an sbatch job script SLURM_PROCID=0 and SLURM_NTASKS=N are set
 * for the batch step, so every process that a mpirun (Open MPI) or a hydra
 * mpiexec (PMI_*) starts inside the allocation sees SLURM_PROCID=0 —
 * believing Slurm there would make every rank rank 0.  mpirun and hydra set
 * their variables per process, so they come before Slurm.  Where srun
 * itself starts the program (srun --mpi=pmi2 sets PMI_RANK/PMI_SIZE too)
 * the two agree, and the order does not matter.  Open MPI comes before PMI
 * because OMPI_* can only come from Open MPI's own launcher, while PMI_*
 * may be left over from an outer hydra or Slurm step.  `cclab run -n K`
 * comes first of all: it sets CCLAB_* for the children it forks itself,
 * which inherit whatever launched cclab run. */
struct launcher_vars {
	enum cc_launcher id;
	const char *rank, *size, *alt_size, *local_rank, *local_size;
};

static const struct launcher_vars launchers[] = {
	{CC_LAUNCH_LOCAL, "CCLAB_RANK", "CCLAB_WORLD_SIZE", NULL, "CCLAB_LOCAL_RANK",
	 "CCLAB_LOCAL_SIZE"},
	{CC_LAUNCH_OPENMPI, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", NULL,
	 "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
	{CC_LAUNCH_PMI, "PMI_RANK", "PMI_SIZE", NULL, "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
	{CC_LAUNCH_SLURM, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_NPROCS", "SLURM_LOCALID", NULL},
};

int cc_env_get(const char *const *envp, const char *name, const char **value, char *err,
	       size_t errlen)
{
	const char *const *e = envp ? envp : (const char *const *)environ;
	size_t n = strlen(name);
	const char *found = NULL;

	*value = NULL;
	for (; e && *e; e++) {
		if (strncmp(*e, name, n) != 0 || (*e)[n] != '=')
			continue;
		if (found && strcmp(found, *e + n + 1) != 0) {
			snprintf(err, errlen, "%s is set twice, to \"%.40s\" and \"%.40s\"", name,
				 found, *e + n + 1);
			return -EINVAL;
		}
		found = *e + n + 1;
	}
	*value = found;
	return 0;
}

/* A plain decimal number 0..max from variable name. */
static int env_number(const char *name, const char *v, uint32_t max, uint32_t *out, char *err,
		      size_t errlen)
{
	uint64_t x = 0;
	size_t i;

	if (v[0] == '\0') {
		snprintf(err, errlen, "%s is empty", name);
		return -EINVAL;
	}
	for (i = 0; v[i]; i++) {
		if (!isdigit((unsigned char)v[i])) {
			snprintf(err, errlen, "%s=\"%.40s\" is not a decimal number", name, v);
			return -EINVAL;
		}
		x = x * 10 + (uint64_t)(v[i] - '0');
		if (x > max) {
			snprintf(err, errlen, "%s=%.40s is too large (at most %u)", name, v,
				 (unsigned)max);
			return -ERANGE;
		}
	}
	*out = (uint32_t)x;
	return 0;
}

/* Reads an optional variable: *present says whether it was there. */
static int env_opt_number(const char *const *envp, const char *name, uint32_t max, uint32_t *out,
			  bool *present, char *err, size_t errlen)
{
	const char *v;
	int rc;

	*present = false;
	if (!name)
		return 0;
	rc = cc_env_get(envp, name, &v, err, errlen);
	if (rc || !v)
		return rc;
	*present = true;
	return env_number(name, v, max, out, err, errlen);
}

static int read_launcher(const char *const *envp, const struct launcher_vars *l,
			 struct cc_launch *out, bool *found, char *err, size_t errlen)
{
	uint32_t rank = 0, size = 0, alt = 0, lrank = 0, lsize = 0;
	bool has_rank, has_size, has_alt, has_lrank, has_lsize;
	const char *size_name = l->size;
	int rc;

	*found = false;
	if ((rc = env_opt_number(envp, l->rank, CC_LAUNCH_MAX_RANKS, &rank, &has_rank, err, errlen)) ||
	    (rc = env_opt_number(envp, l->size, CC_LAUNCH_MAX_RANKS, &size, &has_size, err, errlen)) ||
	    (rc = env_opt_number(envp, l->alt_size, CC_LAUNCH_MAX_RANKS, &alt, &has_alt, err,
				 errlen)))
		return rc;
	if (!has_rank && !has_size && !has_alt)
		return 0;
	if (has_size && has_alt && size != alt) {
		snprintf(err, errlen, "%s=%u and %s=%u disagree", l->size, (unsigned)size,
			 l->alt_size, (unsigned)alt);
		return -EINVAL;
	}
	if (!has_size && has_alt) {
		size = alt;
		has_size = true;
		size_name = l->alt_size;
	}
	if (!has_rank) {
		snprintf(err, errlen, "%s is set but %s is not", size_name, l->rank);
		return -EINVAL;
	}
	if (!has_size) {
		snprintf(err, errlen, "%s is set but %s is not", l->rank, l->size);
		return -EINVAL;
	}
	if (size == 0) {
		snprintf(err, errlen, "%s=0: a job has at least one rank", size_name);
		return -EINVAL;
	}
	if (rank >= size) {
		snprintf(err, errlen, "%s=%u is not below %s=%u", l->rank, (unsigned)rank, size_name,
			 (unsigned)size);
		return -EINVAL;
	}
	if ((rc = env_opt_number(envp, l->local_rank, CC_LAUNCH_MAX_RANKS, &lrank, &has_lrank, err,
				 errlen)) ||
	    (rc = env_opt_number(envp, l->local_size, CC_LAUNCH_MAX_RANKS, &lsize, &has_lsize, err,
				 errlen)))
		return rc;
	if (has_lsize && (lsize == 0 || lsize > size)) {
		snprintf(err, errlen, "%s=%u is not in 1..%s (%u)", l->local_size, (unsigned)lsize,
			 size_name, (unsigned)size);
		return -EINVAL;
	}
	if (has_lrank && lrank >= (has_lsize ? lsize : size)) {
		snprintf(err, errlen, "%s=%u is not below %s=%u", l->local_rank, (unsigned)lrank,
			 has_lsize ? l->local_size : size_name,
			 (unsigned)(has_lsize ? lsize : size));
		return -EINVAL;
	}
	out->launcher = l->id;
	out->rank = rank;
	out->size = size;
	out->local_rank = has_lrank ? (int32_t)lrank : -1;
	out->local_size = has_lsize ? (int32_t)lsize : -1;
	*found = true;
	return 0;
}

int cc_launch_detect(const char *const *envp, struct cc_launch *out, char *err, size_t errlen)
{
	struct cc_launch l;
	size_t i;

	for (i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
		bool found;
		int rc = read_launcher(envp, &launchers[i], &l, &found, err, errlen);

		if (rc)
			return rc;
		if (found) {
			*out = l;
			return 0;
		}
	}
	out->launcher = CC_LAUNCH_NONE;
	out->rank = 0;
	out->size = 1;
	out->local_rank = 0;
	out->local_size = 1;
	return 0;
}

/* RFC 1123 host name: dot-separated labels of letters, digits and '-',
 * 1..63 characters, not starting or ending with '-'; at most 253 in all. */
static bool host_name_ok(const char *h, size_t n)
{
	size_t label = 0, i;

	if (n == 0 || n > 253)
		return false;
	for (i = 0; i < n; i++) {
		char c = h[i];

		if (c == '.') {
			if (label == 0 || h[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)c) && c != '-')
			return false;
		if (c == '-' && label == 0)
			return false;
		if (++label > 63)
			return false;
	}
	return label > 0 && h[n - 1] != '-';
}

static bool all_digits_dots(const char *h)
{
	for (; *h; h++)
		if (!isdigit((unsigned char)*h) && *h != '.')
			return false;
	return true;
}

/* An IPv6 address with an optional %zone (interface name). */
static bool ipv6_ok(const char *h)
{
	char addr[INET6_ADDRSTRLEN + 1];
	unsigned char bin[16];
	const char *pct = strchr(h, '%');
	size_t n = pct ? (size_t)(pct - h) : strlen(h);

	if (n == 0 || n >= sizeof addr)
		return false;
	memcpy(addr, h, n);
	addr[n] = '\0';
	if (inet_pton(AF_INET6, addr, bin) != 1)
		return false;
	if (pct) {
		const char *z = pct + 1;

		if (z[0] == '\0' || strlen(z) > 15)
			return false;
		for (; *z; z++)
			if (!isalnum((unsigned char)*z) && *z != '.' && *z != '_' && *z != '-')
				return false;
	}
	return true;
}

int cc_rendezvous_parse(const char *s, struct cc_rendezvous *out, char *err, size_t errlen)
{
	struct cc_rendezvous r;
	const char *port, *colon;
	size_t hlen, i;
	uint32_t p = 0;

	memset(&r, 0, sizeof r);
	if (!s || !*s) {
		snprintf(err, errlen, "empty rendezvous address (want HOST:PORT)");
		return -EINVAL;
	}
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close) {
			snprintf(err, errlen, "\"%.80s\": '[' without ']'", s);
			return -EINVAL;
		}
		hlen = (size_t)(close - s - 1);
		if (close[1] != ':') {
			snprintf(err, errlen, "\"%.80s\": want [IPV6]:PORT", s);
			return -EINVAL;
		}
		if (hlen == 0 || hlen >= sizeof r.host) {
			snprintf(err, errlen, "\"%.80s\": bad IPv6 address", s);
			return -EINVAL;
		}
		memcpy(r.host, s + 1, hlen);
		r.host[hlen] = '\0';
		if (!ipv6_ok(r.host)) {
			snprintf(err, errlen, "\"%.80s\": bad IPv6 address \"%s\"", s, r.host);
			return -EINVAL;
		}
		r.kind = CC_HOST_IPV6;
		port = close + 2;
	} else {
		colon = strrchr(s, ':');
		if (!colon) {
			snprintf(err, errlen, "\"%.80s\": missing :PORT (want HOST:PORT)", s);
			return -EINVAL;
		}
		hlen = (size_t)(colon - s);
		if (memchr(s, ':', hlen)) {
			snprintf(err, errlen, "\"%.80s\": an IPv6 address needs brackets: [ADDR]:PORT",
				 s);
			return -EINVAL;
		}
		if (hlen == 0) {
			snprintf(err, errlen, "\"%.80s\": missing host", s);
			return -EINVAL;
		}
		if (hlen >= sizeof r.host) {
			snprintf(err, errlen, "\"%.80s...\": host name longer than 253", s);
			return -EINVAL;
		}
		memcpy(r.host, s, hlen);
		r.host[hlen] = '\0';
		if (all_digits_dots(r.host)) {
			unsigned char bin[4];

			if (inet_pton(AF_INET, r.host, bin) != 1) {
				snprintf(err, errlen, "\"%.80s\": bad IPv4 address \"%s\"", s, r.host);
				return -EINVAL;
			}
			r.kind = CC_HOST_IPV4;
		} else if (host_name_ok(r.host, hlen)) {
			r.kind = CC_HOST_NAME;
		} else {
			snprintf(err, errlen, "\"%.80s\": bad host name \"%.80s\"", s, r.host);
			return -EINVAL;
		}
		port = colon + 1;
	}
	if (*port == '\0') {
		snprintf(err, errlen, "\"%.80s\": missing port", s);
		return -EINVAL;
	}
	for (i = 0; port[i]; i++) {
		if (!isdigit((unsigned char)port[i]) || i >= 5) {
			snprintf(err, errlen, "\"%.80s\": port \"%.20s\" is not a number in 1..65535",
				 s, port);
			return -EINVAL;
		}
		p = p * 10 + (uint32_t)(port[i] - '0');
	}
	if (p == 0 || p > 65535) {
		snprintf(err, errlen, "\"%.80s\": port %u is not in 1..65535", s, (unsigned)p);
		return -EINVAL;
	}
	r.port = (uint16_t)p;
	*out = r;
	return 0;
}

int cc_rendezvous_get(const char *option, const char *const *envp, struct cc_rendezvous *out,
		      char *err, size_t errlen)
{
	char why[256];
	const char *v;
	int rc;

	if (option && *option) {
		rc = cc_rendezvous_parse(option, out, why, sizeof why);
		if (rc)
			snprintf(err, errlen, "--bootstrap: %s", why);
		return rc;
	}
	rc = cc_env_get(envp, CC_BOOTSTRAP_ENV, &v, err, errlen);
	if (rc)
		return rc;
	if (!v) {
		snprintf(err, errlen,
			 "no rendezvous address: pass --bootstrap HOST:PORT or set " CC_BOOTSTRAP_ENV);
		return -ENOENT;
	}
	rc = cc_rendezvous_parse(v, out, why, sizeof why);
	if (rc)
		snprintf(err, errlen, CC_BOOTSTRAP_ENV ": %s", why);
	return rc;
}
