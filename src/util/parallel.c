/*
 * parallel.c - the thread pool (see parallel.h).
 */
#include "tpuprof/util/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static unsigned threads_set;

void tp_set_threads(unsigned n)
{
	threads_set = n > TP_MAX_THREADS ? TP_MAX_THREADS : n;
}

unsigned tp_cpus(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (cpus < 1)
		return 1;
	return cpus > TP_MAX_THREADS ? TP_MAX_THREADS : (unsigned)cpus;
}

unsigned tp_threads(void)
{
	return threads_set ? threads_set : tp_cpus();
}

struct pool {
	void (*fn)(void *ctx, size_t item, unsigned worker);
	void *ctx;
	size_t n;
	atomic_size_t next;
};

struct worker_arg {
	struct pool *pool;
	unsigned worker;
};

static void *work(void *arg)
{
	const struct worker_arg *w = arg;
	size_t i;

	while ((i = atomic_fetch_add(&w->pool->next, 1)) < w->pool->n)
		w->pool->fn(w->pool->ctx, i, w->worker);
	return NULL;
}

void tp_parallel_for(size_t n, unsigned threads,
		     void (*fn)(void *ctx, size_t item, unsigned worker),
		     void *ctx)
{
	struct pool pool = { .fn = fn, .ctx = ctx, .n = n };
	struct worker_arg args[TP_MAX_THREADS];
	pthread_t tids[TP_MAX_THREADS];
	unsigned want = threads ? threads : tp_threads(), started = 0;

	if (want > TP_MAX_THREADS)
		want = TP_MAX_THREADS;
	if (want > n)
		want = (unsigned)n;
	atomic_init(&pool.next, 0);
	/* a thread that cannot start leaves its share to the others */
	for (unsigned t = 1; t < want; t++) {
		args[started + 1].pool = &pool;
		args[started + 1].worker = started + 1;
		if (pthread_create(&tids[started], NULL, work, &args[started + 1]) == 0)
			started++;
	}
	args[0].pool = &pool;
	args[0].worker = 0;
	work(&args[0]);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
}
