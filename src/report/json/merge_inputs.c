/*
 * merge_inputs.c - what `tpuprof merge` reads (see merge.h): report files
 * named, matched by a pattern or found in a directory, and a stream of
 * reports on standard input; and which hosts of a pod are missing.
 */
#include "tpuprof/decode/riegeli.h"
#include "tpuprof/report/merge.h"
#include "tpuprof/report/report_input.h"
#include "tpuprof/util/json_stream.h"
#include "tpuprof/util/parallel.h"
#include "tpuprof/util/util.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void push(struct tp_merge_inputs *in, const char *path)
{
	in->paths = tp_xrealloc(in->paths, (in->n + 1) * sizeof(*in->paths));
	in->paths[in->n++] = tp_xstrdup(path);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A directory: its *.json files, by name (as a run directory's hosts). */
static enum tp_err add_dir(struct tp_merge_inputs *in, const char *dir,
			   struct tp_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;

	if (!d)
		return tp_error_set(err, TP_ERR_INPUT, "%s: cannot open: %s", dir,
				    strerror(errno));
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && has_suffix(e->d_name, ".json")) {
			names = tp_xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = tp_xasprintf("%s/%s", dir, e->d_name);
		}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		push(in, names[i]);
		free(names[i]);
	}
	free(names);
	if (!n)
		return tp_error_set(err, TP_ERR_INPUT, "%s: no reports (*.json) in this directory",
				    dir);
	return TP_OK;
}

/* A pattern the shell did not expand (quoted, or too many files for
 * one command line): its matches, by name. */
static enum tp_err add_glob(struct tp_merge_inputs *in, const char *pattern,
			    struct tp_error *err)
{
	glob_t g;
	int rc = glob(pattern, 0, NULL, &g);

	if (rc == GLOB_NOMATCH)
		return tp_error_set(err, TP_ERR_INPUT, "%s: no file matches", pattern);
	if (rc != 0)
		return tp_error_set(err, TP_ERR_INPUT, "%s: cannot list the matches", pattern);
	qsort(g.gl_pathv, g.gl_pathc, sizeof(*g.gl_pathv), by_name);
	for (size_t i = 0; i < g.gl_pathc; i++)
		push(in, g.gl_pathv[i]);
	globfree(&g);
	return TP_OK;
}

enum tp_err tp_merge_inputs(const char *const *args, size_t n,
			    struct tp_merge_inputs *in, struct tp_error *err)
{
	memset(in, 0, sizeof(*in));
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		enum tp_err rc = TP_OK;

		if (strcmp(args[i], "-") == 0)
			push(in, "-");
		else if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode))
			rc = add_dir(in, args[i], err);
		else if (strpbrk(args[i], "*?[") && access(args[i], F_OK) != 0)
			rc = add_glob(in, args[i], err);
		else
			push(in, args[i]);
		if (rc != TP_OK) {
			tp_merge_inputs_release(in);
			return rc;
		}
	}
	return TP_OK;
}

void tp_merge_inputs_release(struct tp_merge_inputs *in)
{
	for (size_t i = 0; i < in->n; i++)
		free(in->paths[i]);
	free(in->paths);
	memset(in, 0, sizeof(*in));
}

static enum tp_err parse(const char *name, const char *buf, size_t len, json_t **doc,
			 struct tp_error *err)
{
	json_error_t je;

	*doc = json_loadb(buf, len, 0, &je);
	if (!*doc)
		return tp_error_set(err, TP_ERR_INPUT, "%s: not a JSON report (line %d: %s)",
				    name, je.line, je.text);
	/* figures of the wrong type would merge as absent */
	if (tp_report_doc_figures_ok(*doc, name, err) != TP_OK) {
		json_decref(*doc);
		*doc = NULL;
		return TP_ERR_INPUT;
	}
	return TP_OK;
}

/* A report is an object (or an array of them): jansson takes no other
 * top-level value. Any other first byte that is not blank (a capture, a
 * NUL of /dev/zero, text) is refused at once, before reading on. */
static bool starts_report(int c)
{
	return c == '{' || c == '[';
}

static bool blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* head: the input's first n bytes (NULL on a stream, judged a byte at a
 * time), to name what it is when it is no report: gzip, a capture. */
static enum tp_err bad_start(const char *name, uint64_t at, int c, const uint8_t *head,
			     size_t n, struct tp_error *err)
{
	char what[16];

	if (head && n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: gzip data, not a JSON report: merge reads saved reports as "
				    "plain JSON (a gzipped report: gunzip it first)", name);
	if (head && ((n >= 8 && tp_riegeli_maybe(head, n)) || tp_sniff(head, n)))
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: a profile capture, not a report: merge reads saved reports "
				    "(make one with 'tpuprof report --format json CAPTURE'; check and "
				    "diff read captures too)", name);
	if (c > 0x20 && c < 0x7f)
		snprintf(what, sizeof(what), "'%c'", c);
	else
		snprintf(what, sizeof(what), "byte 0x%02x", (unsigned)(c & 0xff));
	return tp_error_set(err, TP_ERR_INPUT,
			    "%s: not a JSON report (%s at byte %llu: a report starts with '{')",
			    name, what, (unsigned long long)at);
}

static enum tp_err too_large(const char *name, uint64_t max, struct tp_error *err)
{
	return tp_error_set(err, TP_ERR_INPUT,
			    "%s: input larger than the limit of %llu bytes (see --max-input)", name,
			    (unsigned long long)max);
}

enum tp_err tp_merge_load_file(const char *path, uint64_t max, json_t **doc,
			       struct tp_error *err)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap = 0, got = 1, start = 0;
	bool judged = false;
	enum tp_err rc = TP_OK;

	*doc = NULL;
	if (!f)
		return tp_error_set(err, TP_ERR_INPUT, "%s: cannot open: %s", path,
				    strerror(errno));
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max)
		rc = too_large(path, max, err);
	/* a device or stream (/dev/zero) may never end: judged by its first
	 * byte, and held to max as it comes */
	while (rc == TP_OK && got > 0) {
		if (len == cap)
			buf = tp_xgrow(buf, &cap, len + 65536, 1);
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		while (!judged && start < len && blank((unsigned char)buf[start]))
			start++;
		if (!judged && start < len) {
			judged = true;
			if (!starts_report((unsigned char)buf[start]))
				rc = bad_start(path, start, (unsigned char)buf[start],
					       (const uint8_t *)buf, len, err);
		}
		if (rc == TP_OK && len > max)
			rc = too_large(path, max, err);
	}
	if (rc == TP_OK && ferror(f))
		rc = tp_error_set(err, TP_ERR_INPUT, "%s: cannot read: %s", path,
				  strerror(errno));
	fclose(f);
	if (rc == TP_OK)
		rc = parse(path, buf, len, doc, err);
	free(buf);
	return rc;
}

/* Files are read and parsed a window at a time on every thread, then
 * merged in order: parsing is most of a merge's work. A slot's document
 * from the window before is released by the thread that fills it again,
 * so freeing runs in parallel too. */
#define WINDOW_PER_THREAD 4

struct window {
	const char *const *paths;
	uint64_t max;
	size_t first, n;
	json_t **docs;          /* parsed, or the previous window's, held */
	enum tp_err *rc;
	struct tp_error *errs;
};

static void load_slot(void *ctx, size_t i, unsigned worker)
{
	struct window *w = ctx;

	(void)worker;
	json_decref(w->docs[i]);
	w->docs[i] = NULL;
	if (i < w->n)
		w->rc[i] = tp_merge_load_file(w->paths[w->first + i], w->max, &w->docs[i],
					      &w->errs[i]);
}

enum tp_err tp_merge_files(struct tp_merge *g, const char *const *paths, size_t n,
			   uint64_t max, struct tp_error *err)
{
	size_t cap = (size_t)tp_threads() * WINDOW_PER_THREAD;
	struct window w = { paths, max, 0, 0, tp_xcalloc(cap, sizeof(json_t *)),
			    tp_xcalloc(cap, sizeof(enum tp_err)),
			    tp_xcalloc(cap, sizeof(struct tp_error)) };
	enum tp_err rc = TP_OK;

	for (w.first = 0; w.first < n && rc == TP_OK; w.first += w.n) {
		w.n = n - w.first < cap ? n - w.first : cap;
		tp_parallel_for(cap, 0, load_slot, &w);
		for (size_t i = 0; i < w.n && rc == TP_OK; i++) {
			if ((rc = w.rc[i]) != TP_OK) {
				*err = w.errs[i];
				break;
			}
			/* held in its slot: released in parallel next time */
			rc = tp_merge_add(g, json_incref(w.docs[i]), paths[w.first + i], err);
		}
	}
	w.n = 0;
	tp_parallel_for(cap, 0, load_slot, &w); /* releases the last window */
	free(w.docs);
	free(w.rc);
	free(w.errs);
	return rc;
}

/* Output in large writes: a report of a thousand hosts is 100 MB of
 * JSON, and json_dumpf writes it a token at a time. */
struct out_buf {
	FILE *out;
	char *buf;
	size_t len;
	bool failed;
};

#define OUT_BUF ((size_t)1 << 20)

static void out_flush(struct out_buf *o)
{
	if (o->len && !o->failed && fwrite(o->buf, 1, o->len, o->out) != o->len)
		o->failed = true;
	o->len = 0;
}

static int out_put(const char *p, size_t n, void *ctx)
{
	struct out_buf *o = ctx;

	if (o->len + n > OUT_BUF)
		out_flush(o);
	if (n > OUT_BUF) {
		if (!o->failed && fwrite(p, 1, n, o->out) != n)
			o->failed = true;
		return 0;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
	return 0;
}

enum tp_err tp_merge_write(FILE *out, json_t *doc, struct tp_error *err)
{
	struct out_buf o = { out, tp_xmalloc(OUT_BUF), 0, false };

	if (json_dump_callback(doc, out_put, &o, TP_JSON_FLAGS) < 0)
		o.failed = true;
	out_put("\n", 1, &o);
	out_flush(&o);
	free(o.buf);
	if (o.failed)
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write JSON output");
	return TP_OK;
}

/* The stream splitter: where the JSON value that started ends. Tracks
 * nesting and strings over bytes as they come. */
struct splitter {
	int depth;
	bool in_string, escape, started;
};

static bool split_byte(struct splitter *s, char c)
{
	if (s->in_string) {
		if (s->escape)
			s->escape = false;
		else if (c == '\\')
			s->escape = true;
		else if (c == '"')
			s->in_string = false;
		return false;
	}
	if (c == '"') {
		s->in_string = true;
	} else if (c == '{' || c == '[') {
		s->depth++;
		s->started = true;
	} else if (c == '}' || c == ']') {
		s->depth--;
		return s->started && s->depth <= 0;
	} else if (!s->started && c != ' ' && c != '\n' && c != '\t' && c != '\r') {
		s->started = true; /* not a document: the parser says what */
		return false;
	}
	return false;
}

void tp_merge_stream_init(struct tp_merge_stream *st, FILE *in, uint64_t max)
{
	memset(st, 0, sizeof(*st));
	st->in = in;
	st->max = max;
}

/* A stream that cannot start a report: its first bytes (the blanks
 * before c, c, and what follows, up to HEAD_PEEK) name what it is, gzip
 * or a capture (whose first byte 0x0a reads as a blank). */
#define HEAD_PEEK 256
#define LEAD_KEPT 16
static void bad_stream_start(struct tp_merge_stream *st, const char *name, int c,
			     const uint8_t *lead, size_t n_lead, struct tp_error *err)
{
	uint8_t head[HEAD_PEEK];
	uint64_t at = st->pos - 1;
	size_t n = n_lead <= LEAD_KEPT ? n_lead : 0;
	int next;

	memcpy(head, lead, n);
	head[n++] = (uint8_t)c;
	while (n < sizeof(head) && (next = getc_unlocked(st->in)) != EOF) {
		head[n++] = (uint8_t)next;
		st->pos++;
	}
	bad_start(name, at, c, head, n, err);
}

int tp_merge_stream_next(struct tp_merge_stream *st, json_t **doc, struct tp_error *err)
{
	struct splitter sp = { 0, false, false, false };
	size_t len = 0, n_lead = 0;
	uint8_t lead[LEAD_KEPT];
	int c;
	char name[64];

	*doc = NULL;
	while ((c = getc_unlocked(st->in)) != EOF) {
		st->pos++;
		if (!sp.started && blank(c)) {
			if (n_lead < LEAD_KEPT)
				lead[n_lead] = (uint8_t)c;
			n_lead += n_lead <= LEAD_KEPT;
			continue;
		}
		if (!len) {
			st->n++;
			snprintf(name, sizeof(name), "stdin, report %zu", st->n);
			/* what cannot start a report never ends one (/dev/zero) */
			if (!starts_report(c)) {
				bad_stream_start(st, name, c, lead, n_lead, err);
				return -1;
			}
		}
		if (len >= st->max) {
			too_large(name, st->max, err);
			return -1;
		}
		if (len + 1 >= st->cap)
			st->buf = tp_xgrow(st->buf, &st->cap, len + 2, 1);
		st->buf[len++] = (char)c;
		if (split_byte(&sp, (char)c))
			break;
	}
	if (!len)
		return 0;
	return parse(name, st->buf, len, doc, err) == TP_OK ? 1 : -1;
}

void tp_merge_stream_release(struct tp_merge_stream *st)
{
	free(st->buf);
	st->buf = NULL;
	st->cap = 0;
}

/* name = prefix + digits: the digits' value, the prefix's length. */
static bool numbered(const char *name, size_t *prefix, unsigned long *num)
{
	size_t n = strlen(name), k = n;

	while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	if (k == n || n - k > 9)
		return false;
	*prefix = k;
	*num = strtoul(name + k, NULL, 10);
	return true;
}

size_t tp_merge_missing(const struct tp_merge_hosts *h, char ***out)
{
	size_t plen = 0, n = 0, p;
	unsigned long lo = (unsigned long)-1, hi = 0, num;
	int width = 0; /* zero-padded numbers (host007): their width */
	const char *first;
	bool *seen;

	*out = NULL;
	if (h->n_names < 2)
		return 0; /* one name is no series: host 2 of what? */
	first = h->names[0];
	for (size_t i = 0; i < h->n_names; i++) {
		if (!numbered(h->names[i], &p, &num) || (i && p != plen) ||
		    strncmp(h->names[i], first, p) != 0)
			return 0; /* no one <prefix><number> pattern */
		plen = p;
		if (h->names[i][p] == '0' && h->names[i][p + 1])
			width = (int)strlen(h->names[i] + p);
		lo = num < lo ? num : lo;
		hi = num > hi ? num : hi;
	}
	/* the gaps the names imply; never beyond them (an expected count
	 * says how many, not which) */
	if (hi - lo > 10000000)
		return 0;
	seen = tp_xcalloc(hi - lo + 1, 1);
	for (size_t i = 0; i < h->n_names; i++) {
		numbered(h->names[i], &p, &num);
		seen[num - lo] = true;
	}
	for (unsigned long v = lo; v <= hi; v++)
		if (!seen[v - lo]) {
			*out = tp_xrealloc(*out, (n + 1) * sizeof(**out));
			(*out)[n++] = tp_xasprintf("%.*s%0*lu", (int)plen, first, width, v);
		}
	free(seen);
	return n;
}
