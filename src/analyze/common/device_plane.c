/*
 * device_plane.c - a plane's device stats (format-facts §2.4, device
 * facts "units and traps") as struct tp_plane_facts, for src/device/.
 */
#include "tpuprof/analyze/common/device_plane.h"

#include <string.h>

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

void tp_plane_facts_read(const struct tp_plane *pl, struct tp_plane_facts *out)
{
	double major, minor;

	memset(out, 0, sizeof(*out));
	out->tpu = pl->kind == TP_PLANE_TPU;
	out->gpu = pl->kind == TP_PLANE_GPU;
	out->type_string = stat_string(pl, "device_type_string");
	out->gpu_name = stat_string(pl, "gpu_device_name");
	out->amd = tp_str_eq(stat_string(pl, "device_vendor"), "AMD");
	/* small integers only: hostile values must not overflow an int */
	out->has_cc = stat_number(pl, "compute_cap_major", &major) &&
		      stat_number(pl, "compute_cap_minor", &minor) &&
		      major >= 0 && major < 1000 && minor >= 0 && minor < 1000;
	if (out->has_cc) {
		out->cc_major = (int)major;
		out->cc_minor = (int)minor;
	}
	stat_number(pl, "core_count", &out->cores);
	stat_number(pl, "memory_size", &out->memory_size);
	stat_number(pl, "clock_rate", &out->clock_khz);
	stat_number(pl, "peak_teraflops_per_second", &out->peak_tflops);
	stat_number(pl, "peak_hbm_bw_gigabytes_per_second", &out->peak_hbm_gbps);
	stat_number(pl, "memory_bandwidth", &out->memory_bandwidth);
}

const struct tp_device_row *tp_device_detect_plane(const struct tp_plane *pl)
{
	struct tp_plane_facts f;

	if (!pl)
		return NULL;
	tp_plane_facts_read(pl, &f);
	return tp_device_detect(&f);
}

void tp_device_resolve_plane(const struct tp_plane *pl, const struct tp_device_hints *h,
			     struct tp_device_figures *f)
{
	struct tp_plane_facts facts;

	if (!pl) {
		tp_device_resolve(NULL, h, f);
		return;
	}
	tp_plane_facts_read(pl, &facts);
	tp_device_resolve(&facts, h, f);
}
