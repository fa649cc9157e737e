/*
 * cmd_info.c - `tpuprof info CAPTURE...`: what a capture holds, and which
 * analyses what it lacks rules out. The proof that the decoder reads a
 * capture: every plane and line with exact event counts.
 */
#include "../shared/cli.h"

#include "tpuprof/analyze/info.h"

static const char info_help[] =
	"usage: tpuprof info [options] CAPTURE...\n"
	"\n"
	"Show what a capture holds: per host the device type and versions,\n"
	"capture start and duration, every plane with its kind and every line\n"
	"with its event count and time span, the HLO modules (program id,\n"
	"instructions, fusions, collectives, buffer assignment), counts of\n"
	"runtime memory events and collective executions, and warnings for\n"
	"what is missing and which analyses that rules out.\n"
	"\n"
	"CAPTURE is a *.xplane.pb (gzip or not), a *.hlo_proto.pb, an XLA dump\n"
	"file or directory (module_NNNN.*.hlo.pb), a run directory (every host),\n"
	"a TensorBoard logdir (its newest run), or - for standard input.\n"
	"\n"
	"options:\n"
	"  --format text|json   output format (default text)\n"
	"  --compact            JSON on one line, without spaces (a smaller file)\n"
	"  -o, --output FILE    write to FILE (replaced only on success)\n"
	TP_CLI_HELP_INPUT_OPTIONS
	"\n"
	"exit: 0 ok, 2 usage, 3 unreadable or corrupt input, 5 output failed,\n"
	"141 standard output closed by its reader (| head)\n";

static enum tp_err build(void *ctx, struct tp_capture *cap, struct tp_error *err)
{
	return tp_info_build(ctx, cap, err);
}

static enum tp_err write_out(void *ctx, FILE *out, enum tp_format fmt,
			 const struct tp_capture *cap, struct tp_error *err)
{
	return tp_report_info(out, fmt, cap, ctx, err);
}

static void release(void *ctx)
{
	tp_info_release(ctx);
}

static int run_info(int argc, char **argv)
{
	static const struct tp_cli_analysis steps = { false, build, write_out, release };
	struct tp_common_opts o;
	struct tp_info info;
	int code;

	if (tp_cli_parse_common(&tp_cmd_info, argc, argv, &o, &code) < 0)
		return code;
	return tp_cli_run_analysis(&o, &steps, &info);
}

const struct tp_cmd tp_cmd_info = {
	.name = "info",
	.summary = "what a capture holds and what it lacks",
	.help = info_help,
	.run = run_info,
};
