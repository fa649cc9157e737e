/*
 * scope_track.c - the derived name-scope track of a device's XLA Ops
 * line (and of each GPU kernel stream), as XProf's "Framework Name
 * Scope": one slice per scope level, from the ops' tf_op path, or the HLO
 * instruction's op_name where tf_op is no path (jit(f)/jit(main)/
 * layer_1/mlp/mul has scopes jit(f), jit(main), layer_1 and mlp; the
 * last part is the op). Runs of
 * consecutive top-level ops under one scope make one slice, so the levels
 * nest: a level's slice spans its ops, the next level's lies inside it.
 * Only ops on the line's own track at depth 0 count (they never overlap).
 */
#include "trace_internal.h"

#include <stdlib.h>
#include <string.h>

void tl_scopes_begin(struct tl *t)
{
	t->scope_track = 0; /* declared with the first scope */
	t->n_scopes = 0;
	t->n_parts = t->n_cached_parts = 0;
	free(t->meta_parts);
	t->meta_parts = tp_xcalloc(t->pl->n_event_meta + 1, sizeof(*t->meta_parts));
}

/* "Name scopes (derived)" for XLA Ops; "<line> name scopes (derived)"
 * for a GPU stream. */
static void new_scope_track(struct tl *t)
{
	struct tp_str line = t->ln->display_name.len ? t->ln->display_name : t->ln->name;
	char *name = tp_str_eq(line, "XLA Ops") ? tp_xstrdup("Name scopes (derived)") :
		     tp_xasprintf("%.*s name scopes (derived)", (int)line.len, line.ptr);

	t->scope_track = tl_new_track(t, name, false);
	free(name);
}

static void close_from(struct tl *t, size_t level)
{
	while (t->n_scopes > level) {
		struct tl_scope *sc = &t->scopes[--t->n_scopes];
		struct tp_trace_slice s = { .name = sc->name };

		t->w->end(t->w->ctx, t->scope_track, sc->end_ns, &s, sc->start_ns);
	}
}

/* The op's scope path: its tf_op stat when that is a path, else the
 * HLO instruction's op_name (GPU kernels say only "XlaModule:"). The
 * instruction: a TPU op's program_id and display name, a GPU kernel's
 * program_id and hlo_op. */
static bool scope_of(struct tl *t, const struct tp_event *ev, struct tp_str *out)
{
	const struct tp_xspace *xs = &t->cap->hosts[t->host].xs;
	struct tp_stat st, pid;
	struct tp_str name = TP_STR_NULL;
	int64_t v;

	if (tp_event_stat(xs, t->pl, ev, TP_SN_TF_OP, &st) && tp_stat_str(t->pl, &st, out) &&
	    memchr(out->ptr, '/', out->len))
		return true;
	if (!tp_event_stat(xs, t->pl, ev, TP_SN_PROGRAM_ID, &pid) || !tp_stat_int(&pid, &v))
		return false;
	if (tp_event_stat(xs, t->pl, ev, TP_SN_HLO_OP, &st))
		tp_stat_str(t->pl, &st, &name);
	else if (ev->meta)
		name = ev->meta->display_name;
	if (!name.len)
		return false;
	*out = tl_hlo_scope(t, (uint64_t)v, name);
	if (!out->len)
		return false;
	/* op_name's last part is the op, as in tf_op: keep the path whole */
	return true;
}

/* Appends the scope parts of ev (pooled) to t->parts; returns how many. */
static size_t split_scope(struct tl *t, const struct tp_event *ev)
{
	struct tp_str path;
	const char *p, *slash;
	size_t n = 0;

	if (!scope_of(t, ev, &path))
		return 0;
	p = path.ptr;
	while ((slash = memchr(p, '/', (size_t)(path.ptr + path.len - p)))) {
		t->parts = tp_xgrow(t->parts, &t->cap_parts, t->n_parts + 1, sizeof(*t->parts));
		t->parts[t->n_parts++] = tp_strpool_intern(&t->pool,
							   tp_str_make(p, (size_t)(slash - p)));
		p = slash + 1;
		n++;
	}
	return n;
}

/* The scope parts of ev: an op whose only stats are in its metadata has
 * its metadata's, split once per plane. */
static const struct tp_str *parts_of(struct tl *t, const struct tp_event *ev, size_t *n)
{
	size_t mi, first;

	if (!ev->meta || ev->other_stats) {
		t->n_parts = t->n_cached_parts; /* scratch after the cached ones */
		first = t->n_parts;
		*n = split_scope(t, ev);
		return t->parts + first;
	}
	mi = (size_t)(ev->meta - t->pl->event_meta);
	if (!t->meta_parts[mi].done) {
		t->n_parts = t->n_cached_parts;
		t->meta_parts[mi].first = (uint32_t)t->n_parts;
		t->meta_parts[mi].n = (uint32_t)split_scope(t, ev);
		t->meta_parts[mi].done = true;
		t->n_cached_parts = t->n_parts;
	}
	*n = t->meta_parts[mi].n;
	return t->parts + t->meta_parts[mi].first;
}

void tl_scopes_event(struct tl *t, const struct tp_event *ev, int64_t start_ps,
		     int64_t end_ps)
{
	int64_t start = tl_ns(start_ps), end = tl_ns(end_ps);
	size_t n, level = 0;
	const struct tp_str *parts = parts_of(t, ev, &n);

	for (; level < n && level < t->n_scopes &&
	       t->scopes[level].name.ptr == parts[level].ptr; level++)
		t->scopes[level].end_ns = end;
	close_from(t, level); /* the previous op's deeper scopes end */
	if (level < n && !t->scope_track)
		new_scope_track(t);
	for (; level < n; level++) {
		struct tp_trace_slice s = { .name = parts[level] };

		if (t->n_scopes == t->cap_scopes) /* a call only to grow */
			t->scopes = tp_xgrow(t->scopes, &t->cap_scopes, t->n_scopes + 1,
					     sizeof(*t->scopes));
		t->scopes[t->n_scopes].name = parts[level];
		t->scopes[t->n_scopes].start_ns = start;
		t->scopes[t->n_scopes].end_ns = end;
		t->n_scopes++;
		t->w->begin(t->w->ctx, t->scope_track, start, -1, &s);
		t->st->scope_slices++;
	}
}

void tl_scopes_end(struct tl *t)
{
	close_from(t, 0);
}
