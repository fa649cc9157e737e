/*
 * check_oom_parts.c - issue 37 on exact values: a report entered at any
 * of its parts (headless pastes, several fragments in one log), the E1002
 * family, the cause the verdict leads with, the overage's source where
 * two figures disagree, and the budget against the capacity. Every text
 * is fed one byte at a time as well as whole: the reader is a stream.
 */
#include "testutil.h"
#include "oom_testutil.h"

#include <string.h>

#include "tpuprof/analyze/oom.h"
#include "tpuprof/report/oom_report.h"

#define G (INT64_C(1) << 30)
#define M (INT64_C(1) << 20)

/* ---- fragments ---- */

static const struct {
	const char *what, *text;
	size_t reports;          /* found                                  */
	bool headless;           /* of the first                           */
	enum tp_oom_kind kind;
	const char *space;       /* memory_space, NULL for none            */
	size_t allocs;           /* of the first                           */
	enum tp_oom_fig fig;     /* a figure of the first ...              */
	int64_t bytes;           /* ... and its bytes                      */
} fragments[] = {
	{ "from Program hbm requirement",
	  "Program hbm requirement 1.00G:\n    global 4.0K\n    HLO temp 1.00G (90.0% utilization: "
	  "Unpadded (0.90G) Padded (1.00G), 0.0% fragmentation (0B))\n",
	  1, true, TP_OOM_COMPILE, "hbm", 0, TP_OOM_PROGRAM_REQUIREMENT, G },
	{ "from Total hbm usage, then the later blocks: one report",
	  "Total hbm usage >= 2.00G:\n    reserved 512.00M\n    program 1.50G\n    arguments 0B\n\n"
	  "Output size 0B; shares 0B with arguments.\n\nProgram hbm requirement 1.50G:\n"
	  "    HLO temp 1.50G\n",
	  1, true, TP_OOM_COMPILE, "hbm", 0, TP_OOM_HLO_TEMP, 3 * G / 2 },
	{ "from the list header",
	  "  Largest program allocations in hbm:\n\n  1. Size: 1.00G\n     Shape: f32[256,1024,1024]"
	  "{2,1,0:T(8,128)}\n     ==========\n",
	  1, true, TP_OOM_COMPILE, "hbm", 1, TP_OOM_FIG_N, 0 },
	{ "from a numbered entry, no blank lines",
	  "  1. Size: 1.00G\n     Shape: f32[256,1024,1024]{2,1,0:T(8,128)}\n  2. Size: 512.00M\n"
	  "     Shape: f32[128,1024,1024]{2,1,0:T(8,128)}\n  3. Size: 256.00M\n",
	  1, true, TP_OOM_COMPILE, NULL, 3, TP_OOM_FIG_N, 0 },
	{ "a block out of XLA's order starts another report",
	  "Program hbm requirement 9.00G:\n    HLO temp 9.00G\nTotal hbm usage >= 9.52G:\n"
	  "    reserved 530.00M\n    program 9.00G\n",
	  2, true, TP_OOM_COMPILE, "hbm", 0, TP_OOM_PROGRAM_REQUIREMENT, 9 * G },
	{ "a numbered entry that does not follow the last starts another",
	  "  1. Size: 1.00G\n  2. Size: 1.00G\n  1. Size: 3.00G\n",
	  2, true, TP_OOM_COMPILE, NULL, 2, TP_OOM_FIG_N, 0 },
	{ "XLA:GPU Peak buffers without the BufferAssignment line",
	  "Peak buffers:\n        Buffer 1:\n                Size: 6.00MiB\n                Shape: f32[4096,128,3]\n",
	  1, true, TP_OOM_GPU, NULL, 1, TP_OOM_FIG_N, 0 },
	{ "a bare Buffer N:",
	  "        Buffer 2:\n                Size: 384.0KiB\n                Entry Parameter Subshape: f32[256,128,3]\n",
	  1, true, TP_OOM_GPU, NULL, 1, TP_OOM_FIG_N, 0 },
	{ "a BFC allocator's Stats: tail",
	  "Stats:\nLimit:   15032385536\nInUse:   15032385536\nMaxInUse:  15032385536\n",
	  1, true, TP_OOM_GPU, NULL, 0, TP_OOM_BFC_LIMIT, 15032385536 },
	{ "a BFC chunk summary",
	  "Sum Total of in-use chunks: 13.71GiB\n",
	  1, true, TP_OOM_GPU, NULL, 0, TP_OOM_BFC_IN_USE_CHUNKS, 14721000407 },
	{ "a BFC allocator's chunk summary",
	  "Summary of in-use Chunks by size: \n3 Chunks of size 256 totalling 768B\n"
	  "Sum Total of in-use chunks: 1.00GiB\n",
	  1, true, TP_OOM_GPU, NULL, 0, TP_OOM_BFC_IN_USE_CHUNKS, G },
	{ "the headline and its blocks stay one report",
	  "Ran out of memory in memory space hbm. Used 9.00G of 7.48G hbm. Exceeded hbm capacity by "
	  "1.52G.\n\nTotal hbm usage >= 9.52G:\n    reserved 530.00M\n\nProgram hbm requirement 9.00G:\n"
	  "    HLO temp 9.00G\n",
	  1, false, TP_OOM_COMPILE, "hbm", 0, TP_OOM_EXCEEDED, 1632087572 },
	{ "E1002: TensorCore + SparseCore",
	  "RESOURCE_EXHAUSTED: TPU TensorCore Hbm usage: 28.50G, SparseCore Hbm usage 4.25G, "
	  "exceeding available bytes: 31.25G\n",
	  1, false, TP_OOM_COMPILE, "hbm", 0, TP_OOM_SPARSECORE_USAGE, 4563402752 },
	{ "a part's words in prose are no report",
	  "Stats:\n  images/sec 12\nOutput size of the model is 512\nProgram hbm requirement was high\n",
	  0, false, TP_OOM_COMPILE, NULL, 0, TP_OOM_FIG_N, 0 },
};

START_TEST(test_fragments)
{
	for (int bytewise = 0; bytewise < 2; bytewise++) {
		struct tp_oom_log log;
		const struct tp_oom_report *r;

		oom_feed(&log, fragments[_i].text, bytewise);
		ck_assert_msg(log.n == fragments[_i].reports, "%s: %zu reports", fragments[_i].what, log.n);
		if (log.n) {
			r = &log.reports[0];
			ck_assert_msg(r->headless == fragments[_i].headless, "%s: headless", fragments[_i].what);
			ck_assert_int_eq(r->kind, fragments[_i].kind);
			if (fragments[_i].space)
				ck_assert_str_eq(r->memory_space, fragments[_i].space);
			else
				ck_assert_ptr_null(r->memory_space);
			ck_assert_uint_eq(r->n_allocs, fragments[_i].allocs);
			if (fragments[_i].fig != TP_OOM_FIG_N) {
				ck_assert(r->fig[fragments[_i].fig].present);
				ck_assert_int_eq(r->fig[fragments[_i].fig].bytes, fragments[_i].bytes);
			}
			/* nothing of the headline is invented */
			if (r->headless)
				ck_assert(!r->fig[TP_OOM_USED].present && !r->fig[TP_OOM_CAPACITY].present &&
					  !r->fig[TP_OOM_EXCEEDED].present);
		}
		tp_oom_log_release(&log);
	}
}
END_TEST

/* ---- the cause ---- */

#define HEAD "Ran out of memory in memory space hbm. Used %s of 15.48G hbm. Exceeded hbm capacity by %s.\n\n"

static const struct {
	const char *what, *used, *over, *args, *out, *temp;
	enum tp_oom_cause cause;
	int64_t fixed_cut;       /* lower bound from the fixed buffers      */
} causes[] = {
	/* shared 14's figures: the arguments alone exceed the capacity */
	{ "arguments alone", "30.21G", "14.73G", "15.90G", "1.0K", "14.31G",
	  TP_OOM_CAUSE_ARGUMENTS, 15816217068 - 15365245501 },
	{ "output alone", "17.48G", "2.00G", "0B", "16.00G", "1.48G",
	  TP_OOM_CAUSE_OUTPUT, 16 * G - 16621523436 > 2 * G - 1589137900 ?
	  16 * G - 16621523436 : 2 * G - 1589137900 },
	{ "beyond all temporaries", "20.48G", "5.00G", "10.00G", "0B", "4.00G",
	  TP_OOM_CAUSE_FIXED, G },
	{ "temporaries", "20.48G", "5.00G", "2.00G", "0B", "18.48G", TP_OOM_CAUSE_TEMPORARIES, 0 },
	/* 15.50G against 15.48G is within no rounding: over, not equal */
	{ "arguments just over", "30.00G", "14.52G", "15.50G", "0B", "14.50G",
	  TP_OOM_CAUSE_ARGUMENTS, 16642998272 - 16621523436 > 15590731612 - 15569256776 ?
	  16642998272 - 16621523436 : 15590731612 - 15569256776 },
};

START_TEST(test_causes)
{
	char text[1024];
	struct tp_oom_log log;
	struct tp_oom_explain e;

	snprintf(text, sizeof(text), HEAD "Total hbm usage >= 99.00G:\n    reserved 530.00M\n"
		 "    program %s\n    arguments %s\n\nOutput size %s; shares 0B with arguments.\n\n"
		 "Program hbm requirement %s:\n    HLO temp %s\n", causes[_i].used, causes[_i].over,
		 causes[_i].temp, causes[_i].args, causes[_i].out, causes[_i].temp, causes[_i].temp);
	oom_feed(&log, text, false);
	ck_assert_uint_eq(log.n, 1);
	tp_oom_explain(&e, &log.reports[0], NULL);
	ck_assert_msg(e.cause == causes[_i].cause, "%s: cause %s", causes[_i].what,
		      tp_oom_cause_name(e.cause));
	ck_assert_msg(e.fixed_cut == causes[_i].fixed_cut, "%s: fixed cut %lld", causes[_i].what,
		      (long long)e.fixed_cut);
	ck_assert(e.temporaries_can_fix == (causes[_i].cause == TP_OOM_CAUSE_TEMPORARIES));
	/* the budget: reservation, arguments, output, HLO temp against the
	 * capacity plus the reservation (JAX: the capacity leaves it out) */
	ck_assert_uint_eq(e.budget.n, 4);
	ck_assert_int_eq(e.budget.parts[0].fig, TP_OOM_RESERVED);
	ck_assert_int_eq(e.budget.parts[3].fig, TP_OOM_HLO_TEMP);
	ck_assert_int_eq(e.budget.line, 16621523436 + 530 * M);
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);
}
END_TEST

/* ---- the overage's source ---- */

START_TEST(test_over_sources)
{
	static const char table[] =
		"Attempting to reserve 2.00G at the bottom of memory. That was not possible. There are "
		"1.50G free, 0B reserved, and 1.50G reservable.;\nHBM capacity 8.00G:\n"
		"       Top-of-Memory reserved:  512.00M (     536,870,912 bytes)\n"
		"      Available after request:   -1.00G (  -1,073,741,824 bytes)\n";
	static const char frag[] =
		"Attempting to allocate 1.00G. That was not possible. There are 1.50G free. Due to "
		"fragmentation, the largest contiguous region of free memory is 768.00M.; (0x0x0_HBM0)\n";
	static const char e1002[] =
		"TPU TensorCore Hbm usage: 28.50G, SparseCore Hbm usage 4.25G, exceeding available "
		"bytes: 31.25G\n";
	struct tp_oom_log log;
	struct tp_oom_explain e;

	oom_feed(&log, table, false);
	tp_oom_explain(&e, &log.reports[0], NULL);
	/* the table's exact figure, and request - reservable beside it */
	ck_assert_str_eq(e.over_source, "available_after_request");
	ck_assert(!e.over_derived && e.over_by == G);
	ck_assert(e.has_over_alt && e.over_alt == 512 * M);
	ck_assert_str_eq(e.over_alt_source, "request - reservable");
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);

	oom_feed(&log, frag, false);
	tp_oom_explain(&e, &log.reports[0], NULL);
	ck_assert_str_eq(e.over_source, "request - largest_free_region");
	ck_assert(e.over_derived && e.over_by == 256 * M && !e.has_over_alt);
	ck_assert_int_eq(e.cause, TP_OOM_CAUSE_FRAGMENTATION);
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);

	oom_feed(&log, e1002, false);
	tp_oom_explain(&e, &log.reports[0], NULL);
	ck_assert_str_eq(e.over_source, "tensorcore_usage + sparsecore_usage - capacity");
	ck_assert(e.over_derived && e.over_by == 3 * G / 2);
	ck_assert(!log.reports[0].fig[TP_OOM_USED].present);
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);
}
END_TEST

/* A headless report's over-by only with --device: the printed total
 * against that chip's HBM. */
START_TEST(test_headless_device)
{
	static const char text[] = "Total hbm usage >= 20.00G:\n    reserved 530.00M\n    program 18.00G\n";
	struct tp_oom_log log;
	struct tp_oom_explain e;
	const struct tp_device_row *v3 = tp_device_lookup("v3");

	ck_assert_ptr_nonnull(v3);
	oom_feed(&log, text, false);
	tp_oom_explain(&e, &log.reports[0], NULL);
	ck_assert(!e.has_over);
	ck_assert_uint_eq(e.n_missing, 3);
	ck_assert_str_eq(e.missing[0], "headline");
	tp_oom_explain_release(&e);
	tp_oom_explain(&e, &log.reports[0], v3);
	ck_assert(e.has_over && e.over_derived && e.over_by == 4 * G);
	ck_assert(!e.under_forced_chip);
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);
}
END_TEST

/* A printed total within the --device chip's HBM gives no over-by: it
 * was "over by -6.48 GiB (derived)" for 9.52G on a 16 GiB v5e. */
START_TEST(test_headless_device_within)
{
	static const char text[] = "Total hbm usage >= 9.52G:\n    reserved 530.00M\n    program 9.00G\n";
	struct tp_oom_log log;
	struct tp_oom_explain e;
	const struct tp_device_row *v5e = tp_device_lookup("v5e");
	char *buf;

	ck_assert_ptr_nonnull(v5e);
	oom_feed(&log, text, false);
	tp_oom_explain(&e, &log.reports[0], v5e);
	ck_assert(!e.has_over && e.under_forced_chip);
	buf = oom_text_of(&e);
	ck_assert_msg(strstr(buf, "over by") == NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "the printed total usage is within TPU v5 lite's HBM, so no "
			      "over-by follows from it") != NULL, "%s", buf);
	free(buf);
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);
}
END_TEST

/* A headless paste whose printed arguments (with the printed runtime
 * reservation) alone exceed the --device chip's HBM is the arguments',
 * as the whole report is (shared 14): it was `unknown`, and the text
 * offered to split a temporary. Shared 14's blocks, without its
 * headline. */
#define HEADLESS_14 "Total hbm usage >= 30.73G:\n    reserved        530.00M \n" \
	"    program          14.31G \n    arguments        15.90G \n\n" \
	"Output size 1.0K; shares 0B with arguments.\n\nProgram hbm requirement 14.31G:\n" \
	"    global           481.0K\n    scoped           512.0K\n" \
	"    HLO temp         14.31G (100.0% utilization: Unpadded (14.25G) Padded (14.25G), " \
	"0.4% fragmentation (62.60M))\n\n  Largest program allocations in hbm:\n\n" \
	"  1. Size: 1.46G\n     Shape: bf16[256000,3072]{1,0:T(8,128)(2,1)}\n" \
	"     XLA label: convert.15982 = convert(param.72)\n     Allocation type: HLO temp\n" \
	"     ==========================\n"

static const struct {
	const char *what, *text, *device;
	enum tp_oom_cause cause;
	int64_t cause_capacity;  /* -1: none                                */
	const char *says;        /* in the text, or NULL                    */
} headless_causes[] = {
	/* 15.90G against v2's 8 GiB less 530.00M */
	{ "arguments twice a v2 core", HEADLESS_14, "v2", TP_OOM_CAUSE_ARGUMENTS, 8 * G - 530 * M,
	  "  cause: the arguments alone (15.90G) exceed what TPU v2's HBM leaves them (8.00 GiB "
	  "per device less the runtime reservation 530.00M = 7.48 GiB; --device)" },
	/* 15.90G + 530.00M = 16.43G > 16 GiB, beyond both roundings */
	{ "arguments and the reservation over a v3 core", HEADLESS_14, "v3", TP_OOM_CAUSE_ARGUMENTS,
	  16 * G - 530 * M, "at least 431 MiB of it from the arguments (the cause above)" },
	/* 30.73G within a 32 GiB v4: no over-by, so nothing decides */
	{ "within the chip", HEADLESS_14, "v4", TP_OOM_CAUSE_UNKNOWN, -1, NULL },
	/* the arguments fit; the temporaries make up 4 GiB */
	{ "temporaries", "Total hbm usage >= 20.00G:\n    reserved 512.00M\n    program 17.50G\n"
	  "    arguments 2.00G\n\nProgram hbm requirement 17.50G:\n    HLO temp 17.50G\n",
	  "v3", TP_OOM_CAUSE_TEMPORARIES, 16 * G - 512 * M,
	  "fit within what TPU v3's HBM leaves them" },
	/* no headline, no --device: nothing to weigh against */
	{ "no device", HEADLESS_14, NULL, TP_OOM_CAUSE_UNKNOWN, -1, NULL },
};

START_TEST(test_headless_device_cause)
{
	struct tp_oom_log log;
	struct tp_oom_explain e;
	const struct tp_device_row *dev = headless_causes[_i].device ?
		tp_device_lookup(headless_causes[_i].device) : NULL;
	char *buf;

	oom_feed(&log, headless_causes[_i].text, false);
	ck_assert_uint_eq(log.n, 1);
	ck_assert(log.reports[0].headless);
	tp_oom_explain(&e, &log.reports[0], dev);
	ck_assert_msg(e.cause == headless_causes[_i].cause, "%s: cause %s", headless_causes[_i].what,
		      tp_oom_cause_name(e.cause));
	ck_assert_int_eq(e.cause_capacity, headless_causes[_i].cause_capacity);
	buf = oom_text_of(&e);
	if (headless_causes[_i].says)
		ck_assert_msg(strstr(buf, headless_causes[_i].says) != NULL, "%s:\n%s",
			      headless_causes[_i].what, buf);
	if (e.cause == TP_OOM_CAUSE_ARGUMENTS) {
		/* never the temporaries for what they cannot fix */
		ck_assert_msg(strstr(buf, "split #") == NULL, "%s", buf);
		ck_assert_msg(strstr(buf, "beyond the list") == NULL, "%s", buf);
		ck_assert(e.fixed_cut > 0 && !e.temporaries_can_fix);
	}
	free(buf);
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);
}
END_TEST

/* One shortfall prints one figure: "cut at least" rounds the overage up,
 * but the byte count, from printed sizes each rounded to a whole byte,
 * must not make a digit of that rounding (shared 31: "short by 4.57 GiB"
 * then "cut at least 4.58 GiB"). */
static const struct {
	const char *what, *text, *says[2];
} same_figure[] = {
	{ "run time: request less free (shared 31's figures)",
	  "Attempting to allocate 15.65G. That was not possible. There are 11.08G free.; (0x0x0_HBM0)\n",
	  { "short by 4.57 GiB (derived)", "  to fit: cut at least 4.57 GiB\n" } },
	{ "compile time: used less capacity",
	  "Ran out of memory in memory space hbm. Used 20.05G of 15.48G hbm.\n",
	  { "over by 4.57 GiB (derived)", "  to fit: cut at least 4.57 GiB\n" } },
	{ "compile time: the exceeded figure as printed",
	  "Ran out of memory in memory space hbm. Used 20.05G of 15.48G hbm. Exceeded hbm capacity "
	  "by 4.57G.\n", { "over by 4.57G", "  to fit: cut at least 4.57 GiB\n" } },
	/* a real excess over the digit still rounds up */
	{ "a digit's worth more rounds up", "Ran out of memory in memory space hbm. Used 20.06G of "
	  "15.48G hbm.\n", { "over by 4.58 GiB (derived)", "  to fit: cut at least 4.58 GiB\n" } },
};

START_TEST(test_same_figure)
{
	struct tp_oom_log log;
	struct tp_oom_explain e;
	char *buf;

	oom_feed(&log, same_figure[_i].text, false);
	ck_assert_uint_eq(log.n, 1);
	tp_oom_explain(&e, &log.reports[0], NULL);
	buf = oom_text_of(&e);
	for (int k = 0; k < 2; k++)
		ck_assert_msg(strstr(buf, same_figure[_i].says[k]) != NULL, "%s: no '%s' in\n%s",
			      same_figure[_i].what, same_figure[_i].says[k], buf);
	free(buf);
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);
}
END_TEST

/* Per-line prefixes taken off as the other log prefixes are, so that
 * every figure is read (reserved was lost behind "[rank0]: ", "> " and
 * colour, and the chip then said the reservation was not printed), part
 * names carry none of it, and nothing echoes an escape code; a part
 * printed whose figure cannot be read is named in missing. */
#define R14 "RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm. Used 30.21G of 15.48G hbm. " \
	"Exceeded hbm capacity by 14.73G.\n\nTotal hbm usage >= 30.73G:\n    reserved        530.00M \n" \
	"    program          14.31G \n    arguments        15.90G \n\n" \
	"Output size 1.0K; shares 0B with arguments.\n\n  Largest program allocations in hbm:\n\n" \
	"  1. Size: 1.46G\n     Shape: bf16[256000,3072]{1,0:T(8,128)(2,1)}\n" \
	"     Allocation type: HLO temp\n     ==========================\n"

static const struct {
	const char *what, *prefix, *suffix;
	const char *kind;        /* log_prefixes[] names it; NULL: none    */
} line_prefixes[] = {
	{ "torchrun rank", "[rank0]: ", "", "rank" },
	{ "torchrun rank, two digits", "[rank13]:", "", "rank" },
	{ "GitHub quote reply", "> ", "", "quote" },
	{ "a quote of a quote", "> > ", "", "quote" },
	{ "ANSI colour on every line", "\x1b[31m", "\x1b[0m", NULL },
	{ "ANSI bold and colour around a rank", "\x1b[1;31m[rank3]: \x1b[0m", "\x1b[0m", "rank" },
};

START_TEST(test_line_prefixes)
{
	char text[4096], *o = text;
	const char *l = R14;
	struct tp_oom_log log;
	const struct tp_oom_report *r;
	struct tp_oom_explain e;
	char *buf;

	for (const char *nl; (nl = strchr(l, '\n')); l = nl + 1)
		o += sprintf(o, "%s%.*s%s\n", line_prefixes[_i].prefix, (int)(nl - l), l,
			     line_prefixes[_i].suffix);
	for (int bytewise = 0; bytewise < 2; bytewise++) {
		oom_feed(&log, text, bytewise);
		ck_assert_uint_eq(log.n, 1);
		r = &log.reports[0];
		ck_assert_msg(r->fig[TP_OOM_RESERVED].present && r->fig[TP_OOM_RESERVED].bytes == 530 * M,
			      "%s: reserved", line_prefixes[_i].what);
		ck_assert_str_eq(r->fig[TP_OOM_ARGUMENTS].text, "15.90G");
		ck_assert_uint_eq(r->n_total_parts, 3);
		ck_assert_str_eq(r->total_parts[0].name, "reserved");
		ck_assert_str_eq(r->total_parts[1].name, "program");
		ck_assert_str_eq(r->allocs[0].shape, "bf16[256000,3072]{1,0:T(8,128)(2,1)}");
		ck_assert_str_eq(r->allocs[0].allocation_type, "HLO temp");
		if (line_prefixes[_i].kind) {
			ck_assert_int_ge(r->n_log_prefixes, 1);
			ck_assert_str_eq(r->log_prefixes[0], line_prefixes[_i].kind);
		}
		tp_oom_explain(&e, r, NULL);
		ck_assert_str_eq(e.chip.rows[0]->key, "TPU v3");   /* 15.48G + 530.00M */
		ck_assert_uint_eq(e.n_missing, 1);   /* the block left out of R14 */
		ck_assert_str_eq(e.missing[0], "program_requirement");
		buf = oom_text_of(&e);
		ck_assert_msg(strchr(buf, 0x1b) == NULL, "%s: an escape code echoed", line_prefixes[_i].what);
		ck_assert_msg(strstr(buf, "total usage >= 30.73G: reserved 530.00M, program 14.31G, "
				      "arguments 15.90G\n") != NULL, "%s:\n%s", line_prefixes[_i].what, buf);
		free(buf);
		buf = NULL;
		tp_oom_explain_release(&e);
		tp_oom_log_release(&log);
	}
}
END_TEST

/* A part printed without a figure that can be read, behind a prefix
 * tpuprof does not know: named in missing, never given another's. */
START_TEST(test_unread_behind_prefix)
{
	static const char text[] = "Total hbm usage >= 30.73G:\n| rank 0 |     reserved\n"
		"| rank 0 |     program          14.31G \n| rank 0 |     arguments        15.90G \n";
	struct tp_oom_log log;
	struct tp_oom_explain e;
	bool named = false;

	oom_feed(&log, text, false);
	ck_assert_uint_eq(log.n, 1);
	ck_assert(!log.reports[0].fig[TP_OOM_RESERVED].present);
	ck_assert_str_eq(log.reports[0].fig[TP_OOM_PROGRAM].text, "14.31G");
	tp_oom_explain(&e, &log.reports[0], NULL);
	for (size_t i = 0; i < e.n_missing; i++)
		named |= strcmp(e.missing[i], "reserved") == 0;
	ck_assert(named);
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("oom_parts");
	TCase *tc = tcase_create("parts");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_fragments, 0, sizeof(fragments) / sizeof(fragments[0]));
	tcase_add_loop_test(tc, test_causes, 0, sizeof(causes) / sizeof(causes[0]));
	tcase_add_test(tc, test_over_sources);
	tcase_add_test(tc, test_headless_device);
	tcase_add_test(tc, test_headless_device_within);
	tcase_add_loop_test(tc, test_line_prefixes, 0, sizeof(line_prefixes) / sizeof(line_prefixes[0]));
	tcase_add_test(tc, test_unread_behind_prefix);
	tcase_add_loop_test(tc, test_same_figure, 0, sizeof(same_figure) / sizeof(same_figure[0]));
	tcase_add_loop_test(tc, test_headless_device_cause, 0,
			    sizeof(headless_causes) / sizeof(headless_causes[0]));
	suite_add_tcase(s, tc);
	return run_suite(s);
}
