/*
 * report_doc_lines.c - the lines of report_text.c that a saved report's
 * page draws from figures spread over the document: the capture's start
 * and length, the scope rows under the memory peak and under the ops
 * (a scope tree written depth first, largest first), the `wait for`
 * line, the busy and utilization line, and the `clock:` and `outside the
 * steps:` lines, each as report_text.c prints it from the capture.
 */
#include "doc_text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/report/report_doc.h"
#include "tpuprof/util/units.h"
#include "tpuprof/util/util.h"

void tp_doc_capture_when(FILE *out, const json_t *host)
{
	const json_t *cap = json_object_get(host, "capture");
	char a[48], b[32];

	if (!json_is_object(cap) || !json_is_integer(json_object_get(cap, "duration_ps")))
		return;
	fprintf(out, ", %s, %s", tp_fmt_utc_ns(a, sizeof(a), strtoull(str(cap, "start_unix_ns"),
									NULL, 10)),
		tp_fmt_ps(b, sizeof(b), num(cap, "duration_ps")));
}

/* The end of node i's subtree in a depth-first list: the next row no
 * deeper than it. */
static size_t subtree_end(const json_t *rows, size_t i)
{
	int64_t d = num(json_array_get(rows, i), "depth");
	size_t j = i + 1;

	while (j < json_array_size(rows) && num(json_array_get(rows, j), "depth") > d)
		j++;
	return j;
}

/* A child scope row and what orders it: value, then its own name (the
 * path below its parent's), as tp_scope_tree_sort orders children. */
struct child {
	int64_t v;
	const char *name;
	size_t row;
};

static int by_value(const void *a, const void *b)
{
	const struct child *x = a, *y = b;

	return x->v != y->v ? (x->v > y->v ? -1 : 1) : strcmp(x->name, y->name);
}

/* Node f's children, largest first; their count. */
static size_t children(const json_t *rows, size_t f, const char *key, struct child **out)
{
	size_t end = subtree_end(rows, f), n = 0;
	size_t skip = num(json_array_get(rows, f), "depth") ? strlen(str(json_array_get(rows, f), "path")) + 1 : 0;
	struct child *c = tp_xmalloc((end - f + 1) * sizeof(*c));

	for (size_t i = f + 1; i < end; i = subtree_end(rows, i)) {
		const char *path = str(json_array_get(rows, i), "path");

		c[n++] = (struct child){ num(json_array_get(rows, i), key),
					 strlen(path) >= skip ? path + skip : path, i };
	}
	qsort(c, n, sizeof(*c), by_value);
	*out = c;
	return n;
}

void tp_doc_scope_rows(FILE *out, const json_t *rows, const char *key, int64_t whole, bool ps)
{
	size_t f = 0, n;
	struct child *c;
	char t[32];

	if (!json_array_size(rows))
		return;
	/* where the picture splits: walk down while the largest child holds
	 * nearly all of its parent (report_text.c's focus) */
	for (;;) {
		n = children(rows, f, key, &c);
		if (!n || c[0].v < num(json_array_get(rows, f), key) / 20 * 19 ||
		    subtree_end(rows, c[0].row) == c[0].row + 1)
			break;
		f = c[0].row;
		free(c);
	}
	for (size_t i = 0; i < n && i < 3; i++) {
		const json_t *row = json_array_get(rows, c[i].row);

		fprintf(out, "  %10s %5.1f%%  scope %s\n", ps ? tp_fmt_ps(t, sizeof(t), c[i].v) :
			tp_fmt_bytes(t, sizeof(t), (uint64_t)c[i].v),
			whole ? 100.0 * (double)c[i].v / (double)whole : 0.0,
			*str(row, "path") ? str(row, "path") : "(no scope)");
	}
	free(c);
}

void tp_doc_wait_line(FILE *out, const json_t *mod)
{
	const json_t *g = json_array_get(json_object_get(mod, "peak_by_last_user"), 0);
	const json_t *w = json_object_get(g, "wait_steps");
	int64_t peak = num(mod, "peak_bytes"), wait = json_integer_value(w);
	char b[32];

	if (!g)
		return;
	fprintf(out, "  %10s %5.1f%%  wait for %s%s%s%s", tp_fmt_bytes(b, sizeof(b),
		(uint64_t)num(g, "bytes")), peak ? 100.0 * (double)num(g, "bytes") / (double)peak : 0.0,
		str(g, "last_user"), *str(g, "scope") ? " (" : "", str(g, "scope"),
		*str(g, "scope") ? ")" : "");
	if (json_is_integer(w) && wait == 0)
		fprintf(out, ", at the peak\n");
	else if (json_is_integer(w))
		fprintf(out, ", %" PRId64 " schedule step%s %s\n", wait < 0 ? -wait : wait,
			wait == 1 || wait == -1 ? "" : "s", wait < 0 ? "before" : "later");
	else
		fputc('\n', out);
}

/* No share of a peak over 100%: the arithmetic cannot be right there. */
static const char *share_of_peak(char *buf, size_t n, double v)
{
	return v > 1 ? "n/a (above peak)" : tp_fmt_share(buf, n, v);
}

void tp_doc_utilization_line(FILE *out, const json_t *cores)
{
	double peak_s = 0, hbm_s = 0, device_s = 0, busy_s = 0;
	bool flops_ok = true, hbm_ok = true;
	const char *gap = NULL;
	const json_t *c;
	char a[32], b[32];
	size_t i;

	json_array_foreach(cores, i, c) {
		double dev = (double)num(c, "device_ps") * 1e-12;
		const json_t *fu = json_object_get(c, "flop_utilization");
		const json_t *bps = json_object_get(c, "bytes_per_s");
		const json_t *bw = json_object_get(json_object_get(json_object_get(c, "device"),
								   "hbm_bytes_per_s"), "value");

		device_s += dev;
		busy_s += (double)num(c, "self_ps") * 1e-12;
		/* each core's FLOPs at their peak and bytes at its bandwidth,
		 * in seconds, as report_text.c sums them */
		flops_ok = flops_ok && json_is_number(fu);
		hbm_ok = hbm_ok && json_is_number(bps) && json_number_value(bw) > 0;
		if (flops_ok)
			peak_s += json_number_value(fu) * dev;
		if (hbm_ok)
			hbm_s += json_number_value(bps) * dev / json_number_value(bw);
		if (!gap && *str(c, "roofline_gap"))
			gap = str(c, "roofline_gap");
	}
	if (device_s <= 0)
		return;
	fprintf(out, "  busy %.1f%% of device time", 100.0 * busy_s / device_s);
	if (flops_ok)
		fprintf(out, ", FLOP utilization %s", share_of_peak(a, sizeof(a), peak_s / device_s));
	if (hbm_ok)
		fprintf(out, ", HBM bandwidth %s", share_of_peak(b, sizeof(b), hbm_s / device_s));
	if (flops_ok || hbm_ok)
		fprintf(out, " (of peak, over device time)");
	fputc('\n', out);
	if (gap)
		fprintf(out, "  (%s)\n", gap);
}

void tp_doc_clock_line(FILE *out, const json_t *cores)
{
	size_t n = json_array_size(cores), device = 0, drifting = 0, with_steps = 0, i;
	int64_t compute = 0, coll = 0, copy = 0, dev_ps = 0;
	double lo = 0, hi = 0;
	const json_t *c;

	json_array_foreach(cores, i, c) {
		const json_t *o = json_object_get(c, "outside_steps");
		const json_t *dr = json_object_get(c, "clock_drift");

		device += strcmp(str(c, "clock"), "device") == 0;
		dev_ps = tp_sat_add(dev_ps, num(c, "device_ps"));
		with_steps += json_is_object(o);
		compute = tp_sat_add(compute, num(o, "compute_ps"));
		coll = tp_sat_add(coll, num(o, "collective_ps"));
		copy = tp_sat_add(copy, num(o, "copy_ps"));
		if (!json_is_true(json_object_get(dr, "over_tolerance")))
			continue;
		double l = json_number_value(json_object_get(dr, "min_ratio"));
		double h = json_number_value(json_object_get(dr, "max_ratio"));

		lo = !drifting++ || l < lo ? l : lo;
		hi = drifting == 1 || h > hi ? h : hi;
	}
	tp_report_clock_lines(out, &(struct tp_clock_lines){
		n, device, drifting, with_steps, lo, hi, dev_ps, compute, coll, copy });
}

/* Note name as seen with program id; a second id marks it shared. */
static void note_program(json_t *seen, json_t *shared, const char *name, const char *id)
{
	const char *first = json_string_value(json_object_get(seen, name));

	if (!*name)
		return;
	if (!first)
		json_object_set_new(seen, name, json_string(id));
	else if (strcmp(first, id) != 0)
		json_object_set_new(shared, name, json_true());
}

json_t *tp_doc_shared_names(const json_t *doc, const json_t *ops)
{
	const json_t *info = json_object_get(doc, "info"), *h, *m, *c;
	json_t *seen = json_object(), *shared = json_object();
	size_t i, j;

	/* every program of the input, as the capture's modules: those that
	 * ran on no core too */
	json_array_foreach(json_object_get(info, "hosts"), i, h)
		json_array_foreach(json_object_get(h, "modules"), j, m)
			note_program(seen, shared, str(m, "name"), str(m, "program_id"));
	json_array_foreach(json_object_get(info, "modules"), i, m)
		note_program(seen, shared, str(m, "name"), str(m, "program_id"));
	/* an ops document alone has only the programs that ran */
	json_array_foreach(json_object_get(ops, "cores"), i, c)
		json_array_foreach(json_object_get(c, "modules"), j, m)
			note_program(seen, shared, str(m, "module"), str(m, "program_id"));
	json_decref(seen);
	return shared;
}

const char *tp_doc_op_module(char *buf, size_t n, const json_t *shared, const json_t *op,
			     const char *sep)
{
	const char *mod = str(op, "module");

	if (!*mod)
		snprintf(buf, n, "%s", "");
	else if (json_is_true(json_object_get(shared, mod)))
		snprintf(buf, n, "%s(%s #%s)", sep, mod, str(op, "program_id"));
	else
		snprintf(buf, n, "%s(%s)", sep, mod);
	return buf;
}
