/*
 * riegeli_testutil.h - a Riegeli file built in a test: the records given,
 * in one uncompressed simple chunk after the signature (or a chunk's
 * data given, any compression), hashed as Riegeli hashes, with or
 * without the block headers a writer puts every 64 KiB. For
 * check_riegeli*.c and the tests of readers of chunked captures
 * (check_trace.c).
 */
#ifndef TPUPROF_RIEGELI_TESTUTIL_H
#define TPUPROF_RIEGELI_TESTUTIL_H

#include "testutil.h"

#include <highwayhash/c_bindings.h>

static inline uint64_t rhash(const void *p, size_t n)
{
	static const uint64_t key[4] = {
		0x2f696c6567656952ull, 0x0a7364726f636572ull,
		0x2f696c6567656952ull, 0x0a7364726f636572ull,
	};
	return HighwayHash64(key, p, n);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A Riegeli file of one simple chunk whose data (any compression) is
 * given, holding n records of total bytes, no block header after the
 * first (riegeli_blocked lays it out as a writer does). */
static inline struct pb riegeli_chunk_file(const struct pb *data, size_t n,
					   size_t total)
{
	static const uint8_t sig[64] = {
		0x83, 0xaf, 0x70, 0xd1, 0x0d, 0x88, 0x4a, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0,
		0x40, 0, 0, 0, 0, 0, 0, 0, 0x91, 0xba, 0xc2, 0x3c, 0x92, 0x87, 0xe1, 0xa9,
		0, 0, 0, 0, 0, 0, 0, 0, 0xe1, 0x9f, 0x13, 0xc0, 0xe9, 0xb1, 0xc3, 0x72,
		0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct pb out = { 0 };
	uint8_t h[40];

	put64(h + 8, data->len);
	put64(h + 16, rhash(data->data, data->len));
	put64(h + 24, (uint64_t)n << 8 | 'r');
	put64(h + 32, total);
	put64(h, rhash(h + 8, 32));
	pb_bytes(&out, sig, sizeof(sig));
	pb_bytes(&out, h, sizeof(h));
	pb_bytes(&out, data->data, data->len);
	return out;
}

/* A Riegeli file of one uncompressed chunk holding the records, no block
 * header after the first (riegeli_of, riegeli_blocked_of). */
static inline struct pb riegeli_unblocked(struct pb *recs, size_t n)
{
	struct pb out, sizes = { 0 }, data = { 0 };
	uint8_t zero = 0;
	size_t total = 0;

	for (size_t i = 0; i < n; i++) {
		pb_varint(&sizes, recs[i].len);
		total += recs[i].len;
	}
	pb_bytes(&data, &zero, 1);
	pb_varint(&data, sizes.len);
	pb_bytes(&data, sizes.data, sizes.len);
	for (size_t i = 0; i < n; i++)
		pb_bytes(&data, recs[i].data, recs[i].len);
	out = riegeli_chunk_file(&data, n, total);
	pb_free(&sizes);
	pb_free(&data);
	return out;
}

/* A Riegeli file of one chunk holding the records, all in its first
 * block. */
static inline struct pb riegeli_of(struct pb *recs, size_t n)
{
	struct pb out = riegeli_unblocked(recs, n);

	ck_assert_uint_lt(out.len, 65536);
	return out;
}

/* A file of one chunk (riegeli_chunk_file's, freed) as a writer lays
 * it out however long: a block header every 64 KiB (its hash, the
 * distance back to the chunk's start at byte 64 and on to its end). */
static inline struct pb riegeli_blocked(struct pb flat)
{
	struct pb out = { 0 };
	uint64_t payload = flat.len - 64, end = 64 + payload, headers = 0;

	while ((end - 1) / 65536 != headers) {
		headers = (end - 1) / 65536;
		end = 64 + payload + 24 * headers;
	}
	pb_bytes(&out, flat.data, 64);
	for (size_t at = 64; at < flat.len;) {
		size_t room = 65536 - out.len % 65536;
		size_t take = flat.len - at < room ? flat.len - at : room;

		pb_bytes(&out, flat.data + at, take);
		at += take;
		if (at < flat.len) {
			uint8_t bh[24];
			uint64_t b = out.len;

			put64(bh + 8, b - 64);
			put64(bh + 16, end - b);
			put64(bh, rhash(bh + 8, 16));
			pb_bytes(&out, bh, sizeof(bh));
		}
	}
	ck_assert_uint_eq(out.len, end);
	pb_free(&flat);
	return out;
}

/* The same one uncompressed chunk, blocked as a writer blocks it. */
static inline struct pb riegeli_blocked_of(struct pb *recs, size_t n)
{
	return riegeli_blocked(riegeli_unblocked(recs, n));
}

#endif
