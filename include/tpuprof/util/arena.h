/*
 * arena.h - a bump allocator whose memory is released all at once.
 *
 * A decoded capture (planes, metadata tables, HLO messages) lives in one
 * arena and dies with tp_arena_release(): no per-object frees, no leaks on
 * error paths. Allocation never fails (out of memory aborts, see util.h).
 * tp_arena_protobuf_allocator() plugs the arena into protobuf-c so that
 * unpacked HLO messages are freed with the rest.
 */
#ifndef TPUPROF_ARENA_H
#define TPUPROF_ARENA_H

#include <stddef.h>
#include <protobuf-c/protobuf-c.h>

struct tp_arena_chunk;

struct tp_arena {
	struct tp_arena_chunk *head; /* newest chunk, malloc'd           */
	size_t total;                /* bytes obtained from malloc       */
	ProtobufCAllocator pb;       /* protobuf-c view of this arena    */
};

void tp_arena_init(struct tp_arena *a);
/* Frees every chunk; the arena may be reused after tp_arena_init. */
void tp_arena_release(struct tp_arena *a);
/* 16-byte aligned memory owned by the arena. size 0 gives a valid pointer. */
void *tp_arena_alloc(struct tp_arena *a, size_t size);
void *tp_arena_calloc(struct tp_arena *a, size_t count, size_t size);
/* Copy of n bytes of s plus a NUL, owned by the arena. */
char *tp_arena_strndup(struct tp_arena *a, const char *s, size_t n);
char *tp_arena_strdup(struct tp_arena *a, const char *s);
/* Moves every chunk of src into dst (freed with dst); src is left empty.
 * For work done on threads, each into an arena of its own. */
void tp_arena_adopt(struct tp_arena *dst, struct tp_arena *src);
/* Allocator for protobuf_c_message_unpack(); frees are no-ops. */
ProtobufCAllocator *tp_arena_protobuf_allocator(struct tp_arena *a);

#endif
