/*
 * oom_text.c - `tpuprof oom` as text: per report the verdict, where the
 * memory goes (the blocks as printed), the listed allocations with their
 * layouts, the roll-ups and what to cut (docs/oom.md). Printed figures
 * are shown as printed; derived ones in binary units with their basis.
 */
#include "oom_text.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/units.h"

#define LIST_MAX 10
/* every listed allocation is shown as JSON and HTML show it (XLA lists
 * about 20); beyond this many the text says how many more */
#define ALLOC_MAX 64

static const char *fig(const struct tp_oom_report *r, enum tp_oom_fig f)
{
	return r->fig[f].present ? r->fig[f].text : NULL;
}

/* The figures after the usage blocks, as the text names them. */
static const char *const fig_label[TP_OOM_FIG_N - TP_OOM_TOP_OF_MEMORY_RESERVED] = {
	"top-of-memory reserved", "held by other buffers (currently allocated)",
	"program requirement (table)", "available after the request", "largest free chunk",
	"persistent arguments", "persistent output", "BufferAssignment parameters",
	"BufferAssignment constants", "BufferAssignment maybe-live-out",
	"BufferAssignment preallocated temp", "BufferAssignment total",
	"BufferAssignment fragmentation", "rounded request", "in-use chunks",
	"allocator limit", "allocator in use", "allocator max in use",
	"TensorCore HBM usage", "SparseCore HBM usage",
};

static void parts(FILE *out, const struct tp_oom_report *r)
{
	if (fig(r, TP_OOM_TOTAL_USAGE)) {
		fprintf(out, "    total usage >= %s:", fig(r, TP_OOM_TOTAL_USAGE));
		for (size_t i = 0; i < r->n_total_parts; i++)
			fprintf(out, "%s %s %s", i ? "," : "", r->total_parts[i].name,
				r->total_parts[i].size.text);
		fputc('\n', out);
	}
	if (fig(r, TP_OOM_OUTPUT))
		fprintf(out, "    output %s%s%s%s\n", fig(r, TP_OOM_OUTPUT),
			fig(r, TP_OOM_OUTPUT_SHARES) ? ", shares " : "",
			fig(r, TP_OOM_OUTPUT_SHARES) ? fig(r, TP_OOM_OUTPUT_SHARES) : "",
			fig(r, TP_OOM_OUTPUT_SHARES) ? " with the arguments" : "");
	if (fig(r, TP_OOM_PROGRAM_REQUIREMENT)) {
		static const enum tp_oom_fig p[] = { TP_OOM_PROGRAM_RESERVED, TP_OOM_GLOBAL,
			TP_OOM_SCOPED, TP_OOM_HLO_TEMP, TP_OOM_OVERLAYS };
		static const char *const names[] = { "reserved", "global", "scoped", "HLO temp",
			"overlays" };
		const char *sep = "";

		fprintf(out, "    program requirement %s:", fig(r, TP_OOM_PROGRAM_REQUIREMENT));
		for (size_t i = 0; i < 5; i++) {
			if (fig(r, p[i])) {
				fprintf(out, "%s %s %s", sep, names[i], fig(r, p[i]));
				sep = ",";
			}
		}
		fputc('\n', out);
	}
	if (fig(r, TP_OOM_HLO_TEMP)) {
		fprintf(out, "    HLO temp %s:", fig(r, TP_OOM_HLO_TEMP));
		if (fig(r, TP_OOM_HLO_TEMP_UNPADDED) && fig(r, TP_OOM_HLO_TEMP_PADDED))
			fprintf(out, " unpadded %s, padded %s,", fig(r, TP_OOM_HLO_TEMP_UNPADDED),
				fig(r, TP_OOM_HLO_TEMP_PADDED));
		if (r->has_pct[TP_OOM_PCT_HLO_TEMP_UTILIZATION])
			fprintf(out, " %.1f%% utilization (unpadded / padded),",
				r->pct[TP_OOM_PCT_HLO_TEMP_UTILIZATION]);
		if (fig(r, TP_OOM_HLO_TEMP_FRAGMENTATION))
			fprintf(out, " fragmentation %s (%.1f%% of HLO temp)",
				fig(r, TP_OOM_HLO_TEMP_FRAGMENTATION),
				r->pct[TP_OOM_PCT_HLO_TEMP_FRAGMENTATION]);
		fputc('\n', out);
	}
	for (int f = TP_OOM_TOP_OF_MEMORY_RESERVED; f < TP_OOM_FIG_N; f++) {
		if (!r->fig[f].present)
			continue;
		fprintf(out, "    %s %s", fig_label[f - TP_OOM_TOP_OF_MEMORY_RESERVED], r->fig[f].text);
		if (r->fig[f].exact && strpbrk(r->fig[f].text, "KMGTPE"))
			fprintf(out, " (%lld bytes)", (long long)r->fig[f].bytes);
		else if (r->fig[f].exact && !strchr(r->fig[f].text, 'B') && !strstr(r->fig[f].text, "bytes"))
			fputs(" bytes", out);
		if (f == TP_OOM_PERSISTENT_ARGUMENTS && r->has_pct[TP_OOM_PCT_PERSISTENT_ARGUMENTS_UTILIZATION])
			fprintf(out, " (%.1f%% utilization)", r->pct[TP_OOM_PCT_PERSISTENT_ARGUMENTS_UTILIZATION]);
		if (f == TP_OOM_PERSISTENT_OUTPUT && r->has_pct[TP_OOM_PCT_PERSISTENT_OUTPUT_UTILIZATION])
			fprintf(out, " (%.1f%% utilization)", r->pct[TP_OOM_PCT_PERSISTENT_OUTPUT_UTILIZATION]);
		if (f == TP_OOM_BA_TOTAL_FRAGMENTATION && r->has_pct[TP_OOM_PCT_BA_TOTAL_FRAGMENTATION])
			fprintf(out, " (%.2f%%)", r->pct[TP_OOM_PCT_BA_TOTAL_FRAGMENTATION]);
		fputc('\n', out);
	}
}

/* "dim 4 (18) -> 128, dim 3 (9) -> 16 by T(8,128)" */
static void padded_dims(FILE *out, const struct tp_oom_layout *l)
{
	const char *sep = "";

	if (!l->parsed)
		return;
	for (int i = 0; i < l->n_dims; i++) {
		if (l->dims[i].padded == l->dims[i].size)
			continue;
		fprintf(out, "%sdim %d (%lld) -> %lld", sep, i, (long long)l->dims[i].size,
			(long long)l->dims[i].padded);
		sep = ", ";
	}
	if (*sep)
		fprintf(out, " by %s", l->tiles);
}

static void allocations(FILE *out, const struct tp_oom_explain *e)
{
	const struct tp_oom_report *r = e->r;
	char a[32], b[32];

	if (!r->n_allocs)
		return;
	fprintf(out, "  listed allocations (%zu; XLA lists only the largest): %s, padding %s\n",
		r->n_allocs, tp_oom_fmt_b(a, sizeof(a), e->listed_bytes),
		tp_oom_fmt_b(b, sizeof(b), e->listed_padding));
	/* the last entry cut short: its shape is not in the text, which
	 * is not to say XLA printed none */
	bool cut_last = e->n_missing &&
		strcmp(e->missing[e->n_missing - 1], "last_allocation_details") == 0;

	for (size_t i = 0; i < r->n_allocs && i < ALLOC_MAX; i++) {
		const struct tp_oom_alloc *x = &r->allocs[i];

		fprintf(out, "    %2d. %-8s %s%s\n", x->rank, x->size.present ? x->size.text : "?",
			x->shape ? x->shape : x->entry_parameter_subshape ?
			x->entry_parameter_subshape : cut_last && i + 1 == r->n_allocs ?
			"(the entry is cut off here)" : "(shape not printed)",
			!x->shape && x->entry_parameter_subshape ? " (entry parameter subshape)" : "");
		if (x->op_name || x->op_type)
			fprintf(out, "        op: %s%s%s%s\n", x->op_name ? x->op_name : "",
				x->op_type ? " (" : "", x->op_type ? x->op_type : "",
				x->op_type ? ")" : "");
		if (x->source_file)
			fprintf(out, "        source: %s:%lld\n", x->source_file, (long long)x->source_line);
		if (x->xla_label_name)
			fprintf(out, "        instruction: %s%s%s\n", x->xla_label_name,
				x->remat_of ? ", a rematerialized copy of " : "",
				x->remat_of ? x->remat_of : "");
		if (x->padding.present) {
			fprintf(out, "        padding: %s of %s unpadded", x->padding.text, x->unpadded.text);
			if (x->has_expansion)
				fprintf(out, " (%.1fx)", x->expansion);
			fputs(": ", out);
			padded_dims(out, &x->layout);
			fputc('\n', out);
		}
		if (x->allocation_type)
			fprintf(out, "        type: %s\n", x->allocation_type);
	}
	if (r->n_allocs > ALLOC_MAX)
		fprintf(out, "    ... %zu more (--format json lists them all)\n",
			r->n_allocs - ALLOC_MAX);
}

/* The scope tree depth first, children largest first (JSON has them
 * all); a chain of single children is shown at its end. Children not
 * shown (past the 4 largest of each, or past LIST_MAX rows) are one row
 * with their count and bytes, so the rows under a scope add up to it. */
static void scope_rows(FILE *out, const struct tp_scope_tree *t, size_t i, size_t *shown)
{
	const struct tp_scope_node *n = &t->nodes[i];
	char a[32];
	size_t c;
	int64_t rest = 0;

	if (i != 0 && !(n->n_children == 1 && n->count_exclusive == 0)) {
		fprintf(out, "    %-9s %s\n", tp_oom_fmt_b(a, sizeof(a), n->inclusive), n->path);
		(*shown)++;
	}
	/* the 4 largest children of each: a big sibling is not hidden under
	 * the first one's many small children */
	for (c = 0; c < n->n_children && c < 4 && *shown < LIST_MAX; c++)
		scope_rows(out, t, n->children[c], shown);
	if (c == n->n_children)
		return;
	for (size_t k = c; k < n->n_children; k++)
		rest += t->nodes[n->children[k]].inclusive;
	if (i == 0)
		fprintf(out, "    %-9s (%zu more scope%s)\n", tp_oom_fmt_b(a, sizeof(a), rest),
			n->n_children - c, n->n_children - c == 1 ? "" : "s");
	else
		fprintf(out, "    %-9s (%zu more in %s)\n", tp_oom_fmt_b(a, sizeof(a), rest),
			n->n_children - c, n->path);
}

static void rollups(FILE *out, const struct tp_oom_explain *e)
{
	char a[32];
	size_t shown = 0;
	int64_t rest = 0;

	if (!e->r->n_allocs)
		return;
	fputs("  by name scope (listed allocations):\n", out);
	if (e->scopes.n)
		scope_rows(out, &e->scopes, 0, &shown);
	fputs("  by op type:", out);
	for (size_t i = 0; i < e->n_op_types && i < LIST_MAX; i++)
		fprintf(out, "%s %s %s", i ? "," : "", e->op_types[i].name,
			tp_oom_fmt_b(a, sizeof(a), e->op_types[i].bytes));
	for (size_t i = LIST_MAX; i < e->n_op_types; i++)
		rest += e->op_types[i].bytes;
	if (e->n_op_types > LIST_MAX)
		fprintf(out, ", %zu more %s", e->n_op_types - LIST_MAX,
			tp_oom_fmt_b(a, sizeof(a), rest));
	fputs("\n  by allocation type:", out);
	for (size_t i = 0; i < e->n_alloc_types; i++)
		fprintf(out, "%s %s %s", i ? "," : "", e->alloc_types[i].name,
			tp_oom_fmt_b(a, sizeof(a), e->alloc_types[i].bytes));
	fputc('\n', out);
}

static void cut(FILE *out, const struct tp_oom_explain *e)
{
	const struct tp_oom_report *r = e->r;
	char a[32], b[32];

	if (!e->has_over || e->over_by <= 0)
		return;
	fprintf(out, "  to fit: cut at least %s\n", tp_oom_fmt_bound(a, sizeof(a), e->over_by, true));
	if (e->cause != TP_OOM_CAUSE_UNKNOWN && e->cause != TP_OOM_CAUSE_TEMPORARIES &&
	    e->cause != TP_OOM_CAUSE_FRAGMENTATION) {
		/* never "cut temporaries" for what temporaries cannot fix */
		fprintf(out, "    at least %s of it from the %s (the cause above); the listed "
			"allocations (%s) are temporaries and cannot make it up\n",
			tp_oom_fmt_bound(a, sizeof(a), e->fixed_cut, true),
			e->cause == TP_OOM_CAUSE_ARGUMENTS ? "arguments" :
			e->cause == TP_OOM_CAUSE_OUTPUT ? "output" :
			e->cause == TP_OOM_CAUSE_RESERVED ? "runtime reservation" :
			"arguments and output", tp_oom_fmt_b(b, sizeof(b), e->listed_bytes));
		return;
	}
	if (r->n_allocs) {
		if (e->cover_count == 1)
			fprintf(out, "    the listed allocations hold %s (%.0f%% of it); the largest "
				"listed source op (of %zu; .remat copies once) alone holds enough\n",
				tp_oom_fmt_b(b, sizeof(b), e->listed_bytes), 100 * e->listed_share_of_over,
				e->n_sources);
		else if (e->cover_count)
			fprintf(out, "    the listed allocations hold %s (%.0f%% of it); the %zu largest "
				"listed source ops (of %zu; .remat copies once) hold enough\n",
				tp_oom_fmt_b(b, sizeof(b), e->listed_bytes), 100 * e->listed_share_of_over,
				e->cover_count, e->n_sources);
		else
			fprintf(out, "    the listed allocations hold %s, %.0f%% of it: the rest is "
				"beyond the list\n", tp_oom_fmt_b(b, sizeof(b), e->listed_bytes),
				100 * e->listed_share_of_over);
		if (e->cover_scope != SIZE_MAX)
			fprintf(out, "    scope that covers it: %s (%s)\n",
				e->scopes.nodes[e->cover_scope].path,
				tp_oom_fmt_b(b, sizeof(b), e->scopes.nodes[e->cover_scope].inclusive));
		else if (e->n_cover_scopes) {
			fprintf(out, "    scopes that together cover it:");
			for (size_t i = 0; i < e->n_cover_scopes; i++)
				fprintf(out, "%s %s (%s)", i ? "," : "",
					e->scopes.nodes[e->cover_scopes[i]].path,
					tp_oom_fmt_b(b, sizeof(b), e->scopes.nodes[e->cover_scopes[i]].inclusive));
			fprintf(out, "\n");
		}
		if (e->listed_padding > 0)
			fprintf(out, "    padding in the listed shapes: %s (a shape whose padded "
				"dimensions are multiples of the tile saves it)\n",
				tp_oom_fmt_b(b, sizeof(b), e->listed_padding));
	}
	for (size_t i = 0; i < e->n_relayouts && i < 3; i++) {
		const struct tp_oom_relayout *x = &e->relayouts[i];
		const struct tp_oom_layout *l = &r->allocs[x->alloc].layout;

		fprintf(out, "    #%d with dims %d (%lld) and %d (%lld) as the two most minor, %s pads "
			"%s: saves %s\n", r->allocs[x->alloc].rank, x->second,
			(long long)l->dims[x->second].size, x->minor, (long long)l->dims[x->minor].size,
			l->tiles, x->padded_bytes > l->unpadded_bytes ? "less" : "nothing",
			tp_oom_fmt_b(a, sizeof(a), x->saves));
	}
	for (size_t i = 0; i < e->n_splits; i++) {
		const struct tp_oom_split *s = &e->splits[i];
		const struct tp_oom_alloc *x = &r->allocs[s->alloc];

		/* the command splits the same dimension: NAME:K alone would
		 * split the leading one; without an instruction name (no XLA
		 * label printed) there is no command that can run */
		fprintf(out, "    split #%d along dim %d (%lld) %lld ways: saves at least %s ",
			x->rank, s->dim, (long long)x->layout.dims[s->dim].size, (long long)s->ways,
			tp_oom_fmt_bound(a, sizeof(a), s->saves, false));
		if (x->xla_label_name)
			fprintf(out, "(memory --split %s:%d:%lld)\n", x->xla_label_name, s->dim,
				(long long)s->ways);
		else
			fputs("(no instruction name printed)\n", out);
	}
}

static void missing(FILE *out, const struct tp_oom_explain *e)
{
	if (!e->n_missing)
		return;
	fputs("  not in the text (cut short?):", out);
	for (size_t i = 0; i < e->n_missing; i++)
		fprintf(out, "%s %s", i ? "," : "", e->missing[i]);
	fputc('\n', out);
}

enum tp_err tp_oom_text(FILE *out, const struct tp_oom_result *res, struct tp_error *err)
{
	for (size_t i = 0; i < res->n_ex; i++) {
		const struct tp_oom_explain *e = &res->ex[i];
		const struct tp_oom_report *r = e->r;

		fprintf(out, "%sreport %zu of %zu: %s line %lld: %s%s%s%s%s%s\n", i ? "\n" : "",
			i + 1, res->n_ex, res->files[res->ex_file[i]].path, (long long)r->line,
			r->kind == TP_OOM_GPU ? "GPU" : "TPU",
			r->kind == TP_OOM_COMPILE ? " compile time" : " run time",
			r->memory_space ? ", " : "", r->memory_space ? r->memory_space : "",
			r->error_code ? ", " : "", r->error_code ? r->error_code : "");
		tp_oom_text_verdict(out, e);
		tp_oom_text_cause(out, e);
		parts(out, r);
		allocations(out, e);
		rollups(out, e);
		cut(out, e);
		missing(out, e);
	}
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
