/*
 * trace_internal.h - the timeline model's parts (src/analyze/trace/):
 * the walk (timeline.c), one plane (plane_write.c), the pieces every
 * track writer shares (tl_tracks.c), a line's events in time order (line_order.c),
 * track assignment (line_tracks.c), event arguments (event_args.c), the
 * derived name-scope track (scope_track.c) and the runtime memory
 * counters (memory_tracks.c).
 *
 * Ownership: struct tl owns its malloc'd buffers (tl_release); it
 * borrows the capture and the writer.
 */
#ifndef TPUPROF_TRACE_INTERNAL_H
#define TPUPROF_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/analyze/common/selection.h"
#include "tpuprof/analyze/memory.h"
#include "tpuprof/util/strpool.h"
#include "tpuprof/analyze/trace.h"

/* One open slice on a track: its end, for nesting. */
struct tl_open {
	int64_t end_ps;
};

/* A track of a line: the line's own, or one of its overlap splits. */
struct tl_track {
	uint64_t uuid;
	struct tl_open *open;     /* malloc'd stack                       */
	size_t depth, cap;
	/* zero-length events (in ns) at zero_ns on it: Perfetto may stack
	 * them as levels, so they count toward its 512 */
	int64_t zero_ns;
	size_t n_zero;
};

/* One level of the name-scope track: a scope component, open. */
struct tl_scope {
	struct tp_str name;       /* pooled                               */
	int64_t start_ns, end_ns;
};

struct tl_module;
struct tp_advice;
struct tp_ops;
struct tp_step_run;

/* A core's steps as `ops` found them (step_track.c): taken from the
 * advice's ops analysis before the walk, so that no plane reads its op
 * lines again for its steps track. */
struct tl_core_steps {
	size_t host;
	const struct tp_plane *pl;   /* borrowed from the capture         */
	char *track;                 /* the track's name, malloc'd        */
	bool group;                  /* by group_id, else inferred        */
	struct tp_step_run *runs;    /* malloc'd, by start: id the group
				      * id, or the program id             */
	size_t n;
};

struct tl {
	struct tp_capture *cap;
	const struct tp_trace_opts *opts;
	struct tp_selection sel;  /* the hosts and cores --host, --core keep */
	struct tp_trace_writer *w;
	struct tp_trace_stats *st;
	int64_t *shift_ps;        /* per host: event ps -> trace ps       */
	/* the advice (NULL: none, --no-derived) and the steps of the ops
	 * it is judged on (steps_known: the ops analysis ran): the walk's,
	 * lane workers borrow them */
	struct tp_advice *advice;
	bool steps_known;
	const struct tl_core_steps *core_steps;
	size_t n_core_steps;
	uint64_t done_bytes, total_bytes; /* planes' bytes, for progress  */
	uint64_t next_uuid;
	uint32_t next_pid;
	int rank;
	/* the process being written */
	size_t host;
	const struct tp_plane *pl;
	bool is_device;           /* a TPU, GPU or custom device plane     */
	uint64_t process;
	uint32_t pid, next_tid;
	int track_rank;
	/* the line being written */
	const struct tp_line *ln;
	struct tl_track *tracks;  /* malloc'd, reused per line            */
	size_t n_tracks, cap_tracks;
	/* arguments of the event being written */
	struct tp_trace_arg *args;
	size_t n_args, cap_args;
	char scratch[64];         /* an unknown event's name              */
	/* the line's derived tracks (XLA Ops, GPU streams): name scopes
	 * and compiler memory peaks */
	bool derived_on;
	uint64_t scope_track;
	struct tl_scope *scopes;  /* malloc'd stack                       */
	size_t n_scopes, cap_scopes;
	struct tp_strpool pool;   /* scope parts, HLO texts, unknown names */
	struct tp_str *parts;     /* malloc'd: scope parts of the plane's
				   * metadata, then of the current op    */
	size_t n_parts, n_cached_parts, cap_parts;
	struct tl_meta_parts {
		uint32_t first, n;
		bool done;
	} *meta_parts;            /* malloc'd, per event metadata         */
	uint64_t peak_track;      /* the line's compiler peaks, 0 = none yet */
	uint8_t *meta_peak;       /* malloc'd, per event metadata: known
				   * not to be a peak instruction          */
	struct tl_run {           /* a run of a program whose compiler
				   * peak holds from its start             */
		int64_t start_ps;
		uint64_t program_id;
	} *start_peaks;           /* malloc'd: the plane's XLA Modules
				   * runs of such programs, by start      */
	size_t n_start_peaks, next_start_peak, cap_start_peaks;
	bool modules_line;        /* the plane has an XLA Modules line    */
	bool has_last_program;    /* without one: the previous op's program */
	uint64_t last_program;
	struct tl_module *mods;   /* malloc'd: HLO modules looked up      */
	size_t n_mods, cap_mods;
	bool mods_shared;         /* a lane worker's: the walk's, read only */
};

/* timeline.c */
uint64_t tl_new_track(struct tl *t, const char *name, bool counter);
bool tl_host_wanted(const struct tl *t, size_t h);
/* Planes written: those --core keeps, with a timeline or host events. */
bool tl_plane_written(const struct tl *t, const struct tp_plane *pl);
/* "<host> <plane>", malloc'd. */
char *tl_plane_name(const struct tl *t, size_t h, const struct tp_plane *pl);
/* One plane: its process, lines and derived tracks. Its process gets
 * uuid t->next_uuid (its tracks the next ones), pid t->next_pid and
 * rank t->rank, each then counted on. */
enum tp_err tl_write_plane(struct tl *t, size_t h, const struct tp_plane *pl,
			   struct tp_error *err);
/* Tells opts->progress the plane is next; counts its bytes as done. */
void tl_progress(struct tl *t, size_t h, const struct tp_plane *pl);
/* Frees what t owns (not shift_ps, which workers share). */
void tl_release(struct tl *t);

/* timeline_lanes.c: a host's planes on opts->threads threads, each with
 * its own model state and writer lane (trace.h). NULL from tl_lanes_new
 * when the walk is serial (one thread, or a writer without lanes). */
struct tl_lanes;
struct tl_lanes *tl_lanes_new(struct tl *t);
enum tp_err tl_lanes_walk_host(struct tl_lanes *L, const struct tp_mem_runtime *rt,
			       size_t h, struct tp_error *err);
/* Releases the lanes (before the writer's finish) and adds their
 * counts to t's stats. */
void tl_lanes_free(struct tl_lanes *L);
static inline int64_t tl_ns(int64_t trace_ps)
{
	return trace_ps < 0 ? 0 : trace_ps / 1000;
}
/* True when [start, end] (trace ps) overlaps the --from/--to window. */
bool tl_in_window(const struct tl *t, int64_t start_ps, int64_t end_ps);

/* line_order.c: every timed event of the line, in (start ascending,
 * duration descending, file order) order, to tl_line_event. */
enum tp_err tl_write_line(struct tl *t, struct tp_error *err);

/* line_tracks.c */
void tl_line_begin(struct tl *t);
void tl_line_event(struct tl *t, const struct tp_event *ev);
void tl_line_end(struct tl *t);

/* event_args.c: the slice of ev (its args in t->args). */
void tl_event_slice(struct tl *t, const struct tp_event *ev, struct tp_trace_slice *s);

/* event_args.c: one more argument, zeroed, in t->args. */
struct tp_trace_arg *tl_new_arg(struct tl *t);

/* hlo_args.c: hlo_module (with_module), source (with_source: the stats
 * have none) and shape of the named instruction of the program, as
 * arguments; its scope path ("" when unknown). */
void tl_hlo_args(struct tl *t, uint64_t program_id, struct tp_str instr,
		 bool with_module, bool with_source);
struct tp_str tl_hlo_scope(struct tl *t, uint64_t program_id, struct tp_str instr);
void tl_hlo_release(struct tl *t);
/* Before lanes: every module with a program id looked up (and its
 * memory analyzed, derived tracks on) into t's cache, which workers
 * then share read-only (tl_hlo_share): one index and analysis per
 * module, and no thread decodes one. */
void tl_hlo_prepare(struct tl *t);
void tl_hlo_share(struct tl *worker, const struct tl *base);
/* The memory analysis of the program's module (once), or NULL. */
const struct tp_mem_module *tl_memory_of(struct tl *t, uint64_t program_id);

/* peak_marks.c: compiler memory peak instants on the line's ops, and
 * at each run's start of a program whose peak holds from its start */
void tl_peaks_begin(struct tl *t);
void tl_peaks_event(struct tl *t, const struct tp_event *ev, int64_t start_ps);
void tl_peaks_end(struct tl *t);

/* advice_marks.c: the advice judged once before the walk (none with
 * --no-derived, or when ops cannot read the capture), its fired findings
 * with a time as instants on the plane they were measured on. The walk
 * judges it (tl_advice_prepare, freed by tl_advice_release) or borrows
 * tp_trace_judge's (tl_advice_borrow: its owner frees it). */
void tl_advice_prepare(struct tl *t);
void tl_advice_borrow(struct tl *t, const struct tp_trace_judged *j);
void tl_advice_release(struct tl *t);
void tl_advice_track(struct tl *t);

/* step_track.c: a TPU plane without a Steps line: its inferred steps
 * (docs/ops.md) as a derived track; from t->core_steps when known, else
 * read from the plane's lines. tl_steps_take copies each core's steps
 * out of ops (which may then go) into t; tl_steps_release frees them. */
void tl_steps_track(struct tl *t);
void tl_steps_take(struct tl *t, const struct tp_ops *ops);
void tl_steps_release(struct tl *t);

/* scope_track.c */
void tl_scopes_begin(struct tl *t);
void tl_scopes_event(struct tl *t, const struct tp_event *ev, int64_t start_ps,
		     int64_t end_ps);
void tl_scopes_end(struct tl *t);

/* memory_tracks.c: counters and peak instants of host h, in its host
 * plane's process. */
void tl_memory_tracks(struct tl *t, const struct tp_mem_runtime *rt, size_t h);

#endif
