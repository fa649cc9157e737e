/*
 * json_stream.h - a JSON document written piece by piece, so that a report
 * of a large capture never exists whole in memory (a 26 MB document costs
 * about 200 MB as one jansson tree).
 *
 * The caller opens and closes containers and puts values into them, in
 * document order. Each value is a small jansson tree: in stream mode it is
 * written at once (containers and the common scalars by the writer, reals
 * and strings that need escapes by jansson) and freed; the text is
 * byte-identical to json_dumpf() of the whole tree with TP_JSON_FLAGS
 * (jansson's 2-space layout, empty containers as [] and {}). In tree mode
 * the same calls build that tree instead, for readers that need the
 * document (check, diff, merge): one writer per document serves both.
 *
 * Ownership: tp_jw_put() steals its value (a NULL value is dropped, as
 * json_object_set_new() drops it). Keys are borrowed and must be valid
 * UTF-8. In stream mode the FILE is borrowed; tp_jw_finish() flushes the
 * writer's buffer into it and frees the buffer. In tree mode the caller
 * takes the document with tp_jw_take().
 *
 * Errors: a failed write is sticky: later calls do nothing, tp_jw_ok()
 * turns false (loops over big arrays stop early), and tp_jw_finish()
 * returns TP_ERR_OUTPUT. Unbalanced calls, a key where none belongs (or
 * none where one does) or nesting deeper than TP_JW_MAX_DEPTH are bugs:
 * tp_jw_finish() returns TP_ERR_INTERNAL.
 */
#ifndef TPUPROF_JSON_STREAM_H
#define TPUPROF_JSON_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "tpuprof/util/error.h"

/* The layout of every document tpuprof writes (docs/json.md): indented
 * by 2, or compact (no whitespace) once tp_json_set_compact(true). */
#define TP_JSON_FLAGS tp_json_flags()
#define TP_JSON_INDENTED (JSON_INDENT(2) | JSON_ENSURE_ASCII)

/* --compact: every JSON document of this process written without
 * indentation or spaces (a baseline kept for months, a smaller artifact).
 * A process-wide layout, set once by the CLI before anything is written. */
void tp_json_set_compact(bool compact);
size_t tp_json_flags(void);
bool tp_json_compact(void);

#define TP_JW_MAX_DEPTH 16

struct tp_jw {
	FILE *out;                      /* stream mode; NULL in tree mode  */
	char *buf;                      /* stream: pending text (malloc'd) */
	size_t len;                     /* bytes pending in buf            */
	int depth;                      /* containers open                 */
	int indent;                     /* stream: depth of the value being dumped */
	bool object[TP_JW_MAX_DEPTH];   /* the container is an object      */
	bool empty[TP_JW_MAX_DEPTH];    /* nothing put in it yet           */
	json_t *open[TP_JW_MAX_DEPTH];  /* tree: the containers (borrowed) */
	json_t *root;                   /* tree: the document (owned)      */
	bool done;                      /* the top-level value is complete */
	char *mem;                      /* a fork's text (open_memstream)   */
	size_t mem_len;
	bool spooled;                   /* a fork's text in a temporary file */
	bool failed;                    /* a write failed                  */
	int error;                      /* errno of the first failed write,
					 * on whatever thread it ran (0:
					 * none known)                     */
	bool misused;                   /* a bug in the caller             */
};

/* Stream mode into out, or tree mode when out is NULL. */
void tp_jw_init(struct tp_jw *w, FILE *out);

/* Open a container: key names it inside an object, and is NULL inside an
 * array and for the top-level value. */
void tp_jw_object(struct tp_jw *w, const char *key);
void tp_jw_array(struct tp_jw *w, const char *key);
/* Close the innermost open container. */
void tp_jw_end(struct tp_jw *w);
/* Put a value (stolen; see above for key). */
void tp_jw_put(struct tp_jw *w, const char *key, json_t *v);

/* Shortcuts for hot writers (every op of a report), with no jansson value
 * in stream mode: an integer (json_integer's text), a real, and a string that
 * needs no escape. tp_jw_put_plain writes nothing and returns false when
 * the string needs escapes or the writer builds a tree: put it as a
 * value then. */
void tp_jw_put_int(struct tp_jw *w, const char *key, int64_t v);
/* A finite real (json_real's text; NaN or infinity, which json_real
 * refuses, writes nothing in tree mode and is a caller's bug). */
void tp_jw_put_real(struct tp_jw *w, const char *key, double v);
bool tp_jw_put_plain(struct tp_jw *w, const char *key, const char *s, size_t n);

/* A run of elements of w's innermost open container written on another
 * thread: tp_jw_fork makes `part` a stream writer into memory, in the
 * state w is in (after_others: elements of the container come before
 * the run, so it starts with a ','); the caller puts the run's elements
 * into part, then tp_jw_splice appends part's text to w, in document
 * order, and releases part. The text is exactly what w itself would
 * have written. False (part unused, nothing to release) when w builds a
 * tree, has failed, has no container open, or memory runs out: write
 * the run into w itself then. Parts of one container may all be forked
 * before any is spliced (after_others true for all but a first one);
 * they are spliced in order, and nothing is put into w meanwhile. A part
 * forked with after_others may also wait while w puts other members of
 * the same container before it (nested containers closed again): its
 * text then follows them, as w is in the state the fork copied. */
bool tp_jw_fork(struct tp_jw *part, const struct tp_jw *w, bool after_others);
/* As tp_jw_fork, the text kept in an unlinked temporary file under
 * $TMPDIR (tp_tmpfile) instead of memory: for a part of megabytes written beside the rest,
 * which would otherwise add its size to the peak resident memory. */
bool tp_jw_fork_spooled(struct tp_jw *part, const struct tp_jw *w, bool after_others);
/* True when part's text is in w (or w is failed or misused). False only
 * for a spooled part whose file failed (disk full, say) before any of
 * its text reached w: w is as it was, and the caller writes the run into
 * w itself. */
bool tp_jw_splice(struct tp_jw *w, struct tp_jw *part);

/* Two runs of w's innermost container at once, after elements already
 * in it: first(w, ctx) into w, second on another thread into a spooled
 * part spliced after the first's, the text as written one after the
 * other; so, one after the other, where w cannot fork (a tree, one
 * thread: tp_threads() 1) or the part's temporary file fails. first and
 * second must be safe to run at once. */
void tp_jw_two_runs(struct tp_jw *w, void (*first)(struct tp_jw *w, void *ctx),
		    void (*second)(struct tp_jw *w, void *ctx), void *ctx);

/* False once a write failed or the writer was misused. */
bool tp_jw_ok(const struct tp_jw *w);

/* Stream mode: the trailing newline, then everything flushed to out.
 * TP_OK, TP_ERR_OUTPUT ("cannot write JSON output"; errno then the
 * failed write's, even when it ran on another thread: a closed pipe is
 * EPIPE) or TP_ERR_INTERNAL. Tree mode: TP_OK unless misused. */
enum tp_err tp_jw_finish(struct tp_jw *w, struct tp_error *err);

/* Tree mode: the document (a new reference; NULL when nothing was put).
 * The writer is left empty; a tree-mode writer always ends here. */
json_t *tp_jw_take(struct tp_jw *w);

#endif
