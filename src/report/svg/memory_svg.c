/*
 * memory_svg.c - `tpuprof memory --svg FILE`: a self-contained SVG of the
 * module with the highest peak: its heap curve (padded and unpadded) over
 * program order with the peak marked (XProf's green bar, at position + 1),
 * the live ranges of the largest buffers at the peak as labelled bars,
 * and, when the capture has runtime memory events, the allocator's bytes
 * in use over time for the device with the highest runtime peak.
 */
#include "tpuprof/report/memory_report.h"
#include "tpuprof/analyze/common/shape.h"
#include "tpuprof/util/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define W 1000
#define LEFT 70
#define PLOT_W (W - LEFT - 20)
#define CURVE_H 260
#define BAR_H 18
#define MAX_BARS 12
#define RUNTIME_H 200

static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, out);
		}
	}
}

static double mib(uint64_t b)
{
	return (double)b / 1048576.0;
}

static const struct tp_mem_module *highest(const struct tp_memory *mem)
{
	const struct tp_mem_module *best = NULL;

	for (size_t i = 0; i < mem->n_modules; i++)
		if (!best || mem->modules[i].peak > best->peak)
			best = &mem->modules[i];
	return best;
}

static double px(size_t i, size_t n)
{
	return LEFT + (n > 1 ? (double)i * PLOT_W / (double)(n - 1) : 0);
}

static void polyline(FILE *out, const struct tp_mem_module *m, const uint64_t *v,
		     uint64_t top, int y0, const char *style)
{
	fprintf(out, "<polyline fill=\"none\" %s points=\"", style);
	for (size_t i = 0; i < m->n_points; i++)
		fprintf(out, "%.1f,%.1f ", px(i, m->n_points),
			y0 + CURVE_H - (double)(v[i] + m->indefinite_bytes) * CURVE_H / (double)top);
	fprintf(out, "\"/>\n");
}

static void curve_panel(FILE *out, const struct tp_mem_module *m, int y0)
{
	struct tp_str name = tp_module_name(m->module);
	uint64_t top = m->peak ? m->peak : 1;
	double x = px((size_t)m->peak_position + 1, m->n_points ? m->n_points : 1);
	double bw = m->n_points > 50 ? (double)PLOT_W / 50 : 6;

	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"14\" font-weight=\"bold\">module ",
		LEFT, y0 - 8);
	char *n = tp_str_dup(name);

	xml_text(out, n);
	free(n);
	fprintf(out, " (program %" PRIu64 "): peak %.2f MiB at heap event %ld</text>\n",
		m->module->program_id, mib(m->peak), m->peak_position);
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n",
		LEFT, y0, PLOT_W, CURVE_H);
	fprintf(out, "<text x=\"5\" y=\"%d\" font-size=\"11\">%.0f MiB</text>\n", y0 + 10, mib(top));
	fprintf(out, "<text x=\"5\" y=\"%d\" font-size=\"11\">0</text>\n", y0 + CURVE_H);
	if (!m->n_points) {
		fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\">no heap trace: only indefinite buffers</text>\n",
			LEFT + 10, y0 + CURVE_H / 2);
		return;
	}
	fprintf(out, "<rect id=\"peak-marker\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#00ff00\" fill-opacity=\"0.5\"/>\n",
		x - bw / 2, y0, bw, CURVE_H);
	polyline(out, m, m->heap_unpadded, top, y0, "stroke=\"#999\" stroke-dasharray=\"4,3\"");
	polyline(out, m, m->heap, top, y0, "stroke=\"#1f5fbf\" stroke-width=\"2\"");
	fprintf(out, "<text id=\"peak-label\" x=\"%.1f\" y=\"%d\" font-size=\"12\" fill=\"#060\">peak %.2f MiB</text>\n",
		x + bw, y0 + 14, mib(m->peak));
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\">heap-simulator event index; blue: padded, grey: unpadded</text>\n",
		LEFT, y0 + CURVE_H + 14);
}

static int by_size(const void *a, const void *b)
{
	const struct tp_mem_live *x = a, *y = b;

	return x->size != y->size ? (x->size > y->size ? -1 : 1) : (x->buffer > y->buffer) - (x->buffer < y->buffer);
}

static void bars_panel(FILE *out, const struct tp_mem_module *m, int y0)
{
	struct tp_mem_live *s = tp_xmalloc((m->n_live + 1) * sizeof(*s));
	size_t n = m->n_live < MAX_BARS ? m->n_live : MAX_BARS;
	size_t points = m->n_points ? m->n_points : 1;

	if (m->n_live)
		memcpy(s, m->live, m->n_live * sizeof(*s));
	qsort(s, m->n_live, sizeof(*s), by_size);
	for (size_t i = 0; i < n; i++) {
		const struct tp_mem_buffer *d = &m->buffers[s[i].display];
		long a = s[i].indefinite || d->span_start < 0 ? 0 : d->span_start;
		long b = s[i].indefinite || d->span_end < 0 ? (long)points - 1 : d->span_end;
		double x0 = px((size_t)a, points), x1 = px((size_t)b, points);
		int y = y0 + (int)i * (BAR_H + 4);
		struct tp_strbuf sb;

		tp_strbuf_init(&sb);
		tp_mem_buffer_name(&sb, m, s[i].display); /* "fusion.3{1}" */
		tp_strbuf_adds(&sb, ": ");
		tp_shape_format(&sb, d->shape);
		tp_strbuf_addf(&sb, " (%.2f MiB)", mib(s[i].size));
		fprintf(out, "<rect class=\"buffer\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
			x0, y, x1 - x0 < 2 ? 2 : x1 - x0, BAR_H, s[i].indefinite ? "#d9a441" : "#6fa8dc");
		fprintf(out, "<text class=\"buffer-label\" x=\"%d\" y=\"%d\" font-size=\"11\">", LEFT + 4, y + 13);
		xml_text(out, sb.buf);
		fprintf(out, "</text>\n");
		tp_strbuf_release(&sb);
	}
	free(s);
}

static const struct tp_mem_device *top_device(const struct tp_memory *mem)
{
	const struct tp_mem_device *best = NULL;

	for (size_t i = 0; i < mem->runtime.n_devices; i++)
		if (!best || mem->runtime.devices[i].peak_bytes > best->peak_bytes)
			best = &mem->runtime.devices[i];
	return best && best->n_snapshots > 1 ? best : NULL;
}

static void runtime_panel(FILE *out, const struct tp_mem_device *d, int y0)
{
	int64_t t0 = d->snapshots[0].time_ps, t1 = d->snapshots[d->n_snapshots - 1].time_ps;
	double span = t1 > t0 ? (double)(t1 - t0) : 1, top = d->peak_bytes > 0 ? (double)d->peak_bytes : 1;
	const struct tp_mem_snapshot *p = &d->snapshots[d->peak_snapshot];

	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"14\" font-weight=\"bold\">runtime memory ", LEFT, y0 - 8);
	xml_text(out, d->id);
	fprintf(out, ": peak %.2f MiB (heap + stack)</text>\n", mib((uint64_t)d->peak_bytes));
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n",
		LEFT, y0, PLOT_W, RUNTIME_H);
	fprintf(out, "<polyline id=\"runtime-curve\" fill=\"none\" stroke=\"#a33\" stroke-width=\"1.5\" points=\"");
	for (size_t i = 0; i < d->n_snapshots; i++) {
		const struct tp_mem_snapshot *s = &d->snapshots[i];

		fprintf(out, "%.1f,%.1f ", LEFT + (double)(s->time_ps - t0) * PLOT_W / span,
			y0 + RUNTIME_H - (double)tp_sat_add(s->heap, s->stack) * RUNTIME_H / top);
	}
	fprintf(out, "\"/>\n<circle id=\"runtime-peak\" cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"#00aa00\"/>\n",
		LEFT + (double)(p->time_ps - t0) * PLOT_W / span, y0);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\">time (%.3f ms shown)</text>\n",
		LEFT, y0 + RUNTIME_H + 14, span / 1e9);
}

enum tp_err tp_memory_svg(FILE *out, const struct tp_memory *mem, struct tp_error *err)
{
	const struct tp_mem_module *m = highest(mem);
	const struct tp_mem_device *d = top_device(mem);
	size_t bars = m ? (m->n_live < MAX_BARS ? m->n_live : MAX_BARS) : 0;
	int y_bars = 30 + CURVE_H + 40, y_rt = y_bars + (int)bars * (BAR_H + 4) + 40;
	int height = (d ? y_rt + RUNTIME_H + 30 : y_rt) + 10;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, height, W, height);
	if (m) {
		curve_panel(out, m, 30);
		fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">largest buffers live at the peak (live ranges in program order)</text>\n",
			LEFT, y_bars - 8);
		bars_panel(out, m, y_bars);
	}
	if (d)
		runtime_panel(out, d, y_rt);
	fprintf(out, "</svg>\n");
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write SVG");
	return TP_OK;
}
