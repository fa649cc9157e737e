/*
 * damage_json.c - the `damage` list of the info document: one object per
 * damaged part that was skipped (docs/json.md).
 */
#include "damage.h"

#include "tpuprof/report/report.h"

json_t *tp_damage_json(const struct tp_capture *cap)
{
	json_t *a = json_array();

	for (size_t i = 0; i < cap->n_damage; i++) {
		const struct tp_damage *d = &cap->damage[i];
		char line[1024];

		tp_damage_format(d, line, sizeof(line));
		json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:o, s:o}",
						   "file", tp_json_cstr(d->path),
						   "part", tp_json_cstr(d->part),
						   "offset", tp_json_uint(d->offset),
						   "what", tp_json_cstr(d->what),
						   "message", tp_json_cstr(line)));
	}
	return a;
}

void tp_damage_warnings_json(struct tp_jw *w, const struct tp_capture *cap)
{
	for (size_t i = 0; i < cap->n_damage && tp_jw_ok(w); i++) {
		char line[1024];

		tp_damage_format(&cap->damage[i], line, sizeof(line));
		tp_jw_put(w, NULL, tp_json_cstr(line));
	}
}

void tp_document_warnings_json(struct tp_jw *w, const char *key,
			       const struct tp_capture *cap)
{
	if (key)
		return;
	tp_jw_array(w, "warnings");
	tp_damage_warnings_json(w, cap);
	tp_jw_end(w);
}
