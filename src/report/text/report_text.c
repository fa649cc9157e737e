/*
 * report_text.c - `tpuprof report` for people: one screen right after a
 * run. The capture; per core the memory peak, its headroom and what holds
 * it; the ops and scopes that take the time; collective traffic and its
 * share of device time; warnings. Each part points to the command that
 * shows everything.
 */
#include "tpuprof/report/memory_report.h"
#include "tpuprof/report/ops_report.h"
#include "tpuprof/report/report_doc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TOP 5

static char slot[4][32];
#define BYTES(i, v) tp_fmt_bytes(slot[i], sizeof(slot[i]), (v))
#define PS(i, v) tp_fmt_ps(slot[i], sizeof(slot[i]), (v))

static void capture_line(FILE *out, const struct tp_capture *cap, const struct tp_report *r)
{
	const struct tp_info_host *h = r->info.n_hosts ? &r->info.hosts[0] : NULL;
	uint64_t devices = 0;

	for (size_t i = 0; i < r->info.n_hosts; i++)
		devices += r->info.hosts[i].device_planes_with_events;
	if (!h) {
		fprintf(out, "capture   %zu compiled program(s), no trace\n", r->info.n_modules);
		return;
	}
	fprintf(out, "capture   %s%s, %zu host(s), %" PRIu64 " busy device(s)", h->host->name,
		r->info.n_hosts > 1 ? " and others" : "", r->info.n_hosts, devices);
	/* every kind the hosts ran on, in host order: a TPU and a GPU
	 * capture read together are not "TPU" alone */
	for (size_t i = 0, shown = 0; i < r->info.n_hosts; i++) {
		const char *k = r->info.hosts[i].device_type;
		bool seen = !k;

		for (size_t j = 0; !seen && j < i; j++)
			seen = r->info.hosts[j].device_type &&
			       strcmp(r->info.hosts[j].device_type, k) == 0;
		if (!seen)
			fprintf(out, "%s%s", shown++ ? " and " : ", ", k);
	}
	if (h->has_task_env && h->has_capture_ps)
		fprintf(out, ", %s, %s", tp_fmt_utc_ns(slot[0], sizeof(slot[0]), h->profile_start_ns),
			PS(1, tp_info_capture_ps(h)));
	fputc('\n', out);
	(void)cap;
}

/* Where the picture splits: walk down while one child holds nearly all
 * of its parent, so the scopes listed say more than "jit(f)". */
static size_t focus(const struct tp_scope_tree *t)
{
	size_t n = 0;

	while (t->nodes[n].n_children) {
		const struct tp_scope_node *big = &t->nodes[t->nodes[n].children[0]];

		if (big->inclusive < t->nodes[n].inclusive / 20 * 19 || !big->n_children)
			break;
		n = t->nodes[n].children[0];
	}
	return n;
}

static void list_scopes(FILE *out, const struct tp_scope_tree *t, int64_t whole, bool ps)
{
	const struct tp_scope_node *f;

	if (!t->n)
		return;
	f = &t->nodes[focus(t)];
	for (size_t i = 0; i < f->n_children && i < 3; i++) {
		const struct tp_scope_node *c = &t->nodes[f->children[i]];

		fprintf(out, "  %10s %5.1f%%  scope %s\n",
			ps ? PS(0, c->inclusive) : BYTES(0, (uint64_t)c->inclusive),
			whole ? 100.0 * (double)c->inclusive / (double)whole : 0.0,
			c->path[0] ? c->path : "(no scope)");
	}
}

/* qsort has no context argument: the module sorted, per thread */
static _Thread_local const struct tp_mem_module *sort_module;

/* Largest first; ties by the buffer's id (JSON canonical_buffer_id), so
 * a saved report's page lists them in the same order. */
static int live_by_size(const void *a, const void *b)
{
	const struct tp_mem_live *x = a, *y = b;
	int64_t ix = sort_module->buffers[x->buffer].id, iy = sort_module->buffers[y->buffer].id;

	return x->size != y->size ? (x->size > y->size ? -1 : 1) : (ix > iy) - (ix < iy);
}

/* The largest buffers and scopes at the peak of module m. */
static void peak_holders(FILE *out, const struct tp_mem_module *m)
{
	struct tp_mem_live *s = tp_xmalloc((m->n_live + 1) * sizeof(*s));
	size_t n = m->n_live < 3 ? m->n_live : 3;

	if (m->n_live)
		memcpy(s, m->live, m->n_live * sizeof(*s));
	sort_module = m;
	qsort(s, m->n_live, sizeof(*s), live_by_size);
	sort_module = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct tp_mem_buffer *d = &m->buffers[s[i].display];
		const Xla__HloInstructionProto *ins = d->instr >= 0 ? m->idx.instrs[d->instr].proto : NULL;
		struct tp_strbuf sb, name;

		tp_strbuf_init(&sb);
		tp_strbuf_init(&name);
		tp_shape_format(&sb, d->shape);
		/* "fusion.3{1}": a tuple output's buffers told apart */
		tp_mem_buffer_name(&name, m, s[i].display);
		fprintf(out, "  %10s %5.1f%%  buffer %s %s\n", BYTES(0, s[i].size),
			m->peak ? 100.0 * (double)s[i].size / (double)m->peak : 0.0,
			name.buf, sb.buf);
		tp_strbuf_release(&name);
		if (ins && tp_hlo_scope(ins)[0])
			fprintf(out, "                         in %s\n", tp_hlo_scope(ins));
		tp_strbuf_release(&sb);
	}
	if (m->n_live > n) {     /* the rest, so the list is not read as all */
		uint64_t rest = 0;

		for (size_t i = n; i < m->n_live; i++)
			rest += s[i].size;
		fprintf(out, "  %10s %5.1f%%  %zu more buffer%s live at the peak (tpuprof memory "
			"lists every one)\n", BYTES(0, rest),
			m->peak ? 100.0 * (double)rest / (double)m->peak : 0.0, m->n_live - n,
			m->n_live - n == 1 ? "" : "s");
	}
	free(s);
	list_scopes(out, &m->scopes, (int64_t)m->peak, false);
	tp_mem_why_text_tower(out, m);
}

/* Programs that ran on no core (a dump, an HloProto): the capacity only
 * --device or --hbm can give, and whether the highest peak fits it. */
static void program_capacity(FILE *out, const struct tp_memory *mem,
			     const struct tp_mem_module *top)
{
	const struct tp_device_figures *dev;
	struct tp_mem_headroom h;
	uint64_t cap;

	const char *from;

	if (!tp_mem_module_headroom(mem, top, &h, &cap, &dev)) {
		if (!mem->n_cores)
			fprintf(out, "  capacity unknown: a dump or HloProto names no device (give "
				"--device NAME or --hbm SIZE)\n");
		return;
	}
	if (dev != &mem->loose_device)
		return;
	from = dev->capacity.source == TP_FIG_FLAG ? "--hbm" : dev->row ? dev->row->key : "?";
	if (h.bytes >= 0)
		fprintf(out, "  capacity %s (%s): the highest peak leaves %s (%s) free\n",
			BYTES(0, cap), from, tp_fmt_bytes_down(slot[1], sizeof(slot[1]), (uint64_t)h.bytes),
			tp_fmt_pct_down(slot[2], sizeof(slot[2]), h.percent));
	else
		fprintf(out, "  DOES NOT FIT: the highest peak is %s over the capacity %s (%s); cut at\n"
			"  least %s of what holds it (below; tpuprof memory has every buffer\n"
			"  and split)\n", BYTES(1, (uint64_t)-h.bytes), BYTES(0, cap), from,
			tp_fmt_bytes_up(slot[2], sizeof(slot[2]), (uint64_t)-h.bytes));
}

static void memory_part(FILE *out, const struct tp_capture *cap, const struct tp_report *r)
{
	const struct tp_memory *mem = &r->memory;
	const struct tp_mem_module *top = NULL;
	size_t unknown = 0;

	fprintf(out, "memory    peak per core (compiler plan | runtime allocator) and headroom\n");
	for (size_t i = 0; i < mem->n_cores; i++) {
		const struct tp_mem_core *c = &mem->cores[i];
		const struct tp_mem_module *m = c->top_module >= 0 ? &mem->modules[c->top_module] : NULL;
		int64_t rt = c->runtime >= 0 ? mem->runtime.devices[c->runtime].peak_bytes : -1;
		struct tp_mem_headroom room;

		fprintf(out, "  %s %.*s  %s | %s", cap->hosts[c->host].name, (int)c->plane->name.len,
			c->plane->name.ptr, m ? BYTES(0, m->peak) : "-", rt >= 0 ? BYTES(1, (uint64_t)rt) : "-");
		if (tp_mem_core_headroom(mem, c, &room) && room.bytes >= 0)
			fprintf(out, " of %s, %s (%s) free", BYTES(2, c->capacity),
				tp_fmt_bytes_down(slot[0], sizeof(slot[0]), (uint64_t)room.bytes),
				tp_fmt_pct_down(slot[1], sizeof(slot[1]), room.percent));
		else if (c->capacity)
			fprintf(out, " of %s, over by %s (%.1f%%)", BYTES(2, c->capacity),
				BYTES(0, (uint64_t)-room.bytes), -room.percent);
		unknown += !c->capacity;
		fputc('\n', out);
	}
	if (unknown)
		fprintf(out, "  capacity unknown for %zu core%s: no memory size in the capture and no known "
			"device (give --device NAME or --hbm SIZE)\n", unknown, unknown == 1 ? "" : "s");
	for (size_t i = 0; i < mem->n_modules; i++)
		if (!top || mem->modules[i].peak > top->peak)
			top = &mem->modules[i];
	if (top) {
		struct tp_str n = tp_module_name(top->module);
		char program[32] = "";

		/* programs sharing a module name are told apart, as in ops */
		if (tp_report_module_name_shared(cap, (size_t)(top->module - cap->modules)))
			snprintf(program, sizeof(program), " #%" PRIu64, top->module->program_id);
		program_capacity(out, mem, top);
		fprintf(out, "  highest compiler peak: %.*s%s, %s at heap event %ld; held by\n",
			(int)n.len, n.ptr, program, BYTES(0, top->peak), top->peak_position);
		peak_holders(out, top);
	}
}

/* Ops summed over cores as `ops` sums them by default (the all-cores
 * view: tp_ops_all), every group's together, most self time first. */
static int by_self(const void *a, const void *b)
{
	const struct tp_op *x = *(const struct tp_op *const *)a, *y = *(const struct tp_op *const *)b;
	size_t n = x->name.len < y->name.len ? x->name.len : y->name.len;
	int c = n ? memcmp(x->name.ptr, y->name.ptr, n) : 0;

	if (x->self_ps != y->self_ps)
		return x->self_ps > y->self_ps ? -1 : 1;
	return c ? c : (x->name.len > y->name.len) - (x->name.len < y->name.len);
}

static size_t merge_ops(const struct tp_ops *ops, struct tp_ops_all *a, const struct tp_op ***out)
{
	const struct tp_op **t;

	tp_ops_all_build(a, ops, TP_SORT_SELF);
	t = tp_xmalloc((a->all.n_ops + 1) * sizeof(*t));
	for (size_t i = 0; i < a->all.n_ops; i++)
		t[i] = &a->all.ops[i];
	qsort(t, a->all.n_ops, sizeof(*t), by_self);
	*out = t;
	return a->all.n_ops;
}

/* No share of a peak over 100%: the arithmetic cannot be right there. */
static const char *share_of_peak(int i, double v)
{
	return v > 1 ? "n/a (above peak)" : tp_fmt_share(slot[i], sizeof(slot[i]), v);
}

/* Over all cores: busy share, FLOP utilization (each op's FLOPs at its
 * peak over the device time) and HBM share; or why not, once. */
static void utilization_line(FILE *out, const struct tp_ops *ops)
{
	double peak_s = 0, hbm_s = 0, device_s = 0, busy_s = 0;
	bool flops_ok = true, hbm_ok = true;
	const char *gap = NULL;

	for (size_t i = 0; i < ops->n_cores; i++) {
		const struct tp_ops_core *c = &ops->cores[i];
		struct tp_work w;

		tp_core_work(ops, c, &w);
		device_s += (double)c->device_ps * 1e-12;
		busy_s += (double)c->self_ps * 1e-12;
		flops_ok = flops_ok && w.has_flops && w.peak_time_ps >= 0;
		hbm_ok = hbm_ok && w.has_bytes && c->device.hbm_bw.source;
		if (flops_ok)
			peak_s += w.peak_time_ps * 1e-12;
		if (hbm_ok)
			hbm_s += w.bytes / c->device.hbm_bw.value;
		if (!gap)
			gap = tp_core_roofline_gap(ops, c);
	}
	if (device_s <= 0)
		return;
	fprintf(out, "  busy %.1f%% of device time", 100.0 * busy_s / device_s);
	/* printed as ops prints them, so one figure reads the same */
	if (flops_ok)
		fprintf(out, ", FLOP utilization %s", share_of_peak(0, peak_s / device_s));
	if (hbm_ok)
		fprintf(out, ", HBM bandwidth %s", share_of_peak(1, hbm_s / device_s));
	if (flops_ok || hbm_ok)
		fprintf(out, " (of peak, over device time)");
	fputc('\n', out);
	if (gap)
		fprintf(out, "  (%s)\n", gap);
}

/* Which clock the cores' figures are on, the clocks' drift where it is
 * over tolerance, and the op time no step holds (a 0% share of step time
 * is then not "none"). */
static void clock_line(FILE *out, const struct tp_ops *ops)
{
	size_t device = 0, drifting = 0, with_steps = 0;
	double lo = 0, hi = 0;
	int64_t part[TP_PARTS] = { 0 }, dev_ps = 0;

	for (size_t i = 0; i < ops->n_cores; i++) {
		const struct tp_ops_core *c = &ops->cores[i];

		device += c->clock == TP_CLOCK_DEVICE;
		dev_ps = tp_sat_add(dev_ps, c->device_ps);
		with_steps += c->n_steps > 0;
		for (int k = 0; k < TP_PARTS; k++)
			part[k] = tp_sat_add(part[k], c->outside_ps[k]);
		if (!tp_ops_core_drifts(c))
			continue;
		lo = !drifting++ || c->drift_lo < lo ? c->drift_lo : lo;
		hi = drifting == 1 || c->drift_hi > hi ? c->drift_hi : hi;
	}
	tp_report_clock_lines(out, &(struct tp_clock_lines){
		ops->n_cores, device, drifting, with_steps, lo, hi, dev_ps,
		part[TP_PART_COMPUTE], part[TP_PART_COLLECTIVE], part[TP_PART_COPY] });
}

void tp_report_clock_lines(FILE *out, const struct tp_clock_lines *c)
{
	char a[32], b[32], d[32], e[32];
	int64_t outside = tp_sat_add(tp_sat_add(c->compute, c->coll), c->copy);

	fprintf(out, "  clock: %s", c->device ? "device" : "timeline");
	if (c->device && c->device < c->n_cores)
		fprintf(out, " on %zu core(s), timeline on %zu", c->device, c->n_cores - c->device);
	fprintf(out, " (every time figure of a core is on its clock)\n");
	if (c->drifting)
		fprintf(out, "  warning: on %zu core(s) the timeline's step spans are %.2fx to %.2fx "
			"the device's: their steps use the device clock\n", c->drifting, c->lo, c->hi);
	if (c->with_steps && outside > 0)
		fprintf(out, "  outside the steps: %s of op time (%.1f%% of device time): compute %s, "
			"collectives %s, copies %s\n", tp_fmt_ps(a, sizeof(a), outside),
			c->dev_ps ? 100.0 * (double)outside / (double)c->dev_ps : 0.0,
			tp_fmt_ps(b, sizeof(b), c->compute), tp_fmt_ps(d, sizeof(d), c->coll),
			tp_fmt_ps(e, sizeof(e), c->copy));
}

static void time_part(FILE *out, const struct tp_capture *cap, const struct tp_report *r)
{
	const struct tp_ops *ops = &r->coll.ops;
	const struct tp_op **t;
	struct tp_ops_all all;
	int64_t device = 0, self = 0;
	size_t n;
	const struct tp_scope_tree *tree = &r->scopes.tree;

	if (!ops->n_cores) {
		fprintf(out, "time      no device trace: compiled programs only\n");
		return;
	}
	n = merge_ops(ops, &all, &t);
	for (size_t i = 0; i < ops->n_cores; i++) {
		device = tp_sat_add(device, ops->cores[i].device_ps);
		self = tp_sat_add(self, ops->cores[i].self_ps);
	}
	/* every share here is of device time over all cores, as ops gives
	 * each op's of its core's device time: one denominator, said once */
	fprintf(out, "time      %zu ops on %zu core(s): op time %s of %s device time "
		"(all cores; the shares below are of it)\n", n,
		ops->n_cores, PS(0, self), PS(1, device));
	utilization_line(out, ops);
	clock_line(out, ops);
	for (size_t i = 0; i < n && i < TOP; i++) {
		struct tp_str mod = tp_report_module_name(cap, t[i]->module);
		char program[32] = "";

		/* programs sharing a module name are told apart, as in ops */
		if (mod.len && tp_report_module_name_shared(cap, t[i]->module))
			snprintf(program, sizeof(program), " #%" PRIu64,
				 cap->modules[t[i]->module].program_id);
		fprintf(out, "  %10s %5.1f%%  op %.*s%s%.*s%s%s x%" PRIu64 "\n", PS(0, t[i]->self_ps),
			device ? 100.0 * (double)t[i]->self_ps / (double)device : 0.0,
			(int)t[i]->name.len, TP_SPTR(t[i]->name), mod.len ? " (" : "",
			(int)mod.len, TP_SPTR(mod), program, mod.len ? ")" : "", t[i]->occurrences);
	}
	list_scopes(out, tree, device, true);
	free(t);
	tp_ops_all_release(&all);
}

static void traffic_part(FILE *out, const struct tp_report *r)
{
	const struct tp_collectives *c = &r->coll;
	uint64_t execs = 0, most = 0, total = 0;
	int64_t coll = 0, device = 0;
	size_t senders = 0;

	for (size_t i = 0; i < c->n; i++)
		execs += c->v[i].occurrences;
	for (size_t i = 0; i < c->ops.n_cores; i++) {
		coll = tp_sat_add(coll, c->ops.cores[i].collective_ps);
		device = tp_sat_add(device, c->ops.cores[i].device_ps);
		total += c->core_ring_bytes[i];
		senders += c->core_ring_bytes[i] > 0;
		if (c->core_ring_bytes[i] > most)
			most = c->core_ring_bytes[i];
	}
	if (!c->ops.n_cores) {
		fprintf(out, "traffic   %zu collective(s) in the programs; none ran\n", c->n);
		return;
	}
	/* per device is the busiest device's bytes, never the sum */
	fprintf(out, "traffic   %zu collective(s), %" PRIu64 " execution(s), ", c->n, execs);
	if (total)
		fprintf(out, "%s sent per device (ring, the most one device sent; %s in total "
			"over %zu device(s)), ", BYTES(0, most), BYTES(1, total), senders);
	else
		fprintf(out, "%s sent per device (ring), ", BYTES(0, 0));
	fprintf(out, "%s = %.1f%% of device time (all cores)\n", PS(2, coll),
		device ? 100.0 * (double)coll / (double)device : 0.0);
	if (c->n_host)
		fprintf(out, "          %zu TF host collective event(s)\n", c->n_host);
}

/* What bounds the time: each rule that fired with its figures, then the
 * names of the others (report --format json has every figure). */
static void advice_part(FILE *out, const struct tp_advice *a)
{
	static const enum tp_advice_verdict rest[] = { TP_ADVICE_NOT_FIRED,
						       TP_ADVICE_NOT_JUDGED };
	size_t fired = 0;

	for (size_t i = 0; i < a->n; i++)
		fired += a->v[i].verdict == TP_ADVICE_FIRED;
	fprintf(out, "advice    %zu of %zu rule(s) fired (docs/ops.md)\n", fired, a->n);
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].verdict == TP_ADVICE_FIRED)
			fprintf(out, "  %s\n", a->v[i].text);
	for (size_t k = 0; k < 2; k++) {
		size_t n = 0;

		for (size_t i = 0; i < a->n; i++) {
			if (a->v[i].verdict != rest[k])
				continue;
			fprintf(out, "%s%s", n++ ? ", " : k ? "  could not be judged: " :
				"  not fired: ", a->v[i].rule);
		}
		if (n)
			fputc('\n', out);
	}
}

enum tp_err tp_report_text(FILE *out, const struct tp_capture *cap,
			   const struct tp_report *r, struct tp_error *err)
{
	capture_line(out, cap, r);
	memory_part(out, cap, r);
	time_part(out, cap, r);
	traffic_part(out, r);
	advice_part(out, &r->advice);
	if (r->info.n_warnings || r->memory.n_warnings)
		fprintf(out, "warnings\n");
	for (size_t i = 0; i < r->info.n_warnings; i++)
		fprintf(out, "  %s\n", r->info.warnings[i]);
	for (size_t i = 0; i < r->memory.n_warnings; i++)
		fprintf(out, "  %s\n", r->memory.warnings[i]);
	fprintf(out, "more: tpuprof memory | ops | collectives | info (--format json for all of it)\n");
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
