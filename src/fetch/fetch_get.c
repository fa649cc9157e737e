/*
 * fetch_get.c - what every source reader of fetch asks the network with:
 * requests with the source's or the bucket's headers, one or many at a
 * time, and the GCS bearer token. The readers (tensorboard.c, tb_run.c,
 * static.c, gcs.c, logdir.c) call down to this file and it calls none of
 * them, so calls inside the folder point one way.
 *
 * The bearer token comes from --token, GOOGLE_OAUTH_ACCESS_TOKEN (the CLI
 * passes it as the token) or --token-command, run once and only when a
 * bucket is read.
 */
#include "fetch_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tpuprof/util/util.h"

void tp_fetch_fill_headers(struct fetch_ctx *c, struct tp_http_req *q,
			   enum fetch_auth auth)
{
	if (auth == AUTH_SOURCE) {
		q->headers = c->o->headers;
		q->n_headers = c->o->n_headers;
	} else if (auth == AUTH_GCS && c->gcs_auth) {
		c->auth_hdr[0] = c->gcs_auth;
		q->headers = c->auth_hdr;
		q->n_headers = 1;
	}
}

void tp_fetch_http_config(const struct fetch_ctx *c, bool progress,
			  struct tp_http_config *cfg)
{
	*cfg = c->o->http;
	if (c->secret)
		cfg->secret = c->secret;
	if (!progress)
		cfg->progress = NULL;
}

enum tp_err tp_fetch_get_many(struct fetch_ctx *c, struct tp_http_req *reqs,
			      const enum fetch_auth *auth, size_t n,
			      struct tp_error *err)
{
	char **shown = tp_xcalloc(n, sizeof(*shown));
	struct tp_http_config cfg;
	enum tp_err rc;

	/* Progress is for downloads, not for the small listing answers. */
	tp_fetch_http_config(c, false, &cfg);
	for (size_t i = 0; i < n; i++) {
		shown[i] = tp_url_shown(reqs[i].url);
		reqs[i].shown = shown[i];
		tp_fetch_fill_headers(c, &reqs[i], auth[i]);
	}
	rc = tp_http_run(&cfg, reqs, n, err);
	for (size_t i = 0; i < n; i++) {
		reqs[i].shown = NULL;
		free(shown[i]);
	}
	free(shown);
	return rc;
}

enum tp_err tp_fetch_get(struct fetch_ctx *c, const char *url,
			 enum fetch_auth auth, enum tp_http_expect expect,
			 bool missing_ok, struct tp_http_req *req,
			 struct tp_error *err)
{
	memset(req, 0, sizeof(*req));
	req->url = url;
	req->expect = expect;
	req->missing_ok = missing_ok;
	return tp_fetch_get_many(c, req, &auth, 1, err);
}

static enum tp_err run_token_command(const char *cmd, char **token,
				     struct tp_error *err)
{
	FILE *p = popen(cmd, "r");
	char buf[8192];
	size_t n = 0;
	int status;

	*token = NULL;
	if (!p)
		return tp_error_set(err, TP_ERR_NETWORK, "cannot run --token-command");
	n = fread(buf, 1, sizeof(buf) - 1, p);
	while (fgetc(p) != EOF)
		;
	status = pclose(p);
	buf[n] = '\0';
	if (status != 0)
		return tp_error_set(err, TP_ERR_NETWORK,
				    "--token-command failed (exit status %d)",
				    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!buf[0])
		return tp_error_set(err, TP_ERR_NETWORK, "--token-command printed no token");
	*token = tp_xstrdup(buf);
	return TP_OK;
}

enum tp_err tp_fetch_gcs_auth(struct fetch_ctx *c, struct tp_error *err)
{
	char *token = NULL;

	if (c->gcs_auth_done)
		return TP_OK;
	c->gcs_auth_done = true;
	if (c->o->token && *c->o->token) {
		token = tp_xstrdup(c->o->token);
	} else if (c->o->token_command) {
		enum tp_err rc = run_token_command(c->o->token_command, &token, err);

		if (rc != TP_OK)
			return rc;
	}
	if (token) {
		c->gcs_auth = tp_xasprintf("Authorization: Bearer %s", token);
		c->secret = token;
	}
	return TP_OK;
}
