/*
 * check_text.c - `tpuprof check` as text: how a baseline was paired, then
 * one line per check, passing ("ok") or not ("FAIL"), naming the core,
 * module or scope, the measured value, the limit and the largest
 * contributors, then one summary line: a CI log shows what was measured
 * against what, not only what broke.
 */
#include "tpuprof/report/check_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

static const char *value(char *buf, size_t n, enum tp_check_metric m, int64_t v)
{
	if (tp_check_metric_is_ps(m))
		return tp_fmt_ps(buf, n, v);
	if (m == TP_METRIC_HEADROOM_BYTES && v < 0) {   /* over capacity */
		char b[32];

		snprintf(buf, n, "-%s", tp_fmt_bytes(b, sizeof(b), (uint64_t)-(v + 1) + 1));
		return buf;
	}
	/* free memory is an upper bound: cut down, as memory prints it; its
	 * limit too, so that the two compare as the verdict did (equal when
	 * cut down, both are printed in bytes: values) */
	if (m == TP_METRIC_HEADROOM_BYTES)
		return tp_fmt_bytes_down(buf, n, (uint64_t)v);
	return tp_fmt_bytes(buf, n, v < 0 ? 0 : (uint64_t)v);
}

/* min-flops-utilization: fractions, not bytes. */
static void utilization_row(FILE *out, const struct tp_check_row *r)
{
	fprintf(out, ": FLOP utilization %.2g%% %s limit %g%%", r->fraction * 100.0,
		r->pass ? ">=" : "<", r->limit_fraction * 100.0);
}

/* The comparison a row's verdict made: measured against its limit. */
static const char *over(const struct tp_check_row *r)
{
	return r->pass ? "<=" : ">";
}

static const char *growth_what(const struct tp_check_row *r)
{
	switch (r->metric) {
	case TP_METRIC_PEAK_BYTES:
		return "peak memory";
	case TP_METRIC_OP_TIME:
		return r->per_step ? "op time per step" : "op time";
	case TP_METRIC_STEP_TIME:
		return "step time";
	default:
		return r->per_step ? "collective bytes per step" : "collective bytes";
	}
}

/* A growth row of one side only. */
static void unmatched_text(FILE *out, const struct tp_check_row *r)
{
	char a[32];

	if (r->unmatched == TP_CHECK_NOT_IN_BASELINE) {
		fprintf(out, ": %s; not in the baseline, nothing to compare\n",
			value(a, sizeof(a), r->metric, r->measured));
		return;
	}
	fprintf(out, ": in the baseline");
	if (r->baseline_host && (!r->host || strcmp(r->baseline_host, r->host) != 0))
		fprintf(out, " (host %s)", r->baseline_host);
	fprintf(out, " at %s, not in the run: unchecked%s\n",
		value(a, sizeof(a), r->metric, r->baseline),
		r->pass ? " (--allow-unmatched)" : " (--allow-unmatched accepts it)");
}

/* Both values in units, or exactly when the units would print them alike
 * ("10.0 MiB > limit 10.0 MiB" says nothing). */
static void values(char *a, char *b, size_t n, enum tp_check_metric m, int64_t x, int64_t y)
{
	value(a, n, m, x);
	value(b, n, m, y);
	if (strcmp(a, b) == 0) {
		const char *unit = tp_check_metric_is_ps(m) ? "ps" : "B";

		snprintf(a, n, "%" PRId64 " %s", x, unit);
		snprintf(b, n, "%" PRId64 " %s", y, unit);
	}
}

/* A figure printed in whole bytes or ps ("21492569216 B"), not scaled. */
static bool raw_form(const char *s)
{
	const char *u = strrchr(s, ' ');

	return u && (strcmp(u, " B") == 0 || strcmp(u, " ps") == 0);
}

static bool runtime_program(const struct tp_check_row *r)
{
	return r->module && r->source && strcmp(r->source, "runtime") == 0;
}

static void subject(FILE *out, const struct tp_check_row *r)
{
	if (r->plane)
		fprintf(out, " core %s %s", r->host ? r->host : "?", r->plane);
	else if (r->host)
		/* a figure per host (debug-print) */
		fprintf(out, " host %s", r->host);
	/* a runtime peak's program is named with its source */
	if (r->module && !(r->plane && runtime_program(r)))
		fprintf(out, " module %s", r->module);
	if (r->module && !(r->plane && runtime_program(r)) && r->module_shared)
		fprintf(out, " #%s", r->program_id);
	if (r->scope)
		fprintf(out, " scope %s", r->scope);
	if (!r->plane && !r->host && !r->module && !r->scope)
		fputs(" all", out);
}

/* A step rule's clock, and the op time its share cannot see. */
static void step_note(FILE *out, const struct tp_check_row *r)
{
	char t[32];

	if (r->clock)
		fprintf(out, " (%s clock)", r->clock);
	if (r->outside_steps_ps > 0)
		fprintf(out, "; %s of op time lies outside the steps",
			tp_fmt_ps(t, sizeof(t), r->outside_steps_ps));
}

/* The words before a step's parts: where a straggler's step was longer
 * than the fastest core's, where a core's mean step grew over the
 * baseline's, or where it went (--max-step-time). */
static const char *part_lead(const struct tp_check_row *r, bool growth)
{
	if (growth)
		return "; grew in: ";
	return r->rule == TP_CHECK_MAX_STEP_TIME ? "; spent in: " : "; longer than the fastest core in: ";
}

/* The row's contributors after its figures: buffers, allocations, ops
 * or collectives ("largest: ..."), growths ("grew most: ..."), or a
 * step's parts (part_lead). */
static void contributors_text(FILE *out, const struct tp_check_row *r, bool growth)
{
	char a[32];

	for (size_t i = 0; i < r->n_contrib; i++) {
		const char *scope = r->contrib[i].scope;
		/* a step's parts: the slowest core's time in each part over
		 * the fastest's, as the straggler advice words them */
		bool part = !strcmp(r->contrib[i].kind, "step_part");

		if (part)
			fprintf(out, "%s%s %s%s", i ? ", " : part_lead(r, growth), r->contrib[i].name,
				growth || r->rule != TP_CHECK_MAX_STEP_TIME ? "+" : "",
				value(a, sizeof(a), TP_METRIC_OP_TIME, r->contrib[i].value));
		else
			fprintf(out, "%s%s %s %s%s", i ? ", " : growth ? "; grew most: " : "; largest: ",
				r->contrib[i].kind, r->contrib[i].name, growth ? "+" : "",
				value(a, sizeof(a),
				      r->contrib[i].kind[0] == 'o' ? TP_METRIC_OP_TIME :
				      TP_METRIC_PEAK_BYTES,
				      r->contrib[i].value));
		/* a buffer's scope says which line of the model to cut */
		if (scope)
			fprintf(out, " (%s)", scope[0] ? scope : "no scope");
	}
}

void tp_check_row_text(FILE *out, const struct tp_check_row *r)
{
	char a[32], b[32], c[32], p[32];
	bool growth = r->rule == TP_CHECK_MAX_GROWTH;

	fprintf(out, "%s %s", r->pass ? "ok  " : "FAIL", tp_check_rule_name(r->rule));
	if (r->rule == TP_CHECK_MAX_GROWTH)
		fprintf(out, " %s", growth_what(r));
	subject(out, r);
	if (r->unmatched != TP_CHECK_MATCHED) {
		unmatched_text(out, r);
		return;
	}
	if (r->rule == TP_CHECK_MIN_FLOPS_UTILIZATION) {
		utilization_row(out, r);
		fputc('\n', out);
		return;
	}
	if (r->metric == TP_METRIC_COLLECTIVE_SHARE || r->metric == TP_METRIC_IDLE_SHARE) {
		fprintf(out, ": %s %.1f%% of steady step time %s limit %g%%",
			r->metric == TP_METRIC_IDLE_SHARE ? "idle" : "collectives",
			r->fraction * 100.0, over(r), r->limit_fraction * 100.0);
		step_note(out, r);
		fputc('\n', out);
		return;
	}
	if (r->rule >= TP_CHECK_MAX_HBM_BOUND) {
		enum tp_check_advice_rule k = (enum tp_check_advice_rule)(r->rule - TP_CHECK_MAX_HBM_BOUND);

		fprintf(out, ": %s %.1f%% (%s) %s limit %g%%", tp_check_advice_finding(k),
			r->fraction * 100.0, tp_check_advice_what(k), over(r),
			r->limit_fraction * 100.0);
		contributors_text(out, r, false);
		fputc('\n', out);
		return;
	}
	values(a, c, sizeof(a), r->metric, r->measured, r->limit);
	if (r->rule == TP_CHECK_MIN_HEADROOM) {
		fprintf(out, ": headroom %s = %s of %s", a,
			tp_fmt_pct_down(p, sizeof(p), r->fraction * 100.0),
			value(b, sizeof(b), TP_METRIC_PEAK_BYTES, r->capacity));
		if (runtime_program(r))
			fprintf(out, " (runtime peak: the allocator's stack holds program %s)", r->module);
		else if (r->source)
			fprintf(out, " (%s peak)", r->source);
		if (r->limit_fraction > 0)
			fprintf(out, " %s limit %g%% (%s)", r->pass ? ">=" : "<",
				r->limit_fraction * 100.0, c);
		else
			fprintf(out, " %s limit %s", r->pass ? ">=" : "<", c);
	} else {
		fprintf(out, ": %s", a);
		if (runtime_program(r))
			fprintf(out, " (runtime: the allocator's stack holds program %s)", r->module);
		else if (r->source)
			fprintf(out, " (%s)", r->source);
	}
	switch (r->rule) {
	case TP_CHECK_MIN_HEADROOM:
		break;
	case TP_CHECK_MAX_PEAK_FRACTION:
		fprintf(out, " = %.1f%% of %s %s limit %g%% (%s)", r->fraction * 100.0,
			value(b, sizeof(b), r->metric, r->capacity), over(r),
			r->limit_fraction * 100.0, c);
		break;
	case TP_CHECK_MAX_GROWTH:
		if (r->baseline > 0)
			fprintf(out, " = %+.1f%%", ((double)r->measured - (double)r->baseline) *
							   100.0 / (double)r->baseline);
		fprintf(out, " over baseline");
		if (r->baseline_host && r->host && strcmp(r->baseline_host, r->host) != 0)
			fprintf(out, " (host %s)", r->baseline_host);
		/* in the unit measured and limit are printed: whole bytes or
		 * ps where rounded they read alike (values) */
		if (raw_form(a))
			snprintf(b, sizeof(b), "%" PRId64 " %s", r->baseline,
				 tp_check_metric_is_ps(r->metric) ? "ps" : "B");
		else
			value(b, sizeof(b), r->metric, r->baseline);
		fprintf(out, " %s %s limit %s", b, over(r), c);
		break;
	default:
		fprintf(out, " %s limit %s", over(r), c);
		step_note(out, r);
		break;
	}
	contributors_text(out, r, growth);
	fputc('\n', out);
}

char *tp_check_row_line(const struct tp_check_row *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return tp_xstrdup("");
	tp_check_row_text(f, r);
	fclose(f);
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return buf;
}

/* How the baseline was paired and compared, before its rows. */
static void baseline_text(FILE *out, const struct tp_check *c)
{
	bool renamed = false, timed = false;

	if (c->match == TP_CHECK_MATCH_NONE)
		return;
	for (size_t i = 0; i < c->n_pairs; i++)
		renamed |= !c->pairs[i].baseline || strcmp(c->pairs[i].run, c->pairs[i].baseline);
	fprintf(out, "check: baseline paired by %s",
		c->match == TP_CHECK_MATCH_NAMES ? "host name" : "structure (hosts in order, cores by device)");
	for (size_t i = 0; renamed && i < c->n_pairs; i++)
		fprintf(out, "%s%s = baseline %s", i ? ", " : ": ", c->pairs[i].run,
			c->pairs[i].baseline ? c->pairs[i].baseline : "(none)");
	for (size_t i = 0; i < c->n_rows; i++)
		timed |= c->rows[i].rule == TP_CHECK_MAX_GROWTH &&
			 c->rows[i].metric != TP_METRIC_PEAK_BYTES;
	if (timed)
		fprintf(out, "; time and traffic compared %s", c->growth_per_step ? "per step"
			: "as totals (neither run has steps)");
	fputc('\n', out);
	if (c->n_unmatched)
		fprintf(out, "check: %zu baseline subject%s not in the run\n", c->n_unmatched,
			c->n_unmatched == 1 ? "" : "s");
}

enum tp_err tp_check_text(FILE *out, const struct tp_check *c, struct tp_error *err)
{
	baseline_text(out, c);
	for (size_t i = 0; i < c->n_rows; i++)
		tp_check_row_text(out, &c->rows[i]);
	if (c->n_failed)
		fprintf(out, "check: FAIL, %zu of %zu checks failed\n", c->n_failed, c->n_rows);
	else if (c->partial_fails)
		fprintf(out, "check: FAIL, the input is partial: %zu damaged part%s skipped (all %zu checks passed on the rest; --allow-partial accepts it)\n",
			c->damaged_parts, c->damaged_parts == 1 ? " was" : "s were", c->n_rows);
	else
		fprintf(out, "check: ok, all %zu checks passed\n", c->n_rows);
	if (c->n_failed && c->partial_fails)
		fprintf(out, "check: the input is also partial: %zu damaged part%s skipped\n",
			c->damaged_parts, c->damaged_parts == 1 ? " was" : "s were");
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write the check result");
	return TP_OK;
}
