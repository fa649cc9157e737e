/*
 * tl_tracks.c - what every track writer of the timeline shares: a new
 * track's uuid, the --from/--to window, the --host selection, a new slice
 * argument. Called by the other files of src/analyze/trace/; calls none
 * of them.
 */
#include "trace_internal.h"

#include <string.h>

uint64_t tl_new_track(struct tl *t, const char *name, bool counter)
{
	uint64_t uuid = t->next_uuid++;

	t->w->track(t->w->ctx, uuid, t->process, t->pid, t->next_tid++, name,
		    t->track_rank++, counter);
	if (!counter)
		t->st->tracks++;
	return uuid;
}

bool tl_in_window(const struct tl *t, int64_t start_ps, int64_t end_ps)
{
	if (t->opts->has_from && end_ps < t->opts->from_ps)
		return false;
	if (t->opts->has_to && start_ps > t->opts->to_ps)
		return false;
	return true;
}

bool tl_host_wanted(const struct tl *t, size_t h)
{
	return tp_selection_host(&t->sel, h);
}

struct tp_trace_arg *tl_new_arg(struct tl *t)
{
	if (t->n_args == t->cap_args)
		t->args = tp_xgrow(t->args, &t->cap_args, t->n_args + 1, sizeof(*t->args));
	memset(&t->args[t->n_args], 0, sizeof(*t->args));
	return &t->args[t->n_args++];
}
