/*
 * cmd_capture.c - `tpuprof capture URL --service-addr HOST:PORT`: asks a
 * TensorBoard or XProf server to capture a profile from a running program
 * (its /capture_profile route), then fetches the new run like `fetch`.
 */
#include "../shared/fetch_cli.h"

static const char capture_help[] =
	"usage: tpuprof capture [options] URL --service-addr HOST:PORT\n"
	"\n"
	"Ask the TensorBoard or XProf server at URL to capture a profile from\n"
	"the profiler server(s) of a running program, then fetch the run that\n"
	"appears, as `tpuprof fetch` does. The server writes the capture into\n"
	"its own logdir; the raw .xplane.pb files are fetched from there when\n"
	"the server names it (gs:// or a path readable here).\n"
	"\n"
	"capture options (the parameters of /capture_profile):\n"
	"  --service-addr ADDR     host:port of the profiler server, or a comma\n"
	"                          list of them (required)\n"
	"  --duration-ms N         how long to trace (default 1000)\n"
	"  --num-retry N           attempts the server makes after the first\n"
	"  --worker-list LIST      comma list of host:port workers (TPU pods)\n"
	"  --host-tracer-level N   default 2\n"
	"  --device-tracer-level N default 1\n"
	"  --python-tracer-level N default 0\n"
	"  --delay-ms N            start the trace after N ms\n"
	"  --tpu-name              ADDR is a Cloud TPU name (TPU Nodes only)\n"
	"  --capture-timeout T     wait this long for the server (default\n"
	"                          (max(60s, 2 x duration) + delay) x attempts\n"
	"                          + 30s)\n"
	"\n"
	"fetch options:\n"
	TP_FETCH_OUTPUT_HELP
	TP_FETCH_OPTIONS_HELP
	"\n"
	"exit: 0 ok, 2 usage, 4 the server could not capture or fetch failed,\n"
	"5 DIR could not be written (docs/fetch.md)\n";

static int run_capture(int argc, char **argv)
{
	struct tp_fetch_cli cli;
	int code;

	if (tp_fetch_cli_parse(&tp_cmd_capture, argc, argv, true, &cli, &code) < 0)
		return code;
	return tp_fetch_cli_run(&cli);
}

const struct tp_cmd tp_cmd_capture = {
	.name = "capture",
	.summary = "ask a TensorBoard/XProf server to capture, then fetch it",
	.help = capture_help,
	.run = run_capture,
};
