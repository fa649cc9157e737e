/*
 * check.c - the rules of `tpuprof check` over a report document: a limit
 * on the memory peak (bytes or a fraction of capacity), a limit on growth
 * against a baseline report (check_growth.c) and a limit on collective
 * bytes. Each rule becomes one row per subject, so the
 * verdict says exactly which core, module or scope broke which limit.
 */
#include "check_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

static enum tp_err peak_rules(struct tp_check *c, const json_t *doc,
			      const struct tp_check_opts *o, const struct tp_check_where *w,
			      struct tp_error *err)
{
	struct tp_check_subjects s = { 0 };
	enum tp_err rc = TP_OK;

	tp_check_memory_subjects(&s, doc, w);
	if (s.n == 0) {
		tp_check_subjects_release(&s);
		return tp_error_set(err, TP_ERR_INPUT,
				    "no memory peak to check: the report has neither compiled programs with a buffer assignment nor runtime memory events");
	}
	for (size_t i = 0; o->has_max_peak && i < s.n; i++) {
		struct tp_check_row *r = tp_check_new_row(c, TP_CHECK_MAX_PEAK, TP_METRIC_PEAK_BYTES,
						 &s.v[i], w->scope);

		r->limit = o->max_peak > INT64_MAX ? INT64_MAX : (int64_t)o->max_peak;
		tp_check_verdict(c, r, r->measured <= r->limit);
	}
	for (size_t i = 0; o->has_max_peak_fraction && i < s.n; i++) {
		const struct tp_check_subject *x = &s.v[i];
		struct tp_check_row *r;

		if (x->capacity <= 0) {
			rc = tp_error_set(err, TP_ERR_USAGE,
					  "--max-peak-fraction: no device capacity known for %s%s%s (give --device NAME or --hbm SIZE)",
					  x->plane ? (x->host ? x->host : "?") : "module ",
					  x->plane ? " " : "",
					  x->plane ? x->plane : x->module ? x->module : "?");
			break;
		}
		r = tp_check_new_row(c, TP_CHECK_MAX_PEAK_FRACTION, TP_METRIC_PEAK_BYTES, x, w->scope);
		r->capacity = x->capacity;
		r->fraction = (double)x->value / (double)x->capacity;
		r->limit_fraction = o->max_peak_fraction;
		r->limit = (int64_t)floor(o->max_peak_fraction * (double)x->capacity);
		tp_check_verdict(c, r, r->measured <= r->limit);
	}
	tp_check_subjects_release(&s);
	return rc;
}

/* " in module M", " under scope S", both or neither: where a rule
 * looked, for its "nothing to measure" error (buf). */
static const char *where_text(char *buf, size_t size, const struct tp_check_where *w)
{
	snprintf(buf, size, "%s%s%s%s%s%s", w->module ? " in module '" : "",
		 w->module ? w->module : "", w->module ? "'" : "",
		 w->scope ? " under scope '" : "", w->scope ? w->scope : "",
		 w->scope ? "'" : "");
	return buf;
}

/* Nothing to measure is an error, never "all 0 checks passed": a
 * capture without XLA collectives (one device, or TF's host collectives,
 * which carry no bytes) cannot show that traffic stayed under a limit. */
static enum tp_err collective_rules(struct tp_check *c, const json_t *doc,
				    const struct tp_check_opts *o,
				    const struct tp_check_where *w, struct tp_error *err)
{
	struct tp_check_subjects s = { 0 };
	char where[512];

	tp_check_collective_subjects(&s, doc, w);
	if (s.n == 0) {
		size_t host = json_array_size(json_object_get(json_object_get(doc, "collectives"),
							      "host_collectives"));

		tp_check_subjects_release(&s);
		return tp_error_set(err, TP_ERR_INPUT,
				    "--max-collective-bytes: no collective to measure%s: the report has no XLA collective with its ring bytes%s",
				    where_text(where, sizeof(where), w),
				    host ? " (its host collective events, TF's, carry no bytes)" : "");
	}
	for (size_t i = 0; i < s.n; i++) {
		struct tp_check_row *r = tp_check_new_row(c, TP_CHECK_MAX_COLLECTIVE_BYTES,
						 TP_METRIC_COLLECTIVE_BYTES, &s.v[i], w->scope);

		r->limit = o->max_collective_bytes > INT64_MAX ? INT64_MAX
							      : (int64_t)o->max_collective_bytes;
		tp_check_verdict(c, r, r->measured <= r->limit);
	}
	tp_check_subjects_release(&s);
	return TP_OK;
}

bool tp_check_any_growth_rule(const struct tp_check_opts *o)
{
	return o->has_max_growth || o->has_max_peak_growth || o->has_max_time_growth ||
	       o->has_max_traffic_growth;
}

#define any_growth_rule tp_check_any_growth_rule

static bool any_advice_rule(const struct tp_check_opts *o)
{
	for (int a = 0; a < TP_CHECK_ADVICE_N; a++)
		if (o->has_advice[a])
			return true;
	return false;
}

static enum tp_err validate(const json_t *doc, const struct tp_check_opts *o,
			    struct tp_error *err)
{
	if (!o->has_max_peak && !o->has_max_peak_fraction && !any_growth_rule(o) &&
	    !o->has_max_collective_bytes && !o->has_min_headroom && !o->has_min_flops_utilization &&
	    !o->has_max_collective_share && !o->has_max_idle_share && !o->has_max_step_time &&
	    !any_advice_rule(o))
		return tp_error_set(err, TP_ERR_USAGE,
				    "no rule given (--max-peak, --max-peak-fraction, --baseline with --max-growth, --max-peak-growth, --max-time-growth or --max-traffic-growth, --max-step-time, --max-collective-bytes, --min-headroom, --min-flops-utilization, --max-collective-share, --max-idle-share, or an advice rule: --max-hbm-bound, --max-compute-bound, --max-input-share, --max-async-wait-share, --max-debug-print-share, --max-barrier-share, --max-sparsecore-share, --max-host-offload-share, --max-straggler-spread, --max-memory-growth)");
	if (any_growth_rule(o) && !o->baseline)
		return tp_error_set(err, TP_ERR_USAGE, "--max-growth needs --baseline REPORT.json");
	if (o->module && !tp_check_doc_module(doc, o->module))
		return tp_error_set(err, TP_ERR_USAGE, "no module '%s' in the report", o->module);
	if (o->scope && !tp_check_doc_has_scope(doc, o->scope))
		return tp_error_set(err, TP_ERR_USAGE, "no scope '%s' in the report", o->scope);
	return TP_OK;
}

/* The entries of info.damage in a report document (or of damage in an
 * info document), and its runtime memories with damaged allocator
 * events (memory.runtime[].damaged_events: their figures are not
 * known, so a peak judged without them is partial); 0 when none. */
static size_t damage_count(const json_t *doc)
{
	const json_t *info = json_object_get(doc, "info");
	const json_t *d = json_object_get(info ? info : doc, "damage"), *r;
	size_t n = json_is_array(d) ? json_array_size(d) : 0, i;

	json_array_foreach(json_object_get(json_object_get(doc, "memory"), "runtime"), i, r)
		n += json_integer_value(json_object_get(r, "damaged_events")) > 0;
	return n;
}

static int by_module(const void *x, const void *y)
{
	const struct tp_check_row *a = *(const struct tp_check_row *const *)x;
	const struct tp_check_row *b = *(const struct tp_check_row *const *)y;

	return strcmp(a->module, b->module);
}

/* Whether a program other than id in the document's modules has name. */
static bool doc_name_shared(const json_t *doc, const char *name, const char *id)
{
	const json_t *mods = json_object_get(json_object_get(doc, "memory"), "modules"), *m;
	size_t i;

	json_array_foreach(mods, i, m) {
		const char *n = json_string_value(json_object_get(m, "name"));
		const char *p = json_string_value(json_object_get(m, "program_id"));

		if (n && p && strcmp(n, name) == 0 && strcmp(p, id) != 0)
			return true;
	}
	return false;
}

/* Rows of programs that share a name are told apart by their ids, as
 * `ops` labels them (NAME #ID, which --module takes back): a row whose
 * name another program of the document has (one --module chose by its
 * label or id among them too), and, for names the modules do not list,
 * the rows with a module sorted by it, each run of one name marked where
 * its ids differ (a pod's thousands of core rows: no pairwise pass). */
static void mark_shared_names(struct tp_check *c, const json_t *doc)
{
	struct tp_check_row **v = tp_xcalloc(c->n_rows + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < c->n_rows; i++) {
		struct tp_check_row *r = &c->rows[i];

		if (!r->module || !r->program_id)
			continue;
		v[n++] = r;
		r->module_shared = doc_name_shared(doc, r->module, r->program_id);
	}
	qsort(v, n, sizeof(*v), by_module);
	for (size_t i = 0, j; i < n; i = j) {
		bool shared = false;

		for (j = i + 1; j < n && strcmp(v[j]->module, v[i]->module) == 0; j++)
			shared |= strcmp(v[j]->program_id, v[i]->program_id) != 0;
		for (size_t k = i; shared && k < j; k++)
			v[k]->module_shared = true;
	}
	free(v);
}

enum tp_err tp_check_run(struct tp_check *c, const json_t *doc,
			 const struct tp_check_opts *o, struct tp_error *err)
{
	struct tp_check_where w = { o->module, o->scope, o->hbm, false };
	enum tp_err rc;

	memset(c, 0, sizeof(*c));
	rc = validate(doc, o, err);
	if (rc == TP_OK && (o->has_max_peak || o->has_max_peak_fraction))
		rc = peak_rules(c, doc, o, &w, err);
	if (rc == TP_OK && any_growth_rule(o))
		rc = tp_check_growth_rules(c, doc, o, &w, err);
	if (rc == TP_OK && o->has_max_step_time)
		rc = tp_check_step_time_rule(c, doc, o, &w, err);
	if (rc == TP_OK && o->has_max_collective_bytes)
		rc = collective_rules(c, doc, o, &w, err);
	if (rc == TP_OK && o->has_min_headroom)
		rc = tp_check_headroom_rule(c, doc, o, &w, err);
	if (rc == TP_OK && o->has_min_flops_utilization)
		rc = tp_check_utilization_rule(c, doc, o, &w, err);
	if (rc == TP_OK && o->has_max_collective_share)
		rc = tp_check_step_share_rule(c, doc, TP_CHECK_MAX_COLLECTIVE_SHARE,
					      o->max_collective_share, &w, err);
	if (rc == TP_OK && o->has_max_idle_share)
		rc = tp_check_step_share_rule(c, doc, TP_CHECK_MAX_IDLE_SHARE,
					      o->max_idle_share, &w, err);
	if (rc == TP_OK)
		rc = tp_check_advice_rules(c, doc, o, &w, err);
	/* the last guard: a gate that checked nothing has not passed */
	if (rc == TP_OK && c->n_rows == 0)
		rc = tp_error_set(err, TP_ERR_INPUT,
				  "nothing to check: no rule found a core, module or scope to measure in the report");
	mark_shared_names(c, doc);
	c->damaged_parts = damage_count(doc) + (o->baseline ? damage_count(o->baseline) : 0);
	c->partial_fails = c->damaged_parts && !o->allow_partial;
	if (rc != TP_OK)
		tp_check_release(c);
	return rc;
}

void tp_check_release(struct tp_check *c)
{
	free(c->rows);
	free(c->pairs);
	memset(c, 0, sizeof(*c));
}
