/*
 * json_ends.c - where a writer's text ends up (json_stream.h): the
 * document finished into its FILE or taken as a tree; and runs of a
 * container's elements written on other threads and spliced back in
 * order (tp_jw_fork): each part is a stream writer into memory that
 * starts in the state of the writer it came from, so the punctuation it
 * writes is the writer's own.
 */
#include "json_stream_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

bool tp_jw_fork(struct tp_jw *part, const struct tp_jw *w, bool after_others)
{
	int d = w->depth;

	memset(part, 0, sizeof(*part));
	if (!tp_jw_writing(w) || d == 0)
		return false;
	part->out = open_memstream(&part->mem, &part->mem_len);
	if (!part->out)
		return false;
	part->buf = tp_xmalloc(JW_BUF_SIZE);
	part->depth = d;
	memcpy(part->object, w->object, sizeof(part->object));
	memcpy(part->empty, w->empty, sizeof(part->empty));
	if (after_others)
		part->empty[d - 1] = false;
	return true;
}

void tp_jw_splice(struct tp_jw *w, struct tp_jw *part)
{
	int d = w->depth;

	tp_jw_flush(part);
	if (fclose(part->out) != 0)
		part->failed = true;
	if (part->depth != d)
		w->misused = true;
	w->failed |= part->failed;
	w->misused |= part->misused;
	if (tp_jw_writing(w) && part->mem_len) {
		tp_jw_raw(w, part->mem, part->mem_len);
		w->empty[d - 1] = false;
	}
	free(part->buf);
	free(part->mem);
	memset(part, 0, sizeof(*part));
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
	if (w->failed)
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write JSON output");
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
