/*
 * diff_json.c - `tpuprof diff` output: the tpuprof.diff/1 document as it
 * is (every row; docs/json.md), or its text rendering (diff_text.c).
 */
#include "tpuprof/diff.h"

enum tp_err tp_diff_write(FILE *out, enum tp_format fmt, json_t *diff, size_t limit,
			  struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		return tp_json_write(out, diff, err);
	return tp_diff_write_text(out, diff, limit, err);
}
