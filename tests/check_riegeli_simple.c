/*
 * check_riegeli_simple.c - a Brotli or Zstd simple chunk decoded as its
 * data is read (src/decode/riegeli/riegeli_simple.c, rg_stream_chunk):
 * the same buffers as the chunk decompressed whole, wherever a block
 * header cuts its data (the compression byte, a varint, the sizes, the
 * records); and every damage refused, for the gathering reader to name.
 * Then whole files through tp_riegeli_read: the records as written, and
 * the damage named as before the chunks were streamed.
 */
#include "../src/decode/riegeli/riegeli_internal.h"
#include "riegeli_testutil.h"

#include <brotli/encode.h>
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

/* Records of noise (incompressible: the chunk is as long as they are),
 * the first few bytes a pattern a mistake could not hide in. */
static struct pb records_of(size_t n, size_t each, uint64_t seed)
{
	struct pb all = { 0 };
	uint64_t x = seed * UINT64_C(0x9e3779b97f4a7c15) + 1;

	for (size_t i = 0; i < n * each; i++) {
		uint8_t b;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b = (uint8_t)(x >> 24);
		pb_bytes(&all, &b, 1);
	}
	return all;
}

/* One buffer compressed as Riegeli writes it: the decompressed size,
 * then the codec's bytes. */
static void put_compressed(struct pb *out, char codec, const uint8_t *p,
			   size_t n)
{
	size_t room = codec == 'z' ? ZSTD_compressBound(n)
				   : BrotliEncoderMaxCompressedSize(n);
	uint8_t *c = malloc(room + 1);
	size_t got = room;

	ck_assert_ptr_nonnull(c);
	if (codec == 'z') {
		got = ZSTD_compress(c, room, p, n, 3);
		ck_assert(!ZSTD_isError(got));
	} else {
		ck_assert(BrotliEncoderCompress(6, 22, BROTLI_MODE_GENERIC, n, p,
						&got, c));
	}
	pb_varint(out, n);
	pb_bytes(out, c, got);
	free(c);
}

/* A simple chunk's data: n records of each bytes from values. */
static struct pb chunk_data(char codec, const struct pb *values, size_t n,
			    size_t each)
{
	struct pb data = { 0 }, sizes = { 0 }, packed = { 0 };
	uint8_t type = (uint8_t)codec;

	for (size_t i = 0; i < n; i++)
		pb_varint(&sizes, each);
	put_compressed(&packed, codec, sizes.data, sizes.len);
	pb_bytes(&data, &type, 1);
	pb_varint(&data, packed.len);
	pb_bytes(&data, packed.data, packed.len);
	put_compressed(&data, codec, values->data, values->len);
	pb_free(&sizes);
	pb_free(&packed);
	return data;
}

/* The data laid into a file from position begin, a (zeroed) block header
 * at every 64 KiB boundary it crosses, as rg_data_run skips them. */
static uint8_t *lay_out(const struct pb *data, uint64_t begin, uint64_t *size)
{
	uint64_t pos = begin, left = data->len, end;
	uint8_t *file;
	size_t at = 0;

	while (left) {
		uint64_t take = rg_data_run(&pos, left);

		pos += take;
		left -= take;
	}
	end = pos + RG_BLOCK;
	file = calloc(end, 1);
	ck_assert_ptr_nonnull(file);
	pos = begin;
	left = data->len;
	while (left) {
		uint64_t take = rg_data_run(&pos, left);

		memcpy(file + pos, data->data + at, take);
		at += take;
		pos += take;
		left -= take;
	}
	*size = end;
	return file;
}

struct decoded {
	struct rg_big packed, sizes, values;
	struct ZSTD_DCtx_s *zstd;
};

static void decoded_free(struct decoded *d)
{
	rg_big_free(&d->packed);
	rg_big_free(&d->sizes);
	rg_big_free(&d->values);
	ZSTD_freeDCtx(d->zstd);
	rg_codec_release();
}

/* rg_stream_chunk on data laid out from begin; with want (not NULL) its
 * buffers held to want's n records of each bytes. */
static bool streams(const struct pb *data, uint64_t begin, size_t n,
		    size_t each, uint64_t hash, const struct pb *want,
		    struct decoded *d)
{
	uint64_t size;
	uint8_t *file = lay_out(data, begin, &size);
	struct rg_stream_in in = {
		.file = file, .size = size, .begin = begin, .n = data->len,
		.num_records = n, .decoded_size = n * each, .hash = hash,
		.max = UINT64_MAX };
	struct rg_stream_out out = { .packed = &d->packed,
				     .sizes_own = &d->sizes,
				     .values_own = &d->values, .zstd = &d->zstd };
	bool ok = rg_stream_chunk(&in, &out);

	if (ok && want) {
		struct pb sizes = { 0 };

		for (size_t i = 0; i < n; i++)
			pb_varint(&sizes, each);
		ck_assert_uint_eq(out.sizes_len, sizes.len);
		ck_assert_mem_eq(out.sizes, sizes.data, sizes.len);
		ck_assert_mem_eq(out.values, want->data, want->len);
		pb_free(&sizes);
	}
	free(file);
	return ok;
}

/* loop: Zstd, Brotli */
START_TEST(test_cut_anywhere)
{
	char codec = _i ? 'b' : 'z';
	size_t n = 5, each = 40000;
	struct pb values = records_of(n, each, 7);
	struct pb data = chunk_data(codec, &values, n, each);
	uint64_t hash = rhash(data.data, data.len);
	struct decoded d = { 0 };

	ck_assert_uint_gt(data.len, 3 * RG_BLOCK);  /* it crosses headers */
	/* a block header before every one of the first 40 bytes, so each
	 * field of the framing is cut somewhere, and at the start */
	for (uint64_t k = 0; k <= 40; k++)
		ck_assert_msg(streams(&data, 5 * RG_BLOCK - k, n, each, hash,
				      &values, &d),
			      "%c, header %llu bytes in", codec,
			      (unsigned long long)k);
	/* a few chunk starts past the first block's header */
	ck_assert(streams(&data, RG_BLOCK_HEADER, n, each, hash, &values, &d));
	ck_assert(streams(&data, 104, n, each, hash, &values, &d));
	decoded_free(&d);
	pb_free(&values);
	pb_free(&data);
}
END_TEST

/* Whether the chunk's two buffers decompress whole (rg_decompress, as
 * the gathering reader does) to n records of each bytes. */
static bool decodes_whole(const struct pb *data, size_t n, size_t each)
{
	const uint8_t *q = data->data + 1, *end = data->data + data->len;
	const uint8_t *sizes, *values, *s;
	struct rg_big own_sizes = { 0 }, own_values = { 0 };
	struct ZSTD_DCtx_s *zstd = NULL;
	uint64_t sizes_size, sizes_len;
	bool ok;

	ok = tp_wire_varint(&q, end, &sizes_size) &&
	     sizes_size <= (uint64_t)(end - q);
	s = q;
	ok = ok && tp_wire_varint(&s, q + sizes_size, &sizes_len) &&
	     sizes_len <= n * 10 + 10 && n <= sizes_len &&
	     !rg_decompress(data->data[0], q, (size_t)sizes_size, sizes_len,
			    &sizes, &own_sizes, &zstd) &&
	     !rg_decompress(data->data[0], q + sizes_size,
			    (size_t)(end - q - sizes_size), n * each, &values,
			    &own_values, &zstd);
	rg_zstd_free(zstd);
	rg_codec_release();
	rg_big_free(&own_sizes);
	rg_big_free(&own_values);
	return ok;
}

/* Each damage refused (the gathering reader says what it is). */
START_TEST(test_damage_refused)
{
	char codec = _i ? 'b' : 'z';
	size_t n = 3, each = 30000;
	struct pb values = records_of(n, each, 11);
	struct pb data = chunk_data(codec, &values, n, each);
	uint64_t hash = rhash(data.data, data.len);
	struct decoded d = { 0 };
	size_t refused = 0;
	struct pb bad;

	ck_assert(streams(&data, 200, n, each, hash, &values, &d));
	/* the hash of other bytes */
	ck_assert(!streams(&data, 200, n, each, hash ^ 1, NULL, &d));
	/* another record count or size than the header's */
	ck_assert(!streams(&data, 200, n + 1, each, hash, NULL, &d));
	ck_assert(!streams(&data, 200, n, each + 1, hash, NULL, &d));
	/* a byte changed (and hashed so: a writer's damage): refused
	 * exactly where decompressing the buffers whole fails (raw blocks
	 * of noise decode to other bytes without complaint) */
	for (size_t at = 0; at < data.len; at += at < 80 ? 1 : 997) {
		bool whole;

		bad = (struct pb){ 0 };
		pb_bytes(&bad, data.data, data.len);
		bad.data[at] ^= 0x5a;
		whole = decodes_whole(&bad, n, each);
		refused += !whole;
		ck_assert_msg(streams(&bad, 200, n, each, rhash(bad.data, bad.len),
				      NULL, &d) == whole,
			      "%c, byte %zu changed: streamed %s", codec, at,
			      whole ? "refused" : "taken");
		pb_free(&bad);
	}
	ck_assert_uint_gt(refused, 3);
	bad = (struct pb){ 0 };
	pb_bytes(&bad, data.data, data.len);
	/* cut short, and one byte too many */
	bad.len = data.len - 1;
	memcpy(bad.data, data.data, bad.len);
	ck_assert(!streams(&bad, 200, n, each, rhash(bad.data, bad.len), NULL, &d));
	pb_free(&bad);
	pb_bytes(&bad, data.data, data.len);
	pb_bytes(&bad, "", 1);
	ck_assert(!streams(&bad, 200, n, each, rhash(bad.data, bad.len), NULL, &d));
	pb_free(&bad);
	/* uncompressed and Snappy chunks are not its */
	bad = (struct pb){ 0 };
	pb_bytes(&bad, data.data, data.len);
	bad.data[0] = 's';
	ck_assert(!streams(&bad, 200, n, each, rhash(bad.data, bad.len), NULL, &d));
	bad.data[0] = 0;
	ck_assert(!streams(&bad, 200, n, each, rhash(bad.data, bad.len), NULL, &d));
	pb_free(&bad);
	decoded_free(&d);
	pb_free(&values);
	pb_free(&data);
}
END_TEST

/* A file of one such chunk, blocked as a writer blocks it. */
static struct pb file_of(const struct pb *data, size_t n, size_t each)
{
	return riegeli_blocked(riegeli_chunk_file(data, n, n * each));
}

struct got {
	size_t n;
	uint64_t bytes, sum;
};

static enum tp_err count(void *ctx, const uint8_t *rec, size_t len,
			 uint64_t chunk, struct tp_error *err)
{
	struct got *g = ctx;

	(void)chunk;
	(void)err;
	g->n++;
	g->bytes += len;
	for (size_t i = 0; i < len; i++)
		g->sum = g->sum * 31 + rec[i];
	return TP_OK;
}

/* file as a file of its own, read as tpuprof reads an input file it
 * maps (in_place: open as fd too), every page of it past the first
 * unreadable (PROT_NONE): the chunk's data is read with pread through
 * the reader's window (riegeli_window.c), never through the mapping,
 * which faulted every page in (docs/performance.md, seventeenth
 * session): the records' bytes as in want, in order. It was a
 * segmentation fault. */
static void assert_read_not_mapped(const struct pb *file, const struct got *want)
{
	char *path = write_temp(".riegeli", file->data, file->len);
	int fd = open(path, O_RDONLY);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *map;
	struct tp_riegeli_opts o = { .shown = "s.riegeli", .max_chunk = UINT64_MAX,
				     .drop_pages = true, .in_place = true, .fd = fd };
	struct tp_riegeli_info info;
	struct tp_error err = { 0 };
	struct got g = { 0 };

	ck_assert_int_ge(fd, 0);
	map = mmap(NULL, file->len, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_ptr_ne(map, MAP_FAILED);
	ck_assert_uint_gt(file->len, 4 * page);
	ck_assert_int_eq(mprotect(map + page, (file->len - page) / page * page,
				  PROT_NONE), 0);
	ck_assert_int_eq(tp_riegeli_read(map, file->len, &o, count, &g, &info,
					 &err), TP_OK);
	ck_assert_uint_eq(info.n_damaged, 0);
	ck_assert_uint_eq(g.bytes, want->bytes);
	ck_assert_uint_eq(g.sum, want->sum);   /* the same bytes, in order */
	tp_riegeli_info_release(&info);
	munmap(map, file->len);
	close(fd);
	unlink(path);
	free(path);
}

/* loop: Zstd, Brotli. Whole files: the records as written; the data's
 * hash broken, the damage named as it always was. */
START_TEST(test_files)
{
	char codec = _i ? 'b' : 'z';
	size_t n = 4, each = 50000;
	struct pb values = records_of(n, each, 3);
	struct pb data = chunk_data(codec, &values, n, each);
	struct pb file = file_of(&data, n, each);
	struct tp_riegeli_opts o = { .shown = "s.riegeli", .max_chunk = UINT64_MAX };
	struct tp_riegeli_info info;
	struct tp_error err = { 0 };
	struct got g = { 0 }, want = { 0 };

	count(&want, values.data, values.len, 0, NULL);
	ck_assert_int_eq(tp_riegeli_read(file.data, file.len, &o, count, &g,
					 &info, &err), TP_OK);
	ck_assert_uint_eq(info.n_damaged, 0);
	ck_assert_uint_eq(info.records, n);
	ck_assert_uint_eq(g.n, n);
	ck_assert_uint_eq(g.bytes, values.len);
	ck_assert_uint_eq(g.sum, want.sum);   /* the same bytes, in order */
	tp_riegeli_info_release(&info);
	assert_read_not_mapped(&file, &want);
	g = (struct got){ 0 };
	/* a byte of the compressed records changed: the hash disagrees */
	file.data[file.len - 100] ^= 1;
	ck_assert_int_eq(tp_riegeli_read(file.data, file.len, &o, count, &g,
					 &info, &err), TP_OK);
	ck_assert_uint_eq(info.n_damaged, 1);
	ck_assert_str_eq(info.damaged[0].what, "chunk data hash mismatch");
	ck_assert_uint_eq(g.n, 0);
	tp_riegeli_info_release(&info);
	pb_free(&file);
	pb_free(&data);
	pb_free(&values);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("riegeli_simple");
	TCase *tc = tcase_create("stream");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_cut_anywhere, 0, 2);
	tcase_add_loop_test(tc, test_damage_refused, 0, 2);
	tcase_add_loop_test(tc, test_files, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
