/*
 * collectives_text.c - `tpuprof collectives` for people.
 */
#include "tpuprof/report/ops_report.h"

#include <inttypes.h>
#include <stdlib.h>

/* The share of the interconnect one way (half its both-directions
 * figure), when the device is known. */
static void link_share(FILE *out, const struct tp_collectives *c,
		       const struct tp_collective *col)
{
	const struct tp_device_row *row = c->ops.cores[col->cores[0].core].device.row;
	const char *why;
	double share;

	if (!row)
		return;
	if (tp_collective_link_share(c, col, &share, &why))
		fprintf(out, " = %.1f%% of %s (%.0f GB/s each way per device)", 100.0 * share,
			row->interconnect, tp_collective_link_each_way(c, col) / 1e9);
	else if (why)
		fprintf(out, " = n/a of %s (%s)", row->interconnect, why);
}

/* Groups that name devices beyond the capture's: a host's share of a
 * larger job (its other hosts' devices are not in the file). */
static void outside_text(FILE *out, const struct tp_capture *cap, const struct tp_collective *col)
{
	size_t devices = tp_capture_devices(cap);
	int64_t lo, hi;
	size_t n = tp_collective_ids_outside(col, devices, &lo, &hi);
	char ids[64];

	if (!n)
		return;
	if (lo == hi)
		snprintf(ids, sizeof(ids), "id %" PRId64, lo);
	else
		snprintf(ids, sizeof(ids), "ids %" PRId64 "..%" PRId64, lo, hi);
	fprintf(out, "  outside  the groups name %zu device%s the capture does not have (%s; it\n"
		"           holds %zu, ids 0..%zu): the job spans hosts that were not captured;\n"
		"           the figures below are of the devices it holds\n", n, n == 1 ? "" : "s",
		ids, devices, devices - 1);
}

static void coll_text(FILE *out, const struct tp_capture *cap,
		      const struct tp_collectives *c, const struct tp_collective *col)
{
	const struct tp_hlo_index *idx = &c->ops.index[col->module];
	const Xla__HloInstructionProto *ins = idx->instrs[col->instr].proto;
	struct tp_str mod = tp_module_name(&cap->modules[col->module]);
	char b[32], r[32], t[32];
	struct tp_strbuf sb;
	double bw;

	tp_strbuf_init(&sb);
	if (ins->shape)
		tp_shape_format(&sb, ins->shape);
	fprintf(out, "%s (%s) in %.*s%s%s\n", ins->name, col->kind, (int)mod.len, TP_SPTR(mod),
		col->fusion >= 0 ? ", inside fusion " : "",
		col->fusion >= 0 ? idx->instrs[col->fusion].proto->name : "");
	fprintf(out, "  shape    %s\n  payload  %s (%" PRIu64 " B)\n", sb.buf,
		tp_fmt_bytes(b, sizeof(b), col->bytes), col->bytes);
	if (col->n_pairs && !col->groups.present)
		fprintf(out, "  pairs    %zu source-target pairs", col->n_pairs);
	else
		fprintf(out, "  groups   %s", col->groups.text ? col->groups.text :
				      "(none: all devices)");
	if (col->groups.iota && col->groups.n_groups) {
		char *x = tp_replica_groups_expanded(&col->groups);

		fprintf(out, " = %s", x);
		free(x);
	}
	fprintf(out, "\n  mode     %s, group size %" PRIu64 "\n", col->mode, col->group_size);
	outside_text(out, cap, col);
	if (col->group_size)
		fprintf(out, "  ring     %s sent per device per execution\n",
			tp_fmt_bytes(r, sizeof(r), col->ring_bytes));
	fprintf(out, "  ran      %" PRIu64 "x, %s on device%s", col->occurrences,
		tp_fmt_ps(t, sizeof(t), col->time_ps),
		col->timed_as_fusion ? " (the enclosing fusion's time)" : "");
	if (col->done >= 0)
		fprintf(out, "; start to done %s", tp_fmt_ps(t, sizeof(t), col->span_ps));
	if (tp_collective_rate(col, &bw)) {
		/* decimal GB/s, as device sheets and the device table give it */
		fprintf(out, ", %.1f GB/s achieved per device", bw / 1e9);
		link_share(out, c, col);
	} else if (col->done >= 0 && col->occurrences) {
		fprintf(out, ", no rate (no -start was followed by its -done on a core)");
	}
	fprintf(out, "\n  scope    %s\n", tp_hlo_scope(ins));
	for (size_t i = 0; i < col->n_cores; i++) {
		const struct tp_ops_core *oc = &c->ops.cores[col->cores[i].core];

		fprintf(out, "    %s %.*s: %" PRIu64 "x, %s", cap->hosts[oc->host].name,
			(int)oc->plane->name.len, TP_SPTR(oc->plane->name),
			col->cores[i].occurrences,
			tp_fmt_ps(t, sizeof(t), col->cores[i].time_ps));
		if (col->group_size)
			fprintf(out, ", %s sent", tp_fmt_bytes(r, sizeof(r),
							       tp_collective_core_bytes(col, i)));
		fputc('\n', out);
	}
	tp_strbuf_release(&sb);
}

static void totals_text(FILE *out, const struct tp_capture *cap,
			const struct tp_collectives *c)
{
	char t[32], d[32], b[32], tb[32];

	fprintf(out, "per module (ring bytes: per device is the most one device sent)\n");
	for (size_t i = 0; i < c->n_modules; i++) {
		const struct tp_coll_module *m = &c->modules[i];
		struct tp_str name = tp_module_name(&cap->modules[m->module]);

		fprintf(out, "  %-32.*s %3zu collectives, %" PRIu64 " executions, %s, "
			"%s sent per device, %s in total\n",
			(int)name.len, TP_SPTR(name), m->collectives, m->occurrences,
			tp_fmt_ps(t, sizeof(t), m->time_ps),
			tp_fmt_bytes(b, sizeof(b), m->ring_bytes_per_device),
			tp_fmt_bytes(tb, sizeof(tb), m->ring_bytes_total));
	}
	fprintf(out, "per core (ring bytes sent; self time of collective ops / device time)\n");
	for (size_t i = 0; i < c->ops.n_cores; i++) {
		const struct tp_ops_core *oc = &c->ops.cores[i];

		fprintf(out, "  %s %.*s: %s sent; %s of %s (%.2f%%)\n", cap->hosts[oc->host].name,
			(int)oc->plane->name.len, TP_SPTR(oc->plane->name),
			tp_fmt_bytes(b, sizeof(b), c->core_ring_bytes[i]),
			tp_fmt_ps(t, sizeof(t), oc->collective_ps),
			tp_fmt_ps(d, sizeof(d), oc->device_ps),
			oc->device_ps > 0 ? 100.0 * (double)oc->collective_ps / (double)oc->device_ps : 0.0);
	}
}

static void host_text(FILE *out, const struct tp_capture *cap,
		      const struct tp_collectives *c)
{
	char t[32];

	fprintf(out, "no HLO modules; host collective events (TF):\n");
	for (size_t i = 0; i < c->n_host; i++) {
		const struct tp_host_collective *h = &c->host[i];

		fprintf(out, "  %s %.*s\n    %s  %.*s\n", cap->hosts[h->host].name,
			(int)h->line.len, TP_SPTR(h->line), tp_fmt_ps(t, sizeof(t), h->dur_ps),
			(int)h->name.len, TP_SPTR(h->name));
	}
}

enum tp_err tp_collectives_text(FILE *out, const struct tp_capture *cap,
				const struct tp_collectives *c, struct tp_error *err)
{
	if (!c->n && !c->n_host)
		fprintf(out, "no collectives in this capture\n");
	for (size_t i = 0; i < c->n; i++) {
		coll_text(out, cap, c, &c->v[i]);
		fputc('\n', out);
	}
	if (c->n_host)
		host_text(out, cap, c);
	else if (c->n)
		totals_text(out, cap, c);
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
