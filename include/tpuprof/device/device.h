/*
 * device.h - what the hardware can do: the built-in device table (HBM
 * capacity, peak dense FLOP/s per precision, HBM and interconnect
 * bandwidth; src/device/devices.def, one row per device with its sources,
 * cited in docs/devices.md), lookup by device-kind string or alias, and
 * the figures of one capture plane with where each came from.
 *
 * Precedence, per figure: a figure given by a flag (--hbm for the
 * capacity) wins; then a figure the capture carries itself (plane stats
 * memory_size, peak_teraflops_per_second, peak_hbm_bw_gigabytes_per_second,
 * the runtime allocator's capacity); then the table row of the device.
 * The device is the one the capture names unless --device names another:
 * then the capture's own figures describe a different chip and are not
 * used (a "what if this ran on a v5e?" question).
 *
 * This module knows no capture: what a plane's stats say arrives as a
 * struct tp_plane_facts (read by device_plane.h in analyze/common).
 *
 * Ownership: rows are static and live forever; struct tp_device_figures
 * holds no pointers but to rows, so it is copied freely; plane facts
 * borrow their strings from the caller.
 */
#ifndef TPUPROF_DEVICE_H
#define TPUPROF_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/util/util.h"

/* The precisions the table has peaks for. */
enum tp_precision {
	TP_PREC_BF16,
	TP_PREC_F16,
	TP_PREC_F32,
	TP_PREC_INT8,
	TP_PREC_FP8,
	TP_PREC_N,
	TP_PREC_UNKNOWN = TP_PREC_N
};

/* "bf16", "f16", "f32", "int8", "fp8"; "unknown". */
const char *tp_precision_name(enum tp_precision p);

enum tp_device_vendor { TP_VENDOR_GOOGLE, TP_VENDOR_NVIDIA, TP_VENDOR_AMD };

/* One row of the table. Chip figures; 0 means the figure is unknown or
 * the chip has no such unit. A plane (what a profile calls a device) is
 * 1 / planes_per_chip of the chip: one TensorCore on TPU v2, v3, v4, v5p
 * and TPU7x, one GCD on an MI250X, the whole chip elsewhere. */
struct tp_device_row {
	const char *key;            /* device-kind string, e.g. "TPU v6 lite" */
	const char *aliases;        /* '|'-separated other names            */
	enum tp_device_vendor vendor;
	unsigned planes_per_chip;
	double hbm_gib;             /* HBM per chip, GiB                    */
	double peak_tflops[TP_PREC_N]; /* dense, per chip, 10^12 FLOP/s     */
	double hbm_gbps;            /* per chip, 10^9 B/s                   */
	double interconnect_gbps;   /* ICI / NVLink / IF per chip, 10^9 B/s */
	const char *interconnect;   /* "ICI", "NVLink", "Infinity Fabric"…  */
	/* for telling GPUs apart by their plane stats; 0 = none */
	int cc_major, cc_minor;     /* compute capability (AMD: as HIP says) */
	const char *arch;           /* AMD gfx name, or NULL                */
	unsigned plane_cores;       /* SMs or CUs per plane                 */
	unsigned clock_mhz;         /* boost clock, only where rows differ  */
	const char *cores;          /* "2 TC", "132 SM", …                  */
	const char *sources;        /* docs/devices.md source keys          */
};

size_t tp_device_count(void);
const struct tp_device_row *tp_device_at(size_t i);

/* The row whose key or alias equals name, ignoring case and surrounding
 * blanks; NULL for unknown names (including "Cloud TPU"). */
const struct tp_device_row *tp_device_lookup(const char *name);
const struct tp_device_row *tp_device_lookup_n(const char *name, size_t len);

enum tp_fig_source { TP_FIG_NONE, TP_FIG_CAPTURE, TP_FIG_TABLE, TP_FIG_FLAG };

/* "capture", "table", "flag"; NULL for none. */
const char *tp_fig_source_name(enum tp_fig_source s);

/* A figure and where it came from; value 0 with TP_FIG_NONE = unknown. */
struct tp_figure {
	double value;
	enum tp_fig_source source;
};

/* The figures of one plane, in base units. */
struct tp_device_figures {
	const struct tp_device_row *row;  /* NULL: device unknown          */
	enum tp_fig_source row_source;    /* capture (detected) or flag    */
	bool tpu;                         /* a TPU (row, else plane kind)  */
	struct tp_figure capacity;        /* bytes                         */
	struct tp_figure peak_flops[TP_PREC_N]; /* FLOP/s                  */
	struct tp_figure hbm_bw;          /* bytes/s                       */
	struct tp_figure interconnect_bw; /* bytes/s                       */
};

/* What the caller knows beyond the plane. */
struct tp_device_hints {
	const struct tp_device_row *forced; /* --device, or NULL            */
	uint64_t hbm;                       /* --hbm bytes, 0 = none        */
	uint64_t allocator_capacity;        /* runtime allocator, 0 = none  */
};

/* What one capture plane says about its device (its plane stats); a
 * number 0 or a flag false means the stat is absent. */
struct tp_plane_facts {
	bool tpu, gpu;                  /* plane kind                        */
	struct tp_str type_string;      /* device_type_string                */
	struct tp_str gpu_name;         /* gpu_device_name                   */
	bool amd;                       /* device_vendor "AMD"               */
	bool has_cc;
	int cc_major, cc_minor;         /* compute_cap_major / minor         */
	double cores;                   /* core_count                        */
	double memory_size;             /* bytes                             */
	double clock_khz;               /* clock_rate                        */
	double peak_tflops;             /* peak_teraflops_per_second         */
	double peak_hbm_gbps;           /* peak_hbm_bw_gigabytes_per_second  */
	double memory_bandwidth;        /* bytes/s                           */
};

/* The row a plane's facts name: device_type_string on TPU; on GPU
 * gpu_device_name, else vendor, compute capability, core count, memory
 * size and clock. NULL when nothing matches (or a TPU says "Cloud TPU"). */
const struct tp_device_row *tp_device_detect(const struct tp_plane_facts *p);

/* Fills f for a plane's facts (NULL: no capture, table and flags only). */
void tp_device_resolve(const struct tp_plane_facts *p, const struct tp_device_hints *h,
		       struct tp_device_figures *f);

/* A chip figure of a row divided to one plane. */
double tp_device_plane(const struct tp_device_row *r, double chip_value);

/* The peak an op of precision p is measured against: its own peak; on
 * TPU, where f32 matmuls run as bf16 MXU passes at XLA's default
 * precision and XProf measures every op against the one MXU peak, f32
 * (and f16) use the bf16 peak. Value 0 when unknown. */
struct tp_figure tp_device_peak_for(const struct tp_device_figures *f,
				    enum tp_precision p);

/* Precision of an XLA element type name ("bf16", "f32", "s8", "f8e4m3fn"
 * …); TP_PREC_UNKNOWN for others (pred, s32, f64, tuples). */
enum tp_precision tp_precision_of_type(const char *type, size_t len);

/* ---- the roofline of one op, module or core (src/device/roofline.c) ---- */

enum tp_bound { TP_BOUND_UNKNOWN, TP_BOUND_COMPUTE, TP_BOUND_MEMORY, TP_BOUND_COLLECTIVE,
		TP_BOUND_HOST_TRANSFER };

/* "unknown", "compute", "memory", "collective", "host-transfer". */
const char *tp_bound_name(enum tp_bound b);

/* What an amount of work did in some time. peak_time_ps is the time the
 * FLOPs would take at their precision's peak, summed over ops (so mixed
 * precisions add up); a negative value means some FLOPs had no known
 * peak. */
struct tp_work {
	bool has_flops, has_bytes;
	double flops, bytes;
	double peak_time_ps;
	int64_t ps;                 /* time it took                         */
	bool collective;            /* an op that is a collective           */
	bool host_transfer;         /* a copy to or from host memory: bound
				     * by the host link, not HBM            */
	const char *no_rate;        /* why ps is not the time the work took
				     * (half of an async pair), or NULL     */
};

/* Adds one op (flops and bytes as measured, precision p) to w. */
void tp_work_add(struct tp_work *w, const struct tp_device_figures *f,
		 enum tp_precision p, bool has_flops, int64_t flops,
		 bool has_bytes, int64_t bytes);

/* The figures derived from w; each has_ flag false when an input is
 * missing (no FLOPs or bytes in the capture, no peak or bandwidth known,
 * no time). */
struct tp_roofline {
	bool has_flops_rate, has_bytes_rate, has_flop_util, has_hbm_util, has_intensity;
	double flops_per_s, bytes_per_s;
	double flop_utilization;    /* achieved / peak, 0..1                */
	double hbm_utilization;     /* bytes/s over HBM bandwidth, 0..1     */
	/* why a share is not given although its inputs are there: the time
	 * is not the work's (an async half), a host transfer (no HBM share),
	 * or the arithmetic gives more than 100% of the peak; else NULL */
	const char *flop_util_na, *hbm_util_na;
	double intensity;           /* FLOPs per byte                       */
	enum tp_bound bound;        /* compute when intensity >= the ridge
				     * (peak / HBM bandwidth), else memory;
				     * collective for collectives           */
};

void tp_roofline_of(const struct tp_work *w, const struct tp_device_figures *f,
		    struct tp_roofline *r);

/* Why a share is not given (tp_roofline.flop_util_na, hbm_util_na,
 * tp_work.no_rate): these texts, said in text output; JSON gives
 * tp_share_na_code()'s short code for one ("async_half",
 * "bytes_on_start", "host_transfer", "above_peak"; NULL for NULL). */
extern const char TP_NA_ASYNC_HALF[], TP_NA_BYTES_ON_START[], TP_NA_HOST_TRANSFER[],
		  TP_NA_ABOVE_PEAK_FLOPS[], TP_NA_ABOVE_PEAK_BYTES[];
const char *tp_share_na_code(const char *why);

#endif
