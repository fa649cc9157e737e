/*
 * merge.h - combining `tpuprof.report/1` documents made on different
 * machines (one per host, say) into the document one run over all their
 * files would have produced: hosts, cores and runtime memories are
 * concatenated in argument order, programs are kept once (by program id),
 * collective executions and op time are summed, the op scope tree is
 * rebuilt. docs/json.md lists the rule for every field.
 *
 * Ownership: the inputs are borrowed; the result is a new reference.
 */
#ifndef TPUPROF_MERGE_H
#define TPUPROF_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "tpuprof/util/error.h"

/* Merging one document at a time (tpuprof merge over a pod's reports):
 * memory is that of the merged document, not of all the inputs.
 *   g = tp_merge_new(true); tp_merge_add(g, doc, name, err)...;
 *   tp_merge_finish(g, &out, err); tp_merge_free(g);
 * own: tp_merge_add takes the documents (releases them, and moves their
 * elements into the result instead of copying them); else it borrows. */
struct tp_merge;
struct tp_merge *tp_merge_new(bool own);
/* Merges doc, named name in messages (a file name): TP_ERR_INPUT when it
 * is not a report or lacks a part. A document of a host merged already
 * (the same name, source file and event count) is left out and named in
 * tp_merge_hosts. */
enum tp_err tp_merge_add(struct tp_merge *g, json_t *doc, const char *name,
			 struct tp_error *err);
/* The merged document (a new reference); TP_ERR_USAGE when nothing was
 * merged. */
enum tp_err tp_merge_finish(struct tp_merge *g, json_t **out, struct tp_error *err);

/* A host met a second time. */
struct tp_merge_dup {
	char *host;       /* its name                                       */
	char *first;      /* the input it was merged from first              */
	char *again;      /* the later input                                 */
	bool left_out;    /* the same capture again: `again` was left out;
			   * else another capture of a host of that name, merged */
};
/* The hosts merged, in order, and those met twice. Owned by g. */
struct tp_merge_hosts {
	char **names;
	size_t n_names;
	struct tp_merge_dup *dups;
	size_t n_dups;
};
const struct tp_merge_hosts *tp_merge_hosts(const struct tp_merge *g);
void tp_merge_free(struct tp_merge *g);

/* Missing hosts, when two or more hosts are named <prefix><number>
 * (host0, w-12, host007): the numbers absent between the smallest and
 * the largest, the series the names themselves imply (one name, or an
 * expected count, implies none), each as "<prefix><number>", into a
 * malloc'd array the caller frees (each name, then the array). Returns
 * how many; 0 with *out NULL when none are missing or the names follow
 * no one such pattern. */
size_t tp_merge_missing(const struct tp_merge_hosts *h, char ***out);

/* The report files of `tpuprof merge`'s arguments: a file as named, a
 * directory's *.json files by name, a pattern's matches by name (one the
 * shell left alone: quoted, or too many files for a command line), "-"
 * for standard input. Paths are malloc'd; TP_ERR_INPUT for a directory
 * without reports or a pattern without matches. */
struct tp_merge_inputs {
	char **paths;
	size_t n;
};
enum tp_err tp_merge_inputs(const char *const *args, size_t n,
			    struct tp_merge_inputs *in, struct tp_error *err);
void tp_merge_inputs_release(struct tp_merge_inputs *in);
/* Merges report files in order into g (a merge that owns its inputs):
 * they are read and parsed a few at a time on every thread, each held to
 * max bytes (tp_merge_load_file). */
enum tp_err tp_merge_files(struct tp_merge *g, const char *const *paths, size_t n,
			   uint64_t max, struct tp_error *err);
/* Writes a merged document as tp_json_write does, in large writes. */
enum tp_err tp_merge_write(FILE *out, json_t *doc, struct tp_error *err);
/* Reads and parses one report file (a new reference in *doc): a file,
 * device or FIFO of more than max bytes is refused ("input larger than
 * the limit of N bytes (see --max-input)"), and one whose first byte that
 * is not blank cannot start a report (not '{' or '[') at once, without
 * reading on (TP_ERR_INPUT both). */
enum tp_err tp_merge_load_file(const char *path, uint64_t max, json_t **doc,
			       struct tp_error *err);

/* Reports on a stream, one after the other: JSON lines, or whole
 * documents as `report --format json` writes them, back to back. */
struct tp_merge_stream {
	FILE *in;
	char *buf;       /* the document being read                      */
	size_t cap, n;   /* n: documents read                            */
	uint64_t max;    /* most bytes of one document                   */
	uint64_t pos;    /* bytes taken from in                          */
};
void tp_merge_stream_init(struct tp_merge_stream *st, FILE *in, uint64_t max);
/* 1 with a new reference in *doc, 0 at the end, -1 when a document is
 * not JSON, is longer than max bytes, or starts with a byte that cannot
 * start a report (said at once: an endless stream is not read on)
 * (TP_ERR_INPUT, named "stdin, report N"). */
int tp_merge_stream_next(struct tp_merge_stream *st, json_t **doc, struct tp_error *err);
void tp_merge_stream_release(struct tp_merge_stream *st);

/* Merges n >= 1 report documents (borrowed); fails with TP_ERR_INPUT
 * naming the argument that is not a report or lacks a part. */
enum tp_err tp_report_merge(json_t **out, json_t *const *docs,
			    const char *const *names, size_t n,
			    struct tp_error *err);

#endif
