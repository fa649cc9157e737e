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

/* Long lines whose framing walk waits for threads (xspace_framing.c). */
struct tp_framing {
	struct tp_line **lines;  /* malloc'd                            */
	size_t n, cap;
	struct tp_wire *errors;  /* malloc'd by tp_framing_run, per line */
};

/* Reads an XLine's fields from w (the line's bytes), walking past every
 * event's framing; with pending, a long line is only recorded for
 * tp_framing_run. -1 on corrupt bytes, the error in w. */
int tp_line_header(const struct tp_xspace *xs, struct tp_wire *w,
		   struct tp_line *ln, struct tp_framing *pending);
/* Walks the pending lines on up to `threads` threads; -1 with the first
 * damaged byte (in file order) in *bad. */
int tp_framing_run(const struct tp_xspace *xs, struct tp_framing *pending,
		   unsigned threads, struct tp_wire *bad);
void tp_framing_release(struct tp_framing *pending);

#endif
