/*
 * cmd_fusions.c - `tpuprof fusions CAPTURE...`: every fusion of every HLO
 * module with the instructions fused into it, and where the ops of a name
 * scope ended up (--scope).
 */
#include "../shared/cli.h"

#include "tpuprof/report/ops_report.h"

static const char fusions_help[] =
	"usage: tpuprof fusions [options] CAPTURE...\n"
	"\n"
	"The fusion symbol table: per HLO module every fusion with its kind,\n"
	"its fused instructions (nested fusions opened recursively) with\n"
	"opcode, shape and name scope, the distinct scopes it mixes, and its\n"
	"measured device time when it ran.\n"
	"\n"
	"options:\n"
	"  --scope PATTERN      only fusions holding an instruction whose scope\n"
	"                       holds PATTERN (a scope as printed, args[1]\n"
	"                       included) or matches it as a glob (* ? [...]);\n"
	"                       matching instructions are marked\n"
	"  --format text|json   output format (default text)\n"
	"  --compact            JSON on one line, without spaces (a smaller file)\n"
	"  -o, --output FILE    write to FILE (replaced only on success)\n"
	TP_CLI_HELP_INPUT_OPTIONS
	"\n"
	"exit: 0 ok, 2 usage, 3 unreadable or corrupt input, 5 output failed,\n"
	"141 standard output closed by its reader (| head)\n";

enum { OPT_SCOPE = TP_CLI_OPTION_BASE };

static const struct tp_cli_option fusions_options[] = {
	{ "scope", true, OPT_SCOPE },
	{ NULL, false, 0 },
};

static int on_option(void *ctx, int id, const char *arg)
{
	if (id == OPT_SCOPE)
		*(const char **)ctx = arg;
	return 0;
}

struct fusions_run {
	const char *pattern;
	struct tp_fusions f;
};

static enum tp_err build(void *ctx, struct tp_capture *cap, struct tp_error *err)
{
	struct fusions_run *r = ctx;

	return tp_fusions_build(&r->f, cap, r->pattern, err);
}

static enum tp_err write_out(void *ctx, FILE *out, enum tp_format fmt,
			 const struct tp_capture *cap, struct tp_error *err)
{
	return tp_report_fusions(out, fmt, cap, &((struct fusions_run *)ctx)->f, err);
}

static void release(void *ctx)
{
	tp_fusions_release(&((struct fusions_run *)ctx)->f);
}

static int run_fusions(int argc, char **argv)
{
	static const struct tp_cli_analysis steps = { true, build, write_out, release };
	struct fusions_run r = { .pattern = NULL };
	struct tp_common_opts o;
	int code;

	if (tp_cli_parse(&tp_cmd_fusions, argc, argv, fusions_options, on_option,
			 &r.pattern, &o, &code) < 0)
		return code;
	return tp_cli_run_analysis(&o, &steps, &r);
}

const struct tp_cmd tp_cmd_fusions = {
	.name = "fusions",
	.summary = "every fusion and the instructions fused into it",
	.help = fusions_help,
	.run = run_fusions,
};
