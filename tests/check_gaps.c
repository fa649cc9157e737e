/*
 * check_gaps.c - the decoder stepping over gaps (struct tp_gap): bytes
 * in a line that are not the capture's, as a chunked capture's block
 * headers are in a view that maps its lines in place. A line of events
 * is written twice, once plain and once with 24 bytes of junk at chosen
 * places (between two events, between an event's tag and its length,
 * inside an event, twice inside one event, inside the last event before
 * the line's own fields after its events), and every way of reading
 * gives the same: events, their stats and offsets, the line's fields
 * after its events (read at open and by a deferred scan), the bulk
 * reader, a seek back to an event a gap cuts, and a gap whose copy is
 * damaged reported at the place it stands for.
 */
#include "testutil.h"

#include "tpuprof/decode/xspace.h"

#define N_EVENTS 40
#define JUNK 24
#define BIG_EVENT 20     /* carries 300 bytes of an unknown field */

/* Where the junk goes, in the plain line's content: at an event's start
 * plus `at` bytes (0: between it and the one before). */
static const struct {
	int event;
	size_t at;
} junk_at[] = {
	{ 3, 0 },              /* between events 2 and 3: only the header */
	{ 7, 1 },              /* after event 7's tag, before its length  */
	{ 12, 5 },             /* inside event 12                         */
	{ BIG_EVENT, 50 },     /* twice inside the big event              */
	{ BIG_EVENT, 200 },
	{ N_EVENTS - 1, 4 },   /* inside the last event                   */
};
#define N_JUNK (sizeof(junk_at) / sizeof(junk_at[0]))

struct line_bytes {
	struct pb content;
	size_t start[N_EVENTS + 1];   /* each event's start; [N] their end */
};

static void event(struct pb *line, int i)
{
	struct pb ev = { 0 }, st = { 0 };

	pb_int(&ev, 1, 1);
	pb_int(&ev, 2, 10 * i);
	pb_int(&ev, 3, 5);
	if (i % 3 == 0) {   /* the others are what the bulk reader takes */
		pb_int(&st, 1, 1);
		pb_int(&st, 3, 1000 + i);
		pb_msg(&ev, 4, &st);
	}
	if (i == BIG_EVENT) {
		char pad[300];

		memset(pad, 0x5a, sizeof(pad));
		pb_lenfield(&ev, 15, pad, sizeof(pad));
	}
	pb_msg(line, 4, &ev);
}

static struct line_bytes plain_line(void)
{
	struct line_bytes l = { { 0 }, { 0 } };

	pb_int(&l.content, 1, 9);
	pb_str(&l.content, 2, "XLA Ops");
	pb_int(&l.content, 3, 1000);
	for (int i = 0; i < N_EVENTS; i++) {
		l.start[i] = l.content.len;
		event(&l.content, i);
	}
	l.start[N_EVENTS] = l.content.len;
	pb_int(&l.content, 9, 777);          /* after the events */
	pb_str(&l.content, 11, "ops shown");
	return l;
}

/* The plain line's content with the junk put in, and where each junk
 * went (offsets in the new content). */
static struct pb junk_line(const struct line_bytes *l, size_t put[N_JUNK])
{
	struct pb out = { 0 };
	size_t from = 0;
	uint8_t junk[JUNK];

	memset(junk, 0xee, sizeof(junk));   /* no field starts 0xee 0xee */
	for (size_t k = 0; k < N_JUNK; k++) {
		size_t at = l->start[junk_at[k].event] + junk_at[k].at;

		pb_bytes(&out, l->content.data + from, at - from);
		put[k] = out.len;
		pb_bytes(&out, junk, sizeof(junk));
		from = at;
	}
	pb_bytes(&out, l->content.data + from, l->content.len - from);
	return out;
}

/* An XSpace of one TPU plane holding line content c. *content: where
 * c starts in it. */
static struct pb space_of(const struct pb *c, size_t *content)
{
	struct pb space = { 0 }, plane = { 0 }, em = { 0 }, entry = { 0 };
	struct pb sm = { 0 }, sentry = { 0 };
	size_t plane_head;

	pb_int(&plane, 1, 2);
	pb_str(&plane, 2, "/device:TPU:0");
	pb_tag(&plane, 3, 2);
	pb_varint(&plane, c->len);
	plane_head = plane.len;
	pb_bytes(&plane, c->data, c->len);
	pb_int(&em, 1, 1);
	pb_str(&em, 2, "fusion.1");
	pb_int(&entry, 1, 1);
	pb_msg(&entry, 2, &em);
	pb_msg(&plane, 4, &entry);
	pb_int(&sm, 1, 1);
	pb_str(&sm, 2, "v");
	pb_int(&sentry, 1, 1);
	pb_msg(&sentry, 2, &sm);
	pb_msg(&plane, 5, &sentry);
	pb_tag(&space, 1, 2);
	pb_varint(&space, plane.len);
	*content = space.len + plane_head;
	pb_bytes(&space, plane.data, plane.len);
	pb_free(&plane);
	return space;
}

/* The gaps of the junk line, as a view lists them: a junk between two
 * events is only a header; one inside an event stops the reader where
 * that event starts and hands it over whole (both junks of the big
 * event alike). */
struct gapped {
	struct pb space;
	struct tp_gap gaps[N_JUNK];
	uint8_t fields[N_JUNK][400];
};

static void gapped_init(struct gapped *g, const struct line_bytes *l)
{
	size_t put[N_JUNK], content;
	struct pb c = junk_line(l, put);

	g->space = space_of(&c, &content);
	for (size_t k = 0; k < N_JUNK; k++) {
		int e = junk_at[k].event;
		size_t s = l->start[e], len = l->start[e + 1] - s;
		size_t before = 0, after = 0;   /* junks before the event's
						 * start, and before its end */

		for (size_t j = 0; j < N_JUNK; j++) {
			size_t at = l->start[junk_at[j].event] + junk_at[j].at;

			before += at <= s;
			after += at < s + len;
		}
		if (junk_at[k].at == 0) {
			g->gaps[k] = (struct tp_gap){ content + put[k],
						      content + put[k] + JUNK,
						      NULL, 0 };
			continue;
		}
		ck_assert_uint_le(len + 16, sizeof(g->fields[k]));
		memset(g->fields[k], 0, sizeof(g->fields[k]));
		memcpy(g->fields[k], l->content.data + s, len);
		g->gaps[k] = (struct tp_gap){ content + s + before * JUNK,
					      content + s + len + after * JUNK,
					      g->fields[k], len };
	}
	pb_free(&c);
}

struct read {
	int64_t line_ps[N_EVENTS], stat[N_EVENTS];
	size_t offset[N_EVENTS];
	struct tp_event_seg seg[N_EVENTS];
	size_t n;
};

static int64_t first_stat(const struct tp_xspace *xs, const struct tp_event *ev)
{
	struct tp_stat_iter si;
	struct tp_stat st;

	tp_stat_iter_init(&si, xs, ev);
	return tp_stat_iter_next(&si, &st) == 1 ? st.v.i : -1;
}

/* Every event of the line, the bulk reader first where bulk. */
static struct read read_line(const struct tp_xspace *xs, bool bulk)
{
	const struct tp_plane *pl = &xs->planes[0];
	struct tp_event_batch *b = tp_xcalloc(1, sizeof(*b));
	struct tp_event_iter it;
	struct tp_event ev;
	struct read r = { .n = 0 };
	int rc;

	tp_event_iter_init_read(&it, xs, pl, &pl->lines[0]);
	for (;;) {
		size_t n = bulk ? tp_event_iter_batch(&it, b) : 0;

		for (size_t i = 0; i < n; i++, r.n++) {
			ck_assert_uint_lt(r.n, N_EVENTS);
			r.line_ps[r.n] = b->line_ps[i];
			r.stat[r.n] = -2;   /* read in bulk: plain, no stat */
		}
		if (n)
			continue;
		if ((rc = tp_event_iter_next(&it, &ev)) <= 0)
			break;
		ck_assert_uint_lt(r.n, N_EVENTS);
		ck_assert_int_eq(ev.offset_ps, 10 * (int64_t)r.n);
		r.line_ps[r.n] = ev.line_start_ps;
		r.stat[r.n] = first_stat(xs, &ev);
		r.offset[r.n] = ev.offset;
		r.seg[r.n] = it.seg;
		r.n++;
	}
	ck_assert_int_eq(rc, 0);
	free(b);
	return r;
}

/* Every event where it should be; a stat on every third; in bulk, the
 * others (all but the big event, whose unknown field it leaves). */
static void assert_all_events(const struct read *r, bool bulk)
{
	size_t in_bulk = 0;

	ck_assert_uint_eq(r->n, N_EVENTS);
	for (int i = 0; i < N_EVENTS; i++) {
		ck_assert_int_eq(r->line_ps[i] - r->line_ps[0], 10 * i);
		in_bulk += r->stat[i] == -2;
		if (r->stat[i] != -2)
			ck_assert_int_eq(r->stat[i], i % 3 ? -1 : 1000 + i);
		else
			ck_assert(i % 3 && i != BIG_EVENT);
	}
	ck_assert(bulk ? in_bulk > N_EVENTS / 2 : in_bulk == 0);
}

/* Decoded with the gaps, at open (defer 0) or by deferred scans whose
 * tails are left to them (framing threshold 1). */
static void decode(struct tp_xspace *xs, struct tp_arena *a,
		   const struct gapped *g, bool deferred)
{
	struct tp_decode_opts o = { .gaps = g->gaps, .n_gaps = N_JUNK,
				    .defer_min_bytes = deferred ? 1 : 0 };
	struct tp_error err = { 0 };
	size_t saved = tp_xspace_framing_min_bytes;

	tp_arena_init(a);
	if (deferred)
		tp_xspace_framing_min_bytes = 1;
	ck_assert_msg(tp_xspace_decode_ex(xs, a, g->space.data, g->space.len,
					  "gapped", &o, &err) == TP_OK,
		      "%s", err.msg);
	tp_xspace_framing_min_bytes = saved;
}

/* Every way of reading the gapped line gives the plain line's events
 * and its fields after them. */
START_TEST(test_gaps_read_as_plain)
{
	bool deferred = _i & 1, bulk = _i & 2;
	struct line_bytes l = plain_line();
	struct gapped g;
	struct tp_arena a;
	struct tp_xspace xs;
	struct read r;
	struct tp_error err = { 0 };

	gapped_init(&g, &l);
	decode(&xs, &a, &g, deferred);
	r = read_line(&xs, bulk);
	assert_all_events(&r, bulk);
	ck_assert_int_eq(tp_xspace_finish_scan(&xs, &err), TP_OK);
	ck_assert_int_eq(xs.planes[0].lines[0].duration_ps, 777);
	ck_assert_int_eq((int)xs.planes[0].lines[0].display_name.len, 9);
	ck_assert(!memcmp(xs.planes[0].lines[0].display_name.ptr, "ops shown", 9));
	ck_assert_uint_eq(xs.planes[0].lines[0].n_events, N_EVENTS);
	r = read_line(&xs, bulk);   /* read again, scanned */
	assert_all_events(&r, bulk);
	tp_arena_release(&a);
	pb_free(&g.space);
	pb_free(&l.content);
}
END_TEST

/* A seek to an event a gap cuts (and to the one after the header-only
 * gap) reads it again whole, and the events after it. */
START_TEST(test_gaps_seek)
{
	static const int to[] = { 3, 7, 12, BIG_EVENT, N_EVENTS - 1 };
	struct line_bytes l = plain_line();
	struct gapped g;
	struct tp_arena a;
	struct tp_xspace xs;
	struct read r;

	gapped_init(&g, &l);
	decode(&xs, &a, &g, false);
	r = read_line(&xs, false);
	assert_all_events(&r, false);
	for (size_t k = 0; k < sizeof(to) / sizeof(to[0]); k++) {
		const struct tp_plane *pl = &xs.planes[0];
		struct tp_event_iter it;
		struct tp_event ev;
		int n = 0;

		tp_event_iter_init_read(&it, &xs, pl, &pl->lines[0]);
		tp_event_iter_seek(&it, r.offset[to[k]], r.seg[to[k]]);
		while (tp_event_iter_next(&it, &ev) > 0) {
			ck_assert_int_eq(ev.offset_ps, 10 * (to[k] + n));
			ck_assert_int_eq(first_stat(&xs, &ev),
					 (to[k] + n) % 3 ? -1 : 1000 + to[k] + n);
			n++;
		}
		ck_assert_int_eq(n, N_EVENTS - to[k]);
	}
	tp_arena_release(&a);
	pb_free(&g.space);
	pb_free(&l.content);
}
END_TEST

/* A gap whose copy is not one field fails the line where the gap
 * stands: at open, and in a deferred scan. */
START_TEST(test_gaps_damaged_copy)
{
	bool deferred = _i;
	struct line_bytes l = plain_line();
	struct gapped g;
	struct tp_decode_opts o = { .n_gaps = N_JUNK,
				    .defer_min_bytes = deferred ? 1 : 0 };
	struct tp_error err = { 0 };
	struct tp_arena a;
	struct tp_xspace xs;
	enum tp_err rc;
	char where[64];

	gapped_init(&g, &l);
	g.gaps[2].len -= 3;   /* event 12's copy cut short */
	o.gaps = g.gaps;
	tp_arena_init(&a);
	rc = tp_xspace_decode_ex(&xs, &a, g.space.data, g.space.len, "gapped",
				 &o, &err);
	if (rc == TP_OK)
		rc = tp_xspace_finish_scan(&xs, &err);
	ck_assert_int_eq(rc, TP_ERR_INPUT);
	ck_assert_msg(strstr(err.msg, "a field cut by a block header does not read"),
		      "%s", err.msg);
	snprintf(where, sizeof(where), "at byte %zu:", g.gaps[2].from);
	ck_assert_msg(strstr(err.msg, where), "%s", err.msg);
	tp_arena_release(&a);
	pb_free(&g.space);
	pb_free(&l.content);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gaps");
	TCase *tc = tcase_create("reader");

	tcase_add_loop_test(tc, test_gaps_read_as_plain, 0, 4);
	tcase_add_test(tc, test_gaps_seek);
	tcase_add_loop_test(tc, test_gaps_damaged_copy, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
