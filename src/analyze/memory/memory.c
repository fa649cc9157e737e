/*
 * memory.c - the `memory` analysis over a whole capture: each distinct
 * program analyzed once, device cores mapped to the programs that ran on
 * them (the `XLA Modules` line, or the program_id of GPU kernels), the
 * runtime timeline per device memory, capacity and warnings.
 */
#include "memory_internal.h"
#include "tpuprof/util/parallel.h"

#include "tpuprof/analyze/common/device_plane.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void warn(struct tp_memory *mem, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct tp_memory *mem, const char *fmt, ...)
{
	va_list ap;
	char line[1024];

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	mem->warnings = tp_xgrow(mem->warnings, &mem->cap_warnings,
				 mem->n_warnings + 1, sizeof(*mem->warnings));
	mem->warnings[mem->n_warnings++] = tp_xstrdup(line);
}

static bool is_core(const struct tp_plane *pl)
{
	return pl->kind == TP_PLANE_TPU || pl->kind == TP_PLANE_GPU;
}

/* The modules to analyse, one slot each, analysed on every thread: each
 * reads only its own decoded HLO and writes only its slot; and, as one
 * more item beside them, the runtime allocator's events (host lines). */
struct module_slots {
	struct tp_memory *mem;
	const struct tp_capture *cap;
	struct tp_module **module;       /* by slot                     */
	const struct tp_mem_options *opt;
	struct tp_error *err;            /* by slot                     */
	enum tp_err *rc;
};

static void analyze_slot(void *ctx, size_t i, unsigned worker)
{
	struct module_slots *s = ctx;

	(void)worker;
	if (i == s->mem->n_modules)
		tp_mem_runtime_build(&s->mem->runtime, s->cap);
	else
		s->rc[i] = tp_mem_module_analyze(&s->mem->modules[i], s->module[i], s->opt,
						 &s->err[i]);
}

static enum tp_err analyze_modules(struct tp_memory *mem, struct tp_capture *cap,
				   const struct tp_mem_options *opt,
				   const struct tp_selection *sel, struct tp_error *err)
{
	struct module_slots s = { mem, cap, NULL, opt, NULL, NULL };
	bool *want = tp_xcalloc(cap->n_modules + 1, sizeof(*want));
	enum tp_err rc;

	mem->modules = tp_xcalloc(cap->n_modules + 1, sizeof(*mem->modules));
	s.module = tp_xcalloc(cap->n_modules + 1, sizeof(*s.module));
	/* the selected modules decoded at once, then taken in order */
	for (size_t i = 0; i < cap->n_modules; i++)
		want[i] = tp_selection_module(sel, i);
	rc = tp_capture_decode_modules(cap, want, err);
	free(want);
	for (size_t i = 0; i < cap->n_modules && rc == TP_OK; i++) {
		struct tp_module *m = &cap->modules[i];
		bool dup = false;

		if (!tp_selection_module(sel, i) || m->damaged)
			continue;
		for (size_t j = 0; j < mem->n_modules && !dup; j++)
			dup = s.module[j]->program_id == m->program_id;
		if (!dup) /* every host of a pod embeds the same programs */
			s.module[mem->n_modules++] = m;
	}
	s.err = tp_xcalloc(mem->n_modules + 1, sizeof(*s.err));
	s.rc = tp_xcalloc(mem->n_modules + 1, sizeof(*s.rc));
	if (rc == TP_OK)
		tp_parallel_for(mem->n_modules + 1, 0, analyze_slot, &s);
	for (size_t i = 0; i < mem->n_modules && rc == TP_OK; i++)
		if ((rc = s.rc[i]) != TP_OK)
			*err = s.err[i];
	free(s.module);
	free(s.err);
	free(s.rc);
	return rc;
}

static void add_program_runs(struct tp_mem_core *c, uint64_t id, uint64_t runs)
{
	for (size_t i = 0; i < c->n_programs; i++)
		if (c->programs[i] == id) {
			c->runs[i] += runs;
			return;
		}
	c->programs = tp_xrealloc(c->programs, (c->n_programs + 1) * sizeof(*c->programs));
	c->runs = tp_xrealloc(c->runs, (c->n_programs + 1) * sizeof(*c->runs));
	c->programs[c->n_programs] = id;
	c->runs[c->n_programs++] = runs;
}

static void add_program(struct tp_mem_core *c, uint64_t id)
{
	add_program_runs(c, id, 1);
}

/* The entries of a line another pass counted (tp_mem_known_programs,
 * sorted by line), or NULL when it did not read the line. */
static const struct tp_mem_line_program *
known_line(const struct tp_mem_known_programs *k, const struct tp_line *ln, size_t *n)
{
	size_t lo = 0, hi = k ? k->n : 0, first;

	while (lo < hi) { /* the first entry of ln or after it */
		size_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)k->entries[mid].line < (uintptr_t)ln)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!k || lo == k->n || k->entries[lo].line != ln)
		return NULL;
	first = lo;
	while (lo < k->n && k->entries[lo].line == ln)
		lo++;
	*n = lo - first;
	return &k->entries[first];
}

/* GPU kernels name their program in a stat: read in bulk (as
 * tp_event_stat finds it: on the event, else on its metadata), up to
 * the first event the bulk reader leaves to tp_event_iter_next. */
static void gpu_programs_bulk(struct tp_mem_core *c, const struct tp_plane *pl,
			      struct tp_event_iter *it, struct tp_event_batch *b)
{
	struct tp_batch_keys keys;
	size_t n;

	memset(&keys, 0, sizeof(keys));
	keys.keep_on[0] = true;
	keys.keep[0] = pl->known_stat_id[TP_SN_PROGRAM_ID];
	while ((n = tp_event_iter_batch_keyed(it, &keys, b)) > 0)
		for (size_t i = 0; i < n; i++) {
			const struct tp_event_meta *em = &pl->event_meta[b->meta[i]];
			const struct tp_stat *s;
			int64_t v;

			if (b->kind[0][i] != TP_STAT_NONE) {
				if (b->kind[0][i] != TP_STAT_REF)
					add_program(c, b->value[0][i]);
			} else if ((s = tp_stats_find(pl, em->stats, em->n_stats,
						      TP_SN_PROGRAM_ID)) &&
				   tp_stat_int(s, &v)) {
				add_program(c, (uint64_t)v);
			}
		}
}

/* The lines programs_of reads: "XLA Modules", and a GPU plane's kernel
 * lines where its kernels carry program ids. */
static bool reads_line(const struct tp_plane *pl, const struct tp_line *ln)
{
	return tp_str_eq(ln->name, "XLA Modules") ||
	       (pl->kind == TP_PLANE_GPU && pl->known_stat[TP_SN_PROGRAM_ID]);
}

bool tp_memory_lines_scanned(const struct tp_capture *cap)
{
	for (size_t h = 0; h < cap->n_hosts; h++)
		for (size_t p = 0; p < cap->hosts[h].xs.n_planes; p++) {
			const struct tp_plane *pl = &cap->hosts[h].xs.planes[p];

			for (size_t l = 0; l < pl->n_lines; l++)
				if (!pl->lines[l].scanned && reads_line(pl, &pl->lines[l]))
					return false;
		}
	return true;
}

/* Programs that ran on a core: "XLA Modules" events are named
 * "<module>(<program id>)"; GPU kernels carry a program_id stat. */
static void programs_of(struct tp_mem_core *c, const struct tp_host *h,
			const struct tp_mem_known_programs *known)
{
	const struct tp_plane *pl = c->plane;
	struct tp_event_batch *b = tp_xmalloc(sizeof(*b));

	for (size_t l = 0; l < pl->n_lines; l++) {
		const struct tp_line *ln = &pl->lines[l];
		bool modules_line = tp_str_eq(ln->name, "XLA Modules");
		const struct tp_mem_line_program *k;
		struct tp_event_iter it;
		struct tp_event ev;
		size_t nk;

		if (!reads_line(pl, ln))
			continue;
		if (!modules_line && (k = known_line(known, ln, &nk))) {
			for (size_t i = 0; i < nk; i++)
				if (k[i].runs)
					add_program_runs(c, k[i].id, k[i].runs);
			continue;
		}
		/* a read to the end: it scans a line opening deferred */
		tp_event_iter_init_read(&it, &h->xs, pl, ln);
		for (;;) {
			struct tp_stat st;
			uint64_t id;
			int64_t v;

			if (!modules_line)
				gpu_programs_bulk(c, pl, &it, b);
			if (tp_event_iter_next(&it, &ev) <= 0)
				break;
			if (modules_line && ev.meta && tp_parse_paren_id(ev.meta->name, &id))
				add_program(c, id);
			else if (!modules_line && tp_event_stat(&h->xs, pl, &ev, TP_SN_PROGRAM_ID, &st) &&
				 tp_stat_int(&st, &v))
				add_program(c, (uint64_t)v);
		}
	}
	free(b);
}

static void fill_core(struct tp_memory *mem, struct tp_mem_core *c,
		      const struct tp_host *h, const struct tp_memory_filter *f)
{
	struct tp_device_hints hints = { f->device, f->hbm, 0 };

	c->top_module = -1;
	for (size_t i = 0; i < c->n_programs; i++)
		for (size_t j = 0; j < mem->n_modules; j++)
			if (mem->modules[j].module->program_id == c->programs[i] &&
			    (c->top_module < 0 || mem->modules[j].peak > mem->modules[c->top_module].peak))
				c->top_module = (long)j;
	c->runtime = tp_mem_runtime_device_of(&mem->runtime, c->host, c->plane);
	hints.allocator_capacity = tp_mem_runtime_capacity_of(&mem->runtime, c->host, c->plane);
	/* --hbm, memory_size, the allocator's capacity, the device table */
	tp_device_resolve_plane(c->plane, &hints, &c->device);
	c->capacity = c->device.capacity.source ? (uint64_t)c->device.capacity.value : 0;
}

struct programs_pool {
	struct tp_mem_core *cores;
	const struct tp_capture *cap;
	const struct tp_mem_known_programs *known;
};

static void programs_job(void *ctx, size_t i, unsigned worker)
{
	const struct programs_pool *pool = ctx;
	struct tp_mem_core *c = &pool->cores[i];

	(void)worker;
	programs_of(c, &pool->cap->hosts[c->host], pool->known);
}

static void map_cores(struct tp_memory *mem, struct tp_capture *cap,
		      const struct tp_memory_filter *f, const struct tp_selection *sel,
		      const struct tp_mem_known_programs *known)
{
	struct programs_pool pool;
	size_t n = 0;

	for (size_t h = 0; h < cap->n_hosts; h++)
		for (size_t p = 0; p < cap->hosts[h].xs.n_planes; p++)
			n += is_core(&cap->hosts[h].xs.planes[p]);
	mem->cores = tp_xcalloc(n + 1, sizeof(*mem->cores));
	for (size_t h = 0; h < cap->n_hosts; h++) {
		const struct tp_host *host = &cap->hosts[h];

		for (size_t p = 0; p < host->xs.n_planes; p++) {
			const struct tp_plane *pl = &host->xs.planes[p];
			struct tp_mem_core *c;

			if (!is_core(pl) || !tp_selection_plane(sel, h, pl))
				continue;
			c = &mem->cores[mem->n_cores++];
			c->host = h;
			c->plane = pl;
		}
	}
	/* each core reads its own plane's lines: in parallel */
	pool.cores = mem->cores;
	pool.cap = cap;
	pool.known = known;
	tp_parallel_for(mem->n_cores, 0, programs_job, &pool);
	for (size_t i = 0; i < mem->n_cores; i++)
		fill_core(mem, &mem->cores[i], &cap->hosts[mem->cores[i].host], f);
}

/* Programs that ran on no core: near or over the capacity --hbm or
 * --device give them, said as a core's peak is. */
static void module_warnings(struct tp_memory *mem)
{
	for (size_t i = 0; i < mem->n_modules; i++) {
		const struct tp_mem_module *m = &mem->modules[i];
		const struct tp_device_figures *dev;
		struct tp_mem_headroom h;
		uint64_t cap;
		struct tp_str n = tp_module_name(m->module);

		if (!tp_mem_module_headroom(mem, m, &h, &cap, &dev) || dev != &mem->loose_device)
			continue;
		if (h.bytes < 0)
			warn(mem, "module %.*s(%" PRIu64 "): peak %" PRIu64 " bytes does not fit its "
			     "capacity of %" PRIu64 " bytes: %" PRIu64 " bytes over",
			     (int)n.len, n.ptr, m->module->program_id, m->peak, cap,
			     (uint64_t)-h.bytes);
		else if (m->peak * 10 > cap * 9)
			warn(mem, "module %.*s(%" PRIu64 "): peak %" PRIu64 " bytes is %.1f%% of its %"
			     PRIu64 " bytes", (int)n.len, n.ptr, m->module->program_id, m->peak,
			     100.0 * (double)m->peak / (double)cap, cap);
	}
}

static void core_warnings(struct tp_memory *mem, const struct tp_capture *cap)
{
	for (size_t i = 0; i < mem->n_cores; i++) {
		const struct tp_mem_core *c = &mem->cores[i];
		uint64_t peak = c->top_module >= 0 ? mem->modules[c->top_module].peak : 0;

		if (c->runtime >= 0 && mem->runtime.devices[c->runtime].peak_bytes > 0 &&
		    (uint64_t)mem->runtime.devices[c->runtime].peak_bytes > peak)
			peak = (uint64_t)mem->runtime.devices[c->runtime].peak_bytes;
		if (c->capacity && mem->color == 0 && peak * 10 > c->capacity * 9)
			warn(mem, "%s %.*s: peak %" PRIu64 " bytes is %.1f%% of its %" PRIu64 " bytes",
			     cap->hosts[c->host].name, (int)c->plane->name.len, c->plane->name.ptr,
			     peak, 100.0 * (double)peak / (double)c->capacity, c->capacity);
	}
	for (size_t i = 0; i < mem->runtime.n_devices; i++) {
		const struct tp_mem_device *d = &mem->runtime.devices[i];

		if (d->damaged)
			warn(mem, "%s memory %s: %" PRIu64 " of %" PRIu64 " allocator events have negative "
			     "byte counts (a damaged capture): left out of the runtime peak%s",
			     cap->hosts[d->host].name, d->id, d->damaged,
			     d->allocations + d->deallocations,
			     d->has_peak ? "" : ", which is unknown");
	}
	for (size_t i = 0; i < mem->n_modules; i++)
		if (mem->modules[i].error) {
			struct tp_str n = tp_module_name(mem->modules[i].module);

			warn(mem, "module %.*s(%" PRIu64 "): no compiler timeline: %s",
			     (int)n.len, n.ptr, mem->modules[i].module->program_id,
			     mem->modules[i].error);
		}
}

/* The selection the caller made (report makes one for every analysis),
 * or one made here from the filter's names. */
static enum tp_err selection_of(struct tp_capture *cap, const struct tp_memory_filter *f,
				struct tp_selection *own, const struct tp_selection **sel,
				struct tp_error *err)
{
	enum tp_err rc = TP_OK;

	if (f->selection) {
		*sel = f->selection;
		return TP_OK;
	}
	rc = tp_selection_make(own, cap, f->host, f->core, f->module, err);
	*sel = own;
	return rc;
}

/* The cores: the programs each ran (with opt->known), their figures,
 * the warnings; then the hosts' pages dropped unless kept. */
enum tp_err tp_memory_build_cores(struct tp_memory *mem, struct tp_capture *cap,
				  const struct tp_mem_options *opt,
				  const struct tp_memory_filter *f, struct tp_error *err)
{
	struct tp_selection own = { 0 };
	const struct tp_selection *sel;
	enum tp_err rc;

	if ((rc = selection_of(cap, f, &own, &sel, err)) != TP_OK) {
		tp_memory_release(mem);
		return rc;
	}
	map_cores(mem, cap, f, sel, opt->known);
	tp_selection_release(&own);
	core_warnings(mem, cap);
	module_warnings(mem);
	/* what the analysis read of the captures (HLO, metadata, memory
	 * events) is not read again before output: not kept resident
	 * while the ops pass runs */
	for (size_t h = 0; !opt->keep_pages && h < cap->n_hosts; h++)
		tp_capture_drop_host(cap, h);
	return TP_OK;
}

/* A memory space other than HBM that no program's buffer is in reads as
 * peaks of 0 B: said, with the spaces the programs use. */
static void space_warning(struct tp_memory *mem)
{
	uint64_t spaces = 0;
	char list[256] = "";
	size_t n = 0;

	for (size_t i = 0; i < mem->n_modules; i++)
		spaces |= tp_mem_spaces(&mem->modules[i]);
	if (mem->color == 0 || !mem->n_modules ||
	    (mem->color < 64 && (spaces >> mem->color & 1)))
		return;
	for (int c = 0; c < 64; c++)
		if (spaces >> c & 1)
			n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0,
					      "%s%d", n ? ", " : "", c);
	warn(mem, "memory space %lld: no buffer of the %zu program(s) is in it (they use %s): "
	     "its peaks read 0 B", (long long)mem->color, mem->n_modules, spaces ? list : "none");
}

enum tp_err tp_memory_build_programs(struct tp_memory *mem, struct tp_capture *cap,
				     const struct tp_mem_options *opt,
				     const struct tp_memory_filter *f, struct tp_error *err)
{
	struct tp_selection own = { 0 };
	const struct tp_selection *sel;
	enum tp_err rc;

	memset(mem, 0, sizeof(*mem));
	mem->color = opt->color;
	if ((rc = selection_of(cap, f, &own, &sel, err)) != TP_OK)
		return rc;
	rc = analyze_modules(mem, cap, opt, sel, err);
	if (rc == TP_OK)
		space_warning(mem);
	if (rc == TP_OK && opt->n_splits)
		rc = tp_mem_whatif(mem, opt->splits, opt->n_splits, err);
	tp_selection_release(&own);
	if (rc != TP_OK) {
		tp_memory_release(mem);
		return rc;
	}
	if (f->device || f->hbm) {
		/* a dump names no device: only the flags know it */
		struct tp_plane_facts none = { 0 };
		struct tp_device_hints hints = { f->device, f->hbm, 0 };

		tp_device_resolve(&none, &hints, &mem->loose_device);
	}
	return TP_OK;
}

enum tp_err tp_memory_build(struct tp_memory *mem, struct tp_capture *cap,
			    const struct tp_mem_options *opt,
			    const struct tp_memory_filter *f, struct tp_error *err)
{
	enum tp_err rc = tp_memory_build_programs(mem, cap, opt, f, err);

	return rc == TP_OK ? tp_memory_build_cores(mem, cap, opt, f, err) : rc;
}

void tp_memory_release(struct tp_memory *mem)
{
	for (size_t i = 0; i < mem->n_modules; i++)
		tp_mem_module_release(&mem->modules[i]);
	for (size_t i = 0; i < mem->n_cores; i++) {
		free(mem->cores[i].programs);
		free(mem->cores[i].runs);
	}
	for (size_t i = 0; i < mem->n_warnings; i++)
		free(mem->warnings[i]);
	free(mem->warnings);
	free(mem->modules);
	free(mem->cores);
	tp_mem_runtime_release(&mem->runtime);
	memset(mem, 0, sizeof(*mem));
}


