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

/* Every section's human label, in the order text and HTML show them; the
 * label says per what a row is and what the total is. */
static const struct {
	const char *name, *title;
} titles[] = {
	{ "memory_modules", "compiler peak per module (total: the largest module)" },
	{ "memory_cores_compiler", "compiler peak per core (total: the worst core)" },
	{ "memory_cores_runtime", "runtime allocator peak per core (total: the worst core)" },
	{ "memory_cores_headroom",
	  "headroom to capacity per core (total: the worst core, the least headroom)" },
	{ "peak_buffers", "buffers live at each module's peak (total: summed over modules)" },
	{ "peak_scopes", "bytes at each module's peak by name scope (total: summed over modules)" },
	{ "ops", "op time, summed over cores" },
	{ "op_scopes", "op self time by name scope, summed over cores" },
	{ "cores_steady_step", "mean steady step per core (total: the slowest core)" },
	{ "cores_steady_step_parts",
	  "mean steady step by part per core (total: summed over cores)" },
	{ "collective_ring_bytes", "collective ring bytes sent, summed over devices and executions" },
	{ "collective_payload_bytes", "collective payload bytes, summed over executions" },
	{ "collective_time", "collective device time, summed over executions" },
	{ "cores_flop_utilization",
	  "FLOP utilization per core (total: all cores together, by device time)" },
};

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
	for (size_t i = 0; i < sizeof(titles) / sizeof(titles[0]); i++)
		json_object_set_new(json_object_get(sections, titles[i].name), "title",
				    json_string(titles[i].title));
	json_object_set_new(doc, "sections", sections);
	return doc;
}
