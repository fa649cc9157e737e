/*
 * listing.c - lists of objects and files: a GCS JSON API object-list
 * page (storage#objects: items[].name, size as a decimal string,
 * generation; nextPageToken), a GCS error document, and the links of an
 * HTML directory listing from a static file server.
 */
#include "tpuprof/fetch/fetch_parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tpuprof/fetch/fetch_names.h"
#include "tpuprof/util/util.h"

static const char *str_field(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_string(v) ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return NULL;
	return json_string_value(v);
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return !errno && !*end;
}

enum tp_err tp_parse_gcs_page(json_t *doc, struct tp_gcs_objects *objs,
			      char **next_token, struct tp_error *err)
{
	json_t *items, *v;
	const char *tok;
	size_t i;

	*next_token = NULL;
	if (!json_is_object(doc))
		return tp_error_set(err, TP_ERR_NETWORK, "object list: expected a JSON object");
	items = json_object_get(doc, "items");
	if (items && !json_is_array(items))
		return tp_error_set(err, TP_ERR_NETWORK, "object list: \"items\" is not a list");
	json_array_foreach(items, i, v) {
		const char *name = str_field(v, "name");
		const char *gen = str_field(v, "generation");
		struct tp_gcs_object *o;
		uint64_t size;

		if (!name || !parse_u64(str_field(v, "size"), &size))
			return tp_error_set(err, TP_ERR_NETWORK,
					    "object list: item %zu has no name or no decimal size", i);
		objs->v = tp_xgrow(objs->v, &objs->cap, objs->n + 1, sizeof(*objs->v));
		o = &objs->v[objs->n++];
		o->name = tp_xstrdup(name);
		o->generation = gen ? tp_xstrdup(gen) : NULL;
		o->size = size;
	}
	tok = str_field(doc, "nextPageToken");
	if (tok && *tok)
		*next_token = tp_xstrdup(tok);
	return TP_OK;
}

void tp_gcs_objects_release(struct tp_gcs_objects *objs)
{
	for (size_t i = 0; i < objs->n; i++) {
		free(objs->v[i].name);
		free(objs->v[i].generation);
	}
	free(objs->v);
	memset(objs, 0, sizeof(*objs));
}

/* The next href value after *p, as a new string with &amp; undone, or
 * NULL when there is none; *p moves past it. */
static char *next_href(const char **p)
{
	const char *s = *p, *v, *end;
	char *out, *o;

	for (; *s; s++) {
		if (strncasecmp(s, "href", 4) != 0)
			continue;
		v = s + 4;
		while (*v == ' ')
			v++;
		if (*v != '=')
			continue;
		v++;
		while (*v == ' ')
			v++;
		if (*v == '"' || *v == '\'') {
			end = strchr(v + 1, *v);
			v++;
		} else {
			end = v + strcspn(v, " >");
		}
		if (!end)
			break;
		out = tp_xasprintf("%.*s", (int)(end - v), v);
		for (o = out; (o = strstr(o, "&amp;")) != NULL; o++)
			memmove(o + 1, o + 5, strlen(o + 5) + 1);
		*p = *end ? end + 1 : end;
		return out;
	}
	*p = s;
	return NULL;
}

static bool bad_entry(const char *name)
{
	size_t n = strlen(name), slash = strcspn(name, "/");

	if (n == 0 || slash == 0 || (slash < n && slash != n - 1))
		return true;              /* empty, "/x", or "a/b"            */
	return strcmp(name, ".") == 0 || strcmp(name, "./") == 0 ||
	       strcmp(name, "..") == 0 || strcmp(name, "../") == 0;
}

/* An href as an entry of this directory ("name" or "name/"), decoded
 * (control bytes and all: file names are made safe later); NULL when it
 * points elsewhere. */
static char *as_entry(const char *href, const char *dir_path)
{
	size_t dl = strlen(dir_path), n, stop;
	char *raw, *name;

	if (href[0] == '/') {
		if (dl == 0 || dir_path[dl - 1] != '/' ||
		    strncmp(href, dir_path, dl) != 0)
			return NULL;
		href += dl;
	}
	if (strncmp(href, "./", 2) == 0)
		href += 2;
	n = strcspn(href, "?#");
	raw = tp_xasprintf("%.*s", (int)n, href);
	stop = strcspn(raw, ":/");
	if (raw[stop] == ':' || strstr(raw, "%00")) { /* a scheme; a NUL */
		free(raw);
		return NULL;
	}
	name = tp_url_unescape(raw);
	free(raw);
	if (bad_entry(name)) {
		free(name);
		return NULL;
	}
	return name;
}

void tp_parse_html_listing(const char *html, const char *dir_path,
			   struct tp_strlist *entries)
{
	const char *p = html;
	char *href;

	while ((href = next_href(&p)) != NULL) {
		char *name = as_entry(href, dir_path);

		if (name && !tp_strlist_has(entries, name))
			tp_strlist_push(entries, name);
		free(name);
		free(href);
	}
}
