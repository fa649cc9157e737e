/*
 * cmd_merge.c - `tpuprof merge REPORT...`: combine reports made on
 * different machines (one per host of a pod, by any job runner) into the
 * report one run over all their files gives. Reports are merged one at a
 * time as they are read, so a pod's thousand reports take the memory of
 * the result only.
 */
#include "../shared/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/report/merge.h"
#include "tpuprof/report/report_doc.h"

static const char merge_help[] =
	"usage: tpuprof merge [options] REPORT...\n"
	"\n"
	"Combine `tpuprof report --format json` documents made where each host's\n"
	"files are into one report, the same as `tpuprof report --format json`\n"
	"over all the files at once: hosts, cores and runtime memories in\n"
	"argument order, each compiled program once, collective executions and\n"
	"op time summed, the op scope tree rebuilt. The result is JSON (a\n"
	"tpuprof.report/2 document) that check and diff accept as a baseline.\n"
	"\n"
	"A REPORT is a file, a directory (its *.json files, by name), a quoted\n"
	"pattern such as 'reports/*.json' (expanded here, by name: no command\n"
	"line limit), or - for standard input: reports one after the other, as\n"
	"JSON lines or whole documents. The same host's report given twice is\n"
	"merged once; hosts named <prefix><number> (host0, w-12) that are\n"
	"missing from the numbering are named on stderr.\n"
	"\n"
	"  host0$ tpuprof report --format json -o host0.json /logs/run/host0.xplane.pb\n"
	"  host1$ tpuprof report --format json -o host1.json /logs/run/host1.xplane.pb\n"
	"  $ tpuprof merge -o pod.json host0.json host1.json\n"
	"  $ tpuprof merge --expect 1024 -o pod.json reports/\n"
	"\n"
	"options:\n"
	"  --expect N           the pod has N hosts: exit 1 when fewer came\n"
	"                       (the merged report is still written); which\n"
	"                       are missing only from the names' numbering\n"
	"  --format json|text|html  the merged report as a document (default:\n"
	"                       JSON, what check, diff and report read back),\n"
	"                       as report's page of text, or its HTML page\n"
	"  --compact            JSON on one line, without spaces (a smaller file)\n"
	"  --max-input SIZE     most bytes of one report, a file or one on a stream\n"
	"                       (default 3/4 of memory, at most 64GiB); a report\n"
	"                       must start with '{' (/dev/zero is refused at once)\n"
	"  -o, --output FILE    write to FILE (replaced only on success)\n"
	"  -q, --quiet, -h, --help\n"
	"\n"
	"exit: 0 ok, 1 fewer hosts than --expect N, 2 usage, 3 a file is not a\n"
	"report, 5 output failed,\n"
	"141 standard output closed by its reader (| head)\n";

enum { OPT_EXPECT = TP_CLI_OPTION_BASE };

static const struct tp_cli_option merge_options[] = {
	{ "expect", true, OPT_EXPECT },
	{ NULL, false, 0 },
};

static int on_option(void *ctx, int id, const char *arg)
{
	size_t *expect = ctx;
	char *end;
	unsigned long long v;

	if (id != OPT_EXPECT)
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end || errno || v > 10000000ULL)
		return tp_cli_usage_error(&tp_cmd_merge, "bad value '%s' for --expect", arg);
	*expect = (size_t)v;
	return 0;
}

/* Every report of standard input, in order. */
static enum tp_err merge_stdin(struct tp_merge *g, uint64_t max, struct tp_error *err)
{
	struct tp_merge_stream st;
	enum tp_err rc = TP_OK;
	json_t *doc;
	int got;

	tp_merge_stream_init(&st, stdin, max);
	while (rc == TP_OK && (got = tp_merge_stream_next(&st, &doc, err)) != 0) {
		char name[64];

		if (got < 0) {
			rc = err->code;
			break;
		}
		snprintf(name, sizeof(name), "stdin, report %zu", st.n);
		rc = tp_merge_add(g, doc, name, err);
	}
	tp_merge_stream_release(&st);
	return rc;
}

static enum tp_err merge_all(struct tp_merge *g, const struct tp_merge_inputs *in,
			     uint64_t max, struct tp_error *err)
{
	enum tp_err rc = TP_OK;
	size_t i = 0;

	/* files between the "-" arguments a run at a time */
	while (i < in->n && rc == TP_OK) {
		size_t j = i;

		while (j < in->n && strcmp(in->paths[j], "-") != 0)
			j++;
		if (j > i)
			rc = tp_merge_files(g, (const char *const *)in->paths + i, j - i, max,
					    err);
		if (rc == TP_OK && j < in->n)
			rc = merge_stdin(g, max, err);
		i = j + 1;
	}
	return rc;
}

/* Hosts met twice, fewer hosts than --expect N, and those missing from
 * the numbering the names show: on stderr unless quiet. Returns whether
 * fewer than N hosts came (a gate, as check's: exit 1 once the merged
 * report is written). */
static bool print_hosts(const struct tp_merge *g, size_t expect, bool quiet)
{
	const struct tp_merge_hosts *h = tp_merge_hosts(g);
	char **missing;
	size_t n = tp_merge_missing(h, &missing);
	bool short_of_expect = expect && h->n_names < expect;

	for (size_t i = 0; !quiet && i < h->n_dups; i++)
		fprintf(stderr, h->dups[i].left_out ?
				"tpuprof: merge: %s: %s is the same capture as %s, left out\n" :
				"tpuprof: merge: %s: two captures of this host name, %s and %s, both merged\n",
			h->dups[i].host, h->dups[i].left_out ? h->dups[i].again : h->dups[i].first,
			h->dups[i].left_out ? h->dups[i].first : h->dups[i].again);
	if (!quiet && short_of_expect)
		fprintf(stderr, "tpuprof: merge: %zu host%s of %zu expected%s\n", h->n_names,
			h->n_names == 1 ? "" : "s", expect,
			n ? "" : " (the host names show no gap in a numbered series: which are "
				 "missing is not known)");
	if (!quiet && n) {
		fprintf(stderr, "tpuprof: merge: %zu host%s missing from the hosts' numbering:", n,
			n == 1 ? "" : "s");
		for (size_t i = 0; i < n && i < 20; i++)
			fprintf(stderr, " %s", missing[i]);
		fprintf(stderr, n > 20 ? " and %zu more\n" : "\n", n - 20);
	}
	for (size_t i = 0; i < n; i++)
		free(missing[i]);
	free(missing);
	return short_of_expect;
}

static int run_merge(int argc, char **argv)
{
	struct tp_common_opts o;
	struct tp_error err = { 0 };
	struct tp_merge_inputs in;
	struct tp_output out;
	struct tp_merge *g;
	json_t *merged = NULL;
	size_t expect = 0;
	bool short_of_expect;
	int code;

	if (tp_cli_parse(&tp_cmd_merge, argc, argv, merge_options, on_option, &expect, &o,
			 &code) < 0)
		return code;
	/* as every command with no logdir among its inputs refuses it */
	if (o.open.run)
		return tp_cli_usage_error(&tp_cmd_merge, "--run %s: merge reads reports, not logdirs",
					  o.open.run);
	if (!o.format_given)   /* what check, diff and report read back */
		o.format = TP_FORMAT_JSON;
	if (tp_merge_inputs((const char *const *)o.captures, (size_t)o.n_captures, &in,
			    &err) != TP_OK)
		return tp_cli_fail(&err);
	/* a file a directory or pattern argument expanded to */
	if ((code = tp_cli_output_clash_with(&tp_cmd_merge, "-o", o.output,
					     (const char *const *)in.paths, (int)in.n)) !=
	    TP_EXIT_OK) {
		tp_merge_inputs_release(&in);
		return code;
	}
	g = tp_merge_new(true);
	if (merge_all(g, &in, o.open.max_input, &err) != TP_OK ||
	    tp_merge_finish(g, &merged, &err) != TP_OK) {
		tp_merge_free(g);
		tp_merge_inputs_release(&in);
		return tp_cli_fail(&err);
	}
	short_of_expect = print_hosts(g, expect, o.quiet);
	tp_merge_free(g);
	tp_merge_inputs_release(&in);
	code = tp_output_open(&out, o.output);
	if (code == TP_EXIT_OK)
		code = tp_output_finish(&out, tp_report_doc_write(out.fp, o.format, merged, &err),
					&err);
	json_decref(merged);
	return code == TP_EXIT_OK && short_of_expect ? TP_EXIT_CHECK_FAILED : code;
}

const struct tp_cmd tp_cmd_merge = {
	.name = "merge",
	.summary = "combine per-host reports into one",
	.help = merge_help,
	.run = run_merge,
	.html = true,
	.operand = "REPORT",
};
