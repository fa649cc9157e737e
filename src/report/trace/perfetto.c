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
#include "tpuprof/trace_write.h"

#include <stdlib.h>
#include <string.h>

#include "trace_out.h"
#include "tpuprof/util.h"

enum { SEQ_CLEARED = 1, SEQ_NEEDS_STATE = 2 };
enum { TYPE_BEGIN = 1, TYPE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
enum { CLK_BOOTTIME = 6, CLK_INCREMENTAL = 64 };

/* Interned kinds, and the InternedData field each goes to. */
enum { K_NAME, K_ARG, K_STR, N_KINDS };
static const uint32_t kind_field[N_KINDS] = { 2, 3, 29 };

struct pf_bits {
	uint8_t *b;
	size_t cap;               /* bytes                                 */
};

/* One packet sequence: one track. */
struct pf_seq {
	bool started;
	int64_t last_ts;          /* the incremental clock, ns            */
	struct pf_bits defined[N_KINDS]; /* iids defined on it            */
	struct pf_bits fixed_ready;      /* fixed entries whose iids are  */
};

#define HOT_SLOTS 1024

struct pf_span {
	size_t off, n;
};

struct pf_writer {
	struct tp_sink sink;
	struct tp_pb ev, interned;
	struct tp_intern names;      /* (kind, string) -> iid            */
	struct tp_str *strs[N_KINDS];/* iid -> string, to define it again
				      * on another sequence              */
	size_t n_strs[N_KINDS], cap_strs[N_KINDS];
	struct tp_fixed_cache fixed; /* per event metadata: name, stats   */
	uint64_t *fixed_iids;        /* kind << 62 | iid, per fixed entry */
	size_t n_fixed_iids, cap_fixed_iids;
	struct pf_span *spans;       /* per fixed entry: its fixed_iids   */
	size_t cap_spans;
	bool recording;              /* a fixed entry is being encoded    */
	struct pf_seq *seqs;         /* by uuid                           */
	size_t cap_seqs;
	struct pf_seq *cur;          /* the packet's sequence             */
	struct pf_hot {              /* recent lookups, direct-mapped: the
				      * table is large, the hot names few */
		const void *ptr;
		size_t len;
		uint64_t id;         /* 0: empty                          */
		int kind;            /* N_KINDS: a fixed key              */
	} hot[HOT_SLOTS];
	const void *last_key;        /* the last key looked up, and its   */
	const struct tp_fixed *last_fixed; /* entry (NULL: none)          */
	uint64_t cur_id;
};

static bool bit_get(const struct pf_bits *s, size_t i)
{
	return i / 8 < s->cap && (s->b[i / 8] >> (i % 8) & 1);
}

static void bit_set(struct pf_bits *s, size_t i)
{
	if (i / 8 >= s->cap) {
		size_t old = s->cap;

		s->b = tp_xgrow(s->b, &s->cap, i / 8 + 1, 1);
		memset(s->b + old, 0, s->cap - old);
	}
	s->b[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* Puts the entry (kind, iid) into this packet's interned data unless the
 * current sequence has it. */
static void define(struct pf_writer *w, int kind, uint64_t id)
{
	const struct tp_str *s = &w->strs[kind][id];

	if (bit_get(&w->cur->defined[kind], id))
		return;
	bit_set(&w->cur->defined[kind], id);
	tp_pb_open(&w->interned, kind_field[kind]);
	tp_pb_uint(&w->interned, 1, id);
	tp_pb_bytes(&w->interned, 2, s->ptr, s->len);
	tp_pb_close(&w->interned);
}

static struct pf_hot *hot_slot(struct pf_writer *w, int kind, const void *ptr, size_t len)
{
	uintptr_t h = (uintptr_t)ptr;

	h ^= h >> 12 ^ len * 0x9E37u ^ (uintptr_t)kind * 0x45D9F3Bu;
	return &w->hot[(h ^ h >> 10) & (HOT_SLOTS - 1)];
}

static uint64_t intern(struct pf_writer *w, int kind, struct tp_str s)
{
	struct pf_hot *hot = hot_slot(w, kind, s.ptr, s.len);
	uint64_t id;

	if (hot->id && hot->ptr == s.ptr && hot->len == s.len && hot->kind == kind)
		id = hot->id;
	else if ((id = tp_intern_get(&w->names, (uint32_t)kind, s.ptr, s.len)))
		*hot = (struct pf_hot){ s.ptr, s.len, id, kind };
	if (!id) {
		id = ++w->n_strs[kind];
		w->strs[kind] = tp_xgrow(w->strs[kind], &w->cap_strs[kind], id + 1,
					 sizeof(*w->strs[kind]));
		w->strs[kind][id] = s;
		tp_intern_put(&w->names, (uint32_t)kind, s.ptr, s.len, id);
	}
	if (w->recording) {
		w->fixed_iids = tp_xgrow(w->fixed_iids, &w->cap_fixed_iids,
					 w->n_fixed_iids + 1, sizeof(*w->fixed_iids));
		w->fixed_iids[w->n_fixed_iids++] = (uint64_t)kind << 62 | id;
	}
	define(w, kind, id);
	return id;
}

/* Makes uuid's sequence the current one. A sequence's first packet
 * clears its state and sets its defaults and incremental clock. */
static void use_seq(struct pf_writer *w, uint64_t uuid)
{
	uint8_t p[48];
	size_t n = 0, def_len;

	if (uuid >= w->cap_seqs) {
		size_t old = w->cap_seqs;

		w->seqs = tp_xgrow(w->seqs, &w->cap_seqs, uuid + 1, sizeof(*w->seqs));
		memset(w->seqs + old, 0, (w->cap_seqs - old) * sizeof(*w->seqs));
	}
	w->cur = &w->seqs[uuid];
	w->cur_id = uuid;
	if (w->cur->started)
		return;
	w->cur->started = true;
	/* trusted_packet_sequence_id, sequence_flags CLEARED | NEEDS */
	p[n++] = 0x50;
	n += tp_pb_put_varint(p + n, uuid);
	p[n++] = 0x68;
	p[n++] = SEQ_CLEARED | SEQ_NEEDS_STATE;
	/* trace_packet_defaults (59): timestamp_clock_id 64,
	 * track_event_defaults (11) { track_uuid (11) } */
	def_len = 3 + 2 + 1 + tp_pb_varint_size(uuid);
	p[n++] = 0xDA;
	p[n++] = 0x03;
	p[n++] = (uint8_t)def_len;
	p[n++] = 0xD0;
	p[n++] = 0x03;
	p[n++] = CLK_INCREMENTAL;
	p[n++] = 0x5A;
	p[n++] = (uint8_t)(1 + tp_pb_varint_size(uuid));
	p[n++] = 0x58;
	n += tp_pb_put_varint(p + n, uuid);
	/* clock_snapshot (6) { clocks { BOOTTIME, 0 },
	 * clocks { 64, 0, is_incremental } } */
	static const uint8_t clocks[] = { 0x32, 0x0E, 0x0A, 0x04, 0x08, CLK_BOOTTIME, 0x10, 0x00,
					  0x0A, 0x06, 0x08, CLK_INCREMENTAL, 0x10, 0x00, 0x18, 0x01 };
	memcpy(p + n, clocks, sizeof(clocks));
	n += sizeof(clocks);
	uint8_t frame[12];
	size_t nf = 0;

	frame[nf++] = 0x0A;
	nf += tp_pb_put_varint(frame + nf, n);
	tp_sink_write(&w->sink, frame, nf);
	tp_sink_write(&w->sink, p, n);
}

/* The packet's head: timestamp (a delta, see above), sequence, flags and
 * the interned data's tag; returns its length (at most 30 bytes). */
static size_t packet_head(struct pf_writer *w, uint8_t *head, bool has_ts, int64_t ts)
{
	struct pf_seq *q = w->cur;
	size_t nh = 0;

	if (has_ts) {
		if (ts < 0)
			ts = 0;
		head[nh++] = 0x40;
		if (ts >= q->last_ts) {
			nh += tp_pb_put_varint(head + nh, (uint64_t)(ts - q->last_ts));
			q->last_ts = ts;
		} else { /* not in order: this one absolute */
			nh += tp_pb_put_varint(head + nh, (uint64_t)ts);
			head[nh++] = 0xD0;
			head[nh++] = 0x03;
			head[nh++] = CLK_BOOTTIME;
		}
	}
	head[nh++] = 0x50;
	nh += tp_pb_put_varint(head + nh, w->cur_id);
	head[nh++] = 0x68;
	head[nh++] = SEQ_NEEDS_STATE;
	if (w->interned.len) {
		head[nh++] = 0x62;
		nh += tp_pb_put_varint(head + nh, w->interned.len);
	}
	return nh;
}

/* Writes one packet on the current sequence straight to the output:
 * its head, the interned data and the data field (track_event 11 or
 * track_descriptor 60) as built; encoded in place in the output buffer
 * unless it is large. */
static void emit(struct pf_writer *w, bool has_ts, int64_t ts, uint32_t data_field)
{
	uint8_t head[32], tag[14], frame[12];
	size_t nh = packet_head(w, head, has_ts, ts), nt = 0, nf = 0, body;

	if (data_field == 11) {
		tag[nt++] = 0x5A;
	} else {
		tag[nt++] = 0xE2;
		tag[nt++] = 0x03;
	}
	nt += tp_pb_put_varint(tag + nt, w->ev.len);
	body = nh + w->interned.len + nt + w->ev.len;
	frame[nf++] = 0x0A;
	nf += tp_pb_put_varint(frame + nf, body);
	if (nf + body <= TP_SINK_ROOM_MAX) {
		uint8_t *p = tp_sink_room(&w->sink, nf + body), *o = p;

		memcpy(o, frame, nf);
		o += nf;
		memcpy(o, head, nh);
		o += nh;
		if (w->interned.len)
			memcpy(o, w->interned.p, w->interned.len);
		o += w->interned.len;
		memcpy(o, tag, nt);
		o += nt;
		memcpy(o, w->ev.p, w->ev.len);
		tp_sink_commit(&w->sink, nf + body);
	} else {
		tp_sink_write(&w->sink, frame, nf);
		tp_sink_write(&w->sink, head, nh);
		tp_sink_write(&w->sink, w->interned.p, w->interned.len);
		tp_sink_write(&w->sink, tag, nt);
		tp_sink_write(&w->sink, w->ev.p, w->ev.len);
	}
	tp_pb_reset(&w->ev);
	tp_pb_reset(&w->interned);
}

static void pf_process(void *ctx, uint64_t uuid, uint32_t pid, const char *name,
		       int rank)
{
	struct pf_writer *w = ctx;

	use_seq(w, uuid);
	tp_pb_uint(&w->ev, 1, uuid);
	tp_pb_open(&w->ev, 3);
	tp_pb_int(&w->ev, 1, pid);
	tp_pb_bytes(&w->ev, 6, name, strlen(name));
	tp_pb_close(&w->ev);
	tp_pb_int(&w->ev, 12, rank);
	emit(w, false, 0, 60);
}

static void pf_track(void *ctx, uint64_t uuid, uint64_t process, uint32_t pid,
		     uint32_t tid, const char *name, int rank, bool counter)
{
	struct pf_writer *w = ctx;

	use_seq(w, uuid);
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
	emit(w, false, 0, 60);
}

static void put_arg(struct pf_writer *w, const struct tp_trace_arg *a)
{
	tp_pb_open(&w->ev, 4);
	tp_pb_uint(&w->ev, 1, intern(w, K_ARG, a->name));
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
			tp_pb_uint(&w->ev, 17, intern(w, K_STR, a->v.s));
		else
			tp_pb_bytes(&w->ev, 6, a->v.s.ptr, a->v.s.len);
		break;
	}
	tp_pb_close(&w->ev);
}

/* The model asks has_fixed() and then gives the slice: one lookup. */
static const struct tp_fixed *fixed_of(struct pf_writer *w, const void *key)
{
	struct pf_hot *hot;

	if (key == w->last_key)
		return w->last_fixed;
	hot = hot_slot(w, N_KINDS, key, 0);
	w->last_key = key;
	if (hot->id && hot->ptr == key && hot->kind == N_KINDS) {
		w->last_fixed = &w->fixed.ents[hot->id - 1];
	} else {
		w->last_fixed = tp_fixed_get(&w->fixed, key);
		if (w->last_fixed)
			*hot = (struct pf_hot){ key, 0, (uint64_t)(w->last_fixed - w->fixed.ents) + 1,
						N_KINDS };
	}
	return w->last_fixed;
}

/* The fixed entry idx was encoded on another sequence: its interned
 * entries go into this packet where this sequence lacks them. */
static void ready_fixed(struct pf_writer *w, size_t idx)
{
	const struct pf_span *sp = &w->spans[idx];

	if (bit_get(&w->cur->fixed_ready, idx))
		return;
	for (size_t i = 0; i < sp->n; i++) {
		uint64_t k = w->fixed_iids[sp->off + i];

		define(w, (int)(k >> 62), k & ((UINT64_C(1) << 62) - 1));
	}
	bit_set(&w->cur->fixed_ready, idx);
}

/* The name and the fixed args of a keyed slice: from the cache, or
 * encoded and cached (their interned strings ride in this packet). */
static size_t put_fixed(struct pf_writer *w, const struct tp_trace_slice *s)
{
	const struct tp_fixed *f = s->key ? fixed_of(w, s->key) : NULL;
	size_t start, idx;

	if (f) {
		ready_fixed(w, (size_t)(f - w->fixed.ents));
		tp_pb_uint(&w->ev, 10, f->name_id);
		tp_pb_raw(&w->ev, w->fixed.bytes + f->off, f->len);
		return s->fixed_omitted ? 0 : s->n_fixed;
	}
	if (!s->key) {
		tp_pb_uint(&w->ev, 10, intern(w, K_NAME, s->name));
		return 0;
	}
	size_t first_iid = w->n_fixed_iids;

	w->recording = true;
	uint64_t name = intern(w, K_NAME, s->name);

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
	bit_set(&w->cur->fixed_ready, idx);
	return s->n_fixed;
}

static void named_event(struct pf_writer *w, int type, uint64_t track,
			int64_t ts, const struct tp_trace_slice *s)
{
	use_seq(w, track);
	tp_pb_uint(&w->ev, 9, (uint64_t)type);
	for (size_t i = put_fixed(w, s); i < s->n_args; i++)
		put_arg(w, &s->args[i]);
	emit(w, true, ts, 11);
}

static bool pf_has_fixed(void *ctx, const void *key)
{
	return fixed_of(ctx, key) != NULL;
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
	use_seq(w, track);
	p = tp_sink_room(&w->sink, 2 + 32 + 4);
	nh = packet_head(w, p + 2, true, ts);
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

	use_seq(w, track);
	tp_pb_uint(&w->ev, 9, TYPE_COUNTER);
	tp_pb_int(&w->ev, 30, value);
	emit(w, true, ts, 11);
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
	for (int k = 0; k < N_KINDS; k++)
		free(w->strs[k]);
	for (size_t i = 0; i < w->cap_seqs; i++) {
		for (int k = 0; k < N_KINDS; k++)
			free(w->seqs[i].defined[k].b);
		free(w->seqs[i].fixed_ready.b);
	}
	free(w->seqs);
	free(w->fixed_iids);
	free(w->spans);
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
