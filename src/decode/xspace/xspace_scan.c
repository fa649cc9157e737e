/*
 * xspace_scan.c - the validating pass over every event of every line,
 * which also counts events and measures each line's time span. Lines are
 * independent, so large captures are scanned by one thread per core,
 * largest lines first; small ones stay on the calling thread. A corrupt
 * capture reports the damaged line that comes first in the file, so the
 * message does not depend on thread timing.
 */
#include "xspace_internal.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below this many bytes of events, threads cost more than they save.
 * A variable so that tests can force the threaded path on small input. */
size_t tp_xspace_parallel_min_bytes = 8u << 20;

struct line_job {
	const struct tp_plane *plane;
	struct tp_line *line;
};

struct scan_jobs {
	const struct tp_xspace *xs;
	struct line_job *jobs;
};

static void scan_line(void *ctx, size_t i, unsigned worker)
{
	const struct scan_jobs *s = ctx;
	const struct line_job *job = &s->jobs[i];
	struct tp_event_batch b; /* 14 KB of the worker's stack */
	static const struct tp_batch_keys any; /* any simple stats */
	struct tp_event_iter it;
	struct tp_event ev;

	(void)worker;
	tp_event_iter_init_scan(&it, s->xs, job->plane, job->line);
	/* plain events in bulk, the rest one by one: the same scan */
	while (tp_event_iter_batch_keyed(&it, &any, &b) ||
	       tp_event_iter_next(&it, &ev) > 0)
		;
	tp_xspace_drop(s->xs, job->line->body.ptr, job->line->body.len);
}

static int by_size_desc(const void *a, const void *b)
{
	const struct line_job *x = a, *y = b;

	return (x->line->body.len < y->line->body.len) - (x->line->body.len > y->line->body.len);
}

/* Whether a's error is reported before b's: a damaged framing before
 * any damaged event (a full decode meets it at open), then file order. */
static bool reported_first(const struct tp_line *a, const struct tp_line *b)
{
	if (a->framing_error != b->framing_error)
		return a->framing_error;
	return a->scan_error_offset < b->scan_error_offset;
}

/* The damaged line whose error a full decode reports, among every line. */
static const struct tp_line *first_error(const struct tp_xspace *xs,
					 const struct tp_plane **plane)
{
	const struct tp_line *bad = NULL;

	for (size_t p = 0; p < xs->n_planes; p++)
		for (size_t l = 0; l < xs->planes[p].n_lines; l++) {
			const struct tp_line *ln = &xs->planes[p].lines[l];

			if (ln->scan_error && (!bad || reported_first(ln, bad))) {
				bad = ln;
				*plane = &xs->planes[p];
			}
		}
	return bad;
}

bool tp_line_deferred(const struct tp_plane *pl, const struct tp_line *ln,
		      size_t defer_min_bytes)
{
	bool device = pl->kind == TP_PLANE_TPU || pl->kind == TP_PLANE_GPU ||
		      pl->kind == TP_PLANE_TPU_SPARSECORE;

	return defer_min_bytes && device && ln->body.len >= defer_min_bytes;
}

int tp_xspace_scan_lines(struct tp_xspace *xs, size_t defer_min_bytes,
			 unsigned threads, const struct tp_plane **bad_plane,
			 const struct tp_line **bad_line, struct tp_wire *bad)
{
	struct scan_jobs s = { .xs = xs };
	size_t n = 0, n_jobs = 0, bytes = 0;
	const struct tp_line *err;

	for (size_t p = 0; p < xs->n_planes; p++)
		n += xs->planes[p].n_lines;
	s.jobs = tp_xcalloc(n + 1, sizeof(*s.jobs));
	for (size_t p = 0; p < xs->n_planes; p++)
		for (size_t l = 0; l < xs->planes[p].n_lines; l++) {
			struct tp_plane *pl = &xs->planes[p];
			struct tp_line *ln = &pl->lines[l];

			if (ln->scanned || tp_line_deferred(pl, ln, defer_min_bytes))
				continue;
			s.jobs[n_jobs].plane = pl;
			s.jobs[n_jobs++].line = ln;
			bytes += ln->body.len;
		}
	/* largest lines first, so that threads finish together */
	qsort(s.jobs, n_jobs, sizeof(*s.jobs), by_size_desc);
	tp_parallel_for(n_jobs, bytes < tp_xspace_parallel_min_bytes ? 1 : threads,
			scan_line, &s);
	free(s.jobs);
	err = first_error(xs, bad_plane);
	if (err) {
		*bad_line = err;
		bad->error = err->scan_error;
		bad->error_offset = err->scan_error_offset;
	}
	return err ? -1 : 0;
}
