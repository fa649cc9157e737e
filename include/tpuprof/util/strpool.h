/*
 * strpool.h - one copy of each distinct string. Every host of a pod runs
 * the same programs, so a run's op names, categories and scopes repeat
 * once per core; the ops keep pooled copies instead of pointers into the
 * capture (whose pages can then leave memory).
 *
 * Ownership: the pool owns every string it returns; they stay valid and
 * NUL-terminated until tp_strpool_release(). Safe for use by several
 * threads at once (one lock; interning is rare: once per op created).
 */
#ifndef TPUPROF_STRPOOL_H
#define TPUPROF_STRPOOL_H

#include <pthread.h>
#include <stddef.h>

#include "tpuprof/util/arena.h"
#include "tpuprof/util/util.h"

struct tp_strpool {
	struct tp_arena bytes;   /* the strings                       */
	struct tp_str *slots;    /* malloc'd, open addressing; ptr NULL = free */
	size_t cap, n;
	struct tp_str *numbers;  /* malloc'd: "0", "1", ... interned   */
	size_t n_numbers;
	pthread_mutex_t lock;
};

void tp_strpool_init(struct tp_strpool *p);
void tp_strpool_release(struct tp_strpool *p);
/* The pooled copy of s (an empty string for an empty s). */
struct tp_str tp_strpool_intern(struct tp_strpool *p, struct tp_str s);
/* The pooled decimal texts of first, first + 1, ... first + n - 1 into
 * out[0..n): what tp_strpool_intern gives for each, under one lock and
 * with no hashing after the first time (steps named by their position,
 * thousands a core). */
void tp_strpool_numbers(struct tp_strpool *p, size_t first, size_t n, struct tp_str *out);

#endif
