/*
 * diff_entry.c - the row sets every part of `tpuprof diff` is built from:
 * rows keyed by label, their values on each side, the JSON reads they
 * start from, and a set written as a document section (changes first).
 * The parts (diff_memory.c, diff_time.c, diff_device.c) and the driver
 * (diff.c) call down to this file; it calls none of them.
 */
#include "tpuprof/util/json_value.h"

#include "diff_internal.h"
#include "tpuprof/util/util.h"

#include <stdlib.h>
#include <string.h>

void diff_set_init(struct diff_set *s)
{
	memset(s, 0, sizeof(*s));
	s->index = json_object();
}

void diff_set_release(struct diff_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		json_decref(s->v[i].keys);
		free(s->v[i].label);
	}
	free(s->v);
	json_decref(s->index);
	memset(s, 0, sizeof(*s));
}

struct diff_entry *diff_set_add(struct diff_set *s, const char *label, json_t *keys)
{
	struct diff_entry *e;

	s->v = tp_xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	e = &s->v[s->n];
	memset(e, 0, sizeof(*e));
	e->keys = keys;
	e->label = tp_xstrdup(label);
	e->seq = s->n++;
	return e;
}

struct diff_entry *diff_set_get(struct diff_set *s, const char *label, json_t *keys)
{
	json_t *i = json_object_get(s->index, label);

	if (i) {
		json_decref(keys);
		return &s->v[json_integer_value(i)];
	}
	json_object_set_new_nocheck(s->index, label, json_integer((json_int_t)s->n));
	return diff_set_add(s, label, keys);
}

void diff_entry_add(struct diff_entry *e, int side, int metric, int64_t v)
{
	e->v[side][metric] = tp_sat_add(e->v[side][metric], v);
	e->has[side][metric] = true;
}

bool diff_int(const json_t *obj, const char *key, int64_t *out)
{
	return tp_json_int_value(json_object_get(obj, key), out);
}

const char *diff_str(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

json_t *diff_path(const json_t *doc, const char *a, const char *b)
{
	json_t *j = json_object_get(doc, a);

	return b ? json_object_get(j, b) : j;
}

char *diff_label(const char *a, const char *b)
{
	return tp_xasprintf("%s\x1f%s", a, b);
}

struct diff_entry *diff_core_entry(struct diff_set *s, const json_t *c)
{
	char *label = diff_label(diff_str(c, "host"), diff_str(c, "plane"));
	json_t *keys = json_object();
	struct diff_entry *e;

	json_object_set_new(keys, "host", json_string(diff_str(c, "host")));
	json_object_set_new(keys, "plane", json_string(diff_str(c, "plane")));
	e = diff_set_get(s, label, keys);
	free(label);
	return e;
}

static int64_t sat_sub(int64_t b, int64_t a)
{
	return tp_sat_sub(b, a);
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v;
}

/* One row of a section while sorting. */
struct row {
	const struct diff_entry *e;
	int64_t delta;
};

static int by_change(const void *x, const void *y)
{
	const struct row *p = x, *q = y;
	int64_t dp = abs64(p->delta), dq = abs64(q->delta);
	int c;

	if (dp != dq)
		return dp > dq ? -1 : 1;
	c = strcmp(p->e->label, q->e->label);
	if (c)
		return c;
	return p->e->seq < q->e->seq ? -1 : p->e->seq > q->e->seq;
}

static json_t *value(bool has, int64_t v)
{
	return has ? tp_json_int(v) : json_null();
}

static json_t *percent(bool has_a, int64_t a, int64_t delta)
{
	if (!has_a || a == 0)
		return json_null();
	return json_real(100.0 * (double)delta / (double)a);
}

static const char *change_word(bool ha, bool hb, int64_t delta)
{
	if (!ha)
		return "appeared";
	if (!hb)
		return "disappeared";
	return delta > 0 ? "grew" : delta < 0 ? "shrank" : "unchanged";
}

/* Sets a, b, delta and percent on obj. */
static void set_values(json_t *obj, bool ha, int64_t a, bool hb, int64_t b)
{
	int64_t delta = sat_sub(hb ? b : 0, ha ? a : 0);

	json_object_set_new(obj, "a", value(ha, a));
	json_object_set_new(obj, "b", value(hb, b));
	json_object_set_new(obj, "delta", tp_json_int(delta));
	json_object_set_new(obj, "percent", percent(ha, a, delta));
}

json_t *diff_section(const struct diff_set *s, int metric, const char *unit,
		     int extra, const char *extra_name, const struct diff_total *total)
{
	static const char *const words[] = { "appeared", "disappeared", "grew", "shrank",
					     "unchanged" };
	json_t *sec = json_object(), *rows = json_array(), *counts = json_object(), *tot;
	struct row *r = tp_xcalloc(s->n + 1, sizeof(*r));
	static const char *const rule_words[] = { "sum", "largest", "smallest", "root",
						  "weighted" };
	enum diff_total_rule rule = total ? total->rule : DIFF_TOTAL_SUM;
	struct diff_total sum = { .rule = rule };
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct diff_entry *e = &s->v[i];
		bool ha = e->has[DIFF_A][metric], hb = e->has[DIFF_B][metric];

		if (!ha && !hb)
			continue;
		r[n].e = e;
		r[n++].delta = sat_sub(hb ? e->v[DIFF_B][metric] : 0,
				       ha ? e->v[DIFF_A][metric] : 0);
		for (int side = 0; side < 2; side++) {
			int64_t v = e->v[side][metric];

			if (!e->has[side][metric])
				continue;
			if (rule == DIFF_TOTAL_LARGEST)
				sum.v[side] = sum.has[side] && sum.v[side] > v ? sum.v[side] : v;
			else if (rule == DIFF_TOTAL_SMALLEST)
				sum.v[side] = sum.has[side] && sum.v[side] < v ? sum.v[side] : v;
			else
				sum.v[side] = tp_sat_add(sum.v[side], v);
			sum.has[side] = true;
		}
	}
	qsort(r, n, sizeof(*r), by_change);
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		json_object_set_new(counts, words[k], json_integer(0));
	for (size_t i = 0; i < n; i++) {
		const struct diff_entry *e = r[i].e;
		bool ha = e->has[DIFF_A][metric], hb = e->has[DIFF_B][metric];
		json_t *row = json_deep_copy(e->keys);
		const char *w = change_word(ha, hb, r[i].delta);

		set_values(row, ha, e->v[DIFF_A][metric], hb, e->v[DIFF_B][metric]);
		json_object_set_new(row, "change", json_string(w));
		if (extra_name) {
			char *ka = tp_xasprintf("%s_a", extra_name);
			char *kb = tp_xasprintf("%s_b", extra_name);

			json_object_set_new(row, ka, value(e->has[DIFF_A][extra], e->v[DIFF_A][extra]));
			json_object_set_new(row, kb, value(e->has[DIFF_B][extra], e->v[DIFF_B][extra]));
			free(ka);
			free(kb);
		}
		json_object_set_new(counts, w,
				    json_integer(json_integer_value(json_object_get(counts, w)) + 1));
		json_array_append_new(rows, row);
	}
	free(r);
	if (!total || !total->set)
		total = &sum;
	tot = json_object();
	set_values(tot, true, total->has[DIFF_A] ? total->v[DIFF_A] : 0, true,
		   total->has[DIFF_B] ? total->v[DIFF_B] : 0);
	json_object_set_new(sec, "unit", json_string(unit));
	json_object_set_new(sec, "total_is", json_string(rule_words[rule]));
	json_object_set_new(sec, "totals", tot);
	json_object_set_new(sec, "counts", counts);
	json_object_set_new(sec, "rows", rows);
	return sec;
}
