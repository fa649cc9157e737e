/*
 * collectives_json.c - the `tpuprof.collectives/1` document (docs/json.md),
 * written piece by piece (json_stream.h); and, after a merge, its replica
 * group ids held to the merged pod's devices (the rule of
 * collective_link.c, on the document, since the merge has no capture)
 * and the host collectives a pod with HLO does not list.
 */
#include "damage.h"
#include "merge_internal.h"
#include "tpuprof/report/ops_report.h"
#include "tpuprof/report/device_report.h"

#include <stdint.h>
#include <string.h>

static json_t *groups_json(const struct tp_replica_groups *g)
{
	json_t *a = json_array();

	for (size_t i = 0; i < g->n_groups; i++) {
		json_t *grp = json_array();

		for (size_t k = g->starts[i]; k < g->starts[i + 1]; k++)
			json_array_append_new(grp, tp_json_int(g->ids[k]));
		json_array_append_new(a, grp);
	}
	return a;
}

/* The interconnect of the cores it ran on (the first one's device) and
 * the share of it the collective used: bytes sent per second over half
 * the both-directions figure, since a device sends on half of it. */
static void link_json(struct tp_jw *w, const struct tp_collectives *c,
		      const struct tp_collective *col)
{
	double share;
	const char *why;
	bool has = tp_collective_link_share(c, col, &share, &why);

	double each_way = tp_collective_link_each_way(c, col);

	tp_jw_put(w, "interconnect_bytes_per_s", tp_figure_json(tp_collective_link(c, col)));
	/* what the share is of, printed beside it */
	tp_jw_put(w, "interconnect_bytes_per_s_each_way", each_way > 0 ? json_real(each_way)
								 : json_null());
	tp_jw_put(w, "interconnect_share", has ? json_real(share) : json_null());
	tp_jw_put(w, "interconnect_share_unavailable", why ? json_string("above_peak") : json_null());
}

/* One collective: its cores and executions one by one, since every
 * execution of the run is listed. */
/* Replica group ids that name devices the capture does not have. */
static json_t *outside_json(const struct tp_capture *cap, const struct tp_collective *col)
{
	size_t devices = tp_capture_devices(cap);
	int64_t lo, hi;
	size_t n = tp_collective_ids_outside(col, devices, &lo, &hi);

	if (!n)
		return json_null();
	return json_pack("{s:I,s:I,s:I,s:I}", "count", (json_int_t)n, "lowest", (json_int_t)lo,
			 "highest", (json_int_t)hi, "devices_in_capture", (json_int_t)devices);
}

static void coll_json(struct tp_jw *w, const struct tp_capture *cap,
		      const struct tp_collectives *c, const struct tp_collective *col)
{
	const struct tp_hlo_index *idx = &c->ops.index[col->module];
	const Xla__HloInstructionProto *ins = idx->instrs[col->instr].proto;
	struct tp_strbuf sb;
	double rate;

	tp_strbuf_init(&sb);
	if (ins->shape)
		tp_shape_format(&sb, ins->shape);
	tp_jw_object(w, NULL);
	tp_jw_put(w, "name", tp_json_cstr(ins->name));
	tp_jw_put(w, "opcode", tp_json_cstr(ins->opcode));
	tp_jw_put(w, "kind", json_string(col->kind));
	tp_jw_put(w, "done", col->done >= 0 ? tp_json_cstr(idx->instrs[col->done].proto->name) : json_null());
	tp_jw_put(w, "fusion", col->fusion >= 0 ? tp_json_cstr(idx->instrs[col->fusion].proto->name) : json_null());
	tp_jw_put(w, "module", tp_json_str(tp_module_name(&cap->modules[col->module])));
	tp_jw_put(w, "program_id", tp_json_id(cap->modules[col->module].program_id));
	tp_jw_put(w, "shape", tp_json_cstr(sb.buf));
	tp_jw_put(w, "bytes", tp_json_uint(col->bytes));
	tp_jw_put(w, "mode", json_string(col->mode));
	tp_jw_put(w, "channel_id", ins->channel_id > 0 ? tp_json_int(ins->channel_id) : json_null());
	tp_jw_put(w, "replica_groups_text", col->groups.text ? tp_json_cstr(col->groups.text) : json_null());
	tp_jw_put(w, "replica_groups", col->groups.present ? groups_json(&col->groups) : json_null());
	tp_jw_put(w, "replica_group_ids_outside_capture", outside_json(cap, col));
	tp_jw_put(w, "source_target_pairs", tp_json_uint(col->n_pairs));
	tp_jw_put(w, "group_size", col->group_size ? tp_json_uint(col->group_size) : json_null());
	tp_jw_put(w, "ring_bytes_per_device", col->group_size ? tp_json_uint(col->ring_bytes) : json_null());
	tp_jw_put(w, "scope", tp_json_cstr(tp_hlo_scope(ins)));
	tp_jw_put(w, "occurrences", tp_json_uint(col->occurrences));
	tp_jw_put(w, "time_ps", tp_json_int(col->time_ps));
	tp_jw_put(w, "timed_as_fusion", json_boolean(col->timed_as_fusion));
	tp_jw_put(w, "span_ps", tp_json_int(col->span_ps));
	tp_jw_put(w, "achieved_bytes_per_s", tp_collective_rate(col, &rate) ?
		  json_real(rate) : json_null());
	link_json(w, c, col);
	tp_strbuf_release(&sb);
	tp_jw_array(w, "cores");
	for (size_t i = 0; i < col->n_cores && tp_jw_ok(w); i++) {
		const struct tp_ops_core *oc = &c->ops.cores[col->cores[i].core];

		tp_jw_put(w, NULL, json_pack("{s:o,s:o,s:o,s:o,s:o}",
			"host", tp_json_cstr(cap->hosts[oc->host].name),
			"plane", tp_json_str(oc->plane->name),
			"occurrences", tp_json_uint(col->cores[i].occurrences),
			"time_ps", tp_json_int(col->cores[i].time_ps),
			"ring_bytes", col->group_size ?
				tp_json_uint(tp_collective_core_bytes(col, i)) : json_null()));
	}
	tp_jw_end(w);
	/* an execution per run of it on a core: put field by field, no
	 * value tree each */
	tp_jw_array(w, "executions");
	for (size_t i = 0; i < col->n_execs && tp_jw_ok(w); i++) {
		const struct tp_coll_exec *e = &c->execs[col->first_exec + i];

		tp_jw_object(w, NULL);
		tp_jw_str(w, "plane", c->ops.cores[e->core].plane->name);
		tp_jw_str(w, "part", e->done ? tp_str_make("done", 4) : tp_str_make("start", 5));
		tp_jw_int(w, "start_ps", e->start_ps);
		tp_jw_int(w, "duration_ps", e->dur_ps);
		tp_jw_end(w);
	}
	tp_jw_end(w);
	tp_jw_end(w);
}

static void cores_json(struct tp_jw *w, const struct tp_capture *cap,
		       const struct tp_collectives *coll)
{
	const struct tp_ops *ops = &coll->ops;

	tp_jw_array(w, "cores");
	for (size_t i = 0; i < ops->n_cores && tp_jw_ok(w); i++) {
		const struct tp_ops_core *c = &ops->cores[i];

		tp_jw_put(w, NULL, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}",
			"host", tp_json_cstr(cap->hosts[c->host].name),
			"plane", tp_json_str(c->plane->name),
			"ring_bytes", tp_json_uint(coll->core_ring_bytes[i]),
			"device_ps", tp_json_int(c->device_ps),
			"collective_ps", tp_json_int(c->collective_ps),
			"collective_share", c->device_ps > 0 ?
				json_real((double)c->collective_ps / (double)c->device_ps) : json_null()));
	}
	tp_jw_end(w);
}

static void host_json(struct tp_jw *w, const struct tp_capture *cap,
		      const struct tp_collectives *c)
{
	tp_jw_array(w, "host_collectives");
	for (size_t i = 0; i < c->n_host && tp_jw_ok(w); i++) {
		const struct tp_host_collective *h = &c->host[i];

		tp_jw_put(w, NULL, json_pack("{s:o,s:o,s:o,s:o,s:o}",
			"host", tp_json_cstr(cap->hosts[h->host].name),
			"line", tp_json_str(h->line), "name", tp_json_str(h->name),
			"start_ps", tp_json_int(h->start_ps),
			"duration_ps", tp_json_int(h->dur_ps)));
	}
	tp_jw_end(w);
}

void tp_collectives_json(struct tp_jw *w, const char *key,
			 const struct tp_capture *cap, const struct tp_collectives *c)
{
	tp_jw_object(w, key);
	tp_jw_put(w, "schema", json_string("tpuprof.collectives/1"));
	tp_jw_array(w, "collectives");
	for (size_t i = 0; i < c->n && tp_jw_ok(w); i++)
		coll_json(w, cap, c, &c->v[i]);
	tp_jw_end(w);
	tp_jw_array(w, "modules");
	for (size_t i = 0; i < c->n_modules && tp_jw_ok(w); i++) {
		const struct tp_coll_module *m = &c->modules[i];

		tp_jw_put(w, NULL, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
			"name", tp_json_str(tp_module_name(&cap->modules[m->module])),
			"program_id", tp_json_id(cap->modules[m->module].program_id),
			"collectives", tp_json_uint(m->collectives),
			"occurrences", tp_json_uint(m->occurrences),
			"time_ps", tp_json_int(m->time_ps),
			"ring_bytes_per_device", tp_json_uint(m->ring_bytes_per_device),
			"ring_bytes_total", tp_json_uint(m->ring_bytes_total)));
	}
	tp_jw_end(w);
	cores_json(w, cap, c);
	host_json(w, cap, c);
	tp_document_warnings_json(w, key, cap);
	tp_jw_end(w);
}

/* ---- the merged document (merge.c) ---- */

/* "/device:TPU:3" or "/device:GPU:0": a device's own plane. */
static bool doc_device(const char *name)
{
	static const char *const kinds[] = { "/device:TPU:", "/device:GPU:" };

	for (size_t k = 0; name && k < 2; k++) {
		size_t n = strlen(kinds[k]);

		if (strncmp(name, kinds[k], n) == 0 && name[n] &&
		    strspn(name + n, "0123456789") == strlen(name + n))
			return true;
	}
	return false;
}

static int64_t merged_devices(json_t *m)
{
	json_t *host, *plane;
	size_t i, j;
	int64_t n = 0;

	json_array_foreach(json_object_get(json_object_get(m, "info"), "hosts"), i, host)
		json_array_foreach(json_object_get(host, "planes"), j, plane)
			n += doc_device(json_string_value(json_object_get(plane, "name")));
	return n;
}

/* The ids of groups at or above devices: how many distinct, least, most. */
static json_t *outside(json_t *groups, int64_t devices)
{
	json_t *grp, *id, *seen = json_object();
	int64_t lo = INT64_MAX, hi = -1;
	size_t i, j;
	char key[32];

	json_array_foreach(groups, i, grp)
		json_array_foreach(grp, j, id) {
			int64_t v = json_integer_value(id);

			if (!json_is_integer(id) || v < devices)
				continue;
			snprintf(key, sizeof(key), "%lld", (long long)v);
			json_object_set_new(seen, key, json_true());
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	i = json_object_size(seen);
	json_decref(seen);
	if (!i)
		return json_null();
	return json_pack("{s:I,s:I,s:I,s:I}", "count", (json_int_t)i, "lowest", (json_int_t)lo,
			 "highest", (json_int_t)hi, "devices_in_capture", (json_int_t)devices);
}

/* TF-era host collectives are listed only for captures without any HLO
 * module (collectives.c): one host's HLO removes them all. */
static bool has_modules(json_t *info)
{
	json_t *h;
	size_t i;

	if (json_array_size(json_object_get(info, "modules")))
		return true;
	json_array_foreach(json_object_get(info, "hosts"), i, h)
		if (json_array_size(json_object_get(h, "modules")))
			return true;
	return false;
}

void tp_merge_finish_collectives(json_t *m)
{
	int64_t devices = merged_devices(m);
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(m, "collectives"), "collectives"), i, c) {
		json_t *groups = json_object_get(c, "replica_groups");

		if (!json_object_get(c, "replica_group_ids_outside_capture"))
			continue;   /* a report of before the field */
		json_object_set_new(c, "replica_group_ids_outside_capture",
				    devices && json_is_array(groups) ? outside(groups, devices)
								     : json_null());
	}
	if (has_modules(json_object_get(m, "info")))
		json_object_set_new(json_object_get(m, "collectives"), "host_collectives",
				    json_array());
}
