/*
 * riegeli_view.h - private to riegeli_view.c (the view laid out: the
 * glue written, the holes listed) and riegeli_view_map.c (the glue's
 * writer; the glue and the holes mapped into one address range). The
 * build state is the caller's, on its stack; gaps and gap_fields are
 * handed to tp_riegeli_xspace on success and freed by rg_view
 * otherwise.
 */
#ifndef TPUPROF_RIEGELI_VIEW_H
#define TPUPROF_RIEGELI_VIEW_H

#include "riegeli_internal.h"

/* The huge page a view's long in-place segments are aligned to, and
 * the view itself. */
#define RG_HUGE_PAGE ((uint64_t)2 << 20)

/* A range of the view that is spill pages, or the input's (seg: an
 * in-place segment's whole pages, off a file position). */
struct rg_hole {
	uint64_t at, off, len;
	const struct rg_segment *seg;
};

struct rg_view_build {
	const uint8_t *spill;
	const uint8_t *input;   /* in-place segments' file (rg_model)  */
	int input_fd;
	struct tp_gap *gaps;    /* in-place holes' block headers        */
	size_t n_gaps, cap_gaps;
	uint8_t *gap_fields;    /* the events they cut (note_gaps)      */
	size_t n_gap_fields, cap_gap_fields;
	bool dry;               /* measuring: nothing written          */
	uint64_t pos;           /* the view's next offset              */
	size_t mapped;          /* segments mapped so far              */
	struct rg_buf buf;      /* glue bytes from buf_at, unwritten    */
	uint64_t buf_at;
	int glue;
	int io_errno;            /* first failed write: errno, else 0 */
	bool too_long;          /* a plane past the fixed lengths'     */
	uint64_t page;
	struct rg_hole *holes;
	size_t n_holes, cap_holes;
};

/* n bytes at the glue's offset at; io_errno set on a short write. */
void rg_view_write_at(struct rg_view_build *v, const uint8_t *p, size_t n,
		      uint64_t at);

/* The glue (v->pos bytes) mapped whole, each hole's pages over it; NULL
 * when that cannot be done (nothing left mapped). */
uint8_t *rg_view_map(struct rg_view_build *v, int spill_fd);

#endif
