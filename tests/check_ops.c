/*
 * check_ops.c - `ops`, `fusions` and `collectives`: per-core op sums equal
 * the sums over the raw events (numbers from tests/reference/ops_facts.py,
 * an independent Python reader), the all-reduce of the TPU capture, iota
 * replica groups, ring bytes, and fusion contents against the HLO.
 */
#include "testutil.h"
#include "steps_testutil.h"

#include <jansson.h>

#include "tpuprof/analyze/collectives.h"
#include "tpuprof/analyze/fusions.h"
#include "tpuprof/analyze/ops.h"

#define TPU "../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb"

struct core_case {
	const char *path, *plane;
	size_t ops;
	uint64_t occurrences;
	int64_t total_ps;
};

/* tests/reference/ops_facts.py on each capture */
static const struct core_case cores[] = {
	{ "../shared/captures/gpu-mi300x-jax-attention/tw003.xplane.pb", "/device:GPU:0", 24, 87, INT64_C(3763002000) },
	{ "../shared/captures/gpu-mi300x-jax-elementwise/tw003.xplane.pb", "/device:GPU:0", 13, 65, INT64_C(3835924000) },
	{ "../shared/captures/gpu-mi300x-jax-gemm/tw003.xplane.pb", "/device:GPU:0", 16, 42, INT64_C(3415244000) },
	{ "../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb", "/device:GPU:0", 4, 23, INT64_C(3413764000) },
	{ "../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb", "/device:GPU:1", 4, 25, INT64_C(3345845000) },
	{ "../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb", "/device:GPU:2", 4, 25, INT64_C(3524285000) },
	{ "../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb", "/device:GPU:3", 4, 25, INT64_C(3403364000) },
	{ "../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb", "/device:GPU:4", 4, 25, INT64_C(3493365000) },
	{ "../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb", "/device:GPU:5", 4, 25, INT64_C(3464884000) },
	{ "../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb", "/device:GPU:6", 4, 25, INT64_C(3403004000) },
	{ "../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb", "/device:GPU:7", 4, 25, INT64_C(3502165000) },
	{ "../shared/captures/gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb", "/device:GPU:4", 665, 665, INT64_C(14825385000) },
	{ "../shared/captures/gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb", "/device:GPU:6", 665, 665, INT64_C(14865363000) },
	{ TPU, "/device:TPU:0", 17, 1504, INT64_C(78783723903750) },
	{ TPU, "/device:TPU:1", 16, 1503, INT64_C(78788304606250) },
	{ TPU, "/device:TPU:2", 16, 1503, INT64_C(78780797327500) },
	{ TPU, "/device:TPU:3", 16, 1503, INT64_C(78765077868750) },
	{ "testdata/small.xplane.pb", "/device:TPU:0", 44, 200, INT64_C(275183371) },
	{ "testdata/small.xplane.pb", "/device:TPU:1", 44, 200, INT64_C(280830382) },
	{ "testdata/layout-b.xplane.pb.gz", "/device:TPU:0", 44, 200, INT64_C(17576489) },
	{ "testdata/layout-b.xplane.pb.gz", "/device:TPU:1", 44, 200, INT64_C(17280086) },
	{ "testdata/layout-b.xplane.pb.gz", "/device:TPU:2", 44, 200, INT64_C(17140977) },
	{ "testdata/layout-b.xplane.pb.gz", "/device:TPU:3", 44, 200, INT64_C(17452480) },
	{ "testdata/collectives.xplane.pb", "/device:TPU:0", 28, 120, INT64_C(336548323) },
	{ "testdata/collectives.xplane.pb", "/device:TPU:1", 28, 120, INT64_C(337390800) },
	{ "testdata/collectives.xplane.pb", "/device:TPU:2", 28, 120, INT64_C(332922769) },
	{ "testdata/collectives.xplane.pb", "/device:TPU:3", 28, 120, INT64_C(337210966) },
};

static void open_capture(struct tp_capture *cap, const char *path)
{
	struct tp_error err = { 0 };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };

	ck_assert_msg(tp_capture_open(cap, &path, 1, &o, &err) == TP_OK, "%s", err.msg);
}

START_TEST(test_core_sums)
{
	NEED_SHARED();
	const struct core_case *c = &cores[_i];
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_error err = { 0 };
	bool found = false;

	open_capture(&cap, c->path);
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	for (size_t k = 0; k < ops.n_cores; k++) {
		const struct tp_ops_core *core = &ops.cores[k];
		uint64_t occ = 0;
		int64_t total = 0;

		if (!tp_str_eq(core->plane->name, c->plane))
			continue;
		found = true;
		for (size_t i = 0; i < core->n_ops; i++) {
			occ += ops.ops[core->first_op + i].occurrences;
			total += ops.ops[core->first_op + i].total_ps;
		}
		ck_assert_uint_eq(core->n_ops, c->ops);
		ck_assert_uint_eq(occ, c->occurrences);
		ck_assert_int_eq(total, c->total_ps);
		ck_assert_int_eq(core->op_ps, c->total_ps);
		ck_assert_uint_eq(core->events, c->occurrences);
	}
	ck_assert_msg(found, "%s %s", c->path, c->plane);
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

/* EXPECTED.md: the longest op of each TPU core. */
START_TEST(test_longest_tpu_op)
{
	NEED_SHARED();
	static const int64_t longest[] = { INT64_C(19444140796250), INT64_C(19443587217500),
					   INT64_C(19443452867500), INT64_C(19442034850000) };
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_error err = { 0 };

	open_capture(&cap, TPU);
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	tp_ops_sort(&ops, TP_SORT_TOTAL);
	ck_assert_uint_eq(ops.n_cores, 4);
	for (size_t k = 0; k < 4; k++) {
		const struct tp_op *o = &ops.ops[ops.cores[k].first_op];

		ck_assert(tp_str_eq(o->name, "copy-done.4"));
		ck_assert_uint_eq(o->occurrences, 100);
		ck_assert_int_eq(o->total_ps, longest[k]);
		/* device spans never nest here (format-facts §11.5) */
		ck_assert_int_eq(ops.cores[k].self_ps, ops.cores[k].op_ps);
	}
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

START_TEST(test_filters)
{
	NEED_SHARED();
	static const struct { struct tp_ops_filter f; enum tp_err rc; size_t cores; } cases[] = {
		{ { .core = "/device:TPU:2" }, TP_OK, 1 },
		{ { .core = "TPU:2" }, TP_OK, 1 }, /* refused before the one selection */
		{ { .core = "3" }, TP_OK, 1 },
		{ { .core = "9" }, TP_ERR_USAGE, 0 },
		{ { .host = "nohost" }, TP_ERR_USAGE, 0 },
		{ { .module = "jit_nothing" }, TP_ERR_USAGE, 0 },
		{ { .module = "jit__psum" }, TP_OK, 4 },
		{ { .module = "9646411105960254074" }, TP_OK, 4 },
	};
	struct tp_capture cap;

	open_capture(&cap, TPU);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tp_ops ops;
		struct tp_error err = { 0 };

		ck_assert_int_eq(tp_ops_build(&ops, &cap, &cases[i].f, &err), cases[i].rc);
		ck_assert_uint_eq(ops.n_cores, cases[i].cores);
		if (cases[i].f.module && cases[i].rc == TP_OK)
			ck_assert_uint_eq(ops.n_ops, 4); /* the all-reduce, per core */
		tp_ops_release(&ops);
	}
	tp_capture_release(&cap);
}
END_TEST

/* The 12 all-reduce executions: 3 per core, with bytes, groups, times. */
START_TEST(test_tpu_all_reduce)
{
	NEED_SHARED();
	static const int64_t groups[] = { 0, 4, 1, 5, 2, 6, 3, 7 };
	struct tp_capture cap;
	struct tp_collectives c;
	struct tp_error err = { 0 };
	const struct tp_collective *col;
	int64_t sum = 0;

	open_capture(&cap, TPU);
	ck_assert_int_eq(tp_collectives_build(&c, &cap, NULL, &err), TP_OK);
	ck_assert_uint_eq(c.n, 1);
	col = &c.v[0];
	ck_assert_str_eq(col->kind, "all-reduce");
	ck_assert_uint_eq(col->bytes, UINT64_C(5368709120));
	ck_assert_str_eq(col->groups.text, "[4,2]<=[2,4]T(1,0)");
	ck_assert_uint_eq(col->groups.n_groups, 4);
	ck_assert_uint_eq(col->group_size, 2);
	ck_assert_mem_eq(col->groups.ids, groups, sizeof(groups));
	ck_assert_uint_eq(col->ring_bytes, UINT64_C(5368709120));
	ck_assert_uint_eq(col->occurrences, 12);
	ck_assert_uint_eq(col->n_execs, 12);
	ck_assert_uint_eq(col->n_cores, 4);
	for (size_t i = 0; i < col->n_execs; i++)
		sum += c.execs[col->first_exec + i].dur_ps;
	ck_assert_int_eq(sum, col->time_ps);
	for (size_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(col->cores[i].occurrences, 3);
		ck_assert_int_eq(col->cores[i].time_ps, c.ops.cores[col->cores[i].core].collective_ps);
	}
	tp_collectives_release(&c);
	tp_capture_release(&cap);
}
END_TEST

/* Every kind on the generated capture. Occurrences and times: the sums of
 * `ops_facts.py --ops` over the four cores (an async pair: both halves);
 * bytes from the shapes: f32[128,256] = 131072, f32[10,1000] = 40000, the
 * reduce-scatter's input f32[128,256], the all-to-all's f32[64,256] = 65536,
 * f32[1024,2048] = 8388608. */
static const struct coll_case {
	const char *name, *kind, *mode, *done;
	uint64_t bytes, group_size, ring;
	uint64_t occurrences;
	int64_t time_ps;
	size_t execs;
} colls[] = {
	{ "all-reduce.13", "all-reduce", "cross-replica", NULL, 131072, 2, 131072, 24, 3966658, 24 },
	{ "all-gather.20", "all-gather", "cross-replica-and-partition", NULL, 40000, 2, 20000, 16, 627898, 16 },
	{ "reduce-scatter.25", "reduce-scatter", "cross-replica", NULL, 131072, 2, 65536, 16, 1999366, 16 },
	{ "all-to-all.26", "all-to-all", "cross-partition", NULL, 65536, 2, 32768, 16, 1347094, 16 },
	{ "collective-permute.31", "collective-permute", "cross-partition", NULL, 131072, 2, 131072, 16, 2713214, 16 },
	{ "all-reduce-start.33", "all-reduce", "cross-replica-and-partition", "all-reduce-done.34",
	  8388608, 2, 8388608, 16, INT64_C(164588631) + INT64_C(164667241), 32 },
};

START_TEST(test_collective_kinds)
{
	struct tp_capture cap;
	struct tp_collectives c;
	struct tp_error err = { 0 };

	open_capture(&cap, "testdata/collectives.xplane.pb");
	ck_assert_int_eq(tp_collectives_build(&c, &cap, NULL, &err), TP_OK);
	ck_assert_uint_eq(c.n, sizeof(colls) / sizeof(colls[0]));
	for (size_t i = 0; i < c.n; i++) {
		const struct tp_collective *col = &c.v[i];
		const struct tp_hlo_index *idx = &c.ops.index[col->module];
		int64_t sum = 0;

		ck_assert_str_eq(idx->instrs[col->instr].proto->name, colls[i].name);
		ck_assert_str_eq(col->kind, colls[i].kind);
		ck_assert_str_eq(col->mode, colls[i].mode);
		if (colls[i].done)
			ck_assert_str_eq(idx->instrs[col->done].proto->name, colls[i].done);
		else
			ck_assert_int_eq(col->done, -1);
		ck_assert_uint_eq(col->bytes, colls[i].bytes);
		ck_assert_uint_eq(col->group_size, colls[i].group_size);
		ck_assert_uint_eq(col->ring_bytes, colls[i].ring);
		ck_assert_uint_eq(col->occurrences, colls[i].occurrences);
		ck_assert_int_eq(col->time_ps, colls[i].time_ps);
		ck_assert_uint_eq(col->n_execs, colls[i].execs);
		for (size_t k = 0; k < col->n_execs; k++)
			sum += c.execs[col->first_exec + k].dur_ps;
		ck_assert_int_eq(sum, colls[i].time_ps);
	}
	ck_assert_uint_eq(c.n_modules, 1);
	ck_assert_uint_eq(c.modules[0].occurrences, 104);
	tp_collectives_release(&c);
	tp_capture_release(&cap);
}
END_TEST

/* A hand-built module: a fusion whose body holds the legacy
 * cross-replica-sum, and a send whose shape is (data, context, token). */
static char *write_fused_collective_module(void)
{
	/* protobuf-c fields are char *; the literals are never written */
	Xla__HloProto hp = XLA__HLO_PROTO__INIT;
	Xla__HloModuleProto mod = XLA__HLO_MODULE_PROTO__INIT;
	Xla__HloComputationProto fused = XLA__HLO_COMPUTATION_PROTO__INIT;
	Xla__HloComputationProto entry = XLA__HLO_COMPUTATION_PROTO__INIT;
	Xla__HloInstructionProto p0 = XLA__HLO_INSTRUCTION_PROTO__INIT;
	Xla__HloInstructionProto crs = XLA__HLO_INSTRUCTION_PROTO__INIT;
	Xla__HloInstructionProto p1 = XLA__HLO_INSTRUCTION_PROTO__INIT;
	Xla__HloInstructionProto fus = XLA__HLO_INSTRUCTION_PROTO__INIT;
	Xla__HloInstructionProto snd = XLA__HLO_INSTRUCTION_PROTO__INIT;
	Xla__ShapeProto f4 = XLA__SHAPE_PROTO__INIT, u32 = XLA__SHAPE_PROTO__INIT;
	Xla__ShapeProto tok = XLA__SHAPE_PROTO__INIT, tup = XLA__SHAPE_PROTO__INIT;
	Xla__ShapeProto *elems[] = { &f4, &u32, &tok };
	Xla__ReplicaGroup g0 = XLA__REPLICA_GROUP__INIT, g1 = XLA__REPLICA_GROUP__INIT;
	Xla__ReplicaGroup *groups[] = { &g0, &g1 };
	int64_t dims[] = { 4 }, ids0[] = { 0, 1, 2 }, ids1[] = { 3 };
	int64_t crs_ops[] = { 1 }, fus_called[] = { 10 }, fus_ops[] = { 3 };
	int64_t snd_ops[] = { 3 };
	Xla__HloInstructionProto *fused_ins[] = { &p0, &crs };
	Xla__HloInstructionProto *entry_ins[] = { &p1, &fus, &snd };
	Xla__HloComputationProto *comps[] = { &fused, &entry };
	uint8_t *buf;
	size_t n;
	char *path;

	f4.element_type = 11;
	f4.n_dimensions = 1;
	f4.dimensions = dims;
	u32.element_type = 8;
	tok.element_type = 17;
	tup.element_type = 13;
	tup.n_tuple_shapes = 3;
	tup.tuple_shapes = elems;
	g0.n_replica_ids = 3;
	g0.replica_ids = ids0;
	g1.n_replica_ids = 1;
	g1.replica_ids = ids1;
	p0.name = (char *)"param_0"; p0.opcode = (char *)"parameter"; p0.id = 1; p0.shape = &f4;
	crs.name = (char *)"crs.2"; crs.opcode = (char *)"cross-replica-sum"; crs.id = 2; crs.shape = &f4;
	crs.n_operand_ids = 1; crs.operand_ids = crs_ops;
	crs.n_replica_groups = 2; crs.replica_groups = groups;
	p1.name = (char *)"p"; p1.opcode = (char *)"parameter"; p1.id = 3; p1.shape = &f4;
	fus.name = (char *)"fusion.4"; fus.opcode = (char *)"fusion"; fus.id = 4; fus.shape = &f4;
	fus.fusion_kind = (char *)"kLoop";
	fus.n_called_computation_ids = 1; fus.called_computation_ids = fus_called;
	fus.n_operand_ids = 1; fus.operand_ids = fus_ops;
	snd.name = (char *)"send.5"; snd.opcode = (char *)"send"; snd.id = 5; snd.shape = &tup;
	snd.n_operand_ids = 1; snd.operand_ids = snd_ops; snd.channel_id = 7;
	fused.name = (char *)"fused_computation"; fused.id = 10; fused.is_fusion_computation = 1;
	fused.n_instructions = 2; fused.instructions = fused_ins; fused.root_id = 2;
	entry.name = (char *)"main"; entry.id = 11;
	entry.n_instructions = 3; entry.instructions = entry_ins; entry.root_id = 5;
	mod.name = (char *)"jit_handmade"; mod.id = 77; mod.entry_computation_id = 11;
	mod.entry_computation_name = (char *)"main";
	mod.n_computations = 2; mod.computations = comps;
	hp.hlo_module = &mod;
	n = xla__hlo_proto__get_packed_size(&hp);
	buf = tp_xmalloc(n);
	xla__hlo_proto__pack(&hp, buf);
	path = write_temp(".hlo_proto.pb", buf, n);
	free(buf);
	return path;
}

START_TEST(test_fused_and_legacy_collectives)
{
	char *path = write_fused_collective_module();
	struct tp_capture cap;
	struct tp_collectives c;
	struct tp_error err = { 0 };
	const struct tp_hlo_index *idx;

	open_capture(&cap, path);
	ck_assert_int_eq(tp_collectives_build(&c, &cap, NULL, &err), TP_OK);
	ck_assert_uint_eq(c.n, 2);
	idx = &c.ops.index[c.v[0].module];
	ck_assert_str_eq(idx->instrs[c.v[0].instr].proto->name, "crs.2");
	ck_assert_str_eq(c.v[0].kind, "all-reduce");
	ck_assert_str_eq(idx->instrs[c.v[0].fusion].proto->name, "fusion.4");
	ck_assert_uint_eq(c.v[0].bytes, 16);
	ck_assert_str_eq(c.v[0].groups.text, "{{0,1,2},{3}}");
	ck_assert_uint_eq(c.v[0].groups.n_groups, 2);
	ck_assert_uint_eq(c.v[0].group_size, 3);
	ck_assert_uint_eq(c.v[0].ring_bytes, 2 * 16 * 2 / 3);
	ck_assert_str_eq(c.v[0].mode, "cross-replica");
	ck_assert_str_eq(idx->instrs[c.v[1].instr].proto->name, "send.5");
	ck_assert_str_eq(c.v[1].kind, "send");
	ck_assert_uint_eq(c.v[1].bytes, 16); /* data only, not context/token */
	ck_assert_str_eq(c.v[1].mode, "cross-partition");
	ck_assert_int_eq(c.v[1].fusion, -1);
	ck_assert_uint_eq(c.v[1].occurrences, 0);
	tp_collectives_release(&c);
	tp_capture_release(&cap);
	unlink(path);
	free(path);
}
END_TEST

struct iota_case {
	int64_t groups, size, dims[3];
	size_t n_dims;
	int32_t perm[3];
	const char *text, *expanded;
};

static const struct iota_case iotas[] = {
	{ 4, 2, { 2, 4 }, 2, { 1, 0 }, "[4,2]<=[2,4]T(1,0)", "{{0,4},{1,5},{2,6},{3,7}}" },
	{ 2, 4, { 8 }, 1, { 0 }, "[2,4]<=[8]", "{{0,1,2,3},{4,5,6,7}}" },
	{ 1, 8, { 2, 2, 2 }, 3, { 2, 1, 0 }, "[1,8]<=[2,2,2]T(2,1,0)", "{{0,4,2,6,1,5,3,7}}" },
	{ 3, 2, { 2, 4 }, 2, { 1, 0 }, "[3,2]<=[2,4]T(1,0)", NULL },
	/* no permutation written: the identity (was left unexpanded, so the
	 * collective had no group size and no ring bytes) */
	{ 1, 2, { 2 }, 1, { -1 }, "[1,2]<=[2]", "{{0,1}}" },
	{ 2, 4, { 2, 4 }, 2, { -1 }, "[2,4]<=[2,4]", "{{0,1,2,3},{4,5,6,7}}" },
};

START_TEST(test_iota_groups)
{
	const struct iota_case *c = &iotas[_i];
	Xla__IotaReplicaGroupListProto io = XLA__IOTA_REPLICA_GROUP_LIST_PROTO__INIT;
	Xla__CollectiveDeviceListProto dl = XLA__COLLECTIVE_DEVICE_LIST_PROTO__INIT;
	Xla__HloInstructionProto ins = XLA__HLO_INSTRUCTION_PROTO__INIT;
	struct tp_replica_groups g;
	bool ok;

	io.num_replica_groups = c->groups;
	io.num_devices_per_group = c->size;
	io.n_iota_reshape_dims = c->n_dims;
	io.iota_reshape_dims = (int64_t *)c->dims;
	io.n_iota_transpose_perm = c->perm[0] < 0 ? 0 : c->n_dims;  /* -1: none */
	io.iota_transpose_perm = c->perm[0] < 0 ? NULL : (int32_t *)c->perm;
	dl.iota_replica_group_list = &io;
	ins.collective_device_list = &dl;
	ok = tp_replica_groups_read(&ins, &g);
	ck_assert_str_eq(g.text, c->text);
	ck_assert_int_eq(ok, c->expanded != NULL);
	if (ok) {
		char *x = tp_replica_groups_expanded(&g);

		ck_assert_str_eq(x, c->expanded);
		free(x);
	}
	tp_replica_groups_release(&g);
}
END_TEST

/* Where an op's FLOPs and bytes come from: a custom call's (Pallas,
 * Triton, a library kernel) are its kernel author's estimate, anything
 * else's the capture's cost model; an op with neither has none. A
 * handmade module: parameter p, custom-call k(p), add a(p, k). */
START_TEST(test_cost_source)
{
	NEED_SHARED();
	static const char *const names[] = { "p", "k", "a" };
	static const char *const opcodes[] = { "parameter", "custom-call", "add" };
	int64_t operand_ids[] = { 1, 2 };
	Xla__ShapeProto shape = XLA__SHAPE_PROTO__INIT;
	Xla__HloInstructionProto ins[3], *ip[3];
	Xla__HloComputationProto comp = XLA__HLO_COMPUTATION_PROTO__INIT;
	Xla__HloModuleProto mod = XLA__HLO_MODULE_PROTO__INIT;
	Xla__HloProto hlo = XLA__HLO_PROTO__INIT;
	struct tp_ops ops;
	struct tp_ops_core core;
	struct tp_op op[3];
	struct tp_hlo_index idx;
	bool indexed = true;

	shape.element_type = 11;        /* F32 */
	for (int i = 0; i < 3; i++) {
		xla__hlo_instruction_proto__init(&ins[i]);
		ins[i].name = (char *)names[i];
		ins[i].opcode = (char *)opcodes[i];
		ins[i].id = i + 1;
		ins[i].shape = &shape;
		ip[i] = &ins[i];
	}
	ins[1].n_operand_ids = 1;
	ins[1].operand_ids = operand_ids;
	ins[2].n_operand_ids = 2;
	ins[2].operand_ids = operand_ids;
	comp.name = (char *)"main";
	comp.id = 1;
	comp.n_instructions = 3;
	comp.instructions = ip;
	comp.root_id = 3;
	mod.name = (char *)"m";
	mod.entry_computation_id = 1;
	mod.n_computations = 1;
	Xla__HloComputationProto *cp = &comp;
	mod.computations = &cp;
	hlo.hlo_module = &mod;
	tp_hlo_index_build(&idx, &hlo);

	memset(&ops, 0, sizeof(ops));
	memset(&core, 0, sizeof(core));
	memset(op, 0, sizeof(op));
	core.n_ops = 3;
	ops.cores = &core;
	ops.n_cores = 1;
	ops.ops = op;
	ops.n_ops = 3;
	ops.index = &idx;
	ops.indexed = &indexed;
	ops.n_modules = 1;
	for (int i = 0; i < 3; i++) {
		op[i].instr = tp_hlo_find_id(&idx, i + 1);
		op[i].name = tp_str_make(names[i], strlen(names[i]));
	}
	op[1].has_flops = op[1].has_bytes = true;      /* the custom call */
	op[1].flops = 1000;
	op[1].bytes_accessed = 48;
	op[2].has_bytes = true;                        /* the add */
	op[2].bytes_accessed = 48;
	tp_ops_roofline_prepare(&ops, NULL, NULL, NULL);
	ck_assert_int_eq(op[0].cost_source, TP_COST_NONE);
	ck_assert_int_eq(op[1].cost_source, TP_COST_CUSTOM_CALL);
	ck_assert_int_eq(op[2].cost_source, TP_COST_MODEL);
	ck_assert_str_eq(tp_cost_source_name(op[1].cost_source), "custom_call_estimate");
	ck_assert_str_eq(tp_cost_source_name(op[2].cost_source), "cost_model");
	ck_assert_str_eq(tp_cost_source_name(op[0].cost_source), "none");
	ck_assert_int_eq(op[1].async, TP_ASYNC_NONE);
	ck_assert(!op[1].host_transfer);
	tp_hlo_index_release(&idx);
}
END_TEST

START_TEST(test_ring_bytes)
{
	ck_assert_uint_eq(tp_ring_bytes("all-reduce", 1000, 4), 1500);
	ck_assert_uint_eq(tp_ring_bytes("all-gather", 1000, 4), 750);
	ck_assert_uint_eq(tp_ring_bytes("reduce-scatter", 1000, 4), 750);
	ck_assert_uint_eq(tp_ring_bytes("all-to-all", 1000, 4), 750);
	ck_assert_uint_eq(tp_ring_bytes("collective-permute", 1000, 2), 1000);
	ck_assert_uint_eq(tp_ring_bytes("all-reduce", 1000, 0), 0);
	ck_assert_str_eq(tp_collective_kind(tp_str_make("all-reduce-done", 15)), "all-reduce");
	ck_assert_str_eq(tp_collective_kind(tp_str_make("cross-replica-sum", 17)), "all-reduce");
	ck_assert_ptr_null(tp_collective_kind(tp_str_make("all-reducer", 11)));
}
END_TEST

/* Appends the instructions of comp, nested fusions opened, as the
 * fusion table should list them. */
static void expect_walk(const struct tp_hlo_index *idx,
			const Xla__HloComputationProto *comp, int depth,
			long *out, int *depths, size_t *n)
{
	for (size_t i = 0; i < comp->n_instructions; i++) {
		const Xla__HloInstructionProto *ins = comp->instructions[i];

		out[*n] = tp_hlo_find_id(idx, ins->id);
		depths[(*n)++] = depth;
		if (strcmp(ins->opcode, "fusion") == 0)
			expect_walk(idx, tp_hlo_computation(idx, ins->called_computation_ids[0]),
				    depth + 1, out, depths, n);
	}
}

/* Each fusion's list matches its fused computation in the HLO. */
START_TEST(test_fusion_contents)
{
	struct tp_capture cap;
	struct tp_fusions f;
	struct tp_error err = { 0 };
	size_t nested = 0;

	open_capture(&cap, "testdata/jit_train_step.hlo_proto.pb");
	ck_assert_int_eq(tp_fusions_build(&f, &cap, NULL, &err), TP_OK);
	ck_assert_uint_eq(f.n, 6);
	for (size_t i = 0; i < f.n; i++) {
		const struct tp_hlo_index *idx = &f.ops.index[f.v[i].module];
		const struct tp_hlo_instr *fi = &idx->instrs[f.v[i].instr];
		long want[64];
		int depths[64];
		size_t n = 0;

		ck_assert_str_eq(fi->proto->opcode, "fusion");
		ck_assert_ptr_eq(fi->called,
				 tp_hlo_computation(idx, fi->proto->called_computation_ids[0]));
		expect_walk(idx, fi->called, 1, want, depths, &n);
		ck_assert_uint_eq(f.v[i].n, n);
		for (size_t k = 0; k < n; k++) {
			ck_assert_int_eq(f.instrs[f.v[i].first + k].instr, want[k]);
			ck_assert_int_eq(f.instrs[f.v[i].first + k].depth, depths[k]);
		}
		nested += f.v[i].parent >= 0;
	}
	ck_assert_uint_eq(nested, 2);
	tp_fusions_release(&f);
	ck_assert_int_eq(tp_fusions_build(&f, &cap, "*/mlp/maximum", &err), TP_OK);
	ck_assert_uint_eq(f.n, 1);
	ck_assert_uint_eq(f.v[0].n_matches, 1);
	tp_fusions_release(&f);
	tp_capture_release(&cap);
}
END_TEST

/* --by scope: shares add up to each fusion's self time, and the tree's
 * root holds all self time. */
START_TEST(test_scope_split)
{
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_op_scopes s;
	struct tp_error err = { 0 };
	int64_t self = 0;

	open_capture(&cap, "testdata/small.xplane.pb");
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	tp_op_scopes_build(&s, &ops, &cap);
	for (size_t i = 0; i < ops.n_ops; i++)
		self += ops.ops[i].self_ps;
	ck_assert_int_eq(s.tree.nodes[0].inclusive, self);
	ck_assert_uint_gt(s.n_shares, 0);
	for (size_t i = 0; i < s.n_shares;) {
		size_t op = s.shares[i].op;
		int64_t sum = 0;

		for (; i < s.n_shares && s.shares[i].op == op; i++)
			sum += s.shares[i].ps;
		ck_assert_int_eq(sum, ops.ops[op].self_ps);
	}
	tp_op_scopes_release(&s);
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

/* The generator's Steps line covers every execution: all op self time
 * lands in a step, and each step splits exactly into its three parts. */
START_TEST(test_steps)
{
	NEED_SHARED();
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_error err = { 0 };

	open_capture(&cap, "testdata/layout-b.xplane.pb.gz");
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	ck_assert_uint_eq(ops.n_cores, 4);
	for (size_t k = 0; k < ops.n_cores; k++) {
		const struct tp_ops_core *c = &ops.cores[k];
		int64_t busy = 0, coll = 0;

		ck_assert_uint_eq(c->n_steps, 2);
		for (size_t i = 0; i < c->n_steps; i++) {
			const struct tp_step *st = &ops.steps[c->first_step + i];

			ck_assert_int_eq(st->compute_ps + st->collective_ps + st->copy_ps +
					 st->idle_ps, st->dur_ps);
			busy += st->compute_ps + st->collective_ps + st->copy_ps;
			coll += st->collective_ps;
		}
		ck_assert_int_eq(busy, c->self_ps);
		ck_assert_int_eq(coll, c->collective_ps);
	}
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

/* Regression: an op line in reverse time order (hostile, or an odd
 * producer) was sorted by insertion sort restarted on itself, quadratic
 * in the events; past its move budget the sort must hand over to qsort.
 * 200000 reversed events took minutes before the fix, well under a
 * second after (this case has its own short timeout). */
START_TEST(test_reversed_line)
{
	enum { N = 200000 };
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, em = { 0 }, entry = { 0 };
	struct pb st = { 0 }, sm = { 0 }, sme = { 0 }, ev = { 0 };
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_error err = { 0 };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };
	const char *names[] = { "program_id", "symbol_id" };
	char *path;
	const char *paths[1];

	pb_str(&plane, 2, "/device:TPU:0");
	pb_int(&line, 1, 3);
	pb_str(&line, 2, "XLA Ops");
	for (int i = 0; i < N; i++) {
		pb_int(&ev, 1, 7);
		pb_int(&ev, 2, (int64_t)(N - i) * 10);
		pb_int(&ev, 3, 5);
		pb_msg(&line, 4, &ev);
	}
	pb_msg(&plane, 3, &line);
	pb_int(&em, 1, 7);
	pb_str(&em, 2, "%op.1 = f32[] add()");
	pb_str(&em, 4, "op.1");
	for (int k = 0; k < 2; k++) {
		pb_int(&st, 1, k + 1);
		pb_int(&st, 3, k ? 9 : 5);
		pb_msg(&em, 5, &st);
	}
	pb_int(&entry, 1, 7);
	pb_msg(&entry, 2, &em);
	pb_msg(&plane, 4, &entry);
	for (int k = 0; k < 2; k++) {
		pb_int(&sm, 1, k + 1);
		pb_str(&sm, 2, names[k]);
		pb_int(&sme, 1, k + 1);
		pb_msg(&sme, 2, &sm);
		pb_msg(&plane, 5, &sme);
	}
	pb_msg(&space, 1, &plane);
	path = write_temp(".xplane.pb", space.data, space.len);
	paths[0] = path;
	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &o, &err), TP_OK);
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	ck_assert_uint_eq(ops.n_ops, 1);
	ck_assert_uint_eq(ops.ops[0].occurrences, N);
	ck_assert_int_eq(ops.ops[0].total_ps, 5 * N);
	ck_assert_int_eq(ops.ops[0].self_ps, 5 * N);
	tp_ops_release(&ops);
	tp_capture_release(&cap);
	unlink(path);
	free(path);
	pb_free(&space);
}
END_TEST

/* A line nested as it is read must give what sorting and nesting gives.
 * The events: an all-reduce holding two adds, a lone add, an all-reduce;
 * order 0 is sorted, the others put one event out of place early, in
 * the middle and last, so the one-pass nesting is abandoned at different
 * points (after executions were recorded) and the line is read again. */
struct nest_event { int64_t meta, start, dur; };

static const struct nest_event nest_events[] = {
	{ 7, 1000, 500 }, { 8, 1100, 100 }, { 8, 1300, 150 },
	{ 8, 2000, 40 }, { 7, 3000, 60 }, { 8, 3010, 10 },
};
static const int nest_orders[][6] = {
	{ 0, 1, 2, 3, 4, 5 }, { 1, 0, 2, 3, 4, 5 }, { 0, 1, 3, 2, 4, 5 },
	{ 0, 1, 2, 3, 5, 4 },
};

static void nest_meta(struct pb *plane, int64_t id, int64_t sym, const char *cat)
{
	struct pb em = { 0 }, entry = { 0 }, st = { 0 };

	pb_int(&em, 1, id);
	pb_str(&em, 4, id == 7 ? "all-reduce.1" : "add.1");
	pb_int(&st, 1, 1);
	pb_int(&st, 3, 5);
	pb_msg(&em, 5, &st);
	pb_int(&st, 1, 2);
	pb_int(&st, 3, sym);
	pb_msg(&em, 5, &st);
	pb_int(&st, 1, 3);
	pb_str(&st, 5, cat);
	pb_msg(&em, 5, &st);
	pb_int(&entry, 1, id);
	pb_msg(&entry, 2, &em);
	pb_msg(plane, 4, &entry);
}

static char *nest_capture(const int *order)
{
	static const char *const names[] = { "program_id", "symbol_id", "hlo_category" };
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, ev = { 0 }, sm = { 0 }, sme = { 0 };
	char *path;

	pb_str(&plane, 2, "/device:TPU:0");
	pb_str(&line, 2, "XLA Ops");
	for (int i = 0; i < 6; i++) {
		const struct nest_event *e = &nest_events[order[i]];

		pb_int(&ev, 1, e->meta);
		pb_int(&ev, 2, e->start);
		pb_int(&ev, 3, e->dur);
		pb_msg(&line, 4, &ev);
	}
	pb_msg(&plane, 3, &line);
	nest_meta(&plane, 7, 11, "all-reduce");
	nest_meta(&plane, 8, 12, "non-fusion elementwise");
	for (int k = 0; k < 3; k++) {
		pb_int(&sm, 1, k + 1);
		pb_str(&sm, 2, names[k]);
		pb_int(&sme, 1, k + 1);
		pb_msg(&sme, 2, &sm);
		pb_msg(&plane, 5, &sme);
	}
	pb_msg(&space, 1, &plane);
	path = write_temp(".xplane.pb", space.data, space.len);
	pb_free(&space);
	return path;
}

START_TEST(test_nest_orders)
{
	NEED_SHARED();
	char *path = nest_capture(nest_orders[_i]);
	const char *paths[1] = { path };
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_error err = { 0 };
	int64_t want_exec[2][2] = { { 1000, 500 }, { 3000, 60 } };

	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &o, &err), TP_OK);
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	ck_assert_uint_eq(ops.n_cores, 1);
	ck_assert_uint_eq(ops.n_ops, 2);
	for (size_t i = 0; i < ops.n_ops; i++) {
		const struct tp_op *op = &ops.ops[i];

		if (op->collective) { /* 500 - 100 - 150, and 60 - 10 */
			ck_assert_int_eq(op->self_ps, 250 + 50);
			ck_assert_int_eq(op->total_ps, 560);
		} else {
			ck_assert_int_eq(op->self_ps, 300);
			ck_assert_int_eq(op->occurrences, 4);
		}
	}
	ck_assert_int_eq(ops.cores[0].self_ps, 600);
	ck_assert_int_eq(ops.cores[0].collective_ps, 300);
	ck_assert_uint_eq(ops.n_execs, 2);
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(ops.execs[i].start_ps - ops.cores[0].first_start_ps + 1000,
				 want_exec[i][0]);
		ck_assert_int_eq(ops.execs[i].dur_ps, want_exec[i][1]);
	}
	tp_ops_release(&ops);
	tp_capture_release(&cap);
	unlink(path);
	free(path);
}
END_TEST


/* Inferred steps, by hand: program 1 (jit_a) runs three times for 2200
 * ps in all, program 2 once for 100 ps, so program 1's runs are the
 * steps. Step 0: 1200 ps holding an add (300), an all-reduce (200) and a
 * copy-done (100): idle 600; 1200 > 2 x the median 500 of the others,
 * so it is warm-up. Steps 1 and 2: 500 ps, adds of 100 and 50. */
static void step_meta(struct pb *plane, int64_t id, int64_t program, const char *name,
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
		pb_int(&st, 1, 2);
		pb_int(&st, 3, id);
		pb_msg(&em, 5, &st);
		pb_int(&st, 1, 3);
		pb_str(&st, 5, cat);
		pb_msg(&em, 5, &st);
	}
	pb_int(&entry, 1, id);
	pb_msg(&entry, 2, &em);
	pb_msg(plane, 4, &entry);
}

static void step_line(struct pb *plane, const char *name, const int64_t (*ev)[3], size_t n)
{
	struct pb line = { 0 }, e = { 0 };

	pb_str(&line, 2, name);
	for (size_t i = 0; i < n; i++) {
		pb_int(&e, 1, ev[i][0]);
		pb_int(&e, 2, ev[i][1]);
		pb_int(&e, 3, ev[i][2]);
		pb_msg(&line, 4, &e);
	}
	pb_msg(plane, 3, &line);
}

START_TEST(test_inferred_steps)
{
	NEED_SHARED();
	static const char *const names[] = { "program_id", "symbol_id", "hlo_category" };
	static const int64_t modules[][3] = {
		{ 20, 1000, 1200 }, { 21, 2500, 100 }, { 20, 3000, 500 }, { 20, 4000, 500 },
	};
	static const int64_t opev[][3] = {
		{ 7, 1100, 300 }, { 8, 1500, 200 }, { 9, 1800, 100 }, { 7, 2520, 10 },
		{ 7, 3100, 100 }, { 7, 4100, 50 },
	};
	struct pb space = { 0 }, plane = { 0 }, sm = { 0 }, sme = { 0 };
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_steps_summary sum;
	struct tp_error err = { 0 };
	const struct tp_step *st;
	const char *paths[1];
	char *path;

	pb_str(&plane, 2, "/device:TPU:0");
	step_line(&plane, "XLA Modules", modules, 4);
	step_line(&plane, "XLA Ops", opev, 6);
	step_meta(&plane, 20, 0, "jit_a(1)", NULL);
	step_meta(&plane, 21, 0, "jit_b(2)", NULL);
	step_meta(&plane, 7, 1, "add.1", "non-fusion elementwise");
	step_meta(&plane, 8, 1, "all-reduce.1", "all-reduce");
	step_meta(&plane, 9, 1, "copy-done.1", "copy-done");
	for (int k = 0; k < 3; k++) {
		pb_int(&sm, 1, k + 1);
		pb_str(&sm, 2, names[k]);
		pb_int(&sme, 1, k + 1);
		pb_msg(&sme, 2, &sm);
		pb_msg(&plane, 5, &sme);
	}
	pb_msg(&space, 1, &plane);
	path = write_temp(".xplane.pb", space.data, space.len);
	pb_free(&space);
	paths[0] = path;
	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &o, &err), TP_OK);
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	ck_assert_uint_eq(ops.n_cores, 1);
	ck_assert_int_eq(ops.cores[0].step_source, TP_STEPS_INFERRED);
	ck_assert_uint_eq(ops.cores[0].step_program_id, 1);
	ck_assert(tp_str_eq(ops.cores[0].step_program, "jit_a"));
	ck_assert_uint_eq(ops.cores[0].n_steps, 3);
	st = &ops.steps[ops.cores[0].first_step];
	/* each step runs to the next run of jit_a: the first holds jit_b's
	 * run (its add.1 as compute) and the gaps as idle */
	ck_assert_int_eq(ops.cores[0].clock, TP_CLOCK_TIMELINE);
	ck_assert_int_eq(st[0].start_ps, 1000);
	ck_assert_int_eq(st[0].dur_ps, 2000);
	ck_assert_int_eq(st[0].compute_ps, 310);
	ck_assert_int_eq(st[0].collective_ps, 200);
	ck_assert_int_eq(st[0].copy_ps, 100);
	ck_assert_int_eq(st[0].idle_ps, 1390);
	/* 2000 is not over twice the median of 1000 and 500: no warm-up */
	ck_assert(!st[0].warmup);
	ck_assert_int_eq(st[1].dur_ps, 1000);
	ck_assert_int_eq(st[1].compute_ps, 100);
	ck_assert_int_eq(st[1].idle_ps, 900);
	ck_assert_int_eq(st[2].dur_ps, 500);
	ck_assert_int_eq(st[2].compute_ps, 50);
	ck_assert_int_eq(st[2].idle_ps, 450);
	ck_assert(!st[1].warmup && !st[2].warmup);
	/* nothing of the ops lies outside the steps */
	for (int k = 0; k < TP_PARTS; k++)
		ck_assert_int_eq(ops.cores[0].outside_ps[k], 0);
	tp_steps_summarize(&ops, &ops.cores[0], &sum);
	ck_assert_uint_eq(sum.n_steady, 3);
	ck_assert(!sum.warmup);
	ck_assert_int_eq(sum.sum_ps, 3500);
	ck_assert_int_eq(sum.step_ps, 1166);
	ck_assert_int_eq(sum.idle_ps, 2740);
	/* inferred steps leave device time to the ops: 1100 .. 4150 */
	ck_assert_int_eq(ops.cores[0].device_ps, 3050);
	tp_ops_release(&ops);
	tp_capture_release(&cap);
	unlink(path);
	free(path);
}
END_TEST

/* --by category over layout-b's 4 cores: every op's self time lands in
 * exactly one category row, each op is summed over the cores it ran on,
 * and its spread is the least and most one core gave it. */
START_TEST(test_categories)
{
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_op_categories c, f;
	struct tp_error err = { 0 };
	int64_t all = 0, groups = 0, folded = 0;

	open_capture(&cap, "testdata/layout-b.xplane.pb.gz");
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	for (size_t i = 0; i < ops.n_ops; i++)
		all += ops.ops[i].self_ps;
	tp_op_categories_build(&c, &ops, false);
	for (size_t g = 0; g < c.n_groups; g++) {
		int64_t in = 0;

		groups += c.groups[g].sum.self_ps;
		for (size_t k = 0; k < c.groups[g].n; k++) {
			const struct tp_cat_op *o = &c.ops[c.groups[g].first + k];
			int64_t lo = INT64_MAX, hi = 0, sum = 0;
			size_t ran_on = 0;

			in += o->sum.self_ps;
			for (size_t i = 0; i < ops.n_ops; i++)
				if (ops.ops[i].program_id == o->program_id &&
				    tp_str_eq(ops.ops[i].name, "") == tp_str_eq(o->name, "") &&
				    ops.ops[i].name.len == o->name.len &&
				    memcmp(ops.ops[i].name.ptr, o->name.ptr, o->name.len) == 0) {
					sum += ops.ops[i].self_ps;
					lo = ops.ops[i].self_ps < lo ? ops.ops[i].self_ps : lo;
					hi = ops.ops[i].self_ps > hi ? ops.ops[i].self_ps : hi;
					ran_on++;
				}
			ck_assert_int_eq(o->sum.self_ps, sum);
			ck_assert_uint_eq(o->sum.n_cores, ran_on);
			ck_assert_int_eq(o->sum.min_core_ps, lo);
			ck_assert_int_eq(o->sum.max_core_ps, hi);
			ck_assert_uint_eq(o->variants, 1);
		}
		ck_assert_int_eq(in, c.groups[g].sum.self_ps);
	}
	ck_assert_int_eq(groups, all);
	tp_op_categories_build(&f, &ops, true);
	for (size_t k = 0; k < f.n_ops; k++)
		folded += f.ops[k].sum.self_ps;
	ck_assert_int_eq(folded, all);
	ck_assert_uint_le(f.n_ops, c.n_ops);
	tp_op_categories_release(&c);
	tp_op_categories_release(&f);
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

/* The all-cores view on ops made by hand: program 7 on cores 0-2 is one
 * group summed over them; program 9 only core 0 ran is a group of its
 * own (not its per-core table: core 0 also ran program 7); program 0 on
 * cores 3 and 4 whose ops share no name (TF replicas) splits back into
 * one whole group per core. */
START_TEST(test_all_cores)
{
	NEED_SHARED();
	static const struct { size_t core; uint64_t program; const char *name; int64_t self; uint64_t n; } in[] = {
		{ 0, 7, "a", 100, 2 }, { 0, 7, "b", 10, 1 }, { 0, 9, "c", 5, 1 },
		{ 1, 7, "a", 120, 2 }, { 1, 7, "b", 30, 1 },
		{ 2, 7, "a", 90, 2 },
		{ 3, 0, "replica_3/x", 40, 1 }, { 4, 0, "replica_4/x", 50, 1 },
	};
	static const int64_t device[] = { 1000, 2000, 3000, 400, 500 };
	struct tp_ops_core hand[5];
	struct tp_op ops_v[8];
	struct tp_ops ops;
	struct tp_ops_all a;

	memset(&ops, 0, sizeof(ops));
	memset(hand, 0, sizeof(hand));
	memset(ops_v, 0, sizeof(ops_v));
	for (size_t i = 0; i < 8; i++) {
		struct tp_op *o = &ops_v[i];

		o->core = in[i].core;
		o->program_id = in[i].program;
		o->name = tp_str_make(in[i].name, strlen(in[i].name));
		o->category = tp_str_make("fusion", 6);
		o->module = SIZE_MAX;
		o->instr = -1;
		o->self_ps = o->total_ps = in[i].self;
		o->min_ps = in[i].self / (int64_t)in[i].n;
		o->occurrences = in[i].n;
		if (!hand[o->core].n_ops)
			hand[o->core].first_op = i;
		hand[o->core].n_ops++;
	}
	for (size_t c = 0; c < 5; c++)
		hand[c].device_ps = device[c];
	ops.cores = hand;
	ops.n_cores = 5;
	ops.ops = ops_v;
	ops.n_ops = 8;
	tp_ops_all_build(&a, &ops, TP_SORT_TOTAL);
	ck_assert_uint_eq(a.all.n_cores, 4);
	/* cores 0-2, program 7: a = 100 + 120 + 90, spread 90..120; b on two */
	ck_assert_uint_eq(a.groups[0].n_cores, 3);
	ck_assert_uint_eq(a.groups[0].n_programs, 1);
	ck_assert_uint_eq(a.groups[0].programs[0], 7);
	ck_assert(!a.groups[0].whole);
	ck_assert_int_eq(a.all.cores[0].device_ps, 6000);
	ck_assert_int_eq(a.all.cores[0].self_ps, 350);
	ck_assert_uint_eq(a.all.cores[0].events, 8);
	ck_assert_uint_eq(a.all.cores[0].n_ops, 2);
	ck_assert(tp_str_eq(a.all.ops[a.all.cores[0].first_op].name, "a"));
	ck_assert_int_eq(a.all.ops[a.all.cores[0].first_op].self_ps, 310);
	ck_assert_uint_eq(a.all.ops[a.all.cores[0].first_op].occurrences, 6);
	ck_assert_int_eq(a.all.ops[a.all.cores[0].first_op].min_ps, 45);
	ck_assert_uint_eq(a.spread[a.all.cores[0].first_op].n_cores, 3);
	ck_assert_int_eq(a.spread[a.all.cores[0].first_op].min_core_ps, 90);
	ck_assert_int_eq(a.spread[a.all.cores[0].first_op].max_core_ps, 120);
	ck_assert_int_eq(a.all.ops[a.all.cores[0].first_op + 1].self_ps, 40);
	ck_assert_uint_eq(a.spread[a.all.cores[0].first_op + 1].n_cores, 2);
	/* program 0 on cores 3 and 4 shares no op: per core, each whole */
	ck_assert_uint_eq(a.groups[1].n_cores, 1);
	ck_assert_uint_eq(a.groups[1].cores[0], 3);
	ck_assert(a.groups[1].whole && a.groups[1].disjoint);
	ck_assert_uint_eq(a.groups[2].cores[0], 4);
	ck_assert(a.groups[2].whole && a.groups[2].disjoint);
	ck_assert_int_eq(a.all.cores[2].device_ps, 500);
	/* program 9, core 0 alone: a group, but not core 0's every op */
	ck_assert_uint_eq(a.groups[3].cores[0], 0);
	ck_assert_uint_eq(a.groups[3].programs[0], 9);
	ck_assert(!a.groups[3].whole && !a.groups[3].disjoint);
	ck_assert_int_eq(a.all.cores[3].device_ps, 1000);
	ck_assert_int_eq(a.all.cores[3].self_ps, 5);
	tp_ops_all_release(&a);
}
END_TEST

/* The all-cores view sorts its ops by category and name as numbers
 * where one pointer holds each string (the pass's pooled names), and as
 * strings where it cannot tell (one pointer, two lengths): the names as
 * literals, as copies (equal names at other addresses) and as slices of
 * one buffer ("ab" and "a" at one address) give one view: the same ops,
 * sums and spreads, in the same order where totals tie. */
enum names_as { NAMES_LITERAL, NAMES_COPIED, NAMES_SLICED };

static void all_cores_named(enum names_as as, struct tp_ops_all *a, char **copies)
{
	static const struct { size_t core; const char *cat, *name; int64_t self; } in[] = {
		{ 0, "loop fusion", "ab", 50 }, { 0, "loop fusion", "a", 50 }, { 0, "convolution", "b", 10 },
		{ 1, "loop fusion", "a", 70 }, { 1, "convolution", "b", 30 }, { 1, "loop fusion", "ab", 70 },
	};
	static const char slice_base[] = "abc";
	static struct tp_op ops_v[6];
	static struct tp_ops_core hand[2];
	static struct tp_ops ops;

	memset(&ops, 0, sizeof(ops));
	memset(hand, 0, sizeof(hand));
	memset(ops_v, 0, sizeof(ops_v));
	for (size_t i = 0; i < 6; i++) {
		struct tp_op *o = &ops_v[i];
		const char *name = in[i].name;

		if (as == NAMES_COPIED)
			name = copies[i] = strdup(in[i].name);
		else if (as == NAMES_SLICED && name[0] == 'a')
			name = slice_base;  /* "a" and "ab": one pointer */
		o->core = in[i].core;
		o->program_id = 7;
		o->name = tp_str_make(name, strlen(in[i].name));
		o->category = tp_str_make(in[i].cat, strlen(in[i].cat));
		o->module = SIZE_MAX;
		o->instr = -1;
		o->self_ps = o->total_ps = o->min_ps = in[i].self;
		o->occurrences = 1;
		if (!hand[o->core].n_ops)
			hand[o->core].first_op = i;
		hand[o->core].n_ops++;
	}
	ops.cores = hand;
	ops.n_cores = 2;
	ops.ops = ops_v;
	ops.n_ops = 6;
	tp_ops_all_build(a, &ops, TP_SORT_TOTAL);
}

START_TEST(test_all_cores_names)
{
	static const char *order[] = { "a", "ab", "b" };
	static const int64_t self[] = { 120, 120, 40 };

	for (enum names_as as = NAMES_LITERAL; as <= NAMES_SLICED; as++) {
		char *copies[6] = { 0 };
		struct tp_ops_all a;

		all_cores_named(as, &a, copies);
		ck_assert_uint_eq(a.all.n_cores, 1);
		ck_assert_uint_eq(a.all.n_ops, 3);
		for (size_t i = 0; i < 3; i++) {
			ck_assert_msg(tp_str_eq(a.all.ops[i].name, order[i]), "names as %d: op %zu is %.*s",
				      (int)as, i, (int)a.all.ops[i].name.len, a.all.ops[i].name.ptr);
			ck_assert_int_eq(a.all.ops[i].self_ps, self[i]);
			ck_assert_uint_eq(a.all.ops[i].occurrences, 2);
			ck_assert_uint_eq(a.spread[i].n_cores, 2);
		}
		ck_assert_int_eq(a.spread[0].min_core_ps, 50);
		ck_assert_int_eq(a.spread[0].max_core_ps, 70);
		ck_assert_int_eq(a.spread[2].min_core_ps, 10);
		ck_assert_int_eq(a.spread[2].max_core_ps, 30);
		tp_ops_all_release(&a);
		for (size_t i = 0; i < 6; i++)
			free(copies[i]);
	}
}
END_TEST

static const struct { const char *in, *out; } folds[] = {
	{ "copy-done.4", "copy-done" }, { "copy-done", "copy-done" }, { "fusion.12", "fusion" },
	{ "a.b.3", "a.b" }, { "x.", "x." }, { ".5", ".5" }, { "v2", "v2" },
};

START_TEST(test_fold_names)
{
	struct tp_str s = tp_op_fold_name(tp_str_make(folds[_i].in, strlen(folds[_i].in)));

	ck_assert_msg(tp_str_eq(s, folds[_i].out), "%s -> %.*s", folds[_i].in, (int)s.len, s.ptr);
}
END_TEST

/* The generator's steps case (tests/make_testdata.sh): each core's steps
 * are its executions as the summary lists them, the op time in each is
 * the executions' busy time and the rest is idle; the last core idles
 * 50 us more per execution, so every step straggles on it (by 50 us
 * less the difference of the host's gaps before the next runs); the
 * first and last are edges, judged no straggler. */
START_TEST(test_generated_steps)
{
	json_error_t jerr;
	json_t *sum = json_load_file("testdata/steps.summary.json", 0, &jerr);
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_error err = { 0 };
	struct tp_step_across *v;
	size_t i, n, core;

	ck_assert_ptr_nonnull(sum);
	open_capture(&cap, "testdata/steps.xplane.pb");
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	ck_assert_uint_eq(ops.n_cores, 3);
	core = assert_steps_as_summary(&ops, &cap, sum, TP_STEPS_INFERRED, 5);
	ck_assert_uint_eq(core, 3);
	n = tp_steps_across(&ops, &v);
	ck_assert_uint_eq(n, 5);
	for (i = 0; i < n; i++) {
		int64_t lo = INT64_MAX, hi = 0;

		/* each core's step i from the summary: to its next run's start */
		for (core = 0; core < ops.n_cores; core++) {
			const struct tp_step *st = &ops.steps[ops.cores[core].first_step + i];

			lo = st->dur_ps < lo ? st->dur_ps : lo;
			hi = st->dur_ps > hi ? st->dur_ps : hi;
		}
		/* the first and last are edges of inferred steps: their spread
		 * is measured, judged by no one */
		ck_assert(v[i].edge == (i == 0 || i + 1 == n));
		ck_assert(v[i].straggler == !v[i].edge);
		ck_assert_uint_eq(v[i].slowest_core, 2);
		ck_assert_int_eq(v[i].spread_ps, hi - lo);
		ck_assert_int_ge(v[i].spread_ps, 40000000);
	}
	free(v);
	json_decref(sum);
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

static Suite *ops_suite(void)
{
	Suite *s = suite_create("ops");
	TCase *tc = tcase_create("ops");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_core_sums, 0, sizeof(cores) / sizeof(cores[0]));
	tcase_add_test(tc, test_longest_tpu_op);
	tcase_add_test(tc, test_filters);
	tcase_add_test(tc, test_tpu_all_reduce);
	tcase_add_test(tc, test_collective_kinds);
	tcase_add_test(tc, test_fused_and_legacy_collectives);
	tcase_add_loop_test(tc, test_iota_groups, 0, sizeof(iotas) / sizeof(iotas[0]));
	tcase_add_test(tc, test_ring_bytes);
	tcase_add_test(tc, test_cost_source);
	tcase_add_test(tc, test_fusion_contents);
	tcase_add_test(tc, test_scope_split);
	tcase_add_test(tc, test_steps);
	tcase_add_test(tc, test_inferred_steps);
	tcase_add_test(tc, test_categories);
	tcase_add_test(tc, test_all_cores);
	tcase_add_test(tc, test_all_cores_names);
	tcase_add_test(tc, test_generated_steps);
	tcase_add_loop_test(tc, test_fold_names, 0, sizeof(folds) / sizeof(folds[0]));
	suite_add_tcase(s, tc);
	tc = tcase_create("hostile order");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_reversed_line);
	tcase_add_loop_test(tc, test_nest_orders, 0, sizeof(nest_orders) / sizeof(nest_orders[0]));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(ops_suite());
}
