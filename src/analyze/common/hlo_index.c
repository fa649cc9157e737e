/*
 * hlo_index.c - lookup tables over an HLO module (see hlo_index.h).
 *
 * Keys are hashed to 64 bits and the candidate is confirmed against the
 * instruction itself, so the tables hold no copies of names.
 */
#include "tpuprof/analyze/common/hlo_index.h"

#include <stdlib.h>
#include <string.h>

static void map_init(struct tp_hlo_map *m, size_t n)
{
	m->cap = 16;
	while (m->cap < 2 * n)
		m->cap *= 2;
	m->hashes = tp_xzalloc(m->cap, sizeof(*m->hashes));
	m->values = tp_xzalloc(m->cap, sizeof(*m->values));
}

static void map_put(struct tp_hlo_map *m, uint64_t h, size_t value)
{
	size_t i = (size_t)h & (m->cap - 1);

	while (m->values[i])
		i = (i + 1) & (m->cap - 1);
	m->hashes[i] = h;
	m->values[i] = (uint32_t)(value + 1);
}

/* Calls back for each candidate with hash h until match() says yes. */
#define MAP_FIND(m, h, match)                                               \
	do {                                                                \
		if (!(m)->cap)                                              \
			return -1;                                          \
		for (size_t i_ = (size_t)(h) & ((m)->cap - 1);              \
		     (m)->values[i_]; i_ = (i_ + 1) & ((m)->cap - 1)) {     \
			size_t v_ = (m)->values[i_] - 1;                    \
			if ((m)->hashes[i_] == (h) && match(v_))            \
				return (long)v_;                            \
		}                                                           \
		return -1;                                                  \
	} while (0)

static void map_free(struct tp_hlo_map *m)
{
	free(m->hashes);
	free(m->values);
	memset(m, 0, sizeof(*m));
}

static void index_instructions(struct tp_hlo_index *idx)
{
	const Xla__HloModuleProto *mod = idx->module;
	size_t k = 0;

	for (size_t c = 0; c < mod->n_computations; c++)
		idx->n_instrs += mod->computations[c]->n_instructions;
	idx->instrs = tp_xcalloc(idx->n_instrs, sizeof(*idx->instrs));
	map_init(&idx->by_id, idx->n_instrs);
	map_init(&idx->by_name, idx->n_instrs);
	map_init(&idx->comp_by_id, mod->n_computations);
	for (size_t c = 0; c < mod->n_computations; c++) {
		const Xla__HloComputationProto *comp = mod->computations[c];

		map_put(&idx->comp_by_id, tp_mix64((uint64_t)comp->id), c);
		if (comp->id == mod->entry_computation_id ||
		    (!idx->entry && strcmp(comp->name, mod->entry_computation_name) == 0))
			idx->entry = comp;
		for (size_t i = 0; i < comp->n_instructions; i++, k++) {
			const Xla__HloInstructionProto *ins = comp->instructions[i];

			idx->instrs[k].proto = ins;
			idx->instrs[k].computation = comp;
			idx->instrs[k].fusion = -1;
			idx->instrs[k].comp_index = c;
			map_put(&idx->by_id, tp_mix64((uint64_t)ins->id), k);
			map_put(&idx->by_name, tp_hash_bytes(ins->name, strlen(ins->name)), k);
		}
	}
}

static long find_comp(const struct tp_hlo_index *idx, int64_t id);

/* Each instruction inside a fused computation points at its fusion: one
 * pass to find which fusion calls each computation, one to link. */
static void link_fusions(struct tp_hlo_index *idx)
{
	size_t n = idx->module->n_computations;
	long *caller = tp_xmalloc((n ? n : 1) * sizeof(*caller));

	for (size_t c = 0; c < n; c++)
		caller[c] = -1;
	for (size_t k = 0; k < idx->n_instrs; k++) {
		const Xla__HloInstructionProto *ins = idx->instrs[k].proto;
		long c;

		if (!ins->n_called_computation_ids)
			continue;
		c = find_comp(idx, ins->called_computation_ids[0]);
		if (c < 0)
			continue;
		idx->instrs[k].called = idx->module->computations[c];
		if (strcmp(ins->opcode, "fusion") == 0 &&
		    (size_t)c != idx->instrs[k].comp_index)
			caller[c] = (long)k;
	}
	for (size_t k = 0; k < idx->n_instrs; k++)
		idx->instrs[k].fusion = caller[idx->instrs[k].comp_index];
	free(caller);
}

void tp_hlo_index_build(struct tp_hlo_index *idx, const Xla__HloProto *hlo)
{
	static const Xla__HloModuleProto empty = XLA__HLO_MODULE_PROTO__INIT;

	memset(idx, 0, sizeof(*idx));
	idx->hlo = hlo;
	idx->module = hlo && hlo->hlo_module ? hlo->hlo_module : &empty;
	index_instructions(idx);
	link_fusions(idx);
}

void tp_hlo_index_release(struct tp_hlo_index *idx)
{
	free(idx->instrs);
	map_free(&idx->by_id);
	map_free(&idx->by_name);
	map_free(&idx->comp_by_id);
	memset(idx, 0, sizeof(*idx));
}

long tp_hlo_find_id(const struct tp_hlo_index *idx, int64_t id)
{
	uint64_t h = tp_mix64((uint64_t)id);
#define ID_MATCH(v) (idx->instrs[v].proto->id == id)
	MAP_FIND(&idx->by_id, h, ID_MATCH);
#undef ID_MATCH
}

long tp_hlo_find_name(const struct tp_hlo_index *idx, struct tp_str name)
{
	uint64_t h = tp_hash_bytes(name.ptr, name.len);
#define NAME_MATCH(v) tp_str_eq(name, idx->instrs[v].proto->name)
	MAP_FIND(&idx->by_name, h, NAME_MATCH);
#undef NAME_MATCH
}

static long find_comp(const struct tp_hlo_index *idx, int64_t id)
{
	uint64_t h = tp_mix64((uint64_t)id);
#define COMP_MATCH(v) (idx->module->computations[v]->id == id)
	MAP_FIND(&idx->comp_by_id, h, COMP_MATCH);
#undef COMP_MATCH
}

const Xla__HloComputationProto *tp_hlo_computation(const struct tp_hlo_index *idx,
						   int64_t id)
{
	long c = find_comp(idx, id);

	return c < 0 ? NULL : idx->module->computations[c];
}

long tp_hlo_first_instr(const struct tp_hlo_index *idx,
			const Xla__HloComputationProto *comp)
{
	size_t base = 0;

	for (size_t c = 0; c < idx->module->n_computations; c++) {
		if (idx->module->computations[c] == comp)
			return (long)base;
		base += idx->module->computations[c]->n_instructions;
	}
	return -1;
}

bool tp_hlo_source(const struct tp_hlo_index *idx,
		   const Xla__HloInstructionProto *ins, const char **file,
		   int *line)
{
	const Xla__OpMetadata *md = ins->metadata;
	const Xla__StackFrameIndexProto *sf = idx->module->stack_frame_index;
	const Xla__StackFrameIndexProto__StackFrame *frame;
	const Xla__StackFrameIndexProto__FileLocation *loc;

	if (!md)
		return false;
	if (md->source_file && md->source_file[0]) {
		*file = md->source_file;
		*line = md->source_line;
		return true;
	}
	/* ids are 1-based; 0 means unset; every one is checked */
	if (!sf || md->stack_frame_id <= 0 ||
	    (size_t)md->stack_frame_id > sf->n_stack_frames)
		return false;
	frame = sf->stack_frames[md->stack_frame_id - 1];
	if (frame->file_location_id <= 0 ||
	    (size_t)frame->file_location_id > sf->n_file_locations)
		return false;
	loc = sf->file_locations[frame->file_location_id - 1];
	if (loc->file_name_id <= 0 || (size_t)loc->file_name_id > sf->n_file_names)
		return false;
	*file = sf->file_names[loc->file_name_id - 1];
	*line = loc->line;
	return true;
}

const char *tp_hlo_scope(const Xla__HloInstructionProto *ins)
{
	return ins->metadata && ins->metadata->op_name ? ins->metadata->op_name : "";
}
