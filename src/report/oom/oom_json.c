/*
 * oom_json.c - the tpuprof.oom/1 document (docs/json.md): every report
 * with its printed figures (bytes and the text as printed), its listed
 * allocations with their layouts, and the explanation.
 */
#include "tpuprof/report/oom_report.h"

#include <string.h>

#include "tpuprof/util/json_value.h"

static void str(struct tp_jw *w, const char *key, const char *s)
{
	tp_jw_put(w, key, s ? tp_json_cstr(s) : json_null());
}

static void size_json(struct tp_jw *w, const char *key, const struct tp_oom_size *s)
{
	if (!s->present)
		return;
	tp_jw_object(w, key);
	tp_jw_put(w, "bytes", s->unknown ? json_null() : tp_json_int(s->bytes));
	str(w, "text", s->text);
	tp_jw_put(w, "exact", json_boolean(s->exact));
	tp_jw_end(w);
}

static void layout_json(struct tp_jw *w, const struct tp_oom_layout *l)
{
	if (!l->parsed) {
		tp_jw_put(w, "layout", json_null());
		return;
	}
	tp_jw_object(w, "layout");
	str(w, "dtype", l->dtype);
	str(w, "tiles", l->tiles[0] ? l->tiles : NULL);
	tp_jw_array(w, "dims");
	for (int i = 0; i < l->n_dims; i++) {
		tp_jw_object(w, NULL);
		tp_jw_put_int(w, "size", l->dims[i].size);
		tp_jw_put_int(w, "padded", l->dims[i].padded);
		tp_jw_put_int(w, "tile", l->dims[i].tile);
		tp_jw_put_int(w, "minor_rank", l->dims[i].minor_rank);
		tp_jw_end(w);
	}
	tp_jw_end(w);
	tp_jw_put(w, "padded_bytes", l->elem_bits ? tp_json_int(l->padded_bytes) : json_null());
	tp_jw_put(w, "unpadded_bytes", l->elem_bits ? tp_json_int(l->unpadded_bytes) : json_null());
	tp_jw_end(w);
}

static void alloc_json(struct tp_jw *w, const struct tp_oom_alloc *a)
{
	tp_jw_object(w, NULL);
	tp_jw_put_int(w, "rank", a->rank);
	size_json(w, "size", &a->size);
	size_json(w, "unpadded", &a->unpadded);
	size_json(w, "padding", &a->padding);
	tp_jw_put(w, "expansion", a->has_expansion ? json_real(a->expansion) : json_null());
	str(w, "operator", a->operator_text);
	str(w, "op_type", a->op_type);
	str(w, "op_name", a->op_name);
	str(w, "source_file", a->source_file);
	tp_jw_put(w, "source_line", a->source_line >= 0 ? tp_json_int(a->source_line) : json_null());
	str(w, "shape", a->shape);
	layout_json(w, &a->layout);
	str(w, "xla_label", a->xla_label);
	str(w, "xla_label_name", a->xla_label_name);
	str(w, "remat_of", a->remat_of);
	str(w, "allocation_type", a->allocation_type);
	str(w, "entry_parameter_subshape", a->entry_parameter_subshape);
	tp_jw_end(w);
}

static void groups_json(struct tp_jw *w, const char *key, const struct tp_oom_group *g, size_t n)
{
	tp_jw_array(w, key);
	for (size_t i = 0; i < n; i++) {
		tp_jw_object(w, NULL);
		str(w, "name", g[i].name);
		tp_jw_put_int(w, "bytes", g[i].bytes);
		tp_jw_put_int(w, "padding_bytes", g[i].padding);
		tp_jw_put_int(w, "count", (int64_t)g[i].count);
		tp_jw_end(w);
	}
	tp_jw_end(w);
}

/* The scope tree depth first (children sorted by bytes). */
static void scope_json(struct tp_jw *w, const struct tp_scope_tree *t, size_t i)
{
	const struct tp_scope_node *n = &t->nodes[i];

	if (i != 0) {
		tp_jw_object(w, NULL);
		str(w, "path", n->path);
		str(w, "name", n->name);
		tp_jw_put_int(w, "depth", n->depth);
		tp_jw_put_int(w, "bytes", n->inclusive);
		tp_jw_put_int(w, "count", (int64_t)n->count_inclusive);
		tp_jw_end(w);
	}
	for (size_t c = 0; c < n->n_children; c++)
		scope_json(w, t, n->children[c]);
}

static void verdict_json(struct tp_jw *w, const struct tp_oom_explain *e)
{
	const struct tp_oom_report *r = e->r;

	tp_jw_object(w, "verdict");
	str(w, "phase", r->kind == TP_OOM_COMPILE ? "compile" : "runtime");
	str(w, "memory", r->memory_space);
	tp_jw_put(w, "over_by_bytes", e->has_over ? tp_json_int(e->over_by) : json_null());
	tp_jw_put(w, "over_by_derived", json_boolean(e->over_derived));
	str(w, "over_by_source", e->over_source);
	tp_jw_put(w, "over_by_alternative_bytes", e->has_over_alt ? tp_json_int(e->over_alt) : json_null());
	str(w, "over_by_alternative_source", e->has_over_alt ? e->over_alt_source : NULL);
	str(w, "cause", tp_oom_cause_name(e->cause));
	tp_jw_put(w, "cause_capacity_bytes", e->cause_capacity >= 0 ?
		  tp_json_int(e->cause_capacity) : json_null());
	str(w, "cause_capacity_source", e->cause_capacity < 0 ? NULL : e->cause_on_device ?
	    "device HBM - reserved (--device)" : "capacity");
	tp_jw_put(w, "fixed_bytes", e->fixed_bytes >= 0 ? tp_json_int(e->fixed_bytes) : json_null());
	tp_jw_put(w, "temporaries_bytes", e->temporaries_bytes >= 0 ?
		  tp_json_int(e->temporaries_bytes) : json_null());
	tp_jw_put(w, "temporaries_can_fix", e->cause == TP_OOM_CAUSE_UNKNOWN ||
		  e->cause == TP_OOM_CAUSE_FRAGMENTATION ? json_null() :
		  json_boolean(e->temporaries_can_fix));
	tp_jw_put(w, "fixed_cut_at_least_bytes", e->fixed_cut > 0 ? tp_json_int(e->fixed_cut) : json_null());
	tp_jw_object(w, "chip");
	tp_jw_array(w, "candidates");
	for (size_t i = 0; i < e->chip.n_rows; i++)
		tp_jw_put(w, NULL, tp_json_cstr(e->chip.rows[i]->key));
	tp_jw_end(w);
	tp_jw_put(w, "device_bytes", e->chip.n_rows ? tp_json_int(e->chip.device_bytes) : json_null());
	str(w, "basis", e->chip.basis[0] ? e->chip.basis : NULL);
	tp_jw_put(w, "forced", json_boolean(e->chip.forced));
	if (e->chip.n_printed) {
		tp_jw_object(w, "printed_disagrees");
		tp_jw_array(w, "candidates");
		for (size_t i = 0; i < e->chip.n_printed; i++)
			tp_jw_put(w, NULL, tp_json_cstr(e->chip.printed_rows[i]->key));
		tp_jw_end(w);
		tp_jw_put(w, "device_bytes", tp_json_int(e->chip.printed_bytes));
		str(w, "basis", e->chip.printed_basis);
		tp_jw_end(w);
	} else {
		tp_jw_put(w, "printed_disagrees", json_null());
	}
	tp_jw_end(w);
	tp_jw_end(w);
}

static void budget_json(struct tp_jw *w, const struct tp_oom_budget *b)
{
	if (!b->n) {
		tp_jw_put(w, "budget", json_null());
		return;
	}
	tp_jw_object(w, "budget");
	tp_jw_put_int(w, "line_bytes", b->line);
	tp_jw_put_int(w, "total_bytes", b->total);
	tp_jw_array(w, "parts");
	for (size_t i = 0; i < b->n; i++) {
		tp_jw_object(w, NULL);
		str(w, "figure", tp_oom_fig_name(b->parts[i].fig));
		tp_jw_put_int(w, "bytes", b->parts[i].bytes);
		tp_jw_end(w);
	}
	tp_jw_end(w);
	tp_jw_end(w);
}

static void cut_json(struct tp_jw *w, const struct tp_oom_explain *e)
{
	const struct tp_oom_report *r = e->r;

	tp_jw_object(w, "listed");
	tp_jw_put_int(w, "count", (int64_t)r->n_allocs);
	tp_jw_put_int(w, "bytes", e->listed_bytes);
	tp_jw_put_int(w, "padding_bytes", e->listed_padding);
	tp_jw_put(w, "share_of_over", e->has_over && e->over_by > 0 ?
		  json_real(e->listed_share_of_over) : json_null());
	tp_jw_put_int(w, "sources", (int64_t)e->n_sources);
	tp_jw_put(w, "cover_count", e->cover_count ? tp_json_int((int64_t)e->cover_count) : json_null());
	str(w, "cover_scope", e->cover_scope != SIZE_MAX ? e->scopes.nodes[e->cover_scope].path : NULL);
	tp_jw_array(w, "cover_scopes");
	for (size_t i = 0; i < e->n_cover_scopes; i++) {
		const struct tp_scope_node *s = &e->scopes.nodes[e->cover_scopes[i]];

		tp_jw_object(w, NULL);
		str(w, "scope", s->path);
		tp_jw_put_int(w, "bytes", s->inclusive);
		tp_jw_end(w);
	}
	tp_jw_end(w);
	tp_jw_end(w);
	tp_jw_array(w, "splits");
	for (size_t i = 0; i < e->n_splits; i++) {
		const struct tp_oom_split *s = &e->splits[i];

		tp_jw_object(w, NULL);
		tp_jw_put_int(w, "rank", r->allocs[s->alloc].rank);
		tp_jw_put_int(w, "dimension", s->dim);
		tp_jw_put_int(w, "ways", s->ways);
		tp_jw_put_int(w, "saves_at_least_bytes", s->saves);
		tp_jw_end(w);
	}
	tp_jw_end(w);
	tp_jw_array(w, "relayouts");
	for (size_t i = 0; i < e->n_relayouts; i++) {
		const struct tp_oom_relayout *x = &e->relayouts[i];

		tp_jw_object(w, NULL);
		tp_jw_put_int(w, "rank", r->allocs[x->alloc].rank);
		tp_jw_put_int(w, "minor_dimension", x->minor);
		tp_jw_put_int(w, "second_minor_dimension", x->second);
		tp_jw_put_int(w, "padded_bytes", x->padded_bytes);
		tp_jw_put_int(w, "saves_bytes", x->saves);
		tp_jw_end(w);
	}
	tp_jw_end(w);
	tp_jw_array(w, "missing");
	for (size_t i = 0; i < e->n_missing; i++)
		tp_jw_put(w, NULL, tp_json_cstr(e->missing[i]));
	tp_jw_end(w);
}

static void report_json(struct tp_jw *w, const char *path, const struct tp_oom_explain *e)
{
	const struct tp_oom_report *r = e->r;

	tp_jw_object(w, NULL);
	str(w, "input", path);
	tp_jw_put_int(w, "line", r->line);
	str(w, "kind", tp_oom_kind_name(r->kind));
	str(w, "memory_space", r->memory_space);
	str(w, "error_code", r->error_code);
	str(w, "error_name", r->error_name);
	str(w, "runtime_op", r->runtime_op);
	str(w, "device", r->device);
	tp_jw_put(w, "device_ordinal", r->device_ordinal >= 0 ? tp_json_int(r->device_ordinal) : json_null());
	tp_jw_array(w, "log_prefixes");
	for (int i = 0; i < r->n_log_prefixes; i++)
		tp_jw_put(w, NULL, tp_json_cstr(r->log_prefixes[i]));
	tp_jw_end(w);
	tp_jw_put(w, "text_cut", json_boolean(r->text_cut));
	tp_jw_put(w, "headless", json_boolean(r->headless));
	str(w, "program_name", r->program_name);
	verdict_json(w, e);
	budget_json(w, &e->budget);
	tp_jw_object(w, "figures");
	for (int f = 0; f < TP_OOM_FIG_N; f++)
		size_json(w, tp_oom_fig_name(f), &r->fig[f]);
	tp_jw_end(w);
	tp_jw_object(w, "percentages");
	for (int p = 0; p < TP_OOM_PCT_N; p++)
		if (r->has_pct[p])
			tp_jw_put(w, tp_oom_pct_name(p), json_real(r->pct[p]));
	tp_jw_end(w);
	tp_jw_array(w, "total_usage_parts");
	for (size_t i = 0; i < r->n_total_parts; i++) {
		tp_jw_object(w, NULL);
		str(w, "name", r->total_parts[i].name);
		size_json(w, "size", &r->total_parts[i].size);
		tp_jw_end(w);
	}
	tp_jw_end(w);
	str(w, "allocations_memory_space", r->allocations_memory_space);
	tp_jw_array(w, "allocations");
	for (size_t i = 0; i < r->n_allocs; i++)
		alloc_json(w, &r->allocs[i]);
	tp_jw_end(w);
	cut_json(w, e);
	tp_jw_array(w, "scopes");
	if (e->scopes.n)
		scope_json(w, &e->scopes, 0);
	tp_jw_end(w);
	groups_json(w, "op_types", e->op_types, e->n_op_types);
	groups_json(w, "allocation_types", e->alloc_types, e->n_alloc_types);
	tp_jw_end(w);
}

void tp_oom_json(struct tp_jw *w, const char *key, const struct tp_oom_result *res)
{
	tp_jw_object(w, key);
	tp_jw_put(w, "schema", tp_json_cstr("tpuprof.oom/1"));
	tp_jw_array(w, "inputs");
	for (size_t i = 0; i < res->n_files; i++) {
		tp_jw_object(w, NULL);
		str(w, "path", res->files[i].path);
		tp_jw_put_int(w, "lines", res->files[i].log.lines);
		tp_jw_put_int(w, "reports", (int64_t)res->files[i].log.n);
		tp_jw_put(w, "reports_dropped", json_boolean(res->files[i].log.reports_dropped));
		tp_jw_end(w);
	}
	tp_jw_end(w);
	tp_jw_put_int(w, "reports_count", (int64_t)res->n_ex);
	tp_jw_array(w, "reports");
	for (size_t i = 0; i < res->n_ex; i++)
		report_json(w, res->files[res->ex_file[i]].path, &res->ex[i]);
	tp_jw_end(w);
	tp_jw_end(w);
}
