/*
 * check_riegeli_remap.c - a chunk whose metadata ids differ from the
 * merged ones (docs/riegeli.md, "How chunks are merged"): its events
 * re-encoded with their ids remapped, the quick way (riegeli_remap.c:
 * ids through a table, the usual shape written directly) and the
 * general way giving the same bytes, and every id, time and value read
 * back as written, in events of every shape the quick way handles, hands
 * over, or grows past a one-byte length.
 */
#include "riegeli_testutil.h"

#include "tpuprof/decode/riegeli.h"
#include "tpuprof/decode/xspace.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void plane_head(struct pb *plane)
{
	pb_int(plane, 1, 3);
	pb_str(plane, 2, "/device:TPU:0");
}

static void line_head(struct pb *line, int64_t ts_ns)
{
	pb_int(line, 1, 5);
	pb_str(line, 2, "XLA Ops");
	pb_int(line, 3, ts_ns);
}

static void put_event(struct pb *line, struct pb *ev)
{
	pb_msg(line, 4, ev);
	pb_free(ev);
}

/* [1 meta][2 offset][3 duration 100] */
static struct pb ev_head(int64_t meta, int64_t offset_ps)
{
	struct pb ev = { 0 };

	pb_int(&ev, 1, meta);
	pb_int(&ev, 2, offset_ps);
	pb_int(&ev, 3, 100);
	return ev;
}

/* A metadata entry's id and name. */
struct meta {
	int64_t id;
	const char *name;
};

/* A chunk whose line 5 from ts_ns holds one event (metadata id ev at
 * offset 0, one integer stat st of value v), with the metadata given. */
static struct pb one_event_chunk(int64_t ts_ns, int64_t ev_id, int64_t st,
				 int64_t v, const struct meta *events,
				 size_t n_events, const struct meta *stats,
				 size_t n_stats)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 };
	struct pb ev = ev_head(ev_id, 0);

	plane_head(&plane);
	line_head(&line, ts_ns);
	pb_stat_int(&ev, st, 4, v);
	put_event(&line, &ev);
	pb_msg(&plane, 3, &line);
	for (size_t i = 0; i < n_events; i++)
		pb_metadata(&plane, 4, events[i].id, events[i].name);
	for (size_t i = 0; i < n_stats; i++)
		pb_metadata(&plane, 5, stats[i].id, stats[i].name);
	pb_msg(&space, 1, &plane);
	return space;
}

/* Chunk 1: ids as merged, two-byte varints: "a" 1000, "b" 1001;
 * "flops" 2000, "kind" 2001, "conv.1" 2002. Line 5 from 1000 ns, one
 * event "a" at 0 with flops 7. */
static struct pb first_chunk(void)
{
	static const struct meta events[] = { { 1000, "a" }, { 1001, "b" } };
	static const struct meta stats[] = { { 2000, "flops" }, { 2001, "kind" },
					     { 2002, "conv.1" } };

	return one_event_chunk(1000, 1000, 2000, 7, events, 2, stats, 3);
}

/* Chunk 2, renumbered densely (a table): "a" 3, "b" 4, "flops" 5,
 * "kind" 6, "conv.1" 7, and new "ratio" 8, "label" 9. Line 5 from
 * 1010 ns: the usual shape (ids grow to two bytes), a reference, a
 * double, a string (the general way), 25 stats (a two-byte length), no
 * offset at all. */
static struct pb second_chunk(void)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, ev, st = { 0 };
	uint64_t half;

	plane_head(&plane);
	line_head(&line, 1010);
	ev = ev_head(3, 0);
	pb_stat_int(&ev, 5, 4, 9);
	put_event(&line, &ev);
	ev = ev_head(4, 50);
	pb_stat_int(&ev, 6, 7, 7);            /* ref_value "conv.1" */
	put_event(&line, &ev);
	ev = ev_head(3, 60);
	memcpy(&half, &(double){ 0.5 }, sizeof(half));
	pb_int(&st, 1, 8);
	pb_fixed64(&st, 2, half);
	pb_msg(&ev, 4, &st);
	pb_free(&st);
	put_event(&line, &ev);
	ev = ev_head(4, 70);
	pb_int(&st, 1, 9);
	pb_str(&st, 5, "x");
	pb_msg(&ev, 4, &st);
	pb_free(&st);
	put_event(&line, &ev);
	ev = ev_head(3, 80);
	for (int k = 0; k < 25; k++)
		pb_stat_int(&ev, 5, 4, 100 + k);
	ck_assert_uint_gt(ev.len, 127);
	put_event(&line, &ev);
	pb_int(&ev, 1, 4);
	pb_int(&ev, 3, 100);
	put_event(&line, &ev);
	pb_msg(&plane, 3, &line);
	pb_metadata(&plane, 4, 3, "a");
	pb_metadata(&plane, 4, 4, "b");
	pb_metadata(&plane, 5, 5, "flops");
	pb_metadata(&plane, 5, 6, "kind");
	pb_metadata(&plane, 5, 7, "conv.1");
	pb_metadata(&plane, 5, 8, "ratio");
	pb_metadata(&plane, 5, 9, "label");
	pb_msg(&space, 1, &plane);
	return space;
}

/* Chunk 3, ids far apart (no table: the general way): "b" 5000000,
 * "flops" 1. Line 5 from 1020 ns, one event "b" at 0 with flops 12. */
static struct pb third_chunk(void)
{
	static const struct meta events[] = { { 2, "a" }, { 5000000, "b" } };
	static const struct meta stats[] = { { 1, "flops" } };

	return one_event_chunk(1020, 5000000, 1, 12, events, 2, stats, 1);
}

/* The three chunks merged into a standard XSpace (tp_riegeli_opts.flat),
 * the quick way or not. */
static struct tp_riegeli_xspace merge_flat(bool quick)
{
	struct pb recs[3] = { first_chunk(), second_chunk(), third_chunk() };
	struct pb file = riegeli_of(recs, 3);
	struct tp_riegeli_opts o = { .shown = "r.riegeli",
				     .max_chunk = UINT64_MAX, .flat = true };
	struct tp_riegeli_xspace out;
	struct tp_riegeli_info info;
	struct tp_error err = { 0 };

	tp_riegeli_quick_remap = quick;
	ck_assert_int_eq(tp_riegeli_merge(file.data, file.len, &o, &out, &info,
					  &err), TP_OK);
	tp_riegeli_quick_remap = true;
	ck_assert_uint_eq(info.records, 3);
	tp_riegeli_info_release(&info);
	pb_free(&file);
	for (int i = 0; i < 3; i++)
		pb_free(&recs[i]);
	return out;
}

START_TEST(test_quick_remap_same_bytes)
{
	struct tp_riegeli_xspace quick = merge_flat(true);
	struct tp_riegeli_xspace general = merge_flat(false);

	ck_assert_uint_eq(quick.size, general.size);
	ck_assert(memcmp(quick.data, general.data, quick.size) == 0);
	tp_riegeli_xspace_release(&quick);
	tp_riegeli_xspace_release(&general);
}
END_TEST

/* What one event reads back as: metadata id, offset from the merged
 * line's 1000 ns, its stats' ids and first value (int, or ref, or the
 * double's bits), and how many stats. */
struct want_event {
	int64_t meta, offset_ps;
	size_t n_stats;
	int64_t stat_id;
	int64_t value;
};

static const struct want_event want[] = {
	{ 1000, 0, 1, 2000, 7 },               /* chunk 1 */
	{ 1000, 10000, 1, 2000, 9 },           /* chunk 2, from 1010 ns */
	{ 1001, 10050, 1, 2001, 2002 },        /* the reference remapped */
	{ 1000, 10060, 1, 2003, 0 },           /* "ratio": new, 2003 */
	{ 1001, 10070, 1, 2004, 0 },           /* "label": new, 2004 */
	{ 1000, 10080, 25, 2000, 100 },
	{ 1001, 10000, 0, 0, 0 },              /* no offset: the line's start */
	{ 1001, 20000, 1, 2000, 12 },          /* chunk 3, from 1020 ns */
};

START_TEST(test_quick_remap_values)
{
	struct tp_riegeli_xspace out = merge_flat(true);
	struct tp_arena a;
	struct tp_xspace xs;
	struct tp_error err = { 0 };
	struct tp_event_iter it;
	struct tp_event ev;
	const struct tp_plane *pl;
	size_t k = 0;

	tp_arena_init(&a);
	ck_assert_msg(tp_xspace_decode(&xs, &a, out.data, out.size, "merged",
				       &err) == TP_OK, "%s", err.msg);
	ck_assert_uint_eq(xs.n_planes, 1);
	pl = &xs.planes[0];
	ck_assert_uint_eq(pl->n_lines, 1);
	ck_assert_int_eq(pl->lines[0].timestamp_ns, 1000);
	ck_assert_uint_eq(pl->n_event_meta, 2);
	ck_assert_uint_eq(pl->n_stat_meta, 5);
	tp_event_iter_init_read(&it, &xs, pl, &pl->lines[0]);
	while (tp_event_iter_next(&it, &ev) > 0) {
		const struct want_event *w = &want[k];
		struct tp_stat_iter si;
		struct tp_stat st;
		size_t n = 0;

		ck_assert_uint_lt(k, sizeof(want) / sizeof(want[0]));
		ck_assert_int_eq(ev.metadata_id, w->meta);
		ck_assert_int_eq(ev.offset_ps, w->offset_ps);
		ck_assert_int_eq(ev.duration_ps, 100);
		tp_stat_iter_init(&si, &xs, &ev);
		while (tp_stat_iter_next(&si, &st) > 0) {
			ck_assert_int_eq(st.metadata_id, w->stat_id);
			if (k == 3)
				ck_assert(st.v.d == 0.5);
			else if (k == 4)
				ck_assert(st.v.s.len == 1 && st.v.s.ptr[0] == 'x');
			else
				ck_assert_int_eq(st.v.i, w->value + (int64_t)n);
			n++;
		}
		ck_assert_uint_eq(n, w->n_stats);
		k++;
	}
	ck_assert_uint_eq(k, sizeof(want) / sizeof(want[0]));
	tp_arena_release(&a);
	tp_riegeli_xspace_release(&out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("riegeli_remap");
	TCase *tc = tcase_create("remap");

	tcase_add_test(tc, test_quick_remap_same_bytes);
	tcase_add_test(tc, test_quick_remap_values);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
