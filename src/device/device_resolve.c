/*
 * device_resolve.c - which device a plane's facts name, and each of its
 * figures with the precedence of include/tpuprof/device.h: flag, then the
 * capture's own stats, then the table.
 */
#include "tpuprof/device/device.h"

#include <math.h>
#include <string.h>

static bool gpu_row_fits(const struct tp_device_row *r, const struct tp_plane_facts *p,
			 struct tp_str arch)
{
	if (r->vendor != (p->amd || arch.len ? TP_VENDOR_AMD : TP_VENDOR_NVIDIA))
		return false;
	if (arch.len && (!r->arch || !tp_str_eq(arch, r->arch)))
		return false;
	if (p->has_cc && (r->cc_major != p->cc_major || r->cc_minor != p->cc_minor))
		return false;
	if (!arch.len && !p->has_cc)
		return false;
	if (p->cores > 0 && (double)r->plane_cores != p->cores)
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
static const struct tp_device_row *gpu_pick(const struct tp_plane_facts *p, struct tp_str arch)
{
	const struct tp_device_row *best = NULL;
	bool mem = p->memory_size > 0;
	int ties = 0;

	for (size_t i = 0; i < tp_device_count(); i++) {
		const struct tp_device_row *r = tp_device_at(i);
		double hbm = plane_hbm_bytes(r);

		if (!gpu_row_fits(r, p, arch))
			continue;
		if (mem && hbm < p->memory_size)
			continue;
		if (p->clock_khz > 0 && r->clock_mhz &&
		    fabs((double)r->clock_mhz - p->clock_khz / 1000) >= 1)
			continue;
		if (!best || (mem && hbm < plane_hbm_bytes(best))) {
			best = r;
			ties = 0;
		} else if (!mem || hbm == plane_hbm_bytes(best)) {
			ties++;
		}
	}
	return ties ? NULL : best;
}

static const struct tp_device_row *detect_gpu(const struct tp_plane_facts *p)
{
	struct tp_str arch = TP_STR_NULL;

	if (p->gpu_name.len) {
		const struct tp_device_row *r = tp_device_lookup_n(p->gpu_name.ptr, p->gpu_name.len);

		if (r)
			return r;
		if (tp_str_has_prefix(p->gpu_name, "gfx"))
			arch = p->gpu_name;
	}
	return gpu_pick(p, arch);
}

const struct tp_device_row *tp_device_detect(const struct tp_plane_facts *p)
{
	if (!p)
		return NULL;
	if (p->gpu)
		return detect_gpu(p);
	return p->type_string.len ? tp_device_lookup_n(p->type_string.ptr, p->type_string.len)
				  : NULL;
}

/* Sets a figure not set yet: callers go from the strongest source down.
 * Hostile stats (NaN, infinities, absurd sizes) are no figure. */
static void set(struct tp_figure *f, double v, enum tp_fig_source src)
{
	if (v > 0 && v < 1e30 && !f->source) {
		f->value = v;
		f->source = src;
	}
}

/* The figures the capture carries about its own device. */
static void capture_figures(const struct tp_plane_facts *p, uint64_t allocator,
			    struct tp_device_figures *f)
{
	set(&f->capacity, p->memory_size, TP_FIG_CAPTURE);
	set(&f->capacity, (double)allocator, TP_FIG_CAPTURE);
	set(&f->peak_flops[TP_PREC_BF16], p->peak_tflops * 1e12, TP_FIG_CAPTURE);
	set(&f->hbm_bw, p->peak_hbm_gbps * 1e9, TP_FIG_CAPTURE);
}

static void table_figures(const struct tp_device_row *r, struct tp_device_figures *f)
{
	set(&f->capacity, plane_hbm_bytes(r), TP_FIG_TABLE);
	for (int i = 0; i < TP_PREC_N; i++)
		set(&f->peak_flops[i], tp_device_plane(r, r->peak_tflops[i]) * 1e12, TP_FIG_TABLE);
	set(&f->hbm_bw, tp_device_plane(r, r->hbm_gbps) * 1e9, TP_FIG_TABLE);
	set(&f->interconnect_bw, tp_device_plane(r, r->interconnect_gbps) * 1e9, TP_FIG_TABLE);
}

void tp_device_resolve(const struct tp_plane_facts *p, const struct tp_device_hints *h,
		       struct tp_device_figures *f)
{
	const struct tp_device_row *detected = tp_device_detect(p);
	bool own = p && (!h->forced || !detected || h->forced == detected);

	memset(f, 0, sizeof(*f));
	f->row = h->forced ? h->forced : detected;
	f->row_source = h->forced ? TP_FIG_FLAG : detected ? TP_FIG_CAPTURE : TP_FIG_NONE;
	f->tpu = f->row ? f->row->vendor == TP_VENDOR_GOOGLE : p && p->tpu;
	set(&f->capacity, (double)h->hbm, TP_FIG_FLAG);
	if (own)
		capture_figures(p, h->allocator_capacity, f);
	if (f->row)
		table_figures(f->row, f);
	/* an NVIDIA GPU the table does not know: its own memory_bandwidth;
	 * AMD planes report half the datasheet figure, so never theirs */
	if (own && !f->row && p->gpu && !p->amd)
		set(&f->hbm_bw, p->memory_bandwidth, TP_FIG_CAPTURE);
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
