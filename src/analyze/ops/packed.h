/*
 * packed.h - what the ops analysis keeps packed while it waits (the
 * GPU kernels of gpu_runs.c, the op pieces of a core whose steps come
 * after its op pass, core_lines.c): varints, a few bytes a value.
 */
#ifndef TPUPROF_OPS_PACKED_H
#define TPUPROF_OPS_PACKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Pieces of op time packed in the order the sweep emits them
 * (core_lines.c). */
struct tp_late_pieces {
	uint8_t *buf;
	size_t len, cap;
	int64_t last_end;
};
struct tp_late_cursor {
	size_t at;
	int64_t last_end;
};

/* Varints for what is kept packed (gpu_runs.c, core_lines.c): at most
 * 10 bytes each; signed values zigzagged. */
static inline uint8_t *tp_put_varint(uint8_t *q, uint64_t v)
{
	while (v >= 0x80) {
		*q++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*q++ = (uint8_t)v;
	return q;
}

static inline const uint8_t *tp_get_varint(const uint8_t *q, uint64_t *v)
{
	uint64_t x = 0;
	unsigned s = 0;

	do
		x |= (uint64_t)(*q & 0x7f) << s, s += 7;
	while (*q++ & 0x80);
	*v = x;
	return q;
}

static inline uint64_t tp_zigzag(uint64_t d)
{
	return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
}

static inline uint64_t tp_unzigzag(uint64_t z)
{
	return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

/* A piece [start, end) of kind, packed (core_lines.c): inline, once a
 * piece; then each in turn from a zeroed cursor; then the pieces
 * freed. */
#define TP_LATE_PIECE_MAX (3 * 10)
void tp_late_pieces_grow(struct tp_late_pieces *p);
static inline void tp_late_piece(struct tp_late_pieces *p, int64_t start, int64_t end,
				 uint32_t kind)
{
	uint8_t *q;

	if (p->len + TP_LATE_PIECE_MAX > p->cap)
		tp_late_pieces_grow(p);
	q = p->buf + p->len;
	q = tp_put_varint(q, tp_zigzag((uint64_t)start - (uint64_t)p->last_end));
	q = tp_put_varint(q, (uint64_t)end - (uint64_t)start);
	q = tp_put_varint(q, kind);
	p->len = (size_t)(q - p->buf);
	p->last_end = end;
}

static inline bool tp_late_piece_next(const struct tp_late_pieces *p,
				      struct tp_late_cursor *cur, int64_t *start,
				      int64_t *end, uint32_t *kind)
{
	const uint8_t *q = p->buf + cur->at;
	uint64_t gap, len, k;

	if (cur->at >= p->len)
		return false;
	q = tp_get_varint(q, &gap);
	q = tp_get_varint(q, &len);
	q = tp_get_varint(q, &k);
	cur->at = (size_t)(q - p->buf);
	*start = (int64_t)((uint64_t)cur->last_end + tp_unzigzag(gap));
	*end = (int64_t)((uint64_t)*start + len);
	*kind = (uint32_t)k;
	cur->last_end = *end;
	return true;
}
void tp_late_pieces_drop(struct tp_late_pieces *p);

#endif
