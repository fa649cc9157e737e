/*
 * fuzz_fetch.c - libFuzzer target for what servers answer, read the way
 * `fetch` and `capture` read it: the TensorBoard/XProf plugin's JSON
 * (/runs, /tools, /run_tools, /hosts, /data/environment,
 * /capture_profile), /module_list text, GCS object-list pages and error
 * documents, HTML directory listings, then every name found through the
 * name map and the path checks on its way to the disk, and the body as
 * gzip through the streaming decoder with a limit. Every parser must give
 * a list or one clean error (TP_ERR_NETWORK), never a crash or a leak.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tpuprof/fetch/fetch_names.h"
#include "tpuprof/fetch/fetch_parse.h"
#include "tpuprof/fetch/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every name a server gives passes these before it touches the disk. */
static void names_through_map(struct tp_namemap *map, const struct tp_strlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		bool changed;
		const char *safe = tp_namemap_get(map, l->v[i], &changed);
		char *q = tp_quote_name(l->v[i]);

		/* a safe name is one path component that stays in its folder */
		if (!safe[0] || strchr(safe, '/') || strcmp(safe, ".") == 0 ||
		    strcmp(safe, "..") == 0 || strlen(safe) > TP_SAFE_NAME_MAX + 16)
			abort();
		(void)tp_rel_path_safe(l->v[i]);
		free(q);
	}
}

static void json_answers(json_t *doc, struct tp_namemap *map)
{
	struct tp_strlist l = { 0 }, tools = { 0 };
	struct tp_gcs_objects objs = { 0 };
	struct tp_error err = { 0 };
	char *a = NULL, *b = NULL;

	if (tp_parse_runs(doc, &l, &err) == TP_OK)
		names_through_map(map, &l);
	tp_strlist_release(&l);
	if (tp_parse_tools_map(doc, NULL, &l, NULL, &err) == TP_OK && l.n) {
		char *run = strdup(l.v[l.n - 1]);

		tp_strlist_release(&l);
		if (tp_parse_tools_map(doc, run, &l, &tools, &err) == TP_OK) {
			for (size_t i = 0; i < tools.n; i++)
				if (tp_tool_base_len(tools.v[i]) > strlen(tools.v[i]))
					abort();
		}
		free(run);
	}
	tp_strlist_release(&l);
	tp_strlist_release(&tools);
	(void)tp_parse_run_tools(doc, &l, &err);
	tp_strlist_release(&l);
	if (tp_parse_hosts(doc, &l, &err) == TP_OK)
		names_through_map(map, &l);
	tp_strlist_release(&l);
	if (tp_parse_environment(doc, &a, &b, &err) == TP_OK) {
		free(a);
		free(b);
	}
	a = NULL;
	(void)tp_parse_capture(doc, &a, &err);
	free(a);
	a = NULL;
	if (tp_parse_gcs_page(doc, &objs, &a, &err) == TP_OK) {
		for (size_t i = 0; i < objs.n; i++)
			(void)tp_rel_path_safe(objs.v[i].name);
		free(a);
	}
	tp_gcs_objects_release(&objs);
}

static int count_sink(void *ctx, const void *p, size_t n)
{
	*(size_t *)ctx += n;
	(void)p;
	return TP_OK;
}

/* The body as a gzip Content-Encoding, fed in two pieces, 1 MiB limit. */
static void gzip_body(const uint8_t *data, size_t size)
{
	struct tp_body_decoder d;
	struct tp_error err = { 0 };
	size_t out = 0, half = size / 2;

	if (tp_body_decoder_init(&d, "gzip", 1u << 20, count_sink, &out, &err) != TP_OK)
		return;
	if (tp_body_decoder_feed(&d, data, half, &err) == TP_OK &&
	    tp_body_decoder_feed(&d, data + half, size - half, &err) == TP_OK)
		(void)tp_body_decoder_finish(&d, &err);
	if (out > (1u << 20))
		abort();
	tp_body_decoder_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_namemap map;
	struct tp_strlist l = { 0 };
	char *text, *msg;
	json_t *doc;

	if (size > (1u << 20))
		return 0;
	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	tp_namemap_init(&map);
	doc = json_loadb(text, size, 0, NULL);
	if (doc) {
		json_answers(doc, &map);
		json_decref(doc);
	}
	tp_parse_module_list(text, &l);
	names_through_map(&map, &l);
	tp_strlist_release(&l);
	msg = tp_http_error_message(text);
	free(msg);
	tp_parse_html_listing(text, "/logs/plugins/profile/", &l);
	names_through_map(&map, &l);
	tp_strlist_release(&l);
	tp_parse_html_listing(text, "/", &l);
	for (size_t i = 0; i < l.n; i++)
		if (strcmp(l.v[i], "..") == 0 || strncmp(l.v[i], "../", 3) == 0 ||
		    strstr(l.v[i], "/../") || l.v[i][0] == '/')
			abort();   /* a listing never names a way up or out */
	tp_strlist_release(&l);
	(void)tp_http_content_mismatch(TP_EXPECT_XSPACE, data, size);
	(void)tp_http_content_mismatch(TP_EXPECT_HLO, data, size);
	gzip_body(data, size);
	tp_namemap_release(&map);
	free(text);
	return 0;
}
