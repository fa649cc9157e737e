/*
 * op_cores.c - the all-cores view of `ops`: each op summed over the cores
 * that ran its program, with the spread between them (tp_cat_sum, as
 * `--by category` sums). Cores that ran the same programs are one group;
 * a program only some cores ran (a broadcast on core 0 alone) makes a
 * group of those cores, so no op is summed with cores that never ran its
 * program. The result is itself a tp_ops, one "core" per group, so that
 * sorting, the roofline and the writers of the per-core tables serve it.
 */
#include "ops_internal.h"

#include "tpuprof/util/i64map.h"

#include <stdlib.h>
#include <string.h>

static int cmp_size(size_t a, size_t b)
{
	return (a > b) - (a < b);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* ---- programs and the cores that ran them ---- */

struct ran { uint64_t program_id; size_t core; };

static int ran_order(const void *x, const void *y)
{
	const struct ran *a = x, *b = y;
	int c = cmp_u64(a->program_id, b->program_id);

	return c ? c : cmp_size(a->core, b->core);
}

/* One program: its cores are ran[first .. first + n). */
struct program { uint64_t id; size_t first, n, group; };

static _Thread_local const struct ran *g_ran; /* qsort context */

static int core_list_cmp(const struct program *a, const struct program *b)
{
	for (size_t i = 0; i < a->n && i < b->n; i++) {
		int c = cmp_size(g_ran[a->first + i].core, g_ran[b->first + i].core);

		if (c)
			return c;
	}
	return cmp_size(a->n, b->n);
}

/* the groups with the most cores first, then by their cores */
static int program_order(const void *x, const void *y)
{
	const struct program *a = x, *b = y;
	int c = a->n != b->n ? (a->n > b->n ? -1 : 1) : core_list_cmp(a, b);

	return c ? c : cmp_u64(a->id, b->id);
}

static int program_id_order(const void *x, const void *y)
{
	return cmp_u64(*(const uint64_t *)x, *(const uint64_t *)y);
}

static int program_by_id(const void *x, const void *y)
{
	return cmp_u64(((const struct program *)x)->id, ((const struct program *)y)->id);
}

/* Each op's program and core into r, most repeats left out on the way
 * (a program's ops on one core in a row give one pair): a core runs a
 * few programs of hundreds of ops each. Returns how many; the caller
 * sorts them and drops what repeats are left. */
static size_t ran_pairs(const struct tp_ops *ops, struct ran *r)
{
	struct tp_i64map programs;
	size_t *last_core = tp_xmalloc((ops->n_ops + 1) * sizeof(*last_core));
	size_t n = 0, np = 0;

	tp_i64map_init(&programs, 64);
	for (size_t i = 0; i < ops->n_ops; i++) {
		const struct tp_op *o = &ops->ops[i];
		long p = tp_i64map_get(&programs, (int64_t)o->program_id);

		if (p < 0) {
			p = (long)np++;
			tp_i64map_put(&programs, (int64_t)o->program_id, p);
		} else if (last_core[p] == o->core) {
			continue;
		}
		last_core[p] = o->core;
		r[n++] = (struct ran){ o->program_id, o->core };
	}
	tp_i64map_release(&programs);
	free(last_core);
	return n;
}

/* Partitions the programs by their cores into a->groups; returns the
 * programs by id, each with its group. */
static struct program *group_programs(struct tp_ops_all *a, const struct tp_ops *ops,
				      size_t *n_programs)
{
	struct ran *r = tp_xcalloc(ops->n_ops + 1, sizeof(*r));
	struct program *p = tp_xcalloc(ops->n_ops + 1, sizeof(*p));
	size_t n = 0, np = 0, m = ran_pairs(ops, r);

	qsort(r, m, sizeof(*r), ran_order);
	for (size_t i = 0; i < m; i++)       /* unique pairs */
		if (!n || ran_order(&r[n - 1], &r[i]))
			r[n++] = r[i];
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && r[j].program_id == r[i].program_id)
			j++;
		p[np++] = (struct program){ r[i].program_id, i, j - i, 0 };
		i = j;
	}
	g_ran = r;
	qsort(p, np, sizeof(*p), program_order);
	a->groups = tp_xcalloc(np + ops->n_cores + 1, sizeof(*a->groups));
	for (size_t i = 0; i < np;) {
		struct tp_core_group *g = &a->groups[a->all.n_cores];
		size_t j = i;

		while (j < np && !core_list_cmp(&p[i], &p[j]))
			p[j++].group = a->all.n_cores;
		g->n_cores = p[i].n;
		g->cores = tp_xcalloc(p[i].n, sizeof(*g->cores));
		for (size_t k = 0; k < p[i].n; k++)
			g->cores[k] = r[p[i].first + k].core;
		g->n_programs = j - i;
		g->programs = tp_xcalloc(j - i, sizeof(*g->programs));
		for (size_t k = i; k < j; k++)
			g->programs[k - i] = p[k].id;
		qsort(g->programs, g->n_programs, sizeof(*g->programs), program_id_order);
		a->all.n_cores++;
		i = j;
	}
	/* a core without ops is a group of its own, so that every core is
	 * shown */
	for (size_t c = 0; c < ops->n_cores; c++) {
		struct tp_core_group *g = &a->groups[a->all.n_cores];

		if (ops->cores[c].n_ops)
			continue;
		g->cores = tp_xcalloc(1, sizeof(*g->cores));
		g->cores[0] = c;
		g->n_cores = 1;
		a->all.n_cores++;
	}
	qsort(p, np, sizeof(*p), program_by_id);
	free(r);
	*n_programs = np;
	return p;
}

/* ---- ops summed over a group ---- */

/* An op with its sort key beside it, so that sorting reads no op:
 * names is its category and name as one number in their order
 * (op_names), or 0 for every record where they are compared as
 * strings. 32 bytes, which qsort moves itself (the groups and cores of
 * a capture held in memory number far fewer than 2^32). */
struct rec {
	uint32_t group, core;
	uint64_t program_id, names;
	const struct tp_op *op;
};

static int rec_key(size_t ga, const struct tp_op *a, size_t gb, const struct tp_op *b)
{
	int c = cmp_size(ga, gb);

	if (!c)
		c = cmp_u64(a->program_id, b->program_id);
	if (!c)
		c = tp_str_cmp(a->category, b->category);
	return c ? c : tp_str_cmp(a->name, b->name);
}

/* rec_key's order, the names by their numbers where op_names gave them */
static int rec_cmp(const struct rec *a, const struct rec *b)
{
	int c;

	if (!a->names)
		return rec_key(a->group, a->op, b->group, b->op);
	c = cmp_size(a->group, b->group);
	if (!c)
		c = cmp_u64(a->program_id, b->program_id);
	return c ? c : cmp_u64(a->names, b->names);
}

static int rec_order(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;
	int c = rec_cmp(a, b);

	return c ? c : cmp_size(a->core, b->core);
}

/* ---- categories and names as numbers, so that records sort on integers ---- */

struct named { struct tp_str s; size_t first; };

static int named_order(const void *x, const void *y)
{
	return tp_str_cmp(((const struct named *)x)->s, ((const struct named *)y)->s);
}

/* Each op's category (or name) as its place among the distinct ones in
 * tp_str_cmp order, from 1, into place[]: equal strings, equal places.
 * The pass's ops hold one pooled copy of each string, so its pointer
 * finds the distinct ones. False (place[] unusable) where one pointer
 * holds strings of two lengths: strings not pooled. */
static bool place_strings(const struct tp_ops *ops, bool category, uint64_t *place)
{
	struct named *d = tp_xmalloc((ops->n_ops + 1) * sizeof(*d));
	uint64_t *of;
	struct tp_i64map seen;
	size_t nd = 0;
	bool pooled = true;

	tp_i64map_init(&seen, 256);
	for (size_t i = 0; pooled && i < ops->n_ops; i++) {
		struct tp_str s = category ? ops->ops[i].category : ops->ops[i].name;
		long at = tp_i64map_get(&seen, (int64_t)(intptr_t)s.ptr);

		if (at < 0) {
			at = (long)nd;
			d[nd++] = (struct named){ s, (size_t)at };
			tp_i64map_put(&seen, (int64_t)(intptr_t)s.ptr, at);
		}
		pooled = d[at].s.len == s.len;
		place[i] = (uint64_t)at;
	}
	tp_i64map_release(&seen);
	qsort(d, nd, sizeof(*d), named_order);
	of = tp_xmalloc((nd + 1) * sizeof(*of));
	for (size_t k = 0, p = 0; k < nd; k++) {
		if (!k || tp_str_cmp(d[k - 1].s, d[k].s))
			p++;
		of[d[k].first] = p;
	}
	for (size_t i = 0; pooled && i < ops->n_ops; i++)
		place[i] = of[place[i]];
	free(of);
	free(d);
	return pooled;
}

/* Each op's category and name as one number in rec_key's order of the
 * two (the category's place above the name's), into names[]; all 0
 * where the strings are not pooled. */
static void op_names(const struct tp_ops *ops, uint64_t *names)
{
	uint64_t *cat = tp_xmalloc((ops->n_ops + 1) * sizeof(*cat));
	bool ok = place_strings(ops, true, cat) && place_strings(ops, false, names);

	for (size_t i = 0; i < ops->n_ops; i++)
		names[i] = ok ? cat[i] << 32 | names[i] : 0;
	free(cat);
}

/* An op's spread by its key, for the ops once sorted. */
struct keyed { struct tp_op op; struct tp_cat_sum sum; };

static int keyed_order(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;

	return rec_key(a->op.core, &a->op, b->op.core, &b->op);
}

static void op_add(struct tp_op *s, const struct tp_op *o)
{
	s->occurrences += o->occurrences;
	s->total_ps = tp_sat_add(s->total_ps, o->total_ps);
	s->self_ps = tp_sat_add(s->self_ps, o->self_ps);
	if (o->min_ps < s->min_ps)
		s->min_ps = o->min_ps;
	if (o->has_flops)
		s->flops = tp_sat_add(s->flops, o->flops);
	if (o->has_bytes)
		s->bytes_accessed = tp_sat_add(s->bytes_accessed, o->bytes_accessed);
	s->has_flops = s->has_flops || o->has_flops;
	s->has_bytes = s->has_bytes || o->has_bytes;
}

static size_t group_of(const struct program *p, size_t np, uint64_t id)
{
	struct program key = { id, 0, 0, 0 };
	const struct program *f = bsearch(&key, p, np, sizeof(*p), program_by_id);

	return f ? f->group : 0;
}

/* A group's op and collective time and events are its own ops' (a core
 * may be in a second group for a program only it ran); its device time
 * is its cores'. */
static void group_op_add(struct tp_ops_core *g, const struct tp_op *o)
{
	g->op_ps = tp_sat_add(g->op_ps, o->total_ps);
	g->self_ps = tp_sat_add(g->self_ps, o->self_ps);
	if (o->collective)
		g->collective_ps = tp_sat_add(g->collective_ps, o->self_ps);
	g->events += o->occurrences;
}

/* Sums the records (sorted) into keyed ops, one per group and key. */
static struct keyed *sum_ops(const struct rec *r, size_t n, size_t *n_out)
{
	struct keyed *k = tp_xcalloc(n + 1, sizeof(*k));
	size_t nk = 0;

	for (size_t i = 0; i < n;) {
		struct keyed *s = &k[nk++];
		size_t j = i;

		s->op = *r[i].op;
		s->op.core = r[i].group;
		s->op.source = NULL;
		s->op.occurrences = 0;
		s->op.total_ps = s->op.self_ps = s->op.flops = s->op.bytes_accessed = 0;
		s->op.has_flops = s->op.has_bytes = false;
		s->op.min_ps = r[i].op->min_ps;
		while (j < n && !rec_cmp(&r[i], &r[j])) {
			size_t core = r[j].core;
			struct tp_op one = { .min_ps = INT64_MAX };

			for (; j < n && !rec_cmp(&r[i], &r[j]) && r[j].core == core; j++) {
				op_add(&s->op, r[j].op);
				op_add(&one, r[j].op);
			}
			tp_cat_sum_add_core(&s->sum, one.self_ps, one.total_ps, one.occurrences);
		}
		i = j;
	}
	*n_out = nk;
	return k;
}

/* A group of several cores none of whose ops ran on two of them sums
 * nothing (TF-era replicas name their ops per replica: replica_4/...,
 * replica_6/...): each of its cores becomes a group of its own, and the
 * records move to it. Returns whether any group was split. */
static bool split_disjoint(struct tp_ops_all *a, struct rec *r, size_t n,
			   const struct keyed *k, size_t nk)
{
	size_t ng = a->all.n_cores, nn = 0;
	bool *shared = tp_xcalloc(ng + 1, sizeof(*shared)), any = false;
	size_t *base = tp_xcalloc(ng + 1, sizeof(*base));
	struct tp_core_group *g = a->groups, *out;

	for (size_t i = 0; i < nk; i++)
		shared[k[i].op.core] = shared[k[i].op.core] || k[i].sum.n_cores > 1;
	for (size_t i = 0; i < ng; i++) {
		shared[i] = shared[i] || g[i].n_cores == 1;
		any = any || !shared[i];
		base[i] = nn;
		nn += shared[i] ? 1 : g[i].n_cores;
	}
	if (!any)
		goto done;
	out = tp_xcalloc(nn + 1, sizeof(*out));
	for (size_t i = 0; i < ng; i++) {
		if (shared[i]) {
			out[base[i]] = g[i];
			continue;
		}
		for (size_t c = 0; c < g[i].n_cores; c++) {
			struct tp_core_group *o = &out[base[i] + c];

			o->cores = tp_xcalloc(1, sizeof(*o->cores));
			o->cores[0] = g[i].cores[c];
			o->n_cores = 1;
			o->disjoint = true;
			o->programs = tp_xcalloc(g[i].n_programs + 1, sizeof(*o->programs));
			memcpy(o->programs, g[i].programs, g[i].n_programs * sizeof(*o->programs));
			o->n_programs = g[i].n_programs;
		}
	}
	for (size_t i = 0; i < n; i++) {
		size_t was = r[i].group, c = 0;

		if (shared[was]) {
			r[i].group = (uint32_t)base[was];
			continue;
		}
		while (g[was].cores[c] != r[i].op->core)
			c++;
		r[i].group = (uint32_t)(base[was] + c);
	}
	for (size_t i = 0; i < ng; i++)
		if (!shared[i]) {
			free(g[i].cores);
			free(g[i].programs);
		}
	free(g);
	a->groups = out;
	a->all.n_cores = nn;
done:
	free(shared);
	free(base);
	return any;
}

void tp_ops_all_build(struct tp_ops_all *a, const struct tp_ops *ops, enum tp_ops_sort sort)
{
	size_t np, nk;
	struct program *p;
	uint64_t *names;
	struct rec *r;
	struct keyed *k;

	memset(a, 0, sizeof(*a));
	p = group_programs(a, ops, &np);
	r = tp_xcalloc(ops->n_ops + 1, sizeof(*r));
	names = tp_xmalloc((ops->n_ops + 1) * sizeof(*names));
	op_names(ops, names);
	for (size_t i = 0; i < ops->n_ops; i++)
		r[i] = (struct rec){ (uint32_t)group_of(p, np, ops->ops[i].program_id),
				     (uint32_t)ops->ops[i].core, ops->ops[i].program_id,
				     names[i], &ops->ops[i] };
	free(names);
	qsort(r, ops->n_ops, sizeof(*r), rec_order);
	k = sum_ops(r, ops->n_ops, &nk);
	if (split_disjoint(a, r, ops->n_ops, k, nk)) {
		free(k);
		qsort(r, ops->n_ops, sizeof(*r), rec_order);
		k = sum_ops(r, ops->n_ops, &nk);
	}
	free(r);
	free(p);
	a->all.cores = tp_xcalloc(a->all.n_cores + 1, sizeof(*a->all.cores));
	for (size_t g = 0; g < a->all.n_cores; g++) {
		struct tp_ops_core *c = &a->all.cores[g];
		const struct tp_ops_core *first = &ops->cores[a->groups[g].cores[0]];

		c->host = first->host;
		c->plane = first->plane;
		c->source = first->source;
		c->device = first->device;
		c->clock = TP_CLOCK_DEVICE;
		for (size_t i = 0; i < a->groups[g].n_cores; i++) {
			const struct tp_ops_core *m = &ops->cores[a->groups[g].cores[i]];

			c->device_ps = tp_sat_add(c->device_ps, m->device_ps);
			/* the device clock where every core of the group is on it */
			if (m->clock != TP_CLOCK_DEVICE)
				c->clock = TP_CLOCK_TIMELINE;
		}
	}
	a->all.ops = tp_xcalloc(nk + 1, sizeof(*a->all.ops));
	a->spread = tp_xcalloc(nk + 1, sizeof(*a->spread));
	for (size_t i = 0; i < nk; i++) {
		struct tp_ops_core *c = &a->all.cores[k[i].op.core];

		if (!c->n_ops)
			c->first_op = i;
		c->n_ops++;
		a->all.ops[i] = k[i].op;
		group_op_add(c, &k[i].op);
	}
	a->all.n_ops = nk;
	for (size_t g = 0; g < a->all.n_cores; g++)
		a->groups[g].whole = a->groups[g].n_cores == 1 &&
			a->all.cores[g].n_ops == ops->cores[a->groups[g].cores[0]].n_ops;
	/* borrowed, so that each op's HLO instruction is found */
	a->all.index = ops->index;
	a->all.indexed = ops->indexed;
	a->all.n_modules = ops->n_modules;
	tp_ops_sort(&a->all, sort);
	for (size_t i = 0; i < nk; i++) {
		struct keyed key = { .op = a->all.ops[i] };
		const struct keyed *f = bsearch(&key, k, nk, sizeof(*k), keyed_order);

		a->spread[i] = f->sum;
	}
	free(k);
}

void tp_ops_all_release(struct tp_ops_all *a)
{
	for (size_t g = 0; g < a->all.n_cores; g++) {
		free(a->groups[g].cores);
		free(a->groups[g].programs);
	}
	free(a->groups);
	free(a->spread);
	free(a->all.ops);
	free(a->all.cores);
	memset(a, 0, sizeof(*a));
}
