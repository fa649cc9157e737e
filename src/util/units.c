/*
 * units.c - human units for text output: bytes, times, UTC dates.
 */
#include "tpuprof/util/units.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const byte_units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };

/* bytes (1 KiB or more) in the largest binary unit that keeps them at 1
 * or more (*u indexes byte_units), and the decimals printed of that:
 * three significant digits. */
static double in_units(uint64_t bytes, int *u, int *d)
{
	double v = (double)bytes;

	*u = -1;
	while (v >= 1024 && *u < 4) {
		v /= 1024;
		(*u)++;
	}
	*d = v < 10 ? 2 : v < 100 ? 1 : 0;
	return v;
}

const char *tp_fmt_bytes(char *buf, size_t n, uint64_t bytes)
{
	int u, d;
	double v;

	if (bytes < 1024) {
		snprintf(buf, n, "%" PRIu64 " B", bytes);
		return buf;
	}
	v = in_units(bytes, &u, &d);
	snprintf(buf, n, "%.*f %s", d, v, byte_units[u]);
	return buf;
}

/* v cut (not rounded) to d decimals; the epsilon keeps 0.3 * 10 at 3. */
static double floor_to(double v, int d)
{
	double scale = d == 2 ? 100.0 : d == 1 ? 10.0 : 1.0;

	return floor(v * scale * (1.0 + 1e-12)) / scale;
}

const char *tp_fmt_bytes_down(char *buf, size_t n, uint64_t bytes)
{
	int u, d;
	double v;

	if (bytes < 1024)
		return tp_fmt_bytes(buf, n, bytes);
	v = in_units(bytes, &u, &d);
	snprintf(buf, n, "%.*f %s", d, floor_to(v, d), byte_units[u]);
	return buf;
}

/* v raised (not rounded) to d decimals; the epsilon keeps 0.3 * 10 at 3. */
static double ceil_to(double v, int d)
{
	double scale = d == 2 ? 100.0 : d == 1 ? 10.0 : 1.0;

	return ceil(v * scale * (1.0 - 1e-12)) / scale;
}

const char *tp_fmt_bytes_up(char *buf, size_t n, uint64_t bytes)
{
	int u, d;
	double up;

	if (bytes < 1024)
		return tp_fmt_bytes(buf, n, bytes);
	up = in_units(bytes, &u, &d);
	up = ceil_to(up, d);
	if (up >= 1024 && u < 4) {      /* 1023.5 KiB up is 1.00 MiB */
		up = ceil_to(up / 1024, 2);
		u++;
		d = 2;
	} else if (up >= 10 && d == 2) { /* 9.996 up is 10.0, one decimal */
		d = 1;
	} else if (up >= 100 && d == 1) {
		d = 0;
	}
	snprintf(buf, n, "%.*f %s", d, up, byte_units[u]);
	return buf;
}

const char *tp_fmt_pct_down(char *buf, size_t n, double percent)
{
	snprintf(buf, n, "%.1f%%", percent > 0 ? floor_to(percent, 1) : percent);
	return buf;
}

const char *tp_fmt_share(char *buf, size_t n, double v)
{
	if (v == 0 || 100.0 * v >= 0.1)
		snprintf(buf, n, "%.1f%%", 100.0 * v);
	else
		snprintf(buf, n, "%.2g%%", 100.0 * v);
	return buf;
}

/* ps in units of scale ps to d decimals (1 to 3), rounded on the exact
 * decimal value, an exact halfway value to the even digit: 50175000 ps
 * is 50.18 us and 1392500 ps 1.392 us on every row. printf on the double
 * rounded each tie by its binary approximation, up on one row and down
 * on the next. */
static void fixed_even(char *buf, size_t n, int64_t ps, uint64_t scale, int d,
		       const char *unit)
{
	unsigned __int128 a = ps < 0 ? (unsigned __int128)(-(ps + 1)) + 1 : (unsigned __int128)ps;
	uint64_t p10 = d == 1 ? 10 : d == 2 ? 100 : 1000;
	unsigned __int128 num = a * p10, q = num / scale, r = num % scale;

	if (2 * r > scale || (2 * r == scale && (q & 1)))
		q++;
	snprintf(buf, n, "%s%" PRIu64 ".%0*" PRIu64 " %s", ps < 0 ? "-" : "",
		 (uint64_t)(q / p10), d, (uint64_t)(q % p10), unit);
}

const char *tp_fmt_ps(char *buf, size_t n, int64_t ps)
{
	static const struct { uint64_t scale; const char *unit; } steps[] = {
		{ 1000000000000u, "s" }, { 1000000000u, "ms" }, { 1000000u, "us" }, { 1000u, "ns" },
	};
	double v = (double)ps, a = v < 0 ? -v : v;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (a >= (double)steps[i].scale) {
			double ax = a / (double)steps[i].scale;

			fixed_even(buf, n, ps, steps[i].scale, ax < 10 ? 3 : ax < 100 ? 2 : 1,
				   steps[i].unit);
			return buf;
		}
	}
	snprintf(buf, n, "%" PRId64 " ps", ps);
	return buf;
}

const char *tp_fmt_utc_ns(char *buf, size_t n, uint64_t epoch_ns)
{
	time_t secs = (time_t)(epoch_ns / 1000000000u);
	struct tm tm;

	if (!gmtime_r(&secs, &tm) ||
	    !strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, n, "%" PRIu64 " ns", epoch_ns);
	return buf;
}
