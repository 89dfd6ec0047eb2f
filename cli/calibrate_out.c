/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/calibrate_out.c — what `cclab calibrate` writes (cli/calibrate.h):
 * the fabric file, and the fit point by point as --json and --csv.  Each
 * file is written atomically (util/atomic_file.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/calibrate.h"
#include "cli/check.h"
#include "cli/cli.h"
#include "sim/fabric_yaml.h"
#include "util/atomic_file.h"
#include "util/json.h"
#include "util/yaml.h"

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
	return cli_output_error("calibrate", path, err);
}

/* The length of the UTF-8 sequence at s (RFC 3629: no overlong form, no
 * surrogate, nothing past U+10FFFF), or 0 when s does not start one. */
static unsigned utf8_len(const unsigned char *s)
{
	unsigned n = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 &&
		     s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;

	for (unsigned i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/* The code point of a valid sequence of n bytes. */
static uint32_t utf8_code(const unsigned char *s, unsigned n)
{
	uint32_t c = n == 1 ? s[0] : s[0] & (0x7f >> n);

	for (unsigned i = 1; i < n; i++)
		c = c << 6 | (s[i] & 0x3f);
	return c;
}

/* What YAML lets a file hold as it is (YAML 1.1 section 5.1, as libyaml's
 * reader checks it): no C0 or C1 control character but tab and line
 * breaks (refused here too: they are layout), no DEL, no U+FFFE/FFFF. */
static bool yaml_printable(uint32_t c)
{
	return (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) ||
	       (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

const char *cal_name_invalid(const char *name, size_t *at)
{
	const unsigned char *s = (const unsigned char *)name;

	for (size_t i = 0; s[i];) {
		unsigned n = utf8_len(s + i);

		*at = i;
		if (!n)
			return "a byte that is not UTF-8";
		if (!yaml_printable(utf8_code(s + i, n)))
			return "a control character";
		i += n;
	}
	return NULL;
}

/* s as a YAML double-quoted scalar (YAML 1.2 section 7.3.1): '"' and '\'
 * escaped, any character YAML does not print as an escape, so nothing in
 * a name (": ", " #", a leading '-', '&' or '!', "null", "true", a line
 * break) reads back as anything but that string.  Bytes that are not
 * UTF-8 (refused in --name) would come back as other characters: the read
 * back in cal_write_fabric() catches it. */
static void yaml_quoted(FILE *o, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', o);
	for (size_t i = 0; s[i];) {
		unsigned n = utf8_len(s + i);
		uint32_t c = n ? utf8_code(s + i, n) : s[i];
		/* U+2028 and U+2029 break lines in YAML 1.1, and a BOM is a
		 * marker to some readers: escaped too, for every reader. */
		bool plain = n && yaml_printable(c) && c != 0x2028 && c != 0x2029 && c != 0xfeff;

		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", (char)c);
		else if (plain)
			fwrite(s + i, 1, n, o);
		else
			fprintf(o, c <= 0xff ? "\\x%02x" : c <= 0xffff ? "\\u%04x" : "\\U%08x",
				(unsigned)c);
		i += n ? n : 1;
	}
	fputc('"', o);
}

/* Text from the inputs (file names, the device's name) inside a comment:
 * kept on its line, whatever it holds (a line break would end the comment
 * and start a key), and valid UTF-8, which libyaml requires of the whole
 * file: anything else is written as the text \xNN. */
static void yaml_comment(FILE *o, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; s[i];) {
		unsigned n = utf8_len(s + i);

		if (!n || !yaml_printable(utf8_code(s + i, n))) {
			fprintf(o, "\\x%02x", s[i++]);
			continue;
		}
		fwrite(s + i, 1, n, o);
		i += n;
	}
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
	else if (fit->key[k].negligible && fit->key[k].wants_ps < 0)
		fprintf(o, "; held at 0: the measurements want %.4g us, and no cost is negative",
			fit->key[k].wants_ps / 1e6);
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
		fprintf(o, "# measured on ");
		yaml_comment(o, r->dev->name);
		fprintf(o, " (");
		yaml_comment(o, *r->dev->link_layer ? r->dev->link_layer : "link layer not recorded");
		fprintf(o, ", MTU %u); files:\n", r->dev->mtu);
		for (unsigned i = 0; i < r->a->nfiles; i++) {
			fprintf(o, "#   ");
			yaml_comment(o, r->a->files[i]);
			fputc('\n', o);
		}
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
	fprintf(o, "preset: %s\nname: ", r->preset->name);
	yaml_quoted(o, f->name);
	fputc('\n', o);
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

/* The fabric text reads back, through the loader of `cclab sim --fabric`
 * and a scenario's `fabric:` (sim/fabric_yaml.h), as the fabric meant:
 * its name and every value.  0, or -EINVAL with the first difference, or
 * the loader's message, in why. */
static int read_back(const char *path, const char *text, size_t len,
		     const struct sim_params *want, char *why, size_t wlen)
{
	struct cy_doc doc;
	struct cy_error err;
	struct sim_params got;
	int rc = cy_load_string(path, text, len, &doc, &err);

	if (rc) {
		snprintf(why, wlen, "%s", err.msg);
		return -EINVAL;
	}
	if (doc.root->kind != CY_MAP)
		rc = cy_fail(&err, doc.root, "not a mapping");
	else
		rc = sim_fabric_from_yaml(&got, doc.root, "", &err);
	cy_free(&doc);
	if (rc) {
		snprintf(why, wlen, "%s", err.msg);
		return -EINVAL;
	}
	if (strcmp(got.name, want->name)) {
		snprintf(why, wlen, "the name reads back as \"%s\"", got.name);
		return -EINVAL;
	}
	for (size_t i = 0; i < sim_param_field_count; i++) {
		const struct sim_param_field *fd = &sim_param_fields[i];
		uint64_t g, w;

		if (fd->kind == SIM_PARAM_STR)
			continue;
		g = sim_param_field_get(&got, fd);
		w = sim_param_field_get(want, fd);
		if (g != w) {
			snprintf(why, wlen, "'%s' reads back as %" PRIu64 ", not %" PRIu64, fd->key, g, w);
			return -EINVAL;
		}
	}
	return 0;
}

/* The temporary file as written, read back through its descriptor (the
 * path would count it among the run's inputs) before it is renamed into
 * place: the same bytes, and read_back() of them.  A path written directly
 * (no temporary: stdout, a FIFO) was checked in memory only. */
static int reread(struct cc_atomic_file *af, const char *text, size_t len,
		  const struct sim_params *want, char *why, size_t wlen)
{
	char *buf;
	ssize_t got;
	int rc = 0;

	if (!af->tmp)
		return 0;
	if (!(buf = malloc(len + 1)))
		return -ENOMEM;
	got = pread(fileno(af->f), buf, len + 1, 0);
	if (got < 0 && errno == EBADF) /* opened write-only: nothing to read it by */
		rc = 0;
	else if (got < 0)
		rc = -errno;
	else if ((size_t)got == len && !memcmp(buf, text, len))
		rc = read_back(af->path, buf, len, want, why, wlen);
	else {
		snprintf(why, wlen, "it holds %zd bytes, not the %zu written", got, len);
		rc = -EIO;
	}
	free(buf);
	return rc;
}

int cal_write_fabric(const struct cal_run *r)
{
	const char *out = r->a->out;
	struct cc_atomic_file af;
	char *text = NULL, why[CY_ERR_LEN + 64] = "";
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int err;

	if (!m)
		return fail(out, -errno);
	yaml_body(m, r, &r->fit->fabric);
	if (fclose(m)) {
		free(text);
		return fail(out, -ENOMEM);
	}
	/* Before anything is opened: a path written directly (a FIFO, a
	 * terminal) cannot be taken back. */
	if (read_back(out, text, len, &r->fit->fabric, why, sizeof(why))) {
		fprintf(stderr, "cclab calibrate: %s: the fabric would not read back as written "
			"(%s); nothing written\n", out, why);
		free(text);
		return CLI_EXIT_FAIL;
	}
	if ((err = cc_atomic_open(&af, out))) {
		free(text);
		return fail(out, err);
	}
	errno = 0;
	if (fwrite(text, 1, len, af.f) != len || fflush(af.f)) {
		err = errno ? -errno : -EIO;
		cc_atomic_abort(&af);
		free(text);
		return fail(out, err);
	}
	err = reread(&af, text, len, &r->fit->fabric, why, sizeof(why));
	free(text);
	if (err) {
		cc_atomic_abort(&af);
		if (!*why)
			return fail(out, err);
		fprintf(stderr, "cclab calibrate: %s: the file written does not read back (%s); "
			"nothing written\n", out, why);
		return CLI_EXIT_FAIL;
	}
	if ((err = cc_atomic_commit(&af)))
		return fail(out, err);
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
		cc_json_kv_string(j, "key", fd->key);
		cc_json_kv_string(j, "unit", fd->unit);
		cc_json_kv_uint(j, "value", sim_param_field_get(&r->fit->fabric, fd));
		cc_json_kv_uint(j, "base_value", sim_param_field_get(r->base, fd));
		cc_json_kv_bool(j, "constrained", r->fit->key[k].seen);
		cc_json_kv_bool(j, "negligible", r->fit->key[k].negligible);
		cc_json_kv_bool(j, "kept", r->fit->key[k].kept);
		/* held at 0 where the points want it negative: what they want */
		cli_json_double_or_null(j, "wants_ps", r->fit->key[k].wants_ps < 0,
					r->fit->key[k].wants_ps);
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
		cc_json_kv_string(j, "file", r->a->files[r->pts[i].file]);
		cc_json_kv_string(j, "op", cc_p2p_op_name[pt->p.op]);
		cc_json_kv_string(j, "mode", cc_p2p_mode_name[pt->p.mode]);
		cc_json_kv_uint(j, "bytes", pt->p.size);
		cc_json_kv_uint(j, "iterations", pt->p.iters);
		cc_json_kv_string(j, "unit", cal_unit(pt));
		cc_json_kv_double(j, "measured", pt->measured);
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
	cc_json_kv_string(&j, "device", r->dev->name);
	cc_json_kv_string(&j, "link_layer", *r->dev->link_layer ? r->dev->link_layer : NULL);
	cc_json_kv_uint(&j, "active_mtu", r->dev->mtu);
	cc_json_kv_string(&j, "base", r->base->name);
	cc_json_kv_string(&j, "fabric_file", r->a->out);
	cc_json_kv_double(&j, "rms_error_pct", r->fit->rms_pct);
	cc_json_kv_double(&j, "max_error_pct", r->fit->max_pct);
	cc_json_kv_uint(&j, "simulations", r->fit->sims);
	json_keys(&j, r);
	cc_json_key(&j, "host");
	if (r->host) {
		cc_json_object_begin(&j);
		cc_json_kv_uint(&j, "cpu_thread_bytes_per_s", r->host->bytes_per_s);
		cc_json_kv_uint(&j, "cpu_call_ps", r->host->call_ps);
		cc_json_key(&j, "samples");
		cc_json_array_begin(&j);
		for (unsigned i = 0; i < r->host->n; i++) {
			cc_json_object_begin(&j);
			cc_json_kv_uint(&j, "bytes_moved", r->host->moved[i]);
			cc_json_kv_double(&j, "ns", r->host->ns[i]);
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
