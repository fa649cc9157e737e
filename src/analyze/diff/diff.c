/*
 * diff.c - `tpuprof diff`: the tpuprof.diff/1 document of two report
 * documents. The matching of each part lives in diff_memory.c (peaks,
 * buffers, scopes), diff_time.c (ops, op scopes, collectives) and
 * diff_device.c (headroom, FLOP utilization); the row sets and sections
 * they build with in diff_entry.c; the rules are in diff.h.
 */
#include "tpuprof/analyze/diff.h"
#include "tpuprof/util/json_value.h"

#include "diff_internal.h"
#include "tpuprof/util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

json_t *tp_diff_reports(const json_t *a, const json_t *b, const char *a_name,
			const char *b_name)
{
	json_t *doc = json_object(), *sections = json_object();

	json_object_set_new(doc, "schema", json_string("tpuprof.diff/1"));
	json_object_set_new(doc, "a", tp_json_cstr(a_name));
	json_object_set_new(doc, "b", tp_json_cstr(b_name));
	diff_memory(sections, a, b);
	diff_time(sections, a, b);
	diff_device(sections, a, b);
	json_object_set_new(doc, "sections", sections);
	return doc;
}
