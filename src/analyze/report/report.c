/*
 * report.c - building `tpuprof report` from the other analyses (see
 * report_doc.h). The capture is decoded once; the ops pass reads the op
 * lines' events (the only large part), the others read metadata, small
 * lines and the per-line counts the scan left.
 */
#include "tpuprof/analyze/report_analysis.h"
#include "tpuprof/util/parallel.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A line's entries in the ops pass's list: contiguous, one core's. */
struct line_block {
	const struct tp_line *line;
	const struct tp_line_program *first;
	size_t n;
};

static int by_line(const void *a, const void *b)
{
	uintptr_t u = (uintptr_t)((const struct line_block *)a)->line,
		  v = (uintptr_t)((const struct line_block *)b)->line;

	return (u > v) - (u < v);
}

/* The ops pass's program counts of GPU kernel lines, for the memory
 * analysis (tp_mem_known_programs): sorted by line, each line's entries
 * kept together in their first-seen order. */
static void known_programs(struct tp_mem_known_programs *k, const struct tp_ops *ops)
{
	struct tp_mem_line_program *e;
	struct line_block *blocks;
	size_t n = 0, lines = 0, at = 0;

	for (size_t c = 0; c < ops->n_cores; c++)
		n += ops->cores[c].n_programs;
	blocks = tp_xcalloc(n + 1, sizeof(*blocks));
	for (size_t c = 0; c < ops->n_cores; c++)
		for (size_t i = 0; i < ops->cores[c].n_programs; i++) {
			const struct tp_line_program *p = &ops->cores[c].programs[i];

			if (!lines || blocks[lines - 1].line != p->line) {
				blocks[lines].line = p->line;
				blocks[lines++].first = p;
			}
			blocks[lines - 1].n++;
		}
	qsort(blocks, lines, sizeof(*blocks), by_line);
	e = tp_xcalloc(n + 1, sizeof(*e));
	for (size_t l = 0; l < lines; l++)
		for (size_t i = 0; i < blocks[l].n; i++) {
			e[at].line = blocks[l].line;
			e[at].id = blocks[l].first[i].id;
			e[at++].runs = blocks[l].first[i].runs;
		}
	free(blocks);
	k->entries = e;
	k->n = n;
}

/* Whether the ops pass has anything to hand the memory analysis: GPU
 * planes, whose kernel events carry the programs memory counts. */
static bool has_gpu_planes(const struct tp_capture *cap)
{
	for (size_t h = 0; h < cap->n_hosts; h++)
		for (size_t p = 0; p < cap->hosts[h].xs.n_planes; p++)
			if (cap->hosts[h].xs.planes[p].kind == TP_PLANE_GPU)
				return true;
	return false;
}

/* Memory, then the ops pass: the memory analysis's brief reads of every
 * host (HLO, metadata, memory events) then come before the op tables
 * exist, so a pod's run directory peaks at the larger of the two, not
 * their sum (16 hosts x 100 MB: 200 MB, not 255 MB). */
static enum tp_err memory_then_ops(struct tp_report *r, struct tp_capture *cap,
				   const struct tp_mem_options *mopt,
				   const struct tp_memory_filter *mf,
				   const struct tp_ops_filter *of, struct tp_error *err)
{
	enum tp_err rc = tp_memory_build(&r->memory, cap, mopt, mf, err);
	struct tp_ops_filter known = *of;

	/* the runtime memory memory just read: ops takes its capacities */
	known.runtime = &r->memory.runtime;
	if (rc == TP_OK)
		rc = tp_collectives_build(&r->coll, cap, &known, err);
	return rc;
}

/* The memory analysis, or its programs' part, as the ops pass's last
 * item (tp_ops_filter.beside). */
struct memory_beside {
	enum tp_err (*build)(struct tp_memory *mem, struct tp_capture *cap,
			     const struct tp_mem_options *opt,
			     const struct tp_memory_filter *filter, struct tp_error *err);
	struct tp_report *r;
	struct tp_capture *cap;
	const struct tp_mem_options *mopt;
	const struct tp_memory_filter *mf;
	struct tp_error err;
	enum tp_err rc;
};

static void memory_item(void *ctx)
{
	struct memory_beside *m = ctx;

	m->rc = m->build(&m->r->memory, m->cap, m->mopt, m->mf, &m->err);
}

/* Whether memory, or its programs' part, may run beside the pass: one
 * host (a pod's hosts keep the order above, for its peak) and threads to
 * run it on. */
static bool memory_beside_ok(const struct tp_capture *cap)
{
	return cap->n_hosts == 1 && tp_threads() >= 2;
}

/* Memory beside the ops pass, on a single host: the pass's threads take
 * it after the cores, as a thread comes free; its errors come first, as
 * above. */
static enum tp_err memory_beside_ops(struct tp_report *r, struct tp_capture *cap,
				     const struct tp_mem_options *mopt,
				     const struct tp_memory_filter *mf,
				     const struct tp_ops_filter *of, struct tp_error *err)
{
	struct tp_mem_options keep = *mopt;
	struct memory_beside m = { tp_memory_build, r, cap, &keep, mf, { 0 }, TP_OK };
	struct tp_ops_filter known = *of;
	enum tp_err rc;

	keep.keep_pages = true;
	known.runtime = &r->memory.runtime;
	known.beside = memory_item;
	known.beside_ctx = &m;
	rc = tp_collectives_build(&r->coll, cap, &known, err);
	if (m.rc != TP_OK) {
		*err = m.err;
		return m.rc;
	}
	/* what memory read (HLO, metadata, memory events), as it drops it */
	tp_capture_drop_host(cap, 0);
	return rc;
}

/* The ops pass, then memory's cores with the programs the ops pass
 * counted in GPU kernel lines, so those lines are read once. On one
 * host memory's programs (HLO, the runtime allocator's host lines) are
 * read beside the pass, as its last item; elsewhere all of memory
 * comes after it. */
static enum tp_err ops_then_memory(struct tp_report *r, struct tp_capture *cap,
				   struct tp_mem_options *mopt,
				   const struct tp_memory_filter *mf,
				   const struct tp_ops_filter *of, struct tp_error *err)
{
	struct memory_beside p = { tp_memory_build_programs, r, cap, mopt, mf, { 0 }, TP_OK };
	struct tp_ops_filter beside = *of;
	struct tp_mem_known_programs known;
	bool split = memory_beside_ok(cap);
	enum tp_err rc;

	if (split) {
		beside.runtime = &r->memory.runtime;
		beside.beside = memory_item;
		beside.beside_ctx = &p;
	}
	rc = tp_collectives_build(&r->coll, cap, &beside, err);
	if (rc != TP_OK)    /* the pass's errors first, as when it ran alone */
		return rc;
	if (split && p.rc != TP_OK) {
		*err = p.err;
		return p.rc;
	}
	known_programs(&known, &r->coll.ops);
	mopt->known = &known;
	rc = split ? tp_memory_build_cores(&r->memory, cap, mopt, mf, err)
		   : tp_memory_build(&r->memory, cap, mopt, mf, err);
	mopt->known = NULL;
	free((void *)known.entries);
	return rc;
}

/* After the pass, two at a time on two threads, each pair touching
 * apart: info (which scans what no core read) beside the sort of the
 * ops into the order the document says (sort "total", as `ops` writes
 * them); then the scope tree (over the sorted ops) beside the advice. */
struct after {
	struct tp_report *r;
	struct tp_capture *cap;
	bool second;
	struct tp_error err;
	enum tp_err rc;
};

static void after_item(void *ctx, size_t i, unsigned worker)
{
	struct after *a = ctx;

	(void)worker;
	if (!a->second && i == 0)
		a->rc = tp_info_build(&a->r->info, a->cap, &a->err);
	else if (!a->second)
		tp_ops_sort(&a->r->coll.ops, TP_SORT_TOTAL);
	else if (i == 0)
		tp_op_scopes_build(&a->r->scopes, &a->r->coll.ops, a->cap);
	else
		tp_advice_build(&a->r->advice, a->cap, &a->r->coll.ops, &a->r->memory);
}

static enum tp_err after_pass(struct tp_report *r, struct tp_capture *cap,
			      struct tp_error *err)
{
	struct after a = { r, cap, false, { 0 }, TP_OK };

	tp_parallel_for(2, 0, after_item, &a);
	if (a.rc != TP_OK) {
		*err = a.err;
		return a.rc;
	}
	a.second = true;
	tp_parallel_for(2, 0, after_item, &a);
	return TP_OK;
}

static enum tp_err build(struct tp_report *r, struct tp_capture *cap,
			 const struct tp_report_filter *f, struct tp_error *err)
{
	struct tp_mem_options mopt = { .color = 0, .max_suggestions = 5 };
	struct tp_selection sel;
	struct tp_memory_filter mf = { f->host, f->core, f->module, f->hbm, f->device, &sel };
	struct tp_ops_filter of = { .host = f->host, .core = f->core, .module = f->module,
				    .device = f->device, .selection = &sel,
				    .every_step_cats = f->per_step };
	enum tp_err rc;

	/* one selection for every analysis: the same hosts, cores and
	 * modules, and one verdict on options that match nothing */
	if ((rc = tp_selection_make(&sel, cap, f->host, f->core, f->module, err)) != TP_OK)
		return rc;

	/* info last: it needs every line scanned, and opening left the op
	 * lines (TP_DEFER_MIN_BYTES) to the ops pass, so that their events
	 * are read once; memory reads no op line, but for the programs GPU
	 * kernels carry, which the ops pass counts for it */
	if (has_gpu_planes(cap))
		rc = ops_then_memory(r, cap, &mopt, &mf, &of, err);
	else if (memory_beside_ok(cap) && tp_memory_lines_scanned(cap))
		rc = memory_beside_ops(r, cap, &mopt, &mf, &of, err);
	else
		rc = memory_then_ops(r, cap, &mopt, &mf, &of, err);
	tp_selection_release(&sel);
	if (rc != TP_OK)
		return rc;
	return after_pass(r, cap, err);
}

enum tp_err tp_report_build(struct tp_report *r, struct tp_capture *cap,
			    const struct tp_report_filter *f, struct tp_error *err)
{
	enum tp_err rc;

	memset(r, 0, sizeof(*r));
	rc = build(r, cap, f, err);
	if (rc != TP_OK) {
		tp_report_release(r);
		return rc;
	}
	/* a saved report says what it left out (ops.filter): check refuses
	 * a filtered baseline for a whole run */
	r->filter_host = f->host;
	r->filter_core = f->core;
	r->filter_module = f->module;
	return TP_OK;
}

void tp_report_release(struct tp_report *r)
{
	tp_info_release(&r->info);
	tp_memory_release(&r->memory);
	tp_collectives_release(&r->coll);
	tp_op_scopes_release(&r->scopes);
	tp_advice_release(&r->advice);
	memset(r, 0, sizeof(*r));
}
