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
#include "tpuprof/report/report_input.h"

#include <string.h>

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

/* The one input a drawing command looks at before it opens a capture:
 * read once (report_input.h), kept for the process, so that a capture on
 * a stream goes on from the bytes looked at. */
static struct tp_report_input saved;
static enum tp_err saved_rc;
static struct tp_error saved_err;

bool tp_cli_saved_report(struct tp_common_opts *o)
{
	if (o->n_captures != 1)
		return false;
	saved_rc = tp_report_input_open_any(&saved, o->captures[0], o->open.max_input,
					    &saved_err);
	if (saved_rc == TP_OK && saved.head.path) {
		o->open.heads = &saved.head;
		o->open.n_heads = 1;
	}
	return saved_rc != TP_OK || saved.doc;
}

int tp_cli_run_saved_report(const struct tp_cmd *cmd, struct tp_common_opts *o,
			    const char *part, size_t limit)
{
	struct tp_error err = { 0 };
	struct tp_output out;
	json_t *doc;
	int code;

	if (saved_rc != TP_OK)
		return tp_cli_fail(&saved_err);
	if (o->filter.host || o->filter.core || o->filter.module)
		return tp_cli_usage_error(cmd, "%s is a saved report: --host, --core and --module "
					  "apply to captures", o->captures[0]);
	/* its capacities and headroom were fixed when it was made: taken in
	 * silence, the option changed nothing */
	if (o->filter.device)
		return tp_cli_usage_error(cmd, "%s is a saved report: --device and --hbm apply "
					  "to captures", o->captures[0]);
	/* a report, or a command's own document (the schema tells which;
	 * report draws any of them) */
	doc = saved.doc;
	saved.doc = NULL;
	if (tp_report_doc_as_part(&doc, doc, strcmp(o->captures[0], "-") ? o->captures[0] : "<stdin>",
				  &part, &err) != TP_OK)
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
