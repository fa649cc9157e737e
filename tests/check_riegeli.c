/*
 * check_riegeli.c - the Riegeli records reader (src/decode/riegeli/) on
 * Riegeli's own golden files (../shared/captures/riegeli-golden/,
 * CONTENTS.md says what each holds): every record read back exactly,
 * transposed chunks refused with their offset, and every file cut short
 * or with a byte flipped at each chunk boundary losing only the chunks
 * it must (a damaged chunk header: up to the next valid block header;
 * damaged data: that chunk).
 */
#include "testutil.h"

#include "tpuprof/riegeli.h"

#define GOLDEN "../shared/captures/riegeli-golden/"

struct recs {
	size_t n;
	char **v;
	size_t *len;
	uint64_t *chunk;       /* the chunk each came from */
};

static enum tp_err collect(void *ctx, const uint8_t *rec, size_t len,
			   uint64_t chunk_begin, struct tp_error *err)
{
	struct recs *r = ctx;

	(void)err;
	r->v = realloc(r->v, (r->n + 1) * sizeof(*r->v));
	r->len = realloc(r->len, (r->n + 1) * sizeof(*r->len));
	r->chunk = realloc(r->chunk, (r->n + 1) * sizeof(*r->chunk));
	r->v[r->n] = malloc(len + 1);
	memcpy(r->v[r->n], rec, len);
	r->len[r->n] = len;
	r->chunk[r->n++] = chunk_begin;
	return TP_OK;
}

static void recs_free(struct recs *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i]);
	free(r->v);
	free(r->len);
	free(r->chunk);
	memset(r, 0, sizeof(*r));
}

static uint8_t *slurp(const char *name, size_t *size)
{
	char path[512];
	FILE *f;
	uint8_t *p;
	long n;

	snprintf(path, sizeof(path), GOLDEN "%s", name);
	f = fopen(path, "rb");
	ck_assert_msg(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return p;
}

static enum tp_err read_all(const uint8_t *p, size_t n, struct recs *r,
			    struct tp_riegeli_info *info, struct tp_error *err)
{
	struct tp_riegeli_opts o = { .shown = "f.riegeli", .max_chunk = UINT64_MAX };

	return tp_riegeli_read(p, n, &o, collect, r, info, err);
}

/* The records CONTENTS.md lists for a file, into want. */
static void expected(const char *name, struct recs *want)
{
	char buf[2048];

	memset(want, 0, sizeof(*want));
	if (!strcmp(name, "single_string_uncompressed.riegeli")) {
		collect(want, (const uint8_t *)"Hello", 5, 0, NULL);
	} else if (!strcmp(name, "three_strings_uncompressed.riegeli")) {
		collect(want, (const uint8_t *)"a", 1, 0, NULL);
		collect(want, (const uint8_t *)"bc", 2, 0, NULL);
		collect(want, (const uint8_t *)"def", 3, 0, NULL);
	} else if (!strncmp(name, "multi_records_", 14)) {
		for (int i = 0; i < 23; i++) {
			size_t n = 0;

			for (int k = 0; k < 100; k++, n += 12)
				memcpy(buf + n, "record_data_", 12);
			buf[n++] = (char)('A' + i % 26);
			collect(want, (const uint8_t *)buf, n, 0, NULL);
		}
	} else if (!strcmp(name, "block_spanning.riegeli")) {
		uint8_t *b = malloc(50000);

		for (int i = 0; i < 5; i++) {
			for (int j = 0; j < 50000; j++)
				b[j] = (uint8_t)((i * 50000 + j) % 256);
			collect(want, b, 50000, 0, NULL);
		}
		free(b);
	} else if (!strcmp(name, "empty_records.riegeli")) {
		for (int i = 0; i < 10; i++)
			collect(want, (const uint8_t *)"", 0, 0, NULL);
	} else if (!strcmp(name, "large_record.riegeli")) {
		uint8_t *b = malloc(1 << 20);

		for (int i = 0; i < 1 << 20; i++)
			b[i] = (uint8_t)(i % 256);
		collect(want, b, 1 << 20, 0, NULL);
		free(b);
	} else if (!strcmp(name, "many_records.riegeli")) {
		memset(buf, 'x', 100);
		for (int i = 0; i < 1000; i++)
			collect(want, (const uint8_t *)buf, (size_t)(i % 100), 0, NULL);
	}
}

static const char *const simple[] = {
	"empty.riegeli", "single_string_uncompressed.riegeli",
	"three_strings_uncompressed.riegeli",
	"multi_records_uncompressed.riegeli", "multi_records_brotli.riegeli",
	"multi_records_zstd.riegeli", "multi_records_snappy.riegeli",
	"block_spanning.riegeli", "empty_records.riegeli",
	"large_record.riegeli", "many_records.riegeli",
};

static void assert_same(const struct recs *got, const struct recs *want,
			const char *name)
{
	ck_assert_msg(got->n == want->n, "%s: %zu records, want %zu", name,
		      got->n, want->n);
	for (size_t i = 0; i < got->n; i++)
		ck_assert_msg(got->len[i] == want->len[i] &&
			      memcmp(got->v[i], want->v[i], got->len[i]) == 0,
			      "%s: record %zu differs", name, i);
}

START_TEST(test_golden_records)
{
	for (size_t f = 0; f < sizeof(simple) / sizeof(simple[0]); f++) {
		struct recs got = { 0 }, want;
		struct tp_riegeli_info info;
		struct tp_error err = { 0 };
		size_t n;
		uint8_t *p = slurp(simple[f], &n);

		expected(simple[f], &want);
		ck_assert(tp_riegeli_sniff(p, n));
		ck_assert_int_eq(read_all(p, n, &got, &info, &err), TP_OK);
		assert_same(&got, &want, simple[f]);
		ck_assert_uint_eq(info.records, want.n);
		ck_assert_uint_eq(info.n_damaged, 0);
		if (!strcmp(simple[f], "many_records.riegeli"))
			ck_assert_uint_gt(info.chunks, 10);
		tp_riegeli_info_release(&info);
		recs_free(&got);
		recs_free(&want);
		free(p);
	}
}
END_TEST

START_TEST(test_transposed_refused)
{
	static const char *const files[] = {
		"transposed_multi_brotli.riegeli", "transposed_nonproto_brotli.riegeli",
		"transposed_nonproto_uncompressed.riegeli",
		"transposed_nonproto_zstd.riegeli", "transposed_proto_brotli.riegeli",
	};

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct recs got = { 0 };
		struct tp_riegeli_info info;
		struct tp_error err = { 0 };
		size_t n;
		uint8_t *p = slurp(files[f], &n);

		ck_assert_int_eq(read_all(p, n, &got, &info, &err), TP_ERR_INPUT);
		ck_assert_str_eq(err.msg, "f.riegeli: transposed Riegeli chunk at byte 64: not supported (captures are written in simple chunks)");
		ck_assert_uint_eq(got.n, 0);
		tp_riegeli_info_release(&info);
		free(p);
	}
}
END_TEST

/* Records of want whose chunk is not in [lost_from, lost_to). */
static void keep_outside(const struct recs *all, uint64_t lost_from,
			 uint64_t lost_to, struct recs *want)
{
	memset(want, 0, sizeof(*want));
	for (size_t i = 0; i < all->n; i++)
		if (all->chunk[i] < lost_from || all->chunk[i] >= lost_to)
			collect(want, (const uint8_t *)all->v[i], all->len[i],
				all->chunk[i], NULL);
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Where reading goes on after a damaged chunk header at begin: the
 * chunk named by the next block header (they are all valid here). */
static uint64_t next_after(const uint8_t *p, size_t n, uint64_t begin)
{
	uint64_t b = (begin / 65536 + 1) * 65536;

	if (b + 24 > n)
		return n;
	return le64(p + b + 8) == 0 ? b : b + le64(p + b + 16);
}

START_TEST(test_damage_at_chunk_boundaries)
{
	for (size_t f = 1; f < sizeof(simple) / sizeof(simple[0]); f++) {
		struct recs all = { 0 };
		struct tp_riegeli_info info;
		struct tp_error err = { 0 };
		size_t n;
		uint8_t *p = slurp(simple[f], &n);
		uint64_t begins[2048];
		size_t nb = 0;

		ck_assert_int_eq(read_all(p, n, &all, &info, &err), TP_OK);
		tp_riegeli_info_release(&info);
		for (size_t i = 0; i < all.n; i++)
			if (!nb || begins[nb - 1] != all.chunk[i])
				begins[nb++] = all.chunk[i];
		for (size_t k = 0; k < nb; k++) {
			uint64_t c = begins[k], hdr = c % 65536 ? c : c + 24;
			uint64_t end = k + 1 < nb ? begins[k + 1] : n;
			static const uint64_t cuts[] = { 0, 1, 39, 40, 41 };

			/* cut short at and just after the boundary */
			for (size_t j = 0; j < 5; j++) {
				struct recs got = { 0 }, want;
				uint64_t at = (j ? hdr : c) + cuts[j];

				if (at >= n)
					continue;
				keep_outside(&all, c, UINT64_MAX, &want);
				ck_assert_int_eq(read_all(p, at, &got, &info, &err), TP_OK);
				assert_same(&got, &want, simple[f]);
				/* cut at a boundary, the file just ends there */
				ck_assert_uint_eq(info.n_damaged, j ? 1 : 0);
				if (j) {
					ck_assert_uint_eq(info.damaged[0].start, c);
					ck_assert_uint_eq(info.damaged[0].end, at);
				}
				tp_riegeli_info_release(&info);
				recs_free(&got);
				recs_free(&want);
			}
			/* a flipped bit in the header: up to the next block's
			 * chunk; in the data: that chunk only */
			for (int j = 0; j < 2; j++) {
				struct recs got = { 0 }, want;
				uint64_t at = hdr + (j ? 40 : 10), to;

				if (at >= end)
					continue;
				to = j ? end : next_after(p, n, c);
				p[at] ^= 0x10;
				keep_outside(&all, c, to, &want);
				ck_assert_int_eq(read_all(p, n, &got, &info, &err), TP_OK);
				p[at] ^= 0x10;
				assert_same(&got, &want, simple[f]);
				ck_assert_uint_eq(info.n_damaged, 1);
				ck_assert_uint_eq(info.damaged[0].start, c);
				ck_assert_str_eq(info.damaged[0].what,
						 j ? "chunk data hash mismatch"
						   : "chunk header hash mismatch");
				tp_riegeli_info_release(&info);
				recs_free(&got);
				recs_free(&want);
			}
		}
		recs_free(&all);
		free(p);
	}
}
END_TEST

START_TEST(test_not_riegeli)
{
	static const uint8_t pb[] = { 0x0a, 0x00 };
	struct recs got = { 0 };
	struct tp_riegeli_info info;
	struct tp_error err = { 0 };

	ck_assert(!tp_riegeli_sniff(pb, sizeof(pb)));
	ck_assert_int_eq(read_all(pb, sizeof(pb), &got, &info, &err), TP_ERR_INPUT);
	ck_assert_str_eq(err.msg, "f.riegeli: not a Riegeli file (no signature)");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("riegeli");
	TCase *tc = tcase_create("reader");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_golden_records);
	tcase_add_test(tc, test_transposed_refused);
	tcase_add_test(tc, test_damage_at_chunk_boundaries);
	tcase_add_test(tc, test_not_riegeli);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
