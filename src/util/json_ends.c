/*
 * json_ends.c - where a writer's text ends up (json_stream.h): the
 * document finished into its FILE or taken as a tree; and runs of a
 * container's elements written on other threads and spliced back in
 * order (tp_jw_fork): each part is a stream writer into memory that
 * starts in the state of the writer it came from, so the punctuation it
 * writes is the writer's own.
 */
#include "json_stream_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>

#include "tpuprof/util/parallel.h"
#include "tpuprof/util/util.h"

/* A part in the state of w, writing into out (NULL: none, false). */
static bool fork_into(struct tp_jw *part, const struct tp_jw *w, bool after_others,
		      FILE *out)
{
	int d = w->depth;

	if (!out)
		return false;
	part->out = out;
	part->buf = tp_xmalloc(JW_BUF_SIZE);
	part->depth = d;
	memcpy(part->object, w->object, sizeof(part->object));
	memcpy(part->empty, w->empty, sizeof(part->empty));
	if (after_others)
		part->empty[d - 1] = false;
	return true;
}

bool tp_jw_fork(struct tp_jw *part, const struct tp_jw *w, bool after_others)
{
	memset(part, 0, sizeof(*part));
	if (!tp_jw_writing(w) || w->depth == 0)
		return false;
	return fork_into(part, w, after_others,
			 open_memstream(&part->mem, &part->mem_len));
}

bool tp_jw_fork_spooled(struct tp_jw *part, const struct tp_jw *w, bool after_others)
{
	memset(part, 0, sizeof(*part));
	if (!tp_jw_writing(w) || w->depth == 0)
		return false;
	part->spooled = true;
	return fork_into(part, w, after_others, tp_tmpfile());
}

/* The n bytes of a spooled part's file sent to w's file by the kernel
 * (sendfile: no copy through this process), w's pending text written
 * first. NO_SEND when nothing was sent and it cannot be here (w writes
 * into memory, a terminal, a file opened to append): the caller reads
 * the part back instead. */
enum send_result { SENT, NO_SEND, SEND_FAILED };

static enum send_result send_spool(struct tp_jw *w, FILE *from, off_t n)
{
	int out = fileno(w->out), in = fileno(from);
	off_t at = 0;

	if (out < 0 || in < 0)
		return NO_SEND;
	tp_jw_flush(w);
	if (w->failed || fflush(w->out) != 0)
		return SEND_FAILED;
	while (at < n) {
		ssize_t k = sendfile(out, in, &at, (size_t)(n - at));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return at == 0 ? NO_SEND : SEND_FAILED;
	}
	return SENT;
}

/* A spooled part's text, read back from its file into w. False when
 * the file failed before any of it reached w (w unchanged); a read that
 * fails later fails w. */
static bool read_spool(struct tp_jw *w, struct tp_jw *part)
{
	char chunk[16384];
	bool appended = false;
	size_t n;

	if (fseek(part->out, 0, SEEK_SET) != 0)
		return false;
	while ((n = fread(chunk, 1, sizeof(chunk), part->out)) > 0) {
		if (tp_jw_writing(w))
			tp_jw_raw(w, chunk, n);
		w->empty[w->depth - 1] = false;
		appended = true;
	}
	if (ferror(part->out)) {
		if (!appended)
			return false;
		if (!w->failed)
			w->error = errno;
		w->failed = true;
	}
	return true;
}

/* A spooled part's text into w: sent file to file where the kernel can
 * (the part's megabytes never copied into this process, and the
 * document's end not waiting on it), else read back. False as
 * read_spool says. */
static bool splice_spool(struct tp_jw *w, struct tp_jw *part)
{
	off_t n;

	if (part->failed || fflush(part->out) != 0 || (n = ftello(part->out)) < 0)
		return false;
	if (n == 0)
		return true;
	if (tp_jw_writing(w)) {
		enum send_result sent = send_spool(w, part->out, n);

		if (sent != NO_SEND) {
			if (sent == SEND_FAILED && !w->failed) {
				w->failed = true;
				w->error = errno;
			}
			w->empty[w->depth - 1] = false;
			return true;
		}
	}
	return read_spool(w, part);
}

static void release_part(struct tp_jw *part)
{
	free(part->buf);
	free(part->mem);
	memset(part, 0, sizeof(*part));
}

bool tp_jw_splice(struct tp_jw *w, struct tp_jw *part)
{
	int d = w->depth;

	tp_jw_flush(part);
	if (part->depth != d)
		w->misused = true;
	w->misused |= part->misused;
	if (part->spooled) {
		bool spliced = !w->misused && splice_spool(w, part);

		fclose(part->out);
		release_part(part);
		return spliced || w->misused;
	}
	if (fclose(part->out) != 0 && !part->failed) {
		part->failed = true;
		part->error = errno;
	}
	if (part->failed && !w->failed) {
		w->failed = true;
		w->error = part->error;
	}
	if (tp_jw_writing(w) && part->mem_len) {
		tp_jw_raw(w, part->mem, part->mem_len);
		w->empty[d - 1] = false;
	}
	release_part(part);
	return true;
}

enum tp_err tp_jw_finish(struct tp_jw *w, struct tp_error *err)
{
	bool unfinished = w->depth != 0 || !w->done;

	if (w->out) {
		if (tp_jw_writing(w) && !unfinished)
			tp_jw_raw(w, "\n", 1);
		tp_jw_flush(w);
		free(w->buf);
		w->buf = NULL;
	}
	if (w->misused || (unfinished && !w->failed))
		return tp_error_set(err, TP_ERR_INTERNAL,
				    "JSON document written out of order");
	if (w->failed) {
		enum tp_err rc = tp_error_set(err, TP_ERR_OUTPUT,
					      "cannot write JSON output");

		/* the failed write may have run on another thread (the first
		 * of tp_jw_two_runs' runs), which kept its errno */
		if (w->error)
			errno = w->error;
		return rc;
	}
	return TP_OK;
}

json_t *tp_jw_take(struct tp_jw *w)
{
	json_t *root = w->root;

	/* containers a buggy caller left open: the writer's references */
	while (w->depth > 0) {
		w->depth--;
		json_decref(w->open[w->depth]);
		w->open[w->depth] = NULL;
	}
	w->root = NULL;
	return root;
}

struct two_runs {
	struct tp_jw *w, part;
	void (*first)(struct tp_jw *w, void *ctx);
	void (*second)(struct tp_jw *w, void *ctx);
	void *ctx;
};

static void one_run(void *ctx, size_t i, unsigned worker)
{
	struct two_runs *t = ctx;

	(void)worker;
	if (i == 0)
		t->first(t->w, t->ctx);
	else
		t->second(&t->part, t->ctx);
}

void tp_jw_two_runs(struct tp_jw *w, void (*first)(struct tp_jw *w, void *ctx),
		    void (*second)(struct tp_jw *w, void *ctx), void *ctx)
{
	struct two_runs t = { w, { 0 }, first, second, ctx };

	/* the second's part starts where it goes: after elements (the
	 * container's first ones, before either run), as w is again once
	 * the first run is written */
	if (tp_threads() > 1 && tp_jw_fork_spooled(&t.part, w, true)) {
		tp_parallel_for(2, 2, one_run, &t);
		if (tp_jw_splice(w, &t.part))
			return;
	} else {
		first(w, ctx);
	}
	second(w, ctx);   /* no thread, or its temporary file failed */
}
