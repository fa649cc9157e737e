/*
 * advice.h - what bounds the time and what to look at: XProf's overview
 * rules and thresholds, and tpuprof's own, judged on the ops (steps,
 * roofline) and memory analyses of a report. Every rule gives one
 * finding: fired, not fired, or not judged (the capture lacks the data),
 * with the measured figure and the core it was measured on (docs/ops.md
 * has the rules).
 *
 * Ownership: a struct tp_advice owns its findings and their text
 * (malloc'd, freed by tp_advice_release); rule names are static.
 */
#ifndef TPUPROF_ADVICE_H
#define TPUPROF_ADVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/memory.h"
#include "tpuprof/ops.h"

enum tp_advice_verdict {
	TP_ADVICE_FIRED,
	TP_ADVICE_NOT_FIRED,
	TP_ADVICE_NOT_JUDGED,
};

struct tp_advice_finding {
	const char *rule;       /* "memory-bound", "idle", ... (static)    */
	const char *origin;     /* "xprof" or "tpuprof" (static)           */
	enum tp_advice_verdict verdict;
	size_t core;            /* index into tp_ops.cores: where measured
				   (the worst core); SIZE_MAX for none     */
	bool has_measured;
	double measured;        /* a share or utilization, 0.3 = 30%       */
	double threshold;       /* the rule's limit, same unit             */
	bool has_second;        /* the bound rules' other utilization      */
	double second, second_threshold;
	bool has_time;          /* where it shows on the timeline          */
	int64_t time_ps;
	char *text;             /* one line with the figures, malloc'd     */
};

struct tp_advice {
	struct tp_advice_finding *v; /* malloc'd, in the rules' order       */
	size_t n, cap;
};

/* Judges every rule. mem may be NULL (memory rules not judged). */
void tp_advice_build(struct tp_advice *a, const struct tp_ops *ops,
		     const struct tp_memory *mem);
void tp_advice_release(struct tp_advice *a);

const char *tp_advice_verdict_name(enum tp_advice_verdict v);

#endif
