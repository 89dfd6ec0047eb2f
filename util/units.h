/* SPDX-License-Identifier: BSD-3-Clause */
/* util/units.h — numbers with units, as people type them on a command line
 * or in a scenario file: sizes, link rates, times.
 *
 * Every parser has the same shape and the same rules:
 *   - a decimal number (digits, optionally '.' and more digits), then a unit
 *     suffix from that parser's table, nothing else: no sign, no spaces, no
 *     exponent, no hex, no trailing text;
 *   - a fraction is allowed when the value is a whole number of the base
 *     unit ("1.5K" = 1536 bytes, "2.5us" = 2500000 ps); "0.3K" (307.2 bytes)
 *     is rejected rather than rounded;
 *   - returns 0 and stores the value, or -EINVAL for text that is not a
 *     number with a known suffix, -ERANGE when the value does not fit in
 *     64 bits; *out is left untouched on error.
 *
 * Sizes follow nccl-tests (src/common.cu, parsesize()): a plain number is
 * bytes, K/M/G are powers of 1024, either case.  We also take the spelled
 * forms KiB/MiB/GiB (and KB/MB/GB, which nccl-tests reads as K/M/G since it
 * looks only at the first suffix letter), T/TiB, and a lone B.  Unlike
 * nccl-tests' sscanf("%lf %1s") we reject what follows the suffix
 * ("1Kx"), negatives and exponents instead of reading past them.
 *
 * Rates and times use SI (powers of 1000) prefixes, case-sensitive where it
 * matters (b = bit, B = byte; M = mega, m = milli), since that is how link
 * speeds and latencies are written: "100Gbps", "400Gb/s", "25GB/s",
 * "600ns", "1.5us".  Rates are bits per second; times are picoseconds, the
 * simulator's unit (sim/time.h).
 */
#ifndef CCLAB_UTIL_UNITS_H
#define CCLAB_UTIL_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sizes: "4096", "1K", "4M", "1G", "512KiB", "1.5k", "2GB"; bytes. */
int cc_parse_size(const char *s, uint64_t *out);

/* Rates: "100Gbps", "400Gb/s", "25GB/s", "10Mbit/s", "1000"; bits per
 * second.  Prefixes k/K (1e3), M (1e6), G (1e9), T (1e12); units bps, b/s,
 * bit/s (bits), Bps, B/s (bytes, x8).  A bare number is bits per second; a
 * bare prefix ("100G") is rejected as ambiguous. */
int cc_parse_rate(const char *s, uint64_t *bits_per_s);

/* Message rates: "9.2Mpps", "500kpps", "120pps"; messages per second.
 * Prefixes k/K, M, G (SI); the unit pps is required. */
int cc_parse_msg_rate(const char *s, uint64_t *per_s);

/* Times: "600ns", "1us", "1.5us", "2ms", "1s", "250ps"; picoseconds.  Units
 * ps, ns, us (also the micro signs U+00B5 and U+03BC followed by s), ms, s.
 * A unit is required, except for "0". */
int cc_parse_time(const char *s, uint64_t *ps);

/* Whether text s, which parse() rejected, has a fraction for its only
 * fault: with the '.' and the digits after it removed it parses, and
 * fits ("1.7K" is 1740.8 bytes, "1.5" 1.5 bytes; a second '.' or a value
 * too large is another fault).  For the message "not a whole number of
 * bytes" rather than "not a size". */
bool cc_units_only_fraction_wrong(int (*parse)(const char *, uint64_t *), const char *s);

/* Human byte size into buf (always NUL-terminated when len > 0): an exact
 * multiple of a binary unit is printed as an integer with that unit
 * ("4MiB", "512KiB", "1000B"), anything else in the largest unit it reaches
 * with at most two decimals and no trailing zeros ("1.5KiB", "976.56KiB").
 * Returns buf. */
#define CC_FMT_BYTES_LEN 32
char *cc_format_bytes(char *buf, size_t len, uint64_t bytes);

/* Greatest common divisor (Euclid); gcd(a, 0) = a, gcd(0, 0) = 0. */
uint64_t cc_gcd_u64(uint64_t a, uint64_t b);

#endif
