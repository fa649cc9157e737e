/*
 * xspace_internal.h - helpers shared by the xspace_*.c files only.
 */
#ifndef TPUPROF_XSPACE_INTERNAL_H
#define TPUPROF_XSPACE_INTERNAL_H

#include "tpuprof/decode/xspace.h"

#include <string.h>

/* Builds an id -> index map over n records whose int64 id sits every
 * `stride` bytes from ids. Repeated ids: the last record wins. */
void tp_idmap_build(struct tp_idmap *m, struct tp_arena *a,
		    const int64_t *ids, size_t stride, size_t n);
/* Decodes the XStat held by LEN field f of parent; on corrupt bytes the
 * error is copied to parent and -1 returned. */
int tp_stat_decode(struct tp_wire *parent, const struct tp_field *f,
		   struct tp_stat *st);
/* Fills pl->known_stat_id[] from the plane's stat metadata names. */
void tp_plane_resolve_known_stats(struct tp_plane *pl);

/* Validates and measures every line not scanned yet (in parallel for
 * large captures), except device-plane lines of at least defer_min_bytes
 * (0: none deferred). On corrupt bytes anywhere (also in lines scanned
 * before) returns -1 with the first damaged line in file order and the
 * error in bad->error / bad->error_offset. threads 0: tp_threads(). */
int tp_xspace_scan_lines(struct tp_xspace *xs, size_t defer_min_bytes,
			 unsigned threads, const struct tp_plane **bad_plane,
			 const struct tp_line **bad_line, struct tp_wire *bad);

/* Whether opening leaves a line to the analysis that reads it: a long
 * line of a device plane (see tp_decode_opts.defer_min_bytes). */
bool tp_line_deferred(const struct tp_plane *pl, const struct tp_line *ln,
		      size_t defer_min_bytes);

/* Reads an XLine's fields from w (the line's bytes): those before the
 * first event, and the rest (walking past every event's framing) but for
 * a long line with leave_tail, whose tail its scan reads
 * (tail_unread). -1 on corrupt bytes, the error in w. */
int tp_line_header(const struct tp_xspace *xs, struct tp_wire *w,
		   struct tp_line *ln, bool leave_tail);

/* A field of a tail_unread line met by its scan (not an event). */
void tp_line_tail_field(struct tp_line *ln, const struct tp_field *f);
/* The rest of a tail_unread line's framing from `from` (the end of the
 * event its scan failed on): a damaged framing there replaces the
 * scan's error (scan_error, framing_error), as it would come first. */
void tp_line_walk_tail(const struct tp_xspace *xs, struct tp_line *ln,
		       const uint8_t *from);

/* Counts the LEN fields numbered numbers[i] directly in w's range into
 * n[i], k numbers in one pass; on corrupt bytes -1 with the error in w0
 * (xspace_meta.c). */
int tp_count_fields_of(struct tp_wire *w0, const uint32_t *numbers, size_t k,
		       size_t *n);
/* Decodes (validating) every stat numbered `number` of w, `counted` of
 * them, into an arena array. -1 on corrupt bytes (in w). */
int tp_stat_list_decode(struct tp_arena *arena, struct tp_wire *w,
			uint32_t number, size_t counted, struct tp_stat **out, size_t *n);
/* Reads the event_metadata (4) and stat_metadata (5) maps of a plane, as
 * many as pl->n_event_meta and n_stat_meta say (the caller counted), and
 * builds their indexes. -1 on corrupt bytes (in pw). */
int tp_plane_maps_decode(struct tp_arena *arena, struct tp_wire *pw,
			 struct tp_plane *pl);

/* Device time (device_offset_ps, device_duration_ps) met in the stats. */
struct device_time {
	int64_t off, dur;
	int found;               /* bit 0: offset seen, bit 1: duration */
};


/* A varint of the message ending at end. slack is the end of the file:
 * while eight bytes remain before it, the varint is read with one load
 * and no branch per byte (lengths vary from event to event, so per-byte
 * branches mispredict), then tested against end once. NULL when
 * truncated or longer than ten bytes. */
static inline __attribute__((always_inline)) const uint8_t *
fast_varint(const uint8_t *p, const uint8_t *end, const uint8_t *slack,
	    uint64_t *out)
{
	/* one-byte varints (tags' values, ids, lengths) at fixed places
	 * in every event: a well-predicted branch */
	if (p < end && *p < 0x80) {
		*out = *p;
		return p + 1;
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (slack - p >= 8) {
		uint64_t w, stop;
		unsigned bits;

		memcpy(&w, p, sizeof(w));
		stop = ~w & UINT64_C(0x8080808080808080);
		if (stop) {
			bits = (unsigned)__builtin_ctzll(stop) + 1; /* 8 * length */
			if (p + bits / 8 > end)
				return NULL;
			if (bits < 64)
				w &= (UINT64_C(1) << bits) - 1;
			/* drop each byte's continuation bit: 8x7 -> 4x14 -> 2x28 -> 56 */
			w = ((w & UINT64_C(0x7f007f007f007f00)) >> 1) |
			    (w & UINT64_C(0x007f007f007f007f));
			w = ((w & UINT64_C(0x3fff00003fff0000)) >> 2) |
			    (w & UINT64_C(0x00003fff00003fff));
			w = ((w & UINT64_C(0x0fffffff00000000)) >> 4) |
			    (w & UINT64_C(0x000000000fffffff));
			*out = w;
			return p + bits / 8;
		}
	}
#else
	(void)slack;
#endif
	return tp_wire_varint_slow(&p, end, out) ? p : NULL;
}

/* The end of a varint whose value is not needed: fast_varint's checks,
 * without putting the bits together. */
static inline __attribute__((always_inline)) const uint8_t *
skip_varint(const uint8_t *p, const uint8_t *end, const uint8_t *slack)
{
	uint64_t v;

	if (p < end && *p < 0x80)
		return p + 1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (slack - p >= 8) {
		uint64_t w, stop;

		memcpy(&w, p, sizeof(w));
		stop = ~w & UINT64_C(0x8080808080808080);
		if (stop) {
			p += ((unsigned)__builtin_ctzll(stop) + 1) / 8;
			return p > end ? NULL : p;
		}
	}
#endif
	return fast_varint(p, end, slack, &v);
}

/* A line's reading bounded by its gaps (struct tp_gap, xspace_gaps.c):
 * *g the first gap from w->p before end (the line's end), NULL if none,
 * and w->end that gap's `from`, else end. */
void tp_gap_bound(const struct tp_xspace *xs, struct tp_wire *w,
		  const struct tp_gap **g, const uint8_t *end);
/* tp_wire_next over a line bounded by tp_gap_bound: at a gap, the field
 * it cuts, read whole from its copy (*cut set; f->offset where it begins
 * in the bytes, w going on after it), or, where no field is cut, the
 * field after the header. 0 at the line's end, -1 on corrupt bytes or a
 * copy that is not one field (w->error set). */
int tp_gap_next(const struct tp_xspace *xs, struct tp_wire *w,
		const struct tp_gap **g, const uint8_t *end,
		struct tp_field *f, bool *cut);

/* Drops the pages a long line's reader has left behind, every few MiB
 * (xspace_event.c). */
void tp_event_iter_drop_behind(struct tp_event_iter *it);
/* A long line's pages made an area of the mapping of their own, so that
 * a fault outside it never maps them (xspace_drop.c); only where the
 * bytes map a file (tp_xspace.drop_pages). */
void tp_xspace_own_area(const struct tp_xspace *xs, const void *p, size_t len);

/* The scan's order check (tp_line.in_order): a timed event that sorts
 * before the one before it, by (start ascending, duration descending),
 * clears it. */
static inline void tp_line_note_key(struct tp_line *ln, int64_t start_ps, int64_t dur_ps)
{
	int64_t dur = dur_ps > 0 ? dur_ps : 0;

	if (start_ps < ln->last_key_start_ps ||
	    (start_ps == ln->last_key_start_ps && dur > ln->last_key_dur_ps))
		ln->in_order = false;
	ln->last_key_start_ps = start_ps;
	ln->last_key_dur_ps = dur;
}

#endif
