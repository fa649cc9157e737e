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
#include <sys/mman.h>
#include <unistd.h>

/* Below this many bytes of events, threads cost more than they save.
 * A variable so that tests can force the threaded path on small input. */
size_t tp_xspace_parallel_min_bytes = 8u << 20;
#define MAX_THREADS 64

struct line_job {
	const struct tp_plane *plane;
	struct tp_line *line;
};

struct scan_pool {
	const struct tp_xspace *xs;
	struct line_job *jobs;
	size_t n_jobs;
	atomic_size_t next;
};

static void scan_line(const struct tp_xspace *xs, struct line_job *job)
{
	struct tp_event_iter it;
	struct tp_event ev;

	tp_event_iter_init_scan(&it, xs, job->plane, job->line);
	while (tp_event_iter_next(&it, &ev) > 0)
		;
	tp_xspace_drop(xs, job->line->body.ptr, job->line->body.len);
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

static size_t thread_count(size_t jobs, size_t bytes, unsigned threads)
{
	size_t n = threads ? threads : tp_threads();

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

/* The damaged line that comes first in the file, among every line. */
static const struct tp_line *first_error(const struct tp_xspace *xs,
					 const struct tp_plane **plane)
{
	const struct tp_line *bad = NULL;

	for (size_t p = 0; p < xs->n_planes; p++)
		for (size_t l = 0; l < xs->planes[p].n_lines; l++) {
			const struct tp_line *ln = &xs->planes[p].lines[l];

			if (ln->scan_error &&
			    (!bad || ln->scan_error_offset < bad->scan_error_offset)) {
				bad = ln;
				*plane = &xs->planes[p];
			}
		}
	return bad;
}

static bool deferred(const struct tp_plane *pl, const struct tp_line *ln,
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
	struct scan_pool pool = { .xs = xs };
	size_t n = 0, bytes = 0;
	const struct tp_line *err;

	for (size_t p = 0; p < xs->n_planes; p++)
		n += xs->planes[p].n_lines;
	pool.jobs = tp_xcalloc(n + 1, sizeof(*pool.jobs));
	for (size_t p = 0; p < xs->n_planes; p++)
		for (size_t l = 0; l < xs->planes[p].n_lines; l++) {
			struct tp_plane *pl = &xs->planes[p];
			struct tp_line *ln = &pl->lines[l];

			if (ln->scanned || deferred(pl, ln, defer_min_bytes))
				continue;
			pool.jobs[pool.n_jobs].plane = pl;
			pool.jobs[pool.n_jobs++].line = ln;
			bytes += ln->body.len;
		}
	qsort(pool.jobs, pool.n_jobs, sizeof(*pool.jobs), by_size_desc);
	atomic_init(&pool.next, 0);
	if (pool.n_jobs)
		run_pool(&pool, thread_count(pool.n_jobs, bytes, threads));
	free(pool.jobs);
	err = first_error(xs, bad_plane);
	if (err) {
		*bad_line = err;
		bad->error = err->scan_error;
		bad->error_offset = err->scan_error_offset;
	}
	return err ? -1 : 0;
}

static unsigned threads_set;

void tp_set_threads(unsigned n)
{
	threads_set = n > MAX_THREADS ? MAX_THREADS : n;
}

unsigned tp_threads(void)
{
	long cpus;

	if (threads_set)
		return threads_set;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1)
		return 1;
	return cpus > MAX_THREADS ? MAX_THREADS : (unsigned)cpus;
}

void tp_xspace_drop(const struct tp_xspace *xs, const void *p, size_t len)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + len;
	long page;

	if (!xs->drop_pages)
		return;
	page = sysconf(_SC_PAGESIZE); /* from the auxiliary vector: cheap */
	if (page <= 0)
		return;
	/* only whole pages inside the range: a page shared with the next
	 * message stays */
	lo = (lo + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	hi &= ~((uintptr_t)page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}
