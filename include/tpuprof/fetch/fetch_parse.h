/*
 * fetch_parse.h - reading what servers answer: the TensorBoard/XProf
 * profile plugin's routes (/runs, /tools, /run_tools, /hosts,
 * /module_list, /data/environment, /capture_profile), a GCS JSON API
 * object-list page, and the links of an HTML directory listing.
 *
 * Parsers take a parsed JSON value or a text body (borrowed) and fill a
 * tp_strlist with new malloc'd strings; the caller owns the list and frees
 * it with tp_strlist_release(). Every parser checks types: a server that
 * answers with the wrong shape gets an error (TP_ERR_NETWORK) naming what
 * was wrong, never a crash or a silent empty list. Messages have no URL;
 * the caller prefixes it.
 */
#ifndef TPUPROF_FETCH_PARSE_H
#define TPUPROF_FETCH_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "tpuprof/util/error.h"

struct tp_strlist {
	char **v;          /* malloc'd strings */
	size_t n, cap;
};
void tp_strlist_push(struct tp_strlist *l, const char *s);
bool tp_strlist_has(const struct tp_strlist *l, const char *s);
void tp_strlist_release(struct tp_strlist *l);

/* /runs: a list of strings. */
enum tp_err tp_parse_runs(json_t *doc, struct tp_strlist *runs,
			  struct tp_error *err);
/* /tools (plugin 2.3-2.8): {run: [tool, ...]}; runs in document order,
 * and the tools of run `run` (when not NULL) into tools. */
enum tp_err tp_parse_tools_map(json_t *doc, const char *run,
			       struct tp_strlist *runs,
			       struct tp_strlist *tools,
			       struct tp_error *err);
/* /run_tools: a list of strings. */
enum tp_err tp_parse_run_tools(json_t *doc, struct tp_strlist *tools,
			       struct tp_error *err);
/* /hosts: strings (up to 2.17) or {"hostname": ...} objects (2.18+);
 * the virtual ALL_HOSTS entry is left out. */
enum tp_err tp_parse_hosts(json_t *doc, struct tp_strlist *hosts,
			   struct tp_error *err);
/* /module_list: names joined by commas (text/plain); empty = none. */
void tp_parse_module_list(const char *text, struct tp_strlist *modules);
/* /data/environment: data_location and version (TensorBoard 2.5+), each
 * a new string or NULL when absent. */
enum tp_err tp_parse_environment(json_t *doc, char **data_location,
				 char **version, struct tp_error *err);
/* /capture_profile: {"result": ...} is success (*message = result);
 * {"error": ...} is failure (*message = error text, TP_ERR_NETWORK
 * returned with err naming it). */
enum tp_err tp_parse_capture(json_t *doc, char **message,
			     struct tp_error *err);

/* The tool's name without the "^" (generated from XPlane) suffix of the
 * 2.3-2.19.0 plugins; borrowed length, e.g. "memory_profile^" -> 14. */
size_t tp_tool_base_len(const char *tool);

/* One GCS object from a list page. */
struct tp_gcs_object {
	char *name;        /* malloc'd */
	char *generation;  /* malloc'd, or NULL */
	uint64_t size;
};
struct tp_gcs_objects {
	struct tp_gcs_object *v;  /* malloc'd */
	size_t n, cap;
};
/* A storage#objects page: appends its items; *next_token is the
 * nextPageToken (new string) or NULL on the last page. */
enum tp_err tp_parse_gcs_page(json_t *doc, struct tp_gcs_objects *objs,
			      char **next_token, struct tp_error *err);
void tp_gcs_objects_release(struct tp_gcs_objects *objs);

/* The entries of an HTML directory listing (Python's http.server, nginx
 * and Apache autoindex): the targets of href="..." that name an entry of
 * this directory, percent-decoded, directories with a trailing '/'.
 * dir_path is the listing's URL path (to accept absolute hrefs into it).
 * Links up, to other hosts, queries and fragments are left out. */
void tp_parse_html_listing(const char *html, const char *dir_path,
			   struct tp_strlist *entries);

#endif
