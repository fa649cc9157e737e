/* hlo_gen.c - synthetic XLA HloProtos (module + buffer assignment).
 *
 * Each module has:
 *   - an entry computation "main.N" with parameters, one scalar constant,
 *     --instructions plain ops (elementwise, dot, transpose, broadcast, reduce,
 *     copy, slice into VMEM, a Pallas custom-call), --fusions fusions (one
 *     multi-output fusion read through get-tuple-element when possible),
 *     --collectives collectives and a ROOT tuple;
 *   - fused computations (is_fusion_computation) of 2-5 instructions, some
 *     holding a nested fusion, listed before their callers (callees first);
 *   - a scalar "region" reduction computation for all-reduce & co;
 *   - a schedule for the entry computation and a stack-frame index;
 *   - a buffer assignment: logical buffers, allocations (parameters,
 *     constant, outputs, thread-local, a big temp, a VMEM temp) and
 *     heap-simulator traces with ALLOC / FREE / SHARE_WITH events.
 * All of it lives in the caller's arena; the packed bytes are what
 * /host:metadata embeds.
 */
#include "gen.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ constructors */

#define DEFINE_NEW(fn, T, INIT)                                               \
    static T *fn(Arena *a)                                                    \
    {                                                                         \
        static const T init = INIT;                                           \
        T *p = ANEW(a, T);                                                    \
        *p = init;                                                            \
        return p;                                                             \
    }

DEFINE_NEW(new_instr, Xla__HloInstructionProto, XLA__HLO_INSTRUCTION_PROTO__INIT)
DEFINE_NEW(new_comp, Xla__HloComputationProto, XLA__HLO_COMPUTATION_PROTO__INIT)
DEFINE_NEW(new_meta, Xla__OpMetadata, XLA__OP_METADATA__INIT)
DEFINE_NEW(new_pshape, Xla__ProgramShapeProto, XLA__PROGRAM_SHAPE_PROTO__INIT)
DEFINE_NEW(new_rgroup, Xla__ReplicaGroup, XLA__REPLICA_GROUP__INIT)
DEFINE_NEW(new_st, Xla__SourceTarget, XLA__SOURCE_TARGET__INIT)
DEFINE_NEW(new_iota, Xla__IotaReplicaGroupListProto, XLA__IOTA_REPLICA_GROUP_LIST_PROTO__INIT)
DEFINE_NEW(new_cdl, Xla__CollectiveDeviceListProto, XLA__COLLECTIVE_DEVICE_LIST_PROTO__INIT)
DEFINE_NEW(new_module, Xla__HloModuleProto, XLA__HLO_MODULE_PROTO__INIT)
DEFINE_NEW(new_sched, Xla__HloScheduleProto, XLA__HLO_SCHEDULE_PROTO__INIT)
DEFINE_NEW(new_sched_entry, Xla__HloScheduleProto__SequencesEntry,
           XLA__HLO_SCHEDULE_PROTO__SEQUENCES_ENTRY__INIT)
DEFINE_NEW(new_seq, Xla__HloScheduleProto__InstructionSequence,
           XLA__HLO_SCHEDULE_PROTO__INSTRUCTION_SEQUENCE__INIT)
DEFINE_NEW(new_sfi, Xla__StackFrameIndexProto, XLA__STACK_FRAME_INDEX_PROTO__INIT)
DEFINE_NEW(new_floc, Xla__StackFrameIndexProto__FileLocation,
           XLA__STACK_FRAME_INDEX_PROTO__FILE_LOCATION__INIT)
DEFINE_NEW(new_frame, Xla__StackFrameIndexProto__StackFrame,
           XLA__STACK_FRAME_INDEX_PROTO__STACK_FRAME__INIT)
DEFINE_NEW(new_hlo, Xla__HloProto, XLA__HLO_PROTO__INIT)
DEFINE_NEW(new_ba, Xla__BufferAssignmentProto, XLA__BUFFER_ASSIGNMENT_PROTO__INIT)
DEFINE_NEW(new_lbp, Xla__LogicalBufferProto, XLA__LOGICAL_BUFFER_PROTO__INIT)
DEFINE_NEW(new_loc, Xla__LogicalBufferProto__Location, XLA__LOGICAL_BUFFER_PROTO__LOCATION__INIT)
DEFINE_NEW(new_alloc, Xla__BufferAllocationProto, XLA__BUFFER_ALLOCATION_PROTO__INIT)
DEFINE_NEW(new_assigned, Xla__BufferAllocationProto__Assigned,
           XLA__BUFFER_ALLOCATION_PROTO__ASSIGNED__INIT)
DEFINE_NEW(new_trace, Xla__HeapSimulatorTrace, XLA__HEAP_SIMULATOR_TRACE__INIT)
DEFINE_NEW(new_hevent, Xla__HeapSimulatorTrace__Event, XLA__HEAP_SIMULATOR_TRACE__EVENT__INIT)

/* ------------------------------------------------------------ model */

enum { LB_PARAM, LB_CONST, LB_OUTPUT, LB_TEMP, LB_VMEM, LB_THREAD_LOCAL };
enum { HE_ALLOC = 0, HE_FREE = 1, HE_SHARE = 2 };

/* An entry-computation instruction plus what the trace and the buffer
 * assignment need to know about it. */
typedef struct {
    Xla__HloInstructionProto *p;
    char *text;
    const char *category; /* NULL: no XLA Ops events (parameter, tuple, ...) */
    int64_t flops;
    int64_t bytes;
    int gte_src;          /* get-tuple-element: entry index of the tuple producer */
    int vmem;             /* output lives in VMEM (color 1) */
    int is_start;         /* all-reduce-start: only its -done may read it */
    int lb[3];            /* logical buffers at {}, {0}, {1}; -1 if none */
    int opnd[4];          /* operand entry indexes */
    int n_opnd;
} Instr;

typedef struct {
    int64_t size;
    int64_t instr_id;
    int ins;              /* entry index, -1 for the region's buffer */
    int shape_index;      /* -1 for {} */
    int elem;
    int color;
    int klass;
    int def_step, last_use;
    int traced;
    int share_with;       /* canonical LB index or -1 */
    int share_kind;       /* 1 live, 2 freed */
    int n_sharers;
    int refs;
    int64_t offset;
} Lb;

typedef struct {
    Arena *a;
    Rng rng;
    const Options *o;
    const char *fn;       /* jax function name, e.g. "train_step" */
    int64_t uid;          /* module-wide counter for names and ids */
    int64_t comp_uid;
    int devices;
    Xla__HloComputationProto **comps;
    size_t n_comps, cap_comps;
    Instr *ins;
    size_t n_ins, cap_ins;
    int *pool;            /* entry indexes usable as operands */
    size_t n_pool;
    int const_idx;
    Xla__HloComputationProto *region;
    int n_fused_comps;
    int n_frames;
    Lb *lbs;
    size_t n_lbs;
} Hb;

static const char *const MODULE_NAMES[] = {
    "jit_train_step", "jit_f", "jit_eval_step", "jit__psum",
    "jit_matmul_optimized", "jit_loss_fn", "jit_update",
};

static const char *const SCOPES[] = {
    "transformer/layer_0/mlp", "transformer/layer_0/attention",
    "transformer/layer_1/mlp", "transformer/layer_1/attention",
    "loss", "optimizer/adam",
};

static const char *const SOURCE_FILES[] = {
    "/workspace/train.py", "/workspace/model/transformer.py",
    "/workspace/model/layers.py",
};

static const int64_t ROWS[] = {8, 16, 128, 256, 512, 1024, 5, 100};
static const int64_t COLS[] = {128, 256, 512, 1024, 2048, 1000};

#define NELEM(x) (sizeof(x) / sizeof((x)[0]))

/* ------------------------------------------------------------ helpers */

static Xla__ShapeProto *random_shape_of(Hb *b, int elem)
{
    int64_t d[2] = {ROWS[rng_below(&b->rng, NELEM(ROWS))],
                    COLS[rng_below(&b->rng, NELEM(COLS))]};
    return shape_array(b->a, elem, 2, d, 0);
}

static Xla__ShapeProto *random_shape(Hb *b)
{
    return random_shape_of(b, rng_below(&b->rng, 3) == 0 ? PT_BF16 : PT_F32);
}

static Xla__ShapeProto *scalar_shape(Hb *b)
{
    return shape_array(b->a, PT_F32, 0, NULL, 0);
}

static int is_collective(const char *op)
{
    static const char *const names[] = {
        "all-reduce", "all-reduce-start", "all-reduce-done", "all-gather",
        "all-gather-start", "all-gather-done", "reduce-scatter", "all-to-all",
        "ragged-all-to-all", "collective-permute", "collective-permute-start",
        "collective-permute-done", "collective-broadcast",
    };
    for (size_t i = 0; i < NELEM(names); i++)
        if (!strcmp(op, names[i]))
            return 1;
    return 0;
}

/* Source info: most instructions carry source_file/line, every fifth only a
 * stack_frame_id into the module's stack-frame index (XProf's fallback). */
static Xla__OpMetadata *make_meta(Hb *b, const char *scope, const char *leaf)
{
    Xla__OpMetadata *m = new_meta(b->a);
    m->op_name = arena_printf(b->a, "jit(%s)/jit(main)/%s/%s", b->fn, scope, leaf);
    if (b->uid % 5 == 0) {
        m->stack_frame_id = 1 + (int32_t)(b->uid % b->n_frames);
    } else {
        m->source_file = (char *)SOURCE_FILES[rng_below(&b->rng, NELEM(SOURCE_FILES))];
        m->source_line = (int32_t)rng_range(&b->rng, 12, 480);
    }
    return m;
}

static Xla__HloInstructionProto *mk(Hb *b, const char *opcode, const char *prefix,
                                   Xla__ShapeProto *shape,
                                   Xla__HloInstructionProto *const *ops, int nops)
{
    Xla__HloInstructionProto *p = new_instr(b->a);
    b->uid++;
    p->opcode = (char *)opcode;
    p->name = arena_printf(b->a, "%s.%lld", prefix, (long long)b->uid);
    /* new XLA writes 64-bit unique ids (format-facts §0) */
    p->id = ((int64_t)1 << 32) | b->uid;
    p->shape = shape;
    p->n_operand_ids = (size_t)nops;
    p->operand_ids = ANEWN(b->a, int64_t, nops);
    for (int i = 0; i < nops; i++)
        p->operand_ids[i] = ops[i]->id;
    return p;
}

static void set_dims(Hb *b, Xla__HloInstructionProto *p, const int64_t *d, int n)
{
    p->n_dimensions = (size_t)n;
    p->dimensions = ANEWN(b->a, int64_t, n);
    for (int i = 0; i < n; i++)
        p->dimensions[i] = d[i];
}

static void set_called(Hb *b, Xla__HloInstructionProto *p, int64_t comp_id)
{
    p->n_called_computation_ids = 1;
    p->called_computation_ids = ANEWN(b->a, int64_t, 1);
    p->called_computation_ids[0] = comp_id;
}

static void push_comp(Hb *b, Xla__HloComputationProto *c)
{
    if (b->n_comps == b->cap_comps) {
        b->cap_comps = b->cap_comps ? 2 * b->cap_comps : 16;
        b->comps = xrealloc(b->comps, b->cap_comps * sizeof *b->comps);
    }
    b->comps[b->n_comps++] = c;
}

static Xla__HloComputationProto *finish_comp(Hb *b, const char *name,
                                             Xla__HloInstructionProto **ins, size_t n,
                                             int fusion)
{
    Xla__HloComputationProto *c = new_comp(b->a);
    c->name = (char *)name;
    c->id = ++b->comp_uid;
    c->n_instructions = n;
    c->instructions = ANEWN(b->a, Xla__HloInstructionProto *, n);
    size_t nparams = 0;
    for (size_t i = 0; i < n; i++) {
        c->instructions[i] = ins[i];
        if (!strcmp(ins[i]->opcode, "parameter"))
            nparams++;
    }
    c->root_id = ins[n - 1]->id;
    c->is_fusion_computation = fusion;
    Xla__ProgramShapeProto *ps = new_pshape(b->a);
    ps->n_parameters = nparams;
    ps->parameters = ANEWN(b->a, Xla__ShapeProto *, nparams);
    ps->n_parameter_names = nparams;
    ps->parameter_names = ANEWN(b->a, char *, nparams);
    for (size_t i = 0, k = 0; i < n; i++) {
        if (strcmp(ins[i]->opcode, "parameter"))
            continue;
        ps->parameters[k] = ins[i]->shape;
        ps->parameter_names[k] = ins[i]->name;
        k++;
    }
    ps->result = ins[n - 1]->shape;
    c->program_shape = ps;
    push_comp(b, c);
    return c;
}

/* Scalar add computation shared by all-reduce, reduce-scatter and reduce. */
static Xla__HloComputationProto *region(Hb *b)
{
    if (b->region)
        return b->region;
    Xla__HloInstructionProto *ins[3];
    ins[0] = mk(b, "parameter", "Arg_0", scalar_shape(b), NULL, 0);
    ins[1] = mk(b, "parameter", "Arg_1", scalar_shape(b), NULL, 0);
    ins[1]->parameter_number = 1;
    ins[2] = mk(b, "add", "add", scalar_shape(b), ins, 2);
    ins[2]->metadata = make_meta(b, "loss", "reduce_sum");
    b->region = finish_comp(b, arena_printf(b->a, "region_0.%lld", (long long)b->uid),
                            ins, 3, 0);
    return b->region;
}

/* ------------------------------------------------------------ entry list */

static int push_instr(Hb *b, Xla__HloInstructionProto *p, const char *category)
{
    if (b->n_ins == b->cap_ins)
        die("internal: entry instruction capacity exceeded");
    Instr *in = &b->ins[b->n_ins];
    memset(in, 0, sizeof *in);
    in->p = p;
    in->category = category;
    in->gte_src = -1;
    in->lb[0] = in->lb[1] = in->lb[2] = -1;
    return (int)b->n_ins++;
}

static void pool_add(Hb *b, int idx)
{
    b->pool[b->n_pool++] = idx;
}

/* Operands mostly chain on the latest value, sometimes reach back: this gives
 * the mix of short and long buffer lifetimes a real schedule has. */
static int pick_value(Hb *b)
{
    if (b->n_pool == 0)
        die("internal: empty operand pool");
    if (rng_below(&b->rng, 10) < 7)
        return b->pool[b->n_pool - 1];
    return b->pool[rng_below(&b->rng, b->n_pool)];
}

static int pick_same_shape(Hb *b, int first)
{
    const Xla__ShapeProto *s = b->ins[first].p->shape;
    size_t start = (size_t)rng_below(&b->rng, b->n_pool);
    for (size_t k = 0; k < b->n_pool; k++) {
        int c = b->pool[(start + k) % b->n_pool];
        if (c != first && shape_same(b->ins[c].p->shape, s))
            return c;
    }
    return first;
}

/* "%name = shape opcode(shape %a, shape %b)attrs" - the event-metadata name
 * TPU profiles carry for "XLA Ops" (format-facts §2.4). */
static char *hlo_text(Hb *b, Xla__HloInstructionProto *p, const int *opnd, int n,
                      const char *attrs)
{
    StrBuf sb = {0};
    sb_printf(&sb, "%%%s = ", p->name);
    shape_print(&sb, p->shape);
    sb_printf(&sb, " %s(", p->opcode);
    for (int i = 0; i < n; i++) {
        Xla__HloInstructionProto *q = b->ins[opnd[i]].p;
        if (i)
            sb_puts(&sb, ", ");
        shape_print(&sb, q->shape);
        sb_printf(&sb, " %%%s", q->name);
    }
    sb_puts(&sb, ")");
    if (attrs)
        sb_puts(&sb, attrs);
    char *r = sb_arena(&sb, b->a);
    sb_free(&sb);
    return r;
}

static int64_t operand_bytes(Hb *b, const int *opnd, int n)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += shape_unpadded_bytes(b->ins[opnd[i]].p->shape);
    return s;
}

/* Build and push an entry instruction from operand entry indexes. */
static int add_entry(Hb *b, const char *opcode, const char *prefix,
                     Xla__ShapeProto *shape, const int *opnd, int n,
                     const char *category, const char *attrs)
{
    Xla__HloInstructionProto *ops[4];
    for (int i = 0; i < n; i++)
        ops[i] = b->ins[opnd[i]].p;
    Xla__HloInstructionProto *p = mk(b, opcode, prefix, shape, ops, n);
    int idx = push_instr(b, p, category);
    Instr *in = &b->ins[idx];
    in->n_opnd = n;
    for (int i = 0; i < n; i++)
        in->opnd[i] = opnd[i];
    in->text = hlo_text(b, p, opnd, n, attrs);
    in->bytes = operand_bytes(b, opnd, n) + shape_unpadded_bytes(shape);
    return idx;
}

/* ------------------------------------------------------------ plain ops */

enum { K_ADD, K_MUL, K_SUB, K_MAX, K_EXP, K_CONVERT, K_COPY, K_TRANSPOSE,
       K_BROADCAST, K_DOT, K_REDUCE, K_NKINDS };

static void plain_op(Hb *b)
{
    static const char *const opc[K_NKINDS] = {
        "add", "multiply", "subtract", "maximum", "exponential", "convert",
        "copy", "transpose", "broadcast", "dot", "reduce"};
    static const char *const leaf[K_NKINDS] = {
        "add", "mul", "sub", "max", "exp", "convert_element_type", NULL,
        "transpose", "broadcast_in_dim", "dot_general", "reduce_sum"};
    int k = (int)rng_below(&b->rng, K_NKINDS);
    int a0 = pick_value(b);
    Xla__ShapeProto *s0 = b->ins[a0].p->shape;
    if (k == K_REDUCE && s0->n_dimensions < 2)
        k = K_EXP;
    int opnd[2] = {a0, a0};
    int n = 1;
    Xla__ShapeProto *shape = NULL;
    const char *cat = "non-fusion elementwise";
    const char *attrs = NULL;
    int64_t flops = shape_elements(s0);
    switch (k) {
    case K_ADD: case K_MUL: case K_SUB: case K_MAX:
        opnd[1] = pick_same_shape(b, a0);
        n = 2;
        shape = shape_clone(b->a, s0, 0);
        break;
    case K_EXP:
        shape = shape_clone(b->a, s0, 0);
        break;
    case K_CONVERT:
        shape = shape_clone(b->a, s0, s0->element_type == PT_F32 ? PT_BF16 : PT_F32);
        break;
    case K_COPY:
        shape = shape_clone(b->a, s0, 0);
        cat = "data formatting";
        flops = 0;
        break;
    case K_TRANSPOSE: {
        int64_t d[2] = {s0->dimensions[0], s0->dimensions[0]};
        int rank = (int)s0->n_dimensions;
        if (rank >= 2) {
            d[0] = s0->dimensions[1];
            d[1] = s0->dimensions[0];
            rank = 2;
        }
        shape = shape_array(b->a, s0->element_type, rank, d, 0);
        cat = "data formatting";
        attrs = rank == 2 ? ", dimensions={1,0}" : ", dimensions={0}";
        flops = 0;
        break;
    }
    case K_BROADCAST:
        opnd[0] = b->const_idx;
        shape = random_shape_of(b, PT_F32);
        cat = "broadcast";
        attrs = ", dimensions={}";
        flops = 0;
        break;
    case K_DOT: {
        opnd[1] = pick_value(b);
        n = 2;
        int64_t m = s0->dimensions[0];
        int64_t kk = s0->n_dimensions >= 2 ? s0->dimensions[1] : 1;
        int64_t d[2] = {m, COLS[rng_below(&b->rng, NELEM(COLS))]};
        shape = shape_array(b->a, s0->element_type, 2, d, 0);
        cat = "convolution";
        attrs = ", lhs_contracting_dims={1}, rhs_contracting_dims={0}";
        flops = 2 * m * kk * d[1];
        break;
    }
    case K_REDUCE: {
        opnd[1] = b->const_idx;
        n = 2;
        int64_t d[1] = {s0->dimensions[0]};
        shape = shape_array(b->a, PT_F32, 1, d, 0);
        cat = "reduce";
        Xla__HloComputationProto *r = region(b);
        attrs = arena_printf(b->a, ", dimensions={1}, to_apply=%%%s", r->name);
        break;
    }
    default:
        break;
    }
    int idx = add_entry(b, opc[k], opc[k], shape, opnd, n, cat, attrs);
    Instr *in = &b->ins[idx];
    in->flops = flops;
    if (k == K_REDUCE) {
        set_called(b, in->p, region(b)->id);
        int64_t dd[1] = {1};
        set_dims(b, in->p, dd, 1);
    } else if (k == K_TRANSPOSE) {
        int64_t dd[2] = {1, 0};
        if (shape->n_dimensions == 1)
            dd[0] = 0;
        set_dims(b, in->p, dd, (int)shape->n_dimensions);
    }
    /* compiler-inserted copies have no framework op (provenance ":") */
    if (leaf[k])
        in->p->metadata = make_meta(b, SCOPES[rng_below(&b->rng, NELEM(SCOPES))], leaf[k]);
    pool_add(b, idx);
}

/* A small slice staged into VMEM (memory space 1): gives the buffer
 * assignment color-1 buffers and the shape text an S(1). */
static void vmem_slice(Hb *b)
{
    int a0 = pick_value(b);
    Xla__ShapeProto *s0 = b->ins[a0].p->shape;
    int64_t d[2] = {8, 128};
    Xla__ShapeProto *shape = shape_array(b->a, s0->element_type, 2, d, 1);
    int opnd[1] = {a0};
    int idx = add_entry(b, "slice", "slice", shape, opnd, 1, "data formatting",
                        ", slice={[0:8], [0:128]}");
    b->ins[idx].vmem = 1;
    b->ins[idx].p->metadata = make_meta(b, "transformer/layer_0/attention", "slice");
    pool_add(b, idx);
}

static void custom_call(Hb *b)
{
    int a0 = pick_value(b);
    int opnd[1] = {a0};
    Xla__ShapeProto *shape = shape_clone(b->a, b->ins[a0].p->shape, 0);
    int idx = add_entry(b, "custom-call", "custom-call", shape, opnd, 1, "custom-call",
                        ", custom_call_target=\"tpu_custom_call\"");
    Instr *in = &b->ins[idx];
    in->p->custom_call_target = (char *)"tpu_custom_call";
    static const char cfg[] = "{\"custom_call_config\": {\"body\": \"\"}}";
    in->p->backend_config.data = (uint8_t *)arena_memdup(b->a, cfg, sizeof cfg - 1);
    in->p->backend_config.len = sizeof cfg - 1;
    in->p->metadata = make_meta(b, "transformer/layer_1/attention", "pallas_call");
    in->flops = 4 * shape_elements(shape);
    pool_add(b, idx);
}

/* ------------------------------------------------------------ fusions */

/* An elementwise chain inside a fused computation; returns the new tail. */
static Xla__HloInstructionProto *fused_ew(Hb *b, const char *opcode,
                                         Xla__HloInstructionProto *x,
                                         Xla__HloInstructionProto *y, int64_t *flops)
{
    Xla__HloInstructionProto *ops[2] = {x, y ? y : x};
    int n = y ? 2 : 1;
    Xla__HloInstructionProto *p = mk(b, opcode, opcode, shape_clone(b->a, x->shape, 0), ops, n);
    p->metadata = make_meta(b, "transformer/layer_0/mlp", opcode);
    *flops += shape_elements(x->shape);
    return p;
}

/* Nested fused computation of 2-3 instructions: param, exp[, negate]. */
static Xla__HloComputationProto *nested_fused(Hb *b, Xla__ShapeProto *pshape, int64_t *flops)
{
    Xla__HloInstructionProto *ins[3];
    size_t n = 0;
    ins[n++] = mk(b, "parameter", "param_0", pshape, NULL, 0);
    ins[n] = fused_ew(b, "exponential", ins[n - 1], NULL, flops);
    n++;
    if (rng_below(&b->rng, 2)) {
        ins[n] = fused_ew(b, "negate", ins[n - 1], NULL, flops);
        n++;
    }
    b->n_fused_comps++;
    return finish_comp(b, arena_printf(b->a, "fused_computation.%d", b->n_fused_comps),
                       ins, n, 1);
}

enum { F_LOOP, F_OUTPUT, F_CUSTOM, F_MOF };

/* One entry fusion and its fused computation (2-5 instructions). */
static int fusion(Hb *b, int kind, int nested)
{
    static const char *const kinds[] = {"kLoop", "kOutput", "kCustom", "kLoop"};
    static const char *const cats[] = {"loop fusion", "convolution fusion",
                                       "custom fusion", "loop fusion"};
    int a0 = pick_value(b);
    int nparams = (kind == F_CUSTOM) ? 1 : 2;
    int opnd[2] = {a0, kind == F_OUTPUT ? pick_value(b) : pick_same_shape(b, a0)};
    Xla__HloInstructionProto *ins[5];
    size_t n = 0;
    int64_t flops = 0;
    for (int i = 0; i < nparams; i++) {
        ins[n] = mk(b, "parameter", i ? "param_1" : "param_0",
                    b->ins[opnd[i]].p->shape, NULL, 0);
        ins[n]->parameter_number = i;
        n++;
    }
    Xla__HloInstructionProto *p0 = ins[0], *p1 = ins[nparams - 1];
    if (kind == F_MOF) {
        ins[n] = fused_ew(b, "add", p0, p1, &flops);
        n++;
        ins[n] = fused_ew(b, "multiply", ins[n - 1], p0, &flops);
        n++;
        Xla__ShapeProto *el[2] = {ins[2]->shape, ins[3]->shape};
        ins[n] = mk(b, "tuple", "tuple", shape_tuple(b->a, el, 2), &ins[2], 2);
        n++;
    } else {
        size_t budget = 5 - n;
        if (kind == F_OUTPUT) {
            const Xla__ShapeProto *s0 = p0->shape;
            int64_t m = s0->dimensions[0];
            int64_t kk = s0->n_dimensions >= 2 ? s0->dimensions[1] : 1;
            int64_t d[2] = {m, COLS[rng_below(&b->rng, NELEM(COLS))]};
            Xla__HloInstructionProto *ops[2] = {p0, p1};
            ins[n] = mk(b, "convolution", "convolution",
                        shape_array(b->a, s0->element_type, 2, d, 0), ops, 2);
            ins[n]->metadata = make_meta(b, "transformer/layer_0/mlp", "dot_general");
            flops += 2 * m * kk * d[1];
            n++;
            budget--;
        }
        if (nested) {
            Xla__HloComputationProto *c = nested_fused(b, ins[n - 1]->shape, &flops);
            Xla__HloInstructionProto *x = ins[n - 1];
            ins[n] = mk(b, "fusion", "fusion", c->program_shape->result, &x, 1);
            ins[n]->fusion_kind = (char *)"kLoop";
            set_called(b, ins[n], c->id);
            n++;
            budget--;
        }
        size_t extra = (size_t)rng_range(&b->rng, (kind == F_LOOP && !nested) ? 1 : 0,
                                         (int64_t)(budget < 2 ? budget : 2));
        static const char *const ew[] = {"multiply", "add", "maximum", "tanh"};
        for (size_t i = 0; i < extra; i++) {
            const char *op = ew[rng_below(&b->rng, NELEM(ew))];
            Xla__HloInstructionProto *y = NULL;
            if (strcmp(op, "tanh") && shape_same(ins[n - 1]->shape, p0->shape))
                y = p0;
            ins[n] = fused_ew(b, op, ins[n - 1], y, &flops);
            n++;
        }
        if (n == (size_t)nparams) /* kCustom with no body yet */
            ins[n++] = fused_ew(b, "tanh", p0, NULL, &flops);
    }
    b->n_fused_comps++;
    Xla__HloComputationProto *c = finish_comp(
        b, arena_printf(b->a, "fused_computation.%d", b->n_fused_comps), ins, n, 1);

    const char *attrs = arena_printf(b->a, ", kind=%s, calls=%%%s", kinds[kind], c->name);
    int idx = add_entry(b, "fusion", "fusion", c->program_shape->result, opnd, nparams,
                        cats[kind], attrs);
    Instr *in = &b->ins[idx];
    in->p->fusion_kind = (char *)kinds[kind];
    set_called(b, in->p, c->id);
    in->flops = flops;
    Xla__OpMetadata *rm = ins[n - 1]->metadata;
    in->p->metadata = make_meta(b, SCOPES[rng_below(&b->rng, NELEM(SCOPES))],
                                rm ? strrchr(rm->op_name, '/') + 1 : "mul");
    return idx;
}

/* Multi-output fusion, read back through two get-tuple-elements. */
static void mof_with_gtes(Hb *b)
{
    int f = fusion(b, F_MOF, 0);
    for (int i = 0; i < 2; i++) {
        Xla__ShapeProto *s = b->ins[f].p->shape->tuple_shapes[i];
        int opnd[1] = {f};
        const char *attrs = arena_printf(b->a, ", index=%d", i);
        int g = add_entry(b, "get-tuple-element", "get-tuple-element", s, opnd, 1, NULL, attrs);
        b->ins[g].p->tuple_index = i;
        b->ins[g].gte_src = f;
        b->ins[g].bytes = 0;
        pool_add(b, g);
    }
}

/* ------------------------------------------------------------ collectives */

static void set_groups_explicit(Hb *b, Xla__HloInstructionProto *p, int gsize, StrBuf *t)
{
    int ng = b->devices / gsize;
    p->n_replica_groups = (size_t)ng;
    p->replica_groups = ANEWN(b->a, Xla__ReplicaGroup *, ng);
    sb_puts(t, ", replica_groups={");
    for (int g = 0; g < ng; g++) {
        Xla__ReplicaGroup *rg = new_rgroup(b->a);
        rg->n_replica_ids = (size_t)gsize;
        rg->replica_ids = ANEWN(b->a, int64_t, gsize);
        sb_puts(t, g ? ",{" : "{");
        for (int j = 0; j < gsize; j++) {
            rg->replica_ids[j] = g * gsize + j;
            sb_printf(t, "%s%d", j ? "," : "", g * gsize + j);
        }
        sb_puts(t, "}");
        p->replica_groups[g] = rg;
    }
    sb_puts(t, "}");
}

/* Iota form [ng,gsize]<=[gsize,ng]T(1,0): groups {g, g+ng, ...}. */
static void set_groups_iota(Hb *b, Xla__HloInstructionProto *p, int gsize, StrBuf *t)
{
    int ng = b->devices / gsize;
    Xla__IotaReplicaGroupListProto *io = new_iota(b->a);
    io->num_replica_groups = ng;
    io->num_devices_per_group = gsize;
    if (ng > 1) {
        io->n_iota_reshape_dims = 2;
        io->iota_reshape_dims = ANEWN(b->a, int64_t, 2);
        io->iota_reshape_dims[0] = gsize;
        io->iota_reshape_dims[1] = ng;
        io->n_iota_transpose_perm = 2;
        io->iota_transpose_perm = ANEWN(b->a, int32_t, 2);
        io->iota_transpose_perm[0] = 1;
        io->iota_transpose_perm[1] = 0;
        sb_printf(t, ", replica_groups=[%d,%d]<=[%d,%d]T(1,0)", ng, gsize, gsize, ng);
    } else {
        io->n_iota_reshape_dims = 1;
        io->iota_reshape_dims = ANEWN(b->a, int64_t, 1);
        io->iota_reshape_dims[0] = gsize;
        sb_printf(t, ", replica_groups=[1,%d]<=[%d]", gsize, gsize);
    }
    Xla__CollectiveDeviceListProto *cdl = new_cdl(b->a);
    cdl->iota_replica_group_list = io;
    p->collective_device_list = cdl;
}

/* k-th collective of the module; kinds cycle through six forms. */
static void collective(Hb *b, int k)
{
    static const char *const opc[] = {"all-reduce", "all-gather", "reduce-scatter",
                                      "all-to-all", "collective-permute",
                                      "all-reduce-start"};
    static const char *const leaf[] = {"psum", "all_gather", "reduce_scatter",
                                       "all_to_all", "ppermute", "psum"};
    int kind = k % 6;
    int a0 = pick_value(b);
    Xla__ShapeProto *s0 = b->ins[a0].p->shape;
    int gsize = (b->devices >= 2 && b->devices % 2 == 0) ? 2 : b->devices;
    Xla__ShapeProto *shape;
    if (kind == 1 || kind == 2) {
        int64_t d[4];
        int rank = (int)s0->n_dimensions;
        for (int i = 0; i < rank; i++)
            d[i] = s0->dimensions[i];
        d[0] = kind == 1 ? d[0] * gsize : (d[0] / gsize ? d[0] / gsize : 1);
        shape = shape_array(b->a, s0->element_type, rank, d, 0);
    } else {
        shape = shape_clone(b->a, s0, 0);
    }
    /* ops first: attributes are appended after the text is built */
    int opnd[1] = {a0};
    int idx = add_entry(b, opc[kind], opc[kind], shape, opnd, 1, NULL, NULL);
    Instr *in = &b->ins[idx];
    Xla__HloInstructionProto *p = in->p;
    StrBuf t = {0};
    sb_puts(&t, in->text);
    if (kind == 4) {
        int n = b->devices;
        p->n_source_target_pairs = (size_t)n;
        p->source_target_pairs = ANEWN(b->a, Xla__SourceTarget *, n);
        sb_puts(&t, ", source_target_pairs={");
        for (int i = 0; i < n; i++) {
            Xla__SourceTarget *st = new_st(b->a);
            st->source = i;
            st->target = (i + 1) % n;
            p->source_target_pairs[i] = st;
            sb_printf(&t, "%s{%d,%d}", i ? "," : "", i, (i + 1) % n);
        }
        sb_puts(&t, "}");
    } else if (k % 2 == 0) {
        set_groups_explicit(b, p, gsize, &t);
    } else {
        set_groups_iota(b, p, gsize, &t);
    }
    if (kind == 1 || kind == 2 || kind == 3) {
        int64_t d[1] = {0};
        set_dims(b, p, d, 1);
        sb_puts(&t, ", dimensions={0}");
    }
    if (k % 2 == 1 || kind == 4) {
        p->channel_id = k + 1;
        sb_printf(&t, ", channel_id=%d", k + 1);
        if (k % 4 == 3 && kind != 4) {
            p->use_global_device_ids = 1;
            sb_puts(&t, ", use_global_device_ids=true");
        }
    }
    if (kind == 0 || kind == 2 || kind == 5) {
        set_called(b, p, region(b)->id);
        sb_printf(&t, ", to_apply=%%%s", region(b)->name);
    }
    in->text = sb_arena(&t, b->a);
    sb_free(&t);
    in->category = kind == 5 ? "all-reduce" : opc[kind];
    in->flops = (kind == 0 || kind == 2 || kind == 5) ? shape_elements(s0) : 0;
    p->metadata = make_meta(b, "optimizer/adam", leaf[kind]);
    if (kind != 5) {
        pool_add(b, idx);
        return;
    }
    in->is_start = 1;
    int dop[1] = {idx};
    int d = add_entry(b, "all-reduce-done", "all-reduce-done", shape_clone(b->a, shape, 0),
                      dop, 1, "all-reduce", NULL);
    b->ins[d].p->metadata = make_meta(b, "optimizer/adam", "psum");
    pool_add(b, d);
}

/* ------------------------------------------------------------ entry */

enum { S_PLAIN, S_MOF, S_FUSION, S_NESTED, S_COLL };

static void build_entry(Hb *b)
{
    const Options *o = b->o;
    /* N plain ops (get-tuple-elements included); parameters, the constant
     * and the ROOT tuple come on top */
    int N = o->instructions;
    int P = N / 6;
    P = P < 2 ? 2 : (P > 4 ? 4 : P);
    int M = N;
    int F = o->fusions, C = o->collectives;
    int nested = o->nested_fusions > F ? F : o->nested_fusions;
    int mof = (F > nested && M >= 2) ? 1 : 0;
    int plain = M - 2 * mof;

    b->cap_ins = (size_t)(P + N + F + 2 * C + 8);
    b->ins = ANEWN(b->a, Instr, b->cap_ins);
    b->pool = ANEWN(b->a, int, b->cap_ins);

    for (int i = 0; i < P; i++) {
        char prefix[16];
        snprintf(prefix, sizeof prefix, "Arg_%d", i);
        int idx = add_entry(b, "parameter", arena_strdup(b->a, prefix), random_shape(b),
                            NULL, 0, NULL, NULL);
        Instr *in = &b->ins[idx];
        in->p->parameter_number = i;
        in->text = arena_printf(b->a, "%%%s = %s parameter(%d)", in->p->name,
                                shape_string(b->a, in->p->shape), i);
        /* parameters carry the pytree path as op_name (format-facts §4) */
        Xla__OpMetadata *m = new_meta(b->a);
        m->op_name = arena_printf(b->a, "state.params['layer_%d']['kernel']", i);
        in->p->metadata = m;
        pool_add(b, idx);
    }
    b->const_idx = add_entry(b, "constant", "constant", scalar_shape(b), NULL, 0, NULL, NULL);
    b->ins[b->const_idx].text =
        arena_printf(b->a, "%%%s = %s constant(0)", b->ins[b->const_idx].p->name,
                     shape_string(b->a, b->ins[b->const_idx].p->shape));

    /* slot list: shuffled so the kinds interleave like a real schedule */
    int n_slots = plain + mof + (F - mof) + C;
    int *slots = ANEWN(b->a, int, n_slots);
    int s = 0;
    for (int i = 0; i < plain; i++)
        slots[s++] = S_PLAIN;
    if (mof)
        slots[s++] = S_MOF;
    for (int i = 0; i < F - mof; i++)
        slots[s++] = i < nested ? S_NESTED : S_FUSION;
    for (int i = 0; i < C; i++)
        slots[s++] = S_COLL;
    for (int i = n_slots - 1; i > 0; i--) {
        int j = (int)rng_below(&b->rng, (uint64_t)i + 1);
        int t = slots[i];
        slots[i] = slots[j];
        slots[j] = t;
    }
    int n_plain = 0, n_fus = 0, n_coll = 0;
    for (int i = 0; i < n_slots; i++) {
        switch (slots[i]) {
        case S_PLAIN:
            /* plain slots #1 and #3 stage into VMEM, #4 is a Pallas kernel */
            if ((n_plain == 1 && plain >= 3) || (n_plain == 3 && plain >= 6))
                vmem_slice(b);
            else if (n_plain == 4 && plain >= 8)
                custom_call(b);
            else
                plain_op(b);
            n_plain++;
            break;
        case S_MOF:
            mof_with_gtes(b);
            break;
        case S_NESTED:
        case S_FUSION: {
            static const int cyc[] = {F_OUTPUT, F_LOOP, F_CUSTOM};
            fusion(b, cyc[n_fus % 3], slots[i] == S_NESTED);
            n_fus++;
            break;
        }
        default:
            collective(b, n_coll++);
            break;
        }
    }

    /* ROOT tuple of the two latest eligible values: they become live-out */
    int roots[2], nr = 0;
    for (int i = (int)b->n_ins - 1; i >= 0 && nr < 2; i--) {
        Instr *in = &b->ins[i];
        const char *op = in->p->opcode;
        if (in->vmem || in->is_start || in->gte_src >= 0 || in->p->shape->element_type == PT_TUPLE ||
            !strcmp(op, "parameter") || !strcmp(op, "constant"))
            continue;
        roots[nr++] = i;
    }
    Xla__ShapeProto *el[2];
    for (int i = 0; i < nr; i++)
        el[i] = b->ins[roots[i]].p->shape;
    add_entry(b, "tuple", "tuple", shape_tuple(b->a, el, (size_t)nr), roots, nr, NULL, NULL);
}

/* ------------------------------------------------------------ buffers */

static int new_lb(Hb *b, int ins, int shape_index, const Xla__ShapeProto *s, int klass)
{
    Lb *l = &b->lbs[b->n_lbs];
    memset(l, 0, sizeof *l);
    l->size = shape_padded_bytes(s);
    l->ins = ins;
    l->instr_id = ins >= 0 ? b->ins[ins].p->id : 0;
    l->shape_index = shape_index;
    l->elem = s->element_type;
    l->klass = klass;
    l->color = klass == LB_VMEM ? 1 : 0;
    l->def_step = l->last_use = ins;
    l->share_with = -1;
    return (int)b->n_lbs++;
}

static void touch(Hb *b, int lb, int step)
{
    if (lb >= 0 && b->lbs[lb].last_use < step)
        b->lbs[lb].last_use = step;
}

static void define_buffers(Hb *b)
{
    b->lbs = ANEWN(b->a, Lb, 3 * b->n_ins + 2);
    for (size_t i = 0; i < b->n_ins; i++) {
        Instr *in = &b->ins[i];
        const char *op = in->p->opcode;
        Xla__ShapeProto *s = in->p->shape;
        if (in->gte_src >= 0)
            continue; /* aliases an element of its tuple producer */
        int klass = !strcmp(op, "parameter") ? LB_PARAM
                    : !strcmp(op, "constant") ? LB_CONST
                    : in->vmem ? LB_VMEM : LB_TEMP;
        if (i == b->n_ins - 1)
            klass = LB_OUTPUT; /* ROOT tuple table */
        in->lb[0] = new_lb(b, (int)i, -1, s, klass);
        if (s->element_type == PT_TUPLE && i != b->n_ins - 1)
            for (size_t k = 0; k < s->n_tuple_shapes && k < 2; k++)
                in->lb[k + 1] = new_lb(b, (int)i, (int)k, s->tuple_shapes[k], klass);
    }
    /* last uses; the ROOT's operands become live-out */
    for (size_t j = 0; j < b->n_ins; j++) {
        Instr *in = &b->ins[j];
        for (int k = 0; k < in->n_opnd; k++) {
            Instr *src = &b->ins[in->opnd[k]];
            int lb = src->lb[0];
            if (src->gte_src >= 0) {
                Instr *t = &b->ins[src->gte_src];
                touch(b, t->lb[0], (int)j);
                lb = t->lb[1 + src->p->tuple_index];
            }
            touch(b, lb, (int)j);
            if (j == b->n_ins - 1 && lb >= 0)
                b->lbs[lb].klass = LB_OUTPUT;
        }
    }
    /* the region's reduction result is thread-local scratch */
    if (b->region) {
        Xla__HloInstructionProto *root = b->region->instructions[b->region->n_instructions - 1];
        int l = new_lb(b, -1, -1, root->shape, LB_THREAD_LOCAL);
        b->lbs[l].instr_id = root->id;
    }
}

/* Choose SHARE_WITH pairs among traced buffers, both kinds XProf handles
 * (format-facts §5 step 3): with a canonical still live (in-place reuse of a
 * dying operand) and with one already freed (its memory comes back). */
static void choose_shares(Hb *b, int n_traced)
{
    int quota = n_traced / 8 > 1 ? n_traced / 8 : 1;
    int live = 0, freed = 0;
    for (size_t bi = 0; bi < b->n_lbs; bi++) {
        Lb *B = &b->lbs[bi];
        if (!B->traced || B->shape_index >= 0 || B->n_sharers || B->elem == PT_TUPLE)
            continue;
        Instr *in = &b->ins[B->ins];
        int done = 0;
        if (live < quota) {
            for (int k = 0; k < in->n_opnd && !done; k++) {
                int ci = b->ins[in->opnd[k]].lb[0];
                if (ci < 0 || b->ins[in->opnd[k]].gte_src >= 0)
                    continue;
                Lb *C = &b->lbs[ci];
                if (C->traced && C->klass == B->klass && C->share_with < 0 && !C->n_sharers &&
                    C->size == B->size && C->last_use == B->def_step && C->shape_index < 0) {
                    B->share_with = ci;
                    B->share_kind = 1;
                    C->n_sharers++;
                    live++;
                    done = 1;
                }
            }
        }
        if (!done && freed < quota) {
            int best = -1;
            for (size_t ci = 0; ci < bi; ci++) {
                Lb *C = &b->lbs[ci];
                if (C->traced && C->klass == B->klass && C->share_with < 0 && !C->n_sharers &&
                    C->size == B->size && C->last_use < B->def_step && C->shape_index < 0 &&
                    (best < 0 || C->last_use > b->lbs[best].last_use))
                    best = (int)ci;
            }
            if (best >= 0) {
                B->share_with = best;
                B->share_kind = 2;
                b->lbs[best].n_sharers++;
                freed++;
            }
        }
    }
}

/* First-fit placement inside one allocation, replaying the trace order.
 * `live` holds the placed intervals (end == off when free). */
typedef struct {
    int64_t off, end;
} Span;

static int span_cmp(const void *x, const void *y)
{
    const Span *a = x, *b = y;
    return (a->off > b->off) - (a->off < b->off);
}

static int64_t first_fit(const Span *live, size_t n, Span *tmp, int64_t size)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (live[i].end > live[i].off)
            tmp[k++] = live[i];
    qsort(tmp, k, sizeof *tmp, span_cmp);
    int64_t at = 0;
    for (size_t i = 0; i < k; i++) {
        if (at + size <= tmp[i].off)
            break;
        if (tmp[i].end > at)
            at = (tmp[i].end + 511) / 512 * 512;
    }
    return at;
}

typedef struct {
    Xla__HeapSimulatorTrace__Event **ev;
    size_t n, cap;
} EvList;

static void ev_push(Hb *b, EvList *L, int kind, int lb, int share, int step)
{
    if (L->n == L->cap)
        die("internal: heap event capacity exceeded");
    Xla__HeapSimulatorTrace__Event *e = new_hevent(b->a);
    e->kind = kind;
    e->buffer_id = lb;
    e->share_with_canonical_id = share;
    e->computation_name = b->comps[b->n_comps - 1]->name;
    e->instruction_name = b->ins[step].p->name;
    L->ev[L->n++] = e;
}

/* Buffers of a class ordered by a step key, for one pass over the schedule. */
static int *order_by(Hb *b, int klass, int by_last_use)
{
    int *ord = ANEWN(b->a, int, b->n_lbs);
    size_t *count = ANEWN(b->a, size_t, b->n_ins + 1);
    for (size_t i = 0; i < b->n_lbs; i++) {
        Lb *l = &b->lbs[i];
        if (l->klass == klass && l->traced)
            count[(by_last_use ? l->last_use : l->def_step) + 1]++;
    }
    for (size_t s = 1; s <= b->n_ins; s++)
        count[s] += count[s - 1];
    for (size_t i = 0; i < b->n_lbs; i++) {
        Lb *l = &b->lbs[i];
        if (l->klass == klass && l->traced)
            ord[count[by_last_use ? l->last_use : l->def_step]++] = (int)i;
    }
    return ord;
}

/* Trace the traced buffers of class `klass`: at each schedule step, first
 * the buffers it defines (ALLOC or SHARE_WITH), then those whose last use it
 * is (FREE). Assigns offsets by first fit (high-water mark in *hw); untraced
 * buffers of the class are placed after the high-water mark. */
static EvList trace_class(Hb *b, int klass, int64_t *hw)
{
    EvList L = {0};
    L.cap = 2 * b->n_lbs + 2;
    L.ev = ANEWN(b->a, Xla__HeapSimulatorTrace__Event *, L.cap);
    Span *live = ANEWN(b->a, Span, b->n_lbs);
    Span *tmp = ANEWN(b->a, Span, b->n_lbs);
    int *defs = order_by(b, klass, 0), *frees = order_by(b, klass, 1);
    size_t n_tr = 0, di = 0, fi = 0;
    for (size_t i = 0; i < b->n_lbs; i++)
        n_tr += b->lbs[i].klass == klass && b->lbs[i].traced;
    int64_t top = 0;
    for (size_t step = 0; step < b->n_ins; step++) {
        for (; di < n_tr && b->lbs[defs[di]].def_step == (int)step; di++) {
            int i = defs[di];
            Lb *l = &b->lbs[i];
            if (l->share_with >= 0) {
                l->offset = b->lbs[l->share_with].offset;
                ev_push(b, &L, HE_SHARE, i, l->share_with, (int)step);
                continue;
            }
            l->offset = first_fit(live, b->n_lbs, tmp, l->size);
            /* a canonical stays placed until its last sharer frees it */
            l->refs = 1 + l->n_sharers;
            live[i].off = l->offset;
            live[i].end = l->offset + l->size;
            if (live[i].end > top)
                top = live[i].end;
            ev_push(b, &L, HE_ALLOC, i, 0, (int)step);
        }
        for (; fi < n_tr && b->lbs[frees[fi]].last_use == (int)step; fi++) {
            int i = frees[fi];
            Lb *l = &b->lbs[i];
            ev_push(b, &L, HE_FREE, i, 0, (int)step);
            int root = l->share_with >= 0 ? l->share_with : i;
            if (--b->lbs[root].refs == 0)
                live[root].off = live[root].end = 0;
        }
    }
    top = (top + 511) / 512 * 512;
    for (size_t i = 0; i < b->n_lbs; i++) {
        Lb *l = &b->lbs[i];
        if (l->klass != klass || l->traced)
            continue;
        l->offset = top;
        top = (top + l->size + 511) / 512 * 512;
    }
    *hw = top;
    return L;
}

static Xla__BufferAllocationProto *alloc_for(Hb *b, int64_t index, int64_t size, int color)
{
    Xla__BufferAllocationProto *al = new_alloc(b->a);
    al->index = index;
    al->size = size;
    al->color = color;
    return al;
}

static void assign(Hb *b, Xla__BufferAllocationProto *al, const int *lbs, size_t n)
{
    al->n_assigned = n;
    al->assigned = ANEWN(b->a, Xla__BufferAllocationProto__Assigned *, n);
    for (size_t i = 0; i < n; i++) {
        Lb *l = &b->lbs[lbs[i]];
        Xla__BufferAllocationProto__Assigned *as = new_assigned(b->a);
        as->logical_buffer_id = lbs[i];
        as->offset = l->offset;
        as->size = l->size;
        as->element_type = l->elem;
        al->assigned[i] = as;
    }
}

static Xla__BufferAssignmentProto *buffer_assignment(Hb *b, ModuleInfo *mi)
{
    const Options *o = b->o;
    Arena *a = b->a;
    define_buffers(b);

    /* trace the first ceil(heap_events/2) temp buffers, in schedule order */
    int want = o->heap_traces > 0 ? (o->heap_events + 1) / 2 : 0, n_traced = 0;
    for (size_t i = 0; i < b->n_lbs && n_traced < want; i++)
        if (b->lbs[i].klass == LB_TEMP) {
            b->lbs[i].traced = 1;
            n_traced++;
        }
    for (size_t i = 0; i < b->n_lbs; i++)
        if (b->lbs[i].klass == LB_VMEM)
            b->lbs[i].traced = o->heap_traces >= 2;
    choose_shares(b, n_traced);
    int64_t temp_size = 0, vmem_size = 0;
    EvList main_ev = trace_class(b, LB_TEMP, &temp_size);
    EvList vmem_ev = trace_class(b, LB_VMEM, &vmem_size);

    Xla__BufferAssignmentProto *ba = new_ba(a);
    ba->n_logical_buffers = b->n_lbs;
    ba->logical_buffers = ANEWN(a, Xla__LogicalBufferProto *, b->n_lbs);
    for (size_t i = 0; i < b->n_lbs; i++) {
        Lb *l = &b->lbs[i];
        Xla__LogicalBufferProto *p = new_lbp(a);
        p->id = (int64_t)i; /* id 0 exists and is absent on the wire */
        p->size = l->size;
        p->color = l->color;
        p->defined_at = new_loc(a);
        p->defined_at->instruction_id = l->instr_id;
        if (l->shape_index >= 0) {
            p->defined_at->n_shape_index = 1;
            p->defined_at->shape_index = ANEWN(a, int64_t, 1);
            p->defined_at->shape_index[0] = l->shape_index;
        }
        ba->logical_buffers[i] = p;
    }

    /* allocations: parameters, constant, outputs, thread-local, temp, VMEM */
    Xla__BufferAllocationProto **al = ANEWN(a, Xla__BufferAllocationProto *, b->n_lbs + 4);
    int *ids = ANEWN(a, int, b->n_lbs);
    size_t na = 0;
    int64_t temp_index = -1;
    for (size_t i = 0; i < b->n_lbs; i++) {
        Lb *l = &b->lbs[i];
        if (l->klass == LB_TEMP || l->klass == LB_VMEM)
            continue;
        Xla__BufferAllocationProto *x = alloc_for(b, (int64_t)na, l->size, l->color);
        int one[1] = {(int)i};
        l->offset = 0;
        if (l->klass == LB_PARAM) {
            x->is_entry_computation_parameter = 1;
            x->parameter_number = b->ins[l->ins].p->parameter_number;
        } else if (l->klass == LB_CONST) {
            x->is_constant = 1;
        } else if (l->klass == LB_OUTPUT) {
            x->maybe_live_out = 1;
            x->is_tuple = l->elem == PT_TUPLE;
        } else {
            x->is_thread_local = 1;
        }
        assign(b, x, one, 1);
        al[na++] = x;
    }
    for (int pass = 0; pass < 2; pass++) {
        int klass = pass ? LB_VMEM : LB_TEMP;
        size_t n = 0;
        for (size_t i = 0; i < b->n_lbs; i++)
            if (b->lbs[i].klass == klass)
                ids[n++] = (int)i;
        if (!n)
            continue;
        if (!pass)
            temp_index = (int64_t)na;
        Xla__BufferAllocationProto *x =
            alloc_for(b, (int64_t)na, pass ? vmem_size : temp_size, pass ? 1 : 0);
        assign(b, x, ids, n);
        al[na++] = x;
    }
    ba->n_buffer_allocations = na;
    ba->buffer_allocations = al;

    /* heap traces: main temp, then VMEM, then empty ones */
    size_t nt = o->heap_traces > 0 ? (size_t)o->heap_traces : 0;
    ba->n_heap_simulator_traces = nt;
    ba->heap_simulator_traces = ANEWN(a, Xla__HeapSimulatorTrace *, nt);
    for (size_t t = 0; t < nt; t++) {
        Xla__HeapSimulatorTrace *tr = new_trace(a);
        EvList *L = t == 0 ? &main_ev : (t == 1 ? &vmem_ev : NULL);
        if (L) {
            tr->n_events = L->n;
            tr->events = L->ev;
        }
        tr->whole_module_simulation = t == 0;
        tr->buffer_allocation_index = t == 0 && temp_index >= 0 ? temp_index : 0;
        ba->heap_simulator_traces[t] = tr;
        for (size_t e = 0; e < tr->n_events; e++) {
            mi->n_heap_events++;
            switch (tr->events[e]->kind) {
            case HE_ALLOC:
                mi->n_heap_alloc++;
                break;
            case HE_FREE:
                mi->n_heap_free++;
                break;
            default:
                if (b->lbs[tr->events[e]->buffer_id].share_kind == 1)
                    mi->n_share_live++;
                else
                    mi->n_share_freed++;
            }
        }
    }
    mi->n_heap_traces = nt;
    mi->n_logical_buffers = b->n_lbs;
    mi->n_allocations = na;
    return ba;
}

/* ------------------------------------------------------------ module */

static Xla__StackFrameIndexProto *stack_frames(Hb *b)
{
    Arena *a = b->a;
    Xla__StackFrameIndexProto *s = new_sfi(a);
    static const char *const funcs[] = {"train_step", "__call__", "mlp"};
    s->n_file_names = NELEM(SOURCE_FILES);
    s->file_names = (char **)SOURCE_FILES;
    s->n_function_names = NELEM(funcs);
    s->function_names = (char **)funcs;
    b->n_frames = 3;
    s->n_file_locations = s->n_stack_frames = 3;
    s->file_locations = ANEWN(a, Xla__StackFrameIndexProto__FileLocation *, 3);
    s->stack_frames = ANEWN(a, Xla__StackFrameIndexProto__StackFrame *, 3);
    for (int i = 0; i < 3; i++) {
        Xla__StackFrameIndexProto__FileLocation *f = new_floc(a);
        f->file_name_id = i + 1;
        f->function_name_id = i + 1;
        f->line = 40 + 17 * i;
        f->column = 4;
        s->file_locations[i] = f;
        Xla__StackFrameIndexProto__StackFrame *fr = new_frame(a);
        fr->file_location_id = i + 1;
        fr->parent_frame_id = i; /* frame 1 is the outermost */
        s->stack_frames[i] = fr;
    }
    return s;
}

static void count_module(const Xla__HloModuleProto *m, ModuleInfo *mi)
{
    mi->n_computations = m->n_computations;
    for (size_t c = 0; c < m->n_computations; c++) {
        const Xla__HloComputationProto *comp = m->computations[c];
        mi->n_instructions += comp->n_instructions;
        for (size_t i = 0; i < comp->n_instructions; i++) {
            const char *op = comp->instructions[i]->opcode;
            mi->n_fusions += !strcmp(op, "fusion");
            mi->n_collectives += (size_t)is_collective(op);
        }
    }
}

/* Base device time of an op from a v6e-like roofline: 918 TFLOP/s, 1.6 TB/s. */
static int64_t base_ps(const Instr *in)
{
    return 2000 + in->bytes * 5 / 8 + in->flops / 918;
}

static void timed_ops(Hb *b, ModuleInfo *mi)
{
    mi->ops = ANEWN(b->a, TimedOp, b->n_ins);
    for (size_t i = 0; i < b->n_ins; i++) {
        Instr *in = &b->ins[i];
        if (!in->category)
            continue;
        TimedOp *t = &mi->ops[mi->n_ops++];
        Xla__OpMetadata *m = in->p->metadata;
        t->name = in->p->name;
        t->text = in->text;
        t->category = in->category;
        t->shape = shape_string(b->a, in->p->shape);
        t->tf_op = arena_printf(b->a, "%s:", m && m->op_name ? m->op_name : "");
        t->source = m && m->source_file && m->source_file[0]
                        ? arena_printf(b->a, "%s:%d", m->source_file, m->source_line)
                        : NULL;
        t->flops = in->flops;
        t->bytes_accessed = in->bytes;
        t->symbol_id = (uint64_t)i + 1;
        t->base_ps = base_ps(in);
        t->is_all_reduce = !strncmp(in->p->opcode, "all-reduce", 10);
    }
    mi->sample_shape = mi->n_ops ? mi->ops[0].shape : "f32[8,128]{1,0:T(8,128)}";
    mi->sample_tf_op = mi->n_ops ? mi->ops[0].tf_op : "dummy";
}

static void build_module(const Options *o, Arena *a, int m, ModuleInfo *mi)
{
    Hb hb;
    memset(&hb, 0, sizeof hb);
    Hb *b = &hb;
    b->a = a;
    b->o = o;
    b->rng = rng_make(o->seed, 100 + (uint64_t)m);
    b->devices = o->cores * (o->hosts > 1 ? o->hosts : 1);
    if (b->devices < 1)
        b->devices = 1;
    size_t nn = NELEM(MODULE_NAMES);
    mi->name = (size_t)m < nn ? arena_strdup(a, MODULE_NAMES[m])
                              : arena_printf(a, "%s_%d", MODULE_NAMES[(size_t)m % nn], m / (int)nn);
    b->fn = mi->name + 4; /* "jit_" */
    mi->module_id = 30 + m;

    Xla__HloModuleProto *mod = new_module(a);
    mod->stack_frame_index = stack_frames(b);
    build_entry(b);

    Xla__HloInstructionProto **ins = ANEWN(a, Xla__HloInstructionProto *, b->n_ins);
    for (size_t i = 0; i < b->n_ins; i++)
        ins[i] = b->ins[i].p;
    Xla__HloComputationProto *entry =
        finish_comp(b, arena_printf(a, "main.%lld", (long long)b->uid + 1), ins, b->n_ins, 0);

    mod->name = mi->name;
    mod->id = mi->module_id;
    mod->entry_computation_name = entry->name;
    mod->entry_computation_id = entry->id;
    mod->n_computations = b->n_comps;
    mod->computations = ANEWN(a, Xla__HloComputationProto *, b->n_comps);
    memcpy(mod->computations, b->comps, b->n_comps * sizeof *b->comps);
    mod->host_program_shape = entry->program_shape;

    Xla__HloScheduleProto__InstructionSequence *seq = new_seq(a);
    seq->n_instruction_ids = b->n_ins;
    seq->instruction_ids = ANEWN(a, int64_t, b->n_ins);
    for (size_t i = 0; i < b->n_ins; i++)
        seq->instruction_ids[i] = b->ins[i].p->id;
    Xla__HloScheduleProto__SequencesEntry *se = new_sched_entry(a);
    se->key = entry->id;
    se->value = seq;
    Xla__HloScheduleProto *sch = new_sched(a);
    sch->n_sequences = 1;
    sch->sequences = ANEWN(a, Xla__HloScheduleProto__SequencesEntry *, 1);
    sch->sequences[0] = se;
    mod->schedule = sch;

    Xla__HloProto *hlo = new_hlo(a);
    hlo->hlo_module = mod;
    hlo->buffer_assignment = buffer_assignment(b, mi);

    mi->hlo_len = xla__hlo_proto__get_packed_size(hlo);
    mi->hlo_bytes = arena_alloc(a, mi->hlo_len);
    if (xla__hlo_proto__pack(hlo, mi->hlo_bytes) != mi->hlo_len)
        die("internal: HloProto packed size mismatch");
    mi->n_entry_instructions = b->n_ins;
    count_module(mod, mi);
    timed_ops(b, mi);
    free(b->comps);
}

/* Program ids are 64-bit fingerprints (format-facts §0): even modules get
 * one above INT64_MAX so layout A has negative event-metadata keys. */
static uint64_t program_id(const Options *o, int m)
{
    Rng r = rng_make(o->seed, 5000 + (uint64_t)m);
    uint64_t v = rng_next(&r);
    if (m % 2 == 0)
        v |= (uint64_t)1 << 63;
    else
        v &= ~((uint64_t)1 << 63);
    if (v < 1000000)
        v += 1000000; /* never collide with small metadata ids */
    return v;
}

void hlo_build_modules(const Options *o, Arena *a, ModuleInfo **mods, size_t *n)
{
    size_t np = o->programs > 0 ? (size_t)o->programs : 0;
    ModuleInfo *mi = ANEWN(a, ModuleInfo, np);
    for (size_t m = 0; m < np; m++) {
        build_module(o, a, (int)m, &mi[m]);
        /* on GPU the program id is the module id (format-facts §7) */
        uint64_t pid = o->shape == SHAPE_TPU ? program_id(o, (int)m)
                                             : (uint64_t)mi[m].module_id;
        for (size_t k = 0; k < m; k++)
            if (mi[k].program_id == pid)
                pid ^= 0x5bd1e995u; /* keep ids unique */
        mi[m].program_id = pid;
    }
    *mods = mi;
    *n = np;
}
