/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/scenario_nccl.c — a scenario's NCCL: `auto` for algorithm, protocol
 * and channels, `nccl_version:` (whose rules NCCL's choices follow) and
 * `env:` (the NCCL_* variables of the run it models), and NCCL's
 * communicator for the scenario's topology and fabric (core/nccl_auto.h,
 * docs/yaml.md). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/nccl_system.h"
#include "sim/scenario_int.h"

static bool is_auto(const struct cy_node *v)
{
	return v && v->kind == CY_SCALAR && !v->quoted && !strcmp(v->str, "auto");
}

int cc_scenario_auto_enum(const struct cy_node *doc, const char *key, const char *const *names,
			  unsigned count, unsigned *out, bool *autov, struct cy_error *err)
{
	const struct cy_node *v = cy_get(doc, key);

	*autov = is_auto(v);
	if (!v || *autov)
		return 0;
	return cy_enum(v, key, names, count, out, err);
}

int cc_scenario_auto_channels(const struct cy_node *doc, struct cc_scenario *sc,
			      struct cy_error *err)
{
	const struct cy_node *v = cy_get(doc, "channels");
	uint64_t x;
	int rc;

	/* `algorithm: auto` alone: NCCL chooses the channels too */
	sc->nccl.channels = is_auto(v) || (!v && sc->nccl.algo);
	if (!v || sc->nccl.channels)
		return 0;
	if (!(rc = cy_uint(v, "channels", 1, 64, &x, err)))
		sc->p.nchannels = (uint32_t)x;
	return rc;
}

/* env: {NCCL_ALGO: Ring, NCCL_MIN_NCHANNELS: 16, ...} */
static int read_env(const struct cy_node *m, struct cc_nccl_env *e, struct cy_error *err)
{
	if (m->kind != CY_MAP)
		return cy_fail(err, m, "'env': a map of NCCL variables (NCCL_ALGO: Ring, ...)");
	for (size_t i = 0; i < m->n; i++) {
		const struct cy_node *k = m->keys[i], *v = m->vals[i];
		char msg[256] = "";
		int rc;

		if (v->kind != CY_SCALAR)
			return cy_fail(err, v, "'%s': a value, as the variable would be set in the "
				       "environment", k->str);
		rc = cc_nccl_env_set(e, k->str, v->str, msg, sizeof(msg));
		if (rc == -ENOENT && cc_nccl_env_inert(k->str))
			continue;
		if (rc == -ENOENT) {
			char names[1024] = "";
			size_t used = 0;

			for (const char *const *n = cc_nccl_env_names; *n && used < sizeof(names);
			     n++) {
				int w = snprintf(names + used, sizeof(names) - used, "%s%s",
						 used ? ", " : "", *n);
				used += w > 0 ? (size_t)w : 0;
			}
			return cy_fail(err, k, "'%s': not a variable cclab models (%s)", k->str,
				       names);
		}
		if (rc)
			return cy_fail(err, v, "%s", msg);
	}
	return 0;
}

int cc_scenario_nccl_read(const struct cy_node *doc, struct cc_scenario *sc,
			  struct cy_error *err)
{
	const struct cy_node *v;
	char msg[256] = "";

	/* `algorithm: auto` alone: NCCL chooses the protocol too */
	if (sc->nccl.algo && !cy_get(doc, "protocol"))
		sc->nccl.proto = true;
	if ((v = cy_get(doc, "nccl_version"))) {
		if (v->kind != CY_SCALAR)
			return cy_fail(err, v, "'nccl_version': a release, as 2.23.4");
		if (cc_nccl_version_parse(v->str, &sc->nccl.version, msg, sizeof(msg)))
			return cy_fail(err, v, "'nccl_version': %s", msg);
	}
	if ((v = cy_get(doc, "env")))
		return read_env(v, &sc->nccl.env, err);
	return 0;
}

int cc_scenario_nccl_finish(const struct cy_node *doc, struct cc_scenario *sc,
			    struct cy_error *err)
{
	struct cc_nccl_system sys;
	char msg[256] = "";
	struct cc_nccl_auto *a = &sc->nccl;

	if (!cc_nccl_auto_any(a))
		return 0;
	if (sim_nccl_system(&sc->net, &sc->fabric, &sys, msg, sizeof(msg)) ||
	    cc_nccl_comm_init(&a->comm, &a->version, &sys, &a->env, msg, sizeof(msg)))
		return cy_fail(err, cy_get(doc, "topology"), "'topology': NCCL's choices (auto): %s",
			       msg);
	/* NCCL_ALGO / NCCL_PROTO that leave nothing to run, said at `env`
	 * now rather than by every size (the choice's availability does not
	 * depend on the size). */
	struct cc_coll_params p = sc->p;
	struct cc_nccl_pick pick;

	if (cc_nccl_auto_apply(a, sc->minbytes, &p, &pick, msg, sizeof(msg))) {
		const struct cy_node *at = cy_get(doc, "env");

		return cy_fail(err, at ? at : cy_get(doc, "algorithm"), "%s'%s': %s",
			       at ? "" : "NCCL's choices: ", at ? "env" : "algorithm", msg);
	}
	/* Until a size picks: the communicator's channels, and rings that
	 * leave and enter each node on one rail as NCCL's do (connect.cc). */
	if (a->channels)
		sc->p.nchannels = a->comm.nchannels;
	if (cc_nccl_rail_rings(a, sc->p.coll, &sys) && !cy_get(doc, "ring_order"))
		sc->p.ring_order = CC_RING_ORDER_RAIL;
	return 0;
}

void cc_scenario_nccl_json(struct cc_json *j, const struct cc_scenario *sc)
{
	const struct cc_nccl_auto *a = &sc->nccl;
	char v[32];

	snprintf(v, sizeof(v), "%u.%u.%u", a->version.major, a->version.minor, a->version.patch);
	cc_json_key(j, "nccl");
	cc_json_object_begin(j);
	cc_json_kv_bool(j, "algorithm_auto", a->algo);
	cc_json_kv_bool(j, "protocol_auto", a->proto);
	cc_json_kv_bool(j, "channels_auto", a->channels);
	cc_json_kv_string(j, "version", v);
	cc_json_kv_uint(j, "comm_channels", a->comm.nchannels);
	cc_json_kv_uint(j, "nvls_channels", a->comm.nvls_nchannels);
	cc_json_object_end(j);
}
