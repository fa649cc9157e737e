/*
 * cmd_diff.c - `tpuprof diff A B`: what changed between two runs. A and B
 * are each a capture or a saved `report --format json`; both become
 * report documents (tp_report_doc_load) and are compared by
 * tp_diff_reports (src/analyze/diff.c). diff reports, it does not gate:
 * it exits 0 whatever changed (`tpuprof check` is the gate).
 */
#include "../shared/cli.h"

#include "tpuprof/report/diff_report.h"
#include "tpuprof/report/report_doc.h"

#include <errno.h>
#include <stdlib.h>

static const char diff_help[] =
	"usage: tpuprof diff [options] A B\n"
	"\n"
	"What changed from A to B. A and B are each a capture (a file, run\n"
	"directory, logdir, XLA dump) or a report saved with\n"
	"'tpuprof report --format json -o FILE' (or by 'tpuprof merge'); the\n"
	"two kinds mix freely, and either may come from '-' (standard input),\n"
	"a pipe or a FIFO (diff base.json <(tpuprof merge reports/)).\n"
	"\n"
	"Compared, each as B - A with the percent change, rows sorted by the\n"
	"absolute change, with totals:\n"
	"  memory     compiler peak per module; compiler and runtime peak per\n"
	"             core (host and plane); the buffers live at each module's\n"
	"             peak and the bytes there per name scope that appeared,\n"
	"             disappeared, grew or shrank\n"
	"  time       op time per module and op, summed over cores; op self\n"
	"             time per name scope; each core's mean steady step (the\n"
	"             total: the slowest core's) and its parts (compute,\n"
	"             collective, copy, input, idle: where a step's change\n"
	"             went)\n"
	"  traffic    per collective: ring bytes per device and payload bytes,\n"
	"             both summed over executions, and device time\n"
	"\n"
	"Matching: modules by program id and name, then by name alone for those\n"
	"left over (ids change when a program is recompiled); cores by host and\n"
	"plane; buffers by defining instruction and shape index, then by scope\n"
	"and shape for those left over (instructions renumbered); scopes by\n"
	"path; ops and collectives by module name and instruction name.\n"
	"\n"
	"options:\n"
	"  --format text|json|html  output format (default text); json has every\n"
	"                         row (schema tpuprof.diff/1, docs/json.md); html\n"
	"                         is one self-contained page: both sides' memory\n"
	"                         towers and the changed rows (docs/html.md)\n"
	"  --compact              JSON on one line, without spaces (a smaller file)\n"
	"  --limit N              changed rows per section in text (default 10,\n"
	"                         0 = all); unchanged rows are only counted\n"
	"  --device NAME          the device of captures A and B (tpuprof devices\n"
	"                         lists the names); saved reports keep theirs\n"
	"  -o, --output FILE      write to FILE (replaced only on success)\n"
	"  --run NAME, --max-input SIZE, -j N, -q, -h   as for every command (--run\n"
	"                         applies to both A and B)\n"
	"\n"
	"exit: 0 ok (whatever changed; 'tpuprof check' is the gate), 2 usage,\n"
	"3 unreadable or corrupt input, 5 output failed,\n"
	"141 standard output closed by its reader (| head)\n";

enum { OPT_LIMIT = TP_CLI_OPTION_BASE };

static const struct tp_cli_option diff_options[] = {
	{ "limit", true, OPT_LIMIT },
	{ "device", true, TP_CLI_OPT_DEVICE },  /* into o.filter */
	{ NULL, false, 0 },
};

static int on_option(void *ctx, int id, const char *arg)
{
	size_t *limit = ctx;
	char *end;
	unsigned long long v;

	if (id != OPT_LIMIT)
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end || errno || v > 1000000000ULL)
		return tp_cli_usage_error(&tp_cmd_diff, "bad value '%s' for --limit", arg);
	*limit = (size_t)v;
	return 0;
}

static int load(json_t **doc, const char *path, const struct tp_common_opts *o)
{
	struct tp_report_filter f = { .device = o->filter.device };
	struct tp_error err = { 0 };

	if (tp_report_doc_load(doc, &path, 1, &o->open, &f, &err) != TP_OK)
		return tp_cli_fail(&err);
	tp_cli_doc_run_note(*doc);
	return TP_EXIT_OK;
}

static int run_diff(int argc, char **argv)
{
	struct tp_common_opts o;
	struct tp_error err = { 0 };
	struct tp_output out;
	json_t *a = NULL, *b = NULL, *d;
	size_t limit = 10;
	int code;

	if (tp_cli_parse(&tp_cmd_diff, argc, argv, diff_options, on_option, &limit, &o,
			 &code) < 0)
		return code;
	if (o.n_captures != 2)
		return tp_cli_usage_error(&tp_cmd_diff, "diff compares two inputs, A and B (%s given)",
					  o.n_captures == 1 ? "1" : "more");
	code = load(&a, o.captures[0], &o);
	if (code == TP_EXIT_OK)
		code = load(&b, o.captures[1], &o);
	if (code != TP_EXIT_OK) {
		json_decref(a);
		return code;
	}
	/* a file a directory or logdir argument expanded to */
	if ((code = tp_cli_output_clash_read(&tp_cmd_diff, "-o", o.output)) != TP_EXIT_OK) {
		json_decref(a);
		json_decref(b);
		return code;
	}
	d = tp_diff_reports(a, b, o.captures[0], o.captures[1]);
	code = tp_output_open(&out, o.output);
	if (code == TP_EXIT_OK)
		code = tp_output_finish(&out, tp_diff_write_sides(out.fp, o.format, d, a, b, limit, &err),
					&err);
	json_decref(a);
	json_decref(b);
	json_decref(d);
	return code;
}

const struct tp_cmd tp_cmd_diff = {
	.name = "diff",
	.summary = "what changed between two captures or saved reports",
	.help = diff_help,
	.run = run_diff,
	.html = true,
};
