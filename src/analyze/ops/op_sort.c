/*
 * op_sort.c - ordering the op table (--sort), and telling collectives by
 * opcode or category.
 */
#include "tpuprof/analyze/ops.h"

#include <stdlib.h>
#include <string.h>

static const char *const sort_names[] = {
	[TP_SORT_TOTAL] = "total", [TP_SORT_SELF] = "self",
	[TP_SORT_COUNT] = "count", [TP_SORT_AVG] = "avg",
	[TP_SORT_MIN] = "min", [TP_SORT_NAME] = "name",
	[TP_SORT_FLOPS] = "flops", [TP_SORT_BYTES] = "bytes",
	[TP_SORT_FLOP_UTIL] = "flop-util", [TP_SORT_BANDWIDTH] = "bandwidth",
};

const char *tp_ops_sort_name(enum tp_ops_sort key)
{
	return sort_names[key];
}

bool tp_ops_sort_parse(const char *s, enum tp_ops_sort *out)
{
	for (size_t i = 0; i < sizeof(sort_names) / sizeof(sort_names[0]); i++)
		if (strcmp(s, sort_names[i]) == 0) {
			*out = (enum tp_ops_sort)i;
			return true;
		}
	return false;
}

static _Thread_local enum tp_ops_sort g_key; /* qsort has no context argument */
static _Thread_local const struct tp_op *g_ops; /* qsort context, per thread */
static _Thread_local const double *g_val; /* the roofline keys, per op   */

static int cmp_val(size_t a, size_t b)
{
	double x = g_val[a], y = g_val[b];

	return (x < y) - (x > y); /* descending; missing (-1) last */
}

/* An op's figure for the FLOPs, bytes and roofline keys; -1 without. */
static double op_value(const struct tp_ops *ops, const struct tp_op *o, enum tp_ops_sort key)
{
	struct tp_work w;
	struct tp_roofline r;

	switch (key) {
	case TP_SORT_FLOPS: return o->has_flops ? (double)o->flops : -1;
	case TP_SORT_BYTES: return o->has_bytes ? (double)o->bytes_accessed : -1;
	default: break;
	}
	tp_op_work(ops, o, &w);
	tp_roofline_of(&w, &ops->cores[o->core].device, &r);
	if (key == TP_SORT_FLOP_UTIL)
		return r.has_flop_util ? r.flop_utilization : -1;
	return r.has_bytes_rate ? r.bytes_per_s : -1;
}

int64_t tp_op_avg_ps(const struct tp_op *o)
{
	if (!o->occurrences || o->occurrences > (uint64_t)INT64_MAX)
		return 0;
	return o->total_ps / (int64_t)o->occurrences;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a < b) - (a > b); /* descending */
}

static int cmp_name(const struct tp_op *a, const struct tp_op *b)
{
	size_t n = a->name.len < b->name.len ? a->name.len : b->name.len;
	int c = n ? memcmp(a->name.ptr, b->name.ptr, n) : 0;

	if (c)
		return c;
	if (a->name.len != b->name.len)
		return a->name.len < b->name.len ? -1 : 1;
	return (a->program_id > b->program_id) - (a->program_id < b->program_id);
}

static int by_key(const void *pa, const void *pb)
{
	const struct tp_op *a = &g_ops[*(const size_t *)pa];
	const struct tp_op *b = &g_ops[*(const size_t *)pb];
	int c = 0;

	switch (g_key) {
	case TP_SORT_TOTAL: c = cmp_i64(a->total_ps, b->total_ps); break;
	case TP_SORT_SELF: c = cmp_i64(a->self_ps, b->self_ps); break;
	case TP_SORT_COUNT:
		c = cmp_i64((int64_t)a->occurrences, (int64_t)b->occurrences);
		break;
	case TP_SORT_AVG: c = cmp_i64(tp_op_avg_ps(a), tp_op_avg_ps(b)); break;
	case TP_SORT_MIN: c = cmp_i64(a->min_ps, b->min_ps); break;
	case TP_SORT_NAME: break;
	default:
		c = cmp_val(*(const size_t *)pa, *(const size_t *)pb);
		break;
	}
	if (!c)
		c = cmp_name(a, b);
	if (!c)
		c = (*(const size_t *)pa > *(const size_t *)pb) -
		    (*(const size_t *)pa < *(const size_t *)pb);
	return c;
}

void tp_ops_sort(struct tp_ops *ops, enum tp_ops_sort key)
{
	size_t *perm = tp_xmalloc((ops->n_ops + 1) * sizeof(*perm));
	size_t *where = tp_xmalloc((ops->n_ops + 1) * sizeof(*where));
	struct tp_op *sorted = tp_xmalloc((ops->n_ops + 1) * sizeof(*sorted));

	double *val = NULL;

	for (size_t i = 0; i < ops->n_ops; i++)
		perm[i] = i;
	if (key >= TP_SORT_FLOPS) {
		val = tp_xmalloc((ops->n_ops + 1) * sizeof(*val));
		for (size_t i = 0; i < ops->n_ops; i++)
			val[i] = op_value(ops, &ops->ops[i], key);
	}
	g_key = key;
	g_ops = ops->ops;
	g_val = val;
	for (size_t c = 0; c < ops->n_cores; c++)
		qsort(perm + ops->cores[c].first_op, ops->cores[c].n_ops,
		      sizeof(*perm), by_key);
	for (size_t i = 0; i < ops->n_ops; i++) {
		sorted[i] = ops->ops[perm[i]];
		where[perm[i]] = i;
	}
	for (size_t i = 0; i < ops->n_execs; i++)
		ops->execs[i].op = where[ops->execs[i].op];
	free(ops->ops);
	ops->ops = sorted;
	ops->cap_ops = ops->n_ops + 1;
	free(perm);
	free(where);
	free(val);
	g_val = NULL;
}

const char *tp_collective_kind(struct tp_str op)
{
	static const char *const kinds[] = {
		"all-reduce", "all-gather", "reduce-scatter", "ragged-all-to-all",
		"all-to-all", "collective-permute", "collective-broadcast",
		"collective-reduce", "send", "recv",
	};
	static const char *const suffixes[] = { "", "-start", "-done" };

	if (tp_str_eq(op, "cross-replica-sum"))
		return "all-reduce";
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i]);

		if (op.len < n || memcmp(op.ptr, kinds[i], n) != 0)
			continue;
		for (size_t s = 0; s < 3; s++)
			if (op.len - n == strlen(suffixes[s]) &&
			    memcmp(op.ptr + n, suffixes[s], op.len - n) == 0)
				return kinds[i];
	}
	return NULL;
}

bool tp_op_copy_kind(struct tp_str category)
{
	static const char *const kinds[] = {
		"copy", "copy-start", "copy-done", "infeed", "outfeed",
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (tp_str_eq(category, kinds[i]))
			return true;
	return false;
}
