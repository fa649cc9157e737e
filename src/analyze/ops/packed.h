/*
 * packed.h - what the ops analysis keeps packed while it waits (the
 * GPU kernels of gpu_runs.c, the op pieces of a core whose steps come
 * after its op pass, core_lines.c): a few bytes a value, as varints
 * (the kernels) or in fixed widths a tag byte gives (the pieces).
 */
#ifndef TPUPROF_OPS_PACKED_H
#define TPUPROF_OPS_PACKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* Varints (the kernels, gpu_runs.c): at most 10 bytes each; signed
 * values zigzagged (the pieces' gaps too). */
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
/* A piece: a tag byte, then the gap from the previous piece's end
 * (zigzag), the length and the kind, each in 1, 2, 4 or 8 bytes as the
 * tag's 2-bit codes say: read back with no loop per byte. Each field is
 * stored as 8 bytes and loaded as 8, masked: the buffer keeps
 * TP_LATE_PIECE_MAX bytes of room past its length. */
#define TP_LATE_PIECE_MAX 40
void tp_late_pieces_grow(struct tp_late_pieces *p);

static inline unsigned tp_width_code(uint64_t v)
{
	return v < 0x100 ? 0 : v < 0x10000 ? 1 : v < 0x100000000ULL ? 2 : 3;
}

/* v's low bytes, least significant first, whatever the host's order */
static inline uint8_t *tp_put_le(uint8_t *q, uint64_t v, unsigned code)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(q, &v, 8);
#else
	for (unsigned i = 0; i < 8; i++)
		q[i] = (uint8_t)(v >> (8 * i));
#endif
	return q + (1u << code);
}

static inline const uint8_t *tp_get_le(const uint8_t *q, unsigned code, uint64_t *v)
{
	uint64_t x = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&x, q, 8);
#else
	for (unsigned i = 0; i < 8; i++)
		x |= (uint64_t)q[i] << (8 * i);
#endif
	*v = code == 3 ? x : x & ((1ULL << (8u << code)) - 1);
	return q + (1u << code);
}

static inline void tp_late_piece(struct tp_late_pieces *p, int64_t start, int64_t end,
				 uint32_t kind)
{
	uint64_t gap = tp_zigzag((uint64_t)start - (uint64_t)p->last_end);
	uint64_t len = (uint64_t)end - (uint64_t)start;
	unsigned cg = tp_width_code(gap), cl = tp_width_code(len), ck = tp_width_code(kind);
	uint8_t *q;

	if (p->len + TP_LATE_PIECE_MAX > p->cap)
		tp_late_pieces_grow(p);
	q = p->buf + p->len;
	*q++ = (uint8_t)(cg | cl << 2 | ck << 4);
	q = tp_put_le(q, gap, cg);
	q = tp_put_le(q, len, cl);
	q = tp_put_le(q, kind, ck);
	p->len = (size_t)(q - p->buf);
	p->last_end = end;
}

static inline bool tp_late_piece_next(const struct tp_late_pieces *p,
				      struct tp_late_cursor *cur, int64_t *start,
				      int64_t *end, uint32_t *kind)
{
	const uint8_t *q;
	uint64_t gap, len, k;
	unsigned tag;

	if (cur->at >= p->len)  /* first: buf is NULL while nothing is packed */
		return false;
	q = p->buf + cur->at;
	tag = *q++;
	q = tp_get_le(q, tag & 3, &gap);
	q = tp_get_le(q, (tag >> 2) & 3, &len);
	q = tp_get_le(q, (tag >> 4) & 3, &k);
	cur->at = (size_t)(q - p->buf);
	*start = (int64_t)((uint64_t)cur->last_end + tp_unzigzag(gap));
	*end = (int64_t)((uint64_t)*start + len);
	*kind = (uint32_t)k;
	cur->last_end = *end;
	return true;
}
void tp_late_pieces_drop(struct tp_late_pieces *p);

#endif
