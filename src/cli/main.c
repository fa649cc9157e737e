/*
 * main.c - the command table and dispatch. Each command lives in its own
 * cmd_<name>.c and is registered here, sorted by name; `devices`, which
 * reads no capture, lives here too (src/cli/ holds at most 15 C files).
 */
#include "cli.h"

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/device_report.h"

static const struct tp_cmd *const commands[] = {
	&tp_cmd_capture,
	&tp_cmd_check,
	&tp_cmd_collectives,
	&tp_cmd_devices,
	&tp_cmd_diff,
	&tp_cmd_fetch,
	&tp_cmd_fusions,
	&tp_cmd_info,
	&tp_cmd_memory,
	&tp_cmd_merge,
	&tp_cmd_ops,
	&tp_cmd_report,
	&tp_cmd_trace,
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct tp_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static void print_usage(FILE *out)
{
	fprintf(out,
		"usage: tpuprof COMMAND [options] CAPTURE...\n"
		"       tpuprof help COMMAND\n"
		"\n"
		"Answers from TPU and GPU profile captures (*.xplane.pb), as text\n"
		"for people and JSON (--format json) for scripts.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-12s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out,
		"  %-12s %s\n"
		"\n"
		"global options:\n"
		"  -h, --help     this help\n"
		"  --version      print the version\n"
		"\n"
		"exit codes: 0 ok, 1 a check failed, 2 usage, 3 unreadable or\n"
		"corrupt input, 4 network, 5 output could not be written,\n"
		"6 internal error (docs/exit-codes.md)\n",
		"help", "help on a command");
}

static int help_command(int argc, char **argv)
{
	const struct tp_cmd *cmd;

	if (argc < 2) {
		print_usage(stdout);
		return TP_EXIT_OK;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		tp_cli_error("no such command '%s' (see 'tpuprof --help')", argv[1]);
		return TP_EXIT_USAGE;
	}
	fputs(cmd->help, stdout);
	return TP_EXIT_OK;
}

/* stdout must reach its reader: a full disk or closed pipe is an error. */
static int finish_stdout(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		if (code == TP_EXIT_OK) {
			fputs("tpuprof: cannot write standard output\n", stderr);
			return TP_EXIT_OUTPUT;
		}
	}
	return code;
}

int main(int argc, char **argv)
{
	const struct tp_cmd *cmd;
	int code;

	/* Report EPIPE as an output error instead of dying silently. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		print_usage(stderr);
		return TP_EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		print_usage(stdout);
		return finish_stdout(TP_EXIT_OK);
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("tpuprof %s\n", TPUPROF_VERSION);
		return finish_stdout(TP_EXIT_OK);
	}
	if (strcmp(argv[1], "help") == 0)
		return finish_stdout(help_command(argc - 1, argv + 1));
	cmd = find_command(argv[1]);
	if (!cmd) {
		tp_cli_error("no such command '%s' (see 'tpuprof --help')", argv[1]);
		return TP_EXIT_USAGE;
	}
	code = cmd->run(argc - 1, argv + 1);
	return finish_stdout(code);
}

/* ---- `tpuprof devices`: the built-in device table ---- */

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
	"exit: 0 ok, 2 usage, 5 output failed\n";

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
