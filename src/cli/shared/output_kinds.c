/*
 * output_kinds.c - what a command's output is drawn from and how wide it
 * may be: the columns text may fill (a terminal's, none for a pipe or a
 * file), and a saved report document drawn again instead of a capture.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tpuprof/report/report_doc.h"

size_t tp_cli_text_width(FILE *out, bool wide)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	unsigned long n;

	/* a pipe or a file has no width (as ls and git): names whole */
	if (wide || !isatty(fileno(out)))
		return 0;
	if (env && *env) {
		n = strtoul(env, &end, 10);
		if (!*end && n > 0 && n < 100000)
			return (size_t)n;
	}
	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

bool tp_cli_saved_report(const struct tp_common_opts *o)
{
	return o->n_captures == 1 && tp_report_doc_saved(o->captures[0]);
}

int tp_cli_run_saved_report(const struct tp_cmd *cmd, struct tp_common_opts *o,
			    const char *part, size_t limit)
{
	struct tp_error err = { 0 };
	struct tp_output out;
	json_t *doc;
	int code;

	if (o->filter.host || o->filter.core || o->filter.module)
		return tp_cli_usage_error(cmd, "%s is a saved report: --host, --core and --module "
					  "apply to captures", o->captures[0]);
	/* a report, or a command's own document (the schema tells which;
	 * report draws any of them) */
	if (tp_report_doc_load_part(&doc, o->captures[0], &part, &err) != TP_OK)
		return tp_cli_fail(&err);
	if (part && !json_object_get(doc, part)) {
		json_decref(doc);
		tp_cli_error("%s: the saved report has no '%s' document", o->captures[0], part);
		return TP_EXIT_INPUT;
	}
	code = tp_output_open(&out, o->output);
	if (code == TP_EXIT_OK)
		code = tp_output_finish(&out, part ? tp_report_doc_part_write(out.fp, o->format,
									      doc, part, limit, &err)
						   : tp_report_doc_write(out.fp, o->format, doc, &err),
					&err);
	json_decref(doc);
	return code;
}
