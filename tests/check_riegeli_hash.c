/*
 * check_riegeli_hash.c - Riegeli's HighwayHash taken piece by piece
 * (src/decode/riegeli/riegeli_hash.c) held to Debian's libhighwayhash:
 * the same value for every length from 0 to 300 bytes and for long
 * inputs, however the bytes are cut into pieces, on the AVX2 path and
 * on the portable one; and the hashes Riegeli's own files carry.
 */
#include "../src/decode/riegeli/riegeli_internal.h"
#include "testutil.h"

#include <check.h>
#include <highwayhash/c_bindings.h>
#include <stdlib.h>

static const uint64_t riegeli_key[4] = {
	UINT64_C(0x2f696c6567656952), UINT64_C(0x0a7364726f636572),
	UINT64_C(0x2f696c6567656952), UINT64_C(0x0a7364726f636572),
};

static uint64_t library(const uint8_t *p, size_t n)
{
	return HighwayHash64(riegeli_key, (const char *)p, n);
}

/* n bytes that are not a pattern a mistake could hide in. */
static uint8_t *noise(size_t n, uint64_t seed)
{
	uint8_t *p = malloc(n ? n : 1);
	uint64_t x = seed * UINT64_C(0x9e3779b97f4a7c15) + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)(x >> 24);
	}
	return p;
}

/* p[0..n) added in pieces of step bytes (the last shorter). */
static uint64_t in_pieces(const uint8_t *p, size_t n, size_t step)
{
	struct rg_hash h;

	rg_hash_init(&h);
	for (size_t at = 0; at < n; at += step)
		rg_hash_add(&h, p + at, n - at < step ? n - at : step);
	return rg_hash_end(&h);
}

/* loop: 0 the AVX2 path where the CPU has it, 1 the portable one */
START_TEST(test_every_short_length)
{
	rg_hash_portable = _i == 1;
	for (size_t n = 0; n <= 300; n++) {
		uint8_t *p = noise(n, n);
		uint64_t want = library(p, n);

		ck_assert_msg(rg_hash_bytes(p, n) == want, "length %zu", n);
		for (size_t step = 1; step <= 40; step++)
			ck_assert_msg(in_pieces(p, n, step) == want,
				      "length %zu in pieces of %zu", n, step);
		free(p);
	}
	rg_hash_portable = false;
}
END_TEST

START_TEST(test_long_inputs)
{
	static const size_t lengths[] = { 65512, 65536, 1000003, 3 << 20 };
	static const size_t steps[] = { 1, 7, 4096, 65512, 1 << 20 };

	rg_hash_portable = _i == 1;
	for (size_t k = 0; k < sizeof(lengths) / sizeof(*lengths); k++) {
		uint8_t *p = noise(lengths[k], 1000 + k);
		uint64_t want = library(p, lengths[k]);

		for (size_t s = 0; s < sizeof(steps) / sizeof(*steps); s++) {
			if (steps[s] == 1 && lengths[k] > 70000)
				continue;   /* a byte a call: slow, and the
					     * short lengths cover it */
			ck_assert_msg(in_pieces(p, lengths[k], steps[s]) == want,
				      "length %zu in pieces of %zu",
				      lengths[k], steps[s]);
		}
		free(p);
	}
	rg_hash_portable = false;
}
END_TEST

/* The first block header of every Riegeli file: the hash of
 * (previous_chunk 0, next_chunk 64), written little-endian as the file's
 * first 8 bytes, 83 af 70 d1 0d 88 4a 3f. */
START_TEST(test_riegeli_header)
{
	uint8_t header[16] = { 0 };

	header[8] = 64;
	ck_assert_uint_eq(rg_hash_bytes(header, 16),
			  UINT64_C(0x3f4a880dd170af83));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("riegeli_hash");
	TCase *tc = tcase_create("hash");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_every_short_length, 0, 2);
	tcase_add_loop_test(tc, test_long_inputs, 0, 2);
	tcase_add_test(tc, test_riegeli_header);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
