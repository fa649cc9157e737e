/*
 * ops_internal.h - what the files of the ops analysis share (ops.c,
 * op_keys.c, op_lines.c, steps.c): the per-core build context.
 */
#ifndef TPUPROF_OPS_INTERNAL_H
#define TPUPROF_OPS_INTERNAL_H

#include "tpuprof/analyze/ops.h"
#include "packed.h"

#include <string.h>

#define TP_OP_NONE UINT32_MAX

/* Per-occurrence FLOPs and bytes from event metadata, used when the event
 * itself carries none (format-facts §2.4). */
struct tp_op_meta_vals {
	bool has_flops, has_bytes;
	int64_t flops, bytes;
	/* occurrences that take these values, multiplied in once at the end
	 * of the core (tp_op_apply_meta_vals), not per event */
	uint64_t n_flops, n_bytes;
};

/* What followed a GPU kernel's op the last time (op_gpu.c). */
struct tp_gpu_next {
	uint64_t key[4];
	uint32_t op;                   /* + 1; 0: nothing (or no op) yet    */
};

/* One open-addressing table from a key of `width` 64-bit words (at most
 * TP_OP_KEY_MAX; the width is the caller's, the same for every call on
 * one table) to an op (op_keys.c). op_keys.c keys ops by (program id,
 * module name hash, op name hash), op_gpu.c GPU kernels by their stats'
 * raw values (program id, module ref, op ref, flags). */
#define TP_OP_KEY_MAX 4
struct tp_op_slot {
	uint64_t key[TP_OP_KEY_MAX];
	uint32_t op;          /* index into tp_ops.ops, or TP_OP_NONE        */
	bool used;
};
struct tp_op_table {
	struct tp_op_slot *slots;
	size_t cap, n;
};
static inline size_t tp_op_key_hash(const uint64_t *k, unsigned width)
{
	uint64_t h = k[0] * 0x9e3779b97f4a7c15ULL;

	for (unsigned i = 1; i < width; i++)
		h = (h ^ (h >> 29) ^ k[i]) * 0xbf58476d1ce4e5b9ULL;
	return (size_t)(h ^ (h >> 31));
}

static inline bool tp_op_same_key(const uint64_t *a, const uint64_t *b,
				  unsigned width)
{
	for (unsigned i = 0; i < width; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static inline struct tp_op_slot *tp_op_table_probe(const struct tp_op_table *t,
						   const uint64_t *key,
						   unsigned width)
{
	size_t h = tp_op_key_hash(key, width) & (t->cap - 1);

	while (t->slots[h].used && !tp_op_same_key(t->slots[h].key, key, width))
		h = (h + 1) & (t->cap - 1);
	return &t->slots[h];
}

/* At most half full before a lookup that may need the room. */
void tp_op_table_grow(struct tp_op_table *t, unsigned width);
/* The slot of key: used when the key is in the table, else the free
 * slot to fill with tp_op_table_add (nothing else may touch the table
 * in between: it may grow). */
static inline struct tp_op_slot *tp_op_table_find(struct tp_op_table *t,
						  const uint64_t *key,
						  unsigned width)
{
	if (t->n * 2 >= t->cap)
		tp_op_table_grow(t, width);
	return tp_op_table_probe(t, key, width);
}
void tp_op_table_add(struct tp_op_table *t, struct tp_op_slot *s,
		     const uint64_t *key, unsigned width, uint32_t op);
void tp_op_table_release(struct tp_op_table *t);

/* Scratch memory of one thread's op passes, reused from line to line
 * (op_lines.c). */
struct tp_op_bufs {
	struct tp_op_rec *recs;        /* records of an unsorted line       */
	size_t cap_recs;
	struct tp_op_open *stack;
	size_t cap_stack;
	struct tp_op_open_rec *open;   /* streaming: the open events        */
	size_t cap_open;
	int64_t *self;                 /* streaming: a line's self time per op */
	size_t cap_self;
	struct tp_event_batch *batch;  /* bulk reading of op lines          */
	uint32_t gpu_ops[TP_EVENT_BATCH]; /* the op of each GPU kernel there */
};
void tp_op_bufs_release(struct tp_op_bufs *b);

struct tp_sweep_open {
	int64_t end;
	uint32_t kind;
};
/* One line's sweep: the open events, innermost last, and the time swept
 * to. */
struct tp_sweep {
	struct tp_sweep_open *open;
	size_t depth, cap;
	int64_t t;
	bool started;
};

struct tp_op_ctx {
	struct tp_ops *ops;
	struct tp_capture *cap;
	const struct tp_ops_filter *filter;
	size_t module_filter;          /* SIZE_MAX: no module filter          */
	bool module_filter_all;        /* filter given: match name, not index */
	size_t core;
	const struct tp_host *host;
	const struct tp_plane *pl;
	uint32_t *meta_op;             /* per event_meta: op + 1, or NONE     */
	uint64_t *name_hash;           /* per stat_meta: hash of name, 0 = unset */
	struct tp_op_table ops_by_key; /* (program, module, op name) -> op  */
	struct tp_op_meta_vals *vals;  /* parallel to this core's ops         */
	size_t cap_vals;
	struct tp_error *err;
	enum tp_err rc;                /* first error met while resolving     */
	struct tp_op_bufs *bufs;       /* the thread's scratch, borrowed      */
	struct tp_op_table gpu_ops;    /* GPU kernels' stat values -> op     */
	/* per op: the key and op of the kernel that came after it last
	 * (op_gpu.c): executions repeat their kernels in order */
	struct tp_gpu_next *gpu_next;
	size_t cap_gpu_next;
	uint32_t gpu_prev;             /* the last kernel's op + 1, or 0    */
	struct tp_batch_keys gpu_keys; /* what GPU bulk reading keeps        */
	bool count_programs;           /* this line's: tp_ops_core.programs   */
	size_t line_programs;          /* the line's first entry there        */
	size_t line_hit;               /* the last event's entry, from there  */
	/* the core's op categories met in steps (tp_op.step_cat - 1
	 * indexes them): tp_step.cats */
	struct tp_str *step_cats;
	size_t n_step_cats, cap_step_cats;
	/* the instants the core's ops own, by kind (step_sweep.c) */
	struct tp_seg *segs;
	size_t n_segs, cap_segs;
	size_t line_segs0;             /* the line being swept starts here    */
	size_t seg_lines;              /* lines that gave pieces             */
	struct tp_sweep sweep;
	/* step markers on the timeline, ops on the device clock: each
	 * step's device span from its ops (step_parts.c) */
	/* the host's input spans (step_input.c), borrowed; each step's
	 * shift onto the core's clock (0 unless its steps moved) */
	const struct tp_step_run *input;
	size_t n_input;
	int64_t *step_shift;
	/* the steps' parts (step_parts.c): streamed as the one op line is
	 * swept, else from the kept pieces at the end */
	bool stream_parts;
	size_t step_cursor;            /* the first step not behind the pieces */
	int64_t *cat_ps;               /* compute by category, [k * n_steps + i] */
	size_t cap_cat_ps;
	int64_t *busy_input;           /* per step: op time under input spans */
	bool map_steps;
	struct tp_step_map map;
	struct tp_step_run *map_w;     /* the steps' windows, as the map moves them */
	struct tp_op_duty *duty;       /* TPU: duty cycle, barriers and
					 * SparseCore modules (op_duty.c)   */
	/* Group ids looked for in the op pass itself, not by a pass of
	 * their own first (tp_ops_spec_groups): the steps are read as if
	 * no event had one, and spec_seen says that one may have, so that
	 * the core is read again the usual way (ops.c). */
	bool spec_groups, spec_seen;
	int64_t spec_gid;
	/* Steps known only after the op pass (a GPU core's inferred steps:
	 * its kernel lines are read once, by the op pass, which feeds
	 * kernels): the pass sweeps its op time into pieces, kept, and
	 * tp_ops_read_late_steps makes the steps and attributes them. */
	bool late_steps;
	struct tp_gpu_kernels *kernels;
	struct tp_late_pieces late_pieces; /* one op line's, core_lines.c */
};

/* Whether the op pass sweeps op time into pieces for the steps: the
 * core has steps, or will have once the pass is over. */
static inline bool tp_ops_sweeping(const struct tp_op_ctx *c)
{
	return c->late_steps || c->ops->cores[c->core].n_steps;
}

/* XProf's duty cycle, barrier time and SparseCore module windows of a
 * TPU core, from every event of its op lines (op_duty.c): start before
 * the lines are read (after the steps), each event before it is
 * resolved, finish once they are read. */
void tp_op_duty_start(struct tp_op_ctx *c);
/* The line about to be read: on "Sparse Core Ops" every event is on
 * duty. */
void tp_op_duty_line(struct tp_op_ctx *c, const struct tp_line *ln);
void tp_op_duty_event(struct tp_op_ctx *c, const struct tp_event_meta *em,
		      int64_t start, int64_t dur);
/* The same for each of a bulk batch's n events, in order (the duty
 * cycle and barrier time depend on nothing the op pass changes). */
void tp_op_duty_batch(struct tp_op_ctx *c, const struct tp_event_batch *b, size_t n);
/* Whether the core counts only ops inside module windows (a SparseCore
 * with module time): tp_op_duty_counts is true for every event if not. */
bool tp_op_duty_windows(const struct tp_op_ctx *c);
/* Whether an op event from t for dur counts: on a SparseCore core with
 * module time, only wholly inside a module (op_duty.c). */
bool tp_op_duty_counts(const struct tp_op_ctx *c, int64_t t, int64_t dur);
void tp_op_duty_finish(struct tp_op_ctx *c);
/* The integer stat with metadata id `id` on the event, else on its
 * metadata (core_lines.c). */
bool tp_ops_event_stat_id(const struct tp_xspace *xs, const struct tp_event *ev,
			  int64_t id, int64_t *out);

/* Reads the lines of a plane that hold ops of source src: plain events
 * in bulk with the stats of keys kept (as the op pass reads them:
 * op_lines.c) to batch, the rest one at a time to event (core_lines.c). */
struct tp_line_reader {
	const struct tp_xspace *xs;
	const struct tp_plane *pl;
	struct tp_batch_keys keys;
	void (*batch)(void *ctx, const struct tp_event_batch *b, size_t n);
	void (*event)(void *ctx, const struct tp_event *ev);
	void *ctx;
};
void tp_ops_read_lines(const struct tp_line_reader *r, enum tp_op_source src);
/* Keeps stat id in slot k of keys (when on); false when the plane gives
 * it the id of a stat already kept (hostile metadata): bulk reading
 * would mix them. */
bool tp_batch_keep(struct tp_batch_keys *keys, unsigned k, int64_t id, bool on);
/* Step runs by start, the longer first, then by id (a qsort order). */
int tp_step_run_cmp(const void *a, const void *b);
/* Appends a run (a negative dur as 0) to *v, grown as needed. */
void tp_step_run_push(struct tp_step_run **v, size_t *n, size_t *cap,
		      int64_t start, int64_t dur, int64_t id);

/* Whether a core's op pass may look for group ids itself (see
 * tp_op_ctx.spec_groups): a TPU core without a "Steps" line whose plane
 * names a group_id stat (its id into *gid) that no event metadata
 * carries and that no stat tpuprof knows shares (steps.c). */
bool tp_ops_spec_groups(const struct tp_plane *pl, enum tp_op_source src, int64_t *gid);

/* The stats GPU kernels name their op with, as kept by bulk reading
 * (tp_batch_keys slots; op_gpu.c). */
enum { TP_GPU_KEY_PROGRAM, TP_GPU_KEY_MODULE, TP_GPU_KEY_OP, TP_GPU_KEY_TF_OP };

/* A string stat's value and hash (ref hashes cached per stat metadata);
 * false when st is neither a string nor a ref to known metadata. */
bool tp_op_str_key(struct tp_op_ctx *c, const struct tp_stat *st,
		   struct tp_str *s, uint64_t *h);
/* The GPU op of key (program id, module name hash, op name hash), made
 * on first sight with its name and TF op (op_keys.c). */
uint32_t tp_op_gpu_lookup(struct tp_op_ctx *c, const uint64_t k[3],
			  struct tp_str name, struct tp_str tfop);
/* Fills c->gpu_keys from the plane's stat ids: the four above kept,
 * flops and bytes_accessed rejected (they count per event). False when
 * the plane gives two of these stats one id: no bulk reading then. */
bool tp_op_gpu_keys(struct tp_op_ctx *c);
/* Also the batch path's keys for TPU and TF lines: flops and
 * bytes_accessed rejected, nothing kept. */
void tp_op_count_keys(const struct tp_plane *pl, struct tp_batch_keys *k);
/* The op of event i of a keyed batch of GPU kernels, as
 * tp_op_resolve gives it for the same event; memoized by the stats'
 * values, so names are hashed once per distinct kernel. */
uint32_t tp_op_resolve_gpu_batch(struct tp_op_ctx *c,
				 const struct tp_event_batch *b, size_t i);
/* The op of each of the batch's n kernels, into c->bufs->gpu_ops. */
void tp_op_resolve_gpu_ops(struct tp_op_ctx *c, const struct tp_event_batch *b, size_t n);

/* A GPU core's kernels as its steps need them (gpu_runs.c): start,
 * then each event of its kernel lines, read in bulk (the stats in the
 * TP_GPU_KEY_* slots) or one at a time (untimed ones are skipped), then
 * finish: tp_ops_gpu_program_runs's figures for the kernels fed, and r
 * freed. */
struct tp_gpu_kernels;
struct tp_gpu_kernels *tp_gpu_kernels_start(const struct tp_xspace *xs,
					    const struct tp_plane *pl);
/* ops: the op pass's op of each event (TP_OP_NONE: none), or NULL */
void tp_gpu_kernels_batch(struct tp_gpu_kernels *r, const struct tp_event_batch *b, size_t n,
			  const uint32_t *ops);
void tp_gpu_kernels_event(struct tp_gpu_kernels *r, const struct tp_event *ev);
size_t tp_gpu_kernels_finish(struct tp_gpu_kernels *r, struct tp_program_time *best,
			     struct tp_step_run **out);

/* The programs of a GPU line's kernels (tp_ops_core.programs): a line
 * starts, then each event read in bulk (after tp_op_resolve_gpu_ops) or
 * one at a time. */
void tp_op_programs_line(struct tp_op_ctx *c, const struct tp_line *ln);
void tp_op_programs_batch(struct tp_op_ctx *c, const struct tp_event_batch *b, size_t n);
void tp_op_programs_event(struct tp_op_ctx *c, const struct tp_event *ev);

/* Resolves the op of one event (creating it on first sight); TP_OP_NONE
 * when the event is not an op or is filtered out. */
uint32_t tp_op_resolve(struct tp_op_ctx *c, const struct tp_event *ev);

/* The op of an event whose metadata is known (an index into the plane's
 * event_meta) on a TPU or TF line: inline, from the per-metadata cache
 * once the metadata was seen. */
static inline uint32_t tp_op_resolve_meta(struct tp_op_ctx *c, uint32_t meta)
{
	uint32_t k = c->meta_op[meta];
	struct tp_event ev;

	if (k)
		return k == TP_OP_NONE ? TP_OP_NONE : k - 1;
	memset(&ev, 0, sizeof(ev)); /* TPU and TF ops come from metadata only */
	ev.meta = &c->pl->event_meta[meta];
	return tp_op_resolve(c, &ev);
}

/* Any event: GPU kernels name their ops in stats. */
static inline uint32_t tp_op_resolve_fast(struct tp_op_ctx *c,
					  const struct tp_event *ev)
{
	if (ev->meta && c->ops->cores[c->core].source != TP_OPSRC_GPU)
		return tp_op_resolve_meta(c, (uint32_t)(ev->meta - c->pl->event_meta));
	return tp_op_resolve(c, ev);
}
/* Widens the core's span (first_start_ps .. last_end_ps) to [start, end). */
static inline void tp_ops_core_span(struct tp_ops_core *core, int64_t start, int64_t end)
{
	if (!core->has_span || start < core->first_start_ps)
		core->first_start_ps = start;
	if (!core->has_span || end > core->last_end_ps)
		core->last_end_ps = end;
	core->has_span = true;
}

/* Per-event FLOPs/bytes when present on the event, else from metadata. */
void tp_op_add_counts_slow(struct tp_op_ctx *c, uint32_t op, const struct tp_event *ev);

static inline uint64_t tp_op_sat_uadd(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* n occurrences that take their FLOPs/bytes from the metadata. */
static inline void tp_op_add_meta_counts(struct tp_op_ctx *c, uint32_t op,
					 uint64_t n)
{
	struct tp_op_meta_vals *v = &c->vals[op - c->ops->cores[c->core].first_op];

	if (v->has_flops)
		v->n_flops = tp_op_sat_uadd(v->n_flops, n);
	if (v->has_bytes)
		v->n_bytes = tp_op_sat_uadd(v->n_bytes, n);
}

/* Per-event FLOPs/bytes; inline for the usual event, whose only stats
 * are device time: it takes the metadata's values. */
static inline void tp_op_add_counts(struct tp_op_ctx *c, uint32_t op,
				    const struct tp_event *ev)
{
	if (ev->other_stats) {
		tp_op_add_counts_slow(c, op, ev);
		return;
	}
	tp_op_add_meta_counts(c, op, ev->num_occurrences > 0 ?
				     (uint64_t)ev->num_occurrences : 1);
}
/* Adds the metadata FLOPs/bytes of the core's occurrences to its ops. */
void tp_op_apply_meta_vals(struct tp_op_ctx *c);
void tp_op_ctx_release(struct tp_op_ctx *c);

/* One op line of the current core: occurrences, times, nesting, steps. */
void tp_ops_scan_line(struct tp_op_ctx *c, struct tp_line *ln);
/* Reads the core's "Steps" line into ops->steps, else infers the steps
 * from its "XLA Modules" line (steps.c). */
void tp_ops_read_steps(struct tp_op_ctx *c);
/* After the op lines: the steps that come late (tp_op_ctx.late_steps)
 * made from what the pass fed, their parts begun again (steps.c). */
void tp_ops_read_late_steps(struct tp_op_ctx *c);
/* The core's step holding time t (an index from the core's first
 * step), or SIZE_MAX. */
size_t tp_ops_step_at(const struct tp_ops *ops, const struct tp_ops_core *core,
		      int64_t t);
/* The sweep of op lines into owned pieces (step_sweep.c): a line
 * starts, its timed op events come in start order (longest first at
 * one start), then it ends; an abandoned line (read again sorted)
 * drops what it gave. */
void tp_sweep_line_start(struct tp_op_ctx *c);
void tp_sweep_push(struct tp_op_ctx *c, int64_t start, int64_t dur, uint32_t kind);
void tp_sweep_line_end(struct tp_op_ctx *c);
void tp_sweep_line_abandon(struct tp_op_ctx *c);
/* Frees what the sweep, the step map and the step categories made. */
void tp_sweep_release(struct tp_op_ctx *c);
/* The piece kind of an op (TP_SEG_*). */
uint32_t tp_seg_kind(struct tp_op_ctx *c, struct tp_op *op);
/* step_parts.c: after the steps are read, whether their markers are on
 * the timeline (their windows then move to their ops' device spans);
 * each timed op event as it is read; then, after the op lines, the
 * steps' windows on the core's clock and their parts. */
void tp_steps_map_begin(struct tp_op_ctx *c, bool markers_on_timeline);
/* step_windows.c, for step_parts.c: the steps as the map left them
 * (moved, those without ops dropped); each inferred step to the start
 * of the next. */
void tp_steps_map_windows(struct tp_op_ctx *c);
void tp_steps_to_next_start(struct tp_ops *ops, struct tp_ops_core *core);
static inline void tp_steps_note_op(struct tp_op_ctx *c, int64_t line_ps, int64_t start,
				    int64_t dur, bool device_clock)
{
	/* inline: once per op event */
	if (!device_clock)
		return;
	c->ops->cores[c->core].device_clock_events++;
	if (c->map_steps)
		tp_step_map_op(&c->map, line_ps, start, dur);
}
void tp_steps_parts_begin(struct tp_op_ctx *c);
/* After the op lines: the windows on the core's clock; true when the
 * lines must be swept again into them (tp_ops_sweep_again: the steps
 * moved after their one line streamed). Then close: categories, input,
 * idle. */
bool tp_steps_place(struct tp_op_ctx *c);
void tp_steps_close(struct tp_op_ctx *c);
/* The core's op lines swept again into the steps' parts, sorted
 * (op_lines.c). */
void tp_ops_sweep_again(struct tp_op_ctx *c);

/* The slot of the op's category among the core's step categories,
 * made on first sight. */
size_t tp_ops_step_cat(struct tp_op_ctx *c, struct tp_op *op);

/* The device time of the core's "debug_print" events, into the steps
 * that hold them (steps.c). */
void tp_ops_read_debug_prints(struct tp_op_ctx *c);

#endif
