/*
 * core_lines.c - which lines of a device plane hold its ops, and the
 * steps that come from those lines themselves where the plane has no
 * "Steps" line: events grouped by their `group_id` stat (as XProf groups
 * TF captures: its grouping pass writes the step's id on every event of
 * the step, format-facts §2.4), else, on GPU, one step per execution of
 * the program with the most kernel time (docs/ops.md, "Steps").
 *
 * GPU kernels carry the program id but nothing that tells one execution
 * from the next (no run id, in the shared captures and in XProf's own
 * GPU converters), and a program may run several times back to back
 * with no other kernel between its runs. Every execution launches the
 * same kernels in the same order, so an execution starts at each kernel
 * that runs the HLO op the program's first kernel ran, and lasts to the
 * end of the program's last kernel before the next such start.
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

static int by_start(const void *a, const void *b)
{
	const struct tp_step_run *x = a, *y = b;

	if (x->start_ps != y->start_ps)
		return x->start_ps < y->start_ps ? -1 : 1;
	if (x->dur_ps != y->dur_ps)
		return x->dur_ps > y->dur_ps ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static void push_run(struct tp_step_run **v, size_t *n, size_t *cap,
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

/* Reads the lines of src that hold ops, plain events in bulk with the
 * stats of keys kept (as the op pass reads them: op_lines.c), the rest
 * one at a time; each to one of the callbacks. */
struct line_reader {
	const struct tp_xspace *xs;
	const struct tp_plane *pl;
	struct tp_batch_keys keys;
	void (*batch)(void *ctx, const struct tp_event_batch *b, size_t n);
	void (*event)(void *ctx, const struct tp_event *ev);
	void *ctx;
};

static void read_lines(const struct line_reader *r, enum tp_op_source src)
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

/* Keeps stat `which` in slot k; false when the plane gives it the id of
 * a stat already kept (hostile metadata): bulk reading would mix them. */
static bool keep(struct tp_batch_keys *keys, unsigned k, int64_t id, bool on)
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
		push_run(&g->v, &g->n, &g->cap, start, dur, id);
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
		const struct tp_event_meta *em;
		const struct tp_stat *st;
		int64_t v;

		if (kind == TP_STAT_INT64 || kind == TP_STAT_UINT64) {
			group_add(g, (int64_t)b->value[0][i], b->start_ps[i], b->dur_ps[i]);
		} else if (kind == TP_STAT_NONE) {
			em = &g->pl->event_meta[b->meta[i]];
			if ((st = stat_by_id(em->stats, em->n_stats, g->gid)) && tp_stat_int(st, &v))
				group_add(g, v, b->start_ps[i], b->dur_ps[i]);
		}
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
	struct line_reader r = { .xs = xs, .pl = pl, .batch = group_batch,
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
	keep(&r.keys, 0, g.gid, true);
	tp_i64map_init(&g.map, 64);
	read_lines(&r, src);
	tp_i64map_release(&g.map);
	if (g.n > 1)
		qsort(g.v, g.n, sizeof(*g.v), by_start);
	*out = g.v;
	return g.n;
}

/* A kernel of a program, as the GPU steps need it. */
struct kernel {
	struct tp_step_run run;      /* id: the program                    */
	uint64_t op;                 /* hash of its hlo_op                  */
};

static int kernel_by_start(const void *a, const void *b)
{
	const struct kernel *x = a, *y = b;
	int c = by_start(&x->run, &y->run);

	return c ? c : (x->op > y->op) - (x->op < y->op);
}

/* The kernels of the plane's kernel lines that name a program and an
 * op, with each program's kernel time. */
struct kernels {
	const struct tp_plane *pl;
	const struct tp_xspace *xs;
	uint64_t *hash;              /* per stat metadata: its name's hash  */
	struct tp_i64map progs;
	struct tp_program_time *p;
	size_t np, cap_p;
	struct kernel *k;
	size_t n, cap;
};

/* A string stat's value and hash (a ref's hash cached per metadata). */
static bool str_key(struct kernels *r, const struct tp_stat *st, struct tp_str *s,
		    uint64_t *h)
{
	const struct tp_stat_meta *sm;
	size_t i;

	if (st->kind == TP_STAT_STR) {
		*s = st->v.s;
		*h = tp_hash_bytes(s->ptr, s->len);
		return true;
	}
	if (st->kind != TP_STAT_REF || !(sm = tp_plane_stat_meta(r->pl, (int64_t)st->v.u)))
		return false;
	i = (size_t)(sm - r->pl->stat_meta);
	if (!r->hash[i])
		r->hash[i] = tp_hash_bytes(sm->name.ptr, sm->name.len) | 1;
	*s = sm->name;
	*h = r->hash[i];
	return true;
}

static void kernel_add(struct kernels *r, int64_t id, const struct tp_stat *op,
		       const struct tp_stat *mod, int64_t start, int64_t dur)
{
	struct tp_str name, module = TP_STR_NULL;
	uint64_t h, mh;
	long i;

	if (!str_key(r, op, &name, &h))
		return;
	dur = dur > 0 ? dur : 0;
	if ((i = tp_i64map_get(&r->progs, id)) < 0) {
		if (mod)
			str_key(r, mod, &module, &mh);
		tp_i64map_put(&r->progs, id, (long)r->np);
		r->p = tp_xgrow(r->p, &r->cap_p, r->np + 1, sizeof(*r->p));
		r->p[r->np] = (struct tp_program_time){ (uint64_t)id, 0, module };
		i = (long)r->np++;
	}
	r->p[i].ps = tp_sat_add(r->p[i].ps, dur);
	r->k = tp_xgrow(r->k, &r->cap, r->n + 1, sizeof(*r->k));
	r->k[r->n].run = (struct tp_step_run){ start, dur, id };
	r->k[r->n++].op = h;
}

/* As the op pass reads kept stats (op_gpu.c): a program id that is an
 * integer, on the event or else on its metadata; an hlo_op that is a
 * ref on the event (else the kernel names no op there either). */
static void kernel_batch(void *ctx, const struct tp_event_batch *b, size_t n)
{
	struct kernels *r = ctx;

	for (size_t i = 0; i < n; i++) {
		uint8_t pk = b->kind[0][i];
		const struct tp_event_meta *em;
		const struct tp_stat *s;
		struct tp_stat op = { 0 }, mod = { 0 };
		int64_t id;

		if (b->kind[1][i] != TP_STAT_REF)
			continue;
		if (pk == TP_STAT_INT64 || pk == TP_STAT_UINT64) {
			id = (int64_t)b->value[0][i];
		} else {
			em = &r->pl->event_meta[b->meta[i]];
			if (pk != TP_STAT_NONE ||
			    !(s = tp_stats_find(r->pl, em->stats, em->n_stats, TP_SN_PROGRAM_ID)) ||
			    !tp_stat_int(s, &id))
				continue;
		}
		op.kind = TP_STAT_REF;
		op.v.u = b->value[1][i];
		mod.kind = (enum tp_stat_kind)b->kind[2][i];
		mod.v.u = b->value[2][i];
		kernel_add(r, id, &op, &mod, b->start_ps[i], b->dur_ps[i]);
	}
}

static void kernel_event(void *ctx, const struct tp_event *ev)
{
	struct kernels *r = ctx;
	struct tp_stat prog, op, mod;
	int64_t id;

	if (tp_event_stat(r->xs, r->pl, ev, TP_SN_PROGRAM_ID, &prog) && tp_stat_int(&prog, &id) &&
	    tp_event_stat(r->xs, r->pl, ev, TP_SN_HLO_OP, &op))
		kernel_add(r, id, &op, tp_event_stat(r->xs, r->pl, ev, TP_SN_HLO_MODULE, &mod) ?
				       &mod : NULL, ev->start_ps, ev->dur_ps);
}

/* The kernels into *out; the busiest program into *best. */
static size_t read_kernels(const struct tp_xspace *xs, const struct tp_plane *pl,
			   struct kernel **out, struct tp_program_time *best)
{
	struct kernels r = { .pl = pl, .xs = xs };
	struct line_reader lr = { .xs = xs, .pl = pl, .batch = kernel_batch,
				  .event = kernel_event, .ctx = &r };
	bool bulk = keep(&lr.keys, 0, pl->known_stat_id[TP_SN_PROGRAM_ID],
			 pl->known_stat[TP_SN_PROGRAM_ID]) &&
		    keep(&lr.keys, 1, pl->known_stat_id[TP_SN_HLO_OP], pl->known_stat[TP_SN_HLO_OP]) &&
		    keep(&lr.keys, 2, pl->known_stat_id[TP_SN_HLO_MODULE],
			 pl->known_stat[TP_SN_HLO_MODULE]);

	if (!bulk) /* one at a time: no event is plain with these keys */
		lr.keys.reject_on[0] = true, lr.keys.reject[0] = pl->known_stat_id[TP_SN_HLO_OP];
	r.hash = tp_xcalloc(pl->n_stat_meta + 1, sizeof(*r.hash));
	tp_i64map_init(&r.progs, 16);
	read_lines(&lr, TP_OPSRC_GPU);
	/* ties: the lower id, so that the choice does not depend on order */
	for (size_t i = 0; i < r.np; i++)
		if (i == 0 || r.p[i].ps > best->ps || (r.p[i].ps == best->ps && r.p[i].id < best->id))
			*best = r.p[i];
	tp_i64map_release(&r.progs);
	free(r.p);
	free(r.hash);
	*out = r.k;
	return r.np ? r.n : 0;
}

size_t tp_ops_gpu_program_runs(const struct tp_xspace *xs, const struct tp_plane *pl,
			       struct tp_program_time *best, struct tp_step_run **out)
{
	struct kernel *k = NULL;
	struct tp_step_run *v = NULL;
	size_t n, m = 0, cap = 0, runs = 0;
	uint64_t first_op = 0;

	*out = NULL;
	n = read_kernels(xs, pl, &k, best);
	bool sorted = true;

	for (size_t i = 0; i < n; i++)
		if (k[i].run.id == (int64_t)best->id) {
			sorted = sorted && (!m || kernel_by_start(&k[m - 1], &k[i]) <= 0);
			k[m++] = k[i];
		}
	/* one stream's kernels come in order: sorted already */
	if (m > 1 && !sorted)
		qsort(k, m, sizeof(*k), kernel_by_start);
	for (size_t i = 0; i < m; i++) {
		int64_t end = tp_sat_add(k[i].run.start_ps, k[i].run.dur_ps);
		struct tp_step_run *r;

		if (i == 0)
			first_op = k[i].op;
		if (i == 0 || k[i].op == first_op) {
			push_run(&v, &runs, &cap, k[i].run.start_ps, k[i].run.dur_ps,
				 (int64_t)best->id);
			continue;
		}
		r = &v[runs - 1];
		if (end > tp_sat_add(r->start_ps, r->dur_ps))
			r->dur_ps = tp_sat_sub(end, r->start_ps);
	}
	free(k);
	*out = v;
	return runs;
}
