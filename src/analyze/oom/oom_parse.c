/*
 * oom_parse.c - one report's text into its figures: the headline of each
 * family, the run-time tables, XLA:GPU's BufferAssignment statistics and
 * the BFC allocator's. Every figure is read where it is printed and
 * nowhere else; a block cut short leaves its later figures unset. The
 * usage and requirement blocks: oom_blocks.c; the listed allocations:
 * oom_entries.c.
 */
#include "oom_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fig_names[TP_OOM_FIG_N] = {
	"used", "capacity", "exceeded",
	"total_usage", "reserved", "program", "arguments", "heap_allocations",
	"output", "output_shares_with_arguments",
	"program_requirement", "program_reserved", "global", "scoped", "hlo_temp", "overlays",
	"hlo_temp_unpadded", "hlo_temp_padded", "hlo_temp_fragmentation",
	"request", "free", "reserved_now", "reservable", "largest_free_region",
	"top_of_memory_reserved", "currently_allocated", "runtime_program_requirement",
	"available_after_request", "max_free_chunk", "persistent_arguments",
	"persistent_output", "ba_parameter", "ba_constant", "ba_maybe_live_out",
	"ba_preallocated_temp", "ba_total", "ba_total_fragmentation",
	"bfc_rounded", "bfc_in_use_chunks", "bfc_limit", "bfc_in_use", "bfc_max_in_use",
	"tensorcore_usage", "sparsecore_usage",
};

static const char *const pct_names[TP_OOM_PCT_N] = {
	"hlo_temp_utilization_pct", "hlo_temp_fragmentation_pct", "heap_fragmentation_pct",
	"persistent_arguments_utilization_pct", "persistent_output_utilization_pct",
	"ba_total_fragmentation_pct",
};

const char *tp_oom_fig_name(enum tp_oom_fig f)
{
	return f < TP_OOM_FIG_N ? fig_names[f] : "?";
}

const char *tp_oom_pct_name(enum tp_oom_pct p)
{
	return p < TP_OOM_PCT_N ? pct_names[p] : "?";
}

const char *tp_oom_kind_name(enum tp_oom_kind k)
{
	return k == TP_OOM_RUNTIME ? "runtime" : k == TP_OOM_GPU ? "gpu" : "compile";
}

static char *word_dup(const char *s, const char *end)
{
	const char *e = s;

	while (e < end && (isalnum((unsigned char)*e) || *e == '_' || *e == '-'))
		e++;
	return e > s ? tp_str_dup(tp_str_make(s, (size_t)(e - s))) : NULL;
}

/* ---- the families ---- */

static void compile_headline(struct tp_oom_report *r, const char *s, const char *end)
{
	const char *e = tp_oom_find(s, end, "Ran out of memory in memory space ", NULL), *sp;

	r->kind = TP_OOM_COMPILE;
	sp = tp_oom_skip_ws(e, end);
	r->memory_space = word_dup(sp, end);
	if (!r->memory_space)
		return;
	if (!(e = tp_oom_match(sp + strlen(r->memory_space), end, ". Used ")))
		return;
	if (!(e = tp_oom_fig_at(r, TP_OOM_USED, e, end)) || !(e = tp_oom_match(e, end, " of ")))
		return;
	if (!(e = tp_oom_fig_at(r, TP_OOM_CAPACITY, e, end)))
		return;
	if ((e = tp_oom_find(e, end < e + 80 ? end : e + 80, "capacity by ", NULL)))
		tp_oom_fig_at(r, TP_OOM_EXCEEDED, e, end);
}

/* "E1000: CompileTimeHbmOom:" before the headline (XLA's error codes). */
static void error_code(struct tp_oom_report *r, const char *s, const char *head)
{
	for (const char *p = s; p + 7 < head; p++) {
		if (p[0] == 'E' && isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2]) &&
		    isdigit((unsigned char)p[3]) && isdigit((unsigned char)p[4]) && p[5] == ':' &&
		    (p == s || !isalnum((unsigned char)p[-1]))) {
			r->error_code = tp_str_dup(tp_str_make(p, 5));
			r->error_name = word_dup(tp_oom_skip_ws(p + 6, head), head);
			return;
		}
	}
}


/* A table row "Label:  529.00M (   554,696,704 bytes)". */
static void table_row(struct tp_oom_report *r, enum tp_oom_fig f, const char *s,
		      const char *end, const char *label)
{
	const char *e = tp_oom_find(s, end, label, NULL);

	if (e && (e = tp_oom_fig_at(r, f, e, end)))
		tp_oom_exact_after(&r->fig[f], e, end);
}

static void runtime_tpu(struct tp_oom_report *r, const char *s, const char *end)
{
	const char *e, *p;

	r->kind = TP_OOM_RUNTIME;
	if ((e = tp_oom_find(s, end, "Attempting to reserve ", NULL))) {
		r->runtime_op = tp_xstrdup("reserve");
		if ((e = tp_oom_fig_at(r, TP_OOM_REQUEST, e, end)) &&
		    (e = tp_oom_find(e, end, "There are ", NULL)) &&
		    (e = tp_oom_fig_at(r, TP_OOM_FREE, e, end)) && (e = tp_oom_match(e, end, " free, ")) &&
		    (e = tp_oom_fig_at(r, TP_OOM_RESERVED_NOW, e, end)) &&
		    (e = tp_oom_match(e, end, " reserved, and ")))
			tp_oom_fig_at(r, TP_OOM_RESERVABLE, e, end);
	} else if ((e = tp_oom_find(s, end, "Attempting to allocate ", NULL))) {
		r->runtime_op = tp_xstrdup("allocate");
		if ((e = tp_oom_fig_at(r, TP_OOM_REQUEST, e, end)) &&
		    (e = tp_oom_find(e, end < e + 80 ? end : e + 80, "There are ", NULL)) &&
		    (e = tp_oom_fig_at(r, TP_OOM_FREE, e, end))) {
			p = tp_oom_find(e, end, "largest contiguous region of free memory is ", NULL);
			if (p && p < e + 120)
				e = tp_oom_fig_at(r, TP_OOM_LARGEST_FREE_REGION, p, end);
			if (e && (p = tp_oom_find(e, end, "; (", NULL)) && p < e + 20) {
				const char *close = memchr(p, ')', (size_t)(end - p));

				if (close && close - p < 64)
					r->device = tp_str_dup(tp_str_make(p, (size_t)(close - p)));
			}
		}
	}
	if ((e = tp_oom_find(s, end, "HBM capacity ", NULL))) {
		tp_oom_fig_at(r, TP_OOM_CAPACITY, e, end);
		table_row(r, TP_OOM_TOP_OF_MEMORY_RESERVED, e, end, "Top-of-Memory reserved:");
		table_row(r, TP_OOM_CURRENTLY_ALLOCATED, e, end, "Currently allocated:");
		table_row(r, TP_OOM_RUNTIME_PROGRAM_REQUIREMENT, e, end, "Program requirement:");
		table_row(r, TP_OOM_AVAILABLE_AFTER_REQUEST, e, end, "Available after request:");
	}
	if (!r->memory_space && (r->fig[TP_OOM_CAPACITY].present ||
				 (r->device && strstr(r->device, "HBM"))))
		r->memory_space = tp_xstrdup("hbm");
}

/* E1002: "TPU TensorCore Hbm usage: T, SparseCore Hbm usage S,
 * exceeding available bytes: A" (XLA's units): A is the capacity; the
 * sum of the two usages is not printed. */
static void tensorcore_sparsecore(struct tp_oom_report *r, const char *s, const char *end)
{
	const char *e = tp_oom_match(s, end, "TensorCore Hbm usage:");

	r->kind = TP_OOM_COMPILE;
	r->memory_space = tp_xstrdup("hbm");
	if ((e = tp_oom_fig_at(r, TP_OOM_TENSORCORE_USAGE, e, end)) &&
	    (e = tp_oom_match(e, end, ", SparseCore Hbm usage")) &&
	    (e = tp_oom_fig_at(r, TP_OOM_SPARSECORE_USAGE, tp_oom_match(e, end, ":") ? tp_oom_match(e, end, ":") : e, end)) &&
	    (e = tp_oom_match(e, end, ", exceeding available bytes:")))
		tp_oom_fig_at(r, TP_OOM_CAPACITY, e, end);
}

/* A TPU part that a headless paste starts at (oom_parts.c). */
static bool tpu_part(const char *s, const char *end)
{
	enum tp_oom_block p = tp_oom_part_at(s, end, NULL, NULL);

	return p >= TP_OOM_BLK_HBM_TABLE && p <= TP_OOM_BLK_ENTRY;
}

/* A paste without its headline: the blocks it holds, the memory space
 * from their labels, run time where only run-time blocks are printed. */
static void headless_tpu(struct tp_oom_report *r, const char *s, const char *end)
{
	static const char *const spaces[] = { "hbm", "vmem" };

	r->headless = true;
	r->kind = tp_oom_find(s, end, "HBM capacity ", NULL) ||
		  tp_oom_find(s, end, "Heap allocator status:", NULL) ? TP_OOM_RUNTIME : TP_OOM_COMPILE;
	for (size_t i = 0; i < 2 && !r->memory_space; i++) {
		char a[40], b[40], c[48];

		snprintf(a, sizeof(a), "Total %s usage", spaces[i]);
		snprintf(b, sizeof(b), "Program %s requirement", spaces[i]);
		snprintf(c, sizeof(c), "Largest program allocations in %s", spaces[i]);
		if (tp_oom_find(s, end, a, NULL) || tp_oom_find(s, end, b, NULL) ||
		    tp_oom_find(s, end, c, NULL))
			r->memory_space = tp_xstrdup(spaces[i]);
	}
	if (!r->memory_space && r->kind == TP_OOM_RUNTIME)
		r->memory_space = tp_xstrdup("hbm");
	if (r->kind == TP_OOM_RUNTIME)
		runtime_tpu(r, s, end);
	tp_oom_tpu_blocks(r, s, end);
}

/* E0101: "Error loading program 'NAME': ..." before a run-time headline. */
static void program_name(struct tp_oom_report *r, const char *s, const char *end)
{
	const char *e = tp_oom_find(s, end, "Error loading program '", NULL), *q;

	if (e && (q = memchr(e, '\'', (size_t)(end - e))) && q - e < 256)
		r->program_name = tp_str_dup(tp_str_make(e, (size_t)(q - e)));
}

void tp_oom_parse_report(struct tp_oom_report *r, const char *text, size_t len)
{
	const char *end = text + len, *at = NULL;

	memset(r, 0, sizeof(*r));
	r->device_ordinal = -1;
	r->text = tp_xmalloc(len + 1);
	memcpy(r->text, text, len);
	r->text[len] = '\0';
	r->text_len = len;
	text = r->text;
	end = text + len;
	if (tp_oom_find(text, end, "Ran out of memory in memory space ", &at)) {
		error_code(r, text, at);
		compile_headline(r, at, end);
		tp_oom_tpu_blocks(r, at, end);
	} else if (tp_oom_find(text, end, "Attempting to reserve ", &at) ||
		   tp_oom_find(text, end, "Attempting to allocate ", &at)) {
		error_code(r, text, at);
		program_name(r, text, at);
		runtime_tpu(r, at, end);
		tp_oom_tpu_blocks(r, at, end);
	} else if (tp_oom_find(text, end, "Requires ", &at) &&
		   tp_oom_read_requires(at, end, &r->fig[TP_OOM_USED], &r->fig[TP_OOM_CAPACITY])) {
		/* TPU's early abort, before any breakdown: HBM, compile time */
		error_code(r, text, at);
		r->kind = TP_OOM_COMPILE;
		r->early_abort = true;
		r->memory_space = tp_xstrdup("hbm");
	} else if (tp_oom_find(text, end, "TensorCore Hbm usage:", &at)) {
		error_code(r, text, at);
		tensorcore_sparsecore(r, at, end);
	} else if (tp_oom_find(text, end, "Scoped allocation with size ", &at) ||
		   tp_oom_find(text, end, "would exceed memory (size=", &at)) {
		error_code(r, text, at);
		tp_oom_scoped(r, text, end);
	} else if (tpu_part(text, end)) {
		headless_tpu(r, text, end);
	} else {
		tp_oom_gpu(r, text, end);
	}
	tp_oom_entries_read(r, at ? at : text, end);
}

void tp_oom_report_release(struct tp_oom_report *r)
{
	free(r->memory_space);
	free(r->error_code);
	free(r->error_name);
	free(r->runtime_op);
	free(r->device);
	free(r->program_name);
	free(r->allocations_memory_space);
	for (int i = 0; i < r->n_log_prefixes; i++)
		free(r->log_prefixes[i]);
	for (size_t i = 0; i < r->n_total_parts; i++)
		free(r->total_parts[i].name);
	free(r->total_parts);
	for (size_t i = 0; i < r->n_allocs; i++) {
		struct tp_oom_alloc *a = &r->allocs[i];

		free(a->operator_text);
		free(a->op_type);
		free(a->op_name);
		free(a->source_file);
		free(a->shape);
		free(a->xla_label);
		free(a->xla_label_name);
		free(a->allocation_type);
		free(a->entry_parameter_subshape);
		free(a->remat_of);
	}
	free(r->allocs);
	free(r->text);
	memset(r, 0, sizeof(*r));
}
