/*
 * oom_diff.c - `tpuprof oom diff A B`: the first report of A against the
 * first of B (the before and after of a fix): the headline figures, the
 * program requirement and HLO temp, the listed padding and each name
 * scope's listed bytes (docs/oom.md, tpuprof.oom_diff/1 in docs/json.md).
 */
#include "tpuprof/report/oom_report.h"

#include <string.h>

#include "tpuprof/util/json_value.h"
#include "tpuprof/util/units.h"

static const enum tp_oom_fig diff_figs[] = {
	TP_OOM_USED, TP_OOM_CAPACITY, TP_OOM_EXCEEDED, TP_OOM_TOTAL_USAGE, TP_OOM_ARGUMENTS,
	TP_OOM_OUTPUT, TP_OOM_PROGRAM_REQUIREMENT, TP_OOM_HLO_TEMP, TP_OOM_HLO_TEMP_UNPADDED,
	TP_OOM_HLO_TEMP_PADDED, TP_OOM_HLO_TEMP_FRAGMENTATION, TP_OOM_REQUEST, TP_OOM_FREE,
};
#define N_DIFF (sizeof(diff_figs) / sizeof(diff_figs[0]))

static json_t *bytes_or_null(const struct tp_oom_size *s)
{
	return s->present && !s->unknown ? tp_json_int(s->bytes) : json_null();
}

/* Each scope path of either side once, with both sides' bytes. */
static void scopes_json(struct tp_jw *w, const struct tp_oom_explain *a,
			const struct tp_oom_explain *b)
{
	tp_jw_array(w, "scopes");
	for (int side = 0; side < 2; side++) {
		const struct tp_scope_tree *t = side ? &b->scopes : &a->scopes;
		const struct tp_scope_tree *o = side ? &a->scopes : &b->scopes;

		for (size_t i = 1; i < t->n; i++) {
			const struct tp_scope_node *n = &t->nodes[i];
			size_t j = o->n ? tp_scope_tree_find(o, tp_str_make(n->path, strlen(n->path))) :
				  SIZE_MAX;

			if (side == 1 && j != SIZE_MAX)
				continue;       /* already written from A */
			tp_jw_object(w, NULL);
			tp_jw_put(w, "path", tp_json_cstr(n->path));
			tp_jw_put(w, "a_bytes", side == 0 ? tp_json_int(n->inclusive) :
				  j != SIZE_MAX ? tp_json_int(o->nodes[j].inclusive) : json_null());
			tp_jw_put(w, "b_bytes", side == 1 ? tp_json_int(n->inclusive) :
				  j != SIZE_MAX ? tp_json_int(o->nodes[j].inclusive) : json_null());
			tp_jw_end(w);
		}
	}
	tp_jw_end(w);
}

void tp_oom_diff_json(struct tp_jw *w, const char *key, const struct tp_oom_explain *a,
		      const char *a_path, const struct tp_oom_explain *b, const char *b_path)
{
	tp_jw_object(w, key);
	tp_jw_put(w, "schema", tp_json_cstr("tpuprof.oom_diff/1"));
	tp_jw_put(w, "a", tp_json_cstr(a_path));
	tp_jw_put(w, "b", tp_json_cstr(b_path));
	tp_jw_array(w, "figures");
	for (size_t i = 0; i < N_DIFF; i++) {
		const struct tp_oom_size *x = &a->r->fig[diff_figs[i]], *y = &b->r->fig[diff_figs[i]];

		if (!x->present && !y->present)
			continue;
		tp_jw_object(w, NULL);
		tp_jw_put(w, "name", tp_json_cstr(tp_oom_fig_name(diff_figs[i])));
		tp_jw_put(w, "a_bytes", bytes_or_null(x));
		tp_jw_put(w, "b_bytes", bytes_or_null(y));
		tp_jw_end(w);
	}
	tp_jw_end(w);
	tp_jw_put_int(w, "a_listed_padding_bytes", a->listed_padding);
	tp_jw_put_int(w, "b_listed_padding_bytes", b->listed_padding);
	scopes_json(w, a, b);
	tp_jw_end(w);
}

static void row(FILE *out, const char *name, bool ha, int64_t va, bool hb, int64_t vb)
{
	char x[32], y[32], d[32];

	fprintf(out, "  %-28s %10s  %10s", name, ha ? tp_fmt_bytes(x, sizeof(x), (uint64_t)(va < 0 ? -va : va)) : "-",
		hb ? tp_fmt_bytes(y, sizeof(y), (uint64_t)(vb < 0 ? -vb : vb)) : "-");
	if (ha && hb)
		fprintf(out, "  %s%s", vb >= va ? "+" : "-",
			tp_fmt_bytes(d, sizeof(d), (uint64_t)(vb >= va ? vb - va : va - vb)));
	fputc('\n', out);
}

enum tp_err tp_oom_diff_text(FILE *out, const struct tp_oom_explain *a, const char *a_path,
			     const struct tp_oom_explain *b, const char *b_path,
			     struct tp_error *err)
{
	fprintf(out, "oom diff: A %s (line %lld), B %s (line %lld)\n", a_path,
		(long long)a->r->line, b_path, (long long)b->r->line);
	fprintf(out, "  %-28s %10s  %10s  B - A\n", "figure", "A", "B");
	for (size_t i = 0; i < N_DIFF; i++) {
		const struct tp_oom_size *x = &a->r->fig[diff_figs[i]], *y = &b->r->fig[diff_figs[i]];

		if (x->present || y->present)
			row(out, tp_oom_fig_name(diff_figs[i]), x->present && !x->unknown, x->bytes,
			    y->present && !y->unknown, y->bytes);
	}
	row(out, "listed padding", true, a->listed_padding, true, b->listed_padding);
	if (a->scopes.n > 1 || b->scopes.n > 1) {
		fputs("  listed bytes by name scope:\n", out);
		for (int side = 0; side < 2; side++) {
			const struct tp_scope_tree *t = side ? &b->scopes : &a->scopes;
			const struct tp_scope_tree *o = side ? &a->scopes : &b->scopes;

			for (size_t i = 1; i < t->n; i++) {
				const struct tp_scope_node *n = &t->nodes[i];
				size_t j = o->n ? tp_scope_tree_find(o, tp_str_make(n->path, strlen(n->path)))
						: SIZE_MAX;

				if ((side == 1 && j != SIZE_MAX) || n->n_children > 0)
					continue;
				int64_t other = j != SIZE_MAX ? o->nodes[j].inclusive : 0;

				row(out, n->path, side == 0 || j != SIZE_MAX, side == 0 ? n->inclusive : other,
				    side == 1 || j != SIZE_MAX, side == 1 ? n->inclusive : other);
			}
		}
	}
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
