/*
 * scope_track.c - the derived name-scope track of a device's XLA Ops
 * line, as XProf's "Framework Name Scope": one slice per scope level,
 * from the ops' tf_op path (jit(f)/jit(main)/layer_1/mlp/mul has scopes
 * jit(f), jit(main), layer_1 and mlp; the last part is the op). Runs of
 * consecutive top-level ops under one scope make one slice, so the levels
 * nest: a level's slice spans its ops, the next level's lies inside it.
 * Only ops on the line's own track at depth 0 count (they never overlap).
 */
#include "trace_internal.h"

#include <string.h>

void tl_scopes_begin(struct tl *t)
{
	t->scope_track = 0; /* declared with the first scope */
	t->n_scopes = 0;
}

static void close_from(struct tl *t, size_t level)
{
	while (t->n_scopes > level) {
		struct tl_scope *sc = &t->scopes[--t->n_scopes];
		struct tp_trace_slice s = { sc->name, NULL, 0 };

		t->w->end(t->w->ctx, t->scope_track, sc->end_ns, &s, sc->start_ns);
	}
}

static bool scope_of(const struct tl *t, const struct tp_event *ev, struct tp_str *out)
{
	struct tp_stat st;

	return tp_event_stat(&t->cap->hosts[t->host].xs, t->pl, ev, TP_SN_TF_OP, &st) &&
	       tp_stat_str(t->pl, &st, out) && out->len;
}

void tl_scopes_event(struct tl *t, const struct tp_event *ev, int64_t start_ps,
		     int64_t end_ps)
{
	struct tp_str path, part;
	int64_t start = tl_ns(start_ps), end = tl_ns(end_ps);
	size_t level = 0;
	const char *p, *slash;

	if (!scope_of(t, ev, &path)) {
		close_from(t, 0);
		return;
	}
	p = path.ptr;
	while ((slash = memchr(p, '/', (size_t)(path.ptr + path.len - p)))) {
		part = tp_strpool_intern(&t->pool, tp_str_make(p, (size_t)(slash - p)));
		p = slash + 1;
		if (level < t->n_scopes && t->scopes[level].name.ptr == part.ptr) {
			t->scopes[level].end_ns = end;
			level++;
			continue;
		}
		close_from(t, level);
		if (!t->scope_track)
			t->scope_track = tl_new_track(t, "Name scopes (derived)", false);
		t->scopes = tp_xgrow(t->scopes, &t->cap_scopes, t->n_scopes + 1,
				     sizeof(*t->scopes));
		t->scopes[t->n_scopes].name = part;
		t->scopes[t->n_scopes].start_ns = start;
		t->scopes[t->n_scopes].end_ns = end;
		{
			struct tp_trace_slice s = { part, NULL, 0 };

			t->w->begin(t->w->ctx, t->scope_track, start, -1, &s);
		}
		t->n_scopes++;
		t->st->scope_slices++;
		level++;
	}
	close_from(t, level); /* deeper scopes of the previous op end */
}

void tl_scopes_end(struct tl *t)
{
	close_from(t, 0);
}
