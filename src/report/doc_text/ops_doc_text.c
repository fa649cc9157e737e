/*
 * ops_doc_text.c - `tpuprof ops` text drawn from a saved document (a
 * report's "ops", merged pods included) instead of a capture: the
 * all-cores view of ops_text.c (a table per group of cores that ran the
 * same programs: total, self, count, share of the group's device time,
 * the cores and the spread of self time between them, category, op) from
 * core_groups[] (docs/json.md, tpuprof.ops/1). Names print whole: a saved
 * document is read to be grepped.
 */
#include "doc_text.h"
#include "tpuprof/report/report_doc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/units.h"

/* "all cores: host0 /device:TPU:0, /device:TPU:1, host1 ..." */
static void group_head(FILE *out, const json_t *cores, const json_t *g)
{
	const json_t *ix;
	const char *host = NULL;
	size_t i, n = json_array_size(json_object_get(g, "core_indexes"));

	fprintf(out, n > 1 ? "all cores:" : "core:");
	json_array_foreach(json_object_get(g, "core_indexes"), i, ix) {
		const json_t *c = json_array_get(cores, (size_t)json_integer_value(ix));
		const char *h = str(c, "host");

		if (i == 8) {
			fprintf(out, " and %zu more", n - 8);
			break;
		}
		fprintf(out, "%s%s%s%s", i ? ", " : " ", !host || strcmp(host, h) ? h : "",
			!host || strcmp(host, h) ? " " : "", str(c, "plane"));
		host = h;
	}
	if (n > 1)
		fprintf(out, " (%zu cores that ran the same programs, summed)", n);
}

static void op_row(FILE *out, const json_t *shared, const json_t *o, int64_t device)
{
	char t[32], s[32], lo[32], hi[32], sp[48], mod[640];

	if (num(o, "n_cores") > 1)
		snprintf(sp, sizeof(sp), "%s..%s", tp_fmt_ps(lo, sizeof(lo), num(o, "min_core_self_ps")),
			 tp_fmt_ps(hi, sizeof(hi), num(o, "max_core_self_ps")));
	else
		snprintf(sp, sizeof(sp), "-");
	fprintf(out, "  %9s %9s %7" PRId64 " %5.1f%%  %5" PRId64 " %-19s %-14.14s  %s%s\n",
		tp_fmt_ps(t, sizeof(t), num(o, "total_ps")), tp_fmt_ps(s, sizeof(s), num(o, "self_ps")),
		num(o, "occurrences"), device ? 100.0 * (double)num(o, "self_ps") / (double)device : 0.0,
		num(o, "n_cores"), sp, str(o, "category"), str(o, "name"),
		tp_doc_op_module(mod, sizeof(mod), shared, o, "  "));
}

/* The group's clock as the capture's text says it: device where every
 * core of it is on the device clock (cores[].clock). */
static const char *group_clock(const json_t *cores, const json_t *g)
{
	const json_t *ix;
	size_t i;

	json_array_foreach(json_object_get(g, "core_indexes"), i, ix) {
		const char *k = str(json_array_get(cores, (size_t)json_integer_value(ix)), "clock");

		if (strcmp(k, "device") != 0)
			return "timeline";
	}
	return "device";
}

static void group_text(FILE *out, const json_t *shared, const json_t *cores, const json_t *g,
		       size_t limit)
{
	const json_t *ops = json_object_get(g, "ops");
	size_t n = json_array_size(ops), shown = limit && limit < n ? limit : n;
	int64_t device = num(g, "device_ps"), left = 0;
	char a[32], b[32], c[32];

	group_head(out, cores, g);
	fprintf(out, ": %zu op%s, %" PRId64 " event%s (%s clock)\n", n, n == 1 ? "" : "s",
		num(g, "events"), num(g, "events") == 1 ? "" : "s", group_clock(cores, g));
	fprintf(out, "  device time %s (summed over these cores), op time %s, collectives %s "
		"(%.1f%% of device time)\n", tp_fmt_ps(a, sizeof(a), device),
		tp_fmt_ps(b, sizeof(b), num(g, "op_ps")), tp_fmt_ps(c, sizeof(c), num(g, "collective_ps")),
		device ? 100.0 * (double)num(g, "collective_ps") / (double)device : 0.0);
	fprintf(out, "  %9s %9s %7s %6s  %5s %-19s %-14s  %s\n", "total", "self", "count", "device",
		"cores", "spread", "category", "op (module)");
	for (size_t i = 0; i < n; i++) {
		if (i < shown)
			op_row(out, shared, json_array_get(ops, i), device);
		else
			left += num(json_array_get(ops, i), "total_ps");
	}
	if (shown < n)
		fprintf(out, "  ... %zu more ops, %s in total, not shown (--limit 0 shows all)\n",
			n - shown, tp_fmt_ps(a, sizeof(a), left));
}

enum tp_err tp_ops_doc_text(FILE *out, const json_t *whole, const json_t *doc, size_t limit,
			    struct tp_error *err)
{
	const json_t *cores = json_object_get(doc, "cores"), *g;
	json_t *shared = tp_doc_shared_names(whole, doc);
	size_t i;

	if (!json_array_size(cores))
		fprintf(out, "no device ops in this capture\n");
	json_array_foreach(json_object_get(doc, "core_groups"), i, g) {
		if (i)
			fputc('\n', out);
		group_text(out, shared, cores, g, limit);
	}
	json_decref(shared);
	if (json_array_size(cores))
		fprintf(out, "device: op self time / the device time of the table's cores (summed); "
			"spread: the least and the most self time of one core\n");
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
