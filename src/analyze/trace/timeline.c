/*
 * timeline.c - `tpuprof trace`: the walk over every host, plane and line
 * of a capture, the common time base, the --host/--core filters and the
 * window (see trace.h).
 */
#include "trace_internal.h"

#include <stdlib.h>
#include <string.h>

/* The hosts and cores to write (one selection, as every command makes
 * it); a capture without events has no timeline at all. */
static enum tp_err select_planes(struct tl *t, struct tp_error *err)
{
	if (!t->cap->n_hosts)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: no timeline to write: HloProtos and XLA dumps hold no events (give an *.xplane.pb)",
				    t->cap->n_sources ? t->cap->sources[0].path : "capture");
	return tp_selection_make(&t->sel, t->cap, t->opts->host, t->opts->core, NULL, err);
}

/* A host's clock in epoch ns at its event time 0, when known: the line
 * timestamps' origin when they are wall-clock, else the session start
 * that normalization subtracted (format-facts §1 "Timestamps"). */
static bool host_epoch(const struct tp_host *ho, int64_t *out)
{
	const struct tp_xspace *xs = &ho->xs;

	if (xs->time_origin_ns) {
		*out = xs->time_origin_ns;
		return true;
	}
	for (size_t p = 0; p < xs->n_planes; p++) {
		const struct tp_plane *pl = &xs->planes[p];
		const struct tp_stat *s;
		int64_t v;

		if (pl->kind != TP_PLANE_TASK_ENV)
			continue;
		s = tp_stats_find_name(pl, pl->stats, pl->n_stats, "profile_start_time");
		if (s && tp_stat_int(s, &v) && v > 0) {
			*out = v;
			return true;
		}
	}
	return false;
}

/* Per host, the shift from its event times to trace time: hosts on one
 * clock when all of them know their epoch, and trace time 0 at the
 * earliest event of the capture (of every plane, written or not). */
static void time_base(struct tl *t)
{
	size_t n = t->cap->n_hosts;
	int64_t *epoch = tp_xcalloc(n ? n : 1, sizeof(*epoch));
	int64_t lo_epoch = INT64_MAX, origin = INT64_MAX;
	bool all = n > 0;

	/* every host and plane, whatever --host and --core keep: a time read
	 * off the whole trace picks the same events in a part of it */
	for (size_t h = 0; h < n; h++)
		all &= host_epoch(&t->cap->hosts[h], &epoch[h]);
	for (size_t h = 0; h < n; h++)
		if (all && epoch[h] < lo_epoch)
			lo_epoch = epoch[h];
	for (size_t h = 0; h < n; h++) {
		const struct tp_xspace *xs = &t->cap->hosts[h].xs;

		t->shift_ps[h] = all ? tp_sat_mul(epoch[h] - lo_epoch, 1000) : 0;
		for (size_t p = 0; p < xs->n_planes; p++) {
			for (size_t l = 0; l < xs->planes[p].n_lines; l++) {
				const struct tp_line *ln = &xs->planes[p].lines[l];
				int64_t s = tp_sat_add(ln->first_start_ps, t->shift_ps[h]);

				if (ln->has_span && s < origin)
					origin = s;
			}
		}
	}
	if (origin == INT64_MAX)
		origin = 0;
	for (size_t h = 0; h < n; h++)
		t->shift_ps[h] = tp_sat_sub(t->shift_ps[h], origin);
	free(epoch);
}

/* One host's planes, one after another. */
static enum tp_err walk_host(struct tl *t, const struct tp_mem_runtime *rt, size_t h,
			     struct tp_error *err)
{
	const struct tp_xspace *xs = &t->cap->hosts[h].xs;
	bool memory_done = false;
	enum tp_err rc = TP_OK;

	for (size_t p = 0; p < xs->n_planes && rc == TP_OK; p++) {
		const struct tp_plane *pl = &xs->planes[p];

		if (!tl_plane_written(t, pl))
			continue;
		tl_progress(t, h, pl);
		rc = tl_write_plane(t, h, pl, err);
		if (rc == TP_OK && pl->kind == TP_PLANE_HOST && !memory_done &&
		    !t->opts->no_derived) {
			tl_memory_tracks(t, rt, h);
			memory_done = true;
		}
	}
	return rc;
}

static enum tp_err walk(struct tl *t, struct tp_error *err)
{
	struct tp_mem_runtime rt = { 0 };
	struct tl_lanes *lanes = NULL;
	enum tp_err rc = TP_OK;

	for (size_t h = 0; h < t->cap->n_hosts; h++)
		for (size_t p = 0; tl_host_wanted(t, h) && p < t->cap->hosts[h].xs.n_planes; p++)
			if (tl_plane_written(t, &t->cap->hosts[h].xs.planes[p]))
				t->total_bytes += t->cap->hosts[h].xs.planes[p].bytes.len;

	if (!t->opts->no_derived)
		tp_mem_runtime_build(&rt, t->cap);
	lanes = tl_lanes_new(t);
	for (size_t h = 0; h < t->cap->n_hosts && rc == TP_OK; h++) {
		if (!tl_host_wanted(t, h))
			continue;
		rc = lanes ? tl_lanes_walk_host(lanes, &rt, h, err) : walk_host(t, &rt, h, err);
		tp_capture_drop_host(t->cap, h);
	}
	tl_lanes_free(lanes);
	tp_mem_runtime_release(&rt);
	return rc;
}

enum tp_err tp_trace_check(const struct tp_capture *cap,
			   const struct tp_trace_opts *opts, struct tp_error *err)
{
	/* only read: the model's capture is writable for HLO decoding */
	struct tl t;

	enum tp_err rc;

	memset(&t, 0, sizeof(t));
	t.cap = (struct tp_capture *)cap;
	t.opts = opts;
	rc = select_planes(&t, err);
	tp_selection_release(&t.sel);
	return rc;
}

enum tp_err tp_trace_walk(struct tp_capture *cap,
			  const struct tp_trace_opts *opts,
			  struct tp_trace_writer *w, struct tp_trace_stats *stats,
			  struct tp_error *err)
{
	struct tl t;
	enum tp_err rc;

	memset(stats, 0, sizeof(*stats));
	memset(&t, 0, sizeof(t));
	t.cap = cap;
	t.opts = opts;
	t.st = stats;
	t.w = w;
	if ((rc = select_planes(&t, err)) != TP_OK)
		return rc;
	t.shift_ps = tp_xcalloc(cap->n_hosts ? cap->n_hosts : 1, sizeof(*t.shift_ps));
	t.next_uuid = 1;
	t.next_pid = 1;
	tp_strpool_init(&t.pool);
	time_base(&t);
	if (opts->judged)
		tl_advice_borrow(&t, opts->judged);
	else
		tl_advice_prepare(&t);
	rc = walk(&t, err);
	if (!opts->judged)
		tl_advice_release(&t);
	tl_release(&t);
	free(t.shift_ps);
	return rc;
}
