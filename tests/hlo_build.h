/*
 * hlo_build.h - a tiny HLO module builder for the Check tests: tables of
 * instructions, logical buffers and heap events in, a decoded HloProto
 * (in an arena) and its memory analysis out. Header-only, like
 * testutil.h. Every shape is f32[4] or a tuple of them; instruction ids
 * are 1, 2, ... in table order (0, 1, ... built with ids_from_zero), computation ids 100, 101, ... in order
 * of first appearance; a computation's ROOT is its last instruction.
 */
#ifndef TPUPROF_TESTS_HLO_BUILD_H
#define TPUPROF_TESTS_HLO_BUILD_H

#include "testutil.h"

#include "tpuprof/util/arena.h"
#include "tpuprof/analyze/memory.h"


struct ins_spec {
	const char *comp;       /* computation; "main" is the entry       */
	const char *name;
	const char *opcode;
	int tuple_n;            /* 0: f32[4]; else a tuple of n f32[4]    */
	const char *operands;   /* space-separated names                  */
	const char *calls;      /* space-separated computation names      */
	int64_t num;            /* parameter number or tuple index        */
};

struct buf_spec {
	const char *instr;
	int shape_index;        /* -1: none                                */
	int64_t size;
	int alloc;              /* 0 parameter, 1 output, 2 temporary     */
};

struct ev_spec {
	int kind;               /* 0 alloc, 1 free, 2 share with           */
	int buffer;             /* index into the buffer table             */
	int canonical;          /* share with: the buffer shared           */
};

struct spec {
	const struct ins_spec *ins;
	const struct buf_spec *bufs;
	const struct ev_spec *events;
	const char *schedule;   /* space-separated names of main, or NULL */
};

/* How build_as() writes a spec: XLA's own id numbering from 0, tuple
 * shapes without their element_type. */
struct spec_style {
	bool ids_from_zero;     /* instruction ids 0, 1, ...              */
	bool untyped_tuples;    /* tuple shapes leave element_type unset  */
};

/* The spec being built: its id numbering and tuple typing. */
static int64_t hb_first_id = 1;
static bool hb_untyped_tuples;

struct built {
	struct tp_arena arena;
	Xla__HloProto *hlo;
	struct tp_module module;
	struct tp_mem_module m;
};

#define NEW(a, T) ((T *)tp_arena_calloc((a), 1, sizeof(T)))

static Xla__ShapeProto *array_shape(struct tp_arena *a)
{
	Xla__ShapeProto *s = NEW(a, Xla__ShapeProto);

	xla__shape_proto__init(s);
	s->element_type = 11;
	s->n_dimensions = 1;
	s->dimensions = tp_arena_calloc(a, 1, sizeof(int64_t));
	s->dimensions[0] = 4;
	return s;
}

static Xla__ShapeProto *shape_of(struct tp_arena *a, int tuple_n)
{
	Xla__ShapeProto *s;

	if (!tuple_n)
		return array_shape(a);
	s = NEW(a, Xla__ShapeProto);
	xla__shape_proto__init(s);
	s->element_type = hb_untyped_tuples ? 0 : 13;
	s->n_tuple_shapes = (size_t)tuple_n;
	s->tuple_shapes = tp_arena_calloc(a, (size_t)tuple_n, sizeof(*s->tuple_shapes));
	for (int i = 0; i < tuple_n; i++)
		s->tuple_shapes[i] = array_shape(a);
	return s;
}

static size_t count_ins(const struct ins_spec *ins)
{
	size_t n = 0;

	while (ins[n].name)
		n++;
	return n;
}

static int64_t id_of(const struct ins_spec *ins, const char *name)
{
	for (size_t i = 0; ins[i].name; i++)
		if (strcmp(ins[i].name, name) == 0)
			return (int64_t)i + hb_first_id;
	ck_abort_msg("no instruction %s", name);
	return 0;
}

/* Computation names in order of first appearance; ids 100 + index. */
static size_t comp_names(const struct ins_spec *ins, const char **names)
{
	size_t n = 0;

	for (size_t i = 0; ins[i].name; i++) {
		size_t j = 0;

		while (j < n && strcmp(names[j], ins[i].comp) != 0)
			j++;
		if (j == n)
			names[n++] = ins[i].comp;
	}
	return n;
}

static int64_t comp_id(const char **names, size_t n, const char *name, size_t len)
{
	for (size_t j = 0; j < n; j++)
		if (strlen(names[j]) == len && strncmp(names[j], name, len) == 0)
			return 100 + (int64_t)j;
	ck_abort_msg("no computation %.*s", (int)len, name);
	return 0;
}

/* Space-separated names to ids (instructions, or computations). */
static size_t ids(struct tp_arena *a, const char *list, const struct ins_spec *ins,
		  const char **comps, size_t n_comps, int64_t **out)
{
	size_t n = 0;
	char buf[64];

	*out = tp_arena_calloc(a, 16, sizeof(int64_t));
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, " ");

		ck_assert_uint_lt(len, sizeof(buf));
		memcpy(buf, p, len);
		buf[len] = '\0';
		(*out)[n++] = comps ? comp_id(comps, n_comps, p, len) : id_of(ins, buf);
		p += len;
		p += *p == ' ';
	}
	return n;
}

static Xla__HloInstructionProto *make_ins(struct tp_arena *a, const struct ins_spec *ins,
					  size_t i, const char **comps, size_t n_comps)
{
	Xla__HloInstructionProto *x = NEW(a, Xla__HloInstructionProto);

	xla__hlo_instruction_proto__init(x);
	x->name = (char *)ins[i].name;
	x->opcode = (char *)ins[i].opcode;
	x->id = (int64_t)i + hb_first_id;
	x->shape = shape_of(a, ins[i].tuple_n);
	x->n_operand_ids = ids(a, ins[i].operands, ins, NULL, 0, &x->operand_ids);
	x->n_called_computation_ids = ids(a, ins[i].calls, ins, comps, n_comps,
					  &x->called_computation_ids);
	if (strcmp(x->opcode, "parameter") == 0)
		x->parameter_number = ins[i].num;
	if (strcmp(x->opcode, "get-tuple-element") == 0)
		x->tuple_index = ins[i].num;
	x->metadata = NEW(a, Xla__OpMetadata);
	xla__op_metadata__init(x->metadata);
	x->metadata->op_name = tp_arena_strdup(a, ins[i].comp);
	return x;
}

static void build_module(struct tp_arena *a, const struct spec *sp, Xla__HloModuleProto *mod)
{
	const char *comps[16];
	size_t n = count_ins(sp->ins), nc = comp_names(sp->ins, comps);

	mod->name = (char *)"handmade";
	mod->n_computations = nc;
	mod->computations = tp_arena_calloc(a, nc, sizeof(*mod->computations));
	for (size_t c = 0; c < nc; c++) {
		Xla__HloComputationProto *comp = NEW(a, Xla__HloComputationProto);

		xla__hlo_computation_proto__init(comp);
		comp->name = (char *)comps[c];
		comp->id = 100 + (int64_t)c;
		comp->instructions = tp_arena_calloc(a, n, sizeof(*comp->instructions));
		for (size_t i = 0; i < n; i++)
			if (strcmp(sp->ins[i].comp, comps[c]) == 0) {
				comp->instructions[comp->n_instructions++] = make_ins(a, sp->ins, i, comps, nc);
				comp->root_id = (int64_t)i + hb_first_id; /* the last one */
			}
		mod->computations[c] = comp;
		if (strcmp(comps[c], "main") == 0)
			mod->entry_computation_id = comp->id;
	}
	if (sp->schedule) {
		Xla__HloScheduleProto *s = NEW(a, Xla__HloScheduleProto);
		Xla__HloScheduleProto__SequencesEntry *e = NEW(a, Xla__HloScheduleProto__SequencesEntry);
		Xla__HloScheduleProto__InstructionSequence *q = NEW(a, Xla__HloScheduleProto__InstructionSequence);

		xla__hlo_schedule_proto__init(s);
		xla__hlo_schedule_proto__sequences_entry__init(e);
		xla__hlo_schedule_proto__instruction_sequence__init(q);
		q->n_instruction_ids = ids(a, sp->schedule, sp->ins, NULL, 0, &q->instruction_ids);
		e->key = mod->entry_computation_id;
		e->value = q;
		s->n_sequences = 1;
		s->sequences = tp_arena_calloc(a, 1, sizeof(*s->sequences));
		s->sequences[0] = e;
		mod->schedule = s;
	}
}

static void build_buffers(struct tp_arena *a, const struct spec *sp, Xla__BufferAssignmentProto *ba)
{
	size_t nb = 0, ne = 0;
	Xla__HeapSimulatorTrace *tr = NEW(a, Xla__HeapSimulatorTrace);

	while (sp->bufs[nb].instr)
		nb++;
	ba->logical_buffers = tp_arena_calloc(a, nb, sizeof(*ba->logical_buffers));
	ba->n_buffer_allocations = 3;
	ba->buffer_allocations = tp_arena_calloc(a, 3, sizeof(*ba->buffer_allocations));
	for (int k = 0; k < 3; k++) {
		Xla__BufferAllocationProto *al = NEW(a, Xla__BufferAllocationProto);

		xla__buffer_allocation_proto__init(al);
		al->index = k;
		al->is_entry_computation_parameter = k == 0;
		al->maybe_live_out = k == 1;
		al->assigned = tp_arena_calloc(a, nb, sizeof(*al->assigned));
		ba->buffer_allocations[k] = al;
	}
	for (size_t b = 0; b < nb; b++) {
		Xla__LogicalBufferProto *lb = NEW(a, Xla__LogicalBufferProto);
		Xla__LogicalBufferProto__Location *loc = NEW(a, Xla__LogicalBufferProto__Location);
		Xla__BufferAllocationProto__Assigned *as = NEW(a, Xla__BufferAllocationProto__Assigned);
		Xla__BufferAllocationProto *al = ba->buffer_allocations[sp->bufs[b].alloc];

		xla__logical_buffer_proto__init(lb);
		xla__logical_buffer_proto__location__init(loc);
		xla__buffer_allocation_proto__assigned__init(as);
		loc->instruction_id = id_of(sp->ins, sp->bufs[b].instr);
		if (sp->bufs[b].shape_index >= 0) {
			loc->n_shape_index = 1;
			loc->shape_index = tp_arena_calloc(a, 1, sizeof(int64_t));
			loc->shape_index[0] = sp->bufs[b].shape_index;
		}
		lb->id = 10 + (int64_t)b;
		lb->size = sp->bufs[b].size;
		lb->defined_at = loc;
		ba->logical_buffers[ba->n_logical_buffers++] = lb;
		as->logical_buffer_id = lb->id;
		as->size = lb->size;
		as->offset = al->size;
		al->size += lb->size;
		al->assigned[al->n_assigned++] = as;
	}
	xla__heap_simulator_trace__init(tr);
	while (sp->events && sp->events[ne].kind >= 0)
		ne++;
	tr->events = tp_arena_calloc(a, ne + 1, sizeof(*tr->events));
	for (size_t e = 0; e < ne; e++) {
		Xla__HeapSimulatorTrace__Event *ev = NEW(a, Xla__HeapSimulatorTrace__Event);

		xla__heap_simulator_trace__event__init(ev);
		ev->kind = sp->events[e].kind;
		ev->buffer_id = 10 + sp->events[e].buffer;
		if (ev->kind == 2)
			ev->share_with_canonical_id = 10 + sp->events[e].canonical;
		ev->instruction_name = (char *)sp->bufs[sp->events[e].buffer].instr;
		tr->events[tr->n_events++] = ev;
	}
	ba->n_heap_simulator_traces = 1;
	ba->heap_simulator_traces = tp_arena_calloc(a, 1, sizeof(*ba->heap_simulator_traces));
	ba->heap_simulator_traces[0] = tr;
}

static void build_as(struct built *b, const struct spec *sp, struct spec_style style)
{
	struct tp_mem_options opt = { .max_suggestions = 5 };
	struct tp_error err = { 0 };
	Xla__HloModuleProto *mod;
	Xla__BufferAssignmentProto *ba;

	memset(b, 0, sizeof(*b));
	hb_first_id = style.ids_from_zero ? 0 : 1;
	hb_untyped_tuples = style.untyped_tuples;
	tp_arena_init(&b->arena);
	b->hlo = NEW(&b->arena, Xla__HloProto);
	mod = NEW(&b->arena, Xla__HloModuleProto);
	ba = NEW(&b->arena, Xla__BufferAssignmentProto);
	xla__hlo_proto__init(b->hlo);
	xla__hlo_module_proto__init(mod);
	xla__buffer_assignment_proto__init(ba);
	build_module(&b->arena, sp, mod);
	build_buffers(&b->arena, sp, ba);
	b->hlo->hlo_module = mod;
	b->hlo->buffer_assignment = ba;
	b->module.hlo = b->hlo;
	b->module.path = "handmade";
	b->module.host = -1;
	ck_assert_int_eq(tp_mem_module_analyze(&b->m, &b->module, &opt, &err), TP_OK);
}

static void build(struct built *b, const struct spec *sp)
{
	build_as(b, sp, (struct spec_style){ false, false });
}

static void unbuild(struct built *b)
{
	tp_mem_module_release(&b->m);
	tp_arena_release(&b->arena);
}

static long instr(const struct built *b, const char *name)
{
	long k = tp_hlo_find_name(&b->m.idx, tp_str_make(name, strlen(name)));

	ck_assert_msg(k >= 0, "no instruction %s", name);
	return k;
}

static long position(const struct built *b, const char *name)
{
	return b->m.why.time[instr(b, name)];
}

/* Asserts the answer for buffer number `buf` of the spec: last user,
 * its position and the chain as space-separated names. */
static void expect_why(const struct built *b, int buf, const char *last, long pos,
		       const char *chain)
{
	struct tp_mem_why w;
	long k = tp_i64map_get(&b->m.by_id, 10 + buf);
	char got[512] = "";

	ck_assert_int_ge(k, 0);
	tp_mem_why_buffer(&b->m, k, &w);
	for (size_t i = 0; i < w.n_chain; i++) {
		if (i)
			strcat(got, " ");
		strcat(got, b->m.idx.instrs[w.chain[i].instr].proto->name);
	}
	ck_assert_str_eq(got, chain);
	if (last)
		ck_assert_str_eq(b->m.idx.instrs[w.last_user].proto->name, last);
	else
		ck_assert_int_eq(w.last_user, -1);
	ck_assert_int_eq(w.last_user_position, pos);
	tp_mem_why_clear(&w);
}


#endif
