/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/fault.c — the simulator's faults as text, and their check against a
 * network (sim/fault.h).  Applying them to a run is sim/exec_fault.c's.
 */
#include "sim/fault.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/units.h"

const char *const cc_sim_fault_kind_name[CC_SIM_FAULT_KIND_COUNT] = {
	[CC_SIM_FAULT_LINK_DOWN] = "link-down",
	[CC_SIM_FAULT_NO_ACK] = "no-ack",
	[CC_SIM_FAULT_SLOW_GPU] = "slow-gpu",
};

#define MAX_RANK 0x7fffffffu

/* Digits only, at most MAX_RANK; "all" when `all` may stand for every rank. */
static int parse_rank(const char *s, size_t len, bool all, uint32_t *out)
{
	uint64_t v = 0;

	if (all && len == 3 && !strncmp(s, "all", 3)) {
		*out = CC_SIM_FAULT_ALL;
		return 0;
	}
	if (len == 0 || len > 10)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > MAX_RANK)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* "rank=R" at s[0 .. len). */
static int parse_rank_eq(const char *s, size_t len, bool all, uint32_t *out)
{
	if (len < 5 || strncmp(s, "rank=", 5))
		return -EINVAL;
	return parse_rank(s + 5, len - 5, all, out);
}

/* A time of util/units.h from s[0 .. len). */
static int parse_time_n(const char *s, size_t len, sim_time_ps *out)
{
	char buf[32];
	uint64_t v;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (cc_parse_time(buf, &v))
		return -EINVAL;
	*out = v;
	return 0;
}

/* "T1", "T1-T2" or "T1-never". */
static int parse_window(const char *s, struct cc_sim_fault *f, char *err, size_t errlen)
{
	const char *dash = strchr(s, '-');
	size_t n1 = dash ? (size_t)(dash - s) : strlen(s);

	if (parse_time_n(s, n1, &f->at_ps))
		return cc_errf(err, errlen, -EINVAL,
			       "expected a time after '@', such as 10us or 1.5ms");
	f->until_ps = SIM_TIME_NEVER;
	if (!dash || !strcmp(dash + 1, "never"))
		return 0;
	if (parse_time_n(dash + 1, strlen(dash + 1), &f->until_ps))
		return cc_errf(err, errlen, -EINVAL,
			       "expected the time the link comes back after '-' "
			       "(such as 50us), or 'never'");
	if (f->until_ps <= f->at_ps)
		return cc_errf(err, errlen, -EINVAL,
			       "the link must come back after it goes down (T2 > "
			       "T1)");
	return 0;
}

static int parse_link_down(const char *s, struct cc_sim_fault *f, char *err, size_t errlen)
{
	static const char usage[] = "expected link-down:NODE->NODE@T1[-T2] or "
				    "link-down:rank=R[,port=P]@T1[-T2]";
	const char *at = strrchr(s, '@');
	size_t tlen;

	if (!at)
		return cc_errf(err, errlen, -EINVAL, "%s (the '@' and when the link goes down are "
			       "missing)", usage);
	tlen = (size_t)(at - s);
	if (tlen >= 5 && !strncmp(s, "rank=", 5)) {
		const char *comma = memchr(s, ',', tlen);
		size_t rlen = comma ? (size_t)(comma - s) : tlen;

		if (parse_rank_eq(s, rlen, false, &f->rank))
			return cc_errf(err, errlen, -EINVAL, "%s (R: a rank number)", usage);
		if (comma && (tlen - rlen - 1 < 6 || strncmp(comma + 1, "port=", 5) ||
			      parse_rank(comma + 6, tlen - rlen - 6, false, &f->port)))
			return cc_errf(err, errlen, -EINVAL, "%s (P: a port number of the NIC)",
				       usage);
	} else {
		const char *arrow = NULL;

		for (const char *p = s; p + 1 < at; p++)
			if (p[0] == '-' && p[1] == '>') {
				arrow = p;
				break;
			}
		if (!arrow || arrow == s || arrow + 2 == at)
			return cc_errf(err, errlen, -EINVAL, "%s", usage);
		size_t na = (size_t)(arrow - s), nb = (size_t)(at - arrow - 2);

		if (na >= SIM_NET_NAME_LEN || nb >= SIM_NET_NAME_LEN)
			return cc_errf(err, errlen, -EINVAL,
				       "a node name longer than %d characters",
				       SIM_NET_NAME_LEN - 1);
		memcpy(f->from, s, na);
		f->from[na] = '\0';
		memcpy(f->to, arrow + 2, nb);
		f->to[nb] = '\0';
		if (!strcmp(f->from, f->to))
			return cc_errf(err, errlen, -EINVAL, "a link joins two different nodes");
	}
	return parse_window(at + 1, f, err, errlen);
}

static int parse_no_ack(const char *s, struct cc_sim_fault *f, char *err, size_t errlen)
{
	const char *at = strchr(s, '@');
	size_t rlen = at ? (size_t)(at - s) : strlen(s);

	if (parse_rank_eq(s, rlen, true, &f->rank))
		return cc_errf(err, errlen, -EINVAL,
			       "expected no-ack:rank=R[@T] (R: a rank or 'all', "
			       "T: from when, such as 5us; default 0)");
	if (at && parse_time_n(at + 1, strlen(at + 1), &f->at_ps))
		return cc_errf(err, errlen, -EINVAL, "expected a time after '@', such as 5us");
	return 0;
}

/* F: digits, optionally '.' and one to three more; F x 1000 in *milli. */
static int parse_factor(const char *s, uint32_t *milli)
{
	uint64_t whole = 0, frac = 0;
	int nfrac = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > CC_SIM_FAULT_MAX_FACTOR)
			return -ERANGE;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++, nfrac++) {
			if (nfrac == 3)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
	}
	if (*p)
		return -EINVAL;
	for (; nfrac < 3; nfrac++)
		frac *= 10;
	whole = whole * 1000 + frac;
	if (whole < 1000 || whole > CC_SIM_FAULT_MAX_FACTOR * 1000)
		return -ERANGE;
	*milli = (uint32_t)whole;
	return 0;
}

static int parse_slow_gpu(const char *s, struct cc_sim_fault *f, char *err, size_t errlen)
{
	const char *x = strchr(s, 'x');
	int rc;

	if (!x || parse_rank_eq(s, (size_t)(x - s), true, &f->rank))
		return cc_errf(err, errlen, -EINVAL,
			       "expected slow-gpu:rank=RxF (R: a rank or 'all', "
			       "F: how many times slower, such as 2 or 1.5)");
	rc = parse_factor(x + 1, &f->factor_milli);
	if (rc == -ERANGE)
		return cc_errf(err, errlen, -EINVAL, "the factor is 1 (no slowdown) to %u",
			       CC_SIM_FAULT_MAX_FACTOR);
	if (rc)
		return cc_errf(err, errlen, -EINVAL,
			       "expected the factor as a decimal with at most "
			       "three decimals, such as 2 or 1.5");
	return 0;
}

int cc_sim_fault_parse(const char *s, struct cc_sim_fault *out, char *err, size_t errlen)
{
	struct cc_sim_fault f = { .kind = CC_SIM_FAULT_KIND_COUNT };
	const char *colon = s ? strchr(s, ':') : NULL;
	int rc;

	if (!s)
		return cc_errf(err, errlen, -EINVAL, "no fault given");
	for (int k = 0; colon && k < CC_SIM_FAULT_KIND_COUNT; k++)
		if ((size_t)(colon - s) == strlen(cc_sim_fault_kind_name[k]) &&
		    !strncmp(s, cc_sim_fault_kind_name[k], (size_t)(colon - s)))
			f.kind = (enum cc_sim_fault_kind)k;
	switch (f.kind) {
	case CC_SIM_FAULT_LINK_DOWN:
		rc = parse_link_down(colon + 1, &f, err, errlen);
		break;
	case CC_SIM_FAULT_NO_ACK:
		rc = parse_no_ack(colon + 1, &f, err, errlen);
		break;
	case CC_SIM_FAULT_SLOW_GPU:
		rc = parse_slow_gpu(colon + 1, &f, err, errlen);
		break;
	default:
		return cc_errf(err, errlen, -EINVAL,
			       "expected KIND:ARGS with KIND link-down, no-ack or "
			       "slow-gpu");
	}
	if (!rc)
		*out = f;
	return rc;
}

/* A time as cc_parse_time() reads it back: the largest unit that divides
 * it exactly. */
static void fmt_time(sim_time_ps t, char *buf, size_t len)
{
	static const struct { uint64_t ps; const char *unit; } units[] = {
		{ SIM_PS_PER_S, "s" }, { SIM_PS_PER_MS, "ms" }, { SIM_PS_PER_US, "us" },
		{ SIM_PS_PER_NS, "ns" }, { 1, "ps" },
	};

	if (t == 0) {
		snprintf(buf, len, "0");
		return;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (t % units[i].ps == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", t / units[i].ps, units[i].unit);
			return;
		}
}

static void fmt_rank(uint32_t r, char *buf, size_t len)
{
	if (r == CC_SIM_FAULT_ALL)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%" PRIu32, r);
}

char *cc_sim_fault_format(const struct cc_sim_fault *f, char *buf, size_t len)
{
	char t1[32], t2[32], r[16], fr[8];
	uint32_t m;

	fmt_rank(f->rank, r, sizeof(r));
	fmt_time(f->at_ps, t1, sizeof(t1));
	switch (f->kind) {
	case CC_SIM_FAULT_LINK_DOWN:
		if (f->until_ps == SIM_TIME_NEVER)
			snprintf(t2, sizeof(t2), "never");
		else
			fmt_time(f->until_ps, t2, sizeof(t2));
		if (f->from[0])
			snprintf(buf, len, "link-down:%s->%s@%s-%s", f->from, f->to, t1, t2);
		else
			snprintf(buf, len, "link-down:rank=%s,port=%" PRIu32 "@%s-%s", r, f->port,
				 t1, t2);
		break;
	case CC_SIM_FAULT_NO_ACK:
		snprintf(buf, len, "no-ack:rank=%s@%s", r, t1);
		break;
	case CC_SIM_FAULT_SLOW_GPU:
		/* F's decimals without trailing zeros: 2000 -> "2", 1500 -> "1.5" */
		m = f->factor_milli % 1000;
		fr[0] = '\0';
		if (m)
			snprintf(fr, sizeof(fr), ".%03" PRIu32, m);
		for (size_t i = strlen(fr); i > 1 && fr[i - 1] == '0'; i--)
			fr[i - 1] = '\0';
		snprintf(buf, len, "slow-gpu:rank=%sx%" PRIu32 "%s", r, f->factor_milli / 1000, fr);
		break;
	default:
		snprintf(buf, len, "?");
		break;
	}
	return buf;
}

uint32_t cc_sim_fault_links(const struct cc_sim_fault *f, const struct sim_net *net,
			    uint32_t *links, uint32_t max)
{
	uint32_t n = 0;

	if (f->kind != CC_SIM_FAULT_LINK_DOWN)
		return 0;
	if (!f->from[0]) {
		const struct sim_net_node *nd;

		if (f->rank >= net->nranks)
			return 0;
		nd = &net->nodes[net->rank_node[f->rank]];
		if (f->port >= nd->nports)
			return 0;
		if (max)
			links[0] = nd->port_link[f->port];
		return 1;
	}
	uint32_t a = sim_net_find(net, f->from), b = sim_net_find(net, f->to);

	if (a == SIM_NET_NONE || b == SIM_NET_NONE)
		return 0;
	for (uint32_t i = 0; i < net->nlinks; i++) {
		const struct sim_net_link *l = &net->links[i];

		if ((l->a == a && l->b == b) || (l->a == b && l->b == a)) {
			if (n < max)
				links[n] = i;
			n++;
		}
	}
	return n;
}

static int check_one(const struct cc_sim_fault *f, const struct sim_net *net, const char *text,
		     char *err, size_t errlen)
{
	if (f->kind >= CC_SIM_FAULT_KIND_COUNT)
		return cc_errf(err, errlen, -EINVAL, "'%s': unknown kind of fault", text);
	if (f->kind == CC_SIM_FAULT_SLOW_GPU &&
	    (f->factor_milli < 1000 || f->factor_milli > CC_SIM_FAULT_MAX_FACTOR * 1000))
		return cc_errf(err, errlen, -EINVAL, "'%s': the factor is 1 to %u", text,
			       CC_SIM_FAULT_MAX_FACTOR);
	if (f->kind == CC_SIM_FAULT_LINK_DOWN && f->until_ps <= f->at_ps)
		return cc_errf(err, errlen, -EINVAL,
			       "'%s': the link must come back after it goes down", text);
	if ((f->kind != CC_SIM_FAULT_LINK_DOWN || !f->from[0]) &&
	    !(f->rank == CC_SIM_FAULT_ALL && f->kind != CC_SIM_FAULT_LINK_DOWN) &&
	    f->rank >= net->nranks)
		return cc_errf(err, errlen, -EINVAL,
			       "'%s': rank %" PRIu32 " does not exist: the network has "
			       "ranks 0 to %" PRIu32, text, f->rank, net->nranks - 1);
	if (f->kind != CC_SIM_FAULT_LINK_DOWN)
		return 0;
	if (!f->from[0]) {
		const struct sim_net_node *nd = &net->nodes[net->rank_node[f->rank]];

		if (f->port >= nd->nports)
			return cc_errf(err, errlen, -EINVAL,
				       "'%s': rank %" PRIu32 "'s NIC (%s) has %" PRIu32
				       " port%s", text, f->rank, nd->name, nd->nports,
				       nd->nports == 1 ? " (port=0)" : "s");
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		const char *name = i ? f->to : f->from;

		if (sim_net_find(net, name) == SIM_NET_NONE)
			return cc_errf(err, errlen, -EINVAL,
				       "'%s': the %s topology has no node '%s' (NICs are "
				       "named like %s)", text, net->name, name,
				       net->nranks ? net->nodes[net->rank_node[0]].name : "h0.gpu0");
	}
	if (!cc_sim_fault_links(f, net, NULL, 0))
		return cc_errf(err, errlen, -EINVAL,
			       "'%s': no link joins %s and %s in the %s topology", text,
			       f->from, f->to, net->name);
	return 0;
}

int cc_sim_faults_check(const struct cc_sim_fault *faults, uint32_t n, const struct sim_net *net,
			char *err, size_t errlen)
{
	char text[CC_SIM_FAULT_TEXT_LEN];

	for (uint32_t i = 0; i < n; i++) {
		int rc = check_one(&faults[i], net, cc_sim_fault_format(&faults[i], text,
									 sizeof(text)), err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}
