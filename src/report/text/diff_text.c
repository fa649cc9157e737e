/*
 * diff_text.c - `tpuprof diff` for people: per section the totals in A
 * and B, then the rows that changed, largest absolute change first, at
 * most `limit` of them, and a line saying what was left out. Unchanged
 * rows are only counted; --format json has every row.
 */
#include "tpuprof/report/diff_report.h"

#include "tpuprof/util/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The sections in the order shown, and the part of the run each is
 * about; their titles come from the document (one label for text and
 * HTML). */
static const struct {
	const char *name, *group;
} sections[] = {
	{ "memory_modules", "memory" },
	{ "memory_cores_compiler", "memory" },
	{ "memory_cores_runtime", "memory" },
	{ "memory_cores_headroom", "memory" },
	{ "peak_buffers", "memory" },
	{ "peak_scopes", "memory" },
	{ "ops", "time" },
	{ "op_scopes", "time" },
	{ "cores_steady_step", "time" },
	{ "cores_steady_step_parts", "time" },
	{ "collective_ring_bytes", "traffic" },
	{ "collective_payload_bytes", "traffic" },
	{ "collective_time", "traffic" },
	{ "cores_flop_utilization", "device" },
};

/* The totals row's label: what the total is (a peak or headroom is the
 * worst row, never a sum). */
static const char *total_word(const char *total_is)
{
	if (strcmp(total_is, "largest") == 0)
		return "largest";
	if (strcmp(total_is, "smallest") == 0)
		return "smallest";
	if (strcmp(total_is, "weighted") == 0)
		return "all cores";
	return "total";
}

static int64_t num(const json_t *obj, const char *key, bool *has)
{
	const json_t *j = json_object_get(obj, key);

	*has = json_is_integer(j) || json_is_string(j);
	if (json_is_string(j))
		return strtoll(json_string_value(j), NULL, 10);
	return json_integer_value(j);
}

static const char *str(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

/* A value in the section's unit, signed when asked; "-" when absent. */
static const char *fmt(char *buf, size_t n, const char *unit, bool has, int64_t v, bool sign)
{
	char tmp[32];
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	if (!has)
		return "-";
	if (strcmp(unit, "ps") == 0)
		tp_fmt_ps(tmp, sizeof(tmp), (int64_t)(mag > INT64_MAX ? INT64_MAX : mag));
	else if (strcmp(unit, "ppb") == 0)     /* a share of the peak */
		snprintf(tmp, sizeof(tmp), "%.3g%%", (double)mag / 1e7);
	else
		tp_fmt_bytes(tmp, sizeof(tmp), mag);
	snprintf(buf, n, "%s%s", !sign ? (v < 0 ? "-" : "") : v < 0 ? "-" : v > 0 ? "+" : "",
		 tmp);
	return buf;
}

static const char *fmt_pct(char *buf, size_t n, const json_t *p)
{
	double v = json_real_value(p);

	if (!json_is_real(p))
		return "-";
	if (v >= 10000 || v <= -10000)
		snprintf(buf, n, "%s", v > 0 ? ">+9999%" : "<-9999%");
	else
		snprintf(buf, n, "%+.1f%%", v);
	return buf;
}

/* A module row's program: B's, or A's where B has none. */
static const char *program_of(const json_t *row)
{
	return *str(row, "program_id_b") ? str(row, "program_id_b") : str(row, "program_id_a");
}

/* Whether another row of the section is a program of row's name. */
static bool name_shared(const json_t *rows, const json_t *row)
{
	const json_t *other;
	size_t i;

	json_array_foreach(rows, i, other)
		if (strcmp(str(other, "module"), str(row, "module")) == 0 &&
		    strcmp(program_of(other), program_of(row)) != 0)
			return true;
	return false;
}

/* What a row is about, in one string (malloc'd). Programs that share a
 * module name are told apart as NAME #ID, which --module takes back. */
static char *row_name(const char *section, const json_t *row, const json_t *rows)
{
	const char *module = str(row, "module");

	if (strcmp(section, "cores_steady_step_parts") == 0)
		return tp_xasprintf("%s on %s %s", str(row, "part"), str(row, "host"), str(row, "plane"));
	if (strncmp(section, "memory_cores", 12) == 0 || strncmp(section, "cores_", 6) == 0)
		return tp_xasprintf("%s %s", str(row, "host"), str(row, "plane"));
	if (strcmp(section, "memory_modules") == 0)
		return tp_xasprintf("%s%s%s%s", module, name_shared(rows, row) ? " #" : "",
				    name_shared(rows, row) ? program_of(row) : "",
				    strcmp(str(row, "matched_by"), "name") == 0
					    ? " (by name: program id changed)" : "");
	if (strcmp(section, "peak_buffers") == 0) {
		const char *ia = str(row, "instruction_a"), *ib = str(row, "instruction_b");
		const char *sa = str(row, "shape_a"), *sb = str(row, "shape_b");

		if (*ia && *ib && strcmp(ia, ib) != 0)
			return tp_xasprintf("%s>%s %s (%s)", ia, ib, *sb ? sb : sa, module);
		if (*sa && *sb && strcmp(sa, sb) != 0)
			return tp_xasprintf("%s %s>%s (%s)", *ib ? ib : ia, sa, sb, module);
		return tp_xasprintf("%s %s (%s)", *ib ? ib : ia, *sb ? sb : sa, module);
	}
	if (strcmp(section, "peak_scopes") == 0)
		return tp_xasprintf("%s: %s", module, str(row, "path"));
	if (strcmp(section, "op_scopes") == 0)
		return tp_xstrdup(str(row, "path"));
	if (strcmp(section, "ops") == 0)
		return tp_xasprintf("%s%s%s", module, *module ? ": " : "", str(row, "op"));
	return tp_xasprintf("%s%s%s", module, *module ? ": " : "", str(row, "collective"));
}

/* A headroom as memory prints it: free memory is an upper bound, cut
 * down (an overrun rounds as is). */
static const char *fmt_free(char *buf, size_t n, bool has, int64_t v)
{
	if (!has || v < 0)
		return fmt(buf, n, "B", has, v, false);
	return tp_fmt_bytes_down(buf, n, (uint64_t)v);
}

static void print_line(FILE *out, const char *what, const char *unit, const json_t *v,
		       const char *name, bool headroom)
{
	char a[48], b[48], d[48], p[16];
	bool ha, hb, hd;
	int64_t va = num(v, "a", &ha), vb = num(v, "b", &hb), vd = num(v, "delta", &hd);

	fprintf(out, "  %-11s %10s %10s %11s %8s", what,
		headroom ? fmt_free(a, sizeof(a), ha, va) : fmt(a, sizeof(a), unit, ha, va, false),
		headroom ? fmt_free(b, sizeof(b), hb, vb) : fmt(b, sizeof(b), unit, hb, vb, false),
		fmt(d, sizeof(d), unit, hd, vd, true),
		fmt_pct(p, sizeof(p), json_object_get(v, "percent")));
	/* the last column, whole: a name is given back as printed, and
	 * two rows never read alike */
	if (*name)
		fprintf(out, "  %s\n", name);
	else
		fputc('\n', out);
}

static void print_counts(FILE *out, const json_t *counts, size_t n_rows)
{
	static const char *const words[] = { "grew", "shrank", "appeared", "disappeared",
					     "unchanged" };
	const char *sep = ": ";

	fprintf(out, "  %zu row%s", n_rows, n_rows == 1 ? "" : "s");
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		json_int_t c = json_integer_value(json_object_get(counts, words[i]));

		if (c) {
			fprintf(out, "%s%lld %s", sep, (long long)c, words[i]);
			sep = ", ";
		}
	}
	fputc('\n', out);
}

static void print_section(FILE *out, const char *name, const char *group,
			  const json_t *sec, size_t limit)
{
	const json_t *rows = json_object_get(sec, "rows");
	const char *unit = str(sec, "unit");
	size_t n = json_array_size(rows), shown = 0, changed = 0;
	bool headroom = strcmp(name, "memory_cores_headroom") == 0;

	fprintf(out, "\n%s: %s\n", group, *str(sec, "title") ? str(sec, "title") : name);
	if (!n) {
		fputs("  nothing in A or B\n", out);
		return;
	}
	print_counts(out, json_object_get(sec, "counts"), n);
	fprintf(out, "  %-11s %10s %10s %11s %8s\n", "", "A", "B", "B - A", "%");
	print_line(out, total_word(str(sec, "total_is")), unit, json_object_get(sec, "totals"), "",
		   headroom);
	for (size_t i = 0; i < n; i++) {
		const json_t *row = json_array_get(rows, i);
		char *label;

		if (strcmp(str(row, "change"), "unchanged") == 0)
			continue;
		changed++;
		if (limit && shown >= limit)
			continue;
		label = row_name(name, row, rows);
		print_line(out, str(row, "change"), unit, row, label, headroom);
		free(label);
		shown++;
	}
	if (!changed)
		fputs("  no row changed\n", out);
	else if (shown < changed) {
		const json_t *next = json_array_get(rows, shown);
		char d[48];
		bool has;
		int64_t v = num(next, "delta", &has);

		fprintf(out, "  ... %zu more changed row%s, each by at most %s (--limit 0 shows all)\n",
			changed - shown, changed - shown == 1 ? "" : "s",
			fmt(d, sizeof(d), unit, true, v < 0 ? -v : v, false));
	}
}

enum tp_err tp_diff_write_text(FILE *out, const json_t *diff, size_t limit,
			       struct tp_error *err)
{
	const json_t *secs = json_object_get(diff, "sections");

	fprintf(out, "A  %s\nB  %s\n", str(diff, "a"), str(diff, "b"));
	fputs("changes are B - A; rows by absolute change, largest first; unchanged rows\n"
	      "are only counted (--format json lists every row)\n", out);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		print_section(out, sections[i].name, sections[i].group,
			      json_object_get(secs, sections[i].name), limit);
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
