/*
 * ops.h - every op that ran on every core (`tpuprof ops`), the per-step
 * breakdown, and the roll-up of op time over name scopes.
 *
 * TPU ops are keyed by (program id, symbol id) from the event metadata of
 * the "XLA Ops" line and timed with device_offset_ps/device_duration_ps
 * (format-facts §7, §11.5); GPU kernels by (program id, hlo_module,
 * hlo_op) from the kernel events of "Stream #" lines (§11.9); TF-era
 * captures by the event metadata of the "TensorFlow Ops" (or "Framework
 * Ops") line. Self time comes from a nesting pass over each line sorted by
 * start ascending, then duration descending (§11.6). docs/ops.md has the
 * rules.
 *
 * Ownership: tp_ops owns its malloc'd arrays and strings and the HLO
 * indexes it builds; names, categories and scopes are slices borrowed from
 * the capture (file bytes or decoded HLO), which must outlive the result.
 * tp_ops_release() frees everything the result owns.
 */
#ifndef TPUPROF_OPS_H
#define TPUPROF_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/analyze/common/selection.h"
#include "tpuprof/decode/capture.h"
#include "tpuprof/device/device.h"
#include "tpuprof/analyze/common/hlo_index.h"
#include "tpuprof/analyze/common/scopes.h"
#include "tpuprof/util/strpool.h"

struct tp_mem_runtime;

enum tp_op_source {
	TP_OPSRC_TPU,       /* XLA Ops line, program id + symbol id     */
	TP_OPSRC_GPU,       /* kernel events with hlo_module / hlo_op   */
	TP_OPSRC_TF,        /* TensorFlow Ops / Framework Ops line      */
};

/* An op's part of an async pair (X-start/X-done, send/recv and their
 * -done, async-start/-update/-done): the pair's bytes are counted once,
 * on its -start, and neither half's own time is the transfer's. */
enum tp_op_async { TP_ASYNC_NONE, TP_ASYNC_START, TP_ASYNC_UPDATE, TP_ASYNC_DONE };

/* Where an op's FLOPs and bytes come from: none, the capture's cost
 * model (the flops and bytes_accessed stats XLA computed), or, for a
 * custom call (Pallas, Triton, a library kernel), the estimate its
 * kernel's author gave XLA. */
enum tp_cost_source { TP_COST_NONE, TP_COST_MODEL, TP_COST_CUSTOM_CALL };

/* "none" (JSON null), "cost_model", "custom_call_estimate". */
const char *tp_cost_source_name(enum tp_cost_source s);

struct tp_op {
	/* what the op pass adds to per event, together (one cache line
	 * of the op, not three) */
	uint64_t occurrences;
	uint64_t meta_occ;      /* internal: bulk occurrences whose FLOPs and
				 * bytes are the metadata's, folded in at the
				 * end of the core                        */
	int64_t total_ps, self_ps, min_ps;
	bool collective;        /* a collective (category or opcode)      */
	bool copy;              /* a copy or host transfer (category,
				 * tp_op_copy_kind): steps count it apart */
	uint32_t step_cat;      /* internal: its category's slot among the
				 * core's, + 1; 0 until a step needs it */
	size_t core;            /* index into tp_ops.cores                */
	uint64_t program_id;    /* 0 for TF ops                           */
	size_t module;          /* index into tp_capture.modules, SIZE_MAX */
	long instr;             /* index in that module's HLO index, -1    */
	/* name, category and scope are in tp_ops.strings (pooled copies,
	 * so that the capture's pages need not stay in memory) */
	struct tp_str name;     /* HLO op name or TF op name              */
	struct tp_str category; /* hlo_category, fusion kind, TF op type  */
	struct tp_str scope;    /* name-scope path; may be empty          */
	char *source;           /* "file:line", malloc'd, or NULL         */
	bool has_flops, has_bytes;
	int64_t flops;          /* summed over occurrences                */
	int64_t bytes_accessed; /* summed over occurrences                */
	enum tp_precision precision; /* of its matrix operands, else output */
	enum tp_op_async async; /* its part of an async pair               */
	bool host_transfer;     /* a copy to or from host memory, S(5)    */
	bool bytes_on_start;    /* a -done whose pair's bytes its -start
				 * carries: its own were dropped           */
	enum tp_cost_source cost_source; /* where flops and bytes came from */
};

enum tp_step_source {
	TP_STEPS_NONE,      /* no step line and nothing to infer from     */
	TP_STEPS_LINE,      /* the core's "Steps" line                    */
	TP_STEPS_GROUP,     /* its op events grouped by their group_id    */
	TP_STEPS_GROUP_EMPTY_LINE, /* the same, where the core's "Steps" line
			     * has no event (XProf gives no steps then)   */
	TP_STEPS_INFERRED,  /* runs of its busiest program: XLA Modules
			     * (TPU), executions of its kernels (GPU)    */
};

/* The clock a core's time figures come from (docs/ops.md, "One clock"):
 * the device's own (device_offset_ps, device_duration_ps) where its op
 * events carry it, else the host-aligned timeline (offset_ps). */
enum tp_clock {
	TP_CLOCK_TIMELINE,
	TP_CLOCK_DEVICE,
};
const char *tp_clock_name(enum tp_clock clock);
/* "device" or "timeline"; false for anything else. */
bool tp_clock_parse(const char *name, enum tp_clock *out);

/* Where op time lies outside every step, by kind (tp_ops_core.outside_ps). */
enum { TP_PART_COMPUTE, TP_PART_COLLECTIVE, TP_PART_COPY, TP_PARTS };

/* Past this, the timeline's run spans disagree with the device's: a
 * ratio outside [1 - x, 1 + x] is warned about (tp_ops_core.drift_*). */
#define TP_DRIFT_TOLERANCE 0.01

struct tp_ops_core {
	size_t host;                 /* index into tp_capture.hosts       */
	const struct tp_plane *plane;  /* borrowed                         */
	enum tp_op_source source;
	size_t first_op, n_ops;      /* range of tp_ops.ops (this core)   */
	size_t first_step, n_steps;  /* range of tp_ops.steps             */
	struct tp_step_cat *cats_block; /* malloc'd: the tp_step.cats of
					the core in one block (thousands
					of steps: one allocation)         */
	bool cats_all;               /* every step holds its categories:
					asked for (every_step_cats) or at
					most TP_STEP_ROWS_MAX steps; else
					only the first step (the only one
					that can be warm-up)              */
	struct tp_step_cat *cat_totals; /* malloc'd: compute by category
					over all the core's steps, any
					order (the steady sums without
					per-step categories)              */
	size_t n_cat_totals;
	enum tp_step_source step_source; /* where the steps came from      */
	uint64_t step_program_id;    /* TP_STEPS_INFERRED: the program    */
	struct tp_str step_program;  /* its module name, pooled; or empty */
	enum tp_clock clock;         /* every time figure's clock         */
	uint64_t device_clock_events; /* op events with device times    */
	bool clock_mapped;           /* the step markers were on the
				      * timeline: windows moved to the
				      * device spans of their ops        */
	size_t steps_without_ops;    /* markers dropped in that move: no op
				      * gave them a device span           */
	bool has_drift;              /* timeline run span / device span,  */
	double drift_lo, drift_hi;   /* least and most over the steps     */
	int64_t outside_ps[TP_PARTS]; /* op time on no step, by kind      */
	bool has_span;
	int64_t first_start_ps;      /* earliest op or step start         */
	int64_t last_end_ps;         /* latest op or step end             */
	int64_t device_ps;           /* last_end_ps - first_start_ps      */
	int64_t op_ps;               /* sum of op total times (all ops)   */
	int64_t self_ps;             /* sum of op self times (all ops)    */
	int64_t collective_ps;       /* self time of collective ops       */
	uint64_t events;             /* op events counted                 */
	bool is_sparse_core;         /* a SparseCore plane: its steps are
					compared with no TensorCore's      */
	/* XProf's duty cycle (TPU op lines, op_duty.c): busy = the union
	 * of the on-duty events of the op lines, with or without a program
	 * id (infeed, outfeed and host send/recv are off duty on "XLA
	 * Ops"); idle = the span of those events and of the module lines'
	 * less busy. */
	bool has_duty;
	int64_t duty_busy_ps, duty_idle_ps;
	/* device time of the barrier events (tp_op_is_barrier) on the op
	 * lines that start inside a step, less XProf's dummy ones of 0 and
	 * 1250 ps: what the barrier-cores advice measures */
	int64_t barrier_ps;
	/* a SparseCore plane with a "Sparse Core Modules" line: its ops
	 * count only inside the modules that carry both offload ids, and
	 * module_ps (their time) is its device_ps */
	bool has_module_time;
	int64_t module_ps;
	struct tp_device_figures device; /* peaks and bandwidth (device.h) */
	/* GPU planes with program_id stats: the program ids the kernels of
	 * each line read carry (on the event, else on its metadata), first
	 * seen first, with how many events carry each; a line read whose
	 * events carry none has one entry with runs 0. malloc'd. What the
	 * memory analysis counts a core's programs from: report hands
	 * these over so that the kernel lines are read once. */
	struct tp_line_program *programs;
	size_t n_programs;
};

struct tp_line_program {
	const struct tp_line *line;  /* borrowed                          */
	uint64_t id, runs;
};

/* Compute time of one op category (tp_op.category, as `--by category`
 * groups ops) within a step. */
struct tp_step_cat {
	struct tp_str category;      /* pooled                            */
	int64_t ps;                  /* self time of its compute ops      */
};

/* One step of a core: an event of its "Steps" line, the span of its op
 * events of one group_id, or (inferred) one run of the program with the
 * most device time, from its start to the next run's (the last: to its
 * end): on TPU its "XLA Modules" line's, on GPU one execution of its
 * kernels (gpu_runs.c). On the core's clock (tp_ops_core.clock). Its
 * parts partition it: the instants its ops own, by kind (step_parts.c:
 * clipped to the window, each instant once), input (the rest that the
 * host's input events overlap) and idle, the rest:
 * compute + collective + copy + input + idle = duration, exactly. */
struct tp_step {
	/* a million steps a pod: no field a step does not need (its core
	 * is the tp_ops_core whose range holds it), 96 bytes */
	struct tp_str name;          /* event name or group id, pooled    */
	int64_t start_ps, dur_ps;
	int64_t compute_ps, collective_ps, copy_ps, idle_ps;
	int64_t input_ps;            /* instants no op owns that the host's
					input events overlap (XProf's
					input attribution): not idle      */
	/* compute_ps by op category, most first (ties by name): they sum
	 * to compute_ps. Borrowed from the core's cats_block; NULL when the
	 * step has no compute. */
	struct tp_step_cat *cats;
	uint32_t n_cats;             /* at most the op categories          */
	bool warmup;                 /* the first step, much slower than
					the rest (steps_summary.c)      */
	int64_t debug_print_ps;      /* device time of "debug_print"
					events inside (steps.c) */
};

/* One execution of a collective op: the raw material of `collectives`. */
struct tp_op_exec {
	size_t op;                   /* index into tp_ops.ops             */
	int64_t start_ps, dur_ps;
};

struct tp_ops_filter {
	const char *host;    /* host name, or NULL for all                  */
	const char *core;    /* plane name or device ordinal, or NULL       */
	const char *module;  /* module name or program id, or NULL          */
	const struct tp_device_row *device; /* --device, NULL = detected    */
	/* the hosts, cores and modules to read, made once by a driver that
	 * runs several analyses (report); NULL: made from host, core and
	 * module. Borrowed. */
	const struct tp_selection *selection;
	/* keep each step's compute by category (tp_step.cats) on every
	 * core: what per-step rows need (--per-step, the documents merge
	 * reads); otherwise a core with more than TP_STEP_ROWS_MAX steps
	 * keeps only its sums (a category's 24 bytes a step, a million
	 * steps a pod) */
	bool every_step_cats;
	/* the runtime memory already read (report's memory analysis, which
	 * comes first), whose allocator capacities the devices take;
	 * borrowed; NULL: read again here */
	const struct tp_mem_runtime *runtime;
	/* the caller's own work, run beside the op pass as one more item of
	 * its threads, the last taken, so that the threads it makes of its
	 * own share the pass's end, where one core's thread would otherwise
	 * wait on the other's last core (report: the memory analysis, whose
	 * runtime is the one above, complete when the pass ends). It must
	 * not write what the pass reads (capture state, lines it scans);
	 * NULL: none */
	void (*beside)(void *ctx);
	void *beside_ctx;
};

/* The most steps a core's per-step rows list unless asked for every
 * one (--per-step): a document of a capture with thousands of steps per
 * core must not grow with steps faster than the capture (docs/json.md,
 * step_rows). */
#define TP_STEP_ROWS_MAX 100

struct tp_ops {
	struct tp_ops_core *cores;   /* malloc'd, capture order            */
	size_t n_cores;
	struct tp_op *ops;           /* malloc'd, grouped by core          */
	size_t n_ops;
	struct tp_step *steps;       /* malloc'd, grouped by core          */
	size_t n_steps;
	struct tp_op_exec *execs;    /* malloc'd, collective executions    */
	size_t n_execs;
	struct tp_strpool *strings;  /* malloc'd: the ops' strings; a
				      * core's job borrows its parent's  */
	struct tp_hlo_index *index;  /* malloc'd, one per capture module   */
	bool *indexed;               /* which of index[] are built         */
	size_t n_modules;
	size_t cap_ops, cap_steps, cap_execs; /* internal                  */
};

/* Builds every op of every device core that passes the filter. Decodes the
 * HLO modules it needs. TP_ERR_USAGE when a filter names no host, core or
 * module of the capture; TP_ERR_INPUT for a corrupt HLO module. On failure
 * ops is left released. */
enum tp_err tp_ops_build(struct tp_ops *ops, struct tp_capture *cap,
			 const struct tp_ops_filter *filter,
			 struct tp_error *err);
void tp_ops_release(struct tp_ops *ops);

/* The core's op time outside every step (the sum of outside_ps). */
int64_t tp_ops_core_outside_ps(const struct tp_ops_core *c);

/* A core's steps in ops->steps (n_steps of them): NULL while ops holds
 * no step at all (NULL + 0 is undefined behaviour in C). */
static inline struct tp_step *tp_ops_core_steps(const struct tp_ops *ops,
						const struct tp_ops_core *core)
{
	return ops->steps ? ops->steps + core->first_step : NULL;
}
/* The timeline's run spans disagree with the device's by more than
 * TP_DRIFT_TOLERANCE on some step. */
bool tp_ops_core_drifts(const struct tp_ops_core *c);

/* The HLO index of capture module m, built on first use; NULL when the
 * module is not decoded. */
const struct tp_hlo_index *tp_ops_index(struct tp_ops *ops,
					struct tp_capture *cap, size_t m);
/* The first decoded capture module with this program id (modules repeat
 * per host); SIZE_MAX when there is none. */
size_t tp_ops_find_module(const struct tp_capture *cap, uint64_t program_id);

/* total / occurrences; 0 without occurrences. */
int64_t tp_op_avg_ps(const struct tp_op *o);

enum tp_ops_sort { TP_SORT_TOTAL, TP_SORT_SELF, TP_SORT_COUNT, TP_SORT_AVG,
		   TP_SORT_MIN, TP_SORT_NAME, TP_SORT_FLOPS, TP_SORT_BYTES,
		   TP_SORT_FLOP_UTIL, TP_SORT_BANDWIDTH };
/* Parses "total", "self", "count", "avg", "min", "name", "flops",
 * "bytes", "flop-util" (FLOP utilization), "bandwidth" (bytes per
 * second of total time); an op without the figure sorts last. */
bool tp_ops_sort_parse(const char *s, enum tp_ops_sort *out);
const char *tp_ops_sort_name(enum tp_ops_sort key);
/* Sorts the ops of each core (largest first; names ascending), ties by
 * name, then program id. Execution records keep pointing at their ops. */
void tp_ops_sort(struct tp_ops *ops, enum tp_ops_sort key);

/* The collective kind of an HLO opcode or TPU category: "all-reduce" for
 * all-reduce, all-reduce-start, all-reduce-done and cross-replica-sum, and
 * so on; NULL when it is no collective. */
const char *tp_collective_kind(struct tp_str opcode);
/* Whether an op of this category (or HLO opcode) moves data rather than
 * computing: "copy", "copy-start", "copy-done" (on-device copies and host
 * offload), "infeed", "outfeed" (host transfers). */
bool tp_op_copy_kind(struct tp_str category);

/* Whether an op or event is a barrier between cores: "barrier" in its
 * category or name, any case ("barrier-cores", "BarrierCores"). */
bool tp_op_is_barrier(struct tp_str category, struct tp_str name);

/* ---- steps together (steps_summary.c) ---- */

/* The first step is warm-up when there are at least TP_WARMUP_MIN_STEPS
 * steps and it took more than TP_WARMUP_FACTOR times the median of the
 * others; steady-state figures leave it out. */
#define TP_WARMUP_MIN_STEPS 3
#define TP_WARMUP_FACTOR 2
/* A step straggles when its slowest core took more than this percent
 * longer than its fastest. */
#define TP_STRAGGLER_PCT 10

/* Marks each core's warm-up step (tp_step.warmup). Called by
 * tp_ops_build. */
void tp_steps_mark_warmup(struct tp_ops *ops);

/* A core's steady-state steps: sums over the steps not marked warm-up. */
struct tp_steps_summary {
	size_t n_steps, n_steady;
	bool warmup;                  /* the first step was left out        */
	int64_t step_ps;              /* mean steady step: sum_ps / n_steady */
	int64_t sum_ps, compute_ps, collective_ps, copy_ps, idle_ps, input_ps;
};
void tp_steps_summarize(const struct tp_ops *ops, const struct tp_ops_core *core,
			struct tp_steps_summary *out);
/* The spread of a core's steady step durations (the steps not marked
 * warm-up): the fastest and the slowest with their positions in the
 * core's steps (0 = its first step, the warm-up one included), the
 * median as the warm-up rule takes it (of the durations sorted, the one
 * at n / 2, 0-based: the upper one of two) and the nearest-rank
 * percentiles (the ceil(p n / 100)-th smallest). All zero without a
 * steady step. One sort of n durations: no per-step allocation. */
struct tp_step_durations {
	size_t n;                     /* steady steps                       */
	int64_t min_ps, max_ps;
	size_t min_index, max_index;  /* the first such step on ties       */
	int64_t median_ps, p90_ps, p99_ps;
};
void tp_steps_durations(const struct tp_ops *ops, const struct tp_ops_core *core,
			struct tp_step_durations *out);

/* The steady steps' compute by category (sums of tp_step.cats over the
 * steps not marked warm-up), most first, ties by name; they sum to the
 * summary's compute_ps. *out is malloc'd (NULL when there is none). */
size_t tp_steps_steady_categories(const struct tp_ops *ops, const struct tp_ops_core *core,
				  struct tp_step_cat **out);

/* A step's time by kind, as tp_step partitions it: they sum to the
 * step's duration exactly (outside_ps's TP_PART_* are three of them, in
 * the same order). In this order in JSON and text, named by
 * tp_step_part_names (util/step_parts.h). */
enum tp_step_part {
	TP_STEP_PART_COMPUTE, TP_STEP_PART_COLLECTIVE, TP_STEP_PART_COPY,
	TP_STEP_PART_INPUT, TP_STEP_PART_IDLE, TP_STEP_PARTS
};
struct tp_step_parts {
	int64_t ps[TP_STEP_PARTS];
};
/* "compute", "collective", "copy", "input", "idle": the part's name in
 * JSON (its key without "_ps") and text. */
const char *tp_step_part_name(enum tp_step_part k);
/* A step's parts (tp_step's compute_ps ... idle_ps). */
struct tp_step_parts tp_step_parts_of(const struct tp_step *s);

/* One step position across every core with steps (steps are matched by
 * position: the i-th step of each core). */
struct tp_step_across {
	size_t index;                 /* the step's position on each core   */
	size_t n_cores;
	size_t slowest_core, fastest_core; /* indexes into tp_ops.cores     */
	int64_t slowest_ps, fastest_ps;
	int64_t spread_ps;            /* slowest - fastest                  */
	bool straggler;               /* spread > TP_STRAGGLER_PCT% of fastest,
				       * at no edge                         */
	bool warmup;                  /* warm-up on some core               */
	bool edge;                    /* the first or last of some core's
				       * inferred steps: bounded there by
				       * that core's own first or last op,
				       * not by a step the cores share (its
				       * spread is launch skew, not a
				       * straggler)                         */
	/* the slowest and the fastest core's parts of the step; known when
	 * every core compared gave them (a saved document may not) */
	struct tp_step_parts slowest_parts, fastest_parts;
	bool parts_known;
};
/* The steps every core with steps has (the fewest any has), each across
 * the cores; 0 and NULL with fewer than two such cores. *out is
 * malloc'd. */
size_t tp_steps_across(const struct tp_ops *ops, struct tp_step_across **out);
/* The same figures from any list of cores' steps (merge recomputes them
 * from saved documents): a zeroed a, each core's i-th step added in core
 * order, then closed (spread and straggler). parts: the step's parts,
 * NULL when they are not known. */
void tp_step_across_add(struct tp_step_across *a, size_t core, int64_t dur_ps,
			const struct tp_step_parts *parts, bool warmup, bool edge);
/* Where the spread comes from: each part of the slowest core's step less
 * the fastest core's (signed; they sum to spread_ps exactly). False, and
 * *out zero, when the parts are not known. */
bool tp_step_across_spread_parts(const struct tp_step_across *a,
				 struct tp_step_parts *out);
/* The part the slowest core spent the most more time in than the fastest
 * (the largest of the spread's parts, the first in part order on ties);
 * TP_STEP_PARTS when none is positive (no spread) or they are not known. */
enum tp_step_part tp_step_across_spread_from(const struct tp_step_across *a);
/* The spread's parts in words, each part that differs with its sign, the
 * largest difference first (ties in part order): "idle +74.67 us,
 * compute +89.73 ns"; "" when the parts are not known or all equal. */
void tp_step_across_describe(const struct tp_step_across *a, char *buf, size_t n);
/* Whether step i of n is an edge (tp_step_across.edge) of steps inferred
 * or not. */
static inline bool tp_step_is_edge(bool inferred, size_t i, size_t n)
{
	return inferred && n >= 3 && (i == 0 || i + 1 == n);
}
void tp_step_across_close(struct tp_step_across *a);
/* What `steps across cores` says in one line: the steps compared, the
 * cores, and the steps not warm-up on any core that have a straggler. */
struct tp_steps_across_summary {
	size_t n_steps, n_cores, stragglers;
};
void tp_steps_across_summarize(const struct tp_step_across *v, size_t n,
			       struct tp_steps_across_summary *out);

/* ---- --by category (op_categories.c) ---- */

/* A sum over cores, with the spread between the cores it ran on. */
struct tp_cat_sum {
	int64_t self_ps, total_ps;
	uint64_t occurrences;
	size_t n_cores;               /* cores it ran on                   */
	int64_t min_core_ps, max_core_ps; /* least and most self time one
					 of those cores gave it         */
};

/* One op over every core (with fold: every name.N of it). */
struct tp_cat_op {
	uint64_t program_id;
	size_t module;                /* index into tp_capture.modules      */
	struct tp_str category, name; /* borrowed from the ops             */
	bool collective;
	size_t variants;              /* distinct names summed (fold: > 1)  */
	struct tp_cat_sum sum;
};

/* One category of one program: ops[first .. first + n), by self time. */
struct tp_cat_group {
	uint64_t program_id;
	size_t module;
	struct tp_str category;
	size_t first, n;
	int64_t program_self_ps;      /* the program's, for the order       */
	struct tp_cat_sum sum;
};

struct tp_op_categories {
	bool fold;
	struct tp_cat_group *groups;  /* malloc'd: programs by self time,
					 then categories by self time      */
	size_t n_groups;
	struct tp_cat_op *ops;        /* malloc'd, grouped as groups say    */
	size_t n_ops;
};

/* Adds one core's part of an op (or group) to a sum: its self and total
 * time and count, and the per-core spread. The one way `--by category`
 * and the all-cores view sum over cores. */
void tp_cat_sum_add_core(struct tp_cat_sum *s, int64_t self_ps, int64_t total_ps,
			 uint64_t occurrences);

/* Builds the program -> category -> op profile over every core of ops
 * (which must outlive it); fold: name.N duplicates are one op. */
void tp_op_categories_build(struct tp_op_categories *c, const struct tp_ops *ops, bool fold);
void tp_op_categories_release(struct tp_op_categories *c);
/* "copy-done.4" -> "copy-done": a name less its ".N" suffix. */
struct tp_str tp_op_fold_name(struct tp_str name);

/* ---- the all-cores view (op_cores.c) ---- */

/* Cores that ran the same programs: each program goes to the group of
 * the cores that ran it, so a program only some cores ran gets a group
 * of its own. */
struct tp_core_group {
	size_t *cores;                /* indexes into the source tp_ops.cores,
					 ascending; malloc'd               */
	size_t n_cores;
	uint64_t *programs;           /* program ids, ascending; malloc'd    */
	size_t n_programs;
	bool whole;                   /* one core, every op of it: its table
					 is the per-core table             */
	bool disjoint;                /* split from cores that ran the same
					 programs but share no op (TF-era
					 replicas name ops per replica)    */
};

/* Every op summed over the cores of its group. all is a tp_ops with one
 * "core" per group: device_ps, op_ps, self_ps, collective_ps and events
 * summed over the group's cores; host, plane, source and device those of
 * its first core; no steps. Each op: occurrences, total, self, FLOPs and
 * bytes summed, min the least; its core the group. Strings and HLO
 * indexes are borrowed from the source ops, which must outlive it. */
struct tp_ops_all {
	struct tp_ops all;
	struct tp_core_group *groups; /* malloc'd, one per all.cores        */
	struct tp_cat_sum *spread;    /* malloc'd, one per all.ops: the
					 per-core spread of self time      */
};

/* Groups, sums and sorts (as tp_ops_sort) the ops; groups with the most
 * cores first, then by their first core. */
void tp_ops_all_build(struct tp_ops_all *a, const struct tp_ops *ops, enum tp_ops_sort sort);
void tp_ops_all_release(struct tp_ops_all *a);

/* --by scope: op self time rolled up over the name-scope tree. A fusion's
 * time is split over the scopes of the instructions inside it (docs/ops.md
 * has the rule); each share is recorded so the report can show it. */
struct tp_scope_share {
	size_t op;                   /* the fusion op                      */
	struct tp_str scope;         /* borrowed from the HLO              */
	uint64_t weight;             /* bytes or instruction count         */
	bool by_bytes;               /* weight is output bytes, not count  */
	int64_t ps;                  /* time given to this scope           */
};

struct tp_op_scopes {
	struct tp_scope_tree tree;
	struct tp_scope_share *shares; /* malloc'd, by op then scope       */
	size_t n_shares, cap_shares;
};

void tp_op_scopes_build(struct tp_op_scopes *s, struct tp_ops *ops,
			struct tp_capture *cap);
void tp_op_scopes_release(struct tp_op_scopes *s);

/* ---- roofline (op_roofline.c): devices, precisions, per module ---- */

/* A program's device time on a core's XLA Modules line. */
struct tp_program_time {
	uint64_t id;
	int64_t ps;
	struct tp_str name;          /* the event's "name(id)", borrowed  */
};
/* The program with the most device time on the line (ties: the lower
 * id, so that the choice does not depend on event order); false when no
 * event names a program. read: through tp_event_iter_init_read (a line
 * the caller may not have scanned), else tp_event_iter_init. The one
 * choice of the program whose runs are inferred steps, for ops and the
 * trace's steps track. */
bool tp_ops_busiest_program(const struct tp_xspace *xs, const struct tp_plane *pl,
			    const struct tp_line *ln, bool read, struct tp_program_time *best);

/* ---- steps from a core's op lines (core_lines.c, gpu_runs.c) ---- */

/* One step read from op events: where it starts and how long it lasts,
 * and its group id or program id. */
struct tp_step_run {
	int64_t start_ps, dur_ps;
	int64_t id;
};
/* Step windows whose markers are on the timeline (XLA Modules runs, a
 * Steps line) moved to the device clock of the ops inside them (docs/
 * ops.md, "One clock"): `ops` and `trace` take their steps' spans from
 * it. Init with the windows (by start, on the timeline; borrowed, moved
 * in place by finish), then each op event that carries device times,
 * then finish. */
struct tp_run_ops {
	int64_t first_line, first_dev, last_line, last_dev;
	int64_t dev_end;             /* the latest device end of its ops   */
	uint64_t n;
};
struct tp_step_map {
	struct tp_step_run *w;       /* borrowed, n of them                */
	size_t n;
	struct tp_run_ops *runs;     /* malloc'd, one per window           */
	size_t cursor;               /* the last window an op fell in      */
	bool last_to_op;             /* set before finish: the last window,
				      * moved, ends no earlier than its ops'
				      * device end (inferred runs: nothing
				      * follows it to run to)             */
	/* results of finish */
	bool moved;                  /* the windows moved to the device clock */
	size_t dropped;              /* windows left out: no op inside     */
	bool has_drift;
	double drift_lo, drift_hi;   /* timeline span / device span of the
				      * windows' ops, least and most      */
};
void tp_step_map_init(struct tp_step_map *m, struct tp_step_run *w, size_t n);
/* An op event with device times: line_ps its start on the timeline. */
void tp_step_map_op(struct tp_step_map *m, int64_t line_ps, int64_t start_ps,
		    int64_t dur_ps);
/* Moves the windows (unless the clocks agree within TP_DRIFT_TOLERANCE
 * at every window), drops those no op fell in, sorts them by start and
 * returns how many are left; their ids are kept (callers number them).
 * Frees what init made. */
size_t tp_step_map_finish(struct tp_step_map *m);
/* A host event that is input to the device (step_input.c): the tf.data
 * iterator's get-next ("IteratorGetNext…", "Iterator::GetNext…", or a
 * TF op "name:IteratorGetNext…"), the TPU infeed enqueue ("…InfeedEnqueue…"). */
bool tp_ops_is_input_name(struct tp_str name);
/* The host's input events (tp_ops_is_input_name) as sorted, merged
 * spans on its timeline (ids unused); *out malloc'd. Reads the host
 * planes' lines (one thread). */
size_t tp_ops_input_spans(const struct tp_host *h, struct tp_step_run **out);
/* qsort order of step categories: most time first, ties by name. */
int tp_step_cat_cmp(const void *a, const void *b);
/* Inferred steps: each runs to the next one's start, the last to its own
 * end (w by start). */
void tp_step_runs_to_next_start(struct tp_step_run *w, size_t n);

/* A piece of a core's op time owned by one kind: a collective, a copy,
 * or compute of the core's step category k (TP_SEG_COMPUTE + k). */
enum { TP_SEG_COLLECTIVE, TP_SEG_COPY, TP_SEG_COMPUTE };
struct tp_seg {
	int64_t start, end;
	uint32_t kind;
};
/* The part a piece's kind counts in: TP_PART_COMPUTE, _COLLECTIVE, _COPY. */
int tp_seg_class(uint32_t kind);
/* Sorted by start, none overlapping the next. */
bool tp_segs_disjoint(const struct tp_seg *v, size_t n);
/* *segs (n pieces, malloc'd, *cap of room) made sorted and disjoint:
 * each instant to one kind, compute over collectives over copies, the
 * earlier start within a kind (step_pieces.c). Returns the new count;
 * *segs and *cap are replaced. */
size_t tp_segs_resolve(struct tp_seg **segs, size_t n, size_t *cap);

/* How a plane's ops are found: HLO op lines, GPU kernels naming HLO ops,
 * else the TensorFlow op line. False when the plane has none. */
bool tp_ops_plane_source(const struct tp_plane *pl, enum tp_op_source *src);
/* Whether the line holds the plane's ops, for ops found so. */
bool tp_ops_line_used(enum tp_op_source src, const struct tp_line *ln);
/* The steps of the plane's op events (those of src's lines) that carry
 * a `group_id` stat (on the event or its metadata, >= 0): per group,
 * its first event's start to its last event's end, by start; 0 when no
 * event has one. *out is malloc'd. Reads deferred lines (one thread). */
size_t tp_ops_group_runs(const struct tp_xspace *xs, const struct tp_plane *pl,
			 enum tp_op_source src, struct tp_step_run **out);
/* GPU: the program with the most kernel time on the plane's "Stream #"
 * lines (kernels with program_id and hlo_op; ties: the lower id) into
 * *best, its name the kernels' hlo_module (borrowed), and its
 * executions: one starts at each of its kernels that runs the HLO op its
 * first kernel ran, and ends with its last kernel before the next start.
 * 0 when no kernel names a program. *out is malloc'd. */
size_t tp_ops_gpu_program_runs(const struct tp_xspace *xs, const struct tp_plane *pl,
			       struct tp_program_time *best, struct tp_step_run **out);

/* Resolves each core's device figures (forced: --device, or NULL; the
 * capacity as memory resolves it, with the runtime allocator's from
 * runtime where given, else read from cap, which may be NULL for ops made
 * by hand) and each op's precision from its HLO instruction. Called by
 * tp_ops_build. */
void tp_ops_roofline_prepare(struct tp_ops *ops, struct tp_capture *cap,
			     const struct tp_device_row *forced,
			     const struct tp_mem_runtime *runtime);

/* The op's HLO instruction, or NULL when the capture has none for it. */
const Xla__HloInstructionProto *tp_op_instr(const struct tp_ops *ops, const struct tp_op *o);

/* An op's work (total time), for tp_roofline_of(). */
void tp_op_work(const struct tp_ops *ops, const struct tp_op *o, struct tp_work *w);

/* A core's work: every op's FLOPs and bytes over the core's device time
 * (the practitioners' utilization), and its busy (self) time. */
void tp_core_work(const struct tp_ops *ops, const struct tp_ops_core *c,
		  struct tp_work *w);

/* The work of one module on one core: its ops' FLOPs and bytes over
 * their self time. Modules in order of first op; malloc'd array. */
struct tp_module_work {
	size_t module;          /* index into tp_capture.modules, SIZE_MAX */
	uint64_t program_id;
	size_t n_ops;
	struct tp_work work;
};
size_t tp_core_modules(const struct tp_ops *ops, const struct tp_ops_core *c,
		       struct tp_module_work **out);

/* Why a core has no utilization, said once: NULL when it has one. */
const char *tp_core_roofline_gap(const struct tp_ops *ops, const struct tp_ops_core *c);

#endif
