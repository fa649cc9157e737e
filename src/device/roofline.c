/*
 * roofline.c - achieved FLOP/s and bytes/s against a device's peaks: FLOP
 * utilization, HBM bandwidth share, arithmetic intensity and what bounds
 * the work, as XProf's roofline and HLO-stats tools define them (ridge =
 * peak FLOP/s / HBM bytes/s; format-facts, device facts).
 */
#include "tpuprof/device/device.h"

const char *tp_bound_name(enum tp_bound b)
{
	switch (b) {
	case TP_BOUND_COMPUTE:
		return "compute";
	case TP_BOUND_MEMORY:
		return "memory";
	case TP_BOUND_COLLECTIVE:
		return "collective";
	case TP_BOUND_HOST_TRANSFER:
		return "host-transfer";
	case TP_BOUND_UNKNOWN:
		break;
	}
	return "unknown";
}

void tp_work_add(struct tp_work *w, const struct tp_device_figures *f,
		 enum tp_precision p, bool has_flops, int64_t flops,
		 bool has_bytes, int64_t bytes)
{
	if (has_flops) {
		struct tp_figure peak = tp_device_peak_for(f, p);

		w->has_flops = true;
		w->flops += (double)flops;
		if (flops > 0 && peak.source && w->peak_time_ps >= 0)
			w->peak_time_ps += (double)flops / peak.value * 1e12;
		else if (flops > 0)
			w->peak_time_ps = -1;   /* FLOPs at an unknown peak */
	}
	if (has_bytes) {
		w->has_bytes = true;
		w->bytes += (double)bytes;
	}
}

const char TP_NA_ASYNC_HALF[] = "half of an async pair: its own time is not the transfer's";
const char TP_NA_BYTES_ON_START[] = "an async pair's bytes are counted once, on its -start";
const char TP_NA_HOST_TRANSFER[] = "a host transfer: bound by the host link, not HBM";
const char TP_NA_ABOVE_PEAK_FLOPS[] = "above the device's peak: the op's time cannot hold its FLOPs";
const char TP_NA_ABOVE_PEAK_BYTES[] = "above the device's peak: the op's time cannot hold its bytes";

const char *tp_share_na_code(const char *why)
{
	if (!why)
		return NULL;
	if (why == TP_NA_ASYNC_HALF)
		return "async_half";
	if (why == TP_NA_BYTES_ON_START)
		return "bytes_on_start";
	if (why == TP_NA_HOST_TRANSFER)
		return "host_transfer";
	return "above_peak";
}

/* No share of a device peak may exceed 100%: above it the arithmetic
 * (the capture's cost model over the op's time) cannot be right. */
static void cap_share(bool *has, double v, const char **why, const char *what)
{
	if (*has && v > 1) {
		*has = false;
		*why = what;
	}
}

void tp_roofline_of(const struct tp_work *w, const struct tp_device_figures *f,
		    struct tp_roofline *r)
{
	double s = (double)w->ps * 1e-12;

	*r = (struct tp_roofline){ .bound = TP_BOUND_UNKNOWN };
	if (w->no_rate) {
		/* the op's own time is not the time its bytes moved in; no
		 * FLOPs are none in any time */
		r->hbm_util_na = w->no_rate;
		if (w->has_flops && w->flops == 0 && w->ps > 0)
			r->has_flops_rate = r->has_flop_util = true;
		else if (w->has_flops)
			r->flop_util_na = w->no_rate;
	} else {
		if (w->ps > 0 && w->has_flops) {
			r->has_flops_rate = true;
			r->flops_per_s = w->flops / s;
			if (w->peak_time_ps >= 0) {
				r->has_flop_util = true;
				r->flop_utilization = w->peak_time_ps / (double)w->ps;
			}
		}
		if (w->ps > 0 && w->has_bytes) {
			r->has_bytes_rate = true;
			r->bytes_per_s = w->bytes / s;
			if (f->hbm_bw.source && w->host_transfer) {
				r->hbm_util_na = TP_NA_HOST_TRANSFER;
			} else if (f->hbm_bw.source) {
				r->has_hbm_util = true;
				r->hbm_utilization = r->bytes_per_s / f->hbm_bw.value;
			}
		}
		cap_share(&r->has_flop_util, r->flop_utilization, &r->flop_util_na,
			  TP_NA_ABOVE_PEAK_FLOPS);
		cap_share(&r->has_hbm_util, r->hbm_utilization, &r->hbm_util_na,
			  TP_NA_ABOVE_PEAK_BYTES);
	}
	if (w->has_flops && w->has_bytes && w->bytes > 0) {
		r->has_intensity = true;
		r->intensity = w->flops / w->bytes;
	}
	if (w->collective)
		r->bound = TP_BOUND_COLLECTIVE;
	else if (w->host_transfer)
		r->bound = TP_BOUND_HOST_TRANSFER;
	else if (r->has_intensity && w->peak_time_ps > 0 && f->hbm_bw.source) {
		/* the work's own peak: its FLOPs over their time at peak */
		double peak = w->flops / (w->peak_time_ps * 1e-12);

		r->bound = r->intensity >= peak / f->hbm_bw.value ? TP_BOUND_COMPUTE
								  : TP_BOUND_MEMORY;
	} else if (r->has_intensity && w->flops == 0 && f->hbm_bw.source) {
		r->bound = TP_BOUND_MEMORY;     /* bytes moved, nothing computed */
	}
}
