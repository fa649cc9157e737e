/*
 * parallel.h - the one thread pool: work items handed out to a few
 * threads, the calling thread among them. Decoding hosts, scanning lines
 * and the ops pass all use it; -j sets how many threads.
 *
 * Items are taken in index order by whichever thread is free, so callers
 * that need a deterministic result write each item's result into its own
 * slot and combine the slots in order afterwards.
 */
#ifndef TPUPROF_PARALLEL_H
#define TPUPROF_PARALLEL_H

#include <stddef.h>

#define TP_MAX_THREADS 64

/* Threads for scans and analyses: tp_set_threads(n) (from -j), default
 * the number of online CPUs; at most TP_MAX_THREADS. Set once, before
 * any work starts. */
void tp_set_threads(unsigned n);
unsigned tp_threads(void);
/* The online CPUs (at least 1, at most TP_MAX_THREADS), whatever -j. */
unsigned tp_cpus(void);

/* Calls fn(ctx, item, worker) once for every item in [0, n), on at most
 * `threads` threads (0: tp_threads()), and returns when all are done.
 * worker is the thread's number in [0, threads): for per-thread scratch.
 * fn must be safe to run on different items at once. */
void tp_parallel_for(size_t n, unsigned threads,
		     void (*fn)(void *ctx, size_t item, unsigned worker),
		     void *ctx);

#endif
