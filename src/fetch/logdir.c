/*
 * logdir.c - writing the plan into the output directory: the run
 * directory out_dir/plugins/profile/<run>/ is created (never through a
 * symbolic link), files already there are kept unless --force, and the
 * rest is downloaded in parallel, each into FILE.part renamed to FILE only
 * when complete and checked.
 */
#include "fetch_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tpuprof/util/util.h"

/* mkdir -p for path; components at or after `own` (an offset into path)
 * were named by us and must be real directories, not links. */
static enum tp_err make_dirs(const char *path, size_t own, struct tp_error *err)
{
	char *p = tp_xstrdup(path);
	enum tp_err rc = TP_OK;

	for (char *s = p + 1; rc == TP_OK; s++) {
		struct stat st;
		bool last = *s == '\0';

		if (*s != '/' && !last)
			continue;
		*s = '\0';
		if (lstat(p, &st) != 0) {
			if (mkdir(p, 0777) != 0 && errno != EEXIST)
				rc = tp_error_set(err, TP_ERR_OUTPUT, "cannot create directory '%s': %s",
						  p, strerror(errno));
		} else if ((size_t)(s - p) > own && S_ISLNK(st.st_mode)) {
			rc = tp_error_set(err, TP_ERR_OUTPUT,
					  "'%s' is a symbolic link: refusing to write through it", p);
		} else if (!S_ISDIR(st.st_mode) &&
			   !(S_ISLNK(st.st_mode) && stat(p, &st) == 0 && S_ISDIR(st.st_mode))) {
			rc = tp_error_set(err, TP_ERR_OUTPUT, "'%s' exists and is not a directory", p);
		}
		if (last)
			break;
		*s = '/';
	}
	free(p);
	return rc;
}

/* Files already there are kept unless --force. */
static enum tp_err mark_existing(struct fetch_ctx *c, struct tp_error *err)
{
	size_t kept = 0;

	for (size_t i = 0; i < c->r->n_files; i++) {
		struct tp_fetch_file *f = &c->r->files[i];
		struct stat st;

		if (lstat(f->path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			return tp_error_set(err, TP_ERR_OUTPUT, "'%s' exists and is a directory",
					    f->path);
		/* one of another size than the listing gives is no copy of
		 * it (cut short before): fetched again */
		if (c->o->force || (f->size_hint && (uint64_t)st.st_size != f->size_hint))
			continue;
		f->status = TP_FILE_KEPT;
		f->bytes = (uint64_t)st.st_size;
		kept++;
	}
	if (kept)
		tp_fetch_note(c, "%zu file%s already in %s kept (--force fetches %s again)",
			      kept, kept == 1 ? "" : "s", c->r->run_dir,
			      kept == 1 ? "it" : "them");
	return TP_OK;
}

static void request_for(struct fetch_ctx *c, const struct tp_fetch_file *f,
			struct tp_http_req *q)
{
	memset(q, 0, sizeof(*q));
	q->url = f->url;
	q->shown = f->from;
	q->expect = f->expect;
	q->dest = f->path;
	q->local_file = f->local_file;
	q->size_hint = f->size_hint;
	/* The server's "No Data": tool JSON and modules may be missing. */
	q->missing_ok = f->kind == TP_FILE_TOOL_JSON ||
			(f->kind == TP_FILE_HLO_PROTO && f->source_headers);
	/* a tool's view the server answers with an error status (a converter
	 * that fails: HTTP 500) is one view not available, not a failed fetch */
	q->optional = f->kind == TP_FILE_TOOL_JSON;
	tp_fetch_fill_headers(c, q, f->source_headers ? AUTH_SOURCE :
			      f->gcs_auth ? AUTH_GCS : AUTH_NONE);
}

static void record_missing(struct fetch_ctx *c, struct tp_fetch_file *f)
{
	char *q = tp_quote_name(f->name);

	f->status = TP_FILE_MISSING;
	if (f->tool)
		tp_fetch_unavailable(c, "%s for '%s': the server has no data (404)",
				     f->tool, q);
	else
		tp_fetch_unavailable(c, "module '%s': the server has no HloProto for it (404)", q);
	free(q);
}

static void record_failed(struct fetch_ctx *c, struct tp_fetch_file *f, const char *why)
{
	char *q = tp_quote_name(f->name);

	f->status = TP_FILE_MISSING;
	tp_fetch_unavailable(c, "%s for '%s': the server failed: %s", f->tool ? f->tool : "?",
			     q, why);
	free(q);
}

/* An empty capture file is no capture: the profiler leaves one when the
 * XSpace would pass protobuf's 2 GB (endpoint-facts §7.1). Not promised
 * as readable, and not left where `tpuprof info DIR` would refuse it. */
static void record_empty(struct fetch_ctx *c, struct tp_fetch_file *f)
{
	char *q = tp_quote_name(f->name);

	unlink(f->path);
	f->status = TP_FILE_MISSING;
	tp_fetch_unavailable(c, "'%s' is empty (0 bytes) on the server, as the profiler leaves "
			     "a capture over 2 GB: not kept", q);
	free(q);
}

static enum tp_err download(struct fetch_ctx *c, struct tp_error *err)
{
	struct tp_fetch_result *r = c->r;
	struct tp_http_req *reqs = tp_xcalloc(r->n_files, sizeof(*reqs));
	size_t *idx = tp_xcalloc(r->n_files, sizeof(*idx)), n = 0;
	struct tp_http_config cfg;
	enum tp_err rc;

	for (size_t i = 0; i < r->n_files; i++) {
		if (r->files[i].status != TP_FILE_PLANNED)
			continue;
		request_for(c, &r->files[i], &reqs[n]);
		idx[n++] = i;
	}
	tp_fetch_http_config(c, true, &cfg);
	rc = tp_http_run(&cfg, reqs, n, err);
	for (size_t k = 0; k < n; k++) {
		struct tp_fetch_file *f = &r->files[idx[k]];

		if (rc == TP_OK && reqs[k].failed)
			record_failed(c, f, reqs[k].why);
		else if (rc == TP_OK && reqs[k].status == 404 && reqs[k].missing_ok)
			record_missing(c, f);
		else if (rc == TP_OK && f->kind == TP_FILE_XPLANE && reqs[k].bytes == 0)
			record_empty(c, f);
		else if (rc == TP_OK) {
			f->status = TP_FILE_FETCHED;
			f->bytes = reqs[k].bytes;
		}
		tp_http_req_clear(&reqs[k]);
	}
	free(reqs);
	free(idx);
	return rc;
}

enum tp_err tp_fetch_execute(struct fetch_ctx *c, struct tp_error *err)
{
	enum tp_err rc = mark_existing(c, err);
	size_t todo = 0;
	bool gcs = false;

	if (rc != TP_OK || c->o->dry_run)
		return rc;
	for (size_t i = 0; i < c->r->n_files; i++) {
		const struct tp_fetch_file *f = &c->r->files[i];

		todo += f->status == TP_FILE_PLANNED;
		gcs |= f->status == TP_FILE_PLANNED && f->gcs_auth;
	}
	if (c->r->n_files == 0)   /* nothing fetched, nothing kept */
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: the run '%s' holds no file tpuprof reads (no .xplane.pb; "
				    "--tools names the tool data to fetch)", c->o->source,
				    c->r->run ? c->r->run : "?");
	if (todo == 0)
		return TP_OK;
	if (gcs && (rc = tp_fetch_gcs_auth(c, err)) != TP_OK)
		return rc;
	rc = make_dirs(c->r->run_dir, strlen(c->r->out_dir), err);
	if (rc != TP_OK)
		return rc;
	return download(c, err);
}
