/* cli/json_read.c — typed reads of cclab's own --json files (cli/json_read.h). */
#include "cli/json_read.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

