/*
 * peak_marks.c - an instant at each compiler memory peak: the memory
 * analysis replays each module's heap-simulator trace once (what
 * `tpuprof memory` reports per module: peak_bytes, peak_instruction);
 * each execution of the peak instruction as an op then gets an instant
 * "compiler memory peak" on the line's "... memory peaks" track, at the
 * op's start.
 *
 * A module with no heap-simulator events (peak_instruction null: all its
 * bytes are live for the whole program) peaks from its start: each of
 * its runs gets the instant at the run's start, with `at` "program
 * start". Runs are the plane's XLA Modules events (TPU), read before the
 * ops so that the instants stay in time order; a plane without that line
 * (GPU) starts a run at each op whose program differs from the previous
 * op's on the line. A peak instruction that never runs as an op (a
 * parameter, a tuple) has no instant.
 */
#include "trace_internal.h"

#include "tpuprof/decode/hlo.h"

#include <stdlib.h>
#include <string.h>

enum { UNKNOWN = 0, NOT_PEAK, PEAK };

/* Does (program, instruction) hold its module's compiler peak? */
static bool is_peak(struct tl *t, uint64_t program_id, struct tp_str instr,
		    uint64_t *bytes, long *position)
{
	const struct tp_mem_module *mm = tl_memory_of(t, program_id);
	const char *peak;

	if (!mm || !mm->n_points || mm->peak_position < 0 ||
	    (size_t)mm->peak_position >= mm->n_points)
		return false;
	peak = mm->point_instr[mm->peak_position];
	if (!peak || !tp_str_eq(instr, peak))
		return false;
	*bytes = mm->peak;
	*position = mm->peak_position;
	return true;
}

/* The op's program and instruction, as hlo_args.c finds them. */
static bool op_of(struct tl *t, const struct tp_event *ev, uint64_t *program_id,
		  struct tp_str *instr)
{
	const struct tp_xspace *xs = &t->cap->hosts[t->host].xs;
	struct tp_stat st;
	int64_t v;

	if (!tp_event_stat(xs, t->pl, ev, TP_SN_PROGRAM_ID, &st) || !tp_stat_int(&st, &v))
		return false;
	*program_id = (uint64_t)v;
	*instr = TP_STR_NULL;
	if (tp_event_stat(xs, t->pl, ev, TP_SN_HLO_OP, &st))
		tp_stat_str(t->pl, &st, instr);
	else if (ev->meta)
		*instr = ev->meta->display_name;
	return instr->len > 0;
}

/* Does the program's compiler peak hold from its start (no heap
 * simulator events: memory's peak_instruction is null)? */
static const struct tp_mem_module *start_peak(struct tl *t, uint64_t program_id)
{
	const struct tp_mem_module *mm = tl_memory_of(t, program_id);

	return mm && !mm->n_points ? mm : NULL;
}

static int by_start(const void *a, const void *b)
{
	const struct tl_run *x = a, *y = b;

	return (x->start_ps > y->start_ps) - (x->start_ps < y->start_ps);
}

/* The XLA Modules runs of programs that peak from their start. */
static void read_module_runs(struct tl *t, const struct tp_line *ln)
{
	const struct tp_xspace *xs = &t->cap->hosts[t->host].xs;
	struct tp_event_iter it;
	struct tp_event ev;
	uint64_t id;

	tp_event_iter_init_read(&it, xs, t->pl, ln);
	while (tp_event_iter_next(&it, &ev) > 0) {
		if (!ev.timed || !ev.meta || !tp_parse_paren_id(ev.meta->name, &id) ||
		    !start_peak(t, id))
			continue;
		t->start_peaks = tp_xgrow(t->start_peaks, &t->cap_start_peaks,
					  t->n_start_peaks + 1, sizeof(*t->start_peaks));
		t->start_peaks[t->n_start_peaks++] = (struct tl_run){
			tp_sat_add(ev.start_ps, t->shift_ps[t->host]), id
		};
	}
	if (t->n_start_peaks > 1)
		qsort(t->start_peaks, t->n_start_peaks, sizeof(*t->start_peaks), by_start);
}

void tl_peaks_begin(struct tl *t)
{
	t->peak_track = 0;
	free(t->meta_peak);
	t->meta_peak = tp_xcalloc(t->pl->n_event_meta + 1, sizeof(*t->meta_peak));
	t->n_start_peaks = t->next_start_peak = 0;
	t->modules_line = false;
	t->has_last_program = false;
	for (size_t l = 0; l < t->pl->n_lines && !t->modules_line; l++)
		if (tp_str_eq(t->pl->lines[l].name, "XLA Modules")) {
			t->modules_line = true;
			read_module_runs(t, &t->pl->lines[l]);
		}
}

static void mark(struct tl *t, int64_t start_ps, uint64_t program_id, uint64_t bytes,
		 long position, struct tp_str instr)
{
	struct tp_trace_arg args[4] = {
		{ .name = { "program_id", 10 }, .kind = TP_ARG_UINT, .v.u = program_id },
		{ .name = { "peak_bytes", 10 }, .kind = TP_ARG_INT,
		  .v.i = bytes > INT64_MAX ? INT64_MAX : (int64_t)bytes }, /* as the runtime peaks */
		{ .name = { "peak_heap_event", 15 }, .kind = TP_ARG_INT, .v.i = position },
		{ .name = { "instruction", 11 }, .kind = TP_ARG_STR, .stable = true, .v.s = instr },
	};
	struct tp_trace_slice s = { .name = { "compiler memory peak", 20 }, .args = args,
				    .n_args = 4 };

	/* an instant lies in the window or is not written, even where the op
	 * it marks starts before --from and ends inside it */
	if (!tl_in_window(t, start_ps, start_ps))
		return;
	if (!instr.ptr) { /* from the program's start: no instruction */
		args[3] = (struct tp_trace_arg){ .name = { "at", 2 }, .kind = TP_ARG_STR,
						 .stable = true, .v.s = { "program start", 13 } };
	}

	if (!t->peak_track) {
		struct tp_str line = t->ln->display_name.len ? t->ln->display_name : t->ln->name;
		char *name = tp_str_eq(line, "XLA Ops") ? tp_xstrdup("Compiler memory peaks") :
			     tp_xasprintf("%.*s compiler memory peaks", (int)line.len, line.ptr);

		t->peak_track = tl_new_track(t, name, false);
		free(name);
	}
	t->w->instant(t->w->ctx, t->peak_track, tl_ns(start_ps), &s);
	t->st->peaks++;
}

static void mark_start(struct tl *t, int64_t start_ps, uint64_t program_id,
		       const struct tp_mem_module *mm)
{
	mark(t, start_ps, program_id, mm->peak, mm->peak_position, TP_STR_NULL);
}

/* The module runs that start by start_ps (all: INT64_MAX). */
static void start_peaks_until(struct tl *t, int64_t start_ps)
{
	while (t->next_start_peak < t->n_start_peaks &&
	       t->start_peaks[t->next_start_peak].start_ps <= start_ps) {
		const struct tl_run *r = &t->start_peaks[t->next_start_peak++];

		if (tl_in_window(t, r->start_ps, r->start_ps))
			mark_start(t, r->start_ps, r->program_id, start_peak(t, r->program_id));
	}
}

/* Without an XLA Modules line: an op of another program than the
 * previous one starts a run of its program. */
static void run_by_program(struct tl *t, uint64_t program_id, int64_t start_ps)
{
	const struct tp_mem_module *mm;

	if (t->has_last_program && t->last_program == program_id)
		return;
	t->has_last_program = true;
	t->last_program = program_id;
	if ((mm = start_peak(t, program_id)))
		mark_start(t, start_ps, program_id, mm);
}

void tl_peaks_end(struct tl *t)
{
	start_peaks_until(t, INT64_MAX);
}

void tl_peaks_event(struct tl *t, const struct tp_event *ev, int64_t start_ps)
{
	uint64_t program_id, bytes = 0;
	struct tp_str instr;
	long position = 0;
	size_t mi = ev->meta ? (size_t)(ev->meta - t->pl->event_meta) : 0;
	/* an op whose stats are all in its metadata: decided once */
	bool whole_meta = ev->meta && !ev->other_stats;
	bool not_peak = whole_meta && t->meta_peak[mi] == NOT_PEAK;

	if (t->modules_line) {
		start_peaks_until(t, start_ps);
		if (not_peak)
			return;
	}
	/* one lookup for both kinds of mark: without a modules line every
	 * op's program is needed */
	if (!op_of(t, ev, &program_id, &instr)) {
		if (whole_meta)
			t->meta_peak[mi] = NOT_PEAK;
		return;
	}
	if (!t->modules_line)
		run_by_program(t, program_id, start_ps);
	if (not_peak)
		return;
	if (!is_peak(t, program_id, instr, &bytes, &position)) {
		if (whole_meta)
			t->meta_peak[mi] = NOT_PEAK;
		return;
	}
	mark(t, start_ps, program_id, bytes, position, instr);
}
