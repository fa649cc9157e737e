/*
 * step_pieces.c - op pieces of several lines made disjoint (ops.h, struct
 * tp_seg; docs/ops.md, "A step is a partition"): where lines of one core
 * overlap (GPU streams), each instant goes to one kind, compute over
 * collectives over copies; within a kind the earlier start keeps it.
 */
#include "tpuprof/analyze/ops.h"

#include <stdlib.h>
#include <string.h>

int tp_seg_class(uint32_t kind)
{
	/* compute over collective over copy */
	return kind >= TP_SEG_COMPUTE ? TP_PART_COMPUTE :
	       kind == TP_SEG_COLLECTIVE ? TP_PART_COLLECTIVE : TP_PART_COPY;
}

static int by_class_start(const void *a, const void *b)
{
	const struct tp_seg *x = a, *y = b;
	int cx = tp_seg_class(x->kind), cy = tp_seg_class(y->kind);

	if (cx != cy)
		return cx - cy;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

static int by_start(const void *a, const void *b)
{
	const struct tp_seg *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

bool tp_segs_disjoint(const struct tp_seg *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i].start < v[i - 1].end)
			return false;
	return true;
}

struct seg_list {
	struct tp_seg *v;
	size_t n, cap;
};

static void list_push(struct seg_list *l, int64_t start, int64_t end, uint32_t kind)
{
	if (end <= start)
		return;
	if (l->n && l->v[l->n - 1].kind == kind && l->v[l->n - 1].end == start) {
		l->v[l->n - 1].end = end;
		return;
	}
	l->v = tp_xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = (struct tp_seg){ start, end, kind };
}

/* [start, end) less the sorted disjoint covered list, into out; *k is a
 * cursor into covered that only moves on (starts come in order). */
static void subtract(struct seg_list *out, const struct seg_list *covered, size_t *k,
		     int64_t start, int64_t end, uint32_t kind)
{
	while (*k < covered->n && covered->v[*k].end <= start)
		(*k)++;
	for (size_t j = *k; j < covered->n && covered->v[j].start < end; j++) {
		list_push(out, start, covered->v[j].start, kind);
		if (covered->v[j].end > start)
			start = covered->v[j].end;
	}
	list_push(out, start, end, kind);
}

/* The union of a and b, both sorted and disjoint (kinds dropped). */
static struct seg_list merge_union(const struct seg_list *a, const struct seg_list *b)
{
	struct seg_list u = { 0 };
	size_t i = 0, j = 0;

	while (i < a->n || j < b->n) {
		const struct tp_seg *x = j == b->n || (i < a->n && a->v[i].start <= b->v[j].start) ?
					 &a->v[i++] : &b->v[j++];

		if (u.n && x->start <= u.v[u.n - 1].end) {
			if (x->end > u.v[u.n - 1].end)
				u.v[u.n - 1].end = x->end;
		} else {
			u.v = tp_xgrow(u.v, &u.cap, u.n + 1, sizeof(*u.v));
			u.v[u.n++] = (struct tp_seg){ x->start, x->end, 0 };
		}
	}
	return u;
}

size_t tp_segs_resolve(struct tp_seg **segs, size_t n, size_t *cap)
{
	struct tp_seg *v = *segs;
	struct seg_list out = { 0 }, covered = { 0 };
	size_t i = 0;

	if (n > 1)
		qsort(v, n, sizeof(*v), by_class_start);
	while (i < n) {
		int cls = tp_seg_class(v[i].kind);
		struct seg_list mine = { 0 }, u;
		size_t k = 0;
		int64_t reach = INT64_MIN;

		for (; i < n && tp_seg_class(v[i].kind) == cls; i++) {
			int64_t start = v[i].start > reach ? v[i].start : reach;

			if (v[i].end <= start)
				continue;
			subtract(&mine, &covered, &k, start, v[i].end, v[i].kind);
			reach = v[i].end > reach ? v[i].end : reach;
		}
		for (size_t j = 0; j < mine.n; j++)
			list_push(&out, mine.v[j].start, mine.v[j].end, mine.v[j].kind);
		u = merge_union(&covered, &mine);
		free(covered.v);
		free(mine.v);
		covered = u;
	}
	free(covered.v);
	if (out.n > 1)
		qsort(out.v, out.n, sizeof(*out.v), by_start);
	free(v);
	*segs = out.v;
	*cap = out.cap;
	return out.n;
}
