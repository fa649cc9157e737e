/*
 * advice.h - what bounds the time and what to look at: XProf's overview
 * rules and thresholds, and tpuprof's own (docs/ops.md, "Advice"). Every
 * rule gives one finding: fired, not fired, or not judged (the capture
 * lacks the data), with the figure measured and the core it was measured
 * on (the worst one).
 *
 * The rules read per-core figures (struct tp_advice_core), which come
 * from the analyses (tp_advice_build, for `report`) or from a report
 * document (`merge`, which must give what `report` gives over all the
 * files at once): one judge for both.
 *
 * Ownership: a struct tp_advice owns its findings and their text
 * (malloc'd, freed by tp_advice_release); rule names are static; host and
 * plane names are borrowed from the input (the capture or the document),
 * which must outlive it.
 */
#ifndef TPUPROF_ADVICE_H
#define TPUPROF_ADVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/analyze/memory.h"
#include "tpuprof/analyze/ops.h"

enum tp_advice_verdict {
	TP_ADVICE_FIRED,
	TP_ADVICE_NOT_FIRED,
	TP_ADVICE_NOT_JUDGED,
};

struct tp_advice_step {
	int64_t start_ps, dur_ps;
	bool warmup;
	int64_t debug_print_ps;       /* tp_step.debug_print_ps              */
	struct tp_str name;           /* tp_step.name: matches a step across
					 the cores of a host (debug-print) */
	struct tp_step_parts parts;   /* tp_step's compute_ps ... idle_ps   */
	bool has_parts;               /* false: a document without them     */
};

/* One device core, as the rules see it. */
struct tp_advice_core {
	const char *host;
	struct tp_str plane;
	bool sparsecore;              /* a SparseCore plane                  */
	bool has_util;                /* both utilizations known             */
	double flop_util, hbm_util;   /* ops.cores[].flop_utilization, ...   */
	const struct tp_advice_step *steps; /* by start; borrowed           */
	size_t n_steps;
	bool inferred_steps;          /* steps_source inferred: the first and
					 last are edges (tp_step_across)  */
	int64_t steady_sum_ps, steady_collective_ps, steady_idle_ps, steady_copy_ps;
	int64_t infeed_ps;            /* self time of infeed ops             */
	int64_t done_ps;              /* self time of async -done ops        */
	int64_t barrier_ps;           /* tp_ops_core.barrier_ps: barrier
					 events in steps, XProf's dummy ones
					 of 0 and 1250 ps left out          */
	int64_t self_ps;              /* all op self time                    */
	bool no_debug_print;          /* steps without debug_print_ps: a
					 document made before the figure */
};

/* A core's memory: the larger peak and its capacity (0: unknown). */
struct tp_advice_memory {
	const char *host;
	struct tp_str plane;
	uint64_t peak, capacity;
};

/* A runtime allocator event: bytes in use (heap + stack) at a time. */
struct tp_advice_sample {
	int64_t time_ps, in_use;
};

/* A runtime allocator memory's timeline (memory.runtime[]), sorted by
 * time; plane names the core whose memory it is (empty when no core
 * names it: then the host's first core with steps gives the steps). */
struct tp_advice_runtime {
	const char *host, *id;
	struct tp_str plane;
	const struct tp_advice_sample *samples; /* borrowed */
	size_t n;
};

struct tp_advice_input {
	const struct tp_advice_core *cores;
	size_t n_cores;
	const struct tp_advice_memory *memory;
	size_t n_memory;
	const struct tp_advice_runtime *runtime;
	size_t n_runtime;
};

/* The debug-print rule's figure for one host (XProf's per-host average
 * event time percent): over the host's steps that hold debug_print
 * events (steps matched across its cores by name), the mean of each
 * step's mean over those cores of debug_print time / step time. */
struct tp_advice_host {
	const char *host;       /* borrowed                                */
	double share;           /* 0.06 = 6%; 0 when no step holds one     */
	size_t steps;           /* steps holding debug_print events        */
};

struct tp_advice_finding {
	const char *rule;       /* "memory-bound", "idle", ... (static)    */
	const char *origin;     /* "xprof" or "tpuprof" (static)           */
	enum tp_advice_verdict verdict;
	const char *host;       /* where measured, or NULL (borrowed)      */
	struct tp_str plane;
	bool has_measured;
	double measured;        /* a share or utilization, 0.3 = 30%       */
	double threshold;       /* the rule's limit, same unit             */
	bool has_second;        /* the bound rules' other utilization      */
	double second, second_threshold;
	bool has_time;          /* where it shows on the timeline          */
	int64_t time_ps;
	bool has_step;          /* straggler: the step position it measured */
	size_t step;            /* (tp_step_across.index), so that a reader
				 * of the document takes that row, not one
				 * it chose again                          */
	char *text;             /* one line with the figures, malloc'd     */
	struct tp_advice_host *hosts; /* debug-print: every host with steps,
				 * in first-seen order; malloc'd, else NULL */
	size_t n_hosts;
};

struct tp_advice {
	struct tp_advice_finding *v; /* malloc'd, in the rules' order       */
	size_t n, cap;
};

/* Judges every rule on the input. */
void tp_advice_judge(struct tp_advice *a, const struct tp_advice_input *in);
/* The input from the analyses (mem may be NULL), judged. */
void tp_advice_build(struct tp_advice *a, const struct tp_capture *cap,
		     const struct tp_ops *ops, const struct tp_memory *mem);
void tp_advice_release(struct tp_advice *a);

/* Whether an op counts as infeed, or as an async -done wait. */
bool tp_advice_is_infeed(struct tp_str category);
bool tp_advice_is_done(struct tp_str category, struct tp_str name);

const char *tp_advice_verdict_name(enum tp_advice_verdict v);

/* The debug-print figure of every host that has a core with steps, in
 * the order the cores first name them (hosts are told apart by name);
 * *out malloc'd (NULL when none). */
size_t tp_advice_debug_print_hosts(const struct tp_advice_input *in,
				   struct tp_advice_host **out);
/* Judges the debug-print rule into f (rule, origin and threshold set):
 * verdict, the worst host's figure, every host's (f->hosts), the text. */
void tp_advice_debug_print_judge(struct tp_advice_finding *f, const struct tp_advice_input *in);

#endif
