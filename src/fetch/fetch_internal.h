/*
 * fetch_internal.h - what the source readers (tensorboard.c, gcs.c,
 * static.c, storage.c) share: the fetch context, the plan of files, and
 * single requests. Private to src/fetch/.
 *
 * A source reader lists what it can find, chooses the run
 * (tp_fetch_choose_run) and adds files to the plan (tp_fetch_plan_add);
 * logdir.c then writes the plan into the output directory. Ownership: the
 * context owns the name map, the run's safe name and the GCS credentials
 * (released by tp_fetch_ctx_release); the plan lives in the result.
 */
#ifndef TPUPROF_FETCH_INTERNAL_H
#define TPUPROF_FETCH_INTERNAL_H

#include "tpuprof/fetch/fetch.h"
#include "tpuprof/fetch/fetch_names.h"
#include "tpuprof/fetch/fetch_parse.h"

struct fetch_ctx {
	const struct tp_fetch_opts *o;
	struct tp_fetch_result *r;
	struct tp_namemap stems;     /* hosts and modules -> file stems    */
	char *gcs_auth;              /* "Authorization: Bearer ...", or NULL */
	char *secret;                /* the token alone, masked in messages */
	bool gcs_auth_done;          /* gcs_auth resolved                  */
	char *gcs_endpoint;          /* JSON API base, malloc'd            */
	const char *auth_hdr[1];     /* header array for GCS requests      */
	const char *url_run;         /* the run the URL names (run=), or NULL */
};

void tp_fetch_ctx_init(struct fetch_ctx *c, const struct tp_fetch_opts *o,
		       struct tp_fetch_result *r);
void tp_fetch_ctx_release(struct fetch_ctx *c);

/* Lines for the result; printf-style, foreign names already quoted. */
void tp_fetch_note(struct fetch_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tp_fetch_unavailable(struct fetch_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Which request headers: none, the -H lines, or the GCS bearer token. */
enum fetch_auth { AUTH_NONE, AUTH_SOURCE, AUTH_GCS };

/* The transfer settings for this fetch: the options' own, with the
 * resolved token as the secret to mask; progress only when asked. */
void tp_fetch_http_config(const struct fetch_ctx *c, bool progress,
			  struct tp_http_config *cfg);
/* Sets q's request headers for auth (borrowed from c and the options). */
void tp_fetch_fill_headers(struct fetch_ctx *c, struct tp_http_req *q,
			   enum fetch_auth auth);

/* One GET into memory. The caller clears req (tp_http_req_clear). */
enum tp_err tp_fetch_get(struct fetch_ctx *c, const char *url,
			 enum fetch_auth auth, enum tp_http_expect expect,
			 bool missing_ok, struct tp_http_req *req,
			 struct tp_error *err);
/* Several GETs into memory at once (reqs[i].url etc. set by the caller;
 * headers and shown URLs are filled in here). */
enum tp_err tp_fetch_get_many(struct fetch_ctx *c, struct tp_http_req *reqs,
			      const enum fetch_auth *auth, size_t n,
			      struct tp_error *err);

/* Resolves the GCS token (--token, or --token-command run once). */
enum tp_err tp_fetch_gcs_auth(struct fetch_ctx *c, struct tp_error *err);

/* Sorts runs newest first into the result and takes --run or the newest;
 * TP_ERR_INPUT when there is none or no such run. `where` names the
 * source in the message. */
enum tp_err tp_fetch_choose_run(struct fetch_ctx *c, struct tp_strlist *runs,
				const char *where, struct tp_error *err);

/* A listing's file stems that need no change to be file names keep them:
 * reserved before the others are made safe, so that "a b" (listed first)
 * becomes "a_b~2" rather than "a_b" becoming it. names[i] is the file
 * name; its stem is what tp_fetch_file_kind leaves. */
void tp_fetch_reserve_stems(struct fetch_ctx *c, const char *const *names, size_t n);
/* Adds a file of the chosen run to the plan: stem (a host, a module, or a
 * file name without its suffix, raw; `role` says which, for the note when
 * it has to change) + suffix is made safe and unique. Returns the entry,
 * to set size_hint and the like. */
struct tp_fetch_file *tp_fetch_plan_add(struct fetch_ctx *c,
					enum tp_fetch_kind kind,
					const char *role, const char *stem,
					const char *suffix, const char *tool,
					const char *url, enum fetch_auth auth);
/* How a listed file name counts: TP_FILE_XPLANE (*.xplane.pb[.gz]),
 * TP_FILE_HLO_PROTO (*.hlo_proto.pb), else -1; *suffix_len set. */
int tp_fetch_file_kind(const char *name, size_t *suffix_len);

/* Writes the plan under out_dir (or, with --dry-run, only says what it
 * would do). */
enum tp_err tp_fetch_execute(struct fetch_ctx *c, struct tp_error *err);

/* The raw files of one run in storage the server named; how many. */
size_t tp_fetch_local_run(struct fetch_ctx *c, const char *dir);
enum tp_err tp_fetch_gcs_run(struct fetch_ctx *c, const char *bucket,
			     const char *dir, size_t *found,
			     struct tp_error *err);

/* Starts a result: source (token-free), out_dir, dry_run. */
void tp_fetch_result_start(struct tp_fetch_result *r,
			   const struct tp_fetch_opts *o);

/* The sources. */
enum tp_err tp_fetch_from_gcs(struct fetch_ctx *c, struct tp_error *err);
enum tp_err tp_fetch_from_static(struct fetch_ctx *c,
				 const struct tp_url_parts *u,
				 struct tp_error *err);

/* A TensorBoard or XProf server. */
struct tb_server {
	char *base;             /* scheme://host[:port][/prefix]            */
	char *plugin;           /* base + /data/plugin/profile              */
	bool found;             /* the profile plugin answered              */
	bool tools_era;         /* /tools (2.3-2.8), not /runs             */
	bool standalone;        /* XProf answering HTML for unknown routes  */
	char *version;          /* /version (2.21.5+), or NULL              */
	char *tb_version;       /* /data/environment version, or NULL       */
	bool has_env;           /* /data/environment answered (TensorBoard) */
	char *data_location;    /* /data/environment data_location, or NULL */
	json_t *tools_map;      /* /tools answer (2.3-2.8), or NULL         */
	/* the probe's answer to /runs or /tools, not yet listed from: the
	 * first listing uses it rather than ask again (a big or gs://
	 * logdir's /runs is slow); NULL once used */
	json_t *probed_runs;
};
enum tp_err tp_tb_probe(struct fetch_ctx *c, const char *base,
			struct tb_server *s, struct tp_error *err);
enum tp_err tp_tb_list_runs(struct fetch_ctx *c, struct tb_server *s,
			    struct tp_strlist *runs, struct tp_error *err);
/* Plans the chosen run (c->r->run) from the server. */
enum tp_err tp_tb_plan_run(struct fetch_ctx *c, struct tb_server *s,
			   struct tp_error *err);
void tp_tb_server_release(struct tb_server *s);
/* A TensorBoard that answered /data/environment but not the profile
 * plugin's routes: an error that says so (TP_OK otherwise). */
enum tp_err tp_tb_no_plugin(const struct tb_server *s, const char *where,
			    struct tp_error *err);
/* Describes the server in c->r (server, version). */
void tp_tb_describe(struct fetch_ctx *c, const struct tb_server *s);

#endif
