/*
 * perfetto_seq.h - the Perfetto writer's state (perfetto.c): one packet
 * sequence per track, interned ids counted per kind for the file and
 * defined per sequence, the fixed arguments of each slice key with the
 * interned ids they use (perfetto_seq.c).
 *
 * Ownership: struct pf_writer owns all its malloc'd memory
 * (pf_state_release); its sink borrows the output FILE.
 */
#ifndef TPUPROF_PERFETTO_SEQ_H
#define TPUPROF_PERFETTO_SEQ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "trace_out.h"
#include "tpuprof/analyze/trace.h"

enum { SEQ_CLEARED = 1, SEQ_NEEDS_STATE = 2 };
enum { TYPE_BEGIN = 1, TYPE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
enum { CLK_BOOTTIME = 6, CLK_INCREMENTAL = 64 };

/* Interned kinds, each with its own ids (InternedData fields 2, 3, 29). */
enum { K_NAME, K_ARG, K_STR, N_KINDS };

struct pf_bits {
	uint8_t *b;
	size_t cap;               /* bytes                                 */
};

/* One packet sequence: one track. */
struct pf_seq {
	bool started;
	uint32_t id;              /* trusted_packet_sequence_id            */
	int64_t last_ts;          /* the incremental clock, ns            */
	/* what ends every later packet's head, encoded once: the sequence
	 * id (0x50 varint) and the flags (0x68 SEQ_NEEDS_STATE) */
	uint8_t tail[8];
	uint8_t tail_len;
	struct pf_bits defined[N_KINDS]; /* iids defined on it            */
	struct pf_bits fixed_ready;      /* fixed entries whose iids are
					  * all defined on it            */
};

/* Slots of the direct-mapped lookup cache: more than a plane's event
 * metadata, so a plane's ops rarely evict each other. */
#define HOT_SLOTS 8192

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
	const uint8_t *splice;       /* the packet's cached fixed args,   */
	size_t splice_len, splice_at;/* to go at ev offset splice_at      */
	const void *last_key;        /* the last key looked up, and its   */
	const struct tp_fixed *last_fixed; /* entry (NULL: none)          */
	uint64_t cur_id;             /* its sequence id                   */
	/* lanes (trace.h): a lane feeds its root's output from another
	 * thread, one process at a time; its sequences are indexed from
	 * the process's uuid and numbered by the root */
	struct pf_writer *root;      /* a lane's root, NULL for the root  */
	uint64_t uuid_base;          /* the process's uuid                */
	_Atomic uint32_t next_seq;   /* the root's: lanes' sequence ids   */
	_Atomic uint64_t lane_bytes; /* the root's: what closed lanes wrote */
	unsigned n_lanes;            /* the root's                        */
};

/* Puts the entry (kind, iid) into this packet's interned data unless the
 * current sequence has it. */
void pf_define(struct pf_writer *w, int kind, uint64_t id);
/* The iid of s, 0 when it has none yet. */
uint64_t pf_known(struct pf_writer *w, int kind, struct tp_str s);
/* The iid of s (numbered on first sight), defined on the current
 * sequence; recorded for the fixed entry being encoded. */
uint64_t pf_intern(struct pf_writer *w, int kind, struct tp_str s);
/* Makes uuid's sequence the current one, writing its first packet (state
 * cleared, defaults, incremental clock) when it has none yet; inline
 * for the usual case, a sequence already started (once per packet). */
void pf_start_seq(struct pf_writer *w, uint64_t uuid);
static inline void pf_use_seq(struct pf_writer *w, uint64_t uuid)
{
	size_t i = (size_t)(uuid - w->uuid_base);

	if (i < w->cap_seqs && w->seqs[i].started) {
		w->cur = &w->seqs[i];
		w->cur_id = w->cur->id;
		return;
	}
	pf_start_seq(w, uuid);
}
/* The next process (uuid base): no sequence has started, nothing is
 * interned. */
void pf_reset_seqs(struct pf_writer *w, uint64_t base);
/* The length pf_head will take for ts. */
static inline size_t pf_head_len(const struct pf_writer *w, int64_t ts)
{
	const struct pf_seq *q = w->cur;

	if (ts < 0)
		ts = 0;
	if (ts >= q->last_ts)
		return 1 + tp_pb_varint_size((uint64_t)(ts - q->last_ts)) + q->tail_len;
	return 4 + tp_pb_varint_size((uint64_t)ts) + q->tail_len;
}
/* A packet's timestamp on the current sequence (a delta on its
 * incremental clock; absolute on BOOTTIME when it would go back) then its
 * sequence and flags, at h (room for 24 bytes, 8 of them past the end);
 * returns the length. Inline: once a packet. */
static inline size_t pf_head(struct pf_writer *w, uint8_t *h, int64_t ts)
{
	struct pf_seq *q = w->cur;
	size_t n = 0;

	if (ts < 0)
		ts = 0;
	h[n++] = 0x40;
	if (ts >= q->last_ts) {
		n += tp_pb_put_varint(h + n, (uint64_t)(ts - q->last_ts));
		q->last_ts = ts;
	} else { /* not in order: this one absolute */
		n += tp_pb_put_varint(h + n, (uint64_t)ts);
		h[n++] = 0xD0;
		h[n++] = 0x03;
		h[n++] = CLK_BOOTTIME;
	}
	memcpy(h + n, q->tail, sizeof(q->tail));
	return n + q->tail_len;
}
/* The packet's head: timestamp (as pf_head), sequence, flags and the
 * interned data's tag; returns its length (at most 30 bytes). */
size_t pf_packet_head(struct pf_writer *w, uint8_t *head, bool has_ts, int64_t ts);
/* The fixed entry of key, or NULL (the model asks has_fixed() and then
 * gives the slice: one lookup). */
const struct tp_fixed *pf_fixed_of(struct pf_writer *w, const void *key);
/* The fixed entry idx, perhaps encoded on another sequence: its
 * interned entries go into this packet where this sequence lacks them. */
void pf_ready_fixed(struct pf_writer *w, size_t idx);
void pf_bit_set(struct pf_bits *s, size_t i);
static inline bool pf_bit_get(const struct pf_bits *s, size_t i)
{
	return i / 8 < s->cap && (s->b[i / 8] >> (i % 8) & 1);
}
void pf_state_release(struct pf_writer *w);

#endif
