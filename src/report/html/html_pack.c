/*
 * html_pack.c - the page's data in columns (html.h): an array of objects
 * that all have the same keys in the same order, like the ops of a core,
 * is written once as its keys and then as rows of values, so that 100,000
 * ops do not repeat their 20 key names 100,000 times (the page's data
 * about halve). The page's script turns such arrays back into objects
 * when it reads the data.
 */
#include "tpuprof/report/html.h"

#include <string.h>

/* Below this, a table saves too little to be worth the unusual shape. */
#define MIN_ROWS 4

static bool same_keys(json_t *first, json_t *o)
{
	const char *k;
	json_t *v;
	void *it = json_object_iter(o);

	if (!json_is_object(o) || json_object_size(o) != json_object_size(first))
		return false;
	json_object_foreach(first, k, v) {
		if (!it || strcmp(json_object_iter_key(it), k) != 0)
			return false;
		it = json_object_iter_next(o, it);
	}
	return true;
}

static bool is_table(json_t *a)
{
	json_t *first = json_array_get(a, 0);
	size_t i;
	json_t *o;

	if (json_array_size(a) < MIN_ROWS || !json_is_object(first) || !json_object_size(first))
		return false;
	json_array_foreach(a, i, o)
		if (!same_keys(first, o))
			return false;
	return true;
}

/* A column whose scalar value is the same in every row (ops of one kind
 * share their cost source, async part, reasons): given once. */
static bool constant_column(json_t *a, const char *k)
{
	json_t *first = json_object_get(json_array_get(a, 0), k), *o;
	size_t i;

	if (json_is_object(first) || json_is_array(first))
		return false;
	json_array_foreach(a, i, o)
		if (!json_equal(json_object_get(o, k), first))
			return false;
	return true;
}

static json_t *table(json_t *a)
{
	json_t *t = json_object(), *cols = json_array(), *rows = json_array();
	json_t *consts = json_object();
	json_t *first = json_array_get(a, 0), *o, *v;
	const char *k;
	size_t i;

	json_object_foreach(first, k, v) {
		json_array_append_new(cols, json_string(k));
		if (constant_column(a, k))
			json_object_set(consts, k, v);
	}
	json_array_foreach(a, i, o) {
		json_t *row = json_array();

		json_object_foreach(o, k, v)
			if (!json_object_get(consts, k))
				json_array_append_new(row, tp_html_pack(v));
		json_array_append_new(rows, row);
	}
	json_object_set_new(t, TP_HTML_COLUMNS, cols);
	json_object_set_new(t, TP_HTML_ROWS, rows);
	if (json_object_size(consts))
		json_object_set_new(t, TP_HTML_CONSTANTS, consts);
	else
		json_decref(consts);
	return t;
}

json_t *tp_html_pack(json_t *v)
{
	json_t *out, *x;
	const char *k;
	size_t i;

	if (json_is_object(v)) {
		out = json_object();
		json_object_foreach(v, k, x)
			json_object_set_new(out, k, tp_html_pack(x));
		return out;
	}
	if (!json_is_array(v))
		return json_incref(v);
	if (is_table(v))
		return table(v);
	out = json_array();
	json_array_foreach(v, i, x)
		json_array_append_new(out, tp_html_pack(x));
	return out;
}
