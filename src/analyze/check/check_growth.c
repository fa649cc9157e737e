/*
 * check_growth.c - the growth rules of `check --baseline`: peak memory,
 * time and traffic of the run against the baseline's, subject by subject.
 * Subjects are paired so that no rule can pass because its subject went
 * missing: cores by host name where the runs share host names, else by
 * the runs' structure (the i-th host with the i-th, cores by plane name:
 * CI runners and pods get new host names every run); modules by name. A
 * subject of either side without counterpart is a row of its own. Time
 * and traffic are compared per step when both runs have steps (a longer
 * capture is not a slower program), totals only when neither has.
 */
#include "check_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/i64map.h"
#include "tpuprof/util/util.h"

#define J(o, k) json_object_get((o), (k))
#define S(o, k) json_string_value(json_object_get((o), (k)))

/* --- hosts and devices ---------------------------------------------- */

struct names {
	const char **v;
	size_t n, cap;
};

static void add_name(struct names *s, const char *name)
{
	if (!name)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], name) == 0)
			return;
	s->v = tp_xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = name;
}

/* The document's hosts in its order: info's, then any only its cores
 * name (a merged or older report). */
static void doc_hosts(struct names *s, const json_t *doc)
{
	static const char *const parts[] = { "ops", "memory" };
	size_t i;
	const json_t *e;

	json_array_foreach(J(J(doc, "info"), "hosts"), i, e)
		add_name(s, S(e, "name"));
	for (size_t p = 0; p < 2; p++)
		json_array_foreach(J(J(doc, parts[p]), "cores"), i, e)
			add_name(s, S(e, "host"));
}

/* "TPU" of "/device:TPU:0"; NULL for a plane of no device. */
static const char *device_kind(const char *plane, size_t *len)
{
	const char *p, *end;

	if (!plane || strncmp(plane, "/device:", 8) != 0)
		return NULL;
	p = plane + 8;
	end = strchr(p, ':');
	*len = end ? (size_t)(end - p) : strlen(p);
	return p;
}

/* The first device kind of the document's cores (into buf), or NULL. */
static const char *doc_kind(const json_t *doc, char *buf, size_t size)
{
	static const char *const parts[] = { "ops", "memory" };
	size_t i, len;
	const json_t *e;
	const char *k;

	for (size_t p = 0; p < 2; p++)
		json_array_foreach(J(J(doc, parts[p]), "cores"), i, e)
			if ((k = device_kind(S(e, "plane"), &len))) {
				snprintf(buf, size, "%.*s", (int)len, k);
				return buf;
			}
	return NULL;
}

static bool shares_a_name(const struct names *a, const struct names *b)
{
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++)
			if (strcmp(a->v[i], b->v[j]) == 0)
				return true;
	return false;
}

/* Pairs the run's hosts with the baseline's: c->match and c->pairs. */
static enum tp_err pair_hosts(struct tp_check *c, const json_t *doc, const json_t *base,
			      struct tp_error *err)
{
	struct names run = { 0 }, old = { 0 };
	char kr[32], kb[32];
	const char *a = doc_kind(doc, kr, sizeof(kr)), *b = doc_kind(base, kb, sizeof(kb));

	if (a && b && strcmp(a, b) != 0)
		return tp_error_set(err, TP_ERR_INPUT,
				    "--baseline: the baseline ran on %s devices, the run on %s: different device kinds cannot be compared",
				    b, a);
	doc_hosts(&run, doc);
	doc_hosts(&old, base);
	c->match = shares_a_name(&run, &old) || !run.n || !old.n ? TP_CHECK_MATCH_NAMES
								 : TP_CHECK_MATCH_STRUCTURE;
	for (size_t i = 0; i < run.n; i++) {
		const char *paired = NULL;

		if (c->match == TP_CHECK_MATCH_STRUCTURE)
			paired = i < old.n ? old.v[i] : NULL;
		else
			for (size_t j = 0; j < old.n && !paired; j++)
				if (strcmp(old.v[j], run.v[i]) == 0)
					paired = old.v[j];
		c->pairs = tp_xgrow(c->pairs, &c->cap_pairs, c->n_pairs + 1, sizeof(*c->pairs));
		c->pairs[c->n_pairs++] = (struct tp_check_host_pair){ run.v[i], paired };
	}
	free(run.v);
	free(old.v);
	return TP_OK;
}

/* The baseline host paired with the run's host, or NULL. */
static const char *paired_host(const struct tp_check *c, const char *host)
{
	for (size_t i = 0; host && i < c->n_pairs; i++)
		if (strcmp(c->pairs[i].run, host) == 0)
			return c->pairs[i].baseline;
	return NULL;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The baseline subject for x not taken yet: its paired core, or the
 * module of that name (program ids change with every compile). */
static long counterpart(const struct tp_check *c, const struct tp_check_subjects *base,
			const bool *taken, const struct tp_check_subject *x)
{
	const char *host = x->plane ? paired_host(c, x->host) : NULL;

	for (size_t i = 0; i < base->n; i++) {
		const struct tp_check_subject *b = &base->v[i];

		if (taken[i])
			continue;
		if (x->plane ? (host && b->plane && same(b->host, host) && same(b->plane, x->plane))
			     : (!b->plane && same(b->module, x->module)))
			return (long)i;
	}
	return -1;
}

/* --- contributors --------------------------------------------------- */

static int64_t contrib_key(const struct tp_check_contrib *c)
{
	return (int64_t)(tp_hash_bytes(c->name, strlen(c->name)) ^ tp_mix64((uint64_t)c->kind[0]));
}

/* Whether s holds a contribution of kind (by its static name). */
static bool has_kind(const struct tp_check_subject *s, const char *kind)
{
	for (size_t i = 0; i < s->n_all; i++)
		if (strcmp(s->all[i].kind, kind) == 0)
			return true;
	return false;
}

/* The contributors that grew most: per kind and name, the value now minus
 * the value in the baseline, largest increase first. A step's parts are
 * compared only where the baseline has them too (a report made before
 * input_ps has none): its whole step would read as growth. */
static void growth_contrib(struct tp_check_row *r, const struct tp_check_subject *x,
			   const struct tp_check_subject *b)
{
	bool parts = has_kind(b, "step_part");
	struct tp_i64map first;
	int64_t *sum = tp_xcalloc(x->n_all + 1, sizeof(*sum));
	size_t i;

	tp_i64map_init(&first, x->n_all);
	for (i = 0; i < x->n_all; i++) {
		int64_t k = contrib_key(&x->all[i]);
		long j = tp_i64map_get(&first, k);

		if (j < 0)
			tp_i64map_put(&first, k, j = (long)i);
		sum[j] = tp_sat_add(sum[j], x->all[i].value);
	}
	for (i = 0; i < b->n_all; i++) {
		long j = tp_i64map_get(&first, contrib_key(&b->all[i]));

		if (j >= 0)
			sum[j] = tp_sat_sub(sum[j], b->all[i].value);
	}
	r->n_contrib = 0;
	for (i = 0; i < x->n_all; i++)
		if (sum[i] > 0 && tp_i64map_get(&first, contrib_key(&x->all[i])) == (long)i &&
		    (parts || strcmp(x->all[i].kind, "step_part") != 0))
			tp_check_contrib_add(r->contrib, &r->n_contrib, x->all[i].kind,
					     x->all[i].name, x->all[i].scope, sum[i]);
	tp_i64map_release(&first);
	free(sum);
}

/* --- the rule ------------------------------------------------------- */

typedef void (*subjects_fn)(struct tp_check_subjects *s, const json_t *doc,
			    const struct tp_check_where *w);

struct growth {
	enum tp_check_metric metric;
	subjects_fn fn;
	double pct;
	bool per_step;
	bool restricted;        /* --module or --scope given */
	const char *flag;       /* the option that asked, for errors      */
	bool own_flag;          /* asked by its own option, not --max-growth */
	const char *what;       /* what the metric reads, for errors       */
};

/* Per step, a core's time is its mean steady step (step_ps), unless a
 * module or scope restricts it to op time (check_ops.c). */
static enum tp_check_metric row_metric(const struct growth *g, const struct tp_check_subject *x)
{
	return g->metric == TP_METRIC_OP_TIME && g->per_step && x->plane && !x->module &&
	       !g->restricted ? TP_METRIC_STEP_TIME : g->metric;
}

static void matched_row(struct tp_check *c, const struct tp_check_where *w,
			const struct growth *g, const struct tp_check_subject *x,
			const struct tp_check_subject *b)
{
	struct tp_check_row *r = tp_check_new_row(c, TP_CHECK_MAX_GROWTH, row_metric(g, x), x,
						  w->scope);
	double lim = floor((double)b->value * (1.0 + g->pct / 100.0));

	r->has_baseline = true;
	r->baseline = b->value;
	r->baseline_host = b->host;
	r->per_step = g->per_step;
	growth_contrib(r, x, b);
	r->limit = lim >= 9.2e18 ? INT64_MAX : (int64_t)lim;
	tp_check_verdict(c, r, r->measured <= r->limit);
}

/* A subject of one side only: a run's is reported and passes (nothing
 * to grow from); a baseline's fails unless allowed, for the rule did
 * not check it. */
static void unmatched_row(struct tp_check *c, const struct tp_check_opts *o,
			  const struct tp_check_where *w, const struct growth *g,
			  const struct tp_check_subject *x, bool in_run)
{
	struct tp_check_row *r = tp_check_new_row(c, TP_CHECK_MAX_GROWTH, row_metric(g, x), x,
						  w->scope);

	r->per_step = g->per_step;
	r->limit = -1;
	r->unmatched = in_run ? TP_CHECK_NOT_IN_BASELINE : TP_CHECK_NOT_IN_RUN;
	if (!in_run) {
		r->has_baseline = true;
		r->baseline = x->value;
		r->baseline_host = x->host;
		if (x->plane)   /* the run's host it would have been */
			for (size_t i = 0; i < c->n_pairs; i++)
				if (same(c->pairs[i].baseline, x->host))
					r->host = c->pairs[i].run;
		r->measured = 0;
		r->n_contrib = 0;
		c->n_unmatched++;
	}
	tp_check_verdict(c, r, in_run || o->allow_unmatched);
}

/* A growth rule that compared nothing must not pass: the run's subjects
 * against a baseline with none (made from an empty or failed run), a
 * metric its own option asked for that neither side has, or nothing
 * paired while --allow-unmatched lets every subject through. Under
 * --max-growth a metric neither side has (traffic on one device) is
 * left out. */
static enum tp_err compared_nothing(const struct tp_check_opts *o, const struct growth *g,
				    size_t n_run, size_t n_base, struct tp_error *err)
{
	if (n_base == 0 && n_run > 0)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: the baseline has no %s to compare the run's %zu with: each would pass unchecked (a baseline made from an empty or failed run?)",
				    g->flag, g->what, n_run);
	if (n_base == 0 && g->own_flag)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: nothing to compare: neither the run nor the baseline has %s",
				    g->flag, g->what);
	if (n_base > 0 && n_run > 0 && o->allow_unmatched)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: no %s of the run has its counterpart in the baseline, and --allow-unmatched passes them all: nothing was compared",
				    g->flag, g->what);
	return TP_OK;
}

static enum tp_err growth_rule(struct tp_check *c, const json_t *doc,
			       const struct tp_check_opts *o, const struct tp_check_where *w,
			       const char *name, const struct growth *g, struct tp_error *err)
{
	struct tp_check_subjects cur = { 0 }, base = { 0 };
	/* The baseline may name the module by another program id: look at
	 * all of its modules, and match by name. */
	struct tp_check_where cw = *w, bw = { name, w->scope, w->hbm, g->per_step };
	bool *taken;
	size_t matched = 0;
	enum tp_err rc = TP_OK;

	cw.per_step = g->per_step;
	g->fn(&cur, doc, &cw);
	g->fn(&base, o->baseline, &bw);
	taken = tp_xcalloc(base.n + 1, sizeof(*taken));
	for (size_t i = 0; i < cur.n; i++) {
		long j = counterpart(c, &base, taken, &cur.v[i]);

		if (j < 0) {
			unmatched_row(c, o, w, g, &cur.v[i], true);
			continue;
		}
		taken[j] = true;
		matched++;
		matched_row(c, w, g, &cur.v[i], &base.v[j]);
	}
	for (size_t j = 0; j < base.n; j++)
		if (!taken[j])
			unmatched_row(c, o, w, g, &base.v[j], false);
	if (matched == 0)
		rc = compared_nothing(o, g, cur.n, base.n, err);
	free(taken);
	tp_check_subjects_release(&cur);
	tp_check_subjects_release(&base);
	return rc;
}

/* --- a filtered baseline ------------------------------------------- */

static const char *filter_of(const json_t *doc, const char *key)
{
	return S(J(J(doc, "ops"), "filter"), key);
}

/* A baseline made with --host, --core or --module holds only part of a
 * run: what it left out would be "new to the baseline" and pass. It is
 * refused unless the run was made with the same filter, or the baseline
 * holds one module and the check gates that module (--module). */
static enum tp_err baseline_filter(const json_t *doc, const struct tp_check_opts *o,
				   struct tp_error *err)
{
	static const char *const keys[] = { "host", "core", "module" };
	const char *given = NULL, *value = NULL;
	bool same = true;

	for (size_t k = 0; k < 3; k++) {
		const char *b = filter_of(o->baseline, keys[k]), *r = filter_of(doc, keys[k]);

		if (b && !given) {
			given = keys[k];
			value = b;
		}
		same &= (!b && !r) || (b && r && strcmp(b, r) == 0);
	}
	if (!given || same)
		return TP_OK;
	if (!filter_of(o->baseline, "host") && !filter_of(o->baseline, "core") && o->module &&
	    strcmp(o->module, filter_of(o->baseline, "module")) == 0)
		return TP_OK;
	/* check filters by --module itself; a host or core only through
	 * the report it reads */
	if (strcmp(given, "module") == 0)
		return tp_error_set(err, TP_ERR_INPUT,
				    "--baseline: the baseline was made with --module '%s' and the run without it: a filtered report holds part of a run, and the rest would pass unchecked (make the baseline without --host, --core and --module, or check the run with --module '%s')",
				    value, value);
	return tp_error_set(err, TP_ERR_INPUT,
			    "--baseline: the baseline was made with --%s '%s' and the run without it: a filtered report holds part of a run, and the rest would pass unchecked (make the baseline without --host, --core and --module, or the run's report with the same: tpuprof report --%s '%s' --format json CAPTURE | tpuprof check --baseline BASELINE ... -)",
			    given, value, given, value);
}

/* Per step when both runs have steps, totals when neither has. */
static enum tp_err growth_basis(struct tp_check *c, const json_t *doc, const json_t *base,
				struct tp_error *err)
{
	bool a = tp_check_doc_has_steps(doc), b = tp_check_doc_has_steps(base);

	if (a != b)
		return tp_error_set(err, TP_ERR_INPUT,
				    "--baseline: the %s has steps and the %s has none: time and traffic cannot be compared per step (give --max-peak-growth alone, or a baseline made the same way)",
				    a ? "run" : "baseline", a ? "baseline" : "run");
	c->growth_per_step = a;
	return TP_OK;
}

enum tp_err tp_check_growth_rules(struct tp_check *c, const json_t *doc,
				  const struct tp_check_opts *o,
				  const struct tp_check_where *w, struct tp_error *err)
{
	const char *name = o->module ? tp_check_doc_module(doc, o->module) : NULL;
	bool time = o->has_max_growth || o->has_max_time_growth;
	bool traffic = o->has_max_growth || o->has_max_traffic_growth;
	enum tp_err rc = baseline_filter(doc, o, err);

	if (rc == TP_OK)
		rc = pair_hosts(c, doc, o->baseline, err);
	if (rc == TP_OK && (time || traffic))
		rc = growth_basis(c, doc, o->baseline, err);
	if (rc != TP_OK)
		return rc;
	if (o->has_max_growth || o->has_max_peak_growth) {
		struct growth g = { TP_METRIC_PEAK_BYTES, tp_check_memory_subjects,
				    o->has_max_peak_growth ? o->max_peak_growth_pct : o->max_growth_pct,
				    false, w->module || w->scope,
				    o->has_max_peak_growth ? "--max-peak-growth" : "--max-growth",
				    o->has_max_peak_growth, "memory peak" };

		rc = growth_rule(c, doc, o, w, name, &g, err);
	}
	if (rc == TP_OK && time) {
		struct growth g = { TP_METRIC_OP_TIME, tp_check_time_subjects,
				    o->has_max_time_growth ? o->max_time_growth_pct : o->max_growth_pct,
				    c->growth_per_step, w->module || w->scope,
				    o->has_max_time_growth ? "--max-time-growth" : "--max-growth",
				    o->has_max_time_growth, "op time" };

		rc = growth_rule(c, doc, o, w, name, &g, err);
	}
	if (rc == TP_OK && traffic) {
		struct growth g = { TP_METRIC_COLLECTIVE_BYTES, tp_check_collective_subjects,
				    o->has_max_traffic_growth ? o->max_traffic_growth_pct
							      : o->max_growth_pct,
				    c->growth_per_step, w->module || w->scope,
				    o->has_max_traffic_growth ? "--max-traffic-growth" : "--max-growth",
				    o->has_max_traffic_growth, "collective ring bytes" };

		rc = growth_rule(c, doc, o, w, name, &g, err);
	}
	return rc;
}
