/*
 * common.c - option parsing, output files and messages shared by the
 * command files. Every command parses in GNU order (tp_cli_args_*, at the
 * end): options before, between and after the operands, and `--` ending
 * the options, whatever POSIXLY_CORRECT says (getopt's RETURN_IN_ORDER
 * mode, the leading '-' of the short option string, returns each operand
 * as option 1; they are kept in order and handed back as one slice of
 * argv).
 */
#include "cli.h"


#include <errno.h>
#include <poll.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tp_cli_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("tpuprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int tp_exit_code(enum tp_err code)
{
	switch (code) {
	case TP_OK:
		return TP_EXIT_OK;
	case TP_ERR_USAGE:
		return TP_EXIT_USAGE;
	case TP_ERR_INPUT:
		return TP_EXIT_INPUT;
	case TP_ERR_NETWORK:
		return TP_EXIT_NETWORK;
	case TP_ERR_OUTPUT:
		return TP_EXIT_OUTPUT;
	case TP_ERR_INTERNAL:
		return TP_EXIT_INTERNAL;
	}
	return TP_EXIT_INTERNAL;
}

int tp_cli_fail(const struct tp_error *err)
{
	tp_cli_error("%s", err->msg[0] ? err->msg : tp_strerror(err->code));
	return tp_exit_code(err->code);
}

void tp_cli_notes(const struct tp_capture *cap, bool quiet)
{
	/* -q keeps the note of which logdir run was taken: the figures
	 * are that run's, and another run may be the one meant */
	if (quiet && cap->run_note && cap->run_note <= cap->n_notes)
		fprintf(stderr, "tpuprof: note: %s\n", cap->notes[cap->run_note - 1]);
	if (quiet)
		return;
	for (size_t i = 0; i < cap->n_notes; i++)
		fprintf(stderr, "tpuprof: note: %s\n", cap->notes[i]);
}

void tp_cli_doc_run_note(const json_t *doc)
{
	const json_t *notes = json_object_get(json_object_get(doc, "info"), "notes"), *n;
	size_t i;

	/* the logdir note of paths.c: which of several runs was taken */
	json_array_foreach(notes, i, n)
		if (json_is_string(n) && strstr(json_string_value(n), ": using the newest of "))
			fprintf(stderr, "tpuprof: note: %s\n", json_string_value(n));
}

static const struct option common_options[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "run", required_argument, NULL, 'r' },
	{ "max-input", required_argument, NULL, 'm' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ "partial", no_argument, NULL, 'P' },
	{ "compact", no_argument, NULL, 'C' },
};

#define N_COMMON (sizeof(common_options) / sizeof(common_options[0]))

/* The common options followed by the command's own, NULL-terminated. */
static struct option *option_table(const struct tp_cli_option *extra)
{
	size_t n = 0;
	struct option *t;

	while (extra && extra[n].name)
		n++;
	t = tp_xcalloc(N_COMMON + n + 1, sizeof(*t));
	memcpy(t, common_options, sizeof(common_options));
	for (size_t i = 0; i < n; i++) {
		t[N_COMMON + i].name = extra[i].name;
		t[N_COMMON + i].has_arg = extra[i].has_arg ? required_argument : no_argument;
		t[N_COMMON + i].val = extra[i].id;
	}
	return t;
}

/* -j N: threads for decoding and analysis (process-wide). */
static int jobs_option(const struct tp_cmd *cmd, const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || n < 1 || n > 64)
		return tp_cli_usage_error(cmd, "bad count '%s' for -j (1 to 64)", arg);
	tp_set_threads((unsigned)n);
	return 0;
}

static int common_option(const struct tp_cmd *cmd, int c, struct tp_common_opts *o)
{
	switch (c) {
	case 'f':
		o->format_given = true;
		if (strcmp(optarg, "json") == 0)
			o->format = TP_FORMAT_JSON;
		else if (strcmp(optarg, "text") == 0)
			o->format = TP_FORMAT_TEXT;
		else if (strcmp(optarg, "html") == 0 && cmd->html)
			o->format = TP_FORMAT_HTML;
		else
			return tp_cli_usage_error(cmd, cmd->html ? "unknown format '%s' (text, json or html)"
							 : "unknown format '%s' (text or json)", optarg);
		return 0;
	case 'o':
		/* -o "$OUT" with OUT unset: no file named */
		if (!*optarg)
			return tp_cli_usage_error(cmd, "%s", "empty name for -o (a file, or - for standard output)");
		o->output = optarg;
		return 0;
	case 'r':
		o->open.run = optarg;
		return 0;
	case 'm':
		return tp_cli_size_option(cmd, "max-input", optarg, true, &o->open.max_input);
	case 'q':
		o->quiet = true;
		return 0;
	case 'P':
		o->open.partial = true;
		return 0;
	case 'C':
		/* JSON without indentation: a layout, the same document */
		tp_json_set_compact(true);
		return 0;
	case 'j':
		return jobs_option(cmd, optarg);
	case TP_CLI_OPT_HOST: /* only from a table with these rows */
		o->filter.host = optarg;
		return 0;
	case TP_CLI_OPT_CORE:
		o->filter.core = optarg;
		return 0;
	case TP_CLI_OPT_MODULE:
		o->filter.module = optarg;
		return 0;
	case TP_CLI_OPT_DEVICE:
		o->filter.device = tp_device_lookup(optarg);
		if (!o->filter.device)
			return tp_cli_usage_error(cmd, "unknown device '%s'; 'tpuprof devices' lists the names",
						  optarg);
		return 0;
	default:
		return -1;
	}
}

int tp_cli_parse(const struct tp_cmd *cmd, int argc, char **argv,
		 const struct tp_cli_option *extra, tp_cli_option_fn on_option,
		 void *ctx, struct tp_common_opts *o, int *exit_code)
{
	struct option *longopts = option_table(extra);
	struct tp_cli_args args;
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->open.max_input = tp_default_max_input();
	o->open.read = &tp_cli_read;   /* the files expanded arguments name */
	tp_cli_args_begin(&args, argc, argv);
	while (rc == 0 && (c = tp_cli_args_next(&args, "-o:qhj:", longopts)) != -1) {
		if (c == 'h') {
			fputs(cmd->help, stdout);
			*exit_code = TP_EXIT_OK;
			rc = -1;
		} else if (c >= TP_CLI_OPTION_BASE && on_option) {
			if (on_option(ctx, c, optarg) != 0) {
				*exit_code = TP_EXIT_USAGE;
				rc = -1;
			}
		} else if (c != '?' && c != ':' && (*exit_code = common_option(cmd, c, o)) >= 0) {
			if (*exit_code)
				rc = -1;
		} else {
			char bad[32];

			*exit_code = tp_cli_usage_error(cmd, "unknown or incomplete option '%s'",
							tp_cli_bad_option(argv, bad, sizeof(bad)));
			rc = -1;
		}
	}
	free(longopts);
	o->captures = tp_cli_args_end(&args, &o->n_captures);
	if (rc < 0)
		return -1;
	if (o->n_captures == 0) {
		char *what = tp_xasprintf("%s: no %s given", cmd->name,
					  cmd->operand ? cmd->operand : "CAPTURE");

		*exit_code = tp_cli_usage_error(cmd, "%s", what);
		free(what);
		return -1;
	}
	if (tp_cli_parse_only) {
		*exit_code = TP_EXIT_OK;
		return -1;
	}
	if ((*exit_code = tp_cli_output_clash(cmd, "-o", o->output, o)) != TP_EXIT_OK)
		return -1;
	return 0;
}

int tp_cli_parse_common(const struct tp_cmd *cmd, int argc, char **argv,
			struct tp_common_opts *o, int *exit_code)
{
	return tp_cli_parse(cmd, argc, argv, NULL, NULL, NULL, o, exit_code);
}

/* mkstemp makes the file owner-only; the output gets the mode any new
 * file would (0666 less the umask), or keeps the mode of the file it
 * replaces, as cp and sed -i do. */
static void output_mode(int fd, bool replaces, mode_t old_mode)
{
	mode_t mask = umask(0);

	umask(mask);
	(void)fchmod(fd, replaces ? old_mode & 07777 : 0666 & ~mask);
}

int tp_output_open(struct tp_output *out, const char *path)
{
	struct stat st;
	bool exists;

	memset(out, 0, sizeof(*out));
	if (!path || strcmp(path, "-") == 0) {
		out->fp = stdout;
		return TP_EXIT_OK;
	}
	out->path = path;
	/* -o /dev/null or a FIFO: a rename over it would replace the device
	 * (as root, /dev/null itself) with a regular file */
	exists = stat(path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		out->direct = true;
		if (!(out->fp = fopen(path, "w"))) {
			tp_cli_error("cannot open '%s': %s", path, strerror(errno));
			return TP_EXIT_OUTPUT;
		}
		return TP_EXIT_OK;
	}
	out->tmp_path = tp_xasprintf("%s.tmp.XXXXXX", path);
	int fd = mkstemp(out->tmp_path);
	if (fd < 0 || !(out->fp = fdopen(fd, "w"))) {
		/* the user's path: the temporary file is ours, not theirs */
		tp_cli_error("cannot create '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(out->tmp_path);
		out->tmp_path = NULL;
		return TP_EXIT_OUTPUT;
	}
	output_mode(fd, exists, st.st_mode);
	return TP_EXIT_OK;
}

bool tp_cli_stdout_closed(int write_errno)
{
	/* errno may be stale when the failed write was an earlier one: a
	 * pipe with no reader left also polls as an error on its write end */
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

	return write_errno == EPIPE || (poll(&p, 1, 0) == 1 && (p.revents & POLLERR));
}

int tp_output_close(struct tp_output *out, bool ok)
{
	int rc = TP_EXIT_OK;

	if (!out->fp)
		return rc;
	if (fflush(out->fp) != 0 || ferror(out->fp)) {
		if (!out->path && tp_cli_stdout_closed(errno)) {
			out->fp = NULL;
			return TP_EXIT_PIPE_CLOSED;
		}
		/* -o /dev/stdout or a FIFO whose reader left: as -o - */
		if (out->direct && errno == EPIPE) {
			fclose(out->fp);
			out->fp = NULL;
			return TP_EXIT_PIPE_CLOSED;
		}
		if (ok)
			tp_cli_error("cannot write %s: %s",
				     out->path ? out->path : "standard output",
				     strerror(errno));
		rc = TP_EXIT_OUTPUT;
	}
	if (out->path) {
		if (fclose(out->fp) != 0 && rc == TP_EXIT_OK) {
			tp_cli_error("cannot write %s: %s", out->path, strerror(errno));
			rc = TP_EXIT_OUTPUT;
		}
		if (out->direct) {
			out->fp = NULL;
			return rc;
		}
		if (ok && rc == TP_EXIT_OK && rename(out->tmp_path, out->path) != 0) {
			tp_cli_error("cannot replace '%s': %s", out->path, strerror(errno));
			rc = TP_EXIT_OUTPUT;
		}
		if (!ok || rc != TP_EXIT_OK)
			unlink(out->tmp_path);
		free(out->tmp_path);
	}
	out->fp = NULL;
	return rc;
}

int tp_output_finish(struct tp_output *out, enum tp_err rc,
		     const struct tp_error *err)
{
	int saved = errno;
	bool to_stdout = !out->path, direct = out->direct;
	int code = tp_output_close(out, rc == TP_OK);

	if (code == TP_EXIT_PIPE_CLOSED)
		return code;
	if (rc == TP_ERR_OUTPUT && ((to_stdout && tp_cli_stdout_closed(saved)) ||
				    (direct && saved == EPIPE)))
		return TP_EXIT_PIPE_CLOSED;
	if (rc == TP_ERR_OUTPUT) {
		/* the write that failed mid-document: say where and why */
		tp_cli_error("cannot write %s: %s",
			     out->path ? out->path : "standard output",
			     strerror(saved ? saved : EIO));
		return TP_EXIT_OUTPUT;
	}
	if (rc != TP_OK)
		code = tp_cli_fail(err);
	return code;
}

int tp_cli_open_capture(const struct tp_common_opts *o, struct tp_capture *cap)
{
	struct tp_error err = { 0 };
	int code;

	if (tp_capture_open(cap, (const char *const *)o->captures,
			    (size_t)o->n_captures, &o->open, &err) != TP_OK)
		return tp_cli_fail(&err);
	if ((code = tp_cli_output_clash_read(o->cmd, "-o", o->output)) != TP_EXIT_OK) {
		tp_capture_release(cap);
		return code;
	}
	tp_cli_notes(cap, o->quiet);
	return TP_EXIT_OK;
}

void tp_cli_damage(const struct tp_capture *cap)
{
	char line[1024];

	for (size_t i = 0; i < cap->n_damage; i++) {
		tp_damage_format(&cap->damage[i], line, sizeof(line));
		fflush(stdout);
		fprintf(stderr, "tpuprof: warning: %s\n", line);
	}
}

int tp_cli_run_analysis(struct tp_common_opts *o, const struct tp_cli_analysis *a,
			void *ctx)
{
	struct tp_capture cap;
	struct tp_error err = { 0 };
	struct tp_output out;
	int code;

	if (a->reads_op_lines)
		tp_cli_defer_op_lines(o); /* read once */
	if ((code = tp_cli_open_capture(o, &cap)) != TP_EXIT_OK)
		return code;
	if (a->build(ctx, &cap, &err) != TP_OK &&
	    tp_capture_reopen_whole(&cap, (const char *const *)o->captures,
				    (size_t)o->n_captures, &o->open, &err))
		(void)a->build(ctx, &cap, &err);   /* damage left out */
	if (err.code != TP_OK) {
		tp_capture_release(&cap);
		return tp_cli_fail(&err);
	}
	tp_cli_damage(&cap);
	code = tp_output_open(&out, o->output);
	if (code == TP_EXIT_OK)
		code = tp_output_finish(&out, a->write(ctx, out.fp, o->format, &cap, &err),
					&err);
	a->release(ctx);
	tp_capture_release(&cap);
	return code;
}

/* ---- GNU argument order (cli.h) ---- */

bool tp_cli_parse_only;

void tp_cli_args_begin(struct tp_cli_args *a, int argc, char **argv)
{
	a->argc = argc;
	a->argv = argv;
	a->operands = tp_xcalloc((size_t)argc + 1, sizeof(*a->operands));
	a->n_operands = 0;
	a->finished = false;
	/* 0, not 1: glibc then forgets the cluster position of an earlier
	 * parse that stopped inside "-qz" (a pointer into old argv). */
	optind = 0;
	opterr = 0;
}

/* Whether word is a cluster of short options holding c ("-dash", 'd'). */
static bool cluster_has(const char *word, int c)
{
	return word && word[0] == '-' && word[1] != '-' && c > 0 && c < 128 &&
	       strchr(word + 1, c) != NULL;
}

const char *tp_cli_bad_option(char **argv, char *buf, size_t n)
{
	const char *last = argv[optind - 1];

	/* a long option is the word just read ("--format" without its value:
	 * optopt is then its short twin, 'f', which was not written) */
	if (strncmp(last, "--", 2) == 0)
		return last;
	/* a short one is optopt, in the word just read or, inside a cluster
	 * getopt has not left yet, in the next ("-dash": optind still at it) */
	if (cluster_has(last, optopt) || cluster_has(argv[optind], optopt)) {
		snprintf(buf, n, "-%c", optopt);
		return buf;
	}
	return last;
}

int tp_cli_args_next(struct tp_cli_args *a, const char *shorts,
		     const struct option *longopts)
{
	int c;

	while ((c = getopt_long(a->argc, a->argv, shorts, longopts, NULL)) == 1)
		a->operands[a->n_operands++] = optarg;
	if (c == -1)
		a->finished = true;
	return c;
}

char **tp_cli_args_end(struct tp_cli_args *a, int *n_operands)
{
	int n = a->n_operands;
	char **tail;

	/* after `--` getopt stops at optind: the rest are operands too */
	for (int i = a->finished ? optind : a->argc; i < a->argc; i++)
		a->operands[n++] = a->argv[i];
	/* every option is parsed: the slots of argv are free to reuse (the
	 * option values point at the strings, not at the slots) */
	tail = a->argv + a->argc - n;
	for (int i = 0; i < n; i++)
		tail[i] = a->operands[i];
	free(a->operands);
	a->operands = NULL;
	*n_operands = n;
	return tail;
}
