/*
 * oom_internal.h - what the oom files share: text matching that lets any
 * run of white space (newlines too) stand for a space, and sizes.
 */
#ifndef TPUPROF_OOM_INTERNAL_H
#define TPUPROF_OOM_INTERNAL_H

#include "tpuprof/analyze/oom.h"
#include "tpuprof/util/strbuf.h"

/* Matches pat at s (up to end): a ' ' in pat matches any run of white
 * space, also none; other characters match themselves. Returns the end
 * of the match, or NULL. */
const char *tp_oom_match(const char *s, const char *end, const char *pat);
/* The first match of pat in [s, end), its start in *at; NULL for none. */
const char *tp_oom_find(const char *s, const char *end, const char *pat,
			const char **at);
const char *tp_oom_skip_ws(const char *s, const char *end);
/* memmem (a GNU extension) for the oom files. */
const char *tp_oom_memmem(const char *hay, size_t n, const char *needle, size_t m);

/* A log prefix at the start of line (oom_clean.c): its length, kind in *kind ("glog",
 * "tf-timestamp", "ray", "rank" (also torchrun's "[rank0]: "), "quote"
 * (a quote reply's "> ")); 0 when none. */
size_t tp_oom_prefix_len(const char *s, size_t n, const char **kind);
/* Takes ANSI escape sequences (colour, CSI and OSC) out of [s, s + n) in
 * place; the length left. */
size_t tp_oom_strip_ansi(char *s, size_t n);

/* Readers of figures (oom_match.c), shared by oom_parse.c and oom_families.c:
 * a size at s into r->fig[f] unless set (returns its end or NULL), the
 * exact "(N bytes)" after a rounded size, a number, a percentage. */
const char *tp_oom_fig_at(struct tp_oom_report *r, enum tp_oom_fig f, const char *s,
			  const char *end);
const char *tp_oom_exact_after(struct tp_oom_size *sz, const char *s, const char *end);
const char *tp_oom_number_at(const char *s, const char *end, double *v);
void tp_oom_set_pct(struct tp_oom_report *r, enum tp_oom_pct p, double v);
/* "P% NAME" in [s, end): the percentage before NAME into *v. */
bool tp_oom_pct_before(const char *s, const char *end, const char *name, double *v);
/* A TPU report's blocks of parts in [s, end) (oom_blocks.c): Total hbm
 * usage, Output size, Program hbm requirement, Heap allocator status,
 * Persistent allocations. */
void tp_oom_tpu_blocks(struct tp_oom_report *r, const char *s, const char *end);
void tp_oom_gpu(struct tp_oom_report *r, const char *s, const char *end);
void tp_oom_scoped(struct tp_oom_report *r, const char *s, const char *end);
/* "Requires X, has Y available" at s: its end (and the two sizes), or
 * NULL. */
const char *tp_oom_read_requires(const char *s, const char *end, struct tp_oom_size *need,
				 struct tp_oom_size *has);
/* The parts of a report in the order XLA prints them (oom_parts.c): a
 * part seen after a later one starts another report. */
enum tp_oom_block {
	TP_OOM_BLK_NONE, TP_OOM_BLK_HEADLINE, TP_OOM_BLK_HBM_TABLE, TP_OOM_BLK_TOTAL,
	TP_OOM_BLK_OUTPUT, TP_OOM_BLK_HEAP, TP_OOM_BLK_PERSISTENT, TP_OOM_BLK_PROGRAM,
	TP_OOM_BLK_LIST, TP_OOM_BLK_ENTRY, TP_OOM_BLK_BA_DEBUG, TP_OOM_BLK_BA_STATS,
	TP_OOM_BLK_PEAK, TP_OOM_BLK_BUFFER, TP_OOM_BLK_BFC_SUMMARY, TP_OOM_BLK_BFC_SUM_TOTAL,
	TP_OOM_BLK_BFC_STATS,
};
/* The first part in [s, end): its start in *at, a numbered entry's rank
 * in *rank (either may be NULL); TP_OOM_BLK_NONE when none. */
enum tp_oom_block tp_oom_part_at(const char *s, const char *end, const char **at, int *rank);
/* The verdict (oom_verdict.c): by how much, from which figures; what
 * decides it. e->chip is set before. */
void tp_oom_over(struct tp_oom_explain *e, const struct tp_oom_report *r);
void tp_oom_cause(struct tp_oom_explain *e, const struct tp_oom_report *r);
void tp_oom_budget(struct tp_oom_explain *e, const struct tp_oom_report *r);
void tp_oom_entries_read(struct tp_oom_report *r, const char *s, const char *end);

/* A report escaped into one string (oom_unescape.c): whether the line
 * holds one (three or more literal \n), and the line unescaped into out
 * (JSON's and Python's escapes; scratch and scratch2 are buffers it
 * may use). */
bool tp_oom_escaped_line(const char *s, size_t n);
void tp_oom_unescape(const char *s, size_t n, struct tp_strbuf *out, struct tp_strbuf *scratch,
		     struct tp_strbuf *scratch2);
/* The line (s, n) cleaned into clean (oom_clean.c): its log prefixes
 * taken off (*prefixed says whether it had one), Markdown bold and code
 * marks, escaped `\N.`, TABs and NUL bytes; returns the prefix kinds it
 * had, a bit each: bit i is tp_oom_prefix_kind(i) ("glog", ...; NULL
 * past the last). */
unsigned tp_oom_clean_line(const char *s, size_t n, struct tp_strbuf *clean, bool *prefixed);
const char *tp_oom_prefix_kind(unsigned i);
/* Whether the line carries a word that marks it as part of a report
 * (oom_clean.c). */
bool tp_oom_has_label(const char *s, size_t n);
/* The earliest headline of any family in [s, end): its end, its start in
 * *at (may be NULL); NULL for none (oom_wrap.c). */
const char *tp_oom_find_trigger(const char *s, const char *end, const char **at);
/* Lines a terminal hard-wrapped (oom_wrap.c): lines go in one by one and
 * come out to fn, a headline wrapped over rows of one width joined into
 * one line (`lines`: how many lines it was). */
#define TP_OOM_WRAP_PIECES 16
typedef void (*tp_oom_line_fn)(void *ctx, const char *s, size_t n, int lines);
struct tp_oom_wrap {
	struct tp_strbuf held;           /* the rows held, end to end  */
	size_t ends[TP_OOM_WRAP_PIECES]; /* where each row ends        */
	int n;
	size_t width;                    /* the rows' width            */
	struct tp_strbuf text;           /* scratch                    */
};
void tp_oom_wrap_init(struct tp_oom_wrap *w);
void tp_oom_wrap_line(struct tp_oom_wrap *w, const char *s, size_t n, tp_oom_line_fn fn,
		      void *ctx);
/* Gives out what is held (the end of the text, or a line not held). */
void tp_oom_wrap_flush(struct tp_oom_wrap *w, tp_oom_line_fn fn, void *ctx);
void tp_oom_wrap_release(struct tp_oom_wrap *w);

/* A report's rows as pasted (oom_unwrap.c): each row's width in
 * characters before its log prefix was taken off; joined: not a row as
 * pasted (a headline joined from a terminal's rows, a line read before
 * the headline), never joined on; prefixed: it carried a log prefix. */
struct tp_oom_row {
	uint32_t width;
	bool joined, prefixed;
};
enum tp_oom_unwrap { TP_OOM_UNWRAP_HARD, TP_OOM_UNWRAP_WORDS };
uint32_t tp_oom_row_width(const char *s, size_t n);
/* Whether row (its cleaned text s, n) may be a wrap's continuation of
 * prev, the widest row so far being `widest`: the reader does not end a
 * report at such a row. */
bool tp_oom_row_continues(const struct tp_oom_row *prev, uint32_t widest,
			  const struct tp_oom_row *row, const char *s, size_t n);
/* The report text (rows joined by newlines; rows[i] describes the i-th)
 * into out with the rows a hard or a word wrap cut joined again; returns
 * how many were joined (0: out is the text as it came, or empty when no
 * row is as wide as a terminal's). */
size_t tp_oom_unwrap(const char *text, size_t len, const struct tp_oom_row *rows,
		     size_t n_rows, enum tp_oom_unwrap how, struct tp_strbuf *out);
/* The rows of the report being read; owns row. */
#define TP_OOM_ROWS_MAX 65536
struct tp_oom_rows {
	struct tp_oom_row *row;
	size_t n, cap;
	uint32_t widest;   /* the widest row not joined       */
	bool over;         /* more than TP_OOM_ROWS_MAX rows  */
};
/* The rows of s (a line added to the report): the pieces before its last
 * newline are lines read before (joined), the last one is *last. */
void tp_oom_rows_add(struct tp_oom_rows *rows, const struct tp_oom_row *last, const char *s,
		     size_t n);
void tp_oom_rows_reset(struct tp_oom_rows *rows);
void tp_oom_rows_release(struct tp_oom_rows *rows);
/* Splits [s, end) into reports added to log (the reader's rule). */
typedef void (*tp_oom_split_fn)(void *ctx, struct tp_oom_log *log, const char *s,
				const char *end);
/* The report's text (len bytes, its first n_rows rows described in rows)
 * split and read as it came, and with a hard and a word wrap undone, into
 * best (empty on entry; its reports are the caller's): the reading that
 * reads the most (see oom_unwrap.c). scratch holds the unwrapped text. */
void tp_oom_read_unwrapped(const char *s, size_t len, const struct tp_oom_rows *rows,
			   size_t n_rows, struct tp_strbuf *scratch, tp_oom_split_fn split,
			   void *ctx, struct tp_oom_log *best);

#endif
