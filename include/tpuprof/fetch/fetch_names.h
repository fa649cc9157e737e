/*
 * fetch_names.h - names and URLs for `tpuprof fetch`: turning names that a
 * server or a bucket chose (runs, hosts, modules, object names) into safe
 * file names, quoting them for messages, percent-encoding, and the URL
 * shapes of the sources (TensorBoard/XProf, gs://, static files).
 *
 * Ownership: every function returning char * returns a new malloc'd string
 * that the caller frees; arguments are borrowed and never kept. A
 * tp_namemap owns its keys and values; tp_namemap_release() frees them.
 * Nothing here touches the network or the file system.
 */
#ifndef TPUPROF_FETCH_NAMES_H
#define TPUPROF_FETCH_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "tpuprof/util/error.h"

/* Longest safe name (bytes), leaving room in NAME_MAX (255) for a suffix
 * such as ".memory_viewer.json.part". */
#define TP_SAFE_NAME_MAX 200

/* One path component made from a foreign name: bytes outside printable
 * ASCII, spaces, '/' and '\' become '_'; leading dots become '_' (so no
 * ".", "..", or hidden file); an empty name becomes "_"; longer than
 * TP_SAFE_NAME_MAX is cut. The result never escapes its directory. */
char *tp_safe_name(const char *name);

/* The name for messages: printable ASCII as is, everything else escaped
 * (\n, \t, \\, \xNN), at most 300 bytes of input then "...". */
char *tp_quote_name(const char *name);

/* Foreign names to unique safe names: the same raw name always maps to
 * the same safe name; a second raw name whose safe form is taken gets
 * "~2", "~3"... appended. */
struct tp_namemap {
	struct tp_namemap_entry {
		char *raw;  /* malloc'd */
		char *safe; /* malloc'd */
	} *v;           /* malloc'd */
	size_t n, cap;
};
void tp_namemap_init(struct tp_namemap *m);
/* Returns the safe name for raw, borrowed from the map (valid until
 * release); *changed is set when it differs from raw. */
const char *tp_namemap_get(struct tp_namemap *m, const char *raw,
			   bool *changed);
void tp_namemap_release(struct tp_namemap *m);

/* True when rel ("a/b/c") may be appended to a local directory: every
 * component non-empty, not "." or "..", without control bytes or '\'. */
bool tp_rel_path_safe(const char *rel);

/* Percent-encodes everything but RFC 3986 unreserved bytes
 * (A-Z a-z 0-9 - . _ ~), and '/' too when keep_slash. */
char *tp_url_escape(const char *s, bool keep_slash);
/* Decodes %XX (a bad escape is kept as is); '+' is not touched. */
char *tp_url_unescape(const char *s);

/* Appends "?k=v" or "&k=v" to *url (realloc'd), value percent-encoded. */
void tp_url_add_param(char **url, const char *key, const char *value);

/* The URL for messages: the user:password@ part is removed. */
char *tp_url_shown(const char *url);

/* An http(s) SOURCE split into its base (scheme://host[:port][/prefix],
 * no trailing slash, no query or fragment, a trailing
 * /data/plugin/profile[/...] removed) and its path. */
struct tp_url_parts {
	char *base;        /* malloc'd                                   */
	char *path;        /* malloc'd, the path after host[:port] ("" for none) */
	char *origin;      /* malloc'd scheme://[userinfo@]host[:port]   */
	char *run;         /* malloc'd: the run= the query or fragment
			    * names (XProf's browser URL), decoded; NULL */
	bool https;
};
enum tp_err tp_url_split(const char *url, struct tp_url_parts *out,
			 struct tp_error *err);
void tp_url_parts_release(struct tp_url_parts *p);

/* gs://bucket[/path]: bucket and path (no leading or trailing '/'). */
enum tp_err tp_gs_split(const char *url, char **bucket, char **path,
			struct tp_error *err);

/* The JSON API endpoint: STORAGE_EMULATOR_HOST when set (with http://
 * added when it has no scheme, as Google's client libraries do), else
 * https://storage.googleapis.com; no trailing slash. */
char *tp_gcs_endpoint(const char *emulator_host);

/* Session names of TensorFlow and JAX are capture times,
 * YYYY_MM_DD_HH_MM_SS. Orders runs newest first: runs whose last path
 * component starts with such a time, latest first; then the others, in
 * their given order. Sorts the array of n names in place (stable). */
void tp_runs_sort_newest(char **runs, size_t n);

#endif
