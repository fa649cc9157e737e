/*
 * oom_explain.c - what a report means: by how much it is over, the chip
 * (--device, or the printed capacity with the facts' reservation rules:
 * JAX and PyTorch/XLA print capacity without the runtime reservation,
 * TensorFlow 2019-20 with it), the listed allocations rolled up by name
 * scope, op type and allocation type (.remat copies once per source op),
 * and what to cut: the sources and the scope that cover the overage, and
 * split estimates as lower bounds.
 */
#include "oom_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/units.h"

int64_t tp_oom_device_bytes(const struct tp_device_row *row)
{
	double gib = row->hbm_gib;

	/* v2 and v3 cores are separate devices; later chips are one (megacore) */
	if (row->planes_per_chip == 2 && row->cores && strcmp(row->cores, "2 TC") == 0)
		gib /= 2;
	return (int64_t)llround(gib * 1073741824.0);
}

static bool near(const struct tp_oom_size *a, const struct tp_oom_size *b)
{
	return llabs(tp_sat_sub(a->bytes, b->bytes)) <= tp_sat_add(a->half_unit, b->half_unit);
}

static void chip(struct tp_oom_explain *e, const struct tp_oom_report *r,
		 const struct tp_device_row *device)
{
	struct tp_oom_chip *c = &e->chip;
	const struct tp_oom_size *cap = &r->fig[TP_OOM_CAPACITY], *res = &r->fig[TP_OOM_RESERVED];
	bool tf_era, with_res;
	int64_t target, tol, nearest = 0;
	char gb[32], near_gb[32];

	if (device) {
		/* the chips the printed capacity tells, if any: a --device
		 * of another HBM per device contradicts them (said, not
		 * overruled: the figures are the report's) */
		struct tp_oom_chip told;
		bool agrees = false;

		chip(e, r, NULL);
		told = *c;
		memset(c, 0, sizeof(*c));
		c->rows[c->n_rows++] = device;
		c->forced = true;
		c->device_bytes = tp_oom_device_bytes(device);
		snprintf(c->basis, sizeof(c->basis), "--device");
		for (size_t i = 0; i < told.n_rows; i++)
			agrees |= tp_oom_device_bytes(told.rows[i]) == c->device_bytes;
		if (told.n_rows && !agrees) {
			memcpy(c->printed_rows, told.rows, sizeof(told.rows));
			c->n_printed = told.n_rows;
			c->printed_bytes = told.device_bytes;
			memcpy(c->printed_basis, told.basis, sizeof(told.basis));
		}
		return;
	}
	if (!cap->present || cap->unknown || !r->memory_space || strcmp(r->memory_space, "hbm") != 0)
		return;
	tf_era = r->fig[TP_OOM_USED].present && r->fig[TP_OOM_TOTAL_USAGE].present &&
		 near(&r->fig[TP_OOM_USED], &r->fig[TP_OOM_TOTAL_USAGE]);
	with_res = r->kind == TP_OOM_COMPILE && !tf_era && res->present && !res->unknown;
	/* sizes saturate (a pasted "260.00E" is INT64_MAX): so do sums */
	target = tp_sat_add(cap->bytes, with_res ? res->bytes : 0);
	tol = tp_sat_add(tp_sat_add(cap->half_unit, with_res ? res->half_unit : 0), 8 << 20);
	for (size_t i = 0; i < tp_device_count() && c->n_rows < 8; i++) {
		const struct tp_device_row *row = tp_device_at(i);

		if (row->vendor == TP_VENDOR_GOOGLE &&
		    llabs(tp_sat_sub(tp_oom_device_bytes(row), target)) <= tol)
			c->rows[c->n_rows++] = row;
	}
	snprintf(gb, sizeof(gb), "%.2fG", (double)target / 1073741824.0);
	if (c->n_rows && with_res)
		snprintf(c->basis, sizeof(c->basis),
			 "capacity %s + runtime reservation %s = %s per device", cap->text, res->text, gb);
	else if (c->n_rows)
		snprintf(c->basis, sizeof(c->basis), "capacity %s = %s per device%s", cap->text, gb,
			 tf_era ? " (Used includes the reservation: TensorFlow era)" : "");
	if (c->n_rows) {
		c->device_bytes = tp_oom_device_bytes(c->rows[0]);
		return;
	}
	/* no device matches: the devices up to 1.5G above the capacity */
	for (size_t i = 0; i < tp_device_count() && c->n_rows < 8; i++) {
		const struct tp_device_row *row = tp_device_at(i);
		int64_t d = tp_sat_sub(tp_oom_device_bytes(row), cap->bytes);

		if (row->vendor == TP_VENDOR_GOOGLE && d > 0 && d <= (int64_t)3 << 29) {
			c->rows[c->n_rows++] = row;
			if (!nearest || d < nearest)
				nearest = d;
		}
	}
	if (!c->n_rows)
		return;
	c->device_bytes = tp_oom_device_bytes(c->rows[0]);
	/* what is true of the text: a printed reservation that, added,
	 * matches no device is said so (report 16: 31.25G + 260.00M) */
	tp_fmt_bytes(near_gb, sizeof(near_gb), (uint64_t)tp_sat_add(cap->bytes, nearest));
	if (with_res)
		snprintf(c->basis, sizeof(c->basis), "capacity %.24s + runtime reservation %.24s = "
			 "%.16s matches no device; the nearest above is %.16s", cap->text, res->text, gb,
			 near_gb);
	else if (res->present && !res->unknown)
		snprintf(c->basis, sizeof(c->basis), "capacity %.24s matches no device; the "
			 "nearest above is %.16s", cap->text, near_gb);
	else
		snprintf(c->basis, sizeof(c->basis),
			 "capacity %s is within 1.5G below a device's HBM (the reservation is not printed)",
			 cap->text);
}

static const char *op_type_of(const struct tp_oom_alloc *a, char *buf, size_t n)
{
	const char *s, *slash, *br;

	if (a->op_type)
		return a->op_type;
	if (a->op_name) {
		slash = a->op_name;
		for (s = a->op_name; *s && *s != '['; s++)
			if (*s == '/')
				slash = s + 1;
		br = strchr(slash, '[');
		snprintf(buf, n, "%.*s", (int)(br ? br - slash : (long)strlen(slash)), slash);
		return buf;
	}
	/* the opcode: the first word right before a '(' after " = " (old
	 * labels print the shape first, whose tiles are not preceded by a
	 * blank) */
	if (a->xla_label && (s = strstr(a->xla_label, " = "))) {
		for (const char *p = s + 3; *p; p++) {
			const char *q = p;

			if (p[-1] != ' ')
				continue;
			while ((*q >= 'a' && *q <= 'z') || *q == '-' || *q == '_' || (*q >= '0' && *q <= '9'))
				q++;
			if (q > p && *q == '(') {
				snprintf(buf, n, "%.*s", (int)(q - p), p);
				return buf;
			}
		}
	}
	return "(unknown)";
}

static void group_add(struct tp_oom_group **g, size_t *n, const char *name,
		      const struct tp_oom_alloc *a)
{
	size_t i;

	for (i = 0; i < *n && strcmp((*g)[i].name, name) != 0; i++)
		;
	if (i == *n) {
		*g = tp_xrealloc(*g, (*n + 1) * sizeof(**g));
		memset(&(*g)[i], 0, sizeof(**g));
		(*g)[i].name = tp_xstrdup(name);
		(*n)++;
	}
	(*g)[i].bytes = tp_sat_add((*g)[i].bytes, a->size.bytes);
	(*g)[i].padding = tp_sat_add((*g)[i].padding, a->padding.present ? a->padding.bytes : 0);
	(*g)[i].count++;
}

static int group_cmp(const void *x, const void *y)
{
	const struct tp_oom_group *a = x, *b = y;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return strcmp(a->name, b->name);
}

static int i64_desc(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? 1 : a > b ? -1 : 0;
}

/* Source ops (a .remat copy and its source once) and how many of the
 * largest cover the overage. */
static void sources(struct tp_oom_explain *e, const struct tp_oom_report *r)
{
	struct tp_oom_group *g = NULL;
	size_t n = 0;
	int64_t *sizes, sum = 0;

	for (size_t i = 0; i < r->n_allocs; i++) {
		const struct tp_oom_alloc *a = &r->allocs[i];
		char idx[32];
		const char *key = a->remat_of ? a->remat_of : a->xla_label_name;

		snprintf(idx, sizeof(idx), "#%zu", i);
		group_add(&g, &n, key ? key : idx, a);
	}
	e->n_sources = n;
	sizes = tp_xcalloc(n ? n : 1, sizeof(*sizes));
	for (size_t i = 0; i < n; i++)
		sizes[i] = g[i].bytes;
	qsort(sizes, n, sizeof(*sizes), i64_desc);
	for (size_t i = 0; i < n && e->has_over && e->over_by > 0; i++) {
		sum = tp_sat_add(sum, sizes[i]);
		if (sum >= e->over_by) {
			e->cover_count = i + 1;
			break;
		}
	}
	free(sizes);
	for (size_t i = 0; i < n; i++)
		free(g[i].name);
	free(g);
}

/* What `memory --split NAME:DIM:N` frees of a buffer of size bytes whose
 * dimension has d elements: it counts as its largest part, ceil(d / N)
 * elements, size x ceil(d / N) / d bytes rounded up (docs/memory.md
 * "What-if"); without overflow. */
static int64_t split_saves(int64_t size, int64_t d, int64_t n)
{
	uint64_t b = (uint64_t)size, dd = (uint64_t)d, part = (uint64_t)((d + n - 1) / n);
	uint64_t part_bytes = b / dd * part + ((b % dd) * part + dd - 1) / dd;

	return size - (int64_t)part_bytes;
}

static void splits(struct tp_oom_explain *e, const struct tp_oom_report *r)
{
	for (size_t i = 0; i < r->n_allocs && e->n_splits + 2 <= 8 && i < 3; i++) {
		const struct tp_oom_alloc *a = &r->allocs[i];
		const struct tp_oom_layout *l = &a->layout;
		int dim = -1;

		if (!l->parsed || !a->size.present)
			continue;
		for (int d = 0; d < l->n_dims; d++)   /* the major-most of size > 1 */
			if (l->dims[d].size > 1 && (dim < 0 || l->dims[d].minor_rank > l->dims[dim].minor_rank))
				dim = d;
		if (dim < 0)
			continue;
		if (a->size.bytes <= 0)
			continue;
		e->splits[e->n_splits++] = (struct tp_oom_split){
			i, dim, 2, split_saves(a->size.bytes, l->dims[dim].size, 2) };
		if (e->has_over && a->size.bytes > e->over_by && e->over_by > 0) {
			int64_t d = l->dims[dim].size, keep = a->size.bytes - e->over_by;   /* > 0 */
			int64_t lo = a->size.bytes / keep + (a->size.bytes % keep != 0), hi = d;

			/* the fewest ways whose largest part leaves keep: parts
			 * of ceil(d / N) save less than size / N where N does not
			 * divide d, so the nominal count may fall short */
			if (lo > d || split_saves(a->size.bytes, d, d) < e->over_by)
				continue;
			while (lo < hi) {
				int64_t mid = lo + (hi - lo) / 2;

				if (split_saves(a->size.bytes, d, mid) >= e->over_by)
					hi = mid;
				else
					lo = mid + 1;
			}
			if (lo > 2)
				e->splits[e->n_splits++] = (struct tp_oom_split){
					i, dim, lo, split_saves(a->size.bytes, d, lo) };
		}
	}
}

/* The pair of dimensions that, made the most minor, the first tile pads
 * least (elements x element bytes, as oom_layout.c counts). */
static bool best_pair(const struct tp_oom_layout *l, struct tp_oom_relayout *out)
{
	int64_t bytes = (l->elem_bits + 7) / 8, best = INT64_MAX;
	int64_t t_minor = l->n_tile == 2 ? l->tile[1] : l->tile[0];
	int64_t t_second = l->n_tile == 2 ? l->tile[0] : 1;

	if (!l->parsed || !l->elem_bits || l->n_tile == 0 || l->n_dims < 2 ||
	    l->padded_bytes <= l->unpadded_bytes)
		return false;
	for (int a = 0; a < l->n_dims; a++) {
		for (int b = 0; b < l->n_dims; b++) {
			int64_t v = bytes;

			if (a == b)
				continue;
			for (int d = 0; d < l->n_dims; d++) {
				int64_t n = l->dims[d].size, t = d == a ? t_minor : d == b ? t_second : 1;

				v = tp_sat_mul(v, t > 1 ? (n + t - 1) / t * t : n);
			}
			if (v < best) {
				best = v;
				out->minor = a;
				out->second = b;
			}
		}
	}
	out->padded_bytes = best;
	out->saves = l->padded_bytes - best;
	return out->saves > 0;
}

static int relayout_cmp(const void *x, const void *y)
{
	const struct tp_oom_relayout *a = x, *b = y;

	if (a->saves != b->saves)
		return a->saves < b->saves ? 1 : -1;
	return a->alloc < b->alloc ? -1 : a->alloc > b->alloc;
}

static void relayouts(struct tp_oom_explain *e, const struct tp_oom_report *r)
{
	struct tp_oom_relayout *all = tp_xcalloc(r->n_allocs + 1, sizeof(*all));
	size_t n = 0;

	for (size_t i = 0; i < r->n_allocs; i++) {
		all[n].alloc = i;
		if (best_pair(&r->allocs[i].layout, &all[n]))
			n++;
	}
	if (n > 1)
		qsort(all, n, sizeof(*all), relayout_cmp);
	for (size_t i = 0; i < n && i < 8; i++)
		e->relayouts[e->n_relayouts++] = all[i];
	free(all);
}

static void missing(struct tp_oom_explain *e, const struct tp_oom_report *r)
{
	const struct tp_oom_alloc *last = r->n_allocs ? &r->allocs[r->n_allocs - 1] : NULL;

	/* the paste starts after the headline: used, capacity, over by */
	if (r->headless)
		e->missing[e->n_missing++] = "headline";
	/* a line printed whose number or unit is lost (figure names) */
	for (int f = 0; f < TP_OOM_FIG_N; f++)
		if (r->unread[f] && !r->fig[f].present && e->n_missing < 8)
			e->missing[e->n_missing++] = tp_oom_fig_name((enum tp_oom_fig)f);
	if (r->kind != TP_OOM_COMPILE || r->early_abort || !r->memory_space ||
	    strcmp(r->memory_space, "hbm") != 0)
		return;
	if (!r->fig[TP_OOM_TOTAL_USAGE].present)
		e->missing[e->n_missing++] = "total_usage";
	if (!r->fig[TP_OOM_PROGRAM_REQUIREMENT].present)
		e->missing[e->n_missing++] = "program_requirement";
	if (!r->n_allocs)
		e->missing[e->n_missing++] = "allocations";
	/* the last entry cut: its size alone, or cut inside it (report 14:
	 * after its Operator line), with no closing "=====" line */
	else if ((!last->shape && !last->operator_text) ||
		 (!last->closed && (!last->shape || !last->xla_label || !last->allocation_type)))
		e->missing[e->n_missing++] = "last_allocation_details";
}

static bool scope_within(const struct tp_scope_tree *t, size_t inner, size_t outer)
{
	for (size_t n = inner; n != 0; n = t->nodes[n].parent)
		if (n == outer)
			return true;
	return outer == 0;
}

/* qsort's context, per thread (as elsewhere in tpuprof) */
static _Thread_local const struct tp_scope_tree *sort_tree;

static int node_by_bytes(const void *x, const void *y)
{
	const struct tp_scope_tree *t = sort_tree;
	const struct tp_scope_node *a = &t->nodes[*(const size_t *)x];
	const struct tp_scope_node *b = &t->nodes[*(const size_t *)y];

	if (a->inclusive != b->inclusive)
		return a->inclusive < b->inclusive ? 1 : -1;
	if (a->depth != b->depth) /* the more specific first */
		return a->depth < b->depth ? 1 : -1;
	return strcmp(a->path, b->path);
}

/* Scopes that together cover the overage when no one scope does: taken
 * largest first, skipping any inside (or around) one already taken, so
 * no byte counts twice; at most eight, else none (the list is too
 * spread out for a short answer). */
static void cover_set(struct tp_oom_explain *e)
{
	const size_t max = sizeof(e->cover_scopes) / sizeof(e->cover_scopes[0]);
	struct tp_scope_tree *t = &e->scopes;
	size_t *order, n = 0;
	int64_t sum = 0;

	if (e->cover_scope != SIZE_MAX) {
		e->cover_scopes[0] = e->cover_scope;
		e->n_cover_scopes = 1;
		return;
	}
	if (t->n < 2)
		return;
	order = tp_xcalloc(t->n, sizeof(*order));
	for (size_t i = 1; i < t->n; i++)
		order[n++] = i;
	sort_tree = t;
	qsort(order, n, sizeof(*order), node_by_bytes);
	for (size_t i = 0; i < n && sum < e->over_by && e->n_cover_scopes < max; i++) {
		bool apart = true;

		for (size_t k = 0; k < e->n_cover_scopes && apart; k++)
			apart = !scope_within(t, order[i], e->cover_scopes[k]) &&
				!scope_within(t, e->cover_scopes[k], order[i]);
		if (!apart)
			continue;
		e->cover_scopes[e->n_cover_scopes++] = order[i];
		sum = tp_sat_add(sum, t->nodes[order[i]].inclusive);
	}
	if (sum < e->over_by)
		e->n_cover_scopes = 0;
	free(order);
}

void tp_oom_explain(struct tp_oom_explain *e, const struct tp_oom_report *r,
		    const struct tp_device_row *device)
{
	char buf[256];

	memset(e, 0, sizeof(*e));
	e->r = r;
	e->cover_scope = SIZE_MAX;
	chip(e, r, device);
	tp_oom_over(e, r);
	tp_oom_cause(e, r);
	tp_oom_budget(e, r);
	tp_scope_tree_init(&e->scopes);
	for (size_t i = 0; i < r->n_allocs; i++) {
		const struct tp_oom_alloc *a = &r->allocs[i];
		const char *scope = a->op_name ? a->op_name : "(no op_name)";

		e->listed_bytes = tp_sat_add(e->listed_bytes, a->size.bytes);
		e->listed_padding = tp_sat_add(e->listed_padding,
					       a->padding.present ? a->padding.bytes : 0);
		tp_scope_tree_add(&e->scopes, tp_str_make(scope, strlen(scope)), a->size.bytes, 1);
		group_add(&e->op_types, &e->n_op_types, op_type_of(a, buf, sizeof(buf)), a);
		group_add(&e->alloc_types, &e->n_alloc_types,
			  a->allocation_type ? a->allocation_type : "(not printed)", a);
	}
	tp_scope_tree_sort(&e->scopes);
	if (r->n_allocs) {        /* qsort(NULL, 0) is undefined (UBSan) */
		qsort(e->op_types, e->n_op_types, sizeof(*e->op_types), group_cmp);
		qsort(e->alloc_types, e->n_alloc_types, sizeof(*e->alloc_types), group_cmp);
	}
	if (e->has_over && e->over_by > 0) {
		e->listed_share_of_over = (double)e->listed_bytes / (double)e->over_by;
		for (size_t i = 1; i < e->scopes.n; i++)
			if (e->scopes.nodes[i].inclusive >= e->over_by &&
			    (e->cover_scope == SIZE_MAX ||
			     e->scopes.nodes[i].depth > e->scopes.nodes[e->cover_scope].depth))
				e->cover_scope = i;
		cover_set(e);
	}
	sources(e, r);
	splits(e, r);
	relayouts(e, r);
	missing(e, r);
}

void tp_oom_explain_release(struct tp_oom_explain *e)
{
	tp_scope_tree_release(&e->scopes);
	for (size_t i = 0; i < e->n_op_types; i++)
		free(e->op_types[i].name);
	for (size_t i = 0; i < e->n_alloc_types; i++)
		free(e->alloc_types[i].name);
	free(e->op_types);
	free(e->alloc_types);
	memset(e, 0, sizeof(*e));
}
