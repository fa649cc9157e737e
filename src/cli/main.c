/*
 * main.c - the command table and dispatch. Each command lives in its own
 * commands/cmd_<name>.c and is registered here, sorted by name.
 */
#include "shared/cli.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

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
	&tp_cmd_oom,
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
	if (strcmp(argv[1], "help") == 0) {   /* listed among the commands */
		fputs("usage: tpuprof help [COMMAND]\n\n"
		      "Prints COMMAND's help (its options, exit codes and where its\n"
		      "figures are defined), or without COMMAND the list of commands.\n", stdout);
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

/* stdout must reach its reader: a full disk is an error; a reader that
 * closed the pipe (| head) ends the run quietly with TP_EXIT_PIPE_CLOSED. */
static int finish_stdout(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		if (code == TP_EXIT_PIPE_CLOSED || tp_cli_stdout_closed(errno))
			return TP_EXIT_PIPE_CLOSED;
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

	/* See EPIPE rather than die of SIGPIPE: a closed pipe then ends the
	 * run quietly (TP_EXIT_PIPE_CLOSED), and -o's temporary file and a
	 * fetch's FILE.part are still cleaned up. */
	signal(SIGPIPE, SIG_IGN);
	/* Past a file-size limit (ulimit -f), a write fails with EFBIG and
	 * is reported (exit 5, the file named, -o's temporary file removed)
	 * instead of SIGXFSZ killing the run and leaving it behind. */
	signal(SIGXFSZ, SIG_IGN);
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
	tp_file_ids_release(&tp_cli_read);
	return finish_stdout(code);
}
