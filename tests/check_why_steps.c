/*
 * check_why_steps.c - every step of a why-live chain is a data-flow edge,
 * held on a module built by hand as a MaxText train step has it: a while
 * loop carrying a buffer that its body updates in place with
 * dynamic-update-slice (the heap trace shares the update's buffer with
 * the loop state's). Also the buffer records XProf's memory viewer
 * agrees on: an instruction id of 0, tuples with an unset element type.
 * A sharer the value never reaches keeps the buffer's own answer.
 */
#include "hlo_build.h"

#define END { NULL, NULL, NULL, 0, NULL, NULL, 0 }

static bool has_operand(const Xla__HloInstructionProto *x, int64_t id)
{
	for (size_t i = 0; i < x->n_operand_ids; i++)
		if (x->operand_ids[i] == id)
			return true;
	return false;
}

static bool calls(const Xla__HloInstructionProto *x, int64_t comp)
{
	for (size_t i = 0; i < x->n_called_computation_ids; i++)
		if (x->called_computation_ids[i] == comp)
			return true;
	return false;
}

/* b follows a in a data-flow chain: an operand edge (a tuple slot and a
 * get-tuple-element are operand edges too), a called computation's
 * ROOT coming out of its caller, a caller's operand entering the called
 * computation's parameter, or a while body's ROOT becoming the next
 * trip's parameter. */
static bool is_edge(const struct tp_mem_module *m, long a, long b)
{
	const struct tp_hlo_instr *ia = &m->idx.instrs[a], *ib = &m->idx.instrs[b];

	if (has_operand(ib->proto, ia->proto->id))
		return true;
	if (ia->computation->root_id == ia->proto->id && calls(ib->proto, ia->computation->id))
		return true;
	if (strcmp(ib->proto->opcode, "parameter") != 0)
		return false;
	if (ia->computation == ib->computation && ia->computation->root_id == ia->proto->id)
		return true;
	for (size_t k = 0; k < m->idx.n_instrs; k++) {
		const Xla__HloInstructionProto *u = m->idx.instrs[k].proto;

		if (calls(u, ib->computation->id) && has_operand(u, ia->proto->id))
			return true;
	}
	return false;
}

static void chain_text(const struct tp_mem_module *m, const struct tp_mem_why *w, char *out,
		       size_t cap)
{
	out[0] = '\0';
	for (size_t i = 0; i < w->n_chain; i++) {
		if (i)
			strncat(out, " ", cap - strlen(out) - 1);
		strncat(out, m->idx.instrs[w->chain[i].instr].proto->name, cap - strlen(out) - 1);
	}
}

/* ---- a while loop carrying a buffer updated in place ---- */

static const struct ins_spec loop_ins[] = {
	{ "cond", "cp", "parameter", 1, NULL, NULL, 0 },
	{ "cond", "cg", "get-tuple-element", 0, "cp", NULL, 0 },
	{ "cond", "cc", "compare", 0, "cg cg", NULL, 0 },
	{ "body", "bp", "parameter", 1, NULL, NULL, 0 },
	{ "body", "bg", "get-tuple-element", 0, "bp", NULL, 0 },
	{ "body", "upd", "negate", 0, "bg", NULL, 0 },
	{ "body", "dus", "dynamic-update-slice", 0, "bg upd", NULL, 0 },
	{ "body", "bt", "tuple", 1, "dus", NULL, 0 },
	{ "main", "p0", "parameter", 0, NULL, NULL, 0 },
	{ "main", "init", "negate", 0, "p0", NULL, 0 },
	{ "main", "t", "tuple", 1, "init", NULL, 0 },
	{ "main", "w", "while", 1, "t", "body cond", 0 },
	{ "main", "g", "get-tuple-element", 0, "w", NULL, 0 },
	{ "main", "d2", "dynamic-update-slice", 0, "g p0", NULL, 0 },
	{ "main", "z", "negate", 0, "d2", NULL, 0 },
	{ "main", "out", "negate", 0, "z", NULL, 0 },
	END,
};

/* 0 p0, 1 init (the loop state), 2 upd, 3 dus and 4 d2 (both in init's
 * bytes), 5 out */
static const struct buf_spec loop_bufs[] = {
	{ "p0", -1, 16, 0 }, { "init", -1, 100, 2 }, { "upd", -1, 10, 2 }, { "dus", -1, 100, 2 },
	{ "d2", -1, 100, 2 }, { "out", -1, 16, 1 }, { NULL, 0, 0, 0 },
};

/* init, upd, dus takes init's bytes, upd goes, d2 takes them, all go */
static const struct ev_spec loop_events[] = {
	{ 0, 1, 0 }, { 0, 2, 0 }, { 2, 3, 1 }, { 1, 2, 0 }, { 2, 4, 1 }, { 1, 1, 0 }, { 1, 3, 0 },
	{ 1, 4, 0 }, { -1, 0, 0 },
};

START_TEST(test_in_place_loop_steps)
{
	struct spec sp = { loop_ins, loop_bufs, loop_events, "p0 init t w g d2 z out" };
	struct built b;
	const struct tp_mem_why *w = NULL;
	char got[256];

	build(&b, &sp);
	for (size_t i = 0; i < b.m.n_live; i++)
		if (b.m.buffers[b.m.why.live[i].buffer].id == 11)
			w = &b.m.why.live[i];
	ck_assert_ptr_nonnull(w);
	/* the loop state's bytes come out of the while and pass in place
	 * to d2, which z reads last */
	ck_assert_int_eq(b.m.buffers[w->value].id, 14);
	ck_assert_int_eq(w->last_user, instr(&b, "z"));
	ck_assert_int_eq(w->last_user_position, position(&b, "z"));
	chain_text(&b.m, w, got, sizeof(got));
	ck_assert_str_eq(got, "init t w g d2 z");
	for (size_t i = 1; i < w->n_chain; i++)
		ck_assert_msg(is_edge(&b.m, w->chain[i - 1].instr, w->chain[i].instr),
			      "step %zu: %s -> %s is not a data-flow edge", i,
			      b.m.idx.instrs[w->chain[i - 1].instr].proto->name,
			      b.m.idx.instrs[w->chain[i].instr].proto->name);
	ck_assert_int_eq(w->chain[0].role, TP_STEP_DEFINES);
	ck_assert_int_eq(w->chain[4].role, TP_STEP_ALIASES); /* d2 writes in place */
	ck_assert_int_eq(w->chain[4].operand, 0);
	ck_assert_int_eq(w->chain[5].role, TP_STEP_READS);
	ck_assert_str_eq(w->note, "its bytes pass in place to d2, whose last user frees them");
	/* the body's update on its own: out of the body's ROOT and the
	 * while, read by d2 */
	expect_why(&b, 3, "d2", position(&b, "d2"), "dus bt w g d2");
	unbuild(&b);
}
END_TEST

/* ---- in place twice: the path passes through the first writer ---- */

static const struct ins_spec twice_ins[] = {
	{ "main", "p0", "parameter", 0, NULL, NULL, 0 },
	{ "main", "init", "negate", 0, "p0", NULL, 0 },
	{ "main", "d1", "dynamic-update-slice", 0, "init p0", NULL, 0 },
	{ "main", "d2", "dynamic-update-slice", 0, "d1 p0", NULL, 0 },
	{ "main", "z", "negate", 0, "d2", NULL, 0 },
	{ "main", "out", "negate", 0, "z", NULL, 0 },
	END,
};

static const struct buf_spec twice_bufs[] = {
	{ "p0", -1, 16, 0 }, { "init", -1, 100, 2 }, { "d1", -1, 100, 2 }, { "d2", -1, 100, 2 },
	{ "out", -1, 16, 1 }, { NULL, 0, 0, 0 },
};

/* both writers share init's canonical id, as XLA's trace records them */
static const struct ev_spec twice_events[] = {
	{ 0, 1, 0 }, { 2, 2, 1 }, { 2, 3, 1 }, { 1, 1, 0 }, { 1, 2, 0 }, { 1, 3, 0 }, { -1, 0, 0 },
};

START_TEST(test_in_place_twice_steps)
{
	struct spec sp = { twice_ins, twice_bufs, twice_events, "p0 init d1 d2 z out" };
	struct built b;
	const struct tp_mem_why *w = NULL;
	char got[256];

	build(&b, &sp);
	for (size_t i = 0; i < b.m.n_live; i++)
		if (b.m.buffers[b.m.why.live[i].buffer].id == 11)
			w = &b.m.why.live[i];
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(w->last_user, instr(&b, "z"));
	chain_text(&b.m, w, got, sizeof(got));
	ck_assert_str_eq(got, "init d1 d2 z");
	for (size_t i = 1; i < w->n_chain; i++)
		ck_assert(is_edge(&b.m, w->chain[i - 1].instr, w->chain[i].instr));
	ck_assert_int_eq(w->chain[1].role, TP_STEP_ALIASES);
	ck_assert_int_eq(w->chain[2].role, TP_STEP_ALIASES);
	unbuild(&b);
}
END_TEST

/* ---- a sharer the value never reaches: no jump, a note ---- */

static const struct ins_spec apart_ins[] = {
	{ "main", "p0", "parameter", 0, NULL, NULL, 0 },
	{ "main", "a", "negate", 0, "p0", NULL, 0 },
	{ "main", "b", "negate", 0, "p0", NULL, 0 },
	{ "main", "c", "negate", 0, "b", NULL, 0 },
	{ "main", "out", "negate", 0, "c", NULL, 0 },
	END,
};

static const struct buf_spec apart_bufs[] = {
	{ "p0", -1, 16, 0 }, { "a", -1, 100, 2 }, { "b", -1, 100, 2 }, { "c", -1, 10, 2 },
	{ "out", -1, 16, 1 }, { NULL, 0, 0, 0 },
};

static const struct ev_spec apart_events[] = {
	{ 0, 1, 0 }, { 2, 2, 1 }, { 0, 3, 0 }, { 1, 1, 0 }, { 1, 2, 0 }, { 1, 3, 0 }, { -1, 0, 0 },
};

START_TEST(test_sharer_out_of_reach)
{
	struct spec sp = { apart_ins, apart_bufs, apart_events, "p0 a b c out" };
	struct built b;
	const struct tp_mem_why *w = NULL;
	char got[256];

	build(&b, &sp);
	for (size_t i = 0; i < b.m.n_live; i++)
		if (b.m.buffers[b.m.why.live[i].buffer].id == 11)
			w = &b.m.why.live[i];
	ck_assert_ptr_nonnull(w);
	/* c (b's last user) runs later, but a's value never reaches b */
	ck_assert_int_eq(w->value, w->buffer);
	ck_assert_int_eq(w->last_user, -1);
	chain_text(&b.m, w, got, sizeof(got));
	ck_assert_str_eq(got, "a");
	ck_assert_str_eq(w->note, "it shares its memory with b, which its value does not reach in the HLO");
	unbuild(&b);
}
END_TEST

/* ---- instruction id 0; tuples whose element type is unset ---- */

static const struct ins_spec zero_ins[] = {
	{ "main", "p0", "parameter", 1, NULL, NULL, 0 },
	{ "main", "g", "get-tuple-element", 0, "p0", NULL, 0 },
	{ "main", "out", "negate", 0, "g", NULL, 0 },
	END,
};

static const struct buf_spec zero_bufs[] = {
	{ "p0", -1, 8, 0 }, { "p0", 0, 16, 0 }, { "out", -1, 16, 1 }, { NULL, 0, 0, 0 },
};

START_TEST(test_id_zero_untyped_tuple)
{
	struct spec sp = { zero_ins, zero_bufs, NULL, "p0 g out" };
	struct built b;
	struct tp_strbuf name;
	long k;

	build_as(&b, &sp, (struct spec_style){ .ids_from_zero = true, .untyped_tuples = true });
	ck_assert_int_eq(b.m.idx.instrs[instr(&b, "p0")].proto->id, 0);
	/* p0 (id 0) defines the tuple and its element {0} */
	k = tp_i64map_get(&b.m.by_id, 11);
	ck_assert_int_eq(b.m.buffers[k].instr, instr(&b, "p0"));
	tp_strbuf_init(&name);
	tp_mem_buffer_name(&name, &b.m, k);
	ck_assert_str_eq(name.buf, "p0{0}");
	tp_strbuf_release(&name);
	/* the element is tuple_shapes(0), f32[4]: 16 bytes unpadded */
	ck_assert_ptr_nonnull(b.m.buffers[k].shape);
	ck_assert_int_eq(b.m.buffers[k].shape->element_type, 11);
	ck_assert_uint_eq(b.m.buffers[k].unpadded, 16);
	/* the tuple itself: one 8-byte pointer */
	k = tp_i64map_get(&b.m.by_id, 10);
	ck_assert_uint_eq(b.m.buffers[k].unpadded, 8);
	/* no heap trace: the peak is the indefinite buffers, 8 + 16 + 16 */
	ck_assert_uint_eq(b.m.peak, 40);
	ck_assert_uint_eq(b.m.peak_unpadded, 40);
	unbuild(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("why_steps");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_in_place_loop_steps);
	tcase_add_test(tc, test_in_place_twice_steps);
	tcase_add_test(tc, test_sharer_out_of_reach);
	tcase_add_test(tc, test_id_zero_untyped_tuple);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
