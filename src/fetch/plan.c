/*
 * plan.c - the fetch context and the plan: which run, which files, and
 * where each goes (out_dir/plugins/profile/<safe run>/<safe stem><suffix>).
 * Every name from a source passes through the context's name map, so one
 * host or module always gets the same file stem and two names never share
 * one.
 */
#include "fetch_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

void tp_fetch_ctx_init(struct fetch_ctx *c, const struct tp_fetch_opts *o,
		       struct tp_fetch_result *r)
{
	memset(c, 0, sizeof(*c));
	c->o = o;
	c->r = r;
	tp_namemap_init(&c->stems);
	c->gcs_endpoint = tp_gcs_endpoint(o->gcs_emulator);
}

void tp_fetch_ctx_release(struct fetch_ctx *c)
{
	tp_namemap_release(&c->stems);
	/* Do not leave the token in freed memory. */
	if (c->gcs_auth)
		memset(c->gcs_auth, 0, strlen(c->gcs_auth));
	if (c->secret)
		memset(c->secret, 0, strlen(c->secret));
	free(c->gcs_auth);
	free(c->secret);
	free(c->gcs_endpoint);
	memset(c, 0, sizeof(*c));
}

static void push_line(char ***v, size_t *n, size_t *cap, const char *fmt,
		      va_list ap)
{
	va_list aq;
	int len;
	char *s;

	va_copy(aq, ap);
	len = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	s = tp_xmalloc(len > 0 ? (size_t)len + 1 : 1);
	vsnprintf(s, len > 0 ? (size_t)len + 1 : 1, fmt, ap);
	*v = tp_xgrow(*v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = s;
}

void tp_fetch_note(struct fetch_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	push_line(&c->r->notes, &c->r->n_notes, &c->r->cap_notes, fmt, ap);
	va_end(ap);
}

void tp_fetch_unavailable(struct fetch_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	push_line(&c->r->unavailable, &c->r->n_unavailable,
		  &c->r->cap_unavailable, fmt, ap);
	va_end(ap);
}

static void set_run(struct fetch_ctx *c, const char *run)
{
	struct tp_fetch_result *r = c->r;
	char *safe = tp_safe_name(run);

	r->run = tp_xstrdup(run);
	r->run_dir = tp_xasprintf("%s/plugins/profile/%s", r->out_dir, safe);
	if (strcmp(safe, run) != 0) {
		char *q = tp_quote_name(run);

		tp_fetch_note(c, "run '%s' is saved as '%s'", q, safe);
		free(q);
	}
	free(safe);
}

enum tp_err tp_fetch_choose_run(struct fetch_ctx *c, struct tp_strlist *runs,
				const char *where, struct tp_error *err)
{
	struct tp_fetch_result *r = c->r;
	const char *want = c->o->run ? c->o->run : c->url_run;

	tp_runs_sort_newest(runs->v, runs->n);
	for (size_t i = 0; i < runs->n; i++) {
		r->runs = tp_xgrow(r->runs, &r->cap_runs, r->n_runs + 1,
				   sizeof(*r->runs));
		r->runs[r->n_runs++] = tp_xstrdup(runs->v[i]);
	}
	if (runs->n == 0)
		return tp_error_set(err, TP_ERR_INPUT, "%s: no profile runs found", where);
	if (!want) {
		set_run(c, runs->v[0]);
		if (runs->n > 1) {
			char *q = tp_quote_name(runs->v[0]);

			tp_fetch_note(c, "taking the newest of %zu runs, '%s' (choose with --run NAME)",
				      runs->n, q);
			free(q);
		}
		return TP_OK;
	}
	if (!tp_strlist_has(runs, want)) {
		char *q = tp_quote_name(want);

		tp_error_set(err, TP_ERR_INPUT, "%s: no run named '%s' (%zu runs there)",
			     where, q, runs->n);
		free(q);
		return TP_ERR_INPUT;
	}
	set_run(c, want);
	return TP_OK;
}

static void note_renamed(struct fetch_ctx *c, const char *role,
			 const char *stem, const char *safe)
{
	char *q = tp_quote_name(stem);

	tp_fetch_note(c, "%s '%s' is saved as '%s'", role, q, safe);
	free(q);
}

void tp_fetch_reserve_stems(struct fetch_ctx *c, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t slen;
		char *stem, *safe;

		if (tp_fetch_file_kind(names[i], &slen) < 0)
			continue;
		stem = tp_xasprintf("%.*s", (int)(strlen(names[i]) - slen), names[i]);
		safe = tp_safe_name(stem);
		if (strcmp(safe, stem) == 0)
			tp_namemap_get(&c->stems, stem, NULL);
		free(safe);
		free(stem);
	}
}

struct tp_fetch_file *tp_fetch_plan_add(struct fetch_ctx *c,
					enum tp_fetch_kind kind,
					const char *role, const char *stem,
					const char *suffix, const char *tool,
					const char *url, enum fetch_auth auth)
{
	struct tp_fetch_result *r = c->r;
	struct tp_fetch_file *f;
	size_t before = c->stems.n;
	bool changed;
	const char *safe;

	/* a listing that names an object twice: one file, not two transfers
	 * racing on one FILE.part */
	for (size_t i = 0; i < r->n_files; i++)
		if (r->files[i].kind == kind && strcmp(r->files[i].url, url) == 0)
			return &r->files[i];
	safe = tp_namemap_get(&c->stems, stem, &changed);

	if (changed && c->stems.n > before)
		note_renamed(c, role, stem, safe);
	r->files = tp_xgrow(r->files, &r->cap_files, r->n_files + 1,
			    sizeof(*r->files));
	f = &r->files[r->n_files++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->status = TP_FILE_PLANNED;
	f->name = tp_xstrdup(stem);
	f->tool = tool ? tp_xstrdup(tool) : NULL;
	f->url = tp_xstrdup(url);
	f->from = strncmp(url, "file://", 7) == 0 ? tp_url_unescape(url + 7) :
		  tp_url_shown(url);
	f->path = tp_xasprintf("%s/%s%s", r->run_dir, safe, suffix);
	f->expect = kind == TP_FILE_XPLANE ? TP_EXPECT_XSPACE :
		    kind == TP_FILE_HLO_PROTO ? TP_EXPECT_HLO : TP_EXPECT_JSON;
	f->local_file = strncmp(url, "file://", 7) == 0;
	f->source_headers = auth == AUTH_SOURCE;
	f->gcs_auth = auth == AUTH_GCS;
	return f;
}

int tp_fetch_file_kind(const char *name, size_t *suffix_len)
{
	static const struct { const char *suffix; int kind; } kinds[] = {
		{ ".xplane.pb", TP_FILE_XPLANE },
		{ ".xplane.pb.gz", TP_FILE_XPLANE },
		{ ".xplane.riegeli", TP_FILE_XPLANE },
		{ ".xplane.riegeli.gz", TP_FILE_XPLANE },
		{ ".hlo_proto.pb", TP_FILE_HLO_PROTO },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (tp_has_suffix(name, kinds[i].suffix) &&
		    strlen(name) > strlen(kinds[i].suffix)) {
			*suffix_len = strlen(kinds[i].suffix);
			return kinds[i].kind;
		}
	}
	return -1;
}

void tp_fetch_result_release(struct tp_fetch_result *r)
{
	for (size_t i = 0; i < r->n_files; i++) {
		struct tp_fetch_file *f = &r->files[i];

		free(f->name);
		free(f->tool);
		free(f->from);
		free(f->path);
		free(f->url);
	}
	for (size_t i = 0; i < r->n_runs; i++)
		free(r->runs[i]);
	for (size_t i = 0; i < r->n_notes; i++)
		free(r->notes[i]);
	for (size_t i = 0; i < r->n_unavailable; i++)
		free(r->unavailable[i]);
	free(r->files);
	free(r->runs);
	free(r->notes);
	free(r->unavailable);
	free(r->source);
	free(r->server);
	free(r->version);
	free(r->tb_version);
	free(r->raw_from);
	free(r->run);
	free(r->out_dir);
	free(r->run_dir);
	free(r->capture_message);
	memset(r, 0, sizeof(*r));
}
