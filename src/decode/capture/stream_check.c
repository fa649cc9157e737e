/*
 * stream_check.c - is a stream still the start of a capture? Pipes,
 * FIFOs, character devices and sockets are read into memory, and
 * /dev/zero or /dev/urandom would fill it to --max-input before the
 * decoder saw byte 0. This check walks the bytes as they arrive and stops
 * the read at the first one that cannot start or continue a capture.
 *
 * It refuses only what the decoder would refuse whatever follows: the top
 * level of an XSpace or HloProto is a sequence of well-formed fields,
 * length-delimited ones unless a file name decides the kind (then scalars
 * are the decoder's to judge), and no length takes the input past
 * --max-input. For a stream without such a name the payload of its first
 * field 1 (a plane or a module) is walked one level down too, as the
 * sniff must parse it (sniff.c): its fields are well formed and end
 * inside it (unless a field 2 or 4, only XSpace has them, came first: the
 * sniff then does not parse it either). Nothing deeper is looked at here:
 * that is the decoder's, which may skip a damaged part (damage.c) rather
 * than refuse it. One difference remains, by necessity: a stream whose
 * first plane is damaged is refused at once, while a file of the same
 * bytes whose later top-level fields (2 or 4) show an XSpace is read
 * without that plane; a stream cannot wait for its end to know.
 */
#include "stream_check.h"

#include "tpuprof/decode/riegeli.h"

#include <string.h>

/* 1: a varint read into *v, *n bytes; 0: the bytes end inside it;
 * -1: longer than 10 bytes or over 64 bits (the wire reader's rule). */
static int read_varint(const uint8_t *p, size_t avail, uint64_t *v, size_t *n)
{
	uint64_t x = 0;

	for (size_t i = 0; i < 10; i++) {
		if (i == avail)
			return 0;
		if (i == 9 && p[i] > 1)
			return -1;
		x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = x;
			*n = i + 1;
			return 1;
		}
	}
	return -1;
}

void tp_stream_check_init(struct tp_stream_check *c, uint64_t max, bool named)
{
	memset(c, 0, sizeof(*c));
	c->max = max;
	c->named = named;
	c->walk_first = !named;
}

static enum tp_stream_verdict bad(struct tp_stream_check *c, uint64_t at,
				  const char *what)
{
	c->error = what;
	c->error_at = at;
	return c->in_first ? TP_STREAM_BAD_INNER : TP_STREAM_BAD;
}

/* A length-delimited field at c->at whose payload starts at start. */
static enum tp_stream_verdict len_field(struct tp_stream_check *c, uint64_t key,
					uint64_t start, uint64_t len_at, uint64_t len)
{
	if (c->in_first) {
		if (len > c->first_end - start)
			return bad(c, len_at, "length runs past the end of its message");
		c->at = start + len;
		return TP_STREAM_MORE;
	}
	if (start > c->max || len > c->max - start) {
		c->error_at = c->at;
		return TP_STREAM_TOO_BIG;
	}
	if (key >> 3 == 2 || key >> 3 == 4)
		c->walk_first = false;   /* an XSpace already: sniff stops here */
	if (key >> 3 == 1 && c->walk_first) {
		c->walk_first = false;
		c->in_first = true;
		c->first_at = c->at;
		c->first_end = start + len;
		c->at = start;
		return TP_STREAM_MORE;
	}
	c->at = start + len;
	return TP_STREAM_MORE;
}

/* One field at c->at; complete: every byte of the enclosing message is
 * here, so a field that runs off them is truncated, not waiting. */
static enum tp_stream_verdict field(struct tp_stream_check *c, const uint8_t *data,
				    size_t len)
{
	uint64_t at = c->at, end = c->in_first && c->first_end < len ? c->first_end : len;
	bool complete = c->in_first && c->first_end <= len;
	size_t avail = (size_t)(end - at), n, m;
	uint64_t key, v;
	unsigned type;
	int r;

	if ((r = read_varint(data + at, avail, &key, &n)) <= 0)
		return r < 0 || complete ? bad(c, at, "truncated or overlong field tag") :
		       TP_STREAM_MORE;
	if (key >> 3 == 0 || key >> 3 > 536870911u)
		return bad(c, at, "invalid field number");
	type = key & 7;
	if (type == 3 || type == 4 || type > 5)
		return bad(c, at, "invalid wire type");
	if (type != 2 && !c->in_first && !c->named)
		return bad(c, at, "a scalar at the top level");
	if (type == 1 || type == 5) {
		uint64_t size = type == 1 ? 8 : 4;

		if (c->in_first && size > c->first_end - at - n)
			return bad(c, at, "truncated fixed-width field");
		c->at = at + n + size;
		return TP_STREAM_MORE;
	}
	if ((r = read_varint(data + at + n, avail - n, &v, &m)) <= 0) {
		if (r == 0 && !complete)
			return TP_STREAM_MORE;
		return bad(c, at + n, type == 0 ? "truncated or overlong varint" :
			   "truncated or overlong length");
	}
	if (type == 0) {
		c->at = at + n + m;
		return TP_STREAM_MORE;
	}
	return len_field(c, key, at + n + m, at + n, v);
}

enum tp_stream_verdict tp_stream_check_feed(struct tp_stream_check *c,
					    const uint8_t *data, size_t len)
{
	if (!c->riegeli && !c->not_riegeli) {
		if (len && tp_riegeli_maybe(data, len))
			c->riegeli = len >= TP_RIEGELI_SIGNATURE_BYTES;
		else if (len)
			c->not_riegeli = true;
		if (!c->not_riegeli)
			return TP_STREAM_MORE;
	}
	if (c->riegeli)
		return TP_STREAM_MORE;
	for (;;) {
		enum tp_stream_verdict v;
		uint64_t before = c->at;

		if (c->in_first && c->at >= c->first_end) {
			c->in_first = false;   /* the first plane or module parses */
			continue;
		}
		if (c->at >= len)
			return TP_STREAM_MORE;
		v = field(c, data, len);
		if (v != TP_STREAM_MORE || c->at == before)
			return v;   /* an error, or a field not all here yet */
	}
}

enum tp_err tp_stream_check_error(const struct tp_stream_check *c,
				  enum tp_stream_verdict v, const char *shown,
				  struct tp_error *err)
{
	if (v == TP_STREAM_TOO_BIG)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: input larger than the limit of %llu bytes (see --max-input)",
				    shown, (unsigned long long)c->max);
	return tp_error_set(err, TP_ERR_INPUT,
			    "%s: not a profile capture (not protobuf: %s at byte %llu, in the field at byte %llu)",
			    shown, c->error, (unsigned long long)c->error_at,
			    (unsigned long long)c->first_at);
}
