/*
 * check_batch_keyed.c - keyed bulk reading (tp_event_iter_batch_keyed,
 * what GPU kernels are read with) gives what reading the events one at a
 * time gives: the same events, times and scan results, and for every
 * event it reads, the kept stats' kinds and values as the event's own
 * stats hold them. Events of every shape it must hand back (a kept stat
 * twice or not an integer, a rejected stat, a stat with more than one
 * value, no offset) come between runs of plain kernels
 * whose stats are of every kind (varints of one and more bytes, ids past
 * the role table, strings, bytes, doubles), with stat ids from 1 and
 * from 65 (all past the role table, two sharing a slot of its cache of
 * far ids); exactly the plain ones are read in bulk. On damaged bytes, the same error at the same offset.
 */
#include "testutil.h"

#include "tpuprof/decode/xspace.h"

enum {
	SM_CORR = 1, SM_KDET = 2, SM_PROGRAM = 3, SM_MODULE = 4, SM_OP = 5,
	SM_NAME = 6, SM_CTX = 7, SM_FLOPS = 8,
	SM_FAR = 200, /* past the role table, two-byte id */
};

/* Added to every stat id but SM_FAR's (test_same_events' loop): 0, or 64,
 * which puts them all past the role table, and flops (72) in the same
 * slot of its cache of far ids as SM_FAR (200, mod 32), which events
 * between the runs alternate. */
static int64_t id_base;
#define S(id) ((id) == SM_FAR ? (int64_t)(id) : (int64_t)(id) + id_base)

static void stat_str(struct pb *ev, int64_t meta, uint32_t field, const char *s)
{
	struct pb st = { 0 };

	pb_int(&st, 1, meta);
	pb_str(&st, field, s);
	pb_msg(ev, 4, &st);
	pb_free(&st);
}

static void stat_double(struct pb *ev, int64_t meta)
{
	struct pb st = { 0 };

	pb_int(&st, 1, meta);
	pb_fixed64(&st, 2, 0x4059000000000000ULL); /* 100.0 */
	pb_msg(ev, 4, &st);
	pb_free(&st);
}

enum shape {
	KERNEL,          /* the seven stats of a JAX kernel, of every size  */
	KERNEL_TF,       /* strings, bytes, a double, a far id              */
	KEPT_TWICE,      /* hlo_op twice                                   */
	KEPT_STRING,     /* hlo_op as a string                             */
	KEPT_DOUBLE,     /* program_id as a double                         */
	REJECTED,        /* a flops stat                                   */
	TWO_VALUES,      /* a stat with two value fields                   */
	NO_OFFSET,       /* no offset field                                */
	N_SHAPES
};

static void kernel_stats(struct pb *ev, int64_t i)
{
	pb_stat_int(ev, S(SM_CORR), 3, 100 + 977 * i); /* one to three bytes */
	pb_stat_int(ev, S(SM_KDET), 7, 1 + i % 3);
	pb_stat_int(ev, S(SM_NAME), 7, 120 + i % 20);  /* refs of one and two bytes */
	pb_stat_int(ev, S(SM_OP), 7, 120 + i % 20);
	pb_stat_int(ev, S(SM_MODULE), 7, 3);
	pb_stat_int(ev, S(SM_PROGRAM), 4, i % 2 ? 7 : 300);
}

static void event(struct pb *line, enum shape shape, int64_t i)
{
	struct pb ev = { 0 }, st = { 0 };
	int64_t off = 1000 * i, dur = 100 + i % 7;

	pb_int(&ev, 1, 1 + i % 3);
	if (shape != NO_OFFSET)
		pb_int(&ev, 2, off);
	pb_int(&ev, 3, dur);
	kernel_stats(&ev, i);
	switch (shape) {
	case KERNEL_TF:
		stat_str(&ev, S(SM_CTX), 5, "$$5");
		stat_str(&ev, S(SM_CTX), 6, "\x01\x02");
		stat_double(&ev, S(SM_CTX));
		pb_stat_int(&ev, S(SM_FAR), 4, 0);
		break;
	case KEPT_TWICE:
		pb_stat_int(&ev, S(SM_OP), 7, 121);
		break;
	case KEPT_STRING:
		stat_str(&ev, S(SM_OP), 5, "fusion.1");
		break;
	case KEPT_DOUBLE:
		stat_double(&ev, S(SM_PROGRAM));
		break;
	case REJECTED:
		pb_stat_int(&ev, S(SM_FLOPS), 3, 5);
		break;
	case TWO_VALUES:
		pb_int(&st, 1, S(SM_CTX));
		pb_int(&st, 3, 1);
		pb_int(&st, 4, 2);
		pb_msg(&ev, 4, &st);
		pb_free(&st);
		break;
	default:
		break;
	}
	pb_msg(line, 4, &ev);
	pb_free(&ev);
}

static const char *const stat_names[] = {
	[SM_CORR] = "correlation_id", [SM_KDET] = "kernel_details",
	[SM_PROGRAM] = "program_id", [SM_MODULE] = "hlo_module", [SM_OP] = "hlo_op",
	[SM_NAME] = "name", [SM_CTX] = "context_id", [SM_FLOPS] = "flops",
};

/* One GPU plane: a kernel line with runs of plain kernels (some longer
 * than a batch) between events of every other shape. */
static struct pb build_space(bool long_runs)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 };
	int64_t i = 0;

	pb_int(&plane, 1, 1);
	pb_str(&plane, 2, "/device:GPU:0");
	pb_int(&line, 1, 16);
	pb_str(&line, 2, "Stream #16(Kernel)");
	pb_int(&line, 3, 5000);
	for (int s = 0; s < N_SHAPES; s++) {
		int run = s == 1 && long_runs ? TP_EVENT_BATCH + 3 : 1 + s % 3;

		for (int k = 0; k < run; k++)
			event(&line, k % 2 ? KERNEL_TF : KERNEL, i++);
		event(&line, (enum shape)s, i++);
	}
	pb_msg(&plane, 3, &line);
	for (int m = 1; m <= 3; m++)
		pb_metadata(&plane, 4, m, m == 1 ? "a" : m == 2 ? "b" : "c");
	for (size_t k = 1; k < sizeof(stat_names) / sizeof(stat_names[0]); k++)
		if (stat_names[k])
			pb_metadata(&plane, 5, S((int64_t)k), stat_names[k]);
	pb_metadata(&plane, 5, SM_FAR, "is_eager");
	pb_msg(&space, 1, &plane);
	pb_free(&line);
	pb_free(&plane);
	return space;
}

/* What each event told: times, and the kept stats (slots of keys()). */
struct seen {
	int64_t meta, start, dur;
	uint8_t kind[TP_BATCH_KEYS];
	uint64_t value[TP_BATCH_KEYS];
};

struct reading {
	struct seen ev[1024];
	size_t n, bulk;
	int rc;
	char text[256];
};

static void keys(const struct tp_plane *pl, struct tp_batch_keys *k)
{
	static const enum tp_stat_name kept[] = { TP_SN_PROGRAM_ID, TP_SN_HLO_MODULE,
						  TP_SN_HLO_OP };

	memset(k, 0, sizeof(*k));
	for (int i = 0; i < 3; i++) {
		k->keep_on[i] = pl->known_stat[kept[i]];
		k->keep[i] = pl->known_stat_id[kept[i]];
	}
	k->reject_on[0] = pl->known_stat[TP_SN_FLOPS];
	k->reject[0] = pl->known_stat_id[TP_SN_FLOPS];
}

/* One at a time: the kept stats from the event's own stats. */
static void note_event(struct reading *r, const struct tp_xspace *xs,
		       const struct tp_plane *pl, const struct tp_batch_keys *k,
		       const struct tp_event *ev)
{
	struct seen *s = &r->ev[r->n++];
	struct tp_stat_iter it;
	struct tp_stat st;

	memset(s, 0, sizeof(*s));
	s->meta = ev->meta ? ev->meta - pl->event_meta : -1;
	s->start = ev->start_ps;
	s->dur = ev->dur_ps;
	tp_stat_iter_init(&it, xs, ev);
	while (tp_stat_iter_next(&it, &st) > 0)
		for (int i = 0; i < TP_BATCH_KEYS; i++)
			if (k->keep_on[i] && st.metadata_id == k->keep[i] && !s->kind[i]) {
				s->kind[i] = (uint8_t)st.kind;
				s->value[i] = st.v.u;
			}
}

static void read_line(const struct tp_xspace *xs, const struct tp_plane *pl,
		      struct tp_line *ln, bool bulk, struct reading *r)
{
	static struct tp_event_batch b;
	struct tp_batch_keys k;
	struct tp_event_iter it;
	struct tp_event ev;

	memset(r, 0, sizeof(*r));
	keys(pl, &k);
	tp_event_iter_init_scan(&it, xs, pl, ln);
	for (;;) {
		size_t n = bulk ? tp_event_iter_batch_keyed(&it, &k, &b) : 0;

		for (size_t i = 0; i < n; i++) {
			struct seen *s = &r->ev[r->n++];

			ck_assert_uint_lt(r->n, sizeof(r->ev) / sizeof(r->ev[0]));
			memset(s, 0, sizeof(*s));
			s->meta = b.meta[i];
			s->start = b.start_ps[i];
			s->dur = b.dur_ps[i];
			for (int j = 0; j < TP_BATCH_KEYS; j++) {
				s->kind[j] = b.kind[j][i];
				s->value[j] = s->kind[j] ? b.value[j][i] : 0;
			}
		}
		r->bulk += n;
		if (n)
			continue;
		if ((r->rc = tp_event_iter_next(&it, &ev)) <= 0)
			break;
		note_event(r, xs, pl, &k, &ev);
	}
	snprintf(r->text, sizeof(r->text), "rc %d %s@%zu events %llu span %d %lld %lld",
		 r->rc, ln->scan_error ? ln->scan_error : "-",
		 ln->scan_error ? ln->scan_error_offset : 0,
		 (unsigned long long)ln->n_events, ln->has_span,
		 (long long)ln->first_start_ps, (long long)ln->last_end_ps);
}

static size_t compare_on(const uint8_t *data, size_t len, const char *what)
{
	struct tp_decode_opts o = { .defer_min_bytes = 1, .threads = 1 };
	static struct reading one, bulk;
	struct tp_error err = { 0 };
	struct tp_xspace xs;
	struct tp_arena a;
	size_t n_bulk = 0;

	tp_arena_init(&a);
	if (tp_xspace_decode_ex(&xs, &a, data, len, "k.pb", &o, &err) == TP_OK) {
		for (size_t l = 0; l < xs.n_planes && l < 1; l++)
			for (size_t j = 0; j < xs.planes[l].n_lines; j++) {
				struct tp_plane *pl = &xs.planes[l];

				read_line(&xs, pl, &pl->lines[j], false, &one);
				read_line(&xs, pl, &pl->lines[j], true, &bulk);
				ck_assert_msg(strcmp(one.text, bulk.text) == 0, "%s: '%s' vs '%s'",
					      what, one.text, bulk.text);
				ck_assert_uint_eq(one.n, bulk.n);
				for (size_t i = 0; i < one.n; i++)
					ck_assert_msg(memcmp(&one.ev[i], &bulk.ev[i],
							     sizeof(one.ev[i])) == 0,
						      "%s: event %zu differs", what, i);
				n_bulk += bulk.bulk;
			}
	}
	tp_arena_release(&a);
	return n_bulk;
}

/* loop: stat ids from 1, and from 65 (past the role table) */
START_TEST(test_same_events)
{
	struct pb b;
	size_t events = 0;

	id_base = _i ? 64 : 0;
	b = build_space(true);

	for (int s = 0; s < N_SHAPES; s++)
		events += (size_t)(s == 1 ? TP_EVENT_BATCH + 3 : 1 + s % 3);
	/* every plain kernel in bulk, the runs' and the KERNEL and KERNEL_TF
	 * shapes' (but the first of the line, read one at a time: the line's
	 * own fields come before it), and no other event */
	ck_assert_uint_eq(compare_on(b.data, b.len, "intact"), events + 2 - 1);
	pb_free(&b);
}
END_TEST

START_TEST(test_same_on_damage)
{
	struct pb b = build_space(false);
	uint8_t *copy = tp_xmalloc(b.len);
	char what[64];

	for (size_t i = 0; i < b.len; i++) {
		memcpy(copy, b.data, b.len);
		copy[i] = 0xff;
		snprintf(what, sizeof(what), "byte %zu", i);
		compare_on(copy, b.len, what);
		snprintf(what, sizeof(what), "cut at %zu", i);
		compare_on(b.data, i, what);
	}
	free(copy);
	pb_free(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("batch_keyed");
	TCase *tc = tcase_create("keyed bulk equals one by one");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_same_events, 0, 2);
	tcase_add_test(tc, test_same_on_damage);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
