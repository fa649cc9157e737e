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
 * everything at the same offsets. The mapping is riegeli_view_map.c's.
 */
#include "riegeli_view.h"

#include "tpuprof/decode/xspace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXED_LEN 6   /* lengths up to 4 TiB */

#define BUF_BYTES ((size_t)1 << 20)

static void flush(struct rg_view_build *v)
{
	rg_view_write_at(v, v->buf.p, v->buf.n, v->buf_at);
	v->buf_at += v->buf.n;
	v->buf.n = 0;
}

/* Glue bytes; a long run (a copied segment) is written from where it
 * lies, not gathered into the buffer. */
static void put(struct rg_view_build *v, const void *p, size_t n)
{
	v->pos += n;
	if (v->dry)
		return;
	if (v->buf.n + n > BUF_BYTES) {
		flush(v);
		if (n >= BUF_BYTES) {
			rg_view_write_at(v, p, n, v->buf_at);
			v->buf_at += n;
			return;
		}
	}
	rg_put(&v->buf, p, n);
}

static void put_buf(struct rg_view_build *v, const struct rg_buf *b)
{
	put(v, b->p, b->n);
}

/* A length-delimited field's tag and length, the length FIXED_LEN bytes
 * long whatever its value. */
static void put_fixed_head(struct rg_view_build *v, uint32_t number,
			   uint64_t len)
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

static void put_field(struct rg_view_build *v, uint32_t number,
		      const void *p, size_t n)
{
	struct rg_buf b = { 0 };

	rg_put_tag(&b, number, TP_WIRE_LEN);
	rg_put_varint(&b, n);
	put_buf(v, &b);
	rg_buf_free(&b);
	put(v, p, n);
}

static void put_int(struct rg_view_build *v, uint32_t number, int64_t value)
{
	struct rg_buf b = { 0 };

	if (!value)
		return;
	rg_put_tag(&b, number, TP_WIRE_VARINT);
	rg_put_varint(&b, (uint64_t)value);
	put_buf(v, &b);
	rg_buf_free(&b);
}

static void put_str(struct rg_view_build *v, uint32_t number,
		    const char *p, size_t n)
{
	if (n)
		put_field(v, number, p, n);
}

/* What a segment's marker holds (xspace.h): its shift, and 1 + the
 * index of its id map when it keeps its chunk's ids. */
struct marker {
	uint64_t values[2];
	size_t n;
};

static struct marker marker_of(const struct rg_line *l,
			       const struct rg_segment *s)
{
	struct marker k = { { (uint64_t)rg_segment_shift(l, s), s->map }, 2 };

	if (!s->map)
		k.n = 1;
	return k;
}

/* A segment marker of exactly size bytes (zeros after its values). The
 * zeros of one past a page are not written: the glue, a new file, reads
 * them from its hole (a marker aligning a segment to a huge page pads
 * up to 2 MiB). */
static void put_marker(struct rg_view_build *v, uint64_t size,
		       const struct marker *k)
{
	uint8_t head[RG_PAD_HEAD_MAX], *m;
	size_t n;

	if (v->dry) {
		v->pos += size;
		return;
	}
	if (size > v->page) {
		n = rg_pad_head(head, TP_XLINE_SEGMENT_FIELD, size, k->values, k->n);
		put(v, head, n);
		flush(v);
		v->pos += size - n;
		v->buf_at += size - n;
		return;
	}
	m = tp_xmalloc((size_t)size);
	rg_pad_field(m, TP_XLINE_SEGMENT_FIELD, size, k->values, k->n);
	put(v, m, (size_t)size);
	free(m);
}

/* n data bytes of the input from file position at, block headers left
 * out: read with pread, not through the input's mapping, where a read
 * fault maps a whole large folio of the page cache (Linux 6.11 on),
 * megabytes for the few bytes around a segment's whole pages (the
 * mapping where the file reads short). */
static void put_input(struct rg_view_build *v, uint64_t at, uint64_t n)
{
	uint8_t *run = v->dry || !n ? NULL : tp_xmalloc((size_t)RG_BLOCK);

	while (n) {
		uint64_t take = rg_data_run(&at, n);
		const uint8_t *p = v->dry ? NULL : v->input + at;

		if (run && pread(v->input_fd, run, (size_t)take, (off_t)at) ==
			       (ssize_t)take)
			p = run;
		put(v, p, (size_t)take);
		at += take;
		n -= take;
	}
	free(run);
}

/* The smallest marker from which the view's next byte is at offset
 * `to` within a unit of `align` bytes, a power of two (to >= align: any
 * offset, to copy a segment). */
static uint64_t marker_size(const struct rg_view_build *v,
			    const struct marker *k, uint64_t to, uint64_t align)
{
	uint64_t size = to >= align ? 3 : (to + align - v->pos % align) % align;

	while (!rg_pad_head(NULL, TP_XLINE_SEGMENT_FIELD, size, k->values, k->n))
		size += to >= align ? 1 : align;
	return size;
}

/* One segment: its marker, then its events, mapped (the marker pads the
 * glue to the page the segment starts on) or copied. */
static void put_segment(struct rg_view_build *v, const struct rg_line *l,
			const struct rg_segment *s)
{
	struct marker k = marker_of(l, s);
	uint64_t align = s->bytes.len >= 2 * RG_HUGE_PAGE ? RG_HUGE_PAGE :
							    v->page;

	if (!s->aligned || v->mapped >= tp_riegeli_max_mapped) {
		put_marker(v, marker_size(v, &k, v->page, v->page), &k);
		put(v, v->dry ? NULL : v->spill + s->bytes.off,
		    (size_t)s->bytes.len);
		return;
	}
	/* at the spill's offset within a huge page where it holds one, as
	 * put_in_place does for the input's */
	put_marker(v, marker_size(v, &k, s->bytes.off % align, align), &k);
	v->mapped++;
	if (!v->dry) {
		flush(v);
		v->holes = tp_xgrow(v->holes, &v->cap_holes, v->n_holes + 1,
				    sizeof(*v->holes));
		v->holes[v->n_holes++] = (struct rg_hole){
			v->pos, s->bytes.off, s->bytes.len, NULL };
		v->buf_at = v->pos + s->bytes.len;
	}
	v->pos += s->bytes.len;
}

/* An in-place segment: the bytes before its first whole page and after
 * its last copied into the glue, its whole pages a hole the input's
 * pages fill as they are (block headers and all: struct rg_cut), at the
 * same offsets within a page as in the file. Copied whole past the
 * view's mapping limit. */
static void put_in_place(struct rg_view_build *v, const struct rg_line *l,
			 const struct rg_segment *s)
{
	struct marker k = marker_of(l, s);
	uint64_t first = rg_round_up(s->at, v->page);
	uint64_t last = s->end / v->page * v->page;
	uint64_t head = first - s->at;   /* no header in it: a header
					  * starts a page */
	uint64_t whole = last - first - (uint64_t)s->n_cuts * RG_BLOCK_HEADER;
	uint64_t align = s->end - s->at >= 2 * RG_HUGE_PAGE ? RG_HUGE_PAGE :
							       v->page;

	if (v->mapped >= tp_riegeli_max_mapped) {
		put_marker(v, marker_size(v, &k, v->page, v->page), &k);
		put_input(v, s->at, s->bytes.len);
		return;
	}
	/* at the file's offset within a page, or within a huge page where
	 * the segment holds one: the kernel maps a huge folio of the page
	 * cache whole (one entry, not 512) only at an address that agrees
	 * with its file offset there */
	put_marker(v, marker_size(v, &k, s->at % align, align), &k);
	v->mapped++;
	put_input(v, s->at, head);
	if (!v->dry) {
		flush(v);
		v->holes = tp_xgrow(v->holes, &v->cap_holes, v->n_holes + 1,
				    sizeof(*v->holes));
		v->holes[v->n_holes++] = (struct rg_hole){
			v->pos, first, last - first, s };
		v->buf_at = v->pos + (last - first);
	}
	v->pos += last - first;
	put_input(v, last, s->bytes.len - head - whole);
}

/* A line's fields, in the order protobuf writes them: id, name and
 * timestamp before the events, the rest after. */
static void put_line_body(struct rg_view_build *v, const struct rg_line *l)
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

static void put_span(struct rg_view_build *v, uint32_t number,
		     struct rg_span s)
{
	put_field(v, number, v->dry ? NULL : v->spill + s.off, (size_t)s.len);
}

/* A plane's fields; the lines' lengths come from the measuring pass
 * (rg_line.view_len). */
static void put_plane_body(struct rg_view_build *v, struct rg_plane *p)
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
static void put_plane(struct rg_view_build *v, struct rg_plane *p)
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

enum tp_err rg_view(struct rg_model *m, const uint8_t *spill,
		    struct tp_riegeli_xspace *out, struct tp_error *err)
{
	struct rg_view_build v = { .spill = spill, .page = m->page,
				   .input = m->input,
				   .input_fd = m->input_fd };
	FILE *glue = rg_tmpfile(NULL);
	uint8_t *base = NULL;

	if (!glue)
		return rg_tmp_error(err, m->shown, true, errno);
	v.glue = fileno(glue);
	for (size_t i = 0; i < m->n_planes; i++)
		put_plane(&v, &m->planes[i]);
	for (unsigned kind = 2; kind <= 4; kind++)
		for (size_t i = 0; i < m->n_strs[kind]; i++)
			put_field(&v, kind, m->strs[kind][i].p,
				  m->strs[kind][i].n);
	flush(&v);
	if (v.too_long) {
		rg_buf_free(&v.buf);
		free(v.holes);
		fclose(glue);
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: a merged plane over 4 TiB: not supported",
				    m->shown);
	}
	if (!v.io_errno && v.pos && !(base = rg_view_map(&v, fileno(m->spill))))
		rg_note_io(&v.io_errno);
	rg_buf_free(&v.buf);
	free(v.holes);
	fclose(glue);
	if (v.io_errno) {
		free(v.gaps);
		free(v.gap_fields);
		return rg_tmp_error(err, m->shown, false, v.io_errno);
	}
	out->gaps = v.gaps;
	out->n_gaps = v.n_gaps;
	out->gap_fields = v.gap_fields;
	out->data = out->map = base;
	out->size = out->map_len = (size_t)v.pos;
	out->segment_shifts = true;
	out->seg_maps = m->seg_maps;   /* the view's now */
	out->n_seg_maps = m->n_seg_maps;
	m->seg_maps = NULL;
	m->n_seg_maps = m->cap_seg_maps = 0;
	return TP_OK;
}
