/*
 * ops.c - `tpuprof ops`: which planes are cores, which lines hold their
 * ops, the filters, and the HLO indexes the ops link to (see ops.h).
 */
#include "ops_internal.h"

#include "tpuprof/analyze/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tp_clock_name(enum tp_clock clock)
{
	return clock == TP_CLOCK_DEVICE ? "device" : "timeline";
}

bool tp_clock_parse(const char *name, enum tp_clock *out)
{
	if (!strcmp(name, "device"))
		*out = TP_CLOCK_DEVICE;
	else if (!strcmp(name, "timeline"))
		*out = TP_CLOCK_TIMELINE;
	else
		return false;
	return true;
}

int64_t tp_ops_core_outside_ps(const struct tp_ops_core *c)
{
	int64_t sum = 0;

	for (int k = 0; k < TP_PARTS; k++)
		sum = tp_sat_add(sum, c->outside_ps[k]);
	return sum;
}

bool tp_ops_core_drifts(const struct tp_ops_core *c)
{
	return c->has_drift && (c->drift_lo < 1 - TP_DRIFT_TOLERANCE ||
				c->drift_hi > 1 + TP_DRIFT_TOLERANCE);
}

static void finish_core(struct tp_ops *ops, struct tp_ops_core *core)
{
	core->n_ops = ops->n_ops - core->first_op;
	core->device_ps = 0;
	if (core->has_span && core->first_start_ps < 0 &&
	    core->last_end_ps > INT64_MAX + core->first_start_ps)
		core->device_ps = INT64_MAX; /* hostile offsets */
	else if (core->has_span)
		core->device_ps = tp_sat_sub(core->last_end_ps, core->first_start_ps);
	/* XProf's SparseCore total time: its modules' (op_duty.c) */
	if (core->has_module_time)
		core->device_ps = core->module_ps;
	for (size_t i = core->first_op; i < ops->n_ops; i++)
		if (!ops->ops[i].occurrences || ops->ops[i].min_ps == INT64_MAX)
			ops->ops[i].min_ps = 0;
}

/* Lines the ops do not read are scanned (validated) before the steps
 * and ops are read, in case opening deferred them. */
static void scan_other_lines(const struct tp_host *h, struct tp_plane *pl,
			     enum tp_op_source src, struct tp_op_bufs *bufs)
{
	static const struct tp_batch_keys any;
	struct tp_event_batch *b;

	if (!bufs->batch)
		bufs->batch = tp_xmalloc(sizeof(*bufs->batch));
	b = bufs->batch;
	for (size_t l = 0; l < pl->n_lines; l++) {
		struct tp_line *ln = &pl->lines[l];
		struct tp_event_iter it;
		struct tp_event ev;

		if (ln->scanned || tp_ops_line_used(src, ln))
			continue;
		tp_event_iter_init_scan(&it, &h->xs, pl, ln);
		/* in bulk where it can (any simple stats), as the open scan */
		while (tp_event_iter_batch_keyed(&it, &any, b) ||
		       tp_event_iter_next(&it, &ev) > 0)
			;
	}
}

/* One core, into its own tp_ops (core 0 of it): cores run in parallel.
 * False when the op pass met what may be a group id while speculating
 * (tp_op_ctx.spec_groups): then frag is to be thrown away. */
static bool scan_core(struct tp_ops *frag, struct tp_op_ctx *c,
		      enum tp_op_source src)
{
	struct tp_ops_core *core;
	bool ok;

	frag->cores = tp_xcalloc(1, sizeof(*frag->cores));
	core = &frag->cores[0];
	core->host = (size_t)(c->host - c->cap->hosts);
	core->plane = c->pl;
	core->source = src;
	frag->n_cores = 1;
	c->core = 0;
	c->meta_op = tp_xcalloc(c->pl->n_event_meta + 1, sizeof(*c->meta_op));
	c->name_hash = tp_xcalloc(c->pl->n_stat_meta + 1, sizeof(*c->name_hash));
	scan_other_lines(c->host, (struct tp_plane *)c->pl, src, c->bufs);
	tp_ops_read_steps(c);
	tp_steps_parts_begin(c);
	tp_op_duty_start(c);
	for (size_t l = 0; l < c->pl->n_lines; l++)
		if (tp_ops_line_used(src, &c->pl->lines[l]))
			tp_ops_scan_line(c, (struct tp_line *)&c->pl->lines[l]);
	tp_ops_read_late_steps(c);
	/* before the duty's end: sweeping again asks it which ops count */
	if (tp_steps_place(c))
		tp_ops_sweep_again(c);
	tp_steps_close(c);
	tp_op_duty_finish(c);
	tp_op_apply_meta_vals(c);
	tp_ops_read_debug_prints(c);
	finish_core(frag, &frag->cores[0]);
	ok = !c->spec_seen;
	tp_sweep_release(c);
	tp_op_ctx_release(c);
	/* the ops hold copies of what they need from the plane's bytes */
	tp_xspace_drop(&c->host->xs, c->pl->bytes.ptr, c->pl->bytes.len);
	return ok;
}

/* A core's result that is not kept; the shared parts (strings, HLO
 * indexes) stay. */
static void discard_fragment(struct tp_ops *fr)
{
	for (size_t i = 0; i < fr->n_ops; i++)
		free(fr->ops[i].source);
	for (size_t i = 0; i < fr->n_cores; i++) {
		free(fr->cores[i].programs);
		free(fr->cores[i].cats_block);
		free(fr->cores[i].cat_totals);
	}
	free(fr->ops);
	free(fr->cores);
	free(fr->steps);
	free(fr->execs);
	fr->ops = NULL, fr->cores = NULL, fr->steps = NULL, fr->execs = NULL;
	fr->n_ops = fr->n_cores = fr->n_steps = fr->n_execs = 0;
	fr->cap_ops = fr->cap_steps = fr->cap_execs = 0;
}

static enum tp_err decode_modules(struct tp_capture *cap, struct tp_error *err)
{
	return tp_capture_decode_modules(cap, NULL, err);
}

/* A core to analyse: its plane and where its ops come from. */
struct core_job {
	const struct tp_host *host;
	const struct tp_plane *plane;
	enum tp_op_source src;
	struct tp_ops frag;          /* the job's result                  */
};

struct core_pool {
	struct tp_ops *ops;          /* shared, read-only while jobs run  */
	struct tp_capture *cap;
	const struct tp_ops_filter *filter;
	struct core_job *jobs;
	size_t n_jobs;
	struct tp_op_bufs *bufs;     /* one per worker thread              */
	struct tp_step_run **input;  /* per host: its input spans (step_input.c) */
	size_t *n_input;
	struct tp_mem_runtime *runtime; /* read as the pass's last item, or NULL */
};

/* A finished job keeps its arrays at their size, not their capacity:
 * all jobs' results are held at once before they are appended. */
static void shrink_fragment(struct tp_ops *fr)
{
	fr->ops = tp_xrealloc(fr->ops, (fr->n_ops + 1) * sizeof(*fr->ops));
	fr->steps = tp_xrealloc(fr->steps, (fr->n_steps + 1) * sizeof(*fr->steps));
	fr->execs = tp_xrealloc(fr->execs, (fr->n_execs + 1) * sizeof(*fr->execs));
	fr->cap_ops = fr->n_ops + 1;
	fr->cap_steps = fr->n_steps + 1;
	fr->cap_execs = fr->n_execs + 1;
}

/* A job's context, fresh. */
static void job_ctx(struct tp_op_ctx *c, struct core_pool *pool, struct core_job *job,
		    unsigned worker)
{
	memset(c, 0, sizeof(*c));
	c->bufs = &pool->bufs[worker];
	/* The HLO indexes were all built beforehand: jobs only read them. */
	job->frag.strings = pool->ops->strings;
	job->frag.index = pool->ops->index;
	job->frag.indexed = pool->ops->indexed;
	job->frag.n_modules = pool->ops->n_modules;
	c->ops = &job->frag;
	c->cap = pool->cap;
	c->filter = pool->filter;
	c->host = job->host;
	c->pl = job->plane;
	c->input = pool->input[job->host - pool->cap->hosts];
	c->n_input = pool->n_input[job->host - pool->cap->hosts];
}

/* A TPU core whose plane names group_id is read once, looking for group
 * ids in the op pass (a full pass of its own that finds none was a
 * quarter of report's time on such a capture); where one may be there,
 * the core is read again with the group pass first, as always. */
static void run_job(void *ctx, size_t item, unsigned worker)
{
	struct core_pool *pool = ctx;
	/* the cores, then the runtime, then the caller's work */
	size_t i = item;
	struct core_job *job;
	struct tp_op_ctx c;

	if (i == pool->n_jobs + (pool->runtime != NULL)) {
		pool->filter->beside(pool->filter->beside_ctx);
		return;
	}
	if (i == pool->n_jobs) {
		/* the runtime allocator's events, for the cores' capacities
		 * (tp_ops_roofline_prepare): host lines, which no job reads
		 * (jobs read core planes), on whichever thread is free */
		tp_mem_runtime_build(pool->runtime, pool->cap);
		return;
	}
	job = &pool->jobs[i];
	job_ctx(&c, pool, job, worker);
	c.spec_groups = tp_ops_spec_groups(job->plane, job->src, &c.spec_gid);
	if (!scan_core(&job->frag, &c, job->src)) {
		discard_fragment(&job->frag);
		job_ctx(&c, pool, job, worker);
		scan_core(&job->frag, &c, job->src);
	}
	shrink_fragment(&job->frag);
}

static void run_jobs(struct core_pool *pool)
{
	unsigned threads = tp_threads();

	pool->bufs = tp_xcalloc(threads, sizeof(*pool->bufs));
	tp_parallel_for((pool->filter->beside != NULL) + pool->n_jobs + (pool->runtime != NULL),
			threads, run_job, pool);
	for (unsigned t = 0; t < threads; t++)
		tp_op_bufs_release(&pool->bufs[t]);
	free(pool->bufs);
}

/* Appends a job's core to ops, renumbering its ops, steps and
 * executions; ownership of every array element moves to ops, whose
 * arrays were sized for all jobs (reserve_all), so nothing doubles. */
static void append_fragment(struct tp_ops *ops, struct tp_ops *fr)
{
	size_t core = ops->n_cores, op0 = ops->n_ops, step0 = ops->n_steps;

	ops->cores[core] = fr->cores[0];
	ops->cores[core].first_op = op0;
	ops->cores[core].first_step = step0;
	ops->n_cores++;
	for (size_t i = 0; i < fr->n_ops; i++) {
		ops->ops[op0 + i] = fr->ops[i];
		ops->ops[op0 + i].core = core;
	}
	ops->n_ops += fr->n_ops;
	for (size_t i = 0; i < fr->n_steps; i++) {
		ops->steps[step0 + i] = fr->steps[i];
	}
	ops->n_steps += fr->n_steps;
	for (size_t i = 0; i < fr->n_execs; i++) {
		ops->execs[ops->n_execs + i] = fr->execs[i];
		ops->execs[ops->n_execs + i].op += op0;
	}
	ops->n_execs += fr->n_execs;
	free(fr->cores);
	free(fr->ops);
	free(fr->steps);
	free(fr->execs);
}

static void reserve_all(struct tp_ops *ops, const struct core_pool *pool)
{
	size_t n_ops = 0, n_steps = 0, n_execs = 0;

	for (size_t j = 0; j < pool->n_jobs; j++) {
		n_ops += pool->jobs[j].frag.n_ops;
		n_steps += pool->jobs[j].frag.n_steps;
		n_execs += pool->jobs[j].frag.n_execs;
	}
	ops->cores = tp_xcalloc(pool->n_jobs + 1, sizeof(*ops->cores));
	ops->ops = tp_xcalloc(n_ops + 1, sizeof(*ops->ops));
	ops->steps = tp_xcalloc(n_steps + 1, sizeof(*ops->steps));
	ops->execs = tp_xcalloc(n_execs + 1, sizeof(*ops->execs));
	ops->cap_ops = n_ops + 1;
	ops->cap_steps = n_steps + 1;
	ops->cap_execs = n_execs + 1;
}

static void collect_jobs(struct core_pool *pool, struct tp_capture *cap,
			 const struct tp_selection *sel)
{
	for (size_t h = 0; h < cap->n_hosts; h++) {
		const struct tp_host *host = &cap->hosts[h];

		for (size_t p = 0; p < host->xs.n_planes; p++) {
			const struct tp_plane *pl = &host->xs.planes[p];
			enum tp_op_source src;

			if (!tp_plane_is_core(pl) || !tp_selection_plane(sel, h, pl) ||
			    !tp_ops_plane_source(pl, &src))
				continue;
			pool->jobs = tp_xrealloc(pool->jobs, (pool->n_jobs + 1) *
							     sizeof(*pool->jobs));
			memset(&pool->jobs[pool->n_jobs], 0, sizeof(*pool->jobs));
			pool->jobs[pool->n_jobs].host = host;
			pool->jobs[pool->n_jobs].plane = pl;
			pool->jobs[pool->n_jobs++].src = src;
		}
	}
}

/* The host input events of every host with a core to read, before the
 * jobs: a host's planes are read by one thread. */
static void input_spans(struct core_pool *pool)
{
	size_t n = pool->cap->n_hosts + 1;
	bool *read = tp_xcalloc(n, sizeof(*read));

	pool->input = tp_xcalloc(n, sizeof(*pool->input));
	pool->n_input = tp_xcalloc(n, sizeof(*pool->n_input));
	for (size_t j = 0; j < pool->n_jobs; j++) {
		size_t h = (size_t)(pool->jobs[j].host - pool->cap->hosts);

		if (!read[h])
			pool->n_input[h] = tp_ops_input_spans(pool->jobs[j].host, &pool->input[h]);
		read[h] = true;
	}
	free(read);
}

static enum tp_err build(struct tp_ops *ops, struct tp_capture *cap,
			 const struct tp_ops_filter *f, struct tp_error *err)
{
	static const struct tp_ops_filter none = { 0 };
	struct tp_selection own = { 0 };
	const struct tp_selection *sel;
	struct core_pool pool;
	struct tp_mem_runtime runtime;
	enum tp_err rc;

	memset(ops, 0, sizeof(*ops));
	memset(&pool, 0, sizeof(pool));
	if (!f)
		f = &none;
	if ((rc = decode_modules(cap, err)) != TP_OK)
		return rc;
	sel = f->selection;
	if (!sel && (rc = tp_selection_make(&own, cap, f->host, f->core, f->module,
					    err)) != TP_OK)
		return rc;
	if (!sel)
		sel = &own;
	ops->n_modules = cap->n_modules;
	ops->strings = tp_xmalloc(sizeof(*ops->strings));
	tp_strpool_init(ops->strings);
	ops->index = tp_xcalloc(cap->n_modules + 1, sizeof(*ops->index));
	ops->indexed = tp_xcalloc(cap->n_modules + 1, sizeof(*ops->indexed));
	for (size_t m = 0; m < cap->n_modules; m++)
		tp_ops_index(ops, cap, m);
	pool.ops = ops;
	pool.cap = cap;
	pool.filter = f;
	collect_jobs(&pool, cap, sel);
	tp_selection_release(&own);
	input_spans(&pool);
	/* no runtime from the caller (report's memory analysis read it):
	 * read beside the cores */
	if (!f->runtime)
		pool.runtime = &runtime;
	run_jobs(&pool);
	for (size_t h = 0; h < cap->n_hosts; h++)
		free(pool.input[h]);
	free(pool.input);
	free(pool.n_input);
	reserve_all(ops, &pool);
	for (size_t j = 0; j < pool.n_jobs; j++)
		append_fragment(ops, &pool.jobs[j].frag);
	free(pool.jobs);
	tp_ops_roofline_prepare(ops, cap, f->device, f->runtime ? f->runtime : pool.runtime);
	if (pool.runtime)
		tp_mem_runtime_release(pool.runtime);
	tp_steps_mark_warmup(ops);
	/* lines opening deferred and no core read (other hosts or cores,
	 * unused lines), and the verdict on corrupt bytes met by the jobs */
	return tp_capture_finish_scan(cap, err);
}

enum tp_err tp_ops_build(struct tp_ops *ops, struct tp_capture *cap,
			 const struct tp_ops_filter *filter,
			 struct tp_error *err)
{
	enum tp_err rc = build(ops, cap, filter, err);

	if (rc != TP_OK)
		tp_ops_release(ops);
	return rc;
}

void tp_ops_release(struct tp_ops *ops)
{
	for (size_t i = 0; i < ops->n_ops; i++) {
		free(ops->ops[i].source);
	}
	if (ops->strings) {
		tp_strpool_release(ops->strings);
		free(ops->strings);
	}
	for (size_t m = 0; m < ops->n_modules; m++)
		if (ops->indexed[m])
			tp_hlo_index_release(&ops->index[m]);
	free(ops->ops);
	for (size_t i = 0; i < ops->n_cores; i++) {
		free(ops->cores[i].programs);
		free(ops->cores[i].cats_block);
		free(ops->cores[i].cat_totals);
	}
	free(ops->cores);
	free(ops->steps);
	free(ops->execs);
	free(ops->index);
	free(ops->indexed);
	memset(ops, 0, sizeof(*ops));
}
