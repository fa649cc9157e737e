/*
 * fetch_cli.c - the options of `fetch` and `capture` as one table (name,
 * short letter, kind of value, where it goes), the progress bar on a
 * terminal, and printing the notes and the summary. Tokens given on the
 * command line or in the environment go into the options only, never to
 * the terminal.
 */
#include "fetch_cli.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tpuprof/util/util.h"

enum opt_kind {
	OPT_TRUE,      /* bool := true                               */
	OPT_STRING,    /* const char * := arg                        */
	OPT_UINT,      /* unsigned in [lo, hi]                       */
	OPT_INT,       /* int in [lo, hi]                            */
	OPT_U64,       /* uint64_t, at least lo                      */
	OPT_MS,        /* long milliseconds from "1.5", "500ms", "2s", "1m" */
	OPT_SIZE,      /* uint64_t bytes, more than 0                */
	OPT_TOOLS,     /* unsigned tool bits                         */
	OPT_FORMAT,    /* enum tp_format                             */
	OPT_HEADER,    /* appended to the header list                */
	OPT_HELP,
};

struct opt_def {
	const char *name;
	int short_name;     /* or 0 */
	enum opt_kind kind;
	size_t offset;      /* into struct tp_fetch_cli */
	long lo, hi;
	bool capture_only;
	bool fetch_only;    /* capture names it to say it is fetch's */
};

#define AT(field) offsetof(struct tp_fetch_cli, field)

static const struct opt_def opt_defs[] = {
	{ "output", 'o', OPT_STRING, AT(o.out_dir), 0, 0, false, false },
	{ "run", 0, OPT_STRING, AT(o.run), 0, 0, false, true },
	{ "tools", 0, OPT_TOOLS, AT(o.tools), 0, 0, false, false },
	{ "jobs", 'j', OPT_UINT, AT(o.http.jobs), 1, 64, false, false },
	{ "connect-timeout", 0, OPT_MS, AT(o.http.connect_timeout_ms), 1, 0, false, false },
	{ "idle-timeout", 0, OPT_MS, AT(o.http.idle_timeout_ms), 1, 0, false, false },
	{ "retries", 0, OPT_UINT, AT(o.http.retries), 0, 100, false, false },
	{ "retry-delay", 0, OPT_MS, AT(o.http.retry_base_ms), 0, 0, false, false },
	{ "max-size", 0, OPT_SIZE, AT(o.http.max_size), 0, 0, false, false },
	{ "header", 'H', OPT_HEADER, 0, 0, 0, false, false },
	{ "token", 0, OPT_STRING, AT(o.token), 0, 0, false, false },
	{ "token-command", 0, OPT_STRING, AT(o.token_command), 0, 0, false, false },
	{ "insecure", 'k', OPT_TRUE, AT(o.http.insecure), 0, 0, false, false },
	{ "cacert", 0, OPT_STRING, AT(o.http.cacert), 0, 0, false, false },
	{ "force", 0, OPT_TRUE, AT(o.force), 0, 0, false, false },
	{ "keep-partial", 0, OPT_TRUE, AT(o.http.keep_partial), 0, 0, false, false },
	{ "dry-run", 'n', OPT_TRUE, AT(o.dry_run), 0, 0, false, false },
	{ "format", 0, OPT_FORMAT, AT(format), 0, 0, false, false },
	{ "quiet", 'q', OPT_TRUE, AT(quiet), 0, 0, false, false },
	{ "help", 'h', OPT_HELP, 0, 0, 0, false, false },
	{ "service-addr", 0, OPT_STRING, AT(cap.service_addr), 0, 0, true, false },
	{ "duration-ms", 0, OPT_U64, AT(cap.duration_ms), 1, 0, true, false },
	{ "num-retry", 0, OPT_UINT, AT(cap.num_retry), 0, 100, true, false },
	{ "worker-list", 0, OPT_STRING, AT(cap.worker_list), 0, 0, true, false },
	{ "host-tracer-level", 0, OPT_INT, AT(cap.host_tracer_level), 0, 3, true, false },
	{ "device-tracer-level", 0, OPT_INT, AT(cap.device_tracer_level), 0, 3, true, false },
	{ "python-tracer-level", 0, OPT_INT, AT(cap.python_tracer_level), 0, 3, true, false },
	{ "delay-ms", 0, OPT_U64, AT(cap.delay_ms), 0, 0, true, false },
	{ "tpu-name", 0, OPT_TRUE, AT(cap.tpu_name), 0, 0, true, false },
	{ "capture-timeout", 0, OPT_MS, AT(cap.timeout_ms), 1, 0, true, false },
};

#define N_OPTS (sizeof(opt_defs) / sizeof(opt_defs[0]))

static int set_ms(const char *arg, long *out, long lo)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno || v < 0)
		return -1;
	if (strcmp(end, "ms") == 0)
		;
	else if (*end == '\0' || strcmp(end, "s") == 0)
		v *= 1000;
	else if (strcmp(end, "m") == 0)
		v *= 60000;
	else
		return -1;
	if (v < (double)lo || v > 86400000.0)
		return -1;
	*out = (long)(v + 0.5);
	return 0;
}

static int set_number(const struct opt_def *d, const char *arg, void *field)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*arg < '0' || *arg > '9')
		return -1;
	v = strtoull(arg, &end, 10);
	if (errno || *end || v < (unsigned long long)d->lo ||
	    (d->hi && v > (unsigned long long)d->hi))
		return -1;
	if (d->kind == OPT_UINT)
		*(unsigned *)field = (unsigned)v;
	else if (d->kind == OPT_INT)
		*(int *)field = (int)v;
	else
		*(uint64_t *)field = v;
	return 0;
}

static int add_header(struct tp_fetch_cli *cli, const char *arg)
{
	size_t name = strcspn(arg, ":");

	if (name == 0 || !arg[name] || strpbrk(arg, "\r\n"))
		return -1;
	cli->headers = tp_xgrow(cli->headers, &cli->cap_headers,
				cli->n_headers + 1, sizeof(*cli->headers));
	cli->headers[cli->n_headers++] = arg;
	return 0;
}

/* Stores arg; returns 0, or -1 for a bad value. */
static int set_option(struct tp_fetch_cli *cli, const struct opt_def *d,
		      const char *arg)
{
	void *field = (char *)cli + d->offset;

	switch (d->kind) {
	case OPT_TRUE:
		*(bool *)field = true;
		return 0;
	case OPT_STRING:   /* none means anything empty ("-o $OUT", OUT unset) */
		*(const char **)field = arg;
		return *arg ? 0 : -1;
	case OPT_UINT:
	case OPT_INT:
	case OPT_U64:
		return set_number(d, arg, field);
	case OPT_MS:
		return set_ms(arg, (long *)field, d->lo);
	case OPT_SIZE:
		return tp_parse_size(arg, (uint64_t *)field) && *(uint64_t *)field ? 0 : -1;
	case OPT_TOOLS:
		return tp_tools_parse(arg, (unsigned *)field) ? 0 : -1;
	case OPT_FORMAT:
		if (strcmp(arg, "text") == 0 || strcmp(arg, "json") == 0) {
			*(enum tp_format *)field = arg[0] == 'j' ? TP_FORMAT_JSON : TP_FORMAT_TEXT;
			return 0;
		}
		return -1;
	case OPT_HEADER:
		return add_header(cli, arg);
	case OPT_HELP:
		break;
	}
	return 0;
}

/* getopt_long's tables for this command: long options and short letters. */
static struct option *option_table(bool capture, char *shorts)
{
	struct option *t = tp_xcalloc(N_OPTS + 1, sizeof(*t));
	size_t n = 0, s = 0;

	shorts[s++] = '-'; /* GNU order: operands anywhere (cli.h) */
	for (size_t i = 0; i < N_OPTS; i++) {
		const struct opt_def *d = &opt_defs[i];
		bool arg = d->kind != OPT_TRUE && d->kind != OPT_HELP;

		if (d->capture_only && !capture)
			continue;
		t[n].name = d->name;
		t[n].has_arg = arg ? required_argument : no_argument;
		t[n].val = 256 + (int)i;
		n++;
		if (d->short_name) {
			shorts[s++] = (char)d->short_name;
			if (arg)
				shorts[s++] = ':';
		}
	}
	shorts[s] = '\0';
	return t;
}

static const struct opt_def *def_for(int c)
{
	if (c >= 256 && c < 256 + (int)N_OPTS)
		return &opt_defs[c - 256];
	for (size_t i = 0; i < N_OPTS; i++)
		if (opt_defs[i].short_name == c)
			return &opt_defs[i];
	return NULL;
}

static void cli_defaults(struct tp_fetch_cli *cli, bool capture)
{
	const char *tok = getenv("GOOGLE_OAUTH_ACCESS_TOKEN");
	const char *emu = getenv("STORAGE_EMULATOR_HOST");

	memset(cli, 0, sizeof(*cli));
	tp_fetch_opts_init(&cli->o);
	tp_capture_opts_init(&cli->cap);
	cli->capture = capture;
	cli->o.token = tok && *tok ? tok : NULL;
	cli->o.gcs_emulator = emu && *emu ? emu : NULL;
	cli->o.http.user_agent = "tpuprof/" TPUPROF_VERSION;
}

/* What a value of d's kind must be, said after a bad one ("bad value
 * 'X' for --jobs (a whole number from 1 to 64)"). */
static void value_hint(const struct opt_def *d, char *out, size_t n)
{
	size_t k = 0;

	out[0] = '\0';
	switch (d->kind) {
	case OPT_UINT:
	case OPT_INT:
	case OPT_U64:
		if (d->hi)
			snprintf(out, n, " (a whole number from %ld to %ld)", d->lo, d->hi);
		else
			snprintf(out, n, " (a whole number, at least %ld)", d->lo);
		break;
	case OPT_MS:
		snprintf(out, n, " (seconds, or with a unit: 500ms, 30s, 2m; at least %ld ms, "
			 "at most 24 hours)", d->lo);
		break;
	case OPT_TOOLS:
		k = (size_t)snprintf(out, n, " (comma-separated:");
		for (unsigned t = 1; t & TP_TOOL_ALL && k < n; t <<= 1)
			k += (size_t)snprintf(out + k, n - k, " %s,", tp_tool_name(t));
		if (k < n)
			snprintf(out + k - 1, n - k + 1, "; or all or none)");
		break;
	case OPT_FORMAT:
		snprintf(out, n, " (text or json)");
		break;
	case OPT_HEADER:
		snprintf(out, n, " ('Name: value', on one line)");
		break;
	case OPT_STRING:
		snprintf(out, n, " (not empty)");
		break;
	default:
		break;
	}
}

static int parse_loop(const struct tp_cmd *cmd, struct tp_cli_args *args,
		      struct tp_fetch_cli *cli, const struct option *table,
		      const char *shorts)
{
	char **argv = args->argv, bad[32];
	int c;

	while ((c = tp_cli_args_next(args, shorts, table)) != -1) {
		const struct opt_def *d = def_for(c);

		if (!d)
			return tp_cli_usage_error(cmd, "unknown or incomplete option '%s'",
						  tp_cli_bad_option(argv, bad, sizeof(bad)));
		if (d->kind == OPT_HELP) {
			fputs(cmd->help, stdout);
			return -1;       /* exit now, successfully */
		}
		if (d->fetch_only && cli->capture)
			return tp_cli_usage_error(cmd, "--run is fetch's: capture fetches the run it "
						  "makes (to fetch another: tpuprof fetch --run %s URL)",
						  optarg);
		if (set_option(cli, d, optarg) != 0) {
			char fmt[320], hint[224];

			value_hint(d, hint, sizeof(hint));
			snprintf(fmt, sizeof(fmt), d->kind == OPT_SIZE ?
				 "bad size '%%s' for --%s " TP_CLI_SIZE_EXAMPLE :
				 "bad value '%%s' for --%s%s", d->name, hint);
			return tp_cli_usage_error(cmd, fmt, optarg);
		}
	}
	return 0;
}

static int check_capture(const struct tp_cmd *cmd,
			 const struct tp_capture_opts *k)
{
	char fmt[256];
	const char *why;

	if (!k->service_addr)
		return tp_cli_usage_error(cmd, "%s: --service-addr HOST:PORT is required",
					  cmd->name);
	if (!k->tpu_name && (why = tp_capture_addr_problem(k->service_addr))) {
		snprintf(fmt, sizeof(fmt), "bad --service-addr '%%s': %s", why);
		return tp_cli_usage_error(cmd, fmt, k->service_addr);
	}
	/* each worker goes to the profiler as an address, as --service-addr */
	if (k->worker_list && *k->worker_list &&
	    (why = tp_capture_addr_problem(k->worker_list))) {
		snprintf(fmt, sizeof(fmt), "bad --worker-list '%%s': %s", why);
		return tp_cli_usage_error(cmd, fmt, k->worker_list);
	}
	return 0;
}

/* --cacert FILE must be a file that can be read: libcurl took a missing
 * one for a certificate the server failed ("not trusted", exit 4), and
 * over http ignored it. */
static int check_cacert(const struct tp_cmd *cmd, const char *path)
{
	struct stat st;
	FILE *f;
	char fmt[128];

	if (!path)
		return 0;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		errno = EISDIR;
	else if ((f = fopen(path, "r"))) {
		fclose(f);
		return 0;
	}
	snprintf(fmt, sizeof(fmt), "cannot read --cacert '%%s': %s", strerror(errno));
	return tp_cli_usage_error(cmd, fmt, path);
}

int tp_fetch_cli_parse(const struct tp_cmd *cmd, int argc, char **argv,
		       bool capture, struct tp_fetch_cli *cli, int *exit_code)
{
	char shorts[2 * N_OPTS + 2];
	struct option *table;
	struct tp_cli_args args;
	char **sources;
	int rc, n_sources;

	cli_defaults(cli, capture);
	table = option_table(capture, shorts);
	tp_cli_args_begin(&args, argc, argv);
	rc = parse_loop(cmd, &args, cli, table, shorts);
	sources = tp_cli_args_end(&args, &n_sources);
	free(table);
	if (rc == 0 && n_sources != 1)
		rc = tp_cli_usage_error(cmd, n_sources ? "%s: one SOURCE only" :
					"%s: no SOURCE given", cmd->name);
	if (rc == 0 && capture)
		rc = check_capture(cmd, &cli->cap);
	if (rc == 0)
		rc = check_cacert(cmd, cli->o.http.cacert);
	if (rc == 0 && tp_cli_parse_only)
		rc = -1;
	if (rc != 0) {
		*exit_code = rc < 0 ? TP_EXIT_OK : rc;
		free(cli->headers);
		cli->headers = NULL;
		return -1;
	}
	cli->o.source = sources[0];
	cli->o.headers = cli->headers;
	cli->o.n_headers = cli->n_headers;
	cli->o.http.secret = cli->o.token;
	return 0;
}

static void draw_progress(void *ctx, const struct tp_http_progress *p)
{
	char done[32], total[32];
	int *drawn = ctx;

	tp_fmt_bytes(done, sizeof(done), p->bytes_done);
	if (p->bytes_total)
		tp_fmt_bytes(total, sizeof(total), p->bytes_total);
	fprintf(stderr, "\r%zu/%zu files  %s%s%s\033[K", p->files_done,
		p->files_total, done, p->bytes_total ? " of " : "",
		p->bytes_total ? total : "");
	fflush(stderr);
	*drawn = 1;
}

static void print_notes(const struct tp_fetch_result *r, bool quiet)
{
	if (quiet)
		return;
	for (size_t i = 0; i < r->n_notes; i++)
		fprintf(stderr, "tpuprof: note: %s\n", r->notes[i]);
}

int tp_fetch_cli_run(struct tp_fetch_cli *cli)
{
	struct tp_fetch_result r;
	struct tp_error err = { 0 };
	int drawn = 0, code = TP_EXIT_OK;
	enum tp_err rc;

	if (!cli->quiet && isatty(STDERR_FILENO)) {
		cli->o.http.progress = draw_progress;
		cli->o.http.progress_ctx = &drawn;
	}
	tp_http_global_init();
	rc = cli->capture ? tp_fetch_capture(&cli->o, &cli->cap, &r, &err) :
	     tp_fetch(&cli->o, &r, &err);
	if (drawn)
		fputs("\r\033[K", stderr);
	print_notes(&r, cli->quiet);
	if (rc != TP_OK)
		code = tp_cli_fail(&err);
	else if (tp_report_fetch(stdout, cli->format, &r, &err) != TP_OK)
		code = tp_cli_fail(&err);
	tp_fetch_result_release(&r);
	tp_http_global_cleanup();
	free(cli->headers);
	cli->headers = NULL;
	return code;
}
