/*
 * collective_link.c - a collective against the interconnect: the rate one
 * device sent at and its share of one direction of the device's
 * interconnect (half the table's both-directions figure; docs/devices.md).
 */
#include "tpuprof/analyze/collectives.h"

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
	*share = bw / (link.value / 2);
	if (*share > 1) {
		*why = "above the interconnect's peak: the timed span cannot hold the transfer";
		return false;
	}
	return true;
}
