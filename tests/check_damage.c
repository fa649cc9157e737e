/*
 * check_damage.c - damaged parts are left out, the rest is read
 * (src/decode/capture/damage.c). The inputs are testdata/corrupt/damaged-*
 * from tests/make_corrupt.py: testdata/small.xplane.pb with one embedded
 * HLO module, one line, one plane stat or one plane's framing damaged, or
 * three of them at once; and truncated.xplane.pb, cut short.
 */
#include "testutil.h"

#include "tpuprof/decode/capture.h"
#include "tpuprof/analyze/info.h"
#include "tpuprof/analyze/ops.h"

#define CORRUPT "testdata/corrupt/"

static enum tp_err open_one(struct tp_capture *cap, const char *path, bool partial,
			    size_t defer, struct tp_error *err)
{
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT, .partial = partial,
				  .defer_min_bytes = defer };

	return tp_capture_open(cap, &path, 1, &o, err);
}

static const struct tp_plane *plane_named(const struct tp_capture *cap, const char *name)
{
	for (size_t i = 0; i < cap->hosts[0].xs.n_planes; i++)
		if (tp_str_eq(cap->hosts[0].xs.planes[i].name, name))
			return &cap->hosts[0].xs.planes[i];
	return NULL;
}

START_TEST(test_damaged_line)
{
	struct tp_capture cap;
	struct tp_error err = { 0 };
	const struct tp_plane *p0, *p1;

	ck_assert_int_eq(open_one(&cap, CORRUPT "damaged-line.xplane.pb", false, 0, &err), TP_OK);
	ck_assert_uint_eq(cap.n_damage, 1);
	ck_assert_str_eq(cap.damage[0].part, "line 'XLA Ops' of plane '/device:TPU:0'");
	ck_assert_uint_eq(cap.damage[0].offset, 162);
	ck_assert_str_eq(cap.damage[0].what,
			 "invalid field number (in an event of line 'XLA Ops' of plane '/device:TPU:0')");
	p0 = plane_named(&cap, "/device:TPU:0");
	p1 = plane_named(&cap, "/device:TPU:1");
	ck_assert_ptr_nonnull(p0);
	ck_assert_ptr_nonnull(p1);
	ck_assert_uint_eq(p0->n_lines, 1);   /* XLA Modules only */
	ck_assert_uint_eq(p1->n_lines, 2);
	ck_assert_uint_eq(p1->lines[1].n_events, 200);
	ck_assert_uint_eq(cap.n_modules, 2);
	tp_capture_release(&cap);
}
END_TEST

START_TEST(test_damaged_plane_stat_and_framing)
{
	struct tp_capture cap;
	struct tp_error err = { 0 };

	ck_assert_int_eq(open_one(&cap, CORRUPT "damaged-plane-stat.xplane.pb", false, 0, &err), TP_OK);
	ck_assert_uint_eq(cap.n_damage, 1);
	ck_assert_str_eq(cap.damage[0].part, "a stat of plane '/device:TPU:0'");
	ck_assert_uint_eq(cap.damage[0].offset, 22659);
	ck_assert_uint_eq(cap.hosts[0].xs.n_planes, 5);
	ck_assert_uint_eq(plane_named(&cap, "/device:TPU:0")->n_lines, 2);
	tp_capture_release(&cap);

	ck_assert_int_eq(open_one(&cap, CORRUPT "damaged-plane-framing.xplane.pb", false, 0, &err), TP_OK);
	ck_assert_uint_eq(cap.n_damage, 1);
	ck_assert_str_eq(cap.damage[0].part, "plane '/device:TPU:1'");
	ck_assert_uint_eq(cap.damage[0].offset, 22739);
	ck_assert_uint_eq(cap.hosts[0].xs.n_planes, 4);
	ck_assert_ptr_null(plane_named(&cap, "/device:TPU:1"));
	tp_capture_release(&cap);
}
END_TEST

/* The damaged module of damaged-three-parts, as decoding leaves it: the
 * third damage, at the file's offset; the other module decoded. */
static void module_damaged(const struct tp_capture *cap)
{
	ck_assert_uint_eq(cap->n_damage, 3);
	ck_assert_str_eq(cap->damage[2].part, "HLO module 'jit_train_step'");
	ck_assert_uint_eq(cap->damage[2].offset, 45601);
	ck_assert_str_eq(cap->damage[2].what, "invalid wire type");
	ck_assert(cap->modules[0].damaged);
	ck_assert_ptr_null(cap->modules[0].hlo);
	ck_assert_ptr_nonnull(cap->modules[1].hlo);
}

/* The module is found damaged when an analysis decodes it; its offset is
 * that of the file even after the line and stat before it were cut. */
START_TEST(test_three_parts)
{
	struct tp_capture cap;
	struct tp_error err = { 0 };
	struct tp_info info;

	ck_assert_int_eq(open_one(&cap, CORRUPT "damaged-three-parts.xplane.pb", false, 0, &err), TP_OK);
	ck_assert_uint_eq(cap.n_damage, 2);
	ck_assert_int_eq(tp_info_build(&info, &cap, &err), TP_OK);
	ck_assert_uint_eq(cap.damage[0].offset, 22659);
	ck_assert_uint_eq(cap.damage[1].offset, 162);
	module_damaged(&cap);
	ck_assert_uint_eq(info.n_modules, 1);   /* jit_f */
	ck_assert_str_eq(info.warnings[info.n_warnings - 1],
			 CORRUPT "damaged-three-parts.xplane.pb: skipped HLO module 'jit_train_step', damaged at byte 45601: invalid wire type");
	tp_info_release(&info);
	tp_capture_release(&cap);
}
END_TEST

/* The same module decoded with the others at once (the ops pass's
 * tp_capture_decode_modules): the same damage, at the same offset. */
START_TEST(test_three_parts_at_once)
{
	struct tp_capture cap;
	struct tp_error err = { 0 };

	ck_assert_int_eq(open_one(&cap, CORRUPT "damaged-three-parts.xplane.pb", false, 0, &err), TP_OK);
	ck_assert_int_eq(tp_capture_decode_modules(&cap, NULL, &err), TP_OK);
	module_damaged(&cap);
	tp_capture_release(&cap);
}
END_TEST

START_TEST(test_cut_short)
{
	struct tp_capture cap;
	struct tp_error err = { 0 };

	ck_assert_int_eq(open_one(&cap, CORRUPT "truncated.xplane.pb", false, 0, &err), TP_ERR_INPUT);
	/* the message points to the fix */
	ck_assert_str_eq(err.msg, CORRUPT "truncated.xplane.pb: capture cut short (still being written?) at byte 22718: length runs past the end of its message (in the top-level XSpace message); --partial reads it up to its last complete plane, or try again once it is complete");
	ck_assert_int_eq(open_one(&cap, CORRUPT "truncated.xplane.pb", true, 0, &err), TP_OK);
	ck_assert_uint_eq(cap.hosts[0].xs.n_planes, 1);
	ck_assert_uint_eq(cap.n_damage, 1);
	ck_assert_str_eq(cap.damage[0].part,
			 "the incomplete plane at byte 22717 (12785 bytes; the file is cut short)");
	ck_assert_uint_eq(cap.damage[0].offset, 22718);
	tp_capture_release(&cap);
}
END_TEST

/* Every byte >= 0x80 of a real capture replaced: its top-level framing
 * is gone, so it stays refused, --partial or not, and the message names
 * the text-mode copy that did it. */
START_TEST(test_mangled_stays_refused)
{
	NEED_SHARED();
	const char *path = "../shared/captures/bad-tpu-v6e-mangled-bytes/tpu_inference_2.xplane.pb";
	char want[512];
	struct tp_capture cap;
	struct tp_error err = { 0 };

	if (access(path, R_OK) != 0)
		return;
	snprintf(want, sizeof(want),
		 "%s: corrupt capture at byte 1: length runs past the end of its message (in the top-level XSpace message); "
		 "damaged by a text-mode copy: its bytes above 0x7f became EF BF BD (U+FFFD, 12704 times in its first 65536 bytes); "
		 "copy it again as binary", path);
	ck_assert_int_eq(open_one(&cap, path, false, 0, &err), TP_ERR_INPUT);
	ck_assert_str_eq(err.msg, want);
	ck_assert_int_eq(open_one(&cap, path, true, 0, &err), TP_ERR_INPUT);
	ck_assert_str_eq(err.msg, want);
}
END_TEST

/* A line deferred to the analysis is damaged: the analysis fails, the
 * capture is reopened whole and the line left out. */
START_TEST(test_deferred_line_reopened)
{
	const char *path = CORRUPT "damaged-line.xplane.pb";
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT, .defer_min_bytes = 1 };
	struct tp_capture cap;
	struct tp_error err = { 0 };

	ck_assert_int_eq(tp_capture_open(&cap, &path, 1, &o, &err), TP_OK);
	ck_assert_uint_eq(cap.n_damage, 0);
	ck_assert_int_eq(tp_capture_finish_scan(&cap, &err), TP_ERR_INPUT);
	ck_assert(tp_capture_reopen_whole(&cap, &path, 1, &o, &err));
	ck_assert_uint_eq(o.defer_min_bytes, 0);
	ck_assert_uint_eq(cap.n_damage, 1);
	ck_assert_uint_eq(cap.damage[0].offset, 162);
	ck_assert_int_eq(tp_capture_finish_scan(&cap, &err), TP_OK);
	/* another failure is not damage: nothing reopened */
	tp_error_set(&err, TP_ERR_INPUT, "x: cannot open: No such file or directory");
	o.defer_min_bytes = 1;
	ck_assert(!tp_capture_reopen_whole(&cap, &path, 1, &o, &err));
	ck_assert_uint_eq(cap.n_damage, 1);
	tp_capture_release(&cap);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("damage");
	TCase *tc = tcase_create("damage");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_damaged_line);
	tcase_add_test(tc, test_damaged_plane_stat_and_framing);
	tcase_add_test(tc, test_three_parts);
	tcase_add_test(tc, test_three_parts_at_once);
	tcase_add_test(tc, test_cut_short);
	tcase_add_test(tc, test_mangled_stays_refused);
	tcase_add_test(tc, test_deferred_line_reopened);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
