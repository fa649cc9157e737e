/*
 * peak_marks.c - an instant at each compiler memory peak: the memory
 * analysis replays each module's heap-simulator trace once (what
 * `tpuprof memory` reports per module: peak_bytes, peak_instruction);
 * each execution of the peak instruction as an op then gets an instant
 * "compiler memory peak" on the line's "... memory peaks" track, at the
 * op's start. A peak instruction that never runs as an op (a parameter,
 * a tuple) has no instant.
 */
#include "trace_internal.h"

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

void tl_peaks_begin(struct tl *t)
{
	t->peak_track = 0;
	free(t->meta_peak);
	t->meta_peak = tp_xcalloc(t->pl->n_event_meta + 1, sizeof(*t->meta_peak));
}

static void mark(struct tl *t, int64_t start_ps, uint64_t program_id, uint64_t bytes,
		 long position, struct tp_str instr)
{
	struct tp_trace_arg args[4] = {
		{ .name = { "program_id", 10 }, .kind = TP_ARG_UINT, .v.u = program_id },
		{ .name = { "peak_bytes", 10 }, .kind = TP_ARG_UINT, .v.u = bytes },
		{ .name = { "peak_position", 13 }, .kind = TP_ARG_INT, .v.i = position },
		{ .name = { "instruction", 11 }, .kind = TP_ARG_STR, .stable = true, .v.s = instr },
	};
	struct tp_trace_slice s = { .name = { "compiler memory peak", 20 }, .args = args,
				    .n_args = 4 };

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

void tl_peaks_event(struct tl *t, const struct tp_event *ev, int64_t start_ps)
{
	uint64_t program_id, bytes = 0;
	struct tp_str instr;
	long position = 0;
	size_t mi = ev->meta ? (size_t)(ev->meta - t->pl->event_meta) : 0;

	/* an op whose stats are all in its metadata: decided once */
	if (ev->meta && !ev->other_stats && t->meta_peak[mi] == NOT_PEAK)
		return;
	if (!op_of(t, ev, &program_id, &instr) ||
	    !is_peak(t, program_id, instr, &bytes, &position)) {
		if (ev->meta && !ev->other_stats)
			t->meta_peak[mi] = NOT_PEAK;
		return;
	}
	mark(t, start_ps, program_id, bytes, position, instr);
}
