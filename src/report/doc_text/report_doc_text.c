/*
 * report_doc_text.c - the one page of `report` text drawn from a saved
 * report document (`report --format json`, or `merge`'s pod report)
 * instead of a capture: the same lines and figures as report_text.c
 * where the document holds them (docs/json.md), so `report pod.json`
 * reads as `report` over all the hosts' files would.
 */
#include "doc_text.h"
#include "tpuprof/report/report_doc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/units.h"

static char slot[4][32];
#define BYTES(i, v) tp_fmt_bytes(slot[i], sizeof(slot[i]), (v))
#define PS(i, v) tp_fmt_ps(slot[i], sizeof(slot[i]), (v))

static json_t *get(const json_t *o, const char *key)
{
	return json_object_get(o, key);
}

static void capture_line(FILE *out, const json_t *doc)
{
	const json_t *hosts = get(get(doc, "info"), "hosts");
	size_t n = json_array_size(hosts);
	const json_t *h0 = json_array_get(hosts, 0);
	int64_t busy = 0;

	if (!n) {     /* an XLA dump or HloProto: programs, no trace */
		fprintf(out, "capture   saved report, %zu compiled program(s), no trace\n",
			json_array_size(get(get(doc, "info"), "modules")));
		return;
	}

	/* the device planes with events, as the capture's page counts them:
	 * a GPU with only allocator events is busy, though it ran no op */
	for (size_t i = 0; i < n; i++)
		busy += num(json_array_get(hosts, i), "device_planes_with_events");
	fprintf(out, "capture   saved report, %s%s, %zu host(s), %" PRId64 " busy device(s)",
		str(h0, "name"), n > 1 ? " and others" : "", n, busy);
	for (size_t i = 0, shown = 0; i < n; i++) {   /* every kind, once */
		const char *k = str(json_array_get(hosts, i), "device_type");
		bool seen = !*k;

		for (size_t j = 0; !seen && j < i; j++)
			seen = strcmp(str(json_array_get(hosts, j), "device_type"), k) == 0;
		if (!seen)
			fprintf(out, "%s%s", shown++ ? " and " : ", ", k);
	}
	tp_doc_capture_when(out, h0);
	fputc('\n', out);
}

static void core_line(FILE *out, const json_t *c)
{
	const json_t *cp = get(c, "compiler_peak_bytes"), *rt = get(c, "runtime_peak_bytes");
	char free_b[32], free_p[32];

	fprintf(out, "  %s %s  %s | %s", str(c, "host"), str(c, "plane"),
		json_is_integer(cp) ? BYTES(0, (uint64_t)json_integer_value(cp)) : "-",
		json_is_integer(rt) ? BYTES(1, (uint64_t)json_integer_value(rt)) : "-");
	if (json_is_integer(get(c, "headroom_bytes")) && num(c, "headroom_bytes") >= 0)
		fprintf(out, " of %s, %s (%s) free", BYTES(2, (uint64_t)num(c, "capacity_bytes")),
			tp_fmt_bytes_down(free_b, sizeof(free_b), (uint64_t)num(c, "headroom_bytes")),
			tp_fmt_pct_down(free_p, sizeof(free_p),
					json_number_value(get(c, "headroom_percent"))));
	else if (json_is_integer(get(c, "headroom_bytes")))
		fprintf(out, " of %s, over by %s (%.1f%%)", BYTES(2, (uint64_t)num(c, "capacity_bytes")),
			BYTES(0, (uint64_t)-num(c, "headroom_bytes")),
			-json_number_value(get(c, "headroom_percent")));
	fputc('\n', out);
}

/* Largest first; ties by buffer id, the order report_text.c takes. */
static int by_size_id(const void *a, const void *b)
{
	const json_t *const *x = a, *const *y = b;
	int64_t sx = num(*x, "size_bytes"), sy = num(*y, "size_bytes");
	int64_t ix = num(*x, "canonical_buffer_id"), iy = num(*y, "canonical_buffer_id");

	return sx != sy ? (sx > sy ? -1 : 1) : (ix > iy) - (ix < iy);
}

/* The highest compiler peak, the three largest buffers holding it, the
 * scopes that hold it and what most of it waits for. */
static void peak_holders(FILE *out, const json_t *mod, const json_t *shared)
{
	const json_t *live = get(mod, "live_at_peak");
	size_t n = json_array_size(live), shown = n < 3 ? n : 3;
	const json_t **v = tp_doc_by_size(live);
	uint64_t peak = (uint64_t)num(mod, "peak_bytes"), rest = 0;
	char name[512];

	qsort(v, n, sizeof(*v), by_size_id);

	/* programs sharing a module name are told apart, as in ops */
	fprintf(out, "  highest compiler peak: %s%s%s, %s at heap event %" PRId64 "; held by\n",
		str(mod, "name"), json_is_true(get(shared, str(mod, "name"))) ? " #" : "",
		json_is_true(get(shared, str(mod, "name"))) ? str(mod, "program_id") : "",
		BYTES(0, peak), tp_doc_peak_event(mod));
	for (size_t i = 0; i < n; i++) {
		uint64_t size = (uint64_t)num(v[i], "size_bytes");

		if (i >= shown) {
			rest += size;
			continue;
		}
		fprintf(out, "  %10s %5.1f%%  buffer %s %s\n", BYTES(0, size),
			peak ? 100.0 * (double)size / (double)peak : 0.0,
			tp_doc_buffer_name(name, sizeof(name), v[i]), str(get(v[i], "shape"), "text"));
		if (*str(v[i], "scope"))
			fprintf(out, "                         in %s\n", str(v[i], "scope"));
	}
	if (n > shown)
		fprintf(out, "  %10s %5.1f%%  %zu more buffer%s live at the peak (tpuprof memory "
			"lists every one)\n", BYTES(0, rest),
			peak ? 100.0 * (double)rest / (double)peak : 0.0, n - shown,
			n - shown == 1 ? "" : "s");
	free(v);
	tp_doc_scope_rows(out, get(mod, "scopes"), "inclusive_bytes", (int64_t)peak, false);
	tp_doc_wait_line(out, mod);
}

/* Whether the program of module m ran on a core of the document. */
static bool ran_on_a_core(const json_t *mem, const json_t *m)
{
	const json_t *c, *p;
	size_t i, j;

	json_array_foreach(get(mem, "cores"), i, c)
		json_array_foreach(get(c, "programs"), j, p)
			if (strcmp(str(p, "program_id"), str(m, "program_id")) == 0)
				return true;
	return false;
}

/* A program that ran on no core (a dump, an HloProto): the capacity only
 * --device or --hbm gave it, and whether the highest peak fits, as
 * report_text.c's program_capacity prints them. */
static void program_capacity(FILE *out, const json_t *mem, const json_t *top)
{
	const json_t *room = get(mem, "program_headroom_bytes");
	uint64_t cap = (uint64_t)num(mem, "program_capacity_bytes");
	const char *from = strcmp(str(mem, "program_capacity_source"), "flag") == 0 ? "--hbm" :
			   *str(mem, "program_device") ? str(mem, "program_device") : "?";
	int64_t h = json_integer_value(room);
	char a[32], b[32];

	if (ran_on_a_core(mem, top))
		return;
	if (!json_is_integer(get(mem, "program_capacity_bytes")) || !json_is_integer(room)) {
		if (!json_array_size(get(mem, "cores")))
			fprintf(out, "  capacity unknown: a dump or HloProto names no device (give "
				"--device NAME or --hbm SIZE)\n");
		return;
	}
	if (h >= 0)
		fprintf(out, "  capacity %s (%s): the highest peak leaves %s (%s) free\n",
			BYTES(0, cap), from, tp_fmt_bytes_down(a, sizeof(a), (uint64_t)h),
			tp_fmt_pct_down(b, sizeof(b),
					json_number_value(get(mem, "program_headroom_percent"))));
	else
		fprintf(out, "  DOES NOT FIT: the highest peak is %s over the capacity %s (%s); cut at\n"
			"  least %s of what holds it (below; tpuprof memory has every buffer\n"
			"  and split)\n", BYTES(1, (uint64_t)-h), BYTES(0, cap), from,
			tp_fmt_bytes_up(a, sizeof(a), (uint64_t)-h));
}

static void memory_part(FILE *out, const json_t *doc, const json_t *mem)
{
	const json_t *c, *m, *top = NULL;
	size_t i, unknown = 0;

	fprintf(out, "memory    peak per core (compiler plan | runtime allocator) and headroom\n");
	json_array_foreach(get(mem, "cores"), i, c) {
		core_line(out, c);
		unknown += !json_is_integer(get(c, "capacity_bytes"));
	}
	if (unknown)
		fprintf(out, "  capacity unknown for %zu core%s: no memory size in the capture and no known "
			"device (give --device NAME or --hbm SIZE)\n", unknown, unknown == 1 ? "" : "s");
	json_array_foreach(get(mem, "modules"), i, m)
		if (!top || num(m, "peak_bytes") > num(top, "peak_bytes"))
			top = m;
	if (top) {
		json_t *shared = tp_doc_shared_names(doc, get(doc, "ops"));

		program_capacity(out, mem, top);
		peak_holders(out, top, shared);
		json_decref(shared);
	}
}

/* The ops of every group of cores summed by program and name, most
 * self time first: the all-cores view of report_text.c. */
static json_t *ops_summed(const json_t *ops)
{
	json_t *by_key = json_object(), *list = json_array(), *g, *o, *s;
	size_t i, j;
	char key[512];

	json_array_foreach(get(ops, "core_groups"), i, g)
		json_array_foreach(get(g, "ops"), j, o) {
			snprintf(key, sizeof(key), "%s\x1f%s", str(o, "program_id"), str(o, "name"));
			s = get(by_key, key);
			if (!s) {
				s = json_pack("{s:s,s:s,s:s,s:I,s:I,s:I}", "name", str(o, "name"),
					      "module", str(o, "module"), "program_id",
					      str(o, "program_id"), "total_ps", (json_int_t)0,
					      "self_ps", (json_int_t)0, "occurrences", (json_int_t)0);
				json_object_set_new(by_key, key, s);
				json_array_append(list, s);
			}
			json_object_set_new(s, "total_ps", json_integer(num(s, "total_ps") + num(o, "total_ps")));
			json_object_set_new(s, "self_ps", json_integer(num(s, "self_ps") + num(o, "self_ps")));
			json_object_set_new(s, "occurrences",
					    json_integer(num(s, "occurrences") + num(o, "occurrences")));
		}
	json_decref(by_key);
	return list;
}

static int by_self(const void *a, const void *b)
{
	const json_t *const *x = a, *const *y = b;
	int64_t tx = num(*x, "self_ps"), ty = num(*y, "self_ps");

	return tx != ty ? (tx > ty ? -1 : 1) : strcmp(str(*x, "name"), str(*y, "name"));
}

static void time_part(FILE *out, const json_t *doc, int64_t *device)
{
	const json_t *ops = get(doc, "ops"), *scopes = get(doc, "op_scopes");
	json_t *shared = tp_doc_shared_names(doc, ops);
	char mod[640];
	json_t *list = ops_summed(ops);
	size_t n = json_array_size(list), i;
	const json_t **v = tp_xmalloc((n + 1) * sizeof(*v)), *g;
	int64_t op = 0;

	/* device time is over cores, as the capture's page sums it: a core
	 * in two groups (a program only it ran) holds its time once */
	*device = 0;
	if (!json_array_size(get(ops, "cores"))) {
		fprintf(out, "time      no device trace: compiled programs only\n");
		json_decref(list);
		json_decref(shared);
		free(v);
		return;
	}
	json_array_foreach(get(ops, "cores"), i, g) {
		*device += num(g, "device_ps");
		op += num(g, "self_ps");
	}
	fprintf(out, "time      %zu ops on %zu core(s): op time %s of %s device time (all cores; the "
		"shares below are of it)\n", n, json_array_size(get(ops, "cores")), PS(0, op),
		PS(1, *device));
	tp_doc_utilization_line(out, get(ops, "cores"));
	tp_doc_clock_line(out, get(ops, "cores"));
	for (i = 0; i < n; i++)
		v[i] = json_array_get(list, i);
	qsort(v, n, sizeof(*v), by_self);
	for (i = 0; i < n && i < 5; i++)
		fprintf(out, "  %10s %5.1f%%  op %s%s x%" PRId64 "\n", PS(0, num(v[i], "self_ps")),
			*device ? 100.0 * (double)num(v[i], "self_ps") / (double)*device : 0.0,
			str(v[i], "name"), tp_doc_op_module(mod, sizeof(mod), shared, v[i], " "),
			num(v[i], "occurrences"));
	tp_doc_scope_rows(out, get(scopes, "scopes"), "inclusive_ps", *device, true);
	free(v);
	json_decref(list);
	json_decref(shared);
}

static void traffic_part(FILE *out, const json_t *coll, const json_t *ops, int64_t device)
{
	const json_t *c, *m;
	int64_t most = 0, total = 0, time = 0, execs = 0;
	size_t i, devices = 0;

	json_array_foreach(get(coll, "cores"), i, c) {
		most = num(c, "ring_bytes") > most ? num(c, "ring_bytes") : most;
		total += num(c, "ring_bytes");
		devices += num(c, "ring_bytes") > 0;
	}
	json_array_foreach(get(coll, "modules"), i, m)
		execs += num(m, "occurrences");
	/* collective self time over the cores, as the page's device time */
	json_array_foreach(get(ops, "cores"), i, c)
		time += num(c, "collective_ps");
	if (!json_array_size(get(ops, "cores"))) {
		fprintf(out, "traffic   %zu collective(s) in the programs; none ran\n",
			json_array_size(get(coll, "collectives")));
		return;
	}
	fprintf(out, "traffic   %zu collective(s), %" PRId64 " execution(s), ",
		json_array_size(get(coll, "collectives")), execs);
	if (total)
		fprintf(out, "%s sent per device (ring, the most one device sent; %s in total over "
			"%zu device(s)), ", BYTES(0, (uint64_t)most), BYTES(1, (uint64_t)total), devices);
	else
		fprintf(out, "%s sent per device (ring), ", BYTES(0, 0));
	fprintf(out, "%s = %.1f%% of device time (all cores)\n", PS(2, time),
		device ? 100.0 * (double)time / (double)device : 0.0);
	if (json_array_size(get(coll, "host_collectives")))
		fprintf(out, "          %zu TF host collective event(s)\n",
			json_array_size(get(coll, "host_collectives")));
}

/* The rules with verdict v, comma separated, after label. */
static void rules(FILE *out, const json_t *advice, const char *v, const char *label)
{
	const json_t *a;
	size_t i, k = 0;

	json_array_foreach(advice, i, a)
		if (strcmp(str(a, "verdict"), v) == 0)
			fprintf(out, "%s%s", k++ ? ", " : label, str(a, "rule"));
	if (k)
		fputc('\n', out);
}

static void advice_part(FILE *out, const json_t *advice)
{
	const json_t *a;
	size_t i, fired = 0;

	if (!json_is_array(advice)) {  /* tpuprof.report/1 */
		fprintf(out, "advice    none in this report (it predates the advice rules: make it "
			"again)\n");
		return;
	}
	json_array_foreach(advice, i, a)
		fired += strcmp(str(a, "verdict"), "fired") == 0;
	fprintf(out, "advice    %zu of %zu rule(s) fired (docs/ops.md)\n", fired,
		json_array_size(advice));
	json_array_foreach(advice, i, a)
		if (strcmp(str(a, "verdict"), "fired") == 0)
			fprintf(out, "  %s\n", str(a, "text"));
	rules(out, advice, "not_fired", "  not fired: ");
	rules(out, advice, "not_judged", "  could not be judged: ");
}

/* info's warnings, then memory's, as the capture's page ends. */
static void warnings_part(FILE *out, const json_t *doc)
{
	const json_t *all = get(doc, "warnings"), *w;
	size_t i;

	if (json_array_size(all))
		fprintf(out, "warnings\n");
	json_array_foreach(all, i, w)
		fprintf(out, "  %s\n", json_string_value(w) ? json_string_value(w) : "");
}

enum tp_err tp_report_doc_text(FILE *out, const json_t *doc, struct tp_error *err)
{
	int64_t device;

	capture_line(out, doc);
	memory_part(out, doc, get(doc, "memory"));
	time_part(out, doc, &device);
	traffic_part(out, get(doc, "collectives"), get(doc, "ops"), device);
	advice_part(out, get(doc, "advice"));
	warnings_part(out, doc);
	fprintf(out, "more: tpuprof memory | ops | collectives REPORT.json --format json, check "
		"REPORT.json\n");
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
