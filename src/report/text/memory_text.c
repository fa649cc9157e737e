/*
 * memory_text.c - `tpuprof memory` for people: per core a summary, per
 * module the peak with a sparkline of the heap curve, the largest buffers
 * live at the peak with their shapes spelled out, the scope tree to a
 * chosen depth, what-if estimates; then the runtime peaks. Fits 100
 * columns; shapes are never cut (long ones get a line of their own).
 */
#include "tpuprof/report/device_report.h"
#include "tpuprof/report/memory_report.h"
#include "tpuprof/analyze/common/shape.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SPARK_WIDTH 60

/* Up to three byte counts formatted in one printf. */
static char fmt_slots[4][32];
#define B(i, v) tp_fmt_bytes(fmt_slots[i], sizeof(fmt_slots[i]), (v))

/* One line of block characters; the peak's column is marked below it. */
static void sparkline(FILE *out, const struct tp_mem_module *m)
{
	static const char *const blocks[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t n = m->n_points, w = n < SPARK_WIDTH ? n : SPARK_WIDTH;
	/* heap[0] is before the first event: the peak is heap[position + 1] */
	size_t peak_col = (size_t)(m->peak_position + 1) * w / (n ? n : 1);

	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		lo = m->heap[i] < lo ? m->heap[i] : lo;
		hi = m->heap[i] > hi ? m->heap[i] : hi;
	}
	fprintf(out, "    heap   |");
	for (size_t c = 0; c < w; c++) {
		uint64_t v = 0;

		for (size_t i = c * n / w; i < (c + 1) * n / w; i++)
			v = m->heap[i] > v ? m->heap[i] : v;
		fputs(blocks[hi > lo ? 1 + (v - lo) * 7 / (hi - lo) : 8], out);
	}
	fprintf(out, "|\n    %*s^ peak at heap event %ld of %zu\n", (int)(8 + peak_col), "",
		m->peak_position, n - 1);
}

static int by_size_desc(const void *a, const void *b)
{
	const struct tp_mem_live *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return (x->buffer > y->buffer) - (x->buffer < y->buffer);
}

static void print_buffer(FILE *out, const struct tp_mem_module *m,
			 const struct tp_mem_live *l)
{
	const struct tp_mem_buffer *d = &m->buffers[l->display];
	const Xla__HloInstructionProto *ins = d->instr >= 0 ? m->idx.instrs[d->instr].proto : NULL;
	struct tp_strbuf sb, name;
	char tmp[32];

	tp_strbuf_init(&sb);
	tp_strbuf_init(&name);
	tp_shape_format(&sb, d->shape);
	tp_mem_buffer_name(&name, m, l->display); /* "fusion.3{1}" */
	/* 100 columns: a long shape goes on a line of its own, never cut */
	if (60 + sb.len > 100)
		fprintf(out, "    %10s  %-12s %s\n                   %s\n", B(0, l->size),
			tp_mem_category_name(l->category), name.buf, sb.buf);
	else
		fprintf(out, "    %10s  %-12s %-28s %s\n", B(0, l->size),
			tp_mem_category_name(l->category), name.buf, sb.buf);
	if (d->shape && d->shape->element_type != 13) {
		fprintf(out, "                   %s, dims [", tp_primitive_name(d->shape->element_type, tmp, sizeof(tmp)));
		for (size_t i = 0; i < d->shape->n_dimensions; i++)
			fprintf(out, "%s%" PRId64, i ? "," : "", d->shape->dimensions[i]);
		fprintf(out, "], %" PRIu64 " elements, unpadded %s", tp_shape_elements(d->shape),
			B(1, l->unpadded));
		if (!l->indefinite && d->span_start >= 0)
			fprintf(out, ", live heap events %ld..%ld", d->span_start, d->span_end);
		fputc('\n', out);
	}
	if (ins && tp_hlo_scope(ins)[0])
		fprintf(out, "                   scope %s\n", tp_hlo_scope(ins));
	if (tp_mem_live_index(m, l->display) >= 0)
		tp_mem_why_text_line(out, m, (size_t)tp_mem_live_index(m, l->display));
	tp_strbuf_release(&sb);
	tp_strbuf_release(&name);
}

/* Outside HBM, the whole-program allocations the peak counts and XProf's
 * list leaves out: with them every byte of the peak is listed. */
static void print_whole_program(FILE *out, const struct tp_mem_module *m, size_t limit)
{
	struct tp_mem_live *sorted;
	size_t shown;
	uint64_t sum = 0;

	if (!m->n_whole_program)
		return;
	sorted = tp_xmalloc(m->n_whole_program * sizeof(*sorted));
	memcpy(sorted, m->whole_program, m->n_whole_program * sizeof(*sorted));
	qsort(sorted, m->n_whole_program, sizeof(*sorted), by_size_desc);
	for (size_t i = 0; i < m->n_whole_program; i++)
		sum += sorted[i].size;
	shown = limit && limit < m->n_whole_program ? limit : m->n_whole_program;
	fprintf(out, "  whole-program buffers of memory space %" PRId64 " in the peak, not in the list above"
		" (%zu of %zu, %s)\n", m->color, shown, m->n_whole_program, B(0, sum));
	for (size_t i = 0; i < shown; i++)
		print_buffer(out, m, &sorted[i]);
	free(sorted);
}

static void print_scopes(FILE *out, const struct tp_scope_tree *t, size_t node,
			 int depth, uint64_t peak)
{
	const struct tp_scope_node *n = &t->nodes[node];

	if (node && n->depth > depth)
		return;
	if (node)
		fprintf(out, "    %10s %5.1f%% %4" PRIu64 "  %*s%s\n", B(0, (uint64_t)n->inclusive),
			peak ? 100.0 * (double)n->inclusive / (double)peak : 0.0,
			n->count_inclusive, 2 * (n->depth - 1), "", n->name[0] ? n->name : "(no scope)");
	for (size_t i = 0; i < n->n_children; i++)
		print_scopes(out, t, n->children[i], depth, peak);
}

/* "5 ways", "1 way" */
static const char *ways(uint64_t k)
{
	return k == 1 ? "way" : "ways";
}

/* What a split saved: "-4.00 GiB", or "unchanged" (never "-0 B"). */
static const char *saved_text(char *buf, size_t n, uint64_t saved)
{
	char b[32];

	if (!saved)
		snprintf(buf, n, "unchanged");
	else
		snprintf(buf, n, "-%s", tp_fmt_bytes(b, sizeof(b), saved));
	return buf;
}

static void print_split(FILE *out, const struct tp_mem_module *m, const struct tp_mem_split *s)
{
	struct tp_strbuf name;
	char saved[48];

	tp_strbuf_init(&name);
	tp_mem_buffer_name(&name, m, s->buffer);
	fprintf(out, "    split %s %" PRIu64 " %s: peak %s (%s) at heap event %ld (estimate, same schedule)\n",
		name.buf, s->k, ways(s->k), B(0, s->peak), saved_text(saved, sizeof(saved), s->saved),
		s->peak_position);
	tp_strbuf_release(&name);
}

/* A program that ran on no core (a dump, an HloProto) against the
 * capacity --hbm or --device give: the pre-flight answer, before it runs.
 * Over it: by how much, the largest buffers at the peak (sorted), the
 * largest scopes, and a suggested split that would fit. */
static void module_capacity(FILE *out, const struct tp_memory *mem, const struct tp_mem_module *m,
			    const struct tp_mem_live *sorted)
{
	const struct tp_device_figures *dev;
	const struct tp_scope_node *root;
	struct tp_mem_headroom h;
	struct tp_strbuf name;
	uint64_t cap;
	char label[96];

	if (!tp_mem_module_headroom(mem, m, &h, &cap, &dev) || dev != &mem->loose_device)
		return;
	if (dev->capacity.source == TP_FIG_FLAG)
		snprintf(label, sizeof(label), "--hbm");
	else
		snprintf(label, sizeof(label), "%s, the device table", dev->row ? dev->row->key : "?");
	if (h.bytes >= 0) {
		fprintf(out, "    capacity %s (%s): headroom %s (%s)\n", B(0, cap), label,
			tp_fmt_bytes_down(fmt_slots[1], sizeof(fmt_slots[1]), (uint64_t)h.bytes),
			tp_fmt_pct_down(fmt_slots[2], sizeof(fmt_slots[2]), h.percent));
		return;
	}
	fprintf(out, "    DOES NOT FIT: peak %s is %s over the capacity %s (%s);\n"
		"    cut at least %s of what is live at heap event %ld:\n",
		B(0, m->peak), B(1, (uint64_t)-h.bytes), B(2, cap), label,
		tp_fmt_bytes_up(fmt_slots[3], sizeof(fmt_slots[3]), (uint64_t)-h.bytes),
		m->peak_position);
	tp_strbuf_init(&name);
	for (size_t i = 0; i < m->n_live && i < 3; i++) {
		tp_strbuf_reset(&name);
		tp_mem_buffer_name(&name, m, sorted[i].display);
		fprintf(out, "      buffer %s %s\n", name.buf, B(0, sorted[i].size));
	}
	root = m->scopes.n ? &m->scopes.nodes[0] : NULL;
	for (size_t i = 0; root && i < root->n_children && i < 3; i++) {
		const struct tp_scope_node *c = &m->scopes.nodes[root->children[i]];

		fprintf(out, "      scope %s %s\n", c->path[0] ? c->path : "(no scope)",
			B(0, (uint64_t)c->inclusive));
	}
	for (size_t i = 0; i < m->n_suggestions; i++)
		if (m->suggestions[i].peak <= cap) {
			tp_strbuf_reset(&name);
			tp_mem_buffer_name(&name, m, m->suggestions[i].buffer);
			fprintf(out, "      or split %s %" PRIu64 " %s: peak %s, fits (estimate)\n",
				name.buf, m->suggestions[i].k, ways(m->suggestions[i].k),
				B(0, m->suggestions[i].peak));
			break;
		}
	tp_strbuf_release(&name);
}

/* --split: each part, how it rounds, the one re-simulated peak, and
 * what the estimate assumes. */
static void print_whatif(FILE *out, const struct tp_mem_module *m)
{
	struct tp_strbuf name;
	char saved[48];

	tp_strbuf_init(&name);
	fprintf(out, "  what if (--split, %zu buffer%s in one replay)\n", m->n_whatif_parts,
		m->n_whatif_parts == 1 ? "" : "s");
	for (size_t i = 0; i < m->n_whatif_parts; i++) {
		const struct tp_mem_split_part *p = &m->whatif_parts[i];

		tp_strbuf_reset(&name);
		tp_mem_buffer_name(&name, m, p->buffer);
		fprintf(out, "    split %s along dimension %d (%" PRId64 ") %" PRIu64 " %s: %s -> %s",
			name.buf, p->dim, p->dim_size, p->k, ways(p->k), B(0, p->bytes),
			B(1, p->part_bytes));
		if (p->part_elements == p->small_part_elements)
			fprintf(out, ", parts of %" PRId64 "\n", p->part_elements);
		else
			fprintf(out, "\n      %" PRId64 " does not divide by %" PRIu64 ": parts of %" PRId64
				" and %" PRId64 "; the estimate counts the larger\n", p->dim_size, p->k,
				p->part_elements, p->small_part_elements);
	}
	fprintf(out, "    peak %s (%s) at heap event %ld\n", B(0, m->whatif.peak),
		saved_text(saved, sizeof(saved), m->whatif.saved), m->whatif.peak_position);
	fprintf(out, "    estimate: the same schedule and buffer assignment; each split buffer is\n"
		"    its largest part, the parts live one at a time where the whole one did\n");
	tp_strbuf_release(&name);
}

static void print_module(FILE *out, const struct tp_memory *mem, const struct tp_mem_module *m,
			 const struct tp_memory_text_opts *o)
{
	struct tp_str name = tp_module_name(m->module);
	struct tp_mem_live *sorted;
	size_t shown;

	fprintf(out, "\nmodule %.*s (program %" PRIu64 "), memory space %" PRId64 "\n",
		(int)name.len, name.ptr, m->module->program_id, m->color);
	if (m->error)
		fprintf(out, "    no compiler timeline: %s\n", m->error);
	/* two kinds of position: the heap trace's event index and the
	 * schedule step of the event's instruction */
	fprintf(out, "    peak %s", B(0, m->peak));
	if (m->n_points)
		fprintf(out, " at heap event %ld (%s)", m->peak_position, m->point_instr[m->peak_position]);
	else
		fprintf(out, " (no heap trace)");
	if (m->why.built && m->why.peak_position >= 0)
		fprintf(out, ", schedule step %ld", m->why.peak_position);
	fprintf(out, ", unpadded %s, padding %s\n",
		B(1, m->peak_unpadded), B(2, m->peak - (m->peak_unpadded < m->peak ? m->peak_unpadded : m->peak)));
	fprintf(out, "    indefinite %s, total allocation %s, %zu heap points\n",
		B(0, m->indefinite_bytes), B(1, m->total_alloc_bytes), m->n_points);
	if (m->max_scoped_instr >= 0)
		fprintf(out, "    largest scoped allocation %s (%s), not in the peak\n",
			B(0, m->max_scoped_bytes), m->idx.instrs[m->max_scoped_instr].proto->name);
	sorted = tp_xmalloc((m->n_live + 1) * sizeof(*sorted));
	if (m->n_live)
		memcpy(sorted, m->live, m->n_live * sizeof(*sorted));
	qsort(sorted, m->n_live, sizeof(*sorted), by_size_desc);
	module_capacity(out, mem, m, sorted);
	fprintf(out, "    by category:");
	for (int c = 0, col = 16; c < TP_MEM_N_CATEGORIES; c++) {
		char item[64];

		if (!m->by_category[c])
			continue;
		col += snprintf(item, sizeof(item), " %s %s", tp_mem_category_name(c),
				B(0, m->by_category[c]));
		if (col > 100) { /* wrap under the first item */
			fprintf(out, "\n%15s", "");
			col = 15 + (int)strlen(item);
		}
		fputs(item, out);
	}
	fputc('\n', out);
	sparkline(out, m);
	shown = o->limit && o->limit < m->n_live ? o->limit : m->n_live;
	fprintf(out, "  buffers live at the peak (%zu of %zu)\n", shown, m->n_live);
	for (size_t i = 0; i < shown; i++)
		print_buffer(out, m, &sorted[i]);
	free(sorted);
	print_whole_program(out, m, o->limit);
	fprintf(out, "  by scope (depth %d)\n", o->depth);
	print_scopes(out, &m->scopes, 0, o->depth, m->peak);
	tp_mem_why_text_groups(out, m, o->limit);
	if (m->whatif.buffer >= 0)
		print_whatif(out, m);
	if (m->n_suggestions)
		fprintf(out, "  suggestions (split along the leading dimension)\n");
	for (size_t i = 0; i < m->n_suggestions; i++)
		print_split(out, m, &m->suggestions[i]);
}

static void headroom_text(char *buf, size_t n, const struct tp_mem_headroom *h)
{
	char b[32], p[32];

	/* free memory is an upper bound: cut down; an overrun rounds as is */
	if (h->bytes >= 0)
		tp_fmt_bytes_down(b, sizeof(b), (uint64_t)h->bytes);
	else
		tp_fmt_bytes(b, sizeof(b), (uint64_t)-h->bytes);
	snprintf(buf, n, "%s%s %s", h->bytes < 0 ? "-" : "", b,
		 tp_fmt_pct_down(p, sizeof(p), h->percent));
}

/* Where the capacities came from, one line per distinct device and
 * source; cores without one said once. */
static void capacity_notes(FILE *out, const struct tp_memory *mem)
{
	size_t unknown = 0;

	for (size_t i = 0; i < mem->n_cores; i++) {
		const struct tp_mem_core *c = &mem->cores[i];
		bool seen = false;
		char label[96];

		if (!c->capacity) {
			unknown++;
			continue;
		}
		for (size_t j = 0; j < i && !seen; j++)
			seen = mem->cores[j].capacity && mem->cores[j].device.row == c->device.row &&
			       mem->cores[j].device.row_source == c->device.row_source &&
			       mem->cores[j].device.capacity.source == c->device.capacity.source;
		if (!seen)
			fprintf(out, "capacity: %s, from the %s\n",
				tp_device_label(label, sizeof(label), &c->device),
				c->device.capacity.source == TP_FIG_FLAG ? "--hbm flag"
				: c->device.capacity.source == TP_FIG_CAPTURE ? "capture"
				: "device table (docs/devices.md)");
	}
	if (unknown)
		fprintf(out, "capacity unknown for %zu core%s: the capture gives no memory size and "
			"names no known device (give --device NAME or --hbm SIZE)\n",
			unknown, unknown == 1 ? "" : "s");
}

static void print_cores(FILE *out, const struct tp_capture *cap, const struct tp_memory *mem)
{
	if (!mem->n_cores)
		return;
	fprintf(out, "%-14s %-16s %8s %14s %14s %14s %17s\n", "HOST", "CORE", "PROGRAMS",
		"COMPILER PEAK", "RUNTIME PEAK", "CAPACITY", "HEADROOM");
	for (size_t i = 0; i < mem->n_cores; i++) {
		const struct tp_mem_core *c = &mem->cores[i];
		char a[32] = "-", b[32] = "-", cap_s[32] = "-", room[48] = "-";
		struct tp_mem_headroom h;

		if (c->top_module >= 0)
			tp_fmt_bytes(a, sizeof(a), mem->modules[c->top_module].peak);
		/* the allocator's peak and the capacity are HBM's: never set
		 * beside another memory space's peak */
		if (c->runtime >= 0 && mem->color == 0)
			tp_fmt_bytes(b, sizeof(b), (uint64_t)mem->runtime.devices[c->runtime].peak_bytes);
		if (c->capacity && mem->color == 0)
			tp_fmt_bytes(cap_s, sizeof(cap_s), c->capacity);
		if (tp_mem_core_headroom(mem, c, &h))
			headroom_text(room, sizeof(room), &h);
		fprintf(out, "%-14s %-16.*s %8zu %14s %14s %14s %17s\n", cap->hosts[c->host].name,
			(int)c->plane->name.len, c->plane->name.ptr, c->n_programs, a, b, cap_s, room);
	}
	if (mem->color != 0) {
		fprintf(out, "memory space %" PRId64 ": compiler peaks only; the runtime peak, capacity and "
			"headroom are HBM's (memory space 0)\n", mem->color);
		return;
	}
	capacity_notes(out, mem);
}

static void print_runtime(FILE *out, const struct tp_capture *cap, const struct tp_memory *mem)
{
	if (!mem->runtime.n_devices)
		return;
	fprintf(out, "\nruntime memory: peak heap + stack of capacity (MemoryAllocation events;\n"
		"  docs/memory.md says what stack and heap are)\n");
	for (size_t i = 0; i < mem->runtime.n_devices; i++) {
		const struct tp_mem_device *d = &mem->runtime.devices[i];
		const struct tp_mem_core *core = NULL;
		char a[32], b[32], step[40] = "";

		/* the core whose allocator it is, as the HTML page names it */
		for (size_t j = 0; j < mem->n_cores && !core; j++)
			if (mem->cores[j].runtime == (long)i)
				core = &mem->cores[j];
		if (d->has_steps)
			snprintf(step, sizeof(step), ", step %" PRId64, d->peak_step);
		/* a core left out by --core, or none in the capture: the memory
		 * id alone, no core claimed */
		if (core)
			fprintf(out, "  %s %.*s (memory %s)", cap->hosts[d->host].name,
				(int)core->plane->name.len, core->plane->name.ptr, d->id);
		else
			fprintf(out, "  %s memory %s", cap->hosts[d->host].name, d->id);
		fprintf(out, ": peak %s of %s%s, %" PRIu64 " allocations, %" PRIu64 " frees\n",
			tp_fmt_bytes(a, sizeof(a), (uint64_t)d->peak_bytes),
			tp_fmt_bytes(b, sizeof(b), (uint64_t)d->capacity), step,
			d->allocations, d->deallocations);
	}
}

enum tp_err tp_memory_text(FILE *out, const struct tp_capture *cap,
			   const struct tp_memory *mem,
			   const struct tp_memory_text_opts *topt,
			   struct tp_error *err)
{
	print_cores(out, cap, mem);
	for (size_t i = 0; i < mem->n_modules; i++)
		print_module(out, mem, &mem->modules[i], topt);
	print_runtime(out, cap, mem);
	if (mem->n_warnings)
		fprintf(out, "\nwarnings\n");
	for (size_t i = 0; i < mem->n_warnings; i++)
		fprintf(out, "  %s\n", mem->warnings[i]);
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
