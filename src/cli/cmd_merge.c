/*
 * cmd_merge.c - `tpuprof merge REPORT.json...`: combine reports made on
 * different machines (one per host of a pod, by any job runner) into the
 * report one run over all their files gives.
 */
#include "cli.h"

#include <stdlib.h>

#include "tpuprof/merge.h"

static const char merge_help[] =
	"usage: tpuprof merge [options] REPORT.json...\n"
	"\n"
	"Combine `tpuprof report --format json` documents made where each host's\n"
	"files are into one report, the same as `tpuprof report --format json`\n"
	"over all the files at once: hosts, cores and runtime memories in\n"
	"argument order, each compiled program once, collective executions and\n"
	"op time summed, the op scope tree rebuilt. The result is JSON (a\n"
	"tpuprof.report/2 document) that check and diff accept as a baseline.\n"
	"\n"
	"  host0$ tpuprof report --format json -o host0.json /logs/run/host0.xplane.pb\n"
	"  host1$ tpuprof report --format json -o host1.json /logs/run/host1.xplane.pb\n"
	"  $ tpuprof merge -o pod.json host0.json host1.json\n"
	"\n"
	"options:\n"
	"  -o, --output FILE    write to FILE (replaced only on success)\n"
	"  -q, --quiet, -h, --help\n"
	"\n"
	"exit: 0 ok, 2 usage, 3 a file is not a report, 5 output failed\n";

static void release_docs(json_t **docs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(docs[i]);
	free(docs);
}

static int run_merge(int argc, char **argv)
{
	struct tp_common_opts o;
	struct tp_error err = { 0 };
	struct tp_output out;
	json_t **docs, *merged = NULL;
	size_t n;
	int code;

	if (tp_cli_parse_common(&tp_cmd_merge, argc, argv, &o, &code) < 0)
		return code;
	n = (size_t)o.n_captures;
	docs = tp_xcalloc(n, sizeof(*docs));
	for (size_t i = 0; i < n; i++) {
		json_error_t je;

		docs[i] = json_load_file(o.captures[i], 0, &je);
		if (!docs[i]) {
			tp_error_set(&err, TP_ERR_INPUT, "%s: not a JSON report (line %d: %s)",
				     o.captures[i], je.line, je.text);
			release_docs(docs, n);
			return tp_cli_fail(&err);
		}
	}
	if (tp_report_merge(&merged, docs, (const char *const *)o.captures, n, &err) != TP_OK) {
		release_docs(docs, n);
		return tp_cli_fail(&err);
	}
	release_docs(docs, n);
	code = tp_output_open(&out, o.output);
	if (code == TP_EXIT_OK)
		code = tp_output_finish(&out, tp_json_write(out.fp, merged, &err), &err);
	json_decref(merged);
	return code;
}

const struct tp_cmd tp_cmd_merge = {
	.name = "merge",
	.summary = "combine per-host reports into one",
	.help = merge_help,
	.run = run_merge,
};
