/*
 * output_clash.c - an output that is one of the inputs, refused before
 * anything is read: -o (and memory --svg, check --json-out) is renamed
 * over its path once written, so the input there would be lost. Before
 * reading, against the arguments; once read, against the files a
 * directory, logdir or pattern argument expanded to (tp_cli_read).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tpuprof/util/util.h"

struct tp_file_ids tp_cli_read;

static int clash(const struct tp_cmd *cmd, const char *option, const char *path)
{
	char *what = tp_xasprintf("%s '%s'", option, path);
	int code = tp_cli_usage_error(cmd, "%s is also an input: the output would replace it",
				      what);

	free(what);
	return code;
}

/* Whether path names a regular file into *out: only one can be
 * replaced (a device or FIFO is written in place, tp_output_open). */
static bool replaceable(const char *path, struct stat *out)
{
	return path && strcmp(path, "-") != 0 && stat(path, out) == 0 && S_ISREG(out->st_mode);
}

int tp_cli_output_clash_with(const struct tp_cmd *cmd, const char *option,
			     const char *path, const char *const *inputs, int n)
{
	struct stat out, in;

	if (!replaceable(path, &out))
		return TP_EXIT_OK;
	for (int i = 0; i < n; i++) {
		if (!inputs[i] || stat(inputs[i], &in) != 0 || in.st_dev != out.st_dev ||
		    in.st_ino != out.st_ino)
			continue;
		return clash(cmd, option, path);
	}
	return TP_EXIT_OK;
}

int tp_cli_output_clash_read(const struct tp_cmd *cmd, const char *option, const char *path)
{
	struct stat out;

	if (!replaceable(path, &out) || !tp_file_ids_has_path(&tp_cli_read, path))
		return TP_EXIT_OK;
	return clash(cmd, option, path);
}

int tp_cli_output_clash(const struct tp_cmd *cmd, const char *option, const char *path,
			const struct tp_common_opts *o)
{
	return tp_cli_output_clash_with(cmd, option, path, (const char *const *)o->captures,
					o->n_captures);
}
