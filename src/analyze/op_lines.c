/*
 * op_lines.c - one pass over an op line: occurrences and times per op,
 * then self time from nesting. XProf sorts each line by start ascending,
 * then duration descending, and treats an event as nested when it lies
 * fully inside the one below it on the stack (format-facts §7, §11.6);
 * self time = duration - the durations of direct children.
 *
 * Memory: one record per event of the line (24 bytes) in buffers that
 * the thread reuses from line to line and core to core (struct
 * tp_op_bufs), so a multi-GB capture does not fault in fresh memory for
 * every line; a child sum per open event lives on the stack.
 */
#include "ops_internal.h"

#include <stdlib.h>

struct tp_op_rec {
	int64_t start, dur;
	uint32_t op;
};

struct tp_op_open {
	size_t index;        /* record of the open event                */
	int64_t child;       /* durations of its direct children so far */
};

void tp_op_bufs_release(struct tp_op_bufs *b)
{
	free(b->recs);
	free(b->stack);
	b->recs = NULL;
	b->stack = NULL;
	b->cap_recs = b->cap_stack = 0;
}

static int by_start(const void *a, const void *b)
{
	const struct tp_op_rec *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

/* Op lines are written in (raw) start order, and device spans move a few
 * events only (format-facts §11.5): insertion sort with a budget of moves
 * is linear then; past the budget (hostile order), qsort takes over. */
static void sort_records(struct tp_op_rec *r, size_t n)
{
	size_t budget = 8 * n + 64;

	for (size_t i = 1; i < n; i++) {
		struct tp_op_rec x = r[i];
		size_t j = i;

		while (j > 0 && by_start(&r[j - 1], &x) > 0) {
			if (!budget--) {
				r[j] = x;
				qsort(r, n, sizeof(*r), by_start);
				return;
			}
			r[j] = r[j - 1];
			j--;
		}
		r[j] = x;
	}
}

static void push_exec(struct tp_ops *ops, const struct tp_op_rec *r)
{
	ops->execs = tp_xgrow(ops->execs, &ops->cap_execs, ops->n_execs + 1,
			      sizeof(*ops->execs));
	ops->execs[ops->n_execs].op = r->op;
	ops->execs[ops->n_execs].start_ps = r->start;
	ops->execs[ops->n_execs++].dur_ps = r->dur;
}

/* An event leaves the stack: its self time is final. */
static void finish(struct tp_ops *ops, struct tp_ops_core *core,
		   const struct tp_op_rec *r, int64_t child)
{
	struct tp_op *op = &ops->ops[r->op];
	int64_t self = r->dur - child;

	if (self < 0)
		self = 0;
	op->self_ps = tp_sat_add(op->self_ps, self);
	core->self_ps = tp_sat_add(core->self_ps, self);
	if (op->collective) {
		core->collective_ps = tp_sat_add(core->collective_ps, self);
		push_exec(ops, r);
	}
	if (core->n_steps)
		tp_ops_step_add(ops, core, r->start, self, op->collective);
}

static void nest(struct tp_ops *ops, struct tp_ops_core *core,
		 struct tp_op_bufs *b, size_t n)
{
	struct tp_op_rec *r = b->recs;
	size_t depth = 0;

	sort_records(r, n);
	for (size_t i = 0; i < n; i++) {
		int64_t end = tp_sat_add(r[i].start, r[i].dur);

		while (depth) {
			const struct tp_op_open *top = &b->stack[depth - 1];
			const struct tp_op_rec *t = &r[top->index];

			if (end <= tp_sat_add(t->start, t->dur))
				break;
			finish(ops, core, t, top->child);
			depth--;
		}
		if (depth)
			b->stack[depth - 1].child =
				tp_sat_add(b->stack[depth - 1].child, r[i].dur);
		if (depth == b->cap_stack)
			b->stack = tp_xgrow(b->stack, &b->cap_stack, depth + 1,
					    sizeof(*b->stack));
		b->stack[depth].index = i;
		b->stack[depth++].child = 0;
	}
	while (depth) {
		depth--;
		finish(ops, core, &r[b->stack[depth].index], b->stack[depth].child);
	}
}

static void span(struct tp_ops_core *core, int64_t start, int64_t end)
{
	if (!core->has_span || start < core->first_start_ps)
		core->first_start_ps = start;
	if (!core->has_span || end > core->last_end_ps)
		core->last_end_ps = end;
	core->has_span = true;
}

/* A line that opening left unscanned is scanned by this very pass, so
 * its events are read once (see struct tp_decode_opts). The record array
 * is sized by the events framed in the line, known either way; the pass
 * runs to the end so that the scan completes. */
void tp_ops_scan_line(struct tp_op_ctx *c, struct tp_line *ln)
{
	struct tp_ops *ops = c->ops;
	struct tp_ops_core *core = &ops->cores[c->core];
	struct tp_op_bufs *b = c->bufs;
	size_t cap = ln->n_event_fields;
	struct tp_op_rec *r;
	size_t n = 0;
	struct tp_event_iter it;
	struct tp_event ev;

	b->recs = tp_xgrow(b->recs, &b->cap_recs, cap + 1, sizeof(*b->recs));
	r = b->recs;
	if (ln->scanned)
		tp_event_iter_init(&it, &c->host->xs, c->pl, ln);
	else
		tp_event_iter_init_scan(&it, &c->host->xs, c->pl, ln);
	while (tp_event_iter_next(&it, &ev) > 0) {
		uint32_t id = tp_op_resolve_fast(c, &ev);
		struct tp_op *op;

		if (id == TP_OP_NONE)
			continue;
		op = &ops->ops[id];
		core->events++;
		tp_op_add_counts(c, id, &ev);
		if (!ev.timed) {
			op->occurrences += (uint64_t)(ev.num_occurrences > 0 ?
						      ev.num_occurrences : 0);
			continue;
		}
		op->occurrences++;
		op->total_ps = tp_sat_add(op->total_ps, ev.dur_ps);
		if (ev.dur_ps < op->min_ps)
			op->min_ps = ev.dur_ps;
		core->op_ps = tp_sat_add(core->op_ps, ev.dur_ps);
		span(core, ev.start_ps, tp_sat_add(ev.start_ps, ev.dur_ps));
		if (n == cap)
			continue; /* more events than framed: cannot happen */
		r[n].start = ev.start_ps;
		/* a negative duration (hostile input) nests as an instant */
		r[n].dur = ev.dur_ps > 0 ? ev.dur_ps : 0;
		r[n++].op = id;
	}
	nest(ops, core, b, n);
}
