/*
 * cmd_ops.c - `tpuprof ops CAPTURE...`: every op that ran on every core,
 * with its time, and where that time went by name scope.
 */
#include "../shared/cli.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/report/ops_report.h"

static const char ops_help[] =
	"usage: tpuprof ops [options] CAPTURE...\n"
	"\n"
	"List every op per device core: occurrences, total, self, min and\n"
	"average time, share of device time, FLOPs and bytes accessed with\n"
	"their achieved rates, category, name-scope path and source line.\n"
	"TPU ops are keyed by program id and symbol id and timed on the device\n"
	"clock; GPU kernels are merged into their HLO ops; TF-era captures use\n"
	"the TensorFlow Ops line. Steps (from a Steps line, else inferred), per\n"
	"step the compute, collective, copy and idle time. Text shows the top\n"
	"--limit ops (total, self, count, share of device time, category, op)\n"
	"summed over the cores that ran the same programs, with the cores and\n"
	"the spread between them, and the steps across cores; JSON holds every\n"
	"op of every core with every field, and the sums (core_groups).\n"
	"\n"
	"options:\n"
	"  --limit N            rows per table in text (default 20, 0 = all)\n"
	"  --sort KEY           total (default), self, count, avg, min, name,\n"
	"                       flops, bytes, flop-util (FLOP utilization),\n"
	"                       bandwidth (bytes per second); largest first\n"
	"  --by op|scope|category\n"
	"                       scope: also roll self time up the name-scope\n"
	"                       tree; a fusion's time is split over the scopes\n"
	"                       inside it (docs/ops.md); category: program ->\n"
	"                       category -> op summed over every core, with the\n"
	"                       spread between cores\n"
	"  --per-core           text: a table per core, with its steps, instead\n"
	"                       of the all-cores view\n"
	"  --per-step           json, html: every step's row (steps[], and\n"
	"                       steps_across); without it a core with more than\n"
	"                       100 steps has its step summary only\n"
	"  --wide               text: op names whole on a terminal too (to a\n"
	"                       pipe or a file they always are; a terminal\n"
	"                       cuts them at path boundaries to its width,\n"
	"                       COLUMNS honoured)\n"
	"  --fold               with --by category: name.N copies of an op are\n"
	"                       one op (copy-done.2, copy-done.4: copy-done)\n"
	"  --core CORE          only this core: plane name or device number, or\n"
	"                       HOST PLANE as printed\n"
	"  --module MODULE      only ops of this module: name or program id\n"
	"  --host HOST          only this host\n"
	"  --device NAME        the device (tpuprof devices lists the names)\n"
	"  --format text|json|html  output format (default text); html: one\n"
	"                       self-contained page, every op in a table that\n"
	"                       sorts and filters, collectives and fusions\n"
	"                       joined in (docs/html.md)\n"
	"  --compact            JSON on one line, without spaces (a smaller file)\n"
	"  -o, --output FILE    write to FILE (replaced only on success)\n"
	TP_CLI_HELP_INPUT_OPTIONS
	"\n"
	"exit: 0 ok, 2 usage (also a --core, --module or --host the capture\n"
	"does not have), 3 unreadable or corrupt input, 5 output failed,\n"
	"141 standard output closed by its reader (| head)\n";

enum { OPT_LIMIT = TP_CLI_OPTION_BASE, OPT_SORT, OPT_BY, OPT_FOLD, OPT_PER_CORE, OPT_WIDE,
       OPT_PER_STEP };

static const struct tp_cli_option ops_options[] = {
	{ "limit", true, OPT_LIMIT }, { "sort", true, OPT_SORT },
	{ "by", true, OPT_BY }, { "fold", false, OPT_FOLD },
	{ "per-core", false, OPT_PER_CORE }, { "wide", false, OPT_WIDE },
	{ "per-step", false, OPT_PER_STEP }, TP_CLI_FILTER_OPTIONS,
	{ NULL, false, 0 },
};

struct ops_args {
	struct tp_ops_filter filter;
	struct tp_ops_view view;
	bool by_scope, by_category, fold, wide;
};

static int on_option(void *ctx, int id, const char *arg)
{
	struct ops_args *a = ctx;
	char *end;
	unsigned long long n;

	switch (id) {
	case OPT_LIMIT:
		n = strtoull(arg, &end, 10);
		if (!*arg || *end || arg[0] == '-')
			return tp_cli_usage_error(&tp_cmd_ops, "bad number '%s' for --limit", arg);
		a->view.limit = (size_t)n;
		return 0;
	case OPT_SORT:
		if (!tp_ops_sort_parse(arg, &a->view.sort))
			return tp_cli_usage_error(&tp_cmd_ops, "unknown sort key '%s' (total, self, count, avg, min, name, flops, bytes, flop-util, bandwidth)", arg);
		return 0;
	case OPT_BY:
		if (strcmp(arg, "scope") != 0 && strcmp(arg, "op") != 0 &&
		    strcmp(arg, "category") != 0)
			return tp_cli_usage_error(&tp_cmd_ops, "unknown --by '%s' (op, scope or category)", arg);
		a->by_scope = strcmp(arg, "scope") == 0;
		a->by_category = strcmp(arg, "category") == 0;
		return 0;
	case OPT_FOLD:
		a->fold = true;
		return 0;
	case OPT_PER_CORE:
		a->view.per_core = true;
		return 0;
	case OPT_WIDE:
		a->wide = true;
		return 0;
	case OPT_PER_STEP:
		a->view.per_step = a->filter.every_step_cats = true;
		return 0;
	}
	return 0;
}

struct ops_run {
	struct ops_args a;
	struct tp_ops ops;
	struct tp_op_scopes scopes;
	struct tp_op_categories categories;
	bool html;                   /* the page: ops come from coll     */
	struct tp_collectives coll;
};

/* The page joins the collectives to the ops and shows the scope tree,
 * so it builds the collectives analysis (which holds the ops). */
static enum tp_err build_html(struct ops_run *r, struct tp_capture *cap,
			      struct tp_error *err)
{
	enum tp_err rc = tp_collectives_build(&r->coll, cap, &r->a.filter, err);

	if (rc != TP_OK)
		return rc;
	/* as `ops` sorts them (the collectives hold no op index) */
	tp_ops_sort(&r->coll.ops, r->a.view.sort);
	tp_op_scopes_build(&r->scopes, &r->coll.ops, cap);
	return TP_OK;
}

static enum tp_err build(void *ctx, struct tp_capture *cap, struct tp_error *err)
{
	struct ops_run *r = ctx;
	enum tp_err rc;

	if (r->html)
		return build_html(r, cap, err);
	rc = tp_ops_build(&r->ops, cap, &r->a.filter, err);
	if (rc != TP_OK)
		return rc;
	tp_ops_sort(&r->ops, r->a.view.sort);
	r->a.view.filter = &r->a.filter;
	if (r->a.by_scope) {
		tp_op_scopes_build(&r->scopes, &r->ops, cap);
		r->a.view.scopes = &r->scopes;
	}
	if (r->a.by_category) {
		tp_op_categories_build(&r->categories, &r->ops, r->a.fold);
		r->a.view.categories = &r->categories;
	}
	return TP_OK;
}

static enum tp_err write_out(void *ctx, FILE *out, enum tp_format fmt,
			     const struct tp_capture *cap, struct tp_error *err)
{
	struct ops_run *r = ctx;

	if (r->html) {
		struct tp_ops_view page = { .sort = r->a.view.sort, .filter = &r->a.filter,
					    .scopes = &r->scopes, .coll = &r->coll };

		return tp_report_ops(out, fmt, cap, &r->coll.ops, &page, err);
	}
	r->a.view.width = tp_cli_text_width(out, r->a.wide);
	return tp_report_ops(out, fmt, cap, &r->ops, &r->a.view, err);
}

static void release(void *ctx)
{
	struct ops_run *r = ctx;

	if (r->html) {
		tp_op_scopes_release(&r->scopes);
		tp_collectives_release(&r->coll);
		return;
	}
	if (r->a.by_scope)
		tp_op_scopes_release(&r->scopes);
	if (r->a.by_category)
		tp_op_categories_release(&r->categories);
	tp_ops_release(&r->ops);
}

static int run_ops(int argc, char **argv)
{
	static const struct tp_cli_analysis steps = { true, build, write_out, release };
	struct ops_run r = { .a = { .view = { .limit = 20, .sort = TP_SORT_TOTAL } } };
	struct tp_common_opts o;
	int code;

	if (tp_cli_parse(&tp_cmd_ops, argc, argv, ops_options, on_option, &r.a,
			 &o, &code) < 0)
		return code;
	if (r.a.fold && !r.a.by_category)
		return tp_cli_usage_error(&tp_cmd_ops, "%s", "--fold needs --by category");
	TP_CLI_FILTER_COPY(&r.a.filter, &o.filter);
	if (tp_cli_saved_report(&o))   /* its ops document */
		return tp_cli_run_saved_report(&tp_cmd_ops, &o, "ops", r.a.view.limit);
	r.html = o.format == TP_FORMAT_HTML;
	return tp_cli_run_analysis(&o, &steps, &r);
}

const struct tp_cmd tp_cmd_ops = {
	.name = "ops",
	.summary = "every op, over cores or per core: time, FLOPs, bytes, scope",
	.help = ops_help,
	.run = run_ops,
	.html = true,
};
