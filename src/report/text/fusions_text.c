/*
 * fusions_text.c - `tpuprof fusions` for people: per module each fusion
 * with its kind, time and scopes, then its instructions as a tree.
 */
#include "tpuprof/report/ops_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* "  [sN]": the instruction's scope as an index into the fusion's list. */
static const char *scope_ref(const struct tp_fusion *fu, const char *scope)
{
	static char buf[32];
	size_t n = strlen(scope);

	buf[0] = 0;
	for (size_t i = 0; n && i < fu->n_scopes; i++)
		if (fu->scopes[i].len == n && memcmp(fu->scopes[i].ptr, scope, n) == 0)
			snprintf(buf, sizeof(buf), "  [s%zu]", i + 1);
	return buf;
}

static void fusion_text(FILE *out, const struct tp_fusions *f,
			const struct tp_hlo_index *idx, const struct tp_fusion *fu)
{
	const Xla__HloInstructionProto *ins = idx->instrs[fu->instr].proto;
	char t[32];

	fprintf(out, "  %s  %s", ins->name,
		ins->fusion_kind && ins->fusion_kind[0] ? ins->fusion_kind : "-");
	if (fu->parent >= 0)
		fprintf(out, "  inside %s", idx->instrs[fu->parent].proto->name);
	if (fu->occurrences)
		fprintf(out, "  ran %" PRIu64 "x, %s\n", fu->occurrences,
			tp_fmt_ps(t, sizeof(t), fu->total_ps));
	else
		fprintf(out, "  (did not run)\n");
	fprintf(out, "    %zu instructions, %zu scopes\n", fu->n, fu->n_scopes);
	for (size_t i = 0; i < fu->n_scopes; i++)
		fprintf(out, "      [s%zu] %.*s\n", i + 1, (int)fu->scopes[i].len,
			TP_SPTR(fu->scopes[i]));
	for (size_t i = 0; i < fu->n; i++) {
		const struct tp_fused_instr *fi = &f->instrs[fu->first + i];
		const Xla__HloInstructionProto *x = idx->instrs[fi->instr].proto;
		struct tp_strbuf sb;

		tp_strbuf_init(&sb);
		if (x->shape)
			tp_shape_format(&sb, x->shape);
		fprintf(out, "    %s%*s%s = %s %s%s\n", fi->match ? "* " : "  ",
			2 * (fi->depth - 1), "", x->name, x->opcode, sb.buf,
			scope_ref(fu, tp_hlo_scope(x)));
		tp_strbuf_release(&sb);
	}
}

enum tp_err tp_fusions_text(FILE *out, const struct tp_capture *cap,
			    const struct tp_fusions *f, struct tp_error *err)
{
	if (!f->n)
		fprintf(out, f->pattern ? "no fusion holds an instruction of scope '%s'\n" :
			"no fusions in this capture%s\n", f->pattern ? f->pattern : "");
	for (size_t mi = 0; mi < f->n_modules; mi++) {
		size_t m = f->modules[mi];
		struct tp_str name = tp_module_name(&cap->modules[m]);
		size_t n = 0;

		for (size_t i = 0; i < f->n; i++)
			n += f->v[i].module == m;
		fprintf(out, "%s%.*s (program %" PRIu64 "): %zu fusions\n", mi ? "\n" : "",
			(int)name.len, TP_SPTR(name), cap->modules[m].program_id, n);
		for (size_t i = 0; i < f->n; i++)
			if (f->v[i].module == m)
				fusion_text(out, f, &f->ops.index[m], &f->v[i]);
	}
	if (f->pattern && f->n)
		fprintf(out, "\n* = instruction whose scope matches '%s'\n", f->pattern);
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
