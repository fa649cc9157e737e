/*
 * cmd_report.c - `tpuprof report CAPTURE...`: the one-page answer after a
 * run, and with --format json the complete document that `check`, `diff`
 * and `merge` can read back as a baseline.
 */
#include "../shared/cli.h"

#include "tpuprof/report/report_doc.h"

static const char report_help[] =
	"usage: tpuprof report [options] CAPTURE...\n"
	"\n"
	"The answer after a run, on one screen: the capture (hosts, devices,\n"
	"time span); per core the memory peak of the compiled plan and of the\n"
	"runtime allocator, the headroom to capacity, and the buffers and name\n"
	"scopes that hold the highest peak; the ops and scopes that take the\n"
	"time; collective traffic and its share of device time; warnings (near\n"
	"capacity, missing data).\n"
	"\n"
	"--format json writes everything, as the documents of info, memory, ops\n"
	"(with op_scopes, time by name scope) and collectives under one\n"
	"\"tpuprof.report/2\" document: save it as a baseline for check and diff.\n"
	"--format html writes one self-contained page of it all (docs/html.md):\n"
	"summary, memory towers and buffer cards, scopes, every op.\n"
	"A saved report (--format json, or merge's pod report) given as the\n"
	"CAPTURE is drawn again in any format.\n"
	"\n"
	"A run directory is one capture of many hosts. Their cores are analysed\n"
	"-j N at a time (default: one per CPU), each reading its events once,\n"
	"and only the event bytes being read stay in memory, so a pod's run\n"
	"needs about the memory of its decoded metadata, not of its files.\n"
	"\n"
	"options:\n"
	"  --format text|json|html  output format (default text)\n"
	"  --compact              JSON on one line, without spaces (a smaller file)\n"
	"  -o, --output FILE      write to FILE (replaced only on success)\n"
	"  --host NAME            only this host\n"
	"  --core CORE            only this core (/device:TPU:0, TPU:0, 0, or\n"
	"                         HOST PLANE as printed)\n"
	"  --module NAME|ID       only this module (name or program id)\n"
	"  --hbm SIZE             device capacity, e.g. 16GiB\n"
	"  --device NAME          the device (tpuprof devices lists the names)\n"
	"                         An XLA dump or HloProto names no device: with\n"
	"                         --hbm or --device the report says the headroom,\n"
	"                         or by how much the program does not fit and\n"
	"                         what holds its peak\n"
	"  --run NAME, --max-input SIZE, -j N, -q, -h   as for every command\n"
	"  --partial              read a capture cut short up to its last complete plane\n"
	"  --per-step             json, html: every step's row (ops.cores[].steps,\n"
	"                         ops.steps_across); without it a core with more\n"
	"                         than 100 steps has its step summary only (merge\n"
	"                         needs the rows)\n"
	"\n"
	"exit: 0 ok, 2 usage, 3 unreadable or corrupt input, 5 output failed,\n"
	"141 standard output closed by its reader (| head)\n";

enum { OPT_HBM = TP_CLI_OPTION_BASE, OPT_PER_STEP };

static const struct tp_cli_option report_options[] = {
	TP_CLI_FILTER_OPTIONS, { "hbm", true, OPT_HBM }, { "per-step", false, OPT_PER_STEP },
	{ NULL, false, 0 },
};

struct report_run {
	struct tp_report_filter f;
	struct tp_report r;
};

static int on_option(void *ctx, int id, const char *arg)
{
	struct report_run *run = ctx;

	if (id == OPT_PER_STEP) {
		run->f.per_step = true;
		return 0;
	}
	if (id != OPT_HBM)
		return -1;
	return tp_cli_size_option(&tp_cmd_report, "hbm", arg, true, &run->f.hbm);
}

static enum tp_err build(void *ctx, struct tp_capture *cap, struct tp_error *err)
{
	struct report_run *run = ctx;

	return tp_report_build(&run->r, cap, &run->f, err);
}

static enum tp_err write_out(void *ctx, FILE *out, enum tp_format fmt,
			 const struct tp_capture *cap, struct tp_error *err)
{
	const struct report_run *run = ctx;

	return tp_report_write(out, fmt, cap, &run->r, run->f.per_step, err);
}

static void release(void *ctx)
{
	tp_report_release(&((struct report_run *)ctx)->r);
}

static int run_report(int argc, char **argv)
{
	static const struct tp_cli_analysis steps = { true, build, write_out, release };
	struct report_run run = { .f = { 0 } };
	struct tp_common_opts o;
	int code;

	if (tp_cli_parse(&tp_cmd_report, argc, argv, report_options, on_option,
			 &run, &o, &code) < 0)
		return code;
	TP_CLI_FILTER_COPY(&run.f, &o.filter);
	if (tp_cli_saved_report(&o)) {   /* report pod.json: drawn again */
		if (run.f.hbm)
			return tp_cli_usage_error(&tp_cmd_report, "%s is a saved report: --device "
						  "and --hbm apply to captures", o.captures[0]);
		return tp_cli_run_saved_report(&tp_cmd_report, &o, NULL, 20);
	}
	return tp_cli_run_analysis(&o, &steps, &run);
}

const struct tp_cmd tp_cmd_report = {
	.name = "report",
	.summary = "the one-page answer: memory, time, traffic, warnings",
	.help = report_help,
	.run = run_report,
	.html = true,
};
