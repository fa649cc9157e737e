/*
 * op_table.c - the one open-addressing table of the ops analysis: a key
 * of `width` 64-bit words to an op. op_keys.c keys ops by (program id,
 * module name hash, op name hash), op_gpu.c GPU kernels by their stats'
 * raw values; both call here and nothing here calls back. Linear
 * probing, at most half full, the capacity a power of two. The lookup
 * is inline in ops_internal.h: called with a constant width, it compiles
 * to the fixed-width code each file had.
 */
#include "ops_internal.h"

#include <stdlib.h>
#include <string.h>

void tp_op_table_grow(struct tp_op_table *t, unsigned width)
{
	struct tp_op_slot *old = t->slots;
	size_t n = t->cap;

	t->cap = n ? 2 * n : 64;
	t->slots = tp_xcalloc(t->cap, sizeof(*t->slots));
	for (size_t i = 0; i < n; i++)
		if (old[i].used)
			*tp_op_table_probe(t, old[i].key, width) = old[i];
	free(old);
}

void tp_op_table_add(struct tp_op_table *t, struct tp_op_slot *s,
		     const uint64_t *key, unsigned width, uint32_t op)
{
	memcpy(s->key, key, width * sizeof(*key));
	s->op = op;
	s->used = true;
	t->n++;
}

void tp_op_table_release(struct tp_op_table *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
