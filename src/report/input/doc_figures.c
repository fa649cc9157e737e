/*
 * doc_figures.c - a saved document's figures held to their types before
 * any command reads one. A reader takes a member it cannot read as
 * absent, and an absent figure is no figure to check: a runtime peak
 * of "abc" or -5 passed `check --max-peak` where the whole document
 * failed. Every member named *_bytes or *_ps is, in every document
 * tpuprof writes (docs/json.md), an integer (a decimal string past
 * 2^53), null, or a figure object whose "value" is one; none is
 * negative but a headroom (capacity less a peak, negative when over).
 */
#include "tpuprof/report/report_input.h"

#include <stdio.h>
#include <string.h>

#include "tpuprof/util/util.h"

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && strcmp(s + n - m, end) == 0;
}

static const char *kind_of(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING: return "a string";
	case JSON_REAL: return "a fraction";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_ARRAY: return "a list";
	default: return "not an integer";
	}
}

/* A whole number written as a decimal string (json.md: an integer past
 * 2^53, from hostile input); *negative when it has a sign. */
static bool decimal_string(const json_t *v, bool *negative)
{
	const char *s = json_string_value(v);

	if (!s)
		return false;
	*negative = *s == '-';
	s += *negative;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* What is wrong with member key's value v, or NULL. */
static const char *figure_fault(const char *key, const json_t *v)
{
	const json_t *inner = json_is_object(v) ? json_object_get(v, "value") : v;
	bool negative = false;

	if (json_is_null(inner) && (json_is_null(v) || json_is_object(v)))
		return NULL;
	if (json_is_integer(inner))
		negative = json_integer_value(inner) < 0;
	else if (!decimal_string(inner, &negative))
		return json_is_object(v) ? "an object without an integer value" : kind_of(v);
	if (negative && !strstr(key, "headroom"))
		return "negative";
	return NULL;
}

struct walk {
	char path[512];
	const char *fault;
};

static bool walk_value(struct walk *w, const json_t *v, size_t at);

/* path[at..] extended with what follows, kept to the buffer. */
static size_t extend(struct walk *w, size_t at, const char *fmt_key, const char *key, size_t i)
{
	int n;

	if (at >= sizeof(w->path) - 1)
		return at;
	n = key ? snprintf(w->path + at, sizeof(w->path) - at, fmt_key, key)
		: snprintf(w->path + at, sizeof(w->path) - at, "[%zu]", i);
	return n < 0 ? at : at + (size_t)n >= sizeof(w->path) ? sizeof(w->path) - 1
							 : at + (size_t)n;
}

static bool walk_value(struct walk *w, const json_t *v, size_t at)
{
	const char *key;
	const json_t *m;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, m) {
			size_t to = extend(w, at, at ? ".%s" : "%s", key, 0);

			if ((ends_with(key, "_bytes") || ends_with(key, "_ps")) &&
			    (w->fault = figure_fault(key, m)) != NULL) {
				w->path[to] = '\0';
				return false;
			}
			if (!walk_value(w, m, to))
				return false;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, m)
			if (!walk_value(w, m, extend(w, at, NULL, NULL, i)))
				return false;
	}
	w->path[at] = '\0';
	return true;
}

enum tp_err tp_report_doc_figures_ok(const json_t *doc, const char *name,
				     struct tp_error *err)
{
	struct walk w = { .path = "", .fault = NULL };

	if (walk_value(&w, doc, 0))
		return TP_OK;
	return tp_error_set(err, TP_ERR_INPUT,
			    "%s: not a valid tpuprof report (%s is %s; it holds a whole number of "
			    "bytes or ps)", name, w.path, w.fault);
}
