/* cli/calibrate_out.c — what `cclab calibrate` writes (cli/calibrate.h):
 * the fabric file, and the fit point by point as --json and --csv.  Each
 * file is written atomically (core/results.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/calibrate.h"
#include "cli/check.h"
#include "cli/cli.h"
#include "core/results.h"

const char *cal_unit(const struct sim_cal_point *pt)
{
	return pt->p.mode == CC_P2P_BW ? "MB/s" : "us";
}

static double error_pct(const struct sim_cal_point *pt)
{
	return (pt->predicted / pt->measured - 1) * 100;
}

static int fail(const char *path, int err)
{
	fprintf(stderr, "cclab calibrate: cannot write '%s': %s\n", path, strerror(-err));
	return CLI_EXIT_FAIL;
}

/* The fitted key at field f, or -1. */
static int fitted(const struct sim_param_field *f)
{
	for (int k = 0; k < SIM_CAL_NKEYS; k++)
		if (!strcmp(sim_cal_keys[k], f->key))
			return k;
	return -1;
}

/* One value as the scenario loader reads it back (sim/fabric_yaml.c):
 * exact integers with the unit of the key's suffix. */
static void yaml_value(FILE *o, const struct sim_param_field *f, uint64_t v)
{
	if (f->kind == SIM_PARAM_ENUM && f->names)
		fprintf(o, "%s", v < f->nnames ? f->names[v] : "?");
	else if (!strcmp(f->unit, "bit/s"))
		fprintf(o, "%" PRIu64 "bps", v);
	else if (!strcmp(f->unit, "ps"))
		fprintf(o, "%" PRIu64 "ps", v);
	else
		fprintf(o, "%" PRIu64, v);
}

/* A reader's note beside a value: the rate in Gb/s, the time in us. */
static void yaml_note(FILE *o, const struct sim_param_field *f, uint64_t v,
		      const struct sim_cal_fit *fit)
{
	int k = fitted(f);

	if (!strcmp(f->unit, "bit/s"))
		fprintf(o, "  # %.6g Gb/s", (double)v / 1e9);
	else if (!strcmp(f->unit, "ps"))
		fprintf(o, "  # %.6g us", (double)v / 1e6);
	else if (!strcmp(f->unit, "B/s"))
		fprintf(o, "  # %.6g GB/s", (double)v / 1e9);
	else
		fprintf(o, "  #");
	if (k < 0)
		fprintf(o, "; scaled with the fitted latencies, not fitted");
	else if (fit->key[k].negligible)
		fprintf(o, "; fitted to ~0: the measurements are explained without it");
	else if (fit->key[k].kept)
		fprintf(o, "; the base's, which fits the measurements as well");
	else if (!fit->key[k].seen)
		fprintf(o, "; fitted, but no measured test depends on it");
	else
		fprintf(o, "; fitted: rms error %.2f %% at x1.25, %.2f %% at /1.25",
			fit->key[k].rms_up_pct, fit->key[k].rms_down_pct);
}

static void yaml_body(FILE *o, const struct cal_run *r, const struct sim_params *f)
{
	const struct sim_cal_fit *fit = r->fit;
	char section[16] = "";

	if (!r->n) {
		fprintf(o, "# cclab calibrate (cclab %s) --host-bench: this host's reduce and "
			   "copy costs\n", CCLAB_VERSION);
	} else {
		fprintf(o, "# cclab calibrate (cclab %s): a fabric fitted to %zu measured "
			   "point-to-point results\n", CCLAB_VERSION, r->n);
		fprintf(o, "# measured on %s (%s, MTU %u); files:\n", r->dev->name,
			*r->dev->link_layer ? r->dev->link_layer : "link layer not recorded",
			r->dev->mtu);
		for (unsigned i = 0; i < r->a->nfiles; i++)
			fprintf(o, "#   %s\n", r->a->files[i]);
		fprintf(o, "# fit: rms error %.2f %%, largest %.2f %% (%s %s, %" PRIu64 " B); "
			   "%" PRIu32 " simulator runs\n", fit->rms_pct, fit->max_pct,
			cc_p2p_op_name[r->pts[fit->worst].pt.p.op],
			cc_p2p_mode_name[r->pts[fit->worst].pt.p.mode],
			r->pts[fit->worst].pt.p.size, fit->sims);
	}
	if (r->host)
		fprintf(o, "# host: reduce/copy rate and call cost measured here (--host-bench)\n");
	fprintf(o, "# Every parameter not below is preset %s's (docs/fabric.md).\n",
		r->preset->name);
	fprintf(o, "preset: %s\nname: %s\n", r->preset->name, f->name);
	for (size_t i = 0; i < sim_param_field_count; i++) {
		const struct sim_param_field *fd = &sim_param_fields[i];
		const char *dot = strchr(fd->key, '.');
		uint64_t v;

		if (!dot || fd->kind == SIM_PARAM_STR)
			continue;
		v = sim_param_field_get(f, fd);
		if (v == sim_param_field_get(r->preset, fd) && (fitted(fd) < 0 || !r->n))
			continue;
		if (strncmp(section, fd->key, (size_t)(dot - fd->key)) ||
		    section[dot - fd->key] != '\0') {
			snprintf(section, sizeof(section), "%.*s", (int)(dot - fd->key), fd->key);
			fprintf(o, "%s:\n", section);
		}
		fprintf(o, "  %s: ", dot + 1);
		yaml_value(o, fd, v);
		if (!strncmp(fd->key, "host.cpu_", 9))
			fprintf(o, r->host ? "  # measured here (--host-bench)" : "  # from --base");
		else if (!r->n)
			fprintf(o, "  # from --base");
		else if (strcmp(fd->key, "link.mtu_bytes"))
			yaml_note(o, fd, v, fit);
		else
			fprintf(o, "  # the device's active MTU");
		fputc('\n', o);
	}
}

int cal_write_fabric(const struct cal_run *r)
{
	struct cc_atomic_file af;
	int err = cc_atomic_open(&af, r->a->out);

	if (err)
		return fail(r->a->out, err);
	yaml_body(af.f, r, &r->fit->fabric);
	if ((err = cc_atomic_commit(&af)))
		return fail(r->a->out, err);
	return 0;
}

int cal_write_csv(const struct cal_run *r)
{
	struct cc_atomic_file af;
	int err = cc_atomic_open(&af, r->a->csv);

	if (err)
		return fail(r->a->csv, err);
	fputs("op,mode,size_bytes,iterations,measured,predicted,unit,error_pct\n", af.f);
	for (size_t i = 0; i < r->n; i++) {
		const struct sim_cal_point *pt = &r->pts[i].pt;

		fprintf(af.f, "%s,%s,%" PRIu64 ",%" PRIu32 ",%.6g,", cc_p2p_op_name[pt->p.op],
			cc_p2p_mode_name[pt->p.mode], pt->p.size, pt->p.iters, pt->measured);
		if (isfinite(pt->predicted)) /* else empty, as `cclab compare --csv` */
			fprintf(af.f, "%.6g,%s,%.4f\n", pt->predicted, cal_unit(pt), error_pct(pt));
		else
			fprintf(af.f, ",%s,\n", cal_unit(pt));
	}
	if ((err = cc_atomic_commit(&af)))
		return fail(r->a->csv, err);
	return 0;
}

static void json_keys(struct cc_json *j, const struct cal_run *r)
{
	cc_json_key(j, "keys");
	cc_json_array_begin(j);
	for (unsigned k = 0; k < SIM_CAL_NKEYS; k++) {
		const struct sim_param_field *fd = sim_param_field_find(sim_cal_keys[k]);

		cc_json_object_begin(j);
		cc_json_key(j, "key");
		cc_json_string(j, fd->key);
		cc_json_key(j, "unit");
		cc_json_string(j, fd->unit);
		cc_json_key(j, "value");
		cc_json_uint(j, sim_param_field_get(&r->fit->fabric, fd));
		cc_json_key(j, "base_value");
		cc_json_uint(j, sim_param_field_get(r->base, fd));
		cc_json_key(j, "constrained");
		cc_json_bool(j, r->fit->key[k].seen);
		cc_json_key(j, "negligible");
		cc_json_bool(j, r->fit->key[k].negligible);
		cc_json_key(j, "kept");
		cc_json_bool(j, r->fit->key[k].kept);
		cli_json_double_or_null(j, "rms_error_pct_up", isfinite(r->fit->key[k].rms_up_pct),
					r->fit->key[k].rms_up_pct);
		cli_json_double_or_null(j, "rms_error_pct_down",
					isfinite(r->fit->key[k].rms_down_pct),
					r->fit->key[k].rms_down_pct);
		cc_json_object_end(j);
	}
	cc_json_array_end(j);
}

static void json_points(struct cc_json *j, const struct cal_run *r)
{
	cc_json_key(j, "points");
	cc_json_array_begin(j);
	for (size_t i = 0; i < r->n; i++) {
		const struct sim_cal_point *pt = &r->pts[i].pt;

		cc_json_object_begin(j);
		cc_json_key(j, "file");
		cc_json_string(j, r->a->files[r->pts[i].file]);
		cc_json_key(j, "op");
		cc_json_string(j, cc_p2p_op_name[pt->p.op]);
		cc_json_key(j, "mode");
		cc_json_string(j, cc_p2p_mode_name[pt->p.mode]);
		cc_json_key(j, "bytes");
		cc_json_uint(j, pt->p.size);
		cc_json_key(j, "iterations");
		cc_json_uint(j, pt->p.iters);
		cc_json_key(j, "unit");
		cc_json_string(j, cal_unit(pt));
		cc_json_key(j, "measured");
		cc_json_double(j, pt->measured);
		cli_json_double_or_null(j, "predicted", isfinite(pt->predicted), pt->predicted);
		cli_json_double_or_null(j, "error_pct", isfinite(pt->predicted), error_pct(pt));
		cc_json_object_end(j);
	}
	cc_json_array_end(j);
}

int cal_write_json(const struct cal_run *r)
{
	struct cc_json j;
	const char *text;
	size_t len;
	int err;

	cc_json_init(&j);
	cli_json_head(&j, "calibrate");
	cc_json_key(&j, "device");
	cc_json_string(&j, r->dev->name);
	cc_json_key(&j, "link_layer");
	cc_json_string(&j, *r->dev->link_layer ? r->dev->link_layer : NULL);
	cc_json_key(&j, "active_mtu");
	cc_json_uint(&j, r->dev->mtu);
	cc_json_key(&j, "base");
	cc_json_string(&j, r->base->name);
	cc_json_key(&j, "fabric_file");
	cc_json_string(&j, r->a->out);
	cc_json_key(&j, "rms_error_pct");
	cc_json_double(&j, r->fit->rms_pct);
	cc_json_key(&j, "max_error_pct");
	cc_json_double(&j, r->fit->max_pct);
	cc_json_key(&j, "simulations");
	cc_json_uint(&j, r->fit->sims);
	json_keys(&j, r);
	cc_json_key(&j, "host");
	if (r->host) {
		cc_json_object_begin(&j);
		cc_json_key(&j, "cpu_thread_bytes_per_s");
		cc_json_uint(&j, r->host->bytes_per_s);
		cc_json_key(&j, "cpu_call_ps");
		cc_json_uint(&j, r->host->call_ps);
		cc_json_key(&j, "samples");
		cc_json_array_begin(&j);
		for (unsigned i = 0; i < r->host->n; i++) {
			cc_json_object_begin(&j);
			cc_json_key(&j, "bytes_moved");
			cc_json_uint(&j, r->host->moved[i]);
			cc_json_key(&j, "ns");
			cc_json_double(&j, r->host->ns[i]);
			cc_json_object_end(&j);
		}
		cc_json_array_end(&j);
		cc_json_object_end(&j);
	} else {
		cc_json_null(&j);
	}
	json_points(&j, r);
	cc_json_object_end(&j);
	err = cc_json_finish(&j, &text, &len);
	if (!err)
		err = cc_write_file_atomic(r->a->json, text, len);
	cc_json_free(&j);
	return err ? fail(r->a->json, err) : 0;
}
