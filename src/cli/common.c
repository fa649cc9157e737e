/*
 * common.c - option parsing, output files and messages shared by the
 * command files.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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
	if (quiet)
		return;
	for (size_t i = 0; i < cap->n_notes; i++)
		fprintf(stderr, "tpuprof: note: %s\n", cap->notes[i]);
}

static int usage_error(const struct tp_cmd *cmd, const char *fmt, const char *arg)
{
	fflush(stdout);
	fputs("tpuprof: ", stderr);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see 'tpuprof help %s')\n", cmd->name);
	return TP_EXIT_USAGE;
}

int tp_cli_parse_common(const struct tp_cmd *cmd, int argc, char **argv,
			struct tp_common_opts *o, int *exit_code)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "run", required_argument, NULL, 'r' },
		{ "max-input", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->open.max_input = tp_default_max_input();
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "json") == 0)
				o->format = TP_FORMAT_JSON;
			else if (strcmp(optarg, "text") == 0)
				o->format = TP_FORMAT_TEXT;
			else
				return *exit_code = usage_error(cmd, "unknown format '%s' (text or json)", optarg), -1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'r':
			o->open.run = optarg;
			break;
		case 'm':
			if (!tp_parse_size(optarg, &o->open.max_input) || !o->open.max_input)
				return *exit_code = usage_error(cmd, "bad size '%s' for --max-input", optarg), -1;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			fputs(cmd->help, stdout);
			*exit_code = TP_EXIT_OK;
			return -1;
		default:
			*exit_code = usage_error(cmd, "unknown or incomplete option '%s'",
						 argv[optind - 1]);
			return -1;
		}
	}
	o->captures = argv + optind;
	o->n_captures = argc - optind;
	if (o->n_captures == 0) {
		*exit_code = usage_error(cmd, "%s: no CAPTURE given", cmd->name);
		return -1;
	}
	return 0;
}

int tp_output_open(struct tp_output *out, const char *path)
{
	memset(out, 0, sizeof(*out));
	if (!path || strcmp(path, "-") == 0) {
		out->fp = stdout;
		return TP_EXIT_OK;
	}
	out->path = path;
	out->tmp_path = tp_xasprintf("%s.tmp.XXXXXX", path);
	int fd = mkstemp(out->tmp_path);
	if (fd < 0 || !(out->fp = fdopen(fd, "w"))) {
		tp_cli_error("cannot create '%s': %s", out->tmp_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(out->tmp_path);
		out->tmp_path = NULL;
		return TP_EXIT_OUTPUT;
	}
	return TP_EXIT_OK;
}

int tp_output_close(struct tp_output *out, bool ok)
{
	int rc = TP_EXIT_OK;

	if (!out->fp)
		return rc;
	if (fflush(out->fp) != 0 || ferror(out->fp)) {
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
		if (ok && rc == TP_EXIT_OK && rename(out->tmp_path, out->path) != 0) {
			tp_cli_error("cannot rename '%s' to '%s': %s", out->tmp_path,
				     out->path, strerror(errno));
			rc = TP_EXIT_OUTPUT;
		}
		if (!ok || rc != TP_EXIT_OK)
			unlink(out->tmp_path);
		free(out->tmp_path);
	}
	out->fp = NULL;
	return rc;
}
