/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cmd_calibrate.c — `cclab calibrate P2P.json... -o FABRIC.yaml`: the
 * simulator's fabric fitted to measured point-to-point results
 * (sim/calibrate.h), written as a fabric file that `cclab sim --fabric`
 * and a scenario's `fabric:` read back (docs/calibrate.md). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/argv.h"
#include "cli/calibrate.h"
#include "cli/cli.h"
#include "cli/json_read.h"

/* Every message of this command: "cclab calibrate: ...", the hint, exit 2. */
#define usage_error(...) cli_usage_error(CLI_CALIBRATE, __VA_ARGS__)

void calibrate_usage(FILE *f)
{
	fprintf(f, "Usage: cclab calibrate P2P.json|CASE... -o FABRIC.yaml [OPTIONS]\n\n"
		   "Fits the simulator's fabric to measured point-to-point results: every 'ok'\n"
		   "size of each `cclab p2p --device ... --json P2P.json` file (bw: BW average;\n"
		   "lat: t_typical), or of a validation case of perftest (a folder with its\n"
		   "scenario.yaml and the published measured.csv, docs/validation.md; at most\n"
		   "200 iterations simulated).  The same tests run in the simulator on\n"
		   "candidate fabrics; the fit is the one whose figures are closest (least\n"
		   "squares of log-ratios) over link.rate_bps, link.prop_delay_ps,\n"
		   "rnic.req_proc_ps, rnic.resp_proc_ps,\n"
		   "software.post_send_ps, software.poll_cq_ps and rnic.atomic_ps.  Prints each\n"
		   "point measured vs fitted, each key with how much the fit depends on it, and\n"
		   "writes FABRIC.yaml for `cclab sim --fabric FABRIC.yaml` or a scenario's\n"
		   "`fabric: FABRIC.yaml`.  docs/calibrate.md has the method and a recipe.\n\n"
		   "Options:\n"
		   "  -o, --output FILE       the fabric file (required), written atomically\n"
		   "      --base PRESET|FILE  the fabric whose other values are kept (default:\n"
		   "                          roce-100g for an Ethernet device, ib-hdr for\n"
		   "                          InfiniBand); the files' active MTU replaces its MTU\n"
		   "      --name NAME         the fabric's name in reports (default calibrated;\n"
		   "                          printable UTF-8, at most 31 bytes)\n"
		   "      --host-bench        also time this CPU's reduce and copy and fit\n"
		   "                          host.cpu_thread_bytes_per_s and host.cpu_call_ps\n"
		   "                          (what `cclab run` with host memory spends reducing)\n"
		   "      --json FILE         the fit: keys, sensitivities, points\n"
		   "      --csv FILE          one line per point: measured, fitted, error %%\n"
		   "      --max-error PCT     exit status 1 if a point's |error| exceeds PCT %%\n"
		   "  -h, --help              this text\n\n"
		   "Exit status: 0 fitted and written; 1 beyond --max-error, a fit not fit to\n"
		   "write (no finite error, a key at the search's bounds, every fitted time\n"
		   "held at 0: nothing is written) or a file could not be written; 2 bad usage\n"
		   "or a file that is not a p2p result, or a figure outside 1 ns..1 s (lat) or\n"
		   "1 KiB/s..1 TiB/s (bw).\n\n"
		   "Example (docs/calibrate.md, scripts/softroce/calibrate.sh):\n"
		   "  cclab p2p --device rxe0 --op write --mode lat --json lat.json\n"
		   "  cclab p2p --device rxe0 --op write -s 1M --json bw.json\n"
		   "  cclab calibrate lat.json bw.json --host-bench -o fabric.yaml\n"
		   "  cclab sim -n 4 --topology star --fabric fabric.yaml --memory host ...\n");
}

/* --name: written into the fabric file and printed by every report that
 * uses it: printable text, as long as a fabric's name can be
 * (sim/params.h).  0 or CLI_EXIT_USAGE after the message. */
static int check_name(const char *val)
{
	char shown[64];
	size_t at, bytes = strlen(val);
	const char *why = cal_name_invalid(val, &at);

	if (bytes >= SIM_PARAMS_NAME_LEN)
		return usage_error("--name: '%s' is %zu bytes; a fabric's name is 1 to %u",
				   cli_json_shown(val, 24, shown, sizeof(shown)), bytes,
				   SIM_PARAMS_NAME_LEN - 1);
	if (why)
		return usage_error("--name: '%s' has %s at byte %zu; a fabric's name is printable "
				   "text (UTF-8)", cli_json_shown(val, 40, shown, sizeof(shown)), why,
				   at + 1);
	return 0;
}

int cal_parse_args(int argc, char **argv, struct cal_args *a, bool *help)
{
	enum { O_OUTPUT, O_BASE, O_NAME, O_JSON, O_CSV, O_MAX, O_HOST_BENCH, O_COUNT };
	static const struct cli_argv_opt opts[O_COUNT] = {
		[O_OUTPUT] = {.name = "--output", .alias = "-o"},
		[O_BASE] = {.name = "--base"},
		[O_NAME] = {.name = "--name"},
		[O_JSON] = {.name = "--json"},
		[O_CSV] = {.name = "--csv"},
		[O_MAX] = {.name = "--max-error"},
		[O_HOST_BENCH] = {.name = "--host-bench", .flag = true},
	};
	struct cli_argv it;
	const char *val;
	char *end;
	int o;

	memset(a, 0, sizeof(*a));
	a->max_error = NAN;
	a->name = "calibrated";
	cli_argv_init(&it, CLI_CALIBRATE, opts, O_COUNT, argc, argv);
	while ((o = cli_argv_next(&it, &val)) != CLI_ARGV_END) {
		switch (o) {
		case CLI_ARGV_ARG:
			if (a->nfiles == CAL_MAX_FILES)
				return usage_error("more than %u files", CAL_MAX_FILES);
			a->files[a->nfiles++] = val;
			break;
		case O_HOST_BENCH: a->host_bench = true; break;
		case O_OUTPUT: a->out = val; break;
		case O_BASE: a->base = val; break;
		case O_NAME:
			if (check_name(val))
				return CLI_EXIT_USAGE;
			a->name = val;
			break;
		case O_JSON: a->json = val; break;
		case O_CSV: a->csv = val; break;
		default:
			errno = 0;
			a->max_error = strtod(val, &end);
			if (*end || errno || !(a->max_error >= 0) || !isfinite(a->max_error) ||
			    !((*val >= '0' && *val <= '9') || *val == '.'))
				return usage_error("--max-error: '%s' is not a percentage (a number "
						   ">= 0, such as 15 or 2.5)", val);
		}
	}
	*help = it.help;
	if (it.help || it.rc)
		return it.rc;
	if (!a->nfiles && !a->host_bench)
		return usage_error("expected one or more `cclab p2p --json` result files or cases (or "
				   "--host-bench alone)");
	if (!a->out)
		return usage_error("expected -o FABRIC.yaml: the fabric file to write");
	return CLI_EXIT_OK;
}

/* A path that cannot be written fails now, not after the fit's hundreds
 * of simulator runs; after the inputs are read, so that one of them
 * named as an output is refused too. */
static int check_outputs(const struct cal_args *a)
{
	const char *const outs[] = {a->out, a->json, a->csv};
	static const char *const opt[] = {"-o", "--json", "--csv"};
	const size_t n = sizeof(outs) / sizeof(outs[0]);
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (outs[i] && outs[j] && cc_output_same(outs[i], outs[j]))
				return usage_error("%s and %s name the same file '%s'", opt[i],
						   opt[j], outs[i]);
	for (size_t i = 0; !rc && i < n; i++)
		rc = cli_output_check("calibrate", outs[i]);
	return rc;
}

/* The base fabric: --base, else the files' link layer's usual preset; the
 * device's MTU either way (the fit cannot see it: it is a fact).  *preset
 * is the preset the fabric file will name: the base's own, or for a base
 * file the link layer's (every value that differs from it is written). */
static int base_fabric(const struct cal_args *a, const struct cal_device *dev,
		       struct sim_params *base, struct sim_params *preset)
{
	const char *usual = !strcmp(dev->link_layer, "InfiniBand") ? "ib-hdr" : "roce-100g";
	int rc;

	if ((rc = cli_opt_fabric(CLI_CALIBRATE, "--base", a->base ? a->base : usual, base)))
		return rc;
	if (sim_params_preset(base->name, preset))
		sim_params_preset(usual, preset); /* built in: cannot fail */
	if (dev->mtu >= 256 && dev->mtu <= 4096 && !(dev->mtu & (dev->mtu - 1)))
		base->link.mtu_bytes = dev->mtu;
	return 0;
}

/* A percentage for the tables: "N/A" where the fit has none (a point the
 * fabric could not run), never "inf" or "nan". */
static const char *pct(char *buf, size_t len, const char *fmt, double v)
{
	if (!isfinite(v))
		return "N/A";
	snprintf(buf, len, fmt, v);
	return buf;
}

static void print_points(const struct cal_run *r)
{
	printf("#\n#  %-9s %-4s %10s %10s %12s %12s %5s %8s\n", "op", "mode", "size", "iters",
	       "measured", "fitted", "unit", "error");
	printf("#  %-9s %-4s %10s %10s %12s %12s %5s %8s\n", "", "", "(B)", "", "", "", "", "(%)");
	for (size_t i = 0; i < r->n; i++) {
		const struct sim_cal_point *pt = &r->pts[i].pt;
		char fitted[24], err[24];

		printf("   %-9s %-4s %10" PRIu64 " %10" PRIu32 " %12.3f %12s %5s %8s\n",
		       cc_p2p_op_name[pt->p.op], cc_p2p_mode_name[pt->p.mode], pt->p.size,
		       pt->p.iters, pt->measured, pct(fitted, sizeof(fitted), "%.3f", pt->predicted),
		       cal_unit(pt), pct(err, sizeof(err), "%.2f",
					 (pt->predicted / pt->measured - 1) * 100));
	}
}

static void print_keys(const struct cal_run *r)
{
	const struct sim_cal_fit *fit = r->fit;

	printf("#\n#  %-24s %16s %16s  %s\n", "key", "fitted", "base", "rms error at x1.25 / "
	       "at /1.25");
	for (unsigned k = 0; k < SIM_CAL_NKEYS; k++) {
		const struct sim_param_field *f = sim_param_field_find(sim_cal_keys[k]);
		uint64_t v = sim_param_field_get(&fit->fabric, f), b = sim_param_field_get(r->base, f);
		bool rate = !strcmp(f->unit, "bit/s");
		double scale = rate ? 1e9 : 1e6;
		char up[24], down[24];

		printf("   %-24s %11.4f %-4s %11.4f %-4s  ", f->key, (double)v / scale,
		       rate ? "Gb/s" : "us", (double)b / scale, rate ? "Gb/s" : "us");
		if (fit->key[k].at_bound)
			printf("at the search's %s bound: the measurements ask for beyond it\n",
			       fit->key[k].at_bound < 0 ? "lower" : "upper");
		else if (fit->key[k].negligible && fit->key[k].wants_ps < 0)
			printf("held at 0: the measurements want %.4f us (no cost is negative)\n",
			       fit->key[k].wants_ps / 1e6);
		else if (fit->key[k].negligible)
			printf("fitted to ~0: the measurements are explained without it\n");
		else if (fit->key[k].kept)
			printf("kept at the base, which fits as well (%.2f %% / %.2f %%)\n",
			       fit->key[k].rms_up_pct, fit->key[k].rms_down_pct);
		else if (fit->key[k].seen)
			printf("%s %% / %s %%\n", pct(up, sizeof(up), "%.2f", fit->key[k].rms_up_pct),
			       pct(down, sizeof(down), "%.2f", fit->key[k].rms_down_pct));
		else
			printf("not constrained: no measured test depends on it\n");
	}
	if (r->host)
		printf("   %-24s %11.4f GB/s, call %.3f us (--host-bench, %u samples)\n",
		       "host.cpu_thread_bytes_per_s", (double)r->host->bytes_per_s / 1e9,
		       (double)r->host->call_ps / 1e6, r->host->n);
}

/* --host-bench without files: the base fabric with this host's measured
 * reduce and copy costs, for a later `cclab calibrate --base FILE` run
 * elsewhere (scripts/softroce/: measured in the VM, fitted on the host,
 * where the simulator runs at full speed). */
static int host_only(const struct cal_args *a, const struct sim_params *base,
		     const struct sim_params *preset, const struct cal_device *dev,
		     const struct cal_host *host)
{
	struct sim_cal_fit fit = { .fabric = *base };
	struct cal_run r = { .a = a, .fit = &fit, .base = base, .preset = preset, .dev = dev,
			     .host = host };
	int rc;

	snprintf(fit.fabric.name, sizeof(fit.fabric.name), "%s", a->name);
	printf("# cclab %s calibrate: --host-bench alone, base fabric %s\n", CCLAB_VERSION,
	       base->name);
	printf("   host.cpu_thread_bytes_per_s  %.4f GB/s, call %.3f us (%u samples)\n",
	       (double)host->bytes_per_s / 1e9, (double)host->call_ps / 1e6, host->n);
	rc = cal_write_fabric(&r);
	if (!rc && a->json)
		rc = cal_write_json(&r);
	if (!rc && a->csv)
		rc = cal_write_csv(&r);
	if (!rc)
		printf("# wrote %s\n", a->out);
	return rc;
}

/* Whether the fit is one to write.  A fabric from a fit that has no
 * finite error, or whose key sits at the search's own bound, would be
 * read by `cclab sim` as a description of the hardware: it is not one.
 * CLI_EXIT_FAIL after the reasons on stderr, or 0 (after a warning for a
 * time the points push below 0, which the model cannot give them). */
static int judge(const struct sim_cal_fit *fit)
{
	static const char *const asks[2][2] = {
		{"a link slower than 100 kb/s", "a link faster than 10 Tb/s"},
		{"", "more than 1 s of it"},
	};
	unsigned seen = 0, pushed = 0;
	int rc = 0;

	if (!isfinite(fit->rms_pct) || !isfinite(fit->max_pct)) {
		fprintf(stderr, "cclab calibrate: the fit has no finite error (a point the fitted "
			"fabric cannot run, or a figure it cannot come near): not a fabric to write\n");
		rc = CLI_EXIT_FAIL;
	}
	for (unsigned k = 0; k < SIM_CAL_NKEYS; k++) {
		const struct sim_cal_key *c = &fit->key[k];

		if (c->at_bound) {
			fprintf(stderr, "cclab calibrate: %s ends at the search's %s bound: the "
				"measurements ask for %s, beyond what the model allows; check "
				"their units and figures\n", sim_cal_keys[k],
				c->at_bound < 0 ? "lower" : "upper",
				asks[k != SIM_CAL_RATE][c->at_bound > 0]);
			rc = CLI_EXIT_FAIL;
		}
		if (k != SIM_CAL_RATE && c->seen) {
			seen++;
			pushed += c->wants_ps < 0;
		}
	}
	if (seen && pushed == seen) {
		fprintf(stderr, "cclab calibrate: every fitted time is held at 0 and the fabric is "
			"still slower than the measurements: the base's costs that are not fitted "
			"(doorbell, WQE fetch, CQE write, switch) alone exceed them; check the figures, "
			"or give a --base with smaller ones\n");
		rc = CLI_EXIT_FAIL;
	}
	for (unsigned k = 0; !rc && k < SIM_CAL_NKEYS; k++)
		if (fit->key[k].wants_ps < 0)
			fprintf(stderr, "cclab calibrate: warning: %s is held at 0, where the "
				"measurements want %.4f us: the model cannot fit them fully "
				"(docs/calibrate.md)\n", sim_cal_keys[k], fit->key[k].wants_ps / 1e6);
	return rc;
}

int cmd_calibrate(int argc, char **argv)
{
	struct cal_args a;
	struct cal_device dev = {0};
	struct cal_host host;
	struct sim_params base, preset;
	struct sim_cal_fit fit;
	struct cal_point *pts = calloc(CAL_MAX_POINTS, sizeof(*pts));
	struct sim_cal_point *raw = calloc(CAL_MAX_POINTS, sizeof(*raw));
	size_t n = 0;
	bool help = false;
	char err[256];
	int rc = (!pts || !raw) ? CLI_EXIT_FAIL : cal_parse_args(argc, argv, &a, &help);

	if (!rc && help)
		calibrate_usage(stdout);
	for (unsigned i = 0; !rc && !help && i < a.nfiles; i++) {
		struct stat st;

		rc = stat(a.files[i], &st) == 0 && S_ISDIR(st.st_mode)
			     ? cal_load_case(a.files[i], i, pts, &n, &dev)
			     : cal_load(a.files[i], i, pts, &n, &dev);
	}
	if (!rc && !help && !a.nfiles) /* --host-bench alone: a fabric of this host */
		snprintf(dev.name, sizeof(dev.name), "this host");
	else if (!rc && !help && !n) {
		fprintf(stderr, "cclab calibrate: no 'ok' size in the files: nothing to fit\n");
		rc = CLI_EXIT_USAGE;
	}
	if (rc || help)
		goto out;
	if ((rc = base_fabric(&a, &dev, &base, &preset)) || (rc = check_outputs(&a)))
		goto out;
	if (a.host_bench) {
		if (cal_host_bench(&host)) {
			fprintf(stderr, "cclab calibrate: --host-bench: the timings do not fit a "
				"rate (out of memory, or a clock that did not move)\n");
			rc = CLI_EXIT_FAIL;
			goto out;
		}
		base.host.cpu_thread_bytes_per_s = host.bytes_per_s;
		base.host.cpu_call_ps = host.call_ps;
	}
	for (size_t i = 0; i < n; i++)
		raw[i] = pts[i].pt;
	if (!n) {
		rc = host_only(&a, &base, &preset, &dev, &host);
		goto out;
	}
	printf("# cclab %s calibrate: %zu points from %u files, measured on %s (%s, MTU %u)\n",
	       CCLAB_VERSION, n, a.nfiles, dev.name, *dev.link_layer ? dev.link_layer : "?",
	       base.link.mtu_bytes);
	printf("# base fabric %s; simulated on a star of two ranks, as `cclab p2p` runs\n",
	       base.name);
	if (sim_calibrate(raw, n, &base, &fit, err, sizeof(err))) {
		fprintf(stderr, "cclab calibrate: %s\n", err);
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		pts[i].pt = raw[i];
	snprintf(fit.fabric.name, sizeof(fit.fabric.name), "%s", a.name);
	struct cal_run r = { .a = &a, .pts = pts, .n = n, .fit = &fit, .base = &base,
			     .preset = &preset, .dev = &dev, .host = a.host_bench ? &host : NULL };

	char rms[24], max[24];

	print_points(&r);
	print_keys(&r);
	printf("#\n# fit: rms error %s %%, largest %s %% (%s %s, %" PRIu64 " B); %" PRIu32
	       " simulator runs\n", pct(rms, sizeof(rms), "%.2f", fit.rms_pct),
	       pct(max, sizeof(max), "%.2f", fit.max_pct),
	       cc_p2p_op_name[pts[fit.worst].pt.p.op], cc_p2p_mode_name[pts[fit.worst].pt.p.mode],
	       pts[fit.worst].pt.p.size, fit.sims);
	if ((rc = judge(&fit))) {
		printf("# FAILED: no fabric written (the reason is on stderr)\n");
		goto out;
	}
	rc = cal_write_fabric(&r);
	if (!rc && a.json)
		rc = cal_write_json(&r);
	if (!rc && a.csv)
		rc = cal_write_csv(&r);
	if (!rc)
		printf("# wrote %s\n", a.out);
	if (!rc && isfinite(a.max_error) && fit.max_pct > a.max_error) {
		printf("# FAILED: a point is %.2f %% off, beyond --max-error %g %%\n", fit.max_pct,
		       a.max_error);
		rc = CLI_EXIT_FAIL;
	}
out:
	free(pts);
	free(raw);
	return rc;
}
