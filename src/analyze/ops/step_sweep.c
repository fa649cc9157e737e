/*
 * step_sweep.c - a core's op time as owned pieces: which kind of op owns
 * each instant (docs/ops.md, "A step is a partition").
 *
 * Each op line is swept in start order, as it is nested: the innermost
 * open event owns the instant (XProf's self time, where events nest; an
 * event that outlasts its parent owns the instants after the parent's
 * end, so no instant is counted twice). The pieces are kept as runs of
 * one kind (a compute category, collective, copy), adjacent runs of one
 * kind joined. Lines of one core may overlap (GPU streams): their pieces
 * are then resolved by precedence, compute over collective over copy
 * (step_parts.c), so each instant counts once.
 */
#include "ops_internal.h"

#include <stdlib.h>
#include <string.h>

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
	free(c->segs);
	free(c->sweep.open);
	free(c->map_w);
	c->segs = NULL;
	c->sweep.open = NULL;
	c->map_w = NULL;
	c->n_segs = c->cap_segs = c->sweep.cap = c->seg_lines = 0;
}
