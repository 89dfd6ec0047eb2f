/* SPDX-License-Identifier: BSD-3-Clause */
/* core/nccl_env.c — the NCCL_* variables that change NCCL's choices, read
 * as NCCL reads them but checked strictly.
 *
 * NCCL_ALGO and NCCL_PROTO follow src/graph/tuning.cc parseList (2.24
 * on): entries separated by ';', each a comma-separated list of names,
 * case-insensitive; a leading '^' enables all but the names listed; every
 * entry but the first names its collective before a ':' ("allreduce:
 * tree,ring") and replaces that collective's list, while a first entry
 * without one applies to all.  Empty names are skipped, as strtok skips
 * them.  Unlike NCCL before 2.24, which ignored unknown names, a name
 * that is not an algorithm, protocol or collective is refused.
 *
 * Integers are decimal, without sign or trailing text, and must fit;
 * a value NCCL would not take as given (0 channels, a QP count over its
 * 128) is refused with the variable's name rather than clamped. */
#include "nccl_tune_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/err.h"

const char *const cc_nccl_env_names[] = {
	"NCCL_ALGO",
	"NCCL_PROTO",
	"NCCL_MIN_NCHANNELS",
	"NCCL_MAX_NCHANNELS",
	"NCCL_MIN_CTAS",
	"NCCL_MAX_CTAS",
	"NCCL_NVLS_ENABLE",
	"NCCL_COLLNET_ENABLE",
	"NCCL_NET_GDR_LEVEL",
	"NCCL_IB_QPS_PER_CONNECTION",
	"NCCL_IB_SPLIT_DATA_ON_QPS",
	"NCCL_NVLS_NCHANNELS",
	"NCCL_BUFFSIZE",
	"NCCL_IB_AR_THRESHOLD",
	"NCCL_IB_ADAPTIVE_ROUTING",
	"NCCL_NET_FORCE_FLUSH",
	"NCCL_GDR_FLUSH_DISABLE",
	"NCCL_NVLS_CHUNKSIZE",
	"NCCL_NVLSTREE_MAX_CHUNKSIZE",
	"NCCL_NET_OVERHEAD",
	NULL,
};

void cc_nccl_env_init(struct cc_nccl_env *e)
{
	memset(e, 0, sizeof(*e));
	for (int c = 0; c < CC_COLL_COUNT; c++) {
		e->algo[c] = (1u << CC_NCCL_ALGO_COUNT) - 1;
		e->proto[c] = (1u << CC_PROTO_COUNT) - 1;
	}
	e->nvls_enable = -1;
	e->collnet_enable = -1;
	e->net_gdr_level = -1;
	e->ib_split_data_on_qps = -1;
	e->ib_ar_threshold = -1;
	e->ib_adaptive_routing = -1;
	e->net_force_flush = -1;
	e->gdr_flush_disable = -1;
	e->net_overhead_ns = -1;
}

/* NCCL's collectives as NCCL_ALGO's prefixes name them (src/init.cc
 * ncclFuncStr). */
static const struct {
	const char *name;
	enum cc_coll coll;
} nccl_funcs[] = {
	{ "Broadcast", CC_BROADCAST }, { "Reduce", CC_REDUCE },
	{ "AllGather", CC_ALLGATHER }, { "ReduceScatter", CC_REDUCESCATTER },
	{ "AllReduce", CC_ALLREDUCE },
};
#define NFUNCS (sizeof(nccl_funcs) / sizeof(nccl_funcs[0]))

/* NCCL's protocol names (src/init.cc ncclProtoStr), as cc_proto. */
static const char *const nccl_proto_name[CC_PROTO_COUNT] = {
	[CC_PROTO_LL] = "LL", [CC_PROTO_LL128] = "LL128", [CC_PROTO_SIMPLE] = "Simple",
};

struct list_kind {
	const char *var;          /* "NCCL_ALGO" */
	const char *what;         /* "an algorithm" */
	const char *noun;         /* "algorithm" */
	const char *const *names; /* indexed by bit */
	int n;
};

/* "Tree, Ring, ..." into buf. */
static const char *name_list(const struct list_kind *k, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < k->n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", k->names[i]);
	return buf;
}

/* The bits one comma-separated list sets: names, with a leading '^' the
 * others.  The list is modified (strtok). */
static int parse_elems(const struct list_kind *k, char *list, uint32_t *bits, char *err, size_t len)
{
	uint32_t all = (1u << k->n) - 1, set = 0;
	bool exclude = list[0] == '^';
	char *save, *tok;
	char names[160];

	for (tok = strtok_r(list + exclude, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i = 0;

		while (i < k->n && strcasecmp(tok, k->names[i]))
			i++;
		if (i == k->n)
			return cc_errf(err, len, -EINVAL, "%s: '%s' is not %s (%s)", k->var, tok,
				       k->what, name_list(k, names, sizeof(names)));
		set |= 1u << i;
	}
	*bits = exclude ? all & ~set : set;
	return 0;
}

/* parseList: value into out[coll] (and given, the collectives named). */
static int parse_list(const struct list_kind *k, const char *value, uint32_t out[CC_COLL_COUNT],
		      uint32_t *given, char *err, size_t len)
{
	char buf[512], *save, *entry;
	bool first = true;

	if (strlen(value) >= sizeof(buf))
		return cc_errf(err, len, -EINVAL, "%s: value longer than %zu characters", k->var,
			       sizeof(buf) - 1);
	strcpy(buf, value);
	for (entry = strtok_r(buf, ";", &save); entry; entry = strtok_r(NULL, ";", &save), first = false) {
		char *colon = strchr(entry, ':');
		uint32_t bits;
		size_t f = 0;
		int rc;

		if (!colon) {
			if (!first)
				return cc_errf(err, len, -EINVAL,
					       "%s: '%s' needs a collective before it "
					       "('allreduce:%s'): only the first entry may omit it",
					       k->var, entry, entry);
			rc = parse_elems(k, entry, &bits, err, len);
			if (rc)
				return rc;
			for (f = 0; f < NFUNCS; f++)
				out[nccl_funcs[f].coll] = bits;
			*given |= (1u << CC_COLL_COUNT) - 1;
			continue;
		}
		*colon = 0;
		while (f < NFUNCS && strcasecmp(entry, nccl_funcs[f].name))
			f++;
		if (f == NFUNCS)
			return cc_errf(err, len, -EINVAL,
				       "%s: '%s' is not a collective (Broadcast, Reduce, AllGather, "
				       "ReduceScatter, AllReduce)",
				       k->var, entry);
		if (!colon[1])
			return cc_errf(err, len, -EINVAL, "%s: '%s:' names no %s", k->var, entry,
				       k->noun);
		rc = parse_elems(k, colon + 1, &bits, err, len);
		if (rc)
			return rc;
		out[nccl_funcs[f].coll] = bits;
		*given |= 1u << nccl_funcs[f].coll;
	}
	return 0;
}

/* A decimal integer in [min, max]. */
static int parse_int(const char *name, const char *value, int64_t min, int64_t max, int64_t *out,
		     char *err, size_t len)
{
	const char *p = value;
	int64_t v = 0;

	if (!*p)
		return cc_errf(err, len, -EINVAL, "%s: empty value", name);
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (INT64_MAX - (*p - '0')) / 10)
			return cc_errf(err, len, -EINVAL, "%s: '%s' is too large", name, value);
		v = v * 10 + (*p - '0');
	}
	if (*p)
		return cc_errf(err, len, -EINVAL, "%s: '%s' is not a whole number", name, value);
	if (v < min || v > max)
		return cc_errf(err, len, -EINVAL, "%s: %lld is out of range %lld..%lld", name,
			       (long long)v, (long long)min, (long long)max);
	*out = v;
	return 0;
}

/* NCCL_NET_GDR_LEVEL (src/graph/paths.cc ncclGetLevel): a path name, as
 * NCCL compares it (case-sensitive), or the old numbering 0..5 (LOC,
 * PIX, PXB, PHB, SYS, SYS), larger numbers meaning SYS. */
static int parse_gdr_level(const char *value, int *out, char *err, size_t len)
{
	static const enum cc_nccl_path old[] = {
		CC_NCCL_PATH_LOC, CC_NCCL_PATH_PIX, CC_NCCL_PATH_PXB,
		CC_NCCL_PATH_PHB, CC_NCCL_PATH_SYS, CC_NCCL_PATH_SYS,
	};
	int64_t v;

	for (int i = 0; i < CC_NCCL_PATH_COUNT; i++)
		if (!strcmp(value, cc_nccl_path_name[i])) {
			*out = i;
			return 0;
		}
	if (value[0] < '0' || value[0] > '9')
		return cc_errf(err, len, -EINVAL,
			       "NCCL_NET_GDR_LEVEL: '%s' is not a path (LOC, NVL, NVB, C2C, PIX, "
			       "PXB, P2C, PXN, PHB, SYS) or a number",
			       value);
	if (parse_int("NCCL_NET_GDR_LEVEL", value, 0, INT32_MAX, &v, err, len))
		return -EINVAL;
	*out = (int)old[v < 5 ? v : 5];
	return 0;
}

/* Where each integer variable goes, and its range. */
enum int_field { F_U32, F_I32, F_U64, F_I64 };
struct int_var {
	const char *name;
	size_t off;
	enum int_field type;
	int64_t min, max;
};
#define IV(n, f, t, lo, hi) { n, offsetof(struct cc_nccl_env, f), t, lo, hi }
static const struct int_var int_vars[] = {
	IV("NCCL_MIN_NCHANNELS", min_nchannels, F_U32, 0, UINT32_MAX),
	IV("NCCL_MAX_NCHANNELS", max_nchannels, F_U32, 1, UINT32_MAX),
	IV("NCCL_MIN_CTAS", min_ctas, F_U32, 1, UINT32_MAX),
	IV("NCCL_MAX_CTAS", max_ctas, F_U32, 1, UINT32_MAX),
	IV("NCCL_NVLS_NCHANNELS", nvls_nchannels, F_U32, 1, UINT32_MAX),
	IV("NCCL_IB_QPS_PER_CONNECTION", ib_qps_per_connection, F_U32, 1, 128),
	/* a slot (an eighth) of at least 512 B; at most 1 GiB, which no
	 * staging should need */
	IV("NCCL_BUFFSIZE", buffsize, F_U64, 4096, 1ll << 30),
	IV("NCCL_IB_AR_THRESHOLD", ib_ar_threshold, F_I64, 0, INT64_MAX),
	IV("NCCL_COLLNET_ENABLE", collnet_enable, F_I32, 0, 1),
	IV("NCCL_IB_SPLIT_DATA_ON_QPS", ib_split_data_on_qps, F_I32, 0, 1),
	IV("NCCL_IB_ADAPTIVE_ROUTING", ib_adaptive_routing, F_I32, 0, 1),
	IV("NCCL_NET_FORCE_FLUSH", net_force_flush, F_I32, 0, 1),
	IV("NCCL_GDR_FLUSH_DISABLE", gdr_flush_disable, F_I32, 0, 1),
	/* NVLS's chunk is also its buffer's step (transport/nvls.cc):
	 * a line of 128 B at least, a step of an eighth of 1 GiB at most */
	IV("NCCL_NVLS_CHUNKSIZE", nvls_chunksize, F_U64, 128, (1ll << 30) / 8),
	IV("NCCL_NVLSTREE_MAX_CHUNKSIZE", nvlstree_max_chunksize, F_U64, 128, (1ll << 30) / 8),
	/* ns, as tuning.cc reads it (x .001 us); NCCL's own "unset" is -2,
	 * and a negative overhead means nothing: up to one second */
	IV("NCCL_NET_OVERHEAD", net_overhead_ns, F_I64, 0, 1000000000),
};

static void store(struct cc_nccl_env *e, const struct int_var *iv, int64_t v)
{
	char *p = (char *)e + iv->off;

	switch (iv->type) {
	case F_U32: *(uint32_t *)(void *)p = (uint32_t)v; break;
	case F_I32: *(int *)(void *)p = (int)v; break;
	case F_U64: *(uint64_t *)(void *)p = (uint64_t)v; break;
	case F_I64: *(int64_t *)(void *)p = v; break;
	}
}

int cc_nccl_env_set(struct cc_nccl_env *e, const char *name, const char *value, char *err,
		    size_t len)
{
	static const struct list_kind algos = { "NCCL_ALGO", "an algorithm", "algorithm",
						cc_nccl_algo_name,
						CC_NCCL_ALGO_COUNT };
	static const struct list_kind protos = { "NCCL_PROTO", "a protocol", "protocol",
						 nccl_proto_name,
						 CC_PROTO_COUNT };
	struct cc_nccl_env fresh;
	int64_t v;

	if (!strcmp(name, "NCCL_ALGO") || !strcmp(name, "NCCL_PROTO")) {
		bool algo = !strcmp(name, "NCCL_ALGO");
		uint32_t given = 0;
		int rc;

		/* A variable is set anew, from NCCL's default. */
		cc_nccl_env_init(&fresh);
		rc = parse_list(algo ? &algos : &protos, value, algo ? fresh.algo : fresh.proto,
				&given, err, len);
		if (rc)
			return rc;
		if (algo) {
			memcpy(e->algo, fresh.algo, sizeof(e->algo));
		} else {
			memcpy(e->proto, fresh.proto, sizeof(e->proto));
			e->proto_given = given;
		}
		return 0;
	}
	if (!strcmp(name, "NCCL_NET_GDR_LEVEL"))
		return parse_gdr_level(value, &e->net_gdr_level, err, len);
	if (!strcmp(name, "NCCL_NVLS_ENABLE")) {
		/* 2, NCCL's default, is "when the GPUs can". */
		if (parse_int(name, value, 0, 2, &v, err, len))
			return -EINVAL;
		e->nvls_enable = v == 2 ? -1 : (int)v;
		return 0;
	}
	for (size_t i = 0; i < sizeof(int_vars) / sizeof(int_vars[0]); i++) {
		const struct int_var *iv = &int_vars[i];

		if (strcmp(name, iv->name))
			continue;
		if (parse_int(name, value, iv->min, iv->max, &v, err, len))
			return -EINVAL;
		store(e, iv, v);
		return 0;
	}
	return cc_errf(err, len, -ENOENT, "%s: not a variable cclab reads", name);
}

void cc_nccl_env_ar(const struct cc_nccl_env *e, bool ib, bool *split, uint64_t *threshold)
{
	*split = e->ib_adaptive_routing < 0 ? ib : e->ib_adaptive_routing != 0;
	*threshold = e->ib_ar_threshold < 0 ? 8192 : (uint64_t)e->ib_ar_threshold;
}

bool cc_nccl_env_gdr_flush(const struct cc_nccl_env *e, enum cc_gpu_arch arch)
{
	if (e->gdr_flush_disable == 1)
		return false;
	return e->net_force_flush == 1 || arch < CC_GPU_HOPPER;
}
