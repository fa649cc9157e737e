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

#endif
