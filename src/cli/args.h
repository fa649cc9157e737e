/*
 * args.h - one getopt_long loop in GNU style for every command: options
 * and operands in any order, `--` ends the options (docs/tpuprof.1).
 *
 *   struct tp_cli_args a;
 *   tp_cli_args_begin(&a, argc, argv);
 *   while ((c = tp_cli_args_next(&a, "-o:q", longopts)) != -1) ...;
 *   operands = tp_cli_args_end(&a, &n);
 *
 * The short option string must start with '-'. tp_cli_args_end must be
 * called whenever begin was, also after the loop stopped early; it moves
 * the operands, in their order, to the end of argv and returns that slice
 * (borrowed from argv). optarg, optind and argv[optind - 1] keep their
 * getopt meaning inside the loop.
 */
#ifndef TPUPROF_CLI_ARGS_H
#define TPUPROF_CLI_ARGS_H

#include <getopt.h>
#include <stdbool.h>

struct tp_cli_args {
	int argc;
	char **argv;
	char **operands;     /* malloc'd until tp_cli_args_end */
	int n_operands;
	bool finished;       /* the loop reached -1 (the end or `--`) */
};

void tp_cli_args_begin(struct tp_cli_args *a, int argc, char **argv);
/* The next option (getopt_long's value, '?' for an unknown or incomplete
 * one), operands collected on the way; -1 at the end or after `--`. */
int tp_cli_args_next(struct tp_cli_args *a, const char *shorts,
		     const struct option *longopts);
char **tp_cli_args_end(struct tp_cli_args *a, int *n_operands);

/* For the argument parser's fuzz target (tests/fuzz/fuzz_args.c) only:
 * when true, a command's parse that succeeded makes it return 0 at once,
 * before it opens or fetches anything. Always false in tpuprof. */
extern bool tp_cli_parse_only;

#endif
