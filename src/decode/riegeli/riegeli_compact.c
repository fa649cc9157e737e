/*
 * riegeli_compact.c - an uncompressed chunk read where it lies in the
 * input (tp_riegeli_opts.in_place), never gathered whole: its bytes are
 * hashed as they are walked, and each record is handed on compacted,
 * every long line's run of events (the bulk of a chunk) replaced by a
 * placeholder naming where the run lies (struct rg_placed), the lengths
 * of the planes and lines around it rewritten. The merge then leaves the
 * run in place (riegeli_lines.c) and the process never holds the chunk:
 * only its metadata and short lines. Anything a writer does not write
 * (a group, a record that does not walk as an XSpace, a placeholder's
 * field number already used) ends the compaction: the caller gathers
 * the chunk and merges it the usual way, which reports what is wrong.
 *
 * The bytes are read with pread through a window of a few blocks
 * (riegeli_window.c), not through the input's mapping: the view maps
 * the pages it needs later, and the walk faulting them in first cost as
 * much again (docs/performance.md, seventeenth session).
 *
 * Chunk data offsets count the chunk's data bytes; data offset o lies at
 * file position rg_data_pos(begin, o), block headers in between.
 */
#include "riegeli_internal.h"

#include "tpuprof/decode/xspace.h"

#include <stdlib.h>
#include <string.h>

/* The chunk's data in the input, hashed as far as it has been walked. */
struct src {
	const uint8_t *file;
	struct rg_window *window;       /* file's blocks, read with pread */
	uint64_t begin, n;              /* data offset 0's position; bytes */
	struct rg_hash hash;
	uint64_t hashed;                /* data bytes added to hash       */
	bool drop;
	uint64_t dropped;               /* file position dropped up to    */
	uint64_t page;
};

/* Contiguous bytes from data offset o (up to the next block header or
 * the data's end): *p and how many. *p is read at once, or (the walk's
 * run) while every read is within 11 blocks of it, as the window keeps
 * it (rg_window_at): the hash reads 4 blocks ahead, the copy of an
 * event a block header cuts 1 behind. */
static uint64_t run_at(const struct src *s, uint64_t o, const uint8_t **p)
{
	uint64_t pos = rg_data_pos(s->begin, o), room = RG_BLOCK - pos % RG_BLOCK;

	*p = s->window ? rg_window_at(s->window, pos) : s->file + pos;
	return room < s->n - o ? room : s->n - o;
}

/* How far the hash reads ahead of the walk: far enough that the walk
 * finds the bytes in the cache, not so far that they leave it. */
#define AHEAD ((uint64_t)256 << 10)

/* The hash taken to AHEAD past data offset o (the walk's place) when it
 * is less than half that far ahead, and with drop the whole pages
 * behind the walk let go every 4 MiB (those read through the mapping,
 * where there is no window or the file reads short). Reading ahead in order, the hash
 * brings the bytes in for the walk, whose loads depend on each other. */
static void hash_ahead(struct src *s, uint64_t o)
{
	uint64_t to = s->n - o < AHEAD ? s->n : o + AHEAD;

	if (s->hashed < to && to - s->hashed >= AHEAD / 2) {
		while (s->hashed < to) {
			const uint8_t *p;
			uint64_t take = run_at(s, s->hashed, &p);

			if (take > to - s->hashed)
				take = to - s->hashed;
			rg_hash_add(&s->hash, p, (size_t)take);
			s->hashed += take;
		}
	}
	if (s->drop) {
		uint64_t pos = rg_data_pos(s->begin, o) / s->page * s->page;

		if (pos >= s->dropped + ((uint64_t)4 << 20)) {
			rg_drop(s->file, s->dropped, pos);
			s->dropped = pos;
		}
	}
}

/* The hash of all the data: what is left of it added. */
static void hash_rest(struct src *s)
{
	while (s->hashed < s->n) {
		const uint8_t *p;
		uint64_t take = run_at(s, s->hashed, &p);

		rg_hash_add(&s->hash, p, (size_t)take);
		s->hashed += take;
	}
}

/* n bytes from data offset o, appended to out. */
static void copy_out(const struct src *s, uint64_t o, uint64_t n,
		     struct rg_buf *out)
{
	while (n) {
		const uint8_t *p;
		uint64_t take = run_at(s, o, &p);

		if (take > n)
			take = n;
		rg_put(out, p, (size_t)take);
		o += take;
		n -= take;
	}
}

/* An event starting at data offset at >= mk->next, noted against every
 * header before it; the one a header cuts (started before the header's
 * end, at mk->prev) copied whole, once. */
static void marks_add(const struct src *s, struct rg_marks *mk, uint64_t at)
{
	while (at >= mk->next) {
		uint64_t d = at - mk->next, len = at - mk->prev;
		struct rg_mark *m;

		mk->mark = tp_xgrow(mk->mark, &mk->cap, mk->n + 1, sizeof(*mk->mark));
		m = &mk->mark[mk->n++];
		/* cut_at ascends from mark to mark, cut or not */
		*m = (struct rg_mark){ d > UINT32_MAX ? UINT32_MAX : (uint32_t)d,
				       0, mk->cut.n };
		if (d && (mk->prev == UINT64_MAX || len >= RG_CUT_UNKNOWN)) {
			m->cut_len = RG_CUT_UNKNOWN;
		} else if (d) {
			if (mk->copied != mk->prev) {
				mk->copied = mk->prev;
				mk->copied_at = mk->cut.n;
				copy_out(s, mk->prev, len, &mk->cut);
			}
			m->cut_at = mk->copied_at;
			m->cut_len = (uint32_t)len;
		}
		mk->next += RG_USABLE;
	}
}

/* Up to 16 bytes from data offset o (fewer at end): in place when no
 * header comes first, else gathered into tmp. */
static const uint8_t *peek(const struct src *s, uint64_t o, uint64_t end,
			   uint8_t tmp[16], uint64_t *got)
{
	const uint8_t *p;
	uint64_t want = end - o < 16 ? end - o : 16, take = run_at(s, o, &p);

	*got = want;
	if (take >= want)
		return p;
	for (uint64_t k = 0; k < want; k += take, o += take) {
		take = run_at(s, o, &p);
		if (take > want - k)
			take = want - k;
		memcpy(tmp + k, p, (size_t)take);
	}
	return tmp;
}

static bool varint_at(const struct src *s, uint64_t *o, uint64_t end,
		      uint64_t *v)
{
	uint8_t tmp[16];
	uint64_t got;
	const uint8_t *p = peek(s, *o, end, tmp, &got), *q = p;

	if (!tp_wire_varint(&q, p + got, v))
		return false;
	*o += (uint64_t)(q - p);
	return true;
}

/* A field from data offset *o: its number, type and, for a
 * length-delimited one, where its content starts (*o is then past it). */
struct head {
	uint64_t start, content, len;
	uint32_t number;
	unsigned type;
};

static bool field_at(const struct src *s, uint64_t *o, uint64_t end,
		     struct head *h)
{
	uint64_t tag, v;

	h->start = *o;
	if (!varint_at(s, o, end, &tag) || (tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
		return false;
	h->number = (uint32_t)(tag >> 3);
	h->type = (unsigned)(tag & 7);
	h->content = h->len = 0;
	switch (h->type) {
	case TP_WIRE_VARINT:
		return varint_at(s, o, end, &v);
	case TP_WIRE_FIXED64:
	case TP_WIRE_FIXED32:
		v = h->type == TP_WIRE_FIXED64 ? 8 : 4;
		break;
	case TP_WIRE_LEN:
		if (!varint_at(s, o, end, &v))
			return false;
		h->content = *o;
		h->len = v;
		break;
	default:
		return false;
	}
	if (v > end - *o)
		return false;
	*o += v;
	return true;
}

/* A length-delimited field's head with its length as five varint bytes
 * (valid, not minimal), to be filled in by close_len. */
static size_t open_len(struct rg_buf *out, uint32_t number)
{
	static const uint8_t room[5] = { 0x80, 0x80, 0x80, 0x80, 0 };

	rg_put_tag(out, number, TP_WIRE_LEN);
	rg_put(out, room, sizeof(room));
	return out->n;
}

static bool close_len(struct rg_buf *out, size_t at)
{
	uint64_t len = out->n - at;

	if (len >> 35)
		return false;
	for (int i = 0; i < 5; i++, len >>= 7)
		out->p[at - 5 + i] = (uint8_t)(len & 0x7f) | (i < 4 ? 0x80 : 0);
	return true;
}

struct compaction {
	struct src s;
	struct rg_compact *out;
};

/* The events from *o that make one run (fields tagged 0x22), each
 * start noted in mk; *o is left at the first other field. False at an
 * event that runs past end. The heads in a run of the file between two
 * block headers are read where they lie, 11 bytes at least readable at
 * each (a tag and the longest varint); one that a header or the end
 * may cut (fewer than 11 bytes left) is gathered first. The walk is
 * millions of events a chunk: short events are stepped over by
 * rg_skip_short_events, and the others, the last of a run of the file
 * and any a block header follows are taken here, where the bounds and
 * the marks are checked. */
static bool walk_run(struct compaction *c, uint64_t *o, uint64_t end,
		     struct rg_marks *mk)
{
	uint64_t at = *o;
	bool more = true;

	while (more && at < end) {
		uint8_t tmp[16] = { 0 };
		const uint8_t *p;
		uint64_t got = run_at(&c->s, at, &p), n, i = 0;

		n = got > end - at ? end - at : got;
		if (n < 11) {
			p = peek(&c->s, at, end, tmp, &got);
			if (p != tmp)
				p = memcpy(tmp, p, (size_t)got);
			n = got;
		}
		for (;;) {
			uint64_t here, step, left, prev = UINT64_MAX;

			if (n - i >= 11) {
				/* an event ending past a mark or with
				 * fewer than 11 bytes after it is taken
				 * below */
				uint64_t stop = mk->next > at ? mk->next - at : 0;

				i = rg_skip_short_events(p, i, stop < n - 11 ? stop : n - 11,
						      &prev);
				if (prev != UINT64_MAX)
					mk->prev = at + prev;
			}
			here = at + i;
			if (p[i] != 0x22) {
				more = false;
				break;
			}
			if (here >= mk->next)
				marks_add(&c->s, mk, here);
			mk->prev = here;
			if (!rg_event_size(p + i, p + n, &step))
				return false;
			left = n - i;
			if (step >= left || left - step < 11) {
				/* the last event read in this run: held to
				 * the end of the events' field */
				if (step > end - here)
					return false;
				at = here + step;
				break;
			}
			i += step;
		}
		if (!more)
			at += i;
		hash_ahead(&c->s, at);
	}
	/* the headers the run's last event crosses noted too: a reader
	 * goes on at the field after it */
	if (at > *o && at >= mk->next)
		marks_add(&c->s, mk, at);
	*o = at;
	return true;
}

/* A line field: compacted when it is long, its events one run of whole
 * pages and nothing else an event, else copied as it is. */
static bool line(struct compaction *c, const struct head *lf, uint64_t end)
{
	uint64_t o = lf->content, stop = lf->content + lf->len;
	uint64_t run = 0, run_end = 0;
	struct rg_marks mk;
	struct rg_placed *pl;
	bool one_run = true, ok = true;
	size_t at;

	if (lf->len < tp_riegeli_map_min_bytes) {
		copy_out(&c->s, lf->start, end - lf->start, &c->out->recs);
		return true;
	}
	rg_marks_init(&mk, c->s.begin, lf->content);
	while (ok && o < stop) {
		uint64_t from = o;
		struct head h;

		if (!(ok = walk_run(c, &o, stop, &mk)))
			break;
		if (o > from) {
			one_run = one_run && !run;
			run = from;
			run_end = o;
			continue;
		}
		if (!(ok = field_at(&c->s, &o, stop, &h) &&
			   h.number != RG_PLACED_FIELD))
			break;
		one_run = one_run && h.number != 4;
	}
	if (ok && one_run && run) {
		uint64_t a = rg_data_pos(c->s.begin, run);
		uint64_t e = rg_data_pos(c->s.begin, run_end - 1) + 1;

		one_run = e / c->s.page * c->s.page > rg_round_up(a, c->s.page);
		if (one_run) {
			c->out->placed = tp_xgrow(c->out->placed, &c->out->cap_placed,
						  c->out->n_placed + 1,
						  sizeof(*c->out->placed));
			pl = &c->out->placed[c->out->n_placed++];
			*pl = (struct rg_placed){ a, e, run_end - run, mk };
			memset(&mk, 0, sizeof(mk));   /* pl's now */
		}
	} else {
		one_run = false;
	}
	rg_marks_free(&mk);
	if (!ok)
		return false;
	if (!one_run) {
		copy_out(&c->s, lf->start, end - lf->start, &c->out->recs);
		return true;
	}
	at = open_len(&c->out->recs, lf->number);
	copy_out(&c->s, lf->content, run - lf->content, &c->out->recs);
	rg_put_tag(&c->out->recs, RG_PLACED_FIELD, TP_WIRE_VARINT);
	rg_put_varint(&c->out->recs, c->out->n_placed - 1);
	copy_out(&c->s, run_end, stop - run_end, &c->out->recs);
	return close_len(&c->out->recs, at);
}

/* A plane field: its lines compacted, the rest copied. */
static bool plane(struct compaction *c, const struct head *pf)
{
	uint64_t o = pf->content, stop = pf->content + pf->len;
	size_t at = open_len(&c->out->recs, pf->number);

	while (o < stop) {
		struct head h;

		if (!field_at(&c->s, &o, stop, &h))
			return false;
		if (h.number == 3 && h.type == TP_WIRE_LEN) {
			if (!line(c, &h, o))
				return false;
		} else {
			copy_out(&c->s, h.start, o - h.start, &c->out->recs);
		}
		hash_ahead(&c->s, o);
	}
	return close_len(&c->out->recs, at);
}

/* A record (an XSpace) from data offset o to end: its planes compacted,
 * the rest copied. */
static bool record(struct compaction *c, uint64_t o, uint64_t end)
{
	size_t from = c->out->recs.n;

	while (o < end) {
		struct head h;

		if (!field_at(&c->s, &o, end, &h))
			return false;
		if (h.number == 1 && h.type == TP_WIRE_LEN) {
			if (!plane(c, &h))
				return false;
		} else {
			copy_out(&c->s, h.start, o - h.start, &c->out->recs);
		}
		hash_ahead(&c->s, o);
	}
	c->out->lens = tp_xgrow(c->out->lens, &c->out->cap_recs,
				c->out->n_recs + 1, sizeof(*c->out->lens));
	c->out->lens[c->out->n_recs++] = c->out->recs.n - from;
	return true;
}

/* The sizes of a simple chunk's records (*sizes, malloc'd, the caller's
 * to free), read from data offset 1 on; *o is left where the records
 * start. As many as the chunk header says, adding up to its decoded
 * size, or false. */
static bool record_sizes(struct compaction *c, uint64_t num_records,
			 uint64_t decoded_size, uint64_t **sizes, uint64_t *o)
{
	uint64_t sizes_size, stop, total = 0;

	*sizes = NULL;
	*o = 1;
	/* a size takes a byte at least: no more records than that */
	if (!varint_at(&c->s, o, c->s.n, &sizes_size) ||
	    sizes_size > c->s.n - *o || c->s.n - *o - sizes_size != decoded_size ||
	    num_records > sizes_size)
		return false;
	stop = *o + sizes_size;
	*sizes = tp_xmalloc((num_records ? num_records : 1) * sizeof(**sizes));
	for (uint64_t i = 0; i < num_records; i++) {
		if (!varint_at(&c->s, o, stop, &(*sizes)[i]) ||
		    (*sizes)[i] > decoded_size - total)
			return false;
		total += (*sizes)[i];
	}
	return *o == stop && total == decoded_size;
}

bool rg_compact_chunk(const struct rg_compact_in *in, struct rg_compact *out,
		      uint64_t *hash)
{
	struct compaction c = { .s = { .file = in->file, .window = in->window,
				       .begin = in->begin, .n = in->n,
				       .drop = in->drop, .page = in->page },
				.out = out };
	uint64_t o, *sizes;
	bool ok;

	/* an earlier chunk's buffers kept, emptied */
	for (size_t i = 0; i < out->n_placed; i++)
		rg_marks_free(&out->placed[i].marks);
	out->n_placed = out->n_recs = out->recs.n = 0;
	c.s.dropped = in->begin / in->page * in->page;
	rg_hash_init(&c.s.hash);
	ok = record_sizes(&c, in->num_records, in->decoded_size, &sizes, &o);
	for (uint64_t i = 0; ok && i < in->num_records; i++) {
		ok = record(&c, o, o + sizes[i]);
		o += sizes[i];
	}
	free(sizes);
	if (ok)
		hash_rest(&c.s);
	*hash = rg_hash_end(&c.s.hash);
	return ok;
}

void rg_compact_release(struct rg_compact *c)
{
	for (size_t i = 0; i < c->n_placed; i++)
		rg_marks_free(&c->placed[i].marks);
	free(c->placed);
	rg_buf_free(&c->recs);
	free(c->lens);
	memset(c, 0, sizeof(*c));
}
