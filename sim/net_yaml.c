/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/net_yaml.c — topologies from YAML (sim/net_yaml.h, docs/yaml.md).
 *
 * Every value goes through the strict getters of util/yaml.h, so a typo,
 * a wrong unit or a missing field stops the load with file:line:col; the
 * network's own checks (sim_net_finish: connected, every rank reachable)
 * are reported at the topology's first line, since they concern it whole.
 */
#include "sim/net_yaml.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/schedule.h"

#define MAX_RANKS CC_MAX_RANKS
#define MAX_COUNT 4096u

static const char *const generators[] = {"ring", "star", "leafspine", "railopt", NULL};
enum { GEN_RING, GEN_STAR, GEN_LEAFSPINE, GEN_RAILOPT };

/* "N:M" with whole N, M >= 1. */
static int ratio(const struct cy_node *v, const char *key, uint32_t *num, uint32_t *den,
		 struct cy_error *err)
{
	unsigned long a, b;
	char tail;

	if (v->kind != CY_SCALAR ||
	    sscanf(v->str, "%lu:%lu%c", &a, &b, &tail) != 2 || a < 1 || b < 1 || a > 1000 ||
	    b > 1000 || strspn(v->str, "0123456789:") != v->len)
		return cy_fail(err, v, "'%s': expected a ratio of downlink to uplink capacity "
			       "such as \"2:1\" or \"1:1\"", key);
	*num = (uint32_t)a;
	*den = (uint32_t)b;
	return 0;
}

/* A required whole number in [min, max]. */
static int need_uint(const struct cy_node *m, const char *what, const char *key, uint64_t min,
		     uint64_t max, uint32_t *out, struct cy_error *err)
{
	const struct cy_node *v;
	uint64_t x;
	int rc = cy_require(m, what, key, &v, err);

	if (!rc)
		rc = cy_uint(v, key, min, max, &x, err);
	if (!rc)
		*out = (uint32_t)x;
	return rc;
}

/* Reports sim_net_finish()'s or a generator's message at the topology. */
static int net_error(const struct cy_node *t, int rc, const char *msg, struct cy_error *err)
{
	if (rc == -ENOMEM) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory building the topology",
			 t->file);
		return rc;
	}
	cy_fail(err, t, "%s", msg);
	return rc;
}

/* pcie: {switches: S, uplink: RATE, latency: TIME} for host h
 * (sim_net_pcie). */
static int host_pcie(struct sim_net *n, uint32_t h, const struct cy_node *v,
		     struct cy_error *err)
{
	static const char *const keys[] = {"switches", "uplink", "latency", NULL};
	struct sim_net_pcie pc = {.latency_ps = SIM_NET_DEFAULT_PROP};
	const struct cy_node *x;
	int rc = cy_check_map(v, "'pcie'", keys, err);

	if (!rc)
		rc = need_uint(v, "'pcie'", "switches", 1, 64, &pc.switches, err);
	if (!rc && (x = cy_get(v, "uplink")))
		rc = cy_rate(x, "uplink", &pc.uplink_bps, err); /* refuses 0 */
	if (!rc && (x = cy_get(v, "latency")) && !(rc = cy_time(x, "latency", &pc.latency_ps, err)) &&
	    pc.latency_ps > 1000 * SIM_PS_PER_MS)
		return cy_fail(err, x, "'latency': a PCIe switch hop of over a second");
	if (rc)
		return rc;
	if (n->hosts[h].ngpus % pc.switches)
		return cy_fail(err, cy_get(v, "switches"), "'switches': %u PCIe switches do not "
			       "split host '%s''s %u GPUs evenly", pc.switches, n->hosts[h].name,
			       n->hosts[h].ngpus);
	return sim_net_host_pcie(n, h, &pc) ? cy_fail(err, v, "'pcie': cannot be set here") : 0;
}

static int from_generator(struct sim_net *n, const struct cy_node *t, struct cy_error *err)
{
	static const char *const keys[][8] = {
		[GEN_RING] = {"generator", "ranks", "name", NULL},
		[GEN_STAR] = {"generator", "ranks", "name", NULL},
		[GEN_LEAFSPINE] = {"generator", "hosts_per_leaf", "leaves", "spines",
				   "oversubscription", "name", NULL},
		[GEN_RAILOPT] = {"generator", "nodes", "gpus_per_node", "spines", "nics", "pcie",
				 "name", NULL},
	};
	char msg[SIM_NET_ERR_LEN] = "";
	uint32_t a = 0, b = 0, c = 0, num = 1, den = 1, nics = 1;
	unsigned gen;
	int rc = cy_enum(cy_get(t, "generator"), "generator", generators, 4, &gen, err);

	if (!rc)
		rc = cy_check_map(t, "the topology", keys[gen], err);
	if (rc)
		return rc;
	switch (gen) {
	case GEN_RING:
	case GEN_STAR:
		rc = need_uint(t, "the topology", "ranks", 1, MAX_RANKS, &a, err);
		if (!rc)
			rc = gen == GEN_RING ? sim_net_ring(n, a, msg, sizeof(msg))
					     : sim_net_star(n, a, msg, sizeof(msg));
		break;
	case GEN_LEAFSPINE:
		rc = need_uint(t, "the topology", "hosts_per_leaf", 1, MAX_RANKS, &a, err);
		if (!rc)
			rc = need_uint(t, "the topology", "leaves", 1, MAX_RANKS, &b, err);
		if (!rc)
			rc = need_uint(t, "the topology", "spines", 1, MAX_COUNT, &c, err);
		if (!rc && cy_get(t, "oversubscription"))
			rc = ratio(cy_get(t, "oversubscription"), "oversubscription", &num, &den,
				   err);
		if (!rc && (uint64_t)a * b > MAX_RANKS)
			return cy_fail(err, t, "%u hosts per leaf x %u leaves = %llu ranks; at most "
				       "%u", a, b, (unsigned long long)a * b, MAX_RANKS);
		if (!rc)
			rc = sim_net_leafspine(n, a, b, c, num, den, msg, sizeof(msg));
		break;
	case GEN_RAILOPT:
		rc = need_uint(t, "the topology", "nodes", 1, MAX_RANKS, &a, err);
		if (!rc)
			rc = need_uint(t, "the topology", "gpus_per_node", 1, 64, &b, err);
		if (!rc)
			rc = need_uint(t, "the topology", "spines", 0, MAX_COUNT, &c, err);
		if (!rc && (uint64_t)a * b > MAX_RANKS)
			return cy_fail(err, t, "%u nodes x %u GPUs = %llu ranks; at most %u", a, b,
				       (unsigned long long)a * b, MAX_RANKS);
		if (!rc && cy_get(t, "nics"))
			rc = need_uint(t, "the topology", "nics", 1, SIM_NET_MAX_NICS, &nics, err);
		if (!rc)
			rc = sim_net_railopt_nics(n, a, b, nics, c, msg, sizeof(msg));
		for (uint32_t h = 0; !rc && cy_get(t, "pcie") && h < n->nhosts; h++)
			rc = host_pcie(n, h, cy_get(t, "pcie"), err);
		break;
	}
	if (rc && msg[0])
		return net_error(t, rc, msg, err);
	return rc;
}

static bool host_named(const struct sim_net *n, const char *name)
{
	for (uint32_t i = 0; i < n->nhosts; i++)
		if (!strcmp(n->hosts[i].name, name))
			return true;
	return false;
}

/* hosts: a list of {name, gpus, nvlink} or {prefix, count, gpus, nvlink}. */
static int read_hosts(struct sim_net *n, const struct cy_node *list, struct cy_error *err)
{
	static const char *const keys[] = {"name", "prefix", "count", "gpus", "nvlink", "pcie",
					   "nics", NULL};

	if (list->kind != CY_SEQ || list->n == 0)
		return cy_fail(err, list, "'hosts': expected a non-empty list of hosts, found %s",
			       cy_kind_name(list));
	for (size_t i = 0; i < list->n; i++) {
		const struct cy_node *h = list->vals[i], *v;
		const char *name = NULL;
		uint32_t gpus = 1, count = 1, nics = 0;
		bool nvlink = false;
		int rc = cy_check_map(h, "a host", keys, err);

		if (!rc && cy_get(h, "nics"))
			rc = need_uint(h, "a host", "nics", 1, SIM_NET_MAX_NICS, &nics, err);
		if (!rc && (v = cy_get(h, "gpus")))
			rc = need_uint(h, "a host", "gpus", 1, 64, &gpus, err);
		if (!rc && (v = cy_get(h, "nvlink")))
			rc = cy_bool(v, "nvlink", &nvlink, err);
		if (!rc && cy_get(h, "name") && (cy_get(h, "prefix") || cy_get(h, "count")))
			return cy_fail(err, h, "a host has either 'name', or 'prefix' and 'count'");
		if (!rc && cy_get(h, "name"))
			rc = cy_string(cy_get(h, "name"), "name", &name, err);
		else if (!rc) {
			rc = cy_require(h, "a host", "prefix", &v, err);
			if (!rc)
				rc = cy_string(v, "prefix", &name, err);
			if (!rc)
				rc = need_uint(h, "a host", "count", 1, MAX_RANKS, &count, err);
		}
		if (rc)
			return rc;
		for (uint32_t c = 0; c < count; c++) {
			char hn[SIM_NET_NAME_LEN];

			if (cy_get(h, "name"))
				snprintf(hn, sizeof(hn), "%s", name);
			else
				snprintf(hn, sizeof(hn), "%s%u", name, c);
			if ((uint64_t)n->nranks + gpus > MAX_RANKS)
				return cy_fail(err, h, "more than %u GPUs in the topology", MAX_RANKS);
			if (host_named(n, hn) || sim_net_find(n, hn) != SIM_NET_NONE)
				return cy_fail(err, h, "host name '%s' is already used", hn);
			if (strlen(hn) + sizeof(".nvswitch") > SIM_NET_NAME_LEN)
				return cy_fail(err, h, "host name '%s' is too long (at most %zu "
					       "characters)", hn, SIM_NET_NAME_LEN - sizeof(".nvswitch"));
			if (sim_net_add_host(n, hn, gpus, nvlink) == SIM_NET_NONE)
				return cy_fail(err, h, "cannot add host '%s' (out of memory)", hn);
			if ((v = cy_get(h, "pcie")) && (rc = host_pcie(n, n->nhosts - 1, v, err)))
				return rc;
			if (nics && sim_net_host_nics(n, n->nhosts - 1, nics))
				return cy_fail(err, h, "cannot set 'nics' on host '%s'", hn);
		}
	}
	return 0;
}

/* A switch: its name, or {name: NAME, sharp: BOOL}. */
static int read_switch(const struct cy_node *v, const char **name, bool *sharp,
		       struct cy_error *err)
{
	static const char *const keys[] = {"name", "sharp", NULL};
	const struct cy_node *sv, *nv;
	int rc;

	*sharp = false;
	if (v->kind != CY_MAP)
		return cy_string(v, "switches", name, err);
	if ((rc = cy_check_map(v, "a switch", keys, err)) ||
	    (rc = cy_require(v, "a switch", "name", &nv, err)) ||
	    (rc = cy_string(nv, "name", name, err)))
		return rc;
	return (sv = cy_get(v, "sharp")) ? cy_bool(sv, "sharp", sharp, err) : 0;
}

static int read_switches(struct sim_net *n, const struct cy_node *list, struct cy_error *err)
{
	if (list->kind != CY_SEQ)
		return cy_fail(err, list, "'switches': expected a list of names or {name, sharp}, "
			       "found %s", cy_kind_name(list));
	for (size_t i = 0; i < list->n; i++) {
		const char *name;
		bool sharp;
		uint32_t u;
		int rc = read_switch(list->vals[i], &name, &sharp, err);

		if (rc)
			return rc;
		if (sim_net_find(n, name) != SIM_NET_NONE)
			return cy_fail(err, list->vals[i], "switch name '%s' is already used", name);
		if (strlen(name) >= SIM_NET_NAME_LEN)
			return cy_fail(err, list->vals[i], "switch name '%s' is too long (at most %d "
				       "characters)", name, SIM_NET_NAME_LEN - 1);
		if ((u = sim_net_add_switch(n, name)) == SIM_NET_NONE)
			return cy_fail(err, list->vals[i], "cannot add switch '%s' (out of memory)",
				       name);
		n->nodes[u].sharp = sharp;
	}
	return 0;
}

/* A node named by the value of key in link l. */
static int node_ref(const struct sim_net *n, const struct cy_node *l, const char *key,
		    uint32_t *node, struct cy_error *err)
{
	const struct cy_node *v;
	const char *name;
	int rc = cy_require(l, "a link", key, &v, err);

	if (!rc)
		rc = cy_string(v, key, &name, err);
	if (rc)
		return rc;
	*node = sim_net_find(n, name);
	if (*node == SIM_NET_NONE)
		return cy_fail(err, v, "'%s': no host GPU or switch named '%s' (GPUs are named "
			       "<host>.gpu<i>)", key, name);
	return 0;
}

static int read_links(struct sim_net *n, const struct cy_node *list, struct cy_error *err)
{
	static const char *const keys[] = {"a", "b", "count", "rate", "latency", "mtu", "kind",
					   NULL};
	static const char *const kinds[] = {"net", "nvlink", NULL};

	if (list->kind != CY_SEQ)
		return cy_fail(err, list, "'links': expected a list of links, found %s",
			       cy_kind_name(list));
	for (size_t i = 0; i < list->n; i++) {
		const struct cy_node *l = list->vals[i], *v;
		uint64_t rate = 0, prop = SIM_NET_DEFAULT_PROP, mtu = 0, count = 1;
		unsigned kind = SIM_NET_LINK_NET;
		uint32_t a, b;
		int rc = cy_check_map(l, "a link", keys, err);

		if (!rc)
			rc = node_ref(n, l, "a", &a, err);
		if (!rc)
			rc = node_ref(n, l, "b", &b, err);
		if (!rc && a == b)
			return cy_fail(err, l, "a link joins a node to itself");
		if (!rc && (v = cy_get(l, "count")))
			rc = cy_uint(v, "count", 1, 64, &count, err);
		if (!rc && (v = cy_get(l, "rate")))
			rc = cy_rate(v, "rate", &rate, err);
		if (!rc && (v = cy_get(l, "latency")))
			rc = cy_time(v, "latency", &prop, err);
		if (!rc && (v = cy_get(l, "mtu"))) {
			rc = cy_uint(v, "mtu", 256, 4096, &mtu, err);
			if (!rc && (mtu & (mtu - 1)))
				return cy_fail(err, v, "'mtu': %llu is not an IB path MTU; expected "
					       "256, 512, 1024, 2048 or 4096",
					       (unsigned long long)mtu);
		}
		if (!rc && (v = cy_get(l, "kind")))
			rc = cy_enum(v, "kind", kinds, 2, &kind, err);
		if (rc)
			return rc;
		/* NVLink is a GPU's own bus to its host's GPUs and NVSwitch
		 * (docs/yaml.md): a network switch or another host does not
		 * speak it, and such a link would model a path that is faster
		 * than any the cluster has. */
		if (kind == SIM_NET_LINK_NVLINK && !sim_net_same_host(n, a, b))
			return cy_fail(err, v, "'kind: nvlink' joins GPUs and the NVSwitch of one "
				       "host; %s and %s are %s: make it a net link", n->nodes[a].name,
				       n->nodes[b].name,
				       n->nodes[a].host == SIM_NET_NONE || n->nodes[b].host == SIM_NET_NONE
				       ? "not both in a host" : "in different hosts");
		for (uint64_t c = 0; c < count; c++)
			if (sim_net_add_link(n, a, b, (enum sim_net_link_kind)kind, rate, prop,
					     (uint32_t)mtu) == SIM_NET_NONE)
				return cy_fail(err, l, "cannot add this link (out of memory)");
	}
	return 0;
}

static int written_out(struct sim_net *n, const struct cy_node *t, struct cy_error *err)
{
	static const char *const keys[] = {"name", "hosts", "switches", "links", NULL};
	char msg[SIM_NET_ERR_LEN];
	const struct cy_node *v;
	int rc = cy_check_map(t, "the topology", keys, err);

	if (!rc && (v = cy_get(t, "name"))) {
		const char *name;

		rc = cy_string(v, "name", &name, err);
		if (!rc)
			snprintf(n->name, sizeof(n->name), "%s", name);
	}
	if (!rc)
		rc = cy_require(t, "the topology", "hosts", &v, err);
	if (!rc)
		rc = read_hosts(n, v, err);
	if (!rc && (v = cy_get(t, "switches")))
		rc = read_switches(n, v, err);
	if (!rc && (v = cy_get(t, "links")))
		rc = read_links(n, v, err);
	if (rc)
		return rc;
	rc = sim_net_finish(n, true, msg, sizeof(msg));
	return rc ? net_error(t, rc, msg, err) : 0;
}

/* The directory part of path ("" for none), into buf. */
static void dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) + 1 : 0;

	if (n >= len)
		n = len - 1;
	memcpy(buf, path, n);
	buf[n] = '\0';
}

int sim_net_load(struct sim_net *n, const char *path, struct cy_error *err)
{
	struct cy_doc doc = {0};
	char dir[PATH_MAX];
	int rc = cy_load_file(path, &doc, err);

	if (rc)
		return rc;
	dir_of(path, dir, sizeof(dir));
	rc = cy_doc_map(&doc, "topology", err);
	if (!rc)
		rc = sim_net_from_yaml(n, doc.root, dir, err);
	cy_free(&doc);
	return rc;
}

int sim_net_from_yaml(struct sim_net *n, const struct cy_node *t, const char *base_dir,
		      struct cy_error *err)
{
	if (t->kind == CY_SCALAR) {
		char path[PATH_MAX];
		const char *name;
		int rc = cy_string(t, "topology", &name, err);

		if (rc)
			return rc;
		if (name[0] == '/')
			snprintf(path, sizeof(path), "%s", name);
		else if ((size_t)snprintf(path, sizeof(path), "%s%s", base_dir, name) >= sizeof(path))
			return cy_fail(err, t, "topology path too long");
		rc = sim_net_load(n, path, err);
		/* A file that cannot be read is this key's fault: say where. */
		if (rc && rc != -EINVAL && rc != -ENOMEM) {
			struct cy_error why = *err;

			return cy_fail(err, t, "'topology': %s", why.msg);
		}
		return rc;
	}
	if (t->kind != CY_MAP)
		return cy_fail(err, t, "'topology': expected a mapping (a generator, or hosts and "
			       "links) or a file name, found %s", cy_kind_name(t));
	if (cy_get(t, "generator")) {
		int rc = from_generator(n, t, err);
		const struct cy_node *v = cy_get(t, "name");
		const char *name;

		if (!rc && v && !(rc = cy_string(v, "name", &name, err)))
			snprintf(n->name, sizeof(n->name), "%s", name);
		return rc;
	}
	return written_out(n, t, err);
}
