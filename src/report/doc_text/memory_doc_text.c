/*
 * memory_doc_text.c - `tpuprof memory` text drawn from a saved document
 * (a report's "memory", merged pods included) instead of a capture: the
 * core table, then per module its peak, categories, the buffers live at
 * the peak and the suggested splits, from the figures the document
 * holds (docs/json.md, tpuprof.memory/1), as memory_text.c prints them.
 * What needs the HLO (--why, --split, sparklines, the shape's dims) is
 * the capture's.
 */
#include "doc_text.h"
#include "tpuprof/report/report_doc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/units.h"

/* Bytes of key, "-" when null. */
static const char *bytes_or_dash(char *buf, size_t n, const json_t *o, const char *key)
{
	if (!json_is_integer(json_object_get(o, key)))
		return "-";
	return tp_fmt_bytes(buf, n, (uint64_t)num(o, key));
}

static void core_row(FILE *out, const json_t *c)
{
	char a[32], b[32], cap[32], room[48] = "-", hb[32], hp[32];
	int64_t h = num(c, "headroom_bytes");

	if (json_is_integer(json_object_get(c, "headroom_bytes"))) {
		/* free memory is an upper bound: cut down (memory_text.c) */
		if (h >= 0)
			tp_fmt_bytes_down(hb, sizeof(hb), (uint64_t)h);
		else
			tp_fmt_bytes(hb, sizeof(hb), (uint64_t)-h);
		snprintf(room, sizeof(room), "%s%s %s", h < 0 ? "-" : "", hb,
			 tp_fmt_pct_down(hp, sizeof(hp), json_number_value(json_object_get(c, "headroom_percent"))));
	}
	fprintf(out, "%-14s %-16s %8zu %14s %14s %14s %17s\n", str(c, "host"), str(c, "plane"),
		json_array_size(json_object_get(c, "programs")),
		bytes_or_dash(a, sizeof(a), c, "compiler_peak_bytes"),
		bytes_or_dash(b, sizeof(b), c, "runtime_peak_bytes"),
		bytes_or_dash(cap, sizeof(cap), c, "capacity_bytes"), room);
}

struct ranked {
	const json_t *v;
	size_t i;                /* its place in the document */
};

/* Largest first; ties in document order (the order memory_text.c's
 * buffers take). */
static int by_size(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int64_t sx = num(x->v, "size_bytes"), sy = num(y->v, "size_bytes");

	return sx != sy ? (sx > sy ? -1 : 1) : (x->i > y->i) - (x->i < y->i);
}

const json_t **tp_doc_by_size(const json_t *list)
{
	size_t n = json_array_size(list);
	struct ranked *r = tp_xmalloc((n + 1) * sizeof(*r));
	const json_t **v = tp_xmalloc((n + 1) * sizeof(*v));

	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked){ json_array_get(list, i), i };
	qsort(r, n, sizeof(*r), by_size);
	for (size_t i = 0; i < n; i++)
		v[i] = r[i].v;
	free(r);
	return v;
}

static void buffers(FILE *out, const json_t *m)
{
	const json_t *live = json_object_get(m, "live_at_peak");
	size_t n = json_array_size(live);
	const json_t **v = tp_doc_by_size(live);
	char b[32], name[512];

	fprintf(out, "  buffers live at the peak (%zu of %zu)\n", n, n);
	for (size_t i = 0; i < n; i++) {
		const json_t *shape = json_object_get(v[i], "shape");

		fprintf(out, "    %10s  %-12s %-28s %s\n", tp_fmt_bytes(b, sizeof(b),
			(uint64_t)num(v[i], "size_bytes")), str(v[i], "category"),
			tp_doc_buffer_name(name, sizeof(name), v[i]), str(shape, "text"));
		if (*str(v[i], "scope"))
			fprintf(out, "                   scope %s\n", str(v[i], "scope"));
	}
	free(v);
}

static void splits(FILE *out, const json_t *m)
{
	const json_t *s;
	char a[32], b[32];
	size_t i;

	if (json_array_size(json_object_get(m, "suggestions")))
		fprintf(out, "  suggestions (split along the leading dimension)\n");
	json_array_foreach(json_object_get(m, "suggestions"), i, s) {
		fprintf(out, "    split %s %" PRId64 " %s: peak %s (", str(s, "name"), num(s, "k"),
			num(s, "k") == 1 ? "way" : "ways", tp_fmt_bytes(a, sizeof(a),
			(uint64_t)num(s, "peak_bytes")));
		if (num(s, "saved_bytes"))
			fprintf(out, "-%s", tp_fmt_bytes(b, sizeof(b), (uint64_t)num(s, "saved_bytes")));
		else
			fputs("unchanged", out);
		fprintf(out, ") at heap event %" PRId64 " (estimate, same schedule)\n",
			num(s, "peak_heap_event"));
	}
}

static void module_text(FILE *out, const json_t *m)
{
	const json_t *cat = json_object_get(m, "bytes_by_category"), *v;
	const char *k;
	char a[32], b[32], c[32];

	fprintf(out, "\nmodule %s (program %s), memory space %" PRId64 "\n", str(m, "name"),
		str(m, "program_id"), num(m, "memory_space"));
	if (*str(m, "error"))
		fprintf(out, "    no compiler timeline: %s\n", str(m, "error"));
	fprintf(out, "    peak %s", tp_fmt_bytes(a, sizeof(a), (uint64_t)num(m, "peak_bytes")));
	if (num(m, "heap_points"))
		fprintf(out, " at heap event %" PRId64 " (%s)", tp_doc_peak_event(m),
			str(m, "peak_instruction"));
	else
		fprintf(out, " (no heap trace)");
	if (json_is_integer(json_object_get(m, "peak_schedule_step")))
		fprintf(out, ", schedule step %" PRId64, num(m, "peak_schedule_step"));
	fprintf(out, ", unpadded %s, padding %s\n",
		tp_fmt_bytes(b, sizeof(b), (uint64_t)num(m, "peak_unpadded_bytes")),
		tp_fmt_bytes(c, sizeof(c), (uint64_t)num(m, "padding_bytes")));
	fprintf(out, "    indefinite %s, total allocation %s, %" PRId64 " heap points\n",
		tp_fmt_bytes(a, sizeof(a), (uint64_t)num(m, "indefinite_bytes")),
		tp_fmt_bytes(b, sizeof(b), (uint64_t)num(m, "total_allocation_bytes")),
		num(m, "heap_points"));
	fprintf(out, "    by category:");
	json_object_foreach((json_t *)cat, k, v)
		if (json_integer_value(v))
			fprintf(out, " %s %s", k, tp_fmt_bytes(a, sizeof(a),
							      (uint64_t)json_integer_value(v)));
	fputc('\n', out);
	buffers(out, m);
	splits(out, m);
}

enum tp_err tp_memory_doc_text(FILE *out, const json_t *doc, struct tp_error *err)
{
	const json_t *c, *m, *d;
	char a[32], b[32];
	size_t i;

	if (json_array_size(json_object_get(doc, "cores")))
		fprintf(out, "%-14s %-16s %8s %14s %14s %14s %17s\n", "HOST", "CORE", "PROGRAMS",
			"COMPILER PEAK", "RUNTIME PEAK", "CAPACITY", "HEADROOM");
	json_array_foreach(json_object_get(doc, "cores"), i, c)
		core_row(out, c);
	json_array_foreach(json_object_get(doc, "modules"), i, m)
		module_text(out, m);
	if (json_array_size(json_object_get(doc, "runtime")))
		fprintf(out, "\nruntime memory: peak heap + stack of capacity (MemoryAllocation events;\n"
			"  docs/memory.md says what stack and heap are)\n");
	json_array_foreach(json_object_get(doc, "runtime"), i, d)
		fprintf(out, "  %s memory %s: peak %s of %s, %" PRId64 " allocations, %" PRId64
			" frees\n", str(d, "host"), str(d, "memory_id"),
			tp_fmt_bytes(a, sizeof(a), (uint64_t)num(d, "peak_bytes")),
			tp_fmt_bytes(b, sizeof(b), (uint64_t)num(d, "capacity_bytes")),
			num(d, "allocations"), num(d, "deallocations"));
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
