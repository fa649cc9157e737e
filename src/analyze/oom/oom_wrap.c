/*
 * oom_wrap.c - headlines a terminal hard-wrapped, and the headline
 * phrases themselves. A terminal (or `fold -w N`) cuts a long line into
 * rows of exactly its width, inside a word as readily as at a space, so
 * `Ran out of memory in mem` / `ory space hbm. Used 9.08G of 7.48G` is one
 * line. Lines of one width followed by a shorter line are held; when
 * their text holds a headline and reads better whole (more figures, or
 * two rows or more of the same full width: a terminal's), they are given
 * to the reader as one line, joined without a space (the wrap kept every
 * character, a space too); otherwise as they came.
 * Memory: at most WRAP_PIECES lines of at most WRAP_MAX bytes.
 */
#include "oom_internal.h"

#include <stdlib.h>
#include <string.h>

/* The headlines of every family in oom-facts.md. */
static const char *const triggers[] = {
	"Ran out of memory in memory space",
	"Attempting to reserve ",
	"Attempting to allocate ",
	"Out of memory while trying to allocate",
	"Failed to allocate request for",
	"ran out of memory trying to allocate",
	"Scoped allocation with size",
	"would exceed memory (size=",
	"TensorCore Hbm usage:",
};
#define N_TRIGGERS (sizeof(triggers) / sizeof(triggers[0]))

/* A terminal's width: rows this long or longer may be wrapped ones. */
#define WRAP_MIN 40
#define WRAP_MAX 1024

/* TPU's early abort: "Requires 3.47E, has 14.49G available" (both sizes
 * checked: "Requires" alone is common prose). */
static const char *find_requires(const char *s, const char *end, const char **at)
{
	const char *a, *e;

	while ((e = tp_oom_find(s, end, "Requires ", &a))) {
		const char *p;

		if ((p = tp_oom_read_requires(a, end, NULL, NULL))) {
			*at = a;
			return p;
		}
		s = e;
	}
	return NULL;
}

const char *tp_oom_find_trigger(const char *s, const char *end, const char **at)
{
	const char *best = NULL, *best_end = NULL, *ra, *re = find_requires(s, end, &ra);

	if (re) {
		best = ra;
		best_end = re;
	}
	for (size_t i = 0; i < N_TRIGGERS; i++) {
		const char *a, *e = tp_oom_find(s, end, triggers[i], &a);

		if (e && (!best || a < best)) {
			best = a;
			best_end = e;
		}
	}
	if (at)
		*at = best;
	return best_end;
}

void tp_oom_wrap_init(struct tp_oom_wrap *w)
{
	memset(w, 0, sizeof(*w));
	tp_strbuf_init(&w->held);
	tp_strbuf_init(&w->text);
}

void tp_oom_wrap_release(struct tp_oom_wrap *w)
{
	tp_strbuf_release(&w->held);
	tp_strbuf_release(&w->text);
}

static size_t piece_start(const struct tp_oom_wrap *w, int i)
{
	return i ? w->ends[i - 1] : 0;
}

/* The held pieces [0, n) into w->text: joined as one line, or each on a
 * line of its own. */
static void compose(struct tp_oom_wrap *w, int n, bool joined)
{
	tp_strbuf_reset(&w->text);
	for (int i = 0; i < n; i++) {
		size_t a = piece_start(w, i);

		if (i && !joined)
			tp_strbuf_add(&w->text, "\n", 1);
		tp_strbuf_add(&w->text, w->held.buf + a, w->ends[i] - a);
	}
}

/* How much the text in w->text reads: its headline, and each figure. */
static int score(const struct tp_oom_wrap *w, bool *headline)
{
	struct tp_oom_report r;
	const char *s = w->text.buf, *end = s + w->text.len;
	int n = 0;

	*headline = tp_oom_find_trigger(s, end, NULL) != NULL;
	if (!*headline)
		return 0;
	memset(&r, 0, sizeof(r));
	tp_oom_parse_report(&r, s, w->text.len);
	for (int f = 0; f < TP_OOM_FIG_N; f++)
		n += r.fig[f].present;
	tp_oom_report_release(&r);
	return n + 1;
}

static void emit_pieces(struct tp_oom_wrap *w, int from, int to, tp_oom_line_fn fn, void *ctx)
{
	for (int i = from; i < to; i++) {
		size_t a = piece_start(w, i);

		fn(ctx, w->held.buf + a, w->ends[i] - a, 1);
	}
}

/* Drops the rows before `from`: the one after them (if any) is held
 * alone. */
static void emit_after(struct tp_oom_wrap *w, int from)
{
	size_t a = piece_start(w, from), len = w->held.len - a;

	if (from >= w->n) {
		w->n = 0;
		tp_strbuf_reset(&w->held);
		return;
	}
	memmove(w->held.buf, w->held.buf + a, len);
	w->held.len = len;
	w->held.buf[len] = '\0';
	w->ends[0] = len;
	w->n = 1;
	w->width = len;
}

/* Gives the held rows to fn: the first `full` of them are of the held
 * width, the rest (one at most) the shorter line that ended them.
 * Returns whether that shorter line was given too (joined to the rows);
 * when not, it stays held, alone, as a row that may start another run. */
static bool decide(struct tp_oom_wrap *w, int full, tp_oom_line_fn fn, void *ctx)
{
	int n = w->n, sa, sb, sc = -1;
	bool ha, hb, hc = false;

	if (n < 2)
		goto apart;
	compose(w, n, false);
	sa = score(w, &ha);
	compose(w, n, true);
	sb = score(w, &hb);
	if (!ha && !hb)
		goto apart;
	if (full >= 2 && full < n) {
		/* the rows joined, the shorter line after them its own */
		compose(w, full, true);
		tp_strbuf_add(&w->text, "\n", 1);
		tp_strbuf_add(&w->text, w->held.buf + w->ends[full - 1],
			      w->ends[n - 1] - w->ends[full - 1]);
		sc = score(w, &hc);
	}
	/* two rows of one width are a terminal's; one row is, when the
	 * whole reads more than the lines */
	if (hb && sb >= sa && sb >= sc && (full >= 2 || sb > sa)) {
		compose(w, n, true);
		fn(ctx, w->text.buf, w->text.len, n);
		emit_after(w, n);
		return true;
	}
	if (hc && sc >= sa) {
		compose(w, full, true);
		fn(ctx, w->text.buf, w->text.len, full);
		emit_after(w, full);
		return false;
	}
apart:
	emit_pieces(w, 0, full, fn, ctx);
	emit_after(w, full);
	return full == n;
}

void tp_oom_wrap_flush(struct tp_oom_wrap *w, tp_oom_line_fn fn, void *ctx)
{
	if (w->n)
		decide(w, w->n, fn, ctx);
	w->n = 0;
	tp_strbuf_reset(&w->held);
}

static void hold(struct tp_oom_wrap *w, const char *s, size_t n)
{
	tp_strbuf_add(&w->held, s, n);
	w->ends[w->n++] = w->held.len;
}

void tp_oom_wrap_line(struct tp_oom_wrap *w, const char *s, size_t n, tp_oom_line_fn fn,
		      void *ctx)
{
	size_t width = n;

	while (width && s[width - 1] == '\r')
		width--;
	if (w->n == TP_OOM_WRAP_PIECES)
		tp_oom_wrap_flush(w, fn, ctx);
	if (w->n) {
		if (width == w->width) {
			hold(w, s, width);
			return;
		}
		if (width < w->width) {
			hold(w, s, width);
			if (decide(w, w->n - 1, fn, ctx))
				return;
			/* the shorter line, not a wrap's end: a row of its own */
			if (width >= WRAP_MIN)
				return;
			tp_oom_wrap_flush(w, fn, ctx);
			return;
		}
		tp_oom_wrap_flush(w, fn, ctx);
	}
	if (width >= WRAP_MIN && width <= WRAP_MAX) {
		w->width = width;
		hold(w, s, width);
		return;
	}
	fn(ctx, s, n, 1);
}
