/*
 * memory.h - where memory goes: the compiler's view of one HLO module
 * (XProf's memory viewer, format-facts §5) and the runtime allocator's view
 * of a device (XProf's memory profile, §6).
 *
 * Static (per module and memory space): replay the heap-simulator trace
 * with reference counts, add the indefinite allocations, and report the
 * heap curve, the peak, every buffer live at the peak, bytes by category
 * and by name scope, and what-if replays with a buffer split K ways.
 *
 * Runtime (per device memory): the allocator's bytes in use over time,
 * its peak and the allocations active at it (below).
 *
 * Ownership: a struct tp_mem_module owns its malloc'd arrays and its HLO
 * index; it borrows the module (and its HloProto in the capture's arena),
 * so the capture must outlive it. tp_mem_module_release() frees it.
 */
#ifndef TPUPROF_MEMORY_H
#define TPUPROF_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/analyze/common/selection.h"
#include "tpuprof/decode/capture.h"
#include "tpuprof/device/device.h"
#include "tpuprof/analyze/common/hlo_index.h"
#include "tpuprof/util/i64map.h"
#include "tpuprof/analyze/memory_why.h"
#include "tpuprof/analyze/common/scopes.h"
#include "tpuprof/util/strpool.h"

enum tp_mem_category {
	TP_MEM_PARAMETER,
	TP_MEM_OUTPUT,
	TP_MEM_THREAD_LOCAL,
	TP_MEM_CONSTANT,
	TP_MEM_TEMPORARY,
	TP_MEM_N_CATEGORIES
};

const char *tp_mem_category_name(enum tp_mem_category c);

/* One logical buffer placed in an allocation. */
struct tp_mem_buffer {
	int64_t id;                     /* LogicalBufferProto.id              */
	const Xla__LogicalBufferProto *lb;  /* borrowed                       */
	long instr;                     /* defining instruction (index), -1   */
	size_t allocation;              /* index into buffer_allocations      */
	int64_t offset;                 /* within the allocation              */
	uint64_t size;                  /* padded bytes (LogicalBuffer.size)  */
	uint64_t unpadded;              /* default-layout bytes               */
	const Xla__ShapeProto *shape;   /* display shape, borrowed; NULL      */
	long span_start, span_end;      /* program order; -1 when none        */
	unsigned owners;                /* allocations holding this id        */
	long ref;                       /* replay state                       */
	long canonical;                 /* replay state: shared-with buffer   */
};

/* One entry of the list of buffers live at the peak. */
struct tp_mem_live {
	long buffer;             /* index into buffers (the canonical one)     */
	long display;            /* buffer shown (a sharer), else = buffer     */
	uint64_t size, unpadded;
	enum tp_mem_category category;
	bool indefinite;         /* lives for the whole program                */
};

/* A what-if replay with one buffer's size divided by k. */
struct tp_mem_split {
	long buffer;             /* index into buffers                         */
	uint64_t k;
	uint64_t peak;           /* bytes, indefinite included                 */
	long peak_position;
	uint64_t saved;          /* old peak - new peak                        */
};

struct tp_memory;

/* One buffer of a --split what-if: split k ways along a dimension, it
 * becomes its largest part (docs/memory.md, "What if"). */
struct tp_mem_split_part {
	long buffer;             /* index into buffers                         */
	int dim;                 /* the dimension split                        */
	int64_t dim_size;        /* its elements                               */
	uint64_t k;
	int64_t part_elements;   /* ceil(dim_size / k): the largest part       */
	int64_t small_part_elements; /* floor(dim_size / k): the others when k
				      * does not divide dim_size, else = above */
	uint64_t bytes;          /* the buffer's bytes before                  */
	uint64_t part_bytes;     /* ceil(bytes * part_elements / dim_size)     */
};

struct tp_mem_module {
	struct tp_module *module;       /* borrowed                           */
	int64_t color;                  /* memory space                       */
	struct tp_hlo_index idx;
	char *error;                    /* malloc'd; why no timeline, or NULL  */
	struct tp_mem_buffer *buffers;  /* malloc'd                           */
	size_t n_buffers;
	struct tp_i64map by_id;         /* logical buffer id -> first record  */
	long trace;                     /* heap trace replayed, -1 if none    */
	long *ev_buffer, *ev_canonical; /* malloc'd: trace event -> buffer    */
	size_t n_points;                /* heap curve points (events + 1)     */
	uint64_t *heap;                 /* bytes before each event, + final   */
	uint64_t *heap_unpadded;
	const char **point_instr;       /* instruction of each event, borrowed */
	uint64_t indefinite_bytes;      /* added to every point and the peak  */
	uint64_t indefinite_alloc_bytes;/* all indefinite allocations         */
	uint64_t peak;                  /* heap peak + indefinite_bytes       */
	uint64_t peak_unpadded;
	long peak_position;             /* event index of the peak; 0 if none */
	uint64_t total_alloc_bytes;     /* all allocations of this color      */
	uint64_t entry_param_bytes, non_reusable_bytes, maybe_live_out_bytes;
	uint64_t by_category[TP_MEM_N_CATEGORIES]; /* bytes live at the peak  */
	struct tp_mem_live *live;       /* malloc'd: live at the peak         */
	size_t n_live;
	/* Outside HBM, XProf's list at the peak (live) leaves out the
	 * whole-program allocations its peak counts; they are listed here,
	 * one per allocation (its largest buffer, the allocation's bytes),
	 * so live + whole_program accounts for every byte of the peak.
	 * Empty for HBM, where live holds them. */
	struct tp_mem_live *whole_program; /* malloc'd                         */
	size_t n_whole_program;
	struct tp_scope_tree scopes;    /* bytes live at the peak by scope    */
	struct tp_mem_split *suggestions; /* malloc'd, best first             */
	size_t n_suggestions;
	struct tp_mem_split whatif;     /* --split result; buffer -1 if none:
					 * all the splits in one replay, buffer
					 * and k those of the first          */
	struct tp_mem_split_part *whatif_parts; /* malloc'd, --split order */
	size_t n_whatif_parts;
	struct tp_mem_why_data why;     /* last users, chains, groups         */
	/* the largest scoped allocation in this memory space (VMEM, 1), from
	 * backend_config's used_scoped_memory_configs; not in the peak      */
	uint64_t max_scoped_bytes;      /* 0 when none                        */
	long max_scoped_instr;          /* instruction index, -1 when none    */
};

/* Programs of GPU kernel lines counted already by another pass over
 * them (report: the ops pass, tp_ops_core.programs), sorted by line (the
 * address) and, within a line, in first-seen order: the memory analysis
 * takes a core's programs from these instead of reading those lines
 * again. Borrowed. */
struct tp_mem_line_program {
	const struct tp_line *line;     /* borrowed                           */
	uint64_t id, runs;              /* runs 0: the line had none          */
};
struct tp_mem_known_programs {
	const struct tp_mem_line_program *entries;
	size_t n;
};

struct tp_mem_split_spec;

struct tp_mem_options {
	int64_t color;                  /* memory space, 0 = HBM              */
	const struct tp_mem_split_spec *splits; /* --split, all in one what-if */
	size_t n_splits;
	size_t max_suggestions;         /* 5                                  */
	const struct tp_mem_known_programs *known; /* or NULL                */
	/* leave the hosts' pages resident at the end (the caller drops
	 * them): the analysis runs beside the ops pass, whose pages a drop
	 * of the whole host would make it fault in again */
	bool keep_pages;
};

/* Analyzes one decoded module. Returns TP_OK even when the module has no
 * buffer assignment or an inconsistent trace: m->error then says why its
 * timeline is missing. */
enum tp_err tp_mem_module_analyze(struct tp_mem_module *m,
				  struct tp_module *module,
				  const struct tp_mem_options *opt,
				  struct tp_error *err);
void tp_mem_module_release(struct tp_mem_module *m);

/* The category XProf gives an allocation (its group_name). */
enum tp_mem_category tp_mem_allocation_category(const Xla__BufferAllocationProto *a);
bool tp_mem_allocation_indefinite(const Xla__BufferAllocationProto *a);

/* Replays the chosen trace with buffer `split` (or -1) divided by k.
 * Fills peak (heap only, without indefinite bytes) and its position;
 * when `record` is true also fills the heap curve and the live list at
 * the peak. Internal to the memory analysis, exposed for tests. */
int tp_mem_replay(struct tp_mem_module *m, long split, uint64_t k,
		  bool record, uint64_t *peak, long *position);
/* The same with several buffers each replaced by its part (part_bytes). */
int tp_mem_replay_parts(struct tp_mem_module *m, const struct tp_mem_split_part *parts,
			size_t n_parts, bool record, uint64_t *peak, long *position);

/* --split NAME:K (the leading dimension) or NAME:DIM:K, as given. */
struct tp_mem_split_spec {
	const char *name;       /* a buffer as printed (tp_mem_resolve_name) */
	int dim;                /* -1: the leading dimension                 */
	uint64_t k;
};

/* Every --split in one replay per module that has the buffers named
 * (mem's modules analysed): fills whatif and whatif_parts. TP_ERR_USAGE
 * for a name that names nothing or several buffers (tp_mem_resolve_name),
 * a dimension the buffer does not have, or k above its size. */
enum tp_err tp_mem_whatif(struct tp_memory *mem, const struct tp_mem_split_spec *specs,
			  size_t n_specs, struct tp_error *err);

/* A buffer named on the command line: the module and the buffer. */
struct tp_mem_ref {
	size_t module;
	long buffer;
};
/* What NAME names among the buffers of mem's modules in their memory
 * space, the one syntax of --split and --why (docs/memory.md, "Naming a
 * buffer"): a name as `memory` prints it ("fusion.3", "copy-start.4{0}";
 * "copy-start.4{}" for a tuple itself), else a prefix of one such name
 * and of no other. A tuple's bare name ("copy-start.4") whose only other
 * buffer is one element names that element; then *taken (when taken is
 * not NULL) gets the element's name, malloc'd, else NULL. The same name
 * in several modules names each. Fills *out (malloc'd) and returns
 * TP_OK; TP_ERR_USAGE, naming option, when it names nothing (with the
 * names nearest it), or several names (with those: a tuple and its
 * elements, or the names it starts), or buffers only in another memory
 * space. */
enum tp_err tp_mem_resolve_name(const struct tp_memory *mem, const char *option,
				const char *name, struct tp_mem_ref **out, size_t *n,
				char **taken, struct tp_error *err);

/* ---- the whole `memory` analysis: modules, cores, runtime ---- */

/* ---- the runtime allocator's timeline per device memory ----
 * From MemoryAllocation / MemoryDeallocation events on /host:CPU
 * (format-facts §6, §11.8): bytes in use over absolute time, the peak
 * (heap + stack) and the allocations active at the peak. The result owns
 * its malloc'd arrays and the pool that holds its snapshots' strings
 * (copied, so the capture's pages can go once the analysis has read
 * them); it borrows only host indexes. */

struct tp_mem_snapshot {
	int64_t time_ps;          /* absolute (line timestamp + offset)      */
	int64_t offset_ps;        /* raw, line-relative (what XProf sorts)   */
	bool allocation;          /* else a deallocation                     */
	int64_t stack, heap, free;/* bytes_reserved, bytes_allocated, _available */
	int64_t peak_in_use;      /* peak_bytes_in_use as reported           */
	int64_t requested, allocated; /* requested_bytes, allocation_bytes   */
	double fragmentation;
	uint64_t address;
	int64_t step;             /* group_id; -1 when none, then fixed up   */
	int64_t data_type;        /* TF DataType number                      */
	struct tp_str tf_op, region, shape; /* pooled (tp_mem_runtime.pool) */
	size_t seq;               /* order met in the capture                 */
};

/* A row of the allocations active at the peak. */
struct tp_mem_active {
	long snapshot;            /* index into snapshots; -1 for specials    */
	const char *special;      /* "unused preallocated device memory", "stack" */
	int64_t bytes;            /* allocation bytes of the row              */
	uint64_t occurrences;     /* identical rows merged                    */
};

struct tp_mem_device {
	char *id;                 /* memory id: index_on_host, device_ordinal or allocator_name */
	size_t host;              /* index into the capture's hosts          */
	struct tp_mem_snapshot *snapshots; /* malloc'd, sorted by time_ps    */
	size_t n_snapshots, cap_snapshots;
	uint64_t allocations, deallocations;
	/* events whose stack, heap or free bytes are negative (a damaged
	 * capture): never the peak, their figures written as null */
	uint64_t damaged;
	bool has_peak;
	size_t peak_snapshot;     /* index of the peak snapshot (sorted)      */
	int64_t peak_bytes;       /* stack + heap at the peak                 */
	int64_t capacity;         /* stack + heap + free at the peak          */
	int64_t lifetime_peak;    /* the last event's peak_bytes_in_use       */
	int64_t peak_step;
	bool has_steps;           /* an event had a step (group_id): without
				   * any, peak_step 0 is no step at all     */
	struct tp_mem_active *active; /* malloc'd, sorted as XProf sorts      */
	size_t n_active;
};

struct tp_mem_runtime {
	struct tp_mem_device *devices; /* malloc'd, by host then memory id   */
	size_t n_devices, cap_devices;
	struct tp_strpool pool;        /* the snapshots' strings             */
};

/* Walks /host:CPU of every host. */
void tp_mem_runtime_build(struct tp_mem_runtime *rt, const struct tp_capture *cap);
void tp_mem_runtime_release(struct tp_mem_runtime *rt);
/* The runtime memory of a core (host index and its device plane): its
 * index in rt->devices, or -1; and its allocator's capacity (stack + heap
 * + free at the peak), or 0 when unknown. One mapping for memory and the
 * ops pass, so a core has one capacity in every command. */
long tp_mem_runtime_device_of(const struct tp_mem_runtime *rt, size_t host,
			      const struct tp_plane *pl);
uint64_t tp_mem_runtime_capacity_of(const struct tp_mem_runtime *rt, size_t host,
				    const struct tp_plane *pl);

/* Fills d->active (format-facts §6 step 6); called by the build. */
void tp_mem_active_at_peak(struct tp_mem_device *d);

/* TF DataType name ("float", "bfloat16"; "INVALID" for 0). */
const char *tp_tf_dtype_name(int64_t dtype);

/* A device core: which programs ran on it, its highest compiler peak,
 * its runtime peak and its capacity. */
struct tp_mem_core {
	size_t host;                    /* index into the capture's hosts     */
	const struct tp_plane *plane;   /* borrowed                           */
	uint64_t *programs;             /* malloc'd program ids that ran      */
	uint64_t *runs;                 /* executions of each                 */
	size_t n_programs;
	long top_module;                /* index into tp_memory.modules, -1   */
	long runtime;                   /* index into runtime.devices, -1     */
	uint64_t capacity;              /* bytes; 0 when unknown              */
	struct tp_device_figures device; /* capacity's source, peaks (device.h) */
};

struct tp_memory {
	int64_t color;                  /* memory space analysed; only HBM (0)
					 * is held to capacity and headroom   */
	struct tp_mem_module *modules;  /* malloc'd, one per program id       */
	size_t n_modules;
	struct tp_mem_core *cores;      /* malloc'd, device planes            */
	size_t n_cores;
	struct tp_mem_runtime runtime;
	char **warnings;                /* malloc'd lines                     */
	size_t n_warnings, cap_warnings;
	/* The device of programs that ran on no core of the capture (XLA
	 * dumps, HloProtos, which name no device): what --hbm or --device
	 * alone say; capacity.source TP_FIG_NONE when neither was given. */
	struct tp_device_figures loose_device;
};

struct tp_memory_filter {
	const char *host;               /* host name, or NULL                 */
	const char *core;               /* "/device:TPU:0", "TPU:0" or "0"    */
	const char *module;             /* module name or program id          */
	uint64_t hbm;                   /* capacity override, 0 = from planes */
	const struct tp_device_row *device; /* --device, NULL = detected     */
	/* the hosts, cores and modules to read, made once by a driver that
	 * runs several analyses (report); NULL: made from host, core and
	 * module. Borrowed. */
	const struct tp_selection *selection;
};

/* Runs the analysis over a capture. Decodes the modules it needs (so it
 * can fail with TP_ERR_INPUT); a filter that matches nothing is
 * TP_ERR_USAGE. On failure mem is left released. */
enum tp_err tp_memory_build(struct tp_memory *mem, struct tp_capture *cap,
			    const struct tp_mem_options *opt,
			    const struct tp_memory_filter *filter,
			    struct tp_error *err);
/* The same in two parts, for a driver that runs the first beside other
 * work: the programs (modules, what-ifs, the runtime allocator's
 * events), then the cores (the programs each ran, with opt->known, their
 * figures and the warnings). Each leaves mem released on failure. */
enum tp_err tp_memory_build_programs(struct tp_memory *mem, struct tp_capture *cap,
				     const struct tp_mem_options *opt,
				     const struct tp_memory_filter *filter,
				     struct tp_error *err);
enum tp_err tp_memory_build_cores(struct tp_memory *mem, struct tp_capture *cap,
				  const struct tp_mem_options *opt,
				  const struct tp_memory_filter *filter,
				  struct tp_error *err);
void tp_memory_release(struct tp_memory *mem);

/* Whether every device line the analysis reads (its cores' programs) is
 * scanned already, so that reading it writes nothing: then it may run
 * beside another pass over the same capture's other lines. */
bool tp_memory_lines_scanned(const struct tp_capture *cap);

/* A core's headroom: capacity less the larger of its compiler and
 * runtime peaks, in bytes (negative when over) and percent of capacity.
 * HBM only: another memory space is not held to the HBM capacity. */
struct tp_mem_headroom {
	uint64_t peak;                  /* the larger peak                    */
	int64_t bytes;
	double percent;
};
/* False (bytes and percent 0) when the core's capacity is unknown, or
 * the memory space analysed is not HBM. */
bool tp_mem_core_headroom(const struct tp_memory *mem, const struct tp_mem_core *c,
			  struct tp_mem_headroom *h);

/* A module's capacity and headroom: the smallest capacity of the cores
 * that ran it, else (it ran on none: a dump, an HloProto) the one --hbm
 * or --device give (mem->loose_device). Fills *capacity (0 unknown) and
 * *device (the figures it came from, or NULL); false when unknown. */
bool tp_mem_module_headroom(const struct tp_memory *mem, const struct tp_mem_module *m,
			    struct tp_mem_headroom *h, uint64_t *capacity,
			    const struct tp_device_figures **device);

#endif
