/*
 * paths.c - expanding a directory CAPTURE argument: a TensorBoard logdir
 * (…/plugins/profile/<run>/), a run directory with one *.xplane.pb per
 * host, or an XLA dump directory (module_NNNN.*.hlo.pb).
 *
 * File lists are sorted by name so that hosts and modules come out in the
 * same order on every machine. The newest run of a logdir is the newest
 * by time: the time its name says where it is TensorBoard's
 * (YYYY_MM_DD_HH_MM_SS, the capture's start, UTC), else the newest
 * modification time of its capture files; the greatest name among equals.
 * Not the greatest name: 'aaa_new' of today is newer than 'zzz_old'.
 */
#include "capture_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

struct name_list {
	char **names; /* malloc'd strings */
	size_t n, cap;
};

static void list_free(struct name_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	memset(l, 0, sizeof(*l));
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Lists the entries of dir (no "." or ".."), sorted. */
static enum tp_err list_dir(const char *dir, struct name_list *out,
			    struct tp_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	memset(out, 0, sizeof(*out));
	if (!d)
		return tp_error_set(err, TP_ERR_INPUT, "%s: cannot open directory: %s",
				    dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		out->names = tp_xgrow(out->names, &out->cap, out->n + 1,
				      sizeof(*out->names));
		out->names[out->n++] = tp_xstrdup(e->d_name);
	}
	closedir(d);
	if (out->n)
		qsort(out->names, out->n, sizeof(*out->names), cmp_names);
	return TP_OK;
}

static bool is_xplane_name(const char *n)
{
	return tp_has_suffix(n, ".xplane.pb") || tp_has_suffix(n, ".xplane.pb.gz") ||
	       tp_has_suffix(n, ".xplane.riegeli") ||
	       tp_has_suffix(n, ".xplane.riegeli.gz");
}

static bool is_dump_name(const char *n)
{
	return tp_has_suffix(n, ".hlo.pb");
}

/* A run holds hosts, or only modules (`tpuprof fetch` from a server that
 * cannot give the raw .xplane.pb files). */
/* Whether dir holds captures, and the newest modification time of them
 * (seconds since the epoch) into *newest. */
static bool dir_has_xplane(const char *dir, int64_t *newest)
{
	struct name_list l;
	bool found = false;

	*newest = INT64_MIN;
	if (list_dir(dir, &l, NULL) != TP_OK)
		return false;
	for (size_t i = 0; i < l.n; i++) {
		struct stat st;
		char *full;

		if (!is_xplane_name(l.names[i]) && !tp_has_suffix(l.names[i], ".hlo_proto.pb"))
			continue;
		found = true;
		full = tp_xasprintf("%s/%s", dir, l.names[i]);
		if (stat(full, &st) == 0 && (int64_t)st.st_mtime > *newest)
			*newest = (int64_t)st.st_mtime;
		free(full);
	}
	list_free(&l);
	return found;
}

/* The time a TensorBoard run name says (YYYY_MM_DD_HH_MM_SS, UTC), or
 * false for any other name. */
static bool name_time(const char *name, int64_t *out)
{
	struct tm tm;
	int n = 0;

	memset(&tm, 0, sizeof(tm));
	if (strlen(name) != 19 ||
	    sscanf(name, "%4d_%2d_%2d_%2d_%2d_%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 || n != 19)
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*out = (int64_t)timegm(&tm);
	return true;
}

static bool module_known(const struct tp_capture *cap, uint64_t id)
{
	for (size_t i = 0; i < cap->n_modules; i++)
		if (cap->modules[i].program_id_known &&
		    cap->modules[i].program_id == id)
			return true;
	return false;
}

/* XProf's cache files beside the hosts repeat embedded modules; the empty
 * NO_MODULE.hlo_proto.pb marker says there are none. */
static bool skip_cached_module(struct tp_capture *cap, const char *dir,
			       const char *name)
{
	char *full = tp_xasprintf("%s/%s", dir, name);
	struct stat st;
	uint64_t id;
	size_t n = strlen(name) - strlen(".hlo_proto.pb");
	bool skip = stat(full, &st) == 0 && st.st_size == 0;

	free(full);
	if (!skip && tp_parse_paren_id(tp_str_make(name, n), &id) &&
	    module_known(cap, id))
		skip = true;
	return skip;
}

static enum tp_err add_run_dir(struct tp_capture *cap, const char *dir,
			       const struct name_list *l,
			       const struct tp_open_opts *opts,
			       struct tp_error *err)
{
	enum tp_err rc = TP_OK;

	for (size_t i = 0; i < l->n && rc == TP_OK; i++) {
		char *full;

		if (!is_xplane_name(l->names[i]))
			continue;
		full = tp_xasprintf("%s/%s", dir, l->names[i]);
		rc = tp_capture_add_file(cap, full, opts, false, err);
		free(full);
	}
	/* the hosts' embedded modules decide which cache files to skip */
	if (rc == TP_OK)
		rc = tp_capture_flush_hosts(cap, opts, err);
	for (size_t i = 0; i < l->n && rc == TP_OK; i++) {
		char *full;

		if (!tp_has_suffix(l->names[i], ".hlo_proto.pb") ||
		    skip_cached_module(cap, dir, l->names[i]))
			continue;
		full = tp_xasprintf("%s/%s", dir, l->names[i]);
		rc = tp_capture_add_file(cap, full, opts, false, err);
		free(full);
	}
	return rc;
}

/* An XLA dump: the after-optimizations protos carry buffer assignment;
 * other passes are taken only when there are none. */
static enum tp_err add_dump_dir(struct tp_capture *cap, const char *dir,
				const struct name_list *l,
				const struct tp_open_opts *opts,
				struct tp_error *err)
{
	bool have_after = false;
	enum tp_err rc = TP_OK;

	for (size_t i = 0; i < l->n; i++)
		if (is_dump_name(l->names[i]) &&
		    strstr(l->names[i], "after_optimizations"))
			have_after = true;
	for (size_t i = 0; i < l->n && rc == TP_OK; i++) {
		char *full;

		if (!is_dump_name(l->names[i]) ||
		    (have_after && !strstr(l->names[i], "after_optimizations")))
			continue;
		full = tp_xasprintf("%s/%s", dir, l->names[i]);
		rc = tp_capture_add_file(cap, full, opts, true, err);
		free(full);
	}
	return rc;
}

/* A directory of runs: pick the named one or the newest. */
/* XProf's tool outputs (data_<run>_<tool>_<host>.json.gz, as the
 * TensorBoard plugin or `xprof` export them): JSON made from a capture,
 * not one. How many files look so, the tools named in *tools. */
static size_t xprof_tool_outputs(const struct name_list *l, char *tools, size_t n)
{
	static const char *const known[] = {
		"overview_page", "op_profile", "hlo_stats", "framework_op_stats",
		"memory_viewer", "memory_profile", "trace_viewer", "input_pipeline",
		"roofline_model", "pod_viewer", "kernel_stats", "graph_viewer",
	};
	size_t found = 0, used = 0;

	tools[0] = '\0';
	for (size_t i = 0; i < l->n; i++) {
		const char *name = l->names[i];
		bool json = tp_has_suffix(name, ".json.gz") || tp_has_suffix(name, ".json");

		for (size_t k = 0; json && k < sizeof(known) / sizeof(known[0]); k++) {
			if (!strstr(name, known[k]))
				continue;
			found++;
			if (!strstr(tools, known[k]) && used + strlen(known[k]) + 3 < n)
				used += (size_t)snprintf(tools + used, n - used, "%s%s", used ? ", " : "",
							 known[k]);
			break;
		}
	}
	return found;
}

/* --run as the server names a run or as fetch wrote it here: a nested run
 * "train/2023_01_01" is the folder train_2023_01_01 (fetch's note). */
static bool run_named(const char *want, const char *folder)
{
	for (; *want && *folder; want++, folder++)
		if (*want != *folder && !(*want == '/' && *folder == '_'))
			return false;
	return !*want && !*folder;
}

static enum tp_err add_profile_dir(struct tp_capture *cap, const char *dir,
				   const struct tp_open_opts *opts,
				   struct tp_error *err)
{
	struct name_list l;
	const char *pick = NULL;
	int64_t newest = INT64_MIN;
	bool by_name = false;
	size_t n_runs = 0;
	char tools[256];
	enum tp_err rc = list_dir(dir, &l, err);

	if (rc != TP_OK)
		return rc;
	for (size_t i = 0; i < l.n; i++) {
		char *full = tp_xasprintf("%s/%s", dir, l.names[i]);
		int64_t when, files;
		bool run = is_dir(full) && dir_has_xplane(full, &files);
		bool named;

		free(full);
		if (!run)
			continue;
		n_runs++;
		named = name_time(l.names[i], &when);
		if (!named)
			when = files;
		/* sorted by name: among equal times the greatest name */
		if (opts->run ? run_named(opts->run, l.names[i]) : !pick || when >= newest) {
			pick = l.names[i];
			newest = when;
			by_name = named;
		}
	}
	if (!pick && !n_runs && xprof_tool_outputs(&l, tools, sizeof(tools))) {
		rc = tp_error_set(err, TP_ERR_INPUT, "%s: XProf's tool outputs (%zu JSON files: %s), "
				  "not a capture: tpuprof reads the *.xplane.pb they are made from, in the "
				  "logdir's plugins/profile/RUN/ (copy those, or 'tpuprof fetch' the logdir)",
				  dir, xprof_tool_outputs(&l, tools, sizeof(tools)), tools);
	} else if (!pick) {
		rc = opts->run && n_runs
			     ? tp_error_set(err, TP_ERR_INPUT, "%s: no run named '%s' (%zu runs here)",
					    dir, opts->run, n_runs)
			     : tp_error_set(err, TP_ERR_INPUT, "%s: no captures in this directory",
					    dir);
	} else {
		char *full = tp_xasprintf("%s/%s", dir, pick);

		cap->run = tp_arena_strdup(&cap->arena, pick);
		if (n_runs > 1 && !opts->run) {
			tp_capture_note(cap, "%s: using the newest of %zu runs, '%s' (by %s; choose with --run NAME)",
					dir, n_runs, pick, by_name ? "the time its name says"
					: "its newest file's time");
			cap->run_note = cap->n_notes;   /* shown even under -q */
		}
		rc = tp_capture_add_dir(cap, full, opts, err);
		free(full);
	}
	list_free(&l);
	return rc;
}

enum tp_err tp_capture_add_dir(struct tp_capture *cap, const char *path,
			       const struct tp_open_opts *opts,
			       struct tp_error *err)
{
	struct name_list l;
	bool xplanes = false, dumps = false, hlos = false;
	char *profile = tp_xasprintf("%s/plugins/profile", path);
	size_t before = cap->n_sources;
	enum tp_err rc;

	if (is_dir(profile)) {
		rc = add_profile_dir(cap, profile, opts, err);
		free(profile);
		return rc;
	}
	free(profile);
	rc = list_dir(path, &l, err);
	if (rc != TP_OK)
		return rc;
	for (size_t i = 0; i < l.n; i++) {
		xplanes |= is_xplane_name(l.names[i]);
		dumps |= is_dump_name(l.names[i]);
		hlos |= tp_has_suffix(l.names[i], ".hlo_proto.pb");
	}
	if (xplanes || (hlos && !dumps))
		rc = add_run_dir(cap, path, &l, opts, err);
	else if (dumps)
		rc = add_dump_dir(cap, path, &l, opts, err);
	else
		rc = add_profile_dir(cap, path, opts, err);
	list_free(&l);
	if (rc == TP_OK && cap->n_sources == before)
		rc = tp_error_set(err, TP_ERR_INPUT,
				  "%s: no captures in this directory", path);
	return rc;
}
