/*
 * riegeli_marks.c - where a line read in place stands against the block
 * headers of its chunk (struct rg_marks, noted by the walk in
 * riegeli_compact.c), turned into what the view needs for each header
 * inside the line's whole pages (struct rg_cut): where a reader stops,
 * where it goes on, and the event the header cuts; and the walk's
 * stepping over a run of events itself. Calls only the chunk geometry
 * of riegeli_buf.c and the wire reader.
 */
#include "riegeli_internal.h"

#include <stdlib.h>
#include <string.h>

void rg_marks_init(struct rg_marks *mk, uint64_t begin, uint64_t at)
{
	begin = rg_past_header(begin);
	memset(mk, 0, sizeof(*mk));
	mk->t0 = RG_BLOCK - begin % RG_BLOCK;
	mk->k0 = at <= mk->t0 ? 0 : (size_t)((at - mk->t0 + RG_USABLE - 1) / RG_USABLE);
	mk->next = mk->t0 + mk->k0 * RG_USABLE;
	mk->prev = mk->copied = UINT64_MAX;
}

void rg_marks_free(struct rg_marks *mk)
{
	free(mk->mark);
	rg_buf_free(&mk->cut);
	memset(mk, 0, sizeof(*mk));
}

/* The index among the data bytes from file position begin of the data
 * byte at file position pos (rg_data_pos turned around; pos a data
 * byte's, not a header's). */
static uint64_t data_index(uint64_t begin, uint64_t pos)
{
	begin = rg_past_header(begin);
	return pos - begin - (pos / RG_BLOCK - begin / RG_BLOCK) * RG_BLOCK_HEADER;
}

/* Where data offset d lies from file position first, in a view that
 * maps [first, last) as it is and puts the data bytes after last right
 * after it. */
static uint64_t view_offset(uint64_t begin, uint64_t first, uint64_t last,
			    uint64_t d)
{
	uint64_t pos = rg_data_pos(begin, d);

	return pos < last ? pos - first :
			    last - first +
				    (d - data_index(begin, rg_past_header(last)));
}

bool rg_marks_cuts(const struct rg_marks *mk, uint64_t begin, uint64_t first,
		   uint64_t last, struct rg_segment *s)
{
	uint64_t b = rg_round_up(first, RG_BLOCK), k, used = 0;
	size_t n = b < last ? (size_t)((last - b + RG_BLOCK - 1) / RG_BLOCK) : 0;
	const struct rg_mark *m;

	if (!n)
		return true;
	k = (data_index(begin, b + RG_BLOCK_HEADER) - mk->t0) / RG_USABLE;
	if (k < mk->k0 || k - mk->k0 > mk->n || n > mk->n - (k - mk->k0))
		return false;
	m = &mk->mark[k - mk->k0];
	for (size_t j = 0; j < n; j++)
		if (m[j].cut_len == RG_CUT_UNKNOWN || m[j].off == UINT32_MAX)
			return false;
	s->cuts = tp_xcalloc(n, sizeof(*s->cuts));
	s->cut_bytes = tp_xmalloc(m[n - 1].cut_at + m[n - 1].cut_len -
				  m[0].cut_at + 1);
	for (size_t j = 0; j < n; j++, b += RG_BLOCK) {
		uint64_t at = mk->t0 + (k + j) * RG_USABLE + m[j].off;
		struct rg_cut *c = &s->cuts[s->n_cuts++];

		c->len = m[j].cut_len;
		c->from = c->len ? (int64_t)rg_data_pos(begin, at - c->len) -
					   (int64_t)first :
				   (int64_t)(b - first);
		c->resume = view_offset(begin, first, last, at);
		/* an event several headers cut: one copy, the same offset */
		c->at = m[j].cut_at - m[0].cut_at;
		if (c->len && c->at + c->len > used) {
			memcpy(s->cut_bytes + c->at, mk->cut.p + m[j].cut_at, c->len);
			used = c->at + c->len;
		}
	}
	return true;
}

bool rg_event_size(const uint8_t *e, const uint8_t *lim, uint64_t *size)
{
	const uint8_t *q = e + 1;
	uint64_t len;

	if (!tp_wire_varint(&q, lim, &len) || len > UINT64_MAX - 11)
		return false;
	*size = (uint64_t)(q - e) + len;
	return true;
}

/* noinline: the walk's other values would take its registers */
__attribute__((noinline))
uint64_t rg_skip_short_events(const uint8_t *p, uint64_t i, uint64_t last,
			      uint64_t *prev)
{
	uint64_t before = *prev;

	while (p[i] == 0x22 && p[i + 1] < 0x80) {
		uint64_t to = i + 2 + p[i + 1];

		if (to > last)
			break;
		before = i;
		i = to;
	}
	*prev = before;
	return i;
}
