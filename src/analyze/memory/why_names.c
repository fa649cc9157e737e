/*
 * why_names.c - naming buffers the way XProf's memory viewer does
 * ("fusion.3{1}" for an element of a tuple output, "fusion.3{}" for the
 * tuple itself) and finding them by that name, for `memory --why NAME`.
 */
#include "memory_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void tp_mem_buffer_name(struct tp_strbuf *sb, const struct tp_mem_module *m, long buffer)
{
	const struct tp_mem_buffer *b = &m->buffers[buffer];
	const Xla__LogicalBufferProto__Location *loc = b->lb->defined_at;

	tp_strbuf_adds(sb, b->instr >= 0 ? m->idx.instrs[b->instr].proto->name : "?");
	if (!loc || !loc->n_shape_index) {
		/* the tuple itself (its index table), told from its elements */
		if (b->shape && tp_shape_is_tuple(b->shape))
			tp_strbuf_adds(sb, "{}");
		return;
	}
	tp_strbuf_adds(sb, "{");
	for (size_t i = 0; i < loc->n_shape_index; i++)
		tp_strbuf_addf(sb, "%s%" PRId64, i ? "," : "", loc->shape_index[i]);
	tp_strbuf_adds(sb, "}");
}

/* NAME matches buffer b: its full name, or the instruction's name. */
static bool matches(const struct tp_mem_module *m, long b, const char *name,
		    struct tp_strbuf *sb)
{
	if (m->buffers[b].instr < 0)
		return false;
	if (strcmp(m->idx.instrs[m->buffers[b].instr].proto->name, name) == 0)
		return true;
	tp_strbuf_reset(sb);
	tp_mem_buffer_name(sb, m, b);
	return strcmp(sb->buf, name) == 0;
}

size_t tp_mem_find_named(const struct tp_mem_module *m, const char *name, long **out,
			 size_t *other_space)
{
	struct tp_strbuf sb;
	size_t n = 0;

	*out = tp_xmalloc((m->n_buffers + 1) * sizeof(**out));
	*other_space = 0;
	tp_strbuf_init(&sb);
	for (size_t i = 0; i < m->n_buffers; i++) {
		if (!matches(m, (long)i, name, &sb))
			continue;
		if (m->buffers[i].lb->color == m->color)
			(*out)[n++] = (long)i;
		else
			(*other_space)++;
	}
	tp_strbuf_release(&sb);
	return n;
}

long tp_mem_live_index(const struct tp_mem_module *m, long buffer)
{
	for (size_t i = 0; i < m->n_live; i++)
		if (m->live[i].display == buffer || m->live[i].buffer == buffer)
			return (long)i;
	return -1;
}

enum tp_err tp_mem_why_missing(const char *name, size_t searched, size_t other_space,
			       struct tp_error *err)
{
	if (other_space)
		return tp_error_set(err, TP_ERR_USAGE,
				    "no buffer named '%s' in this memory space; %zu in others (see --memory-space)",
				    name, other_space);
	return tp_error_set(err, TP_ERR_USAGE, "no buffer named '%s' in %zu module%s with a buffer assignment",
			    name, searched, searched == 1 ? "" : "s");
}
