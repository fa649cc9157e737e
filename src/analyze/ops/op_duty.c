/*
 * op_duty.c - what a TPU core's op lines say beyond its ops, read from
 * every event of those lines, op or not (XProf drops an event without a
 * program id from its op table, not from these figures):
 *
 * - XProf's duty cycle (ConstructDutyCycleTracker): busy = the union of
 *   the on-duty events ("XLA Ops" events whose metadata's hlo_category
 *   is infeed, outfeed, host send/recv or megacore fusion are off duty;
 *   every "Sparse Core Ops" event is on duty); idle = the span of every
 *   op event and of the module lines' events, less busy.
 * - the barrier-cores advice's time (XProf's event time fraction):
 *   barrier events starting inside a step, except XProf's dummy ones of
 *   0 and 1250 ps.
 * - a SparseCore core's module windows: with a "Sparse Core Modules"
 *   line, its ops count only wholly inside the modules that carry both
 *   offload_core_id and tc_offload_start_id (XProf's SparseCore op
 *   table), and their time is its device time.
 */
#include "ops_internal.h"

#include <stdlib.h>
#include <string.h>

enum { META_SEEN = 1, META_OFF_DUTY = 2, META_BARRIER = 4 };

struct span2 { int64_t start, end; };

/* Busy blocks kept open to events that come out of order (a few do:
 * device times move them, format-facts §11.5): the memory of the duty
 * cycle is this many blocks, not one per event. */
#define DUTY_LAG 256

struct tp_op_duty {
	uint8_t *meta;            /* per event_meta: META_* flags         */
	bool sc_ops;              /* the line read is "Sparse Core Ops"   */
	bool open, has_span;
	struct span2 cur;         /* the busy block being merged          */
	int64_t first, last;      /* span of every op event               */
	/* the latest closed busy blocks, by start, at most DUTY_LAG: an
	 * older one leaves into busy (a line's events come nearly sorted,
	 * format-facts §11.5, so no later event reaches back past it) */
	struct span2 ring[2 * DUTY_LAG]; /* the kept ones: ring[head..] */
	size_t head, n;
	int64_t busy, flushed;    /* busy time flushed, and up to where   */
	bool has_flushed;
	struct span2 *windows;    /* SparseCore modules, by start         */
	size_t n_windows, cap_windows;
};

/* "barrier-cores", "BarrierCores", "sync-barrier.2": any case */
static bool contains_barrier(struct tp_str s)
{
	static const char word[] = "barrier";

	for (size_t i = 0; s.ptr && i + sizeof(word) - 1 <= s.len; i++) {
		size_t k = 0;

		while (k < sizeof(word) - 1 && (s.ptr[i + k] | 0x20) == word[k])
			k++;
		if (k == sizeof(word) - 1)
			return true;
	}
	return false;
}

bool tp_op_is_barrier(struct tp_str category, struct tp_str name)
{
	return contains_barrier(category) || contains_barrier(name);
}

/* tsl's IsOffDutyOp */
static bool off_duty(struct tp_str cat)
{
	static const char *const cats[] = {
		"infeed", "outfeed", "host send", "host send-done", "host recv",
		"host recv-done", "megacore fusion",
	};
	for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
		if (tp_str_eq(cat, cats[i]))
			return true;
	return false;
}

static uint8_t meta_flags(struct tp_op_ctx *c, const struct tp_event_meta *em)
{
	uint8_t *f = &c->duty->meta[em - c->pl->event_meta];
	const struct tp_stat *s;
	struct tp_str cat = TP_STR_NULL;

	if (*f)
		return *f;
	s = tp_stats_find(c->pl, em->stats, em->n_stats, TP_SN_HLO_CATEGORY);
	if (s)
		tp_stat_str(c->pl, s, &cat);
	*f = META_SEEN;
	if (off_duty(cat))
		*f |= META_OFF_DUTY;
	if (tp_op_is_barrier(cat, em->name) || contains_barrier(em->display_name))
		*f |= META_BARRIER;
	return *f;
}

static int by_start(const void *a, const void *b)
{
	const struct span2 *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static int64_t stat_id(const struct tp_plane *pl, const char *name, bool *has)
{
	for (size_t i = 0; i < pl->n_stat_meta; i++)
		if (tp_str_eq(pl->stat_meta[i].name, name)) {
			*has = true;
			return pl->stat_meta[i].id;
		}
	*has = false;
	return 0;
}

/* The plane's "Sparse Core Modules" events that carry both offload ids. */
static void read_windows(struct tp_op_ctx *c, const struct tp_line *ln)
{
	struct tp_op_duty *d = c->duty;
	struct tp_ops_core *core = &c->ops->cores[c->core];
	bool has_core, has_start;
	int64_t core_id = stat_id(c->pl, "offload_core_id", &has_core);
	int64_t start_id = stat_id(c->pl, "tc_offload_start_id", &has_start);
	struct tp_event_iter it;
	struct tp_event ev;
	int64_t v;

	core->has_module_time = true;
	tp_event_iter_init(&it, &c->host->xs, c->pl, ln);
	while (has_core && has_start && tp_event_iter_next(&it, &ev) > 0) {
		int64_t dur = ev.dur_ps > 0 ? ev.dur_ps : 0;

		if (!tp_ops_event_stat_id(&c->host->xs, &ev, core_id, &v) ||
		    !tp_ops_event_stat_id(&c->host->xs, &ev, start_id, &v))
			continue;
		d->windows = tp_xgrow(d->windows, &d->cap_windows, d->n_windows + 1,
				      sizeof(*d->windows));
		d->windows[d->n_windows++] = (struct span2){ ev.start_ps,
							     tp_sat_add(ev.start_ps, dur) };
		core->module_ps = tp_sat_add(core->module_ps, dur);
	}
	if (d->n_windows > 1)
		qsort(d->windows, d->n_windows, sizeof(*d->windows), by_start);
}

void tp_op_duty_start(struct tp_op_ctx *c)
{
	struct tp_ops_core *core = &c->ops->cores[c->core];

	core->is_sparse_core = c->pl->kind == TP_PLANE_TPU_SPARSECORE;
	if (core->source != TP_OPSRC_TPU)
		return;
	c->duty = tp_xcalloc(1, sizeof(*c->duty));
	c->duty->meta = tp_xcalloc(c->pl->n_event_meta + 1, 1);
	if (!core->is_sparse_core)
		return;
	for (size_t l = 0; l < c->pl->n_lines; l++)
		if (tp_str_eq(c->pl->lines[l].name, "Sparse Core Modules")) {
			read_windows(c, &c->pl->lines[l]);
			break;
		}
}

void tp_op_duty_line(struct tp_op_ctx *c, const struct tp_line *ln)
{
	if (c->duty)
		c->duty->sc_ops = tp_str_eq(ln->name, "Sparse Core Ops");
}

bool tp_op_duty_windows(const struct tp_op_ctx *c)
{
	return c->duty && c->ops->cores[c->core].has_module_time;
}

bool tp_op_duty_counts(const struct tp_op_ctx *c, int64_t t, int64_t dur)
{
	const struct tp_op_duty *d = c->duty;
	size_t lo = 0, hi;

	if (!d || !c->ops->cores[c->core].has_module_time)
		return true;
	/* the last window starting at or before t */
	hi = d->n_windows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->windows[mid].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* whole inside: XProf leaves out an op crossing a module's edge */
	return lo && tp_sat_add(t, dur > 0 ? dur : 0) <= d->windows[lo - 1].end;
}

/* The oldest kept block into busy: the part past what is flushed. */
static void flush_oldest(struct tp_op_duty *d)
{
	struct span2 b = d->ring[d->head];

	if (d->has_flushed && b.start < d->flushed)
		b.start = d->flushed;
	if (b.end > b.start)
		d->busy = tp_sat_add(d->busy, tp_sat_sub(b.end, b.start));
	if (!d->has_flushed || b.end > d->flushed)
		d->flushed = b.end;
	d->has_flushed = true;
	/* no move per flush: the kept ones slide to the front once every
	 * DUTY_LAG flushes (close_block), not once per event */
	d->head++;
	d->n--;
}

/* A closed block into the kept ones, by start, merged with those it
 * touches. */
static void close_block(struct tp_op_duty *d)
{
	struct span2 b = d->cur, *blocks;
	size_t i;

	if (!d->open)
		return;
	d->open = false;
	if (d->n == DUTY_LAG)
		flush_oldest(d);
	if (d->head + d->n == 2 * DUTY_LAG) {
		memmove(d->ring, d->ring + d->head, d->n * sizeof(*d->ring));
		d->head = 0;
	}
	blocks = d->ring + d->head;
	/* the usual block: after the last kept one, apart from it */
	if (d->n == 0 || blocks[d->n - 1].end < b.start) {
		blocks[d->n++] = b;
		return;
	}
	for (i = d->n; i > 0 && blocks[i - 1].start > b.start; i--)
		;
	memmove(blocks + i + 1, blocks + i, (d->n - i) * sizeof(*blocks));
	blocks[i] = b;
	d->n++;
	/* merge around i: the one before may reach into it, it may reach
	 * into those after */
	if (i > 0 && blocks[i - 1].end >= blocks[i].start)
		i--;
	while (i + 1 < d->n && blocks[i].end >= blocks[i + 1].start) {
		if (blocks[i + 1].end > blocks[i].end)
			blocks[i].end = blocks[i + 1].end;
		memmove(blocks + i + 1, blocks + i + 2, (d->n - i - 2) * sizeof(*blocks));
		d->n--;
	}
}

static void barrier(struct tp_op_ctx *c, int64_t start, int64_t dur)
{
	struct tp_ops_core *core = &c->ops->cores[c->core];

	/* XProf's dummy barrier-cores events */
	if (dur <= 0 || dur == 1250)
		return;
	if (core->n_steps && tp_ops_step_at(c->ops, core, start) != SIZE_MAX)
		core->barrier_ps = tp_sat_add(core->barrier_ps, dur);
}

/* One event into the duty cycle and barrier time; inline: the bulk
 * loop below calls it once per event. */
static inline void duty_event(struct tp_op_ctx *c, struct tp_op_duty *d, uint8_t f,
			      int64_t start, int64_t dur)
{
	int64_t end = tp_sat_add(start, dur > 0 ? dur : 0);

	if (!d->has_span || start < d->first)
		d->first = start;
	if (!d->has_span || end > d->last)
		d->last = end;
	d->has_span = true;
	if (f & META_BARRIER)
		barrier(c, start, dur);
	if ((f & META_OFF_DUTY) && !d->sc_ops)
		return;
	/* lines come sorted: a block grows while events overlap it */
	if (d->open && start >= d->cur.start && start <= d->cur.end) {
		if (end > d->cur.end)
			d->cur.end = end;
		return;
	}
	close_block(d);
	d->cur = (struct span2){ start, end };
	d->open = true;
}

void tp_op_duty_event(struct tp_op_ctx *c, const struct tp_event_meta *em,
		      int64_t start, int64_t dur)
{
	if (c->duty)
		duty_event(c, c->duty, em ? meta_flags(c, em) : META_SEEN, start, dur);
}

void tp_op_duty_batch(struct tp_op_ctx *c, const struct tp_event_batch *b, size_t n)
{
	struct tp_op_duty *d = c->duty;

	if (!d)
		return;
	for (size_t i = 0; i < n; i++) {
		uint8_t f = d->meta[b->meta[i]];

		if (!f)
			f = meta_flags(c, &c->pl->event_meta[b->meta[i]]);
		duty_event(c, d, f, b->start_ps[i], b->dur_ps[i]);
	}
}

/* The span of every op event and of the module lines' events. */
static void module_span(struct tp_op_ctx *c)
{
	struct tp_op_duty *d = c->duty;

	for (size_t l = 0; l < c->pl->n_lines; l++) {
		const struct tp_line *ln = &c->pl->lines[l];

		if (!ln->has_span || (!tp_str_eq(ln->name, "XLA Modules") &&
				      !tp_str_eq(ln->name, "Sparse Core Modules")))
			continue;
		if (!d->has_span || ln->first_start_ps < d->first)
			d->first = ln->first_start_ps;
		if (!d->has_span || ln->last_end_ps > d->last)
			d->last = ln->last_end_ps;
		d->has_span = true;
	}
}

void tp_op_duty_finish(struct tp_op_ctx *c)
{
	struct tp_op_duty *d = c->duty;
	struct tp_ops_core *core = &c->ops->cores[c->core];
	int64_t busy;

	if (!d)
		return;
	close_block(d);
	module_span(c);
	while (d->n)
		flush_oldest(d);
	busy = d->busy;
	core->has_duty = d->has_span;
	core->duty_busy_ps = busy;
	core->duty_idle_ps = d->has_span && tp_sat_sub(d->last, d->first) > busy ?
			     tp_sat_sub(tp_sat_sub(d->last, d->first), busy) : 0;
	free(d->meta);
	free(d->windows);
	free(d);
	c->duty = NULL;
}
