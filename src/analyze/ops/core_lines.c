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

/* The stat with metadata id `id` on the event, else on its metadata. */
static bool event_stat_id(const struct tp_xspace *xs, const struct tp_plane *pl,
			  const struct tp_event *ev, int64_t id, int64_t *out)
{
	struct tp_stat_iter si;
	struct tp_stat st;

	if (ev->other_stats) {
		tp_stat_iter_init(&si, xs, ev);
		while (tp_stat_iter_next(&si, &st) > 0)
			if (st.metadata_id == id)
				return tp_stat_int(&st, out);
	}
	if (ev->meta)
		for (uint32_t i = 0; i < ev->meta->n_stats; i++)
			if (ev->meta->stats[i].metadata_id == id)
				return tp_stat_int(&ev->meta->stats[i], out);
	return false;
}

size_t tp_ops_group_runs(const struct tp_xspace *xs, const struct tp_plane *pl,
			 enum tp_op_source src, struct tp_step_run **out)
{
	struct tp_step_run *v = NULL;
	size_t n = 0, cap = 0;
	struct tp_i64map groups;
	int64_t gid = 0;
	bool has = false;

	*out = NULL;
	for (size_t i = 0; i < pl->n_stat_meta && !has; i++)
		if (tp_str_eq(pl->stat_meta[i].name, "group_id")) {
			gid = pl->stat_meta[i].id;
			has = true;
		}
	if (!has)
		return 0;
	tp_i64map_init(&groups, 64);
	for (size_t l = 0; l < pl->n_lines; l++) {
		struct tp_event_iter it;
		struct tp_event ev;

		if (!tp_ops_line_used(src, &pl->lines[l]))
			continue;
		tp_event_iter_init_read(&it, xs, pl, &pl->lines[l]);
		while (tp_event_iter_next(&it, &ev) > 0) {
			int64_t g, end, dur = ev.dur_ps > 0 ? ev.dur_ps : 0;
			long k;

			/* XProf leaves an event outside every step without one;
			 * a negative id is no step either */
			if (!ev.timed || !event_stat_id(xs, pl, &ev, gid, &g) || g < 0)
				continue;
			end = tp_sat_add(ev.start_ps, dur);
			if ((k = tp_i64map_get(&groups, g)) < 0) {
				tp_i64map_put(&groups, g, (long)n);
				push_run(&v, &n, &cap, ev.start_ps, dur, g);
				continue;
			}
			/* the group spans its first event's start to its last end */
			if (end > tp_sat_add(v[k].start_ps, v[k].dur_ps))
				v[k].dur_ps = tp_sat_sub(end, v[k].start_ps);
			if (ev.start_ps < v[k].start_ps) {
				int64_t old_end = tp_sat_add(v[k].start_ps, v[k].dur_ps);

				v[k].start_ps = ev.start_ps;
				v[k].dur_ps = tp_sat_sub(old_end, ev.start_ps);
			}
		}
	}
	tp_i64map_release(&groups);
	if (n > 1)
		qsort(v, n, sizeof(*v), by_start);
	*out = v;
	return n;
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
 * op, with each program's kernel time; the busiest into *best. */
static size_t read_kernels(const struct tp_xspace *xs, const struct tp_plane *pl,
			   struct kernel **out, struct tp_program_time *best)
{
	struct kernel *k = NULL;
	struct tp_program_time *p = NULL;
	size_t n = 0, cap = 0, np = 0, cap_p = 0;
	struct tp_i64map progs;

	tp_i64map_init(&progs, 16);
	for (size_t l = 0; l < pl->n_lines; l++) {
		struct tp_event_iter it;
		struct tp_event ev;

		if (!is_kernel_line(&pl->lines[l]))
			continue;
		tp_event_iter_init_read(&it, xs, pl, &pl->lines[l]);
		while (tp_event_iter_next(&it, &ev) > 0) {
			struct tp_stat st;
			struct tp_str op, module = TP_STR_NULL;
			int64_t id, dur = ev.dur_ps > 0 ? ev.dur_ps : 0;
			long i;

			if (!ev.timed || !tp_event_stat(xs, pl, &ev, TP_SN_PROGRAM_ID, &st) ||
			    !tp_stat_int(&st, &id) || !tp_event_stat(xs, pl, &ev, TP_SN_HLO_OP, &st) ||
			    !tp_stat_str(pl, &st, &op))
				continue;
			if ((i = tp_i64map_get(&progs, id)) < 0) {
				if (tp_event_stat(xs, pl, &ev, TP_SN_HLO_MODULE, &st))
					tp_stat_str(pl, &st, &module);
				tp_i64map_put(&progs, id, (long)np);
				p = tp_xgrow(p, &cap_p, np + 1, sizeof(*p));
				p[np] = (struct tp_program_time){ (uint64_t)id, 0, module };
				i = (long)np++;
			}
			p[i].ps = tp_sat_add(p[i].ps, dur);
			k = tp_xgrow(k, &cap, n + 1, sizeof(*k));
			k[n].run = (struct tp_step_run){ ev.start_ps, dur, id };
			k[n++].op = tp_hash_bytes(op.ptr, op.len);
		}
	}
	/* ties: the lower id, so that the choice does not depend on order */
	for (size_t i = 0; i < np; i++)
		if (i == 0 || p[i].ps > best->ps || (p[i].ps == best->ps && p[i].id < best->id))
			*best = p[i];
	tp_i64map_release(&progs);
	free(p);
	*out = k;
	return np ? n : 0;
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
	for (size_t i = 0; i < n; i++)
		if (k[i].run.id == (int64_t)best->id)
			k[m++] = k[i];
	if (m > 1)
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
