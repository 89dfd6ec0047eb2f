/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/scenario_p2p.c — a scenario's `p2p:` section: one of perftest's
 * point-to-point tests (core/p2p.h, docs/p2p.md) instead of a collective,
 * and its expectations in perftest's columns (docs/yaml.md).
 *
 * A scenario runs a collective or a p2p test, never both, so a
 * collective's keys beside `p2p:` are refused rather than ignored: a file
 * that says `transport: send_recv` must not quietly run something else.
 * `topology`, `fabric`, `sizes`, `seed` and `expect` mean what they mean
 * for a collective; `sizes` may be left out (perftest's default size).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/results.h"
#include "sim/scenario_int.h"

/* A collective's keys: none has a meaning for a p2p test (one QP pair
 * between ranks 0 and 1, on the simulator, no data to check). */
static const char *const collective_keys[] = {
	"collective", "algorithm", "transport", "protocol", "dtype", "redop", "ranks", "chunk_bytes",
	"slot_bytes", "slots", "executors", "check", "memory", "root", "channels", "ring_order",
	"nccl_version", "env", "launch", NULL,
};

static const char *const section_keys[] = {
	"op", "mode", "iters", "tx_depth", "cq_mod", "post_list", "rx_depth", "mem", "bidirectional",
	NULL,
};

static const char *const coll_expect_keys[] = {"size", "time", "busbw", "data_bytes_per_rank",
					       NULL};
static const char *const p2p_expect_keys[] = {"size", "lat", "bw", "msg_rate", NULL};

static bool listed(const char *word, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(word, names[i]))
			return true;
	return false;
}

/* The key node of `key` in mapping m (cy_get gives the value). */
static const struct cy_node *key_node(const struct cy_node *m, const char *key)
{
	for (size_t i = 0; m && m->kind == CY_MAP && i < m->n; i++)
		if (!strcmp(m->keys[i]->str, key))
			return m->keys[i];
	return NULL;
}

/* "line 4", or "FILE:1" when `p2p` came from elsewhere (a --set). */
static void where(char *buf, size_t len, const struct cy_node *at, const struct cy_node *ref)
{
	if (!strcmp(at->file, ref->file))
		snprintf(buf, len, "line %u", ref->line);
	else
		snprintf(buf, len, "%s:%u", ref->file, ref->line);
}

/* The first collective key in the document, at the key. */
static int conflicts(const struct cy_node *doc, struct cy_error *err)
{
	const struct cy_node *p2p = key_node(doc, "p2p");
	char at[CY_ERR_LEN / 2], keys[256] = "";
	size_t off = 0;

	/* the list from the table, so the message names every key it refuses */
	for (size_t i = 0; collective_keys[i] && off < sizeof(keys); i++)
		if (strcmp(collective_keys[i], "collective"))
			off += (size_t)snprintf(keys + off, sizeof(keys) - off, "%s%s",
						off ? ", " : "", collective_keys[i]);

	for (size_t i = 0; i < doc->n; i++) {
		const struct cy_node *k = doc->keys[i];

		if (!listed(k->str, collective_keys))
			continue;
		where(at, sizeof(at), k, p2p);
		if (!strcmp(k->str, "collective"))
			return cy_fail(err, k, "'collective' and 'p2p' (%s) exclude each other: a "
				       "scenario runs a collective or a point-to-point test", at);
		return cy_fail(err, k, "'%s' is a collective's key, but this scenario runs a p2p "
			       "test ('p2p' on %s), which takes none of: collective, %s (its buffers: "
			       "p2p.mem)", k->str, at, keys);
	}
	return 0;
}

static int read_depth(const struct cy_node *s, const char *key, uint32_t *out,
		      struct cy_error *err)
{
	const struct cy_node *v = cy_get(s, key);
	uint64_t x;
	int rc;

	if (!v)
		return 0;
	rc = cy_uint(v, key, 1, CC_P2P_MAX_DEPTH, &x, err);
	if (!rc)
		*out = (uint32_t)x;
	return rc;
}

int cc_scenario_p2p_read(const struct cy_node *doc, struct cc_scenario *sc, struct cy_error *err)
{
	const struct cy_node *s = cy_get(doc, "p2p"), *v;
	unsigned op, mode = CC_P2P_BW, mem = CC_MEM_HOST;
	uint64_t x;
	int rc = conflicts(doc, err);

	if (!rc)
		rc = cy_check_map(s, "'p2p'", section_keys, err);
	if (!rc)
		rc = cy_require(s, "'p2p'", "op", &v, err);
	if (!rc)
		rc = cy_enum(v, "op", cc_p2p_op_name, CC_P2P_OP_COUNT, &op, err);
	if (!rc && (v = cy_get(s, "mode")))
		rc = cy_enum(v, "mode", cc_p2p_mode_name, CC_P2P_MODE_COUNT, &mode, err);
	if (!rc && (v = cy_get(s, "mem")))
		rc = cy_enum(v, "mem", cc_mem_kind_name, CC_MEM_KIND_COUNT, &mem, err);
	if (rc)
		return rc;
	/* perftest's defaults for this test (`cclab p2p` takes the same). */
	cc_p2p_params_default(&sc->p2p, (enum cc_p2p_op)op, (enum cc_p2p_mode)mode);
	sc->p2p.mem = (enum cc_mem_kind)mem;
	if ((v = cy_get(s, "iters"))) {
		rc = cy_uint(v, "iters", 1, CC_P2P_MAX_ITERS, &x, err);
		if (!rc && mode == CC_P2P_LAT && x < 2)
			return cy_fail(err, v, "'iters': %llu, but lat needs at least 2: a latency is "
				       "the time between two consecutive posts (perftest's tposted "
				       "deltas)", (unsigned long long)x);
		sc->p2p.iters = (uint32_t)x;
	}
	if (!rc)
		rc = read_depth(s, "tx_depth", &sc->p2p.tx_depth, err);
	if (!rc) { /* cq_mod, below, overrides the list's CQ moderation */
		uint32_t list = sc->p2p.post_list;

		if (!(rc = read_depth(s, "post_list", &list, err)))
			cc_p2p_set_post_list(&sc->p2p, list);
	}
	if (!rc)
		rc = read_depth(s, "cq_mod", &sc->p2p.cq_mod, err);
	if (!rc)
		rc = read_depth(s, "rx_depth", &sc->p2p.rx_depth, err);
	if (!rc && (v = cy_get(s, "post_list"))) {
		char why[256];

		if (cc_p2p_check_post_list(&sc->p2p, why, sizeof(why)))
			rc = cy_fail(err, v, "'post_list': %s", why);
	}
	if (!rc && (v = cy_get(s, "bidirectional"))) {
		rc = cy_bool(v, "bidirectional", &sc->p2p.bidir, err);
		if (!rc && sc->p2p.bidir && mode != CC_P2P_BW)
			rc = cy_fail(err, v, "'bidirectional': only bw tests have it (perftest: "
				     "\"Bidirectional is only available in BW test\")");
	}
	sc->is_p2p = !rc;
	return rc;
}

int cc_scenario_p2p_sizes(const struct cy_node *doc, struct cc_scenario *sc, struct cy_error *err)
{
	const struct cy_node *s = cy_get(doc, "sizes"), *mem = cy_get(cy_get(doc, "p2p"), "mem");
	struct cc_p2p_params p = sc->p2p;
	uint64_t size;
	char why[256];

	if (!s) /* perftest's -s default for the test */
		sc->minbytes = sc->maxbytes = sc->p2p.size;
	else if (cc_p2p_is_atomic(p.op) && (sc->minbytes != CC_P2P_ATOMIC_BYTES ||
					    sc->maxbytes != CC_P2P_ATOMIC_BYTES))
		return cy_fail(err, s, "'sizes': %s is a 64-bit atomic, always %u bytes; expected "
			       "sizes: 8 (or no 'sizes')", cc_p2p_op_name[p.op], CC_P2P_ATOMIC_BYTES);
	sc->p2p.size = sc->minbytes;
	size = sc->minbytes;
	do {
		p.size = size;
		if (cc_p2p_check(&p, why, sizeof(why)))
			return cy_fail(err, s, "'sizes': %s", why);
	} while (cc_result_next_size(&size, sc->stepfactor, sc->maxbytes));
	/* What cclab p2p refuses at run time, refused with its position. */
	if (p.mem == CC_MEM_GPU && sc->fabric.host.gpu_dma == SIM_GPU_DMA_HOST_STAGING)
		return cy_fail(err, mem, "'mem': gpu, but the fabric has no GPUDirect RDMA "
			       "(host.gpu_dma: host-staging), and a p2p test is not staged through "
			       "host memory; expected mem: host, or a fabric with gpudirect");
	return 0;
}

int cc_scenario_p2p_net(const struct cy_node *doc, struct cc_scenario *sc, struct cy_error *err)
{
	if (sc->net.nranks < 2 || sc->net.nranks > CC_P2P_MAX_RANKS)
		return cy_fail(err, cy_get(doc, "topology"), "'topology': %u GPU%s, but a p2p test "
			       "needs 2 to %u (it runs between ranks 0 and 1; the others idle)",
			       sc->net.nranks, sc->net.nranks == 1 ? "" : "s", CC_P2P_MAX_RANKS);
	sc->p2p.nranks = sc->net.nranks;
	return 0;
}

/* ---- expectations ---- */

const char *const *cc_scenario_expect_keys(const struct cc_scenario *sc)
{
	return sc->is_p2p ? p2p_expect_keys : coll_expect_keys;
}

int cc_scenario_expect_kind(const struct cy_node *e, const struct cc_scenario *sc,
			    struct cy_error *err)
{
	const char *const *other = sc->is_p2p ? coll_expect_keys : p2p_expect_keys;

	for (size_t i = 0; e->kind == CY_MAP && i < e->n; i++) {
		const struct cy_node *k = e->keys[i];

		if (strcmp(k->str, "size") && listed(k->str, other))
			return sc->is_p2p
				? cy_fail(err, k, "'%s' is a collective's expectation; a p2p test's "
					  "are lat (t_avg), bw (BW average) and msg_rate (MsgRate)",
					  k->str)
				: cy_fail(err, k, "'%s' is a p2p test's expectation (a scenario with "
					  "'p2p:'); a collective's are time, busbw and "
					  "data_bytes_per_rank", k->str);
	}
	return 0;
}

int cc_scenario_p2p_expect(const struct cy_node *e, const struct cc_scenario *sc,
			   struct cc_expect *x, struct cy_error *err)
{
	const char *tool = cc_p2p_tool(sc->p2p.op, sc->p2p.mode);
	bool lat = sc->p2p.mode == CC_P2P_LAT;
	const struct cy_node *v;
	int rc = 0;

	/* A bound on a column the test does not print could never be met. */
	for (size_t i = 0; i < e->n; i++) {
		const struct cy_node *k = e->keys[i];

		if (lat && (!strcmp(k->str, "bw") || !strcmp(k->str, "msg_rate")))
			return cy_fail(err, k, "'%s': this scenario's test is %s (mode lat), which "
				       "reports latency; expected lat, or p2p.mode: bw", k->str, tool);
		if (!lat && !strcmp(k->str, "lat"))
			return cy_fail(err, k, "'lat': this scenario's test is %s (mode bw), which "
				       "reports bandwidth; expected bw or msg_rate, or p2p.mode: lat",
				       tool);
	}
	if ((v = cy_get(e, "lat")))
		rc = cc_scenario_read_range(v, "lat", cy_time, &x->lat_min_ps, &x->lat_max_ps, err);
	if (!rc && (v = cy_get(e, "bw")))
		rc = cc_scenario_read_range(v, "bw", cy_rate, &x->bw_min_bps, &x->bw_max_bps, err);
	if (!rc && (v = cy_get(e, "msg_rate")))
		rc = cc_scenario_read_range(v, "msg_rate", cy_msg_rate, &x->rate_min_pps,
					    &x->rate_max_pps, err);
	return rc;
}

/* ---- JSON ---- */

void cc_scenario_p2p_json(struct cc_json *j, const struct cc_scenario *sc)
{
	const struct cc_p2p_params *p = &sc->p2p;

	cc_json_key(j, "p2p");
	cc_json_object_begin(j);
	cc_json_kv_string(j, "op", cc_p2p_op_name[p->op]);
	cc_json_kv_string(j, "mode", cc_p2p_mode_name[p->mode]);
	cc_json_kv_string(j, "perftest", cc_p2p_tool(p->op, p->mode));
	cc_json_kv_uint(j, "iters", p->iters);
	cc_json_kv_uint(j, "tx_depth", p->tx_depth);
	/* as used: at most tx_depth, 1 for lat READ and atomics */
	cc_json_kv_uint(j, "cq_mod", cc_p2p_cq_mod(p));
	cc_json_kv_uint(j, "post_list", p->post_list);
	cc_json_kv_uint(j, "rx_depth", p->rx_depth);
	cc_json_kv_bool(j, "bidirectional", p->bidir);
	cc_json_kv_string(j, "mem", cc_mem_kind_name[p->mem]);
	cc_json_object_end(j);
	cc_json_key(j, "sizes");
	cc_json_object_begin(j);
	cc_json_kv_uint(j, "min", sc->minbytes);
	cc_json_kv_uint(j, "max", sc->maxbytes);
	cc_json_kv_uint(j, "factor", sc->stepfactor);
	cc_json_object_end(j);
}

static void bound(struct cc_json *j, const char *key, uint64_t v, uint64_t none)
{
	cc_json_key(j, key);
	if (v == none)
		cc_json_null(j);
	else
		cc_json_uint(j, v);
}

void cc_scenario_p2p_expect_json(struct cc_json *j, const struct cc_expect *x)
{
	bound(j, "lat_min_ps", x->lat_min_ps, UINT64_MAX);
	bound(j, "lat_max_ps", x->lat_max_ps, UINT64_MAX);
	bound(j, "bw_min_bps", x->bw_min_bps, UINT64_MAX);
	bound(j, "bw_max_bps", x->bw_max_bps, UINT64_MAX);
	bound(j, "msg_rate_min_pps", x->rate_min_pps, UINT64_MAX);
	bound(j, "msg_rate_max_pps", x->rate_max_pps, UINT64_MAX);
}
