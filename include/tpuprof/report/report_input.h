/*
 * report_input.h - what an input argument holds, read once: a saved
 * report document (`report --format json`, or `merge`'s) or a capture,
 * from a regular file, standard input ("-"), a pipe or a FIFO. Every
 * command that reads reports starts here, so a report piped in is read
 * as one named on the command line, and no byte is lost to the sniffing:
 * a capture on a stream keeps the bytes looked at (head), and the
 * capture reader continues from them (tp_open_opts.heads).
 *
 * Ownership: a tp_report_input owns its document (a new reference, taken
 * by setting doc to NULL), its head's bytes and the stream it opened;
 * tp_report_input_release frees them. path is borrowed.
 */
#ifndef TPUPROF_REPORT_INPUT_H
#define TPUPROF_REPORT_INPUT_H

#include <jansson.h>

#include "tpuprof/decode/capture.h"
#include "tpuprof/util/error.h"

struct tp_report_input {
	const char *path;             /* as given; "-" standard input     */
	json_t *doc;                  /* a report document, or NULL       */
	/* a capture on a stream: head.path is path, head.bytes what was
	 * read of it (malloc'd), head.fd the stream; head.path is NULL for
	 * a capture the reader opens itself (a file, a directory) */
	struct tp_stream_head head;
	bool own_fd;
	bool parts;                   /* internal: part documents taken   */
};

/* Reads what path holds: a report document (its first non-blank byte is
 * '{': the whole input is read, at most max bytes, and must be a
 * tpuprof report) or a capture (nothing kept but a stream's head).
 * TP_ERR_INPUT naming the path when it cannot be read, is JSON but not
 * valid, or another JSON document. */
enum tp_err tp_report_input_open(struct tp_report_input *in, const char *path, uint64_t max,
				 struct tp_error *err);
/* The same, a command's own document (tpuprof.ops/1, memory,
 * collectives) taken too: what `report`, `ops`, `memory` and
 * `collectives` draw again (tp_report_doc_as_part). */
enum tp_err tp_report_input_open_any(struct tp_report_input *in, const char *path,
				     uint64_t max, struct tp_error *err);
void tp_report_input_release(struct tp_report_input *in);

/* The part key of a command's own document: "ops" for schema
 * tpuprof.ops/1, likewise memory and collectives (of want only, unless
 * want is NULL); NULL for any other schema. */
const char *tp_report_part_of(const char *schema, const char *want);

/* TP_ERR_INPUT, naming the member, when a member of doc named *_bytes
 * or *_ps is not an integer, null or a figure object holding one, or is
 * negative (a headroom may be): a reader would take it as absent, and a
 * check of it pass (doc_figures.c). */
enum tp_err tp_report_doc_figures_ok(const json_t *doc, const char *name,
				     struct tp_error *err);

/* A report document parsed from bytes (named name in messages): a new
 * reference, or TP_ERR_INPUT when it is not JSON, not a report, or its
 * figures are not what tpuprof writes (tp_report_doc_figures_ok). */
enum tp_err tp_report_doc_parse(json_t **out, const char *name, const char *bytes, size_t len,
				struct tp_error *err);

#endif
