/*
 * trace_out.c - buffered (optionally gzip'd) output, the protobuf encoder
 * and the intern table the trace writers share (trace_out.h).
 */
#include "trace_out.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util.h"

#define SINK_BUF ((size_t)1 << 20)

void tp_sink_init(struct tp_sink *s, FILE *fp, bool gz)
{
	memset(s, 0, sizeof(*s));
	s->fp = fp;
	s->gz = gz;
	s->buf = tp_xmalloc(SINK_BUF);
	if (gz) {
		s->zbuf = tp_xmalloc(SINK_BUF);
		/* level 1, as XProf writes its traces: the deflate would
		 * otherwise cost more than the whole walk (31 = gzip header) */
		if (deflateInit2(&s->z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			s->failed = true;
	}
}

static void deflate_out(struct tp_sink *s, const uint8_t *p, size_t n, int flush)
{
	s->z.next_in = (Bytef *)p;
	s->z.avail_in = (uInt)n;
	do {
		s->z.next_out = s->zbuf;
		s->z.avail_out = (uInt)SINK_BUF;
		if (deflate(&s->z, flush) == Z_STREAM_ERROR) {
			s->failed = true;
			return;
		}
		size_t have = SINK_BUF - s->z.avail_out;
		if (have && fwrite(s->zbuf, 1, have, s->fp) != have) {
			s->failed = true;
			return;
		}
	} while (s->z.avail_out == 0 || (flush == Z_FINISH && s->z.avail_in));
}

static void flush_buf(struct tp_sink *s, int flush)
{
	if (!s->failed) {
		if (s->gz)
			deflate_out(s, s->buf, s->len, flush);
		else if (s->len && fwrite(s->buf, 1, s->len, s->fp) != s->len)
			s->failed = true;
	}
	s->len = 0;
}

void tp_sink_write(struct tp_sink *s, const void *p, size_t n)
{
	const uint8_t *b = p;

	s->total += n;
	if (s->len + n < SINK_BUF) { /* the usual case: a few bytes */
		if (n)
			memcpy(s->buf + s->len, p, n);
		s->len += n;
		return;
	}
	while (n) {
		size_t room = SINK_BUF - s->len, take = n < room ? n : room;

		memcpy(s->buf + s->len, b, take);
		s->len += take;
		b += take;
		n -= take;
		if (s->len == SINK_BUF)
			flush_buf(s, Z_NO_FLUSH);
	}
}

void tp_sink_puts(struct tp_sink *s, const char *str)
{
	tp_sink_write(s, str, strlen(str));
}

enum tp_err tp_sink_finish(struct tp_sink *s, struct tp_error *err)
{
	flush_buf(s, Z_FINISH);
	if (!s->failed && fflush(s->fp) != 0)
		s->failed = true;
	if (s->failed || ferror(s->fp))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write the trace");
	return TP_OK;
}

void tp_sink_release(struct tp_sink *s)
{
	if (s->gz)
		deflateEnd(&s->z);
	free(s->buf);
	free(s->zbuf);
	s->buf = s->zbuf = NULL;
}

/* ---- protobuf encoding ------------------------------------------------ */

size_t tp_pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

size_t tp_pb_put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

static void reserve(struct tp_pb *b, size_t n)
{
	if (b->len + n > b->cap)
		b->p = tp_xgrow(b->p, &b->cap, b->len + n, 1);
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

void tp_pb_varint(struct tp_pb *b, uint64_t v)
{
	reserve(b, 10);
	b->len += tp_pb_put_varint(b->p + b->len, v);
}

static void tag(struct tp_pb *b, uint32_t field, int wire)
{
	tp_pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

void tp_pb_uint(struct tp_pb *b, uint32_t field, uint64_t v)
{
	tag(b, field, TP_PB_VARINT);
	tp_pb_varint(b, v);
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
	t->slots = tp_xcalloc(t->cap, sizeof(*t->slots));
}

void tp_intern_release(struct tp_intern *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->n = 0;
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
		t->slots = tp_xcalloc(t->cap, sizeof(*t->slots));
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

const struct tp_fixed *tp_fixed_get(const struct tp_fixed_cache *c, const void *key)
{
	uint64_t id = tp_intern_get(&c->index, 0, key, 0);

	return id ? &c->ents[id - 1] : NULL;
}

void tp_fixed_put(struct tp_fixed_cache *c, const void *key, const void *p,
		  size_t n, uint64_t name_id)
{
	c->ents = tp_xgrow(c->ents, &c->cap, c->n + 1, sizeof(*c->ents));
	c->bytes = tp_xgrow(c->bytes, &c->cap_bytes, c->len + n + 1, 1);
	if (n)
		memcpy(c->bytes + c->len, p, n);
	c->ents[c->n].off = c->len;
	c->ents[c->n].len = n;
	c->ents[c->n].name_id = name_id;
	c->len += n;
	c->n++;
	tp_intern_put(&c->index, 0, key, 0, c->n);
}
