/*
 * shape.h - XLA shapes: element types, the text form XProf and XLA print
 * (`f32[32,2048]{1,0:T(8,128)}`, tuples with "index=5" comment markers), and
 * the unpadded byte size XProf's memory viewer uses (format-facts §4, §5,
 * §11.1-2). Pure functions over protobuf-c messages owned by the caller.
 */
#ifndef TPUPROF_SHAPE_H
#define TPUPROF_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "hlo.pb-c.h"
#include "tpuprof/util/strbuf.h"

enum {
	TP_PT_PRED = 1, TP_PT_TUPLE = 13, TP_PT_OPAQUE = 14, TP_PT_TOKEN = 17,
};

/* Lower-case name of a PrimitiveType ("f32", "bf16"); "type<N>" for
 * values this tpuprof does not know. buf holds the fallback text. */
const char *tp_primitive_name(int type, char *buf, size_t n);
/* Bits per element; 0 for tuple, opaque, token, buffer and unknown. */
int tp_primitive_bits(int type);

/* Appends the shape's text with its layout (HumanStringWithLayout). */
void tp_shape_format(struct tp_strbuf *sb, const Xla__ShapeProto *s);
/* A tuple: TUPLE, or an unset element type with element shapes. */
bool tp_shape_is_tuple(const Xla__ShapeProto *s);
/* The same text as a JSON string (null for no shape), as the writers put
 * an instruction's shape; a new reference. */
json_t *tp_shape_text_json(const Xla__ShapeProto *s);

/* Number of elements of an array shape (product of dimensions; 1 for a
 * scalar); 0 for tuples. Saturates instead of overflowing. */
uint64_t tp_shape_elements(const Xla__ShapeProto *s);

/* Bytes with the default layout: elements × ceil(bits/8) for arrays
 * (sub-byte types take a whole byte, as XLA's ByteWidth), 8 × count for
 * tuples (pointer size), 0 for tokens. */
uint64_t tp_shape_unpadded_bytes(const Xla__ShapeProto *s);

/* The shape at `index` of a tuple, or s itself when index is out of range
 * or s is not a tuple: XProf's "last shape_index element" rule. */
const Xla__ShapeProto *tp_shape_tuple_element(const Xla__ShapeProto *s,
					      int64_t index);

#endif
