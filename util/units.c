/* SPDX-License-Identifier: BSD-3-Clause */
/* util/units.c — sizes, rates and times from text (see util/units.h).
 *
 * One number reader and one exact scaler serve every unit family; a family
 * is only a suffix table (and, for rates, a prefix table), so a new family
 * is a table and a three-line parser.  All arithmetic is integer: a value
 * is whole * mult + num/den * mult, checked for overflow and exactness,
 * never a double rounded to an integer (nccl-tests' parsesize() returns
 * size * units as a double, so "0.3K" silently becomes 307 there).
 */
#include "util/units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

struct unit_suffix {
	const char *name;
	uint64_t mult;
};

/* The number part of s: "123", "1.5", "0.001".  On return *rest points at
 * the first character after it.  frac_num / 10^frac_digits is the
 * fraction, trailing zeros removed.  *too_big says the whole part did not
 * fit in 64 bits (reported as -ERANGE only once the suffix is known to be
 * valid, so "99999999999999999999x" is -EINVAL, garbage first). */
struct number {
	uint64_t whole;
	uint64_t frac_num;
	unsigned frac_digits;
	bool too_big;
	bool frac_too_long;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int read_number(const char *s, struct number *n, const char **rest)
{
	const char *p = s;

	memset(n, 0, sizeof(*n));
	if (!is_digit(*p))
		return -EINVAL; /* sign, space, '.5', empty: all rejected */
	for (; is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (n->whole > (UINT64_MAX - d) / 10)
			n->too_big = true;
		else
			n->whole = n->whole * 10 + d;
	}
	if (*p == '.') {
		const char *f = ++p;

		if (!is_digit(*f))
			return -EINVAL; /* "1." */
		while (is_digit(*p))
			p++;
		/* Drop trailing zeros so "1.50" and "1.5" are the same fraction. */
		const char *last = p;

		while (last > f && last[-1] == '0')
			last--;
		for (const char *q = f; q < last; q++) {
			/* 19 digits fit in 64 bits; a longer fraction cannot be a
			 * whole number of any of our units. */
			if (n->frac_digits == 19) {
				n->frac_too_long = true;
				break;
			}
			n->frac_num = n->frac_num * 10 + (uint64_t)(*q - '0');
			n->frac_digits++;
		}
	}
	*rest = p;
	return 0;
}

uint64_t cc_gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* *out = n * mult exactly, or -EINVAL (not a whole number of base units),
 * or -ERANGE (does not fit). */
static int scale_exact(const struct number *n, uint64_t mult, uint64_t *out)
{
	uint64_t frac = 0, v;

	if (n->frac_too_long)
		return -EINVAL;
	if (n->frac_num) {
		uint64_t den = 1;

		for (unsigned i = 0; i < n->frac_digits; i++)
			den *= 10;
		uint64_t g = cc_gcd_u64(n->frac_num, den);
		uint64_t num = n->frac_num / g;

		den /= g;
		if (mult % den)
			return -EINVAL;
		frac = num * (mult / den); /* < mult, since num < den */
	}
	if (n->too_big)
		return -ERANGE;
	if (__builtin_mul_overflow(n->whole, mult, &v) || __builtin_add_overflow(v, frac, &v))
		return -ERANGE;
	*out = v;
	return 0;
}

static const struct unit_suffix *find_suffix(const struct unit_suffix *tab, size_t n,
					     const char *s, bool icase)
{
	for (size_t i = 0; i < n; i++)
		if (icase ? !strcasecmp(tab[i].name, s) : !strcmp(tab[i].name, s))
			return &tab[i];
	return NULL;
}

/* Number plus one suffix from tab. */
static int parse_suffixed(const char *s, const struct unit_suffix *tab, size_t ntab, bool icase,
			  uint64_t *out)
{
	struct number n;
	const char *rest;
	const struct unit_suffix *u;
	uint64_t v;
	int err;

	if (!s || !out)
		return -EINVAL;
	err = read_number(s, &n, &rest);
	if (err)
		return err;
	u = find_suffix(tab, ntab, rest, icase);
	if (!u)
		return -EINVAL;
	err = scale_exact(&n, u->mult, &v);
	if (err)
		return err;
	*out = v;
	return 0;
}

#define KIB UINT64_C(1024)
#define MIB (KIB * 1024)
#define GIB (MIB * 1024)
#define TIB (GIB * 1024)

/* nccl-tests' K/M/G (src/common.cu parsesize), plus the spellings people
 * copy from other tools.  Matched without regard to case, as nccl-tests
 * does for the letter. */
static const struct unit_suffix size_suffixes[] = {
	{"", 1},      {"B", 1},
	{"K", KIB},   {"KB", KIB}, {"KiB", KIB},
	{"M", MIB},   {"MB", MIB}, {"MiB", MIB},
	{"G", GIB},   {"GB", GIB}, {"GiB", GIB},
	{"T", TIB},   {"TB", TIB}, {"TiB", TIB},
};

int cc_parse_size(const char *s, uint64_t *out)
{
	return parse_suffixed(s, size_suffixes, sizeof(size_suffixes) / sizeof(size_suffixes[0]),
			      true, out);
}

/* Rates: SI prefix x unit.  Case matters: "MBps" is megabytes, "mbps"
 * (millibits) is rejected. */
static const struct unit_suffix rate_prefixes[] = {
	{"", 1},
	{"k", UINT64_C(1000)},
	{"K", UINT64_C(1000)},
	{"M", UINT64_C(1000000)},
	{"G", UINT64_C(1000000000)},
	{"T", UINT64_C(1000000000000)},
};

static const struct unit_suffix rate_units[] = {
	{"bps", 1}, {"b/s", 1}, {"bit/s", 1}, {"Bps", 8}, {"B/s", 8},
};

int cc_parse_rate(const char *s, uint64_t *bits_per_s)
{
	const size_t nprefix = sizeof(rate_prefixes) / sizeof(rate_prefixes[0]);
	const size_t nunit = sizeof(rate_units) / sizeof(rate_units[0]);
	struct number n;
	const char *rest;
	uint64_t v;
	int err;

	if (!s || !bits_per_s)
		return -EINVAL;
	err = read_number(s, &n, &rest);
	if (err)
		return err;
	if (*rest == '\0') { /* a bare number: bits per second */
		err = scale_exact(&n, 1, &v);
		goto done;
	}
	for (size_t i = 0; i < nprefix; i++) {
		size_t plen = strlen(rate_prefixes[i].name);
		const struct unit_suffix *u;

		if (strncmp(rest, rate_prefixes[i].name, plen))
			continue;
		u = find_suffix(rate_units, nunit, rest + plen, false);
		if (!u)
			continue;
		err = scale_exact(&n, rate_prefixes[i].mult * u->mult, &v);
		goto done;
	}
	return -EINVAL;
done:
	if (!err)
		*bits_per_s = v;
	return err;
}

/* Message rates (perftest's MsgRate, printed in Mpps): SI prefix and
 * "pps", the unit required, so a bare number cannot be misread as Mpps. */
static const struct unit_suffix msg_rate_suffixes[] = {
	{"pps", 1},
	{"kpps", UINT64_C(1000)},
	{"Kpps", UINT64_C(1000)},
	{"Mpps", UINT64_C(1000000)},
	{"Gpps", UINT64_C(1000000000)},
};

int cc_parse_msg_rate(const char *s, uint64_t *per_s)
{
	return parse_suffixed(s, msg_rate_suffixes,
			      sizeof(msg_rate_suffixes) / sizeof(msg_rate_suffixes[0]), false, per_s);
}

/* Times, in picoseconds (sim/time.h's unit). */
static const struct unit_suffix time_suffixes[] = {
	{"ps", 1},
	{"ns", UINT64_C(1000)},
	{"us", UINT64_C(1000000)},
	{"\xc2\xb5s", UINT64_C(1000000)}, /* U+00B5 MICRO SIGN */
	{"\xce\xbcs", UINT64_C(1000000)}, /* U+03BC GREEK SMALL LETTER MU */
	{"ms", UINT64_C(1000000000)},
	{"s", UINT64_C(1000000000000)},
};

int cc_parse_time(const char *s, uint64_t *ps)
{
	struct number n;
	const char *rest;

	if (!s || !ps)
		return -EINVAL;
	/* A bare number has no obvious unit (ns? us?), so only zero may go
	 * without one. */
	if (read_number(s, &n, &rest) == 0 && *rest == '\0') {
		if (n.whole || n.frac_num || n.too_big)
			return -EINVAL;
		*ps = 0;
		return 0;
	}
	return parse_suffixed(s, time_suffixes, sizeof(time_suffixes) / sizeof(time_suffixes[0]),
			      false, ps);
}

char *cc_format_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const struct unit_suffix units[] = {
		{"TiB", TIB}, {"GiB", GIB}, {"MiB", MIB}, {"KiB", KIB},
	};

	if (!buf || !len)
		return buf;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t u = units[i].mult;

		if (bytes < u)
			continue;
		if (bytes % u == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", bytes / u, units[i].name);
			return buf;
		}
		/* Hundredths, rounded half up, in integers: rem * 100 < 2^47. */
		uint64_t rem = bytes % u;
		uint64_t whole = bytes / u;
		uint64_t hund = (rem * 100 + u / 2) / u;

		if (hund == 100) {
			whole++;
			hund = 0;
		}
		if (hund == 0)
			snprintf(buf, len, "%" PRIu64 "%s", whole, units[i].name);
		else if (hund % 10 == 0)
			snprintf(buf, len, "%" PRIu64 ".%" PRIu64 "%s", whole, hund / 10,
				 units[i].name);
		else
			snprintf(buf, len, "%" PRIu64 ".%02" PRIu64 "%s", whole, hund,
				 units[i].name);
		return buf;
	}
	snprintf(buf, len, "%" PRIu64 "B", bytes);
	return buf;
}

bool cc_units_only_fraction_wrong(int (*parse)(const char *, uint64_t *), const char *s)
{
	const char *dot = s ? strchr(s, '.') : NULL, *end;
	char buf[64];
	uint64_t v;

	if (!dot || strlen(s) >= sizeof(buf))
		return false;
	for (end = dot + 1; *end >= '0' && *end <= '9'; end++)
		;
	if (*end == '.')
		return false;
	snprintf(buf, sizeof(buf), "%.*s%s", (int)(dot - s), s, end);
	return parse(buf, &v) == 0;
}
