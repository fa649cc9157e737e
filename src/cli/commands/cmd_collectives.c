/*
 * cmd_collectives.c - `tpuprof collectives CAPTURE...`: every collective
 * with its bytes, replica groups, ring traffic and device time.
 */
#include "../shared/cli.h"

#include "tpuprof/report/ops_report.h"

static const char collectives_help[] =
	"usage: tpuprof collectives [options] CAPTURE...\n"
	"\n"
	"Every collective op of every HLO module (all-reduce, all-gather,\n"
	"reduce-scatter, all-to-all, collective-permute, collective-broadcast,\n"
	"send/recv; async start/done pairs as one; also inside fusions): shape\n"
	"and payload bytes, replica groups (the iota form expanded), group size,\n"
	"mode, bytes each device sends under a ring algorithm (docs/ops.md),\n"
	"executions and device time, achieved bandwidth, scope; totals per\n"
	"module and core. Without HLO, the TF host collective events.\n"
	"\n"
	"options:\n"
	"  --core CORE          times from this core only (plane name or number,\n"
	"                       or HOST PLANE as printed)\n"
	"  --module MODULE      only this module (name or program id)\n"
	"  --host HOST          times from this host only\n"
	"  --device NAME        the device (tpuprof devices lists the names)\n"
	"  --format text|json   output format (default text)\n"
	"  --compact            JSON on one line, without spaces (a smaller file)\n"
	"  -o, --output FILE    write to FILE (replaced only on success)\n"
	TP_CLI_HELP_INPUT_OPTIONS
	"\n"
	"exit: 0 ok, 2 usage (also a --core, --module or --host the capture\n"
	"does not have), 3 unreadable or corrupt input, 5 output failed,\n"
	"141 standard output closed by its reader (| head)\n";

static const struct tp_cli_option coll_options[] = {
	TP_CLI_FILTER_OPTIONS,
	{ NULL, false, 0 },
};

struct coll_run {
	struct tp_ops_filter filter;
	struct tp_collectives c;
};

static enum tp_err build(void *ctx, struct tp_capture *cap, struct tp_error *err)
{
	struct coll_run *r = ctx;

	return tp_collectives_build(&r->c, cap, &r->filter, err);
}

static enum tp_err write_out(void *ctx, FILE *out, enum tp_format fmt,
			 const struct tp_capture *cap, struct tp_error *err)
{
	return tp_report_collectives(out, fmt, cap, &((struct coll_run *)ctx)->c, err);
}

static void release(void *ctx)
{
	tp_collectives_release(&((struct coll_run *)ctx)->c);
}

static int run_collectives(int argc, char **argv)
{
	static const struct tp_cli_analysis steps = { true, build, write_out, release };
	struct coll_run r = { .filter = { NULL, NULL, NULL, NULL } };
	struct tp_common_opts o;
	int code;

	if (tp_cli_parse(&tp_cmd_collectives, argc, argv, coll_options, NULL, NULL,
			 &o, &code) < 0)
		return code;
	TP_CLI_FILTER_COPY(&r.filter, &o.filter);
	if (tp_cli_saved_report(&o))   /* its collectives document */
		return tp_cli_run_saved_report(&tp_cmd_collectives, &o, "collectives", 0);
	return tp_cli_run_analysis(&o, &steps, &r);
}

const struct tp_cmd tp_cmd_collectives = {
	.name = "collectives",
	.summary = "every collective: bytes, groups, traffic, time",
	.help = collectives_help,
	.run = run_collectives,
};
