/*
 * json_stream_internal.h - what json_ends.c needs of the writer
 * (json_stream.c): its buffer size and its raw text path.
 */
#ifndef TPUPROF_JSON_STREAM_INTERNAL_H
#define TPUPROF_JSON_STREAM_INTERNAL_H

#include "tpuprof/util/json_stream.h"

/* Text is gathered here and handed to stdio in large writes: jansson
 * calls back once per token, and a stdio call per token is slow. */
#define JW_BUF_SIZE (64 * 1024)

/* Stream mode and nothing gone wrong: text may be written. */
bool tp_jw_writing(const struct tp_jw *w);
/* n bytes of text as they are, no punctuation. */
void tp_jw_raw(struct tp_jw *w, const char *s, size_t n);
/* The pending text into the writer's FILE. */
void tp_jw_flush(struct tp_jw *w);

#endif
