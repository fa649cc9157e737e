/*
 * ops_steps_text.c - the steps of `tpuprof ops` for people: per core the
 * steps' source, the steady state and its compute by category, the step
 * table; across cores the slowest core and the spread of each step.
 */
#include "tpuprof/report/ops_report.h"
#include "text_internal.h"
#include "tpuprof/util/units.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The steady steps' compute by op category, every category, on one
 * line under the steady state: what the compute share is made of. */
static void steady_categories(FILE *out, const struct tp_ops *ops,
			      const struct tp_ops_core *c, int64_t compute_ps)
{
	struct tp_step_cat *v;
	size_t n = tp_steps_steady_categories(ops, c, &v);

	if (n)
		fprintf(out, "  steady compute by category (%% of compute):");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s %.*s %.1f%%", i ? "," : "", (int)v[i].category.len,
			TP_SPTR(v[i].category), pct(v[i].ps, compute_ps));
	if (n)
		fputc('\n', out);
	free(v);
}

void tp_text_clock_notes(FILE *out, const struct tp_ops_core *c)
{
	int64_t outside = tp_ops_core_outside_ps(c);
	char t_o[32], t_c[32], t_k[32], t_y[32];

	fprintf(out, "  clock: %s (every time figure of this core)\n", tp_clock_name(c->clock));
	if (tp_ops_core_drifts(c))
		fprintf(out, "  warning: the timeline's step spans are %.2fx to %.2fx the device's "
			"(tolerance %.0f%%): the steps%s use the device clock\n",
			c->drift_lo, c->drift_hi, 100 * TP_DRIFT_TOLERANCE,
			c->clock_mapped ? " were moved to it and" : "");
	if (c->steps_without_ops)
		fprintf(out, "  %zu step marker%s left out: no op on the device clock in %s\n",
			c->steps_without_ops, c->steps_without_ops == 1 ? "" : "s",
			c->steps_without_ops == 1 ? "it" : "them");
	if (outside > 0)
		fprintf(out, "  outside the steps: %s of op time (%.1f%% of device time): compute %s, "
			"collectives %s, copies %s\n", tp_fmt_ps(t_o, sizeof(t_o), outside),
			pct(outside, c->device_ps),
			tp_fmt_ps(t_c, sizeof(t_c), c->outside_ps[TP_PART_COMPUTE]),
			tp_fmt_ps(t_k, sizeof(t_k), c->outside_ps[TP_PART_COLLECTIVE]),
			tp_fmt_ps(t_y, sizeof(t_y), c->outside_ps[TP_PART_COPY]));
}

static void steps_head(FILE *out, const struct tp_ops *ops,
		       const struct tp_ops_core *c)
{
	struct tp_steps_summary sum;
	char t_s[32];

	if (c->step_source == TP_STEPS_INFERRED)
		fprintf(out, "  steps (%zu, inferred: one per %s of %.*s, program %" PRIu64
			", the program with the most device time, each to the next's start)\n", c->n_steps,
			c->source == TP_OPSRC_GPU ? "execution of the kernels" : "run",
			(int)c->step_program.len, TP_SPTR(c->step_program), c->step_program_id);
	else if (c->step_source == TP_STEPS_GROUP)
		fprintf(out, "  steps (%zu, from the op events' group_id: one per group)\n",
			c->n_steps);
	else if (c->step_source == TP_STEPS_GROUP_EMPTY_LINE)
		fprintf(out, "  steps (%zu, from the op events' group_id: one per group; the Steps"
			" line is empty, where XProf gives no steps)\n", c->n_steps);
	else
		fprintf(out, "  steps (%zu, from the Steps line)\n", c->n_steps);
	tp_text_clock_notes(out, c);
	tp_steps_summarize(ops, c, &sum);
	fprintf(out, "  steady state (%zu step%s%s): step %s; compute %.1f%%, collectives %.1f%%,"
		" copies %.1f%%, ", sum.n_steady,
		sum.n_steady == 1 ? "" : "s", sum.warmup ? ", the warm-up step left out" : "",
		tp_fmt_ps(t_s, sizeof(t_s), sum.step_ps), pct(sum.compute_ps, sum.sum_ps),
		pct(sum.collective_ps, sum.sum_ps), pct(sum.copy_ps, sum.sum_ps));
	/* input only where the host has input events: the same line otherwise */
	if (sum.input_ps)
		fprintf(out, "input %.1f%%, ", pct(sum.input_ps, sum.sum_ps));
	fprintf(out, "idle %.1f%% of step time\n", pct(sum.idle_ps, sum.sum_ps));
	steady_categories(out, ops, c, sum.compute_ps);
}

void tp_text_steps(FILE *out, const struct tp_ops *ops,
		   const struct tp_ops_core *c, size_t limit)
{
	size_t n = limit && c->n_steps > limit ? limit : c->n_steps;

	bool input = false;

	for (size_t i = 0; i < c->n_steps; i++)
		input |= ops->steps[c->first_step + i].input_ps > 0;
	steps_head(out, ops, c);
	fprintf(out, "  %-12s %10s %10s %10s %10s", "step", "duration", "compute", "collective",
		"copy");
	if (input)
		fprintf(out, " %10s", "input");
	fprintf(out, " %10s\n", "idle");
	for (size_t i = 0; i < n; i++) {
		const struct tp_step *s = &ops->steps[c->first_step + i];
		char t_d[32], t_c[32], t_k[32], t_y[32], t_n[32], t_i[32];

		fprintf(out, "  %-12.*s %10s %10s %10s %10s",
			(int)(s->name.len > 12 ? 12 : s->name.len), TP_SPTR(s->name),
			tp_fmt_ps(t_d, sizeof(t_d), s->dur_ps),
			tp_fmt_ps(t_c, sizeof(t_c), s->compute_ps),
			tp_fmt_ps(t_k, sizeof(t_k), s->collective_ps),
			tp_fmt_ps(t_y, sizeof(t_y), s->copy_ps));
		if (input)
			fprintf(out, " %10s", tp_fmt_ps(t_n, sizeof(t_n), s->input_ps));
		fprintf(out, " %10s%s\n", tp_fmt_ps(t_i, sizeof(t_i), s->idle_ps),
			s->warmup ? "  warm-up" : "");
	}
	if (n < c->n_steps)
		fprintf(out, "  ... %zu more steps (--limit 0 shows all)\n",
			c->n_steps - n);
}

/* The part of the step the spread lies in most, with how much longer
 * the slowest core spent in it ("idle +74.67 us"); "-" when none. */
static void spread_from_text(const struct tp_step_across *a, char *buf, size_t n)
{
	enum tp_step_part k = tp_step_across_spread_from(a);
	struct tp_step_parts d;
	char t[32];

	if (k >= TP_STEP_PARTS || !tp_step_across_spread_parts(a, &d)) {
		snprintf(buf, n, "-");
		return;
	}
	snprintf(buf, n, "%s +%s", tp_step_part_name(k), tp_fmt_ps(t, sizeof(t), d.ps[k]));
}

/* Per step across cores (and hosts): the slowest core, the spread and the
 * part of the step it lies in most. */
void tp_text_steps_across(FILE *out, const struct tp_capture *cap,
			  const struct tp_ops *ops, size_t limit)
{
	struct tp_step_across *v;
	size_t n = tp_steps_across(ops, &v), shown = limit && n > limit ? limit : n;
	struct tp_steps_across_summary sum;

	if (!v)
		return;
	tp_steps_across_summarize(v, n, &sum);
	fprintf(out, "\nsteps across cores: %zu step%s on %zu cores, %zu with a straggler"
		" (slowest core over %d%% longer than the fastest; warm-up left out)\n",
		n, n == 1 ? "" : "s", sum.n_cores, sum.stragglers, TP_STRAGGLER_PCT);
	fprintf(out, "  %-6s %10s %10s %10s %7s  %-22s %s\n", "step", "slowest", "fastest",
		"spread", "spread", "mostly in", "slowest core");
	for (size_t i = 0; i < shown; i++) {
		const struct tp_ops_core *slow = &ops->cores[v[i].slowest_core];
		char t_s[32], t_f[32], t_d[32], from[64];

		spread_from_text(&v[i], from, sizeof(from));
		fprintf(out, "  %-6zu %10s %10s %10s %6.1f%%  %-22s %s %.*s%s%s%s\n", v[i].index,
			tp_fmt_ps(t_s, sizeof(t_s), v[i].slowest_ps),
			tp_fmt_ps(t_f, sizeof(t_f), v[i].fastest_ps),
			tp_fmt_ps(t_d, sizeof(t_d), v[i].spread_ps),
			pct(v[i].spread_ps, v[i].fastest_ps), from, cap->hosts[slow->host].name,
			(int)slow->plane->name.len, TP_SPTR(slow->plane->name),
			v[i].straggler ? "  straggler" : "", v[i].warmup ? "  warm-up" : "",
			v[i].edge ? "  edge" : "");
	}
	if (shown < n)
		fprintf(out, "  ... %zu more steps (--limit 0 shows all)\n", n - shown);
	fputs("  mostly in: the part of the step (compute, collective, copy, input, idle) where "
	      "the slowest core spent the most time beyond the fastest's\n", out);
	for (size_t i = 0; i < n; i++)
		if (v[i].edge) {
			fputs("  edge: the first or last of inferred steps, bounded by each core's "
			      "own first or last op (launch skew): not judged\n", out);
			break;
		}
	free(v);
}

size_t tp_text_cores_with_steps(const struct tp_ops *ops)
{
	size_t n = 0;

	for (size_t c = 0; c < ops->n_cores; c++)
		n += ops->cores[c].n_steps > 0;
	return n;
}
