/*
 * op_lines.c - one pass over an op line: occurrences and times per op,
 * then self time from nesting. XProf sorts each line by start ascending,
 * then duration descending, and treats an event as nested when it lies
 * fully inside the one below it on the stack (format-facts §7, §11.6);
 * self time = duration - the durations of direct children.
 *
 * Lines nearly always arrive sorted: they are nested as they are read,
 * with a stack of open events and no record per event; the line's self
 * times (per op, and per step and kind) are kept apart and added when the
 * line ends. An event out of order makes the line take the general way:
 * what was kept apart is dropped, its events read again into records (24
 * bytes each, in a buffer the thread reuses), sorted and nested.
 */
#include "ops_internal.h"

#include <stdlib.h>
#include <string.h>

struct tp_op_rec {
	int64_t start, dur;
	uint32_t op;
};

struct tp_op_open {
	size_t index;        /* record of the open event                */
	int64_t child;       /* durations of its direct children so far */
};

struct tp_op_open_rec {
	struct tp_op_rec rec; /* the open event                          */
	int64_t child;        /* durations of its direct children so far */
};

void tp_op_bufs_release(struct tp_op_bufs *b)
{
	free(b->recs);
	free(b->stack);
	free(b->open);
	free(b->self);
	free(b->batch);
	memset(b, 0, sizeof(*b));
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
static void finish(struct tp_op_ctx *c, const struct tp_op_rec *r, int64_t child)
{
	struct tp_ops *ops = c->ops;
	struct tp_ops_core *core = &ops->cores[c->core];
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
}

static void nest(struct tp_op_ctx *c, struct tp_op_bufs *b, size_t n)
{
	struct tp_op_rec *r = b->recs;
	size_t depth = 0;

	sort_records(r, n);
	for (size_t i = 0; i < n; i++) {
		int64_t end = tp_sat_add(r[i].start, r[i].dur);

		if (tp_ops_sweeping(c))
			tp_sweep_push(c, r[i].start, r[i].dur,
				      tp_seg_kind(c, &c->ops->ops[r[i].op]));

		while (depth) {
			const struct tp_op_open *top = &b->stack[depth - 1];
			const struct tp_op_rec *t = &r[top->index];

			if (end <= tp_sat_add(t->start, t->dur))
				break;
			finish(c, t, top->child);
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
		finish(c, &r[b->stack[depth].index], b->stack[depth].child);
	}
	tp_sweep_line_end(c);
}

/* A line nested as it is read (see the top of this file). */
struct stream {
	bool on;              /* still sorted so far                  */
	bool have_prev;
	struct tp_op_rec prev;
	size_t depth;
	size_t execs0;        /* executions before the line            */
	int64_t core_self, collective;
};

static void stream_start(struct stream *st, struct tp_op_ctx *c,
			 const struct tp_ops *ops, const struct tp_ops_core *core)
{
	memset(st, 0, sizeof(*st));
	st->on = true;
	st->execs0 = ops->n_execs;
	tp_sweep_line_start(c);
}

static void grow_self(struct tp_op_bufs *b, size_t local)
{
	size_t old = b->cap_self;

	b->self = tp_xgrow(b->self, &b->cap_self, local + 1, sizeof(*b->self));
	memset(b->self + old, 0, (b->cap_self - old) * sizeof(*b->self));
}

/* An event leaves the stack: its self time goes to the line's sums.
 * Inline: once per event. */
static inline void stream_finish(struct tp_op_ctx *c, struct stream *st,
				 const struct tp_op_open_rec *o)
{
	struct tp_ops *ops = c->ops;
	struct tp_op_bufs *b = c->bufs;
	size_t local = o->rec.op - ops->cores[c->core].first_op;
	int64_t self = o->rec.dur - o->child;

	if (self < 0)
		self = 0;
	if (local >= b->cap_self)
		grow_self(b, local);
	b->self[local] = tp_sat_add(b->self[local], self);
	st->core_self = tp_sat_add(st->core_self, self);
	if (ops->ops[o->rec.op].collective) {
		st->collective = tp_sat_add(st->collective, self);
		push_exec(ops, &o->rec);
	}
}

static inline void stream_push(struct tp_op_ctx *c, struct stream *st,
			       const struct tp_op_rec *r)
{
	struct tp_op_bufs *b = c->bufs;
	int64_t end = tp_sat_add(r->start, r->dur);

	if (st->have_prev && by_start(&st->prev, r) > 0) {
		st->on = false; /* out of order: the general way */
		return;
	}
	st->have_prev = true;
	st->prev = *r;
	if (tp_ops_sweeping(c))
		tp_sweep_push(c, r->start, r->dur, tp_seg_kind(c, &c->ops->ops[r->op]));
	while (st->depth) {
		const struct tp_op_open_rec *top = &b->open[st->depth - 1];

		if (end <= tp_sat_add(top->rec.start, top->rec.dur))
			break;
		stream_finish(c, st, top);
		st->depth--;
	}
	if (st->depth)
		b->open[st->depth - 1].child =
			tp_sat_add(b->open[st->depth - 1].child, r->dur);
	if (st->depth == b->cap_open)
		b->open = tp_xgrow(b->open, &b->cap_open, st->depth + 1,
				   sizeof(*b->open));
	b->open[st->depth].rec = *r;
	b->open[st->depth++].child = 0;
}

/* The sorted line's end: the last open events close, and its self times
 * join the ops' (sums of non-negative times: order does not matter). */
static void stream_end(struct tp_op_ctx *c, struct stream *st)
{
	struct tp_ops *ops = c->ops;
	struct tp_ops_core *core = &ops->cores[c->core];
	struct tp_op_bufs *b = c->bufs;

	while (st->depth) {
		st->depth--;
		stream_finish(c, st, &b->open[st->depth]);
	}
	for (size_t i = 0; i < b->cap_self && core->first_op + i < ops->n_ops; i++) {
		if (!b->self[i])
			continue;
		ops->ops[core->first_op + i].self_ps =
			tp_sat_add(ops->ops[core->first_op + i].self_ps, b->self[i]);
		b->self[i] = 0;
	}
	core->self_ps = tp_sat_add(core->self_ps, st->core_self);
	core->collective_ps = tp_sat_add(core->collective_ps, st->collective);
	tp_sweep_line_end(c);
}

static void stream_abandon(struct tp_op_ctx *c, struct stream *st)
{
	struct tp_op_bufs *b = c->bufs;

	c->ops->n_execs = st->execs0;
	if (b->cap_self)
		memset(b->self, 0, b->cap_self * sizeof(*b->self));
	tp_sweep_line_abandon(c);
	st->depth = 0;
}

static inline struct tp_op_rec record_of(int64_t start, int64_t dur, uint32_t id)
{
	struct tp_op_rec r;

	r.start = start;
	/* a negative duration (hostile input) nests as an instant */
	r.dur = dur > 0 ? dur : 0;
	r.op = id;
	return r;
}

/* Every timed op event of a scanned line into records (c->bufs). */
static size_t read_records(struct tp_op_ctx *c, const struct tp_line *ln)
{
	struct tp_op_bufs *b = c->bufs;
	size_t n = 0, cap = ln->n_event_fields;
	struct tp_event_iter it;
	struct tp_event ev;

	b->recs = tp_xgrow(b->recs, &b->cap_recs, cap + 1, sizeof(*b->recs));
	tp_event_iter_init(&it, &c->host->xs, c->pl, ln);
	while (n < cap && tp_event_iter_next(&it, &ev) > 0) {
		uint32_t id;

		if (!ev.timed || !tp_op_duty_counts(c, ev.start_ps, ev.dur_ps))
			continue;
		if ((id = tp_op_resolve_fast(c, &ev)) != TP_OP_NONE)
			b->recs[n++] = record_of(ev.start_ps, ev.dur_ps, id);
	}
	return n;
}

/* The general way: the line's records sorted and nested. The line is
 * scanned already; its counts are kept. */
static void nest_records(struct tp_op_ctx *c, struct tp_line *ln)
{
	size_t n = read_records(c, ln);

	tp_sweep_line_start(c);
	nest(c, c->bufs, n);
}

void tp_ops_sweep_again(struct tp_op_ctx *c)
{
	const struct tp_ops_core *core = &c->ops->cores[c->core];

	for (size_t l = 0; l < c->pl->n_lines; l++) {
		const struct tp_line *ln = &c->pl->lines[l];
		struct tp_op_rec *r = c->bufs->recs;
		size_t n;

		if (!tp_ops_line_used(core->source, ln))
			continue;
		n = read_records(c, ln);
		r = c->bufs->recs;
		sort_records(r, n);
		tp_sweep_line_start(c);
		for (size_t i = 0; i < n; i++)
			tp_sweep_push(c, r[i].start, r[i].dur, tp_seg_kind(c, &c->ops->ops[r[i].op]));
		tp_sweep_line_end(c);
	}
}

/* What one pass over a line keeps between events. */
struct line_pass {
	struct tp_op_ctx *c;
	struct tp_ops_core *core;
	struct stream st;
};

/* One timed occurrence of op id: its times, the core's span, nesting.
 * Inline: once per event. */
static inline void add_timed(struct line_pass *lp, uint32_t id, int64_t start,
			     int64_t dur, int64_t line_ps, bool device_clock)
{
	struct tp_op *op = &lp->c->ops->ops[id];
	struct tp_op_rec r = record_of(start, dur, id);

	op->occurrences++;
	op->total_ps = tp_sat_add(op->total_ps, dur);
	if (dur < op->min_ps)
		op->min_ps = dur;
	lp->core->op_ps = tp_sat_add(lp->core->op_ps, dur);
	tp_ops_core_span(lp->core, start, tp_sat_add(start, dur));
	tp_steps_note_op(lp->c, line_ps, start, dur, device_clock);
	if (lp->st.on)
		stream_push(lp->c, &lp->st, &r);
}

/* An aggregated event (num_occurrences, no offset): its duration is the
 * time of all its occurrences, max(1, n) of them (XProf). Placed at its
 * line's start, as XProf places it, for the core's span only. */
static void add_aggregated(struct line_pass *lp, uint32_t id, const struct tp_event *ev)
{
	struct tp_op *op = &lp->c->ops->ops[id];
	int64_t dur = ev->dur_ps > 0 ? ev->dur_ps : 0;

	op->occurrences += (uint64_t)(ev->num_occurrences > 1 ? ev->num_occurrences : 1);
	op->total_ps = tp_sat_add(op->total_ps, dur);
	op->self_ps = tp_sat_add(op->self_ps, dur);
	if (dur < op->min_ps)
		op->min_ps = dur;
	lp->core->op_ps = tp_sat_add(lp->core->op_ps, dur);
	lp->core->self_ps = tp_sat_add(lp->core->self_ps, dur);
	if (op->collective)
		lp->core->collective_ps = tp_sat_add(lp->core->collective_ps, dur);
	tp_ops_core_span(lp->core, ev->start_ps, tp_sat_add(ev->start_ps, dur));
}

/* Any event, read one at a time. */
static void add_event(struct line_pass *lp, const struct tp_event *ev)
{
	uint32_t id;
	int64_t g;

	/* a group id as the group pass reads it (any value: it may be one) */
	if (lp->c->spec_groups && !lp->c->spec_seen)
		lp->c->spec_seen = tp_ops_event_stat_id(&lp->c->host->xs, ev, lp->c->spec_gid, &g);

	tp_op_duty_event(lp->c, ev->meta, ev->start_ps, ev->dur_ps);
	/* counted or not before resolving: an op made is listed */
	if (!tp_op_duty_counts(lp->c, ev->start_ps, ev->dur_ps) ||
	    (id = tp_op_resolve_fast(lp->c, ev)) == TP_OP_NONE)
		return;
	lp->core->events++;
	tp_op_add_counts(lp->c, id, ev);
	if (!ev->timed) {
		add_aggregated(lp, id, ev);
		return;
	}
	add_timed(lp, id, ev->start_ps, ev->dur_ps, ev->line_start_ps, ev->device_clock);
}

/* Plain events in bulk (tp_event_iter_batch_keyed): timed, one
 * occurrence, metadata known, no flops or bytes of their own. */
static void add_batch(struct line_pass *lp, const struct tp_event_batch *b,
		      size_t n)
{
	struct tp_op_ctx *c = lp->c;

	bool windows = tp_op_duty_windows(c);

	for (size_t i = 0; c->spec_groups && !c->spec_seen && i < n; i++)
		c->spec_seen = b->kind[0][i] != TP_STAT_NONE;
	tp_op_duty_batch(c, b, n);
	for (size_t i = 0; i < n; i++) {
		uint32_t id;

		if ((windows && !tp_op_duty_counts(c, b->start_ps[i], b->dur_ps[i])) ||
		    (id = tp_op_resolve_meta(c, b->meta[i])) == TP_OP_NONE)
			continue;
		lp->core->events++;
		c->ops->ops[id].meta_occ++;
		add_timed(lp, id, b->start_ps[i], b->dur_ps[i], b->line_ps[i],
			  b->device_clock);
	}
}

/* GPU kernels in bulk (tp_event_iter_batch_keyed): as add_batch, the op
 * from the stats kept (op_gpu.c). */
static void add_gpu_batch(struct line_pass *lp, const struct tp_event_batch *b,
			  size_t n)
{
	struct tp_op_ctx *c = lp->c;

	tp_op_resolve_gpu_ops(c, b, n);
	for (size_t i = 0; i < n; i++) {
		uint32_t id = c->bufs->gpu_ops[i];

		if (id == TP_OP_NONE)
			continue;
		lp->core->events++;
		c->ops->ops[id].meta_occ++;
		add_timed(lp, id, b->start_ps[i], b->dur_ps[i], b->line_ps[i],
			  b->device_clock);
	}
}

/* One pass over the line: counts and times per op, and nesting as it
 * goes while the line is sorted. A line that opening left unscanned is
 * scanned by this very pass, so its events are read once (see struct
 * tp_decode_opts); the pass runs to the end so that the scan completes.
 * Lines are read in bulk; GPU kernels name their ops in stats, which
 * the bulk reader keeps (events it cannot read so come one at a time). */
void tp_ops_scan_line(struct tp_op_ctx *c, struct tp_line *ln)
{
	struct tp_ops *ops = c->ops;
	struct tp_op_bufs *b = c->bufs;
	struct line_pass lp = { c, &ops->cores[c->core], { 0 } };
	bool gpu = lp.core->source == TP_OPSRC_GPU;
	bool bulk = gpu ? tp_op_gpu_keys(c) : true;
	struct tp_batch_keys count_keys;
	struct tp_event_iter it;
	struct tp_event ev;

	tp_op_count_keys(c->pl, &count_keys);
	if (c->spec_groups) /* slot 0: count_keys keep nothing else */
		tp_batch_keep(&count_keys, 0, c->spec_gid, true);
	tp_op_duty_line(c, ln);
	stream_start(&lp.st, c, ops, lp.core);
	if (gpu)
		tp_op_programs_line(c, ln);
	if (bulk && !b->batch)
		b->batch = tp_xmalloc(sizeof(*b->batch));
	if (ln->scanned)
		tp_event_iter_init(&it, &c->host->xs, c->pl, ln);
	else
		tp_event_iter_init_scan(&it, &c->host->xs, c->pl, ln);
	for (;;) {
		size_t n = bulk ? tp_event_iter_batch_keyed(&it, gpu ? &c->gpu_keys :
							    &count_keys, b->batch) : 0;

		if (n) {
			if (gpu) {
				add_gpu_batch(&lp, b->batch, n);
				tp_op_programs_batch(c, b->batch, n);
			} else {
				add_batch(&lp, b->batch, n);
			}
			continue;
		}
		if (tp_event_iter_next(&it, &ev) <= 0)
			break;
		add_event(&lp, &ev);
		if (gpu)
			tp_op_programs_event(c, &ev);
	}
	if (lp.st.on) {
		stream_end(c, &lp.st);
	} else {
		stream_abandon(c, &lp.st);
		nest_records(c, ln);
	}
}
