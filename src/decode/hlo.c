/*
 * hlo.c - lazy decoding of HloProto bytes with protobuf-c into the capture
 * arena, and simple counts over a module (see hlo.h).
 *
 * protobuf-c recurses once per nesting level. The only recursive messages
 * tpuprof declares are ShapeProto (tuple_shapes) and LayoutProto
 * (physical_shape), so a hostile file could nest shapes a million deep and
 * overflow the stack. shape_depth_ok() walks those paths with the wire
 * reader first and refuses nesting deeper than any real shape.
 */
#include "tpuprof/decode/hlo.h"
#include "tpuprof/decode/wire.h"

#include <string.h>

#define TP_MAX_SHAPE_DEPTH 64
/* The largest serialized HloProto accepted: protobuf's 2 GiB limit. */
#define TP_MAX_HLO_BYTES ((size_t)INT32_MAX)
/* Most bytes of a module name quoted in a message. */
#define TP_MAX_NAME_SHOWN 200

static bool shape_ok(struct tp_wire *w, int depth);

/* Hands a nested reader's failure to its parent, for the message. */
static bool fail_from(struct tp_wire *w, const struct tp_wire *sub)
{
	w->error = sub->error;
	w->error_offset = sub->error_offset;
	return false;
}

static bool layout_ok(struct tp_wire *w, int depth)
{
	struct tp_field f;
	int rc;

	while ((rc = tp_wire_next(w, &f)) > 0) {
		if (f.number == 10 && f.type == TP_WIRE_LEN) {
			struct tp_wire sub;

			tp_wire_sub(&sub, w, &f);
			if (!shape_ok(&sub, depth + 1))
				return fail_from(w, &sub);
		}
	}
	return rc == 0;
}

static bool shape_ok(struct tp_wire *w, int depth)
{
	struct tp_field f;
	int rc;

	if (depth > TP_MAX_SHAPE_DEPTH) {
		w->error = "shapes nested too deeply";
		w->error_offset = (size_t)(w->p - w->base);
		return false;
	}
	while ((rc = tp_wire_next(w, &f)) > 0) {
		struct tp_wire sub;

		if (f.type != TP_WIRE_LEN || (f.number != 4 && f.number != 5))
			continue;
		tp_wire_sub(&sub, w, &f);
		if (f.number == 4 ? !shape_ok(&sub, depth + 1)
				  : !layout_ok(&sub, depth + 1))
			return fail_from(w, &sub);
	}
	return rc == 0;
}

/* Field paths from a message to the ShapeProtos inside it. Each row: in a
 * message reached by `parent`, field `number` holds a `child` message. */
enum msg { M_HLO, M_MODULE, M_COMP, M_INSTR, M_PROGSHAPE, M_SHAPE };

static const struct {
	enum msg parent;
	uint32_t number;
	enum msg child;
} shape_paths[] = {
	{ M_HLO, 1, M_MODULE },       { M_MODULE, 3, M_COMP },
	{ M_MODULE, 4, M_PROGSHAPE }, { M_COMP, 2, M_INSTR },
	{ M_COMP, 4, M_PROGSHAPE },   { M_INSTR, 3, M_SHAPE },
	{ M_PROGSHAPE, 1, M_SHAPE },  { M_PROGSHAPE, 2, M_SHAPE },
};

static bool nesting_ok(struct tp_wire *w, enum msg kind)
{
	struct tp_field f;
	int rc;

	if (kind == M_SHAPE)
		return shape_ok(w, 0);
	while ((rc = tp_wire_next(w, &f)) > 0) {
		if (f.type != TP_WIRE_LEN)
			continue;
		for (size_t i = 0; i < sizeof(shape_paths) / sizeof(shape_paths[0]); i++) {
			struct tp_wire sub;

			if (shape_paths[i].parent != kind ||
			    shape_paths[i].number != f.number)
				continue;
			tp_wire_sub(&sub, w, &f);
			if (!nesting_ok(&sub, shape_paths[i].child))
				return fail_from(w, &sub);
		}
	}
	return rc == 0;
}

/* protobuf-c merges every repeat of a singular message field into the
 * first (as protobuf must), concatenating their repeated fields into a
 * fresh array each time: N repeats cost O(N^2) time and arena memory
 * (a 282 KB file of 35,000 "hlo_module { computations {} }" took 29 s
 * and gigabytes; docs/fuzzing.md). No XLA writer repeats one, so a
 * repeat is refused before unpacking. Walks every message field with the
 * generated descriptors; nesting_ok() has already bounded the recursive
 * shapes, and depth is capped again here. */
#define TP_MAX_MSG_DEPTH 200

static bool no_repeated_singular(struct tp_wire *w,
				 const ProtobufCMessageDescriptor *d, int depth)
{
	struct tp_field f;
	uint8_t seen[256] = { 0 };
	int rc;

	if (depth > TP_MAX_MSG_DEPTH) {
		w->error = "messages nested too deeply";
		w->error_offset = (size_t)(w->p - w->base);
		return false;
	}
	while ((rc = tp_wire_next(w, &f)) > 0) {
		const ProtobufCFieldDescriptor *fd;
		struct tp_wire sub;
		size_t i;

		if (f.type != TP_WIRE_LEN)
			continue;
		fd = protobuf_c_message_descriptor_get_field(d, f.number);
		if (!fd || fd->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		i = (size_t)(fd - d->fields);
		if (fd->label != PROTOBUF_C_LABEL_REPEATED && i < sizeof(seen)) {
			if (seen[i]) {
				w->error = "a message field is written twice";
				w->error_offset = f.offset;
				return false;
			}
			seen[i] = 1;
		}
		tp_wire_sub(&sub, w, &f);
		if (!no_repeated_singular(&sub, fd->descriptor, depth + 1))
			return fail_from(w, &sub);
	}
	return rc == 0;
}

struct tp_str tp_module_name(const struct tp_module *m)
{
	if (m->hlo && m->hlo->hlo_module && m->hlo->hlo_module->name)
		return tp_str_make(m->hlo->hlo_module->name,
				   strlen(m->hlo->hlo_module->name));
	for (size_t i = 0; i < m->label.len; i++)
		if (m->label.ptr[i] == '(')
			return tp_str_make(m->label.ptr, i);
	return m->label;
}

enum tp_err tp_module_decode(struct tp_module *m, struct tp_arena *arena,
			     struct tp_error *err)
{
	struct tp_wire w;
	struct tp_str name = tp_module_name(m);

	if (m->hlo)
		return TP_OK;
	/* Clamped: a label from a > 2 GiB capture must not reach "%.*s"
	 * as a negative (ignored) precision, which reads up to a NUL. */
	if (name.len > TP_MAX_NAME_SHOWN)
		name.len = TP_MAX_NAME_SHOWN;
	/* protobuf refuses messages of 2 GiB or more (C++ cannot write
	 * them), and protobuf-c 1.4 rejects nested lengths above INT_MAX and
	 * counts repeated elements in an unsigned int: say so plainly
	 * rather than half-decode such bytes. */
	if (m->raw.len > TP_MAX_HLO_BYTES) {
		tp_error_set(err, TP_ERR_INPUT,
			     "%s: HLO module '%.*s' at byte %zu is too large for protobuf (%zu bytes; the limit is 2 GiB)",
			     m->path, (int)name.len, name.ptr, m->raw_offset, m->raw.len);
		tp_error_corrupt_at(err, TP_CORRUPT_HLO_TOO_LARGE, true, m->raw_offset, NULL);
		return TP_ERR_INPUT;
	}
	tp_wire_init(&w, (const uint8_t *)m->raw.ptr,
		     (const uint8_t *)m->raw.ptr, m->raw.len);
	if (nesting_ok(&w, M_HLO)) {
		tp_wire_init(&w, (const uint8_t *)m->raw.ptr,
			     (const uint8_t *)m->raw.ptr, m->raw.len);
		(void)no_repeated_singular(&w, &xla__hlo_proto__descriptor, 0);
	}
	if (w.error) {
		tp_error_set(err, TP_ERR_INPUT, "%s: corrupt HLO module '%.*s' at byte %zu: %s",
			     m->path, (int)name.len, name.ptr,
			     m->raw_offset + w.error_offset, w.error);
		tp_error_corrupt_at(err, TP_CORRUPT_HLO, true,
				    m->raw_offset + w.error_offset, w.error);
		return TP_ERR_INPUT;
	}
	m->hlo = xla__hlo_proto__unpack(tp_arena_protobuf_allocator(arena),
					m->raw.len,
					(const uint8_t *)m->raw.ptr);
	if (!m->hlo) {
		tp_error_set(err, TP_ERR_INPUT,
			     "%s: corrupt HLO module '%.*s' (the HloProto at byte %zu does not decode)",
			     m->path, (int)name.len, name.ptr, m->raw_offset);
		tp_error_corrupt_at(err, TP_CORRUPT_HLO, true, m->raw_offset, NULL);
		return TP_ERR_INPUT;
	}
	if (!m->program_id_known && m->hlo->hlo_module) {
		m->program_id = (uint64_t)m->hlo->hlo_module->id;
		m->program_id_known = true;
	}
	return TP_OK;
}

bool tp_opcode_is_collective(const char *op)
{
	static const char *const names[] = {
		"all-reduce", "all-reduce-start", "all-gather",
		"all-gather-start", "reduce-scatter", "all-to-all",
		"ragged-all-to-all", "collective-permute",
		"collective-permute-start", "collective-broadcast",
		"collective-reduce", "send", "recv", "cross-replica-sum",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(op, names[i]) == 0)
			return true;
	return false;
}

static void count_instructions(const Xla__HloComputationProto *c,
			       struct tp_hlo_counts *out)
{
	out->instructions += c->n_instructions;
	for (size_t i = 0; i < c->n_instructions; i++) {
		const char *op = c->instructions[i]->opcode;

		if (strcmp(op, "fusion") == 0)
			out->fusions++;
		else if (tp_opcode_is_collective(op))
			out->collectives++;
	}
}

void tp_hlo_count(const Xla__HloProto *hlo, struct tp_hlo_counts *out)
{
	const Xla__HloModuleProto *mod = hlo->hlo_module;
	const Xla__BufferAssignmentProto *ba = hlo->buffer_assignment;

	memset(out, 0, sizeof(*out));
	if (mod) {
		out->computations = mod->n_computations;
		for (size_t i = 0; i < mod->n_computations; i++) {
			if (mod->computations[i]->is_fusion_computation)
				out->fusion_computations++;
			count_instructions(mod->computations[i], out);
		}
	}
	if (!ba)
		return;
	out->has_buffer_assignment = true;
	out->logical_buffers = ba->n_logical_buffers;
	out->allocations = ba->n_buffer_allocations;
	out->heap_traces = ba->n_heap_simulator_traces;
	for (size_t i = 0; i < ba->n_heap_simulator_traces; i++)
		out->heap_events += ba->heap_simulator_traces[i]->n_events;
}
