/*
 * report_json.c - the `tpuprof.report/1` document: the documents of
 * `info`, `memory`, `ops` (every op, and the scope tree) and `collectives`
 * under their names, each keeping its own "schema", so a saved report can
 * stand in for the capture in `check`, `diff` and `merge`.
 */
#include "tpuprof/memory_report.h"
#include "tpuprof/ops_report.h"
#include "tpuprof/report_doc.h"

json_t *tp_report_json(const struct tp_capture *cap, const struct tp_report *r)
{
	struct tp_ops_view all = { .limit = 0, .sort = 0, .filter = NULL, .scopes = NULL };
	struct tp_ops_view by_scope = { .limit = 0, .sort = 0, .filter = NULL,
					.scopes = &r->scopes };
	json_t *doc = json_object(), *warnings = json_array();

	json_object_set_new(doc, "schema", json_string("tpuprof.report/1"));
	json_object_set_new(doc, "info", tp_info_json(cap, &r->info));
	json_object_set_new(doc, "memory", tp_memory_json(cap, &r->memory));
	json_object_set_new(doc, "ops", tp_ops_json(cap, &r->coll.ops, &all));
	json_object_set_new(doc, "op_scopes", tp_ops_json(cap, &r->coll.ops, &by_scope));
	json_object_set_new(doc, "collectives", tp_collectives_json(cap, &r->coll));
	for (size_t i = 0; i < r->info.n_warnings; i++)
		json_array_append_new(warnings, tp_json_cstr(r->info.warnings[i]));
	for (size_t i = 0; i < r->memory.n_warnings; i++)
		json_array_append_new(warnings, tp_json_cstr(r->memory.warnings[i]));
	json_object_set_new(doc, "warnings", warnings);
	return doc;
}
