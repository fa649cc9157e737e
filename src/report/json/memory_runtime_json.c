/*
 * memory_runtime_json.c - the runtime and per-core parts of
 * `tpuprof.memory/1`, and the document itself, written piece by piece
 * (json_stream.h).
 */
#include "damage.h"
#include "tpuprof/report/device_report.h"
#include "tpuprof/report/memory_report.h"

#include <string.h>

/* A snapshot's fields into the open object: put one by one, no value
 * tree (a timeline holds an object per allocator event). */
/* A byte count of an allocator event; negative (a damaged capture,
 * tp_mem_device.damaged) is no figure: null. */
static void bytes_put(struct tp_jw *w, const char *key, int64_t v)
{
	if (v < 0)
		tp_jw_put(w, key, json_null());
	else
		tp_jw_int(w, key, v);
}

static void snapshot_put(struct tp_jw *w, const struct tp_mem_snapshot *s)
{
	const char *dtype = tp_tf_dtype_name(s->data_type);

	tp_jw_int(w, "time_ps", s->time_ps);
	tp_jw_str(w, "activity", s->allocation ? tp_str_make("allocation", 10)
						: tp_str_make("deallocation", 12));
	bytes_put(w, "heap_bytes", s->heap);
	bytes_put(w, "stack_bytes", s->stack);
	bytes_put(w, "free_bytes", s->free);
	bytes_put(w, "requested_bytes", s->requested);
	bytes_put(w, "allocation_bytes", s->allocated);
	tp_jw_id(w, "address", s->address);
	tp_jw_int(w, "step", s->step);
	tp_jw_str(w, "op", s->tf_op);
	tp_jw_str(w, "region", s->region);
	tp_jw_str(w, "data_type", tp_str_make(dtype, strlen(dtype)));
	tp_jw_str(w, "shape", s->shape);
}

static void active_put(struct tp_jw *w, const struct tp_mem_device *d,
		       const struct tp_mem_active *a)
{
	if (a->snapshot < 0) {
		tp_jw_put(w, NULL, json_pack("{s:s,s:o,s:I}", "special", a->special,
					     "bytes", tp_json_int(a->bytes),
					     "occurrences", (json_int_t)a->occurrences));
		return;
	}
	tp_jw_object(w, NULL);
	snapshot_put(w, &d->snapshots[a->snapshot]);
	tp_jw_int(w, "bytes", a->bytes);
	tp_jw_put_int(w, "occurrences", (int64_t)a->occurrences);
	tp_jw_end(w);
}

/* One runtime memory: its timeline has a snapshot per allocator event. */
static void device_json(struct tp_jw *w, const struct tp_capture *cap,
			const struct tp_mem_device *d)
{
	const struct tp_mem_snapshot *p = d->has_peak ? &d->snapshots[d->peak_snapshot] : NULL;

	tp_jw_object(w, NULL);
	tp_jw_put(w, "host", tp_json_cstr(cap->hosts[d->host].name));
	tp_jw_put(w, "memory_id", tp_json_cstr(d->id));
	tp_jw_put(w, "allocations", json_integer((json_int_t)d->allocations));
	tp_jw_put(w, "deallocations", json_integer((json_int_t)d->deallocations));
	tp_jw_put(w, "damaged_events", json_integer((json_int_t)d->damaged));
	tp_jw_put(w, "peak_bytes", p ? tp_json_int(d->peak_bytes) : json_null());
	tp_jw_put(w, "peak_heap_bytes", p ? tp_json_int(p->heap) : json_null());
	tp_jw_put(w, "peak_stack_bytes", p ? tp_json_int(p->stack) : json_null());
	tp_jw_put(w, "peak_free_bytes", p ? tp_json_int(p->free) : json_null());
	tp_jw_put(w, "peak_time_ps", p ? tp_json_int(p->time_ps) : json_null());
	tp_jw_put(w, "peak_step", d->has_steps ? tp_json_int(d->peak_step) : json_null());
	tp_jw_put(w, "capacity_bytes", p ? tp_json_int(d->capacity) : json_null());
	tp_jw_put(w, "lifetime_peak_bytes", tp_json_int(d->lifetime_peak));
	tp_jw_array(w, "active_at_peak");
	for (size_t i = 0; i < d->n_active && tp_jw_ok(w); i++)
		active_put(w, d, &d->active[i]);
	tp_jw_end(w);
	tp_jw_array(w, "timeline");
	for (size_t i = 0; i < d->n_snapshots && tp_jw_ok(w); i++) {
		tp_jw_object(w, NULL);
		snapshot_put(w, &d->snapshots[i]);
		tp_jw_end(w);
	}
	tp_jw_end(w);
	tp_jw_end(w);

}

static json_t *core_json(const struct tp_capture *cap, const struct tp_memory *mem,
			 const struct tp_mem_core *c)
{
	json_t *o = json_object(), *a = json_array();
	struct tp_mem_headroom h;
	bool known;

	for (size_t i = 0; i < c->n_programs; i++)
		json_array_append_new(a, json_pack("{s:o,s:I}", "program_id",
						   tp_json_id(c->programs[i]),
						   "executions", (json_int_t)c->runs[i]));
	json_object_set_new(o, "host", tp_json_cstr(cap->hosts[c->host].name));
	json_object_set_new(o, "plane", tp_json_str(c->plane->name));
	json_object_set_new(o, "programs", a);
	json_object_set_new(o, "capacity_bytes", c->capacity ? tp_json_uint(c->capacity) : json_null());
	json_object_set_new(o, "capacity_source", c->capacity
			    ? json_string(tp_fig_source_name(c->device.capacity.source)) : json_null());
	known = tp_mem_core_headroom(mem, c, &h);
	json_object_set_new(o, "headroom_bytes", known ? tp_json_int(h.bytes) : json_null());
	json_object_set_new(o, "headroom_percent", known ? json_real(h.percent) : json_null());
	json_object_set_new(o, "device", tp_device_figures_json(&c->device));
	if (c->top_module >= 0) {
		const struct tp_mem_module *m = &mem->modules[c->top_module];

		json_object_set_new(o, "compiler_peak_bytes", tp_json_uint(m->peak));
		json_object_set_new(o, "compiler_peak_program_id", tp_json_id(m->module->program_id));
	} else {
		json_object_set_new(o, "compiler_peak_bytes", json_null());
		json_object_set_new(o, "compiler_peak_program_id", json_null());
	}
	json_object_set_new(o, "runtime_memory_id", c->runtime >= 0
			    ? tp_json_cstr(mem->runtime.devices[c->runtime].id) : json_null());
	json_object_set_new(o, "runtime_peak_bytes", c->runtime >= 0
			    ? tp_json_int(mem->runtime.devices[c->runtime].peak_bytes) : json_null());
	return o;
}

/* The headroom of the highest peak among programs that ran on no core,
 * against the capacity --hbm or --device gave them (as `report` prints). */
static void program_headroom(struct tp_jw *w, const struct tp_memory *mem)
{
	struct tp_mem_headroom best = { 0 };
	bool known = false;

	for (size_t i = 0; i < mem->n_modules; i++) {
		const struct tp_device_figures *dev;
		struct tp_mem_headroom h;
		uint64_t cap;

		if (tp_mem_module_headroom(mem, &mem->modules[i], &h, &cap, &dev) &&
		    dev == &mem->loose_device && (!known || h.peak > best.peak)) {
			best = h;
			known = true;
		}
	}
	tp_jw_put(w, "program_headroom_bytes", known ? tp_json_int(best.bytes) : json_null());
	tp_jw_put(w, "program_headroom_percent", known ? json_real(best.percent) : json_null());
}

void tp_memory_json(struct tp_jw *w, const char *key, const struct tp_capture *cap,
		    const struct tp_memory *mem)
{
	tp_jw_object(w, key);
	tp_jw_put(w, "schema", json_string("tpuprof.memory/1"));
	tp_jw_array(w, "cores");
	for (size_t i = 0; i < mem->n_cores && tp_jw_ok(w); i++)
		tp_jw_put(w, NULL, core_json(cap, mem, &mem->cores[i]));
	tp_jw_end(w);
	/* programs that ran on no core (dumps, HloProtos): --hbm, --device */
	tp_jw_put(w, "program_capacity_bytes", mem->loose_device.capacity.source
		  ? tp_json_uint((uint64_t)mem->loose_device.capacity.value) : json_null());
	tp_jw_put(w, "program_capacity_source", mem->loose_device.capacity.source
		  ? json_string(tp_fig_source_name(mem->loose_device.capacity.source)) : json_null());
	tp_jw_put(w, "program_device", mem->loose_device.row
		  ? json_string(mem->loose_device.row->key) : json_null());
	program_headroom(w, mem);
	tp_jw_array(w, "modules");
	for (size_t i = 0; i < mem->n_modules && tp_jw_ok(w); i++)
		tp_mem_module_json(w, &mem->modules[i]);
	tp_jw_end(w);
	tp_jw_array(w, "runtime");
	for (size_t i = 0; i < mem->runtime.n_devices && tp_jw_ok(w); i++)
		device_json(w, cap, &mem->runtime.devices[i]);
	tp_jw_end(w);
	tp_jw_array(w, "warnings");
	if (!key) /* in a report, info lists them */
		tp_damage_warnings_json(w, cap);
	for (size_t i = 0; i < mem->n_warnings && tp_jw_ok(w); i++)
		tp_jw_put(w, NULL, tp_json_cstr(mem->warnings[i]));
	tp_jw_end(w);
	tp_jw_end(w);
}
