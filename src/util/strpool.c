/*
 * strpool.c - the string pool (see strpool.h).
 */
#include "tpuprof/util/strpool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tp_strpool_init(struct tp_strpool *p)
{
	memset(p, 0, sizeof(*p));
	tp_arena_init(&p->bytes);
	pthread_mutex_init(&p->lock, NULL);
}

void tp_strpool_release(struct tp_strpool *p)
{
	tp_arena_release(&p->bytes);
	free(p->slots);
	free(p->numbers);
	p->numbers = NULL;
	p->n_numbers = 0;
	pthread_mutex_destroy(&p->lock);
	p->slots = NULL;
	p->cap = p->n = 0;
}

static struct tp_str *slot_of(struct tp_str *slots, size_t cap, struct tp_str s)
{
	size_t h = (size_t)tp_hash_bytes(s.ptr, s.len) & (cap - 1);

	while (slots[h].ptr && !(slots[h].len == s.len &&
				 memcmp(slots[h].ptr, s.ptr, s.len) == 0))
		h = (h + 1) & (cap - 1);
	return &slots[h];
}

static void grow(struct tp_strpool *p)
{
	size_t cap = p->cap ? 2 * p->cap : 256;
	struct tp_str *slots = tp_xzalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < p->cap; i++)
		if (p->slots[i].ptr)
			*slot_of(slots, cap, p->slots[i]) = p->slots[i];
	free(p->slots);
	p->slots = slots;
	p->cap = cap;
}

/* The pooled copy of s, the lock held. */
static struct tp_str intern_locked(struct tp_strpool *p, struct tp_str s)
{
	struct tp_str *slot;

	if (2 * (p->n + 1) > p->cap)
		grow(p);
	slot = slot_of(p->slots, p->cap, s);
	if (!slot->ptr) {
		*slot = tp_str_make(tp_arena_strndup(&p->bytes, s.ptr, s.len), s.len);
		p->n++;
	}
	return *slot;
}

struct tp_str tp_strpool_intern(struct tp_strpool *p, struct tp_str s)
{
	struct tp_str out;

	if (!s.len)
		return tp_str_make("", 0);
	pthread_mutex_lock(&p->lock);
	out = intern_locked(p, s);
	pthread_mutex_unlock(&p->lock);
	return out;
}

void tp_strpool_numbers(struct tp_strpool *p, size_t first, size_t n, struct tp_str *out)
{
	size_t end = first + n;

	if (!n)
		return;
	pthread_mutex_lock(&p->lock);
	if (end > p->n_numbers) {
		p->numbers = tp_xrealloc(p->numbers, end * sizeof(*p->numbers));
		for (size_t i = p->n_numbers; i < end; i++) {
			char num[24];
			int len = snprintf(num, sizeof(num), "%zu", i);

			p->numbers[i] = intern_locked(p, tp_str_make(num, (size_t)len));
		}
		p->n_numbers = end;
	}
	memcpy(out, p->numbers + first, n * sizeof(*out));
	pthread_mutex_unlock(&p->lock);
}
