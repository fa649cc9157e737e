/*
 * hlo_index.h - lookups over one decoded HLO module: instructions by id
 * and by name, computations by id, which fusion holds an instruction,
 * the entry computation, and source locations.
 *
 * Ownership: the index borrows the HloProto (which lives in the capture's
 * arena) and owns only its own malloc'd tables; tp_hlo_index_release()
 * frees them. Build it once per module and analysis.
 */
#ifndef TPUPROF_HLO_INDEX_H
#define TPUPROF_HLO_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlo.pb-c.h"
#include "tpuprof/util/util.h"

struct tp_hlo_instr {
	const Xla__HloInstructionProto *proto;
	const Xla__HloComputationProto *computation; /* holds this one    */
	const Xla__HloComputationProto *called;      /* fused body, calls */
	long fusion;       /* fusion whose body holds this, -1; hostile input
			    * can make these links cycle: bound any walk
			    * up the chain by n_instrs */
	size_t comp_index; /* index of computation in the module        */
};

struct tp_hlo_map {      /* open addressing; values are index + 1 */
	uint64_t *hashes;
	uint32_t *values;
	size_t cap;
};

struct tp_hlo_index {
	const Xla__HloProto *hlo;                 /* borrowed              */
	const Xla__HloModuleProto *module;        /* borrowed, never NULL  */
	const Xla__HloComputationProto *entry;    /* NULL when not found   */
	struct tp_hlo_instr *instrs;              /* malloc'd, module order */
	size_t n_instrs;
	struct tp_hlo_map by_id, by_name, comp_by_id;
};

/* Builds the index; an HloProto without a module gives an empty index. */
void tp_hlo_index_build(struct tp_hlo_index *idx, const Xla__HloProto *hlo);
void tp_hlo_index_release(struct tp_hlo_index *idx);

/* Lookups; NULL (or -1) when absent. */
long tp_hlo_find_id(const struct tp_hlo_index *idx, int64_t id);
long tp_hlo_find_name(const struct tp_hlo_index *idx, struct tp_str name);
const Xla__HloComputationProto *tp_hlo_computation(const struct tp_hlo_index *idx,
						   int64_t id);

/* Index in idx->instrs of comp's first instruction, -1 when comp is not
 * one of the module's computations. The index lists instructions in
 * module order, computation after computation, so a module with repeated
 * instruction ids still lists every instruction. */
long tp_hlo_first_instr(const struct tp_hlo_index *idx,
			const Xla__HloComputationProto *comp);

/* Source "file" and line of an instruction: metadata.source_file, else the
 * first frame of its stack (stack_frame_id into the module's
 * stack_frame_index). False when neither is known. */
bool tp_hlo_source(const struct tp_hlo_index *idx,
		   const Xla__HloInstructionProto *ins, const char **file,
		   int *line);

/* The name-scope path (metadata.op_name), "" when none. */
const char *tp_hlo_scope(const Xla__HloInstructionProto *ins);

#endif
