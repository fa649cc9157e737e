/*
 * oom_verdict.c - the verdict of a report: by how much it is over (the
 * figure printed, else derived from printed ones, and where two figures
 * of the report disagree, which one is used and why) and what decides it
 * (docs/oom.md "The cause first"): buffers the program cannot shrink,
 * arguments, output, the runtime reservation, that alone exceed the
 * capacity come before the temporaries, since no cut to temporaries can
 * make up for them.
 */
#include "oom_internal.h"

#include <string.h>

static const char *const cause_names[] = {
	"unknown", "arguments", "output", "runtime_reservation", "arguments_and_output",
	"temporaries", "fragmentation",
};

const char *tp_oom_cause_name(enum tp_oom_cause c)
{
	return (size_t)c < sizeof(cause_names) / sizeof(cause_names[0]) ? cause_names[c] : "?";
}

static bool known(const struct tp_oom_size *s)
{
	return s->present && !s->unknown;
}

static void set_over(struct tp_oom_explain *e, int64_t v, bool derived, const char *source)
{
	e->over_by = v;
	e->has_over = true;
	e->over_derived = derived;
	e->over_source = source;
}

/* At run time: the request against the room the headline printed. */
static bool request_room(const struct tp_oom_report *r, int64_t *v, const char **source)
{
	const struct tp_oom_size *f = r->fig;
	static const struct { enum tp_oom_fig fig; const char *source; } rooms[] = {
		{ TP_OOM_LARGEST_FREE_REGION, "request - largest_free_region" },
		{ TP_OOM_RESERVABLE, "request - reservable" },
		{ TP_OOM_FREE, "request - free" },
	};

	if (!known(&f[TP_OOM_REQUEST]))
		return false;
	for (size_t i = 0; i < sizeof(rooms) / sizeof(rooms[0]); i++) {
		if (known(&f[rooms[i].fig])) {
			*v = f[TP_OOM_REQUEST].bytes - f[rooms[i].fig].bytes;
			*source = rooms[i].source;
			return true;
		}
	}
	if (known(&f[TP_OOM_BFC_LIMIT]) && known(&f[TP_OOM_BFC_IN_USE])) {
		/* the BFC allocator: what is left under its limit */
		*v = f[TP_OOM_REQUEST].bytes - (f[TP_OOM_BFC_LIMIT].bytes - f[TP_OOM_BFC_IN_USE].bytes);
		*source = "request - (bfc_limit - bfc_in_use)";
		return true;
	}
	return false;
}

void tp_oom_over(struct tp_oom_explain *e, const struct tp_oom_report *r)
{
	const struct tp_oom_size *f = r->fig;
	const char *src;
	int64_t v;

	if (known(&f[TP_OOM_EXCEEDED])) {
		set_over(e, f[TP_OOM_EXCEEDED].bytes, false, "exceeded");
	} else if (known(&f[TP_OOM_USED]) && known(&f[TP_OOM_CAPACITY])) {
		set_over(e, f[TP_OOM_USED].bytes - f[TP_OOM_CAPACITY].bytes, true, "used - capacity");
	} else if (known(&f[TP_OOM_TENSORCORE_USAGE]) && known(&f[TP_OOM_SPARSECORE_USAGE]) &&
		   known(&f[TP_OOM_CAPACITY])) {
		set_over(e, tp_sat_sub(tp_sat_add(f[TP_OOM_TENSORCORE_USAGE].bytes,
						 f[TP_OOM_SPARSECORE_USAGE].bytes),
					 f[TP_OOM_CAPACITY].bytes), true, "tensorcore_usage + sparsecore_usage - capacity");
	} else if (known(&f[TP_OOM_AVAILABLE_AFTER_REQUEST]) &&
		   f[TP_OOM_AVAILABLE_AFTER_REQUEST].bytes < 0) {
		/* the HBM capacity table's exact byte count: it also takes off
		 * the top-of-memory reservation, which the headline's "free"
		 * and "reservable" still count, so it is the one used */
		set_over(e, -f[TP_OOM_AVAILABLE_AFTER_REQUEST].bytes, false, "available_after_request");
		if (request_room(r, &v, &src) && v != e->over_by) {
			e->has_over_alt = true;
			e->over_alt = v;
			e->over_alt_source = src;
		}
	} else if (request_room(r, &v, &src)) {
		set_over(e, v, true, src);
	} else if (r->headless && e->chip.forced && known(&f[TP_OOM_TOTAL_USAGE])) {
		/* no headline: the printed total against the chip named; one
		 * within it ("Total hbm usage >= 9.52G" on 16 GiB) gives no
		 * overage, not a negative one */
		v = tp_sat_sub(f[TP_OOM_TOTAL_USAGE].bytes, e->chip.device_bytes);
		if (v > 0)
			set_over(e, v, true, "total_usage - device HBM (--device)");
		else
			e->under_forced_chip = true;
	}
}

/* The runtime reservation counts against the capacity only where the
 * capacity includes it (TensorFlow 2019-20: Used = Total usage). */
static bool capacity_has_reservation(const struct tp_oom_report *r)
{
	const struct tp_oom_size *u = &r->fig[TP_OOM_USED], *t = &r->fig[TP_OOM_TOTAL_USAGE];

	return known(u) && known(t) && tp_sat_add(tp_sat_add(u->bytes, u->half_unit), t->half_unit) >= t->bytes;
}

void tp_oom_cause(struct tp_oom_explain *e, const struct tp_oom_report *r)
{
	const struct tp_oom_size *f = r->fig, *cap = &f[TP_OOM_CAPACITY];
	const struct tp_oom_size *temps = known(&f[TP_OOM_HLO_TEMP]) ? &f[TP_OOM_HLO_TEMP] :
		known(&f[TP_OOM_PROGRAM_REQUIREMENT]) ? &f[TP_OOM_PROGRAM_REQUIREMENT] :
		&f[TP_OOM_PROGRAM];
	int64_t args = known(&f[TP_OOM_ARGUMENTS]) ? f[TP_OOM_ARGUMENTS].bytes : 0;
	int64_t out = known(&f[TP_OOM_OUTPUT]) ? f[TP_OOM_OUTPUT].bytes : 0;
	int64_t shared = known(&f[TP_OOM_OUTPUT_SHARES]) ? f[TP_OOM_OUTPUT_SHARES].bytes : 0;
	int64_t res = known(&f[TP_OOM_RESERVED]) && capacity_has_reservation(r) ?
		f[TP_OOM_RESERVED].bytes : 0;
	/* the capacity as printed could mean: sizes saturate, so does this */
	int64_t cap_bytes = cap->bytes, cap_hi = tp_sat_add(cap->bytes, cap->half_unit);

	e->fixed_bytes = e->temporaries_bytes = -1;
	e->cause_capacity = -1;
	e->cause = TP_OOM_CAUSE_UNKNOWN;
	if (r->kind == TP_OOM_RUNTIME && known(&f[TP_OOM_LARGEST_FREE_REGION]) &&
	    known(&f[TP_OOM_FREE]) && known(&f[TP_OOM_REQUEST]) &&
	    f[TP_OOM_REQUEST].bytes <= f[TP_OOM_FREE].bytes) {
		e->cause = TP_OOM_CAUSE_FRAGMENTATION;
		e->cause_bytes = f[TP_OOM_LARGEST_FREE_REGION].bytes;
		return;
	}
	if (r->kind != TP_OOM_COMPILE || !known(temps) ||
	    (!known(&f[TP_OOM_ARGUMENTS]) && !known(&f[TP_OOM_OUTPUT])))
		return;
	/* a headless paste is weighed against --device only where that
	 * chip gives it an over-by (a total within its HBM tells nothing) */
	if (!known(cap) && !(r->headless && e->chip.forced && e->chip.device_bytes > 0 &&
			     e->has_over))
		return;
	if (!known(cap)) {
		/* a headless paste with --device: the chip's HBM, less the
		 * runtime reservation where it is printed (it holds its share
		 * of the device whatever the program does), is the room the
		 * arguments and output have; its upper end takes the
		 * reservation's lower end */
		const struct tp_oom_size *rs = &f[TP_OOM_RESERVED];

		e->cause_on_device = true;
		cap_bytes = tp_sat_sub(e->chip.device_bytes, known(rs) ? rs->bytes : 0);
		cap_hi = tp_sat_sub(e->chip.device_bytes, known(rs) ? rs->bytes - rs->half_unit : 0);
		res = 0;
	}
	e->cause_capacity = cap_bytes;
	e->fixed_bytes = tp_sat_add(tp_sat_add(args, out > shared ? out - shared : 0), res);
	e->temporaries_bytes = temps->bytes;
	e->temporaries_can_fix = e->has_over && e->over_by <= temps->bytes;
	/* printed values: a figure exceeds the capacity only beyond both
	 * roundings */
	if (args - f[TP_OOM_ARGUMENTS].half_unit > cap_hi) {
		e->cause = TP_OOM_CAUSE_ARGUMENTS;
		e->cause_bytes = args;
	} else if (out - f[TP_OOM_OUTPUT].half_unit > cap_hi) {
		e->cause = TP_OOM_CAUSE_OUTPUT;
		e->cause_bytes = out;
	} else if (res && res > cap_bytes) {
		e->cause = TP_OOM_CAUSE_RESERVED;
		e->cause_bytes = res;
	} else if (e->fixed_bytes > cap_hi || (e->has_over && !e->temporaries_can_fix)) {
		e->cause = TP_OOM_CAUSE_FIXED;
		e->cause_bytes = e->fixed_bytes;
	} else {
		e->cause = TP_OOM_CAUSE_TEMPORARIES;
		e->cause_bytes = temps->bytes;
		return;
	}
	/* what no cut to temporaries can supply: beyond all of them, and a
	 * buffer that alone exceeds the capacity must lose its excess */
	if (e->has_over && e->over_by > temps->bytes)
		e->fixed_cut = e->over_by - temps->bytes;
	if (e->cause != TP_OOM_CAUSE_FIXED && tp_sat_sub(e->cause_bytes, cap_bytes) > e->fixed_cut)
		e->fixed_cut = tp_sat_sub(e->cause_bytes, cap_bytes);
}

static void budget_add(struct tp_oom_budget *b, const struct tp_oom_report *r,
		       enum tp_oom_fig f, int64_t less)
{
	if (!known(&r->fig[f]) || b->n >= sizeof(b->parts) / sizeof(b->parts[0]))
		return;
	b->parts[b->n].fig = f;
	b->parts[b->n].bytes = r->fig[f].bytes > less ? r->fig[f].bytes - less : 0;
	b->total = tp_sat_add(b->total, b->parts[b->n++].bytes);
}

void tp_oom_budget(struct tp_oom_explain *e, const struct tp_oom_report *r)
{
	static const enum tp_oom_fig program[] = { TP_OOM_PROGRAM_RESERVED, TP_OOM_GLOBAL,
		TP_OOM_SCOPED, TP_OOM_HLO_TEMP, TP_OOM_OVERLAYS };
	struct tp_oom_budget *b = &e->budget;
	const struct tp_oom_size *f = r->fig;
	size_t before;

	memset(b, 0, sizeof(*b));
	if (r->kind != TP_OOM_COMPILE || !known(&f[TP_OOM_CAPACITY]))
		return;
	budget_add(b, r, TP_OOM_RESERVED, 0);
	budget_add(b, r, TP_OOM_ARGUMENTS, 0);
	budget_add(b, r, TP_OOM_OUTPUT, known(&f[TP_OOM_OUTPUT_SHARES]) ? f[TP_OOM_OUTPUT_SHARES].bytes : 0);
	before = b->n;
	for (size_t i = 0; i < sizeof(program) / sizeof(program[0]); i++)
		budget_add(b, r, program[i], 0);
	if (b->n == before)
		budget_add(b, r, known(&f[TP_OOM_PROGRAM_REQUIREMENT]) ? TP_OOM_PROGRAM_REQUIREMENT :
			   TP_OOM_PROGRAM, 0);
	if (b->n == before) {     /* no program part: nothing to weigh */
		memset(b, 0, sizeof(*b));
		return;
	}
	b->line = tp_sat_add(f[TP_OOM_CAPACITY].bytes,
			     known(&f[TP_OOM_RESERVED]) && !capacity_has_reservation(r) ?
			     f[TP_OOM_RESERVED].bytes : 0);
}
