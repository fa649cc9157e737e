/*
 * collective_link.c - a collective against the interconnect: the rate one
 * device sent at and its share of one direction of the device's
 * interconnect (half the table's both-directions figure; docs/devices.md).
 */
#include "tpuprof/analyze/collectives.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/analyze/common/selection.h"

bool tp_collective_rate(const struct tp_collective *col, double *bytes_per_s)
{
	if (col->span_ps <= 0 || !col->group_size || !col->occurrences)
		return false;
	*bytes_per_s = (double)col->ring_bytes * (double)col->occurrences /
		       ((double)col->span_ps * 1e-12);
	return true;
}

struct tp_figure tp_collective_link(const struct tp_collectives *c,
				    const struct tp_collective *col)
{
	struct tp_figure none = { 0, TP_FIG_NONE };

	return col->n_cores ? c->ops.cores[col->cores[0].core].device.interconnect_bw : none;
}

bool tp_collective_link_share(const struct tp_collectives *c, const struct tp_collective *col,
			      double *share, const char **why)
{
	struct tp_figure link = tp_collective_link(c, col);
	double bw;

	*why = NULL;
	if (!link.source || !tp_collective_rate(col, &bw))
		return false;
	*share = bw / tp_collective_link_each_way(c, col);
	if (*share > 1) {
		*why = "above the interconnect's peak: the timed span cannot hold the transfer";
		return false;
	}
	return true;
}

double tp_collective_link_each_way(const struct tp_collectives *c,
				   const struct tp_collective *col)
{
	struct tp_figure link = tp_collective_link(c, col);

	return link.source ? link.value / 2 : 0;
}

/* A device's own plane, "/device:TPU:3" or "/device:GPU:0", not a
 * SparseCore or custom plane. */
static bool numbered_device(const struct tp_plane *pl)
{
	static const char *const kinds[] = { "/device:TPU:", "/device:GPU:" };

	for (size_t k = 0; k < 2; k++) {
		size_t n = strlen(kinds[k]), i = n;

		if (pl->name.len <= n || memcmp(pl->name.ptr, kinds[k], n) != 0)
			continue;
		while (i < pl->name.len && pl->name.ptr[i] >= '0' && pl->name.ptr[i] <= '9')
			i++;
		return i == pl->name.len;
	}
	return false;
}

size_t tp_capture_devices(const struct tp_capture *cap)
{
	size_t n = 0;

	for (size_t h = 0; h < cap->n_hosts; h++)
		for (size_t p = 0; p < cap->hosts[h].xs.n_planes; p++)
			n += numbered_device(&cap->hosts[h].xs.planes[p]);
	return n;
}

size_t tp_collective_ids_outside(const struct tp_collective *col, size_t n_devices,
				 int64_t *lo, int64_t *hi)
{
	const struct tp_replica_groups *g = &col->groups;
	size_t n = 0, total = g->present && g->starts ? g->starts[g->n_groups] : 0;
	bool *seen;

	*lo = INT64_MAX;
	*hi = -1;
	if (!n_devices || !total)
		return 0;
	for (size_t i = 0; i < total; i++)
		if (g->ids[i] >= (int64_t)n_devices && g->ids[i] > *hi)
			*hi = g->ids[i];
	if (*hi < 0 || *hi - (int64_t)n_devices >= (int64_t)TP_MAX_GROUP_IDS)
		return 0;
	seen = calloc((size_t)(*hi - (int64_t)n_devices) + 1, 1);
	if (!seen)
		return 0;
	for (size_t i = 0; i < total; i++) {
		int64_t id = g->ids[i];

		if (id < (int64_t)n_devices || seen[id - (int64_t)n_devices])
			continue;
		seen[id - (int64_t)n_devices] = true;
		n++;
		*lo = id < *lo ? id : *lo;
	}
	free(seen);
	return n;
}
