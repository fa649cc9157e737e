/*
 * wire.h - a bounds-checked protobuf wire-format reader.
 *
 * Reads fields one at a time from a borrowed byte range without unpacking
 * messages: the XSpace decoder walks gigabyte captures with it. Every
 * length is checked against the enclosing range before use. Offsets in
 * errors are relative to `base` (the start of the file), so a message can
 * say where a corrupt byte is.
 */
#ifndef TPUPROF_WIRE_H
#define TPUPROF_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tp_wire_type {
	TP_WIRE_VARINT = 0,
	TP_WIRE_FIXED64 = 1,
	TP_WIRE_LEN = 2,
	TP_WIRE_FIXED32 = 5,
};

struct tp_wire {
	const uint8_t *p;    /* next byte to read                      */
	const uint8_t *end;  /* one past the last byte of this message */
	const uint8_t *base; /* start of the file, for error offsets   */
	const char *error;   /* static text of the first error, or NULL */
	size_t error_offset; /* file offset of that error               */
};

struct tp_field {
	uint32_t number;        /* field number, >= 1                    */
	enum tp_wire_type type; /* wire type                             */
	uint64_t value;         /* VARINT, FIXED64, FIXED32 payload      */
	const uint8_t *data;    /* LEN payload, borrowed from the reader */
	size_t len;             /* LEN payload size                      */
	size_t offset;          /* file offset of the field's tag        */
};

/* Starts reading [p, p+len); base is the start of the file. */
void tp_wire_init(struct tp_wire *w, const uint8_t *base, const uint8_t *p,
		  size_t len);
/* Starts reading a sub-message that f (a LEN field) holds. */
void tp_wire_sub(struct tp_wire *w, const struct tp_wire *parent,
		 const struct tp_field *f);

/* Out-of-line halves of the two readers below: the general cases. */
int tp_wire_next_slow(struct tp_wire *w, struct tp_field *f);
bool tp_wire_varint_slow(const uint8_t **p, const uint8_t *end, uint64_t *out);

/* Decodes one varint from [*p, end): at most 10 bytes, the tenth may only
 * hold the top bit. Returns false when truncated or too long. Inline: this
 * and tp_wire_next are the innermost loop of every analysis. */
static inline bool tp_wire_varint(const uint8_t **pp, const uint8_t *end,
				  uint64_t *out)
{
	const uint8_t *p = *pp;

	if (p < end && *p < 0x80) {
		*out = *p;
		*pp = p + 1;
		return true;
	}
	if (end - p >= 10) {
		/* room for the longest varint: no bounds check per byte */
		uint64_t v = 0;

		for (unsigned i = 0; i < 9; i++) {
			v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
			if (p[i] < 0x80) {
				*pp = p + i + 1;
				*out = v;
				return true;
			}
		}
		if (p[9] > 1)
			return false; /* would overflow 64 bits */
		*out = v | (uint64_t)p[9] << 63;
		*pp = p + 10;
		return true;
	}
	return tp_wire_varint_slow(pp, end, out);
}

/* Reads the next field into f. Returns 1 when a field was read, 0 at the
 * end of the range, -1 on malformed input (w->error, w->error_offset set;
 * further calls keep returning -1). Unknown fields need no skipping: the
 * reader is already past them. The fast path handles one-byte tags with
 * varint or length-delimited payloads; everything else goes the slow way. */
static inline int tp_wire_next(struct tp_wire *w, struct tp_field *f)
{
	const uint8_t *p = w->p;
	uint8_t key;

	if (w->error)
		return -1;
	if (p >= w->end)
		return 0;
	key = *p;
	if (key < 0x80 && key >= 8 && ((key & 7) == TP_WIRE_VARINT || (key & 7) == TP_WIRE_LEN)) {
		const uint8_t *q = p + 1;
		uint64_t v;

		if (!tp_wire_varint(&q, w->end, &v))
			return tp_wire_next_slow(w, f);
		f->number = key >> 3;
		f->type = (enum tp_wire_type)(key & 7);
		f->offset = (size_t)(p - w->base);
		if (f->type == TP_WIRE_VARINT) {
			f->value = v;
			f->data = NULL;
			f->len = 0;
		} else {
			if (v > (uint64_t)(w->end - q))
				return tp_wire_next_slow(w, f);
			f->value = 0;
			f->data = q;
			f->len = (size_t)v;
			q += v;
		}
		w->p = q;
		return 1;
	}
	return tp_wire_next_slow(w, f);
}

/* Iterates the integers of a repeated int64 field that may be packed (one
 * LEN field) or unpacked (one VARINT field per element). For each element,
 * *out receives the value and 1 is returned; 0 when done; -1 if corrupt. */
struct tp_packed_iter {
	const uint8_t *p, *end;
	bool single;  /* unpacked element: yields value once */
	uint64_t value;
};
void tp_packed_init(struct tp_packed_iter *it, const struct tp_field *f);
int tp_packed_next(struct tp_packed_iter *it, uint64_t *out);

/* Value helpers: reinterpret a varint's 64 bits. */
static inline int64_t tp_wire_int64(uint64_t v) { return (int64_t)v; }
static inline double tp_wire_double(uint64_t v)
{
	union { uint64_t u; double d; } x;
	x.u = v;
	return x.d;
}

#endif
