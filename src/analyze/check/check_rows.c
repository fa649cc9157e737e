/*
 * check_rows.c - the rows of a verdict: a row per rule and subject, its
 * pass or fail, and the names rules and metrics go by. Every rule file
 * (check.c, check_device.c, check_ops.c) adds its rows here, and this
 * file calls none of them, so calls inside the folder point one way.
 */
#include "check_internal.h"

#include <string.h>

#include "tpuprof/util/util.h"

const char *tp_check_rule_name(enum tp_check_rule r)
{
	static const char *const names[] = {
		[TP_CHECK_MAX_PEAK] = "max-peak",
		[TP_CHECK_MAX_PEAK_FRACTION] = "max-peak-fraction",
		[TP_CHECK_MAX_GROWTH] = "max-growth",
		[TP_CHECK_MAX_COLLECTIVE_BYTES] = "max-collective-bytes",
		[TP_CHECK_MIN_HEADROOM] = "min-headroom",
		[TP_CHECK_MIN_FLOPS_UTILIZATION] = "min-flops-utilization",
		[TP_CHECK_MAX_COLLECTIVE_SHARE] = "max-collective-share",
		[TP_CHECK_MAX_IDLE_SHARE] = "max-idle-share",
	};
	return names[r];
}

const char *tp_check_metric_name(enum tp_check_metric m)
{
	static const char *const names[] = {
		[TP_METRIC_PEAK_BYTES] = "peak_bytes",
		[TP_METRIC_OP_TIME] = "op_time_ps",
		[TP_METRIC_COLLECTIVE_BYTES] = "collective_bytes",
		[TP_METRIC_HEADROOM_BYTES] = "headroom_bytes",
		[TP_METRIC_FLOP_UTILIZATION] = "flop_utilization",
		[TP_METRIC_COLLECTIVE_SHARE] = "collective_share",
		[TP_METRIC_IDLE_SHARE] = "idle_share",
	};
	return names[m];
}

struct tp_check_row *tp_check_new_row(struct tp_check *c, enum tp_check_rule rule,
				      enum tp_check_metric metric,
				      const struct tp_check_subject *x, const char *scope)
{
	struct tp_check_row *r;

	c->rows = tp_xgrow(c->rows, &c->cap_rows, c->n_rows + 1, sizeof(*c->rows));
	r = &c->rows[c->n_rows++];
	memset(r, 0, sizeof(*r));
	r->rule = rule;
	r->metric = metric;
	r->host = x->host;
	r->plane = x->plane;
	r->module = x->module;
	r->program_id = x->program_id;
	r->scope = scope;
	r->source = x->source;
	r->measured = x->value;
	r->capacity = -1;
	r->n_contrib = x->n_contrib;
	memcpy(r->contrib, x->contrib, sizeof(r->contrib));
	return r;
}

void tp_check_verdict(struct tp_check *c, struct tp_check_row *r, bool pass)
{
	r->pass = pass;
	if (!pass)
		c->n_failed++;
}
