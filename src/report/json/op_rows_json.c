/*
 * op_rows_json.c - the ops of a core, one object each (docs/json.md,
 * ops.cores[].ops[]), and the names ops print (their op source, module):
 * a report's most numerous objects, three quarters of its text. On the
 * threads the caller gives (a core written alone: all of them), written
 * in blocks of ROWS_BLOCK ops, one block per thread at a time, each into
 * memory (tp_jw_fork) and spliced back in order: the
 * text is the same as written one op after the other, on any number of
 * threads (tests/check_json_stream.c, the goldens).
 */
#include "op_rows.h"

#include <string.h>

#include "tpuprof/report/device_report.h"
#include "tpuprof/report/ops_report.h"
#include "tpuprof/util/parallel.h"

/* Ops per block: about 200 KB of text, so a round of blocks costs a
 * few hundred KB of memory whatever the core's size. */
#define ROWS_BLOCK 256

const char *tp_op_source_name(enum tp_op_source src)
{
	switch (src) {
	case TP_OPSRC_TPU: return "xla_ops";
	case TP_OPSRC_GPU: return "gpu_kernels";
	case TP_OPSRC_TF: return "tensorflow_ops";
	}
	return "unknown";
}

struct tp_str tp_report_module_name(const struct tp_capture *cap, size_t m)
{
	return m < cap->n_modules ? tp_module_name(&cap->modules[m])
				  : tp_str_make("", 0);
}

bool tp_report_module_name_shared(const struct tp_capture *cap, size_t m)
{
	struct tp_str name = tp_report_module_name(cap, m);

	if (m >= cap->n_modules)
		return false;
	for (size_t i = 0; i < cap->n_modules; i++) {
		struct tp_str other = tp_module_name(&cap->modules[i]);

		if (cap->modules[i].program_id != cap->modules[m].program_id &&
		    other.len == name.len && memcmp(other.ptr, name.ptr, name.len) == 0)
			return true;
	}
	return false;
}

/* A short constant string, without a jansson value when streaming. */
static void word(struct tp_jw *w, const char *key, const char *s)
{
	if (!tp_jw_put_plain(w, key, s, strlen(s)))
		tp_jw_put(w, key, json_string(s));
}

/* The op against its device (docs/devices.md). The peak it is measured
 * against is the core's, for its precision: not repeated per op (a
 * 100,000-op page must stay small). */
static void op_roofline_json(struct tp_jw *w, const struct tp_ops *ops, const struct tp_op *o)
{
	const struct tp_device_figures *f = &ops->cores[o->core].device;
	struct tp_work work;
	struct tp_roofline r;

	tp_op_work(ops, o, &work);
	tp_roofline_of(&work, f, &r);
	/* a rate only over the time that did the work (never an async
	 * half's own time) */
	tp_jw_real_or_null(w, "flops_per_s", r.has_flops_rate, r.flops_per_s);
	tp_jw_real_or_null(w, "bytes_per_s", r.has_bytes_rate, r.bytes_per_s);
	if (o->async == TP_ASYNC_NONE)
		tp_jw_put(w, "async", json_null());
	else
		word(w, "async", o->async == TP_ASYNC_START ? "start" :
				 o->async == TP_ASYNC_DONE ? "done" : "update");
	tp_jw_put(w, "host_transfer", json_boolean(o->host_transfer));
	if (o->precision == TP_PREC_UNKNOWN)
		tp_jw_put(w, "precision", json_null());
	else
		word(w, "precision", tp_precision_name(o->precision));
	tp_jw_real_or_null(w, "flop_utilization", r.has_flop_util, r.flop_utilization);
	tp_jw_real_or_null(w, "hbm_bw_utilization", r.has_hbm_util, r.hbm_utilization);
	/* short codes: a 100,000-op page repeats them (docs/json.md) */
	if (r.flop_util_na)
		word(w, "flop_utilization_unavailable", tp_share_na_code(r.flop_util_na));
	else
		tp_jw_put(w, "flop_utilization_unavailable", json_null());
	if (r.hbm_util_na)
		word(w, "hbm_bw_utilization_unavailable", tp_share_na_code(r.hbm_util_na));
	else
		tp_jw_put(w, "hbm_bw_utilization_unavailable", json_null());
	tp_jw_real_or_null(w, "arithmetic_intensity", r.has_intensity, r.intensity);
	word(w, "bound", tp_bound_name(r.bound));
}

/* One op, field by field: the report's most numerous object. */
static void op_json(struct tp_jw *w, const struct tp_capture *cap,
		    const struct tp_ops *ops, const struct tp_op *o)
{
	const struct tp_ops_core *core = &ops->cores[o->core];

	tp_jw_object(w, NULL);
	tp_jw_str(w, "name", o->name);
	tp_jw_id_or_null(w, "program_id", core->source != TP_OPSRC_TF, o->program_id);
	if (o->module == SIZE_MAX)
		tp_jw_put(w, "module", json_null());
	else
		tp_jw_str(w, "module", tp_report_module_name(cap, o->module));
	tp_jw_str_or_null(w, "category", o->category);
	tp_jw_str(w, "scope", o->scope);
	tp_jw_put(w, "source", o->source ? tp_json_cstr(o->source) : json_null());
	tp_jw_put(w, "collective", json_boolean(o->collective));
	tp_jw_uint(w, "occurrences", o->occurrences);
	tp_jw_int(w, "total_ps", o->total_ps);
	tp_jw_int(w, "self_ps", o->self_ps);
	tp_jw_int(w, "min_ps", o->min_ps);
	tp_jw_int(w, "avg_ps", tp_op_avg_ps(o));
	tp_jw_real_or_null(w, "device_share", core->device_ps > 0,
		     (double)o->self_ps / (double)core->device_ps);
	tp_jw_int_or_null(w, "flops", o->has_flops, o->flops);
	tp_jw_int_or_null(w, "bytes_accessed", o->has_bytes, o->bytes_accessed);
	if (o->cost_source == TP_COST_NONE)
		tp_jw_put(w, "cost_source", json_null());
	else
		word(w, "cost_source", tp_cost_source_name(o->cost_source));
	op_roofline_json(w, ops, o);
	tp_jw_end(w);
}

struct rows_round {
	const struct tp_capture *cap;
	const struct tp_ops *ops;
	const struct tp_ops_core *core;
	size_t first;                  /* the round's first op, in the core */
	struct tp_jw *parts;           /* one per block of the round        */
};

static void rows_block(void *ctx, size_t b, unsigned worker)
{
	const struct rows_round *r = ctx;
	size_t lo = r->first + b * ROWS_BLOCK, hi = lo + ROWS_BLOCK;

	(void)worker;
	if (hi > r->core->n_ops)
		hi = r->core->n_ops;
	for (size_t i = lo; i < hi && tp_jw_ok(&r->parts[b]); i++)
		op_json(&r->parts[b], r->cap, r->ops, &r->ops->ops[r->core->first_op + i]);
}

/* One round: a block per thread, forked from w, written at once, then
 * spliced in order. False when w could not fork (nothing written). */
static bool rows_round(struct tp_jw *w, struct rows_round *r, unsigned threads)
{
	size_t left = r->core->n_ops - r->first;
	size_t blocks = (left + ROWS_BLOCK - 1) / ROWS_BLOCK, forked = 0;

	if (blocks > threads)
		blocks = threads;
	while (forked < blocks &&
	       tp_jw_fork(&r->parts[forked], w, r->first > 0 || forked > 0))
		forked++;
	if (forked < blocks) {
		while (forked)  /* spliced empty: they wrote nothing */
			tp_jw_splice(w, &r->parts[--forked]);
		return false;
	}
	tp_parallel_for(blocks, threads, rows_block, r);
	for (size_t b = 0; b < blocks; b++)
		tp_jw_splice(w, &r->parts[b]);
	return true;
}

void tp_op_rows_json(struct tp_jw *w, const struct tp_capture *cap,
		     const struct tp_ops *ops, const struct tp_ops_core *c,
		     unsigned threads)
{
	struct tp_jw parts[TP_MAX_THREADS];
	struct rows_round r = { cap, ops, c, 0, parts };

	if (threads > TP_MAX_THREADS)
		threads = TP_MAX_THREADS;
	if (threads > 1 && c->n_ops >= 2 * ROWS_BLOCK)
		for (; r.first < c->n_ops && tp_jw_ok(w); r.first += threads * ROWS_BLOCK)
			if (!rows_round(w, &r, threads))
				break;
	for (size_t i = r.first; i < c->n_ops && tp_jw_ok(w); i++)
		op_json(w, cap, ops, &ops->ops[c->first_op + i]);
}
