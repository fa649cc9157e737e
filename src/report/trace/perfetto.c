/*
 * perfetto.c - the Perfetto protobuf writer: a Trace written as a stream
 * of `0x0A len TracePacket` records on one trusted packet sequence, names
 * interned (trace-facts §1.11 and §4.1). Field numbers are those of
 * trace-facts §1.14.
 */
#include "tpuprof/trace_write.h"

#include <stdlib.h>
#include <string.h>

#include "trace_out.h"
#include "tpuprof/util.h"

enum { SEQUENCE_ID = 1 };
enum { SEQ_CLEARED = 1, SEQ_NEEDS_STATE = 2 };
enum { TYPE_BEGIN = 1, TYPE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };

/* Interned kinds: the InternedData field each goes to. */
enum { IN_EVENT_NAME = 2, IN_ANNOTATION_NAME = 3, IN_STRING_VALUE = 29 };

struct pf_writer {
	struct tp_sink sink;
	struct tp_pb ev, interned;
	struct tp_intern names;
	struct tp_fixed_cache fixed; /* per event metadata: name, stats   */
	uint64_t next_iid;
	bool started;            /* the first packet is written           */
};

static uint64_t intern(struct pf_writer *w, uint32_t kind, struct tp_str s)
{
	uint64_t id = tp_intern_get(&w->names, kind, s.ptr, s.len);

	if (id)
		return id;
	id = ++w->next_iid;
	tp_intern_put(&w->names, kind, s.ptr, s.len, id);
	tp_pb_open(&w->interned, kind);
	tp_pb_uint(&w->interned, 1, id);
	tp_pb_bytes(&w->interned, 2, s.ptr, s.len);
	tp_pb_close(&w->interned);
	return id;
}

/* Writes one packet straight to the output: timestamp, sequence and
 * flags, the interned data and the data field (track_event 11 or
 * track_descriptor 60) as they were built. Every track event carries
 * SEQ_NEEDS_INCREMENTAL_STATE (trace-facts §1.11); descriptors after
 * the first need no flags. */
static void emit(struct pf_writer *w, bool has_ts, int64_t ts, uint32_t data_field,
		 bool uses_state)
{
	uint8_t head[32], tag[16], frame[12];
	size_t nh = 0, nt = 0, nf = 0;

	if (has_ts) {
		head[nh++] = 0x40;
		nh += tp_pb_put_varint(head + nh, (uint64_t)(ts < 0 ? 0 : ts));
	}
	head[nh++] = 0x50;
	head[nh++] = SEQUENCE_ID;
	if (uses_state || !w->started) {
		head[nh++] = 0x68;
		head[nh++] = w->started ? SEQ_NEEDS_STATE : SEQ_CLEARED | SEQ_NEEDS_STATE;
	}
	w->started = true;
	if (w->interned.len) {
		head[nh++] = 0x62;
		nh += tp_pb_put_varint(head + nh, w->interned.len);
	}
	if (data_field == 11) {
		tag[nt++] = 0x5A;
	} else {
		tag[nt++] = 0xE2;
		tag[nt++] = 0x03;
	}
	nt += tp_pb_put_varint(tag + nt, w->ev.len);
	frame[nf++] = 0x0A;
	nf += tp_pb_put_varint(frame + nf, nh + w->interned.len + nt + w->ev.len);
	tp_sink_write(&w->sink, frame, nf);
	tp_sink_write(&w->sink, head, nh);
	tp_sink_write(&w->sink, w->interned.p, w->interned.len);
	tp_sink_write(&w->sink, tag, nt);
	tp_sink_write(&w->sink, w->ev.p, w->ev.len);
	tp_pb_reset(&w->ev);
	tp_pb_reset(&w->interned);
}

static void pf_process(void *ctx, uint64_t uuid, uint32_t pid, const char *name,
		       int rank)
{
	struct pf_writer *w = ctx;

	tp_pb_uint(&w->ev, 1, uuid);
	tp_pb_open(&w->ev, 3);
	tp_pb_int(&w->ev, 1, pid);
	tp_pb_bytes(&w->ev, 6, name, strlen(name));
	tp_pb_close(&w->ev);
	tp_pb_int(&w->ev, 12, rank);
	emit(w, false, 0, 60, false);
}

static void pf_track(void *ctx, uint64_t uuid, uint64_t process, uint32_t pid,
		     uint32_t tid, const char *name, int rank, bool counter)
{
	struct pf_writer *w = ctx;

	tp_pb_uint(&w->ev, 1, uuid);
	tp_pb_bytes(&w->ev, 2, name, strlen(name));
	tp_pb_uint(&w->ev, 5, process);
	if (counter) {
		tp_pb_open(&w->ev, 8);
		tp_pb_uint(&w->ev, 3, 3); /* UNIT_SIZE_BYTES */
		tp_pb_close(&w->ev);
	}
	tp_pb_int(&w->ev, 12, rank);
	tp_pb_uint(&w->ev, 15, 2); /* sibling_merge_behavior NONE: lines stay apart */
	emit(w, false, 0, 60, false);
}

static void put_arg(struct pf_writer *w, const struct tp_trace_arg *a)
{
	tp_pb_open(&w->ev, 4);
	tp_pb_uint(&w->ev, 1, intern(w, IN_ANNOTATION_NAME, a->name));
	switch (a->kind) {
	case TP_ARG_INT:
		tp_pb_int(&w->ev, 4, a->v.i);
		break;
	case TP_ARG_UINT:
		tp_pb_uint(&w->ev, 3, a->v.u);
		break;
	case TP_ARG_DOUBLE:
		tp_pb_double(&w->ev, 5, a->v.d);
		break;
	case TP_ARG_STR:
		if (a->stable)
			tp_pb_uint(&w->ev, 17, intern(w, IN_STRING_VALUE, a->v.s));
		else
			tp_pb_bytes(&w->ev, 6, a->v.s.ptr, a->v.s.len);
		break;
	}
	tp_pb_close(&w->ev);
}

/* The name and the fixed args of a keyed slice: from the cache, or
 * encoded and cached (their interned strings ride in this packet). */
static size_t put_fixed(struct pf_writer *w, const struct tp_trace_slice *s)
{
	const struct tp_fixed *f = s->key ? tp_fixed_get(&w->fixed, s->key) : NULL;
	size_t start;

	if (f) {
		tp_pb_uint(&w->ev, 10, f->name_id);
		tp_pb_raw(&w->ev, w->fixed.bytes + f->off, f->len);
		return s->fixed_omitted ? 0 : s->n_fixed;
	}
	uint64_t name = intern(w, IN_EVENT_NAME, s->name);

	tp_pb_uint(&w->ev, 10, name);
	if (!s->key)
		return 0;
	start = w->ev.len;
	for (size_t i = 0; i < s->n_fixed; i++)
		put_arg(w, &s->args[i]);
	tp_fixed_put(&w->fixed, s->key, w->ev.p + start, w->ev.len - start, name);
	return s->n_fixed;
}

static void named_event(struct pf_writer *w, int type, uint64_t track,
			int64_t ts, const struct tp_trace_slice *s)
{
	tp_pb_uint(&w->ev, 9, (uint64_t)type);
	tp_pb_uint(&w->ev, 11, track);
	for (size_t i = put_fixed(w, s); i < s->n_args; i++)
		put_arg(w, &s->args[i]);
	emit(w, true, ts, 11, true);
}

static bool pf_has_fixed(void *ctx, const void *key)
{
	struct pf_writer *w = ctx;

	return tp_fixed_get(&w->fixed, key) != NULL;
}

static void pf_begin(void *ctx, uint64_t track, int64_t ts, int64_t dur,
		     const struct tp_trace_slice *s)
{
	named_event(ctx, TYPE_BEGIN, track, ts, s);
}

static void pf_end(void *ctx, uint64_t track, int64_t ts,
		   const struct tp_trace_slice *s, int64_t start)
{
	struct pf_writer *w = ctx;

	tp_pb_uint(&w->ev, 9, TYPE_END);
	tp_pb_uint(&w->ev, 11, track);
	emit(w, true, ts, 11, true);
}

static void pf_instant(void *ctx, uint64_t track, int64_t ts,
		       const struct tp_trace_slice *s)
{
	named_event(ctx, TYPE_INSTANT, track, ts, s);
}

static void pf_counter(void *ctx, uint64_t track, int64_t ts, int64_t value)
{
	struct pf_writer *w = ctx;

	tp_pb_uint(&w->ev, 9, TYPE_COUNTER);
	tp_pb_uint(&w->ev, 11, track);
	tp_pb_int(&w->ev, 30, value);
	emit(w, true, ts, 11, true);
}

static enum tp_err pf_finish(void *ctx, uint64_t *bytes, struct tp_error *err)
{
	struct pf_writer *w = ctx;

	*bytes = w->sink.total;
	return tp_sink_finish(&w->sink, err);
}

static void pf_release(void *ctx)
{
	struct pf_writer *w = ctx;

	tp_sink_release(&w->sink);
	tp_pb_release(&w->ev);
	tp_pb_release(&w->interned);
	tp_intern_release(&w->names);
	tp_fixed_release(&w->fixed);
	free(w);
}

void tp_trace_perfetto_writer(struct tp_trace_writer *tw, FILE *out, bool gzip)
{
	struct pf_writer *w = tp_xcalloc(1, sizeof(*w));

	tp_sink_init(&w->sink, out, gzip);
	tp_intern_init(&w->names);
	tp_fixed_init(&w->fixed);
	*tw = (struct tp_trace_writer){
		.ctx = w, .process = pf_process, .track = pf_track,
		.begin = pf_begin, .end = pf_end, .instant = pf_instant,
		.counter = pf_counter, .has_fixed = pf_has_fixed, .finish = pf_finish, .release = pf_release,
	};
}
