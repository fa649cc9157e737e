/*
 * trace_out.c - the protobuf encoder, the intern table and the fixed
 * argument cache the trace writers share (trace_out.h; the output is
 * sink.c).
 */
#include "trace_out.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

/* ---- protobuf encoding ------------------------------------------------ */

void tp_pb_reserve(struct tp_pb *b, size_t n)
{
	if (b->len + n > b->cap)
		b->p = tp_xgrow(b->p, &b->cap, b->len + n, 1);
}

static void reserve(struct tp_pb *b, size_t n)
{
	tp_pb_reserve(b, n);
}

void tp_pb_reset(struct tp_pb *b)
{
	b->len = 0;
	b->depth = 0;
}

void tp_pb_release(struct tp_pb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static void tag(struct tp_pb *b, uint32_t field, int wire)
{
	tp_pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

void tp_pb_int(struct tp_pb *b, uint32_t field, int64_t v)
{
	tp_pb_uint(b, field, (uint64_t)v);
}

void tp_pb_double(struct tp_pb *b, uint32_t field, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	tag(b, field, TP_PB_FIXED64);
	reserve(b, 8);
	for (int i = 0; i < 8; i++)
		b->p[b->len++] = (uint8_t)(bits >> (8 * i));
}

void tp_pb_bytes(struct tp_pb *b, uint32_t field, const void *p, size_t n)
{
	tag(b, field, TP_PB_LEN);
	tp_pb_varint(b, n);
	reserve(b, n);
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

void tp_pb_raw(struct tp_pb *b, const void *p, size_t n)
{
	reserve(b, n);
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

void tp_pb_open(struct tp_pb *b, uint32_t field)
{
	tag(b, field, TP_PB_LEN);
	if (b->depth < TP_PB_DEPTH)
		b->open[b->depth] = b->len;
	b->depth++;
}

void tp_pb_close(struct tp_pb *b)
{
	uint8_t lenbuf[10];
	size_t start, body, n;

	if (b->depth <= 0 || b->depth > TP_PB_DEPTH) {
		b->depth--;
		return; /* a bug in the caller: nothing sensible to insert */
	}
	start = b->open[--b->depth];
	body = b->len - start;
	n = tp_pb_put_varint(lenbuf, body);
	reserve(b, n);
	memmove(b->p + start + n, b->p + start, body);
	memcpy(b->p + start, lenbuf, n);
	b->len += n;
}

/* ---- intern table ----------------------------------------------------- */

void tp_intern_init(struct tp_intern *t)
{
	t->cap = 1024;
	t->n = 0;
	t->slots = tp_xzalloc(t->cap, sizeof(*t->slots));
}

void tp_intern_release(struct tp_intern *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->n = 0;
}

void tp_intern_clear(struct tp_intern *t)
{
	if (t->n)
		memset(t->slots, 0, t->cap * sizeof(*t->slots));
	t->n = 0;
}

static size_t slot_of(const struct tp_intern *t, uint32_t kind, const char *ptr,
		      size_t len)
{
	uint64_t h = tp_mix64((uint64_t)(uintptr_t)ptr ^ ((uint64_t)len << 40) ^
			      ((uint64_t)kind << 58));
	size_t i = (size_t)h & (t->cap - 1);

	while (t->slots[i].id && (t->slots[i].ptr != ptr || t->slots[i].len != len ||
				  t->slots[i].kind != kind))
		i = (i + 1) & (t->cap - 1);
	return i;
}

uint64_t tp_intern_get(const struct tp_intern *t, uint32_t kind,
		       const char *ptr, size_t len)
{
	return t->slots[slot_of(t, kind, ptr, len)].id;
}

void tp_intern_put(struct tp_intern *t, uint32_t kind, const char *ptr,
		   size_t len, uint64_t id)
{
	if ((t->n + 1) * 2 > t->cap) {
		struct tp_intern old = *t;

		t->cap *= 2;
		t->slots = tp_xzalloc(t->cap, sizeof(*t->slots));
		for (size_t i = 0; i < old.cap; i++)
			if (old.slots[i].id)
				t->slots[slot_of(t, old.slots[i].kind, old.slots[i].ptr,
						 old.slots[i].len)] = old.slots[i];
		free(old.slots);
	}
	struct tp_intern_slot *s = &t->slots[slot_of(t, kind, ptr, len)];

	if (!s->id)
		t->n++;
	s->ptr = ptr;
	s->len = len;
	s->kind = kind;
	s->id = id;
}

/* ---- fixed arguments per key ----------------------------------------- */

void tp_fixed_init(struct tp_fixed_cache *c)
{
	memset(c, 0, sizeof(*c));
	tp_intern_init(&c->index);
}

void tp_fixed_release(struct tp_fixed_cache *c)
{
	tp_intern_release(&c->index);
	free(c->ents);
	free(c->bytes);
	memset(c, 0, sizeof(*c));
}

void tp_fixed_clear(struct tp_fixed_cache *c)
{
	tp_intern_clear(&c->index);
	c->n = 0;
	c->len = 0;
}

const struct tp_fixed *tp_fixed_get(const struct tp_fixed_cache *c, const void *key)
{
	uint64_t id = tp_intern_get(&c->index, 0, key, 0);

	return id ? &c->ents[id - 1] : NULL;
}

void tp_fixed_put(struct tp_fixed_cache *c, const void *key, const void *p,
		  size_t n, uint64_t name_id)
{
	c->ents = tp_xgrow(c->ents, &c->cap, c->n + 1, sizeof(*c->ents));
	/* 16 bytes of slack: the writer copies entries in 16-byte blocks */
	c->bytes = tp_xgrow(c->bytes, &c->cap_bytes, c->len + n + 16, 1);
	if (n)
		memcpy(c->bytes + c->len, p, n);
	c->ents[c->n].off = c->len;
	c->ents[c->n].len = n;
	c->ents[c->n].name_id = name_id;
	c->len += n;
	c->n++;
	tp_intern_put(&c->index, 0, key, 0, c->n);
}
