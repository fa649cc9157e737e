/*
 * devices_json.c - the `tpuprof.devices/1` document (the built-in device
 * table) and the "device" object every core of a memory, ops or
 * collectives document carries (docs/json.md).
 */
#include "tpuprof/report/device_report.h"

#include <math.h>
#include <string.h>

static const char *vendor_name(enum tp_device_vendor v)
{
	switch (v) {
	case TP_VENDOR_GOOGLE:
		return "google";
	case TP_VENDOR_NVIDIA:
		return "nvidia";
	case TP_VENDOR_AMD:
		return "amd";
	}
	return "unknown";
}

/* A chip figure scaled to base units, or null when the table has none. */
static json_t *scaled(double v, double unit)
{
	return v > 0 ? json_real(v * unit) : json_null();
}

static json_t *bytes(double gib)
{
	return gib > 0 ? tp_json_uint((uint64_t)(gib * 1073741824.0 + 0.5)) : json_null();
}

static json_t *peaks(const struct tp_device_row *r, unsigned div)
{
	json_t *o = json_object();

	for (int p = 0; p < TP_PREC_N; p++)
		json_object_set_new(o, tp_precision_name((enum tp_precision)p),
				    scaled(r->peak_tflops[p] / div, 1e12));
	return o;
}

/* Chip (div 1) or plane (div planes_per_chip) figures of a row. */
static json_t *row_figures(const struct tp_device_row *r, unsigned div)
{
	json_t *o = json_object();

	json_object_set_new(o, "hbm_bytes", bytes(r->hbm_gib / div));
	json_object_set_new(o, "peak_flops_per_s", peaks(r, div));
	json_object_set_new(o, "hbm_bytes_per_s", scaled(r->hbm_gbps / div, 1e9));
	json_object_set_new(o, "interconnect_bytes_per_s", scaled(r->interconnect_gbps / div, 1e9));
	return o;
}

static json_t *split_list(const char *list)
{
	json_t *a = json_array();

	while (list && *list) {
		const char *bar = strchr(list, '|');
		size_t n = bar ? (size_t)(bar - list) : strlen(list);

		json_array_append_new(a, json_stringn(list, n));
		list = bar ? bar + 1 : NULL;
	}
	return a;
}

static json_t *sources(const char *list)
{
	json_t *a = json_array();

	while (list && *list) {
		const char *sp = strchr(list, ' ');
		size_t n = sp ? (size_t)(sp - list) : strlen(list);

		if (n)
			json_array_append_new(a, json_stringn(list, n));
		list = sp ? sp + 1 : NULL;
	}
	return a;
}

static json_t *row_json(const struct tp_device_row *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "key", json_string(r->key));
	json_object_set_new(o, "aliases", split_list(r->aliases));
	json_object_set_new(o, "vendor", json_string(vendor_name(r->vendor)));
	json_object_set_new(o, "cores", json_string(r->cores));
	json_object_set_new(o, "planes_per_chip", json_integer(r->planes_per_chip));
	json_object_set_new(o, "interconnect", json_string(r->interconnect));
	json_object_set_new(o, "chip", row_figures(r, 1));
	json_object_set_new(o, "plane", row_figures(r, r->planes_per_chip ? r->planes_per_chip : 1));
	json_object_set_new(o, "sources", sources(r->sources));
	return o;
}

void tp_devices_json(struct tp_jw *w, const char *key)
{
	tp_jw_object(w, key);
	tp_jw_put(w, "schema", json_string("tpuprof.devices/1"));
	tp_jw_array(w, "devices");
	for (size_t i = 0; i < tp_device_count(); i++)
		tp_jw_put(w, NULL, row_json(tp_device_at(i)));
	tp_jw_end(w);
	tp_jw_end(w);
}

json_t *tp_figure_json(struct tp_figure f)
{
	json_t *v;

	if (!f.source)
		return json_null();
	/* whole numbers (bytes, most peaks) as integers */
	v = f.value == floor(f.value) && f.value < 9007199254740992.0
	    ? json_integer((json_int_t)f.value) : json_real(f.value);
	return json_pack("{s:o,s:s}", "value", v, "source", tp_fig_source_name(f.source));
}

json_t *tp_device_figures_json(const struct tp_device_figures *f)
{
	json_t *o = json_object(), *p = json_object();

	json_object_set_new(o, "name", f->row ? json_string(f->row->key) : json_null());
	json_object_set_new(o, "name_source", f->row ? json_string(tp_fig_source_name(f->row_source))
						    : json_null());
	json_object_set_new(o, "planes_per_chip", f->row ? json_integer(f->row->planes_per_chip)
							: json_null());
	json_object_set_new(o, "capacity_bytes", tp_figure_json(f->capacity));
	for (int i = 0; i < TP_PREC_N; i++)
		json_object_set_new(p, tp_precision_name((enum tp_precision)i),
				    tp_figure_json(f->peak_flops[i]));
	json_object_set_new(o, "peak_flops_per_s", p);
	json_object_set_new(o, "hbm_bytes_per_s", tp_figure_json(f->hbm_bw));
	json_object_set_new(o, "interconnect_bytes_per_s", tp_figure_json(f->interconnect_bw));
	return o;
}
