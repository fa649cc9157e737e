/*
 * collectives_doc_text.c - `tpuprof collectives` text drawn from a saved
 * document (a report's "collectives", merged pods included) instead of a
 * capture: the lines of collectives_text.c from the figures the
 * document holds (docs/json.md, tpuprof.collectives/1). The device's
 * interconnect is named by what the document says of it: its figure.
 */
#include "doc_text.h"
#include "tpuprof/report/report_doc.h"

#include <inttypes.h>
#include <string.h>

#include "tpuprof/util/units.h"

/* {{0,4},{1,5}}: the groups as XLA prints the explicit form. */
static void groups_expanded(FILE *out, const json_t *groups)
{
	const json_t *g, *id;
	size_t i, j;

	fputc('{', out);
	json_array_foreach(groups, i, g) {
		fprintf(out, "%s{", i ? "," : "");
		json_array_foreach(g, j, id)
			fprintf(out, "%s%" PRId64, j ? "," : "", (int64_t)json_integer_value(id));
		fputc('}', out);
	}
	fputc('}', out);
}

static void groups_line(FILE *out, const json_t *c)
{
	const json_t *groups = json_object_get(c, "replica_groups");
	const json_t *o = json_object_get(c, "replica_group_ids_outside_capture");

	if (num(c, "source_target_pairs") && !json_is_array(groups))
		fprintf(out, "  pairs    %" PRId64 " source-target pairs", num(c, "source_target_pairs"));
	else
		fprintf(out, "  groups   %s", *str(c, "replica_groups_text") ? str(c, "replica_groups_text")
									: "(none: all devices)");
	/* the iota form ([4,2]<=[2,4]T(1,0)) with the groups it stands for */
	if (str(c, "replica_groups_text")[0] == '[' && json_array_size(groups)) {
		fputs(" = ", out);
		groups_expanded(out, groups);
	}
	fprintf(out, "\n  mode     %s, group size %" PRId64 "\n", str(c, "mode"), num(c, "group_size"));
	if (json_is_object(o)) {
		int64_t n = num(o, "count"), lo = num(o, "lowest"), hi = num(o, "highest");
		int64_t devices = num(o, "devices_in_capture");
		char ids[64];

		if (lo == hi)
			snprintf(ids, sizeof(ids), "id %" PRId64, lo);
		else
			snprintf(ids, sizeof(ids), "ids %" PRId64 "..%" PRId64, lo, hi);
		fprintf(out, "  outside  the groups name %" PRId64 " device%s the capture does not have "
			"(%s; it\n           holds %" PRId64 ", ids 0..%" PRId64 "): the job spans "
			"hosts that were not captured;\n           the figures below are of the "
			"devices it holds\n", n, n == 1 ? "" : "s", ids, devices, devices - 1);
	}
}

static void ran_line(FILE *out, const json_t *c)
{
	const json_t *rate = json_object_get(c, "achieved_bytes_per_s");
	const json_t *share = json_object_get(c, "interconnect_share");
	char t[32];

	fprintf(out, "  ran      %" PRId64 "x, %s on device%s", num(c, "occurrences"),
		tp_fmt_ps(t, sizeof(t), num(c, "time_ps")),
		json_is_true(json_object_get(c, "timed_as_fusion")) ? " (the enclosing fusion's time)"
								     : "");
	if (!json_is_null(json_object_get(c, "done")))
		fprintf(out, "; start to done %s", tp_fmt_ps(t, sizeof(t), num(c, "span_ps")));
	if (json_is_number(rate)) {
		fprintf(out, ", %.1f GB/s achieved per device", json_number_value(rate) / 1e9);
		if (json_is_number(share))
			fprintf(out, " = %.1f%% of the interconnect (%.0f GB/s each way per device)",
				100.0 * json_number_value(share),
				json_number_value(json_object_get(c, "interconnect_bytes_per_s_each_way")) /
					1e9);
		else if (*str(c, "interconnect_share_unavailable"))
			fprintf(out, " = n/a of the interconnect (above the interconnect's peak: the "
				"timed span cannot hold the transfer)");
	}
	fputc('\n', out);
}

static void coll_text(FILE *out, const json_t *c)
{
	const json_t *core;
	char b[32], r[32], t[32];
	size_t i;

	fprintf(out, "%s (%s) in %s%s%s\n", str(c, "name"), str(c, "kind"), str(c, "module"),
		*str(c, "fusion") ? ", inside fusion " : "", str(c, "fusion"));
	fprintf(out, "  shape    %s\n  payload  %s (%" PRId64 " B)\n", str(c, "shape"),
		tp_fmt_bytes(b, sizeof(b), (uint64_t)num(c, "bytes")), num(c, "bytes"));
	groups_line(out, c);
	if (num(c, "group_size"))
		fprintf(out, "  ring     %s sent per device per execution\n",
			tp_fmt_bytes(r, sizeof(r), (uint64_t)num(c, "ring_bytes_per_device")));
	ran_line(out, c);
	fprintf(out, "  scope    %s\n", str(c, "scope"));
	json_array_foreach(json_object_get(c, "cores"), i, core) {
		fprintf(out, "    %s %s: %" PRId64 "x, %s", str(core, "host"), str(core, "plane"),
			num(core, "occurrences"), tp_fmt_ps(t, sizeof(t), num(core, "time_ps")));
		if (num(c, "group_size"))
			fprintf(out, ", %s sent", tp_fmt_bytes(r, sizeof(r), (uint64_t)num(core, "ring_bytes")));
		fputc('\n', out);
	}
}

static void totals_text(FILE *out, const json_t *doc)
{
	const json_t *m, *c;
	char t[32], d[32], b[32], tb[32];
	size_t i;

	fprintf(out, "per module (ring bytes: per device is the most one device sent)\n");
	json_array_foreach(json_object_get(doc, "modules"), i, m)
		fprintf(out, "  %-32s %3" PRId64 " collectives, %" PRId64 " executions, %s, "
			"%s sent per device, %s in total\n", str(m, "name"), num(m, "collectives"),
			num(m, "occurrences"), tp_fmt_ps(t, sizeof(t), num(m, "time_ps")),
			tp_fmt_bytes(b, sizeof(b), (uint64_t)num(m, "ring_bytes_per_device")),
			tp_fmt_bytes(tb, sizeof(tb), (uint64_t)num(m, "ring_bytes_total")));
	fprintf(out, "per core (ring bytes sent; self time of collective ops / device time)\n");
	json_array_foreach(json_object_get(doc, "cores"), i, c)
		fprintf(out, "  %s %s: %s sent; %s of %s (%.2f%%)\n", str(c, "host"), str(c, "plane"),
			tp_fmt_bytes(b, sizeof(b), (uint64_t)num(c, "ring_bytes")),
			tp_fmt_ps(t, sizeof(t), num(c, "collective_ps")),
			tp_fmt_ps(d, sizeof(d), num(c, "device_ps")),
			num(c, "device_ps") > 0 ? 100.0 * (double)num(c, "collective_ps") /
							  (double)num(c, "device_ps") : 0.0);
}

enum tp_err tp_collectives_doc_text(FILE *out, const json_t *doc, struct tp_error *err)
{
	const json_t *list = json_object_get(doc, "collectives"), *c, *h;
	const json_t *host = json_object_get(doc, "host_collectives");
	char t[32];
	size_t i;

	if (!json_array_size(list) && !json_array_size(host))
		fprintf(out, "no collectives in this capture\n");
	json_array_foreach(list, i, c) {
		coll_text(out, c);
		fputc('\n', out);
	}
	if (json_array_size(host)) {
		fprintf(out, "no HLO modules; host collective events (TF):\n");
		json_array_foreach(host, i, h)
			fprintf(out, "  %s %s\n    %s  %s\n", str(h, "host"), str(h, "line"),
				tp_fmt_ps(t, sizeof(t), num(h, "duration_ps")), str(h, "name"));
	} else if (json_array_size(list)) {
		totals_text(out, doc);
	}
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
