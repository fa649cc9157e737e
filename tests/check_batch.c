/*
 * check_batch.c - reading events in bulk (tp_event_iter_batch, mixed with
 * tp_event_iter_next for whatever is not plain) gives exactly what reading
 * them one at a time gives: the same events in the same order with the
 * same times, the same scan results (counts, span, per-metadata counts)
 * and, on damaged bytes, the same error at the same offset. The line
 * mixes plain events (in runs longer than a batch) with every shape the
 * bulk reader must hand back: no duration, one device stat only, other
 * stats, unknown metadata, aggregated, fields out of order, empty.
 */
#include "testutil.h"

#include "tpuprof/decode/xspace.h"

enum { SM_DEV_OFF = 1, SM_DEV_DUR = 2, SM_FLOPS = 3 };

enum shape {
	PLAIN,          /* metadata, offset, duration, both device stats */
	PLAIN_INT64,    /* device stats as int64 values                  */
	NO_DURATION,    /* no duration field                             */
	ONE_DEVICE,     /* device offset only: times from elsewhere      */
	OTHER_STAT,     /* a FLOPs stat besides device time              */
	UNKNOWN_META,   /* metadata id with no metadata                  */
	FAR_META,       /* metadata id past the direct table             */
	AGGREGATED,     /* num_occurrences instead of an offset          */
	OUT_OF_ORDER,   /* duration before offset                        */
	EMPTY,          /* no field at all                               */
	NO_STATS,       /* no device stats at all                        */
	N_SHAPES
};

static void event(struct pb *line, enum shape shape, int64_t i)
{
	struct pb ev = { 0 };
	int64_t meta = 1 + i % 3, off = 1000 * i, dur = 100 + i % 7;

	switch (shape) {
	case OUT_OF_ORDER:
		pb_int(&ev, 1, meta);
		pb_int(&ev, 3, dur);
		pb_int(&ev, 2, off);
		break;
	case AGGREGATED:
		pb_int(&ev, 1, meta);
		pb_int(&ev, 5, 3);
		break;
	case EMPTY:
		break;
	default:
		pb_int(&ev, 1, shape == UNKNOWN_META ? 9 : shape == FAR_META ? 100000 : meta);
		pb_int(&ev, 2, off);
		if (shape != NO_DURATION)
			pb_int(&ev, 3, dur);
		break;
	}
	if (shape != NO_STATS && shape != EMPTY && shape != AGGREGATED) {
		pb_stat_int(&ev, SM_DEV_OFF, shape == PLAIN_INT64 ? 4 : 3, off + 7);
		if (shape != ONE_DEVICE)
			pb_stat_int(&ev, SM_DEV_DUR, shape == PLAIN_INT64 ? 4 : 3, dur * 2);
		if (shape == OTHER_STAT)
			pb_stat_int(&ev, SM_FLOPS, 3, 12345);
	}
	pb_msg(line, 4, &ev);
	pb_free(&ev);
}

/* One TPU plane whose op line holds runs of plain events (with long
 * runs, some longer than a batch) between events of every other shape,
 * and a GPU plane without device time, whose plain events are read with
 * raw times. */
static struct pb build_space(bool long_runs)
{
	struct pb space = { 0 };

	for (int p = 0; p < 2; p++) {
		struct pb plane = { 0 }, line = { 0 };
		int64_t i = 0;

		pb_int(&plane, 1, p + 1);
		pb_str(&plane, 2, p ? "/device:GPU:0" : "/device:TPU:0");
		pb_int(&line, 1, 1);
		pb_str(&line, 2, "XLA Ops");
		pb_int(&line, 3, 5000);
		for (int s = 0; s < N_SHAPES; s++) {
			int run = s == 2 && long_runs ? TP_EVENT_BATCH + 3 : s % 3;

			for (int k = 0; k < run; k++)
				event(&line, p ? NO_STATS : PLAIN, i++);
			event(&line, (enum shape)s, i++);
		}
		for (int k = 0; k < (long_runs ? 2 * TP_EVENT_BATCH : 3); k++)
			event(&line, p ? NO_STATS : PLAIN, i++);
		pb_str(&line, 11, "after the events");
		pb_msg(&plane, 3, &line);
		pb_metadata(&plane, 4, 1, "a");
		pb_metadata(&plane, 4, 2, "b");
		pb_metadata(&plane, 4, 3, "c");
		if (!p) {
			pb_metadata(&plane, 5, SM_DEV_OFF, "device_offset_ps");
			pb_metadata(&plane, 5, SM_DEV_DUR, "device_duration_ps");
		}
		pb_metadata(&plane, 5, SM_FLOPS, "flops");
		pb_msg(&space, 1, &plane);
		pb_free(&line);
		pb_free(&plane);
	}
	return space;
}

struct seen {
	int64_t meta, start, dur, occurrences;
	bool timed;
};

/* Everything a read of a line tells: its events, the scan's results, the
 * end (rc, error and offset). */
struct reading {
	struct seen ev[4096];
	size_t n;
	int rc;
	char text[256];
};

static void note(struct reading *r, int64_t meta, int64_t start, int64_t dur,
		 int64_t occurrences, bool timed)
{
	ck_assert_uint_lt(r->n, sizeof(r->ev) / sizeof(r->ev[0]));
	r->ev[r->n].meta = meta;
	r->ev[r->n].start = start;
	r->ev[r->n].dur = dur;
	r->ev[r->n].occurrences = occurrences;
	r->ev[r->n++].timed = timed;
}

static void read_line(const struct tp_xspace *xs, const struct tp_plane *pl,
		      struct tp_line *ln, bool bulk, bool raw_times,
		      struct reading *r)
{
	static struct tp_event_batch b;
	struct tp_event_iter it;
	struct tp_event ev;
	uint64_t counts = 0;

	memset(r, 0, sizeof(*r));
	tp_event_iter_init_scan(&it, xs, pl, ln);
	it.raw_times = raw_times;
	for (;;) {
		size_t n = bulk ? tp_event_iter_batch(&it, &b) : 0;

		for (size_t i = 0; i < n; i++)
			note(r, b.meta[i], b.start_ps[i], b.dur_ps[i], 1, true);
		if (n)
			continue;
		if ((r->rc = tp_event_iter_next(&it, &ev)) <= 0)
			break;
		note(r, ev.meta ? ev.meta - pl->event_meta : -1, ev.start_ps,
		     ev.dur_ps, ev.num_occurrences, ev.timed);
	}
	for (size_t m = 0; ln->meta_counts && m < pl->n_event_meta; m++)
		counts = counts * 31 + ln->meta_counts[m];
	snprintf(r->text, sizeof(r->text),
		 "rc %d %s@%zu events %llu agg %llu span %d %lld %lld counts %llu",
		 r->rc, ln->scan_error ? ln->scan_error : "-",
		 ln->scan_error ? ln->scan_error_offset : 0,
		 (unsigned long long)ln->n_events,
		 (unsigned long long)ln->n_aggregated, ln->has_span,
		 (long long)ln->first_start_ps, (long long)ln->last_end_ps,
		 (unsigned long long)counts);
}

static void same_readings(const struct reading *a, const struct reading *b,
			  const char *what)
{
	ck_assert_msg(strcmp(a->text, b->text) == 0, "%s: '%s' vs '%s'", what,
		      a->text, b->text);
	ck_assert_uint_eq(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		ck_assert_msg(memcmp(&a->ev[i], &b->ev[i], sizeof(a->ev[i])) == 0,
			      "%s: event %zu differs", what, i);
}

/* Decodes bytes with every line left unscanned, then reads each line
 * both ways (the second read scans again: the scan results restart). */
static void compare_on(const uint8_t *data, size_t len, const char *what,
		       size_t *bulk_events)
{
	struct tp_decode_opts o = { .defer_min_bytes = 1, .threads = 1 };
	struct tp_arena a;
	struct tp_xspace xs;
	struct tp_error err = { 0 };
	static struct reading one, bulk;

	tp_arena_init(&a);
	if (tp_xspace_decode_ex(&xs, &a, data, len, "b.pb", &o, &err) == TP_OK) {
		for (size_t p = 0; p < xs.n_planes; p++)
			for (size_t l = 0; l < xs.planes[p].n_lines; l++)
				for (int raw = 0; raw < 2; raw++) {
					struct tp_plane *pl = &xs.planes[p];

					read_line(&xs, pl, &pl->lines[l], false, raw, &one);
					read_line(&xs, pl, &pl->lines[l], true, raw, &bulk);
					same_readings(&one, &bulk, what);
					if (bulk_events)
						*bulk_events += bulk.n;
				}
	}
	tp_arena_release(&a);
}

START_TEST(test_same_events)
{
	struct pb b = build_space(true);
	size_t n = 0;

	compare_on(b.data, b.len, "intact", &n);
	/* 2 planes, 2 ways, each event once */
	ck_assert_uint_eq(n, 2 * 2 * (size_t)(2 * TP_EVENT_BATCH + TP_EVENT_BATCH + 3 + 8 +
					    N_SHAPES));
	pb_free(&b);
}
END_TEST

/* Every byte set to 0xff, and every length cut short. */
START_TEST(test_same_on_damage)
{
	struct pb b = build_space(false);
	uint8_t *copy = tp_xmalloc(b.len);
	char what[64];

	for (size_t i = 0; i < b.len; i++) {
		memcpy(copy, b.data, b.len);
		copy[i] = 0xff;
		snprintf(what, sizeof(what), "byte %zu", i);
		compare_on(copy, b.len, what, NULL);
		snprintf(what, sizeof(what), "cut at %zu", i);
		compare_on(b.data, i, what, NULL);
	}
	free(copy);
	pb_free(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("batch");
	TCase *tc = tcase_create("bulk equals one by one");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_same_events);
	tcase_add_test(tc, test_same_on_damage);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
