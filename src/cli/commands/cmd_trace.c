/*
 * cmd_trace.c - `tpuprof trace CAPTURE... -o FILE`: the whole timeline
 * for Perfetto (ui.perfetto.dev) or Chrome's trace viewer, every event of
 * every line, no cap (docs/trace.md).
 */
#include "../shared/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tpuprof/util/parallel.h"
#include "tpuprof/report/trace_write.h"

static const char trace_help[] =
	"usage: tpuprof trace [options] CAPTURE... -o FILE\n"
	"\n"
	"Write the whole timeline for a trace viewer: every event of every\n"
	"line of every plane as a slice (an instant when it has no duration),\n"
	"on a track named after its line, under a process named after its host\n"
	"and plane; events that overlap without nesting go to more tracks of\n"
	"the same name (\"XLA Ops (2)\"). Each slice carries the event's stats.\n"
	"Derived tracks: name scopes per device, runtime memory counters per\n"
	"allocator, instants at the runtime and compiler memory peaks (each\n"
	"run of a module's peak instruction, or each run's start where the\n"
	"module's peak holds throughout), inferred steps, instants at the fired\n"
	"advice findings that have a time (the straggler's worst step). All\n"
	"hosts on one time base; time 0\n"
	"is the earliest event written. No event cap, and memory does not\n"
	"grow with the number of events. A host's planes are written on -j\n"
	"threads at once (Perfetto; -j 1 writes the same bytes every time).\n"
	"\n"
	"Open the file at https://ui.perfetto.dev (Open trace file), or for\n"
	"JSON also in chrome://tracing.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE    required; FILE.gz is gzipped; - is stdout\n"
	"  --format perfetto|json\n"
	"                       Perfetto protobuf trace (default) or Chrome\n"
	"                       trace-event JSON\n"
	"  --compact            JSON on one line, without spaces (a smaller file)\n"
	"  --host NAME          only this host\n"
	"  --core CORE          only this device plane (/device:TPU:0, TPU:0, 0, or\n"
	"                       HOST PLANE as printed)\n"
	"  --from TIME          only events that end at or after TIME\n"
	"  --to TIME            only events that start at or before TIME\n"
	"                       (TIME from the trace start: 1.5ms, 200us, 3s, ...)\n"
	"  --no-derived         only the capture's own lines\n"
	"  --run NAME, --max-input SIZE, -j N, -q, -h   as for every command\n"
	"\n"
	"exit: 0 ok, 2 usage, 3 unreadable or corrupt input, 5 output failed,\n"
	"141 standard output closed by its reader (| head)\n";

enum { OPT_FROM = TP_CLI_OPTION_BASE, OPT_TO, OPT_NO_DERIVED };

static const struct tp_cli_option trace_options[] = {
	{ "host", true, TP_CLI_OPT_HOST }, { "core", true, TP_CLI_OPT_CORE },
	{ "from", true, OPT_FROM },        { "to", true, OPT_TO },
	{ "no-derived", false, OPT_NO_DERIVED },
	{ NULL, false, 0 },
};

/* A time with a unit (ps, ns, us, ms, s; 0 needs none) in ps. */
static bool parse_time(const char *s, int64_t *out)
{
	static const struct { const char *unit; double ps; } units[] = {
		{ "ps", 1 }, { "ns", 1e3 }, { "us", 1e6 }, { "ms", 1e9 }, { "s", 1e12 },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return false;
	if (!*end) {
		if (v != 0)
			return false;
		*out = 0;
		return true;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			double ps = v * units[i].ps;

			if (ps >= 9.2e18)
				return false;
			*out = (int64_t)llround(ps);
			return true;
		}
	}
	return false;
}

static int on_option(void *ctx, int id, const char *arg)
{
	struct tp_trace_opts *t = ctx;

	switch (id) {
	case OPT_FROM:
		if (!parse_time(arg, &t->from_ps))
			return tp_cli_usage_error(&tp_cmd_trace, "bad time '%s' for --from (e.g. 1.5ms)", arg);
		t->has_from = true;
		return 0;
	case OPT_TO:
		if (!parse_time(arg, &t->to_ps))
			return tp_cli_usage_error(&tp_cmd_trace, "bad time '%s' for --to (e.g. 1.5ms)", arg);
		t->has_to = true;
		return 0;
	case OPT_NO_DERIVED:
		t->no_derived = true;
		return 0;
	default:
		return -1;
	}
}

/* --format perfetto is this command's own: taken out of argv before
 * the common parser (which knows text and json) sees it; text has no
 * meaning here. Returns -1 after a usage error. */
static int take_format(int argc, char **argv, char **kept, int *n_kept,
		       struct tp_trace_opts *t)
{
	*n_kept = 0;
	for (int i = 0; i < argc; i++) {
		const char *v = NULL;
		int skip = 0;

		if (strcmp(argv[i], "--") == 0) {
			while (i < argc)
				kept[(*n_kept)++] = argv[i++];
			break;
		}
		if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
			v = argv[i + 1];
			skip = 1;
		} else if (strncmp(argv[i], "--format=", 9) == 0) {
			v = argv[i] + 9;
		}
		if (v && strcmp(v, "perfetto") == 0) {
			t->format = TP_TRACE_PERFETTO;
			i += skip;
			continue;
		}
		if (v && strcmp(v, "json") == 0) {
			t->format = TP_TRACE_JSON;
			i += skip;
			continue;
		}
		if (v) {
			tp_cli_usage_error(&tp_cmd_trace, "unknown format '%s' (perfetto or json)", v);
			return -1;
		}
		kept[(*n_kept)++] = argv[i];
	}
	kept[*n_kept] = NULL;
	return 0;
}

/* On a terminal: how far the walk is, by bytes of planes. */
static void draw_progress(void *ctx, uint64_t done, uint64_t total, const char *what)
{
	int *drawn = ctx;

	fprintf(stderr, "\rtpuprof: trace: %3d%% %s\033[K",
		total ? (int)(done * 100 / total) : 100, what);
	fflush(stderr);
	*drawn = 1;
}

/* The capture opened with its long op lines deferred, then the advice
 * judged: its ops pass is those lines' scan, which opening would
 * otherwise make, so that each is read twice, not three times
 * (tp_trace_judge). A corrupt one found then: opened again whole, the
 * damage left out as opening leaves it, and judged again. Before the
 * output is opened: a capture that fails writes nothing. */
static int open_judged(const struct tp_common_opts *o, struct tp_trace_opts *t,
		       struct tp_capture *cap, struct tp_trace_judged **judged)
{
	struct tp_common_opts deferred = *o;
	struct tp_error err = { 0 };
	int code;

	tp_cli_defer_op_lines(&deferred);
	if ((code = tp_cli_open_capture(&deferred, cap)) != TP_EXIT_OK)
		return code;
	/* --host/--core that name nothing: said before the ops pass */
	if (tp_trace_check(cap, t, &err) == TP_OK &&
	    tp_trace_judge(cap, t, judged, &err) != TP_OK &&
	    tp_capture_reopen_whole(cap, (const char *const *)deferred.captures,
				    (size_t)deferred.n_captures, &deferred.open, &err))
		(void)tp_trace_judge(cap, t, judged, &err);
	if (err.code != TP_OK) {
		tp_capture_release(cap);
		return tp_cli_fail(&err);
	}
	t->judged = *judged;
	return TP_EXIT_OK;
}

static int write_trace(const struct tp_common_opts *o, struct tp_trace_opts *t)
{
	struct tp_capture cap;
	struct tp_trace_judged *judged = NULL;
	struct tp_trace_stats st;
	struct tp_error err = { 0 };
	struct tp_output out;
	enum tp_err rc;
	int code, drawn = 0;

	if ((code = open_judged(o, t, &cap, &judged)) != TP_EXIT_OK)
		return code;
	if (!o->quiet && isatty(STDERR_FILENO)) {
		t->progress = draw_progress;
		t->progress_ctx = &drawn;
	}
	t->gzip = strcmp(o->output, "-") != 0 && tp_has_suffix(o->output, ".gz");
	code = tp_output_open(&out, o->output);
	if (code == TP_EXIT_OK) {
		rc = tp_trace_write(out.fp, &cap, t, &st, &err);
		if (drawn)
			fputs("\r\033[K", stderr);
		code = tp_output_finish(&out, rc, &err);
		if (code == TP_EXIT_OK && !o->quiet)
			fprintf(stderr,
				"tpuprof: trace: %" PRIu64 " slices, %" PRIu64 " instants on %" PRIu64
				" tracks (%" PRIu64 " overlap splits), %" PRIu64 " scope slices, %" PRIu64
				" step slices, %" PRIu64 " memory points, %" PRIu64 " peaks, %" PRIu64 " bytes%s\n",
				st.slices, st.instants, st.tracks, st.overlap_tracks,
				st.scope_slices, st.step_slices, st.counter_points, st.peaks, st.bytes,
				t->gzip ? " before gzip" : "");
		if (code == TP_EXIT_OK && !o->quiet && st.aggregated)
			fprintf(stderr, "tpuprof: note: %" PRIu64 " aggregated events (no time, only a count) are not on the timeline\n",
				st.aggregated);
	}
	if (code == TP_EXIT_OK)
		tp_cli_damage(&cap);   /* modules decoded: damaged ones known */
	t->judged = NULL;
	tp_trace_judged_free(judged);
	tp_capture_release(&cap);
	return code;
}

static int run_trace(int argc, char **argv)
{
	struct tp_trace_opts t = { 0 };
	struct tp_common_opts o;
	char **kept = tp_xcalloc((size_t)argc + 1, sizeof(*kept));
	int n_kept, code = TP_EXIT_OK;

	if (take_format(argc, argv, kept, &n_kept, &t) < 0) {
		free(kept);
		return TP_EXIT_USAGE;
	}
	if (tp_cli_parse(&tp_cmd_trace, n_kept, kept, trace_options, on_option, &t,
			 &o, &code) < 0)
		goto done;
	if (o.format != TP_FORMAT_TEXT) { /* a --format json the common parser saw */
		code = tp_cli_usage_error(&tp_cmd_trace, "%s", "give --format before the CAPTURE arguments");
		goto done;
	}
	if (!o.output) {
		code = tp_cli_usage_error(&tp_cmd_trace, "%s", "trace: -o FILE is required (- for standard output)");
		goto done;
	}
	if (t.has_from && t.has_to && t.to_ps < t.from_ps) {
		code = tp_cli_usage_error(&tp_cmd_trace, "%s", "--to is before --from");
		goto done;
	}
	t.host = o.filter.host;
	t.core = o.filter.core;
	t.threads = tp_threads(); /* -j, else the CPUs */
	code = write_trace(&o, &t);
done:
	free(kept);
	return code;
}

const struct tp_cmd tp_cmd_trace = {
	.name = "trace",
	.summary = "the whole timeline for Perfetto or Chrome tracing",
	.help = trace_help,
	.run = run_trace,
};
