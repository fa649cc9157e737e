/*
 * info_text.c - `tpuprof info` for people: one block per host, every
 * plane and line with its event count and span, the HLO modules, and the
 * warnings that say which analyses the capture cannot support.
 */
#include "tpuprof/report/report.h"

#include <inttypes.h>
#include <string.h>

static void print_versions(FILE *out, const struct tp_info_host *ih)
{
	bool any = false;

	for (size_t i = 0; i < ih->n_versions; i++) {
		struct tp_str n = ih->versions[i].name, v = ih->versions[i].value;

		if (tp_str_eq(n, "device_type_string") || tp_str_eq(n, "device_vendor"))
			continue; /* already in the device line */
		fprintf(out, "%s%.*s %.*s", any ? ", " : "  versions     ",
			(int)n.len, n.ptr, (int)v.len, v.ptr);
		any = true;
	}
	if (any)
		fputc('\n', out);
}

static void print_line(FILE *out, const struct tp_line *ln)
{
	char span[32];

	fprintf(out, "      %-28.*s %10" PRIu64 " events", (int)ln->name.len,
		ln->name.ptr, ln->n_events);
	if (ln->has_span)
		fprintf(out, "  span %s",
			tp_fmt_ps(span, sizeof(span),
				  tp_sat_sub(ln->last_end_ps, ln->first_start_ps)));
	if (ln->n_aggregated)
		fprintf(out, "  (%" PRIu64 " aggregated)", ln->n_aggregated);
	fputc('\n', out);
}

static void print_planes(FILE *out, const struct tp_host *h)
{
	fprintf(out, "  planes\n");
	for (size_t p = 0; p < h->xs.n_planes; p++) {
		const struct tp_plane *pl = &h->xs.planes[p];
		uint64_t events = 0;

		for (size_t l = 0; l < pl->n_lines; l++)
			events += pl->lines[l].n_events;
		fprintf(out, "    %-32.*s %-16s id %-6" PRId64 " %3zu lines %10" PRIu64 " events\n",
			(int)pl->name.len, pl->name.ptr, tp_plane_kind_name(pl->kind),
			pl->id, pl->n_lines, events);
		for (size_t l = 0; l < pl->n_lines; l++)
			print_line(out, &pl->lines[l]);
	}
}

static void print_modules(FILE *out, const struct tp_info_module *mods, size_t n)
{
	if (!n)
		return;
	fprintf(out, "  modules (%zu)\n", n);
	fprintf(out, "    %-22s %-32s %7s %7s %5s %s\n", "PROGRAM ID", "NAME",
		"INSTRS", "FUSIONS", "COLL", "BUFFER ASSIGNMENT");
	for (size_t i = 0; i < n; i++) {
		const struct tp_module *m = mods[i].module;
		const struct tp_hlo_counts *c = &mods[i].counts;
		struct tp_str name = tp_module_name(m);

		fprintf(out, "    %-22" PRIu64 " %-32.*s %7zu %7zu %5zu ",
			m->program_id, (int)name.len, name.ptr, c->instructions,
			c->fusions, c->collectives);
		if (c->has_buffer_assignment)
			fprintf(out, "yes (%zu buffers, %zu heap events)\n",
				c->logical_buffers, c->heap_events);
		else
			fprintf(out, "no\n");
	}
}

static void print_host(FILE *out, const struct tp_capture *cap,
		       const struct tp_info *info, const struct tp_info_host *ih)
{
	const struct tp_host *h = ih->host;
	const struct tp_source *src = &cap->sources[h->source];
	char a[64], b[64];
	uint64_t events = 0;

	for (size_t p = 0; p < h->xs.n_planes; p++)
		for (size_t l = 0; l < h->xs.planes[p].n_lines; l++)
			events += h->xs.planes[p].lines[l].n_events;
	fprintf(out, "host %s\n", h->name);
	fprintf(out, "  source       %s (%s%s, %s)\n", src->path,
		src->gzip ? "gzip " : "", tp_source_kind_name(src->kind),
		tp_fmt_bytes(a, sizeof(a), src->file_bytes));
	if (src->chunked)
		fprintf(out, "  chunked      Riegeli: %" PRIu64 " chunks, %" PRIu64
			" records, %" PRIu64 " damaged regions\n", src->chunks,
			src->records, src->damaged_regions);
	fprintf(out, "  device       %s, %" PRIu64 " device planes (%" PRIu64 " with events)\n",
		ih->device_type ? ih->device_type : "unknown",
		ih->device_planes, ih->device_planes_with_events);
	print_versions(out, ih);
	if (ih->has_task_env && ih->has_capture_ps)
		fprintf(out, "  capture      %s, %s\n",
			tp_fmt_utc_ns(a, sizeof(a), ih->profile_start_ns),
			tp_fmt_ps(b, sizeof(b), tp_info_capture_ps(ih)));
	fprintf(out, "  events       %" PRIu64 "; runtime memory %" PRIu64 " allocations, %" PRIu64
		" deallocations; %" PRIu64 " collective executions\n",
		events, ih->memory_allocations, ih->memory_deallocations,
		ih->collective_events);
	print_planes(out, h);
	print_modules(out, &info->modules[ih->first_module], ih->n_modules);
}

enum tp_err tp_info_text(FILE *out, const struct tp_capture *cap,
			 const struct tp_info *info, struct tp_error *err)
{
	for (size_t i = 0; i < info->n_hosts; i++) {
		if (i)
			fputc('\n', out);
		print_host(out, cap, info, &info->hosts[i]);

	}
	for (size_t i = 0; i < info->n_modules; i++) {
		const struct tp_info_module *im = &info->modules[i];

		if (im->module->host >= 0)
			continue;
		fprintf(out, "%s%s (%s)\n", info->n_hosts ? "\n" : "",
			im->module->path,
			im->module->origin == TP_MODULE_XLA_DUMP ? "XLA dump, HloProto"
								 : "HloProto");
		print_modules(out, im, 1);
	}
	for (size_t i = 0; i < cap->n_notes; i++)
		fprintf(out, "note: %s\n", cap->notes[i]);
	if (info->n_warnings)
		fprintf(out, "\nwarnings\n");
	for (size_t i = 0; i < info->n_warnings; i++)
		fprintf(out, "  %s\n", info->warnings[i]);
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
