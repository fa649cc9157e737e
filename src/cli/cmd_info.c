/*
 * cmd_info.c - `tpuprof info CAPTURE...`: what a capture holds, and which
 * analyses what it lacks rules out. The proof that the decoder reads a
 * capture: every plane and line with exact event counts.
 */
#include "cli.h"

#include "tpuprof/info.h"

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
	"  -o, --output FILE    write to FILE (replaced only on success)\n"
	"  --run NAME           the run to take from a logdir (default newest)\n"
	"  --max-input SIZE     most bytes to inflate or read from stdin\n"
	"  -j, --jobs N         threads for decoding and analysis (default: one\n"
	"                       per CPU)\n"
	"                       (default 3/4 of memory, at most 64GiB)\n"
	"  -q, --quiet          no notes on stderr\n"
	"  -h, --help           this help\n"
	"\n"
	"exit: 0 ok, 2 usage, 3 unreadable or corrupt input, 5 output failed\n";

static int run_info(int argc, char **argv)
{
	struct tp_common_opts o;
	struct tp_capture cap;
	struct tp_info info;
	struct tp_error err = { 0 };
	struct tp_output out;
	int code;

	if (tp_cli_parse_common(&tp_cmd_info, argc, argv, &o, &code) < 0)
		return code;
	if ((code = tp_cli_open_capture(&o, &cap)) != TP_EXIT_OK)
		return code;
	if (tp_info_build(&info, &cap, &err) != TP_OK) {
		tp_capture_release(&cap);
		return tp_cli_fail(&err);
	}
	code = tp_output_open(&out, o.output);
	if (code == TP_EXIT_OK)
		code = tp_output_finish(&out, tp_report_info(out.fp, o.format, &cap, &info, &err), &err);
	tp_info_release(&info);
	tp_capture_release(&cap);
	return code;
}

const struct tp_cmd tp_cmd_info = {
	.name = "info",
	.summary = "what a capture holds and what it lacks",
	.help = info_help,
	.run = run_info,
};
