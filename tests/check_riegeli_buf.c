/*
 * check_riegeli_buf.c - the merge's growable buffers
 * (src/decode/riegeli/riegeli_buf.c, struct rg_buf): bytes kept through
 * every growth, a given fixed memory written into, and a buffer of
 * megabytes grown in its own mapping, so that freeing it leaves glibc's
 * dynamic mmap threshold where it was (docs/performance.md: a merge's
 * freed buffers raised it, and a chunked capture's later arrays stayed
 * resident from the heap, 1-2 MB more peak than the .pb's); and the
 * window an uncompressed chunk is walked through (riegeli_window.c): the
 * file's bytes read, its pages never mapped, the mapping where the file
 * reads short.
 */
#include "../src/decode/riegeli/riegeli_internal.h"
#include "riegeli_testutil.h"

#include <brotli/encode.h>
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_createCCtx_advanced */
#include <zstd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* Byte i of the test pattern. */
static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 131 + (i >> 9));
}

/* n pattern bytes into b, in pieces of step. */
static void fill(struct rg_buf *b, size_t n, size_t step)
{
	uint8_t piece[4096];

	ck_assert_uint_le(step, sizeof(piece));
	for (size_t at = 0; at < n; at += step) {
		size_t k = n - at < step ? n - at : step;

		for (size_t i = 0; i < k; i++)
			piece[i] = pattern(at + i);
		rg_put(b, piece, k);
	}
}

static void assert_pattern(const struct rg_buf *b, size_t n)
{
	ck_assert_uint_eq(b->n, n);
	ck_assert_uint_ge(b->cap, n);
	for (size_t i = 0; i < n; i++)
		if (b->p[i] != pattern(i))
			ck_abort_msg("byte %zu of %zu: %u, not %u", i, n, b->p[i],
				     pattern(i));
}

/* loop: sizes across the heap/mapping boundary, and far past it */
static const size_t sizes[] = { 1, 1000, RG_BUF_MAP_MIN - 1, RG_BUF_MAP_MIN,
				RG_BUF_MAP_MIN + 1, (size_t)3 << 20 };

START_TEST(test_bytes_kept)
{
	struct rg_buf b = { 0 };
	size_t n = sizes[_i];

	fill(&b, n, 1 + (size_t)_i * 613);
	assert_pattern(&b, n);
	ck_assert(b.mapped == (n > RG_BUF_MAP_MIN / 2));
	rg_buf_free(&b);
	ck_assert_ptr_null(b.p);
	ck_assert_uint_eq(b.cap, 0);
}
END_TEST

/* A length-delimited field opened before the buffer is mapped and closed
 * after: its content moved up past the real length, across the move. */
START_TEST(test_field_across_growth)
{
	struct rg_buf b = { 0 };
	size_t at, n = RG_BUF_MAP_MIN * 3;
	const uint8_t *p;
	uint64_t len = 0;

	rg_put_varint(&b, 7);
	at = rg_open_field(&b, 2);
	ck_assert(!b.mapped);
	for (size_t i = 0; i < n; i++) {
		uint8_t c = pattern(i);

		rg_put(&b, &c, 1);
	}
	ck_assert(b.mapped);
	rg_close_field(&b, at);
	ck_assert_uint_eq(b.p[0], 7);
	ck_assert_uint_eq(b.p[1], 2 << 3 | 2);
	p = b.p + 2;
	for (unsigned shift = 0;; shift += 7) {
		len |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p++ & 0x80))
			break;
	}
	ck_assert_uint_eq(len, n);
	ck_assert_uint_eq(b.n, (size_t)(p - b.p) + n);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(p[i], pattern(i));
	rg_buf_free(&b);
}
END_TEST

/* Given memory: written into as it is. */
START_TEST(test_given_memory)
{
	uint8_t room[10];
	struct rg_buf b = { room, 0, sizeof(room), false };

	rg_put_varint(&b, UINT64_MAX);
	ck_assert_ptr_eq(b.p, room);
	ck_assert_uint_eq(b.n, 10);
	ck_assert_uint_eq(room[9], 1);
}
END_TEST

/* Whether a block of n bytes from malloc is a mapping of its own:
 * mallinfo2's mapped bytes grow by it. Always false but under glibc's
 * own malloc (a sanitizer's or valgrind's count nothing there). */
static bool malloc_maps(size_t n)
{
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && \
	!defined(__SANITIZE_THREAD__)
	size_t before = mallinfo2().hblkhd, after;
	void *p = malloc(n);

	ck_assert_ptr_nonnull(p);
	memset(p, 1, n);
	after = mallinfo2().hblkhd;
	free(p);
	return after >= before + n;
#else
	(void)n;
	return false;
#endif
}

/* A buffer of megabytes, freed, leaves malloc as it found it: a block of
 * 1 MiB still its own mapping after (before the buffers were mapped,
 * malloc's threshold rose to the freed buffer's size, and the block came
 * from the heap). Told where glibc's malloc runs as it starts (the first
 * probe); the bytes are checked everywhere. The probe's own block,
 * freed, raises the threshold to its size: the second probe is larger
 * than the first. */
START_TEST(test_big_buffer_leaves_malloc)
{
	struct rg_buf b = { 0 };
	bool probe = malloc_maps((size_t)256 << 10);  /* else nothing to tell */

	fill(&b, (size_t)2 << 20, 4096);
	assert_pattern(&b, (size_t)2 << 20);
	rg_buf_free(&b);
	ck_assert_msg(!probe || malloc_maps((size_t)1 << 20),
		      "a freed 2 MiB buffer raised malloc's mmap threshold");
}
END_TEST

/* n bytes of noise compressed as a Riegeli buffer (type 'b' or 'z'):
 * the encoders on the decoders' allocator too, so that they leave
 * malloc as they found it. */
static uint8_t *compressed(char type, const uint8_t *p, size_t n, size_t *len)
{
	static const ZSTD_customMem mem = { rg_codec_alloc, rg_codec_free, NULL };
	size_t room = n + n / 8 + 1024;
	uint8_t *out = rg_codec_alloc(NULL, room + 10), *q = out;

	ck_assert_ptr_nonnull(out);
	for (size_t v = n;;) {   /* the decompressed size, a varint */
		uint8_t low = (uint8_t)(v & 0x7f);

		v >>= 7;
		*q++ = low | (v ? 0x80 : 0);
		if (!v)
			break;
	}
	if (type == 'z') {
		ZSTD_CCtx *z = ZSTD_createCCtx_advanced(mem);
		size_t got = ZSTD_compress2(z, q, room, p, n);

		ck_assert(!ZSTD_isError(got));
		ZSTD_freeCCtx(z);
		*len = (size_t)(q - out) + got;
	} else {
		BrotliEncoderState *b = BrotliEncoderCreateInstance(rg_codec_alloc,
								   rg_codec_free, NULL);
		size_t in = n, avail = room;
		const uint8_t *next_in = p;
		uint8_t *next_out = q;

		BrotliEncoderSetParameter(b, BROTLI_PARAM_QUALITY, 1);
		BrotliEncoderSetParameter(b, BROTLI_PARAM_LGWIN, 22);
		ck_assert(BrotliEncoderCompressStream(b, BROTLI_OPERATION_FINISH,
						      &in, &next_in, &avail,
						      &next_out, NULL));
		ck_assert(BrotliEncoderIsFinished(b));
		BrotliEncoderDestroyInstance(b);
		*len = (size_t)(next_out - out);
	}
	return out;
}

/* loop: Brotli, Zstd. A buffer of megabytes decompressed leaves malloc
 * as it found it: with the decoders on malloc, Brotli's window of 4 MiB
 * and Zstd's blocks of more than the probe's 1 MiB, freed, raised the
 * threshold, and both fail. */
START_TEST(test_codecs_leave_malloc)
{
	char type = _i ? 'z' : 'b';
	size_t n = (size_t)3 << 20, len;
	struct rg_big noise = { 0 }, own = { 0 };
	struct ZSTD_DCtx_s *zstd = NULL;
	const uint8_t *view;
	uint8_t *packed;
	bool probe = malloc_maps((size_t)256 << 10);  /* else nothing to tell */

	rg_big_alloc(&noise, n);
	for (size_t i = 0; i < n; i++)
		noise.p[i] = (uint8_t)((i * 2654435761u) >> 13);
	packed = compressed(type, noise.p, n, &len);
	ck_assert_ptr_null(rg_decompress((uint8_t)type, packed, len, n, &view,
					 &own, &zstd));
	ck_assert_mem_eq(view, noise.p, n);
	rg_zstd_free(zstd);
	rg_big_free(&own);
	rg_big_free(&noise);
	rg_codec_free(NULL, packed);
	rg_codec_release();
	ck_assert_msg(!probe || malloc_maps((size_t)1 << 20),
		      "decompressing %c raised malloc's mmap threshold", type);
}
END_TEST

/* The process's resident bytes of file mappings. */
/* A chunk of one plane with 20,000 event metadata entries (about 1 MB
 * of glue in the view). */
static struct pb metadata_record(void)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, ev = { 0 };
	char name[64];

	pb_int(&plane, 1, 3);
	pb_str(&plane, 2, "/device:TPU:0");
	pb_int(&line, 1, 5);
	pb_str(&line, 2, "XLA Ops");
	pb_int(&line, 3, 1000);
	pb_int(&ev, 1, 1);
	pb_int(&ev, 2, 100);
	pb_int(&ev, 3, 50);
	pb_msg(&line, 4, &ev);
	pb_msg(&plane, 3, &line);
	for (int i = 1; i <= 20000; i++) {
		snprintf(name, sizeof(name), "fusion.%d.with.a.longer.name.%d", i, i * 7);
		pb_metadata(&plane, 4, i, name);
	}
	pb_msg(&space, 1, &plane);
	return space;
}

/* A name read from the merged view's glue maps what a read of a file
 * written in small pieces maps (one fault-around, 64 KiB here), not the
 * megabyte its writer flushed at once. Told where the file system keeps
 * large folios (a 1 MiB write read back maps more than 128 KiB); on
 * others every file maps alike and there is nothing to tell. */
START_TEST(test_glue_read_maps_little)
{
	struct pb rec = metadata_record();
	struct pb file = riegeli_blocked_of(&rec, 1);
	struct tp_riegeli_opts o = { .shown = "g.riegeli", .max_chunk = UINT64_MAX };
	struct tp_riegeli_xspace out;
	struct tp_riegeli_info info;
	struct tp_error err = { 0 };
	long before, after;

	if (one_write_maps_kb() <= 128)
		goto done;
	ck_assert_int_eq(tp_riegeli_merge(file.data, file.len, &o, &out, &info,
					  &err), TP_OK);
	ck_assert_uint_gt(out.size, (size_t)900 << 10);
	before = rss_file_kb();
	(void)*(volatile const uint8_t *)(out.data + out.size / 2);
	after = rss_file_kb();
	ck_assert_msg(after - before <= 128,
		      "one byte of the glue mapped %ld KiB", after - before);
	tp_riegeli_xspace_release(&out);
	tp_riegeli_info_release(&info);
done:
	pb_free(&file);
	pb_free(&rec);
}
END_TEST

/* The merge's temporary files written through stdio reach the file a
 * piece of RG_WRITE_PIECE bytes at a time: glibc's setvbuf without a
 * buffer of ours kept 4 KiB, and the metadata of a capture went out in
 * a write(2) per 4 KiB (1,154 of them on the bench's 200 MB capture). */
START_TEST(test_tmpfile_writes_in_pieces)
{
	static const char piece[10] = "0123456789";
	char *buf = NULL;
	FILE *f = rg_tmpfile(&buf);
	struct stat st;
	size_t n = 0;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(buf);
	while (n + sizeof(piece) < RG_WRITE_PIECE) {
		ck_assert_uint_eq(fwrite(piece, 1, sizeof(piece), f), sizeof(piece));
		n += sizeof(piece);
	}
	ck_assert_int_eq(fstat(fileno(f), &st), 0);
	ck_assert_int_eq(st.st_size, 0);      /* all of it still buffered */
	ck_assert_uint_eq(fwrite(piece, 1, sizeof(piece), f), sizeof(piece));
	ck_assert_int_eq(fstat(fileno(f), &st), 0);
	ck_assert_int_eq(st.st_size, (off_t)RG_WRITE_PIECE);  /* one piece */
	fclose(f);
	free(buf);
	/* the glue is written with pwrite: no buffer */
	f = rg_tmpfile(NULL);
	ck_assert_ptr_nonnull(f);
	fclose(f);
}
END_TEST

/* Whether p[0, n) are all zeros. */
static bool same_zeros(const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n && !p[i])
		i++;
	return i == n;
}

/* A padding field of each size: one field of exactly that many bytes,
 * its values then zeros, rg_pad_head giving the bytes before the zeros.
 * Past 2 MiB the length takes four varint bytes: a view's marker that
 * aligns a segment to a huge page pads up to 2 MiB (riegeli_view.c),
 * which three bytes could not say. */
static const struct pad_case {
	uint64_t size;
	size_t head;       /* 0: no field takes that size */
} pad_cases[] = {
	{ 4, 0 },                        /* tag 2, length 1, values 2 */
	{ 5, 5 },
	{ 130, 5 },                      /* content 127: one byte */
	{ 131, 0 },                      /* 128 takes two, 127 one */
	{ 4096, 6 },
	{ ((uint64_t)2 << 20) + 7, 8 },  /* content past 2^21: four */
	{ (uint64_t)3 << 20, 8 },
};

START_TEST(test_pad_field_sizes)
{
	const struct pad_case *c = &pad_cases[_i];
	static const uint64_t values[2] = { 1, 2 };
	uint8_t head[RG_PAD_HEAD_MAX], *field;
	struct tp_wire w;
	struct tp_field f;
	uint64_t v;
	const uint8_t *q;

	ck_assert_uint_eq(rg_pad_head(NULL, TP_XLINE_SEGMENT_FIELD, c->size,
				      values, 2), c->head);
	ck_assert_uint_eq(rg_pad_head(head, TP_XLINE_SEGMENT_FIELD, c->size,
				      values, 2), c->head);
	if (!c->head) {
		ck_assert(!rg_pad_field(NULL, TP_XLINE_SEGMENT_FIELD, c->size,
					values, 2));
		return;
	}
	field = malloc((size_t)c->size);
	ck_assert(rg_pad_field(field, TP_XLINE_SEGMENT_FIELD, c->size, values, 2));
	ck_assert_mem_eq(field, head, c->head);
	tp_wire_init(&w, field, field, (size_t)c->size);
	ck_assert_int_eq(tp_wire_next(&w, &f), 1);
	ck_assert_uint_eq(f.number, TP_XLINE_SEGMENT_FIELD);
	ck_assert_ptr_eq(w.p, field + c->size);
	q = f.data;
	ck_assert(tp_wire_varint(&q, field + c->size, &v) && v == 1);
	ck_assert(tp_wire_varint(&q, field + c->size, &v) && v == 2);
	ck_assert_ptr_eq(q, field + c->head);
	ck_assert(same_zeros(q, (size_t)(field + c->size - q)));
	free(field);
}
END_TEST

/* ---- the window: an input's blocks read with pread, not mapped
 * (riegeli_window.c) ---- */

/* A file of n pattern bytes (byte i: pattern(i + salt)), written and
 * mapped as tpuprof maps an input; *fd open on it. */
static uint8_t *map_pattern_file(size_t n, size_t salt, int *fd, char **path)
{
	uint8_t *b = malloc(n), *map;

	ck_assert_ptr_nonnull(b);
	for (size_t i = 0; i < n; i++)
		b[i] = pattern(i + salt);
	*path = write_temp(".riegeli", b, n);
	free(b);
	*fd = open(*path, O_RDONLY);
	ck_assert_int_ge(*fd, 0);
	map = mmap(NULL, n, PROT_READ, MAP_PRIVATE, *fd, 0);
	ck_assert_ptr_ne(map, MAP_FAILED);
	return map;
}

/* Whether p[0, n) are pattern bytes from pattern(from) on (one check:
 * a check a byte is minutes under the sanitizers). */
static bool same_pattern(const uint8_t *p, size_t from, size_t n)
{
	size_t i = 0;

	while (i < n && p[i] == pattern(from + i))
		i++;
	return i == n;
}

/* The bytes rg_window_at gives for pos: the file's, to the end of
 * pos's block or of the file, from the window's buffer (not the
 * mapping: its pages are never touched). */
static void assert_window_bytes(struct rg_window *w, const uint8_t *map,
				size_t n, size_t salt, uint64_t pos)
{
	const uint8_t *p = rg_window_at(w, pos);
	uint64_t len = RG_BLOCK - pos % RG_BLOCK;

	if (len > n - pos)
		len = n - pos;
	ck_assert_msg(p < map || p >= map + n, "byte %llu read from the mapping",
		      (unsigned long long)pos);
	ck_assert_msg(same_pattern(p, (size_t)pos + salt, (size_t)len),
		      "byte %llu on: not the file's", (unsigned long long)pos);
}

/* Positions read in turn: block starts and ends, a block header's
 * bytes, the short last block, back to the start, past the buffer's
 * 16 blocks and back again. */
static const uint64_t window_reads[] = {
	0, 23, 24, RG_BLOCK - 1, RG_BLOCK, 3 * RG_BLOCK + 5, 19 * RG_BLOCK + 7,
	20 * RG_BLOCK + 999, 100, 2 * RG_BLOCK, 17 * RG_BLOCK, 1,
};

START_TEST(test_window_reads_the_file)
{
	size_t n = 20 * RG_BLOCK + 1000;
	int fd, fd2;
	char *path, *path2;
	uint8_t *map = map_pattern_file(n, 0, &fd, &path);
	uint8_t *map2 = map_pattern_file(n, 7, &fd2, &path2);
	struct rg_window w = { 0 };
	const uint8_t *kept;

	rg_window_open(&w, map, n, fd);
	for (size_t i = 0; i < sizeof(window_reads) / sizeof(*window_reads); i++)
		assert_window_bytes(&w, map, n, 0, window_reads[i]);
	/* a block stays while the reads after it are within 11 blocks */
	kept = rg_window_at(&w, 5 * RG_BLOCK);
	for (uint64_t b = 6; b <= 16; b++)
		assert_window_bytes(&w, map, n, 0, b * RG_BLOCK + 3);
	ck_assert(same_pattern(kept, (size_t)(5 * RG_BLOCK), (size_t)RG_BLOCK));
	/* another file of the same size: its own bytes, none kept */
	rg_window_open(&w, map2, n, fd2);
	assert_window_bytes(&w, map2, n, 7, 5 * RG_BLOCK);
	assert_window_bytes(&w, map2, n, 7, 0);
	rg_window_free(&w);
	ck_assert_ptr_null(w.buf.p);
	munmap(map, n);
	munmap(map2, n);
	close(fd);
	close(fd2);
	unlink(path);
	unlink(path2);
	free(path);
	free(path2);
}
END_TEST

/* A file that reads short (changed under its mapping) or no file at
 * all: the mapping's bytes, and the mapping from then on. */
START_TEST(test_window_falls_back_to_the_mapping)
{
	size_t n = 6 * RG_BLOCK;
	int fd, fd_short;
	char *path, *path_short;
	uint8_t *map = map_pattern_file(n, 0, &fd, &path);
	uint8_t *map_short = map_pattern_file(2 * RG_BLOCK, 0, &fd_short,
					      &path_short);
	struct rg_window w = { 0 };

	rg_window_open(&w, map, n, -1);
	ck_assert_ptr_eq(rg_window_at(&w, 3 * RG_BLOCK + 1), map + 3 * RG_BLOCK + 1);
	ck_assert_ptr_null(w.buf.p);
	/* its first read (four blocks) falls short */
	rg_window_open(&w, map, n, fd_short);
	ck_assert_ptr_eq(rg_window_at(&w, 10), map + 10);
	ck_assert_int_eq(w.fd, -1);
	ck_assert_ptr_eq(rg_window_at(&w, 4 * RG_BLOCK), map + 4 * RG_BLOCK);
	/* the file that reads whole, opened again: read */
	rg_window_open(&w, map, n, fd);
	assert_window_bytes(&w, map, n, 0, 4 * RG_BLOCK);
	rg_window_free(&w);
	munmap(map, n);
	munmap(map_short, 2 * RG_BLOCK);
	close(fd);
	close(fd_short);
	unlink(path);
	unlink(path_short);
	free(path);
	free(path_short);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("riegeli_buf");
	TCase *tc = tcase_create("buf");

	tcase_add_loop_test(tc, test_bytes_kept, 0,
			    (int)(sizeof(sizes) / sizeof(sizes[0])));
	tcase_add_test(tc, test_field_across_growth);
	tcase_add_test(tc, test_given_memory);
	tcase_add_test(tc, test_big_buffer_leaves_malloc);
	tcase_add_test(tc, test_glue_read_maps_little);
	tcase_add_test(tc, test_tmpfile_writes_in_pieces);
	tcase_add_loop_test(tc, test_codecs_leave_malloc, 0, 2);
	tcase_add_loop_test(tc, test_pad_field_sizes, 0,
			    (int)(sizeof(pad_cases) / sizeof(pad_cases[0])));
	tcase_add_test(tc, test_window_reads_the_file);
	tcase_add_test(tc, test_window_falls_back_to_the_mapping);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
