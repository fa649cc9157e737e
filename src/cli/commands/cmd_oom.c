/*
 * cmd_oom.c - `tpuprof oom LOG...`: the out-of-memory reports XLA printed,
 * found in logs and explained (docs/oom.md); `tpuprof oom diff A B`
 * compares the first report of two logs. Logs are read as streams in
 * 1 MiB pieces: only the reports are kept.
 */
#include "../shared/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/report/oom_report.h"

static const char oom_help[] =
	"usage: tpuprof oom [options] LOG...\n"
	"       tpuprof oom diff [options] A.log B.log\n"
	"\n"
	"Explains the out-of-memory reports XLA printed in LOG (a file, or - for\n"
	"standard input: python train.py 2>&1 | tpuprof oom -): TPU compile-time\n"
	"('Ran out of memory in memory space hbm/vmem'), TPU run-time ('Attempting\n"
	"to reserve/allocate'), XLA:GPU and the BFC allocator. Each report is\n"
	"found whatever surrounds it (log prefixes, tracebacks, progress bars,\n"
	"Markdown, wrapped or collapsed lines), from any of its parts (a paste\n"
	"that starts at 'Program hbm requirement', the list, a numbered entry,\n"
	"'Peak buffers:' or a BFC 'Stats:' tail has no headline: its used,\n"
	"capacity and overage stay unknown), and answered with:\n"
	"  verdict    which memory, compile or run time, used vs capacity and\n"
	"             over by how much; the chip (--device, or told from the\n"
	"             printed capacity and runtime reservation)\n"
	"  cause      first: arguments, output or the reservation that alone\n"
	"             exceed the capacity (no cut to temporaries fixes those),\n"
	"             else the temporaries; at run time, fragmentation\n"
	"  parts      the usage and program requirement blocks as printed\n"
	"  listed     the allocations XLA lists (only the largest N) with shape,\n"
	"             tiles and the padded dimensions, rolled up by name scope,\n"
	"             op type and allocation type\n"
	"  to cut     the source ops (.remat copies once) and the scope that\n"
	"             cover the overage; split estimates (lower bounds,\n"
	"             rounded up)\n"
	"A figure that is not printed is never invented; a report cut short\n"
	"says what it lacks. 'oom diff A B' compares the first report of A with\n"
	"the first of B (the before and after of a fix).\n"
	"\n"
	"options:\n"
	"  --format text|json|html  output format (default text); json is\n"
	"                         tpuprof.oom/1 (docs/json.md); html one page\n"
	"  --compact              JSON on one line, without spaces (a smaller file)\n"
	"  --device NAME          the chip the run used (tpuprof devices)\n"
	"  -o, --output FILE      write to FILE (replaced only on success)\n"
	"  -q, --quiet            no notes on stderr\n"
	"  -h, --help             this help\n"
	"\n"
	"exit: 0 at least one report found and explained, 1 no report in the\n"
	"text, 2 usage, 3 unreadable input, 5 output failed\n";

static const struct tp_cli_option oom_options[] = {
	{ "device", true, TP_CLI_OPT_DEVICE },
	{ NULL, false, 0 },
};

static int on_option(void *ctx, int id, const char *arg)
{
	return -1;
}

/* Reads path ("-": stdin) into f->log as a stream. */
static int read_log(struct tp_oom_file *f)
{
	FILE *fp = strcmp(f->path, "-") == 0 ? stdin : fopen(f->path, "rb");
	char *buf;
	size_t n;
	int code = TP_EXIT_OK;

	tp_oom_log_init(&f->log);
	if (!fp) {
		tp_cli_error("%s: cannot open: %s", f->path, strerror(errno));
		return TP_EXIT_INPUT;
	}
	buf = tp_xmalloc(1 << 20);
	while ((n = fread(buf, 1, 1 << 20, fp)) > 0)
		tp_oom_feed(&f->log, buf, n);
	if (ferror(fp)) {
		tp_cli_error("%s: cannot read: %s", f->path, strerror(errno ? errno : EIO));
		code = TP_EXIT_INPUT;
	}
	tp_oom_finish(&f->log);
	free(buf);
	if (fp != stdin)
		fclose(fp);
	return code;
}

static const char no_report_hint[] =
	"(tpuprof looks for XLA's 'Ran out of memory in memory space', 'Attempting to "
	"reserve/allocate', 'Out of memory while trying to allocate', 'Failed to allocate "
	"request for', 'ran out of memory trying to allocate', 'Scoped allocation with size', "
	"'Requires X, has Y available', 'TensorCore Hbm usage', or a part: 'Total hbm usage >=', "
	"'Program hbm requirement', 'Largest program allocations', 'N. Size:', 'Peak buffers:', "
	"'Buffer N:', 'BufferAssignment stats:', a BFC 'Stats:')";

static int run_diff(const struct tp_common_opts *o, struct tp_oom_file *files)
{
	struct tp_oom_explain ex[2];
	struct tp_output out;
	struct tp_error err = { 0 };
	int code;

	for (int i = 0; i < 2; i++) {
		if (files[i].log.n == 0) {
			tp_cli_error("%s: no out-of-memory report to compare %s", files[i].path,
				     no_report_hint);
			return TP_EXIT_CHECK_FAILED;
		}
	}
	if (o->format == TP_FORMAT_HTML)
		return tp_cli_usage_error(&tp_cmd_oom, "oom diff writes text or json, not '%s'",
					  "html");
	for (int i = 0; i < 2; i++)
		tp_oom_explain(&ex[i], &files[i].log.reports[0], o->filter.device);
	code = tp_output_open(&out, o->output);
	if (code == TP_EXIT_OK)
		code = tp_output_finish(&out, tp_report_oom_diff(out.fp, o->format, &ex[0], files[0].path,
								 &ex[1], files[1].path, &err), &err);
	for (int i = 0; i < 2; i++)
		tp_oom_explain_release(&ex[i]);
	return code;
}

static int explain_all(const struct tp_common_opts *o, struct tp_oom_file *files, size_t n)
{
	struct tp_oom_result res = { files, n, NULL, NULL, 0 };
	struct tp_oom_explain *ex;
	size_t *ex_file, total = 0, k = 0;
	struct tp_output out;
	struct tp_error err = { 0 };
	int code;

	for (size_t i = 0; i < n; i++)
		total += files[i].log.n;
	ex = tp_xcalloc(total ? total : 1, sizeof(*ex));
	ex_file = tp_xcalloc(total ? total : 1, sizeof(*ex_file));
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < files[i].log.n; j++, k++) {
			tp_oom_explain(&ex[k], &files[i].log.reports[j], o->filter.device);
			ex_file[k] = i;
		}
		if (files[i].log.reports_dropped && !o->quiet)
			tp_cli_error("warning: %s: more than %d reports; the rest are not shown",
				     files[i].path, TP_OOM_REPORTS_MAX);
	}
	res.ex = ex;
	res.ex_file = ex_file;
	res.n_ex = total;
	code = tp_output_open(&out, o->output);
	if (code == TP_EXIT_OK)
		code = tp_output_finish(&out, tp_report_oom(out.fp, o->format, &res, &err), &err);
	for (size_t i = 0; i < total; i++)
		tp_oom_explain_release(&ex[i]);
	free(ex);
	free(ex_file);
	if (code == TP_EXIT_OK && total == 0) {
		tp_cli_error("no out-of-memory report in %s %s", n == 1 ? files[0].path : "the logs",
			     no_report_hint);
		code = TP_EXIT_CHECK_FAILED;
	}
	return code;
}

static int run_oom(int argc, char **argv)
{
	struct tp_common_opts o;
	struct tp_oom_file *files;
	char **logs;
	size_t n;
	bool diff;
	int code;

	if (tp_cli_parse(&tp_cmd_oom, argc, argv, oom_options, on_option, NULL, &o, &code) < 0)
		return code;
	if (o.open.run)
		return tp_cli_usage_error(&tp_cmd_oom, "--run %s: oom reads logs, not logdirs",
					  o.open.run);
	diff = o.n_captures >= 1 && strcmp(o.captures[0], "diff") == 0;
	logs = o.captures + diff;
	n = (size_t)(o.n_captures - diff);
	if (n == 0)
		return tp_cli_usage_error(&tp_cmd_oom, "oom: no %s given", tp_cmd_oom.operand);
	if (diff && n != 2)
		return tp_cli_usage_error(&tp_cmd_oom, "oom diff compares two logs, A and B (%s given)",
					  n == 1 ? "1" : "more");
	files = tp_xcalloc(n, sizeof(*files));
	code = TP_EXIT_OK;
	for (size_t i = 0; i < n; i++) {
		files[i].path = logs[i];
		if (code == TP_EXIT_OK)
			code = read_log(&files[i]);
		else
			tp_oom_log_init(&files[i].log);
	}
	if (code == TP_EXIT_OK)
		code = diff ? run_diff(&o, files) : explain_all(&o, files, n);
	for (size_t i = 0; i < n; i++)
		tp_oom_log_release(&files[i].log);
	free(files);
	return code;
}

const struct tp_cmd tp_cmd_oom = {
	.name = "oom",
	.summary = "explain XLA's out-of-memory reports in a log",
	.help = oom_help,
	.run = run_oom,
	.html = true,
	.operand = "LOG",
};
