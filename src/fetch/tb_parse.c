/*
 * tb_parse.c - the answers of the TensorBoard/XProf profile plugin, read
 * with their changes across versions (endpoint facts §3): /tools (up to
 * 2.8) maps runs to tools; /runs and /run_tools (2.9+) are lists;
 * /hosts holds strings up to 2.17 and {"hostname": ...} objects from
 * 2.18, with a virtual ALL_HOSTS that is never a file; /module_list is
 * comma-joined text; /capture_profile reports failure in "error" whether
 * the status is 200 (up to 2.19.2) or 500 (2.19.3+).
 */
#include "tpuprof/fetch/fetch_parse.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/fetch/fetch_names.h"
#include "tpuprof/util/util.h"

void tp_strlist_push(struct tp_strlist *l, const char *s)
{
	l->v = tp_xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = tp_xstrdup(s);
}

bool tp_strlist_has(const struct tp_strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

void tp_strlist_release(struct tp_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* A JSON string with no NUL byte inside (a C string cannot hold it). */
static const char *plain_string(json_t *v)
{
	if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
		return NULL;
	return json_string_value(v);
}

static enum tp_err string_list(json_t *doc, const char *what,
			       struct tp_strlist *out, struct tp_error *err)
{
	size_t i;
	json_t *v;

	if (!json_is_array(doc))
		return tp_error_set(err, TP_ERR_NETWORK, "%s: expected a JSON list", what);
	json_array_foreach(doc, i, v) {
		const char *s = plain_string(v);

		if (!s)
			return tp_error_set(err, TP_ERR_NETWORK,
					    "%s: item %zu is not a string", what, i);
		tp_strlist_push(out, s);
	}
	return TP_OK;
}

enum tp_err tp_parse_runs(json_t *doc, struct tp_strlist *runs,
			  struct tp_error *err)
{
	return string_list(doc, "run list", runs, err);
}

enum tp_err tp_parse_run_tools(json_t *doc, struct tp_strlist *tools,
			       struct tp_error *err)
{
	return string_list(doc, "tool list", tools, err);
}

enum tp_err tp_parse_tools_map(json_t *doc, const char *run,
			       struct tp_strlist *runs,
			       struct tp_strlist *tools,
			       struct tp_error *err)
{
	const char *key;
	json_t *v;

	if (!json_is_object(doc))
		return tp_error_set(err, TP_ERR_NETWORK,
				    "run and tool map: expected a JSON object");
	json_object_foreach(doc, key, v) {
		struct tp_strlist ignore = { 0 };
		bool chosen = run && tools && strcmp(key, run) == 0;
		enum tp_err rc;

		rc = string_list(v, "tool list", chosen ? tools : &ignore, err);
		tp_strlist_release(&ignore);
		if (rc != TP_OK)
			return rc;
		tp_strlist_push(runs, key);
	}
	return TP_OK;
}

enum tp_err tp_parse_hosts(json_t *doc, struct tp_strlist *hosts,
			   struct tp_error *err)
{
	size_t i;
	json_t *v;

	if (!json_is_array(doc))
		return tp_error_set(err, TP_ERR_NETWORK, "host list: expected a JSON list");
	json_array_foreach(doc, i, v) {
		const char *s = plain_string(json_is_object(v) ?
					     json_object_get(v, "hostname") : v);

		if (!s)
			return tp_error_set(err, TP_ERR_NETWORK,
					    "host list: item %zu is neither a string nor {\"hostname\": string}",
					    i);
		if (strcmp(s, "ALL_HOSTS") != 0 && !tp_strlist_has(hosts, s))
			tp_strlist_push(hosts, s);
	}
	return TP_OK;
}

void tp_parse_module_list(const char *text, struct tp_strlist *modules)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, ",");
		char *name = tp_xasprintf("%.*s", (int)n, p);
		char *s = name, *e = name + strlen(name);

		while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\r' ||
				 e[-1] == '\t'))
			*--e = '\0';
		if (*s && !tp_strlist_has(modules, s))
			tp_strlist_push(modules, s);
		free(name);
		p += n;
		if (*p == ',')
			p++;
	}
}

static char *opt_string(json_t *obj, const char *key)
{
	const char *s = plain_string(json_object_get(obj, key));

	return s ? tp_xstrdup(s) : NULL;
}

enum tp_err tp_parse_environment(json_t *doc, char **data_location,
				 char **version, struct tp_error *err)
{
	*data_location = *version = NULL;
	if (!json_is_object(doc))
		return tp_error_set(err, TP_ERR_NETWORK, "environment: expected a JSON object");
	*data_location = opt_string(doc, "data_location");
	*version = opt_string(doc, "version");
	return TP_OK;
}

enum tp_err tp_parse_capture(json_t *doc, char **message, struct tp_error *err)
{
	*message = NULL;
	if (!json_is_object(doc))
		return tp_error_set(err, TP_ERR_NETWORK,
				    "capture answer: expected a JSON object");
	if (json_object_get(doc, "error")) {
		char *e = opt_string(doc, "error");
		char *q = tp_quote_name(e ? e : "(no text)");

		tp_error_set(err, TP_ERR_NETWORK, "the server could not capture: %s", q);
		free(q);
		*message = e;
		return TP_ERR_NETWORK;
	}
	*message = opt_string(doc, "result");
	if (!*message)
		return tp_error_set(err, TP_ERR_NETWORK,
				    "capture answer: neither \"result\" nor \"error\"");
	return TP_OK;
}

size_t tp_tool_base_len(const char *tool)
{
	size_t n = strlen(tool);

	return n > 0 && tool[n - 1] == '^' ? n - 1 : n;
}
