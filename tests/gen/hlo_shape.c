/* hlo_shape.c - XLA shapes as TPU writes them: tiled layouts T(8,128),
 * tail_padding_alignment 1, the text form of ShapeUtil::HumanStringWithLayout
 * (format-facts §4, §11.1) and padded / unpadded byte sizes. */
#include "gen.h"

#include <string.h>

static Xla__ShapeProto *new_shape(Arena *a)
{
    static const Xla__ShapeProto init = XLA__SHAPE_PROTO__INIT;
    Xla__ShapeProto *s = ANEW(a, Xla__ShapeProto);
    *s = init;
    return s;
}

static Xla__LayoutProto *new_layout(Arena *a)
{
    static const Xla__LayoutProto init = XLA__LAYOUT_PROTO__INIT;
    Xla__LayoutProto *l = ANEW(a, Xla__LayoutProto);
    *l = init;
    return l;
}

static Xla__TileProto *new_tile(Arena *a, int64_t d0, int64_t d1, int n)
{
    static const Xla__TileProto init = XLA__TILE_PROTO__INIT;
    Xla__TileProto *t = ANEW(a, Xla__TileProto);
    *t = init;
    t->n_dimensions = (size_t)n;
    t->dimensions = ANEWN(a, int64_t, n);
    t->dimensions[0] = d0;
    if (n > 1)
        t->dimensions[1] = d1;
    return t;
}

static int64_t elem_bytes(int t)
{
    switch (t) {
    case PT_PRED:
        return 1;
    case PT_BF16:
        return 2;
    default:
        return 4;
    }
}

static const char *elem_name(int t)
{
    switch (t) {
    case PT_PRED:
        return "pred";
    case PT_S32:
        return "s32";
    case PT_BF16:
        return "bf16";
    case PT_TUPLE:
        return "tuple";
    default:
        return "f32";
    }
}

/* Tiles follow what real TPU HloProtos show: T(8,128) for 2-D+ f32, an
 * extra (2,1) sub-tile for bf16, T(256) for vectors and T(128) for scalars. */
Xla__ShapeProto *shape_array(Arena *a, int elem, int rank, const int64_t *dims,
                             int64_t memory_space)
{
    Xla__ShapeProto *s = new_shape(a);
    s->element_type = elem;
    s->n_dimensions = (size_t)rank;
    s->dimensions = ANEWN(a, int64_t, rank);
    s->n_is_dynamic_dimension = (size_t)rank;
    s->is_dynamic_dimension = ANEWN(a, protobuf_c_boolean, rank);
    for (int i = 0; i < rank; i++)
        s->dimensions[i] = dims[i];

    Xla__LayoutProto *l = new_layout(a);
    l->n_minor_to_major = (size_t)rank;
    l->minor_to_major = ANEWN(a, int64_t, rank);
    for (int i = 0; i < rank; i++)
        l->minor_to_major[i] = rank - 1 - i;
    int nt = (rank >= 2 && elem == PT_BF16) ? 2 : 1;
    l->n_tiles = (size_t)nt;
    l->tiles = ANEWN(a, Xla__TileProto *, nt);
    if (rank >= 2)
        l->tiles[0] = new_tile(a, 8, 128, 2);
    else
        l->tiles[0] = new_tile(a, rank == 1 ? 256 : 128, 0, 1);
    if (nt == 2)
        l->tiles[1] = new_tile(a, 2, 1, 2);
    l->tail_padding_alignment_in_elements = 1;
    l->memory_space = memory_space;
    s->layout = l;
    return s;
}

Xla__ShapeProto *shape_tuple(Arena *a, Xla__ShapeProto **elems, size_t n)
{
    Xla__ShapeProto *s = new_shape(a);
    s->element_type = PT_TUPLE;
    s->n_tuple_shapes = n;
    s->tuple_shapes = ANEWN(a, Xla__ShapeProto *, n);
    for (size_t i = 0; i < n; i++)
        s->tuple_shapes[i] = elems[i];
    return s;
}

/* Same dimensions, possibly another element type, default memory space. */
Xla__ShapeProto *shape_clone(Arena *a, const Xla__ShapeProto *s, int elem)
{
    return shape_array(a, elem ? elem : s->element_type, (int)s->n_dimensions,
                       s->dimensions, 0);
}

int shape_same(const Xla__ShapeProto *x, const Xla__ShapeProto *y)
{
    if (x->element_type != y->element_type || x->n_dimensions != y->n_dimensions)
        return 0;
    for (size_t i = 0; i < x->n_dimensions; i++)
        if (x->dimensions[i] != y->dimensions[i])
            return 0;
    return 1;
}

static void layout_print(StrBuf *sb, const Xla__LayoutProto *l)
{
    sb_puts(sb, "{");
    for (size_t i = 0; i < l->n_minor_to_major; i++)
        sb_printf(sb, "%s%lld", i ? "," : "", (long long)l->minor_to_major[i]);
    if (l->n_tiles || l->memory_space)
        sb_puts(sb, ":");
    /* tiles print as T(8,128)(2,1): one "T", then each tile */
    if (l->n_tiles)
        sb_puts(sb, "T");
    for (size_t t = 0; t < l->n_tiles; t++) {
        sb_puts(sb, "(");
        for (size_t i = 0; i < l->tiles[t]->n_dimensions; i++)
            sb_printf(sb, "%s%lld", i ? "," : "", (long long)l->tiles[t]->dimensions[i]);
        sb_puts(sb, ")");
    }
    if (l->memory_space)
        sb_printf(sb, "S(%lld)", (long long)l->memory_space);
    sb_puts(sb, "}");
}

void shape_print(StrBuf *sb, const Xla__ShapeProto *s)
{
    if (s->element_type == PT_TUPLE) {
        sb_puts(sb, "(");
        for (size_t i = 0; i < s->n_tuple_shapes; i++) {
            if (i)
                sb_puts(sb, ", ");
            /* XLA marks every fifth tuple element (format-facts §11.1) */
            if (i && i % 5 == 0)
                sb_printf(sb, "/*index=%zu*/", i);
            shape_print(sb, s->tuple_shapes[i]);
        }
        sb_puts(sb, ")");
        return;
    }
    sb_printf(sb, "%s[", elem_name(s->element_type));
    for (size_t i = 0; i < s->n_dimensions; i++)
        sb_printf(sb, "%s%lld", i ? "," : "", (long long)s->dimensions[i]);
    sb_puts(sb, "]");
    if (s->layout)
        layout_print(sb, s->layout);
}

char *shape_string(Arena *a, const Xla__ShapeProto *s)
{
    StrBuf sb = {0};
    shape_print(&sb, s);
    char *r = sb_arena(&sb, a);
    sb_free(&sb);
    return r;
}

int64_t shape_elements(const Xla__ShapeProto *s)
{
    int64_t n = 1;
    for (size_t i = 0; i < s->n_dimensions; i++)
        n *= s->dimensions[i];
    return n;
}

static int64_t round_up(int64_t v, int64_t m)
{
    return (v + m - 1) / m * m;
}

/* Size as allocated on TPU: minor dim padded to 128 lanes, second-minor to
 * 8 sublanes (16 for packed bf16), vectors to 256, scalars to a 128 tile.
 * Tuples are a table of 8-byte pointers. */
int64_t shape_padded_bytes(const Xla__ShapeProto *s)
{
    if (s->element_type == PT_TUPLE)
        return 8 * (int64_t)s->n_tuple_shapes;
    int rank = (int)s->n_dimensions;
    int64_t n = 1;
    if (rank == 0)
        n = 128;
    for (int i = 0; i < rank; i++) {
        int64_t d = s->dimensions[i];
        if (rank == 1)
            d = round_up(d, 256);
        else if (i == rank - 1)
            d = round_up(d, 128);
        else if (i == rank - 2)
            d = round_up(d, s->element_type == PT_BF16 ? 16 : 8);
        n *= d;
    }
    return n * elem_bytes(s->element_type);
}

/* format-facts §11.2: default layout ByteSizeOf, 8 bytes per tuple element */
int64_t shape_unpadded_bytes(const Xla__ShapeProto *s)
{
    if (s->element_type == PT_TUPLE)
        return 8 * (int64_t)s->n_tuple_shapes;
    return shape_elements(s) * elem_bytes(s->element_type);
}
