/*
 * advice_json.c - the report's "advice" list (docs/json.md): every rule
 * with its verdict, the figure measured and the core it was measured on.
 */
#include "tpuprof/report_doc.h"

static json_t *real_or_null(bool has, double v)
{
	return has ? json_real(v) : json_null();
}

void tp_advice_json(struct tp_jw *w, const char *key, const struct tp_capture *cap,
		    const struct tp_ops *ops, const struct tp_advice *a)
{
	tp_jw_array(w, key);
	for (size_t i = 0; i < a->n && tp_jw_ok(w); i++) {
		const struct tp_advice_finding *f = &a->v[i];
		const struct tp_ops_core *c = f->core < ops->n_cores ? &ops->cores[f->core] : NULL;

		tp_jw_put(w, NULL, json_pack("{s:s,s:s,s:s,s:o,s:o,s:o,s:f,s:o,s:o,s:o,s:s}",
			"rule", f->rule,
			"origin", f->origin,
			"verdict", tp_advice_verdict_name(f->verdict),
			"host", c ? tp_json_cstr(cap->hosts[c->host].name) : json_null(),
			"plane", c ? tp_json_str(c->plane->name) : json_null(),
			"measured", real_or_null(f->has_measured, f->measured),
			"threshold", f->threshold,
			"second_measured", real_or_null(f->has_second, f->second),
			"second_threshold", real_or_null(f->has_second, f->second_threshold),
			"time_ps", f->has_time ? tp_json_int(f->time_ps) : json_null(),
			"text", f->text ? f->text : ""));
	}
	tp_jw_end(w);
}
