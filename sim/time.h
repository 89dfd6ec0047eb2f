/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/time.h — simulated time: integer picoseconds.
 *
 * Why integers: floating-point time makes equal-time events compare unequal
 * after different summation orders and loses resolution as time grows, so
 * two runs of one scenario can diverge.  htsim uses the same unit
 * (simtime_picosec, timeFromUs()).  A uint64_t of picoseconds spans about
 * 213 days of simulated time, far beyond any collective.
 *
 * The serialization time of a packet is rounded *up* to a whole picosecond:
 * a link is busy until its last bit has left, never earlier, so summed
 * per-packet times can only over-, never under-estimate the line rate's
 * bound (by < 1 ps per packet).
 */
#ifndef CCLAB_SIM_TIME_H
#define CCLAB_SIM_TIME_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint64_t sim_time_ps;

/* "No time limit" for sim_run(), and the saturated result of an overflow. */
#define SIM_TIME_NEVER UINT64_MAX

#define SIM_PS_PER_NS UINT64_C(1000)
#define SIM_PS_PER_US UINT64_C(1000000)
#define SIM_PS_PER_MS UINT64_C(1000000000)
#define SIM_PS_PER_S UINT64_C(1000000000000)

/* Multiplication that saturates at SIM_TIME_NEVER instead of wrapping, so a
 * huge delay becomes "never" rather than a small, wrong time. */
static inline sim_time_ps sim__time_mul_sat(uint64_t v, uint64_t unit)
{
	return v > SIM_TIME_NEVER / unit ? SIM_TIME_NEVER : v * unit;
}

static inline sim_time_ps sim_ps_from_ns(uint64_t ns) { return sim__time_mul_sat(ns, SIM_PS_PER_NS); }
static inline sim_time_ps sim_ps_from_us(uint64_t us) { return sim__time_mul_sat(us, SIM_PS_PER_US); }
static inline sim_time_ps sim_ps_from_ms(uint64_t ms) { return sim__time_mul_sat(ms, SIM_PS_PER_MS); }
static inline sim_time_ps sim_ps_from_s(uint64_t s) { return sim__time_mul_sat(s, SIM_PS_PER_S); }

/* Time to put `bytes` bytes on a link of `bits_per_s` bits per second:
 * ceil(bytes * 8 * 1e12 / bits_per_s) picoseconds, exact.  The product needs
 * up to 64 + 43 bits, so it is formed in 128 bits (GCC and Clang provide
 * unsigned __int128 on every 64-bit target).  Examples: 4096 B at 100 Gb/s =
 * 327680 ps; 1 B at 400 Gb/s = 20 ps.  bits_per_s must be > 0 (a zero-rate
 * link is a configuration error the caller rejects); a result beyond 64 bits
 * saturates at SIM_TIME_NEVER. */
static inline sim_time_ps sim_serialize_ps(uint64_t bytes, uint64_t bits_per_s)
{
	unsigned __int128 num = (unsigned __int128)bytes * 8u * SIM_PS_PER_S;
	unsigned __int128 q = (num + bits_per_s - 1) / bits_per_s;

	return q > SIM_TIME_NEVER ? SIM_TIME_NEVER : (sim_time_ps)q;
}

/* Long enough for any sim_time_fmt() result ("18446744.073709551615 s"). */
#define SIM_TIME_FMT_LEN 32

/* Formats t for people in the largest unit (ps, ns, us, ms, s) in which it is
 * >= 1, exactly: integer part, then the fraction with trailing zeros dropped
 * ("327.68 ns", "1.5 us", "0 ps").  No floating point, so the text is the
 * value, not a rounding of it.  Returns buf. */
static inline char *sim_time_fmt(sim_time_ps t, char *buf, size_t len)
{
	static const struct {
		uint64_t ps;
		unsigned digits;
		const char *unit;
	} u[] = {
		{SIM_PS_PER_S, 12, "s"}, {SIM_PS_PER_MS, 9, "ms"},
		{SIM_PS_PER_US, 6, "us"}, {SIM_PS_PER_NS, 3, "ns"}, {1, 0, "ps"},
	};
	size_t i = 0;

	while (u[i].ps > 1 && t < u[i].ps)
		i++;
	uint64_t whole = t / u[i].ps, frac = t % u[i].ps;
	unsigned digits = u[i].digits;

	while (digits > 0 && frac % 10 == 0 && frac != 0) {
		frac /= 10;
		digits--;
	}
	if (frac == 0)
		snprintf(buf, len, "%" PRIu64 " %s", whole, u[i].unit);
	else
		snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64 " %s", whole, (int)digits, frac,
			 u[i].unit);
	return buf;
}

#endif /* CCLAB_SIM_TIME_H */
