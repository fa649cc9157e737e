/*
 * wire.c - protobuf wire-format field reader (see wire.h).
 *
 * Groups (wire types 3 and 4) are rejected: no producer of XSpace or HLO
 * protos writes them, so meeting one means the bytes are not a capture.
 */
#include "tpuprof/decode/wire.h"

#include <string.h>

void tp_wire_init(struct tp_wire *w, const uint8_t *base, const uint8_t *p,
		  size_t len)
{
	w->p = p;
	w->end = p + len;
	w->base = base;
	w->error = NULL;
	w->error_offset = 0;
}

void tp_wire_sub(struct tp_wire *w, const struct tp_wire *parent,
		 const struct tp_field *f)
{
	tp_wire_init(w, parent->base, f->data, f->len);
}

bool tp_wire_varint_slow(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;

	if (end - p >= 10) {
		/* Room for the longest varint: no bounds check per byte. */
		for (unsigned i = 0; i < 10; i++) {
			uint8_t b = p[i];

			v |= (uint64_t)(b & 0x7f) << (7 * i);
			if (b < 0x80) {
				if (i == 9 && b > 1)
					return false;
				*pp = p + i + 1;
				*out = v;
				return true;
			}
		}
		return false;
	}

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (p >= end)
			return false;
		b = *p++;
		if (shift == 63 && b > 1)
			return false; /* would overflow 64 bits */
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*out = v;
			return true;
		}
	}
	return false;
}

static int fail(struct tp_wire *w, const uint8_t *at, const char *what)
{
	w->error = what;
	w->error_offset = (size_t)(at - w->base);
	w->p = w->end;
	return -1;
}

static int read_payload(struct tp_wire *w, struct tp_field *f,
			const uint8_t *tag_at)
{
	const uint8_t *p = w->p;
	size_t avail;
	uint64_t len;

	switch (f->type) {
	case TP_WIRE_VARINT:
		if (!tp_wire_varint(&p, w->end, &f->value))
			return fail(w, p, "truncated or overlong varint");
		break;
	case TP_WIRE_FIXED64:
	case TP_WIRE_FIXED32: {
		size_t n = f->type == TP_WIRE_FIXED64 ? 8 : 4;
		uint8_t tmp[8] = { 0 };

		if ((size_t)(w->end - p) < n)
			return fail(w, tag_at, "truncated fixed-width field");
		memcpy(tmp, p, n);
		f->value = 0;
		for (size_t i = 0; i < n; i++)
			f->value |= (uint64_t)tmp[i] << (8 * i);
		p += n;
		break;
	}
	case TP_WIRE_LEN: {
		const uint8_t *len_at = p;

		if (!tp_wire_varint(&p, w->end, &len))
			return fail(w, len_at, "truncated or overlong length");
		avail = (size_t)(w->end - p);
		if (len > avail)
			return fail(w, len_at,
				    "length runs past the end of its message");
		f->data = p;
		f->len = (size_t)len;
		p += len;
		break;
	}
	default:
		return fail(w, tag_at, "invalid wire type");
	}
	w->p = p;
	return 1;
}

int tp_wire_next_slow(struct tp_wire *w, struct tp_field *f)
{
	const uint8_t *tag_at = w->p;
	uint64_t key;

	if (w->error)
		return -1;
	if (w->p >= w->end)
		return 0;
	if (!tp_wire_varint(&w->p, w->end, &key))
		return fail(w, tag_at, "truncated or overlong field tag");
	if (key >> 3 == 0 || key >> 3 > 536870911u)
		return fail(w, tag_at, "invalid field number");
	f->number = (uint32_t)(key >> 3);
	f->type = (enum tp_wire_type)(key & 7);
	f->value = 0;
	f->data = NULL;
	f->len = 0;
	f->offset = (size_t)(tag_at - w->base);
	return read_payload(w, f, tag_at);
}

void tp_packed_init(struct tp_packed_iter *it, const struct tp_field *f)
{
	if (f->type == TP_WIRE_LEN) {
		it->p = f->data;
		it->end = f->data + f->len;
		it->single = false;
	} else {
		it->p = it->end = NULL;
		it->single = true;
		it->value = f->value;
	}
}

int tp_packed_next(struct tp_packed_iter *it, uint64_t *out)
{
	if (it->single) {
		it->single = false;
		*out = it->value;
		return 1;
	}
	if (it->p >= it->end)
		return 0;
	return tp_wire_varint(&it->p, it->end, out) ? 1 : -1;
}
