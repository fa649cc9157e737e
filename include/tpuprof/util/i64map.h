/*
 * i64map.h - a map from int64 keys to non-negative longs (open
 * addressing, malloc'd, grows as needed). The first value put for a key
 * stays: tp_i64map_put on an existing key does nothing.
 */
#ifndef TPUPROF_I64MAP_H
#define TPUPROF_I64MAP_H

#include <stddef.h>
#include <stdint.h>

struct tp_i64map {
	int64_t *keys;   /* malloc'd                         */
	long *values;    /* malloc'd; -1 marks a free slot   */
	size_t cap, n;
};

void tp_i64map_init(struct tp_i64map *m, size_t expected);
void tp_i64map_release(struct tp_i64map *m);
void tp_i64map_put(struct tp_i64map *m, int64_t key, long value);
/* Like tp_i64map_put, but replaces the value of an existing key. */
void tp_i64map_set(struct tp_i64map *m, int64_t key, long value);
/* The value of key, or -1. */
long tp_i64map_get(const struct tp_i64map *m, int64_t key);

#endif
