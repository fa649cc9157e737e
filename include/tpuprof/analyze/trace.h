/*
 * trace.h - the whole timeline of a capture for a trace viewer
 * (`tpuprof trace`): Perfetto's protobuf trace, or Chrome trace-event JSON.
 *
 * The timeline model (src/analyze/trace/, tp_trace_walk) walks every
 * plane, line and event of the capture once, in file order, and tells a
 * writer (src/report/trace/, trace_write.h) what to put down: a process per plane, a track per
 * line (more tracks of the same name where events on one line overlap
 * without nesting), a slice per event with its stats as arguments, the
 * derived name-scope tracks and the runtime-memory counters. Nothing is
 * kept per event: memory grows with the capture's metadata and the
 * nesting depth, never with the number of events (a line whose events are
 * out of time order is the one exception: its event positions are sorted,
 * 32 bytes each).
 *
 * Times: every host is put on one time base (its Task Environment
 * profile_start_time, when all hosts have one); trace time 0 is the
 * earliest event kept. Viewers get nanoseconds (ps are cut, start and end
 * separately, which keeps nesting).
 *
 * Ownership: the model lends the writer names and stats that point into
 * the capture's bytes, valid during the call that gets them (strings
 * marked stable stay valid while the capture is open).
 */
#ifndef TPUPROF_TRACE_H
#define TPUPROF_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tpuprof/decode/capture.h"
#include "tpuprof/util/error.h"

struct tp_trace_judged;

enum tp_trace_format {
	TP_TRACE_PERFETTO,      /* Trace of TracePackets (trace-facts §1) */
	TP_TRACE_JSON,          /* {"traceEvents": [...]} (§2)            */
};

struct tp_trace_opts {
	enum tp_trace_format format;
	bool gzip;              /* gzip the output (level 1)              */
	const char *host;       /* only this host, or NULL                */
	const char *core;       /* only this device plane (name, TPU:0 or
				 * its number), or NULL                   */
	bool has_from, has_to;  /* window, ps from trace time 0; an event
				 * is kept when it overlaps it            */
	int64_t from_ps, to_ps;
	bool no_derived;        /* no name-scope, memory or peak tracks   */
	unsigned threads;       /* planes of a host written at once, with
				 * writer lanes (0, 1: one at a time, the
				 * output then byte for byte the same for
				 * the same capture)                     */
	/* The advice and steps judged before the walk (tp_trace_judge),
	 * borrowed; NULL: the walk judges them itself, on a capture whose
	 * lines are all scanned (opened without tp_open_opts.defer_min_bytes). */
	const struct tp_trace_judged *judged;
	/* Called before each plane: bytes of the planes written so far and
	 * of all to write, and the process's name; NULL for none. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total, const char *what);
	void *progress_ctx;
};

/* Events a line may be out of time order by and still be written with
 * a reorder window (default 4096); tests lower it. */
extern size_t tp_trace_window;

/* What was written, for the command's summary line and tests. */
struct tp_trace_stats {
	uint64_t slices;          /* events with a duration               */
	uint64_t instants;        /* events without one                   */
	uint64_t aggregated;      /* events with no time (num_occurrences):
				   * not on the timeline                  */
	uint64_t outside;         /* events cut by --from/--to            */
	uint64_t tracks;          /* slice tracks (lines and their splits) */
	uint64_t overlap_tracks;  /* of those, the "(2)", "(3)" splits    */
	uint64_t scope_slices;    /* derived name-scope slices            */
	uint64_t step_slices;     /* derived inferred-step slices         */
	uint64_t counter_points;  /* runtime memory counter values        */
	uint64_t peaks;           /* peak instants                        */
	uint64_t advice_marks;    /* advice instants                      */
	uint64_t bytes;           /* bytes written (before gzip)          */
};

/* ---- between the model and the writers ------------------------------ */

enum tp_trace_arg_kind { TP_ARG_INT, TP_ARG_UINT, TP_ARG_DOUBLE, TP_ARG_STR };

/* One argument of a slice. Strings borrow the capture's bytes (or a
 * derived name that lives as long as the write). `stable` marks a string
 * whose pointer is the same for every event that has it (metadata, ref
 * values): writers may intern it by pointer. */
struct tp_trace_arg {
	struct tp_str name;
	enum tp_trace_arg_kind kind;
	bool stable;
	union {
		int64_t i;
		uint64_t u;
		double d;
		struct tp_str s;
	} v;
};

/* A slice or instant: its name (stable) and arguments. Events of one
 * metadata share a name and their first arguments (the metadata's
 * stats): key names that metadata, and the first n_fixed args are the
 * same for every slice with that key, so a writer encodes them once.
 * When the writer says it has them (has_fixed), the model leaves them out
 * and sets fixed_omitted: args are then only the event's own. */
struct tp_trace_slice {
	struct tp_str name;
	const struct tp_trace_arg *args;
	size_t n_args;
	const void *key;          /* NULL: nothing shared                 */
	size_t n_fixed;
	bool fixed_omitted;
};

/* What every writer implements. Track ids are unique in the file and
 * never 0; a track is declared before its first event. Per track, events
 * come in time order with END before a BEGIN at the same time (what
 * Perfetto's sorter needs); across tracks they may come in any order. */
struct tp_trace_writer {
	void *ctx;
	/* A process: one plane of one host, rank = order in the file. */
	void (*process)(void *ctx, uint64_t uuid, uint32_t pid, const char *name,
			int rank);
	/* A track in a process; counter tracks hold only counter values. */
	void (*track)(void *ctx, uint64_t uuid, uint64_t process, uint32_t pid,
		      uint32_t tid, const char *name, int rank, bool counter);
	/* dur_ns < 0: the end is not known yet, end() gets the slice again. */
	void (*begin)(void *ctx, uint64_t track, int64_t ts_ns, int64_t dur_ns,
		      const struct tp_trace_slice *s);
	/* s and start_ns repeat a begin() whose duration was unknown; else
	 * s is NULL. */
	void (*end)(void *ctx, uint64_t track, int64_t ts_ns,
		    const struct tp_trace_slice *s, int64_t start_ns);
	void (*instant)(void *ctx, uint64_t track, int64_t ts_ns,
			const struct tp_trace_slice *s);
	void (*counter)(void *ctx, uint64_t track, int64_t ts_ns, int64_t value);
	/* True when the fixed args of key are encoded already. */
	bool (*has_fixed)(void *ctx, const void *key);
	/* Flushes; TP_ERR_OUTPUT when any write failed. */
	enum tp_err (*finish)(void *ctx, uint64_t *bytes, struct tp_error *err);
	void (*release)(void *ctx);
	/* For a walk on several threads (tp_trace_opts.threads): another
	 * writer, for one more thread, feeding the same output. Its packets
	 * go out whole, between this writer's and other lanes', in no fixed
	 * order; it writes one process at a time (a process and its tracks:
	 * uuids from the process's, which tells it a new one began). It has
	 * no finish; its release hands its last bytes over and must come
	 * before this writer's finish. NULL (or false): the format has no
	 * lanes, and the walk is serial. */
	bool (*lane)(void *ctx, struct tp_trace_writer *lane);
};

/* Checks --host and --core against cap: TP_ERR_USAGE when they name
 * nothing in it, TP_ERR_INPUT when it has no XSpace (HLO only). */
enum tp_err tp_trace_check(const struct tp_capture *cap,
			   const struct tp_trace_opts *opts, struct tp_error *err);

/* What the walk derives from one ops analysis over every core (the
 * advice, as `report` judges it, and each core's steps), made before
 * the walk: the analysis reads every core's op lines, scanning those the
 * capture was opened with deferred (tp_open_opts.defer_min_bytes) as it
 * goes, and every line still unscanned is scanned after it
 * (tp_capture_finish_scan), so that a long op line is read twice (here
 * and by the walk), not three times (at open too). With --no-derived
 * only the scan. Fails as that scan does, on the first corrupt line in
 * file order (TP_ERR_INPUT, TP_CORRUPT_XSPACE: reopen the capture whole,
 * tp_capture_reopen_whole, and judge again). *out is the caller's, freed
 * with tp_trace_judged_free (NULL: nothing); an analysis that cannot
 * read the capture leaves no advice, as `report` has none then. */
enum tp_err tp_trace_judge(struct tp_capture *cap,
			   const struct tp_trace_opts *opts,
			   struct tp_trace_judged **out, struct tp_error *err);
void tp_trace_judged_free(struct tp_trace_judged *j);

/* The timeline model: walks cap once and tells w what to write (not
 * finish: the caller does). Counts go to stats. HLO modules the op
 * events name are decoded into cap as they are needed. */
enum tp_err tp_trace_walk(struct tp_capture *cap,
			  const struct tp_trace_opts *opts,
			  struct tp_trace_writer *w, struct tp_trace_stats *stats,
			  struct tp_error *err);

#endif
