/*
 * cmd_fetch.c - `tpuprof fetch SOURCE`: brings a capture from a
 * TensorBoard or XProf server, a gs:// bucket or a logdir served as static
 * files into a local logdir (DIR/plugins/profile/<run>/), where every
 * analysis command reads it. The work is in src/fetch/; docs/fetch.md
 * says what each source and server version gives.
 */
#include "../shared/fetch_cli.h"

static const char fetch_help[] =
	"usage: tpuprof fetch [options] SOURCE\n"
	"\n"
	"Fetch a profile run into the logdir layout under -o DIR:\n"
	"DIR/plugins/profile/<run>/<host>.xplane.pb, <module>.hlo_proto.pb and\n"
	"the server's tool JSON beside them. Analysis commands read DIR.\n"
	"\n"
	"SOURCE is one of:\n"
	"  http(s)://HOST:PORT[/prefix]  a TensorBoard or standalone XProf server,\n"
	"      any version: runs, hosts, modules, each module's HloProto and the\n"
	"      tool JSON; the raw .xplane.pb files come from the logdir the\n"
	"      server names (gs:// or a path readable here), as no server version\n"
	"      serves them over HTTP\n"
	"  gs://BUCKET[/PATH]             a logdir, run directory or capture file\n"
	"      in Google Cloud Storage ($STORAGE_EMULATOR_HOST: an emulator)\n"
	"  http(s)://HOST/PATH/           a logdir served as static files (with\n"
	"      directory listings), or the URL of one capture file\n"
	"  a local path                   nothing to fetch (it says so)\n"
	"\n"
	"options:\n"
	TP_FETCH_OUTPUT_HELP
	TP_FETCH_RUN_HELP
	TP_FETCH_OPTIONS_HELP
	"\n"
	"Files already in DIR are kept unless --force; each download goes to\n"
	"FILE.part, renamed to FILE when complete and checked.\n"
	"\n"
	"exit: 0 ok, 2 usage, 3 local SOURCE missing or no such run, 4 network\n"
	"or server error, 5 DIR could not be written (docs/fetch.md)\n";

static int run_fetch(int argc, char **argv)
{
	struct tp_fetch_cli cli;
	int code;

	if (tp_fetch_cli_parse(&tp_cmd_fetch, argc, argv, false, &cli, &code) < 0)
		return code;
	return tp_fetch_cli_run(&cli);
}

const struct tp_cmd tp_cmd_fetch = {
	.name = "fetch",
	.summary = "bring a capture from TensorBoard/XProf, gs:// or the web",
	.help = fetch_help,
	.run = run_fetch,
};
