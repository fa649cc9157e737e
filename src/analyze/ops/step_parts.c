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
 * runs is in a step. Then the op pieces, made disjoint by precedence
 * where lines overlap (steps/step_pieces.c), are clipped to each window:
 * compute, collective and copy time; input and idle are the rest, so the
 * parts add up to the duration exactly. Pieces outside every window are
 * the core's outside-steps time.
 *
 * The op pieces: each op line is swept in start order, as it is nested:
 * the innermost open event owns the instant (XProf's self time, where
 * events nest; an event that outlasts its parent owns the instants after
 * the parent's end, so no instant is counted twice). The pieces are kept
 * as runs of one kind (a compute category, collective, copy), adjacent
 * runs of one kind joined, only where a core has several op lines: with
 * one (TPU), each piece goes into its steps as it comes, and nothing is
 * kept (the lines are swept again only when the steps moved to the
 * device clock, which the end of the pass decides).
 */
#include "ops_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- the sweep: a line's op time as owned pieces ---- */

static void attribute(struct tp_op_ctx *c, int64_t start, int64_t end, uint32_t kind);

static void emit(struct tp_op_ctx *c, int64_t start, int64_t end, uint32_t kind)
{
	struct tp_seg *last;

	if (end <= start)
		return;
	if (c->stream_parts && c->late_steps) {
		tp_late_piece(&c->late_pieces, start, end, kind);
		return;
	}
	if (c->stream_parts) {
		attribute(c, start, end, kind);
		return;
	}
	last = c->n_segs ? &c->segs[c->n_segs - 1] : NULL;
	if (last && c->n_segs > c->line_segs0 && last->kind == kind &&
	    last->end == start) {
		last->end = end;
		return;
	}
	if (c->n_segs == c->cap_segs)
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
	if (s->depth == s->cap)
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

static void parts_reset(struct tp_op_ctx *c);

void tp_sweep_line_abandon(struct tp_op_ctx *c)
{
	/* streamed: the one line's parts so far, dropped */
	if (c->stream_parts)
		parts_reset(c);
	if (c->stream_parts && c->late_steps)
		tp_late_pieces_drop(&c->late_pieces);
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
	tp_late_pieces_drop(&c->late_pieces);
	free(c->sweep.open);
	free(c->map_w);
	free(c->step_shift);
	free(c->cat_ps);
	free(c->busy_input);
	c->cat_ps = NULL;
	c->busy_input = NULL;
	c->cap_cat_ps = 0;
	c->step_shift = NULL;
	c->segs = NULL;
	c->sweep.open = NULL;
	c->map_w = NULL;
	c->n_segs = c->cap_segs = c->sweep.cap = c->seg_lines = 0;
}

static int64_t clip(int64_t start, int64_t end, int64_t lo, int64_t hi)
{
	int64_t a = start > lo ? start : lo, b = end < hi ? end : hi;

	return b > a ? tp_sat_sub(b, a) : 0;
}

/* ---- the pieces into the windows, one at a time ---- */

static int64_t *cat_slot_grow(struct tp_op_ctx *c, size_t k, size_t i);

/* A compute category's time in step i: [k * n_steps + i], the rows made
 * as categories appear. Inline: once per piece. */
static inline int64_t *cat_slot(struct tp_op_ctx *c, size_t k, size_t i)
{
	size_t n = c->ops->cores[c->core].n_steps;

	if ((k + 1) * n > c->cap_cat_ps)
		return cat_slot_grow(c, k, i);
	return &c->cat_ps[k * n + i];
}

static int64_t *cat_slot_grow(struct tp_op_ctx *c, size_t k, size_t i)
{
	size_t n = c->ops->cores[c->core].n_steps, old = c->cap_cat_ps;

	c->cat_ps = tp_xgrow(c->cat_ps, &c->cap_cat_ps, (k + 1) * n, sizeof(*c->cat_ps));
	memset(c->cat_ps + old, 0, (c->cap_cat_ps - old) * sizeof(*c->cat_ps));
	return &c->cat_ps[k * n + i];
}

/* The input spans' instants inside [a, b), moved by shift. */
static int64_t input_over(const struct tp_op_ctx *c, int64_t a, int64_t b, int64_t shift)
{
	size_t lo = 0, hi = c->n_input;
	int64_t sum = 0;

	while (lo < hi) {       /* the first span ending after a */
		size_t mid = lo + (hi - lo) / 2;

		if (tp_sat_add(tp_sat_add(c->input[mid].start_ps, shift), c->input[mid].dur_ps) <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < c->n_input; i++) {
		int64_t s = tp_sat_add(c->input[i].start_ps, shift);

		if (s >= b)
			break;
		sum = tp_sat_add(sum, clip(s, tp_sat_add(s, c->input[i].dur_ps), a, b));
	}
	return sum;
}

static int64_t shift_of(const struct tp_op_ctx *c, size_t i)
{
	return c->step_shift ? c->step_shift[i] : 0;
}

/* ps of a piece of this kind into step j (s). Inline: once per piece. */
static inline void add_part(struct tp_op_ctx *c, struct tp_step *s, size_t j,
			    uint32_t kind, int64_t ps)
{
	if (kind == TP_SEG_COLLECTIVE) {
		s->collective_ps = tp_sat_add(s->collective_ps, ps);
	} else if (kind == TP_SEG_COPY) {
		s->copy_ps = tp_sat_add(s->copy_ps, ps);
	} else {
		int64_t *k = cat_slot(c, kind - TP_SEG_COMPUTE, j);

		s->compute_ps = tp_sat_add(s->compute_ps, ps);
		*k = tp_sat_add(*k, ps);
	}
}

/* The usual piece: wholly inside the cursor's step, which the next step
 * does not overlap, and no input spans to weigh: all of it to that step,
 * as the general loop below would add it, and nothing outside. */
static inline bool attribute_within(struct tp_op_ctx *c, int64_t start, int64_t end,
				    uint32_t kind)
{
	struct tp_ops_core *core = &c->ops->cores[c->core];
	struct tp_step *s = tp_ops_core_steps(c->ops, core);
	size_t j = c->step_cursor;
	int64_t ps = tp_sat_sub(end, start);

	if (j >= core->n_steps || c->n_input || start < s[j].start_ps ||
	    end > tp_sat_add(s[j].start_ps, s[j].dur_ps) ||
	    (j + 1 < core->n_steps && s[j + 1].start_ps < end))
		return false;
	add_part(c, &s[j], j, kind, ps);
	return true;
}

/* One piece (pieces come sorted and disjoint) into the steps it
 * overlaps, clipped to each; what no step holds is outside. */
static void attribute(struct tp_op_ctx *c, int64_t start, int64_t end, uint32_t kind)
{
	struct tp_ops_core *core = &c->ops->cores[c->core];
	struct tp_step *s = tp_ops_core_steps(c->ops, core);
	int64_t inside = 0, reach = start;
	size_t j;

	while (c->step_cursor < core->n_steps &&
	       tp_sat_add(s[c->step_cursor].start_ps, s[c->step_cursor].dur_ps) <= start)
		c->step_cursor++;
	if (attribute_within(c, start, end, kind))
		return;
	for (j = c->step_cursor; j < core->n_steps && s[j].start_ps < end; j++) {
		int64_t w_end = tp_sat_add(s[j].start_ps, s[j].dur_ps);
		int64_t lo = s[j].start_ps > start ? s[j].start_ps : start;
		int64_t ps = clip(start, end, s[j].start_ps, w_end);

		if (!ps)
			continue;
		add_part(c, &s[j], j, kind, ps);
		/* busy instants under input: not input (tp_step.input_ps) */
		if (c->n_input)
			c->busy_input[j] = tp_sat_add(c->busy_input[j],
				input_over(c, lo, tp_sat_add(lo, ps), shift_of(c, j)));
		/* the windows' union over the piece, for what lies outside */
		inside = tp_sat_add(inside, clip(reach, end, lo, tp_sat_add(lo, ps)));
		if (tp_sat_add(lo, ps) > reach)
			reach = tp_sat_add(lo, ps);
	}
	core->outside_ps[tp_seg_class(kind)] = tp_sat_add(core->outside_ps[tp_seg_class(kind)],
		tp_sat_sub(tp_sat_sub(end, start), inside));
}

/* The parts so far, dropped: the windows changed, or the one line read
 * as it streamed turned out unsorted. */
static void parts_reset(struct tp_op_ctx *c)
{
	struct tp_ops_core *core = &c->ops->cores[c->core];
	struct tp_step *s = tp_ops_core_steps(c->ops, core);

	for (size_t i = 0; i < core->n_steps; i++)
		s[i].compute_ps = s[i].collective_ps = s[i].copy_ps = 0;
	if (c->cap_cat_ps)
		memset(c->cat_ps, 0, c->cap_cat_ps * sizeof(*c->cat_ps));
	if (c->busy_input)
		memset(c->busy_input, 0, (core->n_steps + 1) * sizeof(*c->busy_input));
	memset(core->outside_ps, 0, sizeof(core->outside_ps));
	c->step_cursor = 0;
}

static void parts_begin(struct tp_op_ctx *c)
{
	size_t n = c->ops->cores[c->core].n_steps;

	free(c->busy_input);
	c->busy_input = c->n_input ? tp_xcalloc(n + 1, sizeof(*c->busy_input)) : NULL;
	parts_reset(c);
}

/* The categories with time in step i, most first (ties by name), into
 * out (room for every category): a handful, sorted by insertion. */
static size_t step_cats(struct tp_op_ctx *c, size_t i, struct tp_step_cat *out)
{
	size_t n = 0;

	for (size_t k = 0; k < c->n_step_cats; k++) {
		struct tp_step_cat x = { c->step_cats[k], *cat_slot(c, k, i) };
		size_t j = n++;

		if (!x.ps) {
			n--;
			continue;
		}
		for (; j > 0 && tp_step_cat_cmp(&out[j - 1], &x) > 0; j--)
			out[j] = out[j - 1];
		out[j] = x;
	}
	return n;
}

/* The core's compute by category over all its steps. */
static void cat_totals(struct tp_op_ctx *c, struct tp_ops_core *core)
{
	core->cat_totals = tp_xcalloc(c->n_step_cats + 1, sizeof(*core->cat_totals));
	for (size_t k = 0; k < c->n_step_cats; k++) {
		struct tp_step_cat *t = &core->cat_totals[core->n_cat_totals];

		*t = (struct tp_step_cat){ c->step_cats[k], 0 };
		for (size_t i = 0; i < core->n_steps; i++)
			t->ps = tp_sat_add(t->ps, *cat_slot(c, k, i));
		core->n_cat_totals += t->ps != 0;
	}
}

/* The steps' categories in one block of the core's, counted first: every
 * step's where asked for or few, else the first step's alone (the
 * steady sums take the totals less the warm-up step). */
static void cats_close(struct tp_op_ctx *c, struct tp_ops_core *core, struct tp_step *s)
{
	size_t total = 0, at = 0, n;

	core->cats_all = (c->filter && c->filter->every_step_cats) ||
			 core->n_steps <= TP_STEP_ROWS_MAX;
	n = core->cats_all ? core->n_steps : core->n_steps > 0;
	cat_totals(c, core);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < c->n_step_cats; k++)
			total += *cat_slot(c, k, i) != 0;
	if (!total)
		return;
	core->cats_block = tp_xmalloc(total * sizeof(*core->cats_block));
	for (size_t i = 0; i < n; i++) {
		s[i].n_cats = (uint32_t)step_cats(c, i, core->cats_block + at);
		s[i].cats = s[i].n_cats ? core->cats_block + at : NULL;
		at += s[i].n_cats;
	}
}

/* Each step's input and idle once every piece is in. */
static void parts_close(struct tp_op_ctx *c, struct tp_step *s, size_t i)
{
	int64_t end = tp_sat_add(s->start_ps, s->dur_ps), parts;

	parts = tp_sat_add(tp_sat_add(s->compute_ps, s->collective_ps), s->copy_ps);
	s->input_ps = c->n_input ? tp_sat_sub(input_over(c, s->start_ps, end, shift_of(c, i)),
					      c->busy_input[i]) : 0;
	s->idle_ps = tp_sat_sub(tp_sat_sub(s->dur_ps, parts), s->input_ps);
}

/* ---- the core's steps: windows, then parts ---- */

void tp_steps_parts_begin(struct tp_op_ctx *c)
{
	struct tp_ops_core *core = &c->ops->cores[c->core];
	size_t lines = 0;

	/* one op line: its pieces go into the steps as they come, none kept
	 * (steps that come after the lines, late_steps: they wait packed,
	 * core_lines.c); several may overlap (GPU streams): kept, resolved
	 * at the end */
	for (size_t l = 0; l < c->pl->n_lines; l++)
		lines += tp_ops_line_used(core->source, &c->pl->lines[l]);
	c->stream_parts = lines <= 1;
	/* the windows as they will be if the clocks agree (else the lines
	 * are swept again, tp_steps_place) */
	if (core->step_source == TP_STEPS_INFERRED)
		tp_steps_to_next_start(c->ops, core);
	parts_begin(c);
}

bool tp_steps_place(struct tp_op_ctx *c)
{
	struct tp_ops *ops = c->ops;
	struct tp_ops_core *core = &ops->cores[c->core];
	bool again = false;

	core->clock = core->device_clock_events ? TP_CLOCK_DEVICE : TP_CLOCK_TIMELINE;
	if (c->map_steps && core->device_clock_events) {
		tp_steps_map_windows(c);
		again = c->map.moved || c->map.dropped;
	} else if (c->map_steps) {
		free(c->map.runs);
	}
	/* the map gave the runs back as they are: each to the next again */
	if (c->map_steps && core->step_source == TP_STEPS_INFERRED)
		tp_steps_to_next_start(ops, core);
	if (c->stream_parts && c->late_steps) {
		struct tp_late_cursor cur = { 0, 0 };
		int64_t start, end;
		uint32_t kind;

		while (tp_late_piece_next(&c->late_pieces, &cur, &start, &end, &kind))
			attribute(c, start, end, kind);
		tp_late_pieces_drop(&c->late_pieces);
	}
	if (again && c->stream_parts) {
		parts_begin(c);
		return true;
	}
	if (!c->stream_parts) {
		parts_begin(c);
		if (c->seg_lines > 1 || !tp_segs_disjoint(c->segs, c->n_segs))
			c->n_segs = tp_segs_resolve(&c->segs, c->n_segs, &c->cap_segs);
		for (size_t j = 0; j < c->n_segs; j++)
			attribute(c, c->segs[j].start, c->segs[j].end, c->segs[j].kind);
	}
	return false;
}

void tp_steps_close(struct tp_op_ctx *c)
{
	struct tp_ops_core *core = &c->ops->cores[c->core];
	struct tp_step *s = tp_ops_core_steps(c->ops, core);

	cats_close(c, core, s);
	for (size_t i = 0; i < core->n_steps; i++) {
		parts_close(c, &s[i], i);
		/* XProf's device time spans both steps and ops (§7) */
		if (core->step_source == TP_STEPS_LINE)
			tp_ops_core_span(core, s[i].start_ps, tp_sat_add(s[i].start_ps, s[i].dur_ps));
	}
}
