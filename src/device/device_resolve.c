/*
 * device_resolve.c - which device a capture plane is, and each of its
 * figures with the precedence of include/tpuprof/device.h: flag, then the
 * capture's own stats, then the table.
 */
#include "tpuprof/device.h"

#include <string.h>

#include "tpuprof/util.h"

static bool stat_number(const struct tp_plane *pl, const char *name, double *out)
{
	const struct tp_stat *s = tp_stats_find_name(pl, pl->stats, pl->n_stats, name);
	int64_t v;

	if (!s)
		return false;
	if (s->kind == TP_STAT_DOUBLE) {
		*out = s->v.d;
		return true;
	}
	if (!tp_stat_int(s, &v))
		return false;
	*out = (double)v;
	return true;
}

static struct tp_str stat_string(const struct tp_plane *pl, const char *name)
{
	const struct tp_stat *s = tp_stats_find_name(pl, pl->stats, pl->n_stats, name);
	struct tp_str v = TP_STR_NULL;

	if (s && !tp_stat_str(pl, s, &v))
		v = TP_STR_NULL;
	return v;
}

/* The GPU plane's stats that tell rows apart. */
struct gpu_stats {
	struct tp_str arch;           /* gpu_device_name when it is "gfx…" */
	bool amd;
	double cc_major, cc_minor, cores, memory, clock_khz;
	bool has_cc, has_cores, has_memory, has_clock;
};

static bool gpu_row_fits(const struct tp_device_row *r, const struct gpu_stats *g)
{
	if (r->vendor != (g->amd ? TP_VENDOR_AMD : TP_VENDOR_NVIDIA))
		return false;
	if (g->arch.len && (!r->arch || !tp_str_eq(g->arch, r->arch)))
		return false;
	if (g->has_cc && (r->cc_major != (int)g->cc_major || r->cc_minor != (int)g->cc_minor))
		return false;
	if (!g->arch.len && !g->has_cc)
		return false;
	if (g->has_cores && r->plane_cores != (unsigned)g->cores)
		return false;
	return true;
}

static double plane_hbm_bytes(const struct tp_device_row *r)
{
	return tp_device_plane(r, r->hbm_gib) * 1073741824.0;
}

/* Among rows that fit, the one whose HBM is the smallest that holds the
 * reported memory size (devices report a little less than they have),
 * then the one whose boost clock is the plane's; NULL when still more
 * than one remains or none fits. */
static const struct tp_device_row *gpu_pick(const struct gpu_stats *g)
{
	const struct tp_device_row *best = NULL;
	int ties = 0;

	for (size_t i = 0; i < tp_device_count(); i++) {
		const struct tp_device_row *r = tp_device_at(i);
		double hbm = plane_hbm_bytes(r);

		if (!gpu_row_fits(r, g))
			continue;
		if (g->has_memory && hbm < g->memory)
			continue;
		if (g->has_clock && r->clock_mhz && r->clock_mhz != (unsigned)(g->clock_khz / 1000))
			continue;
		if (!best || (g->has_memory && hbm < plane_hbm_bytes(best))) {
			best = r;
			ties = 0;
		} else if (!g->has_memory || hbm == plane_hbm_bytes(best)) {
			ties++;
		}
	}
	return ties ? NULL : best;
}

static const struct tp_device_row *detect_gpu(const struct tp_plane *pl)
{
	struct tp_str name = stat_string(pl, "gpu_device_name");
	struct tp_str vendor = stat_string(pl, "device_vendor");
	struct gpu_stats g = { .arch = TP_STR_NULL };

	if (name.len) {
		const struct tp_device_row *r = tp_device_lookup_n(name.ptr, name.len);

		if (r)
			return r;
		if (tp_str_has_prefix(name, "gfx"))
			g.arch = name;
	}
	g.amd = g.arch.len || tp_str_eq(vendor, "AMD");
	g.has_cc = stat_number(pl, "compute_cap_major", &g.cc_major) &&
		   stat_number(pl, "compute_cap_minor", &g.cc_minor);
	g.has_cores = stat_number(pl, "core_count", &g.cores);
	g.has_memory = stat_number(pl, "memory_size", &g.memory) && g.memory > 0;
	g.has_clock = stat_number(pl, "clock_rate", &g.clock_khz) && g.clock_khz > 0;
	return gpu_pick(&g);
}

const struct tp_device_row *tp_device_detect(const struct tp_plane *pl)
{
	struct tp_str s;

	if (!pl)
		return NULL;
	if (pl->kind == TP_PLANE_GPU)
		return detect_gpu(pl);
	s = stat_string(pl, "device_type_string");
	return s.len ? tp_device_lookup_n(s.ptr, s.len) : NULL;
}

/* Sets a figure not set yet: callers go from the strongest source down. */
static void set(struct tp_figure *f, double v, enum tp_fig_source src)
{
	if (v > 0 && !f->source) {
		f->value = v;
		f->source = src;
	}
}

/* The figures the capture carries about its own device. */
static void capture_figures(const struct tp_plane *pl, uint64_t allocator,
			    struct tp_device_figures *f)
{
	double v;

	if (stat_number(pl, "memory_size", &v) && v > 0)
		set(&f->capacity, v, TP_FIG_CAPTURE);
	else if (allocator)
		set(&f->capacity, (double)allocator, TP_FIG_CAPTURE);
	if (stat_number(pl, "peak_teraflops_per_second", &v))
		set(&f->peak_flops[TP_PREC_BF16], v * 1e12, TP_FIG_CAPTURE);
	if (stat_number(pl, "peak_hbm_bw_gigabytes_per_second", &v))
		set(&f->hbm_bw, v * 1e9, TP_FIG_CAPTURE);
}

static void table_figures(const struct tp_device_row *r, struct tp_device_figures *f)
{
	if (!f->capacity.source)
		set(&f->capacity, plane_hbm_bytes(r), TP_FIG_TABLE);
	for (int p = 0; p < TP_PREC_N; p++)
		if (!f->peak_flops[p].source)
			set(&f->peak_flops[p], tp_device_plane(r, r->peak_tflops[p]) * 1e12,
			    TP_FIG_TABLE);
	if (!f->hbm_bw.source)
		set(&f->hbm_bw, tp_device_plane(r, r->hbm_gbps) * 1e9, TP_FIG_TABLE);
	set(&f->interconnect_bw, tp_device_plane(r, r->interconnect_gbps) * 1e9, TP_FIG_TABLE);
}

/* An NVIDIA plane's memory_bandwidth (bytes/s) when the table has no
 * row; AMD planes report half the datasheet figure, so never theirs. */
static void gpu_bandwidth_fallback(const struct tp_plane *pl, struct tp_device_figures *f)
{
	struct tp_str vendor = stat_string(pl, "device_vendor");
	double v;

	if (pl->kind != TP_PLANE_GPU || f->hbm_bw.source || tp_str_eq(vendor, "AMD"))
		return;
	if (stat_number(pl, "memory_bandwidth", &v))
		set(&f->hbm_bw, v, TP_FIG_CAPTURE);
}

void tp_device_resolve(const struct tp_plane *pl, const struct tp_device_hints *h,
		       struct tp_device_figures *f)
{
	const struct tp_device_row *detected = tp_device_detect(pl);
	bool own = pl && (!h->forced || !detected || h->forced == detected);

	memset(f, 0, sizeof(*f));
	f->row = h->forced ? h->forced : detected;
	f->row_source = h->forced ? TP_FIG_FLAG : detected ? TP_FIG_CAPTURE : TP_FIG_NONE;
	f->tpu = f->row ? f->row->vendor == TP_VENDOR_GOOGLE : pl && pl->kind == TP_PLANE_TPU;
	if (h->hbm)
		set(&f->capacity, (double)h->hbm, TP_FIG_FLAG);
	if (own)
		capture_figures(pl, h->allocator_capacity, f);
	if (f->row)
		table_figures(f->row, f);
	if (own && !f->row)
		gpu_bandwidth_fallback(pl, f);
}

struct tp_figure tp_device_peak_for(const struct tp_device_figures *f,
				    enum tp_precision p)
{
	struct tp_figure none = { 0, TP_FIG_NONE };

	if (p >= TP_PREC_N)
		return none;
	if (f->tpu && (p == TP_PREC_F32 || p == TP_PREC_F16))
		p = TP_PREC_BF16;
	return f->peak_flops[p];
}

enum tp_precision tp_precision_of_type(const char *t, size_t n)
{
	struct tp_str s = { t, n };

	if (tp_str_eq(s, "bf16"))
		return TP_PREC_BF16;
	if (tp_str_eq(s, "f16"))
		return TP_PREC_F16;
	if (tp_str_eq(s, "f32"))
		return TP_PREC_F32;
	if (tp_str_eq(s, "s8") || tp_str_eq(s, "u8") || tp_str_eq(s, "s4") || tp_str_eq(s, "u4"))
		return TP_PREC_INT8;
	if (tp_str_has_prefix(s, "f8"))
		return TP_PREC_FP8;
	return TP_PREC_UNKNOWN;
}
