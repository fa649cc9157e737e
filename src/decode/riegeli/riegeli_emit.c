/*
 * riegeli_emit.c - the whole merge: chunks read (riegeli.c), merged
 * (riegeli_lines.c), and the merged XSpace made a view (riegeli_view.c)
 * or, with tp_riegeli_opts.flat, written out here as one standard
 * serialized XSpace (fields in the order protobuf writes them, so a
 * line's id, name and timestamp come before its events as the decoder
 * expects) to a temporary file (riegeli_buf.c) and mapped.
 *
 * Flat, a line's events are its segments in merge order; a segment whose
 * time base is later than the merged line's start has each event's
 * offset_ps moved by the difference, so every event keeps its absolute
 * time as XProf's merge gives it.
 */
#include "riegeli_internal.h"

#include "tpuprof/decode/riegeli.h"
#include "tpuprof/util/util.h"
#include "tpuprof/decode/wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <unistd.h>

/* An event field moved by shift picoseconds: into b when b is not
 * NULL; the field's new size either way. */
static size_t shifted_event(const uint8_t *ev, size_t len, int64_t shift,
			    struct rg_buf *b)
{
	struct tp_wire w;
	struct tp_field f;
	bool has_offset = false, aggregate = false;
	size_t n = 0, at = b ? rg_open_field(b, 4) : 0;

	tp_wire_init(&w, ev, ev, len);
	while (tp_wire_next(&w, &f) > 0) {
		size_t raw = (size_t)(w.p - ev) - f.offset;

		if (f.number == 2 && f.type == TP_WIRE_VARINT) {
			uint64_t v = (uint64_t)((int64_t)f.value + shift);

			has_offset = true;
			n += 1 + rg_varint_size(v);
			if (b) {
				rg_put_tag(b, 2, TP_WIRE_VARINT);
				rg_put_varint(b, v);
			}
			continue;
		}
		if (f.number == 5)
			aggregate = true;
		n += raw;
		if (b)
			rg_put(b, ev + f.offset, raw);
	}
	if (!has_offset && !aggregate) {
		n += 1 + rg_varint_size((uint64_t)shift);
		if (b) {
			rg_put_tag(b, 2, TP_WIRE_VARINT);
			rg_put_varint(b, (uint64_t)shift);
		}
	}
	if (b)
		rg_close_field(b, at);
	return 1 + rg_varint_size(n) + n;
}

/* A segment's events, moved to the line's start (every event of a
 * chunk whose line starts later than the merged one's is re-encoded);
 * written to out when out is not NULL. Returns their size. */
static uint64_t segment_events(const struct rg_line *l,
			       const struct rg_segment *s, const uint8_t *spill,
			       FILE *spill_file, FILE *out, int *io_errno)
{
	int64_t shift = rg_segment_shift(l, s);
	const uint8_t *p = spill + s->bytes.off;
	struct tp_wire w;
	struct tp_field f;
	struct rg_buf b = { 0 };
	uint64_t n = 0;

	/* a segment is written once and then no more needed: its pages
	 * go, from memory and from the spill file, so a capture's events
	 * never all stay resident and $TMPDIR holds them about once. Its
	 * bytes as they are (a chunk whose line starts where the merged
	 * one does) are copied file to file by the kernel. */
	if (shift == 0) {
		if (out) {
			uint64_t done = rg_copy(spill_file, s->bytes.off,
						s->bytes.len, out, io_errno);

			if (done < s->bytes.len &&
			    fwrite(p + done, 1, s->bytes.len - done, out) !=
			    s->bytes.len - done)
				rg_note_io(io_errno);
			rg_forget(spill_file, spill, s->bytes.off,
				  s->bytes.off + s->bytes.len);
		}
		return s->bytes.len;
	}
	tp_wire_init(&w, p, p, s->bytes.len);
	while (tp_wire_next(&w, &f) > 0) {
		if (f.number != 4 || f.type != TP_WIRE_LEN)
			continue;   /* padding */
		n += shifted_event(f.data, f.len, shift, out ? &b : NULL);
		if (out && b.n >= (1u << 20)) {
			if (fwrite(b.p, 1, b.n, out) != b.n)
				rg_note_io(io_errno);
			b.n = 0;
		}
	}
	if (out && b.n && fwrite(b.p, 1, b.n, out) != b.n)
		rg_note_io(io_errno);
	rg_buf_free(&b);
	if (out)
		rg_forget(spill_file, spill, s->bytes.off,
			  s->bytes.off + s->bytes.len);
	return n;
}

static void put_int_field(struct rg_buf *b, uint32_t number, int64_t v)
{
	if (!v)
		return;
	rg_put_tag(b, number, TP_WIRE_VARINT);
	rg_put_varint(b, (uint64_t)v);
}

static void put_str_field(struct rg_buf *b, uint32_t number, const char *p,
			  size_t n)
{
	if (!n)
		return;
	rg_put_tag(b, number, TP_WIRE_LEN);
	rg_put_varint(b, n);
	rg_put(b, p, n);
}

static size_t field_size(uint64_t len)
{
	return 1 + rg_varint_size(len) + len;
}

/* A line's fields before its events (head) and after (tail). */
static void line_parts(const struct rg_line *l, struct rg_buf *head,
		       struct rg_buf *tail)
{
	put_int_field(head, 1, l->id);
	put_str_field(head, 2, l->name, l->name_len);
	put_int_field(head, 3, l->timestamp_ns);
	put_int_field(tail, 9, l->duration_ps);
	put_int_field(tail, 10, l->display_id);
	put_str_field(tail, 11, l->display_name, l->display_name_len);
}

static void write_buf(FILE *out, const struct rg_buf *b, int *io_errno)
{
	if (b->n && fwrite(b->p, 1, b->n, out) != b->n)
		rg_note_io(io_errno);
}

static void write_span_field(FILE *out, uint32_t number, const uint8_t *spill,
			     struct rg_span s, int *io_errno)
{
	struct rg_buf b = { 0 };

	rg_put_tag(&b, number, TP_WIRE_LEN);
	rg_put_varint(&b, s.len);
	rg_put(&b, spill + s.off, s.len);
	write_buf(out, &b, io_errno);
	rg_buf_free(&b);
}

static void emit_plane(struct rg_plane *p, const uint8_t *spill,
		       FILE *spill_file, FILE *out, int *io_errno)
{
	struct rg_buf head = { 0 };
	uint64_t size;

	put_int_field(&head, 1, p->id);
	put_str_field(&head, 2, p->name, p->name_len);
	size = head.n;
	for (size_t i = 0; i < p->n_lines; i++) {
		struct rg_line *l = &p->lines[i];
		struct rg_buf lh = { 0 }, lt = { 0 };

		l->events_size = 0;
		for (size_t s = 0; s < l->n_segs; s++)
			l->events_size += segment_events(l, &l->segs[s], spill,
							 spill_file, NULL,
							 io_errno);
		line_parts(l, &lh, &lt);
		size += field_size(lh.n + l->events_size + lt.n);
		rg_buf_free(&lh);
		rg_buf_free(&lt);
	}
	for (size_t i = 0; i < p->n_events; i++)
		size += field_size(p->events[i].bytes.len);
	for (size_t i = 0; i < p->n_stats; i++)
		size += field_size(p->stats[i].bytes.len);
	for (size_t i = 0; i < p->n_plane_stats; i++)
		size += field_size(p->plane_stats[i].len);
	{
		struct rg_buf t = { 0 };

		rg_put_tag(&t, 1, TP_WIRE_LEN);
		rg_put_varint(&t, size);
		write_buf(out, &t, io_errno);
		rg_buf_free(&t);
	}
	write_buf(out, &head, io_errno);
	rg_buf_free(&head);
	for (size_t i = 0; i < p->n_lines; i++) {
		struct rg_line *l = &p->lines[i];
		struct rg_buf lh = { 0 }, lt = { 0 }, t = { 0 };

		line_parts(l, &lh, &lt);
		rg_put_tag(&t, 3, TP_WIRE_LEN);
		rg_put_varint(&t, lh.n + l->events_size + lt.n);
		write_buf(out, &t, io_errno);
		write_buf(out, &lh, io_errno);
		for (size_t s = 0; s < l->n_segs; s++)
			segment_events(l, &l->segs[s], spill, spill_file, out,
				       io_errno);
		write_buf(out, &lt, io_errno);
		rg_buf_free(&lh);
		rg_buf_free(&lt);
		rg_buf_free(&t);
	}
	for (size_t i = 0; i < p->n_events; i++)
		write_span_field(out, 4, spill, p->events[i].bytes, io_errno);
	for (size_t i = 0; i < p->n_stats; i++)
		write_span_field(out, 5, spill, p->stats[i].bytes, io_errno);
	for (size_t i = 0; i < p->n_plane_stats; i++)
		write_span_field(out, 6, spill, p->plane_stats[i], io_errno);
}

enum tp_err rg_emit(struct rg_model *m, const uint8_t *spill, FILE *out,
		    struct tp_error *err)
{
	int io_errno = 0;

	for (size_t i = 0; i < m->n_planes; i++)
		emit_plane(&m->planes[i], spill, m->spill, out, &io_errno);
	for (unsigned kind = 2; kind <= 4; kind++)
		for (size_t i = 0; i < m->n_strs[kind]; i++) {
			struct rg_buf b = { 0 };

			rg_put_tag(&b, kind, TP_WIRE_LEN);
			rg_put_varint(&b, m->strs[kind][i].n);
			rg_put(&b, m->strs[kind][i].p, m->strs[kind][i].n);
			write_buf(out, &b, &io_errno);
			rg_buf_free(&b);
		}
	if (!io_errno && (fflush(out) != 0 || ferror(out)))
		rg_note_io(&io_errno);
	if (io_errno)
		return rg_tmp_error(err, m->shown, false, io_errno);
	return TP_OK;
}

void rg_model_release(struct rg_model *m)
{
	for (size_t i = 0; i < m->n_planes; i++) {
		struct rg_plane *p = &m->planes[i];

		for (size_t j = 0; j < p->n_lines; j++) {
			for (size_t k = 0; k < p->lines[j].n_segs; k++) {
				free(p->lines[j].segs[k].cuts);
				free(p->lines[j].segs[k].cut_bytes);
			}
			free(p->lines[j].segs);
		}
		free(p->lines);
		free(p->events);
		free(p->stats);
		free(p->plane_stats);
		free(p->plane_stat_ids);
		tp_i64map_release(&p->line_by_id);
		tp_i64map_release(&p->event_by_key);
		tp_i64map_release(&p->stat_by_key);
		tp_i64map_release(&p->event_ids);
		tp_i64map_release(&p->stat_ids);
	}
	free(m->planes);
	tp_riegeli_seg_maps_free(m->seg_maps, m->n_seg_maps);
	free(m->seg_map_keys);
	rg_buf_free(&m->events_buf);
	rg_buf_free(&m->meta_bodies);
	for (unsigned k = 0; k < 5; k++)
		free(m->strs[k]);
	if (m->spill)
		fclose(m->spill);
	free(m->spill_buf);
	tp_arena_release(&m->arena);
	memset(m, 0, sizeof(*m));
}

static enum tp_err on_record(void *ctx, const uint8_t *rec, size_t len,
			     uint64_t chunk_begin, struct tp_error *err)
{
	return rg_merge_record(ctx, rec, len, chunk_begin, err);
}

/* A file's bytes mapped read-only (NULL for none). */
static void *map_file(FILE *f, size_t size)
{
	void *p;

	if (!size)
		return NULL;
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
	return p == MAP_FAILED ? NULL : p;
}

void tp_riegeli_xspace_release(struct tp_riegeli_xspace *out)
{
	if (out->map)
		munmap(out->map, out->map_len);
	free(out->gaps);
	free(out->gap_fields);
	tp_riegeli_seg_maps_free(out->seg_maps, out->n_seg_maps);
	memset(out, 0, sizeof(*out));
}

enum tp_err tp_riegeli_merge(const uint8_t *data, size_t size,
			     const struct tp_riegeli_opts *opts,
			     struct tp_riegeli_xspace *out,
			     struct tp_riegeli_info *info, struct tp_error *err)
{
	struct rg_model m = { .shown = opts->shown, .align = !opts->flat };
	FILE *merged = NULL;
	char *merged_buf = NULL;
	void *spill = NULL;
	enum tp_err rc;
	long end;

	memset(out, 0, sizeof(*out));
	tp_arena_init(&m.arena);
	m.page = (uint64_t)sysconf(_SC_PAGESIZE);
	/* in place: a block header starts a page (struct rg_cut) */
	if (opts->in_place && !opts->flat && m.page <= RG_BLOCK) {
		m.input = data;
		m.input_fd = opts->fd;
	}
	m.spill = rg_tmpfile(&m.spill_buf);
	if (!m.spill) {
		int errnum = errno;

		rg_model_release(&m);
		return rg_tmp_error(err, opts->shown, true, errnum);
	}
	rc = rg_read(data, size, opts, on_record, &m, info,
		     m.input ? &m.origin : NULL, err);
	rg_buf_free(&m.meta_bodies);       /* not needed by the view */
	if (rc == TP_OK && !m.io_errno && fflush(m.spill) != 0)
		rg_note_io(&m.io_errno);
	if (rc == TP_OK && !m.io_errno && m.spill_size &&
	    !(spill = map_file(m.spill, m.spill_size)))
		rg_note_io(&m.io_errno);
	if (rc == TP_OK && m.io_errno)
		rc = rg_tmp_error(err, opts->shown, false, m.io_errno);
	if (rc == TP_OK && !opts->flat)
		rc = rg_view(&m, spill, out, err);
	else if (rc == TP_OK && !(merged = rg_tmpfile(&merged_buf)))
		rc = rg_tmp_error(err, opts->shown, true, errno);
	if (rc == TP_OK && merged)
		rc = rg_emit(&m, spill, merged, err);
	/* what the merge read of the input through its mapping (chunk
	 * headers, a segment the view could not read with pread): a read
	 * fault maps a whole large folio of the page cache (Linux 6.11 on),
	 * megabytes that stayed to the end of the run (docs/riegeli.md) */
	if (opts->drop_pages)
		rg_drop(data, 0, size);
	if (rc == TP_OK && merged && (end = ftell(merged)) > 0) {
		out->map = map_file(merged, (size_t)end);
		if (!out->map)
			rc = tp_error_set(err, TP_ERR_INPUT,
					  "%s: cannot map the merged capture",
					  opts->shown);
		out->data = out->map;
		out->size = out->map_len = out->map ? (size_t)end : 0;
	}
	if (spill)
		munmap(spill, m.spill_size);
	if (merged)
		fclose(merged);
	free(merged_buf);
	rg_model_release(&m);
#ifdef __GLIBC__
	/* the model's many small blocks, freed, stay the process's memory
	 * until malloc reuses them: given back now, the decode that follows
	 * peaks 1-2 MB lower (docs/riegeli.md) */
	malloc_trim(0);
#endif
	if (rc != TP_OK)
		tp_riegeli_info_release(info);
	return rc;
}
