/*
 * step_parts.c - each step of a core cut into its parts on one clock
 * (docs/ops.md, "One clock" and "A step is a partition").
 *
 * The steps' windows move to the ops' clock first: a core whose ops carry
 * device time (device_offset_ps) but whose step markers do not (a TPU's
 * "XLA Modules" runs, a "Steps" line on the timeline) takes each step's
 * device span from the ops that lie in its timeline window (none crosses
 * its run's edge). An inferred step then runs from the start of one run
 * to the start of the next, the last to its own end, so the time between
 * runs is in a step. Then the op pieces (step_sweep.c), made disjoint by
 * precedence where lines overlap, are clipped to each window: compute,
 * collective and copy time; idle is the rest, so the parts add up to the
 * duration exactly. Pieces outside every window are the core's
 * outside-steps time. *
 * The op pieces: each op line is swept in start order, as it is nested:
 * the innermost open event owns the instant (XProf's self time, where
 * events nest; an event that outlasts its parent owns the instants after
 * the parent's end, so no instant is counted twice). The pieces are kept
 * as runs of one kind (a compute category, collective, copy), adjacent
 * runs of one kind joined.
 */
#include "ops_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- the sweep: a line's op time as owned pieces ---- */

static void emit(struct tp_op_ctx *c, int64_t start, int64_t end, uint32_t kind)
{
	struct tp_seg *last = c->n_segs ? &c->segs[c->n_segs - 1] : NULL;

	if (end <= start)
		return;
	if (last && c->n_segs > c->line_segs0 && last->kind == kind &&
	    last->end == start) {
		last->end = end;
		return;
	}
	c->segs = tp_xgrow(c->segs, &c->cap_segs, c->n_segs + 1, sizeof(*c->segs));
	c->segs[c->n_segs++] = (struct tp_seg){ start, end, kind };
}

/* Time runs on to t: the open events own it, innermost first; those that
 * end by t leave the stack. */
static void advance(struct tp_op_ctx *c, int64_t t)
{
	struct tp_sweep *s = &c->sweep;

	while (s->depth) {
		struct tp_sweep_open *top = &s->open[s->depth - 1];
		int64_t until = top->end < t ? top->end : t;

		if (top->end <= s->t) {  /* ended under an event that outlasted it */
			s->depth--;
			continue;
		}
		emit(c, s->t, until, top->kind);
		s->t = until;
		if (top->end > t)
			break;
		s->depth--;
	}
	if (t > s->t)
		s->t = t;
}

uint32_t tp_seg_kind(struct tp_op_ctx *c, struct tp_op *op)
{
	if (op->collective)
		return TP_SEG_COLLECTIVE;
	if (op->copy)
		return TP_SEG_COPY;
	return TP_SEG_COMPUTE + (uint32_t)tp_ops_step_cat(c, op);
}

void tp_sweep_line_start(struct tp_op_ctx *c)
{
	c->sweep.depth = 0;
	c->sweep.started = false;
	c->line_segs0 = c->n_segs;
}

void tp_sweep_push(struct tp_op_ctx *c, int64_t start, int64_t dur, uint32_t kind)
{
	struct tp_sweep *s = &c->sweep;

	if (!s->started) {
		s->started = true;
		s->t = start;
	}
	advance(c, start);
	s->open = tp_xgrow(s->open, &s->cap, s->depth + 1, sizeof(*s->open));
	s->open[s->depth++] = (struct tp_sweep_open){ tp_sat_add(start, dur > 0 ? dur : 0),
						      kind };
}

void tp_sweep_line_end(struct tp_op_ctx *c)
{
	if (c->sweep.started)
		advance(c, INT64_MAX);
	c->sweep.depth = 0;
	if (c->n_segs > c->line_segs0)
		c->seg_lines++;
}

void tp_sweep_line_abandon(struct tp_op_ctx *c)
{
	c->n_segs = c->line_segs0;
	c->sweep.depth = 0;
	c->sweep.started = false;
}

void tp_sweep_release(struct tp_op_ctx *c)
{
	free(c->step_cats);
	c->step_cats = NULL;
	c->n_step_cats = c->cap_step_cats = 0;
	free(c->segs);
	free(c->sweep.open);
	free(c->map_w);
	free(c->step_shift);
	c->step_shift = NULL;
	c->segs = NULL;
	c->sweep.open = NULL;
	c->map_w = NULL;
	c->n_segs = c->cap_segs = c->sweep.cap = c->seg_lines = 0;
}

/* ---- the windows on the ops' clock (step_map.c) ---- */

void tp_steps_note_op(struct tp_op_ctx *c, int64_t line_ps, int64_t start, int64_t dur,
		      bool device_clock)
{
	struct tp_ops_core *core = &c->ops->cores[c->core];

	if (device_clock)
		core->device_clock_events++;
	else
		core->timeline_events++;
	if (c->map_steps && device_clock)
		tp_step_map_op(&c->map, line_ps, start, dur);
}

void tp_steps_map_begin(struct tp_op_ctx *c, bool markers_on_timeline)
{
	const struct tp_ops_core *core = &c->ops->cores[c->core];
	const struct tp_step *s = c->ops->steps + core->first_step;

	c->map_steps = markers_on_timeline && core->n_steps;
	if (!c->map_steps)
		return;
	c->map_w = tp_xmalloc(core->n_steps * sizeof(*c->map_w));
	for (size_t i = 0; i < core->n_steps; i++)
		c->map_w[i] = (struct tp_step_run){ s[i].start_ps, s[i].dur_ps, (int64_t)i };
	tp_step_map_init(&c->map, c->map_w, core->n_steps);
}

/* The steps as the map left them: moved, those without ops dropped. */
static void map_windows(struct tp_op_ctx *c)
{
	struct tp_ops *ops = c->ops;
	struct tp_ops_core *core = &ops->cores[c->core];
	struct tp_step *s = ops->steps + core->first_step;
	size_t n = tp_step_map_finish(&c->map);
	struct tp_step *old = tp_xmalloc((core->n_steps + 1) * sizeof(*old));
	bool *kept = tp_xcalloc(core->n_steps + 1, sizeof(*kept));

	memcpy(old, s, core->n_steps * sizeof(*old));
	c->step_shift = tp_xcalloc(n + 1, sizeof(*c->step_shift));
	for (size_t i = 0; i < n; i++) {
		c->step_shift[i] = tp_sat_sub(c->map_w[i].start_ps, old[c->map_w[i].id].start_ps);
		s[i] = old[c->map_w[i].id];
		s[i].start_ps = c->map_w[i].start_ps;
		s[i].dur_ps = c->map_w[i].dur_ps;
		kept[c->map_w[i].id] = true;
	}
	for (size_t i = 0; i < core->n_steps; i++)
		if (!kept[i])
			free(old[i].cats);
	free(old);
	free(kept);
	core->clock_mapped = c->map.moved;
	core->steps_without_ops = c->map.dropped;
	core->has_drift = c->map.has_drift;
	core->drift_lo = c->map.drift_lo;
	core->drift_hi = c->map.drift_hi;
	ops->n_steps -= core->n_steps - n;
	core->n_steps = n;
}

/* An inferred step runs to the start of the next run. */
static void to_next_start(struct tp_ops *ops, struct tp_ops_core *core)
{
	struct tp_step *s = ops->steps + core->first_step;

	for (size_t i = 0; i + 1 < core->n_steps; i++)
		if (s[i + 1].start_ps > s[i].start_ps)
			s[i].dur_ps = tp_sat_sub(s[i + 1].start_ps, s[i].start_ps);
}

/* ---- overlapping lines: pieces made disjoint by precedence ---- */

static int seg_class(uint32_t kind)
{
	/* compute over collective over copy */
	return kind >= TP_SEG_COMPUTE ? 0 : kind == TP_SEG_COLLECTIVE ? 1 : 2;
}

static int by_class_start(const void *a, const void *b)
{
	const struct tp_seg *x = a, *y = b;
	int cx = seg_class(x->kind), cy = seg_class(y->kind);

	if (cx != cy)
		return cx - cy;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

static int by_start(const void *a, const void *b)
{
	const struct tp_seg *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static bool disjoint_sorted(const struct tp_seg *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i].start < v[i - 1].end)
			return false;
	return true;
}

struct seg_list {
	struct tp_seg *v;
	size_t n, cap;
};

static void list_push(struct seg_list *l, int64_t start, int64_t end, uint32_t kind)
{
	if (end <= start)
		return;
	if (l->n && l->v[l->n - 1].kind == kind && l->v[l->n - 1].end == start) {
		l->v[l->n - 1].end = end;
		return;
	}
	l->v = tp_xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = (struct tp_seg){ start, end, kind };
}

/* [start, end) less the sorted disjoint covered list, into out; *k is a
 * cursor into covered that only moves on (starts come in order). */
static void subtract(struct seg_list *out, const struct seg_list *covered, size_t *k,
		     int64_t start, int64_t end, uint32_t kind)
{
	while (*k < covered->n && covered->v[*k].end <= start)
		(*k)++;
	for (size_t j = *k; j < covered->n && covered->v[j].start < end; j++) {
		list_push(out, start, covered->v[j].start, kind);
		if (covered->v[j].end > start)
			start = covered->v[j].end;
	}
	list_push(out, start, end, kind);
}

/* The union of a and b, both sorted and disjoint (kinds dropped). */
static struct seg_list merge_union(const struct seg_list *a, const struct seg_list *b)
{
	struct seg_list u = { 0 };
	size_t i = 0, j = 0;

	while (i < a->n || j < b->n) {
		const struct tp_seg *x = j == b->n || (i < a->n && a->v[i].start <= b->v[j].start) ?
					 &a->v[i++] : &b->v[j++];

		if (u.n && x->start <= u.v[u.n - 1].end) {
			if (x->end > u.v[u.n - 1].end)
				u.v[u.n - 1].end = x->end;
		} else {
			u.v = tp_xgrow(u.v, &u.cap, u.n + 1, sizeof(*u.v));
			u.v[u.n++] = (struct tp_seg){ x->start, x->end, 0 };
		}
	}
	return u;
}

/* c->segs made sorted and disjoint: each class's pieces less the time of
 * the classes above it; within a class the earlier start keeps it. */
static void resolve_overlaps(struct tp_op_ctx *c)
{
	struct seg_list out = { 0 }, covered = { 0 };
	size_t i = 0;

	qsort(c->segs, c->n_segs, sizeof(*c->segs), by_class_start);
	while (i < c->n_segs) {
		int cls = seg_class(c->segs[i].kind);
		struct seg_list mine = { 0 }, u;
		size_t k = 0;
		int64_t reach = INT64_MIN;

		for (; i < c->n_segs && seg_class(c->segs[i].kind) == cls; i++) {
			int64_t start = c->segs[i].start > reach ? c->segs[i].start : reach;

			if (c->segs[i].end <= start)
				continue;
			subtract(&mine, &covered, &k, start, c->segs[i].end, c->segs[i].kind);
			reach = c->segs[i].end;
		}
		for (size_t j = 0; j < mine.n; j++)
			list_push(&out, mine.v[j].start, mine.v[j].end, mine.v[j].kind);
		u = merge_union(&covered, &mine);
		free(covered.v);
		free(mine.v);
		covered = u;
	}
	free(covered.v);
	qsort(out.v, out.n, sizeof(*out.v), by_start);
	free(c->segs);
	c->segs = out.v;
	c->n_segs = out.n;
	c->cap_segs = out.cap;
}

static int64_t clip(const struct tp_seg *p, int64_t lo, int64_t hi)
{
	int64_t a = p->start > lo ? p->start : lo, b = p->end < hi ? p->end : hi;

	return b > a ? tp_sat_sub(b, a) : 0;
}

/* ---- input time: idle the host's input events overlap (steps/step_input.c) ---- */

/* The instants of [lo, hi) that input spans (moved by shift) cover and
 * the pieces do not. */
static int64_t input_in(const struct tp_op_ctx *c, int64_t lo, int64_t hi, int64_t shift)
{
	const struct tp_step_run *in = c->input;
	int64_t sum = 0;
	size_t j = 0;

	for (size_t i = 0; i < c->n_input; i++) {
		int64_t a = tp_sat_add(in[i].start_ps, shift);
		int64_t b = tp_sat_add(a, in[i].dur_ps);

		if (b <= lo)
			continue;
		if (a >= hi)
			break;
		a = a > lo ? a : lo;
		b = b < hi ? b : hi;
		sum = tp_sat_add(sum, tp_sat_sub(b, a));
		/* less the op pieces inside [a, b) (pieces sorted, disjoint) */
		while (j < c->n_segs && c->segs[j].end <= a)
			j++;
		for (size_t k = j; k < c->n_segs && c->segs[k].start < b; k++)
			sum = tp_sat_sub(sum, clip(&c->segs[k], a, b));
	}
	return sum;
}

/* ---- the pieces into the windows ---- */

static void add_part(struct tp_step *s, int64_t *cat_ps, uint32_t kind, int64_t ps)
{
	if (kind == TP_SEG_COLLECTIVE) {
		s->collective_ps = tp_sat_add(s->collective_ps, ps);
	} else if (kind == TP_SEG_COPY) {
		s->copy_ps = tp_sat_add(s->copy_ps, ps);
	} else {
		s->compute_ps = tp_sat_add(s->compute_ps, ps);
		cat_ps[kind - TP_SEG_COMPUTE] = tp_sat_add(cat_ps[kind - TP_SEG_COMPUTE], ps);
	}
}

static void set_cats(struct tp_op_ctx *c, struct tp_step *s, int64_t *cat_ps)
{
	for (size_t k = 0; k < c->n_step_cats; k++) {
		if (!cat_ps[k])
			continue;
		s->cats = tp_xrealloc(s->cats, (s->n_cats + 1) * sizeof(*s->cats));
		s->cats[s->n_cats++] = (struct tp_step_cat){ c->step_cats[k], cat_ps[k] };
		cat_ps[k] = 0;
	}
	if (s->n_cats > 1)
		qsort(s->cats, s->n_cats, sizeof(*s->cats), tp_step_cat_cmp);
}

/* The first piece that ends after t (pieces sorted, disjoint: their ends
 * ascend too). */
static size_t first_ending_after(const struct tp_seg *v, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void fill_step(struct tp_op_ctx *c, struct tp_step *s, int64_t *cat_ps, int64_t shift)
{
	int64_t end = tp_sat_add(s->start_ps, s->dur_ps), parts;

	s->compute_ps = s->collective_ps = s->copy_ps = 0;
	for (size_t j = first_ending_after(c->segs, c->n_segs, s->start_ps);
	     j < c->n_segs && c->segs[j].start < end; j++)
		add_part(s, cat_ps, c->segs[j].kind, clip(&c->segs[j], s->start_ps, end));
	set_cats(c, s, cat_ps);
	parts = tp_sat_add(tp_sat_add(s->compute_ps, s->collective_ps), s->copy_ps);
	s->input_ps = c->n_input ? input_in(c, s->start_ps, end, shift) : 0;
	s->idle_ps = tp_sat_sub(tp_sat_sub(s->dur_ps, parts), s->input_ps);
}

/* Pieces outside the union of the windows (windows sorted by start). */
static void outside_steps(struct tp_op_ctx *c, struct tp_ops_core *core,
			  const struct tp_step *s)
{
	struct seg_list u = { 0 };
	size_t k = 0;

	for (size_t i = 0; i < core->n_steps; i++) {
		int64_t end = tp_sat_add(s[i].start_ps, s[i].dur_ps);

		if (u.n && s[i].start_ps <= u.v[u.n - 1].end) {
			if (end > u.v[u.n - 1].end)
				u.v[u.n - 1].end = end;
			continue;
		}
		u.v = tp_xgrow(u.v, &u.cap, u.n + 1, sizeof(*u.v));
		u.v[u.n++] = (struct tp_seg){ s[i].start_ps, end, 0 };
	}
	for (size_t j = 0; j < c->n_segs; j++) {
		const struct tp_seg *p = &c->segs[j];
		int64_t inside = 0;
		int cls = seg_class(p->kind);

		while (k < u.n && u.v[k].end <= p->start)
			k++;
		for (size_t w = k; w < u.n && u.v[w].start < p->end; w++)
			inside = tp_sat_add(inside, clip(&u.v[w], p->start, p->end));
		core->outside_ps[cls] = tp_sat_add(core->outside_ps[cls],
			tp_sat_sub(tp_sat_sub(p->end, p->start), inside));
	}
	free(u.v);
}

static void extend_span(struct tp_ops_core *core, const struct tp_step *s)
{
	int64_t end = tp_sat_add(s->start_ps, s->dur_ps);

	if (!core->has_span || s->start_ps < core->first_start_ps)
		core->first_start_ps = s->start_ps;
	if (!core->has_span || end > core->last_end_ps)
		core->last_end_ps = end;
	core->has_span = true;
}

void tp_steps_finish(struct tp_op_ctx *c)
{
	struct tp_ops *ops = c->ops;
	struct tp_ops_core *core = &ops->cores[c->core];
	struct tp_step *s;
	int64_t *cat_ps;

	core->clock = core->device_clock_events ? TP_CLOCK_DEVICE : TP_CLOCK_TIMELINE;
	if (c->map_steps && core->device_clock_events)
		map_windows(c);
	else if (c->map_steps)
		free(c->map.runs);
	s = ops->steps + core->first_step;
	if (core->step_source == TP_STEPS_INFERRED)
		to_next_start(ops, core);
	if (c->seg_lines > 1 || !disjoint_sorted(c->segs, c->n_segs))
		resolve_overlaps(c);
	cat_ps = tp_xcalloc(c->n_step_cats + 1, sizeof(*cat_ps));
	for (size_t i = 0; i < core->n_steps; i++) {
		fill_step(c, &s[i], cat_ps, c->step_shift ? c->step_shift[i] : 0);
		/* XProf's device time spans both steps and ops (§7) */
		if (core->step_source == TP_STEPS_LINE)
			extend_span(core, &s[i]);
	}
	free(cat_ps);
	if (core->n_steps)
		outside_steps(c, core, s);
}
