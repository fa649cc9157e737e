/*
 * cmd_collectives.c - `tpuprof collectives CAPTURE...`: every collective
 * with its bytes, replica groups, ring traffic and device time.
 */
#include "cli.h"

#include "tpuprof/ops_report.h"

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
	"  --core CORE          times from this core only (plane name or number)\n"
	"  --module MODULE      only this module (name or program id)\n"
	"  --host HOST          times from this host only\n"
	"  --format text|json   output format (default text)\n"
	"  -o, --output FILE    write to FILE (replaced only on success)\n"
	"  --run NAME           the run to take from a logdir (default newest)\n"
	"  --max-input SIZE     most bytes to inflate or read from stdin\n"
	"  -j, --jobs N         threads for decoding and analysis (default: one\n"
	"                       per CPU)\n"
	"  -q, --quiet          no notes on stderr\n"
	"  -h, --help           this help\n"
	"\n"
	"exit: 0 ok, 2 usage (also a --core, --module or --host the capture\n"
	"does not have), 3 unreadable or corrupt input, 5 output failed\n";

enum { OPT_CORE = TP_CLI_OPTION_BASE, OPT_MODULE, OPT_HOST };

static const struct tp_cli_option coll_options[] = {
	{ "core", true, OPT_CORE }, { "module", true, OPT_MODULE },
	{ "host", true, OPT_HOST }, { NULL, false, 0 },
};

static int on_option(void *ctx, int id, const char *arg)
{
	struct tp_ops_filter *f = ctx;

	if (id == OPT_CORE)
		f->core = arg;
	else if (id == OPT_MODULE)
		f->module = arg;
	else if (id == OPT_HOST)
		f->host = arg;
	return 0;
}

static int run_collectives(int argc, char **argv)
{
	struct tp_ops_filter filter = { NULL, NULL, NULL };
	struct tp_common_opts o;
	struct tp_capture cap;
	struct tp_collectives c;
	struct tp_error err = { 0 };
	struct tp_output out;
	int code;

	if (tp_cli_parse(&tp_cmd_collectives, argc, argv, coll_options, on_option,
			 &filter, &o, &code) < 0)
		return code;
	o.open.defer_min_bytes = TP_DEFER_MIN_BYTES; /* ops read op lines once */
	if ((code = tp_cli_open_capture(&o, &cap)) != TP_EXIT_OK)
		return code;
	if (tp_collectives_build(&c, &cap, &filter, &err) != TP_OK) {
		tp_capture_release(&cap);
		return tp_cli_fail(&err);
	}
	code = tp_output_open(&out, o.output);
	if (code == TP_EXIT_OK)
		code = tp_output_finish(&out, tp_report_collectives(out.fp, o.format, &cap, &c, &err), &err);
	tp_collectives_release(&c);
	tp_capture_release(&cap);
	return code;
}

const struct tp_cmd tp_cmd_collectives = {
	.name = "collectives",
	.summary = "every collective: bytes, groups, traffic, time",
	.help = collectives_help,
	.run = run_collectives,
};
