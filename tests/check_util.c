/*
 * check_util.c - arena, sizes, units and JSON string helpers.
 */
#include "testutil.h"

#include "tpuprof/util/arena.h"
#include "tpuprof/report/report.h"
#include "tpuprof/util/json_value.h"
#include "tpuprof/util/step_parts.h"
#include "tpuprof/util/strpool.h"

START_TEST(test_arena)
{
	struct tp_arena a;
	char *small, *big;
	void *pb;

	tp_arena_init(&a);
	for (int i = 0; i < 10000; i++) {
		small = tp_arena_alloc(&a, (size_t)(i % 37) + 1);
		ck_assert_uint_eq((uintptr_t)small % 16, 0);
		memset(small, 0xab, (size_t)(i % 37) + 1);
	}
	big = tp_arena_calloc(&a, 8 << 20, 1);     /* bigger than a chunk */
	ck_assert_int_eq(big[(8 << 20) - 1], 0);
	small = tp_arena_strndup(&a, "abcdef", 3);
	ck_assert_str_eq(small, "abc");
	pb = tp_arena_protobuf_allocator(&a)->alloc(&a, 100);
	ck_assert_ptr_nonnull(pb);
	tp_arena_protobuf_allocator(&a)->free(&a, pb); /* no-op */
	ck_assert_uint_ge(a.total, 8u << 20);
	tp_arena_release(&a);
	ck_assert_ptr_null(a.head);
}
END_TEST

/* tp_arena_adopt: another arena's chunks move over (freed with it, no
 * leak under valgrind), its memory still readable, and the adopting
 * arena keeps allocating where it was; an empty one moves nothing. */
START_TEST(test_arena_adopt)
{
	struct tp_arena a, b, none;
	char *in_b, *in_a;
	size_t total;

	tp_arena_init(&a);
	tp_arena_init(&b);
	tp_arena_init(&none);
	tp_arena_adopt(&a, &none);            /* both empty */
	ck_assert_ptr_null(a.head);
	in_b = tp_arena_strdup(&b, "from b");
	(void)tp_arena_alloc(&b, 100000);     /* a second chunk */
	tp_arena_adopt(&a, &b);               /* into an empty one */
	ck_assert_ptr_null(b.head);
	ck_assert_uint_eq(b.total, 0);
	in_a = tp_arena_strdup(&a, "from a");
	tp_arena_init(&b);
	(void)tp_arena_strdup(&b, "again");
	total = a.total + b.total;
	tp_arena_adopt(&a, &b);               /* into one with chunks */
	ck_assert_uint_eq(a.total, total);
	ck_assert_str_eq(in_b, "from b");
	ck_assert_str_eq(in_a, "from a");
	ck_assert_str_eq(tp_arena_strdup(&a, "still a"), "still a");
	tp_arena_release(&a);
}
END_TEST

static const struct {
	const char *text;
	bool ok;
	uint64_t bytes;
} sizes[] = {
	{ "1024", false, 0 },          /* no unit: bytes or GiB? */
	{ "14.5", false, 0 },
	{ "1024B", true, 1024 },
	{ "14.5B", false, 0 },         /* a fraction of a byte */
	{ "14.5GiB", true, UINT64_C(15569256448) },
	{ "512MB", true, 512000000 },
	{ "2k", true, 2048 },
	{ "1 TiB", true, UINT64_C(1099511627776) },
	{ "-1", false, 0 },
	{ "12 parsecs", false, 0 },
	{ "", false, 0 },
	{ "1e30", false, 0 },
};

/* One copy per distinct string, stable across growth, NUL-terminated. */
START_TEST(test_strpool)
{
	static const char *const words[] = { "fusion.1", "fusion.12", "add", "" };
	struct tp_strpool p;
	struct tp_str first[4], again;
	char buf[32];

	tp_strpool_init(&p);
	for (size_t i = 0; i < 4; i++)
		first[i] = tp_strpool_intern(&p, tp_str_make(words[i], strlen(words[i])));
	for (int i = 0; i < 5000; i++) { /* grows the table many times */
		snprintf(buf, sizeof(buf), "op.%d", i);
		tp_strpool_intern(&p, tp_str_make(buf, strlen(buf)));
	}
	for (size_t i = 0; i < 4; i++) {
		/* a copy of the bytes elsewhere finds the same string */
		snprintf(buf, sizeof(buf), "%s", words[i]);
		again = tp_strpool_intern(&p, tp_str_make(buf, strlen(buf)));
		ck_assert_ptr_eq(again.ptr, first[i].ptr);
		ck_assert_str_eq(again.ptr, words[i]);
		ck_assert_uint_eq(again.len, strlen(words[i]));
	}
	ck_assert_ptr_ne(first[0].ptr, first[1].ptr); /* a prefix is not equal */
	ck_assert_uint_eq(p.n, 3 + 5000);             /* "" is not stored */
	tp_strpool_release(&p);
}
END_TEST

/* tp_xzalloc: zeroed at every size, a table's few slots or many pages
 * (past malloc's mmap threshold), and count 0 a valid pointer. */
START_TEST(test_xzalloc)
{
	static const size_t counts[] = { 0, 1, 3, 4096, (size_t)1 << 20 };

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		uint64_t *p = tp_xzalloc(counts[i], sizeof(*p)), any = 0;

		ck_assert_ptr_nonnull(p);
		for (size_t k = 0; k < counts[i]; k++)
			any |= p[k];
		ck_assert_uint_eq(any, 0);
		free(p);
	}
}
END_TEST

/* The hash reads every byte of every length: sixteen at a time, then a
 * tail of 1-16 bytes read in overlapping pieces. One bit flipped at any
 * position of strings of 0-48 bytes changes it, as does the length (a
 * trailing zero byte), and equal bytes anywhere hash the same. */
START_TEST(test_hash_bytes)
{
	char a[64], b[64 + 8];

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (char)(i * 37 + 11);
	for (size_t n = 0; n <= 48; n++) {
		uint64_t h = tp_hash_bytes(a, n);

		memcpy(b + 3, a, n);                  /* unaligned copy */
		ck_assert_uint_eq(tp_hash_bytes(b + 3, n), h);
		b[3 + n] = 0;
		ck_assert_uint_ne(tp_hash_bytes(b + 3, n + 1), h);
		for (size_t i = 0; i < n; i++)
			for (int bit = 0; bit < 8; bit++) {
				b[3 + i] ^= (char)(1 << bit);
				ck_assert_uint_ne(tp_hash_bytes(b + 3, n), h);
				b[3 + i] ^= (char)(1 << bit);
			}
	}
	/* bits at the same place of two words (a product's carries do not
	 * cancel them as FNV-1a's would not either) */
	memcpy(b, a, 32);
	b[7] ^= (char)0x80;
	b[15] ^= (char)0x80;
	ck_assert_uint_ne(tp_hash_bytes(b, 32), tp_hash_bytes(a, 32));
}
END_TEST

START_TEST(test_parse_size)
{
	uint64_t v = 0;

	ck_assert_msg(tp_parse_size(sizes[_i].text, &v) == sizes[_i].ok, "%s", sizes[_i].text);
	if (sizes[_i].ok)
		ck_assert_uint_eq(v, sizes[_i].bytes);
}
END_TEST

static const struct {
	const char *text;
	bool ok;
	double value;
} fractions[] = {
	{ "0.6", true, 0.6 }, { "60%", true, 0.6 }, { "100%", true, 1.0 },
	{ "5", true, 5.0 }, { "60 %", false, 0 }, { "%", false, 0 },
	{ "", false, 0 }, { " 0.6", false, 0 }, { "0.6x", false, 0 },
};

/* "0.6" and "60%" are the same fraction, for every option that takes one */
START_TEST(test_parse_fraction)
{
	double v = -1;

	ck_assert_msg(tp_parse_fraction(fractions[_i].text, &v) == fractions[_i].ok, "%s",
		      fractions[_i].text);
	if (fractions[_i].ok)
		ck_assert_double_eq_tol(v, fractions[_i].value, 1e-12);
}
END_TEST

/* --max-step-time: a duration and its unit, never a bare number. */
static const struct {
	const char *text;
	bool ok;
	int64_t ps;
} durations[] = {
	{ "45ms", true, 45000000000 }, { "40us", true, 40000000 }, { "40.5us", true, 40500000 },
	{ "1s", true, 1000000000000 }, { "250ns", true, 250000 }, { "7ps", true, 7 },
	{ "45", false, 0 }, { "45 ms", false, 0 }, { "-1ms", false, 0 }, { "ms", false, 0 },
	{ "1e7s", false, 0 }, { "5min", false, 0 },
};

START_TEST(test_parse_duration)
{
	int64_t v = -1;

	ck_assert_msg(tp_parse_duration_ps(durations[_i].text, &v) == durations[_i].ok, "%s",
		      durations[_i].text);
	if (durations[_i].ok)
		ck_assert_int_eq(v, durations[_i].ps);
}
END_TEST

static const struct {
	int64_t ps;
	const char *text;
} times[] = {
	{ 0, "0 ps" }, { 999, "999 ps" }, { 1500, "1.500 ns" },
	{ INT64_C(92560000000000), "92.56 s" }, { INT64_C(-2000000), "-2.000 us" },
	/* exact halfway values go to the even digit, decided on the exact
	 * decimal value: printf on the double gave 50.17 and 1.393 */
	{ 50175000, "50.18 us" }, { 1392500, "1.392 us" }, { 1397500, "1.398 us" },
	{ 1592500, "1.592 us" }, { 54315, "54.32 ns" }, { -50175000, "-50.18 us" },
	{ INT64_MIN, "-9223372.0 s" },
};

START_TEST(test_fmt)
{
	char buf[64];

	ck_assert_str_eq(tp_fmt_ps(buf, sizeof(buf), times[_i].ps), times[_i].text);
	ck_assert_str_eq(tp_fmt_bytes(buf, sizeof(buf), 1023), "1023 B");
	/* one formatter for every share: the report and ops print alike */
	ck_assert_str_eq(tp_fmt_share(buf, sizeof(buf), 0.326), "32.6%");
	ck_assert_str_eq(tp_fmt_share(buf, sizeof(buf), 0.0000048), "0.00048%");
	ck_assert_str_eq(tp_fmt_share(buf, sizeof(buf), 0), "0.0%");
	ck_assert_str_eq(tp_fmt_bytes(buf, sizeof(buf), 862707), "842 KiB");
	ck_assert_str_eq(tp_fmt_bytes(buf, sizeof(buf), UINT64_C(21474836512)), "20.0 GiB");
	ck_assert_str_eq(tp_fmt_utc_ns(buf, sizeof(buf), UINT64_C(1741722099081044120)),
			 "2025-03-11 19:41:39 UTC");
}
END_TEST

/* Free memory and its share are upper bounds: cut down, never rounded
 * up (issue 39: "80.0 GiB (100.0%) free" with 8 MiB of 80 GiB used). */
START_TEST(test_fmt_down)
{
	static const struct {
		uint64_t bytes;
		const char *down, *nearest;
	} cases[] = {
		{ (UINT64_C(80) << 30) - (UINT64_C(8) << 20), "79.9 GiB", "80.0 GiB" },
		{ UINT64_C(80) << 30, "80.0 GiB", "80.0 GiB" },          /* exact: the same */
		{ (UINT64_C(32) << 30) - (UINT64_C(16) << 20), "31.9 GiB", "32.0 GiB" },
		{ UINT64_C(1023), "1023 B", "1023 B" },
		{ (UINT64_C(10) << 20) - 1, "9.99 MiB", "10.00 MiB" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_str_eq(tp_fmt_bytes_down(buf, sizeof(buf), cases[i].bytes), cases[i].down);
		ck_assert_str_eq(tp_fmt_bytes(buf, sizeof(buf), cases[i].bytes), cases[i].nearest);
	}
	ck_assert_str_eq(tp_fmt_pct_down(buf, sizeof(buf), 99.990135), "99.9%");
	ck_assert_str_eq(tp_fmt_pct_down(buf, sizeof(buf), 100.0), "100.0%");
	ck_assert_str_eq(tp_fmt_pct_down(buf, sizeof(buf), 35.9), "35.9%");   /* no 35.8 */
	ck_assert_str_eq(tp_fmt_pct_down(buf, sizeof(buf), 0.3), "0.3%");
	ck_assert_str_eq(tp_fmt_pct_down(buf, sizeof(buf), -5.26), "-5.3%"); /* an overrun: as is */
}
END_TEST

/* What to cut is a lower bound: raised, never rounded down, so that
 * cutting the printed amount suffices ("cut at least 71.9 KiB" of an
 * overage of 73,632 B left 6 B over). */
START_TEST(test_fmt_up)
{
	static const struct {
		uint64_t bytes;
		const char *up;
	} cases[] = {
		{ 73632, "72.0 KiB" },                          /* nearest: 71.9 KiB */
		{ UINT64_C(80) << 30, "80.0 GiB" },             /* exact: the same */
		{ (UINT64_C(80) << 30) + 1, "80.1 GiB" },
		{ 1023, "1023 B" },
		{ (UINT64_C(10) << 20) - 1, "10.0 MiB" },      /* a digit fewer past 10 */
		{ (UINT64_C(1) << 20) - 1, "1.00 MiB" },       /* not 1024 KiB */
		{ UINT64_C(1) << 20, "1.00 MiB" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_str_eq(tp_fmt_bytes_up(buf, sizeof(buf), cases[i].bytes), cases[i].up);
}
END_TEST

START_TEST(test_json_scalars)
{
	json_t *j;

	j = tp_json_str(tp_str_make("a\xef\xbf\xbd\xff" "b", 6)); /* invalid 0xff */
	ck_assert_str_eq(json_string_value(j), "a\xef\xbf\xbd\xef\xbf\xbd" "b");
	json_decref(j);
	j = tp_json_uint(UINT64_C(12190760917235803885));
	ck_assert_str_eq(json_string_value(j), "12190760917235803885");
	json_decref(j);
	j = tp_json_int(INT64_C(9007199254740991));
	ck_assert(json_is_integer(j));
	json_decref(j);
	j = tp_json_int(INT64_C(9007199254740992));
	ck_assert(json_is_string(j));
	json_decref(j);
}
END_TEST

/* Where corrupt input is travels in the error, not in its text; a new
 * message or a clear forgets it. */
/* An int64 read back as tp_json_int writes it: a number, or a decimal
 * string past 2^53; nothing else. */
static const struct {
	const char *json;
	bool ok;
	int64_t v;
} ints[] = {
	{ "12", true, 12 },
	{ "-7", true, -7 },
	{ "\"9007199254740993\"", true, INT64_C(9007199254740993) },
	{ "\"-9223372036854775808\"", true, INT64_MIN },
	{ "\"9223372036854775808\"", false, 0 },      /* past int64 */
	{ "\"12x\"", false, 0 },
	{ "\"\"", false, 0 },
	{ "1.5", false, 0 },
	{ "null", false, 0 },
	{ "true", false, 0 },
};

START_TEST(test_json_int_value)
{
	json_t *v = json_loads(ints[_i].json, JSON_DECODE_ANY, NULL);
	int64_t out = 0;

	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(tp_json_int_value(v, &out), ints[_i].ok);
	if (ints[_i].ok)
		ck_assert_int_eq(out, ints[_i].v);
	json_decref(v);
}
END_TEST

/* A mean step by part: the floors, then 1 ps to the largest remainders
 * (ties in part order) up to the mean of the whole; refused where it
 * could not add up. */
static const struct {
	int64_t sums[TP_STEP_PART_COUNT], n;
	bool ok;
	int64_t mean[TP_STEP_PART_COUNT];
} means[] = {
	{ { 10, 10, 10, 1, 0 }, 3, true, { 4, 3, 3, 0, 0 } },
	{ { 2, 3, 0, 0, 6 }, 4, true, { 0, 1, 0, 0, 1 } },
	{ { 1, 1, 1, 1, 1 }, 5, true, { 1, 0, 0, 0, 0 } },
	{ { 8, 2, 4, 2, 4 }, 2, true, { 4, 1, 2, 1, 2 } },
	{ { 0, 0, 0, 0, 0 }, 1, true, { 0, 0, 0, 0, 0 } },
	{ { 1, 0, 0, 0, 0 }, 0, false, { 0 } },
	{ { 1, -1, 0, 0, 0 }, 1, false, { 0 } },
	{ { INT64_MAX, 1, 0, 0, 0 }, 1, false, { 0 } },
};

START_TEST(test_step_parts_mean)
{
	int64_t mean[TP_STEP_PART_COUNT] = { -1, -1, -1, -1, -1 };

	ck_assert_int_eq(tp_step_parts_mean(means[_i].sums, means[_i].n, mean), means[_i].ok);
	for (size_t k = 0; k < TP_STEP_PART_COUNT; k++)
		ck_assert_int_eq(mean[k], means[_i].ok ? means[_i].mean[k] : -1);
}
END_TEST

START_TEST(test_error_corrupt_at)
{
	struct tp_error err = { 0 };

	tp_error_set(&err, TP_ERR_INPUT, "f: corrupt capture at byte 7: x");
	tp_error_corrupt_at(&err, TP_CORRUPT_XSPACE, true, 7, "x (in a plane)");
	ck_assert_int_eq(err.corrupt, TP_CORRUPT_XSPACE);
	ck_assert(err.has_offset);
	ck_assert_uint_eq(err.offset, 7);
	ck_assert_str_eq(err.detail, "x (in a plane)");
	tp_error_set(&err, TP_ERR_USAGE, "something else");
	ck_assert_int_eq(err.corrupt, TP_CORRUPT_NONE);
	ck_assert(!err.has_offset);
	ck_assert_str_eq(err.detail, "");
	tp_error_corrupt_at(&err, TP_CORRUPT_HLO, false, 0, NULL);
	tp_error_clear(&err);
	ck_assert_int_eq(err.code, TP_OK);
	ck_assert_int_eq(err.corrupt, TP_CORRUPT_NONE);
}
END_TEST

/* A message that names a long URL and two long paths keeps its reason:
 * at 1 KiB the reason of a .part's rename was cut off. */
START_TEST(test_error_long_message)
{
	struct tp_error err = { 0 };
	char name[401];
	const char *tail;

	memset(name, 'z', 400);
	name[400] = '\0';
	tp_error_set(&err, TP_ERR_OUTPUT, "https://storage.example/b/o/%s.xplane.pb: cannot rename "
		     "'/data/out/plugins/profile/run/%s.xplane.pb.part' to "
		     "'/data/out/plugins/profile/run/%s.xplane.pb': No space left on device",
		     name, name, name);
	tail = err.msg + strlen(err.msg) - strlen(": No space left on device");
	ck_assert_str_eq(tail, ": No space left on device");
}
END_TEST

/* The system's map count as the kernel says it (the riegeli views' runs
 * and the decoder's long lines are budgeted from it). */
START_TEST(test_system_map_count)
{
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
	unsigned long want = 65530;

	if (f) {
		ck_assert_int_eq(fscanf(f, "%lu", &want), 1);
		fclose(f);
	}
	ck_assert_uint_eq(tp_system_map_count(), want);
	ck_assert_uint_eq(tp_system_map_count(), want); /* cached */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_arena);
	tcase_add_test(tc, test_arena_adopt);
	tcase_add_test(tc, test_strpool);
	tcase_add_test(tc, test_xzalloc);
	tcase_add_test(tc, test_hash_bytes);
	tcase_add_loop_test(tc, test_parse_size, 0, sizeof(sizes) / sizeof(sizes[0]));
	tcase_add_loop_test(tc, test_parse_fraction, 0, sizeof(fractions) / sizeof(fractions[0]));
	tcase_add_loop_test(tc, test_parse_duration, 0, sizeof(durations) / sizeof(durations[0]));
	tcase_add_loop_test(tc, test_fmt, 0, sizeof(times) / sizeof(times[0]));
	tcase_add_test(tc, test_fmt_down);
	tcase_add_test(tc, test_fmt_up);
	tcase_add_test(tc, test_json_scalars);
	tcase_add_loop_test(tc, test_json_int_value, 0, sizeof(ints) / sizeof(ints[0]));
	tcase_add_loop_test(tc, test_step_parts_mean, 0, sizeof(means) / sizeof(means[0]));
	tcase_add_test(tc, test_error_corrupt_at);
	tcase_add_test(tc, test_error_long_message);
	tcase_add_test(tc, test_system_map_count);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
