/*
 * arena.c - chunked bump allocator (see arena.h).
 *
 * Chunks grow geometrically up to 4 MiB so that small captures stay small
 * and large ones do not call malloc per object; a request bigger than a
 * chunk gets a chunk of its own.
 */
#include "tpuprof/util/arena.h"
#include "tpuprof/util/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 16
#define ARENA_MIN_CHUNK (16 * 1024)
#define ARENA_MAX_CHUNK (4 * 1024 * 1024)

struct tp_arena_chunk {
	struct tp_arena_chunk *next; /* older chunk                    */
	size_t used;                 /* bytes handed out from data     */
	size_t size;                 /* capacity of data               */
	_Alignas(ARENA_ALIGN) unsigned char data[];
};

static void *pb_alloc(void *data, size_t size)
{
	return tp_arena_alloc(data, size);
}

static void pb_free(void *data, void *ptr)
{
	(void)data;
	(void)ptr; /* released with the arena */
}

void tp_arena_init(struct tp_arena *a)
{
	a->head = NULL;
	a->total = 0;
	a->pb.alloc = pb_alloc;
	a->pb.free = pb_free;
	a->pb.allocator_data = a;
}

void tp_arena_release(struct tp_arena *a)
{
	struct tp_arena_chunk *c = a->head;

	while (c) {
		struct tp_arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
	a->total = 0;
}

static struct tp_arena_chunk *new_chunk(struct tp_arena *a, size_t need)
{
	size_t size = a->head ? a->head->size * 2 : ARENA_MIN_CHUNK;
	struct tp_arena_chunk *c;

	if (size > ARENA_MAX_CHUNK)
		size = ARENA_MAX_CHUNK;
	if (size < need)
		size = need;
	if (size > SIZE_MAX - sizeof(*c))
		size = SIZE_MAX - sizeof(*c); /* tp_xmalloc then dies */
	c = tp_xmalloc(sizeof(*c) + size);
	c->used = 0;
	c->size = size;
	a->total += size;
	return c;
}

void *tp_arena_alloc(struct tp_arena *a, size_t size)
{
	struct tp_arena_chunk *c = a->head;
	size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	void *p;

	if (need < size)
		need = SIZE_MAX; /* overflow: let new_chunk die */
	if (!c || c->size - c->used < need) {
		struct tp_arena_chunk *n = new_chunk(a, need);

		if (c && need > ARENA_MAX_CHUNK / 4) {
			/* Big request: keep filling the current chunk. */
			n->next = c->next;
			c->next = n;
			n->used = need;
			return n->data;
		}
		n->next = c;
		a->head = c = n;
	}
	p = c->data + c->used;
	c->used += need;
	return p;
}

void *tp_arena_calloc(struct tp_arena *a, size_t count, size_t size)
{
	size_t n;
	void *p;

	if (__builtin_mul_overflow(count, size, &n))
		tp_out_of_memory(SIZE_MAX);
	p = tp_arena_alloc(a, n);
	memset(p, 0, n);
	return p;
}

char *tp_arena_strndup(struct tp_arena *a, const char *s, size_t n)
{
	char *p = tp_arena_alloc(a, n + 1);

	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *tp_arena_strdup(struct tp_arena *a, const char *s)
{
	return tp_arena_strndup(a, s, strlen(s));
}

ProtobufCAllocator *tp_arena_protobuf_allocator(struct tp_arena *a)
{
	return &a->pb;
}

void tp_arena_adopt(struct tp_arena *dst, struct tp_arena *src)
{
	struct tp_arena_chunk *tail = src->head;

	if (!tail)
		return;
	while (tail->next)
		tail = tail->next;
	/* after dst's current chunk, which keeps taking allocations */
	if (dst->head) {
		tail->next = dst->head->next;
		dst->head->next = src->head;
	} else {
		dst->head = src->head;
	}
	dst->total += src->total;
	src->head = NULL;
	src->total = 0;
}
