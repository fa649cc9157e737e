/*
 * check_xspace.c - the XSpace decoder on hand-built bytes: metadata maps
 * after lines, negative map keys, every stat value case, ref_value strings,
 * device time preferred over raw offsets, aggregated events, unknown
 * fields, wall-clock timestamps, and corruption at every byte.
 */
#include "testutil.h"

#include "tpuprof/decode/capture.h"
#include "tpuprof/decode/xspace.h"

enum { SM_DEV_OFF = 1, SM_DEV_DUR = 2, SM_CAT = 3, SM_INTERNED = 4, SM_PID = 5 };
#define BIG_PROGRAM_ID UINT64_C(12190760917235803885)

static void stat_meta(struct pb *plane, int64_t id, const char *name)
{
	struct pb entry = { 0 }, value = { 0 };

	pb_int(&value, 1, id);
	pb_str(&value, 2, name);
	if (id)
		pb_int(&entry, 1, id);
	pb_msg(&entry, 2, &value);
	pb_msg(plane, 5, &entry);
}

static void stat_int(struct pb *msg, uint32_t field, int64_t meta, uint32_t kind, uint64_t v)
{
	struct pb st = { 0 };

	pb_int(&st, 1, meta);
	pb_int(&st, kind, (int64_t)v);
	pb_msg(msg, field, &st);
}

static void event(struct pb *line, int64_t meta, int64_t off, int64_t dur,
		  int64_t dev_off, int64_t dev_dur)
{
	struct pb ev = { 0 };

	pb_int(&ev, 1, meta);
	if (off >= 0)
		pb_int(&ev, 2, off);
	pb_int(&ev, 3, dur);
	if (dev_off >= 0) {
		stat_int(&ev, 4, SM_DEV_OFF, 3, (uint64_t)dev_off);
		stat_int(&ev, 4, SM_DEV_DUR, 4, (uint64_t)dev_dur);
	}
	pb_str(&ev, 77, "future field");
	pb_msg(line, 4, &ev);
}

/* One TPU plane: lines first (as protobuf writes them), then maps. */
static struct pb build_space(int64_t host_ts_ns)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, agg = { 0 };
	struct pb entry = { 0 }, em = { 0 }, st = { 0 }, host = { 0 };

	pb_int(&plane, 1, 2);
	pb_str(&plane, 2, "/device:TPU:0");
	pb_int(&line, 1, 3);
	pb_str(&line, 2, "XLA Ops");
	event(&line, (int64_t)BIG_PROGRAM_ID, 1000, 50, 900, 60); /* device wins */
	event(&line, 7, 5000, 10, -1, 0);                         /* raw span   */
	event(&line, 7, -1, 5, -1, 0);                            /* offset 0   */
	pb_int(&agg, 1, 7);
	pb_int(&agg, 5, 12);                                      /* aggregated */
	pb_msg(&line, 4, &agg);
	pb_msg(&plane, 3, &line);
	/* event metadata keyed by a program id above INT64_MAX */
	pb_int(&em, 1, (int64_t)BIG_PROGRAM_ID);
	pb_str(&em, 2, "%fusion.3 = f32[8]{0} fusion()");
	pb_str(&em, 4, "fusion.3");
	stat_int(&em, 5, SM_PID, 3, BIG_PROGRAM_ID);
	pb_int(&st, 1, SM_CAT);
	pb_int(&st, 7, SM_INTERNED);                              /* ref_value */
	pb_msg(&em, 5, &st);
	pb_int(&em, 6, 11);                                       /* child_id  */
	pb_int(&em, 6, 12);
	pb_int(&entry, 1, (int64_t)BIG_PROGRAM_ID);
	pb_msg(&entry, 2, &em);
	pb_msg(&plane, 4, &entry);
	stat_meta(&plane, SM_DEV_OFF, "device_offset_ps");
	stat_meta(&plane, SM_DEV_DUR, "device_duration_ps");
	stat_meta(&plane, SM_CAT, "hlo_category");
	stat_meta(&plane, SM_INTERNED, "loop fusion");
	stat_meta(&plane, SM_PID, "program_id");
	stat_meta(&plane, 0, "stat with id zero");
	pb_int(&st, 1, SM_CAT);                                   /* 1.5 */
	pb_fixed64(&st, 2, 0x3ff8000000000000ULL);
	pb_msg(&plane, 6, &st);
	pb_msg(&space, 1, &plane);
	pb_str(&host, 2, "/host:CPU");
	line.len = 0;
	pb_int(&line, 1, -559038737);
	pb_str(&line, 2, "main/1");
	pb_int(&line, 3, host_ts_ns);
	event(&line, 1, 2000, 30, -1, 0);
	pb_msg(&host, 3, &line);
	pb_msg(&space, 1, &host);
	pb_str(&space, 4, "worker-0");
	pb_str(&space, 3, "a warning");
	return space;
}

START_TEST(test_decode_structure)
{
	struct pb b = build_space(81445045);
	struct tp_arena a;
	struct tp_xspace xs;
	struct tp_error err = { 0 };
	const struct tp_plane *pl;
	const struct tp_event_meta *em;
	struct tp_str s;

	tp_arena_init(&a);
	ck_assert_int_eq(tp_xspace_decode(&xs, &a, b.data, b.len, "t.pb", &err), TP_OK);
	ck_assert_uint_eq(xs.n_planes, 2);
	ck_assert_uint_eq(xs.n_hostnames, 1);
	ck_assert(tp_str_eq(xs.hostnames[0], "worker-0"));
	ck_assert_uint_eq(xs.n_warnings, 1);
	pl = &xs.planes[0];
	ck_assert(tp_str_eq(pl->name, "/device:TPU:0"));
	ck_assert_int_eq(pl->kind, TP_PLANE_TPU);
	ck_assert_int_eq(pl->device_ordinal, 0);
	ck_assert_int_eq(xs.planes[1].kind, TP_PLANE_HOST);
	ck_assert_uint_eq(pl->n_stat_meta, 6);
	ck_assert_ptr_nonnull(tp_plane_stat_meta(pl, 0));
	em = tp_plane_event_meta(pl, (int64_t)BIG_PROGRAM_ID);
	ck_assert_ptr_nonnull(em);
	ck_assert(tp_str_eq(em->display_name, "fusion.3"));
	ck_assert_uint_eq(em->n_children, 2);
	ck_assert(tp_stat_str(pl, tp_stats_find(pl, em->stats, em->n_stats, TP_SN_HLO_CATEGORY), &s));
	ck_assert(tp_str_eq(s, "loop fusion"));
	ck_assert_uint_eq((uint64_t)tp_stats_find(pl, em->stats, em->n_stats, TP_SN_PROGRAM_ID)->v.u,
			  BIG_PROGRAM_ID);
	ck_assert_uint_eq(pl->n_stats, 1);
	ck_assert(pl->stats[0].kind == TP_STAT_DOUBLE && pl->stats[0].v.d == 1.5);
	ck_assert_ptr_null(tp_plane_event_meta(pl, 999));
	tp_arena_release(&a);
	pb_free(&b);
}
END_TEST

START_TEST(test_event_times)
{
	struct pb b = build_space(81445045);
	struct tp_arena a;
	struct tp_xspace xs;
	struct tp_error err = { 0 };
	struct tp_event_iter it;
	struct tp_event ev;
	const struct tp_line *ln;

	tp_arena_init(&a);
	ck_assert_int_eq(tp_xspace_decode(&xs, &a, b.data, b.len, "t.pb", &err), TP_OK);
	ln = &xs.planes[0].lines[0];
	ck_assert_uint_eq(ln->n_events, 4);
	ck_assert_uint_eq(ln->n_aggregated, 1);
	ck_assert_int_eq(ln->first_start_ps, 0);     /* the event at offset 0 */
	ck_assert_int_eq(ln->last_end_ps, 5010);
	tp_event_iter_init(&it, &xs, &xs.planes[0], ln);
	ck_assert_int_eq(tp_event_iter_next(&it, &ev), 1);
	ck_assert_int_eq(ev.start_ps, 900);          /* device_offset_ps */
	ck_assert_int_eq(ev.dur_ps, 60);
	ck_assert_int_eq(ev.offset_ps, 1000);
	ck_assert_ptr_nonnull(ev.meta);
	ck_assert_int_eq(tp_event_iter_next(&it, &ev), 1);
	ck_assert_int_eq(ev.start_ps, 5000);
	ck_assert_ptr_null(ev.meta);
	ck_assert_int_eq(tp_event_iter_next(&it, &ev), 1);
	ck_assert(ev.timed);
	ck_assert_int_eq(ev.start_ps, 0);
	ck_assert_int_eq(tp_event_iter_next(&it, &ev), 1);
	ck_assert(!ev.timed);
	ck_assert_int_eq(ev.num_occurrences, 12);
	ck_assert_int_eq(tp_event_iter_next(&it, &ev), 0);
	/* host line: timestamp_ns * 1000 + offset */
	ln = &xs.planes[1].lines[0];
	ck_assert_int_eq(ln->id, -559038737);
	ck_assert_int_eq(ln->first_start_ps, INT64_C(81445045) * 1000 + 2000);
	tp_arena_release(&a);
	pb_free(&b);
}
END_TEST

/* Unnormalized (epoch) line timestamps would overflow picoseconds: they
 * are measured from the earliest line instead. */
START_TEST(test_wallclock_origin)
{
	int64_t epoch = INT64_C(1741722099081044120);
	struct pb b = build_space(epoch);
	struct tp_arena a;
	struct tp_xspace xs;
	struct tp_error err = { 0 };

	tp_arena_init(&a);
	ck_assert_int_eq(tp_xspace_decode(&xs, &a, b.data, b.len, "t.pb", &err), TP_OK);
	ck_assert_int_eq(xs.time_origin_ns, epoch);
	ck_assert_int_eq(xs.planes[1].lines[0].first_start_ps, 2000);
	tp_arena_release(&a);
	pb_free(&b);
}
END_TEST

/* Cut the capture at every byte: the decoder either reads a valid prefix
 * (a cut between top-level fields is a valid, shorter XSpace) or reports
 * corruption with an offset inside the file. Never a crash. */
START_TEST(test_truncated_everywhere)
{
	struct pb b = build_space(81445045);
	size_t failures = 0;

	for (size_t cut = 0; cut < b.len; cut++) {
		uint8_t *copy = tp_xmalloc(cut ? cut : 1);
		struct tp_arena a;
		struct tp_xspace xs;
		struct tp_error err = { 0 };
		enum tp_err rc;

		memcpy(copy, b.data, cut);
		tp_arena_init(&a);
		rc = tp_xspace_decode(&xs, &a, copy, cut, "cut.pb", &err);
		if (rc != TP_OK) {
			unsigned long off;

			failures++;
			ck_assert_int_eq(rc, TP_ERR_INPUT);
			ck_assert_msg(sscanf(err.msg, "cut.pb: corrupt capture at byte %lu", &off) == 1,
				      "message: %s", err.msg);
			ck_assert_uint_le(off, cut);
		}
		tp_arena_release(&a);
		free(copy);
	}
	ck_assert_uint_ge(failures, b.len - 4);
	pb_free(&b);
}
END_TEST

/* Flip every byte to 0xff in turn: no crash, no read out of bounds. */
START_TEST(test_mangled_everywhere)
{
	struct pb b = build_space(81445045);

	for (size_t i = 0; i < b.len; i++) {
		uint8_t *copy = tp_xmalloc(b.len);
		struct tp_arena a;
		struct tp_xspace xs;
		struct tp_error err = { 0 };

		memcpy(copy, b.data, b.len);
		copy[i] = 0xff;
		tp_arena_init(&a);
		if (tp_xspace_decode(&xs, &a, copy, b.len, "m.pb", &err) != TP_OK)
			ck_assert_int_eq(err.code, TP_ERR_INPUT);
		tp_arena_release(&a);
		free(copy);
	}
	pb_free(&b);
}
END_TEST

/* The event reader's fast path (one load per varint) at every varint
 * length, with the event ending at the very end of the file, where fewer
 * than eight bytes remain and the byte-wise reader takes over. */
static const uint64_t varint_values[] = {
	0, 1, 127, 128, 16383, 16384, (UINT64_C(1) << 35) - 1,
	UINT64_C(1) << 35, (UINT64_C(1) << 56) - 1, UINT64_C(1) << 56,
	UINT64_C(1) << 62, (UINT64_C(1) << 63) - 1, UINT64_C(1) << 63,
	UINT64_MAX,
};

/* One plane whose line is the last field of the file; with_extra adds a
 * stat besides device time to the event. */
static struct pb space_ending_in_event(uint64_t v, bool with_extra)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, ev = { 0 };

	pb_str(&plane, 2, "/device:TPU:0");
	stat_meta(&plane, SM_DEV_OFF, "device_offset_ps");
	stat_meta(&plane, SM_DEV_DUR, "device_duration_ps");
	stat_meta(&plane, SM_CAT, "flops");
	pb_str(&line, 2, "XLA Ops");
	pb_int(&ev, 1, (int64_t)v);
	pb_int(&ev, 2, (int64_t)v);
	pb_int(&ev, 3, (int64_t)v);
	if (with_extra)
		stat_int(&ev, 4, SM_CAT, 3, v);
	stat_int(&ev, 4, SM_DEV_DUR, 3, v / 3);
	stat_int(&ev, 4, SM_DEV_OFF, 3, v / 2);
	pb_msg(&line, 4, &ev);
	pb_msg(&plane, 3, &line);
	pb_msg(&space, 1, &plane);
	return space;
}

START_TEST(test_varint_lengths)
{
	uint64_t v = varint_values[_i];

	for (int extra = 0; extra < 2; extra++) {
		struct pb b = space_ending_in_event(v, extra);
		struct tp_arena a;
		struct tp_xspace xs;
		struct tp_error err = { 0 };
		struct tp_event_iter it;
		struct tp_event ev;
		const struct tp_plane *pl;

		tp_arena_init(&a);
		ck_assert_int_eq(tp_xspace_decode(&xs, &a, b.data, b.len, "v.pb", &err), TP_OK);
		pl = &xs.planes[0];
		ck_assert_uint_eq(pl->lines[0].n_events, 1);
		tp_event_iter_init(&it, &xs, pl, &pl->lines[0]);
		ck_assert_int_eq(tp_event_iter_next(&it, &ev), 1);
		ck_assert_uint_eq((uint64_t)ev.metadata_id, v);
		ck_assert_uint_eq((uint64_t)ev.offset_ps, v);
		ck_assert_uint_eq((uint64_t)ev.duration_ps, v);
		ck_assert_uint_eq((uint64_t)ev.dur_ps, v / 3);
		/* device time, saturated at INT64_MAX as every start is */
		ck_assert_int_eq(ev.start_ps, (int64_t)(v / 2 > INT64_MAX ? INT64_MAX : v / 2));
		ck_assert(ev.other_stats == (extra == 1));
		ck_assert_int_eq(tp_event_iter_next(&it, &ev), 0);
		tp_arena_release(&a);
		pb_free(&b);
	}
}
END_TEST

/* An eleven-byte varint, or a tenth byte past 64 bits, is corrupt also
 * where the fast path reads it: as the event's last bytes (byte-wise
 * reader) and followed by padding (one-load reader). */
START_TEST(test_varint_too_long)
{
	static const uint8_t tails[][11] = {
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 },
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 },
	};
	for (size_t k = 0; k < 4; k++) {
		struct pb space = { 0 }, plane = { 0 }, line = { 0 }, ev = { 0 }, st = { 0 };
		struct tp_arena a;
		struct tp_xspace xs;
		struct tp_error err = { 0 };

		pb_str(&plane, 2, "/device:TPU:0");
		stat_meta(&plane, SM_DEV_OFF, "device_offset_ps");
		pb_int(&ev, 1, 1);
		pb_int(&st, 1, SM_DEV_OFF);
		pb_tag(&st, 3, 0);
		pb_bytes(&st, tails[k % 2], k % 2 ? 11 : 10);
		pb_msg(&ev, 4, &st);
		pb_msg(&line, 4, &ev);
		pb_msg(&plane, 3, &line);
		pb_msg(&space, 1, &plane);
		if (k >= 2)
			pb_str(&space, 3, "a warning after the plane: room to read ahead");
		tp_arena_init(&a);
		ck_assert_int_eq(tp_xspace_decode(&xs, &a, space.data, space.len, "v.pb", &err),
				 TP_ERR_INPUT);
		ck_assert_msg(strstr(err.msg, "v.pb: corrupt capture at byte ") == err.msg,
			      "%s", err.msg);
		tp_arena_release(&a);
		pb_free(&space);
	}
}
END_TEST

static uint64_t count_events(const struct tp_xspace *xs)
{
	uint64_t n = 0;

	for (size_t p = 0; p < xs->n_planes; p++)
		for (size_t l = 0; l < xs->planes[p].n_lines; l++)
			n += xs->planes[p].lines[l].n_events;
	return n;
}

/* Lines' tails left to their scans (every line here, on three threads)
 * give the same first damaged byte as one pass, for every byte of the
 * capture set to 0xff or cut short. */
START_TEST(test_tails_same_errors)
{
	struct pb b = build_space(81445045);

	for (size_t i = 0; i < 2 * b.len; i++) {
		uint8_t *copy = tp_xmalloc(b.len);
		size_t len = i < b.len ? b.len : i - b.len;
		char msg[2][sizeof(((struct tp_error *)0)->msg)];
		enum tp_err rc[2];

		memcpy(copy, b.data, b.len);
		if (i < b.len)
			copy[i] = 0xff;
		for (int way = 0; way < 2; way++) {
			struct tp_decode_opts o = { .threads = way ? 3 : 1 };
			struct tp_arena a;
			struct tp_xspace xs;
			struct tp_error err = { 0 };

			tp_xspace_framing_min_bytes = way ? 0 : (size_t)1 << 20;
			tp_arena_init(&a);
			rc[way] = tp_xspace_decode_ex(&xs, &a, copy, len, "f.pb", &o, &err);
			snprintf(msg[way], sizeof(msg[way]), "%s", rc[way] ? err.msg : "");
			if (rc[way] == TP_OK)
				snprintf(msg[way], sizeof(msg[way]), "%zu planes, %llu events",
					 xs.n_planes, (unsigned long long)count_events(&xs));
			tp_arena_release(&a);
		}
		tp_xspace_framing_min_bytes = (size_t)1 << 20;
		ck_assert_int_eq(rc[0], rc[1]);
		ck_assert_msg(strcmp(msg[0], msg[1]) == 0, "byte %zu: '%s' vs '%s'",
			      i, msg[0], msg[1]);
		free(copy);
	}
	pb_free(&b);
}
END_TEST

/* Lines with fields after their events (duration_ps, display_id,
 * display_name, and a name repeated after the events, which counts in no
 * line), on two TPU planes and a host plane. */
static struct pb space_with_tails(void)
{
	struct pb space = { 0 };

	for (int p = 0; p < 3; p++) {
		struct pb plane = { 0 };

		pb_int(&plane, 1, p + 1);
		pb_str(&plane, 2, p == 2 ? "/host:CPU" : p ? "/device:TPU:1" : "/device:TPU:0");
		for (int l = 0; l < 2; l++) {
			struct pb line = { 0 };

			pb_int(&line, 1, l + 1);
			pb_str(&line, 2, l ? "XLA Modules" : "XLA Ops");
			pb_int(&line, 3, 1000 + p);
			for (int e = 0; e < 6; e++)
				event(&line, 7, 100 * e, 50, e % 2 ? 90 * e : -1, 40);
			pb_int(&line, 9, 777 + l);
			pb_int(&line, 10, 3 + l);
			pb_str(&line, 11, l ? "modules shown" : "ops shown");
			pb_str(&line, 2, "a name after the events");
			pb_msg(&plane, 3, &line);
			pb_free(&line);
		}
		stat_meta(&plane, SM_DEV_OFF, "device_offset_ps");
		stat_meta(&plane, SM_DEV_DUR, "device_duration_ps");
		pb_msg(&space, 1, &plane);
		pb_free(&plane);
	}
	return space;
}

/* What decoding and scanning everything says: the message (a deferred
 * line's damaged framing is met by its scan, not at open; the words are
 * the same), or every line's fields and counts. */
static void decode_all(const uint8_t *data, size_t len, bool deferred,
		       unsigned threads, char *out, size_t cap, size_t *tails)
{
	struct tp_decode_opts o = { .defer_min_bytes = deferred ? 1 : 0,
				    .threads = threads };
	struct tp_arena a;
	struct tp_xspace xs;
	struct tp_error err = { 0 };
	size_t used = 0;

	tp_xspace_framing_min_bytes = deferred ? 0 : (size_t)1 << 20;
	tp_arena_init(&a);
	if (tp_xspace_decode_ex(&xs, &a, data, len, "t.pb", &o, &err) != TP_OK) {
		snprintf(out, cap, "%s", err.msg);
	} else {
		for (size_t p = 0; p < xs.n_planes; p++)
			for (size_t l = 0; l < xs.planes[p].n_lines; l++)
				*tails += xs.planes[p].lines[l].tail_unread;
		if (tp_xspace_finish_scan(&xs, &err) != TP_OK) {
			snprintf(out, cap, "%s", err.msg); /* later, same words */
		} else {
			for (size_t p = 0; p < xs.n_planes; p++)
				for (size_t l = 0; l < xs.planes[p].n_lines && used < cap; l++) {
					const struct tp_line *ln = &xs.planes[p].lines[l];

					used += (size_t)snprintf(out + used, cap - used,
						"[%lld %.*s %.*s %lld %lld %lld %llu %llu %lld %lld]",
						(long long)ln->id, (int)ln->name.len, ln->name.ptr,
						(int)ln->display_name.len, ln->display_name.ptr,
						(long long)ln->display_id, (long long)ln->duration_ps,
						(long long)ln->timestamp_ns,
						(unsigned long long)ln->n_event_fields,
						(unsigned long long)ln->n_events,
						(long long)ln->first_start_ps,
						(long long)ln->last_end_ps);
				}
		}
	}
	tp_xspace_framing_min_bytes = (size_t)1 << 20;
	tp_arena_release(&a);
}

/* Deferred lines leave their tail (the fields after the first event) to
 * their scan: once scanned they hold what a full decode reads, and
 * damaged bytes anywhere give the full decode's message, on one thread
 * or three. */
START_TEST(test_deferred_tails)
{
	struct pb b = space_with_tails();
	uint8_t *copy = tp_xmalloc(b.len);
	char plain[4608], fast[4608], threaded[4608];
	size_t tails = 0;

	decode_all(b.data, b.len, true, 1, fast, sizeof(fast), &tails);
	ck_assert_uint_eq(tails, 4); /* the device planes' lines */
	ck_assert_msg(strstr(fast, "[1 XLA Ops ops shown 3 777 1000 6 6 ") == fast, "%s", fast);
	ck_assert_ptr_nonnull(strstr(fast, "[2 XLA Modules modules shown 4 778 1002 6 6 "));
	for (size_t i = 0; i < 2 * b.len; i++) {
		size_t len = i < b.len ? b.len : i - b.len;

		memcpy(copy, b.data, b.len);
		if (i < b.len)
			copy[i] = 0xff;
		decode_all(copy, len, false, 1, plain, sizeof(plain), &tails);
		decode_all(copy, len, true, 1, fast, sizeof(fast), &tails);
		decode_all(copy, len, true, 3, threaded, sizeof(threaded), &tails);
		ck_assert_msg(strcmp(plain, fast) == 0, "%s %zu: '%s' vs '%s'",
			      i < b.len ? "byte" : "cut at", i < b.len ? i : len, plain, fast);
		ck_assert_msg(strcmp(plain, threaded) == 0, "%zu: '%s' vs '%s'", i,
			      plain, threaded);
	}
	free(copy);
	pb_free(&b);
}
END_TEST

/* Two damaged bytes: a damaged event before a damaged framing (in the
 * same line, another line or a line scanned at open) must still give
 * the framing's message, as a full decode meets it first. */
START_TEST(test_deferred_tails_two_errors)
{
	struct pb b = space_with_tails();
	uint8_t *copy = tp_xmalloc(b.len);
	char plain[4608], fast[4608];
	size_t tails = 0;

	for (size_t i = 0; i < b.len; i += 7)
		for (size_t j = i + 5; j < b.len; j += 11) {
			memcpy(copy, b.data, b.len);
			copy[i] = 0xff;
			copy[j] = 0xff;
			decode_all(copy, b.len, false, 1, plain, sizeof(plain), &tails);
			decode_all(copy, b.len, true, 2, fast, sizeof(fast), &tails);
			ck_assert_msg(strcmp(plain, fast) == 0, "bytes %zu, %zu: '%s' vs '%s'",
				      i, j, plain, fast);
		}
	free(copy);
	pb_free(&b);
}
END_TEST

/* Found by fuzz_xspace's differential check: a plane whose damaged
 * event-metadata entry comes before a line with a damaged framing. One
 * pass meets the line first (a plane's metadata is decoded after its
 * lines), so every way must name byte 3576, not the entry's byte 145
 * (lines' tails left to scans named 145). */
START_TEST(test_line_framing_before_bad_metadata)
{
	const char *path = "testdata/corrupt/line-framing-before-bad-metadata.xplane.pb";
	struct tp_buffer buf;
	struct tp_error err = { 0 };
	uint64_t file_bytes;
	bool gz;

	ck_assert_int_eq(tp_buffer_load(&buf, path, 1 << 24, &gz, &file_bytes, &err), TP_OK);
	for (int way = 0; way < 8; way++) {
		struct tp_decode_opts o = { .defer_min_bytes = way & 1,
					    .threads = way & 2 ? 3 : 1 };
		struct tp_arena a;
		struct tp_xspace xs;
		enum tp_err rc;

		tp_xspace_framing_min_bytes = way & 4 ? 0 : (size_t)1 << 20;
		tp_arena_init(&a);
		rc = tp_xspace_decode_ex(&xs, &a, buf.data, buf.size, "f.pb", &o, &err);
		if (rc == TP_OK)
			rc = tp_xspace_finish_scan(&xs, &err);
		ck_assert_int_eq(rc, TP_ERR_INPUT);
		ck_assert_str_eq(err.msg, "f.pb: corrupt capture at byte 3576: "
				 "invalid field number (in a plane)");
		tp_arena_release(&a);
	}
	tp_xspace_framing_min_bytes = (size_t)1 << 20;
	tp_buffer_release(&buf);
}
END_TEST

/* Empty planes cost little: 20,000 planes of {id, name} (about 200 KB)
 * decoded on three threads once took an arena chunk (16 KiB) and an id
 * map each, 16 KiB a plane, 320 MB here (finding 6 of the bad-input
 * audit: 100,000 such planes, a 1.4 MB file, took 620 MB). */
START_TEST(test_many_empty_planes)
{
	struct pb space = { 0 };
	char name[32];

	for (int i = 0; i < 20000; i++) {
		struct pb plane = { 0 };

		pb_int(&plane, 1, i);
		snprintf(name, sizeof(name), "p%d", i);
		pb_str(&plane, 2, name);
		pb_msg(&space, 1, &plane);
	}
	for (unsigned threads = 1; threads <= 3; threads += 2) {
		struct tp_decode_opts o = { .threads = threads };
		struct tp_arena a;
		struct tp_xspace xs;
		struct tp_error err = { 0 };

		tp_arena_init(&a);
		ck_assert_msg(tp_xspace_decode_ex(&xs, &a, space.data, space.len, "f.pb", &o,
						  &err) == TP_OK, "%s", err.msg);
		ck_assert_uint_eq(xs.n_planes, 20000);
		ck_assert(xs.planes[19999].name.len == 6 &&
			  memcmp(xs.planes[19999].name.ptr, "p19999", 6) == 0);
		ck_assert_ptr_null(tp_plane_event_meta(&xs.planes[5], 0));
		/* the planes themselves (a few hundred bytes each), not 16 KiB */
		ck_assert_msg(a.total < 20000 * 1024, "%zu bytes for 20,000 empty planes "
			      "(%u threads)", a.total, threads);
		tp_arena_release(&a);
	}
	pb_free(&space);
}
END_TEST

/* The same corruption checks with the threaded scan forced on. */
static void threads_on(void)
{
	tp_xspace_parallel_min_bytes = 0;
}

static void threads_off(void)
{
	tp_xspace_parallel_min_bytes = 8u << 20;
}

int main(void)
{
	Suite *s = suite_create("xspace");
	TCase *tc = tcase_create("core");
	TCase *tt = tcase_create("threaded");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_decode_structure);
	tcase_add_test(tc, test_event_times);
	tcase_add_test(tc, test_wallclock_origin);
	tcase_add_test(tc, test_truncated_everywhere);
	tcase_add_test(tc, test_mangled_everywhere);
	tcase_add_loop_test(tc, test_varint_lengths, 0,
			    sizeof(varint_values) / sizeof(varint_values[0]));
	tcase_add_test(tc, test_varint_too_long);
	tcase_add_test(tc, test_tails_same_errors);
	tcase_add_test(tc, test_deferred_tails);
	tcase_add_test(tc, test_deferred_tails_two_errors);
	tcase_add_test(tc, test_line_framing_before_bad_metadata);
	tcase_add_test(tc, test_many_empty_planes);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tt, 60);
	tcase_add_checked_fixture(tt, threads_on, threads_off);
	tcase_add_test(tt, test_event_times);
	tcase_add_test(tt, test_truncated_everywhere);
	tcase_add_test(tt, test_mangled_everywhere);
	suite_add_tcase(s, tt);
	return run_suite(s);
}
