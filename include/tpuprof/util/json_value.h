/*
 * json_value.h - JSON values as tpuprof writes them (docs/json.md): an
 * int64 as a number when exact in a double, else a decimal string; an id
 * always as a decimal string; a byte slice as a string, invalid UTF-8
 * replaced; and a whole jansson document written out.
 *
 * Ownership: the json_t constructors return new references.
 */
#ifndef TPUPROF_JSON_VALUE_H
#define TPUPROF_JSON_VALUE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "tpuprof/util/error.h"
#include "tpuprof/util/json_stream.h"
#include "tpuprof/util/util.h"

json_t *tp_json_int(int64_t v);
/* An int64 as tp_json_int writes it (a number, or a decimal string past
 * 2^53) into *out; false for anything else (null, a real, text). */
bool tp_json_int_value(const json_t *v, int64_t *out);
json_t *tp_json_uint(uint64_t v);
json_t *tp_json_id(uint64_t v);
json_t *tp_json_sid(int64_t v);
json_t *tp_json_str(struct tp_str s);
json_t *tp_json_cstr(const char *s);

/* tp_jw_put(w, key, tp_json_int(v)) and the like, without a jansson value
 * for the usual case when w streams: for values written per op. */
void tp_jw_int(struct tp_jw *w, const char *key, int64_t v);
void tp_jw_uint(struct tp_jw *w, const char *key, uint64_t v);
void tp_jw_id(struct tp_jw *w, const char *key, uint64_t v);
/* v, or null where it is not known (!has). */
void tp_jw_int_or_null(struct tp_jw *w, const char *key, bool has, int64_t v);
void tp_jw_real_or_null(struct tp_jw *w, const char *key, bool has, double v);
void tp_jw_id_or_null(struct tp_jw *w, const char *key, bool has, uint64_t v);
void tp_jw_str(struct tp_jw *w, const char *key, struct tp_str s);
/* s, or null where it is empty. */
void tp_jw_str_or_null(struct tp_jw *w, const char *key, struct tp_str s);

/* Writes a whole jansson document (TP_JSON_FLAGS, trailing newline);
 * documents that grow with the capture are streamed with a tp_jw. */
enum tp_err tp_json_write(FILE *out, json_t *doc, struct tp_error *err);

#endif
