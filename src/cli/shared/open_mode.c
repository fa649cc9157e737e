/*
 * open_mode.c - whether a command may open its captures with long op
 * lines left to the analysis that reads them (tp_open_opts.defer_min_bytes):
 * a damaged one is found only then, and the capture is opened again whole
 * (tp_capture_reopen_whole), which needs its bytes a second time.
 */
#include "cli.h"

#include <string.h>
#include <sys/stat.h>

/* Regular files and directories can be read again; standard input, a
 * pipe or a device cannot (their bytes are gone once read). */
static bool readable_again(const char *path)
{
	struct stat st;

	return strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
	       (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
}

void tp_cli_defer_op_lines(struct tp_common_opts *o)
{
	for (int i = 0; i < o->n_captures; i++)
		if (!readable_again(o->captures[i]))
			return;  /* scanned at open: read once less is not worth failing */
	o->open.defer_min_bytes = TP_DEFER_MIN_BYTES;
}
