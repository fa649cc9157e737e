/*
 * riegeli_pack.c - the tests' own Riegeli records writer: records in,
 * a Riegeli file out, simple chunks in the compression asked for, as
 * the profiler writes a chunked capture (docs/riegeli.md).
 *
 *   riegeli_pack [-c none|brotli|zstd|snappy] [-n RECORDS_PER_CHUNK]
 *                [-p] RECORDS OUT
 *   riegeli_pack [-c ...] [-n N] [-p] -f OUT FILE...
 *
 * -f: each FILE is one record, as it is (make bench: generated XSpaces
 * as the chunks of one capture).
 * RECORDS holds the records as [8-byte little-endian length][bytes]
 * (tests/riegeli/xspace_split.py writes it; "-" is standard input).
 * -p pads the file to a multiple of 64 KiB with a padding chunk, as the
 * profiler's writer does. Written from the format facts, not Riegeli's
 * code.
 */
#include <brotli/encode.h>
#include <highwayhash/c_bindings.h>
#include <snappy-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define B ((uint64_t)1 << 16)
#define H 24u
#define U (B - H)

static FILE *out;
static uint64_t pos;                  /* bytes written, block headers too */
static uint64_t chunk_begin, chunk_end;

static uint64_t rhash(const void *p, size_t n)
{
	static const uint64_t key[4] = {
		0x2f696c6567656952ull, 0x0a7364726f636572ull,
		0x2f696c6567656952ull, 0x0a7364726f636572ull,
	};
	return HighwayHash64(key, p, n);
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void die(const char *what)
{
	fprintf(stderr, "riegeli_pack: %s\n", what);
	exit(1);
}

/* Chunk bytes, with a block header wherever a block starts. */
static void emit(const uint8_t *p, size_t n)
{
	while (n) {
		size_t take;

		if (pos % B == 0) {
			uint8_t h[24];

			put64(h + 8, pos == chunk_begin ? 0 : pos - chunk_begin);
			put64(h + 16, chunk_end - pos);
			put64(h, rhash(h + 8, 16));
			if (fwrite(h, 1, 24, out) != 24)
				die("write failed");
			pos += 24;
		}
		take = (size_t)(B - pos % B);
		if (take > n)
			take = n;
		if (fwrite(p, 1, take, out) != take)
			die("write failed");
		pos += take;
		p += take;
		n -= take;
	}
}

static uint64_t add_with_overhead(uint64_t p, uint64_t n)
{
	return p + n + ((n + (p + U - 1) % B) / U) * H;
}

static uint64_t round_up_boundary(uint64_t p)
{
	uint64_t rem = B - 1 - (p + B - 1) % B;

	return p + (rem > U - 1 ? rem - (U - 1) : 0);
}

static void chunk(uint8_t type, uint64_t num_records, uint64_t decoded,
		  const uint8_t *data, uint64_t size)
{
	uint8_t h[40];
	uint64_t a, b;
	static const uint8_t zero[4096];

	chunk_begin = pos;
	a = add_with_overhead(pos, 40 + size);
	b = round_up_boundary(pos + num_records);
	chunk_end = a > b ? a : b;
	put64(h + 8, size);
	put64(h + 16, rhash(data, size));
	put64(h + 24, num_records << 8 | type);
	put64(h + 32, decoded);
	put64(h, rhash(h + 8, 32));
	emit(h, 40);
	emit(data, size);
	while (pos < chunk_end) {   /* padding up to the chunk's end */
		uint64_t n = chunk_end - pos;

		emit(zero, n > sizeof(zero) ? sizeof(zero) : (size_t)n);
	}
}

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("out of memory");
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put_varint(struct buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	do {
		t[n++] = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	put(b, t, n);
}

/* One buffer of a simple chunk, compressed: [decoded size][data]. */
static void compressed(struct buf *dst, char type, const struct buf *src)
{
	size_t cap, n;
	uint8_t *tmp;

	if (type == 0) {
		put(dst, src->p, src->n);
		return;
	}
	put_varint(dst, src->n);
	if (type == 'b') {
		cap = BrotliEncoderMaxCompressedSize(src->n) + 64;
		tmp = malloc(cap);
		n = cap;
		if (!BrotliEncoderCompress(6, 22, BROTLI_MODE_GENERIC, src->n,
					   src->p, &n, tmp))
			die("brotli failed");
	} else if (type == 'z') {
		cap = ZSTD_compressBound(src->n);
		tmp = malloc(cap);
		n = ZSTD_compress(tmp, cap, src->p, src->n, 3);
		if (ZSTD_isError(n))
			die("zstd failed");
	} else {
		cap = snappy_max_compressed_length(src->n);
		tmp = malloc(cap);
		n = cap;
		if (snappy_compress((const char *)src->p, src->n, (char *)tmp,
				    &n) != SNAPPY_OK)
			die("snappy failed");
	}
	put(dst, tmp, n);
	free(tmp);
}

static void flush(char type, struct buf *sizes, struct buf *values,
		  uint64_t records)
{
	struct buf data = { 0 }, cs = { 0 };
	uint8_t t = (uint8_t)type;

	if (!records)
		return;
	compressed(&cs, type, sizes);
	put(&data, &t, 1);
	put_varint(&data, cs.n);
	put(&data, cs.p, cs.n);
	compressed(&data, type, values);
	chunk('r', records, values->n, data.p, data.n);
	free(data.p);
	free(cs.p);
	sizes->n = values->n = 0;
}

int main(int argc, char **argv)
{
	char type = 0;
	uint64_t per_chunk = 1, in_chunk = 0;
	int opt, pad = 0;
	struct buf sizes = { 0 }, values = { 0 };
	FILE *in;
	uint8_t lenb[8];

	int files = 0;

	while ((opt = getopt(argc, argv, "c:n:pf")) != -1) {
		if (opt == 'c')
			type = !strcmp(optarg, "brotli") ? 'b' :
			       !strcmp(optarg, "zstd") ? 'z' :
			       !strcmp(optarg, "snappy") ? 's' : 0;
		else if (opt == 'n')
			per_chunk = strtoull(optarg, NULL, 10);
		else if (opt == 'p')
			pad = 1;
		else if (opt == 'f')
			files = 1;
		else
			die("usage: riegeli_pack [-c none|brotli|zstd|snappy] [-n N] [-p] RECORDS OUT");
	}
	if (files ? argc - optind < 2 : argc - optind != 2)
		die("usage: riegeli_pack [-c none|brotli|zstd|snappy] [-n N] [-p] RECORDS OUT");
	if (files) {
		out = fopen(argv[optind], "wb");
		in = NULL;
	} else {
		in = strcmp(argv[optind], "-") ? fopen(argv[optind], "rb") : stdin;
		out = fopen(argv[optind + 1], "wb");
	}
	if ((!files && !in) || !out)
		die("cannot open a file");
	chunk('s', 0, 0, NULL, 0);    /* the signature */
	for (int arg = optind + 1;; arg++) {
		uint64_t n = 0;
		uint8_t *rec;

		if (files) {
			FILE *f;
			long len;

			if (arg >= argc)
				break;
			f = fopen(argv[arg], "rb");
			if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0)
				die("cannot read a record file");
			rewind(f);
			n = (uint64_t)len;
			rec = malloc(n ? n : 1);
			if (!rec || fread(rec, 1, n, f) != n)
				die("short record file");
			fclose(f);
		} else {
			if (fread(lenb, 1, 8, in) != 8)
				break;
			for (int i = 7; i >= 0; i--)
				n = n << 8 | lenb[i];
			rec = malloc(n ? n : 1);
			if (!rec || fread(rec, 1, n, in) != n)
				die("short record");
		}
		put_varint(&sizes, n);
		put(&values, rec, n);
		free(rec);
		if (++in_chunk == per_chunk) {
			flush(type, &sizes, &values, in_chunk);
			in_chunk = 0;
		}
	}
	flush(type, &sizes, &values, in_chunk);
	if (pad && pos % B) {
		uint64_t target = (pos / B + 1) * B, size;

		size = target - pos >= 40 ? target - pos - 40
					   : target + B - pos - 40 - H;
		{
			uint8_t *z = calloc(1, size ? size : 1);

			chunk('p', 0, 0, z, size);
			free(z);
		}
	}
	if (fclose(out) != 0)
		die("write failed");
	free(sizes.p);
	free(values.p);
	return 0;
}
