/*
 * plane_write.c - one plane of the timeline written: its process, its
 * lines' tracks and the derived tracks (name scopes, peaks, steps,
 * advice), the progress line, and the model's release. Called by
 * timeline.c and timeline_lanes.c (one plane per worker); calls the
 * track writers.
 */
#include "trace_internal.h"

#include <stdlib.h>

/* Lines whose ops get a name-scope track: XLA Ops, GPU streams. */
static bool is_scope_source(const struct tp_plane *pl, const struct tp_line *ln)
{
	return tp_plane_is_device(pl) && (tp_str_eq(ln->name, "XLA Ops") ||
				 tp_str_eq(ln->display_name, "XLA Ops") ||
				 (pl->kind == TP_PLANE_GPU &&
				  tp_str_has_prefix(ln->name, "Stream #")));
}

char *tl_plane_name(const struct tl *t, size_t h, const struct tp_plane *pl)
{
	return tp_xasprintf("%s %.*s", t->cap->hosts[h].name, (int)pl->name.len, pl->name.ptr);
}

enum tp_err tl_write_plane(struct tl *t, size_t h, const struct tp_plane *pl,
			   struct tp_error *err)
{
	char *name = tl_plane_name(t, h, pl);
	enum tp_err rc = TP_OK;

	t->host = h;
	t->pl = pl;
	t->is_device = tp_plane_is_device(pl);
	t->process = t->next_uuid++;
	t->pid = t->next_pid++;
	t->next_tid = 1;
	t->track_rank = 0;
	t->w->process(t->w->ctx, t->process, t->pid, name, t->rank++);
	free(name);
	for (size_t l = 0; l < pl->n_lines && rc == TP_OK; l++) {
		const struct tp_line *ln = &pl->lines[l];

		t->st->aggregated += ln->n_aggregated; /* no time: not written */
		if (ln->n_events == ln->n_aggregated)
			continue; /* nothing on the timeline */
		t->ln = ln;
		t->derived_on = !t->opts->no_derived && is_scope_source(pl, ln);
		if (t->derived_on) {
			tl_scopes_begin(t);
			tl_peaks_begin(t);
		}
		tl_line_begin(t);
		rc = tl_write_line(t, err);
		tl_line_end(t);
		if (t->derived_on) {
			tl_scopes_end(t);
			tl_peaks_end(t);
		}
	}
	if (rc == TP_OK && !t->opts->no_derived) {
		tl_steps_track(t);
		tl_advice_track(t);
	}
	return rc;
}

bool tl_plane_written(const struct tl *t, const struct tp_plane *pl)
{
	return tp_selection_core(&t->sel, pl) && (pl->n_lines || pl->kind == TP_PLANE_HOST) &&
	       pl->kind != TP_PLANE_METADATA && pl->kind != TP_PLANE_TASK_ENV;
}

void tl_progress(struct tl *t, size_t h, const struct tp_plane *pl)
{
	char *name;

	if (t->opts->progress) {
		name = tl_plane_name(t, h, pl);
		t->opts->progress(t->opts->progress_ctx, t->done_bytes, t->total_bytes, name);
		free(name);
	}
	t->done_bytes += pl->bytes.len;
}

void tl_release(struct tl *t)
{
	for (size_t i = 0; i < t->cap_tracks; i++)
		free(t->tracks[i].open);
	free(t->tracks);
	free(t->args);
	free(t->scopes);
	free(t->parts);
	free(t->meta_parts);
	free(t->meta_peak);
	free(t->start_peaks);
	tl_hlo_release(t);
	tp_strpool_release(&t->pool);
	tp_selection_release(&t->sel);
}
