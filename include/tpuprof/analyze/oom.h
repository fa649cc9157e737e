/*
 * oom.h - `tpuprof oom`: the out-of-memory reports XLA prints (TPU compile
 * and run time, XLA:GPU, the BFC allocator; ../shared/docs/oom-facts.md),
 * found in any text (log prefixes, tracebacks, progress bars, Markdown
 * damage, collapsed or wrapped lines), read into their figures, and
 * explained: the verdict, where the memory goes, the listed allocations
 * with their layouts, roll-ups and what to cut (docs/oom.md).
 *
 * The reader is a stream: tp_oom_feed() takes the text in any pieces and
 * keeps only the reports' own lines (each at most TP_OOM_REPORT_MAX
 * bytes), so a multi-GB log costs the memory of its reports. A figure is
 * set only when it is printed; derived ones are named as such.
 *
 * Ownership: a struct tp_oom_log owns its reports and all their strings
 * (malloc'd); tp_oom_log_release() frees them.
 */
#ifndef TPUPROF_OOM_H
#define TPUPROF_OOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/device/device.h"
#include "tpuprof/analyze/common/scopes.h"

/* Most bytes of one report's text kept (a longer one is cut there and
 * says so); most reports kept per log. */
#define TP_OOM_REPORT_MAX (4u << 20)
#define TP_OOM_REPORTS_MAX 1000

/* A size as printed: "17.60G", "0B", "6.00MiB", "6,532,939,776 bytes". */
struct tp_oom_size {
	bool present;     /* printed                                       */
	bool unknown;     /* printed as "unknown" / "unknown size"          */
	bool exact;       /* an exact byte count (no rounding)              */
	int64_t bytes;    /* the value, rounded to a byte                   */
	int64_t half_unit; /* half the unit of the last printed digit: the
			    * printed value is bytes +- half_unit            */
	char text[40];    /* as printed                                    */
};

/* Every figure a report can print, by name (its JSON key). */
enum tp_oom_fig {
	TP_OOM_USED, TP_OOM_CAPACITY, TP_OOM_EXCEEDED,
	TP_OOM_TOTAL_USAGE, TP_OOM_RESERVED, TP_OOM_PROGRAM, TP_OOM_ARGUMENTS,
	TP_OOM_HEAP_ALLOCATIONS,
	TP_OOM_OUTPUT, TP_OOM_OUTPUT_SHARES,
	TP_OOM_PROGRAM_REQUIREMENT, TP_OOM_PROGRAM_RESERVED, TP_OOM_GLOBAL,
	TP_OOM_SCOPED, TP_OOM_HLO_TEMP, TP_OOM_OVERLAYS,
	TP_OOM_HLO_TEMP_UNPADDED, TP_OOM_HLO_TEMP_PADDED, TP_OOM_HLO_TEMP_FRAGMENTATION,
	TP_OOM_REQUEST, TP_OOM_FREE, TP_OOM_RESERVED_NOW, TP_OOM_RESERVABLE,
	TP_OOM_LARGEST_FREE_REGION,
	TP_OOM_TOP_OF_MEMORY_RESERVED, TP_OOM_CURRENTLY_ALLOCATED,
	TP_OOM_RUNTIME_PROGRAM_REQUIREMENT, TP_OOM_AVAILABLE_AFTER_REQUEST,
	TP_OOM_MAX_FREE_CHUNK, TP_OOM_PERSISTENT_ARGUMENTS, TP_OOM_PERSISTENT_OUTPUT,
	TP_OOM_BA_PARAMETER, TP_OOM_BA_CONSTANT, TP_OOM_BA_MAYBE_LIVE_OUT,
	TP_OOM_BA_PREALLOCATED_TEMP, TP_OOM_BA_TOTAL, TP_OOM_BA_TOTAL_FRAGMENTATION,
	TP_OOM_BFC_ROUNDED, TP_OOM_BFC_IN_USE_CHUNKS, TP_OOM_BFC_LIMIT,
	TP_OOM_BFC_IN_USE, TP_OOM_BFC_MAX_IN_USE,
	TP_OOM_TENSORCORE_USAGE, TP_OOM_SPARSECORE_USAGE,
	TP_OOM_FIG_N
};
/* "used", "capacity", ... (the JSON keys, docs/json.md). */
const char *tp_oom_fig_name(enum tp_oom_fig f);

/* Percentages as printed. */
enum tp_oom_pct {
	TP_OOM_PCT_HLO_TEMP_UTILIZATION, TP_OOM_PCT_HLO_TEMP_FRAGMENTATION,
	TP_OOM_PCT_HEAP_FRAGMENTATION, TP_OOM_PCT_PERSISTENT_ARGUMENTS_UTILIZATION,
	TP_OOM_PCT_PERSISTENT_OUTPUT_UTILIZATION, TP_OOM_PCT_BA_TOTAL_FRAGMENTATION,
	TP_OOM_PCT_N
};
const char *tp_oom_pct_name(enum tp_oom_pct p);

enum tp_oom_kind { TP_OOM_COMPILE, TP_OOM_RUNTIME, TP_OOM_GPU };
/* "compile", "runtime", "gpu" */
const char *tp_oom_kind_name(enum tp_oom_kind k);

/* A part of the `Total hbm usage` block, in printed order. */
struct tp_oom_part {
	char *name;
	struct tp_oom_size size;
};

/* One dimension of a listed shape, as the layout stores it. */
struct tp_oom_dim {
	int64_t size;      /* logical                                    */
	int64_t padded;    /* rounded up to the tile (= size when none)  */
	int tile;          /* the tile extent applied to it, 0 = none    */
	int minor_rank;    /* 0 = most minor, 1 = second most minor, ... */
};

/* The shape text read: element type, dimensions, layout, first tile. */
#define TP_OOM_MAX_DIMS 16
struct tp_oom_layout {
	bool parsed;             /* an array shape with a layout read        */
	char dtype[16];
	int elem_bits;           /* 0 when the type is unknown               */
	int n_dims;
	struct tp_oom_dim dims[TP_OOM_MAX_DIMS];
	int64_t tile[2];         /* first tile T(a,b); 0 when none           */
	int n_tile;
	char tiles[48];          /* every tile as printed: "T(8,128)(2,1)"   */
	int64_t padded_bytes;    /* derived: elements rounded to the tile    */
	int64_t unpadded_bytes;  /* derived: elements x element bytes        */
};

struct tp_oom_alloc {
	int rank;                        /* the printed number N          */
	struct tp_oom_size size, unpadded, padding;
	double expansion;                /* printed "(12.6x expansion)"   */
	bool has_expansion;
	char *operator_text, *op_type, *op_name, *source_file;
	int64_t source_line;             /* -1 when not printed           */
	char *shape, *xla_label, *xla_label_name, *allocation_type;
	char *entry_parameter_subshape;  /* XLA:GPU peak buffers          */
	char *remat_of;                  /* label name without .remat<N>  */
	struct tp_oom_layout layout;
	bool closed;                     /* its "=====" line is printed    */
};

/* One report, as printed (figures) and as explained (the rest). */
struct tp_oom_report {
	enum tp_oom_kind kind;
	int64_t line;                 /* 1-based line of the headline      */
	char *memory_space;           /* "hbm", "vmem"; NULL for GPU       */
	char *error_code, *error_name; /* "E1000", "CompileTimeHbmOom"     */
	char *runtime_op;             /* "reserve", "allocate"             */
	char *device;                 /* "0x0x0_HBM0"                      */
	int64_t device_ordinal;       /* -1 when not printed               */
	char *allocations_memory_space;
	char *log_prefixes[5];        /* kinds seen: "glog", "tf-timestamp",
				       * "ray", "rank", "quote"             */
	int n_log_prefixes;
	bool text_cut;                /* longer than TP_OOM_REPORT_MAX      */
	bool early_abort;             /* "Requires X, has Y available": XLA
				       * prints no breakdown after it        */
	bool headless;                /* no headline in the text: a paste
				       * that starts at a later part, so
				       * used, capacity and the overage are
				       * not printed                         */
	char *program_name;           /* E0101 "Error loading program 'P'" */
	struct tp_oom_size fig[TP_OOM_FIG_N];
	bool unread[TP_OOM_FIG_N];    /* its line printed, its figure not
				       * readable (a lost number or unit):
				       * missing[] names it               */
	double pct[TP_OOM_PCT_N];
	bool has_pct[TP_OOM_PCT_N];
	struct tp_oom_part *total_parts;
	size_t n_total_parts;
	struct tp_oom_alloc *allocs;
	size_t n_allocs;
	char *text;                   /* the report's lines, normalized    */
	size_t text_len;
};

struct tp_oom_log {
	struct tp_oom_report *reports;
	size_t n, cap;
	bool reports_dropped;         /* more than TP_OOM_REPORTS_MAX       */
	int64_t lines;                /* lines read                         */
	struct tp_oom_reader *reader; /* private: the stream state          */
};

void tp_oom_log_init(struct tp_oom_log *log);
/* Feeds the next piece of text (any split, NUL bytes allowed). */
void tp_oom_feed(struct tp_oom_log *log, const char *buf, size_t n);
/* Ends the text: the last report is closed and every report parsed. */
void tp_oom_finish(struct tp_oom_log *log);
void tp_oom_log_release(struct tp_oom_log *log);

/* Parses one report's normalized text (the reader calls it; the fuzz
 * target too). text is borrowed; r is filled (release with
 * tp_oom_report_release). */
void tp_oom_parse_report(struct tp_oom_report *r, const char *text, size_t len);
void tp_oom_report_release(struct tp_oom_report *r);

/* Reads a size at s (after blanks) as XLA prints it: "528.00M", "0B",
 * "-2.55G", "6.00MiB", "6,532,939,776 bytes", "unknown size". Returns
 * its end, or NULL when s holds no size. */
const char *tp_oom_size_read(const char *s, const char *end, struct tp_oom_size *out);

/* Reads a shape's text into its layout (tp_oom_parse_report calls it). */
void tp_oom_layout_read(struct tp_oom_layout *l, const char *shape);

/* ---- the explanation (src/analyze/oom/oom_explain.c) ---- */

/* A row of a roll-up (by op type or by allocation type). */
struct tp_oom_group {
	char *name;
	int64_t bytes, padding;
	size_t count;
};

/* The chip a report ran on, where it can be told. */
struct tp_oom_chip {
	const struct tp_device_row *rows[8]; /* candidates, best first     */
	size_t n_rows;
	bool forced;              /* --device                             */
	int64_t device_bytes;     /* HBM of one device of the first row    */
	char basis[200];          /* how it was told                       */
	/* --device whose HBM per device is none of the chips the printed
	 * capacity tells: those chips (else n_printed is 0) */
	const struct tp_device_row *printed_rows[8];
	size_t n_printed;
	int64_t printed_bytes;    /* HBM of one device of the first        */
	char printed_basis[200];  /* how the capacity tells them           */
};

/* A split of one listed allocation along a dimension (memory --split). */
struct tp_oom_split {
	size_t alloc;             /* index into allocs                     */
	int dim;                  /* the dimension split (logical index)   */
	int64_t ways;             /* N                                     */
	int64_t saves;            /* what memory --split NAME:DIM:N frees:
				   * size less its largest part, size x
				   * ceil(d / N) / d rounded up            */
};

/* A layout of a padded allocation's shape that its first tile pads less:
 * the two dimensions made the most minor (derived from the shape). */
struct tp_oom_relayout {
	size_t alloc;             /* index into allocs                     */
	int minor, second;        /* logical dimensions: most minor, next   */
	int64_t padded_bytes;     /* derived size with them                 */
	int64_t saves;            /* layout.padded_bytes - padded_bytes     */
};

/* What decides a report, in the order the verdict names it: a fixed
 * buffer that alone exceeds the capacity (no cut to temporaries helps),
 * the fixed buffers together, else the program's temporaries; at run
 * time, fragmentation (the request fits the free total, not one region). */
enum tp_oom_cause {
	TP_OOM_CAUSE_UNKNOWN, TP_OOM_CAUSE_ARGUMENTS, TP_OOM_CAUSE_OUTPUT,
	TP_OOM_CAUSE_RESERVED, TP_OOM_CAUSE_FIXED, TP_OOM_CAUSE_TEMPORARIES,
	TP_OOM_CAUSE_FRAGMENTATION,
};
/* "unknown", "arguments", "output", "runtime_reservation",
 * "arguments_and_output", "temporaries", "fragmentation" */
const char *tp_oom_cause_name(enum tp_oom_cause c);

/* The budget of a compile-time report: what is held against the
 * capacity, in printed figures (the HTML page's bar). */
struct tp_oom_budget_part {
	enum tp_oom_fig fig;      /* the figure (output: less what it shares) */
	int64_t bytes;
};
struct tp_oom_budget {
	size_t n;                 /* 0: no breakdown printed               */
	struct tp_oom_budget_part parts[8]; /* reservation, arguments,
				   * output, program parts, in that order  */
	int64_t line;             /* the capacity, plus the reservation
				   * where the capacity leaves it out      */
	int64_t total;            /* sum of the parts                      */
};

struct tp_oom_explain {
	const struct tp_oom_report *r;  /* borrowed                      */
	struct tp_oom_budget budget;
	/* verdict */
	bool has_over;            /* over_by known                         */
	bool under_forced_chip;   /* headless: the printed total usage is
				   * within the --device chip's HBM, so no
				   * overage can be derived from it      */
	int64_t over_by;          /* exceeded, or derived (run time)       */
	bool over_derived;        /* computed, not printed                 */
	const char *over_source;  /* the figures it comes from (static):
				   * "exceeded", "used - capacity",
				   * "available_after_request", "request -
				   * largest_free_region", ...; NULL if none */
	bool has_over_alt;        /* a second figure of the report gives
				   * another overage (shown, not used)     */
	int64_t over_alt;
	const char *over_alt_source; /* static                              */
	enum tp_oom_cause cause;
	int64_t cause_bytes;      /* the decisive figure (arguments, ...)  */
	int64_t cause_capacity;   /* what the cause is weighed against:
				   * capacity, or for a headless paste with
				   * --device the device's HBM less the
				   * printed reserved; -1 when none        */
	bool cause_on_device;     /* cause_capacity is the --device chip's */
	int64_t fixed_bytes;      /* arguments + output not shared with
				   * them (+ the reservation where the
				   * capacity includes it); -1 unknown     */
	int64_t temporaries_bytes; /* HLO temp (else the program), -1 unknown */
	bool temporaries_can_fix; /* over_by <= temporaries_bytes          */
	int64_t fixed_cut;        /* lower bound on what must come from the
				   * fixed buffers (0 when temporaries can
				   * fix it)                               */
	struct tp_oom_chip chip;
	/* the listed allocations */
	int64_t listed_bytes, listed_padding;
	double listed_share_of_over; /* listed_bytes / over_by; 0 if none  */
	size_t cover_count;       /* largest source ops that cover over_by;
				   * 0 when the list does not cover it     */
	size_t n_sources;         /* source ops (remat copies once)        */
	struct tp_scope_tree scopes;
	struct tp_oom_group *op_types, *alloc_types;
	size_t n_op_types, n_alloc_types;
	size_t cover_scope;       /* deepest scope node covering over_by,
				   * SIZE_MAX when none                    */
	size_t cover_scopes[8];   /* the fewest scopes, none inside another,
				   * that together cover over_by (largest
				   * first); just cover_scope when one does */
	size_t n_cover_scopes;    /* 0 when the listed scopes do not reach
				   * over_by in eight                      */
	struct tp_oom_split splits[8];
	size_t n_splits;
	struct tp_oom_relayout relayouts[8];   /* the largest savings      */
	size_t n_relayouts;
	const char *missing[16];  /* what a cut report lacks (static names) */
	size_t n_missing;
};

/* device: --device, or NULL (inferred from the printed capacity). */
void tp_oom_explain(struct tp_oom_explain *e, const struct tp_oom_report *r,
		    const struct tp_device_row *device);
void tp_oom_explain_release(struct tp_oom_explain *e);

/* Bytes of one device of a row: per core on chips whose cores are
 * separate devices (v2, v3), per chip elsewhere. */
int64_t tp_oom_device_bytes(const struct tp_device_row *row);

#endif
