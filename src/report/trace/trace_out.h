/*
 * trace_out.h - what the two trace writers share: a buffered output that
 * gzips when asked, a protobuf encoder for the Perfetto writer, and a
 * pointer-keyed intern table.
 *
 * Ownership: each struct owns its malloc'd memory, freed by its release;
 * the sink borrows its FILE.
 */
#ifndef TPUPROF_TRACE_OUT_H
#define TPUPROF_TRACE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tpuprof/util/error.h"

/* Buffered bytes to a FILE, deflated as gzip when gz is set; a second
 * thread writes full buffers while the next fills, or, once as many
 * lanes as CPUs feed it, the lane that hands a buffer over (sink.c). A
 * failed write is remembered and later writes are dropped.
 *
 * A root sink (tp_sink_init) is used by one thread. Lanes
 * (tp_sink_lane_init) let other threads feed the same output at once:
 * each fills its own buffers and hands them to the root's queue whole,
 * so a lane's buffers must end where a packet ends: a lane hands over
 * only in tp_sink_room and tp_sink_packet_end, which its user calls
 * between packets, and tp_sink_write grows its buffer instead. Lanes are
 * closed (tp_sink_lane_close) before the root is finished. */
#define SINK_BUFS 4
struct tp_sink_queue;            /* the root's: buffers to write, free ones */
struct tp_sink {
	struct tp_sink_queue *q;     /* the root's (a lane borrows it)     */
	bool lane;
	uint8_t *buf;                /* the buffer being filled            */
	size_t len, cap;
	uint64_t total;              /* bytes given, before gzip           */
};

void tp_sink_init(struct tp_sink *s, FILE *fp, bool gz);
/* Up to `lanes` lanes may feed s at once: room for their buffers, and
 * at least as many lanes as CPUs write the buffers themselves. Call
 * before each lane starts. */
void tp_sink_expect_lanes(struct tp_sink *s, unsigned lanes);
void tp_sink_lane_init(struct tp_sink *lane, struct tp_sink *root);
/* Hands the lane's last buffer over and frees it; total stays. */
void tp_sink_lane_close(struct tp_sink *lane);
void tp_sink_write(struct tp_sink *s, const void *p, size_t n);
void tp_sink_puts(struct tp_sink *s, const char *str);
/* n contiguous bytes (n <= TP_SINK_ROOM_MAX) to fill in the buffer, then
 * tp_sink_commit(s, n): a packet encoded in place, with no copy. A lane
 * commits only whole packets. */
#define TP_SINK_ROOM_MAX ((size_t)1 << 16)
/* The buffer is full: handed over, the next one taken (sink.c). */
void tp_sink_next(struct tp_sink *s);
/* Inline: called once or twice a packet. */
static inline uint8_t *tp_sink_room(struct tp_sink *s, size_t n)
{
	if (s->len + n > s->cap)
		tp_sink_next(s);
	return s->buf + s->len;
}
static inline void tp_sink_commit(struct tp_sink *s, size_t n)
{
	s->len += n;
	s->total += n;
	if (s->len == s->cap)
		tp_sink_next(s);
}
/* What a root sink holds goes to the output queue now, ahead of the
 * buffers lanes hand over later (the file's first packets). */
void tp_sink_queue_now(struct tp_sink *s);
/* A packet written with tp_sink_write ends here (a lane may hand over). */
void tp_sink_packet_end(struct tp_sink *s);
/* Flushes everything (and ends the gzip stream); TP_ERR_OUTPUT when any
 * write failed. Root sinks only. */
enum tp_err tp_sink_finish(struct tp_sink *s, struct tp_error *err);
void tp_sink_release(struct tp_sink *s);

/* A protobuf message under construction. Nested messages are opened
 * and closed; closing inserts the length in front of the body (messages
 * here are small: one packet). */
#define TP_PB_DEPTH 8
struct tp_pb {
	uint8_t *p;
	size_t len, cap;
	size_t open[TP_PB_DEPTH];
	int depth;
};

enum { TP_PB_VARINT = 0, TP_PB_FIXED64 = 1, TP_PB_LEN = 2 };

void tp_pb_reset(struct tp_pb *b);
void tp_pb_release(struct tp_pb *b);
/* Room for n more bytes (the slow path of the inline encoders). */
void tp_pb_reserve(struct tp_pb *b, size_t n);

/* Encodes v at out (10 bytes room); returns the bytes used. Inline: a
 * trace is mostly varints. */
static inline size_t tp_pb_put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

static inline void tp_pb_varint(struct tp_pb *b, uint64_t v)
{
	if (b->len + 10 > b->cap)
		tp_pb_reserve(b, 10);
	b->len += tp_pb_put_varint(b->p + b->len, v);
}

static inline void tp_pb_uint(struct tp_pb *b, uint32_t field, uint64_t v)
{
	tp_pb_varint(b, (uint64_t)field << 3);
	tp_pb_varint(b, v);
}
/* int32/int64 fields: negative values are 10-byte sign-extended varints */
void tp_pb_int(struct tp_pb *b, uint32_t field, int64_t v);
void tp_pb_double(struct tp_pb *b, uint32_t field, double v);
void tp_pb_bytes(struct tp_pb *b, uint32_t field, const void *p, size_t n);
/* Bytes already encoded (fields), appended as they are. */
void tp_pb_raw(struct tp_pb *b, const void *p, size_t n);
void tp_pb_open(struct tp_pb *b, uint32_t field);
void tp_pb_close(struct tp_pb *b);
/* Bytes a varint of v takes. */
static inline size_t tp_pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Pointer+length (and a kind) to a number, for interning strings whose
 * pointer is stable. Open addressing; ids are given by the caller. */
struct tp_intern {
	struct tp_intern_slot {
		const char *ptr;
		size_t len;
		uint32_t kind;
		uint64_t id;
	} *slots;
	size_t cap, n;
};

void tp_intern_init(struct tp_intern *t);
void tp_intern_release(struct tp_intern *t);
/* Empties t (its room stays). */
void tp_intern_clear(struct tp_intern *t);
/* The id stored for (kind, ptr, len), or 0 when none. */
uint64_t tp_intern_get(const struct tp_intern *t, uint32_t kind,
		       const char *ptr, size_t len);
void tp_intern_put(struct tp_intern *t, uint32_t kind, const char *ptr,
		   size_t len, uint64_t id);

/* The encoded fixed arguments of each slice key (trace.h), and the
 * name id the writer gave the key's name, written once per key. */
struct tp_fixed {
	size_t off, len;          /* in bytes                              */
	uint64_t name_id;
};
struct tp_fixed_cache {
	struct tp_intern index;   /* key -> entry + 1                      */
	struct tp_fixed *ents;
	size_t n, cap;
	uint8_t *bytes;
	size_t len, cap_bytes;
};

void tp_fixed_init(struct tp_fixed_cache *c);
void tp_fixed_release(struct tp_fixed_cache *c);
/* Empties c (its room stays). */
void tp_fixed_clear(struct tp_fixed_cache *c);
/* The entry of key, or NULL. */
const struct tp_fixed *tp_fixed_get(const struct tp_fixed_cache *c, const void *key);
void tp_fixed_put(struct tp_fixed_cache *c, const void *key, const void *p,
		  size_t n, uint64_t name_id);

#endif
