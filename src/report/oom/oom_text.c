/*
 * oom_text.c - `tpuprof oom` as text: per report the verdict, where the
 * memory goes (the blocks as printed), the listed allocations with their
 * layouts, the roll-ups and what to cut (docs/oom.md). Printed figures
 * are shown as printed; derived ones in binary units with their basis.
 */
#include "tpuprof/report/oom_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/units.h"

#define LIST_MAX 10
/* every listed allocation is shown as JSON and HTML show it (XLA lists
 * about 20); beyond this many the text says how many more */
#define ALLOC_MAX 64

static const char *fmt_b(char *buf, size_t n, int64_t v)
{
	if (v < 0) {
		char tmp[32];

		snprintf(buf, n, "-%s", tp_fmt_bytes(tmp, sizeof(tmp), (uint64_t)-v));
		return buf;
	}
	return tp_fmt_bytes(buf, n, (uint64_t)v);
}

/* A bound in tp_fmt_bytes's style, rounded away from what it bounds: a
 * lower bound ("cut at least") up, an upper bound down, so that the
 * figure shown still holds. */
static const char *fmt_bound(char *buf, size_t n, int64_t v, bool up)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double x = (double)(v < 0 ? -v : v), scale;
	int u = -1, d;

	if (x < 1024)
		return fmt_b(buf, n, v);
	while (x >= 1024 && u < 4) {
		x /= 1024;
		u++;
	}
	d = x < 10 ? 2 : x < 100 ? 1 : 0;
	scale = d == 2 ? 100 : d == 1 ? 10 : 1;
	/* the sign flips the direction of a magnitude's rounding */
	x = (up == (v >= 0)) ? ceil(x * scale - 1e-9) / scale : floor(x * scale + 1e-9) / scale;
	snprintf(buf, n, "%s%.*f %s", v < 0 ? "-" : "", d, x, units[u]);
	return buf;
}

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

/* The overage as shown: a printed figure as printed, a derived one in
 * binary units. */
static const char *over_text(char *buf, size_t n, const struct tp_oom_explain *e)
{
	const struct tp_oom_report *r = e->r;

	if (!e->over_derived && strcmp(e->over_source, "available_after_request") == 0) {
		/* "-2.55G" printed: the shortfall is its magnitude */
		snprintf(buf, n, "%s", r->fig[TP_OOM_AVAILABLE_AFTER_REQUEST].text + 1);
		return buf;
	}
	if (!e->over_derived)
		return fig(r, TP_OOM_EXCEEDED);
	return fmt_b(buf, n, e->over_by);
}

/* An overage's source (docs/json.md over_by_source) in words. */
static const char *source_words(const char *source)
{
	static const char *const words[][2] = {
		{ "available_after_request", "the HBM capacity table's 'Available after request'" },
		{ "request - reservable", "the request less 'reservable'" },
		{ "request - free", "the request less 'free'" },
		{ "request - largest_free_region", "the request less the largest free region" },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(source, words[i][0]) == 0)
			return words[i][1];
	return source;
}

static const char *alt_reason(const struct tp_oom_explain *e)
{
	if (strcmp(e->over_source, "available_after_request") == 0)
		return "the HBM capacity table counts bytes exactly and also takes off the "
		       "top-of-memory reservation, which 'free' and 'reservable' still include";
	return "it is printed, the other derived";
}

/* A report without its headline: what is unknown and how the chip can
 * still be told. */
static void headless(FILE *out, const struct tp_oom_explain *e)
{
	fputs("  headless: the text starts after the headline, so used, capacity and the "
	      "overage are not printed (unknown, not guessed)", out);
	if (e->chip.forced && e->has_over)
		fprintf(out, "; the over-by is the printed total usage against %s's HBM",
			e->chip.rows[0]->key);
	else if (!e->chip.n_rows)
		fputs("; --device NAME (tpuprof devices) compares the printed total usage with "
		      "that chip's HBM", out);
	fputc('\n', out);
}

static void verdict(FILE *out, const struct tp_oom_explain *e)
{
	const struct tp_oom_report *r = e->r;
	const char *space = r->memory_space ? r->memory_space : "device memory";
	char a[32], b[32];

	if (fig(r, TP_OOM_USED) && fig(r, TP_OOM_CAPACITY))
		fprintf(out, "  verdict: the program needs %s of %s %s", fig(r, TP_OOM_USED),
			fig(r, TP_OOM_CAPACITY), space);
	else if (fig(r, TP_OOM_REQUEST))
		fprintf(out, "  verdict: %s %s failed", r->runtime_op && strcmp(r->runtime_op, "reserve") == 0 ?
			"reserving program memory of" : "allocating", fig(r, TP_OOM_REQUEST));
	else if (fig(r, TP_OOM_TENSORCORE_USAGE) && fig(r, TP_OOM_SPARSECORE_USAGE))
		fprintf(out, "  verdict: the TensorCore needs %s and the SparseCore %s of %s %s available",
			fig(r, TP_OOM_TENSORCORE_USAGE), fig(r, TP_OOM_SPARSECORE_USAGE),
			fig(r, TP_OOM_CAPACITY) ? fig(r, TP_OOM_CAPACITY) : "?", space);
	else if (fig(r, TP_OOM_USED))
		fprintf(out, "  verdict: the program needs %s of %s", fig(r, TP_OOM_USED), space);
	else if (r->headless)
		fprintf(out, "  verdict: out of %s (the paste starts after the headline)", space);
	else
		fprintf(out, "  verdict: out of %s (no sizes printed)", space);
	if (fig(r, TP_OOM_FREE))
		fprintf(out, "; %s free", fig(r, TP_OOM_FREE));
	if (fig(r, TP_OOM_RESERVABLE))
		fprintf(out, ", %s reservable", fig(r, TP_OOM_RESERVABLE));
	if (fig(r, TP_OOM_LARGEST_FREE_REGION))
		fprintf(out, ", the largest free region %s (fragmentation)",
			fig(r, TP_OOM_LARGEST_FREE_REGION));
	if (fig(r, TP_OOM_BFC_LIMIT) && fig(r, TP_OOM_BFC_IN_USE))
		fprintf(out, "; allocator limit %s, in use %s",
			fmt_b(a, sizeof(a), r->fig[TP_OOM_BFC_LIMIT].bytes),
			fmt_b(b, sizeof(b), r->fig[TP_OOM_BFC_IN_USE].bytes));
	if (e->has_over)
		fprintf(out, ": %s by %s%s", r->kind == TP_OOM_COMPILE ? "over" : "short",
			over_text(a, sizeof(a), e), e->over_derived ? " (derived)" : "");
	fputc('\n', out);
	if (e->has_over_alt)
		fprintf(out, "  two figures disagree: %s gives %s, %s gives %s; tpuprof uses the "
			"first: %s\n", source_words(e->over_source), over_text(a, sizeof(a), e),
			source_words(e->over_alt_source), fmt_b(b, sizeof(b), e->over_alt),
			alt_reason(e));
	if (r->headless)
		headless(out, e);
	if (e->chip.n_rows) {
		fprintf(out, "  chip: %s", e->chip.rows[0]->key);
		for (size_t i = 1; i < e->chip.n_rows; i++)
			fprintf(out, "%s%s", i + 1 == e->chip.n_rows ? " or " : ", ",
				e->chip.rows[i]->key);
		fprintf(out, " (%s per device; %s)\n", fmt_b(a, sizeof(a), e->chip.device_bytes),
			e->chip.basis);
	}
}

/* What decides the report, first: a buffer no cut to temporaries can
 * shrink, with what that means. */
static void cause(FILE *out, const struct tp_oom_explain *e)
{
	const struct tp_oom_report *r = e->r;
	const char *cap = fig(r, TP_OOM_CAPACITY);
	char a[32], b[32];

	switch (e->cause) {
	case TP_OOM_CAUSE_ARGUMENTS:
		fprintf(out, "  cause: the arguments alone (%s) exceed the capacity (%s): the "
			"parameters (and optimizer state) do not fit one device, so no cut to "
			"temporaries can help\n", fig(r, TP_OOM_ARGUMENTS), cap);
		fputs("    shard the parameters or the optimizer state across devices, keep them in a "
		      "smaller dtype (bf16 halves f32), or donate argument buffers the output "
		      "replaces\n", out);
		break;
	case TP_OOM_CAUSE_OUTPUT:
		fprintf(out, "  cause: the output alone (%s) exceeds the capacity (%s): the result "
			"does not fit one device, so no cut to temporaries can help\n",
			fig(r, TP_OOM_OUTPUT), cap);
		fputs("    shard the output across devices, return less of it or in a smaller "
		      "dtype, or donate an argument buffer it can reuse\n", out);
		break;
	case TP_OOM_CAUSE_RESERVED:
		fprintf(out, "  cause: the runtime reservation alone (%s) exceeds the capacity (%s): "
			"nothing the program does can fit\n", fig(r, TP_OOM_RESERVED), cap);
		break;
	case TP_OOM_CAUSE_FIXED:
		fprintf(out, "  cause: the arguments (%s) and output (%s): the over-by (%s) is more "
			"than all the program's temporaries (%s), so no cut to temporaries alone can "
			"fit it\n", fig(r, TP_OOM_ARGUMENTS) ? fig(r, TP_OOM_ARGUMENTS) : "not printed",
			fig(r, TP_OOM_OUTPUT) ? fig(r, TP_OOM_OUTPUT) : "not printed",
			over_text(a, sizeof(a), e), fmt_b(b, sizeof(b), e->temporaries_bytes));
		fputs("    shard the parameters, optimizer state or output across devices, use a "
		      "smaller dtype, or donate argument buffers the output replaces\n", out);
		break;
	case TP_OOM_CAUSE_TEMPORARIES:
		fprintf(out, "  cause: the program's temporaries (%s); the arguments and output "
			"fit within the capacity, so cutting temporaries fits it (below)\n",
			fig(r, TP_OOM_HLO_TEMP) ? fig(r, TP_OOM_HLO_TEMP) :
			fmt_b(a, sizeof(a), e->cause_bytes));
		break;
	case TP_OOM_CAUSE_FRAGMENTATION:
		fprintf(out, "  cause: fragmentation: %s is free in all, but the largest free region "
			"is %s\n", fig(r, TP_OOM_FREE), fig(r, TP_OOM_LARGEST_FREE_REGION));
		break;
	case TP_OOM_CAUSE_UNKNOWN:
		break;
	}
}

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
		r->n_allocs, fmt_b(a, sizeof(a), e->listed_bytes),
		fmt_b(b, sizeof(b), e->listed_padding));
	for (size_t i = 0; i < r->n_allocs && i < ALLOC_MAX; i++) {
		const struct tp_oom_alloc *x = &r->allocs[i];

		fprintf(out, "    %2d. %-8s %s%s\n", x->rank, x->size.present ? x->size.text : "?",
			x->shape ? x->shape : x->entry_parameter_subshape ?
			x->entry_parameter_subshape : "(shape not printed)",
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
 * all); a chain of single children is shown at its end. */
static void scope_rows(FILE *out, const struct tp_scope_tree *t, size_t i, size_t *shown)
{
	const struct tp_scope_node *n = &t->nodes[i];
	char a[32];

	if (*shown >= LIST_MAX)
		return;
	if (i != 0 && !(n->n_children == 1 && n->count_exclusive == 0)) {
		fprintf(out, "    %-9s %s\n", fmt_b(a, sizeof(a), n->inclusive), n->path);
		(*shown)++;
	}
	/* the 4 largest children of each: a big sibling is not hidden under
	 * the first one's many small children */
	for (size_t c = 0; c < n->n_children && c < 4; c++)
		scope_rows(out, t, n->children[c], shown);
}

static void rollups(FILE *out, const struct tp_oom_explain *e)
{
	char a[32];
	size_t shown = 0;

	if (!e->r->n_allocs)
		return;
	fputs("  by name scope (listed allocations):\n", out);
	if (e->scopes.n)
		scope_rows(out, &e->scopes, 0, &shown);
	fputs("  by op type:", out);
	for (size_t i = 0; i < e->n_op_types && i < LIST_MAX; i++)
		fprintf(out, "%s %s %s", i ? "," : "", e->op_types[i].name,
			fmt_b(a, sizeof(a), e->op_types[i].bytes));
	fputs("\n  by allocation type:", out);
	for (size_t i = 0; i < e->n_alloc_types; i++)
		fprintf(out, "%s %s %s", i ? "," : "", e->alloc_types[i].name,
			fmt_b(a, sizeof(a), e->alloc_types[i].bytes));
	fputc('\n', out);
}

static void cut(FILE *out, const struct tp_oom_explain *e)
{
	const struct tp_oom_report *r = e->r;
	char a[32], b[32];

	if (!e->has_over || e->over_by <= 0)
		return;
	fprintf(out, "  to fit: cut at least %s\n", fmt_bound(a, sizeof(a), e->over_by, true));
	if (e->cause != TP_OOM_CAUSE_UNKNOWN && e->cause != TP_OOM_CAUSE_TEMPORARIES &&
	    e->cause != TP_OOM_CAUSE_FRAGMENTATION) {
		/* never "cut temporaries" for what temporaries cannot fix */
		fprintf(out, "    at least %s of it from the %s (the cause above); the listed "
			"allocations (%s) are temporaries and cannot make it up\n",
			fmt_bound(a, sizeof(a), e->fixed_cut, true),
			e->cause == TP_OOM_CAUSE_ARGUMENTS ? "arguments" :
			e->cause == TP_OOM_CAUSE_OUTPUT ? "output" :
			e->cause == TP_OOM_CAUSE_RESERVED ? "runtime reservation" :
			"arguments and output", fmt_b(b, sizeof(b), e->listed_bytes));
		return;
	}
	if (r->n_allocs) {
		if (e->cover_count == 1)
			fprintf(out, "    the listed allocations hold %s (%.0f%% of it); the largest "
				"listed source op (of %zu; .remat copies once) alone holds enough\n",
				fmt_b(b, sizeof(b), e->listed_bytes), 100 * e->listed_share_of_over,
				e->n_sources);
		else if (e->cover_count)
			fprintf(out, "    the listed allocations hold %s (%.0f%% of it); the %zu largest "
				"listed source ops (of %zu; .remat copies once) hold enough\n",
				fmt_b(b, sizeof(b), e->listed_bytes), 100 * e->listed_share_of_over,
				e->cover_count, e->n_sources);
		else
			fprintf(out, "    the listed allocations hold %s, %.0f%% of it: the rest is "
				"beyond the list\n", fmt_b(b, sizeof(b), e->listed_bytes),
				100 * e->listed_share_of_over);
		if (e->cover_scope != SIZE_MAX)
			fprintf(out, "    scope that covers it: %s (%s)\n",
				e->scopes.nodes[e->cover_scope].path,
				fmt_b(b, sizeof(b), e->scopes.nodes[e->cover_scope].inclusive));
		else if (e->n_cover_scopes) {
			fprintf(out, "    scopes that together cover it:");
			for (size_t i = 0; i < e->n_cover_scopes; i++)
				fprintf(out, "%s %s (%s)", i ? "," : "",
					e->scopes.nodes[e->cover_scopes[i]].path,
					fmt_b(b, sizeof(b), e->scopes.nodes[e->cover_scopes[i]].inclusive));
			fprintf(out, "\n");
		}
		if (e->listed_padding > 0)
			fprintf(out, "    padding in the listed shapes: %s (a shape whose padded "
				"dimensions are multiples of the tile saves it)\n",
				fmt_b(b, sizeof(b), e->listed_padding));
	}
	for (size_t i = 0; i < e->n_relayouts && i < 3; i++) {
		const struct tp_oom_relayout *x = &e->relayouts[i];
		const struct tp_oom_layout *l = &r->allocs[x->alloc].layout;

		fprintf(out, "    #%d with dims %d (%lld) and %d (%lld) as the two most minor, %s pads "
			"%s: saves %s\n", r->allocs[x->alloc].rank, x->second,
			(long long)l->dims[x->second].size, x->minor, (long long)l->dims[x->minor].size,
			l->tiles, x->padded_bytes > l->unpadded_bytes ? "less" : "nothing",
			fmt_b(a, sizeof(a), x->saves));
	}
	for (size_t i = 0; i < e->n_splits; i++) {
		const struct tp_oom_split *s = &e->splits[i];
		const struct tp_oom_alloc *x = &r->allocs[s->alloc];

		fprintf(out, "    split #%d along dim %d (%lld) %lld ways: saves at least %s "
			"(memory --split %s:%lld)\n", x->rank, s->dim,
			(long long)x->layout.dims[s->dim].size, (long long)s->ways,
			fmt_bound(a, sizeof(a), s->saves, true), x->xla_label_name ? x->xla_label_name : "NAME",
			(long long)s->ways);
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
		verdict(out, e);
		cause(out, e);
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
