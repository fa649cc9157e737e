/*
 * event_args.c - an event's stats as slice arguments: its metadata's
 * stats first, then its own (XProf's order), ref values resolved to
 * their strings, bytes values (serialized protos) given by their size; and the event's full name
 * as long_name where the slice shows the short one (on TPU op lines the
 * full name is the HLO text, shapes included).
 */
#include "trace_internal.h"

#include <inttypes.h>
#include <string.h>

static void add_stat(struct tl *t, const struct tp_stat *st, bool stable);

/* A TPU op's metadata names its program and instruction. */
static void hlo_of_metadata(struct tl *t, const struct tp_event_meta *m)
{
	const struct tp_stat *pid = tp_stats_find(t->pl, m->stats, m->n_stats, TP_SN_PROGRAM_ID);
	int64_t v;

	if (pid && m->display_name.len && tp_stat_int(pid, &v))
		tl_hlo_args(t, (uint64_t)v, m->display_name,
			    !tp_stats_find(t->pl, m->stats, m->n_stats, TP_SN_HLO_MODULE),
			    !tp_stats_find(t->pl, m->stats, m->n_stats, TP_SN_SOURCE));
}

/* A GPU kernel's own stats name its program and HLO op. */
static void hlo_of_event(struct tl *t, const struct tp_event *ev)
{
	const struct tp_xspace *xs = &t->cap->hosts[t->host].xs;
	struct tp_stat op, pid, mod, src;
	struct tp_str name;
	int64_t v;

	if (tp_event_stat(xs, t->pl, ev, TP_SN_HLO_OP, &op) &&
	    tp_stat_str(t->pl, &op, &name) && name.len &&
	    tp_event_stat(xs, t->pl, ev, TP_SN_PROGRAM_ID, &pid) && tp_stat_int(&pid, &v))
		tl_hlo_args(t, (uint64_t)v, name,
			    !tp_event_stat(xs, t->pl, ev, TP_SN_HLO_MODULE, &mod),
			    !tp_event_stat(xs, t->pl, ev, TP_SN_SOURCE, &src));
}

/* The args every event of m shares: long_name, then m's stats. */
static void metadata_args(struct tl *t, const struct tp_event_meta *m)
{
	if (m->display_name.len && m->name.len &&
	    (m->name.len != m->display_name.len ||
	     memcmp(m->name.ptr, m->display_name.ptr, m->name.len) != 0)) {
		struct tp_trace_arg *a = tl_new_arg(t);

		a->name = tp_str_make("long_name", 9);
		a->kind = TP_ARG_STR;
		a->stable = true;
		a->v.s = m->name;
	}
	for (uint32_t i = 0; i < m->n_stats; i++)
		add_stat(t, &m->stats[i], true);
	if (t->is_device)
		hlo_of_metadata(t, m);
}

static bool is_program_id(const struct tp_plane *pl, const struct tp_stat *st)
{
	return pl->known_stat[TP_SN_PROGRAM_ID] &&
	       st->metadata_id == pl->known_stat_id[TP_SN_PROGRAM_ID];
}

/* stable: the stat lives in metadata, so its strings do too. */
static void add_stat(struct tl *t, const struct tp_stat *st, bool stable)
{
	struct tp_trace_arg *a;
	struct tp_str s;

	if (st->kind == TP_STAT_NONE)
		return;
	a = tl_new_arg(t);
	a->name = tp_stat_name(t->pl, st);
	switch (st->kind) {
	case TP_STAT_DOUBLE:
		a->kind = TP_ARG_DOUBLE;
		a->v.d = st->v.d;
		break;
	case TP_STAT_UINT64:
	case TP_STAT_INT64:
		/* one type per argument across the file (a stat's wire type
		 * differs between planes: run_id, addr): integers are signed,
		 * uint64 values above 2^63 - 1 wrap as trace_processor stores
		 * them; program ids, unsigned by definition and so written
		 * on the compiler peaks, are unsigned everywhere */
		if (is_program_id(t->pl, st)) {
			a->kind = TP_ARG_UINT;
			a->v.u = st->kind == TP_STAT_UINT64 ? st->v.u : (uint64_t)st->v.i;
		} else {
			a->kind = TP_ARG_INT;
			a->v.i = st->kind == TP_STAT_INT64 ? st->v.i : (int64_t)st->v.u;
		}
		break;
	case TP_STAT_STR:
	case TP_STAT_REF:
		a->kind = TP_ARG_STR;
		a->stable = stable || st->kind == TP_STAT_REF;
		a->v.s = tp_stat_str(t->pl, st, &s) ? s : TP_STR_NULL;
		break;
	case TP_STAT_BYTES:
	default:
		/* serialized protos: their size in bytes, not their bytes */
		a->kind = TP_ARG_UINT;
		a->v.u = st->v.s.len;
		break;
	}
}

static bool is_device_time(const struct tp_plane *pl, const struct tp_stat *st)
{
	return (pl->known_stat[TP_SN_DEVICE_OFFSET_PS] &&
		st->metadata_id == pl->known_stat_id[TP_SN_DEVICE_OFFSET_PS]) ||
	       (pl->known_stat[TP_SN_DEVICE_DURATION_PS] &&
		st->metadata_id == pl->known_stat_id[TP_SN_DEVICE_DURATION_PS]);
}

void tl_event_slice(struct tl *t, const struct tp_event *ev, struct tp_trace_slice *out)
{
	const struct tp_event_meta *m = ev->meta;
	const struct tp_xspace *xs = &t->cap->hosts[t->host].xs;
	struct tp_stat_iter it;
	struct tp_stat st;

	t->n_args = 0;
	memset(out, 0, sizeof(*out));
	if (!m) {
		/* pooled: writers intern names by pointer */
		snprintf(t->scratch, sizeof(t->scratch), "event %" PRId64, ev->metadata_id);
		out->name = tp_strpool_intern(&t->pool, tp_str_make(t->scratch, strlen(t->scratch)));
	} else {
		out->name = m->display_name.len ? m->display_name : m->name;
		out->key = m;
		if (t->w->has_fixed(t->w->ctx, m))
			out->fixed_omitted = true;
		else
			metadata_args(t, m);
		out->n_fixed = t->n_args;
	}
	/* device_offset_ps and device_duration_ps are the slice's own start
	 * and duration (to the ps): not repeated as arguments */
	if (ev->other_stats) {
		tp_stat_iter_init(&it, xs, ev);
		while (tp_stat_iter_next(&it, &st) > 0)
			if (!is_device_time(t->pl, &st))
				add_stat(t, &st, false);
		if (t->is_device)
			hlo_of_event(t, ev);
	}
	out->args = t->args;
	out->n_args = t->n_args;
}
