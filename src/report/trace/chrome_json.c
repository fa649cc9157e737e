/*
 * chrome_json.c - the Chrome trace-event JSON writer (trace-facts §2):
 * {"displayTimeUnit":"ns","traceEvents":[...]} with `M` events naming
 * processes and threads, `X` complete events (ts and dur in µs with ns
 * decimals, relative to trace time 0), `i` instants and `C` counters.
 * Commas are written properly: no trailing `{}` event.
 */
#include "tpuprof/report/trace_write.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trace_out.h"
#include "tpuprof/util/util.h"

struct js_writer {
	struct tp_sink sink;
	struct tp_pb *capture;    /* set: text goes here, not to the sink  */
	struct tp_fixed_cache fixed; /* per event metadata: its args' text */
	struct tp_pb text;
	const void *last_key;     /* the last key looked up, and its entry */
	const struct tp_fixed *last_fixed;
	bool first;               /* no event written yet                 */
	/* counter tracks' names by uuid: counters are named, not tracked */
	struct { uint64_t uuid; uint32_t pid; char *name; } *counters;
	size_t n_counters, cap_counters;
	/* every track's pid and tid by uuid (uuids are small, dense) */
	struct { uint32_t pid, tid; } *ids;
	size_t cap_ids;
};

static void js_out(struct js_writer *w, const void *p, size_t n)
{
	if (w->capture)
		tp_pb_raw(w->capture, p, n);
	else
		tp_sink_write(&w->sink, p, n);
}

static void js_puts(struct js_writer *w, const char *s)
{
	js_out(w, s, strlen(s));
}

/* Valid UTF-8 passes; control characters, quotes and backslashes are
 * escaped; invalid bytes become U+FFFD so the document stays JSON. */
static void put_string(struct js_writer *w, const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t run = 0;

	js_out(w, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		char esc[8];

		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80)
			continue;
		js_out(w, p + run, i - run);
		if (c >= 0x80) {
			size_t k = 0;

			if ((c & 0xe0) == 0xc0 && c >= 0xc2)
				k = 2;
			else if ((c & 0xf0) == 0xe0)
				k = 3;
			else if ((c & 0xf8) == 0xf0 && c <= 0xf4)
				k = 4;
			for (size_t j = 1; k && j < k; j++)
				if (i + j >= n || (s[i + j] & 0xc0) != 0x80)
					k = 0;
			/* overlong 3-byte forms, surrogates and > U+10FFFF */
			if (k == 3 && ((c == 0xe0 && s[i + 1] < 0xa0) ||
				       (c == 0xed && s[i + 1] >= 0xa0)))
				k = 0;
			if (k == 4 && ((c == 0xf0 && s[i + 1] < 0x90) ||
				       (c == 0xf4 && s[i + 1] >= 0x90)))
				k = 0;
			if (k) {
				js_out(w, p + i, k);
				i += k - 1;
			} else {
				js_out(w, "\xEF\xBF\xBD", 3);
			}
		} else {
			if (c == '"' || c == '\\')
				snprintf(esc, sizeof(esc), "\\%c", c);
			else
				snprintf(esc, sizeof(esc), "\\u%04x", c);
			js_puts(w, esc);
		}
		run = i + 1;
	}
	js_out(w, p + run, n - run);
	js_out(w, "\"", 1);
}

static void put_cstr(struct js_writer *w, const char *s)
{
	put_string(w, s, strlen(s));
}

static void put_fmt(struct js_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put_fmt(struct js_writer *w, const char *fmt, ...)
{
	char buf[96];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		js_out(w, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* Decimal digits of v, by hand: printf was a third of the writer. */
static size_t u64_digits(char *out, uint64_t v)
{
	char tmp[20];
	size_t n = 0, k = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		out[k++] = tmp[--n];
	return k;
}

static void put_u64(struct js_writer *w, uint64_t v)
{
	char buf[20];

	js_out(w, buf, u64_digits(buf, v));
}

/* ns as µs with three decimals: exact, and small numbers stay exact in
 * a double since trace time starts at 0. */
static void put_us(struct js_writer *w, int64_t ns)
{
	char buf[24];
	size_t n;
	int frac;

	if (ns < 0) { /* not met (times start at 0): as printf has it */
		put_fmt(w, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
		return;
	}
	n = u64_digits(buf, (uint64_t)ns / 1000);
	frac = (int)(ns % 1000);
	buf[n++] = '.';
	buf[n++] = (char)('0' + frac / 100);
	buf[n++] = (char)('0' + frac / 10 % 10);
	buf[n++] = (char)('0' + frac % 10);
	js_out(w, buf, n);
}

static void next_event(struct js_writer *w)
{
	js_puts(w, w->first ? "\n" : ",\n");
	w->first = false;
}

static void remember_ids(struct js_writer *w, uint64_t uuid, uint32_t pid, uint32_t tid)
{
	if (uuid >= w->cap_ids) {
		size_t old = w->cap_ids;

		w->ids = tp_xgrow(w->ids, &w->cap_ids, (size_t)uuid + 1, sizeof(*w->ids));
		memset(w->ids + old, 0, (w->cap_ids - old) * sizeof(*w->ids));
	}
	w->ids[uuid].pid = pid;
	w->ids[uuid].tid = tid;
}

static void js_process(void *ctx, uint64_t uuid, uint32_t pid, const char *name,
		       int rank)
{
	struct js_writer *w = ctx;

	next_event(w);
	put_fmt(w, "{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"name\":\"process_name\",\"args\":{\"name\":", pid);
	put_cstr(w, name);
	js_puts(w, "}},\n");
	put_fmt(w, "{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}",
		pid, rank);
}

static void js_track(void *ctx, uint64_t uuid, uint64_t process, uint32_t pid,
		     uint32_t tid, const char *name, int rank, bool counter)
{
	struct js_writer *w = ctx;

	remember_ids(w, uuid, pid, tid);
	if (counter) {
		w->counters = tp_xgrow(w->counters, &w->cap_counters, w->n_counters + 1,
				       sizeof(*w->counters));
		w->counters[w->n_counters].uuid = uuid;
		w->counters[w->n_counters].pid = pid;
		w->counters[w->n_counters++].name = tp_xstrdup(name);
		return;
	}
	next_event(w);
	put_fmt(w, "{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"name\":\"thread_name\",\"args\":{\"name\":",
		pid, tid);
	put_cstr(w, name);
	js_puts(w, "}},\n");
	put_fmt(w, "{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
		pid, tid, rank);
}

static void put_arg_list(struct js_writer *w, const struct tp_trace_arg *args,
			 size_t first, size_t n, bool comma)
{
	for (size_t i = first; i < n; i++) {
		const struct tp_trace_arg *a = &args[i];

		if (comma)
			js_out(w, ",", 1);
		comma = true;
		put_string(w, a->name.ptr, a->name.len);
		js_out(w, ":", 1);
		switch (a->kind) {
		case TP_ARG_INT:
			put_fmt(w, "%" PRId64, a->v.i);
			break;
		case TP_ARG_UINT:
			put_u64(w, a->v.u);
			break;
		case TP_ARG_DOUBLE:
			if (isfinite(a->v.d))
				put_fmt(w, "%.17g", a->v.d);
			else
				js_puts(w, "null");
			break;
		case TP_ARG_STR:
			put_string(w, a->v.s.ptr, a->v.s.len);
			break;
		}
	}
}

/* The model asks has_fixed() and then gives the slice: one lookup. */
static const struct tp_fixed *fixed_of(struct js_writer *w, const void *key)
{
	if (key != w->last_key) {
		w->last_key = key;
		w->last_fixed = tp_fixed_get(&w->fixed, key);
	}
	return w->last_fixed;
}

/* The fixed args' text of a keyed slice is made once and kept. */
static void put_args(struct js_writer *w, const struct tp_trace_slice *s)
{
	const struct tp_fixed *f = s->key ? fixed_of(w, s->key) : NULL;
	size_t first = 0;
	bool comma;

	if (s->key && !f) {
		tp_pb_reset(&w->text);
		w->capture = &w->text;
		put_arg_list(w, s->args, 0, s->n_fixed, false);
		w->capture = NULL;
		tp_fixed_put(&w->fixed, s->key, w->text.p, w->text.len, 0);
		w->last_key = NULL; /* entries may have moved */
		f = fixed_of(w, s->key);
	}
	if (f)
		first = s->fixed_omitted ? 0 : s->n_fixed;
	comma = f && f->len;
	if (!comma && first >= s->n_args)
		return;
	js_puts(w, ",\"args\":{");
	if (comma)
		js_out(w, w->fixed.bytes + f->off, f->len);
	put_arg_list(w, s->args, first, s->n_args, comma);
	js_out(w, "}", 1);
}

static bool js_has_fixed(void *ctx, const void *key)
{
	return fixed_of(ctx, key) != NULL;
}

static void event_head(struct js_writer *w, const char *ph, uint64_t track,
		       int64_t ts, const struct tp_trace_slice *s)
{
	uint32_t pid = track < w->cap_ids ? w->ids[track].pid : 0;
	uint32_t tid = track < w->cap_ids ? w->ids[track].tid : 0;

	next_event(w);
	js_puts(w, "{\"ph\":\"");
	js_puts(w, ph);
	js_puts(w, "\",\"pid\":");
	put_u64(w, pid);
	js_puts(w, ",\"tid\":");
	put_u64(w, tid);
	js_puts(w, ",\"ts\":");
	put_us(w, ts);
	js_puts(w, ",\"name\":");
	put_string(w, s->name.ptr, s->name.len);
}

static void complete(struct js_writer *w, uint64_t track, int64_t ts, int64_t dur,
		     const struct tp_trace_slice *s)
{
	event_head(w, "X", track, ts, s);
	js_puts(w, ",\"dur\":");
	put_us(w, dur);
	put_args(w, s);
	js_out(w, "}", 1);
}

static void js_begin(void *ctx, uint64_t track, int64_t ts, int64_t dur,
		     const struct tp_trace_slice *s)
{
	if (dur >= 0)
		complete(ctx, track, ts, dur, s);
}

static void js_end(void *ctx, uint64_t track, int64_t ts,
		   const struct tp_trace_slice *s, int64_t start)
{
	if (s)
		complete(ctx, track, start, ts - start, s);
}

static void js_instant(void *ctx, uint64_t track, int64_t ts,
		       const struct tp_trace_slice *s)
{
	struct js_writer *w = ctx;

	event_head(w, "i", track, ts, s);
	js_puts(w, ",\"s\":\"t\"");
	put_args(w, s);
	js_out(w, "}", 1);
}

static void js_counter(void *ctx, uint64_t track, int64_t ts, int64_t value)
{
	struct js_writer *w = ctx;

	for (size_t i = 0; i < w->n_counters; i++) {
		if (w->counters[i].uuid != track)
			continue;
		next_event(w);
		put_fmt(w, "{\"ph\":\"C\",\"pid\":%" PRIu32 ",\"ts\":", w->counters[i].pid);
		put_us(w, ts);
		js_puts(w, ",\"name\":");
		put_cstr(w, w->counters[i].name);
		put_fmt(w, ",\"args\":{\"bytes\":%" PRId64 "}}", value);
		return;
	}
}

static enum tp_err js_finish(void *ctx, uint64_t *bytes, struct tp_error *err)
{
	struct js_writer *w = ctx;

	js_puts(w, "\n]}\n");
	*bytes = w->sink.total;
	return tp_sink_finish(&w->sink, err);
}

static void js_release(void *ctx)
{
	struct js_writer *w = ctx;

	tp_sink_release(&w->sink);
	tp_fixed_release(&w->fixed);
	tp_pb_release(&w->text);
	for (size_t i = 0; i < w->n_counters; i++)
		free(w->counters[i].name);
	free(w->counters);
	free(w->ids);
	free(w);
}

void tp_trace_json_writer(struct tp_trace_writer *tw, FILE *out, bool gzip)
{
	struct js_writer *w = tp_xcalloc(1, sizeof(*w));

	tp_sink_init(&w->sink, out, gzip);
	tp_fixed_init(&w->fixed);
	w->first = true;
	js_puts(w, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	*tw = (struct tp_trace_writer){
		.ctx = w, .process = js_process, .track = js_track,
		.begin = js_begin, .end = js_end, .instant = js_instant,
		.counter = js_counter, .has_fixed = js_has_fixed, .finish = js_finish, .release = js_release,
	};
}
