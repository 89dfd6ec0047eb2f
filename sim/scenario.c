/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/scenario.c — scenario files (sim/scenario.h, docs/yaml.md). */
#include "sim/scenario.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/algo.h"
#include "core/dtype.h"
#include "core/results.h"
#include "sim/exec.h"
#include "sim/fabric_yaml.h"
#include "sim/nccl_system.h"
#include "sim/net_yaml.h"
#include "sim/scenario_int.h"
#include "sim/topo.h"

static const char *const top_keys[] = {
	"name", "description", "topology", "fabric", "collective", "p2p", "algorithm",
	"transport", "protocol", "dtype", "redop", "ranks", "sizes", "chunk_bytes", "slot_bytes",
	"slots", "channels", "ring_order", "nccl_version", "env",
	"seed", "executors", "check", "expect", "memory", "root", "faults", "model", "launch", NULL,
};

#define MAX_RANKS CC_MAX_RANKS
#define MAX_SLOTS 1024u

/* ---- sizes and expectations ---- */

static int read_sizes(const struct cy_node *s, struct cc_scenario *sc, struct cy_error *err)
{
	static const char *const keys[] = {"min", "max", "factor", NULL};
	const struct cy_node *v;
	int rc;

	if (s->kind == CY_SCALAR) { /* one size */
		rc = cy_size(s, "sizes", 0, UINT64_MAX, &sc->minbytes, err);
		sc->maxbytes = sc->minbytes;
		return rc;
	}
	rc = cy_check_map(s, "'sizes'", keys, err);
	if (!rc)
		rc = cy_require(s, "'sizes'", "min", &v, err);
	if (!rc)
		rc = cy_size(v, "min", 0, UINT64_MAX, &sc->minbytes, err);
	sc->maxbytes = sc->minbytes;
	if (!rc && (v = cy_get(s, "max")))
		rc = cy_size(v, "max", 0, UINT64_MAX, &sc->maxbytes, err);
	if (!rc && (v = cy_get(s, "factor")))
		rc = cy_uint(v, "factor", 2, 1024, &sc->stepfactor, err);
	if (!rc && sc->maxbytes < sc->minbytes)
		return cy_fail(err, cy_get(s, "max"), "'max' (%llu bytes) is below 'min' (%llu "
			       "bytes)", (unsigned long long)sc->maxbytes,
			       (unsigned long long)sc->minbytes);
	return rc;
}

int cc_scenario_read_range(const struct cy_node *m, const char *key, cc_scenario_value_fn value,
			   uint64_t *lo, uint64_t *hi, struct cy_error *err)
{
	static const char *const keys[] = {"min", "max", NULL};
	char what[48];
	const struct cy_node *v;
	int rc;

	snprintf(what, sizeof(what), "'%s'", key);
	rc = cy_check_map(m, what, keys, err);
	if (!rc && !cy_get(m, "min") && !cy_get(m, "max"))
		return cy_fail(err, m, "'%s': give 'min', 'max' or both", key);
	if (!rc && (v = cy_get(m, "min")))
		rc = value(v, "min", lo, err);
	if (!rc && (v = cy_get(m, "max")))
		rc = value(v, "max", hi, err);
	if (!rc && *hi < *lo)
		return cy_fail(err, m, "'%s': max is below min", key);
	return rc;
}

static int read_expect(const struct cy_node *list, struct cc_scenario *sc, struct cy_error *err)
{
	/* A collective's or a p2p test's (sim/scenario_p2p.c). */
	const char *const *keys = cc_scenario_expect_keys(sc);

	if (list->kind != CY_SEQ)
		return cy_fail(err, list, "'expect': expected a list of {%s}, found %s",
			       sc->is_p2p ? "size, lat, bw, msg_rate"
					  : "size, time, busbw, data_bytes_per_rank",
			       cy_kind_name(list));
	sc->expect = calloc(list->n ? list->n : 1, sizeof(*sc->expect));
	if (!sc->expect)
		return -ENOMEM;
	for (size_t i = 0; i < list->n; i++) {
		const struct cy_node *e = list->vals[i], *v;
		struct cc_expect *x = &sc->expect[sc->nexpect];
		int rc = e->kind == CY_MAP ? cc_scenario_expect_kind(e, sc, err) : 0;

		if (!rc)
			rc = cy_check_map(e, "an expectation", keys, err);
		*x = (struct cc_expect){ .line = e->line, .time_max_ps = UINT64_MAX,
					 .busbw_max_bps = UINT64_MAX, .data_bytes = UINT64_MAX,
					 .lat_max_ps = UINT64_MAX, .bw_max_bps = UINT64_MAX,
					 .rate_max_pps = UINT64_MAX };
		snprintf(x->where, sizeof(x->where), "%s:%u", e->file, e->line);
		if (!rc)
			rc = cy_require(e, "an expectation", "size", &v, err);
		if (!rc)
			rc = cy_size(v, "size", 0, UINT64_MAX, &x->size, err);
		if (!rc && sc->is_p2p)
			rc = cc_scenario_p2p_expect(e, sc, x, err);
		if (!rc && (v = cy_get(e, "time")))
			rc = cc_scenario_read_range(v, "time", cy_time, &x->time_min_ps,
						    &x->time_max_ps, err);
		if (!rc && (v = cy_get(e, "busbw")))
			rc = cc_scenario_read_range(v, "busbw", cy_rate, &x->busbw_min_bps,
						    &x->busbw_max_bps, err);
		if (!rc && (v = cy_get(e, "data_bytes_per_rank")))
			rc = cy_size(v, "data_bytes_per_rank", 0, UINT64_MAX, &x->data_bytes, err);
		if (rc)
			return rc;
		for (uint32_t j = 0; j < sc->nexpect; j++)
			if (sc->expect[j].size == x->size)
				return cy_fail(err, e, "a second expectation for size %llu (the first "
					       "is on line %u)", (unsigned long long)x->size,
					       sc->expect[j].line);
		sc->nexpect++;
	}
	return 0;
}

/* ---- the rest ---- */

static int read_executors(const struct cy_node *v, struct cc_scenario *sc, struct cy_error *err)
{
	memset(sc->executor, 0, sizeof(sc->executor));
	if (v->kind != CY_SEQ || v->n == 0)
		return cy_fail(err, v, "'executors': expected a non-empty list of sim, data and "
			       "verbs, found %s", cy_kind_name(v));
	for (size_t i = 0; i < v->n; i++) {
		unsigned e;
		int rc = cy_enum(v->vals[i], "executors", cc_executor_name, CC_EXECUTOR_COUNT, &e,
				 err);

		if (rc)
			return rc;
		if (sc->executor[e])
			return cy_fail(err, v->vals[i], "'%s' is listed twice", cc_executor_name[e]);
		sc->executor[e] = true;
	}
	return 0;
}

/* Whether s starts with a simulator fault's kind ("no-ack:..."): then its
 * own message says what is wrong, with no other grammar to offer. */
static bool sim_fault_kind_known(const char *s)
{
	for (int k = 0; k < CC_SIM_FAULT_KIND_COUNT; k++) {
		size_t n = strlen(cc_sim_fault_kind_name[k]);

		if (!strncmp(s, cc_sim_fault_kind_name[k], n) && s[n] == ':')
			return true;
	}
	return false;
}

/* faults: a list of faults in the text form `--fault` takes: the
 * simulator's (sim/fault.h), each checked against the topology, which is
 * read by then, and key and receive faults, which every executor takes. */
static int read_faults(const struct cy_node *v, struct cc_scenario *sc, struct cy_error *err)
{
	char why[SIM_NET_ERR_LEN];

	if (sc->is_p2p)
		return cy_fail(err, v, "'faults' are the simulator's, for a collective; this "
			       "scenario runs a p2p test");
	if (v->kind != CY_SEQ)
		return cy_fail(err, v, "'faults': expected a list such as [\"link-down:h0.gpu0->"
			       "h1.gpu0@10us-50us\", \"slow-gpu:rank=1x2\"], found %s",
			       cy_kind_name(v));
	if (v->n > CC_SCENARIO_MAX_FAULTS)
		return cy_fail(err, v, "'faults': at most %u", CC_SCENARIO_MAX_FAULTS);
	for (size_t i = 0; i < v->n; i++) {
		struct cc_fault *kf = &sc->key_faults[sc->nkey_faults];
		struct cc_sim_fault *sf = &sc->faults[sc->nfaults];
		const char *s;
		int rc = cy_string(v->vals[i], "faults", &s, err);

		if (rc)
			return rc;
		/* A key or receive fault, as --fault takes it; its op is
		 * checked against each size's schedule when that is built. */
		rc = cc_fault_parse(s, kf, why, sizeof(why));
		if (rc == -EINVAL)
			return cy_fail(err, v->vals[i], "'faults': '%s': %s", s, why);
		if (!rc) {
			if (kf->rank >= sc->p.nranks)
				return cy_fail(err, v->vals[i], "'faults': '%s': rank %" PRIu32
					       " does not exist (%" PRIu32 " ranks)", s, kf->rank,
					       sc->p.nranks);
			sc->nkey_faults++;
			continue;
		}
		if (cc_sim_fault_parse(s, sf, why, sizeof(why)))
			return cy_fail(err, v->vals[i], "'faults': '%s': %s%s", s, why,
				       sim_fault_kind_known(s) ? "" : ", or rkey|lkey|norecv:RANK:OP");
		if (cc_sim_faults_check(sf, 1, &sc->net, why, sizeof(why)))
			return cy_fail(err, v->vals[i], "'faults': %s", why);
		sc->nfaults++;
	}
	return 0;
}

/* A switch buffer the fabric's IB credits would over-commit on this
 * topology (sim_topo_credit_check()): at switch.buffer_bytes when the
 * scenario gives it, else at the fabric. */
static int check_credits(const struct cy_node *d, const struct cc_scenario *sc,
			 struct cy_error *err)
{
	const struct cy_node *at = cy_get(d, "fabric");
	char why[SIM_NET_ERR_LEN];

	if (!sim_topo_credit_check(&sc->net, &sc->fabric, why, sizeof(why)))
		return 0;
	if (at && cy_get(cy_get(at, "switch"), "buffer_bytes"))
		at = cy_get(cy_get(at, "switch"), "buffer_bytes");
	return cy_fail(err, at ? at : d, "'fabric': %s", why);
}

/* check: true, false, or a size up to which the data is carried. */
static int read_check(const struct cy_node *v, struct cc_scenario *sc, struct cy_error *err)
{
	struct cy_error ignored;
	bool b;

	if (v->kind == CY_SCALAR && !cy_bool(v, "check", &b, &ignored)) {
		sc->check_max = b ? UINT64_MAX : 0;
		return 0;
	}
	/* A size needs its unit here: "check: 1" would read as one byte and
	 * check nothing, the opposite of `cclab sim --check 1`. */
	if (v->kind == CY_SCALAR && strspn(v->str, "0123456789") != v->len &&
	    !cy_size(v, "check", 0, UINT64_MAX, &sc->check_max, &ignored))
		return 0;
	return cy_fail(err, v, "'check': expected true, false, or a size with its unit up to which "
		       "the data is carried and checked (such as 64MiB)");
}

static int read_enum_key(const struct cy_node *doc, const char *key, const char *const *names,
			 unsigned count, unsigned *out, struct cy_error *err)
{
	const struct cy_node *v = cy_get(doc, key);

	return v ? cy_enum(v, key, names, count, out, err) : 0;
}

/* The size column of the row nccl-tests' loop prints for loop size s: its
 * count rounding (cc_result_counts(); a p2p test's sizes are bytes). */
static uint64_t shown_size(const struct cc_scenario *sc, uint64_t s)
{
	uint64_t count, shown;

	if (sc->is_p2p)
		return s;
	cc_result_counts(sc->p.coll, sc->p.nranks, cc_dtype_size(sc->p.dtype), s, &count, &shown);
	return shown;
}

/* Whether a row of nccl-tests' size loop (cc_result_next_size()) shows
 * `size`, the size an expectation is matched by (cc_scenario_expect()).
 * Else *as: what the loop size `size` shows instead (0: not a loop size). */
static bool in_sweep(const struct cc_scenario *sc, uint64_t size, uint64_t *as)
{
	uint64_t s = sc->minbytes;

	*as = 0;
	do {
		if (shown_size(sc, s) == size)
			return true;
		if (s == size)
			*as = shown_size(sc, s);
	} while (cc_result_next_size(&s, sc->stepfactor, sc->maxbytes));
	return false;
}

/* `launch: {gpus_per_thread, agg_iters, cuda_graph}`: nccl-tests' -g, -m
 * and -G (sim/launch.h).  The floor counts a thread's launches, not where
 * its GPUs sit: the topology may put them apart, as cclab's --topology
 * can for nccl-tests' -g. */
static int read_launch(const struct cy_node *m, struct cc_scenario *sc, struct cy_error *err)
{
	static const char *const keys[] = {"gpus_per_thread", "agg_iters", "cuda_graph", NULL};
	const struct cy_node *v;
	uint64_t x;
	int rc = cy_check_map(m, "'launch'", keys, err);

	if (!rc && (v = cy_get(m, "gpus_per_thread")) &&
	    !(rc = cy_uint(v, "gpus_per_thread", 1, CC_SIM_LAUNCH_MAX_GPUS, &x, err)))
		sc->launch.gpus_per_thread = (uint32_t)x;
	if (!rc && (v = cy_get(m, "agg_iters")) &&
	    !(rc = cy_uint(v, "agg_iters", 1, CC_SIM_LAUNCH_MAX_AGG, &x, err)))
		sc->launch.agg_iters = (uint32_t)x;
	if (!rc && (v = cy_get(m, "cuda_graph")))
		rc = cy_bool(v, "cuda_graph", &sc->launch.cuda_graph, err);
	return rc;
}

static int read_doc(const struct cy_node *d, const char *dir, struct cc_scenario *sc,
		    struct cy_error *err)
{
	const struct cy_node *v;
	unsigned coll = CC_ALLREDUCE, tr = CC_WRITE_IMM, dt = CC_FLOAT32, op = CC_SUM, alg = 0;
	unsigned proto = CC_PROTO_SIMPLE;
	uint64_t x;
	int rc = cy_check_map(d, "the scenario", top_keys, err);

	if (!rc && (v = cy_get(d, "name"))) {
		const char *name;

		rc = cy_string(v, "name", &name, err);
		if (!rc)
			snprintf(sc->name, sizeof(sc->name), "%s", name);
	}
	if (!rc && (v = cy_get(d, "description")))
		rc = cy_string(v, "description", &(const char *){NULL}, err);
	/* A p2p test instead of a collective: the collective's keys below
	 * are then absent (refused), their defaults unused. */
	if (!rc && cy_get(d, "p2p"))
		rc = cc_scenario_p2p_read(d, sc, err);
	if (!rc)
		rc = read_enum_key(d, "collective", cc_coll_name, CC_COLL_COUNT, &coll, err);
	alg = cc_algo_default((enum cc_coll)coll);
	if (!rc)
		rc = cc_scenario_auto_enum(d, "algorithm", cc_algo_name, CC_ALGO_COUNT, &alg,
					   &sc->nccl.algo, err);
	if (!rc)
		rc = read_enum_key(d, "transport", cc_transport_name, CC_TRANSPORT_COUNT, &tr, err);
	if (!rc)
		rc = cc_scenario_auto_enum(d, "protocol", cc_proto_name, CC_PROTO_COUNT, &proto,
					   &sc->nccl.proto, err);
	if (!rc)
		rc = cc_scenario_nccl_read(d, sc, err);
	if (!rc)
		rc = read_enum_key(d, "dtype", cc_dtype_name, CC_DTYPE_COUNT, &dt, err);
	if (!rc)
		rc = read_enum_key(d, "redop", cc_redop_name, CC_REDOP_COUNT, &op, err);
	sc->p.coll = coll;
	sc->p.algo = (enum cc_algo)alg;
	if (!rc && (v = cy_get(d, "root"))) {
		if (!cc_coll_rooted(sc->p.coll))
			rc = cy_fail(err, v, "'root': only broadcast and reduce have a root");
		else if (!(rc = cy_uint(v, "root", 0, MAX_RANKS - 1, &x, err)))
			sc->p.root = (uint32_t)x;
	}
	sc->p.transport = tr;
	sc->p.proto = (enum cc_proto)proto;
	sc->p.dtype = dt;
	sc->p.redop = op;
	if (!rc && (v = cy_get(d, "fabric")))
		rc = sim_fabric_from_yaml(&sc->fabric, v, dir, err);
	else if (!rc)
		sim_params_preset("ib-hdr", &sc->fabric);
	if (!rc && (v = cy_get(d, "memory"))) {
		unsigned m = 0;
		rc = cy_enum(v, "memory", cc_mem_kind_name, CC_MEM_KIND_COUNT, &m, err);
		sc->p.mem = (enum cc_mem_kind)m;
		sc->p.stage_mem = sc->p.mem;
	}
	/* fabric.host.gpu_dma host-staging: staging in host memory. */
	cc_sim_stage_for(&sc->p, &sc->fabric);
	/* and NCCL's IB transport on its link layer, under the file's env */
	sim_nccl_transport_for(&sc->p, &sc->fabric, &sc->nccl.env);
	if (!rc && (v = cy_get(d, "sizes")))
		rc = read_sizes(v, sc, err);
	else if (!rc && !sc->is_p2p) /* a p2p test has perftest's default */
		rc = cy_require(d, "the scenario", "sizes", &v, err);
	if (!rc && sc->is_p2p)
		rc = cc_scenario_p2p_sizes(d, sc, err);
	if (!rc && (v = cy_get(d, "chunk_bytes"))) {
		rc = cy_size(v, "chunk_bytes", 1, UINT32_MAX, &sc->p.chunk_bytes, err);
		sc->chunk_given = true;
	}
	if (!rc && (v = cy_get(d, "slot_bytes"))) {
		rc = cy_size(v, "slot_bytes", 1, UINT32_MAX, &sc->p.slot_bytes, err);
		sc->slot_given = true;
	}
	if (!rc)
		rc = cc_scenario_auto_channels(d, sc, err);
	if (!rc && (v = cy_get(d, "slots")) && !(rc = cy_uint(v, "slots", 1, MAX_SLOTS, &x, err)))
		sc->p.nslots = (uint32_t)x;
	if (!rc && (v = cy_get(d, "seed")))
		rc = cy_uint(v, "seed", 0, UINT64_MAX, &sc->seed, err);
	if (!rc && (v = cy_get(d, "executors")))
		rc = read_executors(v, sc, err);
	if (!rc && (v = cy_get(d, "model")) &&
	    !(rc = cy_enum(v, "model", cc_sim_model_name, CC_SIM_MODEL_COUNT, &sc->model, err)) &&
	    sc->is_p2p && sc->model != CC_SIM_MODEL_PACKET)
		rc = cy_fail(err, v, "model: flow is for collectives; a p2p: test runs on the "
			     "packet model, as perftest's figures need");
	if (!rc && (v = cy_get(d, "check")))
		rc = read_check(v, sc, err);
	if (!rc && (v = cy_get(d, "launch")))
		rc = read_launch(v, sc, err);
	if (!rc)
		rc = cy_require(d, "the scenario", "topology", &v, err);
	if (!rc)
		rc = sim_net_from_yaml(&sc->net, v, dir, err);
	if (!rc && sc->is_p2p)
		rc = cc_scenario_p2p_net(d, sc, err);
	if (!rc)
		rc = check_credits(d, sc, err);
	if (rc)
		return rc;
	sc->p.nranks = sc->net.nranks;
	sc->p.ranks_per_node = sim_net_ranks_per_node(&sc->net);
	sim_nccl_stage_for(&sc->p, &sc->fabric, &sc->nccl.env);
	if ((rc = cc_scenario_nccl_finish(d, sc, err)))
		return rc;
	if (sc->p.nranks % sc->launch.gpus_per_thread) /* threads' GPUs, as nccl-tests counts */
		return cy_fail(err, cy_get(cy_get(d, "launch"), "gpus_per_thread"),
			       "'gpus_per_thread': %u, but the topology's %u ranks are not a whole "
			       "number of threads of that many GPUs", sc->launch.gpus_per_thread,
			       sc->p.nranks);
	if ((v = cy_get(d, "ring_order"))) {
		unsigned o = 0;

		if ((rc = cy_enum(v, "ring_order", cc_ring_order_name, CC_RING_ORDER_COUNT, &o, err)))
			return rc;
		sc->p.ring_order = (enum cc_ring_order)o;
	}
	if ((v = cy_get(d, "ranks"))) {
		rc = cy_uint(v, "ranks", 1, MAX_RANKS, &x, err);
		if (!rc && x != sc->net.nranks)
			return cy_fail(err, v, "'ranks': %llu, but the topology has %u GPUs (one rank "
				       "per GPU); leave 'ranks' out to use them all",
				       (unsigned long long)x, sc->net.nranks);
	}
	if (!rc && (v = cy_get(d, "faults")))
		rc = read_faults(v, sc, err);
	if (!rc && (v = cy_get(d, "expect")))
		rc = read_expect(v, sc, err);
	for (uint32_t i = 0; !rc && i < sc->nexpect; i++) {
		const struct cy_node *e = v->vals[i];
		uint64_t as;

		if (in_sweep(sc, sc->expect[i].size, &as))
			continue;
		if (as)
			return cy_fail(err, cy_get(e, "size"), "'size': %llu bytes runs as %llu, "
				       "the size its row shows (nccl-tests' count for %s on %u "
				       "ranks); write %llu", (unsigned long long)sc->expect[i].size,
				       (unsigned long long)as, cc_coll_name[sc->p.coll], sc->p.nranks,
				       (unsigned long long)as);
		return cy_fail(err, cy_get(e, "size"), "'size': %llu bytes is not a size of "
			       "the sweep (min %llu, max %llu, factor %llu), so it would never "
			       "be checked", (unsigned long long)sc->expect[i].size,
			       (unsigned long long)sc->minbytes, (unsigned long long)sc->maxbytes,
			       (unsigned long long)sc->stepfactor);
	}
	return rc;
}

/* The algorithm core's rules on the collective (cc_params_check(): the
 * algorithm that builds it, channels, root, ring order, the nodes the
 * hierarchical and tree algorithms need, a chunk that can make progress
 * with the slots), in its words, at the key that sets the parameter: the
 * topology for the ranks and their nodes.  Before any row is printed. */
static int check_params(const struct cy_node *d, const struct cc_scenario *sc,
			struct cy_error *err)
{
	static const char *const key[CC_PARAM_FIELDS] = {
		[CC_PARAM_KIND] = "collective", [CC_PARAM_ALGO] = "algorithm",
		[CC_PARAM_CHANNELS] = "channels", [CC_PARAM_NRANKS] = "topology",
		[CC_PARAM_ROOT] = "root", [CC_PARAM_RANKS_PER_NODE] = "topology",
		[CC_PARAM_RING_ORDER] = "ring_order", [CC_PARAM_SLOTS] = "slots",
		[CC_PARAM_SLOT_BYTES] = "slot_bytes", [CC_PARAM_CHUNK_BYTES] = "chunk_bytes",
		[CC_PARAM_COUNT] = "sizes",
	};
	/* Where the key is left out, the one its default goes with. */
	static const char *const instead[CC_PARAM_FIELDS] = {
		[CC_PARAM_CHUNK_BYTES] = "slot_bytes", [CC_PARAM_SLOT_BYTES] = "chunk_bytes",
	};
	enum cc_param f = CC_PARAM_KIND;
	const struct cy_node *at;
	const char *k;
	char msg[256];

	if (!cc_params_check(&sc->p, &f, msg, sizeof(msg)))
		return 0;
	k = key[f];
	if (!(at = cy_get(d, k)) && instead[f] && (at = cy_get(d, instead[f])))
		k = instead[f];
	if (!at)
		return cy_fail(err, d, "the scenario's collective (%s): %s", k, msg);
	return cy_fail(err, at, "'%s': %s", k, msg);
}

/* The schedule's queue pairs against the topology's routes: an algorithm
 * that joins ranks the network does not connect (halving-doubling's
 * partners on a ring of NICs) is refused at its key, not by every run.
 * Only for the simulator, the one executor that runs on the file's
 * network (data has none, verbs the real one); sim_topo_carries() says
 * what it leaves to the run. */
static int check_routes(const struct cy_node *d, const struct cc_scenario *sc,
			struct cy_error *err)
{
	const struct cy_node *at = cy_get(d, "algorithm");
	const char *key = "algorithm";
	uint32_t a, b;
	char msg[256];

	/* nvls: one host's NVSwitch must hold every rank, whatever runs it */
	if (!sim_topo_mcast_ok(&sc->net, &sc->p, msg, sizeof(msg)))
		return cy_fail(err, at ? at : cy_get(d, "topology"), "'%s': %s", at ? key : "topology",
			       msg);
	if (sc->executor[CC_EXEC_SIM] && sc->fabric.host.nic_socket == SIM_NIC_SOCKET_REMOTE &&
	    !sim_net_nic_socket_ok(&sc->net, msg, sizeof(msg)))
		return cy_fail(err, cy_get(d, "fabric") ? cy_get(d, "fabric") : cy_get(d, "topology"),
			       "'fabric': %s", msg);
	/* collnetchain's reductions between nodes need SHARP switches */
	if (sc->executor[CC_EXEC_SIM] && sc->p.algo == CC_ALGO_COLLNET_CHAIN &&
	    !sc->fabric.sw.sharp && !sim_net_has_sharp(&sc->net))
		return cy_fail(err, at ? at : cy_get(d, "fabric"), "'%s': collnetchain reduces "
			       "between the nodes in the network's switches: the fabric needs "
			       "SHARP (switch: {sharp: 1}) or the topology switches with "
			       "sharp: true", at ? key : "fabric");
	if (!sc->executor[CC_EXEC_SIM] || sim_topo_carries(&sc->net, &sc->p, &a, &b))
		return 0;
	if (!at) {
		at = cy_get(d, "collective");
		key = "collective";
	}
	return cy_fail(err, at ? at : cy_get(d, "topology"), "'%s': %s %s joins ranks %u and %u, "
		       "which the %s topology does not connect; a switched topology (star, "
		       "leafspine, railopt) connects every pair", at ? key : "topology",
		       cc_algo_name[sc->p.algo], cc_coll_name[sc->p.coll], a, b, sc->net.name);
}

static void defaults(struct cc_scenario *sc, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	memset(sc, 0, sizeof(*sc));
	cc_coll_params_default(&sc->p);
	cc_nccl_auto_init(&sc->nccl);
	snprintf(sc->file, sizeof(sc->file), "%s", path);
	snprintf(sc->name, sizeof(sc->name), "%s", base ? base + 1 : path);
	len = strlen(sc->name);
	if (len > 5 && !strcmp(sc->name + len - 5, ".yaml"))
		sc->name[len - 5] = '\0';
	sc->stepfactor = 2;
	sc->seed = 1;
	sc->launch = CC_SIM_LAUNCH_DEFAULT;
	sc->executor[CC_EXEC_SIM] = true;
	sc->check_max = UINT64_MAX;
	sim_net_init(&sc->net, "");
}

int cc_scenario_load(const char *path, const char *const *sets, uint32_t nsets,
		     struct cc_scenario *sc, struct cy_error *err)
{
	struct cy_doc doc = {0};
	char dir[1024];
	const char *slash = strrchr(path, '/');
	int rc;

	defaults(sc, path);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path + 1) : 0, path);
	rc = cy_load_file(path, &doc, err);
	if (!rc)
		rc = cy_doc_map(&doc, "scenario", err);
	for (uint32_t i = 0; !rc && i < nsets; i++)
		rc = cy_set(&doc, sets[i], err);
	if (!rc)
		rc = read_doc(doc.root, dir, sc, err);
	/* The rule of `cclab check` for sizes not given. */
	if (!rc) {
		cc_coll_params_fill(&sc->p, sc->slot_given, sc->chunk_given);
		if (!sc->is_p2p)
			rc = check_params(doc.root, sc, err);
		if (!rc && !sc->is_p2p)
			rc = check_routes(doc.root, sc, err);
	}
	cy_free(&doc);
	if (rc)
		cc_scenario_free(sc);
	return rc;
}

void cc_scenario_free(struct cc_scenario *sc)
{
	sim_net_free(&sc->net);
	free(sc->expect);
	sc->expect = NULL;
	sc->nexpect = 0;
}

const struct cc_expect *cc_scenario_expect(const struct cc_scenario *sc, uint64_t size)
{
	for (uint32_t i = 0; sc && i < sc->nexpect; i++)
		if (sc->expect[i].size == size)
			return &sc->expect[i];
	return NULL;
}

/* The expectations, by the scenario's kind. */
static void expect_json(struct cc_json *j, const struct cc_scenario *sc)
{
	cc_json_key(j, "expect");
	cc_json_array_begin(j);
	for (uint32_t i = 0; i < sc->nexpect; i++) {
		const struct cc_expect *x = &sc->expect[i];

		cc_json_object_begin(j);
		cc_json_kv_uint(j, "size", x->size);
		if (sc->is_p2p) {
			cc_scenario_p2p_expect_json(j, x);
			cc_json_object_end(j);
			continue;
		}
		cc_json_kv_uint(j, "time_min_ps", x->time_min_ps);
		cc_json_key(j, "time_max_ps");
		if (x->time_max_ps == UINT64_MAX)
			cc_json_null(j);
		else
			cc_json_uint(j, x->time_max_ps);
		cc_json_kv_uint(j, "busbw_min_bps", x->busbw_min_bps);
		cc_json_key(j, "busbw_max_bps");
		if (x->busbw_max_bps == UINT64_MAX)
			cc_json_null(j);
		else
			cc_json_uint(j, x->busbw_max_bps);
		cc_json_key(j, "data_bytes_per_rank");
		if (x->data_bytes == UINT64_MAX)
			cc_json_null(j);
		else
			cc_json_uint(j, x->data_bytes);
		cc_json_object_end(j);
	}
	cc_json_array_end(j);
}

/* The most NICs a GPU of n has (`nics:`; 1 where not given). */
static uint32_t net_nics_per_gpu(const struct sim_net *n)
{
	uint32_t most = 1;

	for (uint32_t h = 0; h < n->nhosts; h++)
		if (n->hosts[h].nics > most)
			most = n->hosts[h].nics;
	return most;
}

void cc_scenario_json(struct cc_json *j, const struct cc_scenario *sc)
{
	cc_json_object_begin(j);
	cc_json_kv_string(j, "name", sc->name);
	cc_json_kv_string(j, "file", sc->file);
	cc_json_key(j, "topology");
	cc_json_object_begin(j);
	cc_json_kv_string(j, "name", sc->net.name);
	cc_json_kv_uint(j, "hosts", sc->net.nhosts);
	cc_json_kv_uint(j, "ranks", sc->net.nranks);
	cc_json_kv_uint(j, "nodes", sc->net.nnodes);
	cc_json_kv_uint(j, "links", sc->net.nlinks);
	/* Only where the topology has them: a report without stays as before */
	if (sim_net_pcie_switch_count(&sc->net))
		cc_json_kv_uint(j, "pcie_switches", sim_net_pcie_switch_count(&sc->net));
	if (net_nics_per_gpu(&sc->net) > 1)
		cc_json_kv_uint(j, "nics_per_gpu", net_nics_per_gpu(&sc->net));
	cc_json_object_end(j);
	if (sc->is_p2p) {
		cc_scenario_p2p_json(j, sc);
		cc_json_kv_uint(j, "seed", sc->seed);
		expect_json(j, sc);
		cc_json_object_end(j);
		return;
	}
	cc_json_kv_string(j, "algorithm", sc->nccl.algo ? "auto" : cc_algo_name[sc->p.algo]);
	if (cc_nccl_auto_any(&sc->nccl)) /* only with auto: other files stay as they were */
		cc_scenario_nccl_json(j, sc);
	if (sc->model != CC_SIM_MODEL_PACKET) /* only where set: other files stay as they were */
		cc_json_kv_string(j, "model", cc_sim_model_name[sc->model]);
	sim_launch_json(j, &sc->launch);
	cc_json_key(j, "executors");
	cc_json_array_begin_flat(j);
	for (int e = 0; e < CC_EXECUTOR_COUNT; e++)
		if (sc->executor[e])
			cc_json_string(j, cc_executor_name[e]);
	cc_json_array_end(j);
	cc_json_key(j, "check_max_bytes");
	if (sc->check_max == UINT64_MAX)
		cc_json_null(j);
	else
		cc_json_uint(j, sc->check_max);
	if (sc->nfaults || sc->nkey_faults) { /* only when given: files without faults stay as they were */
		char t[CC_SIM_FAULT_TEXT_LEN];

		cc_json_key(j, "faults");
		cc_json_array_begin_flat(j);
		for (uint32_t i = 0; i < sc->nfaults; i++)
			cc_json_string(j, cc_sim_fault_format(&sc->faults[i], t, sizeof(t)));
		for (uint32_t i = 0; i < sc->nkey_faults; i++) {
			const struct cc_fault *f = &sc->key_faults[i];

			snprintf(t, sizeof(t), "%s:%" PRIu32 ":%" PRIu32,
				 cc_fault_kind_label[f->kind], f->rank, f->op);
			cc_json_string(j, t);
		}
		cc_json_array_end(j);
	}
	expect_json(j, sc);
	cc_json_object_end(j);
}
