/*
 * xplane_testutil.h - XSpaces written from tables, the way XProf's unit
 * tests build theirs with XPlaneBuilder: planes with named lines, event
 * metadata with stats, events with stats, timed (offset) or aggregated
 * (num_occurrences). Stat names are interned per plane (ids 1..) in the
 * order first met. For check_xprof_rules.c.
 */
#ifndef TPUPROF_XPLANE_TESTUTIL_H
#define TPUPROF_XPLANE_TESTUTIL_H

#include "testutil.h"

#include "tpuprof/decode/capture.h"

#define XB_STATS 6
#define XB_EVENTS 8
#define XB_METAS 8
#define XB_LINES 4
#define XB_NAMES 16

/* One stat: 'u' uint64, 'i' int64, 's' string (XStat fields 3, 4, 5). */
struct xb_stat {
	const char *name;
	char kind;
	int64_t i;
	const char *s;
};

struct xb_meta {
	int64_t id;
	const char *name, *display;
	struct xb_stat stats[XB_STATS];
};

/* occurrences > 0: an aggregated event (num_occurrences, no offset). */
struct xb_event {
	int64_t meta, offset, dur, occurrences;
	struct xb_stat stats[XB_STATS];
};

struct xb_line {
	const char *name;
	struct xb_event events[XB_EVENTS];
};

struct xb_plane {
	int64_t id;
	const char *name;
	struct xb_meta metas[XB_METAS];
	struct xb_line lines[XB_LINES];
};

struct xb_names {
	const char *v[XB_NAMES];
	size_t n;
};

static inline int64_t xb_name_id(struct xb_names *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->v[i], name) == 0)
			return (int64_t)i + 1;
	ck_assert_uint_lt(t->n, XB_NAMES);
	t->v[t->n++] = name;
	return (int64_t)t->n;
}

/* The stats of a list into field `field` of msg. */
static inline void xb_stats(struct pb *msg, uint32_t field, const struct xb_stat *v,
			    struct xb_names *t)
{
	for (size_t k = 0; k < XB_STATS && v[k].name; k++) {
		struct pb st = { 0 };

		pb_int(&st, 1, xb_name_id(t, v[k].name));
		if (v[k].kind == 's')
			pb_str(&st, 5, v[k].s);
		else
			pb_int(&st, v[k].kind == 'u' ? 3 : 4, v[k].i);
		pb_msg(msg, field, &st);
	}
}

static inline void xb_plane_write(struct pb *space, const struct xb_plane *p)
{
	struct pb plane = { 0 };
	struct xb_names t = { .n = 0 };

	pb_int(&plane, 1, p->id);
	pb_str(&plane, 2, p->name);
	for (size_t l = 0; l < XB_LINES && p->lines[l].name; l++) {
		struct pb line = { 0 };

		pb_int(&line, 1, (int64_t)l + 1);
		pb_str(&line, 2, p->lines[l].name);
		for (size_t e = 0; e < XB_EVENTS && p->lines[l].events[e].meta; e++) {
			const struct xb_event *x = &p->lines[l].events[e];
			struct pb ev = { 0 };

			pb_int(&ev, 1, x->meta);
			if (x->occurrences)
				pb_int(&ev, 5, x->occurrences);
			else
				pb_int(&ev, 2, x->offset);
			pb_int(&ev, 3, x->dur);
			xb_stats(&ev, 4, x->stats, &t);
			pb_msg(&line, 4, &ev);
		}
		pb_msg(&plane, 3, &line);
	}
	for (size_t m = 0; m < XB_METAS && p->metas[m].id; m++) {
		struct pb em = { 0 }, entry = { 0 };

		pb_int(&em, 1, p->metas[m].id);
		pb_str(&em, 2, p->metas[m].name);
		if (p->metas[m].display)
			pb_str(&em, 4, p->metas[m].display);
		xb_stats(&em, 5, p->metas[m].stats, &t);
		pb_int(&entry, 1, p->metas[m].id);
		pb_msg(&entry, 2, &em);
		pb_msg(&plane, 4, &entry);
	}
	for (size_t k = 0; k < t.n; k++)
		pb_metadata(&plane, 5, (int64_t)k + 1, t.v[k]);
	pb_msg(space, 1, &plane);
}

/* The planes as one .xplane.pb, opened into cap; the caller unlinks and
 * frees the returned path after tp_capture_release. */
static inline char *xb_open(struct tp_capture *cap, const struct xb_plane *planes, size_t n)
{
	struct pb space = { 0 };
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_error err = { 0 };
	const char *paths[1];
	char *path;

	for (size_t i = 0; i < n; i++)
		xb_plane_write(&space, &planes[i]);
	path = write_temp(".xplane.pb", space.data, space.len);
	pb_free(&space);
	paths[0] = path;
	ck_assert_msg(tp_capture_open(cap, paths, 1, &o, &err) == TP_OK, "%s", err.msg);
	return path;
}

#endif
