/*
 * shape.c - XLA shape text and sizes (see shape.h).
 */
#include "tpuprof/analyze/common/shape.h"

#include "tpuprof/util/json_value.h"

#include <inttypes.h>
#include <stdio.h>

static const struct {
	const char *name;
	int bits;
} primitives[] = {
	[1] = { "pred", 8 },     [2] = { "s8", 8 },        [3] = { "s16", 16 },
	[4] = { "s32", 32 },     [5] = { "s64", 64 },      [6] = { "u8", 8 },
	[7] = { "u16", 16 },     [8] = { "u32", 32 },      [9] = { "u64", 64 },
	[10] = { "f16", 16 },    [11] = { "f32", 32 },     [12] = { "f64", 64 },
	[13] = { "tuple", 0 },   [14] = { "opaque", 0 },   [15] = { "c64", 64 },
	[16] = { "bf16", 16 },   [17] = { "token", 0 },    [18] = { "c128", 128 },
	[19] = { "f8e5m2", 8 },  [20] = { "f8e4m3fn", 8 }, [21] = { "s4", 4 },
	[22] = { "u4", 4 },      [23] = { "f8e4m3b11fnuz", 8 },
	[24] = { "f8e5m2fnuz", 8 }, [25] = { "f8e4m3fnuz", 8 },
	[26] = { "s2", 2 },      [27] = { "u2", 2 },       [28] = { "f8e4m3", 8 },
	[29] = { "f8e3m4", 8 },  [30] = { "s1", 1 },       [31] = { "u1", 1 },
	[32] = { "f4e2m1fn", 4 }, [33] = { "f8e8m0fnu", 8 }, [34] = { "buffer", 0 },
};

#define N_PRIMITIVES ((int)(sizeof(primitives) / sizeof(primitives[0])))

const char *tp_primitive_name(int type, char *buf, size_t n)
{
	if (type > 0 && type < N_PRIMITIVES && primitives[type].name)
		return primitives[type].name;
	snprintf(buf, n, "type%d", type);
	return buf;
}

int tp_primitive_bits(int type)
{
	return type > 0 && type < N_PRIMITIVES ? primitives[type].bits : 0;
}

static void add_int_list(struct tp_strbuf *sb, const int64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i] == INT64_MIN)
			tp_strbuf_addf(sb, "%s*", i ? "," : "");
		else
			tp_strbuf_addf(sb, "%s%" PRId64, i ? "," : "", v[i]);
	}
}

static void add_layout_extras(struct tp_strbuf *sb, const Xla__LayoutProto *l)
{
	char tmp[32];

	if (l->n_tiles) {
		tp_strbuf_adds(sb, "T");
		for (size_t i = 0; i < l->n_tiles; i++) {
			tp_strbuf_adds(sb, "(");
			add_int_list(sb, l->tiles[i]->dimensions, l->tiles[i]->n_dimensions);
			tp_strbuf_adds(sb, ")");
		}
	}
	if (l->tail_padding_alignment_in_elements > 1)
		tp_strbuf_addf(sb, "L(%" PRId64 ")", l->tail_padding_alignment_in_elements);
	if (l->index_primitive_type)
		tp_strbuf_addf(sb, "#(%s)", tp_primitive_name(l->index_primitive_type, tmp, sizeof(tmp)));
	if (l->pointer_primitive_type)
		tp_strbuf_addf(sb, "*(%s)", tp_primitive_name(l->pointer_primitive_type, tmp, sizeof(tmp)));
	if (l->element_size_in_bits)
		tp_strbuf_addf(sb, "E(%" PRId64 ")", l->element_size_in_bits);
	if (l->memory_space)
		tp_strbuf_addf(sb, "S(%" PRId64 ")", l->memory_space);
	if (l->dynamic_shape_metadata_prefix_bytes)
		tp_strbuf_addf(sb, "M(%" PRId64 ")", l->dynamic_shape_metadata_prefix_bytes);
}

static bool layout_has_extras(const Xla__LayoutProto *l)
{
	return l->n_tiles || l->tail_padding_alignment_in_elements > 1 ||
	       l->index_primitive_type || l->pointer_primitive_type ||
	       l->element_size_in_bits || l->memory_space ||
	       l->dynamic_shape_metadata_prefix_bytes;
}

static void add_layout(struct tp_strbuf *sb, const Xla__ShapeProto *s)
{
	const Xla__LayoutProto *l = s->layout;

	if (!l || (s->n_dimensions == 0 && !layout_has_extras(l)))
		return;
	tp_strbuf_adds(sb, "{");
	add_int_list(sb, l->minor_to_major, l->n_minor_to_major);
	if (layout_has_extras(l)) {
		tp_strbuf_adds(sb, ":");
		add_layout_extras(sb, l);
	}
	tp_strbuf_adds(sb, "}");
}

/* A tuple: TUPLE, or (as some writers leave it, and XLA reads it) an
 * unset element type with element shapes. */
bool tp_shape_is_tuple(const Xla__ShapeProto *s)
{
	return s->element_type == TP_PT_TUPLE ||
	       (s->element_type == 0 && s->n_tuple_shapes > 0);
}

void tp_shape_format(struct tp_strbuf *sb, const Xla__ShapeProto *s)
{
	char tmp[32];

	if (!s) {
		tp_strbuf_adds(sb, "()");
		return;
	}
	if (tp_shape_is_tuple(s)) {
		tp_strbuf_adds(sb, "(");
		for (size_t i = 0; i < s->n_tuple_shapes; i++) {
			if (i)
				tp_strbuf_adds(sb, ", ");
			if (i && i % 5 == 0)
				tp_strbuf_addf(sb, "/*index=%zu*/", i);
			tp_shape_format(sb, s->tuple_shapes[i]);
		}
		tp_strbuf_adds(sb, ")");
		return;
	}
	tp_strbuf_addf(sb, "%s[", tp_primitive_name(s->element_type, tmp, sizeof(tmp)));
	for (size_t i = 0; i < s->n_dimensions; i++) {
		bool dynamic = i < s->n_is_dynamic_dimension && s->is_dynamic_dimension[i];

		tp_strbuf_addf(sb, "%s%s%" PRId64, i ? "," : "", dynamic ? "<=" : "",
			       s->dimensions[i]);
	}
	tp_strbuf_adds(sb, "]");
	add_layout(sb, s);
}

uint64_t tp_shape_elements(const Xla__ShapeProto *s)
{
	uint64_t n = 1;

	if (!s || tp_shape_is_tuple(s))
		return 0;
	for (size_t i = 0; i < s->n_dimensions; i++) {
		uint64_t d = s->dimensions[i] < 0 ? 0 : (uint64_t)s->dimensions[i];

		if (d && n > UINT64_MAX / d)
			return UINT64_MAX;
		n *= d;
	}
	return n;
}

uint64_t tp_shape_unpadded_bytes(const Xla__ShapeProto *s)
{
	uint64_t n, width;

	if (!s)
		return 0;
	if (tp_shape_is_tuple(s))
		return 8 * (uint64_t)s->n_tuple_shapes;
	if (s->element_type == TP_PT_TOKEN)
		return 0;
	if (s->element_type == TP_PT_OPAQUE)
		return 8;
	n = tp_shape_elements(s);
	width = (uint64_t)(tp_primitive_bits(s->element_type) + 7) / 8;
	if (width && n > UINT64_MAX / width)
		return UINT64_MAX;
	return n * width;
}

const Xla__ShapeProto *tp_shape_tuple_element(const Xla__ShapeProto *s,
					      int64_t index)
{
	/* any index in range, whatever the outer element type says */
	if (s && index >= 0 && (uint64_t)index < s->n_tuple_shapes)
		return s->tuple_shapes[index];
	return s;
}

json_t *tp_shape_text_json(const Xla__ShapeProto *s)
{
	struct tp_strbuf sb;
	json_t *j;

	if (!s)
		return json_null();
	tp_strbuf_init(&sb);
	tp_shape_format(&sb, s);
	j = tp_json_cstr(sb.buf);
	tp_strbuf_release(&sb);
	return j;
}
