/*
 * perfetto.c - the Perfetto protobuf writer: a Trace written as a stream
 * of `0x0A len TracePacket` records (trace-facts §1.11 and §4.1). Field
 * numbers are those of trace-facts §1.14.
 *
 * Each track is its own trusted packet sequence (sequence id = track
 * uuid), so that two pieces of incremental state make its packets small:
 * - TracePacketDefaults name the track (track_event_defaults.track_uuid),
 *   so a track event carries no track_uuid;
 * - timestamps use a sequence-scoped incremental clock (id 64, declared
 *   in a ClockSnapshot beside BOOTTIME at 0): each packet's timestamp is
 *   the delta from the previous one on the sequence. The model gives a
 *   track's events in time order (trace.h), so deltas are never negative;
 *   should one be, that packet says its absolute BOOTTIME time instead.
 * Interned ids are numbered once for the whole file, per kind (event
 * names, annotation names, string values); each sequence gets an entry
 * defined in the first of its packets that uses it.
 */
#include "perfetto_seq.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/report/trace_write.h"
#include "tpuprof/util/util.h"

/* n bytes to o, with 32 bytes of room past them: most parts are a few
 * bytes, copied as one fixed-size block. */
static inline void copy_part(uint8_t *o, const uint8_t *src, size_t n)
{
	if (n <= 16)
		memcpy(o, src, 16);
	else
		memcpy(o, src, n);
}

/* Writes one packet on the current sequence straight to the output:
 * its head, the interned data and the data field (track_event 11 or
 * track_descriptor 60) as built, with a cached fixed argument set
 * (w->splice) copied straight from the cache into its place; encoded in
 * place in the output buffer unless it is large. */
static void emit(struct pf_writer *w, bool has_ts, int64_t ts, uint32_t data_field)
{
	uint8_t head[32], tag[14], frame[12];
	size_t nh = pf_packet_head(w, head, has_ts, ts), nt = 0, nf = 0, body;
	size_t at = w->splice_len ? w->splice_at : w->ev.len;
	size_t ev_len = w->ev.len + w->splice_len;

	if (data_field == 11) {
		tag[nt++] = 0x5A;
	} else {
		tag[nt++] = 0xE2;
		tag[nt++] = 0x03;
	}
	nt += tp_pb_put_varint(tag + nt, ev_len);
	body = nh + w->interned.len + nt + ev_len;
	frame[nf++] = 0x0A;
	nf += tp_pb_put_varint(frame + nf, body);
	if (nf + body + 32 <= TP_SINK_ROOM_MAX) {
		/* room for over-copies: the small parts go as fixed-size
		 * copies (inlined, not calls), the next part overwrites
		 * what went past one */
		uint8_t *p = tp_sink_room(&w->sink, nf + body + 32), *o = p;

		if (w->ev.len + 16 > w->ev.cap) /* copy_part reads 16 */
			tp_pb_reserve(&w->ev, 16);
		memcpy(o, frame, sizeof(uint64_t)); /* nf <= 4: body < 64 KiB */
		o += nf;
		memcpy(o, head, 32);
		o += nh;
		if (w->interned.len)
			memcpy(o, w->interned.p, w->interned.len);
		o += w->interned.len;
		memcpy(o, tag, sizeof(uint64_t)); /* nt <= 5 */
		o += nt;
		copy_part(o, w->ev.p, at);
		o += at;
		if (w->splice_len)
			memcpy(o, w->splice, w->splice_len);
		o += w->splice_len;
		copy_part(o, w->ev.p + at, w->ev.len - at);
		tp_sink_commit(&w->sink, nf + body);
	} else {
		tp_sink_write(&w->sink, frame, nf);
		tp_sink_write(&w->sink, head, nh);
		tp_sink_write(&w->sink, w->interned.p, w->interned.len);
		tp_sink_write(&w->sink, tag, nt);
		tp_sink_write(&w->sink, w->ev.p, at);
		tp_sink_write(&w->sink, w->splice, w->splice_len);
		tp_sink_write(&w->sink, w->ev.p + at, w->ev.len - at);
		tp_sink_packet_end(&w->sink);
	}
	w->splice_len = 0;
	tp_pb_reset(&w->ev);
	tp_pb_reset(&w->interned);
}

/* The plain track between a process track and its line tracks: Perfetto
 * ignores child_ordering on a process track (its UI sorts a process's
 * tracks by name), but keeps it on a plain one, so the lines nest under
 * this track in the capture's order. Its uuid is the process's with a
 * bit no model uuid uses (they are below 2^63: pid << 32 at most). */
#define LINES_TRACK_BIT (UINT64_C(1) << 63)
static uint64_t lines_track(uint64_t process)
{
	return process | LINES_TRACK_BIT;
}

static void pf_process(void *ctx, uint64_t uuid, uint32_t pid, const char *name,
		       int rank)
{
	struct pf_writer *w = ctx;

	pf_reset_seqs(w, uuid);
	pf_use_seq(w, uuid);
	tp_pb_uint(&w->ev, 1, uuid);
	tp_pb_open(&w->ev, 3);
	tp_pb_int(&w->ev, 1, pid);
	tp_pb_bytes(&w->ev, 6, name, strlen(name));
	tp_pb_close(&w->ev);
	/* honoured as the root descriptor sets process_ordering EXPLICIT */
	tp_pb_int(&w->ev, 12, rank);
	emit(w, false, 0, 60);
	/* on the process's sequence: the lines' parent (it has no events) */
	tp_pb_uint(&w->ev, 1, lines_track(uuid));
	tp_pb_bytes(&w->ev, 2, "Lines", 5);
	tp_pb_uint(&w->ev, 5, uuid);
	tp_pb_uint(&w->ev, 11, 3); /* child_ordering EXPLICIT: by rank */
	emit(w, false, 0, 60);
}

static void pf_track(void *ctx, uint64_t uuid, uint64_t process, uint32_t pid,
		     uint32_t tid, const char *name, int rank, bool counter)
{
	struct pf_writer *w = ctx;

	pf_use_seq(w, uuid);
	tp_pb_uint(&w->ev, 1, uuid);
	tp_pb_bytes(&w->ev, 2, name, strlen(name));
	tp_pb_uint(&w->ev, 5, lines_track(process));
	if (counter) {
		tp_pb_open(&w->ev, 8);
		tp_pb_uint(&w->ev, 3, 3); /* UNIT_SIZE_BYTES */
		tp_pb_close(&w->ev);
	}
	tp_pb_int(&w->ev, 12, rank);
	tp_pb_uint(&w->ev, 15, 2); /* sibling_merge_behavior NONE: lines stay apart */
	emit(w, false, 0, 60);
}

static void put_arg(struct pf_writer *w, const struct tp_trace_arg *a)
{
	tp_pb_open(&w->ev, 4);
	tp_pb_uint(&w->ev, 1, pf_intern(w, K_ARG, a->name));
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
			tp_pb_uint(&w->ev, 17, pf_intern(w, K_STR, a->v.s));
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
	const struct tp_fixed *f = s->key ? pf_fixed_of(w, s->key) : NULL;
	size_t start, idx;

	if (f) {
		pf_ready_fixed(w, (size_t)(f - w->fixed.ents));
		tp_pb_uint(&w->ev, 10, f->name_id);
		/* not copied here: emit() takes them from the cache */
		w->splice = w->fixed.bytes + f->off;
		w->splice_len = f->len;
		w->splice_at = w->ev.len;
		return s->fixed_omitted ? 0 : s->n_fixed;
	}
	if (!s->key) {
		tp_pb_uint(&w->ev, 10, pf_intern(w, K_NAME, s->name));
		return 0;
	}
	size_t first_iid = w->n_fixed_iids;

	w->recording = true;
	uint64_t name = pf_intern(w, K_NAME, s->name);

	tp_pb_uint(&w->ev, 10, name);
	start = w->ev.len;
	for (size_t i = 0; i < s->n_fixed; i++)
		put_arg(w, &s->args[i]);
	w->recording = false;
	idx = w->fixed.n;
	tp_fixed_put(&w->fixed, s->key, w->ev.p + start, w->ev.len - start, name);
	w->last_key = NULL; /* entries may have moved */
	w->spans = tp_xgrow(w->spans, &w->cap_spans, idx + 1, sizeof(*w->spans));
	w->spans[idx].off = first_iid;
	w->spans[idx].n = w->n_fixed_iids - first_iid;
	pf_bit_set(&w->cur->fixed_ready, idx);
	return s->n_fixed;
}

/* The usual BEGIN or instant, written whole in place with no interned
 * data: a name this sequence has defined and no args (a name-scope
 * slice), or a key whose name and fixed args it has (an op execution)
 * and no args of its own; the bytes emit() would write. False for any
 * other, which takes the general way. */
static bool fast_event(struct pf_writer *w, int type, int64_t ts,
		       const struct tp_trace_slice *s)
{
	const uint8_t *args = NULL;
	size_t n_args = 0, ev_len, body;
	uint64_t name;
	uint8_t *p;

	if (s->key) {
		const struct tp_fixed *f = pf_fixed_of(w, s->key);

		if (!f || s->n_args != (s->fixed_omitted ? 0 : s->n_fixed) ||
		    !pf_bit_get(&w->cur->fixed_ready, (size_t)(f - w->fixed.ents)))
			return false;
		name = f->name_id;
		args = w->fixed.bytes + f->off;
		n_args = f->len;
	} else {
		if (s->n_args || !(name = pf_known(w, K_NAME, s->name)) ||
		    !pf_bit_get(&w->cur->defined[K_NAME], name))
			return false;
	}
	ev_len = 3 + tp_pb_varint_size(name) + n_args;
	if (ev_len + 32 >= 16384) /* the frame's length in two bytes */
		return false;
	body = pf_head_len(w, ts) + 1 + tp_pb_varint_size(ev_len) + ev_len;
	p = tp_sink_room(&w->sink, 3 + body + 16);
	*p++ = 0x0A;
	if (body < 128) {
		*p++ = (uint8_t)body;
	} else {
		*p++ = (uint8_t)(body | 0x80);
		*p++ = (uint8_t)(body >> 7);
	}
	p += pf_head(w, p, ts); /* in place: 8 bytes of room past it */
	*p++ = 0x5A;
	p += tp_pb_put_varint(p, ev_len);
	*p++ = 0x48;
	*p++ = (uint8_t)type;
	*p++ = 0x50;
	p += tp_pb_put_varint(p, name);
	/* in 16-byte blocks, into the room past the packet: no call */
	for (size_t i = 0; i < n_args; i += 16)
		memcpy(p + i, args + i, 16);
	tp_sink_commit(&w->sink, (body < 128 ? 2 : 3) + body);
	return true;
}

static void named_event(struct pf_writer *w, int type, uint64_t track,
			int64_t ts, const struct tp_trace_slice *s)
{
	pf_use_seq(w, track);
	if (fast_event(w, type, ts, s))
		return;
	tp_pb_uint(&w->ev, 9, (uint64_t)type);
	for (size_t i = put_fixed(w, s); i < s->n_args; i++)
		put_arg(w, &s->args[i]);
	emit(w, true, ts, 11);
}

static bool pf_has_fixed(void *ctx, const void *key)
{
	return pf_fixed_of(ctx, key) != NULL;
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

	uint8_t *p;
	size_t nh;

	/* the commonest packet, written whole in place: head and
	 * track_event { type END } */
	pf_use_seq(w, track);
	p = tp_sink_room(&w->sink, 2 + 32 + 4);
	nh = pf_head(w, p + 2, ts);
	p[0] = 0x0A;
	p[1] = (uint8_t)(nh + 4);
	p[2 + nh] = 0x5A;
	p[3 + nh] = 0x02;
	p[4 + nh] = 0x48;
	p[5 + nh] = TYPE_END;
	tp_sink_commit(&w->sink, 6 + nh);
}

static void pf_instant(void *ctx, uint64_t track, int64_t ts,
		       const struct tp_trace_slice *s)
{
	named_event(ctx, TYPE_INSTANT, track, ts, s);
}

static void pf_counter(void *ctx, uint64_t track, int64_t ts, int64_t value)
{
	struct pf_writer *w = ctx;

	pf_use_seq(w, track);
	tp_pb_uint(&w->ev, 9, TYPE_COUNTER);
	tp_pb_int(&w->ev, 30, value);
	emit(w, true, ts, 11);
}

static enum tp_err pf_finish(void *ctx, uint64_t *bytes, struct tp_error *err)
{
	struct pf_writer *w = ctx;

	*bytes = w->sink.total + atomic_load(&w->lane_bytes);
	return tp_sink_finish(&w->sink, err);
}

static void pf_free(struct pf_writer *w)
{
	tp_pb_release(&w->ev);
	tp_pb_release(&w->interned);
	tp_intern_release(&w->names);
	tp_fixed_release(&w->fixed);
	pf_state_release(w);
	free(w);
}

static void pf_release(void *ctx)
{
	struct pf_writer *w = ctx;

	tp_sink_release(&w->sink);
	pf_free(w);
}

/* A lane: its last buffer goes to the root's output, its bytes to the
 * root's count. */
static void pf_lane_release(void *ctx)
{
	struct pf_writer *w = ctx;

	tp_sink_lane_close(&w->sink);
	atomic_fetch_add(&w->root->lane_bytes, w->sink.total);
	pf_free(w);
}

static void writer_table(struct tp_trace_writer *tw, struct pf_writer *w);

static bool pf_lane(void *ctx, struct tp_trace_writer *lane)
{
	struct pf_writer *root = ctx, *w = tp_xcalloc(1, sizeof(*w));

	tp_sink_queue_now(&root->sink); /* the root descriptor stays first */
	tp_sink_expect_lanes(&root->sink, ++root->n_lanes);
	tp_sink_lane_init(&w->sink, &root->sink);
	tp_intern_init(&w->names);
	tp_fixed_init(&w->fixed);
	w->root = root;
	writer_table(lane, w);
	lane->finish = NULL;
	lane->lane = NULL;
	lane->release = pf_lane_release;
	return true;
}

static void writer_table(struct tp_trace_writer *tw, struct pf_writer *w)
{
	*tw = (struct tp_trace_writer){
		.ctx = w, .process = pf_process, .track = pf_track,
		.begin = pf_begin, .end = pf_end, .instant = pf_instant,
		.counter = pf_counter, .has_fixed = pf_has_fixed, .finish = pf_finish,
		.release = pf_release, .lane = pf_lane,
	};
}

/* The file's first packet: the root track descriptor (uuid 0, no track
 * of its own) with process_ordering EXPLICIT (19 = 1), without which
 * Perfetto's UI orders processes by slice count and name and ignores
 * their sibling_order_rank. It goes on sequence 1, taken from the lanes'
 * count; a serial walk's first track (uuid 1) starts sequence 1 again
 * with its state cleared, which the descriptor does not need. */
static void root_descriptor(struct pf_writer *w)
{
	static const uint8_t body[] = {
		0xE2, 0x03, 0x05,    /* track_descriptor (60), 5 bytes      */
		0x08, 0x00,          /* uuid 0                              */
		0x98, 0x01, 0x01,    /* process_ordering (19) EXPLICIT      */
	};
	uint8_t p[32];
	size_t n = 0;
	uint32_t seq = atomic_fetch_add(&w->next_seq, 1);

	p[n++] = 0x0A;
	n++; /* the packet's length, below: under 128 bytes */
	p[n++] = 0x50; /* trusted_packet_sequence_id */
	n += tp_pb_put_varint(p + n, seq);
	p[n++] = 0x68; /* sequence_flags CLEARED */
	p[n++] = SEQ_CLEARED;
	memcpy(p + n, body, sizeof(body));
	n += sizeof(body);
	p[1] = (uint8_t)(n - 2);
	tp_sink_write(&w->sink, p, n);
	tp_sink_packet_end(&w->sink);
}

void tp_trace_perfetto_writer(struct tp_trace_writer *tw, FILE *out, bool gzip)
{
	struct pf_writer *w = tp_xcalloc(1, sizeof(*w));

	tp_sink_init(&w->sink, out, gzip);
	tp_intern_init(&w->names);
	tp_fixed_init(&w->fixed);
	atomic_init(&w->next_seq, 1);
	atomic_init(&w->lane_bytes, 0);
	writer_table(tw, w);
	root_descriptor(w);
}
