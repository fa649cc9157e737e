/*
 * fuzz_args.c - libFuzzer target for the argument parser: every command's
 * option table and value checks (sizes, fractions, percentages, counts,
 * durations, headers, tool lists, --service-addr), the GNU-order loop
 * (tp_cli_args_*, src/cli/shared/common.c) and `--`.
 *
 * Input: the first byte picks the command, the rest is its argv, words
 * separated by NUL bytes (each copied into its own allocation, so an
 * overread is seen). tp_cli_parse_only makes a command return right after
 * a successful parse, so nothing is opened or fetched; the exit code must
 * then be 0 (parsed, or --help) or 2 (a usage error), never anything else.
 * The loop itself is also run on its own: the operands it returns must be
 * argv's own strings, in their order. Run with -close_fd_mask=3 (run.sh):
 * help and usage errors are printed.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/cli/shared/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct tp_cmd *const commands[] = {
	&tp_cmd_capture, &tp_cmd_check, &tp_cmd_collectives, &tp_cmd_diff,
	&tp_cmd_fetch, &tp_cmd_fusions, &tp_cmd_info, &tp_cmd_memory,
	&tp_cmd_merge, &tp_cmd_ops, &tp_cmd_report, &tp_cmd_oom,
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))
#define MAX_WORDS 64

/* Splits data at NUL bytes into argv[1..]; argv[0] is name. */
static int make_argv(const uint8_t *data, size_t size, const char *name,
		     char **argv)
{
	int argc = 1;
	size_t start = 0;

	argv[0] = strdup(name);
	for (size_t i = 0; i <= size && argc < MAX_WORDS; i++) {
		if (i < size && data[i] != '\0')
			continue;
		argv[argc] = malloc(i - start + 1);
		memcpy(argv[argc], data + start, i - start);
		argv[argc][i - start] = '\0';
		argc++;
		start = i + 1;
	}
	argv[argc] = NULL;
	return argc;
}

static void free_argv(char **words, int argc)
{
	for (int i = 0; i < argc; i++)
		free(words[i]);
}

/* The loop alone: operands come back as argv's strings, in order. */
static void check_loop(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	char *orig[MAX_WORDS + 1];
	struct tp_cli_args a;
	char **ops;
	int n, last = 0;

	memcpy(orig, argv, sizeof(*argv) * (size_t)(argc + 1));
	tp_cli_args_begin(&a, argc, argv);
	while (tp_cli_args_next(&a, "-o:qj:", longopts) != -1)
		;
	ops = tp_cli_args_end(&a, &n);
	if (n < 0 || n >= argc + 1)
		abort();
	for (int k = 0; k < n; k++) {
		int at = last + 1;

		while (at < argc && orig[at] != ops[k])
			at++;
		if (at >= argc)
			abort();   /* not an argv string, or out of order */
		last = at;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_WORDS + 1], *words[MAX_WORDS + 1];
	const struct tp_cmd *cmd;
	int argc, code;

	if (size < 1 || size > 4096)
		return 0;
	tp_cli_parse_only = true;
	cmd = commands[data[0] % N_COMMANDS];
	argc = make_argv(data + 1, size - 1, cmd->name, words);
	/* getopt permutes argv's pointers, the commands move operands: keep
	 * the allocations apart from the array they are given */
	memcpy(argv, words, sizeof(*words) * (size_t)(argc + 1));
	code = cmd->run(argc, argv);
	if (code != TP_EXIT_OK && code != TP_EXIT_USAGE)
		abort();
	memcpy(argv, words, sizeof(*words) * (size_t)(argc + 1));
	check_loop(argc, argv);
	free_argv(words, argc);
	return 0;
}
