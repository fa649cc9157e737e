/*
 * xspace_internal.h - helpers shared by the xspace_*.c files only.
 */
#ifndef TPUPROF_XSPACE_INTERNAL_H
#define TPUPROF_XSPACE_INTERNAL_H

#include "tpuprof/xspace.h"

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

#endif
