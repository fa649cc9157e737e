/*
 * cmd_memory.c - `tpuprof memory CAPTURE...`: what holds memory at the
 * peak, per core and per compiled program, and which scope made it.
 */
#include "../shared/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/report/memory_report.h"

static const char memory_help[] =
	"usage: tpuprof memory [options] CAPTURE...\n"
	"\n"
	"Where memory goes. Per compiled program (HLO module) and memory space:\n"
	"XProf's memory-viewer timeline (heap-simulator replay plus indefinite\n"
	"buffers), the peak and where it happens, every buffer live at the peak\n"
	"with its shape spelled out, category, live range, defining and freeing\n"
	"instruction, name scope and source line; bytes at the peak by scope and\n"
	"category; what-if estimates of splitting a buffer. Per device memory: the\n"
	"runtime allocator timeline (MemoryAllocation events), its peak and the\n"
	"allocations active then. Per core: the programs that ran, the highest\n"
	"compiler peak, the runtime peak and the headroom to capacity.\n"
	"Works on XLA dumps and standalone HloProtos too: a memory check before\n"
	"the program ever runs.\n"
	"\n"
	"options:\n"
	"  --format text|json|html  output format (default text; html: one\n"
	"                         self-contained page, docs/html.md)\n"
	"  --compact              JSON on one line, without spaces (a smaller file)\n"
	"  -o, --output FILE      write to FILE (replaced only on success)\n"
	"  --host NAME            only this host\n"
	"  --core CORE            only this core (/device:TPU:0, TPU:0, 0, or\n"
	"                         HOST PLANE as printed)\n"
	"  --module NAME|ID       only this module (name or program id)\n"
	"  --memory-space N       memory space (buffer color): 0 HBM (default),\n"
	"                         1 VMEM, 2 Sflag, 3 CMEM, 4 SMEM, 5 Host\n"
	"  --split NAME:K, --split NAME:DIM:K\n"
	"                         replay with buffer NAME split K ways along its\n"
	"                         leading dimension (or dimension DIM); several\n"
	"                         --split combine in one replay; the output says\n"
	"                         how a dimension that K does not divide rounds\n"
	"  --why NAME             one buffer's story: why it is live, its last\n"
	"                         user, the chain from its definition to that\n"
	"                         user, the wait after the peak\n"
	"  NAME (--split, --why)  a buffer as printed: fusion.3, copy-start.4{0},\n"
	"                         copy-start.4{} for a tuple itself, or the start\n"
	"                         of one such name; none or several: exit 2 with\n"
	"                         the candidates\n"
	"  --hbm SIZE             device capacity, e.g. 16GiB (default: the\n"
	"                         plane's memory_size, the allocator's, the\n"
	"                         device table's)\n"
	"  --device NAME          the device (tpuprof devices lists the names);\n"
	"                         another than the capture's: table figures only.\n"
	"                         XLA dumps and HloProtos name no device: there\n"
	"                         --hbm or --device give each program its\n"
	"                         capacity, headroom, or what to cut to fit\n"
	"  --limit N              buffers shown per module in text (default 20,\n"
	"                         0 = all; JSON always has all)\n"
	"  --depth N              scope tree depth in text (default 3)\n"
	"  --svg FILE             also write an SVG: heap curve with the peak,\n"
	"                         live ranges of the largest buffers, runtime\n"
	"                         timeline\n"
	"  --run NAME, --max-input SIZE, -j N, -q, -h   as for every command\n"
	"  --partial              read a capture cut short up to its last complete plane\n"
	"\n"
	"Sizes in JSON are bytes; a warning is printed when a core's peak is\n"
	"above 90% of its capacity.\n"
	"exit: 0 ok, 2 usage, 3 unreadable or corrupt input, 5 output failed,\n"
	"141 standard output closed by its reader (| head)\n";

enum { OPT_SPACE = TP_CLI_OPTION_BASE, OPT_SPLIT, OPT_HBM, OPT_LIMIT, OPT_DEPTH,
       OPT_SVG, OPT_WHY };

static const struct tp_cli_option memory_options[] = {
	TP_CLI_FILTER_OPTIONS,            { "memory-space", true, OPT_SPACE },
	{ "split", true, OPT_SPLIT },     { "hbm", true, OPT_HBM },
	{ "limit", true, OPT_LIMIT },     { "depth", true, OPT_DEPTH },
	{ "svg", true, OPT_SVG },         { "why", true, OPT_WHY },
	{ NULL, false, 0 },
};

struct memory_args {
	struct tp_mem_options opt;
	struct tp_memory_filter filter;
	struct tp_memory_text_opts text;
	struct tp_mem_split_spec *splits; /* malloc'd, names malloc'd */
	size_t n_splits;
	const char *svg;                  /* --svg FILE, or NULL */
	const char *why;                  /* --why NAME, or NULL */
};

static bool parse_count(const char *s, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > max)
		return false;
	*out = v;
	return true;
}

/* NAME:K (the leading dimension) or NAME:DIM:K; NAME as printed, so it
 * may hold ':' itself only before the parts parsed from the right. */
static int parse_split(struct memory_args *a, const char *arg)
{
	const char *colon = strrchr(arg, ':'), *dim_colon = NULL;
	struct tp_mem_split_spec *sp;
	long k, dim = -1;
	size_t name_len;

	if (!colon || colon == arg || !parse_count(colon + 1, 1L << 40, &k) || k < 1)
		return tp_cli_usage_error(&tp_cmd_memory,
					  "bad --split '%s' (NAME:K or NAME:DIM:K, K >= 1, e.g. fusion.3:4 "
					  "or 'copy-start.4{0}:0:8')", arg);
	name_len = (size_t)(colon - arg);
	for (const char *p = colon - 1; p > arg; p--)
		if (*p == ':') {
			char digits[16];
			size_t n = (size_t)(colon - p - 1);

			if (n && n < sizeof(digits)) {
				memcpy(digits, p + 1, n);
				digits[n] = '\0';
				if (parse_count(digits, 64, &dim))
					dim_colon = p;
			}
			break;
		}
	if (dim_colon)
		name_len = (size_t)(dim_colon - arg);
	else
		dim = -1;
	a->splits = tp_xrealloc(a->splits, (a->n_splits + 1) * sizeof(*a->splits));
	sp = &a->splits[a->n_splits++];
	sp->name = tp_str_dup(tp_str_make(arg, name_len));
	sp->dim = (int)dim;
	sp->k = (uint64_t)k;
	a->opt.splits = a->splits;
	a->opt.n_splits = a->n_splits;
	return 0;
}

static void free_splits(struct memory_args *a)
{
	for (size_t i = 0; i < a->n_splits; i++)
		free((char *)a->splits[i].name);
	free(a->splits);
}

static int on_option(void *ctx, int id, const char *arg)
{
	struct memory_args *a = ctx;
	long v;

	switch (id) {
	case OPT_SPACE:
		if (!parse_count(arg, 1000, &v))
			return tp_cli_usage_error(&tp_cmd_memory, "bad --memory-space '%s'", arg);
		a->opt.color = v;
		return 0;
	case OPT_SPLIT:
		return parse_split(a, arg);
	case OPT_HBM:
		return tp_cli_size_option(&tp_cmd_memory, "hbm", arg, true, &a->filter.hbm);
	case OPT_LIMIT:
		if (!parse_count(arg, 1L << 30, &v))
			return tp_cli_usage_error(&tp_cmd_memory, "bad --limit '%s'", arg);
		a->text.limit = (size_t)v;
		return 0;
	case OPT_SVG:
		a->svg = arg;
		return 0;
	case OPT_WHY:
		a->why = arg;
		return 0;
	case OPT_DEPTH:
		if (!parse_count(arg, 1000, &v))
			return tp_cli_usage_error(&tp_cmd_memory, "bad --depth '%s'", arg);
		a->text.depth = (int)v;
		return 0;
	default:
		return -1;
	}
}

static int write_svg(const char *path, const struct tp_memory *mem)
{
	struct tp_output out;
	struct tp_error err = { 0 };
	enum tp_err rc;
	int code = tp_output_open(&out, path);

	if (code != TP_EXIT_OK)
		return code;
	rc = tp_memory_svg(out.fp, mem, &err);
	code = tp_output_close(&out, rc == TP_OK);
	if (rc != TP_OK && code == TP_EXIT_OK)
		code = tp_cli_fail(&err);
	return code;
}

static int report(const struct tp_common_opts *o, struct tp_capture *cap,
		  struct memory_args *a)
{
	struct tp_memory mem;
	struct tp_error err = { 0 };
	struct tp_output out;
	int code;

	if (tp_memory_build(&mem, cap, &a->opt, &a->filter, &err) != TP_OK)
		return tp_cli_fail(&err);
	code = tp_output_open(&out, o->output);
	if (code == TP_EXIT_OK && a->why)
		code = tp_output_finish(&out, tp_report_memory_why(out.fp, o->format, &mem, a->why, &err), &err);
	else if (code == TP_EXIT_OK)
		code = tp_output_finish(&out, tp_report_memory(out.fp, o->format, cap, &mem, &a->text, &err), &err);
	if (code == TP_EXIT_OK && a->svg)
		code = write_svg(a->svg, &mem);
	tp_memory_release(&mem);
	return code;
}

static int run_memory(int argc, char **argv)
{
	struct memory_args a = { .opt = { .max_suggestions = 5 },
				 .text = { .limit = 20, .depth = 3 } };
	struct tp_common_opts o;
	struct tp_capture cap;
	struct tp_error err = { 0 };
	int code;

	if (tp_cli_parse(&tp_cmd_memory, argc, argv, memory_options, on_option, &a,
			 &o, &code) < 0) {
		free_splits(&a);
		return code;
	}
	TP_CLI_FILTER_COPY(&a.filter, &o.filter);
	if (tp_cli_saved_report(&o)) {   /* its memory document */
		bool needs_hlo = a.why || a.n_splits || a.svg;

		free_splits(&a);
		if (needs_hlo)
			return tp_cli_usage_error(&tp_cmd_memory, "%s is a saved report: --why, "
						  "--split and --svg need the capture's HLO",
						  o.captures[0]);
		if (a.filter.hbm)
			return tp_cli_usage_error(&tp_cmd_memory, "%s is a saved report: --device "
						  "and --hbm apply to captures", o.captures[0]);
		return tp_cli_run_saved_report(&tp_cmd_memory, &o, "memory", 0);
	}
	if ((code = tp_cli_output_clash(&tp_cmd_memory, "--svg", a.svg, &o)) != TP_EXIT_OK) {
		free_splits(&a);
		return code;
	}
	if (a.why && o.format == TP_FORMAT_HTML) {
		free_splits(&a);
		return tp_cli_usage_error(&tp_cmd_memory, "--why %s is text or json; the page "
					  "shows any buffer's card (PAGE.html#buffer=NAME)", a.why);
	}
	if (tp_capture_open(&cap, (const char *const *)o.captures,
			    (size_t)o.n_captures, &o.open, &err) != TP_OK) {
		free_splits(&a);
		return tp_cli_fail(&err);
	}
	/* a file a directory or logdir argument expanded to */
	if ((code = tp_cli_output_clash_read(&tp_cmd_memory, "-o", o.output)) != TP_EXIT_OK ||
	    (code = tp_cli_output_clash_read(&tp_cmd_memory, "--svg", a.svg)) != TP_EXIT_OK) {
		tp_capture_release(&cap);
		free_splits(&a);
		return code;
	}
	tp_cli_notes(&cap, o.quiet);
	code = report(&o, &cap, &a);
	tp_cli_damage(&cap);   /* modules are decoded, damaged ones found */
	tp_capture_release(&cap);
	free_splits(&a);
	return code;
}

const struct tp_cmd tp_cmd_memory = {
	.name = "memory",
	.summary = "what holds memory at the peak, per core and program",
	.help = memory_help,
	.run = run_memory,
	.html = true,
};
