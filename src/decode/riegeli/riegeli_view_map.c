/*
 * riegeli_view_map.c - the view's address range made: the glue mapped
 * whole, then each hole over it: spill pages, or an in-place segment's
 * input pages with each block header's page patched (written into the
 * glue and the runs between mapped one by one, within the map count;
 * past it private copies of the pages, kept); where a mapping fails,
 * the bytes written into the glue, which shows them. The glue's
 * writer, rg_view_write_at, is here too: riegeli_view.c writes the rest
 * of the glue with it.
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
			v->io_failed = true;
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
	return !v->io_failed &&
	       (still_mapped(base + at, len, v->page) ||
		mmap(base + at, (size_t)len, PROT_READ,
		     MAP_PRIVATE | MAP_FIXED, v->glue, (off_t)at) !=
		MAP_FAILED);
}

/* A page of an in-place segment with its block header taken out: the
 * a bytes after it moved up, a padding field of its size after them, so
 * that the rest of the page is where it was. */
static void patch_page(uint8_t *pg, uint16_t a)
{
	/* written before it is read: a write fault copies this one page,
	 * where a read fault would map the pages around it too (the
	 * kernel's fault-around), the whole view in the end */
	*(volatile uint8_t *)pg = 0;
	memmove(pg, pg + RG_BLOCK_HEADER, a);
	rg_pad_field(pg + a, TP_XLINE_PADDING_FIELD, RG_BLOCK_HEADER, NULL, 0);
}

/* An in-place hole: the input's pages mapped privately, each header's
 * page patched (a copy of the page, kept: never dropped), then made
 * read-only. False when the mapping fails. */
static bool map_in_place(struct rg_view_build *v, uint8_t *base,
			 const struct rg_hole *h)
{
	uint8_t *at = base + h->at;
	uint64_t b = rg_round_up(h->off, RG_BLOCK);

	if (tp_riegeli_refuse_maps ||
	    mmap(at, (size_t)h->len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_FIXED, v->input_fd, (off_t)h->off) ==
	    MAP_FAILED)
		return false;
	v->kept = tp_xgrow(v->kept, &v->cap_kept, v->n_kept + h->seg->n_patches,
			   sizeof(*v->kept));
	for (size_t k = 0; k < h->seg->n_patches; k++, b += RG_BLOCK) {
		patch_page(at + (b - h->off), h->seg->patches[k]);
		v->kept[v->n_kept++] = (uintptr_t)(at + (b - h->off));
	}
	/* on failure the pages stay writable: nothing writes them */
	mprotect(at, (size_t)h->len, PROT_READ);
	return true;
}

/* What map_in_place would show, written into the glue's hole. */
static void write_in_place(struct rg_view_build *v, const struct rg_hole *h)
{
	uint64_t b = rg_round_up(h->off, RG_BLOCK);
	uint8_t *pg = tp_xmalloc((size_t)v->page);

	rg_view_write_at(v, v->input + h->off, (size_t)h->len, h->at);
	for (size_t k = 0; k < h->seg->n_patches; k++, b += RG_BLOCK) {
		memcpy(pg, v->input + b, (size_t)v->page);
		patch_page(pg, h->seg->patches[k]);
		rg_view_write_at(v, pg, (size_t)v->page, h->at + (b - h->off));
	}
	free(pg);
}

/* [from, to) of an in-place hole mapped from the input over the glue;
 * where that fails, written into the glue, which shows it (mapped again
 * over it if the failed MAP_FIXED took the glue's mapping away). False
 * when neither can be done. */
static bool map_run(struct rg_view_build *v, uint8_t *base,
		    const struct rg_hole *h, uint64_t from, uint64_t to)
{
	uint8_t *at = base + h->at + from;

	if (mmap(at, (size_t)(to - from), PROT_READ, MAP_PRIVATE | MAP_FIXED,
		 v->input_fd, (off_t)(h->off + from)) != MAP_FAILED) {
		v->n_page_maps++;
		return true;
	}
	rg_view_write_at(v, v->input + h->off + from, (size_t)(to - from),
			 h->at + from);
	return show_from_glue(v, base, h->at + from, to - from);
}

/* An in-place hole whose patched pages are the glue's: each written into
 * the glue's hole (read from the input with pread: the input's mapping
 * is not touched), the input's runs between them mapped over it, so that
 * every page can be dropped and read back. Costs a mapping per block
 * (two areas of the map count), within tp_riegeli_max_page_maps: 0 when
 * that is used up or maps are refused (map_in_place then), 1 done, -1
 * when the view cannot be made. */
static int map_runs(struct rg_view_build *v, uint8_t *base,
		    const struct rg_hole *h)
{
	size_t n = h->seg->n_patches, before = v->n_page_maps;
	uint64_t b = rg_round_up(h->off, RG_BLOCK), from = 0;
	uint8_t *pg;
	bool ok = true;

	if (tp_riegeli_refuse_maps || !rg_reserve_page_maps(n + 1))
		return 0;
	pg = tp_xmalloc((size_t)v->page);
	for (size_t k = 0; ok && k < n; k++, b += RG_BLOCK) {
		uint64_t at = b - h->off;

		if (pread(v->input_fd, pg, (size_t)v->page, (off_t)b) !=
		    (ssize_t)v->page) {
			v->io_failed = true;
			break;
		}
		patch_page(pg, h->seg->patches[k]);
		rg_view_write_at(v, pg, (size_t)v->page, h->at + at);
		if (at > from)
			ok = map_run(v, base, h, from, at);
		from = at + v->page;
	}
	if (ok && !v->io_failed && from < h->len)
		ok = map_run(v, base, h, from, h->len);
	free(pg);
	/* the runs not mapped given back */
	tp_riegeli_page_maps_release(n + 1 - (v->n_page_maps - before));
	return ok && !v->io_failed ? 1 : -1;
}

/* An in-place segment's hole: its runs mapped (map_runs), else its
 * pages mapped and kept (map_in_place), else written into the glue. */
static bool map_segment_hole(struct rg_view_build *v, uint8_t *base,
			     const struct rg_hole *h)
{
	int runs = map_runs(v, base, h);

	if (runs)
		return runs > 0;
	if (map_in_place(v, base, h))
		return true;
	write_in_place(v, h);
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

/* The glue mapped whole, then each segment's pages over their holes. A
 * segment that cannot be mapped (the process's map count) is written
 * into the glue's hole instead, which the glue's mapping then shows. */
uint8_t *rg_view_map(struct rg_view_build *v, int spill_fd)
{
	uint8_t *base;

	if (ftruncate(v->glue, (off_t)v->pos) != 0)
		return NULL;
	base = mmap(NULL, (size_t)v->pos, PROT_READ, MAP_PRIVATE, v->glue, 0);
	if (base == MAP_FAILED)
		return NULL;
	for (size_t i = 0; i < v->n_holes; i++) {
		const struct rg_hole *h = &v->holes[i];

		if (!(h->seg ? map_segment_hole(v, base, h) :
			       map_spill_hole(v, base, h, spill_fd))) {
			munmap(base, (size_t)v->pos);
			return NULL;
		}
	}
	return base;
}
