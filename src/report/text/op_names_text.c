/*
 * op_names_text.c - the op column of `tpuprof ops` text: each name cut to
 * fit its row, and different names never cut to the same text
 * (text_internal.h).
 */
#include "text_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/report/ops_report.h"

/* The module suffix of the op column: "  (module)", with the program
 * when several programs share the name. */
static void module_suffix(char *suffix, size_t n, const struct tp_capture *cap,
			  const struct tp_op *o)
{
	struct tp_str mod = tp_report_module_name(cap, o->module);

	suffix[0] = '\0';
	if (mod.len && tp_report_module_name_shared(cap, o->module))
		snprintf(suffix, n, "  (%.*s #%" PRIu64 ")",
			 (int)(mod.len > 100 ? 100 : mod.len), TP_SPTR(mod), o->program_id);
	else if (mod.len)
		snprintf(suffix, n, "  (%.*s)", (int)(mod.len > 100 ? 100 : mod.len), TP_SPTR(mod));
}

/* Room for the name so the row (before columns ahead of the op) fits in
 * width columns; never under 20. */
static size_t name_room(const char *suffix, size_t width, size_t before)
{
	size_t used = before + strlen(suffix);

	return width > used + 20 ? width - used : 20;
}

/* Where a cut keeps whole path parts: the head ends after a '/' and the
 * tail starts at one, when that keeps at least half of each. */
static void path_bounds(struct tp_str name, size_t *head, size_t *tail)
{
	for (size_t k = *head; k > *head / 2; k--)
		if (name.ptr[k - 1] == '/') {
			*tail += *head - k;
			*head = k;
			break;
		}
	for (size_t k = name.len - *tail; k < name.len - *tail / 2; k++)
		if (name.ptr[k] == '/') {
			*tail = name.len - k;
			break;
		}
}

/* The name cut to avail columns: head...tail; with a window (from > 0)
 * head...window...tail, the window holding the name from `from` on,
 * where it parts from the names it would otherwise print the same as. */
static char *cut_name(struct tp_str name, size_t avail, size_t from)
{
	struct tp_strbuf sb;
	size_t head, tail, mid;

	tp_strbuf_init(&sb);
	if (name.len <= avail) {
		tp_strbuf_addf(&sb, "%.*s", (int)name.len, TP_SPTR(name));
	} else if (!from) {
		head = (avail - 3) / 3;
		tail = avail - 3 - head;
		path_bounds(name, &head, &tail);
		tp_strbuf_addf(&sb, "%.*s...%.*s", (int)head, name.ptr, (int)tail,
			       name.ptr + name.len - tail);
	} else {
		head = avail / 5;
		tail = avail / 3;
		path_bounds(name, &head, &tail);
		if (head + tail + 6 + 8 > avail)     /* room for a window */
			head = avail > tail + 14 ? avail - tail - 14 : 1;
		mid = avail - head - tail - 6;
		/* a little context before where it parts: from the path part
		 * it parts in, or 8 characters */
		for (size_t k = from, d = from; k + 16 > d; k--) {
			if (k <= head || k == 0) {
				from = d > 8 ? d - 8 : 0;
				break;
			}
			if (name.ptr[k - 1] == '/') {
				from = k;
				break;
			}
		}
		if (from < head)
			from = head;
		if (from + mid >= name.len - tail)   /* the window meets the tail */
			tp_strbuf_addf(&sb, "%.*s...%.*s", (int)head, name.ptr,
				       (int)(name.len - from), name.ptr + from);
		else
			tp_strbuf_addf(&sb, "%.*s...%.*s...%.*s", (int)head, name.ptr,
				       (int)mid, name.ptr + from, (int)tail,
				       name.ptr + name.len - tail);
	}
	return sb.buf;
}

/* The op column of the rows shown: each name cut to fit, and different
 * names never cut to the same text (twenty RandomUniform ops of twenty
 * layers once printed alike): names that would are cut around where they
 * part from the others, and any still alike are printed whole. */

static int by_text(const void *a, const void *b)
{
	const struct tp_text_op_name *x = *(const struct tp_text_op_name *const *)a;
	const struct tp_text_op_name *y = *(const struct tp_text_op_name *const *)b;
	int c = strcmp(x->text, y->text);

	return c ? c : strcmp(x->suffix, y->suffix);
}

static bool same_text(const struct tp_text_op_name *a, const struct tp_text_op_name *b)
{
	return strcmp(a->text, b->text) == 0 && strcmp(a->suffix, b->suffix) == 0;
}

static bool same_name(struct tp_str a, struct tp_str b)
{
	return a.len == b.len && (!a.len || memcmp(a.ptr, b.ptr, a.len) == 0);
}

static size_t common_prefix(struct tp_str a, struct tp_str b)
{
	size_t k = 0;

	while (k < a.len && k < b.len && a.ptr[k] == b.ptr[k])
		k++;
	return k;
}

/* Re-cuts every name whose text another name also prints: around where
 * it parts from them, or (whole) not at all. */
static void part_alike(struct tp_text_op_name *v, size_t n, bool whole, size_t width,
		       size_t before)
{
	struct tp_text_op_name **order = tp_xmalloc((n + 1) * sizeof(*order));
	char **next = tp_xcalloc(n + 1, sizeof(*next));

	for (size_t i = 0; i < n; i++)
		order[i] = &v[i];
	qsort(order, n, sizeof(*order), by_text);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && same_text(order[j], order[i]))
			j++;
		for (size_t k = i; k < j; k++) {
			size_t from = 0;
			bool clash = false;

			for (size_t m = i; m < j; m++) {
				size_t p;

				if (m == k || same_name(order[k]->op->name, order[m]->op->name))
					continue;
				p = common_prefix(order[k]->op->name, order[m]->op->name);
				clash = true;
				from = p > from ? p : from;
			}
			if (clash)
				next[order[k] - v] = cut_name(order[k]->op->name,
					whole ? order[k]->op->name.len
					      : name_room(order[k]->suffix, width, before),
					whole ? 0 : from);
		}
		i = j;
	}
	for (size_t i = 0; i < n; i++)
		if (next[i]) {
			free(v[i].text);
			v[i].text = next[i];
		}
	free(next);
	free(order);
}

struct tp_text_op_name *tp_text_op_names(const struct tp_capture *cap, const struct tp_ops *ops,
					 const struct tp_ops_core *c, size_t n, size_t width,
					 size_t before, bool *cut)
{
	struct tp_text_op_name *v = tp_xcalloc(n + 1, sizeof(*v));

	*cut = false;
	for (size_t i = 0; i < n; i++) {
		v[i].op = &ops->ops[c->first_op + i];
		module_suffix(v[i].suffix, sizeof(v[i].suffix), cap, v[i].op);
		/* no width (a pipe, a file): whole, for grep and cut */
		v[i].text = cut_name(v[i].op->name, width ? name_room(v[i].suffix, width, before)
						    : v[i].op->name.len, 0);
	}
	if (width) {
		part_alike(v, n, false, width, before);
		part_alike(v, n, true, width, before);
	}
	for (size_t i = 0; i < n; i++)
		*cut = *cut || strlen(v[i].text) != v[i].op->name.len;
	return v;
}

void tp_text_op_names_release(struct tp_text_op_name *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}
