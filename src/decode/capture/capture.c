/*
 * capture.c - assembling a capture set from CAPTURE arguments: each file
 * loaded as a source (sources.c), each directory expanded (paths.c),
 * XSpaces decoded into hosts and HLO modules collected (see capture.h).
 * The top of the folder: it calls the other files, none calls it.
 */
#include "capture_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *tp_source_kind_name(enum tp_source_kind kind)
{
	switch (kind) {
	case TP_SOURCE_XSPACE:
		return "xspace";
	case TP_SOURCE_HLO_PROTO:
		return "hlo_proto";
	case TP_SOURCE_XLA_DUMP:
		return "xla_dump";
	}
	return "unknown";
}

enum tp_err tp_capture_open(struct tp_capture *cap, const char *const *paths,
			    size_t n_paths, const struct tp_open_opts *opts,
			    struct tp_error *err)
{
	enum tp_err rc = TP_OK;

	memset(cap, 0, sizeof(*cap));
	tp_arena_init(&cap->arena);
	for (size_t i = 0; i < n_paths && rc == TP_OK; i++) {
		struct stat st;

		if (strcmp(paths[i], "-") != 0 && stat(paths[i], &st) == 0 &&
		    S_ISDIR(st.st_mode))
			rc = tp_capture_add_dir(cap, paths[i], opts, err);
		else
			rc = tp_capture_add_file(cap, paths[i], opts, false,
						 err);
	}
	/* --run picks a logdir's run; given none, it would do nothing */
	if (rc == TP_OK && opts->run && !cap->run)
		rc = tp_error_set(err, TP_ERR_USAGE,
				  "--run %s: no input is a logdir (a directory with plugins/profile/RUN/), whose runs --run chooses from",
				  opts->run);
	if (rc == TP_OK)
		rc = tp_capture_flush_hosts(cap, opts, err);
	if (rc != TP_OK)
		tp_capture_release(cap);
	return rc;
}

void tp_capture_release(struct tp_capture *cap)
{
	for (size_t i = 0; i < cap->n_sources; i++) {
		tp_buffer_release(&cap->sources[i].buf);
		free(cap->sources[i].cuts);
	}
	for (size_t i = 0; i < cap->n_notes; i++)
		free(cap->notes[i]);
	free(cap->notes);
	for (size_t i = 0; i < cap->n_damage; i++) {
		free(cap->damage[i].part);
		free(cap->damage[i].what);
	}
	free(cap->damage);
	free(cap->sources);
	for (size_t i = 0; i < cap->n_hosts; i++) {
		tp_arena_release(cap->hosts[i].arena);
		free(cap->hosts[i].arena);
	}
	free(cap->hosts);
	free(cap->pending);
	free(cap->modules);
	tp_arena_release(&cap->arena);
	memset(cap, 0, sizeof(*cap));
}

enum tp_err tp_capture_finish_scan(struct tp_capture *cap, struct tp_error *err)
{
	for (size_t h = 0; h < cap->n_hosts; h++) {
		enum tp_err rc = tp_xspace_finish_scan(&cap->hosts[h].xs, err);

		if (rc != TP_OK)
			return rc;
	}
	return TP_OK;
}

void tp_capture_drop_host(const struct tp_capture *cap, size_t host)
{
	const struct tp_xspace *xs;

	if (host >= cap->n_hosts)
		return;
	xs = &cap->hosts[host].xs;
	tp_xspace_drop(xs, xs->base, xs->size);
}

bool tp_capture_reopen_whole(struct tp_capture *cap, const char *const *paths,
			     size_t n_paths, struct tp_open_opts *o,
			     struct tp_error *err)
{
	if (!o->defer_min_bytes || err->code != TP_ERR_INPUT ||
	    err->corrupt != TP_CORRUPT_XSPACE)
		return false;
	tp_capture_release(cap);
	o->defer_min_bytes = 0;
	tp_error_clear(err);
	return tp_capture_open(cap, paths, n_paths, o, err) == TP_OK;
}
