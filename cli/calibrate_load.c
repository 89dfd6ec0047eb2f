/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/calibrate_load.c — reads `cclab p2p --json` files for `cclab
 * calibrate` (cli/calibrate.h).
 *
 * What the fit needs of a file: the test (op, mode, iterations, depths,
 * memory) to run it again in the simulator, each size's figure (BW average
 * or t_typical), and where it was measured (device, link layer, MTU) so
 * that every file describes one fabric.  A file from the simulator reads
 * the same way (its fabric's link type and MTU), which is how the tests
 * check that the fit finds a known fabric's values again. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/calibrate.h"
#include "cli/cli.h"
#include "cli/json_read.h"
#include "cli/validate.h"

#define WHAT "the p2p result file"

static int bad(struct cy_error *err)
{
	fprintf(stderr, "cclab calibrate: %s\n", err->msg);
	return CLI_EXIT_USAGE;
}

static int enum_of(const struct cy_node *root, const char *key, const char *const *names,
		   unsigned count, unsigned *out, struct cy_error *err)
{
	const struct cy_node *v;
	int rc = cy_require(root, WHAT, key, &v, err);

	return rc ? rc : cy_enum(v, key, names, count, out, err);
}

/* Where the file was measured: a device's name, link layer and MTU, or the
 * simulator's fabric (its name, link type and MTU). */
static int where(const struct cy_node *root, struct cal_device *d, struct cy_error *err)
{
	const struct cy_node *fab = cy_get(root, "fabric");
	const char *name, *layer = "";
	uint64_t mtu = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	if (fab && fab->kind == CY_MAP) {
		const char *type;

		if ((rc = cli_json_string(fab, "'fabric'", "name", &name, err)) ||
		    (rc = cli_json_string(fab, "'fabric'", "link.type", &type, err)) ||
		    (rc = cli_json_uint(fab, "'fabric'", "link.mtu_bytes", 256, &mtu, err)))
			return rc;
		layer = !strcmp(type, "ib") ? "InfiniBand" : "Ethernet";
		d->simulated = true;
	} else {
		if ((rc = cli_json_string(root, WHAT, "device", &name, err)))
			return rc;
		/* Files of cclab before calibrate existed lack these two. */
		if (cy_get(root, "link_layer") &&
		    (rc = cli_json_string(root, WHAT, "link_layer", &layer, err)))
			return rc;
		if (cy_get(root, "active_mtu") &&
		    (rc = cli_json_uint(root, WHAT, "active_mtu", 256, &mtu, err)))
			return rc;
	}
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->link_layer, sizeof(d->link_layer), "%s", layer);
	d->mtu = (uint32_t)mtu;
	return 0;
}

static bool same_str(const char *a, const char *b)
{
	return !*a || !*b || !strcmp(a, b);
}

/* The test as the file ran it: perftest's defaults, then its values. */
static int test_of(const struct cy_node *root, struct cc_p2p_params *p, struct cy_error *err)
{
	static const char *const keys[] = {"iterations", "tx_depth", "cq_mod", "rx_depth"};
	unsigned op, mode, mem;
	uint64_t v[4];
	int rc;

	if ((rc = enum_of(root, "op", cc_p2p_op_name, CC_P2P_OP_COUNT, &op, err)) ||
	    (rc = enum_of(root, "mode", cc_p2p_mode_name, CC_P2P_MODE_COUNT, &mode, err)) ||
	    (rc = enum_of(root, "memory", cc_mem_kind_name, CC_MEM_KIND_COUNT, &mem, err)))
		return rc;
	for (unsigned i = 0; i < 4; i++)
		if ((rc = cli_json_uint(root, WHAT, keys[i], 1, &v[i], err)))
			return rc;
	cc_p2p_params_default(p, (enum cc_p2p_op)op, (enum cc_p2p_mode)mode);
	p->iters = (uint32_t)(v[0] > UINT32_MAX ? UINT32_MAX : v[0]);
	p->tx_depth = (uint32_t)(v[1] > UINT32_MAX ? UINT32_MAX : v[1]);
	p->cq_mod = (uint32_t)(v[2] > UINT32_MAX ? UINT32_MAX : v[2]);
	p->rx_depth = (uint32_t)(v[3] > UINT32_MAX ? UINT32_MAX : v[3]);
	/* a file from before post lists ran one WQE a call */
	if (cy_get(root, "post_list")) {
		if ((rc = cli_json_uint(root, WHAT, "post_list", 1, &v[0], err)))
			return rc;
		p->post_list = (uint32_t)(v[0] > UINT32_MAX ? UINT32_MAX : v[0]);
	}
	p->mem = (enum cc_mem_kind)mem;
	p->nranks = 2;
	return 0;
}

/* A figure a real fabric can show (sim/calibrate.h): 1e-300 us or 1e30
 * MB/s is a unit mistaken or a file edited, and its fit would land on the
 * search's bounds and be written as if it were one. */
static int in_range(const struct cy_node *e, enum cc_p2p_mode mode, double v,
		    struct cy_error *err)
{
	bool bw = mode == CC_P2P_BW;
	const char *key = bw ? "bw_average_mb_s" : "t_typical_us";
	double lo = bw ? SIM_CAL_BW_MIN_MB_S : SIM_CAL_LAT_MIN_US;
	double hi = bw ? SIM_CAL_BW_MAX_MB_S : SIM_CAL_LAT_MAX_US;

	if (v >= lo && v <= hi)
		return 0;
	return cy_fail(err, cy_get(e, key), "'%s' is %s: expected %g to %g %s (%s), what an RDMA "
		       "fabric can measure", key, cy_get(e, key)->str, lo, hi, bw ? "MB/s" : "us",
		       bw ? "1 KiB/s to 1 TiB/s" : "1 ns to 1 s");
}

static int sizes_of(const struct cy_node *root, const struct cc_p2p_params *p, unsigned file,
		    struct cal_point *pts, size_t *n, struct cy_error *err)
{
	const struct cy_node *seq;
	int rc = cy_require(root, WHAT, "sizes", &seq, err);

	if (!rc && seq->kind != CY_SEQ)
		return cy_fail(err, seq, "'sizes': expected a list, found %s", cy_kind_name(seq));
	for (size_t i = 0; !rc && i < seq->n; i++) {
		const struct cy_node *e = seq->vals[i];
		struct sim_cal_point pt = { .p = *p, .predicted = NAN };
		const char *status;
		uint64_t bytes, iters;
		char msg[256];
		double v;

		if (e->kind != CY_MAP)
			return cy_fail(err, e, "expected a size entry, found %s", cy_kind_name(e));
		if ((rc = cli_json_string(e, "a size entry", "status", &status, err)))
			return rc;
		if (strcmp(status, "ok"))
			continue; /* a failed size has no figure to fit */
		if ((rc = cli_json_uint(e, "a size entry", "bytes", 1, &bytes, err)) ||
		    (rc = cli_json_uint(e, "a size entry", "iterations", 1, &iters, err)) ||
		    (rc = cli_json_number(e, p->mode == CC_P2P_BW ? "bw_average_mb_s"
								 : "t_typical_us", true, &v, err)))
			return rc;
		pt.p.size = bytes;
		pt.p.iters = (uint32_t)(iters > UINT32_MAX ? UINT32_MAX : iters);
		pt.measured = v;
		if ((rc = in_range(e, p->mode, v, err)))
			return rc;
		if (cc_p2p_check(&pt.p, msg, sizeof(msg)))
			return cy_fail(err, e, "a test cclab cannot run: %s", msg);
		if (*n >= CAL_MAX_POINTS)
			return cy_fail(err, e, "more than %u points in all", CAL_MAX_POINTS);
		pts[(*n)++] = (struct cal_point){ .pt = pt, .file = file };
	}
	return rc;
}

int cal_load(const char *path, unsigned file, struct cal_point *pts, size_t *n,
	     struct cal_device *dev)
{
	struct cy_doc doc = {0};
	struct cy_error err;
	struct cc_p2p_params p;
	struct cal_device d;
	const struct cy_node *at;
	char what[256];
	int rc = cli_json_load_file(path, "calibrate fits `cclab p2p --json` results", &doc, &err);

	if (rc)
		return bad(&err);
	/* Another command's file is named for what it is, not for the first
	 * key it lacks. */
	switch (cli_json_kind(doc.root, what, sizeof(what), &at)) {
	case CLI_JSON_P2P:
		break;
	case CLI_JSON_COLLECTIVE:
	case CLI_JSON_CHECK:
		rc = cy_fail(&err, at, "this is %s, not a point-to-point one: calibrate fits `cclab "
			     "p2p --json` results (`cclab compare` reads a collective's)", what);
		break;
	default:
		rc = cy_fail(&err, at, "this is %s: calibrate fits `cclab p2p --json` results",
			     what);
	}
	if (!rc)
		rc = where(doc.root, &d, &err);
	if (!rc && d.simulated)
		/* Useful to check the fit (it should recover the fabric), but
		 * no calibration: say so rather than fit a model to itself. */
		fprintf(stderr, "cclab calibrate: warning: %s was simulated (fabric %s), not "
			"measured on a device\n", path, d.name);
	if (!rc && file == 0)
		*dev = d;
	else if (!rc && (strcmp(d.name, dev->name) || !same_str(d.link_layer, dev->link_layer) ||
			 (d.mtu && dev->mtu && d.mtu != dev->mtu)))
		rc = cy_fail(&err, doc.root, "measured on %s (%s, MTU %u), but the first file on %s "
			     "(%s, MTU %u): one fabric cannot fit both", d.name,
			     *d.link_layer ? d.link_layer : "?", d.mtu, dev->name,
			     *dev->link_layer ? dev->link_layer : "?", dev->mtu);
	if (!rc)
		rc = test_of(doc.root, &p, &err);
	if (!rc)
		rc = sizes_of(doc.root, &p, file, pts, n, &err);
	if (!rc && !dev->mtu)
		dev->mtu = d.mtu;
	cy_free(&doc);
	return rc ? bad(&err) : 0;
}

/* A validation case (validation/<case>/, docs/validation.md) of perftest:
 * its scenario says the test and the fabric it ran on, its measured.csv
 * the figures as the source published them.  Iterations are capped at
 * CAL_CASE_MAX_ITERS: perftest's figure is a steady state (bytes over the
 * loop, or the median sample), which a few hundred iterations give within
 * a fraction of a percent, for the fit's hundreds of runs. */
#define CAL_CASE_MAX_ITERS 200u

int cal_load_case(const char *dir, unsigned file, struct cal_point *pts, size_t *n,
		  struct cal_device *dev)
{
	struct val_args a = { .dirs = { dir }, .ndirs = 1 };
	struct val_case *c = NULL;
	uint32_t nc = 0;
	struct cal_device d = {0};
	int rc = val_cases_load(&a, &c, &nc);

	if (!rc && (nc != 1 || c[0].kind == VAL_COLL)) {
		fprintf(stderr, "cclab calibrate: %s: %s: calibrate fits perftest results (a case "
			"with a p2p: scenario)\n", dir, nc != 1 ? "more than one case" : "a collective's "
			"case");
		rc = CLI_EXIT_USAGE;
	}
	if (!rc) {
		const struct cc_scenario *sc = &c[0].sc;

		snprintf(d.name, sizeof(d.name), "%s", c[0].name);
		snprintf(d.link_layer, sizeof(d.link_layer), "%s",
			 sc->fabric.link.type == SIM_LINK_IB ? "InfiniBand" : "Ethernet");
		d.mtu = sc->fabric.link.mtu_bytes;
		if (file == 0)
			*dev = d;
		else if (strcmp(d.link_layer, dev->link_layer) || d.mtu != dev->mtu)
			rc = CLI_EXIT_USAGE;
		if (rc)
			fprintf(stderr, "cclab calibrate: %s: %s, MTU %u, but the first file's %s, MTU "
				"%u: one fabric cannot fit both\n", dir, d.link_layer, d.mtu,
				dev->link_layer, dev->mtu);
		for (uint32_t i = 0; !rc && i < c[0].npts; i++) {
			const struct val_point *v = &c[0].pts[i];
			struct sim_cal_point pt = { .p = sc->p2p, .predicted = NAN };
			char msg[256];

			if (!v->measured)
				continue;
			pt.p.size = v->size;
			pt.p.iters = cc_p2p_iters_at_most(&pt.p, CAL_CASE_MAX_ITERS);
			pt.measured = c[0].kind == VAL_BW ? v->meas_bw / c[0].bw_per_mib_s
							  : v->meas_time_us;
			if (cc_p2p_check(&pt.p, msg, sizeof(msg))) {
				fprintf(stderr, "cclab calibrate: %s/measured.csv:%u: a test cclab cannot "
					"run: %s\n", dir, v->line, msg);
				rc = CLI_EXIT_USAGE;
			} else if (*n >= CAL_MAX_POINTS) {
				fprintf(stderr, "cclab calibrate: more than %u points in all\n",
					CAL_MAX_POINTS);
				rc = CLI_EXIT_USAGE;
			} else {
				pts[(*n)++] = (struct cal_point){ .pt = pt, .file = file };
			}
		}
	}
	val_cases_free(c, nc);
	return rc;
}
