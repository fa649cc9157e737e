/*
 * args.c - GNU-style argument order for every command: options before,
 * between and after the operands, and `--` ending the options, whatever
 * POSIXLY_CORRECT says (getopt's RETURN_IN_ORDER mode, the leading '-' of
 * the short option string, returns each operand as option 1; we keep them
 * in order and hand them back as one slice of argv).
 */
#include "args.h"

#include <stdlib.h>

#include "tpuprof/util.h"

bool tp_cli_parse_only;

void tp_cli_args_begin(struct tp_cli_args *a, int argc, char **argv)
{
	a->argc = argc;
	a->argv = argv;
	a->operands = tp_xcalloc((size_t)argc + 1, sizeof(*a->operands));
	a->n_operands = 0;
	a->finished = false;
	/* 0, not 1: glibc then forgets the cluster position of an earlier
	 * parse that stopped inside "-qz" (a pointer into old argv). */
	optind = 0;
	opterr = 0;
}

int tp_cli_args_next(struct tp_cli_args *a, const char *shorts,
		     const struct option *longopts)
{
	int c;

	while ((c = getopt_long(a->argc, a->argv, shorts, longopts, NULL)) == 1)
		a->operands[a->n_operands++] = optarg;
	if (c == -1)
		a->finished = true;
	return c;
}

char **tp_cli_args_end(struct tp_cli_args *a, int *n_operands)
{
	int n = a->n_operands;
	char **tail;

	/* after `--` getopt stops at optind: the rest are operands too */
	for (int i = a->finished ? optind : a->argc; i < a->argc; i++)
		a->operands[n++] = a->argv[i];
	/* every option is parsed: the slots of argv are free to reuse (the
	 * option values point at the strings, not at the slots) */
	tail = a->argv + a->argc - n;
	for (int i = 0; i < n; i++)
		tail[i] = a->operands[i];
	free(a->operands);
	a->operands = NULL;
	*n_operands = n;
	return tail;
}
