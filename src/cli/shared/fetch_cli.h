/*
 * fetch_cli.h - what `fetch` and `capture` share on the command line:
 * their option table, its parser, and the run that prints the progress,
 * the notes and the summary. The command files stay thin.
 *
 * Ownership: struct tp_fetch_cli borrows the argv strings; the header
 * array (headers) is malloc'd and freed by tp_fetch_cli_release().
 */
#ifndef TPUPROF_FETCH_CLI_H
#define TPUPROF_FETCH_CLI_H

#include "cli.h"
#include "tpuprof/report/fetch_report.h"

struct tp_fetch_cli {
	struct tp_fetch_opts o;
	struct tp_capture_opts cap;  /* capture only                  */
	bool capture;                /* the capture options apply     */
	enum tp_format format;
	bool quiet;
	const char **headers;        /* malloc'd; strings from argv   */
	size_t n_headers, cap_headers;
};

/* Parses argv (argv[0] is the command name, then options and SOURCE).
 * Returns -1 when the command should exit now with *exit_code. */
int tp_fetch_cli_parse(const struct tp_cmd *cmd, int argc, char **argv,
		       bool capture, struct tp_fetch_cli *cli, int *exit_code);

/* Runs the fetch (or the capture), prints progress on a terminal, the
 * notes and the summary; returns the exit code. Releases cli. */
int tp_fetch_cli_run(struct tp_fetch_cli *cli);

/* The options both commands take, for their help texts: -o, then
 * fetch's own --run (capture fetches the run it makes), then the rest. */
#define TP_FETCH_OUTPUT_HELP \
	"  -o, --output DIR        the logdir to write (default ./tpuprof-logdir)\n"
#define TP_FETCH_RUN_HELP \
	"  --run NAME              the run to fetch (default the newest)\n"
#define TP_FETCH_OPTIONS_HELP \
	"  --tools LIST            what to ask a TensorBoard/XProf server for,\n" \
	"                          comma-separated, or all or none (default all):\n" \
	"                          graph_viewer (each module's HloProto),\n" \
	"                          memory_profile, memory_viewer, op_profile,\n" \
	"                          hlo_stats, overview_page (tool JSON)\n" \
	"  -j, --jobs N            parallel downloads, 1-64 (default 4)\n" \
	"  --connect-timeout T     seconds (or 500ms, 1m) to connect (default 10)\n" \
	"  --idle-timeout T        give up on a transfer silent this long\n" \
	"                          (default 120)\n" \
	"  --retries N             retries on 429, 5xx and dropped connections\n" \
	"                          (default 3)\n" \
	"  --retry-delay T         first backoff, doubling each retry (default 1)\n" \
	"  --max-size SIZE         most bytes per file (default 64GiB)\n" \
	"  -H, --header 'N: V'     extra request header for the SOURCE server\n" \
	"  --token TOKEN           GCS bearer token (default\n" \
	"                          $GOOGLE_OAUTH_ACCESS_TOKEN)\n" \
	"  --token-command CMD     command that prints a GCS token, e.g.\n" \
	"                          'gcloud auth print-access-token'\n" \
	"  -k, --insecure          do not verify TLS certificates\n" \
	"  --cacert FILE           CA certificates to verify TLS with\n" \
	"  --force                 replace files already in DIR (default: keep)\n" \
	"  --keep-partial          keep FILE.part of failed downloads, to resume\n" \
	"  -n, --dry-run           list what would be fetched, write nothing\n" \
	"  --format text|json      summary format (default text)\n" \
	"  -q, --quiet             no notes or progress on stderr\n" \
	"  -h, --help              this help\n"

#endif
