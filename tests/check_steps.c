/*
 * check_steps.c - where steps come from besides a Steps line, with values
 * worked out by hand on captures built here: GPU steps (one per execution
 * of the busiest program's kernels), steps from the op events' group_id
 * stat, and each step's compute by op category; and the generator's GPU
 * steps cases (tests/make_testdata.sh), against its ground truth.
 */
#include "testutil.h"
#include "steps_testutil.h"

#include <jansson.h>

#include "tpuprof/analyze/advice.h"
#include "tpuprof/analyze/ops.h"

#include <inttypes.h>

/* XStatMetadata entries: ids 1.. for names[] */
static void stat_metas(struct pb *plane, const char *const *names, size_t n, int64_t first)
{
	for (size_t k = 0; k < n; k++) {
		struct pb sm = { 0 }, entry = { 0 };

		pb_int(&sm, 1, first + (int64_t)k);
		pb_str(&sm, 2, names[k]);
		pb_int(&entry, 1, first + (int64_t)k);
		pb_msg(&entry, 2, &sm);
		pb_msg(plane, 5, &entry);
		pb_free(&sm);
		pb_free(&entry);
	}
}

/* An XEventMetadata with a name and, when cat, the TPU op stats
 * program_id (1), symbol_id (2) and hlo_category (3). */
static void event_meta(struct pb *plane, int64_t id, int64_t program, const char *name,
		       const char *cat)
{
	struct pb em = { 0 }, entry = { 0 }, st = { 0 };

	pb_int(&em, 1, id);
	pb_str(&em, 2, name);
	pb_str(&em, 4, name);
	if (cat) {
		pb_int(&st, 1, 1);
		pb_int(&st, 3, program);
		pb_msg(&em, 5, &st);
		pb_free(&st);
		pb_int(&st, 1, 2);
		pb_int(&st, 3, id);
		pb_msg(&em, 5, &st);
		pb_free(&st);
		pb_int(&st, 1, 3);
		pb_str(&st, 5, cat);
		pb_msg(&em, 5, &st);
		pb_free(&st);
	}
	pb_int(&entry, 1, id);
	pb_msg(&entry, 2, &em);
	pb_msg(plane, 4, &entry);
	pb_free(&em);
	pb_free(&entry);
}

/* One event: metadata, offset, duration and up to three stats, each
 * {stat metadata id, XStat value field (4 int64, 7 ref), value};
 * a stat id of 0 ends the list. */
struct ev {
	int64_t meta, start, dur;
	int64_t stats[3][3];
};

/* strs: ref values (field 7) written as the strings they name instead,
 * strs[value - 1] (field 5): not what bulk reading keeps, so such events
 * are read one at a time. */
static void line(struct pb *plane, int64_t id, const char *name, const struct ev *v, size_t n,
		 const char *const *strs)
{
	struct pb ln = { 0 };

	pb_int(&ln, 1, id);
	pb_str(&ln, 2, name);
	for (size_t i = 0; i < n; i++) {
		struct pb e = { 0 };

		pb_int(&e, 1, v[i].meta);
		pb_int(&e, 2, v[i].start);
		pb_int(&e, 3, v[i].dur);
		for (size_t k = 0; k < 3 && v[i].stats[k][0]; k++) {
			struct pb st = { 0 };

			pb_int(&st, 1, v[i].stats[k][0]);
			if (strs && v[i].stats[k][1] == 7)
				pb_str(&st, 5, strs[v[i].stats[k][2] - 1]);
			else
				pb_int(&st, (uint32_t)v[i].stats[k][1], v[i].stats[k][2]);
			pb_msg(&e, 4, &st);
			pb_free(&st);
		}
		pb_msg(&ln, 4, &e);
		pb_free(&e);
	}
	pb_msg(plane, 3, &ln);
	pb_free(&ln);
}

static void build(struct tp_capture *cap, struct tp_ops *ops, struct pb *plane, char **path)
{
	struct pb space = { 0 };
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_error err = { 0 };
	const char *paths[1];

	pb_msg(&space, 1, plane);
	pb_free(plane);
	*path = write_temp(".xplane.pb", space.data, space.len);
	pb_free(&space);
	paths[0] = *path;
	ck_assert_int_eq(tp_capture_open(cap, paths, 1, &o, &err), TP_OK);
	ck_assert_int_eq(tp_ops_build(ops, cap, NULL, &err), TP_OK);
}

static void done(struct tp_capture *cap, struct tp_ops *ops, char *path)
{
	tp_ops_release(ops);
	tp_capture_release(cap);
	unlink(path);
	free(path);
}

/* The stats of the GPU tests' kernels (stat metadata ids 1..) and the
 * names they refer to; K: a kernel's three stats (program id, hlo_op and
 * hlo_module as refs). */
static const char *const gpu_names[] = { "program_id", "hlo_op", "hlo_module",
					 "a.1", "b.1", "c.1", "jit_a", "jit_b" };
enum { PROG = 1, OP = 2, MOD = 3, A1 = 4, B1 = 5, C1 = 6, JA = 7, JB = 8 };
#define K(p, op, m) { { PROG, 4, p }, { OP, 7, op }, { MOD, 7, m } }
#define N_GPU_NAMES (sizeof(gpu_names) / sizeof(gpu_names[0]))

/* The steps both GPU tests below find: program 5's three executions,
 * {start, dur, compute, idle}. */
static const int64_t gpu_want[][4] = {
	{ 1000, 600, 400, 200 }, { 1600, 600, 350, 250 }, { 2200, 700, 500, 200 },
};

/* A GPU plane of two kernel streams, or one where n2 is 0 (strs: refs
 * written as strings), built, its steps checked against gpu_want. */
static void gpu_two_streams(struct tp_capture *cap, struct tp_ops *ops, char **path,
			    const struct ev *s1, size_t n1, const struct ev *s2, size_t n2,
			    const char *const *names, size_t n_names, bool strs)
{
	struct pb plane = { 0 };
	const struct tp_step *st;

	pb_str(&plane, 2, "/device:GPU:0");
	line(&plane, 16, "Stream #16(Kernel)", s1, n1, strs ? names : NULL);
	if (n2)
		line(&plane, 17, "Stream #17(Kernel)", s2, n2, strs ? names : NULL);
	event_meta(&plane, 1, 0, "kernel", NULL);
	stat_metas(&plane, names, n_names, 1);
	build(cap, ops, &plane, path);
	ck_assert_uint_eq(ops->n_cores, 1);
	ck_assert_int_eq(ops->cores[0].source, TP_OPSRC_GPU);
	ck_assert_int_eq(ops->cores[0].step_source, TP_STEPS_INFERRED);
	ck_assert_uint_eq(ops->cores[0].step_program_id, 5);
	ck_assert(tp_str_eq(ops->cores[0].step_program, "jit_a"));
	ck_assert_uint_eq(ops->cores[0].n_steps, 3);
	st = &ops->steps[ops->cores[0].first_step];
	for (size_t i = 0; i < 3; i++) {
		ck_assert_int_eq(st[i].start_ps, gpu_want[i][0]);
		ck_assert_int_eq(st[i].dur_ps, gpu_want[i][1]);
		ck_assert_int_eq(st[i].compute_ps, gpu_want[i][2]);
		ck_assert_int_eq(st[i].idle_ps, gpu_want[i][3]);
	}
}

/* A GPU core: program 5 (jit_a, kernels a.1 then b.1 or b.1 twice) runs
 * three times, twice back to back; program 6 (jit_b, kernel c.1) runs
 * on a second stream, once inside the third execution. Program 5 has
 * the most kernel time (1250 ps against 550), so its executions are the
 * steps: each starts at an a.1 (the op its first kernel ran) and runs to
 * the next one's start, the last to its end.
 *   0: a.1 1000+100, b.1 1200+300        -> 1000..1600, compute 400, idle 200
 *   1: a.1 1600+100, b.1 1750+250        -> 1600..2200, compute 350, idle 250
 *   2: a.1 2200+100, b.1 2400+300, b.1 2800+100, and c.1 2450+50 (program
 *      6, on the other stream inside b.1: each instant once)
 *                                        -> 2200..2900, compute 500, idle 200
 * c.1 at 3000 is in no step: 500 ps of compute outside the steps. Loop 0:
 * hlo_op and hlo_module are refs (read in bulk); 1: strings (read one
 * event at a time): the same steps. */
static const struct ev gpu_s1[] = {
	{ 1, 1000, 100, K(5, A1, JA) }, { 1, 1200, 300, K(5, B1, JA) },
	{ 1, 1600, 100, K(5, A1, JA) }, { 1, 1750, 250, K(5, B1, JA) },
	{ 1, 2200, 100, K(5, A1, JA) }, { 1, 2400, 300, K(5, B1, JA) },
	{ 1, 2800, 100, K(5, B1, JA) },
};
static const struct ev gpu_s2[] = {
	{ 1, 2450, 50, K(6, C1, JB) }, { 1, 3000, 500, K(6, C1, JB) },
};
#define N_S1 (sizeof(gpu_s1) / sizeof(gpu_s1[0]))
#define N_S2 (sizeof(gpu_s2) / sizeof(gpu_s2[0]))

START_TEST(test_gpu_steps)
{
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_steps_summary sum;
	const struct tp_step *st;
	char *path;

	gpu_two_streams(&cap, &ops, &path, gpu_s1, N_S1, gpu_s2, N_S2, gpu_names, N_GPU_NAMES,
			_i);
	st = &ops.steps[ops.cores[0].first_step];
	for (size_t i = 0; i < 3; i++) {
		char name[24];

		snprintf(name, sizeof(name), "%zu", i);
		ck_assert(tp_str_eq(st[i].name, name));
		ck_assert_int_eq(st[i].collective_ps + st[i].copy_ps, 0);
		ck_assert(!st[i].warmup);
		/* no HLO: one category, the empty one, holding all compute */
		ck_assert_uint_eq(st[i].n_cats, 1);
		ck_assert_int_eq(st[i].cats[0].ps, gpu_want[i][2]);
	}
	ck_assert_int_eq(ops.cores[0].outside_ps[TP_PART_COMPUTE], 500);
	ck_assert_int_eq(ops.cores[0].outside_ps[TP_PART_COLLECTIVE], 0);
	tp_steps_summarize(&ops, &ops.cores[0], &sum);
	ck_assert_int_eq(sum.sum_ps, 1900);
	ck_assert_int_eq(sum.compute_ps, 1250);
	ck_assert_int_eq(sum.idle_ps, 650);
	ck_assert_int_eq(sum.step_ps, 633);
	done(&cap, &ops, path);
}
END_TEST

/* The executions of test_gpu_steps' program 5 with its b.1 kernels on
 * the first stream and its a.1 kernels on the second: read stream by
 * stream, its kernels come out of start order (a.1 at 1000 after b.1 at
 * 2800), and are sorted before the runs are cut (gpu_runs.c): its first
 * kernel is a.1, so the same three steps, each holding the same compute
 * (read unsorted, b.1 would start four). Loop as in test_gpu_steps. */
START_TEST(test_gpu_steps_unsorted)
{
	static const struct ev s1[] = {
		{ 1, 1000, 100, K(5, A1, JA) }, { 1, 1600, 100, K(5, A1, JA) },
		{ 1, 2200, 100, K(5, A1, JA) },
	};
	static const struct ev s2[] = {
		{ 1, 1200, 300, K(5, B1, JA) }, { 1, 1750, 250, K(5, B1, JA) },
		{ 1, 2400, 300, K(5, B1, JA) }, { 1, 2800, 100, K(5, B1, JA) },
	};
	struct tp_capture cap;
	struct tp_ops ops;
	char *path;

	/* the b.1 stream first */
	gpu_two_streams(&cap, &ops, &path, s2, sizeof(s2) / sizeof(s2[0]), s1,
			sizeof(s1) / sizeof(s1[0]), gpu_names, N_GPU_NAMES, _i);
	ck_assert_int_eq(ops.cores[0].outside_ps[TP_PART_COMPUTE], 0);
	done(&cap, &ops, path);
}
END_TEST

/* test_gpu_steps' kernels on one stream, c.1 at 2450 nested in b.1 at
 * 2400 (it owns its 50 ps, the same kind): with one kernel line, each
 * program's executions are cut as the op pass reads its kernels and the
 * pieces wait packed for the steps (gpu_runs.c, packed.h); the same
 * steps and parts. Loop 2..3: the line out of order (a.1 at 1600 before
 * the one at 1000), so that program 5's kernels are cut again from its
 * plane read sorted, and the op pass nests the line the general way:
 * the same again. Loop 0..1 (2..3): refs, strings. */
START_TEST(test_gpu_steps_one_stream)
{
	static const int64_t want_runs[][2] = { { 1000, 500 }, { 1600, 400 }, { 2200, 700 } };
	struct tp_program_time best = { 0 };
	struct tp_step_run *runs = NULL;
	struct ev v[N_S1 + N_S2];
	size_t n = 0, a = 0, b = 0;
	struct tp_capture cap;
	struct tp_ops ops;
	char *path;

	/* test_gpu_steps' two streams merged by start */
	while (a < N_S1 || b < N_S2)
		v[n++] = b == N_S2 || (a < N_S1 && gpu_s1[a].start < gpu_s2[b].start) ?
				 gpu_s1[a++] : gpu_s2[b++];
	if (_i >= 2) { /* a.1 at 1600 first */
		struct ev t = v[2];

		v[2] = v[1];
		v[1] = v[0];
		v[0] = t;
	}
	gpu_two_streams(&cap, &ops, &path, v, n, NULL, 0, gpu_names, N_GPU_NAMES, _i % 2);
	ck_assert_int_eq(ops.cores[0].outside_ps[TP_PART_COMPUTE], 500);
	ck_assert_int_eq(ops.ops[0].self_ps + ops.ops[1].self_ps + ops.ops[2].self_ps, 1750);
	ck_assert_int_eq(ops.cores[0].self_ps, 1750);
	/* the trace's step track reads the plane itself: the same runs, each
	 * to its last kernel's end */
	n = tp_ops_gpu_program_runs(&cap.hosts[0].xs, ops.cores[0].plane, &best, &runs);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(best.id, 5);
	for (size_t i = 0; i < 3; i++) {
		ck_assert_int_eq(runs[i].start_ps, want_runs[i][0]);
		ck_assert_int_eq(runs[i].dur_ps, want_runs[i][1]);
	}
	free(runs);
	done(&cap, &ops, path);
}
END_TEST

/* GPU kernels that name no program (no program_id stat on them): ops,
 * but no steps to infer, and so nothing outside them either (the pieces
 * swept for steps that might come are dropped). Loop: one stream, two. */
START_TEST(test_gpu_no_program)
{
	static const struct ev s[] = {
		{ 1, 1000, 100, { { OP, 7, A1 }, { MOD, 7, JA } } },
		{ 1, 1200, 300, { { OP, 7, A1 }, { MOD, 7, JA } } },
	};
	struct pb plane = { 0 };
	struct tp_capture cap;
	struct tp_ops ops;
	char *path;

	pb_str(&plane, 2, "/device:GPU:0");
	line(&plane, 16, "Stream #16(Kernel)", s, 2, NULL);
	if (_i)
		line(&plane, 17, "Stream #17(Kernel)", s, 1, NULL);
	event_meta(&plane, 1, 0, "kernel", NULL);
	stat_metas(&plane, gpu_names, N_GPU_NAMES, 1);
	build(&cap, &ops, &plane, &path);
	ck_assert_uint_eq(ops.n_cores, 1);
	ck_assert_int_eq(ops.cores[0].source, TP_OPSRC_GPU);
	ck_assert_int_eq(ops.cores[0].step_source, TP_STEPS_NONE);
	ck_assert_uint_eq(ops.cores[0].n_steps, 0);
	ck_assert_int_eq(ops.cores[0].self_ps, _i ? 500 : 400);
	for (int k = 0; k < TP_PARTS; k++)
		ck_assert_int_eq(ops.cores[0].outside_ps[k], 0);
	done(&cap, &ops, path);
}
END_TEST

/* A TF core (its ops on a "TensorFlow Ops" line) whose events carry
 * group_id: the groups are found by the op pass as it reads the line
 * (steps.c, late steps), then the pieces go into them.
 *   group 7: MatMul 1000+200, Relu 1300+100 -> 1000..1400, compute 300,
 *            idle 100
 *   group 8: MatMul 2000+300               -> 2000..2300, compute 300
 * Relu at 2400 has no group_id and MatMul at 2500 a negative one: 150 ps
 * of compute outside the steps. Loop bit 1: each event also carries
 * flops (read one at a time); bit 2: an empty "Steps" line (said apart,
 * the same steps). */
START_TEST(test_tf_group_steps)
{
	static const char *const names[] = { "group_id", "flops" };
	static const struct ev bulk[] = {
		{ 1, 1000, 200, { { 1, 4, 7 } } }, { 2, 1300, 100, { { 1, 4, 7 } } },
		{ 1, 2000, 300, { { 1, 4, 8 } } }, { 2, 2400, 100, { { 0 } } },
		{ 1, 2500, 50, { { 1, 4, -1 } } },
	};
	static const struct ev one[] = {
		{ 1, 1000, 200, { { 1, 4, 7 }, { 2, 4, 10 } } },
		{ 2, 1300, 100, { { 1, 4, 7 }, { 2, 4, 10 } } },
		{ 1, 2000, 300, { { 1, 4, 8 }, { 2, 4, 10 } } }, { 2, 2400, 100, { { 2, 4, 10 } } },
		{ 1, 2500, 50, { { 1, 4, -1 }, { 2, 4, 10 } } },
	};
	static const int64_t want[][4] = { { 1000, 400, 300, 100 }, { 2000, 300, 300, 0 } };
	struct pb plane = { 0 };
	struct tp_capture cap;
	struct tp_ops ops;
	const struct tp_step *st;
	char *path;

	pb_str(&plane, 2, "/device:GPU:0");
	if (_i & 2)
		line(&plane, 1, "Steps", NULL, 0, NULL);
	line(&plane, 2, "TensorFlow Ops", _i & 1 ? one : bulk, 5, NULL);
	event_meta(&plane, 1, 0, "MatMul", NULL);
	event_meta(&plane, 2, 0, "Relu", NULL);
	stat_metas(&plane, names, 2, 1);
	build(&cap, &ops, &plane, &path);
	ck_assert_uint_eq(ops.n_cores, 1);
	ck_assert_int_eq(ops.cores[0].source, TP_OPSRC_TF);
	ck_assert_int_eq(ops.cores[0].step_source,
			 _i & 2 ? TP_STEPS_GROUP_EMPTY_LINE : TP_STEPS_GROUP);
	ck_assert_uint_eq(ops.cores[0].n_steps, 2);
	st = &ops.steps[ops.cores[0].first_step];
	ck_assert(tp_str_eq(st[0].name, "7"));
	ck_assert(tp_str_eq(st[1].name, "8"));
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(st[i].start_ps, want[i][0]);
		ck_assert_int_eq(st[i].dur_ps, want[i][1]);
		ck_assert_int_eq(st[i].compute_ps, want[i][2]);
		ck_assert_int_eq(st[i].idle_ps, want[i][3]);
	}
	ck_assert_int_eq(ops.cores[0].outside_ps[TP_PART_COMPUTE], 150);
	done(&cap, &ops, path);
}
END_TEST

/* A TPU core whose XLA Ops events carry group_id (stat 4): the groups
 * are the steps, before the XLA Modules line's runs would be inferred.
 *   group 3: add.1 1000+100, fusion.1 1150+200, all-reduce.1 1400+50
 *            -> 1000..1450: compute 300 (loop fusion 200, non-fusion
 *               elementwise 100), collective 50, idle 100
 *   group 4: add.1 2000+100, copy-done.1 2300+100 (listed first: the
 *            file's order does not matter) -> 2000..2400: compute 100,
 *               copy 100, idle 200
 * add.1 at 2500 has no group_id and fusion.1 at 2600 a negative one: in
 * no step. */
START_TEST(test_group_steps)
{
	static const char *const names[] = { "program_id", "symbol_id", "hlo_category",
					     "group_id" };
	static const struct ev modules[] = { { 20, 900, 2100, { { 0 } } } };
	static const struct ev opev[] = {
		{ 7, 1000, 100, { { 4, 4, 3 } } }, { 10, 1150, 200, { { 4, 4, 3 } } },
		{ 8, 1400, 50, { { 4, 4, 3 } } }, { 9, 2300, 100, { { 4, 4, 4 } } },
		{ 7, 2000, 100, { { 4, 4, 4 } } }, { 7, 2500, 30, { { 0 } } },
		{ 10, 2600, 10, { { 4, 4, -1 } } },
	};
	struct pb plane = { 0 };
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_step_cat *cats;
	const struct tp_step *st;
	char *path;

	pb_str(&plane, 2, "/device:TPU:0");
	line(&plane, 1, "XLA Modules", modules, 1, NULL);
	line(&plane, 2, "XLA Ops", opev, sizeof(opev) / sizeof(opev[0]), NULL);
	event_meta(&plane, 20, 0, "jit_a(1)", NULL);
	event_meta(&plane, 7, 1, "add.1", "non-fusion elementwise");
	event_meta(&plane, 8, 1, "all-reduce.1", "all-reduce");
	event_meta(&plane, 9, 1, "copy-done.1", "copy-done");
	event_meta(&plane, 10, 1, "fusion.1", "loop fusion");
	stat_metas(&plane, names, 4, 1);
	build(&cap, &ops, &plane, &path);
	ck_assert_int_eq(ops.cores[0].step_source, TP_STEPS_GROUP);
	ck_assert_uint_eq(ops.cores[0].n_steps, 2);
	st = &ops.steps[ops.cores[0].first_step];
	ck_assert(tp_str_eq(st[0].name, "3"));
	ck_assert_int_eq(st[0].start_ps, 1000);
	ck_assert_int_eq(st[0].dur_ps, 450);
	ck_assert_int_eq(st[0].compute_ps, 300);
	ck_assert_int_eq(st[0].collective_ps, 50);
	ck_assert_int_eq(st[0].copy_ps, 0);
	ck_assert_int_eq(st[0].idle_ps, 100);
	ck_assert_uint_eq(st[0].n_cats, 2);
	ck_assert(tp_str_eq(st[0].cats[0].category, "loop fusion"));
	ck_assert_int_eq(st[0].cats[0].ps, 200);
	ck_assert(tp_str_eq(st[0].cats[1].category, "non-fusion elementwise"));
	ck_assert_int_eq(st[0].cats[1].ps, 100);
	ck_assert(tp_str_eq(st[1].name, "4"));
	ck_assert_int_eq(st[1].start_ps, 2000);
	ck_assert_int_eq(st[1].dur_ps, 400);
	ck_assert_int_eq(st[1].compute_ps, 100);
	ck_assert_int_eq(st[1].copy_ps, 100);
	ck_assert_int_eq(st[1].idle_ps, 200);
	ck_assert_uint_eq(st[1].n_cats, 1);
	ck_assert(tp_str_eq(st[1].cats[0].category, "non-fusion elementwise"));
	ck_assert_int_eq(st[1].cats[0].ps, 100);
	/* steady: both steps; loop fusion 200 and non-fusion elementwise 200
	 * (ties by name), summing to compute 400 */
	ck_assert_uint_eq(tp_steps_steady_categories(&ops, &ops.cores[0], &cats), 2);
	ck_assert(tp_str_eq(cats[0].category, "loop fusion"));
	ck_assert_int_eq(cats[0].ps, 200);
	ck_assert(tp_str_eq(cats[1].category, "non-fusion elementwise"));
	ck_assert_int_eq(cats[1].ps, 200);
	free(cats);
	done(&cap, &ops, path);
}
END_TEST

/* A TPU core whose plane names group_id (stat 4) looks for group ids in
 * its op pass (ops.c, tp_ops_spec_groups) and is read again with the
 * group pass where one may be there. Loop 0: only the last op event
 * carries one (read in bulk); 1: the same event also carries flops
 * (stat 5), so the op pass reads it one at a time; both: group 5 is the
 * one step, 2000..2100. 2: no event carries one: the XLA Modules run is
 * the step, 900..3000, as when the plane names no group_id. */
START_TEST(test_group_steps_late)
{
	static const char *const names[] = { "program_id", "symbol_id", "hlo_category",
					     "group_id", "flops" };
	static const struct ev modules[] = { { 20, 900, 2100, { { 0 } } } };
	static const struct ev opev[][3] = {
		{ { 7, 1000, 100, { { 0 } } }, { 8, 1400, 50, { { 0 } } },
		  { 7, 2000, 100, { { 4, 4, 5 } } } },
		{ { 7, 1000, 100, { { 0 } } }, { 8, 1400, 50, { { 0 } } },
		  { 7, 2000, 100, { { 4, 4, 5 }, { 5, 4, 1000 } } } },
		{ { 7, 1000, 100, { { 0 } } }, { 8, 1400, 50, { { 0 } } },
		  { 7, 2000, 100, { { 0 } } } },
	};
	struct pb plane = { 0 };
	struct tp_capture cap;
	struct tp_ops ops;
	const struct tp_step *st;
	char *path;

	pb_str(&plane, 2, "/device:TPU:0");
	line(&plane, 1, "XLA Modules", modules, 1, NULL);
	line(&plane, 2, "XLA Ops", opev[_i], 3, NULL);
	event_meta(&plane, 20, 0, "jit_a(1)", NULL);
	event_meta(&plane, 7, 1, "add.1", "non-fusion elementwise");
	event_meta(&plane, 8, 1, "all-reduce.1", "all-reduce");
	stat_metas(&plane, names, 5, 1);
	build(&cap, &ops, &plane, &path);
	ck_assert_uint_eq(ops.cores[0].n_steps, 1);
	st = &ops.steps[ops.cores[0].first_step];
	if (_i < 2) {
		ck_assert_int_eq(ops.cores[0].step_source, TP_STEPS_GROUP);
		ck_assert(tp_str_eq(st[0].name, "5"));
		ck_assert_int_eq(st[0].start_ps, 2000);
		ck_assert_int_eq(st[0].dur_ps, 100);
		ck_assert_int_eq(st[0].compute_ps, 100);
		ck_assert_int_eq(st[0].idle_ps, 0);
	} else {
		ck_assert_int_eq(ops.cores[0].step_source, TP_STEPS_INFERRED);
		ck_assert_int_eq(st[0].start_ps, 900);
		ck_assert_int_eq(st[0].dur_ps, 2100);
		ck_assert_int_eq(st[0].compute_ps, 200);
		ck_assert_int_eq(st[0].collective_ps, 50);
	}
	/* every op counted once, whichever way the core was read */
	ck_assert_uint_eq(ops.n_ops, 2);
	ck_assert_uint_eq(ops.ops[0].occurrences + ops.ops[1].occurrences, 3);
	done(&cap, &ops, path);
}
END_TEST

/* The generator's GPU steps cases (tests/make_testdata.sh): 3 GPUs, one
 * program; the last GPU waits 30 us before each execution's last kernel.
 * Each GPU's steps are its executions as the summary lists them (first
 * kernel start, last kernel end, kernel time): the op time in each is
 * the kernel time (kernels never overlap), the rest is idle; the third
 * execution is cut short by the event budget before its last kernel, so
 * only steps 0 and 1 straggle, on the last GPU. jax-gpu: inferred
 * (executions of the kernels); tf-gpu: the TensorFlow Ops' group_id. */
static const struct {
	const char *capture, *summary;
	enum tp_step_source source;
} generated[] = {
	{ "testdata/gpu-steps.xplane.pb", "testdata/gpu-steps.summary.json", TP_STEPS_INFERRED },
	{ "testdata/tf-gpu-steps.xplane.pb", "testdata/tf-gpu-steps.summary.json", TP_STEPS_GROUP },
};

START_TEST(test_generated_gpu_steps)
{
	json_error_t jerr;
	json_t *sum = json_load_file(generated[_i].summary, 0, &jerr);
	const char *path = generated[_i].capture;
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_error err = { 0 };
	struct tp_step_across *v;
	size_t i, n, core;

	ck_assert_ptr_nonnull(sum);
	ck_assert_int_eq(tp_capture_open(&cap, &path, 1, &o, &err), TP_OK);
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	ck_assert_uint_eq(ops.n_cores, 3);
	core = assert_steps_as_summary(&ops, &cap, sum, generated[_i].source, 3);
	ck_assert_uint_eq(core, 3);
	n = tp_steps_across(&ops, &v);
	ck_assert_uint_eq(n, 3);
	for (i = 0; i < n; i++) {
		/* inferred: the first and last are edges, judged by no one */
		bool edge = generated[_i].source == TP_STEPS_INFERRED && (i == 0 || i + 1 == n);

		ck_assert(v[i].edge == edge);
		ck_assert(v[i].straggler == (i < 2 && !edge));
		if (i < 2) {
			ck_assert_uint_eq(v[i].slowest_core, 2);
			ck_assert_int_ge(v[i].spread_ps, 30000000 - 2000000);
		}
	}
	free(v);
	json_decref(sum);
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

/* ---- one clock: step markers on the timeline, ops on the device clock ---- */

/* One run of jit_f (program 1) on a core: its XLA Modules event on the
 * timeline, and its two ops, a loop fusion then a copy-done, each with a
 * timeline offset and a device span (device_offset_ps, _duration_ps). */
struct clock_run {
	int64_t tl_start, tl_dur;
	int64_t fusion_tl, fusion_dev, fusion_dur;
	int64_t copy_tl, copy_dev, copy_dur;
	int64_t copy_tl_dur;             /* on the timeline; 0: copy_dur */
};

/* A step as tpuprof must give it: start, duration, compute, copy, idle. */
struct clock_step {
	int64_t start, dur, compute, copy, idle;
};

static const struct clock_case {
	const char *what;
	struct clock_run runs[2][3];     /* per core */
	struct clock_step want[2][3];
	bool moved, drifts, straggler;
	double drift_lo, drift_hi;       /* core 0's */
	double spread;                   /* the straggler's measured figure */
} clock_cases[] = {
	/* The v6e's case: device runs of 1000 ps back to back, each a 600 ps
	 * fusion, a 300 ps copy and 100 ps idle; the timeline stretches and
	 * squeezes the runs (1300, 700, 1100 on core 0; 800, 1300, 900 on
	 * core 1). Steps come out 1000 on both cores: no straggler. Core 0's
	 * ops span 1150, 720 and 1000 ps of timeline over 900 of device. */
	{ "drift",
	  { { { 0, 1300, 0, 0, 600, 850, 600, 300, 0 }, { 1300, 700, 1300, 1000, 600, 1720, 1600, 300, 0 },
	      { 2000, 1100, 2000, 2000, 600, 2700, 2600, 300, 0 } },
	    { { 0, 800, 0, 0, 600, 520, 600, 300, 0 }, { 800, 1300, 800, 1000, 600, 1645, 1600, 300, 0 },
	      { 2100, 900, 2100, 2000, 600, 2600, 2600, 300, 0 } } },
	  { { { 0, 1000, 600, 300, 100 }, { 1000, 1000, 600, 300, 100 }, { 2000, 1000, 600, 300, 100 } },
	    { { 0, 1000, 600, 300, 100 }, { 1000, 1000, 600, 300, 100 }, { 2000, 1000, 600, 300, 100 } } },
	  true, true, false, 720.0 / 900, 1150.0 / 900, 0 },
	/* A real straggler: core 1's device runs take 1200 ps (720 + 360 +
	 * 120 idle); both clocks agree, so nothing moves; 20% > 10%. */
	{ "straggler",
	  { { { 0, 1000, 0, 0, 600, 600, 600, 300, 0 }, { 1000, 1000, 1000, 1000, 600, 1600, 1600, 300, 0 },
	      { 2000, 1000, 2000, 2000, 600, 2600, 2600, 300, 0 } },
	    { { 0, 1200, 0, 0, 720, 720, 720, 360, 0 }, { 1200, 1200, 1200, 1200, 720, 1920, 1920, 360, 0 },
	      { 2400, 1200, 2400, 2400, 720, 3120, 3120, 360, 0 } } },
	  { { { 0, 1000, 600, 300, 100 }, { 1000, 1000, 600, 300, 100 }, { 2000, 1000, 600, 300, 100 } },
	    { { 0, 1200, 720, 360, 120 }, { 1200, 1200, 720, 360, 120 }, { 2400, 1200, 720, 360, 120 } } },
	  false, false, true, 1, 1, 0.2 },
	/* The host feeds the device between runs: 500 ps gaps, in the steps
	 * as idle (each step runs to the next run's start). */
	{ "host gaps",
	  { { { 0, 1000, 0, 0, 600, 600, 600, 300, 0 }, { 1500, 1000, 1500, 1500, 600, 2100, 2100, 300, 0 },
	      { 3000, 1000, 3000, 3000, 600, 3600, 3600, 300, 0 } },
	    { { 0, 1000, 0, 0, 600, 600, 600, 300, 0 }, { 1500, 1000, 1500, 1500, 600, 2100, 2100, 300, 0 },
	      { 3000, 1000, 3000, 3000, 600, 3600, 3600, 300, 0 } } },
	  { { { 0, 1500, 600, 300, 600 }, { 1500, 1500, 600, 300, 600 }, { 3000, 1000, 600, 300, 100 } },
	    { { 0, 1500, 600, 300, 600 }, { 1500, 1500, 600, 300, 600 }, { 3000, 1000, 600, 300, 100 } } },
	  false, false, false, 1, 1, 0 },
	/* The v6e's last run: the drift case, but the timeline squeezes the
	 * last run's copy (100 ps against the device's 300) and its
	 * XLA Modules event ends with it (700 ps). Moved by the copy's
	 * start, that step would end 200 ps before the copy does, which
	 * would then lie outside the steps; it ends with its ops. */
	{ "last run squeezed",
	  { { { 0, 1300, 0, 0, 600, 850, 600, 300, 0 }, { 1300, 700, 1300, 1000, 600, 1720, 1600, 300, 0 },
	      { 2000, 700, 2000, 2000, 600, 2600, 2600, 300, 100 } },
	    { { 0, 800, 0, 0, 600, 520, 600, 300, 0 }, { 800, 1300, 800, 1000, 600, 1645, 1600, 300, 0 },
	      { 2100, 700, 2100, 2000, 600, 2700, 2600, 300, 100 } } },
	  { { { 0, 1000, 600, 300, 100 }, { 1000, 1000, 600, 300, 100 }, { 2000, 900, 600, 300, 0 } },
	    { { 0, 1000, 600, 300, 100 }, { 1000, 1000, 600, 300, 100 }, { 2000, 900, 600, 300, 0 } } },
	  true, true, false, 720.0 / 900, 1150.0 / 900, 0 },
};

static void clock_core(struct pb *space, int core, const struct clock_run *r)
{
	static const char *const names[] = { "program_id", "symbol_id", "hlo_category",
					     "device_offset_ps", "device_duration_ps" };
	struct ev mods[3], ops[6];
	struct pb plane = { 0 };
	char name[32];

	for (int k = 0; k < 3; k++) {
		mods[k] = (struct ev){ 20, r[k].tl_start, r[k].tl_dur, { { 0 } } };
		ops[2 * k] = (struct ev){ 7, r[k].fusion_tl, r[k].fusion_dur,
			{ { 4, 3, r[k].fusion_dev }, { 5, 3, r[k].fusion_dur }, { 0 } } };
		ops[2 * k + 1] = (struct ev){ 9, r[k].copy_tl,
			r[k].copy_tl_dur ? r[k].copy_tl_dur : r[k].copy_dur,
			{ { 4, 3, r[k].copy_dev }, { 5, 3, r[k].copy_dur }, { 0 } } };
	}
	snprintf(name, sizeof(name), "/device:TPU:%d", core);
	pb_str(&plane, 2, name);
	line(&plane, 1, "XLA Modules", mods, 3, NULL);
	line(&plane, 2, "XLA Ops", ops, 6, NULL);
	event_meta(&plane, 20, 0, "jit_f(1)", NULL);
	event_meta(&plane, 7, 1, "fusion.1", "loop fusion");
	event_meta(&plane, 9, 1, "copy-done.1", "copy-done");
	stat_metas(&plane, names, 5, 1);
	pb_msg(space, 1, &plane);
	pb_free(&plane);
}

START_TEST(test_one_clock)
{
	const struct clock_case *t = &clock_cases[_i];
	struct pb space = { 0 };
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_advice a;
	struct tp_error err = { 0 };
	const struct tp_advice_finding *f = NULL;
	const char *paths[1];
	char *path;

	for (int c = 0; c < 2; c++)
		clock_core(&space, c, t->runs[c]);
	path = write_temp(".xplane.pb", space.data, space.len);
	pb_free(&space);
	paths[0] = path;
	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &o, &err), TP_OK);
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	ck_assert_uint_eq(ops.n_cores, 2);
	for (size_t c = 0; c < 2; c++) {
		const struct tp_ops_core *k = &ops.cores[c];

		ck_assert_msg(k->clock == TP_CLOCK_DEVICE, "%s", t->what);
		ck_assert_int_eq(k->step_source, TP_STEPS_INFERRED);
		ck_assert_uint_eq(k->n_steps, 3);
		ck_assert(k->clock_mapped == t->moved);
		ck_assert(tp_ops_core_drifts(k) == t->drifts);
		for (size_t i = 0; i < 3; i++) {
			const struct tp_step *s = &ops.steps[k->first_step + i];
			const struct clock_step *w = &t->want[c][i];

			ck_assert_msg(s->start_ps == w->start && s->dur_ps == w->dur,
				      "%s core %zu step %zu: %" PRId64 "+%" PRId64, t->what, c, i,
				      s->start_ps, s->dur_ps);
			ck_assert_int_eq(s->compute_ps, w->compute);
			ck_assert_int_eq(s->copy_ps, w->copy);
			ck_assert_int_eq(s->collective_ps, 0);
			ck_assert_int_eq(s->idle_ps, w->idle);
			ck_assert_int_eq(s->compute_ps + s->collective_ps + s->copy_ps + s->input_ps +
					 s->idle_ps, s->dur_ps);
		}
		ck_assert_int_eq(tp_ops_core_outside_ps(k), 0);
	}
	if (t->drifts) {
		ck_assert_double_eq_tol(ops.cores[0].drift_lo, t->drift_lo, 1e-12);
		ck_assert_double_eq_tol(ops.cores[0].drift_hi, t->drift_hi, 1e-12);
	}
	tp_advice_build(&a, &cap, &ops, NULL);
	for (size_t i = 0; i < a.n; i++)
		if (!strcmp(a.v[i].rule, "straggler"))
			f = &a.v[i];
	ck_assert_ptr_nonnull(f);
	ck_assert_msg((f->verdict == TP_ADVICE_FIRED) == t->straggler, "%s: %s", t->what, f->text);
	ck_assert_double_eq_tol(f->measured, t->spread, 1e-12);
	if (t->straggler) {
		char want[512];

		/* the host is the temporary file's name */
		/* steps 0 and 2 are edges of inferred steps: judged, step 1;
		 * its parts on TPU:1 less TPU:0's: compute 720 - 600, copy
		 * 360 - 300, idle 120 - 100 */
		snprintf(want, sizeof(want), "straggler: 1 of 1 steps have a core over 10%% slower "
			 "than the fastest (step durations on each core's clock); worst step 1: "
			 "%s /device:TPU:1 20.0%% slower than %s /device:TPU:0 (limit > 10%%), "
			 "by compute +120 ps, copy +60 ps, idle +20 ps", f->host, f->host);
		ck_assert_str_eq(f->text, want);
	}
	tp_advice_release(&a);
	done(&cap, &ops, path);
}
END_TEST

/* Every step of every capture adds up: compute + collective + copy + idle
 * = duration, exactly, and the steps of a core are on its clock. The
 * shared captures (real TPU, GPU and TF) and the generated ones. */
static const char *const partition_captures[] = {
	"../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb",
	"../shared/captures/gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb",
	"../shared/captures/gpu-mi300x-jax-attention/tw003.xplane.pb",
	"../shared/captures/gpu-mi300x-jax-elementwise/tw003.xplane.pb",
	"../shared/captures/gpu-mi300x-jax-gemm/tw003.xplane.pb",
	"../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb",
	"testdata/steps.xplane.pb", "testdata/gpu-steps.xplane.pb",
	"testdata/tf-gpu-steps.xplane.pb", "testdata/debug-print/host0.xplane.pb",
	"testdata/debug-print-inferred/host0.xplane.pb", "testdata/collectives.xplane.pb",
};

START_TEST(test_steps_partition)
{
	const char *path = partition_captures[_i];
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_error err = { 0 };
	size_t steps = 0;

	if (!strncmp(path, "../shared/", 10))
		NEED_SHARED();

	ck_assert_msg(tp_capture_open(&cap, &path, 1, &o, &err) == TP_OK, "%s", err.msg);
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	for (size_t c = 0; c < ops.n_cores; c++) {
		const struct tp_ops_core *k = &ops.cores[c];

		for (size_t i = 0; i < k->n_steps; i++) {
			const struct tp_step *s = &ops.steps[k->first_step + i];
			int64_t cats = 0;

			ck_assert_msg(s->compute_ps + s->collective_ps + s->copy_ps + s->input_ps +
				      s->idle_ps == s->dur_ps, "%s core %zu step %zu", path, c, i);
			ck_assert(s->idle_ps >= 0 && s->input_ps >= 0);
			for (size_t j = 0; j < s->n_cats; j++)
				cats += s->cats[j].ps;
			ck_assert_int_eq(cats, s->compute_ps);
			steps++;
		}
	}
	ck_assert_uint_gt(steps, 0);
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

/* Input time: a TPU core's one run of jit_a [1000, 2000) holds a fusion
 * [1000, 1400); the host's IteratorGetNextOp::DoCompute [1300, 1700)
 * overlaps the idle [1400, 1700): input 300; a "ParseExample" [1700,
 * 1900) is no input event; idle 300. An "InfeedEnqueueTuple" after the
 * run is in no step. */
START_TEST(test_input_time)
{
	static const char *const names[] = { "program_id", "symbol_id", "hlo_category" };
	static const struct ev mods[] = { { 20, 1000, 1000, { { 0 } } } };
	static const struct ev opev[] = { { 7, 1000, 400, { { 0 } } } };
	static const struct ev host[] = {
		{ 30, 1300, 400, { { 0 } } }, { 31, 1700, 200, { { 0 } } }, { 32, 2500, 100, { { 0 } } },
	};
	struct pb space = { 0 }, plane = { 0 }, hp = { 0 };
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_steps_summary sum;
	struct tp_error err = { 0 };
	const struct tp_step *st;
	const char *paths[1];
	char *path;

	pb_str(&plane, 2, "/device:TPU:0");
	line(&plane, 1, "XLA Modules", mods, 1, NULL);
	line(&plane, 2, "XLA Ops", opev, 1, NULL);
	event_meta(&plane, 20, 0, "jit_a(1)", NULL);
	event_meta(&plane, 7, 1, "fusion.1", "loop fusion");
	stat_metas(&plane, names, 3, 1);
	pb_msg(&space, 1, &plane);
	pb_free(&plane);
	pb_str(&hp, 2, "/host:CPU");
	line(&hp, 3, "tf_data_iterator_get_next", host, 3, NULL);
	event_meta(&hp, 30, 0, "IteratorGetNextOp::DoCompute", NULL);
	event_meta(&hp, 31, 0, "ParseExample", NULL);
	event_meta(&hp, 32, 0, "InfeedEnqueueTuple", NULL);
	pb_msg(&space, 1, &hp);
	pb_free(&hp);
	path = write_temp(".xplane.pb", space.data, space.len);
	pb_free(&space);
	paths[0] = path;
	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &o, &err), TP_OK);
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	ck_assert_uint_eq(ops.n_cores, 1);
	ck_assert_uint_eq(ops.cores[0].n_steps, 1);
	st = &ops.steps[ops.cores[0].first_step];
	ck_assert_int_eq(st->dur_ps, 1000);
	ck_assert_int_eq(st->compute_ps, 400);
	ck_assert_int_eq(st->input_ps, 300);
	ck_assert_int_eq(st->idle_ps, 300);
	tp_steps_summarize(&ops, &ops.cores[0], &sum);
	ck_assert_int_eq(sum.input_ps, 300);
	ck_assert(tp_ops_is_input_name(tp_str_make("IteratorGetNextAsOptional_6:IteratorGetNextAsOptional", 54)));
	ck_assert(!tp_ops_is_input_name(tp_str_make("ParseExample", 12)));
	done(&cap, &ops, path);
}
END_TEST

static Suite *steps_suite(void)
{
	Suite *s = suite_create("steps");
	TCase *tc = tcase_create("steps");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_gpu_steps, 0, 2);
	tcase_add_loop_test(tc, test_gpu_steps_unsorted, 0, 2);
	tcase_add_loop_test(tc, test_gpu_steps_one_stream, 0, 4);
	tcase_add_loop_test(tc, test_gpu_no_program, 0, 2);
	tcase_add_loop_test(tc, test_tf_group_steps, 0, 4);
	tcase_add_test(tc, test_group_steps);
	tcase_add_loop_test(tc, test_group_steps_late, 0, 3);
	tcase_add_test(tc, test_input_time);
	tcase_add_loop_test(tc, test_steps_partition, 0,
			    sizeof(partition_captures) / sizeof(partition_captures[0]));
	tcase_add_loop_test(tc, test_one_clock, 0, sizeof(clock_cases) / sizeof(clock_cases[0]));
	tcase_add_loop_test(tc, test_generated_gpu_steps, 0,
			    sizeof(generated) / sizeof(generated[0]));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(steps_suite());
}
