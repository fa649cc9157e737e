/*
 * core_lines.c - which lines of a device plane hold its ops, and the
 * steps that come from those lines themselves where the plane has no
 * "Steps" line: events grouped by their `group_id` stat (as XProf groups
 * TF captures: its grouping pass writes the step's id on every event of
 * the step, format-facts §2.4); the GPU steps inferred from kernels are
 * gpu_runs.c's. Also the line reader both use, and the op pieces kept
 * packed for steps that come after the op pass (tp_op_ctx.late_steps).
 */
#include "ops_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/i64map.h"

static bool is_xla_op_line(const struct tp_line *ln)
{
	return tp_str_eq(ln->name, "XLA Ops") ||
	       tp_str_eq(ln->name, "Sparse Core Ops");
}

static bool is_tf_op_line(const struct tp_line *ln)
{
	return tp_str_eq(ln->name, "TensorFlow Ops") ||
	       tp_str_eq(ln->name, "Framework Ops");
}

static bool is_kernel_line(const struct tp_line *ln)
{
	return tp_str_has_prefix(ln->name, "Stream #");
}

bool tp_ops_plane_source(const struct tp_plane *pl, enum tp_op_source *src)
{
	bool xla = false, tf = false, kern = false;

	for (size_t l = 0; l < pl->n_lines; l++) {
		const struct tp_line *ln = &pl->lines[l];

		/* n_event_fields: non-zero when the line has events, also before
		 * a deferred line is scanned */
		if (!ln->n_event_fields)
			continue;
		xla |= is_xla_op_line(ln);
		tf |= is_tf_op_line(ln);
		kern |= is_kernel_line(ln);
	}
	if (xla && pl->kind != TP_PLANE_GPU)
		*src = TP_OPSRC_TPU;
	else if (kern && pl->kind == TP_PLANE_GPU && pl->known_stat[TP_SN_HLO_OP])
		*src = TP_OPSRC_GPU;
	else if (tf)
		*src = TP_OPSRC_TF;
	else
		return false;
	return true;
}

bool tp_ops_line_used(enum tp_op_source src, const struct tp_line *ln)
{
	switch (src) {
	case TP_OPSRC_TPU:
		return is_xla_op_line(ln);
	case TP_OPSRC_GPU:
		return is_kernel_line(ln);
	case TP_OPSRC_TF:
		return is_tf_op_line(ln);
	}
	return false;
}

int tp_step_run_cmp(const void *a, const void *b)
{
	const struct tp_step_run *x = a, *y = b;

	if (x->start_ps != y->start_ps)
		return x->start_ps < y->start_ps ? -1 : 1;
	if (x->dur_ps != y->dur_ps)
		return x->dur_ps > y->dur_ps ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

void tp_step_run_push(struct tp_step_run **v, size_t *n, size_t *cap,
		     int64_t start, int64_t dur, int64_t id)
{
	*v = tp_xgrow(*v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = (struct tp_step_run){ start, dur > 0 ? dur : 0, id };
}

/* The stat with metadata id `id` in a list. */
static const struct tp_stat *stat_by_id(const struct tp_stat *v, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].metadata_id == id)
			return &v[i];
	return NULL;
}

bool tp_ops_event_stat_id(const struct tp_xspace *xs, const struct tp_event *ev,
			  int64_t id, int64_t *out)
{
	const struct tp_stat *m;
	struct tp_stat_iter si;
	struct tp_stat st;

	if (ev->other_stats) {
		tp_stat_iter_init(&si, xs, ev);
		while (tp_stat_iter_next(&si, &st) > 0)
			if (st.metadata_id == id)
				return tp_stat_int(&st, out);
	}
	m = ev->meta ? stat_by_id(ev->meta->stats, ev->meta->n_stats, id) : NULL;
	return m && tp_stat_int(m, out);
}

void tp_ops_read_lines(const struct tp_line_reader *r, enum tp_op_source src)
{
	struct tp_event_batch *b = tp_xmalloc(sizeof(*b));

	for (size_t l = 0; l < r->pl->n_lines; l++) {
		struct tp_event_iter it;
		struct tp_event ev;

		if (!tp_ops_line_used(src, &r->pl->lines[l]))
			continue;
		tp_event_iter_init_read(&it, r->xs, r->pl, &r->pl->lines[l]);
		for (;;) {
			size_t n = tp_event_iter_batch_keyed(&it, &r->keys, b);

			if (n) {
				r->batch(r->ctx, b, n);
				continue;
			}
			if (tp_event_iter_next(&it, &ev) <= 0)
				break;
			if (ev.timed)
				r->event(r->ctx, &ev);
		}
	}
	free(b);
}

bool tp_batch_keep(struct tp_batch_keys *keys, unsigned k, int64_t id, bool on)
{
	for (unsigned i = 0; i < k; i++)
		if (on && keys->keep_on[i] && keys->keep[i] == id)
			return false;
	keys->keep_on[k] = on;
	keys->keep[k] = id;
	return true;
}

struct groups {
	const struct tp_plane *pl;
	const struct tp_xspace *xs;
	int64_t gid;
	/* per event metadata: the group id its stats give, if any (looked
	 * up once, not per event) */
	bool *meta_has;
	int64_t *meta_gid;
	struct tp_i64map map;
	struct tp_step_run *v;
	size_t n, cap;
};

/* One event of group g: the group spans its first event's start to its
 * last event's end. XProf leaves an event without one outside every
 * step; a negative id is no step either. */
static void group_add(struct groups *g, int64_t id, int64_t start, int64_t dur)
{
	int64_t end = tp_sat_add(start, dur > 0 ? dur : 0), old_end;
	long k;

	if (id < 0)
		return;
	if ((k = tp_i64map_get(&g->map, id)) < 0) {
		tp_i64map_put(&g->map, id, (long)g->n);
		tp_step_run_push(&g->v, &g->n, &g->cap, start, dur, id);
		return;
	}
	old_end = tp_sat_add(g->v[k].start_ps, g->v[k].dur_ps);
	if (start < g->v[k].start_ps)
		g->v[k].start_ps = start;
	g->v[k].dur_ps = tp_sat_sub(end > old_end ? end : old_end, g->v[k].start_ps);
}

static void group_batch(void *ctx, const struct tp_event_batch *b, size_t n)
{
	struct groups *g = ctx;

	for (size_t i = 0; i < n; i++) {
		uint8_t kind = b->kind[0][i];

		if (kind == TP_STAT_INT64 || kind == TP_STAT_UINT64)
			group_add(g, (int64_t)b->value[0][i], b->start_ps[i], b->dur_ps[i]);
		else if (kind == TP_STAT_NONE && g->meta_has[b->meta[i]])
			group_add(g, g->meta_gid[b->meta[i]], b->start_ps[i], b->dur_ps[i]);
	}
}

static void group_event(void *ctx, const struct tp_event *ev)
{
	struct groups *g = ctx;
	int64_t v;

	if (tp_ops_event_stat_id(g->xs, ev, g->gid, &v))
		group_add(g, v, ev->start_ps, ev->dur_ps);
}

size_t tp_ops_group_runs(const struct tp_xspace *xs, const struct tp_plane *pl,
			 enum tp_op_source src, struct tp_step_run **out)
{
	struct groups g = { .pl = pl, .xs = xs };
	struct tp_line_reader r = { .xs = xs, .pl = pl, .batch = group_batch,
				 .event = group_event, .ctx = &g };
	bool has = false;

	*out = NULL;
	for (size_t i = 0; i < pl->n_stat_meta && !has; i++)
		if (tp_str_eq(pl->stat_meta[i].name, "group_id")) {
			g.gid = pl->stat_meta[i].id;
			has = true;
		}
	if (!has)
		return 0;
	tp_batch_keep(&r.keys, 0, g.gid, true);
	g.meta_has = tp_xcalloc(pl->n_event_meta + 1, sizeof(*g.meta_has));
	g.meta_gid = tp_xcalloc(pl->n_event_meta + 1, sizeof(*g.meta_gid));
	for (size_t i = 0; i < pl->n_event_meta; i++) {
		const struct tp_event_meta *em = &pl->event_meta[i];
		const struct tp_stat *st = stat_by_id(em->stats, em->n_stats, g.gid);

		g.meta_has[i] = st && tp_stat_int(st, &g.meta_gid[i]);
	}
	tp_i64map_init(&g.map, 64);
	tp_ops_read_lines(&r, src);
	tp_i64map_release(&g.map);
	free(g.meta_has);
	free(g.meta_gid);
	if (g.n > 1)
		qsort(g.v, g.n, sizeof(*g.v), tp_step_run_cmp);
	*out = g.v;
	return g.n;
}

/* ---- the op pieces of a core whose steps come after its op pass
 * (tp_op_ctx.late_steps: a GPU core's steps inferred from the very
 * kernels the pass reads), kept packed until the steps are known
 * (packed.h).
 *
 * With one op line, step_parts.c puts each piece into the steps as the
 * sweep emits it, keeping nothing; here the steps are not there yet, so
 * the pieces wait, in the order emitted: a few bytes each (the gap from
 * the previous piece's end, the length, the kind), not the 24 of a kept
 * struct tp_seg, on the JAX-GPU shape one piece a kernel
 * (docs/performance.md). Then they go into the steps in that order, as
 * if they had streamed. ---- */

void tp_late_pieces_grow(struct tp_late_pieces *p)
{
	p->buf = tp_xgrow(p->buf, &p->cap, p->len + TP_LATE_PIECE_MAX, 1);
}

void tp_late_pieces_drop(struct tp_late_pieces *p)
{
	free(p->buf);
	memset(p, 0, sizeof(*p));
}
