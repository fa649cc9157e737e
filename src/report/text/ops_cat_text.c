/*
 * ops_cat_text.c - `ops --by category` for people: program -> category ->
 * op summed over every core, and the per-core spread that the all-cores
 * tables of `ops` print too.
 */
#include "tpuprof/report/ops_report.h"
#include "text_internal.h"

#include <inttypes.h>
#include <stdio.h>

void tp_text_spread(char *buf, size_t n, const struct tp_cat_sum *s)
{
	char lo[32], hi[32];

	if (s->n_cores < 2)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%s..%s", tp_fmt_ps(lo, sizeof(lo), s->min_core_ps),
			 tp_fmt_ps(hi, sizeof(hi), s->max_core_ps));
}

static void cat_row(FILE *out, const struct tp_cat_sum *s, int indent, struct tp_str name,
		    size_t variants)
{
	char t_s[32], t_t[32], sp[80];

	tp_text_spread(sp, sizeof(sp), s);
	fprintf(out, "  %10s %10s %9" PRIu64 " %5zu %-22s %*s%.*s", tp_fmt_ps(t_s, sizeof(t_s), s->self_ps),
		tp_fmt_ps(t_t, sizeof(t_t), s->total_ps), s->occurrences, s->n_cores, sp,
		indent, "", (int)name.len, TP_SPTR(name));
	if (variants > 1)
		fprintf(out, "  (%zu names folded)", variants);
	fputc('\n', out);
}

/* --by category: program -> category -> op over every core. */
void tp_text_categories(FILE *out, const struct tp_capture *cap,
			    const struct tp_op_categories *c, size_t n_cores, size_t limit)
{
	uint64_t program = 0;

	fprintf(out, "op profile by category over %zu core(s)%s: self and total time and\n"
		"count summed over the cores an op ran on; spread: the least and the most\n"
		"self time one of those cores gave it\n", n_cores,
		c->fold ? ", name.N copies folded" : "");
	fprintf(out, "  %10s %10s %9s %5s %-22s %s\n", "self", "total", "count", "cores",
		"spread", "program / category / op");
	for (size_t g = 0; g < c->n_groups; g++) {
		const struct tp_cat_group *gr = &c->groups[g];
		size_t shown = limit && gr->n > limit ? limit : gr->n;

		if (g == 0 || gr->program_id != program) {
			struct tp_str m = tp_report_module_name(cap, gr->module);
			char t[32];

			fprintf(out, "  %10s %*s%.*s%s(program %" PRIu64 ")\n",
				tp_fmt_ps(t, sizeof(t), gr->program_self_ps), 50, "",
				(int)m.len, TP_SPTR(m), m.len ? " " : "", gr->program_id);
			program = gr->program_id;
		}
		cat_row(out, &gr->sum, 2, gr->category.len ? gr->category : tp_str_make("(none)", 6), 0);
		for (size_t k = 0; k < shown; k++) {
			const struct tp_cat_op *o = &c->ops[gr->first + k];

			cat_row(out, &o->sum, 4, o->name, o->variants);
		}
		if (shown < gr->n)
			fprintf(out, "  %*s... %zu more ops (--limit 0 shows all)\n", 62, "", gr->n - shown);
	}
}

