/*
 * gcs.c - Google Cloud Storage through its JSON API: object lists (with a
 * prefix, page by page) and media downloads pinned to the listed
 * generation, so a resumed download never mixes two versions of an
 * object. STORAGE_EMULATOR_HOST points everything at an emulator, as
 * Google's client libraries do.
 *
 * The bearer token (fetch_get.c) travels in a header to the storage
 * endpoint only and is never written into a URL, a message or the result.
 */
#include "fetch_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tpuprof/util/util.h"

/* Most pages one listing may take (1000 objects each). */
#define MAX_PAGES 10000

static void auth_hint(struct tp_error *err)
{
	static const char hint[] =
		" (check --token, GOOGLE_OAUTH_ACCESS_TOKEN or --token-command)";

	if (strlen(err->msg) + sizeof(hint) <= sizeof(err->msg))
		strcat(err->msg, hint);
}

/* Every object whose name starts with prefix. */
static enum tp_err list_objects(struct fetch_ctx *c, const char *bucket,
				const char *prefix, struct tp_gcs_objects *objs,
				struct tp_error *err)
{
	char *b = tp_url_escape(bucket, false), *token = NULL;
	enum tp_err rc = tp_fetch_gcs_auth(c, err);

	for (unsigned page = 0; rc == TP_OK && page < MAX_PAGES; page++) {
		char *url = tp_xasprintf("%s/storage/v1/b/%s/o", c->gcs_endpoint, b);
		struct tp_http_req q;
		char *next = NULL;

		tp_url_add_param(&url, "prefix", prefix);
		tp_url_add_param(&url, "fields", "items(name,size,generation),nextPageToken");
		if (token)
			tp_url_add_param(&url, "pageToken", token);
		rc = tp_fetch_get(c, url, AUTH_GCS, TP_EXPECT_JSON, false, &q, err);
		if (rc != TP_OK && (q.status == 401 || q.status == 403))
			auth_hint(err);
		if (rc == TP_OK) {
			rc = tp_parse_gcs_page(q.json, objs, &next, err);
			if (rc != TP_OK) {
				char *shown = tp_url_shown(url);
				struct tp_error inner = *err;

				tp_error_set(err, rc, "%s: %s", shown, inner.msg);
				free(shown);
			}
		}
		tp_http_req_clear(&q);
		free(url);
		free(token);
		token = next;
		if (!token)
			break;
	}
	free(token);
	free(b);
	return rc;
}

static char *media_url(struct fetch_ctx *c, const char *bucket,
		       const struct tp_gcs_object *o)
{
	char *b = tp_url_escape(bucket, false), *n = tp_url_escape(o->name, false);
	char *url = tp_xasprintf("%s/storage/v1/b/%s/o/%s", c->gcs_endpoint, b, n);

	tp_url_add_param(&url, "alt", "media");
	if (o->generation)
		tp_url_add_param(&url, "generation", o->generation);
	free(b);
	free(n);
	return url;
}

static void add_object(struct fetch_ctx *c, const char *bucket,
		       const struct tp_gcs_object *o, const char *base)
{
	size_t slen;
	int kind = tp_fetch_file_kind(base, &slen);
	char *stem = tp_xasprintf("%.*s", (int)(strlen(base) - slen), base);
	char *url = media_url(c, bucket, o);
	struct tp_fetch_file *f = tp_fetch_plan_add(c, (enum tp_fetch_kind)kind,
						    "file", stem, base + strlen(base) - slen,
						    NULL, url, AUTH_GCS);

	f->size_hint = o->size;
	free(f->from);
	f->from = tp_xasprintf("gs://%s/%s", bucket, o->name);
	free(stem);
	free(url);
}

/* Adds the capture files directly in dir (no trailing '/'). */
static size_t add_run_objects(struct fetch_ctx *c, const char *bucket,
			      const char *dir, const struct tp_gcs_objects *objs)
{
	size_t dl = strlen(dir), slen, n = 0;
	const char **bases = tp_xcalloc(objs->n + 1, sizeof(*bases));
	size_t *which = tp_xcalloc(objs->n + 1, sizeof(*which));

	for (size_t i = 0; i < objs->n; i++) {
		const char *name = objs->v[i].name, *base;

		if (dl && (strncmp(name, dir, dl) != 0 || name[dl] != '/'))
			continue;
		base = name + dl + (dl ? 1 : 0);
		if (strchr(base, '/') || tp_fetch_file_kind(base, &slen) < 0)
			continue;
		which[n] = i;
		bases[n++] = base;
	}
	tp_fetch_reserve_stems(c, bases, n);
	for (size_t k = 0; k < n; k++)
		add_object(c, bucket, &objs->v[which[k]], bases[k]);
	free(bases);
	free(which);
	return n;
}

enum tp_err tp_fetch_gcs_run(struct fetch_ctx *c, const char *bucket,
			     const char *dir, size_t *found,
			     struct tp_error *err)
{
	struct tp_gcs_objects objs = { 0 };
	char *prefix = tp_xasprintf("%s/", dir);
	enum tp_err rc = list_objects(c, bucket, prefix, &objs, err);

	*found = rc == TP_OK ? add_run_objects(c, bucket, dir, &objs) : 0;
	free(prefix);
	tp_gcs_objects_release(&objs);
	return rc;
}

/* The run an object belongs to, relative to the listed path: for
 * "<rel>/plugins/profile/<session>/<file>" it is "<rel>/<session>" (as
 * TensorBoard names runs), for a file directly in path, path's last
 * component. The run's directory goes to *dir. NULL when the object is
 * no capture file of a run. */
static char *object_run(const char *path, const char *name, char **dir)
{
	size_t pl = strlen(path), slen;
	const char *rel = name + pl + (pl ? 1 : 0), *base = strrchr(name, '/');
	const char *pp = NULL, *s;

	*dir = NULL;
	base = base ? base + 1 : name;
	if ((pl && (strncmp(name, path, pl) != 0 || name[pl] != '/')) ||
	    tp_fetch_file_kind(base, &slen) < 0)
		return NULL;
	if (base == rel) {
		const char *last = strrchr(path, '/');

		*dir = tp_xstrdup(path);
		return tp_xstrdup(pl ? (last ? last + 1 : path) : "(bucket root)");
	}
	for (s = rel; (s = strstr(s, "plugins/profile/")) != NULL; s++)
		if (s == rel || s[-1] == '/')
			pp = s;
	if (!pp)
		return NULL;
	s = pp + strlen("plugins/profile/");
	if (s == base - 1 || strchr(s, '/') != base - 1)
		return NULL;               /* not <session>/<file>          */
	*dir = tp_xasprintf("%.*s", (int)(base - 1 - name), name);
	if (pp == rel)
		return tp_xasprintf("%.*s", (int)(base - 1 - s), s);
	return tp_xasprintf("%.*s/%.*s", (int)(pp - 1 - rel), rel,
			    (int)(base - 1 - s), s);
}

static enum tp_err plan_bucket(struct fetch_ctx *c, const char *bucket,
			       const char *path, struct tp_gcs_objects *objs,
			       struct tp_error *err)
{
	struct tp_strlist runs = { 0 }, dirs = { 0 };
	char *where = tp_xasprintf("gs://%s/%s", bucket, path);
	enum tp_err rc;

	for (size_t i = 0; i < objs->n; i++) {
		char *dir, *run = object_run(path, objs->v[i].name, &dir);

		if (run && !tp_strlist_has(&runs, run)) {
			tp_strlist_push(&runs, run);
			tp_strlist_push(&dirs, dir);
		}
		free(run);
		free(dir);
	}
	/* choose_run sorts runs; remember each run's directory first. */
	{
		struct tp_strlist unsorted = { 0 };

		for (size_t i = 0; i < runs.n; i++)
			tp_strlist_push(&unsorted, runs.v[i]);
		rc = tp_fetch_choose_run(c, &runs, where, err);
		for (size_t i = 0; rc == TP_OK && i < unsorted.n; i++) {
			if (strcmp(unsorted.v[i], c->r->run) != 0)
				continue;
			c->r->raw_from = tp_xasprintf("gs://%s/%s", bucket, dirs.v[i]);
			add_run_objects(c, bucket, dirs.v[i], objs);
			break;
		}
		tp_strlist_release(&unsorted);
	}
	tp_strlist_release(&runs);
	tp_strlist_release(&dirs);
	free(where);
	return rc;
}

/* SOURCE names one object: keep only it, listed from its directory. */
static void keep_only(struct tp_gcs_objects *objs, const char *name)
{
	size_t k = 0;

	for (size_t i = 0; i < objs->n; i++) {
		if (strcmp(objs->v[i].name, name) == 0 && k == 0) {
			struct tp_gcs_object t = objs->v[0];

			objs->v[0] = objs->v[i];
			objs->v[i] = t;
			k = 1;
		}
	}
	for (size_t i = k; i < objs->n; i++) {
		free(objs->v[i].name);
		free(objs->v[i].generation);
	}
	objs->n = k;
}

enum tp_err tp_fetch_from_gcs(struct fetch_ctx *c, struct tp_error *err)
{
	struct tp_gcs_objects objs = { 0 };
	char *bucket, *path, *prefix;
	size_t slen;
	bool one;
	enum tp_err rc = tp_gs_split(c->o->source, &bucket, &path, err);

	if (rc != TP_OK)
		return rc;
	c->r->source_kind = TP_FETCH_GCS;
	c->r->server = tp_xasprintf("Google Cloud Storage JSON API at %s",
				    c->gcs_endpoint);
	one = tp_fetch_file_kind(path, &slen) >= 0;
	prefix = one || !*path ? tp_xstrdup(path) : tp_xasprintf("%s/", path);
	rc = list_objects(c, bucket, prefix, &objs, err);
	if (rc == TP_OK && one) {
		char *slash = strrchr(path, '/');

		keep_only(&objs, path);
		if (slash)
			*slash = '\0';
		else
			path[0] = '\0';
	}
	if (rc == TP_OK)
		rc = plan_bucket(c, bucket, path, &objs, err);
	if (rc == TP_OK)
		rc = tp_fetch_execute(c, err);
	tp_gcs_objects_release(&objs);
	free(prefix);
	free(bucket);
	free(path);
	return rc;
}
