/*
 * memory_why.h - why a buffer is live: its last user, the data-flow chain
 * from its defining instruction to that user, and how long it waits after
 * the peak (docs/memory.md, "Why is it live").
 *
 * The last user is the instruction whose execution ends the buffer's
 * life. It is found in the HLO, not in the heap trace (XLA names a FREE
 * event after the buffer's own defining instruction): the buffer's value
 * is followed through the instructions that alias it without a copy
 * (get-tuple-element, tuple, bitcast, copy-start/copy-done and the other
 * async pairs, the parameters and roots of while, conditional, call,
 * fusion and async computations), and every instruction holding or
 * reading it is placed in program order: the module's schedule flattened
 * XLA's way (a called computation's instructions just before its caller),
 * or the heap trace's order where the module has no schedule.
 *
 * Ownership: everything here is malloc'd and belongs to the struct
 * tp_mem_module it is part of; tp_mem_module_release() frees it.
 */
#ifndef TPUPROF_MEMORY_WHY_H
#define TPUPROF_MEMORY_WHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/util/error.h"
#include "tpuprof/util/i64map.h"
#include "tpuprof/analyze/common/scopes.h"
#include "tpuprof/util/strbuf.h"

/* Deepest tuple index followed; values nested deeper are not followed
 * further (real HLO nests two or three levels). */
#define TP_MEM_INDEX_MAX 6

/* How a step of the chain holds the value. */
enum tp_mem_step_role {
	TP_STEP_DEFINES,        /* the defining instruction               */
	TP_STEP_ALIASES,        /* holds the same bytes (no copy)         */
	TP_STEP_READS,          /* reads it (an operand use)              */
};

struct tp_mem_step {
	long instr;             /* instruction index (tp_hlo_index)       */
	enum tp_mem_step_role role;
	int operand;            /* operand number it arrives by, -1       */
	int64_t index[TP_MEM_INDEX_MAX]; /* where in its output, ALIASES */
	int depth;              /* entries used in index                  */
};

/* Where program positions come from. */
enum tp_mem_order {
	TP_ORDER_SCHEDULE,      /* HloModuleProto.schedule                */
	TP_ORDER_HEAP_TRACE,    /* first appearance in the heap trace     */
	TP_ORDER_INSTRUCTIONS,  /* computation order (operands first)     */
};

/* The answer for one logical buffer. */
struct tp_mem_why {
	const char *kind;       /* "temporary", "parameter", "output",
				 * "constant", "thread_local"; static    */
	long buffer;            /* the logical buffer asked about         */
	long value;             /* buffer whose last user ends the memory's
				 * life (buffer, or one sharing it)       */
	long last_user;         /* instruction index, -1 when none        */
	long last_user_position;/* program position, -1 when unknown      */
	struct tp_mem_step *chain; /* malloc'd, defining instruction first */
	size_t n_chain;
	bool has_wait;
	long wait;              /* last_user_position - peak position     */
	bool reaches_output;    /* flows to the entry computation's ROOT  */
	bool cut_short;         /* the walk hit its size bound            */
	char *note;             /* malloc'd one line, or NULL             */
};

/* Bytes at the peak waiting for one last user. */
struct tp_mem_user_group {
	long last_user;         /* instruction index                      */
	long position, wait;    /* -1 / 0 when unknown (has_wait false)   */
	bool has_wait;
	uint64_t bytes;
	size_t buffers;
};

/* The module-wide tables the walks share, and the results. */
struct tp_mem_why_data {
	bool built;
	enum tp_mem_order order;
	long *time;             /* per instruction: program position, -1  */
	bool *own_time;         /* scheduled itself, not through a caller */
	long peak_position;     /* program position of the peak, -1      */
	size_t *user_start;     /* CSR: users of instruction k            */
	long *user_instr;
	int *user_operand;
	size_t *caller_start;   /* CSR: instructions calling computation c */
	long *caller_instr;
	long *comp_root;        /* per computation: ROOT instruction, -1  */
	struct tp_i64map comp_by_id;  /* computation id -> index           */
	struct tp_i64map params;      /* (computation, number) -> instr    */
	struct tp_mem_why *live;      /* parallel to tp_mem_module.live    */
	struct tp_mem_user_group *groups; /* largest bytes first          */
	size_t n_groups;
	struct tp_scope_tree user_scopes; /* peak bytes by last user's scope */
};

struct tp_mem_module;

/* Builds the tables, answers every buffer live at the peak and groups
 * them by last user. Called by tp_mem_module_analyze(). */
void tp_mem_why_build(struct tp_mem_module *m);
void tp_mem_why_release(struct tp_mem_module *m);

/* The answer for any logical buffer (index into m->buffers), live at
 * the peak or not. *out owns malloc'd parts: tp_mem_why_clear(). */
void tp_mem_why_buffer(const struct tp_mem_module *m, long buffer,
		       struct tp_mem_why *out);
void tp_mem_why_clear(struct tp_mem_why *w);

/* The buffer's name as XProf's memory viewer writes it: the defining
 * instruction's name, then "{i,j}" when the buffer is an element of its
 * tuple output ("fusion.3{1}"); "?" without an instruction. */
void tp_mem_buffer_name(struct tp_strbuf *sb, const struct tp_mem_module *m,
			long buffer);

/* The buffers named NAME ("fusion.3" or "fusion.3{1}") in the module's
 * memory space, in buffer order, into out (malloc'd, caller frees).
 * *other_space counts buffers of that name in other memory spaces. */
size_t tp_mem_find_named(const struct tp_mem_module *m, const char *name,
			 long **out, size_t *other_space);

/* The usage error for a --why NAME that matched nothing, after
 * searching `searched` modules (other_space: matches in other memory
 * spaces). Returns TP_ERR_USAGE. */
enum tp_err tp_mem_why_missing(const char *name, size_t searched, size_t other_space,
			       struct tp_error *err);

/* Index into m->live of the entry showing or holding buffer b, or -1. */
long tp_mem_live_index(const struct tp_mem_module *m, long buffer);

#endif
