/*
 * check.h - `tpuprof check`: rules over a `tpuprof.report/1` document (a
 * saved report or one built from captures, tp_report_doc_load), so that
 * CI can fail a change that makes memory, time or traffic worse.
 *
 * Every rule is evaluated for every subject it applies to (a core, a
 * module, a scope of a module) and each evaluation is one row of the
 * result, passing or failing, with its largest contributors.
 *
 * Ownership: a struct tp_check owns its row array (malloc'd, freed by
 * tp_check_release). Every string in a row (host, plane, module,
 * program id, contributor names) is borrowed from the report document or
 * the baseline document, which must outlive the result; scope and rule
 * names are borrowed from the options or are static.
 */
#ifndef TPUPROF_CHECK_H
#define TPUPROF_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "tpuprof/util/error.h"

/* The advice rules that are also check rules (check_advice.c), in the
 * advice's order: each holds the finding's measured figure (the worst
 * core's) to a limit. */
enum tp_check_advice_rule {
	TP_CHECK_ADVICE_HBM_BOUND,       /* --max-hbm-bound: memory-bound        */
	TP_CHECK_ADVICE_COMPUTE_BOUND,   /* --max-compute-bound: compute-bound   */
	TP_CHECK_ADVICE_INPUT,           /* --max-input-share: input-bound       */
	TP_CHECK_ADVICE_ASYNC_WAIT,      /* --max-async-wait-share               */
	TP_CHECK_ADVICE_DEBUG_PRINT,     /* --max-debug-print-share: debug-print */
	TP_CHECK_ADVICE_BARRIER,         /* --max-barrier-share: barrier-cores   */
	TP_CHECK_ADVICE_SPARSECORE,      /* --max-sparsecore-share               */
	TP_CHECK_ADVICE_HOST_OFFLOAD,    /* --max-host-offload-share             */
	TP_CHECK_ADVICE_STRAGGLER,       /* --max-straggler-spread: straggler    */
	TP_CHECK_ADVICE_MEMORY_GROWTH,   /* --max-memory-growth: memory-growth   */
	TP_CHECK_ADVICE_N
};

/* The rules given on the command line; a rule is off when its has_ flag
 * is false. Borrowed: baseline, module and scope. */
struct tp_check_opts {
	bool has_max_peak;
	uint64_t max_peak;            /* --max-peak, bytes                  */
	bool has_max_peak_fraction;
	double max_peak_fraction;     /* --max-peak-fraction, 0 < F         */
	bool has_max_growth;
	double max_growth_pct;        /* --max-growth, percent, >= 0: each
					 metric without a limit of its own */
	/* --max-peak-growth, --max-time-growth, --max-traffic-growth:
	 * percent, >= 0, over max_growth_pct for that metric */
	bool has_max_peak_growth, has_max_time_growth, has_max_traffic_growth;
	double max_peak_growth_pct, max_time_growth_pct, max_traffic_growth_pct;
	const json_t *baseline;       /* --baseline document, or NULL       */
	bool allow_unmatched;         /* --allow-unmatched: a baseline
					 subject without counterpart passes */
	bool has_max_step_time;
	int64_t max_step_time_ps;     /* --max-step-time, ps per steady step */
	bool has_max_collective_bytes;
	uint64_t max_collective_bytes; /* --max-collective-bytes, bytes     */
	const char *module;           /* --module NAME|ID, or NULL          */
	const char *scope;            /* --scope PREFIX, or NULL            */
	uint64_t hbm;                 /* --hbm capacity, 0 = from the doc   */
	bool has_min_headroom;        /* --min-headroom SIZE|PCT%           */
	bool min_headroom_is_pct;
	uint64_t min_headroom;        /* bytes                              */
	double min_headroom_pct;      /* percent of capacity, 0..100        */
	bool has_min_flops_utilization;
	double min_flops_utilization; /* --min-flops-utilization, 0..1      */
	bool has_max_collective_share;
	double max_collective_share;  /* --max-collective-share, 0..1       */
	bool has_max_idle_share;
	double max_idle_share;        /* --max-idle-share, 0..1             */
	bool allow_partial;           /* --allow-partial                    */
	bool has_advice[TP_CHECK_ADVICE_N];
	double advice_limit[TP_CHECK_ADVICE_N]; /* fractions, 0..1           */
};

enum tp_check_rule {
	TP_CHECK_MAX_PEAK,
	TP_CHECK_MAX_PEAK_FRACTION,
	TP_CHECK_MAX_GROWTH,
	TP_CHECK_MAX_COLLECTIVE_BYTES,
	TP_CHECK_MIN_HEADROOM,
	TP_CHECK_MIN_FLOPS_UTILIZATION,
	TP_CHECK_MAX_COLLECTIVE_SHARE,
	TP_CHECK_MAX_IDLE_SHARE,
	TP_CHECK_MAX_STEP_TIME,
	TP_CHECK_MAX_HBM_BOUND,       /* then the advice rules, in order of   */
	TP_CHECK_MAX_COMPUTE_BOUND,   /* enum tp_check_advice_rule            */
	TP_CHECK_MAX_INPUT_SHARE,
	TP_CHECK_MAX_ASYNC_WAIT_SHARE,
	TP_CHECK_MAX_DEBUG_PRINT_SHARE,
	TP_CHECK_MAX_BARRIER_SHARE,
	TP_CHECK_MAX_SPARSECORE_SHARE,
	TP_CHECK_MAX_HOST_OFFLOAD_SHARE,
	TP_CHECK_MAX_STRAGGLER_SPREAD,
	TP_CHECK_MAX_MEMORY_GROWTH,
};

/* What a row measures. */
enum tp_check_metric {
	TP_METRIC_PEAK_BYTES,       /* bytes at the memory peak            */
	TP_METRIC_OP_TIME,          /* op self time, ps                    */
	TP_METRIC_COLLECTIVE_BYTES, /* ring bytes per device, summed       */
	TP_METRIC_STEP_TIME,        /* mean steady step duration, ps       */
	TP_METRIC_HEADROOM_BYTES,   /* capacity - peak, bytes              */
	TP_METRIC_FLOP_UTILIZATION, /* a fraction: in fraction, not measured */
	TP_METRIC_COLLECTIVE_SHARE, /* of steady step time: in fraction      */
	TP_METRIC_IDLE_SHARE,       /* of steady step time: in fraction      */
	/* the advice rules' figures (report advice[].measured), in order of
	 * enum tp_check_advice_rule; all fractions */
	TP_METRIC_HBM_BW_UTILIZATION,
	TP_METRIC_ADVICE_FLOP_UTILIZATION,
	TP_METRIC_INPUT_SHARE,
	TP_METRIC_ASYNC_WAIT_SHARE,
	TP_METRIC_DEBUG_PRINT_SHARE,
	TP_METRIC_BARRIER_SHARE,
	TP_METRIC_SPARSECORE_SHARE,
	TP_METRIC_HOST_OFFLOAD_SHARE,
	TP_METRIC_STRAGGLER_SPREAD,
	TP_METRIC_MEMORY_GROWTH,
};

/* Metrics measured as a fraction (row.fraction), not bytes or ps. */
static inline bool tp_check_metric_is_fraction(enum tp_check_metric m)
{
	return m >= TP_METRIC_FLOP_UTILIZATION;
}

/* Metrics in ps (op time, step time); the other integers are bytes. */
static inline bool tp_check_metric_is_ps(enum tp_check_metric m)
{
	return m == TP_METRIC_OP_TIME || m == TP_METRIC_STEP_TIME;
}

/* How the baseline's cores were paired with the run's: by host name
 * where the runs share host names, else by structure (the i-th host of
 * one with the i-th of the other, cores by plane name; renamed hosts,
 * standard input). Modules are paired by name either way. */
enum tp_check_match {
	TP_CHECK_MATCH_NONE,       /* no baseline                        */
	TP_CHECK_MATCH_NAMES,
	TP_CHECK_MATCH_STRUCTURE,
};

/* A growth row whose subject has no counterpart on the other side. */
enum tp_check_unmatched {
	TP_CHECK_MATCHED,
	TP_CHECK_NOT_IN_BASELINE,  /* new in the run: reported, passes    */
	TP_CHECK_NOT_IN_RUN,       /* the baseline's, gone: fails unless
				      allow_unmatched                     */
};

/* A host of the run and the baseline host it was paired with. */
struct tp_check_host_pair {
	const char *run, *baseline; /* borrowed from the documents */
};

#define TP_CHECK_MAX_CONTRIB 3

struct tp_check_contrib {
	const char *kind;   /* "buffer", "allocation", "op", "collective" (static) */
	const char *name;   /* borrowed from the document               */
	const char *scope;  /* a buffer's name scope ("" none); NULL for other kinds */
	int64_t value;      /* bytes, or ps for ops                      */
};

struct tp_check_row {
	enum tp_check_rule rule;
	enum tp_check_metric metric;
	const char *host, *plane;        /* the core, or NULL             */
	const char *module, *program_id; /* the module, or NULL           */
	bool module_shared;              /* another row's program has the
					  * same name: text says NAME #ID  */
	const char *scope;               /* --scope, or NULL              */
	const char *source;              /* what measured was taken from:
					    "compiler", "runtime", "executions",
					    "instructions" or NULL (static) */
	int64_t measured;                /* bytes or ps                   */
	int64_t limit;                   /* bytes or ps                   */
	double fraction, limit_fraction; /* max-peak-fraction; min-headroom
					    (of capacity; limit_fraction
					    with a PCT); min-flops-utilization */
	int64_t capacity;                /* max-peak-fraction, min-headroom */
	bool has_baseline;
	int64_t baseline;                /* max-growth: baseline value    */
	const char *baseline_host;       /* max-growth: the baseline core's
					    host (another name when matched
					    by structure), or NULL         */
	enum tp_check_unmatched unmatched;
	bool per_step;                   /* measured, baseline, limit and
					    contributors are per step      */
	/* step rules (--max-idle-share, --max-collective-share,
	 * --max-step-time): the core's clock ("device" or "timeline",
	 * borrowed from the report, NULL elsewhere) and its op time no step
	 * holds, which a share of step time does not see (-1: unknown) */
	const char *clock;
	int64_t outside_steps_ps;
	bool pass;
	/* largest first; for max-growth the largest increases over the
	 * baseline (same kind and name), value = now - baseline */
	size_t n_contrib;
	struct tp_check_contrib contrib[TP_CHECK_MAX_CONTRIB];
};

struct tp_check {
	struct tp_check_row *rows;  /* malloc'd; rule order, then subject */
	size_t n_rows, cap_rows;
	size_t n_failed;
	/* damaged parts the document (and the baseline) was made without
	 * (info.damage, and runtime memories with damaged allocator events);
	 * without allow_partial they fail the check: what was measured is
	 * not the whole capture */
	size_t damaged_parts;
	bool partial_fails;
	/* with a baseline: how its hosts were paired with the run's
	 * (malloc'd pairs, in the run's host order), whether time and
	 * traffic were compared per step (else totals: neither run has
	 * steps), and the baseline subjects without counterpart */
	enum tp_check_match match;
	struct tp_check_host_pair *pairs;
	size_t n_pairs, cap_pairs;
	bool growth_per_step;
	size_t n_unmatched;
};

/* Whether the check as a whole fails: a broken rule, or partial input. */
static inline bool tp_check_failed(const struct tp_check *c)
{
	return c->n_failed || c->partial_fails;
}

/* Evaluates the rules of o over doc (a tpuprof.report/1 document).
 * TP_ERR_USAGE when no rule is given, when --module or --scope names
 * nothing in doc, or when a fraction rule meets a subject without a
 * capacity; TP_ERR_INPUT when doc (or the baseline) lacks what a rule
 * measures, when the baseline's devices are of another kind (TPU, GPU)
 * or when only one of the two runs has steps. On failure c is left released. */
enum tp_err tp_check_run(struct tp_check *c, const json_t *doc,
			 const struct tp_check_opts *o, struct tp_error *err);
void tp_check_release(struct tp_check *c);

/* Whether o has a growth rule (--max-growth or one metric's). */
bool tp_check_any_growth_rule(const struct tp_check_opts *o);

/* Rule and metric names as in the JSON ("max-peak", "peak_bytes", ...). */
const char *tp_check_rule_name(enum tp_check_rule r);
const char *tp_check_metric_name(enum tp_check_metric m);
/* An advice rule's flag ("max-input-share", no dashes), its advice rule
 * ("input-bound") and what its figure is, for a sentence. */
const char *tp_check_advice_flag(enum tp_check_advice_rule a);
const char *tp_check_advice_finding(enum tp_check_advice_rule a);
const char *tp_check_advice_what(enum tp_check_advice_rule a);

#endif
