/*
 * i64map.c - int64 -> long map (see i64map.h).
 */
#include "tpuprof/util/i64map.h"
#include "tpuprof/util/util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static size_t slot(const struct tp_i64map *m, int64_t key)
{
	return (size_t)tp_mix64((uint64_t)key) & (m->cap - 1);
}

static void alloc_slots(struct tp_i64map *m, size_t cap)
{
	m->cap = cap;
	m->keys = tp_xmalloc(cap * sizeof(*m->keys));
	m->values = tp_xmalloc(cap * sizeof(*m->values));
	for (size_t i = 0; i < cap; i++)
		m->values[i] = -1;
}

void tp_i64map_init(struct tp_i64map *m, size_t expected)
{
	size_t cap = 16;

	while (cap < 2 * expected)
		cap *= 2;
	m->n = 0;
	alloc_slots(m, cap);
}

void tp_i64map_release(struct tp_i64map *m)
{
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof(*m));
}

static void grow(struct tp_i64map *m)
{
	int64_t *keys = m->keys;
	long *values = m->values;
	size_t cap = m->cap;

	alloc_slots(m, cap * 2);
	m->n = 0;
	for (size_t i = 0; i < cap; i++)
		if (values[i] >= 0)
			tp_i64map_put(m, keys[i], values[i]);
	free(keys);
	free(values);
}

static void store(struct tp_i64map *m, int64_t key, long value, bool replace)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap)
		grow(m);
	for (i = slot(m, key); m->values[i] >= 0; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			if (replace)
				m->values[i] = value;
			return;
		}
	}
	m->keys[i] = key;
	m->values[i] = value;
	m->n++;
}

void tp_i64map_put(struct tp_i64map *m, int64_t key, long value)
{
	store(m, key, value, false);
}

void tp_i64map_set(struct tp_i64map *m, int64_t key, long value)
{
	store(m, key, value, true);
}

long tp_i64map_get(const struct tp_i64map *m, int64_t key)
{
	for (size_t i = slot(m, key); m->values[i] >= 0; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->values[i];
	return -1;
}
