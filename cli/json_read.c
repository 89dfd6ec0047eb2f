/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/json_read.c — typed reads of cclab's own --json files (cli/json_read.h). */
#include "cli/json_read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* After the JSON loader's -ENOMSG (text that is not JSON from its first
 * word on), what the YAML loader made of it (yrc, y): a file cclab knows
 * by another name (a CSV table, a scenario) is called that.  A YAML
 * mapping with a "command" would be named as a result of that command,
 * which it is not: the JSON error in err stays then. */
static int other_kind(int yrc, struct cy_doc *y, const char *reads, struct cy_error *err)
{
	const struct cy_node *at;
	char what[256];

	if (yrc)
		return -EINVAL;
	if (cli_json_kind(y->root, what, sizeof(what), &at) == CLI_JSON_NOT_CCLAB)
		cy_fail(err, at, "this is %s: %s", what, reads);
	cy_free(y);
	return -EINVAL;
}

int cli_json_load_file(const char *path, const char *reads, struct cy_doc *doc,
		       struct cy_error *err)
{
	struct cy_doc y;
	struct cy_error yerr;
	int rc = cy_load_json_file(path, doc, err);

	return rc == -ENOMSG ? other_kind(cy_load_file(path, &y, &yerr), &y, reads, err) : rc;
}

int cli_json_load_string(const char *name, const char *text, size_t len, const char *reads,
			 struct cy_doc *doc, struct cy_error *err)
{
	struct cy_doc y;
	struct cy_error yerr;
	int rc = cy_load_json_string(name, text, len, doc, err);

	return rc == -ENOMSG ? other_kind(cy_load_string(name, text, len, &y, &yerr), &y, reads,
					  err) : rc;
}

/* JSON's null, as the loader keeps it: the plain scalar "null". */
bool cli_json_is_null(const struct cy_node *n)
{
	return n && n->kind == CY_SCALAR && !n->quoted && !strcmp(n->str, "null");
}

/* JSON's number grammar (RFC 8259 section 6), checked before strtod(),
 * which would also take "nan", "inf", hex and leading spaces. */
static bool json_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return false;
	if (*s == '.') {
		if (!(*++s >= '0' && *s <= '9'))
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

/* A number or null (NaN) at n; a missing key is an error only if `need`.
 * The C locale is in force (cclab never calls setlocale()), so strtod()
 * reads '.' as the decimal point on every machine. */
int cli_json_number(const struct cy_node *m, const char *key, bool need, double *out,
		    struct cy_error *err)
{
	const struct cy_node *n = cy_get(m, key);
	char *end;
	double v;

	*out = NAN;
	if (!n) {
		if (need)
			return cy_require(m, "a size entry", key, &n, err);
		return 0;
	}
	if (cli_json_is_null(n))
		return 0;
	if (n->kind != CY_SCALAR || n->quoted || !json_number(n->str))
		return cy_fail(err, n, "'%s': expected a number or null, found %s", key,
			       cy_kind_name(n));
	errno = 0;
	v = strtod(n->str, &end);
	if (*end || !isfinite(v))
		return cy_fail(err, n, "'%s': the number '%s' is out of range", key, n->str);
	*out = v;
	return 0;
}

int cli_json_string(const struct cy_node *m, const char *what, const char *key,
		      const char **out, struct cy_error *err)
{
	const struct cy_node *n;
	int rc = cy_require(m, what, key, &n, err);

	return rc ? rc : cy_string(n, key, out, err);
}

int cli_json_uint(const struct cy_node *m, const char *what, const char *key, uint64_t min,
		    uint64_t *out, struct cy_error *err)
{
	const struct cy_node *n;
	int rc = cy_require(m, what, key, &n, err);

	return rc ? rc : cy_uint(n, key, min, UINT64_MAX, out, err);
}


const char *cli_json_shown(const char *s, size_t max, char *buf, size_t len)
{
	size_t n = 0, i = 0;

	if (len < 8)
		return "?";
	/* Room is kept for "..." and the NUL. */
	for (; s[i] && i < max && n + 4 < len; i++)
		buf[n++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	if (s[i]) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

/* A scalar's text at m's key, or NULL (absent, null, not a scalar). */
static const char *text_at(const struct cy_node *m, const char *key)
{
	const struct cy_node *n = cy_get(m, key);

	return n && n->kind == CY_SCALAR && !cli_json_is_null(n) ? n->str : NULL;
}

/* What a scalar document is: cclab's CSV files parse as one plain scalar. */
static void scalar_kind(const struct cy_node *root, char *buf, size_t len)
{
	static const struct {
		const char *head, *what;
	} csv[] = {
		{"t_ps,dur_ps,", "a trace CSV (--trace FILE.csv), not a --json result"},
		{"size_bytes,count,measured_us,", "a `cclab compare --csv` table, not a --json result"},
		{"op,mode,size_bytes,iterations,measured,",
		 "a `cclab calibrate --csv` table, not a --json result"},
	};
	const char *text = root && root->kind == CY_SCALAR ? root->str : "";

	for (size_t i = 0; i < sizeof(csv) / sizeof(csv[0]); i++)
		if (!strncmp(text, csv[i].head, strlen(csv[i].head))) {
			snprintf(buf, len, "%s", csv[i].what);
			return;
		}
	snprintf(buf, len, "not a result file of cclab (%s, where a --json file holds an object)",
		 root ? cy_kind_name(root) : "nothing");
}

enum cli_json_kind cli_json_kind(const struct cy_node *root, char *buf, size_t len,
				 const struct cy_node **at)
{
	const struct cy_node *c = root && root->kind == CY_MAP ? cy_get(root, "command") : NULL;
	const char *cmd, *exec, *coll, *nranks;
	char s1[48], s2[48], s3[48];

	*at = root;
	if (!root || root->kind != CY_MAP) {
		scalar_kind(root, buf, len);
		return CLI_JSON_NOT_CCLAB;
	}
	if (!c || c->kind != CY_SCALAR || cli_json_is_null(c)) {
		if (c)
			*at = c;
		snprintf(buf, len, "%s", cy_get(root, "preset") && !cy_get(root, "sizes")
			 ? "a fabric file (preset: ...), not a --json result"
			 : cy_get(root, "topology") && !c ? "a scenario file, not a --json result"
			 : c ? "not a result file of cclab ('command' is not a command's name)"
			 : "not a result file of cclab (no 'command' key: cclab's --json files begin "
			   "with cclab_version and command)");
		return CLI_JSON_NOT_CCLAB;
	}
	*at = c;
	cmd = c->str;
	exec = text_at(root, "executor");
	if (!strcmp(cmd, "p2p")) {
		coll = text_at(root, "op");
		nranks = text_at(root, "mode");
		snprintf(buf, len, "a `cclab p2p --json` result (%s %s, point-to-point)",
			 cli_json_shown(coll ? coll : "?", 16, s1, sizeof(s1)),
			 cli_json_shown(nranks ? nranks : "?", 16, s2, sizeof(s2)));
		return CLI_JSON_P2P;
	}
	if (!strcmp(cmd, "tune")) {
		snprintf(buf, len, "a `cclab tune --json` table (the fastest algorithm, protocol and "
			 "transport per size), not one run's result");
		return CLI_JSON_TUNE;
	}
	if (!strcmp(cmd, "calibrate")) {
		snprintf(buf, len, "a `cclab calibrate --json` fit, not a run's result");
		return CLI_JSON_CALIBRATE;
	}
	if (strcmp(cmd, "sim") && strcmp(cmd, "run") && strcmp(cmd, "check")) {
		snprintf(buf, len, "a file whose 'command' is '%s', which no command of cclab "
			 "writes", cli_json_shown(cmd, 32, s1, sizeof(s1)));
		return CLI_JSON_UNKNOWN;
	}
	coll = text_at(root, "collective");
	nranks = text_at(root, "nranks");
	cli_json_shown(coll ? coll : "?", 24, s2, sizeof(s2));
	cli_json_shown(nranks ? nranks : "?", 12, s3, sizeof(s3));
	if (!strcmp(cmd, "check") || (exec && !strcmp(exec, "data"))) {
		snprintf(buf, len, "a `cclab %s --json` result of the data executor (%s, %s ranks), "
			 "which models no time", cmd, s2, s3);
		return CLI_JSON_CHECK;
	}
	snprintf(buf, len, "a `cclab %s --json` result (%s, %s ranks)", cmd, s2, s3);
	return CLI_JSON_COLLECTIVE;
}
