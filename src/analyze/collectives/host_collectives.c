/*
 * host_collectives.c - TF-era collectives, for captures without HLO: host
 * events named "CollectiveReduce…", or TF ops "<name>:<Type>" whose type is
 * a collective kernel (the rule `info` counts with).
 */
#include "tpuprof/analyze/collectives.h"

#include <stdlib.h>

/* TF-era: host TraceMe "CollectiveReduce…" events, or TF ops
 * "<name>:<Type>" whose type is a collective kernel. */
static bool tf_collective(struct tp_str name)
{
	size_t colon = name.len;

	if (tp_str_has_prefix(name, "CollectiveReduce"))
		return true;
	while (colon > 0 && name.ptr[colon - 1] != ':')
		colon--;
	return colon > 0 &&
	       (tp_str_has_prefix(tp_str_make(name.ptr + colon, name.len - colon), "Collective") ||
		tp_str_eq(tp_str_make(name.ptr + colon, name.len - colon), "NcclAllReduce"));
}

static void add_host(struct tp_collectives *c, size_t h, const struct tp_line *ln,
		     const struct tp_event *ev)
{
	struct tp_host_collective *hc;

	c->host = tp_xgrow(c->host, &c->cap_host, c->n_host + 1, sizeof(*c->host));
	hc = &c->host[c->n_host++];
	hc->host = h;
	hc->line = ln->name;
	hc->name = ev->meta->name;
	hc->start_ps = ev->start_ps;
	hc->dur_ps = ev->dur_ps;
}

/* Names are tested once per event metadata (is[]: 0 untested, 1 yes,
 * 2 no), not once per event. */
static void host_plane(struct tp_collectives *c, size_t h,
		       const struct tp_xspace *xs, const struct tp_plane *pl)
{
	unsigned char *is = tp_xcalloc(pl->n_event_meta + 1, 1);

	for (size_t l = 0; l < pl->n_lines; l++) {
		struct tp_event_iter it;
		struct tp_event ev;

		tp_event_iter_init(&it, xs, pl, &pl->lines[l]);
		while (tp_event_iter_next(&it, &ev) > 0) {
			size_t mi;

			if (!ev.meta)
				continue;
			mi = (size_t)(ev.meta - pl->event_meta);
			if (!is[mi])
				is[mi] = tf_collective(ev.meta->name) ? 1 : 2;
			if (is[mi] == 1)
				add_host(c, h, &pl->lines[l], &ev);
		}
	}
	free(is);
}

void tp_host_collectives_scan(struct tp_collectives *c,
			      const struct tp_capture *cap)
{
	for (size_t h = 0; h < cap->n_hosts; h++) {
		const struct tp_xspace *xs = &cap->hosts[h].xs;

		for (size_t p = 0; p < xs->n_planes; p++)
			if (xs->planes[p].kind == TP_PLANE_HOST)
				host_plane(c, h, xs, &xs->planes[p]);
	}
}
