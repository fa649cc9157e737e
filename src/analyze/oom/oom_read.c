/*
 * oom_read.c - finding OOM reports in a stream of text. Lines are cleaned
 * as they arrive (log prefixes, Markdown bold and code marks, escaped
 * `\N.`, TABs, NUL bytes) and dropped unless they belong to a report: a
 * report starts at a headline (the phrases in oom_wrap.c, also when a
 * terminal wrapped one over two lines) and goes on while lines carry its
 * labels (oom_clean.c), through at most GAP_MAX lines without one (a
 * wrapped XLA label, blank lines between entries) and any row a wrap cut
 * off the line before; the lines after its last label are not kept. A
 * report is read when it closes, with the rows a wrap cut joined again
 * where that reads more (oom_unwrap.c).
 * Memory: one line being read, the previous line, the report being read
 * with its rows' widths, and the reports.
 */
#include "oom_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/strbuf.h"

#define GAP_MAX 8
/* Rows a wrap may cut one line into. */
#define CONTINUED_MAX 64
#define LINE_MAX_KEPT (1u << 20)
#define TAIL_KEPT 4096

struct tp_oom_reader {
	struct tp_strbuf line;     /* the raw line being read            */
	bool line_cut;             /* the rest of the line is dropped    */
	bool line_report;          /* the line kept holds a headline     */
	struct tp_strbuf clean;    /* scratch: the cleaned line          */
	struct tp_strbuf prev;     /* the previous cleaned line          */
	unsigned prev_kinds;       /* prefix kinds of the last 3 lines   */
	unsigned kinds_ring[3];    /* (a line a wrap cut counts as one)  */
	int ring_at;
	struct tp_oom_row prev_row; /* the row before                    */
	bool in_report;
	struct tp_strbuf report;   /* the report's lines so far          */
	size_t report_kept;        /* its length at its last label line  */
	unsigned report_kinds;
	int gap;
	int64_t report_line;
	bool report_cut;
	int part_max;              /* the latest part seen (tp_oom_part_at) */
	int entry_rank;            /* the last numbered entry's rank     */
	struct tp_oom_rows rows;   /* the report's rows (oom_unwrap.c)   */
	int continued;             /* rows in a row taken as continuations */
	struct tp_oom_row row;     /* the line being taken               */
	bool line_joined;          /* it is a terminal's rows, joined    */
	struct tp_strbuf unwrapped; /* scratch: the report unwrapped     */
	struct tp_strbuf unescaped; /* a line's escaped report, unescaped */
	struct tp_oom_wrap wrap;   /* rows a terminal wrapped            */
};

void tp_oom_log_init(struct tp_oom_log *log)
{
	memset(log, 0, sizeof(*log));
	log->reader = tp_xcalloc(1, sizeof(*log->reader));
	tp_strbuf_init(&log->reader->line);
	tp_strbuf_init(&log->reader->clean);
	tp_strbuf_init(&log->reader->prev);
	tp_strbuf_init(&log->reader->report);
	tp_strbuf_init(&log->reader->unwrapped);
	tp_strbuf_init(&log->reader->unescaped);
	tp_oom_wrap_init(&log->reader->wrap);
}

static bool is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ')
			return false;
	return true;
}

static bool holds_figures(const struct tp_oom_report *r)
{
	for (int f = 0; f < TP_OOM_FIG_N; f++)
		if (r->fig[f].present)
			return true;
	for (size_t i = 0; i < r->n_allocs; i++)
		if (r->allocs[i].size.present)
			return true;
	return false;
}

static void add_report(struct tp_oom_log *log, const char *text, size_t len,
		       int64_t line, unsigned kinds, bool cut)
{
	struct tp_oom_report *r;

	if (log->n >= TP_OOM_REPORTS_MAX) {
		log->reports_dropped = true;
		return;
	}
	log->reports = tp_xgrow(log->reports, &log->cap, log->n + 1, sizeof(*log->reports));
	r = &log->reports[log->n++];
	tp_oom_parse_report(r, text, len);
	if (r->headless && !holds_figures(r)) {
		/* a part's words in prose ("Stats:", "Output size of the
		 * model"): no report without its headline and nothing read */
		tp_oom_report_release(r);
		log->n--;
		return;
	}
	r->line = line;
	r->text_cut = cut;
	for (unsigned i = 0; tp_oom_prefix_kind(i); i++)
		if (kinds & (1u << i))
			r->log_prefixes[r->n_log_prefixes++] = tp_xstrdup(tp_oom_prefix_kind(i));
}

/* One report per headline in [s, end) into log (a collapsed log holds
 * several on a line). */
static void split_reports(void *ctx, struct tp_oom_log *log, const char *s, const char *end)
{
	const struct tp_oom_reader *rd = ctx;
	const char *at, *e = tp_oom_find_trigger(s, end, &at);

	/* parts before the first headline (or no headline at all) are a
	 * report of their own: a part never belongs to the headline after it */
	if (!e || tp_oom_part_at(s, at, NULL, NULL) != TP_OOM_BLK_NONE) {
		add_report(log, s, (size_t)((e ? at : end) - s), rd->report_line,
			   rd->report_kinds, rd->report_cut);
		s = e ? at : end;
	}
	while (e) {
		const char *next_at = NULL, *next = tp_oom_find_trigger(e, end, &next_at);
		const char *stop = next ? next_at : end;

		add_report(log, s, (size_t)(stop - s), rd->report_line, rd->report_kinds,
			   rd->report_cut);
		s = stop;
		e = next;
	}
}

/* Closes the report being read: its text up to its last label line. */
static void close_report(struct tp_oom_log *log)
{
	struct tp_oom_reader *rd = log->reader;
	struct tp_oom_log got = { 0 };
	size_t rows = 1;

	if (!rd->in_report)
		return;
	rd->in_report = false;
	for (size_t i = 0; i < rd->report_kept; i++)
		rows += rd->report.buf[i] == '\n';
	tp_oom_read_unwrapped(rd->report.buf, rd->report_kept, &rd->rows, rows,
			      &rd->unwrapped, split_reports, rd, &got);
	for (size_t i = 0; i < got.n; i++) {
		if (log->n >= TP_OOM_REPORTS_MAX) {
			log->reports_dropped = true;
			tp_oom_report_release(&got.reports[i]);
			continue;
		}
		log->reports = tp_xgrow(log->reports, &log->cap, log->n + 1,
					sizeof(*log->reports));
		log->reports[log->n++] = got.reports[i];
	}
	free(got.reports);
	log->reports_dropped |= got.reports_dropped;
	tp_strbuf_reset(&rd->report);
	rd->report_kept = 0;
	tp_oom_rows_reset(&rd->rows);
}

/* Adds a line to the report, as much of it as fits in TP_OOM_REPORT_MAX. */
static void append_report(struct tp_oom_reader *rd, const char *s, size_t n)
{
	if (rd->report.len + 1 >= TP_OOM_REPORT_MAX) {
		rd->report_cut = true;
		return;
	}
	if (rd->report.len)
		tp_strbuf_add(&rd->report, &(char){ '\n' }, 1);
	if (rd->report.len + n > TP_OOM_REPORT_MAX) {
		n = TP_OOM_REPORT_MAX - rd->report.len;
		rd->report_cut = true;
	}
	tp_strbuf_add(&rd->report, s, n);
	tp_oom_rows_add(&rd->rows, &rd->row, s, n);
}

static void start_report(struct tp_oom_log *log, const char *s, size_t n, unsigned kinds)
{
	struct tp_oom_reader *rd = log->reader;

	tp_strbuf_reset(&rd->report);
	rd->in_report = true;
	rd->report_cut = false;
	rd->gap = 0;
	rd->report_line = log->lines;
	rd->report_kinds = kinds | rd->prev_kinds;
	rd->part_max = TP_OOM_BLK_HEADLINE;
	rd->entry_rank = 0;
	append_report(rd, s, n);
	rd->report_kept = rd->report.len;
}

/* The line's parts into the report's order: the latest part and the
 * last entry's rank. */
static void part_seen(struct tp_oom_reader *rd, const char *s, const char *end)
{
	const char *at;
	int rank;
	enum tp_oom_block p;

	while ((p = tp_oom_part_at(s, end, &at, &rank)) != TP_OOM_BLK_NONE) {
		if ((int)p > rd->part_max)
			rd->part_max = (int)p;
		if (p == TP_OOM_BLK_ENTRY)
			rd->entry_rank = rank;
		s = at + 1;
	}
}

/* Whether the line's first part starts a report: outside one, any part;
 * inside one, a part XLA prints before one already seen (or the same
 * block again), or a numbered entry that does not follow the last. */
static bool part_starts(const struct tp_oom_reader *rd, const char *s, const char *end)
{
	int rank;
	enum tp_oom_block p = tp_oom_part_at(s, end, NULL, &rank);

	if (p == TP_OOM_BLK_NONE)
		return false;
	if (!rd->in_report)
		return true;
	if (p == TP_OOM_BLK_ENTRY)
		return rd->part_max > (int)p || (rd->entry_rank && rank <= rd->entry_rank);
	if (p == TP_OOM_BLK_BUFFER)   /* buffers repeat; their ranks are not kept */
		return rd->part_max > (int)p;
	return (int)p <= rd->part_max;
}

/* Whether the line (cleaned: s, n) may be a wrap's continuation of the
 * one before, outside a report: the wider of the two is the width. */
static bool continues_prev(const struct tp_oom_reader *rd, const char *s, size_t n)
{
	uint32_t widest = rd->prev_row.width > rd->row.width ? rd->prev_row.width : rd->row.width;

	return tp_oom_row_continues(&rd->prev_row, widest, &rd->row, s, n);
}

static void take_line(struct tp_oom_log *log, const char *raw, size_t raw_n)
{
	struct tp_oom_reader *rd = log->reader;
	unsigned kinds;
	const char *s, *end, *at;

	log->lines++;
	rd->row.width = tp_oom_row_width(raw, raw_n);
	rd->row.joined = rd->line_joined;
	rd->line_joined = false;
	kinds = tp_oom_clean_line(raw, raw_n, &rd->clean, &rd->row.prefixed);
	s = rd->clean.buf ? rd->clean.buf : "";
	end = s + rd->clean.len;
	if (tp_oom_find_trigger(s, end, &at)) {
		close_report(log);
		/* the line before may hold the wrapper a terminal wrapped off
		 * (`RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:`) */
		if (rd->prev.len &&
		    (at == tp_oom_skip_ws(s, end) || continues_prev(rd, s, rd->clean.len))) {
			tp_strbuf_add(&rd->prev, &(char){ '\n' }, 1);
			tp_strbuf_add(&rd->prev, s, rd->clean.len);
			start_report(log, rd->prev.buf, rd->prev.len, kinds);
		} else {
			start_report(log, s, rd->clean.len, kinds);
		}
		part_seen(rd, s, end);
	} else if (part_starts(rd, s, end)) {
		/* a paste that begins at a part (no headline), or a part that
		 * cannot belong to the report being read: a report of its own */
		close_report(log);
		start_report(log, s, rd->clean.len, kinds);
		part_seen(rd, s, end);
	} else if (rd->in_report) {
		/* a row a wrap cut off the line before: the gap does not grow */
		bool continues = rd->rows.n && !rd->rows.over &&
				 tp_oom_row_continues(&rd->rows.row[rd->rows.n - 1], rd->rows.widest,
						      &rd->row, s, rd->clean.len);

		/* the rest of a kept row is kept */
		bool kept = rd->report_kept == rd->report.len;

		rd->continued = continues ? rd->continued + 1 : 0;
		part_seen(rd, s, end);
		append_report(rd, s, rd->clean.len);
		rd->report_kinds |= kinds;
		if (tp_oom_has_label(s, rd->clean.len)) {
			rd->gap = 0;
			rd->report_kept = rd->report.len;
		} else if (continues && rd->continued <= CONTINUED_MAX) {
			if (kept)
				rd->report_kept = rd->report.len;
		} else if (++rd->gap > GAP_MAX ||
			   (!is_blank(s, rd->clean.len) && s[0] != ' ' && rd->gap > 2)) {
			close_report(log);
		}
	} else if (rd->prev.len) {
		/* a headline a terminal wrapped over this line and the last */
		struct tp_strbuf *j = &rd->prev;
		size_t prev_len = j->len;

		tp_strbuf_add(j, &(char){ '\n' }, 1);
		tp_strbuf_add(j, s, rd->clean.len);
		if (tp_oom_find_trigger(j->buf, j->buf + j->len, &at) && at < j->buf + prev_len) {
			log->lines--;
			start_report(log, j->buf, j->len, kinds);
			log->lines++;
		}
		j->len = prev_len;
		j->buf[prev_len] = '\0';
	}
	/* the previous line (its last 4 KiB) and the prefixes of the last 3 */
	tp_strbuf_reset(&rd->prev);
	if (!rd->in_report || rd->report.len == 0) {
		size_t keep = rd->clean.len > 4096 ? 4096 : rd->clean.len;

		tp_strbuf_add(&rd->prev, end - keep, keep);
	}
	if (continues_prev(rd, s, rd->clean.len)) {
		rd->kinds_ring[rd->ring_at] |= kinds;
	} else {
		rd->ring_at = (rd->ring_at + 1) % 3;
		rd->kinds_ring[rd->ring_at] = kinds;
	}
	rd->prev_row = rd->row;
	rd->prev_kinds = rd->kinds_ring[0] | rd->kinds_ring[1] | rd->kinds_ring[2];
}

/* A line that filled LINE_MAX_KEPT (every newline collapsed, or a
 * progress bar redrawn with \r for hours): its text before a headline is
 * no report's, so only its last TAIL_KEPT bytes are kept (a headline may
 * straddle, and its wrapper precede it); from a headline on the line is
 * kept up to TP_OOM_REPORT_MAX, and the rest of it dropped. */
static void line_full(struct tp_oom_reader *rd)
{
	const char *s = rd->line.buf, *at;
	size_t from;

	if (rd->line_report) {
		rd->line_cut = true;
		return;
	}
	if (tp_oom_find_trigger(s, s + rd->line.len, &at)) {
		rd->line_report = true;
		from = (size_t)(at - s) > TAIL_KEPT ? (size_t)(at - s) - TAIL_KEPT : 0;
	} else {
		from = rd->line.len - TAIL_KEPT;
	}
	memmove(rd->line.buf, s + from, rd->line.len - from);
	rd->line.len -= from;
	rd->line.buf[rd->line.len] = '\0';
}

/* A line from the wrap stage: `lines` lines of the text, joined. */
static void took_line(void *ctx, const char *s, size_t n, int lines)
{
	struct tp_oom_log *log = ctx;

	log->reader->line_joined = lines > 1;
	take_line(log, s, n);
	log->lines += lines - 1;
}

/* A line that holds a report escaped into one string (a JSON log's
 * message): the lines it holds, each counted as the line they came in,
 * so that a report's line is that line. */
static void take_escaped(struct tp_oom_log *log)
{
	struct tp_oom_reader *rd = log->reader;
	const char *s, *end, *nl;

	tp_oom_wrap_flush(&rd->wrap, took_line, log);
	/* unwrapped and clean: free between lines, scratch here */
	tp_oom_unescape(rd->line.buf, rd->line.len, &rd->unescaped, &rd->unwrapped, &rd->clean);
	s = rd->unescaped.buf;
	end = s + rd->unescaped.len;
	for (bool first = true;; first = false) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!first)
			log->lines--;
		take_line(log, s, (size_t)((nl ? nl : end) - s));
		if (!nl)
			break;
		s = nl + 1;
	}
}

/* The line read whole (or cut at its limit) to the reader: through the
 * wrap stage unless it is too long for a terminal's row. */
static void line_done(struct tp_oom_log *log)
{
	struct tp_oom_reader *rd = log->reader;

	if (rd->line.buf)   /* colour codes: no part of any figure */
		rd->line.len = tp_oom_strip_ansi(rd->line.buf, rd->line.len);
	if (rd->line.len && tp_oom_escaped_line(rd->line.buf, rd->line.len)) {
		take_escaped(log);
		if (rd->line_cut && rd->in_report)
			rd->report_cut = true;
		return;
	}
	if (!rd->line_cut && !rd->line_report) {
		tp_oom_wrap_line(&rd->wrap, rd->line.buf ? rd->line.buf : "", rd->line.len,
				 took_line, log);
		return;
	}
	tp_oom_wrap_flush(&rd->wrap, took_line, log);
	take_line(log, rd->line.buf, rd->line.len);
	if (rd->line_cut && rd->in_report)
		rd->report_cut = true;
}

void tp_oom_feed(struct tp_oom_log *log, const char *buf, size_t n)
{
	struct tp_oom_reader *rd = log->reader;

	while (n) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n, used = 0;

		while (used < take && !rd->line_cut) {
			size_t limit = rd->line_report ? TP_OOM_REPORT_MAX : LINE_MAX_KEPT;
			size_t k = take - used < limit - rd->line.len ? take - used : limit - rd->line.len;

			tp_strbuf_add(&rd->line, buf + used, k);
			used += k;
			if (rd->line.len >= limit)
				line_full(rd);
		}
		if (!nl)
			return;
		line_done(log);
		tp_strbuf_reset(&rd->line);
		rd->line_cut = rd->line_report = false;
		buf = nl + 1;
		n -= take + 1;
	}
}

void tp_oom_finish(struct tp_oom_log *log)
{
	struct tp_oom_reader *rd = log->reader;

	if (!rd)
		return;
	if (rd->line.len)
		line_done(log);
	tp_oom_wrap_flush(&rd->wrap, took_line, log);
	tp_strbuf_reset(&rd->line);
	close_report(log);
}

void tp_oom_log_release(struct tp_oom_log *log)
{
	for (size_t i = 0; i < log->n; i++)
		tp_oom_report_release(&log->reports[i]);
	free(log->reports);
	if (log->reader) {
		tp_strbuf_release(&log->reader->line);
		tp_strbuf_release(&log->reader->clean);
		tp_strbuf_release(&log->reader->prev);
		tp_strbuf_release(&log->reader->report);
		tp_strbuf_release(&log->reader->unwrapped);
		tp_strbuf_release(&log->reader->unescaped);
		tp_oom_rows_release(&log->reader->rows);
		tp_oom_wrap_release(&log->reader->wrap);
		free(log->reader);
	}
	memset(log, 0, sizeof(*log));
}
