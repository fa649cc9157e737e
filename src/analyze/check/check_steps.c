/*
 * check_steps.c - the rules on step time: --max-collective-share and
 * --max-idle-share, per core, the share of its steady step time (the
 * warm-up step left out) that collectives or idle gaps take, as the
 * report's ops.cores[].steady says (docs/ops.md, the advice rules).
 */
#include "check_internal.h"

#include <string.h>

#define J(o, k) json_object_get((o), (k))

enum tp_err tp_check_step_share_rule(struct tp_check *c, const json_t *doc,
				     enum tp_check_rule rule, double limit,
				     const struct tp_check_where *w, struct tp_error *err)
{
	bool collective = rule == TP_CHECK_MAX_COLLECTIVE_SHARE;
	const char *flag = collective ? "--max-collective-share" : "--max-idle-share";
	const json_t *cores = J(J(doc, "ops"), "cores"), *core;
	size_t i, rows = 0;

	if (w->scope || w->module)
		return tp_error_set(err, TP_ERR_USAGE, "%s is per core; it takes no --%s",
				    flag, w->scope ? "scope" : "module");
	json_array_foreach(cores, i, core) {
		const json_t *u = J(J(core, "steady"), collective ? "collective_share" : "idle_share");
		struct tp_check_subject x = { .capacity = -1 };
		struct tp_check_row *r;

		if (!json_is_number(u))
			continue;       /* a core without steps */
		x.host = json_string_value(J(core, "host"));
		x.plane = json_string_value(J(core, "plane"));
		r = tp_check_new_row(c, rule, collective ? TP_METRIC_COLLECTIVE_SHARE :
						 TP_METRIC_IDLE_SHARE, &x, NULL);
		r->fraction = json_number_value(u);
		r->limit_fraction = limit;
		tp_check_verdict(c, r, r->fraction <= limit);
		rows++;
	}
	if (!rows)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: no core of the report has steps (or the report predates them: make it again)",
				    flag);
	return TP_OK;
}
