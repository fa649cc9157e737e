/*
 * cmd_devices.c - `tpuprof devices`: the built-in device table, as text
 * or tpuprof.devices/1 (docs/devices.md). It reads no capture.
 */
#include "../shared/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/report/device_report.h"

static const char devices_help[] =
	"usage: tpuprof devices [options]\n"
	"\n"
	"The built-in device table: per TPU and GPU the HBM capacity, the dense\n"
	"peak FLOP/s per precision, the HBM and interconnect bandwidth (per\n"
	"chip, and per plane, where a profile's device is one TensorCore or\n"
	"GCD), the names --device accepts, and each row's sources\n"
	"(docs/devices.md).\n"
	"\n"
	"options:\n"
	"  --format text|json   output format (default text)\n"
	"  -o, --output FILE    write to FILE (replaced only on success)\n"
	"  -h, --help           this help\n"
	"\n"
	"exit: 0 ok, 2 usage, 5 output failed,\n"
	"141 standard output closed by its reader (| head)\n";

static const struct option devices_options[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int run_devices(int argc, char **argv)
{
	enum tp_format fmt = TP_FORMAT_TEXT;
	const char *path = NULL;
	struct tp_output out;
	struct tp_error err = { 0 };
	int c, code;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", devices_options, NULL)) != -1) {
		if (c == 'h') {
			fputs(devices_help, stdout);
			return TP_EXIT_OK;
		} else if (c == 'o') {
			path = optarg;
		} else if (c == 'f' && strcmp(optarg, "json") == 0) {
			fmt = TP_FORMAT_JSON;
		} else if (c == 'f' && strcmp(optarg, "text") == 0) {
			fmt = TP_FORMAT_TEXT;
		} else if (c == 'f') {
			return tp_cli_usage_error(&tp_cmd_devices, "unknown format '%s' (text or json)", optarg);
		} else if (c == ':') {
			return tp_cli_usage_error(&tp_cmd_devices, "option '%s' needs a value",
						  argv[optind - 1]);
		} else {
			return tp_cli_usage_error(&tp_cmd_devices, "unknown option '%s'",
						  argv[optind - 1]);
		}
	}
	if (optind < argc)
		return tp_cli_usage_error(&tp_cmd_devices, "unexpected argument '%s'", argv[optind]);
	code = tp_output_open(&out, path);
	if (code != TP_EXIT_OK)
		return code;
	return tp_output_finish(&out, tp_report_devices(out.fp, fmt, &err), &err);
}

const struct tp_cmd tp_cmd_devices = {
	.name = "devices",
	.summary = "the built-in device table: capacity, peaks, bandwidth",
	.help = devices_help,
	.run = run_devices,
};
