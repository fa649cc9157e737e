/*
 * step_map.c - step windows on the timeline moved to their ops' device
 * clock (ops.h, struct tp_step_map; docs/ops.md, "One clock").
 *
 * A TPU's step markers (XLA Modules runs, a Steps line) carry no device
 * times; its ops do. The ops that lie in a marker's timeline window
 * (none crosses its run's edge) give the two clocks' difference at the
 * first op's start and at the last op's end; the window moves by them,
 * so its margins around its ops are the timeline's. The same code serves
 * `ops` (step_parts.c) and `trace` (step_track.c), so both draw one span.
 */
#include "tpuprof/analyze/ops.h"

#include <stdlib.h>
#include <string.h>

void tp_step_map_init(struct tp_step_map *m, struct tp_step_run *w, size_t n)
{
	memset(m, 0, sizeof(*m));
	m->w = w;
	m->n = n;
	m->runs = tp_xcalloc(n + 1, sizeof(*m->runs));
}

/* The window holding t on the timeline, or SIZE_MAX; ops come nearly in
 * order, so the last window found is tried first. */
static size_t window_at(struct tp_step_map *m, int64_t t)
{
	size_t lo = 0, hi = m->n;
	const struct tp_step_run *c = m->n ? &m->w[m->cursor] : NULL;

	if (c && t >= c->start_ps && t < tp_sat_add(c->start_ps, c->dur_ps))
		return m->cursor;
	while (lo < hi) {       /* the last window starting at or before t */
		size_t mid = lo + (hi - lo) / 2;

		if (m->w[mid].start_ps <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || t >= tp_sat_add(m->w[lo - 1].start_ps, m->w[lo - 1].dur_ps))
		return SIZE_MAX;
	return m->cursor = lo - 1;
}

void tp_step_map_op(struct tp_step_map *m, int64_t line_ps, int64_t start_ps,
		    int64_t dur_ps)
{
	size_t i = window_at(m, line_ps);
	struct tp_run_ops *r;
	/* how long the op lasts on the timeline is not what is measured: its
	 * device duration stands in (the clocks' difference at its end is
	 * the one at its start) */
	int64_t line_end = tp_sat_add(line_ps, dur_ps > 0 ? dur_ps : 0);

	if (i == SIZE_MAX)
		return;
	r = &m->runs[i];
	if (!r->n || line_ps < r->first_line) {
		r->first_line = line_ps;
		r->first_dev = start_ps;
	}
	if (!r->n || line_end > r->last_line) {
		r->last_line = line_end;
		r->last_dev = tp_sat_add(start_ps, dur_ps > 0 ? dur_ps : 0);
	}
	if (!r->n || tp_sat_add(start_ps, dur_ps > 0 ? dur_ps : 0) > r->dev_end)
		r->dev_end = tp_sat_add(start_ps, dur_ps > 0 ? dur_ps : 0);
	r->n++;
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v;
}

/* Where the two clocks differ at a window's ops by at most the tolerance
 * of its duration (a few events' device times are a little off,
 * format-facts §11.5), its markers are on both clocks. */
static bool clocks_agree(const struct tp_run_ops *r, int64_t dur)
{
	double tol = TP_DRIFT_TOLERANCE * (double)dur;

	return (double)abs64(tp_sat_sub(r->first_dev, r->first_line)) <= tol &&
	       (double)abs64(tp_sat_sub(r->last_dev, r->last_line)) <= tol;
}

static void note_drift(struct tp_step_map *m, const struct tp_run_ops *r)
{
	int64_t line = tp_sat_sub(r->last_line, r->first_line);
	int64_t dev = tp_sat_sub(r->last_dev, r->first_dev);
	double q;

	if (dev <= 0)
		return;
	q = (double)line / (double)dev;
	if (!m->has_drift || q < m->drift_lo)
		m->drift_lo = q;
	if (!m->has_drift || q > m->drift_hi)
		m->drift_hi = q;
	m->has_drift = true;
}

static int by_start(const void *a, const void *b)
{
	const struct tp_step_run *x = a, *y = b;

	if (x->start_ps != y->start_ps)
		return x->start_ps < y->start_ps ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

size_t tp_step_map_finish(struct tp_step_map *m)
{
	size_t kept = 0, last = SIZE_MAX;   /* the kept window of the last run */
	int64_t last_start = 0, last_end = 0;

	/* one clock for all of a core's windows: all move, or none */
	for (size_t i = 0; i < m->n; i++)
		m->moved |= m->runs[i].n && !clocks_agree(&m->runs[i], m->w[i].dur_ps);
	for (size_t i = 0; i < m->n; i++) {
		const struct tp_run_ops *r = &m->runs[i];
		struct tp_step_run w = m->w[i];
		int64_t end = tp_sat_add(w.start_ps, w.dur_ps);

		if (!r->n)
			continue;
		note_drift(m, r);
		if (m->moved) {
			w.start_ps = tp_sat_add(w.start_ps, tp_sat_sub(r->first_dev, r->first_line));
			end = tp_sat_add(end, tp_sat_sub(r->last_dev, r->last_line));
			w.dur_ps = end > w.start_ps ? tp_sat_sub(end, w.start_ps) : 0;
		}
		if (last == SIZE_MAX || m->w[i].start_ps >= last_start) {
			last = kept;
			last_start = m->w[i].start_ps;
			last_end = r->dev_end;
		}
		m->w[kept++] = w;
	}
	/* The last run's window ends where the host put its end on the
	 * timeline, which squeezes or stretches an op against the device:
	 * moved by its last op's start, it could end before that op does
	 * (45 ms early on the v6e capture's TPU:3, whose last copy lasts
	 * 137 ms on the timeline and 182 on the device). Nothing follows it
	 * to run to: it ends no earlier than its ops. */
	if (m->moved && m->last_to_op && last != SIZE_MAX &&
	    last_end > tp_sat_add(m->w[last].start_ps, m->w[last].dur_ps))
		m->w[last].dur_ps = tp_sat_sub(last_end, m->w[last].start_ps);
	m->dropped = m->n - kept;
	if (kept > 1)
		qsort(m->w, kept, sizeof(*m->w), by_start);
	free(m->runs);
	m->runs = NULL;
	m->n = kept;
	return kept;
}

void tp_step_runs_to_next_start(struct tp_step_run *w, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (w[i + 1].start_ps > w[i].start_ps)
			w[i].dur_ps = tp_sat_sub(w[i + 1].start_ps, w[i].start_ps);
}
