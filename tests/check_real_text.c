/*
 * check_real_text.c - tp_real_text against jansson's own text of the same
 * real (json_dumps of json_real), byte for byte: a table of edges (ties
 * rounded to even, the powers of ten and their neighbours, the ends of the
 * fast range, subnormals), then a few million doubles drawn three ways
 * (any bit pattern, magnitudes spread over 1e-9..1e21, and ratios of
 * integers, as reports' shares and rates are). A fixed seed: the same
 * numbers every run.
 */
#include "testutil.h"

#include <float.h>
#include <math.h>

#include <jansson.h>

#include "tpuprof/util/real_text.h"

/* jansson's text, or NULL for what it does not hold (NaN, infinity). */
static char *jansson_text(double v)
{
	json_t *r = json_real(v);
	char *s = r ? json_dumps(r, JSON_ENCODE_ANY) : NULL;

	json_decref(r);
	return s;
}

static bool same_as_jansson(double v)
{
	char buf[TP_REAL_TEXT_MAX];
	char *want = jansson_text(v);
	size_t n;
	bool same;

	if (!want)
		return true;
	n = tp_real_text(v, buf);
	same = n == strlen(buf) && strcmp(buf, want) == 0;
	if (!same)
		fprintf(stderr, "%a: jansson \"%s\", tp_real_text \"%s\"\n", v, want, buf);
	free(want);
	return same;
}

static const double edges[] = {
	0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.2, 0.3, 1.5, 2.0, 10.0, 100.0,
	/* 1 + 2^-17 = 1.00000762939453125: a tie at the 17th digit, to even */
	1.00000762939453125, 1.00002288818359375, 3.0517578125e-05,
	0.0001, 0.00001, 0.000099999999999999991, 1e-5, 1e-6, 1e-7, 9.9999999999999995e-7,
	1e15, 1e16, 1e17, 1e18, 1e21, 1e22, 1e23, 123456789012345678.0,
	9007199254740992.0, 9007199254740993.0, 18014398509481984.0,
	1.7976931348623157e308, 2.2250738585072014e-308, 4.9406564584124654e-324,
	1.1754943508222875e-38, 3.4028234663852886e38, 1.7014118346046923e38,
	0.008097551634253249, 0.0080975516342532486, 132552799897.68105,
	1590633598772.1726, 0.97084570237559361, 0.083333333333333329,
	0.99999999999999989, 0.99999999999999994, 9.9999999999999982, 99999999999999984.0,
};

START_TEST(test_edges)
{
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		ck_assert(same_as_jansson(edges[i]));
		ck_assert(same_as_jansson(-edges[i]));
		ck_assert(same_as_jansson(nextafter(edges[i], 0.0)));
		ck_assert(same_as_jansson(nextafter(edges[i], INFINITY)));
	}
	for (int k = -30; k <= 40; k++) {
		double p = pow(10.0, k);

		ck_assert(same_as_jansson(p));
		ck_assert(same_as_jansson(nextafter(p, 0.0)));
		ck_assert(same_as_jansson(nextafter(p, INFINITY)));
	}
	for (int k = -1074; k <= 1023; k++)
		ck_assert(same_as_jansson(ldexp(1.0, k)));
}
END_TEST

/* xorshift64*: a fixed sequence on every machine */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

START_TEST(test_random)
{
	uint64_t seed = UINT64_C(0x9e3779b97f4a7c15);
	size_t bad = 0;

	for (int i = 0; i < 1000000; i++) {
		uint64_t bits = next(&seed);
		double any, spread, ratio;
		int64_t a = (int64_t)(next(&seed) >> (next(&seed) % 64));
		int64_t b = (int64_t)(next(&seed) >> (next(&seed) % 64)) + 1;

		memcpy(&any, &bits, sizeof(any));
		spread = pow(10.0, -9.0 + 30.0 * (double)(next(&seed) >> 11) / 9007199254740992.0);
		ratio = (double)a / (double)b;
		bad += !same_as_jansson(any);
		bad += !same_as_jansson(spread);
		bad += !same_as_jansson(ratio);
		if (bad > 10)
			break;
	}
	ck_assert_uint_eq(bad, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("real_text");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_edges);
	tcase_add_test(tc, test_random);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
