/*
 * check_xprof_rules.c - XProf's own unit tests for time, restated as
 * captures (openxla/xprof a27d00aa: xplane_to_op_metrics_db_test,
 * xplane_to_step_events_test, xplane_to_op_stats_test,
 * xplane_to_flat_op_metrics_db_test,
 * xspace_to_event_time_fraction_analyzer_test): the same planes, lines,
 * metadata, events and stats, built with xplane_testutil.h, held to
 * XProf's expected numbers. Each test names the XProf test it restates
 * and says where the capture had to differ (a line tpuprof finds by
 * name, a plane named as captures name it).
 */
#include "testutil.h"
#include "xplane_testutil.h"

#include "tpuprof/analyze/advice.h"
#include "tpuprof/analyze/ops.h"

struct built {
	struct tp_capture cap;
	struct tp_ops ops;
	char *path;
};

static void build(struct built *b, const struct xb_plane *planes, size_t n)
{
	struct tp_error err = { 0 };

	b->path = xb_open(&b->cap, planes, n);
	ck_assert_msg(tp_ops_build(&b->ops, &b->cap, NULL, &err) == TP_OK, "%s", err.msg);
}

static void done(struct built *b)
{
	tp_ops_release(&b->ops);
	tp_capture_release(&b->cap);
	unlink(b->path);
	free(b->path);
}

static const struct tp_ops_core *core_named(const struct tp_ops *ops, const char *plane)
{
	for (size_t c = 0; c < ops->n_cores; c++)
		if (tp_str_eq(ops->cores[c].plane->name, plane))
			return &ops->cores[c];
	ck_abort_msg("no core %s", plane);
	return NULL;
}

static const struct tp_op *op_named(const struct tp_ops *ops, const struct tp_ops_core *c,
				    const char *name)
{
	for (size_t i = 0; i < c->n_ops; i++)
		if (tp_str_eq(ops->ops[c->first_op + i].name, name))
			return &ops->ops[c->first_op + i];
	ck_abort_msg("no op %s", name);
	return NULL;
}

/* ConvertXPlaneToOpMetricsDb.TensorCoreDeviceOpMetricsDb: one
 * aggregated event (num_occurrences 2, 10 ns) on a TPU plane's
 * "TensorFlow Ops" line: time 10000 ps for both occurrences, FLOPs 2 x
 * 34, the category from hlo_category. (The Time Scale Multiplier stat
 * only scales XProf's normalized time, which tpuprof has not.) */
START_TEST(test_aggregated_event)
{
	static const struct xb_plane p = {
		.id = 1, .name = "/device:TPU:0",
		.metas = { { 1, "MatMul", NULL, {
			{ "tf_op", 's', 0, "while:MatMul" }, { "hlo_category", 's', 0, "MatMul" },
			{ "flops", 'u', 34, NULL }, { "symbol_id", 'i', 1, NULL },
			{ "program_id", 'i', 1, NULL } } } },
		.lines = { { "TensorFlow Ops", { { .meta = 1, .dur = 10000, .occurrences = 2 } } } },
	};
	struct built b;
	const struct tp_op *op;

	build(&b, &p, 1);
	ck_assert_uint_eq(b.ops.n_cores, 1);
	ck_assert_uint_eq(b.ops.n_ops, 1);
	op = &b.ops.ops[0];
	ck_assert(tp_str_eq(op->name, "MatMul"));
	ck_assert(tp_str_eq(op->category, "MatMul"));
	ck_assert_uint_eq(op->occurrences, 2);
	ck_assert_int_eq(op->total_ps, 10000);
	ck_assert_int_eq(op->self_ps, 10000);
	ck_assert_int_eq(op->min_ps, 10000);
	ck_assert(op->has_flops);
	ck_assert_int_eq(op->flops, 68);
	/* total_time_ps and total_op_time_ps */
	ck_assert_int_eq(b.ops.cores[0].device_ps, 10000);
	ck_assert_int_eq(b.ops.cores[0].self_ps, 10000);
	done(&b);
}
END_TEST

/* ConvertXPlaneToOpMetricsDb.SparseCoreDeviceOpMetricsDb: a module
 * (100 ns, both offload ids) and a fusion of 2 occurrences (10 ns) on a
 * SparseCore: op time 10000, FLOPs 2 x 20, idle 90000 of total time
 * 100000 (the module's). XProf calls its SparseCore converter on the
 * plane; here the plane is named as the SparseCore planes it is called
 * on are. A second SparseCore adds what the rule leaves out: an op
 * outside every module, one inside a module without the offload ids. */
START_TEST(test_sparse_core_modules)
{
	static const struct xb_plane p[] = { {
		.id = 2, .name = "/device:TPU:0 SparseCore 0",
		.metas = {
			{ 1, "Main", NULL, { { "hlo_module", 's', 0, "" }, { "symbol_id", 'i', 2, NULL },
					      { "program_id", 'i', 1, NULL }, { "flops", 'u', 200, NULL } } },
			{ 2, "Fusion", NULL, { { "hlo_op", 's', 0, "" }, { "symbol_id", 'i', 2, NULL },
						{ "program_id", 'i', 1, NULL },
						{ "hlo_category", 's', 0, "XlaFusionOp" },
						{ "flops", 'u', 20, NULL } } } },
		.lines = {
			{ "Sparse Core Modules", { { .meta = 1, .dur = 100000, .occurrences = 1,
				.stats = { { "offload_core_id", 'i', 0, NULL },
					   { "tc_offload_start_id", 'i', 123, NULL } } } } },
			{ "Sparse Core Ops", { { .meta = 2, .dur = 10000, .occurrences = 2 } } } },
	}, {
		.id = 3, .name = "/device:TPU:0 SparseCore 1",
		.metas = {
			{ 1, "Main", NULL, { { "program_id", 'i', 1, NULL } } },
			{ 2, "Fusion", NULL, { { "symbol_id", 'i', 2, NULL }, { "program_id", 'i', 1, NULL } } } },
		.lines = {
			{ "Sparse Core Modules", {
				{ .meta = 1, .offset = 0, .dur = 1000,
				  .stats = { { "offload_core_id", 'i', 0, NULL },
					     { "tc_offload_start_id", 'i', 7, NULL } } },
				{ .meta = 1, .offset = 5000, .dur = 1000,
				  .stats = { { "offload_core_id", 'i', 0, NULL } } } } },
			{ "Sparse Core Ops", { { .meta = 2, .offset = 100, .dur = 300 },
					       { .meta = 2, .offset = 2000, .dur = 400 },
					       { .meta = 2, .offset = 5100, .dur = 500 } } } },
	} };
	struct built b;
	const struct tp_ops_core *c;
	const struct tp_op *op;

	build(&b, p, 2);
	c = core_named(&b.ops, "/device:TPU:0 SparseCore 0");
	ck_assert(c->is_sparse_core && c->has_module_time);
	op = op_named(&b.ops, c, "Fusion");
	ck_assert(tp_str_eq(op->category, "XlaFusionOp"));
	ck_assert_uint_eq(op->occurrences, 2);
	ck_assert_int_eq(op->total_ps, 10000);
	ck_assert_int_eq(op->self_ps, 10000);
	ck_assert_int_eq(op->min_ps, 10000);
	ck_assert_int_eq(op->flops, 40);
	ck_assert_int_eq(c->self_ps, 10000);
	ck_assert_int_eq(c->device_ps, 100000);
	/* IDLE: the module's time less the op's (the ops document's idle_ps) */
	ck_assert_int_eq(c->device_ps - c->self_ps, 90000);
	c = core_named(&b.ops, "/device:TPU:0 SparseCore 1");
	op = op_named(&b.ops, c, "Fusion");
	ck_assert_uint_eq(op->occurrences, 1);
	ck_assert_int_eq(op->total_ps, 300);
	ck_assert_int_eq(c->device_ps, 1000);
	done(&b);
}
END_TEST

/* Events of XPlaneToFlatOpMetricsDbTest's helpers: device time in ps
 * (offset and duration given in ns, as there), a module with its two
 * offload ids, an op with program and symbol ids on its metadata. */
#define FLAT_MODULE(m, ns, dur_ns, core, start_id) \
	{ .meta = (m), .offset = (ns) * 1000, .dur = (dur_ns) * 1000, \
	  .stats = { { "device_offset_ps", 'u', (ns) * 1000, NULL }, \
		     { "device_duration_ps", 'u', (dur_ns) * 1000, NULL }, \
		     { "offload_core_id", 'u', (core), NULL }, \
		     { "tc_offload_start_id", 'u', (start_id), NULL } } }
#define FLAT_OP(m, ns, dur_ns) \
	{ .meta = (m), .offset = (ns) * 1000, .dur = (dur_ns) * 1000, \
	  .stats = { { "device_offset_ps", 'u', (ns) * 1000, NULL }, \
		     { "device_duration_ps", 'u', (dur_ns) * 1000, NULL } } }
#define FLAT_META(id, name, sym) \
	{ (id), (name), NULL, { { "program_id", 'u', 1, NULL }, { "symbol_id", 'u', (sym), NULL } } }

/* XPlaneToFlatOpMetricsDbTest.PartiallyOverlappingOpsIgnored (a module
 * of 1000 ns; an op inside it, one crossing its start, one its end: only
 * the first counts, idle 900000 ps) and MultipleModules, summed over the
 * core (modules of 500 and 600 ns holding ops of 100 and 150 ns: idle
 * 400000 + 450000 ps). */
START_TEST(test_sparse_core_partial_ops)
{
	static const struct xb_plane p[] = { {
		.id = 1, .name = "/device:TPU:0 SparseCore 0",
		.metas = { { 1, "Module1", NULL, { { NULL, 0, 0, NULL } } }, FLAT_META(2, "ValidOp", 2),
			   FLAT_META(3, "PartialStartOp", 3), FLAT_META(4, "PartialEndOp", 4) },
		.lines = { { "Sparse Core Modules", { FLAT_MODULE(1, 1000, 1000, 0, 123) } },
			   { "Sparse Core Ops", { FLAT_OP(2, 1100, 100), FLAT_OP(3, 900, 200),
						  FLAT_OP(4, 1900, 200) } } },
	}, {
		.id = 2, .name = "/device:TPU:0 SparseCore 1",
		.metas = { { 1, "Module1", NULL, { { NULL, 0, 0, NULL } } },
			   { 2, "Module2", NULL, { { NULL, 0, 0, NULL } } },
			   FLAT_META(3, "Op1", 2), FLAT_META(4, "Op2", 3) },
		.lines = { { "Sparse Core Modules", { FLAT_MODULE(1, 1000, 500, 0, 123),
						      FLAT_MODULE(2, 2000, 600, 1, 456) } },
			   { "Sparse Core Ops", { FLAT_OP(3, 1100, 100), FLAT_OP(4, 2100, 150) } } },
	} };
	struct built b;
	const struct tp_ops_core *c;

	build(&b, p, 2);
	c = core_named(&b.ops, "/device:TPU:0 SparseCore 0");
	ck_assert_uint_eq(c->n_ops, 1);
	ck_assert_int_eq(op_named(&b.ops, c, "ValidOp")->self_ps, 100000);
	ck_assert_int_eq(c->device_ps - c->self_ps, 900000);
	c = core_named(&b.ops, "/device:TPU:0 SparseCore 1");
	ck_assert_int_eq(op_named(&b.ops, c, "Op1")->self_ps, 100000);
	ck_assert_int_eq(op_named(&b.ops, c, "Op2")->self_ps, 150000);
	ck_assert_int_eq(c->device_ps - c->self_ps, 400000 + 450000);
	done(&b);
}
END_TEST

/* ConvertXPlaneToOpStats.ConstructDutyCycleTrackerFromXlaOps: four ops
 * of 10 ps without a program id, infeed and outfeed off duty, inside a
 * module from 5 to 55: busy 20, idle 30. */
START_TEST(test_duty_cycle_xla_ops)
{
	static const struct xb_plane p = {
		.id = 1, .name = "/device:TPU:0",
		.metas = { { 1, "op.1", NULL, { { "hlo_category", 's', 0, "infeed" } } },
			   { 2, "op.2", NULL, { { "hlo_category", 's', 0, "call" } } },
			   { 3, "op.3", NULL, { { "hlo_category", 's', 0, "call" } } },
			   { 4, "op.4", NULL, { { "hlo_category", 's', 0, "outfeed" } } },
			   { 5, "module.1", NULL, { { NULL, 0, 0, NULL } } } },
		.lines = {
			{ "XLA Ops", { { .meta = 1, .offset = 10, .dur = 10 }, { .meta = 2, .offset = 20, .dur = 10 },
				       { .meta = 3, .offset = 30, .dur = 10 }, { .meta = 4, .offset = 40, .dur = 10 } } },
			{ "XLA Modules", { { .meta = 5, .offset = 5, .dur = 50 } } } },
	};
	struct built b;

	build(&b, &p, 1);
	ck_assert_uint_eq(b.ops.n_cores, 1);
	ck_assert(b.ops.cores[0].has_duty);
	ck_assert_int_eq(b.ops.cores[0].duty_busy_ps, 20);
	ck_assert_int_eq(b.ops.cores[0].duty_idle_ps, 30);
	done(&b);
}
END_TEST

/* The duty cycle of a line whose events come out of order (device times
 * move a few, format-facts §11.5): busy is still the union, [10, 20),
 * [30, 80) and [100, 110) = 70; idle the span 10..110 less it = 30.
 * tpuprof keeps the latest 256 busy blocks open to such events (op_duty.c),
 * not one per event. */
START_TEST(test_duty_cycle_out_of_order)
{
	static const struct xb_plane p = {
		.id = 1, .name = "/device:TPU:0",
		.metas = { { 1, "op.1", NULL, { { "hlo_category", 's', 0, "call" } } } },
		.lines = {
			{ "XLA Ops", { { .meta = 1, .offset = 100, .dur = 10 }, { .meta = 1, .offset = 10, .dur = 10 },
				       { .meta = 1, .offset = 50, .dur = 30 }, { .meta = 1, .offset = 60, .dur = 10 },
				       { .meta = 1, .offset = 30, .dur = 25 } } } },
	};
	struct built b;

	build(&b, &p, 1);
	ck_assert_uint_eq(b.ops.n_cores, 1);
	ck_assert(b.ops.cores[0].has_duty);
	ck_assert_int_eq(b.ops.cores[0].duty_busy_ps, 70);
	ck_assert_int_eq(b.ops.cores[0].duty_idle_ps, 30);
	done(&b);
}
END_TEST

/* ConvertXPlaneToOpStats.ConstructDutyCycleTrackerFromSparseCore (every
 * SparseCore op on duty: busy 40, idle 10) and
 * MultiCoreChipBusyAndIdleTimeTest, per core: hlo_category on the
 * events, not their metadata, puts no op off duty (busy 40, idle 10 on
 * both cores, so on their chip). */
START_TEST(test_duty_cycle_cores)
{
	static const struct xb_plane p[] = { {
		.id = 1, .name = "/device:TPU:0",
		.metas = { { 1, "op.1", NULL, { { NULL, 0, 0, NULL } } }, { 2, "op.2", NULL, { { NULL, 0, 0, NULL } } },
			   { 3, "op.3", NULL, { { NULL, 0, 0, NULL } } }, { 4, "op.4", NULL, { { NULL, 0, 0, NULL } } },
			   { 5, "module.1", NULL, { { NULL, 0, 0, NULL } } } },
		.lines = {
			{ "XLA Ops", { { .meta = 1, .offset = 10, .dur = 10, .stats = { { "hlo_category", 's', 0, "infeed" } } },
				       { .meta = 2, .offset = 20, .dur = 10, .stats = { { "hlo_category", 's', 0, "call" } } },
				       { .meta = 3, .offset = 30, .dur = 10 },
				       { .meta = 4, .offset = 40, .dur = 10, .stats = { { "hlo_category", 's', 0, "outfeed" } } } } },
			{ "XLA Modules", { { .meta = 5, .offset = 5, .dur = 50 } } } },
	}, {
		.id = 2, .name = "/device:TPU:1",
		.metas = { { 1, "op.1", NULL, { { NULL, 0, 0, NULL } } }, { 2, "op.2", NULL, { { NULL, 0, 0, NULL } } },
			   { 3, "op.3", NULL, { { NULL, 0, 0, NULL } } }, { 4, "op.4", NULL, { { NULL, 0, 0, NULL } } },
			   { 5, "module.1", NULL, { { NULL, 0, 0, NULL } } } },
		.lines = {
			{ "Sparse Core Ops", { { .meta = 1, .offset = 10, .dur = 10 }, { .meta = 2, .offset = 20, .dur = 10 },
					       { .meta = 3, .offset = 30, .dur = 10 }, { .meta = 4, .offset = 40, .dur = 10 } } },
			{ "Sparse Core Modules", { { .meta = 5, .offset = 5, .dur = 50 } } } },
	} };
	struct built b;

	build(&b, p, 2);
	ck_assert_uint_eq(b.ops.n_cores, 2);
	for (size_t c = 0; c < 2; c++) {
		ck_assert(b.ops.cores[c].has_duty);
		ck_assert_int_eq(b.ops.cores[c].duty_busy_ps, 40);
		ck_assert_int_eq(b.ops.cores[c].duty_idle_ps, 10);
	}
	done(&b);
}
END_TEST

/* ConvertXSpaceToEventTimeFractionAnalyzerResult.BarrierCoresFiltering:
 * in a step of 10000 ps, barrier-cores events of 0, 1250 (XProf's
 * dummies) and 5000 ps: 0.5 of the step, the barrier-cores advice's
 * figure. */
START_TEST(test_barrier_cores_fraction)
{
	static const struct xb_plane p = {
		.id = 0, .name = "/device:TPU:0",
		.metas = { { 1, "step", NULL, { { NULL, 0, 0, NULL } } },
			   { 2, "barrier-cores", NULL, { { NULL, 0, 0, NULL } } } },
		.lines = {
			{ "Steps", { { .meta = 1, .offset = 0, .dur = 10000, .stats = { { "group_id", 'i', 1, NULL } } } } },
			{ "XLA Ops", {
				{ .meta = 2, .offset = 100, .dur = 0,
				  .stats = { { "group_id", 'i', 1, NULL }, { "device_duration_ps", 'u', 0, NULL } } },
				{ .meta = 2, .offset = 200, .dur = 1250,
				  .stats = { { "group_id", 'i', 1, NULL }, { "device_duration_ps", 'u', 1250, NULL } } },
				{ .meta = 2, .offset = 300, .dur = 5000,
				  .stats = { { "group_id", 'i', 1, NULL }, { "device_duration_ps", 'u', 5000, NULL } } } } } },
	};
	struct built b;
	struct tp_advice a = { 0 };
	bool seen = false;

	build(&b, &p, 1);
	ck_assert_uint_eq(b.ops.cores[0].n_steps, 1);
	ck_assert_int_eq(b.ops.cores[0].barrier_ps, 5000);
	tp_advice_build(&a, &b.cap, &b.ops, NULL);
	for (size_t i = 0; i < a.n; i++)
		if (strcmp(a.v[i].rule, "barrier-cores") == 0) {
			ck_assert(a.v[i].has_measured);
			ck_assert_double_eq_tol(a.v[i].measured, 0.5, 1e-9);
			seen = true;
		}
	ck_assert(seen);
	tp_advice_release(&a);
	done(&b);
}
END_TEST

/* ConvertXPlaneToOpMetricsDb.DeviceOpMetricsDbWithNullPerformanceInfo
 * and DeviceOpMetricsDbWithPerformanceInfo: a kernel whose hlo_op is
 * "xla::op::add.1" is op add.1; two of "xla::op::custom-call.1" (10 and
 * 15 ps) are custom-call.1, 2 occurrences, 25 ps. The kernel line is
 * named as CUPTI names it (tpuprof finds kernels on "Stream #" lines;
 * XProf's test leaves the line unnamed). */
START_TEST(test_gpu_op_names)
{
	static const struct xb_plane p[] = { {
		.id = 1, .name = "/device:GPU:0",
		.metas = { { 1, "Add", NULL, { { NULL, 0, 0, NULL } } } },
		.lines = { { "Stream #10(Kernel)", { { .meta = 1, .offset = 100, .dur = 10,
			.stats = { { "hlo_op", 's', 0, "xla::op::add.1" }, { "program_id", 'i', 1, NULL } } } } } },
	}, {
		.id = 2, .name = "/device:GPU:1",
		.metas = { { 1, "custom-call.1", NULL, { { NULL, 0, 0, NULL } } } },
		.lines = { { "Stream #10(Kernel)", {
			{ .meta = 1, .offset = 100, .dur = 10,
			  .stats = { { "hlo_op", 's', 0, "xla::op::custom-call.1" }, { "program_id", 'i', 1, NULL } } },
			{ .meta = 1, .offset = 110, .dur = 15,
			  .stats = { { "hlo_op", 's', 0, "xla::op::custom-call.1" }, { "program_id", 'i', 1, NULL } } } } } },
	} };
	struct built b;
	const struct tp_op *op;

	build(&b, p, 2);
	op = op_named(&b.ops, core_named(&b.ops, "/device:GPU:0"), "add.1");
	ck_assert_uint_eq(op->occurrences, 1);
	ck_assert_int_eq(op->total_ps, 10);
	op = op_named(&b.ops, core_named(&b.ops, "/device:GPU:1"), "custom-call.1");
	ck_assert_uint_eq(op->occurrences, 2);
	ck_assert_int_eq(op->total_ps, 25);
	done(&b);
}
END_TEST

/* ConvertXPlaneToStepEvents.SparseCoreShouldHaveStepMarkers: a
 * SparseCore's step comes from its "Sparse Core Steps" line (0 to 1000
 * ps) and holds its op's 880 ps. */
START_TEST(test_sparse_core_steps)
{
	static const struct xb_plane p = {
		.id = 1, .name = "/device:TPU:0 SparseCore 1",
		.metas = { { 1, "Step 1", NULL, { { NULL, 0, 0, NULL } } },
			   { 2, "sparse_op", NULL, { { "program_id", 'i', 1, NULL }, { "symbol_id", 'i', 1, NULL } } } },
		.lines = {
			{ "Sparse Core Steps", { { .meta = 1, .offset = 0, .dur = 1000,
						   .stats = { { "group_id", 'i', 1, NULL } } } } },
			{ "Sparse Core Ops", { { .meta = 2, .offset = 100, .dur = 880,
						 .stats = { { "group_id", 'i', 1, NULL } } } } } },
	};
	struct built b;
	const struct tp_ops_core *c;
	const struct tp_step *st;
	const struct tp_op *op;

	build(&b, &p, 1);
	c = &b.ops.cores[0];
	ck_assert_int_eq(c->step_source, TP_STEPS_LINE);
	ck_assert_uint_eq(c->n_steps, 1);
	st = &b.ops.steps[c->first_step];
	ck_assert(tp_str_eq(st->name, "Step 1"));
	ck_assert_int_eq(st->dur_ps, 1000);
	ck_assert_int_eq(st->compute_ps, 880);
	op = op_named(&b.ops, c, "sparse_op");
	ck_assert_int_eq(op->total_ps, 880);
	ck_assert_int_eq(op->self_ps, 880);
	done(&b);
}
END_TEST

/* ConvertXPlaneToOpStats.TpuTCAndSCStepDbTest: a TensorCore's step (100
 * to 100100 ps) and a SparseCore's (1000 to 11000) are each their own
 * core's; the SparseCore's is compared with no TensorCore, so with one
 * TensorCore there is no step to compare across cores and no straggler
 * (the two steps differ tenfold). */
START_TEST(test_tc_and_sc_steps)
{
	static const struct xb_plane p[] = { {
		.id = 1, .name = "/device:TPU:0",
		.metas = { { 1, "Step 1", NULL, { { NULL, 0, 0, NULL } } }, { 2, "op.1", NULL, { { NULL, 0, 0, NULL } } } },
		.lines = {
			{ "Steps", { { .meta = 1, .offset = 100, .dur = 100000, .stats = { { "group_id", 'i', 1, NULL } } } } },
			{ "XLA Ops", { { .meta = 2, .offset = 110, .dur = 10,
					 .stats = { { "hlo_category", 's', 0, "infeed" }, { "group_id", 'i', 1, NULL } } } } } },
	}, {
		.id = 2, .name = "/device:TPU:0 SparseCore 0",
		.metas = { { 1, "Step 1", NULL, { { NULL, 0, 0, NULL } } }, { 2, "op.2", NULL, { { NULL, 0, 0, NULL } } } },
		.lines = {
			{ "Sparse Core Steps", { { .meta = 1, .offset = 1000, .dur = 10000,
				.stats = { { "group_id", 'i', 1, NULL }, { "step_idle_time_ps", 'i', 9000, NULL } } } } },
			{ "Sparse Core Ops", { { .meta = 2, .offset = 1010, .dur = 1000,
				.stats = { { "hlo_category", 's', 0, "sparse_core_op" }, { "group_id", 'i', 1, NULL } } } } } },
	} };
	struct built b;
	struct tp_step_across *v;
	struct tp_advice a = { 0 };
	const struct tp_ops_core *c;

	build(&b, p, 2);
	c = core_named(&b.ops, "/device:TPU:0");
	ck_assert_uint_eq(c->n_steps, 1);
	ck_assert_int_eq(b.ops.steps[c->first_step].start_ps - c->first_start_ps, 0);
	ck_assert_int_eq(b.ops.steps[c->first_step].dur_ps, 100000);
	c = core_named(&b.ops, "/device:TPU:0 SparseCore 0");
	ck_assert_uint_eq(c->n_steps, 1);
	ck_assert_int_eq(b.ops.steps[c->first_step].start_ps, b.ops.cores[0].first_start_ps + 900);
	ck_assert_int_eq(b.ops.steps[c->first_step].dur_ps, 10000);
	ck_assert_uint_eq(tp_steps_across(&b.ops, &v), 0);
	free(v);
	tp_advice_build(&a, &b.cap, &b.ops, NULL);
	for (size_t i = 0; i < a.n; i++)
		if (strcmp(a.v[i].rule, "straggler") == 0)
			ck_assert_int_ne(a.v[i].verdict, TP_ADVICE_FIRED);
	tp_advice_release(&a);
	done(&b);
}
END_TEST

/* ConvertXPlaneToStepEvents.TpuDevicePlaneNoStepLine: an empty "Steps"
 * line; XProf gives no steps. tpuprof keeps the op events' group_id
 * steps (two) and says where they came from. */
START_TEST(test_empty_steps_line)
{
	static const struct xb_plane p = {
		.id = 1, .name = "/device:TPU:0",
		.metas = { { 1, "op_long_name", "op_name", { { "program_id", 'i', 1, NULL }, { "symbol_id", 'i', 1, NULL } } },
			   { 2, "op_long_name2", "op_name2", { { "program_id", 'i', 1, NULL }, { "symbol_id", 'i', 2, NULL } } } },
		.lines = {
			{ "Steps", { { 0 } } },
			{ "XLA Ops", { { .meta = 1, .offset = 0, .dur = 50, .stats = { { "group_id", 'i', 1, NULL } } },
				       { .meta = 2, .offset = 50, .dur = 50, .stats = { { "group_id", 'i', 1, NULL } } },
				       { .meta = 1, .offset = 100, .dur = 50, .stats = { { "group_id", 'i', 2, NULL } } },
				       { .meta = 2, .offset = 150, .dur = 50, .stats = { { "group_id", 'i', 2, NULL } } } } } },
	};
	struct built b;

	build(&b, &p, 1);
	ck_assert_int_eq(b.ops.cores[0].step_source, TP_STEPS_GROUP_EMPTY_LINE);
	ck_assert_uint_eq(b.ops.cores[0].n_steps, 2);
	ck_assert_int_eq(b.ops.steps[0].dur_ps, 100);
	ck_assert_int_eq(b.ops.steps[0].compute_ps, 100);
	done(&b);
}
END_TEST

static Suite *xprof_rules_suite(void)
{
	Suite *s = suite_create("xprof_rules");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_aggregated_event);
	tcase_add_test(tc, test_sparse_core_modules);
	tcase_add_test(tc, test_sparse_core_partial_ops);
	tcase_add_test(tc, test_duty_cycle_xla_ops);
	tcase_add_test(tc, test_duty_cycle_out_of_order);
	tcase_add_test(tc, test_duty_cycle_cores);
	tcase_add_test(tc, test_barrier_cores_fraction);
	tcase_add_test(tc, test_gpu_op_names);
	tcase_add_test(tc, test_sparse_core_steps);
	tcase_add_test(tc, test_tc_and_sc_steps);
	tcase_add_test(tc, test_empty_steps_line);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(xprof_rules_suite());
}
