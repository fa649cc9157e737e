/*
 * oom_entries.c - the allocations a report lists: TPU's "Largest program
 * allocations" (`N. Size: ...` entries) and XLA:GPU's "Peak buffers"
 * (`Buffer N:`), each field read up to the next field's label, so entries
 * glued together, collapsed onto one line or cut after their size read
 * the same; and each shape's layout: tiles and the padded dimensions.
 */
#include "oom_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const field_labels[] = {
	"Size:", "Operator:", "Shape:", "Unpadded size:", "Extra memory due to padding:",
	"XLA label:", "XLA Label:", "Allocation type:", "Entry Parameter Subshape:", "=====",
};
#define N_FIELDS (sizeof(field_labels) / sizeof(field_labels[0]))
#define VALUE_MAX 16384

/* The value of label in [s, end): up to the next label; trimmed. */
static bool field(const char *s, const char *end, const char *label,
		  const char **vs, const char **ve)
{
	const char *v = tp_oom_find(s, end, label, NULL), *stop = end;

	if (!v)
		return false;
	for (size_t i = 0; i < N_FIELDS; i++) {
		const char *at;

		if (tp_oom_find(v, stop, field_labels[i], &at) && at < stop)
			stop = at;
	}
	v = tp_oom_skip_ws(v, stop);
	/* XLA cuts its long labels with "..."; a value longer than this runs
	 * into the log after a report whose newlines were collapsed */
	if (stop - v > VALUE_MAX)
		stop = v + VALUE_MAX;
	while (stop > v && isspace((unsigned char)stop[-1]))
		stop--;
	*vs = v;
	*ve = stop;
	return true;
}

/* A value on one line: a wrapped one is joined where the terminal broke
 * it; runs of blanks from indentation are dropped. */
static char *value_dup(const char *s, const char *e, bool one_line)
{
	char *out = tp_xmalloc((size_t)(e - s) + 1), *o = out;

	for (const char *p = s; p < e; p++) {
		if (*p == '\n') {
			if (one_line)
				break;
			while (p + 1 < e && p[1] == ' ')
				p++;
			continue;
		}
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

/* [s, e) without newlines, literal "\n" and the blanks after it (an
 * op_name pasted from a Python repr); malloc'd. */
static char *unescaped(const char *s, const char *e)
{
	char *out = tp_xmalloc((size_t)(e - s) + 1), *o = out;

	for (const char *p = s; p < e; p++) {
		if (p + 1 < e && p[0] == '\\' && p[1] == 'n') {
			p++;
			while (p + 1 < e && p[1] == ' ')
				p++;
			continue;
		}
		if (*p != '\n')
			*o++ = *p;
	}
	*o = '\0';
	return out;
}

/* key="value" in an Operator line. */
static char *quoted(const char *s, const char *e, const char *key)
{
	const char *v = tp_oom_find(s, e, key, NULL), *q;

	if (!v || v >= e || *v != '"')
		return NULL;
	v++;
	q = memchr(v, '"', (size_t)(e - v));
	return unescaped(v, q ? q : e);
}

static void operator_read(struct tp_oom_alloc *a, const char *s, const char *e)
{
	const char *v;

	char *joined = value_dup(s, e, false);

	a->operator_text = unescaped(joined, joined + strlen(joined));
	free(joined);
	a->op_type = quoted(s, e, "op_type=");
	a->op_name = quoted(s, e, "op_name=");
	a->source_file = quoted(s, e, "source_file=");
	if ((v = tp_oom_find(s, e, "source_line=", NULL)) && v < e && isdigit((unsigned char)*v))
		a->source_line = strtoll(v, NULL, 10);
}

/* "fusion.1265.remat3" -> "fusion.1265"; NULL for no .remat. */
static char *remat_source(const char *name)
{
	const char *r = strstr(name, ".remat");

	return r && r > name ? tp_str_dup(tp_str_make(name, (size_t)(r - name))) : NULL;
}

static void label_read(struct tp_oom_alloc *a, const char *s, const char *e)
{
	const char *n = s, *ne;

	char *joined = value_dup(s, e, false);

	a->xla_label = unescaped(joined, joined + strlen(joined));
	free(joined);
	if (n < e && *n == '%')
		n++;
	for (ne = n; ne < e && *ne != ' ' && *ne != '\n' && *ne != '='; ne++)
		;
	if (ne > n) {
		a->xla_label_name = tp_str_dup(tp_str_make(n, (size_t)(ne - n)));
		a->remat_of = remat_source(a->xla_label_name);
	}
}

static void entry_read(struct tp_oom_alloc *a, const char *s, const char *end)
{
	const char *vs, *ve;

	if (field(s, end, "Size:", &vs, &ve))
		tp_oom_size_read(vs, ve, &a->size);
	if (field(s, end, "Operator:", &vs, &ve))
		operator_read(a, vs, ve);
	if (field(s, end, "Shape:", &vs, &ve) && ve > vs) {
		a->shape = value_dup(vs, ve, true);
		tp_oom_layout_read(&a->layout, a->shape);
	}
	if (field(s, end, "Unpadded size:", &vs, &ve))
		tp_oom_size_read(vs, ve, &a->unpadded);
	if (field(s, end, "Extra memory due to padding:", &vs, &ve)) {
		const char *e = tp_oom_size_read(vs, ve, &a->padding), *x;

		if (e && (x = tp_oom_match(e, ve, " (")) && isdigit((unsigned char)*x)) {
			a->expansion = strtod(x, NULL);
			a->has_expansion = tp_oom_find(x, ve, "x expansion", NULL) != NULL;
		}
	}
	if (field(s, end, "XLA label:", &vs, &ve) || field(s, end, "XLA Label:", &vs, &ve))
		label_read(a, vs, ve);
	if (field(s, end, "Allocation type:", &vs, &ve) && ve > vs)
		a->allocation_type = value_dup(vs, ve, true);
	a->closed = tp_oom_find(s, end, "=====", NULL) != NULL;
	if (field(s, end, "Entry Parameter Subshape:", &vs, &ve) && ve > vs) {
		a->entry_parameter_subshape = value_dup(vs, ve, true);
		if (!a->allocation_type)
			a->allocation_type = tp_xstrdup("entry parameter");
	}
}

/* The start of the next entry at or after p: "N. Size:" or "Buffer N:";
 * its number in *rank. */
static const char *next_entry(const char *base, const char *p, const char *end, int *rank,
			      const char **after)
{
	for (; p < end; p++) {
		const char *q = p, *e;
		long v = 0;

		if (!isdigit((unsigned char)*p) || (p > end - 3))
			continue;
		if (p > base && p[-1] != ' ' && p[-1] != '\n' && p[-1] != '.' && p[-1] != '=' &&
		    p[-1] != ')')
			continue;
		for (; q < end && isdigit((unsigned char)*q) && v < 1000000; q++)
			v = v * 10 + (*q - '0');
		if ((e = tp_oom_match(q, end, ". Size:"))) {
			*rank = (int)v;
			*after = q;
			return p;
		}
		if (q < end && *q == ':' && p - base >= 7 &&
		    tp_oom_match(p - 7, p, "Buffer ") == p) {
			*rank = (int)v;
			*after = q + 1;
			return p - 7;
		}
	}
	return NULL;
}

void tp_oom_entries_read(struct tp_oom_report *r, const char *s, const char *end)
{
	const char *p, *list, *at, *after;
	int rank;
	size_t cap = 0;

	if ((list = tp_oom_find(s, end, "Largest program allocations in ", NULL))) {
		r->allocations_memory_space = tp_str_dup(tp_str_make(list,
			strcspn(list, ": \n") < (size_t)(end - list) ? strcspn(list, ": \n") :
			(size_t)(end - list)));
		p = list + 1;
	} else if ((list = tp_oom_find(s, end, "Peak buffers:", NULL))) {
		p = list + 1;
	} else {
		/* a paste that starts at a numbered entry: no list header */
		list = p = s;
	}
	at = next_entry(list, p, end, &rank, &after);
	while (at) {
		const char *next_at, *next_after;
		int next_rank;
		struct tp_oom_alloc *a;

		next_at = next_entry(list, after, end, &next_rank, &next_after);
		r->allocs = tp_xgrow(r->allocs, &cap, r->n_allocs + 1, sizeof(*r->allocs));
		a = &r->allocs[r->n_allocs++];
		memset(a, 0, sizeof(*a));
		a->rank = rank;
		a->source_line = -1;
		entry_read(a, after, next_at ? next_at : end);
		at = next_at;
		after = next_after;
		rank = next_rank;
	}
}
