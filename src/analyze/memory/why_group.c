/*
 * why_group.c - the "why is it live" answer for each buffer at the peak
 * (kind, last user, chain, wait, a note for buffers that live for the
 * whole program), and the peak grouped by last user: "9 GiB at the peak
 * wait for fusion.123, 40 positions later".
 */
#include "memory_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { EV_FREE = 1, EV_SHARE_WITH = 2 };

static const char *kind_name(enum tp_mem_category c)
{
	static const char *const names[] = {
		[TP_MEM_PARAMETER] = "parameter", [TP_MEM_OUTPUT] = "output",
		[TP_MEM_THREAD_LOCAL] = "thread_local", [TP_MEM_CONSTANT] = "constant",
		[TP_MEM_TEMPORARY] = "temporary",
	};
	return c < TP_MEM_N_CATEGORIES ? names[c] : "temporary";
}

static const char *instr_name(const struct tp_mem_module *m, long k)
{
	return k >= 0 ? m->idx.instrs[k].proto->name : "?";
}

/* Why a buffer of an indefinite allocation is held for the whole run. */
static char *whole_program_note(const struct tp_mem_module *m, const struct tp_mem_why *w,
				const Xla__BufferAllocationProto *a)
{
	const struct tp_mem_buffer *b = &m->buffers[w->buffer];
	long reader = w->last_user;

	if (a->is_entry_computation_parameter)
		return tp_xasprintf("entry parameter %" PRId64 ": the caller owns it for the whole program%s"
				    "%s%s%s", a->parameter_number,
				    a->maybe_live_out ? ", and it is also an output" : "",
				    reader >= 0 ? "; last read by " : "", reader >= 0 ? instr_name(m, reader) : "",
				    reader >= 0 ? "" : "");
	if (a->maybe_live_out)
		return tp_xasprintf("output: the program returns it%s, so it is held to the end",
				    w->reaches_output ? " (it reaches the entry ROOT)" : "");
	if (a->is_thread_local)
		return tp_xasprintf("thread-local: scratch of computation %s, kept outside the heap for the whole program",
				    b->instr >= 0 ? m->idx.instrs[b->instr].computation->name : "?");
	return tp_xstrdup("constant: XLA keeps its literal in memory for the whole program");
}

static char *temporary_note(const struct tp_mem_module *m, const struct tp_mem_why *w)
{
	if (w->value != w->buffer)
		return tp_xasprintf("its bytes pass in place to %s, whose last user frees them",
				    instr_name(m, m->buffers[w->value].instr));
	if (w->reaches_output)
		return tp_xstrdup("it reaches the entry ROOT, yet its allocation is not an output");
	if (w->last_user < 0 && m->buffers[w->buffer].instr >= 0)
		return tp_xstrdup("no instruction uses it after its definition");
	if (w->has_wait && w->wait < 0)
		return tp_xstrdup("its last user runs before the peak: the heap trace holds it longer");
	if (w->cut_short)
		return tp_xstrdup("the walk through the HLO was cut short; the last user may be later");
	return NULL;
}

static void set_wait(const struct tp_mem_module *m, struct tp_mem_why *w)
{
	w->has_wait = w->last_user_position >= 0 && m->why.peak_position >= 0;
	w->wait = w->has_wait ? w->last_user_position - m->why.peak_position : 0;
}

void tp_mem_why_buffer(const struct tp_mem_module *m, long buffer, struct tp_mem_why *out)
{
	const Xla__BufferAllocationProto *a =
		m->module->hlo->buffer_assignment->buffer_allocations[m->buffers[buffer].allocation];
	enum tp_mem_category c = tp_mem_allocation_category(a);

	memset(out, 0, sizeof(*out));
	out->buffer = out->value = buffer;
	out->kind = kind_name(c);
	tp_mem_why_walk(m, buffer, out);
	if (tp_mem_allocation_indefinite(a)) {
		out->note = whole_program_note(m, out, a);
		/* held for the whole program: nothing ends its life */
		out->last_user = out->last_user_position = -1;
		if (out->n_chain > 1)
			out->n_chain = 1;
		return;
	}
	set_wait(m, out);
	out->note = temporary_note(m, out);
}

void tp_mem_why_clear(struct tp_mem_why *w)
{
	free(w->chain);
	free(w->note);
	memset(w, 0, sizeof(*w));
}

static long root_of(const struct tp_mem_module *m, long b)
{
	for (size_t steps = 0; steps <= m->n_buffers; steps++) {
		long c = m->buffers[b].canonical;

		if (c < 0 || c == b)
			return b;
		b = c;
	}
	return b;
}

/* Who shares memory in the trace, found in one pass: each event's root
 * buffer, the SHARE_WITH events, and per root the event that frees its
 * memory after the peak (its count back to 0), -1 if none: sharers after
 * that reuse freed memory, a life of its own. */
struct sharing {
	long *root;             /* per event                              */
	long *seg_end;          /* per buffer                             */
	size_t *shares;         /* SHARE_WITH event indices               */
	size_t n_shares;
};

static bool sharing_build(const struct tp_mem_module *m, struct sharing *s)
{
	const Xla__HeapSimulatorTrace *tr;
	long *ref;

	memset(s, 0, sizeof(*s));
	if (m->trace < 0 || m->error || !m->ev_buffer)
		return false;
	tr = m->module->hlo->buffer_assignment->heap_simulator_traces[m->trace];
	s->root = tp_xmalloc((tr->n_events + 1) * sizeof(*s->root));
	s->shares = tp_xmalloc((tr->n_events + 1) * sizeof(*s->shares));
	s->seg_end = tp_xmalloc((m->n_buffers + 1) * sizeof(*s->seg_end));
	ref = tp_xcalloc(m->n_buffers + 1, sizeof(*ref));
	for (size_t b = 0; b < m->n_buffers; b++)
		s->seg_end[b] = -1;
	for (size_t e = 0; e < tr->n_events; e++) {
		long x = m->ev_buffer[e], r = x >= 0 ? root_of(m, x) : -1;

		s->root[e] = r;
		if (r < 0)
			continue;
		if (tr->events[e]->kind == EV_SHARE_WITH)
			s->shares[s->n_shares++] = e;
		ref[r] += tr->events[e]->kind == EV_FREE ? -1 : 1;
		if (tr->events[e]->kind == EV_FREE && ref[r] <= 0 && (long)e > m->peak_position &&
		    s->seg_end[r] < 0)
			s->seg_end[r] = (long)e;
	}
	free(ref);
	return s->n_shares > 0;
}

static void sharing_release(struct sharing *s)
{
	free(s->root);
	free(s->seg_end);
	free(s->shares);
}

/* Sharer x's last user runs later: its bytes pass on to x, so x's last
 * user frees them. The chain goes from this buffer's definition along
 * data-flow edges (through the in-place writers) to x's definer, then on
 * x's own chain; where no such path exists the answer stays this
 * buffer's own, and says so. */
static void take_over(const struct tp_mem_module *m, struct tp_mem_why *w, long x,
		      const struct tp_mem_why *other, const struct tp_mem_inplace *inplace,
		      size_t n_inplace)
{
	struct tp_mem_why path = { 0 };
	struct tp_mem_step *joint;
	size_t n;

	if (!other->n_chain ||
	    !tp_mem_why_path(m, w->buffer, m->buffers[x].instr, inplace, n_inplace, &path)) {
		if (w->value == w->buffer) { /* no other sharer took over yet */
			free(w->note);
			w->note = tp_xasprintf("it shares its memory with %s, which its value does not reach in the HLO",
					       instr_name(m, m->buffers[x].instr));
		}
		return;
	}
	n = path.n_chain + other->n_chain - 1;
	free(w->chain);
	w->chain = tp_xcalloc(n + 1, sizeof(*w->chain));
	memcpy(w->chain, path.chain, path.n_chain * sizeof(*w->chain));
	memcpy(w->chain + path.n_chain, other->chain + 1, (other->n_chain - 1) * sizeof(*w->chain));
	/* x's definer reads the value by an operand and writes x into its bytes */
	joint = &w->chain[path.n_chain - 1];
	joint->role = TP_STEP_ALIASES;
	joint->depth = other->chain[0].depth;
	memcpy(joint->index, other->chain[0].index, sizeof(joint->index));
	w->n_chain = n;
	free(path.chain);
	w->value = x;
	w->last_user = other->last_user;
	w->last_user_position = other->last_user_position;
	set_wait(m, w);
	free(w->note);
	w->note = temporary_note(m, w);
}

/* The definers of the buffers sharing root's memory. */
static size_t inplace_writers(const struct tp_mem_module *m, long root, const struct sharing *s,
			      struct tp_mem_inplace *out)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_shares; i++) {
		long x = m->ev_buffer[s->shares[i]];
		const Xla__LogicalBufferProto__Location *loc = m->buffers[x].lb->defined_at;
		struct tp_mem_inplace *p = &out[n];

		if (s->root[s->shares[i]] != root || m->buffers[x].instr < 0)
			continue;
		p->instr = m->buffers[x].instr;
		p->depth = 0;
		for (size_t j = 0; loc && j < loc->n_shape_index && p->depth < TP_MEM_INDEX_MAX; j++)
			p->index[p->depth++] = loc->shape_index[j];
		n++;
	}
	return n;
}

/* Buffers sharing the memory of live entry l (an in-place reuse): the
 * one whose last user runs last frees the bytes. */
static void follow_sharers(const struct tp_mem_module *m, const struct tp_mem_live *l,
			   struct tp_mem_why *w, const struct sharing *s)
{
	long end = s->seg_end[l->buffer];
	struct tp_mem_inplace *inplace = tp_xcalloc(s->n_shares + 1, sizeof(*inplace));
	size_t n_inplace = inplace_writers(m, l->buffer, s, inplace);

	for (size_t i = 0; i < s->n_shares; i++) {
		size_t e = s->shares[i];
		long x = m->ev_buffer[e];
		struct tp_mem_why other;

		/* sharers holding the bytes at the peak or taking them
		 * over later, before the memory is freed */
		if (s->root[e] != l->buffer || x == w->buffer || (end >= 0 && end <= (long)e) ||
		    ((long)e <= m->peak_position && m->buffers[x].span_end >= 0 &&
		     m->buffers[x].span_end <= m->peak_position))
			continue;
		tp_mem_why_buffer(m, x, &other);
		if (other.last_user_position > w->last_user_position)
			take_over(m, w, x, &other, inplace, n_inplace);
		tp_mem_why_clear(&other);
	}
	free(inplace);
}

static int by_bytes(const void *a, const void *b)
{
	const struct tp_mem_user_group *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return (x->last_user > y->last_user) - (x->last_user < y->last_user);
}

/* Temporaries at the peak, summed per last user and per its scope. */
static void group(struct tp_mem_module *m)
{
	struct tp_mem_why_data *w = &m->why;
	struct tp_i64map slot;

	tp_i64map_init(&slot, m->n_live);
	w->groups = tp_xcalloc(m->n_live + 1, sizeof(*w->groups));
	for (size_t i = 0; i < m->n_live; i++) {
		const struct tp_mem_why *y = &w->live[i];
		struct tp_mem_user_group *g;
		const char *scope;
		long s;

		if (m->live[i].indefinite || y->last_user < 0)
			continue;
		s = tp_i64map_get(&slot, y->last_user);
		if (s < 0) {
			s = (long)w->n_groups++;
			tp_i64map_put(&slot, y->last_user, s);
			w->groups[s].last_user = y->last_user;
			w->groups[s].position = y->last_user_position;
			w->groups[s].has_wait = y->has_wait;
			w->groups[s].wait = y->wait;
		}
		g = &w->groups[s];
		g->bytes += m->live[i].size;
		g->buffers++;
		scope = tp_hlo_scope(m->idx.instrs[y->last_user].proto);
		tp_scope_tree_add(&w->user_scopes, tp_str_make(scope, strlen(scope)),
				  (int64_t)m->live[i].size, 1);
	}
	tp_i64map_release(&slot);
	qsort(w->groups, w->n_groups, sizeof(*w->groups), by_bytes);
	tp_scope_tree_sort(&w->user_scopes);
}

static long peak_position(const struct tp_mem_module *m)
{
	const char *name;
	long k;

	if (!m->n_points || m->peak_position < 0 || (size_t)m->peak_position >= m->n_points)
		return -1;
	name = m->point_instr[m->peak_position];
	k = tp_hlo_find_name(&m->idx, tp_str_make(name, strlen(name)));
	return k >= 0 ? m->why.time[k] : -1;
}

void tp_mem_why_build(struct tp_mem_module *m)
{
	struct tp_mem_why_data *w = &m->why;
	struct sharing sh;
	bool shares;

	tp_scope_tree_init(&w->user_scopes);
	w->built = true;
	tp_mem_why_graph(m);
	tp_mem_why_order(m);
	w->peak_position = peak_position(m);
	w->live = tp_xcalloc(m->n_live + 1, sizeof(*w->live));
	shares = sharing_build(m, &sh);
	for (size_t i = 0; i < m->n_live; i++) {
		tp_mem_why_buffer(m, m->live[i].display, &w->live[i]);
		if (!m->live[i].indefinite && shares)
			follow_sharers(m, &m->live[i], &w->live[i], &sh);
	}
	sharing_release(&sh);
	group(m);
}

void tp_mem_why_release(struct tp_mem_module *m)
{
	struct tp_mem_why_data *w = &m->why;

	if (!w->built)
		return;
	for (size_t i = 0; i < m->n_live; i++)
		tp_mem_why_clear(&w->live[i]);
	free(w->live);
	free(w->groups);
	tp_scope_tree_release(&w->user_scopes);
	tp_mem_why_graph_release(w);
	memset(w, 0, sizeof(*w));
}
