/*
 * riegeli_view_map.c - the view's address range made: the glue mapped
 * whole, then each hole over it: spill pages, or an in-place segment's
 * input pages as they are, block headers and all, each header a gap the
 * decoder steps over (struct tp_gap: listed here, with a copy of the
 * event it cuts); where a mapping fails, the bytes written into the
 * glue, which shows them. The glue's writer, rg_view_write_at, is here
 * too: riegeli_view.c writes the rest of the glue with it.
 */
#include "riegeli_view.h"

#include "tpuprof/decode/xspace.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void rg_view_write_at(struct rg_view_build *v, const uint8_t *p, size_t n,
		      uint64_t at)
{
	size_t done = 0;

	while (done < n) {
		size_t room = RG_WRITE_PIECE - (size_t)((at + done) % RG_WRITE_PIECE);
		ssize_t k = pwrite(v->glue, p + done,
				   n - done < room ? n - done : room,
				   (off_t)(at + done));

		if (k <= 0) {
			rg_note_io(&v->io_errno);
			return;
		}
		done += (size_t)k;
	}
}

/* Whether [p, p+len) is still mapped (a failed MAP_FIXED may or may not
 * have unmapped what it was to replace). */
static bool still_mapped(const uint8_t *p, uint64_t len, uint64_t page)
{
	unsigned char *vec = tp_xmalloc((size_t)((len + page - 1) / page) + 1);
	bool ok = mincore((void *)p, (size_t)len, vec) == 0;

	free(vec);
	return ok;
}

/* [at, at+len) of the view, already written into the glue, shown from
 * it: the glue's mapping is still there, or mapped again where a failed
 * MAP_FIXED took it away. False when it cannot be. */
static bool show_from_glue(struct rg_view_build *v, uint8_t *base,
			   uint64_t at, uint64_t len)
{
	return !v->io_errno &&
	       (still_mapped(base + at, len, v->page) ||
		mmap(base + at, (size_t)len, PROT_READ,
		     MAP_PRIVATE | MAP_FIXED, v->glue, (off_t)at) !=
		MAP_FAILED);
}

/* The gaps of an in-place hole (its segment's cuts), in view offsets,
 * their cut events' bytes copied into v->gap_fields (struct tp_gap's
 * field is an offset into it until rg_view_map ends). */
static void note_gaps(struct rg_view_build *v, const struct rg_hole *h)
{
	const struct rg_segment *s = h->seg;

	v->gaps = tp_xgrow(v->gaps, &v->cap_gaps, v->n_gaps + s->n_cuts,
			   sizeof(*v->gaps));
	for (size_t k = 0; k < s->n_cuts; k++) {
		const struct rg_cut *c = &s->cuts[k];
		struct tp_gap *g = &v->gaps[v->n_gaps++];

		g->from = (size_t)((int64_t)h->at + c->from);
		g->resume = (size_t)(h->at + c->resume);
		g->len = c->len;
		g->field = NULL;
		if (c->len && k && c->at == c[-1].at && c[-1].len) {
			g->field = g[-1].field;   /* the event the last one cut */
		} else if (c->len) {
			/* the offset + 1 until the bytes stop moving */
			g->field = (const uint8_t *)(uintptr_t)(v->n_gap_fields + 1);
			v->gap_fields = tp_xgrow(v->gap_fields, &v->cap_gap_fields,
						 v->n_gap_fields + c->len + 16, 1);
			memcpy(v->gap_fields + v->n_gap_fields,
			       s->cut_bytes + c->at, c->len);
			memset(v->gap_fields + v->n_gap_fields + c->len, 0, 16);
			v->n_gap_fields += c->len + 16;
		}
	}
}

/* An in-place segment's hole: the input's pages mapped as they are,
 * else written into the glue, which shows them; its gaps noted. */
static bool map_segment_hole(struct rg_view_build *v, uint8_t *base,
			     const struct rg_hole *h)
{
	note_gaps(v, h);
	if (!tp_riegeli_refuse_maps &&
	    mmap(base + h->at, (size_t)h->len, PROT_READ,
		 MAP_PRIVATE | MAP_FIXED, v->input_fd, (off_t)h->off) !=
	    MAP_FAILED)
		return true;
	rg_view_write_at(v, v->input + h->off, (size_t)h->len, h->at);
	return show_from_glue(v, base, h->at, h->len);
}

/* A spilled segment's hole: the spill's pages mapped, else written into
 * the glue. */
static bool map_spill_hole(struct rg_view_build *v, uint8_t *base,
			   const struct rg_hole *h, int spill_fd)
{
	if (!tp_riegeli_refuse_maps &&
	    mmap(base + h->at, (size_t)h->len, PROT_READ,
		 MAP_PRIVATE | MAP_FIXED, spill_fd, (off_t)h->off) !=
	    MAP_FAILED)
		return true;
	rg_view_write_at(v, v->spill + h->off, (size_t)h->len, h->at);
	return show_from_glue(v, base, h->at, h->len);
}

/* The glue (n bytes of fd) mapped whole at a huge page's start, where
 * the segments aligned within a huge page (riegeli_view.c) agree with
 * their file offsets: a range a huge page larger reserved first, the
 * glue mapped over it and the rest let go. NULL when nothing could be
 * mapped. */
static uint8_t *map_aligned(int fd, size_t n)
{
	size_t slack = (size_t)RG_HUGE_PAGE;
	uint8_t *r = mmap(NULL, n + slack, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uint8_t *base;
	uintptr_t a;

	if (r == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)r + slack - 1) / slack * slack;
	base = mmap((void *)a, n, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
	if (base == MAP_FAILED) {
		munmap(r, n + slack);
		return NULL;
	}
	if (base > r)
		munmap(r, (size_t)(base - r));
	if (r + n + slack > base + n)
		munmap(base + n, (size_t)(r + n + slack - (base + n)));
	return base;
}

/* The glue mapped whole, then each segment's pages over their holes. A
 * segment that cannot be mapped (the process's map count) is written
 * into the glue's hole instead, which the glue's mapping then shows. */
uint8_t *rg_view_map(struct rg_view_build *v, int spill_fd)
{
	uint8_t *base;

	if (ftruncate(v->glue, (off_t)v->pos) != 0)
		return NULL;
	base = map_aligned(v->glue, (size_t)v->pos);
	if (!base)
		return NULL;
	for (size_t i = 0; i < v->n_holes; i++) {
		const struct rg_hole *h = &v->holes[i];

		if (!(h->seg ? map_segment_hole(v, base, h) :
			       map_spill_hole(v, base, h, spill_fd))) {
			munmap(base, (size_t)v->pos);
			return NULL;
		}
	}
	for (size_t k = 0; k < v->n_gaps; k++)
		if (v->gaps[k].field)
			v->gaps[k].field = v->gap_fields +
					   ((uintptr_t)v->gaps[k].field - 1);
	return base;
}
