/*
 * diff_internal.h - what diff.c and the section files (diff_memory.c,
 * diff_time.c, diff_step_parts.c, diff_device.c) share: a
 * set of rows keyed by a label, each with up to DIFF_METRICS values per
 * side, and the readers that take values out of report documents.
 *
 * Ownership: a diff_set owns its entries (keys and labels); diff_section
 * borrows the set and returns a new reference.
 */
#ifndef TPUPROF_DIFF_INTERNAL_H
#define TPUPROF_DIFF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#define DIFF_METRICS 4
enum { DIFF_A = 0, DIFF_B = 1 };

struct diff_entry {
	json_t *keys;                /* the row's naming fields; owned    */
	char *label;                 /* index key and tie-break; malloc'd */
	size_t seq;                  /* insertion order, last tie-break   */
	int64_t v[2][DIFF_METRICS];  /* summed values per side            */
	bool has[2][DIFF_METRICS];   /* present on that side              */
};

struct diff_set {
	json_t *index;               /* label -> entry number; owned      */
	struct diff_entry *v;        /* malloc'd                          */
	size_t n, cap;
};

/* What a section's total is (its `total_is`, docs/json.md). A peak or a
 * headroom is never summed over cores or programs: its total is the worst
 * row on each side. */
enum diff_total_rule {
	DIFF_TOTAL_SUM = 0,     /* the rows summed                           */
	DIFF_TOTAL_LARGEST,     /* the largest row (a peak: the worst core)  */
	DIFF_TOTAL_SMALLEST,    /* the smallest row (headroom: worst core)   */
	DIFF_TOTAL_ROOT,        /* given: a scope tree's root                */
	DIFF_TOTAL_WEIGHTED,    /* given: all cores together, by device time */
};

/* Totals of a section: given by the caller (set: tree roots, weighted
 * utilization), else computed from the rows by rule. */
struct diff_total {
	bool set;
	enum diff_total_rule rule;
	bool has[2];
	int64_t v[2];
};

void diff_set_init(struct diff_set *s);
void diff_set_release(struct diff_set *s);
/* The entry for label, created with keys (stolen) when new; when it
 * exists, keys are dropped. */
struct diff_entry *diff_set_get(struct diff_set *s, const char *label, json_t *keys);
/* Always a new entry (rows matched by the caller). keys stolen. */
struct diff_entry *diff_set_add(struct diff_set *s, const char *label, json_t *keys);
/* Adds v (saturating) to the metric on one side and marks it present. */
void diff_entry_add(struct diff_entry *e, int side, int metric, int64_t v);

/* The section object of one metric: unit, total_is, totals, counts, rows
 * sorted by absolute delta. extra_name, when not NULL, adds <extra_name>_a
 * and <extra_name>_b from metric `extra`. total NULL: row sums; unset:
 * computed from the rows by its rule. */
json_t *diff_section(const struct diff_set *s, int metric, const char *unit,
		     int extra, const char *extra_name, const struct diff_total *total);

/* Readers of report documents, lenient: a missing or mistyped field reads
 * as absent (false) or "". Integers may be numbers or decimal strings. */
bool diff_int(const json_t *obj, const char *key, int64_t *out);
const char *diff_str(const json_t *obj, const char *key);
json_t *diff_path(const json_t *doc, const char *a, const char *b); /* borrowed */
/* key parts joined by 0x1f into a malloc'd label */
char *diff_label(const char *a, const char *b);
/* The row of core c (an ops or memory cores[] entry: host and plane). */
struct diff_entry *diff_core_entry(struct diff_set *s, const json_t *c);

void diff_memory(json_t *sections, const json_t *a, const json_t *b);
void diff_time(json_t *sections, const json_t *a, const json_t *b);
/* Each core's mean steady step by part (diff_step_parts.c). */
void diff_step_parts(json_t *sections, const json_t *a, const json_t *b);
/* Headroom and FLOP utilization per core (diff_device.c). */
void diff_device(json_t *sections, const json_t *a, const json_t *b);

#endif
