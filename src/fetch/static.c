/*
 * static.c - a logdir served as plain files over http(s) (python -m
 * http.server, nginx or Apache autoindex). Directories are read from
 * their HTML listings: runs are the directories in plugins/profile/ (of
 * the URL, or of its direct subdirectories, as TensorBoard runs nest
 * them), and a URL that is itself a run directory, or names one capture
 * file, is taken as it is. Servers without listings need the file URL.
 */
#include "fetch_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

/* Subdirectories looked into for a nested plugins/profile/. */
#define MAX_SUBDIRS 64

struct static_runs {
	struct tp_strlist names;   /* run names                        */
	struct tp_strlist urls;    /* their directory URLs (with '/')  */
};

static enum tp_err listing(struct fetch_ctx *c, const char *url,
			   struct tp_strlist *entries, struct tp_error *err)
{
	struct tp_http_req q;
	struct tp_url_parts u;
	enum tp_err rc = tp_fetch_get(c, url, AUTH_SOURCE, TP_EXPECT_HTML, false, &q, err);

	if (rc == TP_OK && tp_url_split(url, &u, NULL) == TP_OK) {
		tp_parse_html_listing(q.body, u.path, entries);
		tp_url_parts_release(&u);
	}
	tp_http_req_clear(&q);
	return rc;
}

static char *child_url(const char *dir_url, const char *entry)
{
	size_t n = strlen(entry);
	bool dir = n > 0 && entry[n - 1] == '/';
	char *name = tp_xasprintf("%.*s", (int)(n - dir), entry);
	char *esc = tp_url_escape(name, false);
	char *url = tp_xasprintf("%s%s%s", dir_url, esc, dir ? "/" : "");

	free(esc);
	free(name);
	return url;
}

static void add_runs(struct static_runs *sr, const char *profile_url,
		     const struct tp_strlist *entries, const char *prefix)
{
	for (size_t i = 0; i < entries->n; i++) {
		const char *e = entries->v[i];
		size_t n = strlen(e);
		char *name, *url;

		if (e[n - 1] != '/')
			continue;
		name = tp_xasprintf("%s%s%.*s", prefix, *prefix ? "/" : "",
				    (int)(n - 1), e);
		url = child_url(profile_url, e);
		if (!tp_strlist_has(&sr->names, name)) {
			tp_strlist_push(&sr->names, name);
			tp_strlist_push(&sr->urls, url);
		}
		free(name);
		free(url);
	}
}

/* The runs in dir_url/plugins/profile/, named prefix/<session>. */
static enum tp_err profile_runs(struct fetch_ctx *c, const char *dir_url,
				const char *prefix, struct static_runs *sr,
				struct tp_error *err)
{
	char *url = tp_xasprintf("%splugins/profile/", dir_url);
	struct tp_strlist entries = { 0 };
	enum tp_err rc = listing(c, url, &entries, err);

	if (rc == TP_OK)
		add_runs(sr, url, &entries, prefix);
	tp_strlist_release(&entries);
	free(url);
	return rc;
}

static bool has_capture_files(const struct tp_strlist *entries)
{
	size_t slen;

	for (size_t i = 0; i < entries->n; i++)
		if (tp_fetch_file_kind(entries->v[i], &slen) >= 0)
			return true;
	return false;
}

/* Subdirectories holding plugins/ (TensorBoard runs such as train/). */
static enum tp_err nested_runs(struct fetch_ctx *c, const char *dir_url,
			       const struct tp_strlist *entries,
			       struct static_runs *sr, struct tp_error *err)
{
	for (size_t i = 0, looked = 0; i < entries->n && looked < MAX_SUBDIRS; i++) {
		const char *e = entries->v[i];
		size_t n = strlen(e);
		struct tp_strlist sub = { 0 };
		char *url, *prefix;
		enum tp_err rc;

		if (e[n - 1] != '/' || strcmp(e, "plugins/") == 0)
			continue;
		looked++;
		url = child_url(dir_url, e);
		prefix = tp_xasprintf("%.*s", (int)(n - 1), e);
		rc = listing(c, url, &sub, err);
		if (rc == TP_OK && tp_strlist_has(&sub, "plugins/"))
			rc = profile_runs(c, url, prefix, sr, err);
		tp_strlist_release(&sub);
		free(url);
		free(prefix);
		if (rc != TP_OK)
			return rc;
	}
	return TP_OK;
}

/* The last component of a URL path, decoded ("(root)" for none). */
static char *last_component(const char *path)
{
	size_t n = strlen(path);
	const char *s;
	char *raw, *out;

	while (n > 0 && path[n - 1] == '/')
		n--;
	s = path + n;
	while (s > path && s[-1] != '/')
		s--;
	if (s == path + n)
		return tp_xstrdup("(root)");
	raw = tp_xasprintf("%.*s", (int)(path + n - s), s);
	out = tp_url_unescape(raw);
	free(raw);
	return out;
}

static enum tp_err find_runs(struct fetch_ctx *c, const char *dir_url,
			     const char *path, struct static_runs *sr,
			     struct tp_error *err)
{
	struct tp_strlist entries = { 0 };
	enum tp_err rc = listing(c, dir_url, &entries, err);

	if (rc == TP_OK && tp_strlist_has(&entries, "plugins/"))
		rc = profile_runs(c, dir_url, "", sr, err);
	if (rc == TP_OK && has_capture_files(&entries)) {
		char *name = last_component(path);

		tp_strlist_push(&sr->names, name);
		tp_strlist_push(&sr->urls, dir_url);
		free(name);
	} else if (rc == TP_OK && tp_has_suffix(dir_url, "/plugins/profile/")) {
		add_runs(sr, dir_url, &entries, "");
	} else if (rc == TP_OK) {
		rc = nested_runs(c, dir_url, &entries, sr, err);
	}
	tp_strlist_release(&entries);
	return rc;
}

static void plan_files(struct fetch_ctx *c, const char *dir_url,
		       const struct tp_strlist *entries)
{
	tp_fetch_reserve_stems(c, (const char *const *)entries->v, entries->n);
	for (size_t i = 0; i < entries->n; i++) {
		const char *e = entries->v[i];
		size_t slen;
		int kind = tp_fetch_file_kind(e, &slen);
		char *url, *stem;

		if (kind < 0)
			continue;
		url = child_url(dir_url, e);
		stem = tp_xasprintf("%.*s", (int)(strlen(e) - slen), e);
		tp_fetch_plan_add(c, (enum tp_fetch_kind)kind, "file", stem,
				  e + strlen(e) - slen, NULL, url, AUTH_SOURCE);
		free(stem);
		free(url);
	}
}

static enum tp_err plan_chosen(struct fetch_ctx *c, struct static_runs *sr,
			       struct tp_error *err)
{
	struct tp_strlist unsorted = { 0 }, entries = { 0 };
	enum tp_err rc;

	for (size_t i = 0; i < sr->names.n; i++)
		tp_strlist_push(&unsorted, sr->names.v[i]);
	rc = tp_fetch_choose_run(c, &sr->names, c->r->source, err);
	for (size_t i = 0; rc == TP_OK && i < unsorted.n; i++) {
		if (strcmp(unsorted.v[i], c->r->run) != 0)
			continue;
		rc = listing(c, sr->urls.v[i], &entries, err);
		if (rc == TP_OK) {
			c->r->raw_from = tp_url_shown(sr->urls.v[i]);
			plan_files(c, sr->urls.v[i], &entries);
		}
		break;
	}
	tp_strlist_release(&unsorted);
	tp_strlist_release(&entries);
	return rc;
}

/* SOURCE names one capture file: its directory is the run. */
static enum tp_err one_file(struct fetch_ctx *c, const struct tp_url_parts *u,
			    struct tp_error *err)
{
	const char *slash = strrchr(u->path, '/');
	char *dir = tp_xasprintf("%.*s", (int)(slash - u->path), u->path);
	char *base = tp_url_unescape(slash + 1);
	struct tp_strlist runs = { 0 };
	char *run = last_component(dir), *url, *stem;
	size_t slen;
	int kind = tp_fetch_file_kind(base, &slen);
	enum tp_err rc;

	tp_strlist_push(&runs, run);
	rc = tp_fetch_choose_run(c, &runs, c->r->source, err);
	if (rc == TP_OK && kind >= 0) {
		url = tp_xasprintf("%s%s", u->origin, u->path);
		stem = tp_xasprintf("%.*s", (int)(strlen(base) - slen), base);
		tp_fetch_plan_add(c, (enum tp_fetch_kind)kind, "file", stem,
				  base + strlen(base) - slen, NULL, url, AUTH_SOURCE);
		free(stem);
		free(url);
	}
	tp_strlist_release(&runs);
	free(run);
	free(base);
	free(dir);
	return rc;
}

enum tp_err tp_fetch_from_static(struct fetch_ctx *c,
				 const struct tp_url_parts *u,
				 struct tp_error *err)
{
	struct static_runs sr = { { 0 }, { 0 } };
	size_t slen;
	enum tp_err rc;

	c->r->source_kind = TP_FETCH_STATIC;
	if (tp_fetch_file_kind(u->path, &slen) >= 0) {
		/* a capture file's URL is fetched as it is, no server asked */
		c->r->server = tp_xstrdup("one capture file's URL (no server probed)");
		rc = one_file(c, u, err);
	} else {
		c->r->server = tp_xstrdup("a static file server (no profile plugin answered)");
		size_t n = strlen(u->path);
		char *dir_url = tp_xasprintf("%s%s%s", u->origin, u->path,
					     n && u->path[n - 1] == '/' ? "" : "/");

		rc = find_runs(c, dir_url, u->path, &sr, err);
		if (rc == TP_OK)
			rc = plan_chosen(c, &sr, err);
		free(dir_url);
	}
	if (rc == TP_OK)
		rc = tp_fetch_execute(c, err);
	tp_strlist_release(&sr.names);
	tp_strlist_release(&sr.urls);
	return rc;
}
