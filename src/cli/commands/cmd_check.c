/*
 * cmd_check.c - `tpuprof check CAPTURE|REPORT.json... [rules]`: the CI
 * gate. Loads a report document (a saved report or captures, alike),
 * evaluates the rules (src/analyze/check.c) and exits 0 when every rule
 * holds, 1 when any breaks; other failures keep their own exit codes.
 */
#include "../shared/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/report/check_report.h"
#include "tpuprof/report/report_doc.h"
#include "tpuprof/util/util.h"

static const char check_help[] =
	"usage: tpuprof check [options] CAPTURE|REPORT.json... RULE...\n"
	"\n"
	"The CI gate: evaluates every RULE on the capture (or on reports saved\n"
	"with 'tpuprof report --format json' or made by 'tpuprof merge', merged\n"
	"when several, or on an XLA dump before anything runs), prints one line\n"
	"per check, passing (ok) or not (FAIL), with the core, module or scope,\n"
	"the measured value, the limit and the largest contributors (buffers,\n"
	"ops, collectives; a core's step time: the parts of the step, compute,\n"
	"collective, copy, input, idle), then a summary line. --format json\n"
	"gives the same (\"tpuprof.check/1\").\n"
	"Any input may be a file, '-' (standard input), a pipe or a FIFO.\n"
	"\n"
	"rules (at least one):\n"
	"  --max-peak SIZE        memory peak, e.g. 14.5GiB: per core the larger of\n"
	"                         the compiler peak of its programs and the runtime\n"
	"                         allocator peak; per module when the capture has no\n"
	"                         cores (XLA dumps, HloProtos) or with --module/--scope\n"
	"  --max-peak-fraction F  the same peak as a fraction of device capacity\n"
	"                         (plane memory_size, --device, or --hbm),\n"
	"                         0 < F <= 1, e.g. 0.9 or 90%\n"
	"  --baseline REPORT --max-growth F\n"
	"                         growth over the baseline of peak memory (per core or\n"
	"                         module), time (per core: the mean steady step; per\n"
	"                         module: op time per step) and collective bytes (per\n"
	"                         module, per step), at most F (0.1 or 10%); per step\n"
	"                         when both runs have steps, totals when neither has\n"
	"  --max-peak-growth F, --max-time-growth F, --max-traffic-growth F\n"
	"                         the same for one metric (over --max-growth for it)\n"
	"                         Cores are paired by host name where the runs share\n"
	"                         host names, else by structure (hosts in order, cores\n"
	"                         by device), modules by name; a baseline core or\n"
	"                         module without counterpart fails the check\n"
	"  --allow-unmatched      ... unless this is given (it is still reported)\n"
	"  --max-step-time DURATION\n"
	"                         per core, the mean steady step (warm-up left out),\n"
	"                         at most DURATION, e.g. 45ms or 40us\n"
	"  --max-collective-bytes SIZE\n"
	"                         ring bytes one device sends, per module, summed over\n"
	"                         the executions captured (over the instructions, once\n"
	"                         each, when nothing ran)\n"
	"  --min-headroom SIZE|F  capacity less the peak (as for --max-peak), at least\n"
	"                         SIZE (e.g. 2GiB) or the fraction F of the capacity\n"
	"                         (e.g. 0.1 or 10%)\n"
	"  --device NAME or --hbm SIZE alone\n"
	"                         the peak fits the capacity (--max-peak-fraction 1):\n"
	"                         the pre-flight of an XLA dump, before it runs\n"
	"  --min-flops-utilization F\n"
	"                         per core (per module with --module) the overall FLOP\n"
	"                         utilization, FLOPs at their peak over device time,\n"
	"                         at least F (0 to 1, e.g. 0.3 or 30%); docs/devices.md\n"
	"  --max-collective-share F\n"
	"                         per core, collectives' share of the steady step time\n"
	"                         (the warm-up step left out), at most F (0.3 or 30%)\n"
	"  --max-idle-share F     per core, idle time's share of the steady step time,\n"
	"                         at most F (0.1 or 10%; docs/ops.md: steps, advice)\n"
	"\n"
	"advice rules (each holds the report's advice finding, the worst core's\n"
	"figure, to F, 0.1 or 10%; exit 3 when the capture could not judge it;\n"
	"docs/ops.md, Advice):\n"
	"  --max-hbm-bound F      HBM bandwidth utilization at most F, or FLOP\n"
	"                         utilization >= 50% (memory-bound; XProf: 0.7)\n"
	"  --max-compute-bound F  FLOP utilization at most F, or HBM bandwidth\n"
	"                         utilization >= 50% (compute-bound; XProf: 0.7)\n"
	"  --max-input-share F    infeed's share of all steps' time (input-bound)\n"
	"  --max-async-wait-share F\n"
	"                         async -done waits' share of all steps' time\n"
	"  --max-debug-print-share F\n"
	"                         the worst host's mean share of step time in\n"
	"                         debug_print events (debug-print; XProf: 0.05)\n"
	"  --max-barrier-share F  barrier ops' share of all steps' time (barrier-cores)\n"
	"  --max-sparsecore-share F\n"
	"                         SparseCore op time over TensorCore step time\n"
	"  --max-host-offload-share F\n"
	"                         copies and host transfers' share of steady step time\n"
	"  --max-straggler-spread F\n"
	"                         the slowest core over the fastest in the worst\n"
	"                         steady step, less one (0.1 or 10% slower; 150% is\n"
	"                         half as slow again; up to 10000%)\n"
	"  --max-memory-growth F  runtime memory in use at the last steady step's end\n"
	"                         over the first's, less one (memory-growth; up to\n"
	"                         10000%)\n"
	"Every F is a fraction (0.3) or a percent (30%); a bare number above 1 is\n"
	"refused (write 20% for twenty percent).\n"
	"\n"
	"restrictions:\n"
	"  --module NAME|ID       every rule only for this module\n"
	"  --scope PREFIX         memory: the bytes live at the peak under this name\n"
	"                         scope; time: op self time under it; collectives:\n"
	"                         those under it (whole /-separated components)\n"
	"\n"
	"options:\n"
	"  --hbm SIZE             device capacity, e.g. 16GiB (a SIZE is a number and\n"
	"                         its unit: 14.5 alone is refused)\n"
	"  --device NAME          the device (tpuprof devices lists the names)\n"
	"  --allow-partial        pass a capture or report with damaged parts that\n"
	"                         were skipped (by default that fails the check)\n"
	"  --format text|json     output format (default text)\n"
	"  --compact              JSON on one line, without spaces (a smaller file)\n"
	"  -o, --output FILE      write to FILE (replaced only on success)\n"
	"  --json-out FILE        also write the tpuprof.check/1 document to FILE,\n"
	"                         the text going to standard output (or -o): a CI\n"
	"                         job's log and artifact from one run\n"
	"  --run NAME, --max-input SIZE, -j N, -q, -h   as for every command\n"
	"  --partial              read a capture cut short up to its last complete plane\n"
	"\n"
	"exit: 0 every rule holds, 1 a rule broke (or the input is partial,\n"
	"without --allow-partial; or a baseline core or module went unmatched,\n"
	"without --allow-unmatched), 2 usage (also a --module or --scope that\n"
	"names nothing, or a fraction or headroom without a known capacity),\n"
	"3 unreadable or corrupt input, a baseline that is not a report, a\n"
	"baseline of another device kind (TPU, GPU) or with steps where the run\n"
	"has none (or the reverse), or nothing to measure or compare (no peak,\n"
	"no steps, no collective, no FLOP utilization, a baseline without the\n"
	"metric): a check never passes with 0 checks, 5 output failed,\n"
	"141 standard output closed by its reader (| head)\n";

enum {
	OPT_MAX_PEAK = TP_CLI_OPTION_BASE,
	OPT_MAX_PEAK_FRACTION,
	OPT_BASELINE,
	OPT_MAX_GROWTH,
	OPT_MAX_COLLECTIVE_BYTES,
	OPT_SCOPE,
	OPT_HBM,
	OPT_MIN_HEADROOM,
	OPT_MIN_FLOPS_UTILIZATION,
	OPT_MAX_COLLECTIVE_SHARE,
	OPT_MAX_IDLE_SHARE,
	OPT_ALLOW_PARTIAL,
	OPT_MAX_PEAK_GROWTH,
	OPT_MAX_TIME_GROWTH,
	OPT_MAX_TRAFFIC_GROWTH,
	OPT_MAX_STEP_TIME,
	OPT_ALLOW_UNMATCHED,
	OPT_JSON_OUT,
	OPT_ADVICE_RULE,        /* and the next TP_CHECK_ADVICE_N - 1 */
};

static const struct tp_cli_option check_options[] = {
	{ "max-peak", true, OPT_MAX_PEAK },
	{ "max-peak-fraction", true, OPT_MAX_PEAK_FRACTION },
	{ "baseline", true, OPT_BASELINE },
	{ "max-growth", true, OPT_MAX_GROWTH },
	{ "max-collective-bytes", true, OPT_MAX_COLLECTIVE_BYTES },
	{ "module", true, TP_CLI_OPT_MODULE },  /* into o.filter */
	{ "scope", true, OPT_SCOPE },
	{ "hbm", true, OPT_HBM },
	{ "device", true, TP_CLI_OPT_DEVICE },  /* into o.filter */
	{ "min-headroom", true, OPT_MIN_HEADROOM },
	{ "min-flops-utilization", true, OPT_MIN_FLOPS_UTILIZATION },
	{ "max-collective-share", true, OPT_MAX_COLLECTIVE_SHARE },
	{ "max-idle-share", true, OPT_MAX_IDLE_SHARE },
	{ "allow-partial", false, OPT_ALLOW_PARTIAL },
	{ "max-peak-growth", true, OPT_MAX_PEAK_GROWTH },
	{ "max-time-growth", true, OPT_MAX_TIME_GROWTH },
	{ "max-traffic-growth", true, OPT_MAX_TRAFFIC_GROWTH },
	{ "max-step-time", true, OPT_MAX_STEP_TIME },
	{ "allow-unmatched", false, OPT_ALLOW_UNMATCHED },
	{ "json-out", true, OPT_JSON_OUT },
	/* in the order of enum tp_check_advice_rule */
	{ "max-hbm-bound", true, OPT_ADVICE_RULE + TP_CHECK_ADVICE_HBM_BOUND },
	{ "max-compute-bound", true, OPT_ADVICE_RULE + TP_CHECK_ADVICE_COMPUTE_BOUND },
	{ "max-input-share", true, OPT_ADVICE_RULE + TP_CHECK_ADVICE_INPUT },
	{ "max-async-wait-share", true, OPT_ADVICE_RULE + TP_CHECK_ADVICE_ASYNC_WAIT },
	{ "max-debug-print-share", true, OPT_ADVICE_RULE + TP_CHECK_ADVICE_DEBUG_PRINT },
	{ "max-barrier-share", true, OPT_ADVICE_RULE + TP_CHECK_ADVICE_BARRIER },
	{ "max-sparsecore-share", true, OPT_ADVICE_RULE + TP_CHECK_ADVICE_SPARSECORE },
	{ "max-host-offload-share", true, OPT_ADVICE_RULE + TP_CHECK_ADVICE_HOST_OFFLOAD },
	{ "max-straggler-spread", true, OPT_ADVICE_RULE + TP_CHECK_ADVICE_STRAGGLER },
	{ "max-memory-growth", true, OPT_ADVICE_RULE + TP_CHECK_ADVICE_MEMORY_GROWTH },
	{ NULL, false, 0 },
};

struct check_args {
	struct tp_check_opts rules;
	const char *baseline;
	const char *json_out;
};

/* A growth limit, read as every share is (0.1 or 10%), up to 10000%,
 * kept in percent. */
static int growth_option(const char *option, const char *arg, bool *has, double *pct)
{
	double v;
	int code = tp_cli_fraction_option(&tp_cmd_check, option, arg, 0, true, 100, &v);

	*has = true;
	*pct = v * 100.0;
	return code;
}

/* SIZE (2GiB), or a fraction of the capacity (0.1 or 10%): a number
 * without a unit is a fraction, never bytes. */
static int min_headroom(struct tp_check_opts *r, const char *arg)
{
	double v;

	if (tp_parse_fraction(arg, &v)) {
		if (v < 0 || v > 1)
			return tp_cli_usage_error(&tp_cmd_check,
						  "bad value '%s' for --min-headroom (a size and its unit, e.g. 2GiB, or a fraction of the capacity from 0 to 1, e.g. 0.1 or 10%%)", arg);
		r->min_headroom_is_pct = true;
		r->min_headroom_pct = v * 100;
	} else if (!tp_parse_size(arg, &r->min_headroom)) {
		return tp_cli_usage_error(&tp_cmd_check,
					  "bad value '%s' for --min-headroom (a size and its unit, e.g. 2GiB, or a fraction of the capacity, e.g. 0.1 or 10%%)",
					  arg);
	}
	r->has_min_headroom = true;
	return 0;
}

static int on_option(void *ctx, int id, const char *arg)
{
	struct check_args *a = ctx;
	struct tp_check_opts *r = &a->rules;

	switch (id) {
	case OPT_MAX_PEAK:
		r->has_max_peak = true;
		return tp_cli_size_option(&tp_cmd_check, "max-peak", arg, false, &r->max_peak);
	case OPT_MAX_PEAK_FRACTION:
		r->has_max_peak_fraction = true;
		return tp_cli_fraction_option(&tp_cmd_check, "max-peak-fraction", arg, 0, false, 1,
					      &r->max_peak_fraction);
	case OPT_ALLOW_PARTIAL:
		a->rules.allow_partial = true;
		return 0;
	case OPT_BASELINE:
		a->baseline = arg;
		return 0;
	case OPT_MAX_GROWTH:
		return growth_option("max-growth", arg, &r->has_max_growth, &r->max_growth_pct);
	case OPT_MAX_PEAK_GROWTH:
		return growth_option("max-peak-growth", arg, &r->has_max_peak_growth,
				     &r->max_peak_growth_pct);
	case OPT_MAX_TIME_GROWTH:
		return growth_option("max-time-growth", arg, &r->has_max_time_growth,
				     &r->max_time_growth_pct);
	case OPT_MAX_TRAFFIC_GROWTH:
		return growth_option("max-traffic-growth", arg, &r->has_max_traffic_growth,
				     &r->max_traffic_growth_pct);
	case OPT_MAX_STEP_TIME:
		r->has_max_step_time = true;
		if (!tp_parse_duration_ps(arg, &r->max_step_time_ps))
			return tp_cli_usage_error(&tp_cmd_check,
						  "bad value '%s' for --max-step-time (a duration and its unit, ps, ns, us, ms or s, e.g. 45ms)",
						  arg);
		return 0;
	case OPT_ALLOW_UNMATCHED:
		r->allow_unmatched = true;
		return 0;
	case OPT_JSON_OUT:
		a->json_out = arg;
		return 0;
	case OPT_MAX_COLLECTIVE_BYTES:
		r->has_max_collective_bytes = true;
		return tp_cli_size_option(&tp_cmd_check, "max-collective-bytes", arg, false,
					  &r->max_collective_bytes);
	case OPT_SCOPE:
		r->scope = arg;
		return 0;
	case OPT_HBM:
		return tp_cli_size_option(&tp_cmd_check, "hbm", arg, true, &r->hbm);
	case OPT_MIN_HEADROOM:
		return min_headroom(r, arg);
	case OPT_MIN_FLOPS_UTILIZATION:
		r->has_min_flops_utilization = true;
		return tp_cli_fraction_option(&tp_cmd_check, "min-flops-utilization", arg, 0, true, 1,
					      &r->min_flops_utilization);
	case OPT_MAX_COLLECTIVE_SHARE:
		r->has_max_collective_share = true;
		return tp_cli_fraction_option(&tp_cmd_check, "max-collective-share", arg, 0, true, 1,
					      &r->max_collective_share);
	case OPT_MAX_IDLE_SHARE:
		r->has_max_idle_share = true;
		return tp_cli_fraction_option(&tp_cmd_check, "max-idle-share", arg, 0, true, 1,
					      &r->max_idle_share);
	default:
		if (id >= OPT_ADVICE_RULE && id < OPT_ADVICE_RULE + TP_CHECK_ADVICE_N) {
			int k = id - OPT_ADVICE_RULE;

			r->has_advice[k] = true;
			/* a straggler's spread may pass 100%: up to 10000% */
			return tp_cli_fraction_option(&tp_cmd_check, tp_check_advice_flag(k), arg, 0,
						      true, k == TP_CHECK_ADVICE_STRAGGLER ||
						      k == TP_CHECK_ADVICE_MEMORY_GROWTH ? 100 : 1,
						      &r->advice_limit[k]);
		}
		return -1;
	}
}

static bool any_advice_rule(const struct tp_check_opts *r)
{
	for (int k = 0; k < TP_CHECK_ADVICE_N; k++)
		if (r->has_advice[k])
			return true;
	return false;
}

static int usage_rules(struct check_args *a, bool device_given)
{
	struct tp_check_opts *r = &a->rules;

	bool growth = tp_check_any_growth_rule(r);
	bool other = r->has_max_peak || r->has_max_peak_fraction || growth ||
		     r->has_max_collective_bytes || r->has_min_headroom ||
		     r->has_min_flops_utilization || r->has_max_collective_share ||
		     r->has_max_idle_share || r->has_max_step_time || any_advice_rule(r);

	if (!other && !a->baseline && (r->hbm || device_given)) {
		/* the pre-flight: does the program fit the device at all */
		r->has_max_peak_fraction = true;
		r->max_peak_fraction = 1.0;
	}
	if (!other && !r->has_max_peak_fraction && !a->baseline)
		return tp_cli_usage_error(&tp_cmd_check, "%s",
					  "no rule given (--max-peak, --max-peak-fraction, --baseline with --max-growth (or --max-peak-growth, --max-time-growth, --max-traffic-growth), --max-step-time, --max-collective-bytes, --min-headroom, --min-flops-utilization, --max-collective-share, --max-idle-share, an advice rule (--max-hbm-bound, --max-input-share, ...; tpuprof help check), or --device NAME or --hbm SIZE alone: the peak fits)");
	if (growth && !a->baseline)
		return tp_cli_usage_error(&tp_cmd_check, "%s", "--max-growth needs --baseline REPORT.json");
	if (a->baseline && !growth)
		return tp_cli_usage_error(&tp_cmd_check, "%s",
					  "--baseline needs --max-growth F (or --max-peak-growth, --max-time-growth, --max-traffic-growth)");
	return TP_EXIT_OK;
}

/* The damaged parts a document was made without, named on stderr as
 * every command names them (the messages of info.damage[]). */
static void warn_damage(const json_t *doc)
{
	const json_t *info = json_object_get(doc, "info");
	const json_t *list = json_object_get(info ? info : doc, "damage");
	size_t i;
	const json_t *d;

	json_array_foreach(list, i, d) {
		const char *msg = json_string_value(json_object_get(d, "message"));

		if (msg)
			fprintf(stderr, "tpuprof: warning: %s\n", msg);
	}
}

/* The verdict in fmt to path (NULL: standard output). */
static int write_as(const char *path, enum tp_format fmt, const struct tp_check *c,
		    const struct tp_check_opts *rules)
{
	struct tp_error err = { 0 };
	struct tp_output out;
	enum tp_err rc;
	int code = tp_output_open(&out, path);

	if (code != TP_EXIT_OK)
		return code;
	rc = tp_check_write(out.fp, fmt, c, rules, &err);
	code = tp_output_close(&out, rc == TP_OK);
	if (rc != TP_OK && code == TP_EXIT_OK)
		code = tp_cli_fail(&err);
	return code;
}

static int evaluate(const struct tp_common_opts *o, struct check_args *a, json_t *doc)
{
	struct tp_check c;
	struct tp_error err = { 0 };
	int code;

	if (tp_check_run(&c, doc, &a->rules, &err) != TP_OK)
		return tp_cli_fail(&err);
	tp_cli_doc_run_note(doc);
	if (a->rules.baseline)
		tp_cli_doc_run_note(a->rules.baseline);
	if (!o->quiet) {
		warn_damage(doc);
		if (a->rules.baseline)
			warn_damage(a->rules.baseline);
	}
	code = write_as(o->output, o->format, &c, &a->rules);
	if (code == TP_EXIT_OK && a->json_out)
		code = write_as(a->json_out, TP_FORMAT_JSON, &c, &a->rules);
	if (code == TP_EXIT_OK && tp_check_failed(&c))
		code = TP_EXIT_CHECK_FAILED;
	tp_check_release(&c);
	return code;
}

static int run_check(int argc, char **argv)
{
	struct check_args a = { 0 };
	struct tp_report_filter f = { 0 };
	struct tp_common_opts o;
	struct tp_error err = { 0 };
	json_t *doc = NULL, *base = NULL;
	int code;

	if (tp_cli_parse(&tp_cmd_check, argc, argv, check_options, on_option, &a, &o,
			 &code) < 0)
		return code;
	if ((code = usage_rules(&a, o.filter.device != NULL)) != TP_EXIT_OK)
		return code;
	if (a.json_out &&
	    (code = tp_cli_output_clash(&tp_cmd_check, "--json-out", a.json_out, &o)) != TP_EXIT_OK)
		return code;
	/* the baseline is an input too: written over, it would be lost */
	if ((code = tp_cli_output_clash_with(&tp_cmd_check, "-o", o.output, &a.baseline, 1)) !=
		    TP_EXIT_OK ||
	    (code = tp_cli_output_clash_with(&tp_cmd_check, "--json-out", a.json_out,
					     &a.baseline, 1)) != TP_EXIT_OK)
		return code;
	a.rules.module = o.filter.module;
	f.hbm = a.rules.hbm;
	f.device = o.filter.device;
	if (tp_report_doc_load(&doc, (const char *const *)o.captures, (size_t)o.n_captures,
			       &o.open, &f, &err) != TP_OK)
		return tp_cli_fail(&err);
	if (a.baseline && tp_report_doc_load(&base, &a.baseline, 1, &o.open, &f, &err) != TP_OK) {
		json_decref(doc);
		return tp_cli_fail(&err);
	}
	a.rules.baseline = base;
	/* a file a directory or logdir argument expanded to */
	if ((code = tp_cli_output_clash_read(&tp_cmd_check, "-o", o.output)) == TP_EXIT_OK &&
	    (code = tp_cli_output_clash_read(&tp_cmd_check, "--json-out", a.json_out)) ==
		    TP_EXIT_OK)
		code = evaluate(&o, &a, doc);
	json_decref(base);
	json_decref(doc);
	return code;
}

const struct tp_cmd tp_cmd_check = {
	.name = "check",
	.summary = "the CI gate: fail when memory, time or traffic break a limit",
	.help = check_help,
	.run = run_check,
};
