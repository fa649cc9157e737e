/*
 * xspace_scan.c - the validating pass over every event of every line,
 * which also counts events and measures each line's time span. Lines are
 * independent, so large captures are scanned by one thread per core,
 * largest lines first; small ones stay on the calling thread. A corrupt
 * capture reports the damaged line that comes first in the file, so the
 * message does not depend on thread timing.
 */
#include "xspace_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/* Below this many bytes of events, threads cost more than they save.
 * A variable so that tests can force the threaded path on small input. */
size_t tp_xspace_parallel_min_bytes = 8u << 20;
#define MAX_THREADS 16

struct line_job {
	const struct tp_plane *plane;
	struct tp_line *line;
	const char *error;        /* static text, or NULL */
	size_t error_offset;
};

struct scan_pool {
	const struct tp_xspace *xs;
	struct line_job *jobs;
	size_t n_jobs;
	atomic_size_t next;
};

static void scan_line(const struct tp_xspace *xs, struct line_job *job)
{
	struct tp_line *ln = job->line;
	struct tp_event_iter it;
	struct tp_event ev;
	int rc;

	tp_event_iter_init(&it, xs, job->plane, ln);
	it.validate = true;
	while ((rc = tp_event_iter_next(&it, &ev)) > 0) {
		int64_t end;

		ln->n_events++;
		if (!ev.timed) {
			ln->n_aggregated++;
			continue;
		}
		end = tp_sat_add(ev.start_ps, ev.dur_ps);
		if (!ln->has_span || ev.start_ps < ln->first_start_ps)
			ln->first_start_ps = ev.start_ps;
		if (!ln->has_span || end > ln->last_end_ps)
			ln->last_end_ps = end;
		ln->has_span = true;
	}
	if (rc < 0) {
		job->error = it.w.error;
		job->error_offset = it.w.error_offset;
	}
}

static void *worker(void *arg)
{
	struct scan_pool *pool = arg;
	size_t i;

	while ((i = atomic_fetch_add(&pool->next, 1)) < pool->n_jobs)
		scan_line(pool->xs, &pool->jobs[i]);
	return NULL;
}

static int by_size_desc(const void *a, const void *b)
{
	const struct line_job *x = a, *y = b;

	return (x->line->body.len < y->line->body.len) - (x->line->body.len > y->line->body.len);
}

static size_t thread_count(size_t jobs, size_t bytes)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus > 1 ? (size_t)cpus : 1;

	if (bytes < tp_xspace_parallel_min_bytes)
		return 1;
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	return n < jobs ? n : jobs;
}

static void run_pool(struct scan_pool *pool, size_t threads)
{
	pthread_t tids[MAX_THREADS];
	size_t started = 0;

	for (size_t t = 1; t < threads; t++)
		if (pthread_create(&tids[started], NULL, worker, pool) == 0)
			started++;
	worker(pool); /* the calling thread works too; fewer threads is fine */
	for (size_t t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
}

static const struct line_job *first_error(const struct line_job *jobs, size_t n)
{
	const struct line_job *bad = NULL;

	for (size_t i = 0; i < n; i++)
		if (jobs[i].error && (!bad || jobs[i].error_offset < bad->error_offset))
			bad = &jobs[i];
	return bad;
}

int tp_xspace_scan_lines(struct tp_xspace *xs, const struct tp_plane **bad_plane,
			 const struct tp_line **bad_line, struct tp_wire *bad)
{
	struct scan_pool pool = { .xs = xs };
	size_t n = 0, bytes = 0;
	const struct line_job *err;

	for (size_t p = 0; p < xs->n_planes; p++)
		n += xs->planes[p].n_lines;
	pool.jobs = tp_xcalloc(n + 1, sizeof(*pool.jobs));
	for (size_t p = 0; p < xs->n_planes; p++)
		for (size_t l = 0; l < xs->planes[p].n_lines; l++) {
			pool.jobs[pool.n_jobs].plane = &xs->planes[p];
			pool.jobs[pool.n_jobs++].line = &xs->planes[p].lines[l];
			bytes += xs->planes[p].lines[l].body.len;
		}
	qsort(pool.jobs, pool.n_jobs, sizeof(*pool.jobs), by_size_desc);
	atomic_init(&pool.next, 0);
	run_pool(&pool, thread_count(pool.n_jobs, bytes));
	err = first_error(pool.jobs, pool.n_jobs);
	if (err) {
		*bad_plane = err->plane;
		*bad_line = err->line;
		bad->error = err->error;
		bad->error_offset = err->error_offset;
	}
	free(pool.jobs);
	return err ? -1 : 0;
}
