/*
 * devices_text.c - the device table for people (`tpuprof devices`), and
 * the one-line label of a core's device.
 */
#include "tpuprof/report/device_report.h"

static void tflops(char *buf, size_t n, double v)
{
	if (v > 0)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "-");
}

static void print_row(FILE *out, const struct tp_device_row *r)
{
	char bf16[16], f16[16], f32[16], int8[16], fp8[16], ic[24];

	tflops(bf16, sizeof(bf16), r->peak_tflops[TP_PREC_BF16]);
	tflops(f16, sizeof(f16), r->peak_tflops[TP_PREC_F16]);
	tflops(f32, sizeof(f32), r->peak_tflops[TP_PREC_F32]);
	tflops(int8, sizeof(int8), r->peak_tflops[TP_PREC_INT8]);
	tflops(fp8, sizeof(fp8), r->peak_tflops[TP_PREC_FP8]);
	if (r->interconnect_gbps > 0)
		snprintf(ic, sizeof(ic), "%.0f", r->interconnect_gbps);
	else
		snprintf(ic, sizeof(ic), "-");
	fprintf(out, "%-28s %6.0f %6u %8s %8s %7s %8s %8s %7.0f %6s  %s\n", r->key, r->hbm_gib,
		r->planes_per_chip, bf16, f16, f32, int8, fp8, r->hbm_gbps, ic, r->cores);
	fprintf(out, "%-28s aliases %s; sources %s\n", "", r->aliases, r->sources);
}

enum tp_err tp_devices_text(FILE *out, struct tp_error *err)
{
	fprintf(out, "per chip: HBM GiB, dense peak TFLOP/s, HBM and interconnect GB/s; "
		"a plane is 1/PLANES of a chip\n");
	fprintf(out, "%-28s %6s %6s %8s %8s %7s %8s %8s %7s %6s  %s\n", "DEVICE", "HBM",
		"PLANES", "BF16", "F16", "F32", "INT8", "FP8", "HBM-BW", "LINK", "CORES");
	for (size_t i = 0; i < tp_device_count(); i++)
		print_row(out, tp_device_at(i));
	fprintf(out, "sources: docs/devices.md\n");
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}

const char *tp_device_label(char *buf, size_t n, const struct tp_device_figures *f)
{
	if (!f->row)
		snprintf(buf, n, "unknown device");
	else
		snprintf(buf, n, "%s (%s)", f->row->key,
			 f->row_source == TP_FIG_FLAG ? "--device" : "detected");
	return buf;
}
