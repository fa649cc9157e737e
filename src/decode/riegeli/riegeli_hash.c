/*
 * riegeli_hash.c - HighwayHash-64 with Riegeli's key, taken piece by
 * piece (riegeli_internal.h, struct rg_hash).
 *
 * Why not Debian's libhighwayhash: its C binding hashes one contiguous
 * piece, so a chunk had to be gathered whole (every block header taken
 * out) before its hash could be checked, then read again to be merged.
 * Taken piece by piece, each run between block headers is hashed as it
 * is read, while it is still in the cache. The algorithm is HighwayHash's
 * (four 64-bit lanes of v0, v1, mul0, mul1; 32-byte packets; a zipper
 * merge of bytes; four permuted rounds to finish); the tests hold it to
 * the library's HighwayHash64 on every length and split
 * (check_riegeli_hash). Packets take the AVX2 path where the CPU has it
 * (the library's speed), else the portable one, which gives the same
 * result.
 */
#include "riegeli_internal.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
#endif

bool rg_hash_portable;

static const uint64_t init0[4] = {
	UINT64_C(0xdbe6d5d5fe4cce2f), UINT64_C(0xa4093822299f31d0),
	UINT64_C(0x13198a2e03707344), UINT64_C(0x243f6a8885a308d3),
};
static const uint64_t init1[4] = {
	UINT64_C(0x3bd39e10cb0ef593), UINT64_C(0xc0acf169b5f18a8c),
	UINT64_C(0xbe5466cf34e90c6c), UINT64_C(0x452821e638d01377),
};

/* Riegeli's key: "Riegeli/", "records\n", twice. */
static const uint64_t riegeli_key[4] = {
	UINT64_C(0x2f696c6567656952), UINT64_C(0x0a7364726f636572),
	UINT64_C(0x2f696c6567656952), UINT64_C(0x0a7364726f636572),
};

static uint64_t swap_halves(uint64_t v)
{
	return v >> 32 | v << 32;
}

void rg_hash_init(struct rg_hash *h)
{
	for (int i = 0; i < 4; i++) {
		h->mul0[i] = init0[i];
		h->mul1[i] = init1[i];
		h->v0[i] = init0[i] ^ riegeli_key[i];
		h->v1[i] = init1[i] ^ swap_halves(riegeli_key[i]);
	}
	h->n_pending = 0;
}

/* Bytes of one 64-bit lane merged into another's: each output byte is
 * one byte of the pair (the AVX2 path's shuffle does the same). */
static void zipper_add(uint64_t hi, uint64_t lo, uint64_t *add_hi,
		       uint64_t *add_lo)
{
	*add_lo += (((lo & UINT64_C(0xff000000)) |
		     (hi & UINT64_C(0xff00000000))) >> 24) |
		   (((lo & UINT64_C(0xff0000000000)) |
		     (hi & UINT64_C(0xff000000000000))) >> 16) |
		   (lo & UINT64_C(0xff0000)) | ((lo & UINT64_C(0xff00)) << 32) |
		   ((hi & UINT64_C(0xff00000000000000)) >> 8) | (lo << 56);
	*add_hi += (((hi & UINT64_C(0xff000000)) |
		     (lo & UINT64_C(0xff00000000))) >> 24) |
		   (hi & UINT64_C(0xff0000)) |
		   ((hi & UINT64_C(0xff0000000000)) >> 16) |
		   ((hi & UINT64_C(0xff00)) << 24) |
		   ((lo & UINT64_C(0xff000000000000)) >> 8) |
		   ((hi & UINT64_C(0xff)) << 48) |
		   (lo & UINT64_C(0xff00000000000000));
}

static void update(struct rg_hash *h, const uint64_t lanes[4])
{
	for (int i = 0; i < 4; i++) {
		h->v1[i] += h->mul0[i] + lanes[i];
		h->mul0[i] ^= (h->v1[i] & 0xffffffff) * (h->v0[i] >> 32);
		h->v0[i] += h->mul1[i];
		h->mul1[i] ^= (h->v0[i] & 0xffffffff) * (h->v1[i] >> 32);
	}
	zipper_add(h->v1[1], h->v1[0], &h->v0[1], &h->v0[0]);
	zipper_add(h->v1[3], h->v1[2], &h->v0[3], &h->v0[2]);
	zipper_add(h->v0[1], h->v0[0], &h->v1[1], &h->v1[0]);
	zipper_add(h->v0[3], h->v0[2], &h->v1[3], &h->v1[2]);
}

static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void packets_portable(struct rg_hash *h, const uint8_t *p, size_t n)
{
	for (size_t k = 0; k < n; k++, p += 32) {
		uint64_t lanes[4] = { load_le64(p), load_le64(p + 8),
				      load_le64(p + 16), load_le64(p + 24) };

		update(h, lanes);
	}
}

#ifdef HAVE_AVX2_PATH
/* The same rounds on the four lanes at once. */
__attribute__((target("avx2"))) static void
packets_avx2(struct rg_hash *h, const uint8_t *p, size_t n)
{
	const __m256i zipper = _mm256_set_epi64x(
		0x070806090D0A040BLL, 0x000F010E05020C03LL,
		0x070806090D0A040BLL, 0x000F010E05020C03LL);
	__m256i v0 = _mm256_loadu_si256((const __m256i *)h->v0);
	__m256i v1 = _mm256_loadu_si256((const __m256i *)h->v1);
	__m256i mul0 = _mm256_loadu_si256((const __m256i *)h->mul0);
	__m256i mul1 = _mm256_loadu_si256((const __m256i *)h->mul1);

	for (size_t k = 0; k < n; k++, p += 32) {
		__m256i lanes = _mm256_loadu_si256((const __m256i *)p);

		/* a page ahead, a line at a time: reading a chunk where it
		 * lies, the hash is the first to touch its bytes, and the
		 * processor's own prefetch stops at every 4 KiB page
		 * (planes -5% CPU; 1-16 KiB ahead measured, 4 KiB best) */
		if (!(k & 1))
			__builtin_prefetch(p + 4096);

		v1 = _mm256_add_epi64(v1, _mm256_add_epi64(mul0, lanes));
		mul0 = _mm256_xor_si256(mul0, _mm256_mul_epu32(
					       v1, _mm256_srli_epi64(v0, 32)));
		v0 = _mm256_add_epi64(v0, mul1);
		mul1 = _mm256_xor_si256(mul1, _mm256_mul_epu32(
					       v0, _mm256_srli_epi64(v1, 32)));
		v0 = _mm256_add_epi64(v0, _mm256_shuffle_epi8(v1, zipper));
		v1 = _mm256_add_epi64(v1, _mm256_shuffle_epi8(v0, zipper));
	}
	_mm256_storeu_si256((__m256i *)h->v0, v0);
	_mm256_storeu_si256((__m256i *)h->v1, v1);
	_mm256_storeu_si256((__m256i *)h->mul0, mul0);
	_mm256_storeu_si256((__m256i *)h->mul1, mul1);
}

static bool has_avx2(void)
{
	static int known;   /* 0 unknown, 1 no, 2 yes: the same answer
			     * whichever thread asks first */

	if (!__atomic_load_n(&known, __ATOMIC_RELAXED)) {
		__builtin_cpu_init();
		__atomic_store_n(&known, __builtin_cpu_supports("avx2") ? 2 : 1,
				 __ATOMIC_RELAXED);
	}
	return __atomic_load_n(&known, __ATOMIC_RELAXED) == 2;
}
#endif

static void packets(struct rg_hash *h, const uint8_t *p, size_t n)
{
#ifdef HAVE_AVX2_PATH
	if (!rg_hash_portable && has_avx2()) {
		packets_avx2(h, p, n);
		return;
	}
#endif
	packets_portable(h, p, n);
}

void rg_hash_add(struct rg_hash *h, const void *data, size_t n)
{
	const uint8_t *p = data;

	if (h->n_pending) {
		size_t take = 32 - h->n_pending < n ? 32 - h->n_pending : n;

		memcpy(h->pending + h->n_pending, p, take);
		h->n_pending += take;
		p += take;
		n -= take;
		if (h->n_pending < 32)
			return;
		packets(h, h->pending, 1);
		h->n_pending = 0;
	}
	packets(h, p, n / 32);
	memcpy(h->pending, p + n / 32 * 32, n % 32);
	h->n_pending = n % 32;
}

static uint32_t rotl32(uint32_t v, unsigned count)
{
	return count ? v << count | v >> (32 - count) : v;
}

/* The last size (1 to 31) bytes: their count folded into the state, and
 * a packet of them laid out as HighwayHash lays it. */
static void add_remainder(struct rg_hash *h, const uint8_t *bytes, size_t size)
{
	size_t size4 = size & 3, whole = size & ~(size_t)3;
	const uint8_t *tail = bytes + whole;
	uint8_t packet[32] = { 0 };

	for (int i = 0; i < 4; i++) {
		h->v0[i] += ((uint64_t)size << 32) + size;
		h->v1[i] = (uint64_t)rotl32((uint32_t)h->v1[i], (unsigned)size) |
			   (uint64_t)rotl32((uint32_t)(h->v1[i] >> 32),
					    (unsigned)size) << 32;
	}
	memcpy(packet, bytes, whole);
	if (size & 16) {   /* the last 4 bytes (size is 16 or more) */
		for (size_t i = 0; i < 4; i++)
			packet[28 + i] = bytes[size - 4 + i];
	} else if (size4) {
		packet[16] = tail[0];
		packet[17] = tail[size4 >> 1];
		packet[18] = tail[size4 - 1];
	}
	packets_portable(h, packet, 1);
}

uint64_t rg_hash_end(struct rg_hash *h)
{
	if (h->n_pending)
		add_remainder(h, h->pending, h->n_pending);
	for (int round = 0; round < 4; round++) {
		uint64_t permuted[4] = { swap_halves(h->v0[2]),
					 swap_halves(h->v0[3]),
					 swap_halves(h->v0[0]),
					 swap_halves(h->v0[1]) };

		update(h, permuted);
	}
	return h->v0[0] + h->v1[0] + h->mul0[0] + h->mul1[0];
}

uint64_t rg_hash_bytes(const void *p, size_t n)
{
	struct rg_hash h;

	rg_hash_init(&h);
	rg_hash_add(&h, p, n);
	return rg_hash_end(&h);
}
