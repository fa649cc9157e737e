/*
 * real_text.c - jansson's text of a real (real_text.h) without printf
 * where exact 128-bit integers can do it.
 *
 * A finite double is m * 2^e with m < 2^53. Its 17 significant digits are
 * v * 10^k for k = 16 - E, E the decimal exponent: rounded to nearest,
 * ties to even, on the exact value, as glibc's printf rounds. For
 * 1e-6 <= v < 2^127 that product is an exact 128-bit integer division or
 * shift (m * 10^22 < 2^127), so no digit is ever approximated; smaller and
 * larger magnitudes (none in a report but by accident) go to snprintf.
 * Then printf's %g layout: fixed for -4 <= E < 17, else d.ddde-X;
 * trailing zeros dropped; and jansson's touches: ".0" after an integer, no
 * '+' or leading zero in the exponent.
 */
#include "tpuprof/util/real_text.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef unsigned __int128 u128;

#define DIGITS 17

static const uint64_t pow10_u64[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
	100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
	1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
	1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
	1000000000000000000ULL, 10000000000000000000ULL,
};

/* 10^k for 0 <= k <= 38, exact. */
static u128 pow10_u128(int k)
{
	if (k < 20)
		return pow10_u64[k];
	return (u128)pow10_u64[19] * pow10_u64[k - 19];
}

/* floor(m * 2^e * 10^k) into *q and how the rest compares with one half
 * (-1, 0, 1); false where a 128-bit integer cannot hold it. */
static bool scaled(uint64_t m, int e, int k, u128 *q, int *half_cmp)
{
	u128 n, rest, half;

	if (k >= 0) {
		if (k > 22)
			return false;
		n = (u128)m * pow10_u128(k);             /* < 2^53 * 2^74 */
		if (e >= 0) {
			if (e > 50)
				return false;
			*q = n << e;                     /* exact        */
			*half_cmp = -1;
			return true;
		}
		if (-e >= 127)
			return false;
		*q = n >> -e;
		rest = n & (((u128)1 << -e) - 1);
		half = (u128)1 << (-e - 1);
	} else {
		u128 p;

		if (e < 0 || e > 74 || -k > 38)
			return false;
		n = (u128)m << e;
		p = pow10_u128(-k);
		*q = n / p;
		rest = n % p;
		half = p / 2;                            /* p is even    */
	}
	*half_cmp = rest < half ? -1 : rest > half;
	return true;
}

/* The 17 digits of v = m * 2^e as an integer, and its exponent E; false
 * out of the exact range. */
static bool digits_of(uint64_t m, int e, uint64_t *digits, int *exp10)
{
	const u128 lo = pow10_u128(DIGITS - 1), hi = pow10_u128(DIGITS);
	int bits = 64 - __builtin_clzll(m);
	/* floor(log10(2^(e + bits - 1))): at most one below E */
	int E = (int)((e + bits - 1) * 30103LL / 100000 - ((e + bits - 1) < 0));
	u128 q;
	int cmp;

	for (int tries = 0; tries < 3; tries++) {
		if (!scaled(m, e, DIGITS - 1 - E, &q, &cmp))
			return false;
		if (q >= hi) {
			E++;
			continue;
		}
		if (q < lo) {
			E--;
			continue;
		}
		if (cmp > 0 || (cmp == 0 && (q & 1)))
			q++;
		if (q == hi) {
			q = lo;
			E++;
		}
		*digits = (uint64_t)q;
		*exp10 = E;
		return true;
	}
	return false;
}

/* The digits without trailing zeros (at least one kept). */
static int significant(const char *d)
{
	int n = DIGITS;

	while (n > 1 && d[n - 1] == '0')
		n--;
	return n;
}

static size_t layout(char *out, bool negative, uint64_t digits, int E)
{
	char d[DIGITS], *p = out;
	int n;

	for (int i = DIGITS - 1; i >= 0; i--) {
		d[i] = (char)('0' + digits % 10);
		digits /= 10;
	}
	n = significant(d);
	if (negative)
		*p++ = '-';
	if (E < -4 || E >= DIGITS) {
		unsigned x = (unsigned)(E < 0 ? -E : E);
		char xs[8];
		int nx = 0;

		*p++ = d[0];
		if (n > 1) {
			*p++ = '.';
			memcpy(p, d + 1, (size_t)n - 1);
			p += n - 1;
		}
		*p++ = 'e';
		if (E < 0)
			*p++ = '-';
		do {
			xs[nx++] = (char)('0' + x % 10);
			x /= 10;
		} while (x);
		while (nx)
			*p++ = xs[--nx];
	} else if (E >= 0) {
		memcpy(p, d, (size_t)E + 1);
		p += E + 1;
		if (n > E + 1) {
			*p++ = '.';
			memcpy(p, d + E + 1, (size_t)(n - E - 1));
			p += n - E - 1;
		} else {
			memcpy(p, ".0", 2);       /* jansson: still a real */
			p += 2;
		}
	} else {
		*p++ = '0';
		*p++ = '.';
		for (int z = 0; z < -E - 1; z++)
			*p++ = '0';
		memcpy(p, d, (size_t)n);
		p += n;
	}
	*p = '\0';
	return (size_t)(p - out);
}

/* jansson's own way: "%.17g", ".0" after an integer, the exponent's '+'
 * and leading zeros dropped. */
static size_t printf_text(double v, char *buf)
{
	int len = snprintf(buf, TP_REAL_TEXT_MAX, "%.17g", v);
	char *start, *end;

	if (len < 0 || len >= TP_REAL_TEXT_MAX - 2) {
		buf[0] = '\0';
		return 0;
	}
	if (!strchr(buf, '.') && !strchr(buf, 'e')) {
		memcpy(buf + len, ".0", 3);
		return (size_t)len + 2;
	}
	start = strchr(buf, 'e');
	if (!start)
		return (size_t)len;
	start++;
	end = start + 1;
	if (*start == '-')
		start++;
	while (*end == '0')
		end++;
	if (end != start) {
		memmove(start, end, strlen(end) + 1);
		len -= (int)(end - start);
	}
	return (size_t)len;
}

size_t tp_real_text(double v, char buf[TP_REAL_TEXT_MAX])
{
	uint64_t bits, m, digits;
	int biased, e, E;
	bool negative;

	memcpy(&bits, &v, sizeof(bits));
	negative = bits >> 63;
	biased = (int)((bits >> 52) & 0x7ff);
	m = bits & ((UINT64_C(1) << 52) - 1);
	if (biased == 0 && m == 0) {
		strcpy(buf, negative ? "-0.0" : "0.0");
		return negative ? 4 : 3;
	}
	if (biased == 0 || biased == 0x7ff)   /* subnormal, or not finite */
		return printf_text(v, buf);
	m |= UINT64_C(1) << 52;
	e = biased - 1075;
	if (!digits_of(m, e, &digits, &E))
		return printf_text(v, buf);
	return layout(buf, negative, digits, E);
}
