/*
 * info_json.c - the `tpuprof.info/1` document (docs/json.md), written
 * host by host and plane by plane (json_stream.h); and its `damage` list,
 * one object per damaged part that was skipped, whose messages every
 * standalone document lists under "warnings" too (damage.h).
 */
#include "tpuprof/report/report.h"
#include "damage.h"

static json_t *stat_value(const struct tp_info_stat *st)
{
	switch (st->kind) {
	case TP_STAT_DOUBLE:
		return json_real(st->v.d);
	case TP_STAT_UINT64:
		return tp_json_uint(st->v.u);
	case TP_STAT_INT64:
		return tp_json_int(st->v.i);
	case TP_STAT_STR:
	case TP_STAT_REF:
		return st->has_str ? tp_json_str(st->str) : json_null();
	case TP_STAT_BYTES:
		return json_pack("{s:I}", "bytes", (json_int_t)st->v.bytes);
	default:
		return json_null();
	}
}

/* Plane stats as an object by name; unnamed stats are keyed by id. */
static json_t *plane_stats(const struct tp_info_plane *ip)
{
	json_t *o = json_object();

	for (size_t i = 0; i < ip->n_stats; i++) {
		const struct tp_info_stat *st = &ip->stats[i];
		char key[256];

		if (st->name.len)
			snprintf(key, sizeof(key), "%.*s",
				 (int)(st->name.len > 255 ? 255 : st->name.len),
				 st->name.ptr);
		else
			snprintf(key, sizeof(key), "#%lld", (long long)st->metadata_id);
		json_object_set_new(o, key, stat_value(st));
	}
	return o;
}

static json_t *line_json(const struct tp_line *ln, struct tp_str display_name)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", tp_json_str(ln->name));
	json_object_set_new(o, "display_name", tp_json_str(display_name));
	json_object_set_new(o, "id", tp_json_sid(ln->id));
	json_object_set_new(o, "display_id", tp_json_sid(ln->display_id));
	json_object_set_new(o, "timestamp_ns", tp_json_sid(ln->timestamp_ns));
	json_object_set_new(o, "events", json_integer((json_int_t)ln->n_events));
	json_object_set_new(o, "aggregated_events",
			    json_integer((json_int_t)ln->n_aggregated));
	if (ln->has_span) {
		json_object_set_new(o, "first_start_ps", tp_json_int(ln->first_start_ps));
		json_object_set_new(o, "last_end_ps", tp_json_int(ln->last_end_ps));
		json_object_set_new(o, "span_ps",
				    tp_json_int(tp_sat_sub(ln->last_end_ps,
							   ln->first_start_ps)));
	} else {
		json_object_set_new(o, "first_start_ps", json_null());
		json_object_set_new(o, "last_end_ps", json_null());
		json_object_set_new(o, "span_ps", json_null());
	}
	return o;
}

static void plane_json(struct tp_jw *w, const struct tp_plane *pl,
		       const struct tp_info_plane *ip)
{
	uint64_t events = 0;

	for (size_t l = 0; l < pl->n_lines; l++)
		events += pl->lines[l].n_events;
	tp_jw_object(w, NULL);
	tp_jw_put(w, "name", tp_json_str(pl->name));
	tp_jw_put(w, "id", tp_json_sid(pl->id));
	tp_jw_put(w, "kind", json_string(tp_plane_kind_name(pl->kind)));
	tp_jw_put(w, "device_ordinal",
		  pl->device_ordinal >= 0 ? json_integer(pl->device_ordinal) : json_null());
	tp_jw_put(w, "event_metadata", json_integer((json_int_t)pl->n_event_meta));
	tp_jw_put(w, "stat_metadata", json_integer((json_int_t)pl->n_stat_meta));
	tp_jw_put(w, "events", json_integer((json_int_t)events));
	tp_jw_put(w, "stats", plane_stats(ip));
	tp_jw_array(w, "lines");
	for (size_t l = 0; l < pl->n_lines && tp_jw_ok(w); l++)
		tp_jw_put(w, NULL, line_json(&pl->lines[l], ip->line_display_names[l]));
	tp_jw_end(w);
	tp_jw_end(w);
}

static json_t *module_json(const struct tp_info_module *im)
{
	const struct tp_module *m = im->module;
	const struct tp_hlo_counts *c = &im->counts;
	static const char *const origins[] = { "embedded", "hlo_proto_file", "xla_dump" };
	json_t *o = json_object();
	char layout[2] = { m->embed_layout, 0 };

	json_object_set_new(o, "name", tp_json_str(tp_module_name(m)));
	json_object_set_new(o, "program_id", tp_json_id(m->program_id));
	json_object_set_new(o, "origin", json_string(origins[m->origin]));
	json_object_set_new(o, "embed_layout", m->embed_layout ? json_string(layout) : json_null());
	json_object_set_new(o, "path", tp_json_cstr(m->path));
	json_object_set_new(o, "hlo_bytes", json_integer((json_int_t)m->raw.len));
	json_object_set_new(o, "computations", json_integer((json_int_t)c->computations));
	json_object_set_new(o, "fusion_computations", json_integer((json_int_t)c->fusion_computations));
	json_object_set_new(o, "instructions", json_integer((json_int_t)c->instructions));
	json_object_set_new(o, "fusions", json_integer((json_int_t)c->fusions));
	json_object_set_new(o, "collectives", json_integer((json_int_t)c->collectives));
	json_object_set_new(o, "buffer_assignment", json_boolean(c->has_buffer_assignment));
	json_object_set_new(o, "logical_buffers", json_integer((json_int_t)c->logical_buffers));
	json_object_set_new(o, "buffer_allocations", json_integer((json_int_t)c->allocations));
	json_object_set_new(o, "heap_traces", json_integer((json_int_t)c->heap_traces));
	json_object_set_new(o, "heap_events", json_integer((json_int_t)c->heap_events));
	return o;
}

static json_t *str_array(const struct tp_str *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, tp_json_str(v[i]));
	return a;
}

static json_t *versions_json(const struct tp_info_host *ih)
{
	json_t *o = json_object();

	for (size_t i = 0; i < ih->n_versions; i++) {
		char key[128];
		struct tp_str n = ih->versions[i].name;

		snprintf(key, sizeof(key), "%.*s", (int)(n.len > 127 ? 127 : n.len), n.ptr);
		json_object_set_new(o, key, tp_json_str(ih->versions[i].value));
	}
	return o;
}

static json_t *capture_json(const struct tp_info_host *ih)
{
	if (!ih->has_task_env)
		return json_null();
	return json_pack("{s:o,s:o,s:o}",
			 "start_unix_ns", tp_json_id(ih->profile_start_ns),
			 "stop_unix_ns", tp_json_id(ih->profile_stop_ns),
			 "duration_ps",
			 ih->has_capture_ps ? tp_json_uint(ih->capture_ps) : json_null());
}

static void host_json(struct tp_jw *w, const struct tp_capture *cap,
		      const struct tp_info *info, const struct tp_info_host *ih)
{
	const struct tp_host *h = ih->host;
	uint64_t events = 0;

	for (size_t p = 0; p < h->xs.n_planes; p++)
		for (size_t l = 0; l < h->xs.planes[p].n_lines; l++)
			events += h->xs.planes[p].lines[l].n_events;
	tp_jw_object(w, NULL);
	tp_jw_put(w, "name", tp_json_cstr(h->name));
	tp_jw_put(w, "source", tp_json_cstr(cap->sources[h->source].path));
	tp_jw_put(w, "hostnames", str_array(ih->hostnames, h->xs.n_hostnames));
	tp_jw_put(w, "device_type", ih->device_type ? json_string(ih->device_type) : json_null());
	tp_jw_put(w, "versions", versions_json(ih));
	tp_jw_put(w, "capture", capture_json(ih));
	tp_jw_put(w, "time_origin_ns", tp_json_sid(h->xs.time_origin_ns));
	tp_jw_put(w, "device_planes", json_integer((json_int_t)ih->device_planes));
	tp_jw_put(w, "device_planes_with_events",
		  json_integer((json_int_t)ih->device_planes_with_events));
	tp_jw_put(w, "events", json_integer((json_int_t)events));
	tp_jw_put(w, "memory_events",
		  json_pack("{s:I,s:I}",
			    "allocations", (json_int_t)ih->memory_allocations,
			    "deallocations", (json_int_t)ih->memory_deallocations));
	tp_jw_put(w, "collective_events", json_integer((json_int_t)ih->collective_events));
	tp_jw_put(w, "errors", str_array(ih->errors, h->xs.n_errors));
	tp_jw_put(w, "warnings", str_array(ih->warnings, h->xs.n_warnings));
	tp_jw_array(w, "planes");
	for (size_t p = 0; p < h->xs.n_planes && tp_jw_ok(w); p++)
		plane_json(w, &h->xs.planes[p], &ih->planes[p]);
	tp_jw_end(w);
	tp_jw_array(w, "modules");
	for (size_t i = 0; i < ih->n_modules && tp_jw_ok(w); i++)
		tp_jw_put(w, NULL, module_json(&info->modules[ih->first_module + i]));
	tp_jw_end(w);
	tp_jw_end(w);
}

static json_t *source_json(const struct tp_source *s)
{
	json_t *chunked = s->chunked ?
		json_pack("{s:I,s:I,s:I}", "chunks", (json_int_t)s->chunks,
			  "records", (json_int_t)s->records,
			  "damaged_regions", (json_int_t)s->damaged_regions) :
		json_null();

	return json_pack("{s:o,s:s,s:s,s:b,s:I,s:I,s:o}", "path", tp_json_cstr(s->path),
			 "kind", tp_source_kind_name(s->kind),
			 "detected_by", s->kind_from_name ? "file name" : "content",
			 "gzip", s->gzip, "file_bytes", (json_int_t)s->file_bytes,
			 "bytes", (json_int_t)s->buf.size, "chunked", chunked);
}

void tp_info_json(struct tp_jw *w, const char *key, const struct tp_capture *cap,
		  const struct tp_info *info)
{
	tp_jw_object(w, key);
	tp_jw_put(w, "schema", json_string("tpuprof.info/1"));
	tp_jw_array(w, "sources");
	for (size_t i = 0; i < cap->n_sources && tp_jw_ok(w); i++)
		tp_jw_put(w, NULL, source_json(&cap->sources[i]));
	tp_jw_end(w);
	tp_jw_put(w, "run", cap->run ? tp_json_cstr(cap->run) : json_null());
	tp_jw_array(w, "hosts");
	for (size_t i = 0; i < info->n_hosts && tp_jw_ok(w); i++)
		host_json(w, cap, info, &info->hosts[i]);
	tp_jw_end(w);
	tp_jw_array(w, "modules");
	for (size_t i = 0; i < info->n_modules && tp_jw_ok(w); i++)
		if (info->modules[i].module->host < 0)
			tp_jw_put(w, NULL, module_json(&info->modules[i]));
	tp_jw_end(w);
	tp_jw_array(w, "notes");
	for (size_t i = 0; i < cap->n_notes && tp_jw_ok(w); i++)
		tp_jw_put(w, NULL, tp_json_cstr(cap->notes[i]));
	tp_jw_end(w);
	tp_jw_array(w, "warnings");
	for (size_t i = 0; i < info->n_warnings && tp_jw_ok(w); i++)
		tp_jw_put(w, NULL, tp_json_cstr(info->warnings[i]));
	tp_jw_end(w);
	if (cap->n_damage)   /* only then: a whole capture has no such key */
		tp_jw_put(w, "damage", tp_damage_json(cap));
	tp_jw_end(w);
}

/* ---- the damaged parts (damage.h) ---- */

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
