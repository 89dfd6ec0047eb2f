/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_units.c — sizes (nccl-tests' -b/-e), rates, times, and the
 * byte formatter: exact values, and every kind of bad input rejected with
 * the right error and *out untouched. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/units.h"

#define SENTINEL UINT64_C(0xdeadbeefdeadbeef)

static uint64_t size_ok(const char *s)
{
	uint64_t v = SENTINEL;

	assert_int_equal(cc_parse_size(s, &v), 0);
	return v;
}

static void size_err(const char *s, int err)
{
	uint64_t v = SENTINEL;

	assert_int_equal(cc_parse_size(s, &v), err);
	assert_true(v == SENTINEL);
}

static void test_size_plain(void **state)
{
	(void)state;
	assert_true(size_ok("0") == 0);
	assert_true(size_ok("1") == 1);
	assert_true(size_ok("4096") == 4096);
	assert_true(size_ok("007") == 7);
	assert_true(size_ok("18446744073709551615") == UINT64_MAX);
	assert_true(size_ok("8B") == 8);
}

static void test_size_suffixes(void **state)
{
	(void)state;
	assert_true(size_ok("1K") == 1024);
	assert_true(size_ok("1k") == 1024);
	assert_true(size_ok("1KiB") == 1024);
	assert_true(size_ok("1kib") == 1024);
	assert_true(size_ok("1KB") == 1024); /* nccl-tests reads only the K */
	assert_true(size_ok("4M") == 4u * 1024 * 1024);
	assert_true(size_ok("4m") == 4u * 1024 * 1024);
	assert_true(size_ok("4MiB") == 4u * 1024 * 1024);
	assert_true(size_ok("1G") == UINT64_C(1) << 30);
	assert_true(size_ok("1g") == UINT64_C(1) << 30);
	assert_true(size_ok("1GiB") == UINT64_C(1) << 30);
	assert_true(size_ok("32G") == UINT64_C(32) << 30);
	assert_true(size_ok("2T") == UINT64_C(2) << 40);
	assert_true(size_ok("0K") == 0);
	/* Fractions that are whole bytes. */
	assert_true(size_ok("1.5K") == 1536);
	assert_true(size_ok("0.5M") == 512 * 1024);
	assert_true(size_ok("1.50K") == 1536);
	assert_true(size_ok("2.0") == 2);
	assert_true(size_ok("0.25K") == 256);
	/* Largest values that fit. */
	assert_true(size_ok("16777215T") == UINT64_C(16777215) << 40);
	assert_true(size_ok("17179869183G") == UINT64_C(17179869183) << 30);
}

static void test_size_rejects(void **state)
{
	(void)state;
	size_err(NULL, -EINVAL);
	size_err("", -EINVAL);
	size_err("K", -EINVAL);
	size_err("abc", -EINVAL);
	size_err("-1", -EINVAL);
	size_err("-1K", -EINVAL);
	size_err("+1", -EINVAL);
	size_err(" 1", -EINVAL);
	size_err("1 ", -EINVAL);
	size_err("1 K", -EINVAL);
	size_err("1Kx", -EINVAL);
	size_err("1KK", -EINVAL);
	size_err("1X", -EINVAL);
	size_err("1e3", -EINVAL);
	size_err("0x10", -EINVAL);
	size_err("1.", -EINVAL);
	size_err(".5K", -EINVAL);
	size_err("1.2.3", -EINVAL);
	size_err("0.3K", -EINVAL);   /* 307.2 bytes: not whole */
	size_err("1.5", -EINVAL);    /* 1.5 bytes */
	size_err("1ms", -EINVAL);
	/* Overflow. */
	size_err("18446744073709551616", -ERANGE);
	size_err("99999999999999999999999", -ERANGE);
	size_err("16777216T", -ERANGE);
	size_err("17179869184G", -ERANGE);
	size_err("18446744073709551615K", -ERANGE);
	/* Garbage wins over overflow: the suffix is checked first. */
	size_err("99999999999999999999999x", -EINVAL);
	/* A fraction too long to be exact. */
	size_err("1.00000000000000000001K", -EINVAL);
	/* Which rejections are only a fraction's (the message says so). */
	assert_true(cc_units_only_fraction_wrong(cc_parse_size, "0.3K"));
	assert_true(cc_units_only_fraction_wrong(cc_parse_size, "1.7K"));
	assert_true(cc_units_only_fraction_wrong(cc_parse_size, "1.5"));
	assert_true(cc_units_only_fraction_wrong(cc_parse_size, "1.00000000000000000001K"));
	assert_false(cc_units_only_fraction_wrong(cc_parse_size, "1.2.3"));
	assert_false(cc_units_only_fraction_wrong(cc_parse_size, "1.5X"));
	assert_false(cc_units_only_fraction_wrong(cc_parse_size, "15K"));
	assert_false(cc_units_only_fraction_wrong(cc_parse_size, "abc"));
	assert_true(cc_units_only_fraction_wrong(cc_parse_time, "1.0000005ns"));
}

static uint64_t rate_ok(const char *s)
{
	uint64_t v = SENTINEL;

	assert_int_equal(cc_parse_rate(s, &v), 0);
	return v;
}

static void rate_err(const char *s, int err)
{
	uint64_t v = SENTINEL;

	assert_int_equal(cc_parse_rate(s, &v), err);
	assert_true(v == SENTINEL);
}

static void test_rates(void **state)
{
	(void)state;
	assert_true(rate_ok("100Gbps") == UINT64_C(100000000000));
	assert_true(rate_ok("400Gb/s") == UINT64_C(400000000000));
	assert_true(rate_ok("400Gbit/s") == UINT64_C(400000000000));
	assert_true(rate_ok("25GB/s") == UINT64_C(200000000000));
	assert_true(rate_ok("25GBps") == UINT64_C(200000000000));
	assert_true(rate_ok("10Mbps") == UINT64_C(10000000));
	assert_true(rate_ok("10kbps") == UINT64_C(10000));
	assert_true(rate_ok("10Kbps") == UINT64_C(10000));
	assert_true(rate_ok("1.6Tbps") == UINT64_C(1600000000000));
	assert_true(rate_ok("2.5Gbps") == UINT64_C(2500000000));
	assert_true(rate_ok("1000") == 1000);
	assert_true(rate_ok("8bps") == 8);
	assert_true(rate_ok("1B/s") == 8);

	rate_err(NULL, -EINVAL);
	rate_err("", -EINVAL);
	rate_err("Gbps", -EINVAL);
	rate_err("100G", -EINVAL);     /* bits or bytes? */
	rate_err("100mbps", -EINVAL);  /* millibits */
	rate_err("100gbps", -EINVAL);
	rate_err("100 Gbps", -EINVAL);
	rate_err("100Gbpsx", -EINVAL);
	rate_err("-100Gbps", -EINVAL);
	rate_err("1.5bps", -EINVAL);   /* not whole bits */
	rate_err("18446744073709551616", -ERANGE);
}

static void test_rates_range(void **state)
{
	uint64_t v = 0;

	(void)state;
	/* 2^64 / 8e12 = 2305843.009...: the largest whole TB/s that fits. */
	assert_int_equal(cc_parse_rate("2305843TB/s", &v), 0);
	assert_true(v == UINT64_C(2305843) * UINT64_C(8000000000000));
	assert_int_equal(cc_parse_rate("2305844TB/s", &v), -ERANGE);
}

static uint64_t time_ok(const char *s)
{
	uint64_t v = SENTINEL;

	assert_int_equal(cc_parse_time(s, &v), 0);
	return v;
}

static void time_err(const char *s, int err)
{
	uint64_t v = SENTINEL;

	assert_int_equal(cc_parse_time(s, &v), err);
	assert_true(v == SENTINEL);
}

static void test_times(void **state)
{
	(void)state;
	assert_true(time_ok("1us") == UINT64_C(1000000));
	assert_true(time_ok("600ns") == UINT64_C(600000));
	assert_true(time_ok("250ps") == 250);
	assert_true(time_ok("1.5us") == UINT64_C(1500000));
	assert_true(time_ok("0.001ns") == 1);
	assert_true(time_ok("2ms") == UINT64_C(2000000000));
	assert_true(time_ok("1s") == UINT64_C(1000000000000));
	assert_true(time_ok("3\xc2\xb5s") == UINT64_C(3000000));
	assert_true(time_ok("3\xce\xbcs") == UINT64_C(3000000));
	assert_true(time_ok("0") == 0);
	assert_true(time_ok("0ns") == 0);
	/* sim/time.h: 2^64 ps is about 213 days. */
	assert_true(time_ok("18446744s") == UINT64_C(18446744) * UINT64_C(1000000000000));

	time_err(NULL, -EINVAL);
	time_err("", -EINVAL);
	time_err("1", -EINVAL);       /* a unit is required */
	time_err("1.5", -EINVAL);
	time_err("us", -EINVAL);
	time_err("1 us", -EINVAL);
	time_err("1usx", -EINVAL);
	time_err("1US", -EINVAL);
	time_err("1Ms", -EINVAL);
	time_err("-1us", -EINVAL);
	time_err("0.0001ns", -EINVAL); /* 0.1 ps */
	time_err("18446745s", -ERANGE);
	time_err("99999999999999999999999ps", -ERANGE);
}

/* perftest's MsgRate: SI prefixes, "pps" required. */
static void test_msg_rates(void **state)
{
	uint64_t v = SENTINEL;

	(void)state;
	assert_int_equal(cc_parse_msg_rate("9.2Mpps", &v), 0);
	assert_true(v == UINT64_C(9200000));
	assert_int_equal(cc_parse_msg_rate("9.185745Mpps", &v), 0);
	assert_true(v == UINT64_C(9185745));
	assert_int_equal(cc_parse_msg_rate("500kpps", &v), 0);
	assert_true(v == UINT64_C(500000));
	assert_int_equal(cc_parse_msg_rate("120pps", &v), 0);
	assert_true(v == 120);
	assert_int_equal(cc_parse_msg_rate("1Gpps", &v), 0);
	assert_true(v == UINT64_C(1000000000));
	v = SENTINEL;
	assert_int_equal(cc_parse_msg_rate("9.2", &v), -EINVAL);     /* a unit is required */
	assert_int_equal(cc_parse_msg_rate("9.2Mbps", &v), -EINVAL); /* a bit rate */
	assert_int_equal(cc_parse_msg_rate("9.2mpps", &v), -EINVAL); /* milli: no */
	assert_int_equal(cc_parse_msg_rate("1.5pps", &v), -EINVAL);  /* not whole */
	assert_int_equal(cc_parse_msg_rate("-1Mpps", &v), -EINVAL);
	assert_true(v == SENTINEL);
}

static void fmt_is(uint64_t bytes, const char *want)
{
	char buf[CC_FMT_BYTES_LEN];

	assert_ptr_equal(cc_format_bytes(buf, sizeof(buf), bytes), buf);
	assert_string_equal(buf, want);
}

static void test_format_bytes(void **state)
{
	char small[4];

	(void)state;
	fmt_is(0, "0B");
	fmt_is(1000, "1000B");
	fmt_is(1023, "1023B");
	fmt_is(1024, "1KiB");
	fmt_is(1536, "1.5KiB");
	fmt_is(1000000, "976.56KiB");
	fmt_is(512 * 1024, "512KiB");
	fmt_is(2u * 1024 * 1024, "2MiB");
	fmt_is(4u * 1024 * 1024, "4MiB");
	fmt_is(UINT64_C(1) << 30, "1GiB");
	fmt_is(UINT64_C(3) << 40, "3TiB");
	fmt_is(1048575, "1024KiB"); /* 1023.999 KiB rounds to 1024 */
	fmt_is(UINT64_MAX, "16777216TiB");
	/* Truncated, still terminated. */
	assert_string_equal(cc_format_bytes(small, sizeof(small), 4096), "4Ki");
	/* Round trip through the parser for exact multiples. */
	char buf[CC_FMT_BYTES_LEN];
	uint64_t v;

	assert_int_equal(cc_parse_size(cc_format_bytes(buf, sizeof(buf), 1536), &v), 0);
	assert_true(v == 1536);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_plain),
		cmocka_unit_test(test_size_suffixes),
		cmocka_unit_test(test_size_rejects),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_rates_range),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_msg_rates),
		cmocka_unit_test(test_format_bytes),
	};

	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
