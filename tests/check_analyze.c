/*
 * check_analyze.c - building blocks of the analyses: shape text and sizes,
 * the name-scope tree, and the HLO index.
 */
#include "tpuprof/analyze/fusions.h"
#include "testutil.h"

#include "tpuprof/decode/capture.h"
#include "tpuprof/analyze/common/hlo_index.h"
#include "tpuprof/analyze/common/scopes.h"
#include "tpuprof/analyze/common/shape.h"

struct shape_case {
	const char *text;
	int type;
	int64_t dims[4];
	size_t n_dims;
	int64_t m2m[4];
	size_t n_m2m;
	int64_t tiles[2][2];
	size_t n_tiles;
	int64_t memory_space;
	bool layout;
	bool dynamic0;
	uint64_t unpadded;
};

static const struct shape_case shapes[] = {
	{ "f32[5,1024,1024,256]{3,2,1,0:T(8,128)}", 11, { 5, 1024, 1024, 256 }, 4,
	  { 3, 2, 1, 0 }, 4, { { 8, 128 } }, 1, 0, true, false, UINT64_C(5368709120) },
	{ "bf16[1,2048,2048]{1,2,0:T(8,128)(2,1)}", 16, { 1, 2048, 2048 }, 3,
	  { 1, 2, 0 }, 3, { { 8, 128 }, { 2, 1 } }, 2, 0, true, false, UINT64_C(8388608) },
	{ "f32[]{:T(128)S(6)}", 11, { 0 }, 0, { 0 }, 0, { { 128, -1 } }, 1, 6, true, false, 4 },
	{ "u32[]{:S(2)}", 8, { 0 }, 0, { 0 }, 0, { { 0 } }, 0, 2, true, false, 4 },
	{ "s32[]", 4, { 0 }, 0, { 0 }, 0, { { 0 } }, 0, 0, true, false, 4 },
	{ "pred[<=7,3]{1,0}", 1, { 7, 3 }, 2, { 1, 0 }, 2, { { 0 } }, 0, 0, true, true, 21 },
	{ "s4[3]", 21, { 3 }, 1, { 0 }, 0, { { 0 } }, 0, 0, false, false, 3 },
	{ "type99[2]", 99, { 2 }, 1, { 0 }, 0, { { 0 } }, 0, 0, false, false, 0 },
};

START_TEST(test_shape_text)
{
	const struct shape_case *c = &shapes[_i];
	Xla__ShapeProto s = XLA__SHAPE_PROTO__INIT;
	Xla__LayoutProto l = XLA__LAYOUT_PROTO__INIT;
	Xla__TileProto t[2] = { XLA__TILE_PROTO__INIT, XLA__TILE_PROTO__INIT };
	Xla__TileProto *tp[2] = { &t[0], &t[1] };
	protobuf_c_boolean dyn[4] = { 1, 0, 0, 0 };
	struct tp_strbuf sb;

	s.element_type = c->type;
	s.n_dimensions = c->n_dims;
	s.dimensions = (int64_t *)c->dims;
	if (c->dynamic0) {
		s.n_is_dynamic_dimension = c->n_dims;
		s.is_dynamic_dimension = dyn;
	}
	if (c->layout) {
		l.n_minor_to_major = c->n_m2m;
		l.minor_to_major = (int64_t *)c->m2m;
		for (size_t i = 0; i < c->n_tiles; i++) {
			t[i].dimensions = (int64_t *)c->tiles[i];
			t[i].n_dimensions = c->tiles[i][1] == -1 ? 1 : 2;
		}
		l.n_tiles = c->n_tiles;
		l.tiles = tp;
		l.memory_space = c->memory_space;
		s.layout = &l;
	}
	tp_strbuf_init(&sb);
	tp_shape_format(&sb, &s);
	ck_assert_str_eq(sb.buf, c->text);
	ck_assert_uint_eq(tp_shape_unpadded_bytes(&s), c->unpadded);
	tp_strbuf_release(&sb);
}
END_TEST

START_TEST(test_tuple_text)
{
	Xla__ShapeProto e = XLA__SHAPE_PROTO__INIT, tuple = XLA__SHAPE_PROTO__INIT;
	Xla__LayoutProto l = XLA__LAYOUT_PROTO__INIT;
	Xla__ShapeProto *elems[6] = { &e, &e, &e, &e, &e, &e };
	int64_t dims[] = { 2 }, m2m[] = { 0 };
	struct tp_strbuf sb;

	e.element_type = 11;
	e.n_dimensions = 1;
	e.dimensions = dims;
	l.n_minor_to_major = 1;
	l.minor_to_major = m2m;
	e.layout = &l;
	tuple.element_type = 13;
	tuple.n_tuple_shapes = 6;
	tuple.tuple_shapes = elems;
	tp_strbuf_init(&sb);
	tp_shape_format(&sb, &tuple);
	ck_assert_str_eq(sb.buf, "(f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/f32[2]{0})");
	ck_assert_uint_eq(tp_shape_unpadded_bytes(&tuple), 48);
	ck_assert_ptr_eq(tp_shape_tuple_element(&tuple, 5), &e);
	ck_assert_ptr_eq(tp_shape_tuple_element(&tuple, 6), &tuple);
	tp_strbuf_release(&sb);
}
END_TEST

START_TEST(test_scope_tree)
{
	struct tp_scope_tree t;
	size_t n;

	tp_scope_tree_init(&t);
	tp_scope_tree_add(&t, tp_str_make("jit(f)/transpose(jvp(a/b))/mlp/dot", 34), 100, 1);
	tp_scope_tree_add(&t, tp_str_make("jit(f)/transpose(jvp(a/b))/mlp", 30), 10, 1);
	tp_scope_tree_add(&t, tp_str_make("jit(f)/attn/softmax", 19), 50, 2);
	tp_scope_tree_add(&t, tp_str_make("", 0), 7, 1);
	tp_scope_tree_sort(&t);
	ck_assert_int_eq(t.nodes[0].inclusive, 167);
	/* no scope: a row of its own, never the root's own part */
	ck_assert_int_eq(t.nodes[0].exclusive, 0);
	n = tp_scope_tree_find(&t, tp_str_make(TP_SCOPE_NONE, strlen(TP_SCOPE_NONE)));
	ck_assert_uint_ne(n, SIZE_MAX);
	ck_assert_int_eq(t.nodes[n].depth, 1);
	ck_assert_int_eq(t.nodes[n].inclusive, 7);
	ck_assert_int_eq(t.nodes[n].exclusive, 7);
	ck_assert_uint_eq(t.nodes[n].count_exclusive, 1);
	/* nothing to add: no row */
	ck_assert_uint_eq(tp_scope_tree_add(&t, tp_str_make("", 0), 0, 0), 0);
	n = tp_scope_tree_find(&t, tp_str_make("jit(f)/transpose(jvp(a/b))", 26));
	ck_assert_uint_ne(n, SIZE_MAX);
	ck_assert_str_eq(t.nodes[n].name, "transpose(jvp(a/b))");
	ck_assert_int_eq(t.nodes[n].depth, 2);
	ck_assert_int_eq(t.nodes[n].inclusive, 110);
	ck_assert_int_eq(t.nodes[n].exclusive, 0);
	n = tp_scope_tree_find(&t, tp_str_make("jit(f)", 6));
	ck_assert_int_eq(t.nodes[n].inclusive, 160);
	ck_assert_uint_eq(t.nodes[n].count_inclusive, 4);
	ck_assert_str_eq(t.nodes[t.nodes[n].children[0]].name, "transpose(jvp(a/b))");
	ck_assert_uint_eq(t.n, 8);
	ck_assert(tp_str_eq(tp_scope_from_tf_op(tp_str_make("jit(f)/x:dot_general", 20)), "jit(f)/x"));
	tp_scope_tree_release(&t);
}
END_TEST

/* The generated module: every instruction of a fused computation links to
 * its fusion, nested fusions to the outer one's body. */
/* A scope as printed is accepted back as printed: JAX's args[1] and
 * state.params['w'] matched as text before as a glob, where [1] is a
 * class of one character and never matched the scope it came from. */
static const struct {
	const char *pattern, *scope;
	bool match;
} scope_patterns[] = {
	{ "args[1]", "jit(f)/args[1]", true },
	{ "state.params['w']", "jit(step)/state.params['w']/dot", true },
	{ "args\\[1\\]", "jit(f)/args[1]", true },      /* the glob, escaped */
	{ "args[12]", "jit(f)/args1", true },            /* a glob still */
	{ "args[12]", "jit(f)/args[1]", false },
	{ "mlp/max*", "jit/mlp/max/x", true },
	{ "dense", "jit/mlp/max", false },
	{ NULL, "anything", true },
};

START_TEST(test_scope_patterns)
{
	const char *sc = scope_patterns[_i].scope;

	ck_assert_msg(tp_scope_matches(scope_patterns[_i].pattern, tp_str_make(sc, strlen(sc))) ==
		      scope_patterns[_i].match, "%s against %s", scope_patterns[_i].pattern, sc);
}
END_TEST

START_TEST(test_hlo_index)
{
	struct tp_capture cap;
	struct tp_error err = { 0 };
	const char *paths[] = { "testdata/jit_train_step.hlo_proto.pb" };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_hlo_index idx;
	size_t fused = 0, in_fusion_bodies = 0;

	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &o, &err), TP_OK);
	tp_hlo_index_build(&idx, cap.modules[0].hlo);
	ck_assert_uint_eq(idx.n_instrs, 52);
	ck_assert_ptr_nonnull(idx.entry);
	for (size_t k = 0; k < idx.n_instrs; k++) {
		const Xla__HloInstructionProto *ins = idx.instrs[k].proto;

		ck_assert_int_eq(tp_hlo_find_id(&idx, ins->id), (long)k);
		ck_assert_int_eq(tp_hlo_find_name(&idx, tp_str_make(ins->name, strlen(ins->name))), (long)k);
		if (idx.instrs[k].fusion >= 0) {
			fused++;
			ck_assert_str_eq(idx.instrs[idx.instrs[k].fusion].proto->opcode, "fusion");
			ck_assert_ptr_eq(idx.instrs[idx.instrs[k].fusion].called, idx.instrs[k].computation);
		}
		if (idx.instrs[k].computation->is_fusion_computation)
			in_fusion_bodies++;
	}
	ck_assert_uint_eq(fused, in_fusion_bodies);
	ck_assert_int_eq(tp_hlo_find_name(&idx, tp_str_make("nope", 4)), -1);
	tp_hlo_index_release(&idx);
	tp_capture_release(&cap);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analyze");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_shape_text, 0, sizeof(shapes) / sizeof(shapes[0]));
	tcase_add_test(tc, test_tuple_text);
	tcase_add_test(tc, test_scope_tree);
	tcase_add_test(tc, test_hlo_index);
	tcase_add_loop_test(tc, test_scope_patterns, 0,
			    sizeof(scope_patterns) / sizeof(scope_patterns[0]));
	suite_add_tcase(s, tc);
	return run_suite(s);
}
