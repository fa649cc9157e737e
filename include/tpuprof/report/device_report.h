/*
 * device_report.h - the device table and a plane's device figures as text
 * and JSON (`tpuprof devices`, and the "device" object of memory, ops and
 * collectives documents; docs/json.md).
 *
 * Ownership: writers borrow everything; they write to a caller-owned FILE
 * or JSON writer.
 */
#ifndef TPUPROF_DEVICE_REPORT_H
#define TPUPROF_DEVICE_REPORT_H

#include <stdio.h>

#include "tpuprof/device/device.h"
#include "tpuprof/report/report.h"

/* `tpuprof devices`: the whole table (src/report/write.c). */
enum tp_err tp_report_devices(FILE *out, enum tp_format fmt, struct tp_error *err);
void tp_devices_json(struct tp_jw *w, const char *key);
/* The table as text. */
enum tp_err tp_devices_text(FILE *out, struct tp_error *err);

/* A figure as {"value": V, "source": "capture"|"table"|"flag"}, or null
 * when unknown. New reference. */
json_t *tp_figure_json(struct tp_figure f);
/* The "device" object of one core: name and how it was chosen, capacity,
 * peaks per precision, HBM and interconnect bandwidth. New reference. */
json_t *tp_device_figures_json(const struct tp_device_figures *f);
/* "TPU v6 lite (capture)" into buf; "unknown device" when no row. */
const char *tp_device_label(char *buf, size_t n, const struct tp_device_figures *f);

#endif
