/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/fabric_yaml.c — a fabric from YAML (sim/fabric_yaml.h, docs/yaml.md). */
#include "sim/fabric_yaml.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The sections of sim/params.h's field table, as scenario keys. */
static const char *const sections[] = {"link", "switch", "rnic", "cc", "pcie", "host", "software",
				       NULL};

/* One field's value, read by its unit. */
static int field_value(const struct cy_node *v, const struct sim_param_field *f, const char *key,
		       uint64_t *out, struct cy_error *err)
{
	if (f->kind == SIM_PARAM_ENUM) {
		const char *link_names[SIM_LINK_COUNT];
		const char *const *names = f->names;
		unsigned idx;
		int rc;

		if (!names) { /* link.type: its names are sim/wire.h's table */
			for (unsigned i = 0; i < SIM_LINK_COUNT; i++)
				link_names[i] = sim_link_info[i].name;
			names = link_names;
		}
		rc = cy_enum(v, key, names, f->nnames, &idx, err);
		if (!rc)
			*out = idx;
		return rc;
	}
	if (!strcmp(f->unit, "bit/s"))
		return cy_rate(v, key, out, err);
	if (!strcmp(f->unit, "B/s")) {
		uint64_t bits;
		int rc;

		/* A plain number is bytes per second, as the key says and as the
		 * --json report prints it; with a unit it is a rate ("2039GB/s"). */
		if (v->kind == CY_SCALAR && !v->quoted && v->len && strspn(v->str, "0123456789") == v->len)
			return cy_uint(v, key, 1, UINT64_MAX, out, err);
		rc = cy_rate(v, key, &bits, err);

		if (!rc && bits % 8)
			return cy_fail(err, v, "'%s': %s is not a whole number of bytes per second",
				       key, v->str);
		*out = bits / 8;
		return rc;
	}
	if (!strcmp(f->unit, "ps"))
		return cy_time(v, key, out, err);
	if (!strcmp(f->unit, "B"))
		return cy_size(v, key, 0, f->size == 8 ? UINT64_MAX : f->size == 4 ? UINT32_MAX
									  : UINT8_MAX,
			       out, err);
	return cy_uint(v, key, 0, f->size == 8 ? UINT64_MAX : f->size == 4 ? UINT32_MAX : UINT8_MAX,
		       out, err);
}

static int read_section(const struct cy_node *m, const char *section, struct sim_params *fp,
			struct cy_error *err)
{
	const char *members[64];
	char what[48];
	size_t n = 0, plen = strlen(section);

	for (size_t i = 0; i < sim_param_field_count && n + 1 < 64; i++)
		if (!strncmp(sim_param_fields[i].key, section, plen) &&
		    sim_param_fields[i].key[plen] == '.')
			members[n++] = sim_param_fields[i].key + plen + 1;
	members[n] = NULL;
	snprintf(what, sizeof(what), "'fabric.%s'", section);
	int rc = cy_check_map(m, what, members, err);

	for (size_t i = 0; !rc && i < m->n; i++) {
		char key[96];
		uint64_t v;

		snprintf(key, sizeof(key), "%s.%s", section, m->keys[i]->str);
		const struct sim_param_field *f = sim_param_field_find(key);
		rc = field_value(m->vals[i], f, key, &v, err);
		/* The one value whose range is not its width's. */
		if (!rc && !strcmp(key, "link.mtu_bytes") && (v < 256 || v > 4096 || (v & (v - 1))))
			return cy_fail(err, m->vals[i], "'%s': %llu is not an IB path MTU; expected "
				       "256, 512, 1024, 2048 or 4096", key, (unsigned long long)v);
		if (!rc)
			sim_param_field_set(fp, f, v);
	}
	return rc;
}

/* A fabric file may name another as its base (`file:`), which may name
 * another: this deep at most, so two that name each other end. */
#define MAX_FILE_DEPTH 4

static int load_file(struct sim_params *out, const char *path, int depth, struct cy_error *err);

/* "dir/" of path ("" for a bare name), for the files a file names. */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	snprintf(dir, len, "%.*s", slash ? (int)(slash - path + 1) : 0, path);
}

/* path relative to base_dir (a scenario's or a fabric file's folder),
 * loaded: a file that cannot be read is the naming key's fault. */
static int load_named(struct sim_params *out, const struct cy_node *at, const char *name,
		      const char *base_dir, int depth, struct cy_error *err)
{
	char path[PATH_MAX];
	int rc;

	if (name[0] == '/')
		snprintf(path, sizeof(path), "%s", name);
	else if ((size_t)snprintf(path, sizeof(path), "%s%s", base_dir, name) >= sizeof(path))
		return cy_fail(err, at, "fabric path too long");
	rc = load_file(out, path, depth, err);
	if (rc && rc != -EINVAL && rc != -ENOMEM) {
		struct cy_error why = *err;

		return cy_fail(err, at, "'fabric': %s", why.msg);
	}
	return rc;
}

/* The base of a fabric mapping: `preset: NAME`, or `file: PATH` — a fabric
 * file (one `cclab calibrate` wrote) whose values the sections below then
 * override, as they override a preset's. */
static int read_base(const struct cy_node *f, struct sim_params *fp, const char *base_dir,
		     int depth, struct cy_error *err)
{
	const char *const *presets = sim_params_preset_names();
	const struct cy_node *v = cy_get(f, "preset"), *file = cy_get(f, "file");
	unsigned idx, npresets = 0;
	const char *name;
	int rc;

	if (v && file)
		return cy_fail(err, file, "'fabric': 'preset' and 'file' both name its base; give one");
	if (file) {
		if (depth >= MAX_FILE_DEPTH)
			return cy_fail(err, file, "'file': fabric files name each other more than %d "
				       "deep (a loop?)", MAX_FILE_DEPTH);
		if ((rc = cy_string(file, "file", &name, err)))
			return rc;
		return load_named(fp, file, name, base_dir, depth + 1, err);
	}
	if ((rc = cy_require(f, "'fabric'", "preset", &v, err)))
		return rc;
	while (presets[npresets])
		npresets++;
	if ((rc = cy_enum(v, "preset", presets, npresets, &idx, err)))
		return rc;
	sim_params_preset(presets[idx], fp);
	return 0;
}

static int read_fabric(const struct cy_node *f, struct sim_params *fp, const char *base_dir,
		       int depth, struct cy_error *err)
{
	const char *allowed[16];
	size_t n = 0;
	const struct cy_node *v;
	const char *name;
	int rc;

	allowed[n++] = "preset";
	allowed[n++] = "file";
	allowed[n++] = "name";
	for (size_t i = 0; sections[i]; i++)
		allowed[n++] = sections[i];
	allowed[n] = NULL;
	rc = cy_check_map(f, "'fabric'", allowed, err);
	if (!rc)
		rc = read_base(f, fp, base_dir, depth, err);
	if (rc)
		return rc;
	if ((v = cy_get(f, "name"))) {
		if ((rc = cy_string(v, "name", &name, err)))
			return rc;
		if (!*name || strlen(name) >= sizeof(fp->name))
			return cy_fail(err, v, "'name': 1 to %zu characters", sizeof(fp->name) - 1);
		snprintf(fp->name, sizeof(fp->name), "%s", name);
	}
	for (size_t i = 0; sections[i] && !rc; i++)
		if ((v = cy_get(f, sections[i])))
			rc = read_section(v, sections[i], fp, err);
	const char *key, *why = rc ? NULL : sim_params_invalid(fp, &key);

	if (why) {
		/* At the value that breaks it when the file (or a --set) gave
		 * it, else at the fabric: the preset's own value. */
		const char *dot = strchr(key, '.');
		const struct cy_node *at = f;

		if (dot) {
			char section[16];

			snprintf(section, sizeof(section), "%.*s", (int)(dot - key), key);
			v = cy_get(cy_get(f, section), dot + 1);
			if (v)
				at = v;
		}
		return cy_fail(err, at, "'%s' %s (docs/fabric.md)", key, why);
	}
	return rc;
}

int sim_fabric_is_file(const char *arg)
{
	size_t n = strlen(arg);

	return strchr(arg, '/') || (n > 5 && !strcmp(arg + n - 5, ".yaml")) ||
	       (n > 4 && !strcmp(arg + n - 4, ".yml"));
}

static int load_file(struct sim_params *out, const char *path, int depth, struct cy_error *err)
{
	struct cy_doc doc = {0};
	char dir[PATH_MAX];
	int rc = cy_load_file(path, &doc, err);

	if (rc)
		return rc;
	dir_of(path, dir, sizeof(dir));
	rc = cy_doc_map(&doc, "fabric", err);
	if (!rc)
		rc = read_fabric(doc.root, out, dir, depth, err);
	cy_free(&doc);
	return rc;
}

int sim_fabric_load(struct sim_params *out, const char *path, struct cy_error *err)
{
	return load_file(out, path, 0, err);
}

int sim_fabric_from_yaml(struct sim_params *out, const struct cy_node *f, const char *base_dir,
			 struct cy_error *err)
{
	const char *name;
	int rc;

	if (f->kind != CY_SCALAR)
		return read_fabric(f, out, base_dir, 0, err);
	if ((rc = cy_string(f, "fabric", &name, err)))
		return rc;
	return load_named(out, f, name, base_dir, 1, err);
}
