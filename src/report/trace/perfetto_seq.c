/*
 * perfetto_seq.c - the Perfetto writer's sequences and interning
 * (perfetto_seq.h): each track is its own sequence, whose first packet
 * clears its state, names its track in TracePacketDefaults and declares
 * the incremental clock its timestamps count on.
 */
#include "perfetto_seq.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

/* The InternedData field each kind goes to. */
static const uint32_t kind_field[N_KINDS] = { 2, 3, 29 };

void pf_bit_set(struct pf_bits *s, size_t i)
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
void pf_define(struct pf_writer *w, int kind, uint64_t id)
{
	const struct tp_str *s = &w->strs[kind][id];

	if (pf_bit_get(&w->cur->defined[kind], id))
		return;
	pf_bit_set(&w->cur->defined[kind], id);
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

uint64_t pf_known(struct pf_writer *w, int kind, struct tp_str s)
{
	struct pf_hot *hot = hot_slot(w, kind, s.ptr, s.len);
	uint64_t id;

	if (hot->id && hot->ptr == s.ptr && hot->len == s.len && hot->kind == kind)
		return hot->id;
	if ((id = tp_intern_get(&w->names, (uint32_t)kind, s.ptr, s.len)))
		*hot = (struct pf_hot){ s.ptr, s.len, id, kind };
	return id;
}

uint64_t pf_intern(struct pf_writer *w, int kind, struct tp_str s)
{
	uint64_t id = pf_known(w, kind, s);

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
	pf_define(w, kind, id);
	return id;
}

/* The next process: its sequences start again, and so does interning.
 * Every packet of a process is written before the next one begins (its
 * planes' pointers are then not seen again), so ids are counted per
 * process: they stay short, and the tables do not grow with the file. */
void pf_reset_seqs(struct pf_writer *w, uint64_t base)
{
	for (size_t i = 0; i < w->cap_seqs; i++) {
		struct pf_seq *q = &w->seqs[i];

		for (int k = 0; k < N_KINDS; k++)
			if (q->defined[k].b)
				memset(q->defined[k].b, 0, q->defined[k].cap);
		if (q->fixed_ready.b)
			memset(q->fixed_ready.b, 0, q->fixed_ready.cap);
		q->started = false;
		q->last_ts = 0;
	}
	w->uuid_base = base;
	tp_intern_clear(&w->names);
	for (int k = 0; k < N_KINDS; k++)
		w->n_strs[k] = 0;
	tp_fixed_clear(&w->fixed);
	w->n_fixed_iids = 0;
	memset(w->hot, 0, sizeof(w->hot));
	w->last_key = NULL;
	w->last_fixed = NULL;
}

/* pf_use_seq's slow path: a sequence not seen yet, or the seqs array
 * to grow. A sequence's first packet clears its state and sets its
 * defaults and incremental clock. The root's sequence ids are the uuids;
 * a lane's are numbered by its root, as lanes run at once. */
void pf_start_seq(struct pf_writer *w, uint64_t uuid)
{
	uint8_t p[48];
	size_t n = 0, def_len, i = (size_t)(uuid - w->uuid_base);

	if (i >= w->cap_seqs) {
		size_t old = w->cap_seqs;

		w->seqs = tp_xgrow(w->seqs, &w->cap_seqs, i + 1, sizeof(*w->seqs));
		memset(w->seqs + old, 0, (w->cap_seqs - old) * sizeof(*w->seqs));
	}
	w->cur = &w->seqs[i];
	if (w->cur->started) {
		w->cur_id = w->cur->id;
		return;
	}
	w->cur->started = true;
	w->cur->id = w->root ? atomic_fetch_add(&w->root->next_seq, 1) : (uint32_t)uuid;
	w->cur_id = w->cur->id;
	w->cur->tail[0] = 0x50;
	w->cur->tail_len = (uint8_t)(1 + tp_pb_put_varint(w->cur->tail + 1, w->cur_id));
	w->cur->tail[w->cur->tail_len++] = 0x68;
	w->cur->tail[w->cur->tail_len++] = SEQ_NEEDS_STATE;
	/* trusted_packet_sequence_id, sequence_flags CLEARED | NEEDS */
	p[n++] = 0x50;
	n += tp_pb_put_varint(p + n, w->cur_id);
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
	tp_sink_packet_end(&w->sink);
}

/* The packet's head: timestamp (a delta, see perfetto.c), sequence, flags and
 * the interned data's tag; returns its length (at most 30 bytes). */
size_t pf_packet_head(struct pf_writer *w, uint8_t *head, bool has_ts, int64_t ts)
{
	uint8_t *tail = w->cur->tail;
	size_t nh;

	if (has_ts) {
		nh = pf_head(w, head, ts);
	} else {
		memcpy(head, tail, sizeof(w->cur->tail));
		nh = w->cur->tail_len;
	}
	if (w->interned.len) {
		head[nh++] = 0x62;
		nh += tp_pb_put_varint(head + nh, w->interned.len);
	}
	return nh;
}

/* The model asks has_fixed() and then gives the slice: one lookup. */
const struct tp_fixed *pf_fixed_of(struct pf_writer *w, const void *key)
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
void pf_ready_fixed(struct pf_writer *w, size_t idx)
{
	const struct pf_span *sp = &w->spans[idx];

	if (pf_bit_get(&w->cur->fixed_ready, idx))
		return;
	for (size_t i = 0; i < sp->n; i++) {
		uint64_t k = w->fixed_iids[sp->off + i];

		pf_define(w, (int)(k >> 62), k & ((UINT64_C(1) << 62) - 1));
	}
	pf_bit_set(&w->cur->fixed_ready, idx);
}

void pf_state_release(struct pf_writer *w)
{
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
}
