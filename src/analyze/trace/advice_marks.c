/*
 * advice_marks.c - the advice's findings (docs/ops.md, "Advice") as
 * instants on the timeline: each fired finding that has a time (e.g. the
 * straggler's worst step, at its start on its slowest core) is an
 * instant on an "Advice (derived)" track of the plane it was measured
 * on, named after its rule, with `rule`, `measured`, `threshold` and
 * `advice` (the finding's line, as `report` prints it).
 */
#include "trace_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/analyze/advice.h"

/* The ops analysis the advice is judged on also gives every core's
 * steps: taken for the steps tracks, then the analysis goes (its op
 * tables are not needed during the walk). */
void tl_advice_prepare(struct tl *t)
{
	struct tp_ops_filter filter = { 0 }; /* every core: rules compare them */
	struct tp_error err = { 0 };
	struct tp_ops ops;

	t->advice = NULL;
	if (t->opts->no_derived)
		return;
	/* advice is an extra: a capture ops cannot read has none (and its
	 * steps tracks are read from the lines) */
	if (tp_ops_build(&ops, t->cap, &filter, &err) != TP_OK)
		return;
	t->advice = tp_xcalloc(1, sizeof(*t->advice));
	tp_advice_build(t->advice, t->cap, &ops, NULL);
	tl_steps_take(t, &ops);
	tp_ops_release(&ops);
}

/* tp_trace_judge's result: the advice and the steps it was judged with,
 * moved out of the struct tl that judged them. */
struct tp_trace_judged {
	struct tp_advice *advice;
	bool steps_known;
	const struct tl_core_steps *core_steps;
	size_t n_core_steps;
};

enum tp_err tp_trace_judge(struct tp_capture *cap,
			   const struct tp_trace_opts *opts,
			   struct tp_trace_judged **out, struct tp_error *err)
{
	struct tl t;
	struct tp_trace_judged *j;
	enum tp_err rc;

	*out = NULL;
	memset(&t, 0, sizeof(t));
	t.cap = cap;
	t.opts = opts;
	tl_advice_prepare(&t);   /* its ops pass scans the op lines */
	j = tp_xcalloc(1, sizeof(*j));
	*j = (struct tp_trace_judged){ t.advice, t.steps_known, t.core_steps,
				       t.n_core_steps };
	if ((rc = tp_capture_finish_scan(cap, err)) != TP_OK) {
		tp_trace_judged_free(j);
		return rc;
	}
	*out = j;
	return TP_OK;
}

void tp_trace_judged_free(struct tp_trace_judged *j)
{
	struct tl t;

	if (!j)
		return;
	memset(&t, 0, sizeof(t));
	t.advice = j->advice;
	t.steps_known = j->steps_known;
	t.core_steps = j->core_steps;
	t.n_core_steps = j->n_core_steps;
	tl_advice_release(&t);
	free(j);
}

void tl_advice_borrow(struct tl *t, const struct tp_trace_judged *j)
{
	t->advice = j->advice;
	t->steps_known = j->steps_known;
	t->core_steps = j->core_steps;
	t->n_core_steps = j->n_core_steps;
}

void tl_advice_release(struct tl *t)
{
	if (t->advice) {
		tp_advice_release(t->advice);
		free(t->advice);
	}
	t->advice = NULL;
	tl_steps_release(t);
}

static bool here(const struct tl *t, const struct tp_advice_finding *f)
{
	return f->verdict == TP_ADVICE_FIRED && f->has_time && f->host &&
	       strcmp(f->host, t->cap->hosts[t->host].name) == 0 &&
	       f->plane.len == t->pl->name.len &&
	       memcmp(f->plane.ptr, t->pl->name.ptr, f->plane.len) == 0;
}

static bool in_window(const struct tl *t, int64_t at_ps)
{
	return !(t->opts->has_from && at_ps < t->opts->from_ps) &&
	       !(t->opts->has_to && at_ps > t->opts->to_ps);
}

/* As tl_new_track and tl_in_window (timeline.c), which this file does
 * not call: the walk calls it, and calls between files go one way. */
static uint64_t new_track(struct tl *t)
{
	uint64_t uuid = t->next_uuid++;

	t->w->track(t->w->ctx, uuid, t->process, t->pid, t->next_tid++, "Advice (derived)",
		    t->track_rank++, false);
	t->st->tracks++;
	return uuid;
}

void tl_advice_track(struct tl *t)
{
	const struct tp_advice *a = t->advice;
	uint64_t track = 0;

	for (size_t i = 0; a && i < a->n; i++) {
		const struct tp_advice_finding *f = &a->v[i];
		int64_t at = tp_sat_add(f->time_ps, t->shift_ps[t->host]);
		struct tp_trace_arg args[5] = {
			{ .name = { "rule", 4 }, .kind = TP_ARG_STR, .stable = true,
			  .v.s = { f->rule, strlen(f->rule) } },
			{ .name = { "measured", 8 }, .kind = TP_ARG_DOUBLE, .v.d = f->measured },
			{ .name = { "threshold", 9 }, .kind = TP_ARG_DOUBLE, .v.d = f->threshold },
			{ .name = { "advice", 6 }, .kind = TP_ARG_STR, .v.s = { f->text, strlen(f->text) } },
			{ .name = { "step", 4 }, .kind = TP_ARG_INT, .v.i = (int64_t)f->step },
		};
		struct tp_trace_slice s = { .args = args, .n_args = f->has_step ? 5 : 4 };

		if (!here(t, f) || !in_window(t, at))
			continue;
		if (!track)
			track = new_track(t);
		/* pooled: writers intern names by pointer */
		s.name = tp_strpool_intern(&t->pool, tp_str_make(f->rule, strlen(f->rule)));
		t->w->instant(t->w->ctx, track, tl_ns(at), &s);
		t->st->advice_marks++;
	}
}
