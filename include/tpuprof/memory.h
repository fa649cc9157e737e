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
 * Ownership: a struct tp_mem_module owns its malloc'd arrays and its HLO
 * index; it borrows the module (and its HloProto in the capture's arena),
 * so the capture must outlive it. tp_mem_module_release() frees it.
 */
#ifndef TPUPROF_MEMORY_H
#define TPUPROF_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/capture.h"
#include "tpuprof/hlo_index.h"
#include "tpuprof/i64map.h"
#include "tpuprof/memory_why.h"
#include "tpuprof/scopes.h"

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
	struct tp_scope_tree scopes;    /* bytes live at the peak by scope    */
	struct tp_mem_split *suggestions; /* malloc'd, best first             */
	size_t n_suggestions;
	struct tp_mem_split whatif;     /* --split result; buffer -1 if none  */
	struct tp_mem_why_data why;     /* last users, chains, groups         */
};

struct tp_mem_options {
	int64_t color;                  /* memory space, 0 = HBM              */
	const char *split_instr;        /* --split INSTRUCTION:K, or NULL     */
	uint64_t split_k;
	size_t max_suggestions;         /* 5                                  */
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


/* ---- the whole `memory` analysis: modules, cores, runtime ---- */

#include "tpuprof/memory_runtime.h"

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
};

struct tp_memory {
	struct tp_mem_module *modules;  /* malloc'd, one per program id       */
	size_t n_modules;
	struct tp_mem_core *cores;      /* malloc'd, device planes            */
	size_t n_cores;
	struct tp_mem_runtime runtime;
	char **warnings;                /* malloc'd lines                     */
	size_t n_warnings, cap_warnings;
};

struct tp_memory_filter {
	const char *host;               /* host name, or NULL                 */
	const char *core;               /* "/device:TPU:0", "TPU:0" or "0"    */
	const char *module;             /* module name or program id          */
	uint64_t hbm;                   /* capacity override, 0 = from planes */
};

/* Runs the analysis over a capture. Decodes the modules it needs (so it
 * can fail with TP_ERR_INPUT); a filter that matches nothing is
 * TP_ERR_USAGE. On failure mem is left released. */
enum tp_err tp_memory_build(struct tp_memory *mem, struct tp_capture *cap,
			    const struct tp_mem_options *opt,
			    const struct tp_memory_filter *filter,
			    struct tp_error *err);
void tp_memory_release(struct tp_memory *mem);

#endif
