/*
 * memory_why_text.c - `tpuprof memory CAPTURE --why NAME`: one buffer's
 * whole story. What it is, where it lives, whether it is live at the
 * peak, the instruction whose execution ends its life and the chain of
 * instructions that hold it until then, how long after the peak that is,
 * and what else waits for the same instruction.
 */
#include "tpuprof/report/memory_report.h"
#include "tpuprof/analyze/common/shape.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static char fmt_slots[2][32];
#define B(i, v) tp_fmt_bytes(fmt_slots[i], sizeof(fmt_slots[i]), (v))

static const char *order_text(enum tp_mem_order o)
{
	switch (o) {
	case TP_ORDER_SCHEDULE:
		return "the module's schedule, called computations flattened before their caller";
	case TP_ORDER_HEAP_TRACE:
		return "the heap trace's order (the module has no schedule)";
	default:
		return "instruction order (no schedule, no heap trace)";
	}
}

static const char *iname(const struct tp_mem_module *m, long k)
{
	return k >= 0 ? m->idx.instrs[k].proto->name : "?";
}

static void print_position(FILE *out, const struct tp_mem_module *m, long k)
{
	const char *file = NULL;
	int line = 0;
	const Xla__HloInstructionProto *ins = m->idx.instrs[k].proto;

	if (tp_hlo_scope(ins)[0])
		fprintf(out, "    scope %s\n", tp_hlo_scope(ins));
	if (tp_hlo_source(&m->idx, ins, &file, &line))
		fprintf(out, "    source %s:%d\n", file, line);
}

static void print_step(FILE *out, const struct tp_mem_module *m, const struct tp_mem_why *w,
		       const struct tp_mem_step *s)
{
	static const char *const roles[] = { "defines it", "holds it", "reads it" };
	struct tp_strbuf sb;
	long t = m->why.time[s->instr];

	tp_strbuf_init(&sb);
	if (s->role == TP_STEP_DEFINES) {
		tp_mem_buffer_name(&sb, m, w->buffer);
	} else {
		tp_strbuf_adds(&sb, iname(m, s->instr));
		if (s->role == TP_STEP_ALIASES && s->depth) {
			tp_strbuf_adds(&sb, "{");
			for (int i = 0; i < s->depth; i++)
				tp_strbuf_addf(&sb, "%s%" PRId64, i ? "," : "", s->index[i]);
			tp_strbuf_adds(&sb, "}");
		}
	}
	if (t >= 0)
		fprintf(out, "    %6ld  ", t);
	else
		fprintf(out, "         -  ");
	fprintf(out, "%-28s %-18s %s", sb.buf, m->idx.instrs[s->instr].proto->opcode, roles[s->role]);
	if (s->operand >= 0)
		fprintf(out, " (operand %d)", s->operand);
	fputc('\n', out);
	tp_strbuf_release(&sb);
}

static void print_wait(FILE *out, const struct tp_mem_module *m, const struct tp_mem_why *w)
{
	const struct tp_mem_user_group *g = NULL;

	for (size_t i = 0; i < m->why.n_groups; i++)
		if (m->why.groups[i].last_user == w->last_user)
			g = &m->why.groups[i];
	if (!g)
		return;
	/* a last user before the peak waits for nothing: the trace holds it */
	if (w->has_wait && w->wait < 0) {
		fprintf(out, "  held past its last user at the peak: %s in %zu buffer%s whose last "
			"user %s has already run\n", B(0, g->bytes), g->buffers,
			g->buffers == 1 ? "" : "s", iname(m, w->last_user));
		return;
	}
	fprintf(out, "  waiting for %s at the peak: %s in %zu buffer%s\n", iname(m, w->last_user),
		B(0, g->bytes), g->buffers, g->buffers == 1 ? "" : "s");
	if (w->has_wait && w->wait > 0)
		fprintf(out, "  estimate: if %s ran right after the peak, %s would leave the peak"
			" (same schedule otherwise)\n", iname(m, w->last_user), B(0, g->bytes));
}

static void print_life(FILE *out, const struct tp_mem_module *m, const struct tp_mem_why *w,
		       long live, bool indefinite)
{
	const struct tp_mem_buffer *b = &m->buffers[w->buffer];
	long peak = m->why.peak_position;

	if (indefinite)
		fprintf(out, "  held for the whole program, so live at the peak\n");
	else if (live >= 0)
		fprintf(out, "  live at the peak (heap events %ld..%ld; the peak is event %ld)\n",
			b->span_start, b->span_end, m->peak_position);
	else if (b->span_start >= 0)
		fprintf(out, "  not live at the peak (heap events %ld..%ld; the peak is event %ld)\n",
			b->span_start, b->span_end, m->peak_position);
	else
		fprintf(out, "  not live at the peak (not in the heap trace)\n");
	if (w->last_user >= 0) {
		fprintf(out, "  last user %s (%s) at schedule step %ld", iname(m, w->last_user),
			m->idx.instrs[w->last_user].proto->opcode, w->last_user_position);
		if (w->has_wait && w->wait == 0)
			fprintf(out, ", at the peak (schedule step %ld, %s)", peak,
				m->point_instr[m->peak_position]);
		else if (w->has_wait)
			fprintf(out, ", %ld schedule step%s %s the peak (schedule step %ld, %s)",
				w->wait < 0 ? -w->wait : w->wait, (w->wait == 1 || w->wait == -1) ? "" : "s",
				w->wait < 0 ? "before" : "after", peak, m->point_instr[m->peak_position]);
		fputc('\n', out);
		print_position(out, m, w->last_user);
	}
	if (w->note)
		fprintf(out, "  %s\n", w->note);
}

static void print_story(FILE *out, const struct tp_mem_module *m, long buffer)
{
	const struct tp_mem_buffer *b = &m->buffers[buffer];
	const Xla__HloInstructionProto *ins = b->instr >= 0 ? m->idx.instrs[b->instr].proto : NULL;
	const Xla__BufferAllocationProto *a =
		m->module->hlo->buffer_assignment->buffer_allocations[b->allocation];
	struct tp_str mod = tp_module_name(m->module);
	long live = tp_mem_live_index(m, buffer);
	struct tp_mem_why own, *w = &own;
	struct tp_strbuf sb;

	if (live >= 0 && m->live[live].display == buffer)
		w = &m->why.live[live];
	else
		tp_mem_why_buffer(m, buffer, &own);
	tp_strbuf_init(&sb);
	tp_mem_buffer_name(&sb, m, buffer);
	fprintf(out, "buffer %s in module %.*s (program %" PRIu64 "), memory space %" PRId64 "\n",
		sb.buf, (int)mod.len, mod.ptr, m->module->program_id, m->color);
	tp_strbuf_reset(&sb);
	tp_shape_format(&sb, b->shape);
	fprintf(out, "  logical buffer %" PRId64 ", %s (unpadded %s), %s, allocation %zu offset %" PRId64 "\n",
		b->id, B(0, b->size), B(1, b->unpadded),
		tp_mem_category_name(tp_mem_allocation_category(a)), b->allocation, b->offset);
	fprintf(out, "  shape %s\n", sb.buf[0] ? sb.buf : "?");
	if (ins) {
		fprintf(out, "  defined by %s (%s)", ins->name, ins->opcode);
		if (m->why.time[b->instr] >= 0)
			fprintf(out, " at schedule step %ld", m->why.time[b->instr]);
		fputc('\n', out);
		print_position(out, m, b->instr);
	}
	print_life(out, m, w, live, tp_mem_allocation_indefinite(a));
	fprintf(out, "  chain, from its definition to %s (schedule step, instruction, opcode, role)\n",
		w->last_user >= 0 ? "its last user" : "where it stops");
	for (size_t i = 0; i < w->n_chain; i++)
		print_step(out, m, w, &w->chain[i]);
	if (live >= 0 && w->last_user >= 0)
		print_wait(out, m, w);
	fprintf(out, "  schedule steps: %s\n", order_text(m->why.order));
	tp_strbuf_release(&sb);
	if (w == &own)
		tp_mem_why_clear(&own);
}

enum tp_err tp_memory_why_text(FILE *out, const struct tp_memory *mem, const char *name,
			       struct tp_error *err)
{
	struct tp_mem_ref *refs;
	size_t n, shown = 0;
	char *taken;
	enum tp_err rc = tp_mem_resolve_name(mem, "--why", name, &refs, &n, &taken, err);

	if (rc != TP_OK)
		return rc;
	/* the tuple's own buffer is its index table: say which one we took */
	if (taken && strcmp(taken + strlen(name), "{}") == 0)
		fprintf(out, "%s is a tuple with no element buffer in this memory space; taken: "
			"the tuple itself, %s\n\n", name, taken);
	else if (taken)
		fprintf(out, "%s is a tuple; taken: its one element buffer %s (%s{} is the tuple "
			"itself)\n\n", name, taken, name);
	free(taken);
	for (size_t i = 0; i < n; i++) {
		const struct tp_mem_module *m = &mem->modules[refs[i].module];

		if (!m->why.built)
			continue;
		if (shown++)
			fputc('\n', out);
		print_story(out, m, refs[i].buffer);
	}
	free(refs);
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}

void tp_mem_why_text_line(FILE *out, const struct tp_mem_module *m, size_t live)
{
	const struct tp_mem_why *w;

	if (!m->why.built || m->live[live].indefinite)
		return;
	w = &m->why.live[live];
	if (w->last_user < 0)
		return;
	fprintf(out, "                   last user %s at schedule step %ld", iname(m, w->last_user),
		w->last_user_position);
	if (w->has_wait && w->wait == 0)
		fprintf(out, " (at the peak)");
	else if (w->has_wait)
		fprintf(out, " (%ld step%s %s the peak)", labs(w->wait),
			labs(w->wait) == 1 ? "" : "s", w->wait > 0 ? "after" : "before");
	fputc('\n', out);
}

/* The first level below the root, and one more where it is a single
 * chain (jit(f)/jit(main) reads as one). */
static void print_user_scopes(FILE *out, const struct tp_scope_tree *t)
{
	const struct tp_scope_node *f;

	if (!t->n)
		return;
	f = &t->nodes[0];
	while (f->n_children == 1 && t->nodes[f->children[0]].n_children)
		f = &t->nodes[f->children[0]];
	if (!f->n_children)
		return;
	fprintf(out, "    by the last user's scope:\n");
	for (size_t i = 0; i < f->n_children && i < 5; i++) {
		const struct tp_scope_node *c = &t->nodes[f->children[i]];

		fprintf(out, "    %10s %4" PRIu64 "  %s\n", B(0, (uint64_t)c->inclusive),
			c->count_inclusive, c->path[0] ? c->path : "(no scope)");
	}
}

void tp_mem_why_text_groups(FILE *out, const struct tp_mem_module *m, size_t limit)
{
	const struct tp_mem_why_data *w = &m->why;
	size_t shown = limit && limit < w->n_groups ? limit : w->n_groups;

	if (!w->built || !w->n_groups)
		return;
	fprintf(out, "  by last user (%zu of %zu): temporaries at the peak and the instruction that frees them\n",
		shown, w->n_groups);
	for (size_t i = 0; i < shown; i++) {
		const struct tp_mem_user_group *g = &w->groups[i];
		const char *scope = tp_hlo_scope(m->idx.instrs[g->last_user].proto);
		char when[48] = "";

		if (g->has_wait && g->wait == 0)
			snprintf(when, sizeof(when), "at the peak");
		else if (g->has_wait)
			snprintf(when, sizeof(when), "%ld step%s %s the peak", labs(g->wait),
				 labs(g->wait) == 1 ? "" : "s", g->wait > 0 ? "after" : "before");
		fprintf(out, "    %10s %4zu  %-28s schedule step %ld %s\n", B(0, g->bytes), g->buffers,
			iname(m, g->last_user), g->position, when);
		if (scope[0])
			fprintf(out, "                     scope %s\n", scope);
	}
	print_user_scopes(out, &w->user_scopes);
	for (size_t i = 0; i < w->n_groups; i++) {
		const struct tp_mem_user_group *g = &w->groups[i];

		if (!g->has_wait || g->wait <= 0)
			continue;
		/* the largest group that waits past the peak */
		fprintf(out, "    estimate: if %s ran right after the peak, %s would leave it (same schedule otherwise)\n",
			iname(m, g->last_user), B(0, g->bytes));
		break;
	}
}

void tp_mem_why_text_tower(FILE *out, const struct tp_mem_module *m)
{
	const struct tp_mem_user_group *g;
	const char *scope;

	if (!m->why.built || !m->why.n_groups)
		return;
	g = &m->why.groups[0];
	scope = tp_hlo_scope(m->idx.instrs[g->last_user].proto);
	fprintf(out, "  %10s %5.1f%%  wait for %s%s%s%s", B(0, g->bytes),
		m->peak ? 100.0 * (double)g->bytes / (double)m->peak : 0.0, iname(m, g->last_user),
		scope[0] ? " (" : "", scope, scope[0] ? ")" : "");
	if (g->has_wait && g->wait == 0)
		fprintf(out, ", at the peak\n");
	else if (g->has_wait)
		fprintf(out, ", %ld schedule step%s %s\n", g->wait < 0 ? -g->wait : g->wait,
			g->wait == 1 || g->wait == -1 ? "" : "s", g->wait < 0 ? "before" : "later");
	else
		fputc('\n', out);
}
