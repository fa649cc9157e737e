/*
 * check_why.c - "why is it live" on HLO modules built by hand: one per
 * aliasing case (get-tuple-element, tuple, bitcast, copy-start/done,
 * all-gather-start/done, while, conditional, call, fusion parameter and
 * ROOT), and one without a schedule, each with its exact last user,
 * chain and program positions; the grouping of the peak by last user;
 * buffer names with shape indices.
 */
#include "hlo_build.h"

#define END { NULL, NULL, NULL, 0, NULL, NULL, 0 }
#define NO_EVENTS ((const struct ev_spec[]){ { -1, 0, 0 } })

/* ---- get-tuple-element, tuple, bitcast; a fusion is one use ---- */

static const struct ins_spec tuple_ins[] = {
	{ "fa", "fa.p", "parameter", 0, NULL, NULL, 0 },
	{ "fa", "fa.n", "negate", 0, "fa.p", NULL, 0 },
	{ "main", "p0", "parameter", 0, NULL, NULL, 0 },
	{ "main", "a", "fusion", 0, "p0", "fa", 0 },
	{ "main", "b", "bitcast", 0, "a", NULL, 0 },
	{ "main", "t", "tuple", 2, "b p0", NULL, 0 },
	{ "main", "g1", "get-tuple-element", 0, "t", NULL, 1 },
	{ "main", "u1", "negate", 0, "g1", NULL, 0 },
	{ "main", "g0", "get-tuple-element", 0, "t", NULL, 0 },
	{ "main", "c", "negate", 0, "g0", NULL, 0 },
	{ "main", "d", "negate", 0, "c", NULL, 0 },
	END,
};

static const struct buf_spec tuple_bufs[] = {
	{ "p0", -1, 16, 0 }, { "a", -1, 16, 2 }, { "t", -1, 16, 2 },
	{ "u1", -1, 16, 2 }, { "c", -1, 16, 2 }, { "d", -1, 16, 1 }, { NULL, 0, 0, 0 },
};

START_TEST(test_tuple_gte_bitcast)
{
	struct spec sp = { tuple_ins, tuple_bufs, NO_EVENTS,
			   "p0 a b t g1 u1 g0 c d" };
	struct built b;
	struct tp_mem_why w;

	build(&b, &sp);
	ck_assert_int_eq(b.m.why.order, TP_ORDER_SCHEDULE);
	ck_assert_int_eq(position(&b, "t"), 3);
	ck_assert_int_eq(position(&b, "fa.n"), 1); /* a fused op runs with its fusion */
	/* through the bitcast, into the tuple and out of get-tuple-element 0;
	 * g1 takes the other element, so u1 does not keep it */
	expect_why(&b, 1, "c", 7, "a b t g0 c");
	/* the tuple's own table: both get-tuple-elements read it */
	expect_why(&b, 2, "g0", 6, "t g0");
	expect_why(&b, 3, NULL, -1, "u1");
	tp_mem_why_buffer(&b.m, tp_i64map_get(&b.m.by_id, 13), &w);
	ck_assert_str_eq(w.kind, "temporary");
	ck_assert_str_eq(w.note, "no instruction uses it after its definition");
	tp_mem_why_clear(&w);
	/* a parameter lives for the whole program: no last user */
	tp_mem_why_buffer(&b.m, tp_i64map_get(&b.m.by_id, 10), &w);
	ck_assert_str_eq(w.kind, "parameter");
	ck_assert_int_eq(w.last_user, -1);
	ck_assert_uint_eq(w.n_chain, 1);
	ck_assert_str_eq(w.note, "entry parameter 0: the caller owns it for the whole program; last read by u1");
	tp_mem_why_clear(&w);
	tp_mem_why_buffer(&b.m, tp_i64map_get(&b.m.by_id, 15), &w);
	ck_assert_str_eq(w.kind, "output");
	ck_assert_str_eq(w.note, "output: the program returns it (it reaches the entry ROOT), so it is held to the end");
	tp_mem_why_clear(&w);
	unbuild(&b);
}
END_TEST

/* ---- async pairs: copy-start/copy-done, all-gather-start/done ---- */

static const struct ins_spec async_ins[] = {
	{ "main", "p0", "parameter", 0, NULL, NULL, 0 },
	{ "main", "s", "negate", 0, "p0", NULL, 0 },
	{ "main", "cs", "copy-start", 3, "s", NULL, 0 },
	{ "main", "x", "negate", 0, "p0", NULL, 0 },
	{ "main", "cd", "copy-done", 0, "cs", NULL, 0 },
	{ "main", "y", "negate", 0, "cd", NULL, 0 },
	{ "main", "ags", "all-gather-start", 2, "y", NULL, 0 },
	{ "main", "agd", "all-gather-done", 0, "ags", NULL, 0 },
	{ "main", "z", "add", 0, "agd x", NULL, 0 },
	END,
};

static const struct buf_spec async_bufs[] = {
	{ "p0", -1, 16, 0 }, { "s", -1, 16, 2 }, { "cs", 0, 16, 2 }, { "cs", -1, 16, 2 },
	{ "y", -1, 16, 2 }, { "ags", 1, 16, 2 }, { "z", -1, 16, 1 }, { "x", -1, 16, 2 },
	{ NULL, 0, 0, 0 },
};

START_TEST(test_async_pairs)
{
	struct spec sp = { async_ins, async_bufs, NO_EVENTS, "p0 s cs x cd y ags agd z" };
	struct built b;
	struct tp_strbuf sb;
	long *found;
	size_t other;

	build(&b, &sp);
	/* the source is read until the copy is done */
	expect_why(&b, 1, "cd", 4, "s cs cd");
	/* the destination is copy-done's output */
	expect_why(&b, 2, "y", 5, "cs cd y");
	expect_why(&b, 4, "agd", 7, "y ags agd");
	expect_why(&b, 5, "z", 8, "ags agd z");
	expect_why(&b, 7, "z", 8, "x z");
	/* names with the shape index, and finding them */
	tp_strbuf_init(&sb);
	tp_mem_buffer_name(&sb, &b.m, tp_i64map_get(&b.m.by_id, 12));
	ck_assert_str_eq(sb.buf, "cs{0}");
	tp_strbuf_release(&sb);
	ck_assert_uint_eq(tp_mem_find_named(&b.m, "cs", &found, &other), 2);
	free(found);
	ck_assert_uint_eq(tp_mem_find_named(&b.m, "cs{0}", &found, &other), 1);
	ck_assert_int_eq(b.m.buffers[found[0]].id, 12);
	free(found);
	ck_assert_uint_eq(tp_mem_find_named(&b.m, "nothing", &found, &other), 0);
	ck_assert_uint_eq(other, 0);
	free(found);
	unbuild(&b);
}
END_TEST

/* ---- async-start/done, opt-barrier, a shallow copy of a tuple ---- */

static const struct ins_spec wrapped_ins[] = {
	{ "wrapped", "ap", "parameter", 0, NULL, NULL, 0 },
	{ "wrapped", "an", "negate", 0, "ap", NULL, 0 },
	{ "main", "p0", "parameter", 0, NULL, NULL, 0 },
	{ "main", "v", "negate", 0, "p0", NULL, 0 },
	{ "main", "as", "async-start", 3, "v", "wrapped", 0 },
	{ "main", "ad", "async-done", 0, "as", NULL, 0 },
	{ "main", "u", "negate", 0, "ad", NULL, 0 },
	{ "main", "t", "tuple", 2, "v u", NULL, 0 },
	{ "main", "ob", "opt-barrier", 2, "t", NULL, 0 },
	{ "main", "cp", "copy", 2, "ob", NULL, 0 },
	{ "main", "g", "get-tuple-element", 0, "cp", NULL, 0 },
	{ "main", "z", "negate", 0, "g", NULL, 0 },
	END,
};

static const struct buf_spec wrapped_bufs[] = {
	{ "p0", -1, 16, 0 }, { "v", -1, 16, 2 }, { "as", 1, 16, 2 }, { "z", -1, 16, 1 },
	{ NULL, 0, 0, 0 },
};

START_TEST(test_async_wrapped)
{
	struct spec sp = { wrapped_ins, wrapped_bufs, NO_EVENTS, "p0 v as ad u t ob cp g z" };
	struct built b;

	build(&b, &sp);
	/* the wrapped computation runs just before async-start */
	ck_assert_int_eq(position(&b, "an"), 3);
	ck_assert_int_eq(position(&b, "as"), 4);
	/* v: read by the async pair and carried on through the tuple, the
	 * barrier and the copy (a shallow one: elements stay shared) */
	expect_why(&b, 1, "z", 11, "v t ob cp g z");
	/* the result comes out of async-done */
	expect_why(&b, 2, "u", 6, "as ad u");
	unbuild(&b);
}
END_TEST

/* ---- while: loop state keeps one buffer; the body runs before ---- */

static const struct ins_spec while_ins[] = {
	{ "cond", "cp", "parameter", 1, NULL, NULL, 0 },
	{ "cond", "cg", "get-tuple-element", 0, "cp", NULL, 0 },
	{ "cond", "cc", "compare", 0, "cg cg", NULL, 0 },
	{ "body", "bp", "parameter", 1, NULL, NULL, 0 },
	{ "body", "bg", "get-tuple-element", 0, "bp", NULL, 0 },
	{ "body", "bn", "negate", 0, "bg", NULL, 0 },
	{ "body", "bt", "tuple", 1, "bn", NULL, 0 },
	{ "main", "p0", "parameter", 0, NULL, NULL, 0 },
	{ "main", "init", "negate", 0, "p0", NULL, 0 },
	{ "main", "t", "tuple", 1, "init", NULL, 0 },
	{ "main", "w", "while", 1, "t", "body cond", 0 },
	{ "main", "g", "get-tuple-element", 0, "w", NULL, 0 },
	{ "main", "z", "negate", 0, "g", NULL, 0 },
	{ "main", "out", "negate", 0, "z", NULL, 0 },
	END,
};

static const struct buf_spec while_bufs[] = {
	{ "p0", -1, 16, 0 }, { "init", -1, 16, 2 }, { "bn", -1, 16, 2 },
	{ "out", -1, 16, 1 }, { NULL, 0, 0, 0 },
};

START_TEST(test_while)
{
	struct spec sp = { while_ins, while_bufs, NO_EVENTS, "p0 init t w g z out" };
	struct built b;

	build(&b, &sp);
	/* flattened: condition, then body, then the while itself */
	ck_assert_int_eq(position(&b, "cp"), 3);
	ck_assert_int_eq(position(&b, "bt"), 9);
	ck_assert_int_eq(position(&b, "w"), 10);
	ck_assert_int_eq(position(&b, "out"), 13);
	expect_why(&b, 1, "z", 12, "init t w g z");
	/* a value made in the body leaves through its ROOT and the while */
	expect_why(&b, 2, "z", 12, "bn bt w g z");
	unbuild(&b);
}
END_TEST

/* ---- conditional and call: parameters and ROOTs ---- */

static const struct ins_spec call_ins[] = {
	{ "b0", "q0", "parameter", 0, NULL, NULL, 0 },
	{ "b0", "q0n", "negate", 0, "q0", NULL, 0 },
	{ "b1", "q1", "parameter", 0, NULL, NULL, 0 },
	{ "f", "fp", "parameter", 0, NULL, NULL, 0 },
	{ "f", "fb", "bitcast", 0, "fp", NULL, 0 },
	{ "main", "p0", "parameter", 0, NULL, NULL, 0 },
	{ "main", "pred", "negate", 0, "p0", NULL, 0 },
	{ "main", "x", "negate", 0, "p0", NULL, 0 },
	{ "main", "y", "negate", 0, "p0", NULL, 0 },
	{ "main", "cnd", "conditional", 0, "pred x y", "b0 b1", 0 },
	{ "main", "u", "negate", 0, "cnd", NULL, 0 },
	{ "main", "v", "negate", 0, "p0", NULL, 0 },
	{ "main", "c", "call", 0, "v", "f", 0 },
	{ "main", "w", "add", 0, "u c", NULL, 0 },
	END,
};

static const struct buf_spec call_bufs[] = {
	{ "p0", -1, 16, 0 }, { "x", -1, 16, 2 }, { "y", -1, 16, 2 }, { "v", -1, 16, 2 },
	{ "w", -1, 16, 1 }, { NULL, 0, 0, 0 },
};

START_TEST(test_conditional_call)
{
	struct spec sp = { call_ins, call_bufs, NO_EVENTS, "p0 pred x y cnd u v c w" };
	struct built b;

	build(&b, &sp);
	ck_assert_int_eq(position(&b, "q1"), 6);
	ck_assert_int_eq(position(&b, "cnd"), 7);
	ck_assert_int_eq(position(&b, "fb"), 11);
	/* branch 0 reads x and makes a new value */
	expect_why(&b, 1, "cnd", 7, "x cnd");
	/* branch 1 returns y itself: it comes out of the conditional */
	expect_why(&b, 2, "u", 8, "y q1 cnd u");
	/* the call's body bitcasts its parameter and returns it */
	expect_why(&b, 3, "w", 13, "v fp fb c w");
	unbuild(&b);
}
END_TEST

/* ---- a fusion whose ROOT is its parameter ---- */

static const struct ins_spec fusion_ins[] = {
	{ "fz", "zp", "parameter", 0, NULL, NULL, 0 },
	{ "fz", "zb", "bitcast", 0, "zp", NULL, 0 },
	{ "main", "p0", "parameter", 0, NULL, NULL, 0 },
	{ "main", "v", "negate", 0, "p0", NULL, 0 },
	{ "main", "f", "fusion", 0, "v", "fz", 0 },
	{ "main", "h", "negate", 0, "f", NULL, 0 },
	{ "main", "k", "negate", 0, "h", NULL, 0 },
	END,
};

static const struct buf_spec fusion_bufs[] = {
	{ "p0", -1, 16, 0 }, { "v", -1, 16, 2 }, { "k", -1, 16, 1 }, { NULL, 0, 0, 0 },
};

START_TEST(test_fusion_root)
{
	struct spec sp = { fusion_ins, fusion_bufs, NO_EVENTS, "p0 v f h k" };
	struct built b;

	build(&b, &sp);
	ck_assert_int_eq(position(&b, "zb"), 2);
	ck_assert(!b.m.why.own_time[instr(&b, "zb")]);
	expect_why(&b, 1, "h", 3, "v zp zb f h");
	unbuild(&b);
}
END_TEST

/* ---- no schedule: the heap trace's order, and the peak grouped ---- */

static const struct ins_spec order_ins[] = {
	{ "main", "p0", "parameter", 0, NULL, NULL, 0 },
	{ "main", "a", "negate", 0, "p0", NULL, 0 },
	{ "main", "b", "negate", 0, "p0", NULL, 0 },
	{ "main", "bb", "bitcast", 0, "b", NULL, 0 },
	{ "main", "c", "add", 0, "a bb", NULL, 0 },
	{ "main", "d", "negate", 0, "c", NULL, 0 },
	END,
};

static const struct buf_spec order_bufs[] = {
	{ "p0", -1, 16, 0 }, { "a", -1, 100, 2 }, { "b", -1, 200, 2 }, { "c", -1, 50, 2 },
	{ "d", -1, 16, 1 }, { NULL, 0, 0, 0 },
};

/* b runs before a: the trace says so, the instruction order does not */
static const struct ev_spec order_events[] = {
	{ 0, 2, 0 }, { 0, 1, 0 }, { 0, 3, 0 }, { 1, 2, 0 }, { 1, 1, 0 }, { 1, 3, 0 }, { -1, 0, 0 },
};

START_TEST(test_schedule_less)
{
	struct spec sp = { order_ins, order_bufs, order_events, NULL };
	struct built b;
	const struct tp_mem_why_data *w;
	static const char *const names[] = { "p0", "b", "bb", "a", "c", "d" };

	build(&b, &sp);
	w = &b.m.why;
	ck_assert_int_eq(w->order, TP_ORDER_HEAP_TRACE);
	/* p0 and bb are not in the trace: each runs right after its operands */
	for (long i = 0; i < 6; i++)
		ck_assert_int_eq(position(&b, names[i]), i);
	ck_assert_int_eq(b.m.peak_position, 2);  /* c's allocation      */
	ck_assert_int_eq(w->peak_position, 4);   /* c runs at 4         */
	expect_why(&b, 2, "c", 4, "b bb c");
	expect_why(&b, 1, "c", 4, "a c");
	/* live at the peak: p0, d (indefinite), then b, a, c */
	ck_assert_uint_eq(b.m.n_live, 5);
	ck_assert_int_eq(b.m.buffers[b.m.live[4].buffer].id, 13);
	ck_assert_int_eq(w->live[4].last_user, instr(&b, "d"));
	ck_assert(w->live[4].has_wait);
	ck_assert_int_eq(w->live[4].wait, 1);
	ck_assert_int_eq(w->live[2].wait, 0);
	/* grouped: 300 bytes wait for c (at the peak), 50 for d */
	ck_assert_uint_eq(w->n_groups, 2);
	ck_assert_int_eq(w->groups[0].last_user, instr(&b, "c"));
	ck_assert_uint_eq(w->groups[0].bytes, 300);
	ck_assert_uint_eq(w->groups[0].buffers, 2);
	ck_assert_int_eq(w->groups[0].wait, 0);
	ck_assert_int_eq(w->groups[1].last_user, instr(&b, "d"));
	ck_assert_uint_eq(w->groups[1].bytes, 50);
	ck_assert_int_eq(w->groups[1].position, 5);
	ck_assert_int_eq(w->groups[1].wait, 1);
	/* and by the last user's scope (op_name = the computation here) */
	ck_assert_int_eq(w->user_scopes.nodes[tp_scope_tree_find(&w->user_scopes, tp_str_make("main", 4))].inclusive, 350);
	ck_assert_uint_eq(w->user_scopes.nodes[tp_scope_tree_find(&w->user_scopes, tp_str_make("main", 4))].count_inclusive, 3);
	unbuild(&b);
	/* with a schedule, its order wins */
	sp.schedule = "p0 a b bb c d";
	build(&b, &sp);
	ck_assert_int_eq(b.m.why.order, TP_ORDER_SCHEDULE);
	ck_assert_int_eq(position(&b, "a"), 1);
	ck_assert_int_eq(position(&b, "b"), 2);
	expect_why(&b, 2, "c", 4, "b bb c");
	unbuild(&b);
}
END_TEST

/* ---- in place: b takes a's bytes, so c (b's last user) frees them ---- */

static const struct ins_spec inplace_ins[] = {
	{ "main", "p0", "parameter", 0, NULL, NULL, 0 },
	{ "main", "a", "negate", 0, "p0", NULL, 0 },
	{ "main", "b", "negate", 0, "a", NULL, 0 },
	{ "main", "c", "negate", 0, "b", NULL, 0 },
	{ "main", "d", "negate", 0, "c", NULL, 0 },
	END,
};

static const struct buf_spec inplace_bufs[] = {
	{ "p0", -1, 16, 0 }, { "a", -1, 100, 2 }, { "b", -1, 100, 2 }, { "c", -1, 10, 2 },
	{ "d", -1, 16, 1 }, { NULL, 0, 0, 0 },
};

static const struct ev_spec inplace_events[] = {
	{ 0, 1, 0 }, { 2, 2, 1 }, { 1, 1, 0 }, { 0, 3, 0 }, { 1, 2, 0 }, { 1, 3, 0 }, { -1, 0, 0 },
};

START_TEST(test_in_place)
{
	struct spec sp = { inplace_ins, inplace_bufs, inplace_events, "p0 a b c d" };
	struct built b;
	const struct tp_mem_why *w;
	char got[128] = "";

	build(&b, &sp);
	ck_assert_int_eq(b.m.peak_position, 3);
	ck_assert_int_eq(b.m.why.peak_position, 3);
	ck_assert_uint_eq(b.m.n_live, 4);           /* p0, d, a's bytes, c */
	w = &b.m.why.live[2];
	ck_assert_int_eq(b.m.buffers[w->buffer].id, 11);
	ck_assert_int_eq(b.m.buffers[w->value].id, 12);
	ck_assert_int_eq(w->last_user, instr(&b, "c"));
	ck_assert_int_eq(w->wait, 0);
	for (size_t i = 0; i < w->n_chain; i++) {
		strcat(got, i ? " " : "");
		strcat(got, b.m.idx.instrs[w->chain[i].instr].proto->name);
	}
	ck_assert_str_eq(got, "a b c");
	ck_assert_int_eq(w->chain[1].role, TP_STEP_ALIASES);
	ck_assert_str_eq(w->note, "its bytes pass in place to b, whose last user frees them");
	ck_assert_int_eq(b.m.why.live[3].last_user, instr(&b, "d"));
	ck_assert_int_eq(b.m.why.live[3].wait, 1);
	unbuild(&b);
}
END_TEST

/* ---- hostile: a computation calling itself, a while without a body ---- */

static const struct ins_spec hostile_ins[] = {
	{ "loop", "lp", "parameter", 0, NULL, NULL, 0 },
	{ "loop", "lc", "call", 0, "lp", "loop", 0 },
	{ "main", "p0", "parameter", 0, NULL, NULL, 0 },
	{ "main", "v", "negate", 0, "p0", NULL, 0 },
	{ "main", "c", "call", 0, "v", "loop", 0 },
	{ "main", "w", "while", 0, "c", NULL, 0 },
	{ "main", "x", "negate", 0, "w", NULL, 0 },
	END,
};

static const struct buf_spec hostile_bufs[] = {
	{ "p0", -1, 16, 0 }, { "v", -1, 16, 2 }, { "x", -1, 16, 1 }, { NULL, 0, 0, 0 },
};

START_TEST(test_hostile_calls)
{
	struct spec sp = { hostile_ins, hostile_bufs, NO_EVENTS, "p0 v c w x" };
	struct built b;

	build(&b, &sp);
	/* the cycle is flattened once and walked once: the callee's ROOT is
	 * a call that makes a new value, so v ends at c */
	ck_assert_int_eq(position(&b, "lp"), 2);
	ck_assert_int_eq(position(&b, "lc"), 3);
	ck_assert_int_eq(position(&b, "c"), 4);
	ck_assert_int_eq(position(&b, "x"), 6);
	expect_why(&b, 1, "c", 4, "v c");
	unbuild(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("why");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_tuple_gte_bitcast);
	tcase_add_test(tc, test_async_pairs);
	tcase_add_test(tc, test_async_wrapped);
	tcase_add_test(tc, test_while);
	tcase_add_test(tc, test_conditional_call);
	tcase_add_test(tc, test_fusion_root);
	tcase_add_test(tc, test_schedule_less);
	tcase_add_test(tc, test_in_place);
	tcase_add_test(tc, test_hostile_calls);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
