/*
 * oom_unwrap.c - a report's rows that a wrap cut, joined again. A paste
 * folded at a width W (a terminal, `fold -w W`, `fold -s -w W`, an
 * e-mail or Python's textwrap) cuts every long line into rows: a hard
 * wrap into rows of exactly W characters, inside a word as readily as at
 * a space; a word wrap at the last space that fits, so a row ends where
 * the next word would not have fitted (a word longer than W is cut at W).
 * The rows after the first are never indented and carry no log prefix.
 * The reader keeps each row's width as pasted (before its log prefix is
 * taken off) and tries the report read as it came, with the hard wrap
 * undone and with the word wrap undone, and keeps the reading that reads
 * the most. A tie goes to a wrap undone at two rows or more, and between
 * the two wraps to the hard one when its rows are at least half of those
 * the word wrap joins (a terminal's rows all have the full width; a word
 * wrap's mostly end short of it). W is the widest row, so a report that
 * was never wrapped finds few rows to join, and those must read better
 * joined.
 * Memory: a struct tp_oom_row a row, at most TP_OOM_ROWS_MAX of them (a
 * report with more is read as it came).
 */
#include "oom_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

/* Narrower rows are no terminal's; wider are no wrap's. */
#define ROW_MIN 40
#define ROW_MAX 1024

uint32_t tp_oom_row_width(const char *s, size_t n)
{
	size_t w = 0;

	while (n && (s[n - 1] == '\r' || s[n - 1] == '\n'))
		n--;
	if (n > ROW_MAX * 4)   /* no terminal's row, whatever it holds */
		return UINT32_MAX;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;   /* UTF-8: characters */
	return (uint32_t)w;
}

static size_t first_word(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i] != ' ')
		i++;
	return i;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ')
			return false;
	return true;
}

/* Whether row b may continue row a at all: a wrap's rows after the first
 * are never blank or prefixed, nor indented unless a terminal cut before
 * a space (after a row of the full width). A row may be short: the next
 * word was long, as an op_name after `Operator:`. */
static bool may_continue(uint32_t widest, const struct tp_oom_row *a, const char *as,
			 size_t an, const struct tp_oom_row *b, const char *bs, size_t bn)
{
	return !a->joined && !b->joined && !b->prefixed && bn && !blank(as, an) &&
	       !blank(bs, bn) && (bs[0] != ' ' || a->width == widest);
}

bool tp_oom_row_continues(const struct tp_oom_row *prev, uint32_t widest,
			  const struct tp_oom_row *row, const char *s, size_t n)
{
	if (widest < ROW_MIN || widest > ROW_MAX || prev->joined || row->prefixed ||
	    !prev->width || blank(s, n))
		return false;
	if (s[0] == ' ')   /* a terminal cut before a space */
		return prev->width >= widest;
	return prev->width >= widest || prev->width + 1 + first_word(s, n) > widest;
}

/* The length of the row's last word (after its last space). */
static size_t last_word(const char *s, size_t n)
{
	size_t i = n;

	while (i && s[i - 1] != ' ')
		i--;
	return n - i;
}

/* How row a ends where it meets row b: 0 not a wrap's, 1 joined without a
 * space (the wrap kept every character), 2 joined with one. */
static int seam(enum tp_oom_unwrap how, uint32_t widest, const struct tp_oom_row *a,
		const char *as, size_t an, const char *bs, size_t bn)
{
	size_t stripped = an;

	if (how == TP_OOM_UNWRAP_HARD)
		return a->width == widest ? 1 : 0;
	if (bs[0] == ' ')
		return 0;
	while (stripped && as[stripped - 1] == ' ')
		stripped--;
	/* the row's width less its trailing blanks, plus a space and the
	 * next row's first word: past the width, so the word went down */
	if ((uint64_t)a->width - (an - stripped) + 1 + first_word(bs, bn) <= widest)
		return 0;
	if (stripped < an)   /* `fold -s` keeps the space it broke at */
		return 1;
	if (as[an - 1] == '-')   /* textwrap breaks after a hyphen */
		return 1;
	/* a word longer than a row is cut where the row is full: the row is
	 * as wide as any, and its last word and the next row's first make
	 * more than a row (a quote closed, or a comma, ends a word) */
	if (a->width == widest && last_word(as, an) + first_word(bs, bn) > widest &&
	    !strchr("\",;", as[an - 1]))
		return 1;
	return 2;
}

size_t tp_oom_unwrap(const char *text, size_t len, const struct tp_oom_row *rows,
		     size_t n_rows, enum tp_oom_unwrap how, struct tp_strbuf *out)
{
	const char *end = text + len, *s = text;
	uint32_t widest = 0;
	size_t joins = 0, i = 0;

	tp_strbuf_reset(out);
	for (size_t k = 0; k < n_rows; k++)
		if (!rows[k].joined && rows[k].width > widest)
			widest = rows[k].width;
	if (widest < ROW_MIN || widest > ROW_MAX)
		return 0;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *b = nl ? nl + 1 : end, *bnl;
		size_t an = (size_t)((nl ? nl : end) - s), bn;
		int how_joined = 0;

		tp_strbuf_add(out, s, an);
		if (!nl)
			break;
		bnl = memchr(b, '\n', (size_t)(end - b));
		bn = (size_t)((bnl ? bnl : end) - b);
		if (i + 1 < n_rows && may_continue(widest, &rows[i], s, an, &rows[i + 1], b, bn))
			how_joined = seam(how, widest, &rows[i], s, an, b, bn);
		if (how_joined == 2)
			tp_strbuf_add(out, " ", 1);
		else if (how_joined == 0)
			tp_strbuf_add(out, "\n", 1);
		joins += how_joined != 0;
		s = b;
		i++;
	}
	return joins;
}

void tp_oom_rows_add(struct tp_oom_rows *rows, const struct tp_oom_row *last, const char *s,
		     size_t n)
{
	const char *end = s + n, *nl;

	do {
		struct tp_oom_row row = *last;

		nl = memchr(s, '\n', (size_t)(end - s));
		if (nl)   /* a line read before the one being taken */
			row = (struct tp_oom_row){ tp_oom_row_width(s, (size_t)(nl - s)), true,
						   false };
		if (rows->n >= TP_OOM_ROWS_MAX) {
			rows->over = true;
			return;
		}
		rows->row = tp_xgrow(rows->row, &rows->cap, rows->n + 1, sizeof(*rows->row));
		rows->row[rows->n++] = row;
		if (!row.joined && row.width > rows->widest)
			rows->widest = row.width;
		s = nl ? nl + 1 : end;
	} while (nl);
}

void tp_oom_rows_reset(struct tp_oom_rows *rows)
{
	rows->n = 0;
	rows->widest = 0;
	rows->over = false;
}

void tp_oom_rows_release(struct tp_oom_rows *rows)
{
	free(rows->row);
	memset(rows, 0, sizeof(*rows));
}

/* How much a reading of a report reads: its figures, shares, parts and
 * each entry's fields (a wrap undone reads more, or the same). */
static long reads(const struct tp_oom_log *l)
{
	long n = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct tp_oom_report *r = &l->reports[i];

		n += (long)r->n_total_parts + (r->headless ? 0 : 4);
		for (int f = 0; f < TP_OOM_FIG_N; f++)
			n += r->fig[f].present - r->unread[f];
		for (int p = 0; p < TP_OOM_PCT_N; p++)
			n += r->has_pct[p];
		for (size_t k = 0; k < r->n_allocs; k++) {
			const struct tp_oom_alloc *a = &r->allocs[k];

			n += a->size.present + a->unpadded.present + a->padding.present +
			     !!a->shape + !!a->op_name + !!a->source_file + !!a->xla_label +
			     !!a->allocation_type + (a->source_line >= 0) + a->closed;
		}
	}
	return n;
}

static void drop_reports(struct tp_oom_log *l)
{
	for (size_t i = 0; i < l->n; i++)
		tp_oom_report_release(&l->reports[i]);
	free(l->reports);
	memset(l, 0, sizeof(*l));
}

void tp_oom_read_unwrapped(const char *s, size_t len, const struct tp_oom_rows *rows,
			   size_t n_rows, struct tp_strbuf *scratch, tp_oom_split_fn split,
			   void *ctx, struct tp_oom_log *best)
{
	long best_reads;
	size_t hard = 0;
	bool unwrapped = false;

	split(ctx, best, s, s + len);
	if (rows->over || n_rows > rows->n)
		return;
	best_reads = reads(best);
	for (int how = TP_OOM_UNWRAP_HARD; how <= TP_OOM_UNWRAP_WORDS; how++) {
		struct tp_oom_log alt = { 0 };
		size_t joins = tp_oom_unwrap(s, len, rows->row, n_rows, (enum tp_oom_unwrap)how,
					     scratch);
		long alt_reads;
		bool better;

		if (how == TP_OOM_UNWRAP_HARD)
			hard = joins;
		if (!joins)
			continue;
		split(ctx, &alt, scratch->buf, scratch->buf + scratch->len);
		alt_reads = reads(&alt);
		if (!unwrapped)
			better = alt_reads > best_reads || (alt_reads == best_reads && joins >= 2);
		else
			better = alt_reads > best_reads ||
				 (alt_reads == best_reads && hard * 2 < joins);
		if (better) {
			struct tp_oom_log t = *best;

			*best = alt;
			alt = t;
			best_reads = alt_reads;
			unwrapped = true;
		}
		drop_reports(&alt);
	}
}
