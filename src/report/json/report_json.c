/*
 * report_json.c - the `tpuprof.report/2` document: the documents of
 * `info`, `memory`, `ops` (every op, and the scope tree) and `collectives`
 * under their names, each keeping its own "schema", so a saved report can
 * stand in for the capture in `check`, `diff` and `merge`. op_scopes
 * leaves out cores[]: they are ops.cores, the largest part of the report.
 */
#include "tpuprof/report/memory_report.h"
#include "tpuprof/report/ops_report.h"
#include "tpuprof/report/report_doc.h"

#include <string.h>

void tp_report_json(struct tp_jw *w, const struct tp_capture *cap,
		    const struct tp_report *r)
{
	struct tp_ops_view all = { .limit = 0, .sort = 0, .filter = NULL, .scopes = NULL };
	struct tp_ops_view by_scope = { .limit = 0, .sort = 0, .filter = NULL,
					.scopes = &r->scopes, .omit_cores = true };

	tp_jw_object(w, NULL);
	tp_jw_put(w, "schema", json_string(TP_REPORT_SCHEMA));
	tp_info_json(w, "info", cap, &r->info);
	tp_memory_json(w, "memory", cap, &r->memory);
	tp_ops_json(w, "ops", cap, &r->coll.ops, &all);
	tp_ops_json(w, "op_scopes", cap, &r->coll.ops, &by_scope);
	tp_collectives_json(w, "collectives", cap, &r->coll);
	tp_jw_put(w, "advice", tp_advice_json(&r->advice));
	tp_jw_array(w, "warnings");
	for (size_t i = 0; i < r->info.n_warnings; i++)
		tp_jw_put(w, NULL, tp_json_cstr(r->info.warnings[i]));
	for (size_t i = 0; i < r->memory.n_warnings; i++)
		tp_jw_put(w, NULL, tp_json_cstr(r->memory.warnings[i]));
	tp_jw_end(w);
	tp_jw_end(w);
}

bool tp_report_schema_ok(const char *schema)
{
	return schema && (strcmp(schema, TP_REPORT_SCHEMA) == 0 ||
			  strcmp(schema, "tpuprof.report/1") == 0);
}
