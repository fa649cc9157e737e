/*
 * check_oom_text.c - what `tpuprof oom`'s text says of a report, table
 * driven: each case is a log (and a --device chip, or none) and lines the
 * text must hold and must not hold. The roll-ups say what they leave out
 * and their rows add up to the totals printed beside them; a suggested
 * command is one that can run; the chip's reason is true of the text.
 */
#include "testutil.h"
#include "oom_testutil.h"

#include <string.h>

#include "tpuprof/analyze/oom.h"
#include "tpuprof/device/device.h"
#include "tpuprof/report/oom_report.h"

#define ENTRY(size, op) "  " #size ". Size: 256.00M\n     Operator: op_type=\"MaxPool\" " \
	"op_name=\"net/MaxPool_" #op "\"\n     Shape: f32[4,256,256,256]{3,0,2,1:T(4,128)}\n" \
	"     Allocation type: HLO temp\n     ==========\n\n"

/* 12 MaxPools of 256M and a 128M conv under net (3.125 GiB), a 512M
 * one_hot and a 256M allocation of no op_name: 3.875 GiB listed */
#define ROLLUP "Ran out of memory in memory space hbm. Used 17.60G of 16.00G hbm. " \
	"Exceeded hbm capacity by 1.60G.\n\n  Largest program allocations in hbm:\n\n" \
	"  1. Size: 512.00M\n     Operator: op_type=\"OneHot\" op_name=\"one_hot\"\n" \
	"     Shape: f32[4,128,128,9,18]{4,3,0,2,1:T(8,128)}\n     ==========\n\n" \
	ENTRY(2, 1) ENTRY(3, 2) ENTRY(4, 3) ENTRY(5, 4) ENTRY(6, 5) ENTRY(7, 6) \
	ENTRY(8, 7) ENTRY(9, 8) ENTRY(10, 9) ENTRY(11, 10) ENTRY(12, 11) ENTRY(13, 12) \
	"  14. Size: 256.00M\n     Shape: f32[4,256,256,256]{3,0,2,1:T(4,128)}\n     ==========\n\n" \
	"  15. Size: 128.00M\n     Operator: op_type=\"Conv2D\" op_name=\"net/conv\"\n" \
	"     Shape: f32[2,256,256,256]{3,0,2,1:T(4,128)}\n     ==========\n"

#define OPT(n, t, sc) "  " #n ". Size: " #sc "\n     Operator: op_type=\"" #t "\" op_name=\"" #t "\"\n" \
	"     ==========\n"
/* 12 op types of 1 to 3 MiB, 11 scopes */
#define OP_TYPES "Ran out of memory in memory space hbm. Used 17.60G of 16.00G hbm. " \
	"Exceeded hbm capacity by 1.60G.\n\n  Largest program allocations in hbm:\n\n" \
	"  1. Size: 3.00M\n     Operator: op_type=\"T1\" op_name=\"a/b\"\n     ==========\n" \
	"  2. Size: 9.00M\n     Operator: op_type=\"T2\" op_name=\"a/c\"\n     ==========\n" \
	OPT(3, T3, 2.00M) OPT(4, T4, 2.00M) OPT(5, T5, 2.00M) OPT(6, T6, 2.00M) \
	OPT(7, T7, 2.00M) OPT(8, T8, 2.00M) OPT(9, T9, 2.00M) OPT(10, TA, 2.00M) \
	OPT(11, TB, 1.00M) OPT(12, TC, 1.00M)

/* shared 16's headline and Total block: 31.25G + 260.00M = 31.50G */
#define R16_HEAD "Ran out of memory in memory space hbm. Used 55.24G of 31.25G hbm. " \
	"Exceeded hbm capacity by 23.99G.\n\nTotal hbm usage >= 55.49G:\n"
#define R16 R16_HEAD "    reserved        260.00M \n    program          55.24G \n" \
	"    arguments            0B \n\n"
#define R16_NO_RES R16_HEAD "    program          55.24G \n    arguments            0B \n\n"

/* shared 14's list: cut inside allocation 2, after its Operator line */
#define R14_LIST "Ran out of memory in memory space hbm. Used 30.21G of 15.48G hbm. " \
	"Exceeded hbm capacity by 14.73G.\n\n  Largest program allocations in hbm:\n\n" \
	"  1. Size: 1.46G\n     Operator: op_name=\"a/convert_element_type\"\n" \
	"     Shape: bf16[256000,3072]{1,0:T(8,128)(2,1)}\n     Unpadded size: 1.46G\n" \
	"     XLA label: convert.15982 = convert(param.72)\n     Allocation type: HLO temp\n" \
	"     ==========================\n\n  2. Size: 144.00M\n" \
	"     Operator: op_name=\"a/up_proj/convert_element_type\"\n"
#define R14_CUT R14_LIST
#define R14_WHOLE R14_LIST "     Shape: bf16[3072,24576]{1,0:T(8,128)(2,1)}\n" \
	"     XLA label: convert.2 = convert(param.2)\n     Allocation type: HLO temp\n"

/* shared 14's headline and Total block: 15.48G + 530.00M = 16.00G, a v3 core */
#define R14_TOTAL "Ran out of memory in memory space hbm. Used 30.21G of 15.48G hbm. " \
	"Exceeded hbm capacity by 14.73G.\n\nTotal hbm usage >= 30.73G:\n" \
	"    reserved        530.00M \n    program          14.31G \n    arguments        15.90G \n\n"

static const struct {
	const char *what, *text, *device;
	const char *says[4];     /* lines (or parts) the text holds        */
	const char *not_says[2]; /* and does not                           */
} cases[] = {
	{ "finding 13: the rows not shown are counted, halves round alike", ROLLUP, NULL,
	  { "listed allocations (15; XLA lists only the largest): 3.88 GiB",
	    "    3.13 GiB  net\n    256 MiB   net/MaxPool_1\n",
	    "    2.13 GiB  (9 more in net)\n    512 MiB   one_hot\n",
	    "by op type: MaxPool 3.00 GiB, OneHot 512 MiB, (unknown) 256 MiB, Conv2D 128 MiB\n" },
	  { "3.12 GiB", NULL } },
	{ "finding 10: no instruction name, no command with a placeholder", ROLLUP, NULL,
	  { "    split #1 along dim 1 (128) 2 ways: saves at least 256 MiB (no instruction name "
	    "printed)\n", NULL },
	  { "NAME:", NULL } },
	{ "finding 7: a printed reservation that matches no device is said so", R16, NULL,
	  { "  chip: TPU v4 or TPU v6 lite (32.0 GiB per device; capacity 31.25G + runtime "
	    "reservation 260.00M = 31.50G matches no device; the nearest above is 32.0 GiB)\n",
	    NULL },
	  { "not printed", NULL } },
	{ "finding 7: without a reservation printed, that is the reason", R16_NO_RES, NULL,
	  { "(32.0 GiB per device; capacity 31.25G is within 1.5G below a device's HBM (the "
	    "reservation is not printed))\n", NULL },
	  { NULL, NULL } },
	{ "finding 12: a list cut inside an entry (after its Operator line) is cut", R14_CUT, NULL,
	  { "     2. 144.00M  (the entry is cut off here)\n",
	    "program_requirement, last_allocation_details\n", NULL },
	  { NULL, NULL } },
	{ "finding 12: an entry whole but for its closing line is not cut", R14_WHOLE, NULL,
	  { "     2. 144.00M  bf16[3072,24576]{1,0:T(8,128)(2,1)}\n", NULL },
	  { "last_allocation_details", "cut off" } },
	{ "finding 12: a closed entry without a shape is as XLA printed it", ROLLUP, NULL,
	  { "    14. 256.00M  f32[4,256,256,256]", "    15. 128.00M  f32[2,256,256,256]", NULL },
	  { "last_allocation_details", "cut off" } },
	{ "finding 11: a --device the printed capacity contradicts is said so", R14_TOTAL, "v5p",
	  { "  chip: TPU v5 (95.0 GiB per device; --device)\n"
	    "  note: --device TPU v5 (95.0 GiB per device) contradicts the printed capacity, which "
	    "tells TPU v3 or TPU v5 lite (16.0 GiB per device; capacity 15.48G + runtime reservation "
	    "530.00M = 16.00G per device); the verdict uses the printed figures\n", NULL },
	  { NULL, NULL } },
	{ "finding 11: a --device of the HBM the capacity tells is not", R14_TOTAL, "v3",
	  { "  chip: TPU v3 (16.0 GiB per device; --device)\n", NULL },
	  { "note:", "contradicts" } },
	{ "finding 11: nor one of the devices just above a capacity that matches none", R16, "v6e",
	  { "  chip: TPU v6 lite (32.0 GiB per device; --device)\n", NULL },
	  { "contradicts", NULL } },
	{ "finding 13: op types past 10 are counted", OP_TYPES, NULL,
	  { "by op type: T2 9.00 MiB, T1 3.00 MiB, T3 2.00 MiB, T4 2.00 MiB, T5 2.00 MiB, "
	    "T6 2.00 MiB, T7 2.00 MiB, T8 2.00 MiB, T9 2.00 MiB, TA 2.00 MiB, 2 more 2.00 MiB\n",
	    "    12.0 MiB  a\n", "    2.00 MiB  T5\n    12.0 MiB  (7 more scopes)\n", NULL },
	  { NULL, NULL } },
};

START_TEST(test_text)
{
	struct tp_oom_log log;
	struct tp_oom_explain e;
	const struct tp_device_row *chip = NULL;
	char *buf;

	if (cases[_i].device) {
		chip = tp_device_lookup(cases[_i].device);
		ck_assert_ptr_nonnull(chip);
	}
	tp_oom_log_init(&log);
	tp_oom_feed(&log, cases[_i].text, strlen(cases[_i].text));
	tp_oom_finish(&log);
	ck_assert_uint_eq(log.n, 1);
	tp_oom_explain(&e, &log.reports[0], chip);
	buf = oom_text_of(&e);
	for (size_t k = 0; k < 4 && cases[_i].says[k]; k++)
		ck_assert_msg(strstr(buf, cases[_i].says[k]) != NULL, "%s: no '%s' in\n%s",
			      cases[_i].what, cases[_i].says[k], buf);
	for (size_t k = 0; k < 2 && cases[_i].not_says[k]; k++)
		ck_assert_msg(strstr(buf, cases[_i].not_says[k]) == NULL, "%s: '%s' in\n%s",
			      cases[_i].what, cases[_i].not_says[k], buf);
	free(buf);
	tp_oom_explain_release(&e);
	tp_oom_log_release(&log);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("oom_text");
	TCase *tc = tcase_create("text");

	tcase_add_loop_test(tc, test_text, 0, sizeof(cases) / sizeof(cases[0]));
	suite_add_tcase(s, tc);
	return run_suite(s);
}
