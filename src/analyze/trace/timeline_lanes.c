/*
 * timeline_lanes.c - `trace -j N`: a host's planes written on N threads
 * at once. Each thread has its own model state (struct tl: tracks,
 * scope stacks, HLO indexes and memory analyses, string pool) and its
 * own writer lane (trace.h), whose packets go out whole beside the
 * others'. What the threads share is only read: the capture (its HLO
 * modules decoded before the first host, so that no thread decodes one),
 * the modules' indexes and memory analyses (made then too, once), the
 * time base, the runtime memory timeline.
 *
 * Numbering stays that of the serial walk where it shows: pids and ranks
 * follow the planes' order. Uuids are the plane's pid << 32 plus a
 * count within the plane (the serial walk counts across the file),
 * since a lane's tracks are made as it goes. Errors: the first plane's
 * in file order, once the host's planes are done.
 */
#include "trace_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/parallel.h"

struct plane_job {
	const struct tp_plane *pl;
	uint32_t pid;
	int rank;
	bool memory;              /* the host's memory counters go here    */
	enum tp_err rc;
	struct tp_error err;
};

struct tl_lanes {
	struct tl *t;             /* the walk's own state                  */
	unsigned n;               /* threads, each with a worker and lane   */
	struct tl *workers;
	struct tp_trace_writer *lanes;
	struct tp_trace_stats *stats;
	/* the host being written */
	size_t host;
	const struct tp_mem_runtime *rt;
	struct plane_job *jobs;
	size_t n_jobs, cap_jobs;
	pthread_mutex_t lock;     /* progress                              */
};

static unsigned most_planes(const struct tl *t)
{
	unsigned most = 0;

	for (size_t h = 0; h < t->cap->n_hosts; h++) {
		unsigned n = 0;

		for (size_t p = 0; tl_host_wanted(t, h) && p < t->cap->hosts[h].xs.n_planes; p++)
			n += tl_plane_written(t, &t->cap->hosts[h].xs.planes[p]);
		if (n > most)
			most = n;
	}
	return most;
}

struct tl_lanes *tl_lanes_new(struct tl *t)
{
	unsigned n = t->opts->threads, most = most_planes(t);
	struct tp_error ignored = { 0 };
	struct tl_lanes *L;

	if (n > most)
		n = most;
	if (n > TP_MAX_THREADS)
		n = TP_MAX_THREADS;
	if (n < 2 || !t->w->lane)
		return NULL;
	L = tp_xcalloc(1, sizeof(*L));
	L->workers = tp_xcalloc(n, sizeof(*L->workers));
	L->lanes = tp_xcalloc(n, sizeof(*L->lanes));
	L->stats = tp_xcalloc(n, sizeof(*L->stats));
	for (unsigned i = 0; i < n; i++) {
		if (!t->w->lane(t->w->ctx, &L->lanes[i]))
			break;
		L->n++;
	}
	if (L->n < 2) {
		tl_lanes_free(L);
		return NULL;
	}
	/* every module now, needed or not (the serial walk decodes one when
	 * an op first needs it): a damaged one goes to the capture's damage
	 * list as there */
	for (size_t i = 0; i < t->cap->n_modules; i++)
		(void)tp_capture_decode_module(t->cap, &t->cap->modules[i], &ignored);
	tl_hlo_prepare(t);
	for (unsigned i = 0; i < L->n; i++) {
		struct tl *w = &L->workers[i];

		w->cap = t->cap;
		w->opts = t->opts;
		w->shift_ps = t->shift_ps;
		w->advice = t->advice;
		w->steps_known = t->steps_known;
		w->core_steps = t->core_steps;
		w->n_core_steps = t->n_core_steps;
		w->w = &L->lanes[i];
		w->st = &L->stats[i];
		tp_strpool_init(&w->pool);
		tl_hlo_share(w, t);
	}
	L->t = t;
	pthread_mutex_init(&L->lock, NULL);
	return L;
}

static void run_plane(void *ctx, size_t item, unsigned worker)
{
	struct tl_lanes *L = ctx;
	struct plane_job *j = &L->jobs[item];
	struct tl *w = &L->workers[worker];

	pthread_mutex_lock(&L->lock);
	tl_progress(L->t, L->host, j->pl);
	pthread_mutex_unlock(&L->lock);
	w->next_uuid = (uint64_t)j->pid << 32;
	w->next_pid = j->pid;
	w->rank = j->rank;
	j->rc = tl_write_plane(w, L->host, j->pl, &j->err);
	if (j->rc == TP_OK && j->memory)
		tl_memory_tracks(w, L->rt, L->host);
}

enum tp_err tl_lanes_walk_host(struct tl_lanes *L, const struct tp_mem_runtime *rt,
			       size_t h, struct tp_error *err)
{
	const struct tp_xspace *xs = &L->t->cap->hosts[h].xs;
	bool memory_done = false;

	L->host = h;
	L->rt = rt;
	L->n_jobs = 0;
	for (size_t p = 0; p < xs->n_planes; p++) {
		const struct tp_plane *pl = &xs->planes[p];
		struct plane_job *j;

		if (!tl_plane_written(L->t, pl))
			continue;
		L->jobs = tp_xgrow(L->jobs, &L->cap_jobs, L->n_jobs + 1, sizeof(*L->jobs));
		j = &L->jobs[L->n_jobs++];
		memset(j, 0, sizeof(*j));
		j->pl = pl;
		j->pid = L->t->next_pid++;
		j->rank = L->t->rank++;
		if (pl->kind == TP_PLANE_HOST && !memory_done && !L->t->opts->no_derived)
			j->memory = memory_done = true;
	}
	tp_parallel_for(L->n_jobs, L->n, run_plane, L);
	for (size_t i = 0; i < L->n_jobs; i++)
		if (L->jobs[i].rc != TP_OK) {
			*err = L->jobs[i].err;
			return L->jobs[i].rc;
		}
	return TP_OK;
}

static void add_stats(struct tp_trace_stats *to, const struct tp_trace_stats *s)
{
	to->slices += s->slices;
	to->instants += s->instants;
	to->aggregated += s->aggregated;
	to->outside += s->outside;
	to->tracks += s->tracks;
	to->overlap_tracks += s->overlap_tracks;
	to->scope_slices += s->scope_slices;
	to->step_slices += s->step_slices;
	to->counter_points += s->counter_points;
	to->peaks += s->peaks;
}

void tl_lanes_free(struct tl_lanes *L)
{
	if (!L)
		return;
	for (unsigned i = 0; i < L->n; i++) {
		L->lanes[i].release(L->lanes[i].ctx);
		if (L->t) {
			tl_release(&L->workers[i]);
			add_stats(L->t->st, &L->stats[i]);
		}
	}
	if (L->t)
		pthread_mutex_destroy(&L->lock);
	free(L->workers);
	free(L->lanes);
	free(L->stats);
	free(L->jobs);
	free(L);
}
