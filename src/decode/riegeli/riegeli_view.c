/*
 * riegeli_view.c - the merged XSpace as a view: one address range in
 * which every aligned segment (a chunk's long line, riegeli_internal.h)
 * is the spill file's own pages, mapped in place, and everything else
 * (planes' and lines' fields, metadata, short segments, the segment
 * markers) is a second temporary file, the glue, mapped under them.
 * Nothing of a long line is copied after the merge spilled it once, and
 * no event is rewritten: each segment keeps its chunk's time base, which
 * the marker before it gives the event iterator (xspace.h).
 *
 * The glue is written at the view's own offsets (what lies under the
 * spill's pages is a hole in it), so one mapping of the glue and one per
 * segment make the view. Segments start and end on pages: a marker pads
 * the glue up to the page a segment starts on, and the merge padded the
 * segment to the end of its last page. Plane and line lengths are
 * written as six-byte varints (valid, not minimal), so a plane is laid
 * out once to measure it and once to write it, both passes placing
 * everything at the same offsets.
 */
#include "riegeli_internal.h"

#include "tpuprof/decode/xspace.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FIXED_LEN 6   /* lengths up to 4 TiB */

/* A range of the view that is spill pages, or the input's (seg: an
 * in-place segment's whole pages, off a file position). */
struct hole {
	uint64_t at, off, len;
	const struct rg_segment *seg;
};

struct view {
	const uint8_t *spill;
	const uint8_t *input;   /* in-place segments' file (rg_model)  */
	int input_fd;
	uintptr_t *kept;        /* patched pages (tp_riegeli_xspace)   */
	size_t n_kept, cap_kept;
	bool dry;               /* measuring: nothing written          */
	uint64_t pos;           /* the view's next offset              */
	size_t mapped;          /* segments mapped so far              */
	struct rg_buf buf;      /* glue bytes from buf_at, unwritten    */
	uint64_t buf_at;
	int glue;
	bool io_failed;
	bool too_long;          /* a plane past FIXED_LEN's lengths    */
	uint64_t page;
	struct hole *holes;
	size_t n_holes, cap_holes;
};

#define BUF_BYTES ((size_t)1 << 20)

/* n bytes at the glue's offset at. */
static void write_at(struct view *v, const uint8_t *p, size_t n, uint64_t at)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k = pwrite(v->glue, p + done, n - done, (off_t)(at + done));

		if (k <= 0) {
			v->io_failed = true;
			return;
		}
		done += (size_t)k;
	}
}

static void flush(struct view *v)
{
	write_at(v, v->buf.p, v->buf.n, v->buf_at);
	v->buf_at += v->buf.n;
	v->buf.n = 0;
}

/* Glue bytes; a long run (a copied segment) is written from where it
 * lies, not gathered into the buffer. */
static void put(struct view *v, const void *p, size_t n)
{
	v->pos += n;
	if (v->dry)
		return;
	if (v->buf.n + n > BUF_BYTES) {
		flush(v);
		if (n >= BUF_BYTES) {
			write_at(v, p, n, v->buf_at);
			v->buf_at += n;
			return;
		}
	}
	rg_put(&v->buf, p, n);
}

static void put_buf(struct view *v, const struct rg_buf *b)
{
	put(v, b->p, b->n);
}

/* A length-delimited field's tag and length, the length FIXED_LEN bytes
 * long whatever its value. */
static void put_fixed_head(struct view *v, uint32_t number, uint64_t len)
{
	struct rg_buf b = { 0 };
	uint8_t room[16];

	b.p = room;
	b.cap = sizeof(room);
	rg_put_tag(&b, number, TP_WIRE_LEN);
	for (int i = 0; i < FIXED_LEN; i++) {
		room[b.n++] = (uint8_t)(len & 0x7f) | (i + 1 < FIXED_LEN ? 0x80 : 0);
		len >>= 7;
	}
	put(v, room, b.n);
}

static void put_field(struct view *v, uint32_t number, const void *p, size_t n)
{
	struct rg_buf b = { 0 };

	rg_put_tag(&b, number, TP_WIRE_LEN);
	rg_put_varint(&b, n);
	put_buf(v, &b);
	free(b.p);
	put(v, p, n);
}

static void put_int(struct view *v, uint32_t number, int64_t value)
{
	struct rg_buf b = { 0 };

	if (!value)
		return;
	rg_put_tag(&b, number, TP_WIRE_VARINT);
	rg_put_varint(&b, (uint64_t)value);
	put_buf(v, &b);
	free(b.p);
}

static void put_str(struct view *v, uint32_t number, const char *p, size_t n)
{
	if (n)
		put_field(v, number, p, n);
}

/* A segment marker of exactly size bytes (zeros after the shift). */
static void put_marker(struct view *v, uint64_t size, int64_t shift)
{
	uint8_t *m;

	if (v->dry) {
		v->pos += size;
		return;
	}
	m = tp_xmalloc((size_t)size);

	rg_pad_field(m, TP_XLINE_SEGMENT_FIELD, size, true, (uint64_t)shift);
	put(v, m, (size_t)size);
	free(m);
}

/* n data bytes of the input from file position at, block headers left
 * out. */
static void put_input(struct view *v, uint64_t at, uint64_t n)
{
	while (n) {
		uint64_t take = rg_data_run(&at, n);

		put(v, v->dry ? NULL : v->input + at, (size_t)take);
		at += take;
		n -= take;
	}
}

/* The smallest marker from which the view's next byte is at offset
 * `to` within a page (the page itself to copy a segment: any offset). */
static uint64_t marker_size(const struct view *v, int64_t shift, uint64_t to)
{
	uint64_t size = to >= v->page ? 3 :
			(to + v->page - v->pos % v->page) % v->page;

	while (!rg_pad_field(NULL, TP_XLINE_SEGMENT_FIELD, size, true,
			     (uint64_t)shift))
		size += to >= v->page ? 1 : v->page;
	return size;
}

/* One segment: its marker, then its events, mapped (the marker pads the
 * glue to the page the segment starts on) or copied. */
static void put_segment(struct view *v, const struct rg_line *l,
			const struct rg_segment *s)
{
	int64_t shift = rg_segment_shift(l, s);

	if (!s->aligned || v->mapped >= tp_riegeli_max_mapped) {
		put_marker(v, marker_size(v, shift, v->page), shift);
		put(v, v->dry ? NULL : v->spill + s->bytes.off,
		    (size_t)s->bytes.len);
		return;
	}
	put_marker(v, marker_size(v, shift, 0), shift);
	v->mapped++;
	if (!v->dry) {
		flush(v);
		v->holes = tp_xgrow(v->holes, &v->cap_holes, v->n_holes + 1,
				    sizeof(*v->holes));
		v->holes[v->n_holes++] = (struct hole){
			v->pos, s->bytes.off, s->bytes.len, NULL };
		v->buf_at = v->pos + s->bytes.len;
	}
	v->pos += s->bytes.len;
}

/* An in-place segment: the bytes before its first whole page and after
 * its last copied into the glue, its whole pages a hole the input's
 * pages fill (patched: map_in_place), at the same offsets within a
 * page as in the file. Copied whole past the view's mapping limit. */
static void put_in_place(struct view *v, const struct rg_line *l,
			 const struct rg_segment *s)
{
	int64_t shift = rg_segment_shift(l, s);
	uint64_t first = rg_round_up(s->at, v->page);
	uint64_t last = s->end / v->page * v->page;
	uint64_t head = first - s->at;   /* no header in it: a header
					  * starts a page */
	uint64_t whole = last - first - (uint64_t)s->n_patches * RG_BLOCK_HEADER;

	if (v->mapped >= tp_riegeli_max_mapped) {
		put_marker(v, marker_size(v, shift, v->page), shift);
		put_input(v, s->at, s->bytes.len);
		return;
	}
	put_marker(v, marker_size(v, shift, s->at % v->page), shift);
	v->mapped++;
	put_input(v, s->at, head);
	if (!v->dry) {
		flush(v);
		v->holes = tp_xgrow(v->holes, &v->cap_holes, v->n_holes + 1,
				    sizeof(*v->holes));
		v->holes[v->n_holes++] = (struct hole){
			v->pos, first, last - first, s };
		v->buf_at = v->pos + (last - first);
	}
	v->pos += last - first;
	put_input(v, last, s->bytes.len - head - whole);
}

/* A line's fields, in the order protobuf writes them: id, name and
 * timestamp before the events, the rest after. */
static void put_line_body(struct view *v, const struct rg_line *l)
{
	put_int(v, 1, l->id);
	put_str(v, 2, l->name, l->name_len);
	put_int(v, 3, l->timestamp_ns);
	for (size_t s = 0; s < l->n_segs; s++) {
		if (l->segs[s].in_place)
			put_in_place(v, l, &l->segs[s]);
		else
			put_segment(v, l, &l->segs[s]);
	}
	put_int(v, 9, l->duration_ps);
	put_int(v, 10, l->display_id);
	put_str(v, 11, l->display_name, l->display_name_len);
}

static void put_span(struct view *v, uint32_t number, struct rg_span s)
{
	put_field(v, number, v->dry ? NULL : v->spill + s.off, (size_t)s.len);
}

/* A plane's fields; the lines' lengths come from the measuring pass
 * (rg_line.view_len). */
static void put_plane_body(struct view *v, struct rg_plane *p)
{
	put_int(v, 1, p->id);
	put_str(v, 2, p->name, p->name_len);
	for (size_t i = 0; i < p->n_lines; i++) {
		struct rg_line *l = &p->lines[i];
		uint64_t start;

		put_fixed_head(v, 3, l->view_len);
		start = v->pos;
		put_line_body(v, l);
		l->view_len = v->pos - start;
	}
	for (size_t i = 0; i < p->n_events; i++)
		put_span(v, 4, p->events[i].bytes);
	for (size_t i = 0; i < p->n_stats; i++)
		put_span(v, 5, p->stats[i].bytes);
	for (size_t i = 0; i < p->n_plane_stats; i++)
		put_span(v, 6, p->plane_stats[i]);
}

/* A plane measured (the same layout, nothing written), then written. */
static void put_plane(struct view *v, struct rg_plane *p)
{
	uint64_t pos = v->pos, start;
	size_t mapped = v->mapped;

	v->dry = true;
	put_fixed_head(v, 1, 0);
	start = v->pos;
	put_plane_body(v, p);
	v->dry = false;
	start = v->pos - start;   /* the plane's length */
	if (start >> (7 * FIXED_LEN))
		v->too_long = true;
	v->pos = pos;
	v->mapped = mapped;
	put_fixed_head(v, 1, start);
	put_plane_body(v, p);
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
	rg_pad_field(pg + a, TP_XLINE_PADDING_FIELD, RG_BLOCK_HEADER, false, 0);
}

/* An in-place hole: the input's pages mapped privately, each header's
 * page patched (a copy of the page, kept: never dropped), then made
 * read-only. False when the mapping fails. */
static bool map_in_place(struct view *v, uint8_t *base, const struct hole *h)
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
static void write_in_place(struct view *v, const struct hole *h)
{
	uint64_t b = rg_round_up(h->off, RG_BLOCK);
	uint8_t *pg = tp_xmalloc((size_t)v->page);

	write_at(v, v->input + h->off, (size_t)h->len, h->at);
	for (size_t k = 0; k < h->seg->n_patches; k++, b += RG_BLOCK) {
		memcpy(pg, v->input + b, (size_t)v->page);
		patch_page(pg, h->seg->patches[k]);
		write_at(v, pg, (size_t)v->page, h->at + (b - h->off));
	}
	free(pg);
}

/* The glue mapped whole, then each segment's pages over their holes. A
 * segment that cannot be mapped (the process's map count) is written
 * into the glue's hole instead, which the glue's mapping then shows. */
static uint8_t *map_view(struct view *v, int spill_fd)
{
	uint8_t *base;

	if (ftruncate(v->glue, (off_t)v->pos) != 0)
		return NULL;
	base = mmap(NULL, (size_t)v->pos, PROT_READ, MAP_PRIVATE, v->glue, 0);
	if (base == MAP_FAILED)
		return NULL;
	for (size_t i = 0; i < v->n_holes; i++) {
		const struct hole *h = &v->holes[i];

		if (h->seg && map_in_place(v, base, h))
			continue;
		if (!h->seg && !tp_riegeli_refuse_maps &&
		    mmap(base + h->at, (size_t)h->len, PROT_READ,
			 MAP_PRIVATE | MAP_FIXED, spill_fd, (off_t)h->off) !=
		    MAP_FAILED)
			continue;
		if (h->seg)
			write_in_place(v, h);
		else
			write_at(v, v->spill + h->off, (size_t)h->len, h->at);
		if (v->io_failed ||
		    (!still_mapped(base + h->at, h->len, v->page) &&
		     mmap(base + h->at, (size_t)h->len, PROT_READ,
			  MAP_PRIVATE | MAP_FIXED, v->glue, (off_t)h->at) ==
		     MAP_FAILED)) {
			munmap(base, (size_t)v->pos);
			return NULL;
		}
	}
	return base;
}

enum tp_err rg_view(struct rg_model *m, const uint8_t *spill,
		    struct tp_riegeli_xspace *out, struct tp_error *err)
{
	struct view v = { .spill = spill, .page = m->page, .input = m->input,
			  .input_fd = m->input_fd };
	FILE *glue = rg_tmpfile();
	uint8_t *base = NULL;

	if (!glue)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: cannot create a temporary file for the merged capture (TMPDIR)",
				    m->shown);
	v.glue = fileno(glue);
	for (size_t i = 0; i < m->n_planes; i++)
		put_plane(&v, &m->planes[i]);
	for (unsigned kind = 2; kind <= 4; kind++)
		for (size_t i = 0; i < m->n_strs[kind]; i++)
			put_field(&v, kind, m->strs[kind][i].p,
				  m->strs[kind][i].n);
	flush(&v);
	if (v.too_long) {
		free(v.buf.p);
		free(v.holes);
		free(v.kept);
		fclose(glue);
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: a merged plane over 4 TiB: not supported",
				    m->shown);
	}
	if (!v.io_failed && v.pos)
		base = map_view(&v, fileno(m->spill));
	free(v.buf.p);
	free(v.holes);
	fclose(glue);
	if (v.io_failed || (v.pos && !base)) {
		free(v.kept);
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: cannot write the merged capture to a temporary file (TMPDIR)",
				    m->shown);
	}
	out->kept_pages = v.kept;
	out->n_kept_pages = v.n_kept;
	m->kept_reserved -= v.n_kept;  /* the view's now; the rest, not
					* mapped, given back with m */
	out->data = out->map = base;
	out->size = out->map_len = (size_t)v.pos;
	out->segment_shifts = true;
	return TP_OK;
}
