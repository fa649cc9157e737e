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
#include "riegeli_testutil.h"

#include "tpuprof/decode/capture.h"
#include "tpuprof/decode/riegeli.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/mman.h>

#define CAPTURES "../shared/captures/"
#define GOLDEN CAPTURES "riegeli-golden/"

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

static uint8_t *slurp_in(const char *dir, const char *name, size_t *size)
{
	char path[512];
	FILE *f;
	uint8_t *p;
	long n;

	snprintf(path, sizeof(path), "%s%s", dir, name);
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

static uint8_t *slurp(const char *name, size_t *size)
{
	return slurp_in(GOLDEN, name, size);
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
	NEED_SHARED();
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
	NEED_SHARED();
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
	NEED_SHARED();
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

/* ---- merging: records built here, in a file of one uncompressed
 * simple chunk (no block crossed) ---- */

/* An XEvent with metadata id, offset and one int stat. */
/* An event of 100 ps with one integer stat. */
static struct pb event_pb(int64_t meta, int64_t offset_ps, int64_t stat_meta,
			  int64_t v)
{
	struct pb ev = { 0 };

	pb_int(&ev, 1, meta);
	pb_int(&ev, 2, offset_ps);
	pb_int(&ev, 3, 100);
	pb_stat_int(&ev, stat_meta, 4, v);
	return ev;
}

static void event(struct pb *line, int64_t meta, int64_t offset_ps,
		  int64_t stat_meta, int64_t v)
{
	struct pb ev = event_pb(meta, offset_ps, stat_meta, v);

	pb_msg(line, 4, &ev);
}

/* Chunk 1: line 5 at 1000 ns with events "a" (id 1) at 0 and 500 ps;
 * chunk 2: the same plane with "a" as id 20, "b" new as id 21, stat
 * "flops" as 30 (1 in chunk 1), line 5 from 990 ns with "b" at 0 and
 * "a" at 2000 ps, and a line 6. */
static struct pb merge_record(int which)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, line6 = { 0 };
	bool second = which == 2;

	pb_int(&plane, 1, 3);
	pb_str(&plane, 2, "/device:TPU:0");
	pb_int(&line, 1, 5);
	pb_str(&line, 2, "XLA Ops");
	pb_int(&line, 3, second ? 990 : 1000);
	if (!second) {
		event(&line, 1, 0, 1, 7);
		event(&line, 1, 500, 1, 8);
	} else {
		event(&line, 21, 0, 30, 9);
		event(&line, 20, 2000, 30, 10);
		pb_int(&line6, 1, 6);
		pb_str(&line6, 2, "XLA Modules");
		pb_int(&line6, 3, 995);
		event(&line6, 20, 0, 30, 11);
	}
	pb_msg(&plane, 3, &line);
	if (second)
		pb_msg(&plane, 3, &line6);
	pb_metadata(&plane, 4, second ? 20 : 1, "a");
	if (second)
		pb_metadata(&plane, 4, 21, "b");
	pb_metadata(&plane, 5, second ? 30 : 1, "flops");
	pb_msg(&space, 1, &plane);
	pb_str(&space, 4, "host-a");
	return space;
}

/* How a test merges: the view with short segments copied into it (what
 * records this small get), the view with every segment mapped in place
 * from the spill, only the first mapped (the view's limit reached: the
 * rest copied), every mapping refused (written into the glue instead,
 * as when the map count is used up), or a flat XSpace (riegeli_merged's). */
enum merge_mode { VIEW_COPIED, VIEW_MAPPED, VIEW_ONE_MAPPED, VIEW_REFUSED,
		  FLAT, MERGE_MODES };

static struct tp_xspace merged_space(struct pb *recs, size_t n,
				     struct tp_riegeli_xspace *out,
				     struct tp_arena *a, enum merge_mode mode)
{
	struct pb file = riegeli_of(recs, n);
	struct tp_riegeli_opts o = { .shown = "m.riegeli", .max_chunk = UINT64_MAX,
				     .flat = mode == FLAT };
	struct tp_riegeli_info info;
	struct tp_error err = { 0 };
	struct tp_xspace xs;
	struct tp_decode_opts dopts = { 0 };
	size_t saved = tp_riegeli_map_min_bytes;

	if (mode == VIEW_MAPPED || mode == VIEW_ONE_MAPPED || mode == VIEW_REFUSED)
		tp_riegeli_map_min_bytes = 1;
	if (mode == VIEW_ONE_MAPPED)
		tp_riegeli_max_mapped = 1;
	tp_riegeli_refuse_maps = mode == VIEW_REFUSED;
	ck_assert_int_eq(tp_riegeli_merge(file.data, file.len, &o, out, &info, &err), TP_OK);
	tp_riegeli_map_min_bytes = saved;
	tp_riegeli_max_mapped = 1024;
	tp_riegeli_refuse_maps = false;
	ck_assert_uint_eq(info.records, n);
	ck_assert(out->segment_shifts == (mode != FLAT));
	tp_riegeli_info_release(&info);
	pb_free(&file);
	tp_arena_init(a);
	dopts.segment_shifts = out->segment_shifts;
	dopts.seg_maps = out->seg_maps;
	dopts.n_seg_maps = out->n_seg_maps;
	ck_assert_msg(tp_xspace_decode_ex(&xs, a, out->data, out->size, "merged",
					  &dopts, &err) == TP_OK, "%s", err.msg);
	if (mode != VIEW_COPIED && mode != FLAT) /* page-aligned pieces */
		ck_assert_uint_ge(out->size, 4096);
	return xs;
}

START_TEST(test_merge_rules)
{
	struct pb recs[2] = { merge_record(1), merge_record(2) };
	struct tp_riegeli_xspace out;
	struct tp_arena a;
	struct tp_xspace xs = merged_space(recs, 2, &out, &a, VIEW_COPIED);
	const struct tp_plane *pl;
	struct tp_event_iter it;
	struct tp_event ev;
	/* absolute ps from 990 ns: chunk 1 moved by 10 ns */
	static const int64_t want_off[] = { 10000, 10500, 0, 2000 };
	static const int64_t want_meta[] = { 1, 1, 2, 1 };
	size_t k = 0;

	ck_assert_uint_eq(xs.n_planes, 1);
	ck_assert_uint_eq(xs.n_hostnames, 1);   /* no duplicate */
	pl = &xs.planes[0];
	ck_assert_int_eq(pl->id, 3);
	ck_assert_uint_eq(pl->n_lines, 2);
	ck_assert_int_eq(pl->lines[0].id, 5);
	ck_assert_int_eq(pl->lines[0].timestamp_ns, 990);
	ck_assert_int_eq(pl->lines[1].id, 6);
	ck_assert_uint_eq(pl->n_event_meta, 2);   /* "a" once, "b" new */
	tp_event_iter_init_read(&it, &xs, pl, &pl->lines[0]);
	while (tp_event_iter_next(&it, &ev) > 0) {
		ck_assert_uint_lt(k, 4);
		ck_assert_int_eq(ev.offset_ps, want_off[k]);
		ck_assert_int_eq(ev.metadata_id, want_meta[k]);
		ck_assert(ev.meta != NULL);
		k++;
	}
	ck_assert_uint_eq(k, 4);
	tp_event_iter_init_read(&it, &xs, pl, &pl->lines[1]);
	ck_assert_int_eq(tp_event_iter_next(&it, &ev), 1);
	ck_assert_int_eq(ev.metadata_id, 1);      /* "a", remapped */
	tp_riegeli_xspace_release(&out);
	tp_arena_release(&a);
	pb_free(&recs[0]);
	pb_free(&recs[1]);
}
END_TEST

/* Line 5 in four chunks, each starting at its own time: 1000 ns (ids as
 * merged), 1020 ns (ids renumbered: "a" as 40, "flops" as 41; one event
 * with no offset field), 980 ns (earliest: the merged line's start) and
 * 1030 ns (ids as merged; one event with no offset field). Every event
 * reads at its absolute time: in the view through the segment markers
 * (each chunk's events as it wrote them), in a flat XSpace moved. */
static struct pb shifted_record(int which)
{
	static const int64_t start_ns[] = { 1000, 1020, 980, 1030 };
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, bare = { 0 };
	int64_t a = which == 1 ? 40 : 1, flops = which == 1 ? 41 : 1;

	pb_int(&plane, 1, 3);
	pb_str(&plane, 2, "/device:TPU:0");
	pb_int(&line, 1, 5);
	pb_str(&line, 2, "XLA Ops");
	pb_int(&line, 3, start_ns[which]);
	if (which == 0) {
		event(&line, a, 0, flops, 7);
		event(&line, a, 500, flops, 8);
	} else if (which == 1) {
		event(&line, a, 0, flops, 9);
		pb_int(&bare, 1, a);          /* at the line's start */
		pb_int(&bare, 3, 100);
		pb_stat_int(&bare, flops, 4, 10);
		pb_msg(&line, 4, &bare);
	} else {
		event(&line, a, which == 2 ? 0 : 100, flops, 10 + which);
	}
	if (which == 3) {   /* ids kept, start moved: the copy path */
		pb_int(&bare, 1, a);
		pb_int(&bare, 3, 100);
		pb_stat_int(&bare, flops, 4, 14);
		pb_msg(&line, 4, &bare);
	}
	pb_msg(&plane, 3, &line);
	pb_metadata(&plane, 4, a, "a");
	pb_metadata(&plane, 5, flops, "flops");
	pb_msg(&space, 1, &plane);
	return space;
}

START_TEST(test_merge_time_shifts)
{
	struct pb recs[4] = { shifted_record(0), shifted_record(1),
			      shifted_record(2), shifted_record(3) };
	/* ps from 980 ns, in chunk order */
	static const int64_t want_off[] = { 20000, 20500, 40000, 40000, 0,
					    50100, 50000 };
	static const int64_t want_value[] = { 7, 8, 9, 10, 12, 13, 14 };

	for (int mode = 0; mode < MERGE_MODES; mode++) {
		struct tp_riegeli_xspace out;
		struct tp_arena a;
		struct tp_xspace xs = merged_space(recs, 4, &out, &a, mode);
		const struct tp_plane *pl = &xs.planes[0];
		struct tp_event_iter it;
		struct tp_event ev;
		size_t k = 0;

		ck_assert_uint_eq(pl->n_lines, 1);
		ck_assert_int_eq(pl->lines[0].timestamp_ns, 980);
		ck_assert_uint_eq(pl->n_event_meta, 1);
		/* absolute: the line's 980 ns plus the offset */
		ck_assert_int_eq(pl->lines[0].first_start_ps, 980000);
		ck_assert_int_eq(pl->lines[0].last_end_ps, 980000 + 50200);
		tp_event_iter_init_read(&it, &xs, pl, &pl->lines[0]);
		while (tp_event_iter_next(&it, &ev) > 0) {
			struct tp_stat_iter si;
			struct tp_stat st;

			ck_assert_uint_lt(k, 7);
			ck_assert_int_eq(ev.offset_ps, want_off[k]);
			ck_assert_int_eq(ev.start_ps, 980000 + want_off[k]);
			ck_assert_int_eq(ev.duration_ps, 100);
			ck_assert_int_eq(ev.metadata_id, 1);
			tp_stat_iter_init(&si, &xs, &ev);
			ck_assert_int_eq(tp_stat_iter_next(&si, &st), 1);
			ck_assert_int_eq(st.metadata_id, 1);
			ck_assert_int_eq(st.v.i, want_value[k]);
			k++;
		}
		ck_assert_uint_eq(k, 7);
		tp_riegeli_xspace_release(&out);
		tp_arena_release(&a);
	}
	for (int i = 0; i < 4; i++)
		pb_free(&recs[i]);
}
END_TEST

/* Device time (device_offset_ps, device_duration_ps) is never moved, as
 * XProf's merge moves offset_ps only: line 5 from 1000 ns in chunk 1 and
 * from 1010 ns in chunk 2, one event each at offset 100 ps with device
 * offset 300 ps. Chunk 2's event reads offset 10100 ps, its start (from
 * device time) 300 ps after the merged line's 1000 ns, in every mode;
 * the bulk reader agrees. */
static struct pb device_record(int which)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, ev = { 0 };

	pb_int(&plane, 1, 3);
	pb_str(&plane, 2, "/device:TPU:0");
	pb_int(&line, 1, 5);
	pb_str(&line, 2, "XLA Ops");
	pb_int(&line, 3, which ? 1010 : 1000);
	pb_int(&ev, 1, 1);
	pb_int(&ev, 2, 100);
	pb_int(&ev, 3, 50);
	pb_stat_int(&ev, 2, 3, 300);
	pb_stat_int(&ev, 3, 3, 40);
	pb_msg(&line, 4, &ev);
	pb_msg(&plane, 3, &line);
	pb_metadata(&plane, 4, 1, "fusion");
	pb_metadata(&plane, 5, 2, "device_offset_ps");
	pb_metadata(&plane, 5, 3, "device_duration_ps");
	pb_msg(&space, 1, &plane);
	return space;
}

START_TEST(test_merge_device_time)
{
	struct pb recs[2] = { device_record(0), device_record(1) };
	static const int64_t want_off[] = { 100, 10100 };

	for (int mode = 0; mode < MERGE_MODES; mode++) {
		struct tp_riegeli_xspace out;
		struct tp_arena a;
		struct tp_xspace xs = merged_space(recs, 2, &out, &a, mode);
		const struct tp_plane *pl = &xs.planes[0];
		struct tp_event_iter it;
		struct tp_event ev;
		struct tp_event_batch b;
		size_t k = 0, n = 0;

		tp_event_iter_init_read(&it, &xs, pl, &pl->lines[0]);
		while (tp_event_iter_next(&it, &ev) > 0) {
			ck_assert_uint_lt(k, 2);
			ck_assert_int_eq(ev.offset_ps, want_off[k]);
			ck_assert_int_eq(ev.start_ps, 1000300);
			ck_assert_int_eq(ev.dur_ps, 40);
			k++;
		}
		ck_assert_uint_eq(k, 2);
		tp_event_iter_init_read(&it, &xs, pl, &pl->lines[0]);
		for (;;) {
			size_t got = tp_event_iter_batch(&it, &b);

			for (size_t i = 0; i < got; i++, n++)
				ck_assert_int_eq(b.start_ps[i], 1000300);
			if (!got && tp_event_iter_next(&it, &ev) <= 0)
				break;
			if (!got) {
				ck_assert_int_eq(ev.start_ps, 1000300);
				n++;
			}
		}
		ck_assert_uint_eq(n, 2);
		tp_riegeli_xspace_release(&out);
		tp_arena_release(&a);
	}
	pb_free(&recs[0]);
	pb_free(&recs[1]);
}
END_TEST

/* A renumbering chunk's ids kept in a view: chunk 1 numbers "fusion" 1
 * and its stats 2-5 (device offset and duration, "op" and the name
 * "conv" that op's reference value names) in two events; chunk 2 writes
 * the same line with every id plus 10. In a view chunk 2's events keep
 * their bytes and its marker names an id map (one map); flat they are
 * re-encoded (none). Either way every reader sees the merged ids: event
 * metadata, device time (start 300 ps after the line's 1000 ns), the
 * stat iterator's ids and reference value, the keyed bulk reader's kept
 * reference. */
static struct pb renumbered_record(int which)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, ev = { 0 };
	int64_t d = which ? 10 : 0;

	pb_int(&plane, 1, 3);
	pb_str(&plane, 2, "/device:TPU:0");
	pb_int(&line, 1, 5);
	pb_str(&line, 2, "XLA Ops");
	pb_int(&line, 3, 1000);
	for (int k = 0; k < 2; k++) {
		pb_int(&ev, 1, 1 + d);
		pb_int(&ev, 2, 100 + 100 * k);
		pb_int(&ev, 3, 50);
		pb_stat_int(&ev, 2 + d, 3, 300);
		pb_stat_int(&ev, 3 + d, 3, 40);
		pb_stat_int(&ev, 4 + d, 7, 5 + d);
		pb_msg(&line, 4, &ev);
	}
	pb_msg(&plane, 3, &line);
	pb_metadata(&plane, 4, 1 + d, "fusion");
	pb_metadata(&plane, 5, 2 + d, "device_offset_ps");
	pb_metadata(&plane, 5, 3 + d, "device_duration_ps");
	pb_metadata(&plane, 5, 4 + d, "op");
	pb_metadata(&plane, 5, 5 + d, "conv");
	pb_msg(&space, 1, &plane);
	return space;
}

static void assert_merged_stats(const struct tp_xspace *xs,
				const struct tp_event *ev)
{
	static const int64_t want_id[] = { 2, 3, 4 };
	struct tp_stat_iter si;
	struct tp_stat st;
	size_t k = 0;

	tp_stat_iter_init(&si, xs, ev);
	while (tp_stat_iter_next(&si, &st) > 0) {
		ck_assert_uint_lt(k, 3);
		ck_assert_int_eq(st.metadata_id, want_id[k]);
		if (k++ == 2) {
			ck_assert_int_eq(st.kind, TP_STAT_REF);
			ck_assert_uint_eq(st.v.u, 5);
		}
	}
	ck_assert_uint_eq(k, 3);
}

/* loop: 0 maps within their memory, 1 none allowed (every renumbered
 * event re-encoded in a view too); the third chunk renumbers as the
 * second does, and shares its map */
START_TEST(test_merge_renumbered_kept)
{
	struct pb recs[3] = { renumbered_record(0), renumbered_record(1),
			      renumbered_record(1) };
	struct tp_batch_keys keys = { .keep_on = { true }, .keep = { 4 } };
	size_t saved = tp_riegeli_max_map_bytes;

	if (_i == 1)
		tp_riegeli_max_map_bytes = 0;
	for (int mode = 0; mode < MERGE_MODES; mode++) {
		struct tp_riegeli_xspace out;
		struct tp_arena a;
		struct tp_xspace xs = merged_space(recs, 3, &out, &a, mode);
		const struct tp_plane *pl = &xs.planes[0];
		struct tp_event_iter it;
		struct tp_event ev;
		struct tp_event_batch b;
		size_t k = 0, n = 0, in_batch = 0;

		ck_assert_uint_eq(out.n_seg_maps, mode == FLAT || _i ? 0 : 1);
		ck_assert_uint_eq(pl->n_event_meta, 1);
		ck_assert_uint_eq(pl->n_stat_meta, 4);
		tp_event_iter_init_read(&it, &xs, pl, &pl->lines[0]);
		while (tp_event_iter_next(&it, &ev) > 0) {
			ck_assert_int_eq(ev.metadata_id, 1);
			ck_assert_ptr_eq(ev.meta, &pl->event_meta[0]);
			ck_assert(ev.device_clock);
			ck_assert_int_eq(ev.start_ps, 1000300);
			ck_assert_int_eq(ev.dur_ps, 40);
			assert_merged_stats(&xs, &ev);
			k++;
		}
		ck_assert_uint_eq(k, 6);
		/* a marker ends a batch: the event after it is next()'s, the
		 * second of its chunk the batch's, under the chunk's map */
		tp_event_iter_init_read(&it, &xs, pl, &pl->lines[0]);
		for (;;) {
			size_t got = tp_event_iter_batch_keyed(&it, &keys, &b);

			for (size_t i = 0; i < got; i++, n++, in_batch++) {
				ck_assert_uint_eq(b.meta[i], 0);
				ck_assert_int_eq(b.start_ps[i], 1000300);
				ck_assert_int_eq(b.kind[0][i], TP_STAT_REF);
				ck_assert_uint_eq(b.value[0][i], 5);
			}
			if (!got && tp_event_iter_next(&it, &ev) <= 0)
				break;
			if (!got) {
				ck_assert_int_eq(ev.metadata_id, 1);
				n++;
			}
		}
		ck_assert_uint_eq(n, 6);
		ck_assert_uint_ge(in_batch, 3);
		tp_riegeli_xspace_release(&out);
		tp_arena_release(&a);
	}
	tp_riegeli_max_map_bytes = saved;
	for (int k = 0; k < 3; k++)
		pb_free(&recs[k]);
}
END_TEST

/* ---- in place: an uncompressed chunk's long lines mapped from the
 * input file itself (riegeli_internal.h, rg_segment.in_place) ---- */

#define IP_EVENTS 40000
/* The block headers inside the whole pages of the three lines of
 * test_merge_in_place's file (plain, plain, big): 10 (file bytes 154 to
 * 702230), 11 (702295 to 1420907) and 13 */
#define IP_GAPS 34

/* How record k's line is written: plain; with one event of 140,000
 * bytes in the middle, which two block headers or three cut; with its
 * duration field between two halves of the events (two runs); with the
 * first event's tag written long (0xa2 0x00, still field 4: the rest
 * are one run of 0x22). Plain and big lines are read in place; the
 * others are spilled. */
enum ip_shape { IP_PLAIN, IP_BIG, IP_TWO_RUNS, IP_LONG_TAG, IP_NUMBER_2045,
		IP_CUT_EVENT };

/* Record k: line 5 from 1000 + 10k ns with IP_EVENTS events (metadata
 * 1, offset 10 i ps, stat value 1000000 k + i), some 15 bytes each, so
 * the line crosses several blocks, written as shape says. */
static struct pb in_place_record(int k, enum ip_shape shape)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 };

	pb_int(&plane, 1, 3);
	pb_str(&plane, 2, "/device:TPU:0");
	pb_int(&line, 1, 5);
	pb_str(&line, 2, "XLA Ops");
	pb_int(&line, 3, 1000 + 10 * k);
	for (int i = 0; i < IP_EVENTS; i++) {
		if (shape == IP_BIG && i == IP_EVENTS / 2) {
			struct pb ev = event_pb(1, 10 * i, 1, 1000000 * k + i);
			char *pad = tp_xcalloc(140000, 1);

			pb_lenfield(&ev, 15, pad, 140000);  /* unknown: skipped */
			pb_msg(&line, 4, &ev);
			free(pad);
			continue;
		}
		if (shape == IP_TWO_RUNS && i == IP_EVENTS / 2)
			pb_int(&line, 9, 1);
		if (shape == IP_LONG_TAG && i == 0) {
			struct pb ev = event_pb(1, 10 * i, 1, 1000000 * k + i);

			pb_bytes(&line, "\xa2\x00", 2);
			pb_varint(&line, ev.len);
			pb_bytes(&line, ev.data, ev.len);
			pb_free(&ev);
			continue;
		}
		event(&line, 1, 10 * i, 1, 1000000 * k + i);
	}
	if (shape == IP_NUMBER_2045)   /* the compactor's placeholder's */
		pb_int(&line, 2045, 0);
	if (shape == IP_CUT_EVENT)     /* 127 bytes said, 3 there */
		pb_bytes(&line, "\x22\x7f\x08\x01\x10", 5);
	pb_msg(&plane, 3, &line);
	pb_metadata(&plane, 4, 1, "a");
	pb_metadata(&plane, 5, 1, "flops");
	pb_msg(&space, 1, &plane);
	return space;
}

/* Reads line 5 through: every event where and what it should be (the
 * records' line starts 10 ns apart, from 1000 ns). */
static void assert_in_place_events(const struct tp_xspace *xs, int records)
{
	const struct tp_plane *pl = &xs->planes[0];
	struct tp_event_iter it;
	struct tp_event ev;
	size_t k = 0;

	ck_assert_uint_eq(pl->n_lines, 1);
	ck_assert_int_eq(pl->lines[0].timestamp_ns, 1000);
	tp_event_iter_init_read(&it, xs, pl, &pl->lines[0]);
	while (tp_event_iter_next(&it, &ev) > 0) {
		int r = (int)(k / IP_EVENTS), i = (int)(k % IP_EVENTS);
		struct tp_stat_iter si;
		struct tp_stat st;

		ck_assert_int_lt(r, records);
		ck_assert_int_eq(ev.offset_ps, 10000 * r + 10 * i);
		tp_stat_iter_init(&si, xs, &ev);
		ck_assert_int_eq(tp_stat_iter_next(&si, &st), 1);
		ck_assert_int_eq(st.v.i, 1000000 * r + i);
		k++;
	}
	ck_assert_uint_eq(k, (size_t)records * IP_EVENTS);
}

/* A Riegeli file of the tests' written out and mapped whole, as
 * tpuprof maps an input file (tp_riegeli_opts.in_place). */
struct mapped_file {
	char *path;
	int fd;
	uint8_t *map;
	size_t len;
};

static struct mapped_file map_riegeli(const struct pb *file)
{
	struct mapped_file f = { .len = file->len };

	f.path = write_temp(".xplane.riegeli", file->data, file->len);
	f.fd = open(f.path, O_RDONLY);
	ck_assert_int_ge(f.fd, 0);
	f.map = mmap(NULL, f.len, PROT_READ, MAP_PRIVATE, f.fd, 0);
	ck_assert_ptr_ne(f.map, MAP_FAILED);
	return f;
}

static void unmap_riegeli(struct mapped_file *f)
{
	munmap(f->map, f->len);
	close(f->fd);
	unlink(f->path);
	free(f->path);
}

/* How the in-place segments come out: mapped from the input, block
 * headers and all (a gap for each header inside a whole page of a line
 * read in place); every mapping refused (written into the glue as the
 * mapping would show them, the same gaps); past the view's mapping
 * limit (copied without their headers: no gaps). */
static const struct in_place_case {
	const char *what;
	bool refuse;
	size_t max_mapped;
	size_t gaps;
} in_place_cases[] = {
	{ "mapped", false, 1024, IP_GAPS },
	{ "refused", true, 1024, IP_GAPS },
	{ "copied", false, 0, 0 },
};

/* Records 0 to 2, written as shapes says, as one blocked Riegeli file
 * mapped as tpuprof maps its input. */
static struct mapped_file map_in_place_records(const enum ip_shape shapes[3])
{
	struct pb recs[3], file;
	struct mapped_file mf;

	for (int i = 0; i < 3; i++)
		recs[i] = in_place_record(i, shapes[i]);
	file = riegeli_blocked_of(recs, 3);
	ck_assert_uint_gt(file.len, 5 * 65536);
	mf = map_riegeli(&file);
	pb_free(&file);
	for (int i = 0; i < 3; i++)
		pb_free(&recs[i]);
	return mf;
}

/* The three records merged in place from mf, read as tpuprof reads
 * them: the gaps handed to the decoder, the pages behind each read
 * dropped. */
static struct tp_riegeli_xspace merge_mapped(const struct mapped_file *mf,
					     uint64_t records)
{
	struct tp_riegeli_opts o = { .shown = "p.riegeli",
				     .max_chunk = UINT64_MAX,
				     .drop_pages = true,
				     .in_place = true, .fd = mf->fd };
	struct tp_riegeli_xspace out;
	struct tp_riegeli_info info;
	struct tp_error err = { 0 };

	ck_assert_int_eq(tp_riegeli_merge(mf->map, mf->len, &o, &out, &info,
					  &err), TP_OK);
	ck_assert_uint_eq(info.records, records);
	tp_riegeli_info_release(&info);
	return out;
}

static struct tp_riegeli_xspace merge_in_place_file(const struct mapped_file *mf)
{
	return merge_mapped(mf, 3);
}

/* out decoded as tpuprof decodes a view: its gaps and id maps, the
 * pages behind each read dropped. */
static void decode_view(const struct tp_riegeli_xspace *out,
			struct tp_xspace *xs, struct tp_arena *a)
{
	struct tp_decode_opts dopts = { .segment_shifts = true,
					.drop_pages = true,
					.gaps = out->gaps,
					.n_gaps = out->n_gaps,
					.seg_maps = out->seg_maps,
					.n_seg_maps = out->n_seg_maps };
	struct tp_error err = { 0 };

	tp_arena_init(a);
	ck_assert_msg(tp_xspace_decode_ex(xs, a, out->data, out->size,
					  "merged", &dopts, &err) == TP_OK,
		      "%s", err.msg);
}

/* out's events read twice: the first read drops the pages behind it,
 * which the second reads back from the file. The gaps ascend, each goes
 * on past where it stops (by its header at least), and a gap that cuts
 * an event holds it whole: a field of its length. out released. */
static void assert_in_place_read_twice(struct tp_riegeli_xspace *out)
{
	struct tp_arena a;
	struct tp_xspace xs;

	for (size_t i = 0; i < out->n_gaps; i++) {
		const struct tp_gap *g = &out->gaps[i];

		ck_assert_uint_ge(g->resume, g->from + (g->field ? g->len : 0) + 24);
		ck_assert_uint_lt(g->resume, out->size);
		if (i)
			ck_assert_uint_ge(g->from, out->gaps[i - 1].from);
		if (g->field) {
			struct tp_wire w;
			struct tp_field f;

			tp_wire_init(&w, g->field, g->field, g->len);
			ck_assert_int_eq(tp_wire_next(&w, &f), 1);
			ck_assert_uint_eq(f.number, 4);
			ck_assert_ptr_eq(w.p, g->field + g->len);
		}
	}
	decode_view(out, &xs, &a);
	assert_in_place_events(&xs, 3);
	assert_in_place_events(&xs, 3);
	tp_arena_release(&a);
	tp_riegeli_xspace_release(out);
}

START_TEST(test_merge_in_place)
{
	/* all three in place, record 2's event of 140,000 bytes cut by two
	 * headers or more: one gap each, all stopping where it starts */
	static const enum ip_shape shapes[3] = { IP_PLAIN, IP_PLAIN, IP_BIG };
	struct mapped_file mf = map_in_place_records(shapes);

	for (size_t k = 0; k < sizeof(in_place_cases) / sizeof(in_place_cases[0]); k++) {
		const struct in_place_case *c = &in_place_cases[k];
		struct tp_riegeli_xspace out;
		size_t two_headers = 0;

		tp_riegeli_refuse_maps = c->refuse;
		tp_riegeli_max_mapped = c->max_mapped;
		out = merge_in_place_file(&mf);
		tp_riegeli_refuse_maps = false;
		tp_riegeli_max_mapped = 1024;
		ck_assert_msg(out.n_gaps == c->gaps, "%s: %zu gaps", c->what,
			      out.n_gaps);
		/* the big event's gaps share one copy of it */
		for (size_t i = 1; i < out.n_gaps; i++)
			two_headers += out.gaps[i].from == out.gaps[i - 1].from &&
				       out.gaps[i].len > 140000 &&
				       out.gaps[i].field == out.gaps[i - 1].field;
		ck_assert_uint_ge(two_headers, c->gaps ? 1 : 0);
		ck_assert_uint_le(two_headers, c->gaps ? 2 : 0);
		assert_in_place_read_twice(&out);
	}
	unmap_riegeli(&mf);
}
END_TEST

/* A line is read in place only when its events are one run of fields
 * tagged 0x22: record 0's is (10 block headers, 10 gaps); record
 * 1's events are two runs (its duration between them) and record 2's
 * first event is under a long tag, so both are spilled, and every event
 * still reads where it should. */
START_TEST(test_in_place_one_run_only)
{
	static const enum ip_shape shapes[3] = { IP_PLAIN, IP_TWO_RUNS,
						 IP_LONG_TAG };
	struct mapped_file mf = map_in_place_records(shapes);
	struct tp_riegeli_xspace out = merge_in_place_file(&mf);

	ck_assert_uint_eq(out.n_gaps, 10);
	assert_in_place_read_twice(&out);
	unmap_riegeli(&mf);
}
END_TEST

/* A line whose last event, of 140,000 bytes, two block headers or
 * three cut, shifted 2 KiB at a time through a block by a field before
 * its plane: read in place (before the tenth session a header crossed
 * by a run's last event sent the line to the spill), and whatever page
 * the line's whole pages end on (a block's first page too, its header
 * then left out of the bytes copied after the view's hole), every event
 * reads where it should and the line's duration, after its events, is
 * read: a reader going on after the cut event 24 bytes too far lost
 * it. */
#define TAIL_EVENTS 20000

static struct pb tail_record(size_t shift)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, ev;
	char *pad = tp_xcalloc(140000 + shift + 1, 1);

	pb_lenfield(&space, 99, pad, shift);   /* unknown: skipped */
	pb_int(&plane, 1, 3);
	pb_str(&plane, 2, "/device:TPU:0");
	pb_int(&line, 1, 5);
	pb_str(&line, 2, "XLA Ops");
	pb_int(&line, 3, 1000);
	for (int i = 0; i < TAIL_EVENTS; i++)
		event(&line, 1, 10 * i, 1, i);
	ev = event_pb(1, 10 * TAIL_EVENTS, 1, TAIL_EVENTS);
	pb_lenfield(&ev, 15, pad, 140000);
	pb_msg(&line, 4, &ev);
	pb_int(&line, 9, 123456);
	pb_msg(&plane, 3, &line);
	pb_metadata(&plane, 4, 1, "a");
	pb_metadata(&plane, 5, 1, "flops");
	pb_msg(&space, 1, &plane);
	free(pad);
	return space;
}

START_TEST(test_in_place_last_event_cut)
{
	for (size_t shift = 0; shift < 65536; shift += 2048) {
		struct pb rec = tail_record(shift), file = riegeli_blocked_of(&rec, 1);
		struct mapped_file mf = map_riegeli(&file);
		struct tp_riegeli_xspace out;
		struct tp_event_iter it;
		struct tp_event ev;
		struct tp_arena a;
		struct tp_xspace xs;
		int64_t k = 0;

		tp_riegeli_map_min_bytes = 1;
		out = merge_mapped(&mf, 1);
		tp_riegeli_map_min_bytes = (size_t)512 << 10;
		/* in place: the 480 KB line's 7 or 8 headers */
		ck_assert_uint_ge(out.n_gaps, 7);
		ck_assert_uint_le(out.n_gaps, 8);
		decode_view(&out, &xs, &a);
		tp_event_iter_init_read(&it, &xs, &xs.planes[0], &xs.planes[0].lines[0]);
		while (tp_event_iter_next(&it, &ev) > 0) {
			struct tp_stat_iter si;
			struct tp_stat st;

			ck_assert_int_eq(ev.offset_ps, 10 * k);
			tp_stat_iter_init(&si, &xs, &ev);
			ck_assert_int_eq(tp_stat_iter_next(&si, &st), 1);
			ck_assert_int_eq(st.v.i, k);
			k++;
		}
		ck_assert_msg(k == TAIL_EVENTS + 1, "shift %zu: %lld events", shift,
			      (long long)k);
		ck_assert_int_eq(xs.planes[0].lines[0].duration_ps, 123456);
		tp_arena_release(&a);
		tp_riegeli_xspace_release(&out);
		unmap_riegeli(&mf);
		pb_free(&file);
		pb_free(&rec);
	}
}
END_TEST

/* Read in place, an uncompressed chunk is walked where it lies and
 * merged compacted (riegeli_compact.c); one it cannot compact is
 * gathered and merged whole, its lines spilled: a line that uses the
 * placeholder's field number (record 1 of the chunk's three) merges
 * the same, every event where it should be, none left in place; a
 * record whose last event runs past its line fails as it always did;
 * a chunk whose bytes no longer match its hash is skipped as damage. */
START_TEST(test_compaction_falls_back)
{
	static const enum ip_shape fine[3] = { IP_PLAIN, IP_NUMBER_2045,
					       IP_PLAIN };
	static const enum ip_shape cut[3] = { IP_PLAIN, IP_CUT_EVENT, IP_PLAIN };
	struct tp_riegeli_opts o = { .shown = "p.riegeli",
				     .max_chunk = UINT64_MAX,
				     .drop_pages = true, .in_place = true };
	struct tp_riegeli_info info;
	struct tp_error err = { 0 };
	struct mapped_file mf = map_in_place_records(fine);
	struct tp_riegeli_xspace out = merge_in_place_file(&mf);
	struct pb recs[3], file;

	ck_assert_uint_eq(out.n_gaps, 0);
	assert_in_place_read_twice(&out);
	unmap_riegeli(&mf);

	mf = map_in_place_records(cut);
	o.fd = mf.fd;
	ck_assert_int_eq(tp_riegeli_merge(mf.map, mf.len, &o, &out, &info, &err),
			 TP_ERR_INPUT);
	ck_assert_msg(strstr(err.msg, "holds a record that is not an XSpace"),
		      "%s", err.msg);
	unmap_riegeli(&mf);

	for (int i = 0; i < 3; i++)
		recs[i] = in_place_record(i, IP_PLAIN);
	file = riegeli_blocked_of(recs, 3);
	file.data[file.len / 2] ^= 0x40;   /* inside the records' chunk */
	mf = map_riegeli(&file);
	o.fd = mf.fd;
	ck_assert_int_eq(tp_riegeli_merge(mf.map, mf.len, &o, &out, &info, &err),
			 TP_OK);
	ck_assert_uint_eq(info.n_damaged, 1);
	ck_assert_str_eq(info.damaged[0].what, "chunk data hash mismatch");
	ck_assert_uint_eq(info.chunks, 0);
	ck_assert_uint_eq(info.records, 0);
	tp_riegeli_info_release(&info);
	tp_riegeli_xspace_release(&out);
	unmap_riegeli(&mf);
	pb_free(&file);
	for (int i = 0; i < 3; i++)
		pb_free(&recs[i]);
}
END_TEST

/* A chunk whose records are all empty, read in place: each handed on
 * (empty, nothing compacted), an XSpace of nothing. (`make fuzz` found
 * the empty records handed on as a NULL pointer plus zero, which
 * clang's sanitizer reports and GCC's does not.) */
START_TEST(test_compaction_empty_records)
{
	struct pb recs[3] = { { 0 }, { 0 }, { 0 } };
	struct pb file = riegeli_of(recs, 3);
	struct mapped_file mf = map_riegeli(&file);
	struct tp_riegeli_opts o = { .shown = "e.riegeli",
				     .max_chunk = UINT64_MAX,
				     .drop_pages = true, .in_place = true,
				     .fd = mf.fd };
	struct tp_riegeli_xspace out;
	struct tp_riegeli_info info;
	struct tp_error err = { 0 };

	ck_assert_int_eq(tp_riegeli_merge(mf.map, mf.len, &o, &out, &info, &err),
			 TP_OK);
	ck_assert_uint_eq(info.chunks, 1);
	ck_assert_uint_eq(info.records, 3);
	ck_assert_uint_eq(info.n_damaged, 0);
	ck_assert_uint_eq(out.size, 0);
	tp_riegeli_info_release(&info);
	tp_riegeli_xspace_release(&out);
	unmap_riegeli(&mf);
	pb_free(&file);
}
END_TEST

/* A blocked Riegeli file of one record: an XSpace of plane 3
 * ("/device:TPU:0") with the lines of `lines` (their fields, taken),
 * event "a" (1), stat "flops" (1), and where skipped is not 0, first an
 * XSpace field of that many bytes that the merge does not keep, and
 * events "e2" on of skipped / 100 entries, about that many bytes. */
static struct pb one_plane_file(struct pb *lines, size_t skipped)
{
	struct pb space = { 0 }, plane = { 0 }, file;

	pb_int(&plane, 1, 3);
	pb_str(&plane, 2, "/device:TPU:0");
	pb_bytes(&plane, lines->data, lines->len);
	pb_free(lines);
	pb_metadata(&plane, 4, 1, "a");
	for (size_t i = 2; i < skipped / 100; i++) {
		char name[96];

		snprintf(name, sizeof(name), "e%zu-%080d", i, 0);
		pb_metadata(&plane, 4, (int64_t)i, name);
	}
	pb_metadata(&plane, 5, 1, "flops");
	if (skipped) {
		char *zeros = tp_xcalloc(skipped, 1);

		pb_lenfield(&space, 15, zeros, skipped);
		free(zeros);
	}
	pb_msg(&space, 1, &plane);
	file = riegeli_blocked_of(&space, 1);
	pb_free(&space);
	return file;
}

/* The merge reads an uncompressed chunk it walks with pread (its
 * window, riegeli_window.c), never through the input's mapping: with
 * every page of the chunk's data past the first unreadable (PROT_NONE),
 * the merge still reads all 4 lines of 6,000 events (100 KiB each),
 * copied into the merge (_i 0) or left in place (_i 1: the view maps
 * their whole pages from the file and reads the bytes around them with
 * pread). The walk through the mapping faulted every page of the file
 * in once for itself and once more for the view (docs/performance.md,
 * seventeenth session), and the view's reads a large folio each; here
 * each was a segmentation fault. */
START_TEST(test_merge_reads_no_input_page)
{
	size_t saved = tp_riegeli_map_min_bytes;
	struct pb lines = { 0 }, file;
	struct mapped_file mf;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct tp_riegeli_xspace out;
	struct tp_xspace xs;
	struct tp_arena a;
	size_t n = 0;

	for (int l = 0; l < 4; l++) {
		struct pb line = { 0 };

		pb_int(&line, 1, l);
		pb_int(&line, 3, 1000);
		for (int i = 0; i < 6000; i++)
			event(&line, 1, 10 * i, 1, i);
		ck_assert_uint_lt(line.len, tp_riegeli_map_min_bytes);
		pb_msg(&lines, 3, &line);
	}
	file = one_plane_file(&lines, 0);
	ck_assert_uint_gt(file.len, 6 * 65536);
	mf = map_riegeli(&file);
	/* the signature, the chunk's header and its first data byte */
	ck_assert_int_eq(mprotect(mf.map + page, (mf.len - page) / page * page,
				  PROT_NONE), 0);
	if (_i)
		tp_riegeli_map_min_bytes = 64 << 10;
	out = merge_mapped(&mf, 1);
	tp_riegeli_map_min_bytes = saved;
	ck_assert_uint_eq(out.n_gaps, _i ? 5 : 0);   /* headers in place */
	decode_view(&out, &xs, &a);
	ck_assert_uint_eq(xs.planes[0].n_lines, 4);
	for (size_t l = 0; l < 4; l++)
		n += xs.planes[0].lines[l].n_events;
	ck_assert_uint_eq(n, 24000);
	tp_arena_release(&a);
	tp_riegeli_xspace_release(&out);
	unmap_riegeli(&mf);
	pb_free(&file);
}
END_TEST

/* The view copies into its glue the bytes of each in-place segment
 * before its first whole page and after its last, read from the
 * input's mapping; where the page cache holds large folios (Linux 6.11
 * and later), each such read mapped the megabytes of its folio, and
 * they stayed to the end of the run: 36 MB of the bench's cut layout's
 * 50 MB peak (docs/performance.md, seventeenth session). The merge
 * with pages dropped leaves none of the input mapped. Where a read
 * maps no more than a fault-around, nothing to see: it passes. */
START_TEST(test_merge_leaves_no_input_page)
{
	static const enum ip_shape shapes[3] = { IP_PLAIN, IP_PLAIN, IP_BIG };
	struct pb recs[3], file;
	struct mapped_file mf = { 0 };
	struct tp_riegeli_opts o = { .shown = "p.riegeli",
				     .max_chunk = UINT64_MAX,
				     .drop_pages = true, .in_place = true };
	struct tp_riegeli_xspace out;
	struct tp_riegeli_info info;
	struct tp_error err = { 0 };
	long before, grew;

	for (int i = 0; i < 3; i++)
		recs[i] = in_place_record(i, shapes[i]);
	file = riegeli_blocked_of(recs, 3);
	mf.len = file.len;
	mf.path = write_temp_once(".xplane.riegeli", file.data, file.len);
	mf.fd = open(mf.path, O_RDONLY);
	ck_assert_int_ge(mf.fd, 0);
	mf.map = mmap(NULL, mf.len, PROT_READ, MAP_PRIVATE, mf.fd, 0);
	ck_assert_ptr_ne(mf.map, MAP_FAILED);
	o.fd = mf.fd;
	/* once first, for the code's own pages, then none of the input's */
	ck_assert_int_eq(tp_riegeli_merge(mf.map, mf.len, &o, &out, &info, &err),
			 TP_OK);
	tp_riegeli_info_release(&info);
	tp_riegeli_xspace_release(&out);
	ck_assert_int_eq(madvise(mf.map, mf.len, MADV_DONTNEED), 0);
	before = rss_file_kb();
	ck_assert_int_eq(tp_riegeli_merge(mf.map, mf.len, &o, &out, &info, &err),
			 TP_OK);
	grew = rss_file_kb() - before;
	ck_assert_msg(grew <= 256, "the merge left %ld KiB of a %zu KiB input mapped",
		      grew, mf.len >> 10);
	tp_riegeli_info_release(&info);
	assert_in_place_read_twice(&out);
	unmap_riegeli(&mf);
	pb_free(&file);
	for (int i = 0; i < 3; i++)
		pb_free(&recs[i]);
}
END_TEST

/* How many mappings in the process of 2 MiB or more are of path
 * (other than the one at skip), or with path NULL, of the merge's own
 * unlinked temporary files (the spill, the glue); *aligned of them map
 * their file offset at an address that agrees with it within a huge
 * page (2 MiB). */
static int long_maps_of(const char *path, const uint8_t *skip, int *aligned)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int n = 0;

	*aligned = 0;
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, off;
		char name[4096] = "";
		const char *base;
		bool ours;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &a, &b,
			   &off, name) < 3 || b - a < ((size_t)2 << 20))
			continue;
		base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
		ours = path ? strcmp(name, path) == 0 &&
			      (uintptr_t)a != (uintptr_t)skip
			    : strncmp(base, "tpuprof-", 8) == 0 &&
			      strstr(line, "(deleted)") != NULL;
		if (!ours)
			continue;
		n++;
		*aligned += (a - off) % ((size_t)2 << 20) == 0;
	}
	fclose(f);
	return n;
}

/* A line of 5 MiB is mapped into the view at an address that agrees
 * with its file offset within a huge page, read in place from the input
 * (_i 0) or spilled (_i 1, the merge not told of the file): the kernel
 * maps a 2 MiB folio of the page cache with one entry only there, and a
 * view that agreed within a page only read the bench's 200 MB cut
 * layout at 1.40x the .pb's CPU, 1.14x now (docs/performance.md,
 * seventeenth session). The view's markers pad up to 2 MiB for it,
 * which its size (sources[].bytes) shows. */
START_TEST(test_view_maps_huge_pages_aligned)
{
	struct pb lines = { 0 }, line = { 0 }, file;
	struct mapped_file mf;
	struct tp_riegeli_xspace out;
	struct tp_xspace xs;
	struct tp_arena a;
	int n, aligned;

	pb_int(&line, 1, 5);
	pb_int(&line, 3, 1000);
	for (int i = 0; i < 27000; i++) {   /* 200 bytes each */
		struct pb ev = event_pb(1, 10 * i, 1, i);
		static const char pad[180];

		pb_lenfield(&ev, 15, pad, sizeof(pad));  /* unknown: skipped */
		pb_msg(&line, 4, &ev);
	}
	ck_assert_uint_gt(line.len, (size_t)5 << 20);
	pb_msg(&lines, 3, &line);
	/* 700,000 bytes the merge does not keep: the line lies that much
	 * further into the file than into the view; and 700 KB of metadata,
	 * which the spill holds before it and the view after */
	file = one_plane_file(&lines, 700000);
	mf = map_riegeli(&file);
	if (_i) {
		struct tp_riegeli_opts o = { .shown = "h.riegeli",
					     .max_chunk = UINT64_MAX };
		struct tp_riegeli_info info;
		struct tp_error err = { 0 };

		ck_assert_int_eq(tp_riegeli_merge(mf.map, mf.len, &o, &out,
						  &info, &err), TP_OK);
		tp_riegeli_info_release(&info);
	} else {
		out = merge_mapped(&mf, 1);
	}
	n = long_maps_of(_i ? NULL : mf.path, mf.map, &aligned);
	ck_assert_int_ge(n, 1);
	ck_assert_int_eq(aligned, n);
	decode_view(&out, &xs, &a);
	ck_assert_uint_eq(xs.planes[0].lines[0].n_events, 27000);
	tp_arena_release(&a);
	tp_riegeli_xspace_release(&out);
	unmap_riegeli(&mf);
	pb_free(&file);
}
END_TEST

/* Every event of every line of want and got, in order, the same. */
static size_t assert_same_events(const struct tp_xspace *want,
				 const struct tp_xspace *got)
{
	size_t events = 0;

	ck_assert_uint_eq(got->n_planes, want->n_planes);
	for (size_t p = 0; p < want->n_planes; p++) {
		const struct tp_plane *wp = &want->planes[p], *gp = &got->planes[p];

		ck_assert_uint_eq(gp->n_lines, wp->n_lines);
		for (size_t l = 0; l < wp->n_lines; l++) {
			struct tp_event_iter wi, gi;
			struct tp_event we, ge;
			int wr, gr;

			tp_event_iter_init_read(&wi, want, wp, &wp->lines[l]);
			tp_event_iter_init_read(&gi, got, gp, &gp->lines[l]);
			while ((wr = tp_event_iter_next(&wi, &we)) > 0) {
				ck_assert_int_eq(tp_event_iter_next(&gi, &ge), 1);
				ck_assert_int_eq(ge.metadata_id, we.metadata_id);
				ck_assert_int_eq(ge.offset_ps, we.offset_ps);
				ck_assert_int_eq(ge.start_ps, we.start_ps);
				ck_assert_int_eq(ge.duration_ps, we.duration_ps);
				events++;
			}
			gr = tp_event_iter_next(&gi, &ge);
			ck_assert_int_eq(wr, 0);
			ck_assert_int_eq(gr, 0);
		}
	}
	return events;
}

/* Shared captures as one-record `.riegeli` files with their block
 * headers, every line read in place (the threshold at one byte): every
 * event reads as in the `.pb`, twice, the pages behind the first read
 * dropped; the gaps are exactly the block headers inside the lines'
 * whole pages (as many as the pages the views patched before: 8 and
 * 27). The events are EXPECTED.md's: TPU 2317 + 3 x 1712
 * + 19270, GPU 15354 + 19 + 3875 + 3880. */
START_TEST(test_in_place_shared_captures)
{
	NEED_SHARED();
	static const struct {
		const char *name;
		size_t gaps, events;
	} cases[] = {
		{ "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb", 8, 26723 },
		{ "gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb", 27, 23128 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct pb rec = { 0 }, file;
		struct mapped_file mf;
		struct tp_riegeli_xspace out;
		struct tp_error err = { 0 };
		struct tp_arena a, b;
		struct tp_xspace want, got;

		rec.data = slurp_in(CAPTURES, cases[c].name, &rec.len);
		file = riegeli_blocked_of(&rec, 1);
		mf = map_riegeli(&file);
		tp_riegeli_map_min_bytes = 1;
		out = merge_mapped(&mf, 1);
		tp_riegeli_map_min_bytes = (size_t)512 << 10;
		ck_assert_msg(out.n_gaps == cases[c].gaps, "%s: %zu gaps",
			      cases[c].name, out.n_gaps);
		tp_arena_init(&a);
		ck_assert_int_eq(tp_xspace_decode_ex(&want, &a, rec.data, rec.len,
						     "pb", NULL, &err), TP_OK);
		decode_view(&out, &got, &b);
		ck_assert_uint_eq(assert_same_events(&want, &got), cases[c].events);
		ck_assert_uint_eq(assert_same_events(&want, &got), cases[c].events);
		tp_arena_release(&a);
		tp_arena_release(&b);
		tp_riegeli_xspace_release(&out);
		unmap_riegeli(&mf);
		pb_free(&file);
		free(rec.data);
	}
}
END_TEST

/* libtpu 0.0.37 (riegeli-facts.md): "HLO Proto" names the modules' stat
 * and the metadata id is not the program id: the id comes from the
 * "(digits)" of the name, in a .pb and in a .riegeli whose second chunk
 * repeats the metadata under other ids. */
static struct pb libtpu_record(int64_t em_id, int64_t stat_id, const char *name)
{
	struct pb space = { 0 }, plane = { 0 }, entry = { 0 }, em = { 0 }, st = { 0 };
	static const uint8_t hlo[] = { 0x0a, 0x02, 0x0a, 0x00 };

	pb_str(&plane, 2, "/host:metadata");
	pb_int(&em, 1, em_id);
	pb_str(&em, 2, name);
	pb_int(&st, 1, stat_id);
	pb_lenfield(&st, 6, hlo, sizeof(hlo));
	pb_msg(&em, 5, &st);
	pb_int(&entry, 1, em_id);
	pb_msg(&entry, 2, &em);
	pb_msg(&plane, 4, &entry);
	pb_metadata(&plane, 5, stat_id, "HLO Proto");
	pb_msg(&space, 1, &plane);
	return space;
}

/* The merge's temporary files, when they cannot be made or written: the
 * capture named, the directory, the system's reason, TP_ERR_OUTPUT (exit
 * 5: a full $TMPDIR is no fault of the capture). Before, exit 3 and
 * "cannot write the merged capture to a temporary file (TMPDIR)", with
 * neither the directory nor the reason. */
START_TEST(test_tmp_errors)
{
	struct pb line = { 0 }, plane = { 0 }, space = { 0 }, file;
	struct tp_riegeli_opts o = { .shown = "t.riegeli", .max_chunk = UINT64_MAX };
	struct tp_riegeli_xspace out;
	struct tp_riegeli_info info;
	struct tp_error err = { 0 };
	const char *old = getenv("TMPDIR");
	char *keep = old ? strdup(old) : NULL;
	struct rlimit lim, was;

	pb_int(&line, 1, 1);
	pb_str(&line, 2, "XLA Ops");
	pb_str(&plane, 2, "/device:TPU:0");
	pb_msg(&plane, 3, &line);
	pb_msg(&space, 1, &plane);
	file = riegeli_of(&space, 1);
	pb_free(&space);

	setenv("TMPDIR", "/nonexistent/tpuprof-check", 1);
	ck_assert_int_eq(tp_riegeli_merge(file.data, file.len, &o, &out, &info, &err),
			 TP_ERR_OUTPUT);
	ck_assert_str_eq(err.msg, "t.riegeli: cannot create a temporary file in "
			 "/nonexistent/tpuprof-check to merge its chunks: No such "
			 "file or directory (TMPDIR names another directory)");
	if (keep)
		setenv("TMPDIR", keep, 1);
	else
		unsetenv("TMPDIR");
	free(keep);

	/* nothing may be written: the spill's flush or the glue's write fails */
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &was), 0);
	lim = was;
	lim.rlim_cur = 0;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(tp_riegeli_merge(file.data, file.len, &o, &out, &info, &err),
			 TP_ERR_OUTPUT);
	setrlimit(RLIMIT_FSIZE, &was);
	signal(SIGXFSZ, SIG_DFL);
	ck_assert_msg(strncmp(err.msg, "t.riegeli: cannot write the temporary file in ", 46) == 0 &&
		      strstr(err.msg, " its chunks are merged into: File too large "
			     "(a compressed capture needs about its uncompressed size there; "
			     "TMPDIR names another directory)"), "%s", err.msg);
	pb_free(&file);
}
END_TEST

START_TEST(test_libtpu_0_0_37)
{
	struct pb recs[2] = { libtpu_record(7, 1, "jit_f(1234)"),
			      libtpu_record(9, 4, "jit_g(5678)") };
	struct pb file = riegeli_of(recs, 2);
	static const struct tp_open_opts opts = { .max_input = TP_DEFAULT_MAX_INPUT };

	for (int i = 0; i < 2; i++) {
		char *path = i ? write_temp(".xplane.riegeli", file.data, file.len)
			       : write_temp(".xplane.pb", recs[0].data, recs[0].len);
		const char *paths[] = { path };
		struct tp_capture cap;
		struct tp_error err = { 0 };

		ck_assert_msg(tp_capture_open(&cap, paths, 1, &opts, &err) == TP_OK, "%s", err.msg);
		ck_assert_uint_eq(cap.n_modules, i ? 2 : 1);
		ck_assert_uint_eq(cap.modules[0].program_id, 1234);
		ck_assert_int_eq(cap.modules[0].embed_layout, 'B');
		if (i) {
			ck_assert_uint_eq(cap.modules[1].program_id, 5678);
			ck_assert(cap.sources[0].chunked);
			ck_assert_uint_eq(cap.sources[0].records, 2);
		}
		tp_capture_release(&cap);
		unlink(path);
		free(path);
	}
	pb_free(&file);
	pb_free(&recs[0]);
	pb_free(&recs[1]);
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
	tcase_add_test(tc, test_merge_rules);
	tcase_add_test(tc, test_merge_time_shifts);
	tcase_add_test(tc, test_merge_device_time);
	tcase_add_loop_test(tc, test_merge_renumbered_kept, 0, 2);
	tcase_add_test(tc, test_merge_in_place);
	tcase_add_test(tc, test_in_place_one_run_only);
	tcase_add_test(tc, test_in_place_last_event_cut);
	tcase_add_test(tc, test_compaction_falls_back);
	tcase_add_test(tc, test_compaction_empty_records);
	tcase_add_loop_test(tc, test_merge_reads_no_input_page, 0, 2);
	tcase_add_test(tc, test_merge_leaves_no_input_page);
	tcase_add_loop_test(tc, test_view_maps_huge_pages_aligned, 0, 2);
	tcase_add_test(tc, test_in_place_shared_captures);
	tcase_add_test(tc, test_libtpu_0_0_37);
	tcase_add_test(tc, test_tmp_errors);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
