/*
 * check_memory.c - the memory analysis: XProf's memory-viewer numbers on
 * the shared captures (exact integers from ../shared/captures/EXPECTED.md
 * and tests/reference/memory/), a hand-built trace whose replay and
 * what-if answers are known by construction (including both kinds of
 * SHARE_WITH), and the runtime allocator peaks.
 */
#include "testutil.h"
#include "xplane_testutil.h"

#include "tpuprof/analyze/memory.h"

#define CAP "../shared/captures/"

static const struct {
	const char *capture;
	const char *program_id;
	uint64_t peak;
	long position;
	size_t points;
	uint64_t indefinite;
} expected_modules[] = {
	{ CAP "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb", "12190760917235803885", UINT64_C(21474836512), 3, 13, 32 },
	{ CAP "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb", "9646411105960254074", UINT64_C(10737419776), 0, 0, UINT64_C(10737419776) },
	{ CAP "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb", "11287434908481120160", UINT64_C(5368709632), 0, 0, UINT64_C(5368709632) },
	{ CAP "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb", "2433868464432466958", 1024, 0, 0, 1024 },
	{ CAP "gpu-mi300x-jax-attention/tw003.xplane.pb", "59", 201326604, 0, 3, 67108876 },
	{ CAP "gpu-mi300x-jax-attention/tw003.xplane.pb", "98", 167772160, 0, 3, 92274688 },
	{ CAP "gpu-mi300x-jax-attention/tw003.xplane.pb", "73", 117440512, 0, 3, 92274688 },
	{ CAP "gpu-mi300x-jax-attention/tw003.xplane.pb", "90", 134217730, 0, 0, 134217730 },
	{ CAP "gpu-mi300x-jax-elementwise/tw003.xplane.pb", "9", 134250588, 6, 15, 134217736 },
	{ CAP "gpu-mi300x-jax-elementwise/tw003.xplane.pb", "21", 134414348, 0, 3, 134283276 },
	{ CAP "gpu-mi300x-jax-elementwise/tw003.xplane.pb", "32", 134250510, 0, 3, 134217742 },
	{ CAP "gpu-mi300x-jax-gemm/tw003.xplane.pb", "49", 348127232, 0, 3, 268435456 },
	{ CAP "gpu-mi300x-jax-gemm/tw003.xplane.pb", "45", 67108866, 0, 0, 67108866 },
	{ CAP "gpu-mi300x8-jax-conv3d/tw003.xplane.pb", "15", 1158144000, 2, 7, 579072000 },
	{ CAP "gpu-mi300x8-jax-conv3d/tw003.xplane.pb", "9", 51118092, 0, 3, 51118088 },
	{ CAP "gpu-mi300x8-jax-conv3d/tw003.xplane.pb", "3", 12, 0, 0, 12 },
	/* generated: SHARE_WITH with live and with freed buffers, several
	 * traces per module; figures agree with tests/reference/memory/ */
	{ "testdata/small.xplane.pb", "9747602677744151882", 21612560, 16, 41, 8919056 },
	{ "testdata/small.xplane.pb", "5992233345326312761", 1086480, 16, 41, 496656 },
	{ "testdata/jit_train_step.hlo_proto.pb", "30", 4498448, 18, 41, 1221648 },
	{ "testdata/multi-trace.hlo_proto.pb", "30", 2008080, 37, 61, 693264 },
};

static void open_capture(const char *path, struct tp_capture *cap, struct tp_memory *mem,
			 const struct tp_memory_filter *f)
{
	struct tp_error err = { 0 };
	const char *paths[] = { path };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_mem_options opt = { .max_suggestions = 5 };

	ck_assert_msg(tp_capture_open(cap, paths, 1, &o, &err) == TP_OK, "%s", err.msg);
	ck_assert_msg(tp_memory_build(mem, cap, &opt, f, &err) == TP_OK, "%s", err.msg);
}

START_TEST(test_shared_modules)
{
	NEED_SHARED();
	struct tp_capture cap;
	struct tp_memory mem;
	struct tp_memory_filter f = { .module = expected_modules[_i].program_id };
	const struct tp_mem_module *m;

	open_capture(expected_modules[_i].capture, &cap, &mem, &f);
	ck_assert_uint_eq(mem.n_modules, 1);
	m = &mem.modules[0];
	ck_assert_ptr_null(m->error);
	ck_assert_uint_eq(m->peak, expected_modules[_i].peak);
	ck_assert_int_eq(m->peak_position, expected_modules[_i].position);
	ck_assert_uint_eq(m->n_points, expected_modules[_i].points);
	ck_assert_uint_eq(m->indefinite_bytes, expected_modules[_i].indefinite);
	/* XProf's invariants (format-facts §11.4) */
	if (m->n_points) {
		ck_assert_uint_eq(m->heap[0], 0);
		ck_assert_uint_eq(m->heap[m->peak_position + 1] + m->indefinite_bytes, m->peak);
	}
	tp_memory_release(&mem);
	tp_capture_release(&cap);
}
END_TEST

/* v6e, jit_f and jit__psum: both kinds of position at the peak, the
 * "(no scope)" row, the whole-program buffers outside HBM with no
 * headroom there, and the largest scoped VMEM allocation. */
START_TEST(test_v6e_memory_figures)
{
	NEED_SHARED();
	static const char *const v6e = CAP "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb";
	struct tp_capture cap;
	struct tp_memory mem;
	struct tp_memory_filter f = { .module = "jit_f" };
	struct tp_error err = { 0 };
	struct tp_mem_options opt = { .max_suggestions = 5, .color = 5 };
	struct tp_mem_headroom h;
	const struct tp_mem_module *m;
	uint64_t sum = 0;
	size_t n;

	open_capture(v6e, &cap, &mem, &f);
	m = &mem.modules[0];
	ck_assert_int_eq(m->peak_position, 3);           /* heap event */
	ck_assert_int_eq(m->why.peak_position, 7);       /* schedule step */
	n = tp_scope_tree_find(&m->scopes, tp_str_make(TP_SCOPE_NONE, strlen(TP_SCOPE_NONE)));
	ck_assert_uint_ne(n, SIZE_MAX);
	ck_assert_int_eq(m->scopes.nodes[n].inclusive, INT64_C(16106127392)); /* 3 x 5 GiB + 32 B */
	ck_assert_int_eq(m->scopes.nodes[0].exclusive, 0);
	ck_assert_uint_eq(m->n_whole_program, 0);         /* HBM: in the live list */
	ck_assert(tp_mem_core_headroom(&mem, &mem.cores[0], &h));
	ck_assert_int_eq(h.bytes, INT64_C(33550237696) - INT64_C(21492569216));
	tp_memory_release(&mem);

	/* host memory, S(5): 15 GiB of whole-program buffers, none in the list */
	ck_assert_int_eq(tp_memory_build(&mem, &cap, &opt, &f, &err), TP_OK);
	m = &mem.modules[0];
	ck_assert_uint_eq(m->peak, UINT64_C(16106127360));
	ck_assert_uint_eq(m->n_live, 0);
	ck_assert_uint_eq(m->n_whole_program, 3);
	for (size_t i = 0; i < m->n_whole_program; i++) {
		ck_assert_int_eq(m->whole_program[i].category, TP_MEM_PARAMETER);
		sum += m->whole_program[i].size;
	}
	ck_assert_uint_eq(sum, m->peak);
	ck_assert_uint_eq(m->by_category[TP_MEM_PARAMETER], m->peak);
	ck_assert(!tp_mem_core_headroom(&mem, &mem.cores[0], &h));
	tp_memory_release(&mem);

	/* VMEM: the largest scoped allocation, kept out of the peak */
	opt.color = 1;
	f.module = "jit__psum";
	ck_assert_int_eq(tp_memory_build(&mem, &cap, &opt, &f, &err), TP_OK);
	m = &mem.modules[0];
	ck_assert_uint_eq(m->max_scoped_bytes, 32489472);
	ck_assert_str_eq(m->idx.instrs[m->max_scoped_instr].proto->name, "all-reduce");
	ck_assert_uint_eq(m->peak, 0);
	tp_memory_release(&mem);

	/* a space no buffer is in: said, not peaks of 0 B alone */
	opt.color = 9;
	f.module = NULL;
	ck_assert_int_eq(tp_memory_build(&mem, &cap, &opt, &f, &err), TP_OK);
	ck_assert_uint_eq(mem.n_warnings, 1);
	ck_assert_str_eq(mem.warnings[0], "memory space 9: no buffer of the 4 program(s) is in "
			 "it (they use 0, 1, 2, 5, 6): its peaks read 0 B");
	tp_memory_release(&mem);
	tp_capture_release(&cap);
}
END_TEST

static const struct {
	const char *capture;
	const char *memory_id;
	int64_t peak;
	uint64_t allocs, deallocs;
} expected_runtime[] = {
	{ CAP "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb", "0", INT64_C(21492569216), 117, 117 },
	{ CAP "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb", "1", INT64_C(21492671104), 112, 112 },
	{ CAP "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb", "3", INT64_C(21492569216), 112, 112 },
	{ CAP "gpu-mi300x-jax-attention/tw003.xplane.pb", "GPU_0_bfc", 452985344, 126, 126 },
	{ CAP "gpu-mi300x-jax-attention/tw003.xplane.pb", "xla_gpu_host_bfc", 256, 18, 18 },
	{ CAP "gpu-mi300x-jax-elementwise/tw003.xplane.pb", "GPU_0_bfc", 671286528, 75, 75 },
	{ CAP "gpu-mi300x-jax-gemm/tw003.xplane.pb", "GPU_0_bfc", 482345216, 69, 69 },
	{ CAP "gpu-mi300x8-jax-conv3d/tw003.xplane.pb", "GPU_0_bfc", 1730171904, 10, 10 },
	{ CAP "gpu-mi300x8-jax-conv3d/tw003.xplane.pb", "GPU_7_bfc", 1732169984, 15, 15 },
	{ CAP "gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb", "GPU_1_bfc", INT64_C(4013344768), 19, 0 },
	{ CAP "gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb", "GPU_4_bfc", INT64_C(6208853760), 761, 208 },
	{ CAP "gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb", "GPU_6_bfc", INT64_C(6210111488), 761, 208 },
	{ CAP "gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb", "gpu_host_bfc", 605952, 318, 218 },
};

START_TEST(test_shared_runtime)
{
	NEED_SHARED();
	struct tp_capture cap;
	struct tp_memory mem;
	struct tp_memory_filter f = { 0 };
	bool found = false;

	open_capture(expected_runtime[_i].capture, &cap, &mem, &f);
	for (size_t i = 0; i < mem.runtime.n_devices; i++) {
		const struct tp_mem_device *d = &mem.runtime.devices[i];

		if (strcmp(d->id, expected_runtime[_i].memory_id) != 0)
			continue;
		found = true;
		ck_assert_int_eq(d->peak_bytes, expected_runtime[_i].peak);
		ck_assert_uint_eq(d->allocations, expected_runtime[_i].allocs);
		ck_assert_uint_eq(d->deallocations, expected_runtime[_i].deallocs);
		ck_assert_int_eq(d->snapshots[d->peak_snapshot].heap + d->snapshots[d->peak_snapshot].stack,
				 d->peak_bytes);
	}
	ck_assert_msg(found, "memory id %s", expected_runtime[_i].memory_id);
	tp_memory_release(&mem);
	tp_capture_release(&cap);
}
END_TEST

/* ---- a trace built by hand: every answer is known by construction ---- */

struct toy {
	Xla__HloProto hlo;
	Xla__HloModuleProto mod;
	Xla__HloComputationProto comp;
	Xla__HloComputationProto *comps[1];
	Xla__HloInstructionProto ins[7];
	Xla__HloInstructionProto *insp[7];
	Xla__ShapeProto shapes[7];
	int64_t dims[7][2];
	Xla__OpMetadata md[7];
	Xla__BufferAssignmentProto ba;
	Xla__LogicalBufferProto lb[7];
	Xla__LogicalBufferProto *lbp[7];
	Xla__LogicalBufferProto__Location loc[7];
	Xla__BufferAllocationProto al[3];
	Xla__BufferAllocationProto *alp[3];
	Xla__BufferAllocationProto__Assigned as[7];
	Xla__BufferAllocationProto__Assigned *asp[7];
	Xla__HeapSimulatorTrace trace;
	Xla__HeapSimulatorTrace *tracep[1];
	Xla__HeapSimulatorTrace__Event ev[10];
	Xla__HeapSimulatorTrace__Event *evp[10];
	struct tp_module module;
};

/* instruction, dims, padded size, allocation, offset */
static const struct {
	const char *name;
	int64_t d0, d1;
	int64_t size;
	int alloc;
	int64_t offset;
} toy_buffers[7] = {
	{ "p0", 4, 0, 16, 0, 0 },    /* lb 10: entry parameter           */
	{ "a", 25, 0, 100, 2, 0 },   /* lb 11: A                         */
	{ "b", 2, 25, 200, 2, 100 }, /* lb 12: B                         */
	{ "c", 12, 0, 48, 2, 300 },  /* lb 13: C                         */
	{ "d", 2, 25, 200, 2, 100 }, /* lb 14: D shares with live B      */
	{ "e", 25, 0, 100, 2, 0 },   /* lb 15: E shares with freed A     */
	{ "out", 2, 0, 8, 1, 0 },    /* lb 16: output                    */
};

/* kind (0 alloc, 1 free, 2 share), buffer, canonical */
static const int toy_events[10][3] = {
	{ 0, 11, 0 }, { 0, 12, 0 }, { 2, 14, 12 }, { 1, 11, 0 }, { 0, 13, 0 },
	{ 1, 12, 0 }, { 2, 15, 11 }, { 1, 14, 0 }, { 1, 13, 0 }, { 1, 15, 0 },
};

static void toy_build(struct toy *t)
{
	static const Xla__HloProto hlo0 = XLA__HLO_PROTO__INIT;
	static const Xla__HloModuleProto mod0 = XLA__HLO_MODULE_PROTO__INIT;
	static const Xla__HloComputationProto comp0 = XLA__HLO_COMPUTATION_PROTO__INIT;
	static const Xla__HloInstructionProto ins0 = XLA__HLO_INSTRUCTION_PROTO__INIT;
	static const Xla__ShapeProto shape0 = XLA__SHAPE_PROTO__INIT;
	static const Xla__OpMetadata md0 = XLA__OP_METADATA__INIT;
	static const Xla__BufferAssignmentProto ba0 = XLA__BUFFER_ASSIGNMENT_PROTO__INIT;
	static const Xla__LogicalBufferProto lb0 = XLA__LOGICAL_BUFFER_PROTO__INIT;
	static const Xla__LogicalBufferProto__Location loc0 = XLA__LOGICAL_BUFFER_PROTO__LOCATION__INIT;
	static const Xla__BufferAllocationProto al0 = XLA__BUFFER_ALLOCATION_PROTO__INIT;
	static const Xla__BufferAllocationProto__Assigned as0 = XLA__BUFFER_ALLOCATION_PROTO__ASSIGNED__INIT;
	static const Xla__HeapSimulatorTrace tr0 = XLA__HEAP_SIMULATOR_TRACE__INIT;
	static const Xla__HeapSimulatorTrace__Event ev0 = XLA__HEAP_SIMULATOR_TRACE__EVENT__INIT;

	memset(t, 0, sizeof(*t));
	t->hlo = hlo0;
	t->mod = mod0;
	t->comp = comp0;
	t->ba = ba0;
	t->trace = tr0;
	for (int i = 0; i < 7; i++) {
		t->ins[i] = ins0;
		t->shapes[i] = shape0;
		t->md[i] = md0;
		t->lb[i] = lb0;
		t->loc[i] = loc0;
		t->as[i] = as0;
		t->ins[i].name = (char *)toy_buffers[i].name;
		t->ins[i].opcode = (char *)(i == 0 ? "parameter" : "fusion");
		t->ins[i].id = i + 1;
		t->dims[i][0] = toy_buffers[i].d0;
		t->dims[i][1] = toy_buffers[i].d1;
		t->shapes[i].element_type = 11;
		t->shapes[i].n_dimensions = toy_buffers[i].d1 ? 2 : 1;
		t->shapes[i].dimensions = t->dims[i];
		t->ins[i].shape = &t->shapes[i];
		t->md[i].op_name = (char *)(i == 0 ? "params" : i < 3 ? "model/layer/ab" : "model/cd");
		t->ins[i].metadata = &t->md[i];
		t->insp[i] = &t->ins[i];
		t->loc[i].instruction_id = i + 1;
		t->lb[i].id = 10 + i;
		t->lb[i].size = toy_buffers[i].size;
		t->lb[i].defined_at = &t->loc[i];
		t->lbp[i] = &t->lb[i];
		t->as[i].logical_buffer_id = 10 + i;
		t->as[i].offset = toy_buffers[i].offset;
		t->as[i].size = toy_buffers[i].size;
		t->asp[i] = &t->as[i];
	}
	for (int a = 0; a < 3; a++) {
		t->al[a] = al0;
		t->al[a].index = a;
		t->alp[a] = &t->al[a];
	}
	t->al[0].size = 16;
	t->al[0].is_entry_computation_parameter = 1;
	t->al[0].n_assigned = 1;
	t->al[0].assigned = &t->asp[0];
	t->al[1].size = 8;
	t->al[1].maybe_live_out = 1;
	t->al[1].n_assigned = 1;
	t->al[1].assigned = &t->asp[6];
	t->al[2].size = 400;
	t->al[2].n_assigned = 5;
	t->al[2].assigned = &t->asp[1];
	for (int e = 0; e < 10; e++) {
		t->ev[e] = ev0;
		t->ev[e].kind = toy_events[e][0];
		t->ev[e].buffer_id = toy_events[e][1];
		t->ev[e].share_with_canonical_id = toy_events[e][2];
		t->ev[e].instruction_name = (char *)toy_buffers[toy_events[e][1] - 10].name;
		t->evp[e] = &t->ev[e];
	}
	t->trace.n_events = 10;
	t->trace.events = t->evp;
	t->tracep[0] = &t->trace;
	t->ba.n_logical_buffers = 7;
	t->ba.logical_buffers = t->lbp;
	t->ba.n_buffer_allocations = 3;
	t->ba.buffer_allocations = t->alp;
	t->ba.n_heap_simulator_traces = 1;
	t->ba.heap_simulator_traces = t->tracep;
	t->comp.name = (char *)"main";
	t->comp.id = 1;
	t->comp.n_instructions = 7;
	t->comp.instructions = t->insp;
	t->comps[0] = &t->comp;
	t->mod.name = (char *)"toy";
	t->mod.entry_computation_id = 1;
	t->mod.n_computations = 1;
	t->mod.computations = t->comps;
	t->hlo.hlo_module = &t->mod;
	t->hlo.buffer_assignment = &t->ba;
	t->module.hlo = &t->hlo;
	t->module.path = "toy";
	t->module.host = -1;
}

START_TEST(test_known_replay)
{
	static const uint64_t curve[11] = { 0, 100, 300, 300, 200, 248, 248, 348, 148, 100, 0 };
	struct toy t;
	struct tp_mem_module m;
	static const struct tp_mem_split_spec split_b = { "b", -1, 2 };
	struct tp_mem_options opt = { .max_suggestions = 5 };
	struct tp_error err = { 0 };
	struct tp_memory mem = { 0 };

	toy_build(&t);
	ck_assert_int_eq(tp_mem_module_analyze(&m, &t.module, &opt, &err), TP_OK);
	mem.modules = &m;
	mem.n_modules = 1;
	ck_assert_int_eq(tp_mem_whatif(&mem, &split_b, 1, &err), TP_OK);
	ck_assert_ptr_null(m.error);
	ck_assert_uint_eq(m.n_points, 11);
	for (int i = 0; i < 11; i++)
		ck_assert_uint_eq(m.heap[i], curve[i]);
	ck_assert_uint_eq(m.indefinite_bytes, 24);
	ck_assert_uint_eq(m.peak, 348 + 24);    /* E reuses A's freed memory */
	ck_assert_int_eq(m.peak_position, 6);
	ck_assert_uint_eq(m.n_live, 5);          /* p0, out; then B, C, A    */
	ck_assert_int_eq(m.buffers[m.live[0].buffer].id, 10);
	ck_assert_int_eq(m.buffers[m.live[1].buffer].id, 16);
	ck_assert_int_eq(m.buffers[m.live[2].buffer].id, 12);
	ck_assert_int_eq(m.buffers[m.live[3].buffer].id, 13);
	ck_assert_int_eq(m.buffers[m.live[4].buffer].id, 11);
	ck_assert_int_eq(m.buffers[m.live[4].display].id, 15); /* shown as E */
	ck_assert_uint_eq(m.by_category[TP_MEM_TEMPORARY], 348);
	ck_assert_uint_eq(m.by_category[TP_MEM_PARAMETER], 16);
	ck_assert_uint_eq(m.by_category[TP_MEM_OUTPUT], 8);
	/* "model": the four temporaries and the output "out" (model/cd) */
	ck_assert_int_eq(m.scopes.nodes[tp_scope_tree_find(&m.scopes, tp_str_make("model", 5))].inclusive, 356);
	ck_assert_int_eq(m.scopes.nodes[tp_scope_tree_find(&m.scopes, tp_str_make("model/layer/ab", 14))].inclusive, 200);
	ck_assert_int_eq(m.scopes.nodes[tp_scope_tree_find(&m.scopes, tp_str_make("model/cd", 8))].inclusive, 156); /* C, E (shown for A), out */
	/* --split b:2: B = 100 bytes, the peak stays at 6 and drops by 100 */
	ck_assert_uint_eq(m.whatif.peak, 248 + 24);
	ck_assert_int_eq(m.whatif.peak_position, 6);
	ck_assert_uint_eq(m.whatif.saved, 100);
	/* suggestions: B by 2 saves 100, A by 25 saves 96, C by 12 saves 44 */
	ck_assert_uint_eq(m.n_suggestions, 3);
	ck_assert_int_eq(m.buffers[m.suggestions[0].buffer].id, 12);
	ck_assert_uint_eq(m.suggestions[0].saved, 100);
	ck_assert_int_eq(m.buffers[m.suggestions[1].buffer].id, 11);
	ck_assert_uint_eq(m.suggestions[1].k, 25);
	ck_assert_uint_eq(m.suggestions[1].saved, 96);
	ck_assert_int_eq(m.buffers[m.suggestions[2].buffer].id, 13);
	ck_assert_uint_eq(m.suggestions[2].saved, 44);
	/* live ranges: D's span ends when D is freed; E from its share */
	ck_assert_int_eq(m.buffers[tp_i64map_get(&m.by_id, 14)].span_end, 7);
	ck_assert_int_eq(m.buffers[tp_i64map_get(&m.by_id, 15)].span_start, 6);
	tp_mem_module_release(&m);
}
END_TEST

/* --split NAME:K and NAME:DIM:K, several in one replay, rounding, and
 * the names that resolve to nothing (exit 2 in the CLI). */
static const struct {
	struct tp_mem_split_spec specs[2];
	size_t n;
	enum tp_err rc;
	uint64_t peak, saved;                 /* indefinite 24 included */
	int64_t part_elements, small_part_elements;
	uint64_t part_bytes;                  /* of the first split */
	const char *msg;
} splits[] = {
	/* B [2,25] 200 B along dimension 1 by 4: 25 -> parts of 7 and 6, 56 B;
	 * the curve 100, 156, 156, 56, 104, 104, 204: 204 at 6 */
	{ { { "b", 1, 4 } }, 1, TP_OK, 204 + 24, 144, 7, 6, 56, NULL },
	/* B by 2 (100 B) and C [12] 48 B by 5 (parts of 3 and 2: 12 B), one
	 * replay: 100, 200, 200, 100, 112, 112, 212 */
	{ { { "b", -1, 2 }, { "c", -1, 5 } }, 2, TP_OK, 212 + 24, 136, 1, 1, 100, NULL },
	/* a unique prefix: "ou" is "out" [2], 8 B, by 2; an output lives for
	 * the whole program, outside the heap trace: the peak stays */
	{ { { "ou", -1, 2 } }, 1, TP_OK, 348 + 24, 0, 1, 1, 4, NULL },
	{ { { "b", 2, 2 } }, 1, TP_ERR_USAGE, 0, 0, 0, 0, 0,
	  "--split 'b': no dimension 2: the buffer has 2 (0 to 1)" },
	{ { { "c", -1, 13 } }, 1, TP_ERR_USAGE, 0, 0, 0, 0, 0,
	  "--split 'c': dimension 0 has 12 elements: it splits at most 12 ways" },
	{ { { "zz", -1, 2 } }, 1, TP_ERR_USAGE, 0, 0, 0, 0, 0,
	  "--split: no buffer named 'zz' in 1 module with a buffer assignment (names as "
	  "'tpuprof memory' prints them, e.g. fusion.3 or copy-start.4{0})" },
};

START_TEST(test_split_specs)
{
	struct toy t;
	struct tp_mem_module m;
	struct tp_mem_options opt = { .max_suggestions = 5 };
	struct tp_error err = { 0 };
	struct tp_memory mem = { 0 };

	toy_build(&t);
	ck_assert_int_eq(tp_mem_module_analyze(&m, &t.module, &opt, &err), TP_OK);
	mem.modules = &m;
	mem.n_modules = 1;
	ck_assert_int_eq(tp_mem_whatif(&mem, splits[_i].specs, splits[_i].n, &err), splits[_i].rc);
	if (splits[_i].rc != TP_OK) {
		ck_assert_str_eq(err.msg, splits[_i].msg);
	} else {
		ck_assert_uint_eq(m.n_whatif_parts, splits[_i].n);
		ck_assert_uint_eq(m.whatif.peak, splits[_i].peak);
		ck_assert_uint_eq(m.whatif.saved, splits[_i].saved);
		ck_assert_int_eq(m.whatif_parts[0].part_elements, splits[_i].part_elements);
		ck_assert_int_eq(m.whatif_parts[0].small_part_elements, splits[_i].small_part_elements);
		ck_assert_uint_eq(m.whatif_parts[0].part_bytes, splits[_i].part_bytes);
	}
	tp_mem_module_release(&m);
}
END_TEST

/* A dimension near INT64_MAX (a hostile capture): the parts were
 * (d + k - 1) / k, which overflowed (UBSan) and printed parts of
 * -2305843009213693951 elements; part_bytes wrapped likewise. */
START_TEST(test_split_huge_dimension)
{
	struct toy t;
	struct tp_mem_module m;
	struct tp_mem_options opt = { .max_suggestions = 5 };
	struct tp_error err = { 0 };
	struct tp_memory mem = { 0 };
	const struct tp_mem_split_spec spec = { "c", -1, 4 };

	toy_build(&t);
	t.dims[3][0] = INT64_MAX;   /* c: [INT64_MAX], 48 B */
	ck_assert_int_eq(tp_mem_module_analyze(&m, &t.module, &opt, &err), TP_OK);
	mem.modules = &m;
	mem.n_modules = 1;
	ck_assert_int_eq(tp_mem_whatif(&mem, &spec, 1, &err), TP_OK);
	ck_assert_int_eq(m.whatif_parts[0].part_elements, INT64_C(2305843009213693952));
	ck_assert_int_eq(m.whatif_parts[0].small_part_elements, INT64_C(2305843009213693951));
	ck_assert_uint_eq(m.whatif_parts[0].part_bytes, 13);   /* 48 / 4, rounded up */
	tp_mem_module_release(&m);
}
END_TEST

/* A negative dimension is the capture's fault: bad input (exit 3)
 * naming the file, module and buffer, not a usage error that blamed
 * --split ("dimension 0 has -5 elements: it splits at most -5 ways"). */
START_TEST(test_split_negative_dimension)
{
	struct toy t;
	struct tp_mem_module m;
	struct tp_mem_options opt = { .max_suggestions = 5 };
	struct tp_error err = { 0 };
	struct tp_memory mem = { 0 };
	const struct tp_mem_split_spec spec = { "c", -1, 4 };

	toy_build(&t);
	t.module.label = tp_str_make("jit_toy(7)", 10);
	t.dims[3][0] = -5;   /* c */
	ck_assert_int_eq(tp_mem_module_analyze(&m, &t.module, &opt, &err), TP_OK);
	mem.modules = &m;
	mem.n_modules = 1;
	ck_assert_int_eq(tp_mem_whatif(&mem, &spec, 1, &err), TP_ERR_INPUT);
	ck_assert_str_eq(err.msg, "toy: module jit_toy(7): buffer c has dimension 0 of -5 "
				  "elements (corrupt shape)");
	tp_mem_module_release(&m);
}
END_TEST

START_TEST(test_bad_trace)
{
	struct toy t;
	struct tp_mem_module m;
	struct tp_mem_options opt = { .max_suggestions = 5 };
	struct tp_error err = { 0 };

	toy_build(&t);
	t.ev[8].buffer_id = 12; /* B freed again: its count goes negative */
	ck_assert_int_eq(tp_mem_module_analyze(&m, &t.module, &opt, &err), TP_OK);
	ck_assert_str_eq(m.error, "heap trace event 8: buffer freed more times than allocated (logical buffer 12)");
	ck_assert_uint_eq(m.n_points, 0);
	ck_assert_uint_eq(m.peak, 24);
	tp_mem_module_release(&m);
}
END_TEST

/* Allocator stats near INT64_MAX (a damaged or hostile capture): heap +
 * stack wrapped negative (undefined behaviour), so the exabyte snapshot
 * lost the peak to a later one of 30 bytes and check --max-peak passed.
 * Saturated, it is the peak. */
START_TEST(test_runtime_saturates)
{
	const int64_t max = INT64_MAX;
	const struct xb_plane host = {
		1, "/host:CPU",
		{ { 1, "MemoryAllocation", NULL, { { NULL, 0, 0, NULL } } } },
		{ { "Memory", {
			{ 1, 100, 0, 0, { { "device_ordinal", 'i', 0, NULL },
					  { "bytes_reserved", 'i', max, NULL },
					  { "bytes_allocated", 'i', max, NULL },
					  { "bytes_available", 'i', max, NULL },
					  { "addr", 'u', 64, NULL } } },
			{ 1, 200, 0, 0, { { "device_ordinal", 'i', 0, NULL },
					  { "bytes_reserved", 'i', 10, NULL },
					  { "bytes_allocated", 'i', 20, NULL },
					  { "bytes_available", 'i', 5, NULL },
					  { "addr", 'u', 128, NULL } } },
		} } },
	};
	struct tp_capture cap;
	struct tp_mem_runtime rt;
	char *path = xb_open(&cap, &host, 1);

	tp_mem_runtime_build(&rt, &cap);
	ck_assert_uint_eq(rt.n_devices, 1);
	ck_assert(rt.devices[0].has_peak);
	ck_assert_int_eq(rt.devices[0].peak_bytes, INT64_MAX);
	ck_assert_int_eq(rt.devices[0].capacity, INT64_MAX);
	ck_assert_uint_eq(rt.devices[0].peak_snapshot, 0);   /* the first, at 100 ps */
	tp_mem_runtime_release(&rt);
	tp_capture_release(&cap);
	unlink(path);
	free(path);
}
END_TEST

/* Allocator stats below zero (a damaged capture): such an event was the
 * peak (INT64_MIN + INT64_MIN saturated), written out negative, and
 * dropped as null by every reader, so check --max-peak passed. Now it is
 * counted as damaged and never the peak. */
START_TEST(test_runtime_negative_damaged)
{
	const int64_t min = INT64_MIN;
	const struct xb_plane host = {
		1, "/host:CPU",
		{ { 1, "MemoryAllocation", NULL, { { NULL, 0, 0, NULL } } } },
		{ { "Memory", {
			{ 1, 100, 0, 0, { { "device_ordinal", 'i', 0, NULL },
					  { "bytes_reserved", 'i', min, NULL },
					  { "bytes_allocated", 'i', min, NULL },
					  { "bytes_available", 'i', 5, NULL },
					  { "addr", 'u', 64, NULL } } },
			{ 1, 200, 0, 0, { { "device_ordinal", 'i', 0, NULL },
					  { "bytes_reserved", 'i', 10, NULL },
					  { "bytes_allocated", 'i', 20, NULL },
					  { "bytes_available", 'i', 5, NULL },
					  { "addr", 'u', 128, NULL } } },
			/* a second memory whose only event is damaged: no peak */
			{ 1, 300, 0, 0, { { "device_ordinal", 'i', 1, NULL },
					  { "bytes_reserved", 'i', 10, NULL },
					  { "bytes_allocated", 'i', -20, NULL },
					  { "bytes_available", 'i', 5, NULL },
					  { "addr", 'u', 256, NULL } } },
		} } },
	};
	struct tp_capture cap;
	struct tp_mem_runtime rt;
	char *path = xb_open(&cap, &host, 1);

	tp_mem_runtime_build(&rt, &cap);
	ck_assert_uint_eq(rt.n_devices, 2);
	ck_assert_uint_eq(rt.devices[1].damaged, 1);
	ck_assert(!rt.devices[1].has_peak);
	ck_assert_uint_eq(rt.devices[0].damaged, 1);
	ck_assert(rt.devices[0].has_peak);
	ck_assert_int_eq(rt.devices[0].peak_bytes, 30);
	ck_assert_int_eq(rt.devices[0].capacity, 35);
	ck_assert_uint_eq(rt.devices[0].peak_snapshot, 1);   /* the second, at 200 ps */
	tp_mem_runtime_release(&rt);
	tp_capture_release(&cap);
	unlink(path);
	free(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("memory");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_shared_modules, 0, sizeof(expected_modules) / sizeof(expected_modules[0]));
	tcase_add_loop_test(tc, test_shared_runtime, 0, sizeof(expected_runtime) / sizeof(expected_runtime[0]));
	tcase_add_test(tc, test_v6e_memory_figures);
	tcase_add_test(tc, test_known_replay);
	tcase_add_test(tc, test_bad_trace);
	tcase_add_test(tc, test_split_huge_dimension);
	tcase_add_test(tc, test_split_negative_dimension);
	tcase_add_test(tc, test_runtime_saturates);
	tcase_add_test(tc, test_runtime_negative_damaged);
	tcase_add_loop_test(tc, test_split_specs, 0, sizeof(splits) / sizeof(splits[0]));
	suite_add_tcase(s, tc);
	return run_suite(s);
}
