/*
 * output_clash.c - an output that is one of the inputs, refused before
 * anything is read: -o (and memory --svg, check --json-out) is renamed
 * over its path once written, so the input there would be lost.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tpuprof/util/util.h"

int tp_cli_output_clash_with(const struct tp_cmd *cmd, const char *option,
			     const char *path, const char *const *inputs, int n)
{
	struct stat out, in;
	char *what;
	int code;

	if (!path || strcmp(path, "-") == 0 || stat(path, &out) != 0 || !S_ISREG(out.st_mode))
		return TP_EXIT_OK;
	for (int i = 0; i < n; i++) {
		if (!inputs[i] || stat(inputs[i], &in) != 0 || in.st_dev != out.st_dev ||
		    in.st_ino != out.st_ino)
			continue;
		what = tp_xasprintf("%s '%s'", option, path);
		code = tp_cli_usage_error(cmd, "%s is also an input: the output would replace it",
					  what);
		free(what);
		return code;
	}
	return TP_EXIT_OK;
}

int tp_cli_output_clash(const struct tp_cmd *cmd, const char *option, const char *path,
			const struct tp_common_opts *o)
{
	return tp_cli_output_clash_with(cmd, option, path, (const char *const *)o->captures,
					o->n_captures);
}
