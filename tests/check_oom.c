/*
 * check_oom.c - the OOM report reader (include/tpuprof/oom.h) on exact
 * values: sizes as XLA prints them, log prefixes, shapes and their tiles,
 * a report damaged every way oom-facts.md lists (fed one byte at a time),
 * the VMEM families, and the explanation of a known report (what covers
 * the overage, the splits, .remat copies once). The shared reports' own
 * figures are held to the independent reference by tests/oom/check_oom.py.
 */
#include "testutil.h"
#include "oom_testutil.h"

#include <math.h>

#include "tpuprof/analyze/oom.h"
#include "tpuprof/report/oom_report.h"

#define REPORTS "../shared/oom-reports/"

/* ---- sizes ---- */

static const struct {
	const char *text;
	int64_t bytes, half_unit;
	bool exact, unknown;
	const char *printed;
} sizes[] = {
	{ "528.00M ", 553648128, 5243, false, false, "528.00M" },
	{ "12.0K", 12288, 51, false, false, "12.0K" },
	{ "0B", 0, 0, true, false, "0B" },
	{ "0BOutput size", 0, 0, true, false, "0B" },
	{ "6.00MiB", 6291456, 5243, false, false, "6.00MiB" },
	{ "384.0KiB", 393216, 51, false, false, "384.0KiB" },
	{ "-2.55G", -2738041651, 5368709, false, false, "-2.55G" },
	{ "6,532,939,776 bytes)", 6532939776, 0, true, false, "6,532,939,776 bytes" },
	{ "7866899248 bytes.", 7866899248, 0, true, false, "7866899248 bytes" },
	{ "unknown size", 0, 0, false, true, "unknown size" },
	{ "   1.25G", 1342177280, 5368709, false, false, "1.25G" },
};

/* A shared report's text into buf (NUL-terminated); its length. */
static size_t read_report(const char *name, char *buf, size_t size)
{
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), REPORTS "%s", name);
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n;
}

/* One log of text, read whole. */
static void feed_all(struct tp_oom_log *log, const char *buf, size_t n)
{
	tp_oom_log_init(log);
	tp_oom_feed(log, buf, n);
	tp_oom_finish(log);
}

START_TEST(test_sizes)
{
	struct tp_oom_size s;
	const char *t = sizes[_i].text;
	const char *e = tp_oom_size_read(t, t + strlen(t), &s);

	ck_assert_ptr_nonnull(e);
	ck_assert(s.present);
	ck_assert_int_eq(s.unknown, sizes[_i].unknown);
	if (!s.unknown)
		ck_assert_int_eq(s.bytes, sizes[_i].bytes);
	ck_assert_int_eq(s.half_unit, sizes[_i].half_unit);
	ck_assert_int_eq(s.exact, sizes[_i].exact);
	ck_assert_str_eq(s.text, sizes[_i].printed);
}
END_TEST

START_TEST(test_not_sizes)
{
	static const char *const bad[] = { "abc", "12", "1.5", "Buffer", "" };
	struct tp_oom_size s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_ptr_null(tp_oom_size_read(bad[i], bad[i] + strlen(bad[i]), &s));
}
END_TEST

/* ---- shapes ---- */

START_TEST(test_layouts)
{
	struct tp_oom_layout l;

	tp_oom_layout_read(&l, "f32[4,128,128,9,18]{4,3,0,2,1:T(8,128)}");
	ck_assert(l.parsed);
	ck_assert_int_eq(l.n_dims, 5);
	ck_assert_int_eq(l.dims[4].padded, 128);    /* most minor: 18 -> 128 */
	ck_assert_int_eq(l.dims[4].minor_rank, 0);
	ck_assert_int_eq(l.dims[3].padded, 16);     /* second: 9 -> 16 */
	ck_assert_int_eq(l.dims[3].tile, 8);
	ck_assert_int_eq(l.dims[0].padded, 4);
	ck_assert_int_eq(l.dims[1].minor_rank, 4);
	ck_assert_int_eq(l.padded_bytes, 536870912);   /* the printed 512.00M */
	ck_assert_int_eq(l.unpadded_bytes, 42467328);  /* the printed 40.50M */
	ck_assert_str_eq(l.tiles, "T(8,128)");

	tp_oom_layout_read(&l, "s32[8388608,8,4]{2,1,0:T(8,128)}");
	ck_assert_int_eq(l.dims[2].padded, 128);
	ck_assert_int_eq(l.padded_bytes, 34359738368);  /* 32.00G */

	tp_oom_layout_read(&l, "bf16[256000,3072]{1,0:T(8,128)(2,1)}");
	ck_assert_int_eq(l.padded_bytes, l.unpadded_bytes);
	ck_assert_int_eq(l.padded_bytes, 1572864000);
	ck_assert_str_eq(l.tiles, "T(8,128)(2,1)");

	tp_oom_layout_read(&l, "f32[512,245,256]{2,1,0:T(8,128)}");
	ck_assert_int_eq(l.dims[1].padded, 248);
	ck_assert_int_eq(l.padded_bytes, 130023424);    /* 124.00M */

	tp_oom_layout_read(&l, "f32[4096,128,3]");         /* GPU: no layout */
	ck_assert(l.parsed);
	ck_assert_int_eq(l.dims[2].minor_rank, 0);
	ck_assert_int_eq(l.padded_bytes, 6291456);

	tp_oom_layout_read(&l, "(f32[64]{0:T(256)}, bf16[4]{0})");
	ck_assert(!l.parsed);
	tp_oom_layout_read(&l, "f32[1,2");
	ck_assert(!l.parsed);
}
END_TEST

/* ---- a report damaged every way, fed one byte at a time ---- */

static const char damaged[] =
	"\033[0m  3%|##        | 3/100 [00:01<00:30]E1111 07:35:00.270000 140408 train.py:81] "
	"jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent\n"
	"E1111 07:35:00.270000 140408 train.py:81] error. Ran out of memory in memory space hbm. Used 9.08G of\n"
	"E1111 07:35:00.270000 140408 train.py:81] 7.48G hbm. Exceeded hbm capacity by 1.60G.\n"
	"E1111 07:35:00.270000 140408 train.py:81] \n"
	"**Total hbm usage >= 9.60G:**\n"
	"\treserved\t530.00M\n"
	"    program           9.08G\n"
	"    arguments 0BOutput size 0B; shares 0B with arguments.\n"
	"\n"
	"Program hbm requirement 9.08G:\n"
	"    global           420.0K\n"
	"    HLO temp          9.08G (95.4% utilization: Unpadded (8.65G) Padded (9.06G), 0.0% fragmentation (0B))\n"
	"\n"
	"  Largest program allocations in hbm:\n"
	"  \\1. Size: 124.00M\n"
	"     Operator: op_name=\"jit(f)/jit(main)/mlp/\\n      dot_general\" source_file=\"/x.py\" source_line=12\n"
	"     Shape: f32[512,245,256]{2,1,0:T(8,128)}\n"
	"     Unpadded size: 122.50M\n"
	"     Extra memory due to padding: 1.50M (1.0x expansion)\n"
	"     XLA label: fusion.7.remat2 = fusion(a, b), kind=kLoop\n"
	"     Allocation type: HLO temp\n"
	"  2. Size: 64.00M\n"
	"     XLA label: fusion.7 = fusion(a, b), kind=kLoop\n"
	"  3. Size: 32.00M\n"
	"Traceback (most recent call last):\n"
	"  File \"train.py\", line 3, in <module>\n";

START_TEST(test_damaged_report)
{
	struct tp_oom_log log;
	const struct tp_oom_report *r;
	const struct tp_oom_alloc *a;
	struct tp_oom_explain e;

	tp_oom_log_init(&log);
	for (size_t i = 0; i < sizeof(damaged) - 1; i++)
		tp_oom_feed(&log, damaged + i, 1);
	tp_oom_finish(&log);
	ck_assert_uint_eq(log.n, 1);
	r = &log.reports[0];
	ck_assert_int_eq(r->line, 2);                 /* the headline's line */
	ck_assert_int_eq(r->kind, TP_OOM_COMPILE);
	ck_assert_str_eq(r->memory_space, "hbm");
	ck_assert_str_eq(r->fig[TP_OOM_USED].text, "9.08G");
	ck_assert_str_eq(r->fig[TP_OOM_CAPACITY].text, "7.48G");
	ck_assert_str_eq(r->fig[TP_OOM_EXCEEDED].text, "1.60G");
	ck_assert_str_eq(r->fig[TP_OOM_TOTAL_USAGE].text, "9.60G");
	ck_assert_uint_eq(r->n_total_parts, 3);
	ck_assert_str_eq(r->total_parts[0].name, "reserved");
	ck_assert_str_eq(r->total_parts[2].name, "arguments");
	ck_assert_int_eq(r->fig[TP_OOM_ARGUMENTS].bytes, 0);
	ck_assert_str_eq(r->fig[TP_OOM_OUTPUT].text, "0B");
	ck_assert_str_eq(r->fig[TP_OOM_OUTPUT_SHARES].text, "0B");
	ck_assert_int_eq(r->fig[TP_OOM_GLOBAL].bytes, 430080);
	ck_assert_str_eq(r->fig[TP_OOM_HLO_TEMP_UNPADDED].text, "8.65G");
	ck_assert_str_eq(r->fig[TP_OOM_HLO_TEMP_PADDED].text, "9.06G");
	ck_assert(r->has_pct[TP_OOM_PCT_HLO_TEMP_UTILIZATION]);
	ck_assert(fabs(r->pct[TP_OOM_PCT_HLO_TEMP_UTILIZATION] - 95.4) < 1e-9);
	ck_assert(!r->fig[TP_OOM_SCOPED].present);       /* not printed: not set */
	ck_assert(!r->fig[TP_OOM_PROGRAM_RESERVED].present);
	ck_assert_int_eq(r->n_log_prefixes, 1);
	ck_assert_str_eq(r->log_prefixes[0], "glog");
	ck_assert_uint_eq(r->n_allocs, 3);
	a = &r->allocs[0];
	ck_assert_int_eq(a->rank, 1);
	ck_assert_str_eq(a->size.text, "124.00M");
	ck_assert_str_eq(a->op_name, "jit(f)/jit(main)/mlp/dot_general");
	ck_assert_str_eq(a->source_file, "/x.py");
	ck_assert_int_eq(a->source_line, 12);
	ck_assert_str_eq(a->shape, "f32[512,245,256]{2,1,0:T(8,128)}");
	ck_assert_str_eq(a->padding.text, "1.50M");
	ck_assert(a->has_expansion && a->expansion == 1.0);
	ck_assert_str_eq(a->xla_label_name, "fusion.7.remat2");
	ck_assert_str_eq(a->remat_of, "fusion.7");
	ck_assert_str_eq(a->allocation_type, "HLO temp");
	ck_assert_ptr_null(r->allocs[2].shape);           /* cut after its size */
	ck_assert_str_eq(r->allocs[2].size.text, "32.00M");

	tp_oom_explain(&e, r, NULL);
	ck_assert(e.has_over && !e.over_derived);
	ck_assert_int_eq(e.over_by, 1717986918);
	ck_assert_uint_eq(e.chip.n_rows, 1);                /* 7.48G + 530M = 8G: a v2 core */
	ck_assert_str_eq(e.chip.rows[0]->key, "TPU v2");
	ck_assert_int_eq(e.chip.device_bytes, 8589934592);
	ck_assert_uint_eq(e.n_sources, 2);                  /* fusion.7 and its copy once */
	ck_assert_uint_eq(e.cover_count, 0);                /* 220M do not cover 1.60G */
	ck_assert_int_eq(e.listed_bytes, (124 + 64 + 32) << 20);
	ck_assert_uint_eq(e.n_missing, 1);
	ck_assert_str_eq(e.missing[0], "last_allocation_details");
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);
}
END_TEST

static void parse(struct tp_oom_report *r, const char *text)
{
	tp_oom_parse_report(r, text, strlen(text));
}

START_TEST(test_other_families)
{
	struct tp_oom_report r;
	struct tp_oom_explain e;

	parse(&r, "RESOURCE_EXHAUSTED: Scoped allocation with size 24.50M and limit 16.00M "
		  "exceeded scoped vmem limit by 8.50M. It should not be possible ...");
	ck_assert_str_eq(r.memory_space, "vmem");
	ck_assert_str_eq(r.fig[TP_OOM_USED].text, "24.50M");
	ck_assert_str_eq(r.fig[TP_OOM_CAPACITY].text, "16.00M");
	ck_assert_str_eq(r.fig[TP_OOM_EXCEEDED].text, "8.50M");
	tp_oom_explain(&e, &r, NULL);
	ck_assert_uint_eq(e.chip.n_rows, 0);                /* no chip from VMEM */
	ck_assert_int_eq(e.over_by, 8912896);
	tp_oom_explain_release(&e);
	tp_oom_report_release(&r);

	parse(&r, "RESOURCE_EXHAUSTED: E1001: ScopedVmemOom: Allocation (size=33554432) would "
		  "exceed memory (size=16777216) :: #allocation7 [shape = 'u8[33554432]{0}']");
	ck_assert_str_eq(r.error_code, "E1001");
	ck_assert_str_eq(r.error_name, "ScopedVmemOom");
	ck_assert_int_eq(r.fig[TP_OOM_USED].bytes, 33554432);
	ck_assert_int_eq(r.fig[TP_OOM_CAPACITY].bytes, 16777216);
	ck_assert(!r.fig[TP_OOM_EXCEEDED].present);
	tp_oom_explain(&e, &r, tp_device_lookup("v5e"));
	ck_assert(e.over_derived);
	ck_assert_int_eq(e.over_by, 16777216);
	ck_assert(e.chip.forced);
	tp_oom_explain_release(&e);
	tp_oom_report_release(&r);

	/* a size past int64 saturates (a fuzzer's "260.00E" reservation),
	 * and so does the capacity plus it that the chip is matched by (the
	 * sum overflowed, caught by UBSan before): no device that large, so
	 * the nearest above the capacity, as with no reservation */
	parse(&r, "XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. "
		  "Ran out of memory in memory space hbm. Used 55.24G of 31.25G hbm. "
		  "Exceeded hbm capacity by 23.99G.\n\nTotal hbm usage >= 55.49G:\n"
		  "    reserved        260.00E \n    program          55.24G \n");
	ck_assert_int_eq(r.fig[TP_OOM_RESERVED].bytes, INT64_MAX);
	tp_oom_explain(&e, &r, NULL);
	ck_assert_uint_eq(e.chip.n_rows, 2);
	ck_assert_str_eq(e.chip.rows[0]->key, "TPU v4");
	ck_assert_str_eq(e.chip.rows[1]->key, "TPU v6 lite");
	ck_assert_int_eq(e.chip.device_bytes, (int64_t)32 << 30);
	tp_oom_explain_release(&e);
	tp_oom_report_release(&r);

	/* TPU's early abort; "Requires" in prose is no report */
	parse(&r, "XLA:TPU compile permanent error. Requires 3.47E, has 14.49G available.");
	ck_assert(r.early_abort);
	ck_assert_str_eq(r.fig[TP_OOM_USED].text, "3.47E");
	ck_assert_int_eq(r.fig[TP_OOM_USED].bytes, 4000637620985759007);
	ck_assert_str_eq(r.fig[TP_OOM_CAPACITY].text, "14.49G");
	tp_oom_explain(&e, &r, NULL);
	ck_assert_uint_eq(e.n_missing, 0);
	tp_oom_explain_release(&e);
	tp_oom_report_release(&r);
	{
		static const char prose[] = "Requires 2 GPUs, has 1 available\nRequires 1.5G, has\n";
		struct tp_oom_log log;

		tp_oom_log_init(&log);
		tp_oom_feed(&log, prose, sizeof(prose) - 1);
		tp_oom_finish(&log);
		ck_assert_uint_eq(log.n, 0);
		tp_oom_log_release(&log);
	}
}
END_TEST

/* Every shared report read whole and one byte at a time: the same. */
START_TEST(test_pieces)
{
	NEED_SHARED();
	static const char *const names[] = {
		"01-tpu-v3-tf1-detection-au2018.log", "13-tpu-v4-jax-easydel-falcon.log",
		"28-tpu-v2-ptxla-runtime-reserve-table.log", "34-gpu-jax-bufferassignment-peak-buffers.log",
	};
	static char buf[1 << 16];
	size_t n = read_report(names[_i], buf, sizeof(buf));
	struct tp_oom_log whole, bytes;

	feed_all(&whole, buf, n);
	tp_oom_log_init(&bytes);
	for (size_t i = 0; i < n; i++)
		tp_oom_feed(&bytes, buf + i, 1);
	tp_oom_finish(&bytes);
	ck_assert_uint_eq(whole.n, 1);
	ck_assert_uint_eq(bytes.n, 1);
	ck_assert_mem_eq(whole.reports[0].fig, bytes.reports[0].fig, sizeof(whole.reports[0].fig));
	ck_assert_uint_eq(whole.reports[0].n_allocs, bytes.reports[0].n_allocs);
	ck_assert_str_eq(whole.reports[0].text, bytes.reports[0].text);
	tp_oom_log_release(&whole);
	tp_oom_log_release(&bytes);
}
END_TEST

START_TEST(test_explain_known)
{
	NEED_SHARED();
	struct tp_oom_log log;
	struct tp_oom_explain e;
	static char buf[1 << 16];
	size_t n = read_report("01-tpu-v3-tf1-detection-au2018.log", buf, sizeof(buf));

	feed_all(&log, buf, n);
	ck_assert_uint_eq(log.n, 1);
	tp_oom_explain(&e, &log.reports[0], NULL);
	/* 512M + 5 x 256M = 1.75G >= 1.60G; 512M + 4 x 256M = 1.5G is not */
	ck_assert_uint_eq(e.cover_count, 6);
	ck_assert_str_eq(e.scopes.nodes[e.cover_scope].path, "resnet152");
	ck_assert_uint_eq(e.n_cover_scopes, 1);             /* the one scope is the set */
	ck_assert_uint_eq(e.cover_scopes[0], e.cover_scope);
	ck_assert_int_eq(e.listed_padding, 829947904);     /* 471.5 + 128 + 128 + 64 M */
	ck_assert_uint_eq(e.n_splits, 3);
	ck_assert_int_eq(e.splits[0].dim, 1);               /* {4,3,0,2,1}: dim 1 is major */
	ck_assert_int_eq(e.splits[0].ways, 2);
	ck_assert_int_eq(e.splits[0].saves, 268435456);
	ck_assert_str_eq(e.chip.rows[0]->key, "TPU v3");    /* TF era: 16.00G is the core */
	/* #1 f32[4,128,128,9,18] with the two 128s most minor: no padding,
	 * its whole printed 471.50M saved; #2 and #7 (bf16, 64 -> 128) next */
	ck_assert_uint_eq(e.n_relayouts, 4);
	ck_assert_uint_eq(e.relayouts[0].alloc, 0);
	ck_assert_int_eq(e.relayouts[0].saves, 494403584);
	ck_assert_int_eq(e.relayouts[0].padded_bytes, 42467328);
	ck_assert(e.relayouts[0].minor >= 1 && e.relayouts[0].minor <= 2);
	ck_assert_int_eq(e.relayouts[1].saves, 134217728);
	ck_assert_uint_eq(e.relayouts[1].alloc, 1);
	ck_assert_uint_eq(e.relayouts[3].alloc, 10);         /* #11 f32[4,256,256,64]: 64M */
	ck_assert_int_eq(e.relayouts[3].saves, 67108864);
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);
}
END_TEST

/* Report 01 with its overage raised past its largest scope: no one scope
 * covers 3.50G, resnet152 (3.12G) and one_hot (512M) together do, and
 * none of resnet152's own scopes counts again beside it. */
START_TEST(test_explain_cover_set)
{
	NEED_SHARED();
	struct tp_oom_log log;
	struct tp_oom_explain e;
	static char buf[1 << 16];
	size_t n = read_report("01-tpu-v3-tf1-detection-au2018.log", buf, sizeof(buf));
	char *at = strstr(buf, "Exceeded hbm capacity by 1.60G");

	ck_assert_ptr_nonnull(at);
	memcpy(at + strlen("Exceeded hbm capacity by "), "3.50G", 5);
	feed_all(&log, buf, n);
	ck_assert_uint_eq(log.n, 1);
	tp_oom_explain(&e, &log.reports[0], NULL);
	ck_assert_uint_eq(e.cover_scope, SIZE_MAX);
	ck_assert_uint_eq(e.n_cover_scopes, 2);
	ck_assert_str_eq(e.scopes.nodes[e.cover_scopes[0]].path, "resnet152");
	ck_assert_int_eq(e.scopes.nodes[e.cover_scopes[0]].inclusive, INT64_C(3355443200)); /* 12.5 x 256M */
	ck_assert_str_eq(e.scopes.nodes[e.cover_scopes[1]].path, "one_hot");
	ck_assert_int_eq(e.scopes.nodes[e.cover_scopes[1]].inclusive, INT64_C(536870912));
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);

	/* past everything listed (3.88G): no set */
	memcpy(at + strlen("Exceeded hbm capacity by "), "9.50G", 5);
	feed_all(&log, buf, n);
	tp_oom_explain(&e, &log.reports[0], NULL);
	ck_assert_uint_eq(e.n_cover_scopes, 0);
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);
}
END_TEST

/* A split's saving is what `memory --split NAME:DIM:N` frees: the buffer
 * counts as its largest part, ceil(d / N) elements of the dimension
 * (docs/memory.md "What-if"), so where N does not divide d it saves less
 * than size x (1 - 1/N), and the fewest ways that cover the overage are
 * counted with those parts. The text rounds the saving down: "at least"
 * never prints more than the split frees. */
static const struct {
	const char *what, *over, *size, *shape;
	int64_t ways2_saves;     /* the 2-way split's                      */
	int64_t ways, saves;     /* the covering split's; 0: none          */
	const char *says;        /* in the text                            */
} split_cases[] = {
	/* shared 02's allocation 1: s32[8388608,8,4], 32.00G, over 25.74G;
	 * 6 does not divide 8388608: parts of 1398102 rows, 4096 B each */
	{ "6 ways, not dividing", "25.74G", "32.00G", "s32[8388608,8,4]{2,1,0:T(8,128)}",
	  INT64_C(17179869184), 6, INT64_C(34359738368) - INT64_C(4096) * 1398102,
	  "(8388608) 6 ways: saves at least 26.6 GiB (memory --split copy.1:0:6)" },
	/* 4.00G along 8 over 3.27G: 6 and 7 ways leave parts of 2 rows (1
	 * GiB, saving 3 GiB, short); 8 ways save 3.5 GiB */
	{ "the nominal count falls short", "3.27G", "4.00G", "f32[8,1024,1024,128]{3,2,1,0:T(8,128)}",
	  INT64_C(2147483648), 8, INT64_C(3758096384),
	  "(8) 8 ways: saves at least 3.50 GiB (memory --split copy.1:0:8)" },
	/* 2 ways of 5 rows leave 3: 2 of 5 GiB saved, not 2.5 */
	{ "2 ways of an odd dimension", "0.50G", "5.00G", "f32[5,1024,1024,256]{3,2,1,0:T(8,128)}",
	  INT64_C(2147483648), 0, 0, "(5) 2 ways: saves at least 2.00 GiB (memory --split copy.1:0:2)" },
	/* 1.46G (1,567,663,063 B) in halves: 747.52 MiB, printed down */
	{ "the text rounds down", "0.10G", "1.46G", "bf16[256000,3072]{1,0:T(8,128)(2,1)}",
	  INT64_C(783831531), 0, 0, "2 ways: saves at least 747 MiB" },
};

START_TEST(test_split_saves)
{
	char text[1024];
	struct tp_oom_log log;
	struct tp_oom_explain e;
	char *buf;

	snprintf(text, sizeof(text), "Ran out of memory in memory space hbm. Used 99.00G of 16.00G "
		 "hbm. Exceeded hbm capacity by %s.\n\n  Largest program allocations in hbm:\n\n"
		 "  1. Size: %s\n     Shape: %s\n     XLA label: copy.1 = copy(p.1)\n"
		 "     ==========\n", split_cases[_i].over, split_cases[_i].size, split_cases[_i].shape);
	feed_all(&log, text, strlen(text));
	ck_assert_uint_eq(log.n, 1);
	tp_oom_explain(&e, &log.reports[0], NULL);
	ck_assert_uint_ge(e.n_splits, 1);
	ck_assert_int_eq(e.splits[0].ways, 2);
	ck_assert_msg(e.splits[0].saves == split_cases[_i].ways2_saves, "%s: 2 ways save %lld",
		      split_cases[_i].what, (long long)e.splits[0].saves);
	ck_assert_uint_eq(e.n_splits, split_cases[_i].ways ? 2 : 1);
	if (split_cases[_i].ways) {
		ck_assert_msg(e.splits[1].ways == split_cases[_i].ways, "%s: %lld ways",
			      split_cases[_i].what, (long long)e.splits[1].ways);
		ck_assert_int_eq(e.splits[1].saves, split_cases[_i].saves);
		ck_assert(e.splits[1].saves >= e.over_by);
	}
	buf = oom_text_of(&e);
	ck_assert_msg(strstr(buf, split_cases[_i].says) != NULL, "%s:\n%s", split_cases[_i].what, buf);
	free(buf);
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);
}
END_TEST

/* A headline a terminal hard-wrapped at 40 columns (inside words, 4
 * rows, CRLF), fed one byte at a time: read whole, the report at its first
 * row, every line counted; lines of one width with no headline are left
 * as they are. */
static const char hard_wrapped[] =
	"epoch 3: loss 0.25\r\n"
	"RuntimeError: RESOURCE_EXHAUSTED: Ran ou\r\n"
	"t of memory in memory space hbm. Used 9.\r\n"
	"08G of 7.48G hbm. Exceeded hbm capacity \r\n"
	"by 1.60G.\r\n"
	"\r\n"
	"Total hbm usage >= 9.60G:\r\n"
	"    reserved        530.00M\r\n"
	"\r\n"
	"a line of forty characters, no report...\r\n"
	"another forty characters, still none....\r\n"
	"short\r\n";

START_TEST(test_hard_wrapped)
{
	struct tp_oom_log log;
	const struct tp_oom_report *r;

	tp_oom_log_init(&log);
	for (size_t i = 0; i < sizeof(hard_wrapped) - 1; i++)
		tp_oom_feed(&log, hard_wrapped + i, 1);
	tp_oom_finish(&log);
	ck_assert_uint_eq(log.n, 1);
	ck_assert_int_eq(log.lines, 12);
	r = &log.reports[0];
	ck_assert_int_eq(r->line, 2);
	ck_assert(!r->headless);
	ck_assert_str_eq(r->memory_space, "hbm");
	ck_assert_str_eq(r->fig[TP_OOM_USED].text, "9.08G");
	ck_assert_str_eq(r->fig[TP_OOM_CAPACITY].text, "7.48G");
	ck_assert_str_eq(r->fig[TP_OOM_EXCEEDED].text, "1.60G");
	ck_assert_str_eq(r->fig[TP_OOM_TOTAL_USAGE].text, "9.60G");
	ck_assert_str_eq(r->fig[TP_OOM_RESERVED].text, "530.00M");
	tp_oom_log_release(&log);
}
END_TEST

START_TEST(test_no_report)
{
	static const char text[] = "epoch 1 loss 2.3\nout of memory? no.\nRan out of patience\n";
	struct tp_oom_log log;

	tp_oom_log_init(&log);
	tp_oom_feed(&log, text, sizeof(text) - 1);
	tp_oom_finish(&log);
	ck_assert_uint_eq(log.n, 0);
	ck_assert_int_eq(log.lines, 3);
	tp_oom_log_release(&log);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("oom");
	TCase *tc = tcase_create("reader");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_sizes, 0, sizeof(sizes) / sizeof(sizes[0]));
	tcase_add_test(tc, test_not_sizes);
	tcase_add_test(tc, test_layouts);
	tcase_add_test(tc, test_damaged_report);
	tcase_add_test(tc, test_other_families);
	tcase_add_loop_test(tc, test_pieces, 0, 4);
	tcase_add_test(tc, test_explain_known);
	tcase_add_test(tc, test_explain_cover_set);
	tcase_add_loop_test(tc, test_split_saves, 0, sizeof(split_cases) / sizeof(split_cases[0]));
	tcase_add_test(tc, test_no_report);
	tcase_add_test(tc, test_hard_wrapped);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
