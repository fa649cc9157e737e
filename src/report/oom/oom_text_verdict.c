/*
 * oom_text_verdict.c - the head of each report in `tpuprof oom`'s text:
 * the verdict (over by, from which figure where two disagree, what a
 * headless paste lacks, the chip) and the cause it leads with, with what
 * to do about it (docs/oom.md "The cause first"); and the size and bound
 * formats both text files use.
 */
#include "oom_text.h"

#include <math.h>
#include <string.h>

#include "tpuprof/util/units.h"

/* v in tp_fmt_bytes's units and digits, rounded to the nearest with a
 * half away from zero (printf's half to even made 3.125 GiB "3.12" and
 * 3.875 GiB "3.88": parts of 1/8 GiB printed down beside their total
 * printed up, 3.12 + 0.50 + 0.25 against 3.88). */
const char *tp_oom_fmt_b(char *buf, size_t n, int64_t v)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double x = (double)(v < 0 ? -v : v), scale;
	int u = -1, d;

	if (x < 1024) {
		snprintf(buf, n, "%lld B", (long long)v);
		return buf;
	}
	while (x >= 1024 && u < 4) {
		x /= 1024;
		u++;
	}
	d = x < 10 ? 2 : x < 100 ? 1 : 0;
	scale = d == 2 ? 100 : d == 1 ? 10 : 1;
	snprintf(buf, n, "%s%.*f %s", v < 0 ? "-" : "", d, floor(x * scale + 0.5) / scale, units[u]);
	return buf;
}

/* A bound in tp_fmt_bytes's style, rounded away from what it bounds: a
 * lower bound ("cut at least") up, an upper bound down, so that the
 * figure shown still holds. Rounding up, the byte count is first taken
 * TP_OOM_BYTE_SLACK bytes toward zero: it comes from printed sizes each
 * rounded to a whole byte (15.65G - 11.08G is 4.57 GiB, 4,907,000,135.68
 * bytes, held as 4,907,000,136), and that rounding must not make a digit
 * (4.58 GiB beside the verdict's 4.57). */
#define TP_OOM_BYTE_SLACK 2
const char *tp_oom_fmt_bound(char *buf, size_t n, int64_t v, bool up)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double x = (double)(v < 0 ? -v : v), scale;
	int u = -1, d;
	bool away = up == (v >= 0);   /* the sign flips a magnitude's rounding */

	if (x < 1024)
		return tp_oom_fmt_b(buf, n, v);
	if (away)
		x -= TP_OOM_BYTE_SLACK;
	while (x >= 1024 && u < 4) {
		x /= 1024;
		u++;
	}
	d = x < 10 ? 2 : x < 100 ? 1 : 0;
	scale = d == 2 ? 100 : d == 1 ? 10 : 1;
	x = away ? ceil(x * scale - 1e-9) / scale : floor(x * scale + 1e-9) / scale;
	snprintf(buf, n, "%s%.*f %s", v < 0 ? "-" : "", d, x, units[u]);
	return buf;
}

static const char *fig(const struct tp_oom_report *r, enum tp_oom_fig f)
{
	return r->fig[f].present ? r->fig[f].text : NULL;
}

/* The overage as shown: a printed figure as printed, a derived one in
 * binary units. */
static const char *over_text(char *buf, size_t n, const struct tp_oom_explain *e)
{
	const struct tp_oom_report *r = e->r;

	if (!e->over_derived && strcmp(e->over_source, "available_after_request") == 0) {
		/* "-2.55G" printed: the shortfall is its magnitude */
		snprintf(buf, n, "%s", r->fig[TP_OOM_AVAILABLE_AFTER_REQUEST].text + 1);
		return buf;
	}
	if (!e->over_derived)
		return fig(r, TP_OOM_EXCEEDED);
	return tp_oom_fmt_b(buf, n, e->over_by);
}

/* An overage's source (docs/json.md over_by_source) in words. */
static const char *source_words(const char *source)
{
	static const char *const words[][2] = {
		{ "available_after_request", "the HBM capacity table's 'Available after request'" },
		{ "request - reservable", "the request less 'reservable'" },
		{ "request - free", "the request less 'free'" },
		{ "request - largest_free_region", "the request less the largest free region" },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(source, words[i][0]) == 0)
			return words[i][1];
	return source;
}

static const char *alt_reason(const struct tp_oom_explain *e)
{
	if (strcmp(e->over_source, "available_after_request") == 0)
		return "the HBM capacity table counts bytes exactly and also takes off the "
		       "top-of-memory reservation, which 'free' and 'reservable' still include";
	return "it is printed, the other derived";
}

/* Device rows as "A, B or C". */
static void rows(FILE *out, const struct tp_device_row *const *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", r[i]->key);
}

/* A report without its headline: what is unknown and how the chip can
 * still be told. */
static void headless(FILE *out, const struct tp_oom_explain *e)
{
	fputs("  headless: the text starts after the headline, so used, capacity and the "
	      "overage are not printed (unknown, not guessed)", out);
	if (e->chip.forced && e->has_over)
		fprintf(out, "; the over-by is the printed total usage against %s's HBM",
			e->chip.rows[0]->key);
	else if (e->under_forced_chip)
		fprintf(out, "; the printed total usage is within %s's HBM, so no over-by "
			"follows from it (the total printed is a lower bound, or another chip "
			"ran out)", e->chip.rows[0]->key);
	else if (e->chip.forced && !e->r->fig[TP_OOM_TOTAL_USAGE].present)
		fputs("; no total usage is printed, so --device derives nothing from the chip's "
		      "HBM", out);
	else if (!e->chip.n_rows && e->r->fig[TP_OOM_TOTAL_USAGE].present)
		/* only a printed total usage is held to a chip's HBM: a GPU
		 * paste or a later fragment has none, and --device tells
		 * nothing there */
		fputs("; --device NAME (tpuprof devices) compares the printed total usage with "
		      "that chip's HBM", out);
	fputc('\n', out);
}

void tp_oom_text_verdict(FILE *out, const struct tp_oom_explain *e)
{
	const struct tp_oom_report *r = e->r;
	const char *space = r->memory_space ? r->memory_space : "device memory";
	char a[32], b[32];

	if (fig(r, TP_OOM_USED) && fig(r, TP_OOM_CAPACITY))
		fprintf(out, "  verdict: the program needs %s of %s %s", fig(r, TP_OOM_USED),
			fig(r, TP_OOM_CAPACITY), space);
	else if (fig(r, TP_OOM_REQUEST))
		fprintf(out, "  verdict: %s %s failed", r->runtime_op && strcmp(r->runtime_op, "reserve") == 0 ?
			"reserving program memory of" : "allocating", fig(r, TP_OOM_REQUEST));
	else if (fig(r, TP_OOM_TENSORCORE_USAGE) && fig(r, TP_OOM_SPARSECORE_USAGE))
		fprintf(out, "  verdict: the TensorCore needs %s and the SparseCore %s of %s %s available",
			fig(r, TP_OOM_TENSORCORE_USAGE), fig(r, TP_OOM_SPARSECORE_USAGE),
			fig(r, TP_OOM_CAPACITY) ? fig(r, TP_OOM_CAPACITY) : "?", space);
	else if (fig(r, TP_OOM_USED))
		fprintf(out, "  verdict: the program needs %s of %s", fig(r, TP_OOM_USED), space);
	else if (r->headless)
		fprintf(out, "  verdict: out of %s (the paste starts after the headline)", space);
	else
		fprintf(out, "  verdict: out of %s (no sizes printed)", space);
	if (fig(r, TP_OOM_FREE))
		fprintf(out, "; %s free", fig(r, TP_OOM_FREE));
	if (fig(r, TP_OOM_RESERVABLE))
		fprintf(out, ", %s reservable", fig(r, TP_OOM_RESERVABLE));
	if (fig(r, TP_OOM_LARGEST_FREE_REGION))
		fprintf(out, ", the largest free region %s (fragmentation)",
			fig(r, TP_OOM_LARGEST_FREE_REGION));
	if (fig(r, TP_OOM_BFC_LIMIT) && fig(r, TP_OOM_BFC_IN_USE))
		fprintf(out, "; allocator limit %s, in use %s",
			tp_oom_fmt_b(a, sizeof(a), r->fig[TP_OOM_BFC_LIMIT].bytes),
			tp_oom_fmt_b(b, sizeof(b), r->fig[TP_OOM_BFC_IN_USE].bytes));
	if (e->has_over)
		fprintf(out, ": %s by %s%s", r->kind == TP_OOM_COMPILE ? "over" : "short",
			over_text(a, sizeof(a), e), e->over_derived ? " (derived)" : "");
	fputc('\n', out);
	if (e->has_over_alt)
		fprintf(out, "  two figures disagree: %s gives %s, %s gives %s; tpuprof uses the "
			"first: %s\n", source_words(e->over_source), over_text(a, sizeof(a), e),
			source_words(e->over_alt_source), tp_oom_fmt_b(b, sizeof(b), e->over_alt),
			alt_reason(e));
	if (r->headless)
		headless(out, e);
	if (e->chip.n_rows) {
		fputs("  chip: ", out);
		rows(out, e->chip.rows, e->chip.n_rows);
		fprintf(out, " (%s per device; %s)\n", tp_oom_fmt_b(a, sizeof(a), e->chip.device_bytes),
			e->chip.basis);
	}
	if (e->chip.n_printed) {
		fprintf(out, "  note: --device %s (%s per device) contradicts the printed capacity, "
			"which tells ", e->chip.rows[0]->key,
			tp_oom_fmt_b(a, sizeof(a), e->chip.device_bytes));
		rows(out, e->chip.printed_rows, e->chip.n_printed);
		fprintf(out, " (%s per device; %s); the verdict uses the printed figures\n",
			tp_oom_fmt_b(b, sizeof(b), e->chip.printed_bytes), e->chip.printed_basis);
	}
}

/* What the cause is weighed against, in words: the printed capacity, or
 * for a headless paste the --device chip's HBM less the printed
 * reservation. */
static const char *capacity_words(char *buf, size_t n, const struct tp_oom_explain *e)
{
	const struct tp_oom_report *r = e->r;
	char a[32];
	/* cut down: what the arguments exceed must not print above itself */
	double room = floor((double)e->cause_capacity / 1073741824.0 * 100 + 1e-9) / 100;

	if (!e->cause_on_device)
		snprintf(buf, n, "the capacity (%s)", fig(r, TP_OOM_CAPACITY));
	else if (fig(r, TP_OOM_RESERVED))
		snprintf(buf, n, "what %s's HBM leaves them (%s per device less the runtime "
			 "reservation %s = %.2f GiB; --device)", e->chip.rows[0]->key,
			 tp_oom_fmt_b(a, sizeof(a), e->chip.device_bytes), fig(r, TP_OOM_RESERVED), room);
	else
		snprintf(buf, n, "%s's HBM (%s per device; --device)", e->chip.rows[0]->key,
			 tp_oom_fmt_b(a, sizeof(a), e->chip.device_bytes));
	return buf;
}

/* What decides the report, first: a buffer no cut to temporaries can
 * shrink, with what that means. */
void tp_oom_text_cause(FILE *out, const struct tp_oom_explain *e)
{
	const struct tp_oom_report *r = e->r;
	char a[32], b[32], cap[200] = "";

	if (e->cause >= TP_OOM_CAUSE_ARGUMENTS && e->cause <= TP_OOM_CAUSE_TEMPORARIES)
		capacity_words(cap, sizeof(cap), e);

	switch (e->cause) {
	case TP_OOM_CAUSE_ARGUMENTS:
		fprintf(out, "  cause: the arguments alone (%s) exceed %s: the "
			"parameters (and optimizer state) do not fit one device, so no cut to "
			"temporaries can help\n", fig(r, TP_OOM_ARGUMENTS), cap);
		fputs("    shard the parameters or the optimizer state across devices, keep them in a "
		      "smaller dtype (bf16 halves f32), or donate argument buffers the output "
		      "replaces\n", out);
		break;
	case TP_OOM_CAUSE_OUTPUT:
		fprintf(out, "  cause: the output alone (%s) exceeds %s: the result "
			"does not fit one device, so no cut to temporaries can help\n",
			fig(r, TP_OOM_OUTPUT), cap);
		fputs("    shard the output across devices, return less of it or in a smaller "
		      "dtype, or donate an argument buffer it can reuse\n", out);
		break;
	case TP_OOM_CAUSE_RESERVED:
		fprintf(out, "  cause: the runtime reservation alone (%s) exceeds %s: "
			"nothing the program does can fit\n", fig(r, TP_OOM_RESERVED), cap);
		break;
	case TP_OOM_CAUSE_FIXED:
		fprintf(out, "  cause: the arguments (%s) and output (%s): the over-by (%s) is more "
			"than all the program's temporaries (%s), so no cut to temporaries alone can "
			"fit it\n", fig(r, TP_OOM_ARGUMENTS) ? fig(r, TP_OOM_ARGUMENTS) : "not printed",
			fig(r, TP_OOM_OUTPUT) ? fig(r, TP_OOM_OUTPUT) : "not printed",
			over_text(a, sizeof(a), e), tp_oom_fmt_b(b, sizeof(b), e->temporaries_bytes));
		fputs("    shard the parameters, optimizer state or output across devices, use a "
		      "smaller dtype, or donate argument buffers the output replaces\n", out);
		break;
	case TP_OOM_CAUSE_TEMPORARIES:
		fprintf(out, "  cause: the program's temporaries (%s); the arguments and output "
			"fit within %s, so cutting temporaries fits it (below)\n",
			fig(r, TP_OOM_HLO_TEMP) ? fig(r, TP_OOM_HLO_TEMP) :
			tp_oom_fmt_b(a, sizeof(a), e->cause_bytes),
			e->cause_on_device ? cap : "the capacity");
		break;
	case TP_OOM_CAUSE_FRAGMENTATION:
		fprintf(out, "  cause: fragmentation: %s is free in all, but the largest free region "
			"is %s\n", fig(r, TP_OOM_FREE), fig(r, TP_OOM_LARGEST_FREE_REGION));
		break;
	case TP_OOM_CAUSE_UNKNOWN:
		break;
	}
}
