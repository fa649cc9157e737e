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
		[TP_CHECK_MAX_STEP_TIME] = "max-step-time",
	};

	if (r >= TP_CHECK_MAX_HBM_BOUND)
		return tp_check_advice_flag((enum tp_check_advice_rule)(r - TP_CHECK_MAX_HBM_BOUND));
	return names[r];
}

const char *tp_check_metric_name(enum tp_check_metric m)
{
	static const char *const names[] = {
		[TP_METRIC_PEAK_BYTES] = "peak_bytes",
		[TP_METRIC_OP_TIME] = "op_time_ps",
		[TP_METRIC_COLLECTIVE_BYTES] = "collective_bytes",
		[TP_METRIC_STEP_TIME] = "step_time_ps",
		[TP_METRIC_HEADROOM_BYTES] = "headroom_bytes",
		[TP_METRIC_FLOP_UTILIZATION] = "flop_utilization",
		[TP_METRIC_COLLECTIVE_SHARE] = "collective_share",
		[TP_METRIC_IDLE_SHARE] = "idle_share",
		[TP_METRIC_HBM_BW_UTILIZATION] = "hbm_bw_utilization",
		[TP_METRIC_ADVICE_FLOP_UTILIZATION] = "flop_utilization",
		[TP_METRIC_INPUT_SHARE] = "input_share",
		[TP_METRIC_ASYNC_WAIT_SHARE] = "async_wait_share",
		[TP_METRIC_DEBUG_PRINT_SHARE] = "debug_print_share",
		[TP_METRIC_BARRIER_SHARE] = "barrier_share",
		[TP_METRIC_SPARSECORE_SHARE] = "sparsecore_share",
		[TP_METRIC_HOST_OFFLOAD_SHARE] = "host_offload_share",
		[TP_METRIC_STRAGGLER_SPREAD] = "straggler_spread",
		[TP_METRIC_MEMORY_GROWTH] = "memory_growth",
	};
	return names[m];
}

static const struct advice_rule {
	const char *flag, *finding, *what;
} advice_rules[TP_CHECK_ADVICE_N] = {
	[TP_CHECK_ADVICE_HBM_BOUND] = { "max-hbm-bound", "memory-bound",
		"HBM bandwidth utilization (with FLOP utilization < 50%)" },
	[TP_CHECK_ADVICE_COMPUTE_BOUND] = { "max-compute-bound", "compute-bound",
		"FLOP utilization (with HBM bandwidth utilization < 50%)" },
	[TP_CHECK_ADVICE_INPUT] = { "max-input-share", "input-bound",
		"infeed of all steps' time" },
	[TP_CHECK_ADVICE_ASYNC_WAIT] = { "max-async-wait-share", "async-done-waits",
		"async -done waits of all steps' time" },
	[TP_CHECK_ADVICE_DEBUG_PRINT] = { "max-debug-print-share", "debug-print",
		"debug_print events of step time, the worst host's" },
	[TP_CHECK_ADVICE_BARRIER] = { "max-barrier-share", "barrier-cores",
		"barrier ops of all steps' time" },
	[TP_CHECK_ADVICE_SPARSECORE] = { "max-sparsecore-share", "sparsecore",
		"SparseCore op time of TensorCore step time" },
	[TP_CHECK_ADVICE_HOST_OFFLOAD] = { "max-host-offload-share", "host-offload",
		"copies and host transfers of steady step time" },
	[TP_CHECK_ADVICE_STRAGGLER] = { "max-straggler-spread", "straggler",
		"slowest core over the fastest in the worst steady step" },
	[TP_CHECK_ADVICE_MEMORY_GROWTH] = { "max-memory-growth", "memory-growth",
		"runtime memory in use, last steady step's end over the first's" },
};

const char *tp_check_advice_flag(enum tp_check_advice_rule a)
{
	return advice_rules[a].flag;
}

const char *tp_check_advice_finding(enum tp_check_advice_rule a)
{
	return advice_rules[a].finding;
}

const char *tp_check_advice_what(enum tp_check_advice_rule a)
{
	return advice_rules[a].what;
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
