/*
 * line_tracks.c - events of one line, in time order, onto tracks: the
 * line's own track while they nest, and tracks of the same name with a
 * suffix ("XLA Ops (2)") for events that overlap without nesting
 * (trace-facts §1.7). Each track keeps a stack of its open slices; an
 * event goes to the first track where everything open either ended
 * before it starts or holds it whole, and that has fewer than 512
 * levels there (Perfetto's limit), counting zero-length events at the
 * same nanosecond as levels. Nothing is dropped.
 */
#include "trace_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 512

static struct tl_track *add_track(struct tl *t)
{
	struct tl_track *tr;
	struct tp_str base = t->ln->display_name.len ? t->ln->display_name : t->ln->name;
	char *name;

	if (t->n_tracks == t->cap_tracks) {
		size_t old = t->cap_tracks;

		t->tracks = tp_xgrow(t->tracks, &t->cap_tracks, t->n_tracks + 1,
				     sizeof(*t->tracks));
		memset(t->tracks + old, 0, (t->cap_tracks - old) * sizeof(*t->tracks));
	}
	tr = &t->tracks[t->n_tracks++];
	tr->depth = 0;
	tr->n_zero = 0;
	if (t->n_tracks == 1) {
		name = tp_xasprintf("%.*s", (int)base.len, base.ptr);
	} else {
		name = tp_xasprintf("%.*s (%zu)", (int)base.len, base.ptr, t->n_tracks);
		t->st->overlap_tracks++;
	}
	tr->uuid = tl_new_track(t, name, false);
	free(name);
	return tr;
}

void tl_line_begin(struct tl *t)
{
	t->n_tracks = 0;
}

/* Closes the slices of tr that end by start_ps (all when start_ps is
 * INT64_MAX), innermost first. */
static void close_until(struct tl *t, struct tl_track *tr, int64_t start_ps)
{
	while (tr->depth && tr->open[tr->depth - 1].end_ps <= start_ps) {
		tr->depth--;
		t->w->end(t->w->ctx, tr->uuid, tl_ns(tr->open[tr->depth].end_ps), NULL, 0);
	}
}

static void push(struct tl_track *tr, int64_t end_ps)
{
	if (tr->depth == tr->cap)
		tr->open = tp_xgrow(tr->open, &tr->cap, tr->depth + 1, sizeof(*tr->open));
	tr->open[tr->depth++].end_ps = end_ps;
}

void tl_line_event(struct tl *t, const struct tp_event *ev)
{
	int64_t start = tp_sat_add(ev->start_ps, t->shift_ps[t->host]);
	int64_t dur = ev->dur_ps > 0 ? ev->dur_ps : 0;
	int64_t end = tp_sat_add(start, dur);
	int64_t start_ns = tl_ns(start), end_ns = tl_ns(end);
	struct tp_trace_slice s;
	struct tl_track *tr = NULL;
	bool top;

	if (!tl_in_window(t, start, end)) {
		t->st->outside++;
		return;
	}
	if (t->n_tracks == 0)
		add_track(t);
	for (size_t k = 0; k < t->n_tracks && !tr; k++) {
		struct tl_track *c = &t->tracks[k];
		size_t levels;

		close_until(t, c, start);
		/* Perfetto keeps 512 levels per track: deeper goes on, an
		 * instant too (trace-facts: deeper slices are dropped, and an
		 * instant inside 512 open slices would be the 513th level);
		 * zero-length events at this nanosecond count as levels, so
		 * a 513th at one time goes on too */
		levels = c->depth + (c->n_zero && c->zero_ns == start_ns ? c->n_zero : 0);
		if (levels < MAX_DEPTH &&
		    (!c->depth || c->open[c->depth - 1].end_ps >= end))
			tr = c;
	}
	if (!tr)
		tr = add_track(t);
	if (end_ns == start_ns) {
		if (tr->n_zero && tr->zero_ns == start_ns) {
			tr->n_zero++;
		} else {
			tr->zero_ns = start_ns;
			tr->n_zero = 1;
		}
	}
	tl_event_slice(t, ev, &s);
	if (!dur) {
		t->w->instant(t->w->ctx, tr->uuid, start_ns, &s);
		t->st->instants++;
		return;
	}
	top = tr == &t->tracks[0] && tr->depth == 0;
	t->w->begin(t->w->ctx, tr->uuid, start_ns, end_ns - start_ns, &s);
	push(tr, end);
	t->st->slices++;
	if (top && t->derived_on)
		tl_scopes_event(t, ev, start, end);
	if (t->derived_on)
		tl_peaks_event(t, ev, start);
}

void tl_line_end(struct tl *t)
{
	for (size_t k = 0; k < t->n_tracks; k++)
		close_until(t, &t->tracks[k], INT64_MAX);
}
