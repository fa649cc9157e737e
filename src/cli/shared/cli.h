/*
 * cli.h - what the command files share: the command table entry, common
 * options, output handling and messages. Only the CLI prints to the user
 * or decides exit codes (docs/exit-codes.md).
 */
#ifndef TPUPROF_CLI_H
#define TPUPROF_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "tpuprof/decode/capture.h"
#include "tpuprof/device/device.h"
#include "tpuprof/util/error.h"
#include "tpuprof/report/report.h"

#include "tpuprof/util/version.h"

enum tp_exit {
	TP_EXIT_OK = 0,
	TP_EXIT_CHECK_FAILED = 1,
	TP_EXIT_USAGE = 2,
	TP_EXIT_INPUT = 3,
	TP_EXIT_NETWORK = 4,
	TP_EXIT_OUTPUT = 5,
	TP_EXIT_INTERNAL = 6,
	/* the reader of standard output went away (`tpuprof info C | head`):
	 * no message, the status a shell shows for git or grep killed by
	 * SIGPIPE (128 + 13) */
	TP_EXIT_PIPE_CLOSED = 141,
};

/* True when standard output is a pipe whose reader has gone (EPIPE):
 * the normal end of `| head`, not an output failure. */
bool tp_cli_stdout_closed(int write_errno);

struct tp_cmd {
	const char *name;
	const char *summary;   /* one line for `tpuprof --help`       */
	const char *help;      /* full text for `tpuprof help NAME`   */
	int (*run)(int argc, char **argv); /* returns an exit code  */
	bool html;             /* takes --format html (a page)        */
	const char *operand;   /* what its arguments are, for "no X
				* given": NULL is CAPTURE            */
};

/* --host, --core and --module: the part of the capture a command looks
 * at. Each command copies them into its library's filter struct
 * (TP_CLI_FILTER_COPY). Borrowed from argv; NULL when not given. */
struct tp_cli_filter {
	const char *host;
	const char *core;
	const char *module;
	const struct tp_device_row *device; /* --device NAME, or NULL        */
};

/* Options shared by the analysis commands. */
struct tp_common_opts {
	enum tp_format format;
	bool format_given;      /* --format was given (merge: JSON without) */
	const char *output;     /* -o FILE, NULL = stdout               */
	struct tp_open_opts open;
	bool quiet;
	struct tp_cli_filter filter; /* --host, --core, --module: only
				      * those the command's table lists    */
	char **captures;        /* the CAPTURE arguments (argv slice)   */
	int n_captures;
	const struct tp_cmd *cmd; /* the command parsed (tp_cli_parse)  */
};

/* Parses argv (argv[0] is the command name) into o. Returns -1 when the
 * command should exit now with *exit_code (help shown, or a usage error
 * already reported), 0 otherwise. */
int tp_cli_parse_common(const struct tp_cmd *cmd, int argc, char **argv,
			struct tp_common_opts *o, int *exit_code);

/* A row of a command's option table: one of its own options (ids from
 * TP_CLI_OPTION_BASE) or one of TP_CLI_FILTER_OPTIONS. */
struct tp_cli_option {
	const char *name;
	bool has_arg;
	int id;
};

/* Option ids sit above every short option character, which getopt
 * returns as itself. The filter options come first: tp_cli_parse stores
 * them in o->filter, so a command only lists their rows, never handles
 * them. */
enum {
	TP_CLI_OPT_HOST = 256,
	TP_CLI_OPT_CORE,
	TP_CLI_OPT_MODULE,
	TP_CLI_OPT_DEVICE,
	TP_CLI_OPTION_BASE,
};

/* The rows for --host, --core and --module in a command's table. */
/* The help lines of the options every capture-reading command takes
 * after its own (info, ops, fusions, collectives). */
#define TP_CLI_HELP_INPUT_OPTIONS \
	"  --run NAME           the run to take from a logdir (default newest)\n" \
	"  --max-input SIZE     most bytes to inflate or read from stdin\n" \
	"                       (default 3/4 of memory, at most 64GiB)\n" \
	"  -j, --jobs N         threads for decoding and analysis (default: one\n" \
	"                       per CPU)\n" \
	"  -q, --quiet          no notes on stderr (but which logdir run was\n" \
	"                       taken, when there were several)\n" \
	"  --partial            read a capture cut short up to its last complete plane\n" \
	"  -h, --help           this help\n"

#define TP_CLI_FILTER_OPTIONS \
	{ "host", true, TP_CLI_OPT_HOST }, \
	{ "core", true, TP_CLI_OPT_CORE }, \
	{ "module", true, TP_CLI_OPT_MODULE }, \
	{ "device", true, TP_CLI_OPT_DEVICE }

/* Copies a tp_cli_filter into a library filter (tp_memory_filter,
 * tp_ops_filter, tp_report_filter): distinct types with the same three
 * fields, so a macro rather than a function. */
#define TP_CLI_FILTER_COPY(dst, src) \
	((dst)->host = (src)->host, (dst)->core = (src)->core, \
	 (dst)->module = (src)->module, (dst)->device = (src)->device)

/* Called for each of the command's own options; returns 0, or the result
 * of tp_cli_usage_error() for a bad value. */
typedef int (*tp_cli_option_fn)(void *ctx, int id, const char *arg);

/* tp_cli_parse_common plus the options in extra (ends with a NULL name):
 * on_option gets the command's own, o->filter the filter options. */
int tp_cli_parse(const struct tp_cmd *cmd, int argc, char **argv,
		 const struct tp_cli_option *extra, tp_cli_option_fn on_option,
		 void *ctx, struct tp_common_opts *o, int *exit_code);

/* Prints "tpuprof: <fmt with arg> (see 'tpuprof help CMD')"; returns
 * TP_EXIT_USAGE. */
int tp_cli_usage_error(const struct tp_cmd *cmd, const char *fmt, const char *arg);

/* What a size must look like, after "bad size 'X' for --OPTION". */
#define TP_CLI_SIZE_EXAMPLE "(a number and its unit, e.g. 14.5GiB, 512MB or 1024B)"

/* --OPTION SIZE: a number and its unit (tp_parse_size), above 0 when
 * nonzero. Returns 0, or TP_EXIT_USAGE after "bad size 'X' for --OPTION
 * (a number and its unit, e.g. ...)". */
int tp_cli_size_option(const struct tp_cmd *cmd, const char *option, const char *arg,
		       bool nonzero, uint64_t *out);

/* --OPTION F: every share, fraction or growth option reads its number
 * this one way: a fraction (0.6) or a percent (60%, tp_parse_fraction),
 * in [lo, hi] (above lo when !lo_inclusive); a bare number above 1 is
 * refused (is 20 meant as 20% or 2000%?) with the percent to write.
 * Returns 0, or TP_EXIT_USAGE after "bad value 'X' for --OPTION (...)". */
int tp_cli_fraction_option(const struct tp_cmd *cmd, const char *option, const char *arg,
			   double lo, bool lo_inclusive, double hi, double *out);

/* Output: stdout, or a temporary file renamed over -o FILE only when
 * everything was written, so a failed run never clobbers earlier output. */
struct tp_output {
	FILE *fp;
	const char *path;   /* final path, or NULL for stdout          */
	char *tmp_path;     /* malloc'd temporary path                 */
	bool direct;        /* path is no regular file (a device, a FIFO):
			     * written in place, never replaced        */
};
int tp_output_open(struct tp_output *out, const char *path);
/* TP_EXIT_OK, or TP_EXIT_USAGE after saying so when path (given with
 * option, "-o") is the same file as one of o's inputs: the output is
 * renamed over its path once written, so the input would be lost.
 * tp_cli_parse checks -o. */
int tp_cli_output_clash(const struct tp_cmd *cmd, const char *option, const char *path,
			const struct tp_common_opts *o);
/* The same against n other inputs (NULL ones skipped): check's
 * --baseline. */
int tp_cli_output_clash_with(const struct tp_cmd *cmd, const char *option,
			     const char *path, const char *const *inputs, int n);
/* The files every capture opened so far read (tp_open_opts.read, set
 * by tp_cli_parse): those a directory, logdir or pattern expanded to. */
extern struct tp_file_ids tp_cli_read;
/* The same clash against tp_cli_read: for path (given with option) once
 * the inputs are read, before the output is opened. */
int tp_cli_output_clash_read(const struct tp_cmd *cmd, const char *option, const char *path);
/* Flushes and closes; on success renames into place. ok=false discards.
 * Returns an exit code (TP_EXIT_OUTPUT on a write failure). */
int tp_output_close(struct tp_output *out, bool ok);

/* Closes out after the reporter returned rc: on failure the output is
 * discarded and the reporter's error printed. Returns the exit code. */
int tp_output_finish(struct tp_output *out, enum tp_err rc,
		     const struct tp_error *err);

/* Long op lines left to the analysis that reads them, which scans them as
 * it goes (o->open.defer_min_bytes = TP_DEFER_MIN_BYTES), when every
 * CAPTURE argument can be read again: a damaged one found by the analysis
 * reopens the capture whole (tp_capture_reopen_whole). From standard
 * input or a pipe they are scanned at open. open_mode.c. */
void tp_cli_defer_op_lines(struct tp_common_opts *o);

/* Opens the CAPTURE arguments of o into cap, printing its notes unless
 * -q. Returns TP_EXIT_OK, or the exit code after printing the error (also
 * TP_EXIT_USAGE when -o names a file read, tp_cli_output_clash_read). */
int tp_cli_open_capture(const struct tp_common_opts *o, struct tp_capture *cap);

/* What an analysis command does once its options are parsed: build its
 * results from the capture, write them, release them. ctx is the
 * command's own state (options in, results out). */
struct tp_cli_analysis {
	bool reads_op_lines;  /* runs the ops pass: open with the op lines
			       * left to it (TP_DEFER_MIN_BYTES)          */
	enum tp_err (*build)(void *ctx, struct tp_capture *cap,
			     struct tp_error *err);
	enum tp_err (*write)(void *ctx, FILE *out, enum tp_format fmt,
			     const struct tp_capture *cap, struct tp_error *err);
	void (*release)(void *ctx);  /* only after a successful build    */
};

/* Opens o's captures, builds, writes to o's output, releases it all.
 * Returns the exit code (errors printed). */
/* Whether the one input is a saved document tpuprof wrote (`report
 * --format json`, `merge`, or `ops`/`memory`/`collectives --format
 * json`), not a capture, from a file, `-`, a pipe or a FIFO: it is read
 * once (report_input.h); a capture on a stream goes on from the bytes
 * looked at (o->open.heads set); true also when the input could not be
 * read (run_saved_report then says why). */
bool tp_cli_saved_report(struct tp_common_opts *o);
/* Draws that document (tp_report_doc_as_part, then tp_report_doc_write) in
 * o's format: the whole report, or the part under that key ("ops",
 * "memory", "collectives"; tp_report_doc_part_write, limit rows per ops
 * table) of a report or of the command's own document (schema
 * tpuprof.KEY/1); with part NULL (report) a
 * report or any command's document, drawn as that command draws it.
 * Returns the exit code. */
int tp_cli_run_saved_report(const struct tp_cmd *cmd, struct tp_common_opts *o,
			    const char *part, size_t limit);
int tp_cli_run_analysis(struct tp_common_opts *o, const struct tp_cli_analysis *a,
			void *ctx);

/* Prints one "tpuprof: warning: ..." line per damaged part the capture
 * was read without (they are also in info's warnings and JSON). */
void tp_cli_damage(const struct tp_capture *cap);

/* Prints "tpuprof: <msg>" and returns the exit code for err->code. */
int tp_cli_fail(const struct tp_error *err);
/* The columns text may fill on out: 0 (no width: print names whole) for
 * a pipe, a file or wide; a terminal's COLUMNS, else its size, else 80. */
size_t tp_cli_text_width(FILE *out, bool wide);
int tp_exit_code(enum tp_err code);
void tp_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the capture's notes to stderr unless quiet. */
void tp_cli_notes(const struct tp_capture *cap, bool quiet);
/* The note of a report document (info.notes) that says which of several
 * logdir runs was taken, on stderr, -q or not: check and diff measure
 * that run only. */
void tp_cli_doc_run_note(const json_t *doc);

/* One getopt_long loop in GNU style for every command: options and
 * operands in any order, `--` ends the options (docs/tpuprof.1).
 *
 *   struct tp_cli_args a;
 *   tp_cli_args_begin(&a, argc, argv);
 *   while ((c = tp_cli_args_next(&a, "-o:q", longopts)) != -1) ...;
 *   operands = tp_cli_args_end(&a, &n);
 *
 * The short option string must start with '-'. tp_cli_args_end must be
 * called whenever begin was, also after the loop stopped early; it moves
 * the operands, in their order, to the end of argv and returns that slice
 * (borrowed from argv). optarg, optind and argv[optind - 1] keep their
 * getopt meaning inside the loop. */
struct tp_cli_args {
	int argc;
	char **argv;
	char **operands;     /* malloc'd until tp_cli_args_end */
	int n_operands;
	bool finished;       /* the loop reached -1 (the end or `--`) */
};

void tp_cli_args_begin(struct tp_cli_args *a, int argc, char **argv);
/* The next option (getopt_long's value, '?' for an unknown or incomplete
 * one), operands collected on the way; -1 at the end or after `--`. */
/* The option getopt just refused, as the user wrote it ("-d" of the
 * cluster "-dash", "--nope"); buf holds a short one. */
const char *tp_cli_bad_option(char **argv, char *buf, size_t n);
int tp_cli_args_next(struct tp_cli_args *a, const char *shorts,
		     const struct option *longopts);
char **tp_cli_args_end(struct tp_cli_args *a, int *n_operands);

/* For the argument parser's fuzz target (tests/fuzz/fuzz_args.c) only:
 * when true, a command's parse that succeeded makes it return 0 at once,
 * before it opens or fetches anything. Always false in tpuprof. */
extern bool tp_cli_parse_only;

extern const struct tp_cmd tp_cmd_info;
extern const struct tp_cmd tp_cmd_fetch;
extern const struct tp_cmd tp_cmd_capture;
extern const struct tp_cmd tp_cmd_ops;
extern const struct tp_cmd tp_cmd_oom;
extern const struct tp_cmd tp_cmd_fusions;
extern const struct tp_cmd tp_cmd_collectives;
extern const struct tp_cmd tp_cmd_memory;
extern const struct tp_cmd tp_cmd_diff;
extern const struct tp_cmd tp_cmd_merge;
extern const struct tp_cmd tp_cmd_report;
extern const struct tp_cmd tp_cmd_check;
extern const struct tp_cmd tp_cmd_devices;
extern const struct tp_cmd tp_cmd_trace;

#endif
