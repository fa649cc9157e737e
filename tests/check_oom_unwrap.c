/*
 * check_oom_unwrap.c - a report a terminal or an editor wrapped reads as
 * the report did before it was wrapped (oom_unwrap.c): folded whole at
 * several widths, hard (`fold -w N`, a terminal) and at spaces (`fold -s
 * -w N`, e-mail), every figure, entry field and name as in the unwrapped
 * paste; and the cases a wrap makes ambiguous, on exact values. Every
 * text is fed one byte at a time as well as whole: the reader is a stream.
 */
#include "testutil.h"
#include "oom_testutil.h"

#include <string.h>

#include "tpuprof/analyze/oom.h"

static const char base[] =
	"jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile "
	"permanent error. Ran out of memory in memory space hbm. Used 63.80G of 30.75G "
	"hbm. Exceeded hbm capacity by 33.05G.\n"
	"\n"
	"Total hbm usage >= 65.05G:\n"
	"    reserved          1.25G\n"
	"    program          63.80G\n"
	"    arguments            0B\n"
	"\n"
	"Output size 0B; shares 0B with arguments.\n"
	"\n"
	"Program hbm requirement 63.80G:\n"
	"    global            1.14M\n"
	"    scoped            4.56M\n"
	"    HLO temp         63.79G (100.0% utilization: Unpadded (63.58G) Padded (63.58G), "
	"0.3% fragmentation (210.89M))\n"
	"\n"
	"  Largest program allocations in hbm:\n"
	"\n"
	"  1. Size: 2.00G\n"
	"     Operator: op_name=\"jit(train_step)/jit(main)/jvp(CausalLMModule)/transformer/h/0/"
	"self_attention/...qhd,...khd->...hqk/dot_general[dimension_numbers=(((3,), (3,)), "
	"((0, 2), (0, 2))) preferred_element_type=bfloat16]\" "
	"source_file=\"/home/user/project/src/modules/attention_module.py\" source_line=1059\n"
	"     Shape: f32[32,4096,4096]{1,2,0:T(8,128)}\n"
	"     Unpadded size: 2.00G\n"
	"     XLA label: fusion.1265.remat3 = fusion(custom-call.224, custom-call.241, "
	"custom-call.22), kind=kOutput, calls=fused_computation.957.clone.clone.clone\n"
	"     Allocation type: HLO temp\n"
	"     ==========================\n"
	"\n"
	"  2. Size: 1.00G\n"
	"     Operator: op_name=\"jit(train_step)/jit(main)/transformer/h/1/mlp/dot_general\" "
	"source_file=\"/home/user/project/src/modules/mlp.py\" source_line=88\n"
	"     Shape: bf16[32,4096,4096]{2,1,0:T(8,128)(2,1)}\n"
	"     Unpadded size: 1.00G\n"
	"     XLA label: dot.77 = dot(param.1, param.2)\n"
	"     Allocation type: HLO temp\n"
	"     ==========================\n";

/* Each line of text cut into rows of at most w characters: hard, inside a
 * word; or at_spaces, after the last space that fits (`fold -s`: the
 * space stays on the row; a word longer than a row is cut at w). */
static char *fold(const char *text, size_t w, bool at_spaces)
{
	char *out = malloc(2 * strlen(text) + 1), *o = out;

	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);

		while (n > w) {
			size_t cut = w;

			if (at_spaces)
				for (size_t i = w; i > 0; i--)
					if (l[i - 1] == ' ') {
						cut = i;
						break;
					}
			memcpy(o, l, cut);
			o += cut;
			*o++ = '\n';
			l += cut;
			n -= cut;
		}
		memcpy(o, l, n);
		o += n;
		l += n;
		if (*l == '\n')
			*o++ = *l++;
	}
	*o = '\0';
	return out;
}

static void same_str(const char *what, const char *got, const char *want)
{
	ck_assert_msg((got == NULL) == (want == NULL) && (!got || strcmp(got, want) == 0),
		      "%s: %s, not %s", what, got ? got : "(none)", want ? want : "(none)");
}

static const struct {
	size_t width;
	bool at_spaces;
} folds[] = {
	{ 60, false }, { 72, false }, { 80, false }, { 100, false },
	{ 60, true }, { 72, true }, { 80, true }, { 100, true },
};

START_TEST(test_folded_reads_whole)
{
	struct tp_oom_log want, got;
	char *text = fold(base, folds[_i].width, folds[_i].at_spaces);
	char what[64];

	snprintf(what, sizeof(what), "%s at %zu", folds[_i].at_spaces ? "fold -s" : "fold",
		 folds[_i].width);
	oom_feed(&want, base, false);
	ck_assert_uint_eq(want.n, 1);
	ck_assert_uint_eq(want.reports[0].n_allocs, 2);
	for (int bytewise = 0; bytewise < 2; bytewise++) {
		const struct tp_oom_report *w = &want.reports[0], *g;

		oom_feed(&got, text, bytewise);
		ck_assert_msg(got.n == 1, "%s: %zu reports", what, got.n);
		g = &got.reports[0];
		for (int f = 0; f < TP_OOM_FIG_N; f++) {
			ck_assert_msg(g->fig[f].present == w->fig[f].present, "%s: figure %d", what, f);
			if (w->fig[f].present)
				same_str(what, g->fig[f].text, w->fig[f].text);
		}
		for (int p = 0; p < TP_OOM_PCT_N; p++)
			ck_assert_msg(g->has_pct[p] == w->has_pct[p] && g->pct[p] == w->pct[p],
				      "%s: share %d", what, p);
		ck_assert_msg(g->n_allocs == w->n_allocs, "%s: %zu entries", what, g->n_allocs);
		for (size_t k = 0; k < w->n_allocs; k++) {
			const struct tp_oom_alloc *ga = &g->allocs[k], *wa = &w->allocs[k];

			ck_assert_int_eq(ga->size.bytes, wa->size.bytes);
			same_str(what, ga->op_name, wa->op_name);
			same_str(what, ga->source_file, wa->source_file);
			ck_assert_int_eq(ga->source_line, wa->source_line);
			same_str(what, ga->shape, wa->shape);
			same_str(what, ga->xla_label, wa->xla_label);
			same_str(what, ga->allocation_type, wa->allocation_type);
			ck_assert_int_eq(ga->closed, wa->closed);
		}
		tp_oom_log_release(&got);
	}
	tp_oom_log_release(&want);
	free(text);
}
END_TEST

/* ---- what a wrap makes ambiguous, on exact values ---- */

static const struct {
	const char *what, *text;
	const char *op_name, *xla_label, *shape, *error_code;
	const char *padded, *frag;   /* hlo_temp_padded's, its fragmentation's text */
} cases[] = {
	{ "a row a terminal cut before a space, the report's last",
	  "Ran out of memory in memory space hbm. Used 9.08G of 7.48G hbm.\n"
	  "Program hbm requirement 8.00G:\n"
	  "    HLO temp          3.93G (97.4% utilization: Unpadded (3.81G) Padded (3.92G),\n"
	  " 0.4% fragmentation (14.68M))\n",
	  NULL, NULL, NULL, NULL, "3.92G", "14.68M" },
	{ "a figure cut inside its number, the row the widest",
	  "Ran out of memory in memory space hbm. Used 55.24G of 31.25G hbm.\n"
	  "Program hbm requirement 55.24G:\n"
	  "    HLO temp         54.99G (100.0% utilization: Unpadded (54.70G) Padded (54.70\n"
	  "G), 0.5% fragmentation (289.57M))\n",
	  NULL, NULL, NULL, NULL, "54.70G", "289.57M" },
	{ "a shape's dimensions first on a row, not a rank prefix",
	  "Ran out of memory in memory space hbm. Used 12.34G of 8.00G hbm.\n"
	  "  1. Size: 1.00G\n"
	  "     Shape: f32[4,256,256,256]{3,0,2,1:T(4,128)}\n"
	  "     XLA label: %fusion.1503 = bf16[4,256,256,256]{3,0,2,1:T(4,128)(2,1)} fusion\n"
	  "(bf16[]{:T(512)(2,1)} %multiply.40610, bf16[]{:T(512)(2,1)} %multiply.40624, f32\n"
	  "[256]{0:T(256)} %get-tuple-element.73203)\n"
	  "     Allocation type: HLO temp\n",
	  NULL,
	  "%fusion.1503 = bf16[4,256,256,256]{3,0,2,1:T(4,128)(2,1)} fusion(bf16[]{:T(512)(2,1)} "
	  "%multiply.40610, bf16[]{:T(512)(2,1)} %multiply.40624, f32[256]{0:T(256)} "
	  "%get-tuple-element.73203)",
	  "f32[4,256,256,256]{3,0,2,1:T(4,128)}", NULL, NULL, NULL },
	{ "Operator: alone on a row, its op_name cut at the full width and at a space",
	  "Ran out of memory in memory space hbm. Used 30.21G of 15.48G hbm.\n"
	  "  1. Size: 144.00M\n"
	  "     Operator: \n"
	  "op_name=\"pjit(generate)/jit(main)/GemmaModule/model/layers/26/while/body/mlp/up_\n"
	  "proj/convert_element_type[new_dtype=bfloat16 \n"
	  "weak_type=False]\" source_file=\"/tmp/ipykernel_1363/19855715.py\" source_line=3\n"
	  "     Shape: bf16[2048,36864]{1,0:T(8,128)(2,1)}\n"
	  "     Allocation type: HLO temp\n",
	  "pjit(generate)/jit(main)/GemmaModule/model/layers/26/while/body/mlp/up_proj/"
	  "convert_element_type[new_dtype=bfloat16 weak_type=False]",
	  NULL, "bf16[2048,36864]{1,0:T(8,128)(2,1)}", NULL, NULL, NULL },
	{ "textwrap: a break after a hyphen, and a long word cut where its row is full",
	  "Ran out of memory in memory space hbm. Used 63.80G of 30.75G hbm.\n"
	  "  1. Size: 2.00G\n"
	  "     Operator: op_name=\"jit(step)/jit(main)/jvp(FalconModule)/h/0/attn/...qhd,...khd-\n"
	  ">...hqk/dot_general\" source_file=\"/home/air/workspace/EasyDel/src/easydel/modul\n"
	  "es/attention_module.py\" source_line=1059\n"
	  "     Shape: f32[32,4096,4096]{1,2,0:T(8,128)}\n"
	  "     Allocation type: HLO temp\n",
	  "jit(step)/jit(main)/jvp(FalconModule)/h/0/attn/...qhd,...khd->...hqk/dot_general",
	  NULL, "f32[32,4096,4096]{1,2,0:T(8,128)}", NULL, NULL, NULL },
	{ "the wrapper on the row before the headline's, cut at a space",
	  "ERROR: LoadError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom: XLA:TPU compile \n"
	  "permanent error. Ran out of memory in memory space hbm. Used 215.17G of 31.25G \n"
	  "hbm. Exceeded hbm capacity by 183.92G.\n",
	  NULL, NULL, NULL, "E1000", NULL, NULL },
	{ "never wrapped: the widest line, then an indented one, read apart",
	  "Ran out of memory in memory space hbm. Used 9.08G of 7.48G hbm. Exceeded hbm "
	  "capacity by 1.60G.\n"
	  "  1. Size: 1.00G\n"
	  "     XLA label: fusion.12 = fusion(param.1, param.2, param.3), kind=kLoop, "
	  "calls=fused_computation.12\n"
	  "     Shape: f32[1024,262144]{1,0}\n"
	  "     Allocation type: HLO temp\n",
	  NULL,
	  "fusion.12 = fusion(param.1, param.2, param.3), kind=kLoop, calls=fused_computation.12",
	  "f32[1024,262144]{1,0}", NULL, NULL, NULL },
};

START_TEST(test_ambiguous)
{
	struct tp_oom_log log;

	for (int bytewise = 0; bytewise < 2; bytewise++) {
		const struct tp_oom_report *r;

		oom_feed(&log, cases[_i].text, bytewise);
		ck_assert_msg(log.n == 1, "%s: %zu reports", cases[_i].what, log.n);
		r = &log.reports[0];
		if (cases[_i].op_name || cases[_i].xla_label || cases[_i].shape) {
			ck_assert_msg(r->n_allocs == 1, "%s: %zu entries", cases[_i].what,
				      r->n_allocs);
			if (cases[_i].op_name)
				same_str(cases[_i].what, r->allocs[0].op_name, cases[_i].op_name);
			if (cases[_i].xla_label)
				same_str(cases[_i].what, r->allocs[0].xla_label, cases[_i].xla_label);
			if (cases[_i].shape)
				same_str(cases[_i].what, r->allocs[0].shape, cases[_i].shape);
		}
		if (cases[_i].error_code) {
			same_str(cases[_i].what, r->error_code, cases[_i].error_code);
			same_str(cases[_i].what, r->fig[TP_OOM_EXCEEDED].text, "183.92G");
		}
		if (cases[_i].padded) {
			same_str(cases[_i].what, r->fig[TP_OOM_HLO_TEMP_PADDED].text, cases[_i].padded);
			same_str(cases[_i].what, r->fig[TP_OOM_HLO_TEMP_FRAGMENTATION].present ?
				 r->fig[TP_OOM_HLO_TEMP_FRAGMENTATION].text : NULL, cases[_i].frag);
		}
		tp_oom_log_release(&log);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("oom_unwrap");
	TCase *tc = tcase_create("unwrap");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_folded_reads_whole, 0, sizeof(folds) / sizeof(folds[0]));
	tcase_add_loop_test(tc, test_ambiguous, 0, sizeof(cases) / sizeof(cases[0]));
	suite_add_tcase(s, tc);
	return run_suite(s);
}
