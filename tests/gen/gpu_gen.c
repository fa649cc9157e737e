/* gpu_gen.c - GPU device planes, written by the same streaming writer as
 * the TPU planes (xspace_gen.h), in the two shapes real GPU captures come
 * in (format-facts §1, §2.4, §7; the mi300x and v100 captures):
 *
 *   --shape jax-gpu  /device:GPU:N with one "Stream #S(Kernel)" line; each
 *                    kernel event carries seven stats: correlation_id
 *                    (uint64), kernel_details, tf_op, name, hlo_op and
 *                    hlo_module (strings as ref stats), program_id (int64,
 *                    the module id, as on GPU XLA).
 *   --shape tf-gpu   /device:GPU:N with a "Stream #S(Compute)" line whose
 *                    kernels carry eight stats (correlation_id, annotation,
 *                    context_id, kernel_details, shape, level 0, group_id,
 *                    is_eager; str and ref strings mixed), and the derived
 *                    "TensorFlow Ops" line: one event per kernel, named by
 *                    the TF op, with a group_id stat.
 *
 * Kernels run the modules' timed ops in turn, one execution after the
 * other, without overlap. With --straggler-ps N the last GPU waits N ps
 * before the last kernel of each execution (an idle gap inside the
 * step); with --summary-steps the summary lists each GPU's executions:
 * [first kernel start, last kernel end, kernel time] ps. The kernel line's sizing pass plans how many
 * kernels fit the budget (counting the TensorFlow Ops twin events too);
 * every other pass replays the same PRNG stream up to that count.
 */
#include "xspace_gen.h"

#include <stdlib.h>
#include <string.h>

#define N_KERNEL_DETAILS 4
#define GPU_LINE_TS_NS 711141 /* normalized, as on the mi300x capture */
#define TF_OPS_LINE_ID (-559038734)

typedef struct {
    int64_t corr, kdet, tfop, name, hlo_op, hlo_module, program_id;
    int64_t annotation, context, shape, level0, group, eager;
} GpuStats;

/* What one (program, timed op) pair's kernels carry. */
typedef struct {
    int64_t meta;     /* kernel line: event metadata (the kernel's name) */
    int64_t tf_meta;  /* TensorFlow Ops line: event metadata (the TF op) */
    int64_t hlo_ref, tfop_ref, annot_ref, level_ref;
} GpuOp;

typedef struct {
    const Options *o;
    const ModuleInfo *mods;
    size_t n_mods;
    GpuStats s;
    GpuOp **ops;      /* per program, per timed op */
    int64_t *mod_ref; /* per program: hlo_module ref */
    int64_t kdet_ref[N_KERNEL_DETAILS];
    uint8_t *tail;    /* metadata maps, shared by every GPU plane */
    size_t tail_len;
    /* per plane */
    Rng rng0;
    uint64_t t0, budget, n_kernels, end_ps;
    int gpu;
    uint64_t *ex;     /* planning pass: start, end, busy per execution */
    size_t n_ex, cap_ex;
} GpuCtx;

static const char *const kernel_details[N_KERNEL_DETAILS] = {
    " grid:256,1,1 block:256,1,1 dyn_smem:0 regs:32 static_smem:0 occ_pct:100",
    " grid:1024,1,1 block:128,1,1 dyn_smem:16384 regs:64 static_smem:0 occ_pct:50",
    " grid:80,4,1 block:256,1,1 dyn_smem:65536 regs:128 static_smem:512 occ_pct:25",
    " grid:1,1,1 block:64,1,1 dyn_smem:0 regs:16 static_smem:0 occ_pct:100",
};

static const char *tf_type(const char *tf_op)
{
    const char *c = strrchr(tf_op, ':');
    return c ? c + 1 : tf_op;
}

/* A TF op name "<scope>/<op>:<Type>": the TimedOp's, with the type made
 * from the HLO instruction's name ("add.5" -> "Add") where it has none. */
static const char *tf_op_name(Arena *a, const TimedOp *op)
{
    size_t n = strlen(op->tf_op), t = strcspn(op->name, ".");
    if (*tf_type(op->tf_op))
        return op->tf_op;
    char *type = arena_printf(a, "%.*s", (int)t, op->name);
    if (type[0] >= 'a' && type[0] <= 'z')
        type[0] = (char)(type[0] - 'a' + 'A');
    if (n <= 1) /* no scope either */
        return arena_printf(a, "%s:%s", op->name, type);
    return arena_printf(a, "%s%s", op->tf_op, type);
}

/* Metadata of the GPU planes: stat ids (hot ones first, small ids keep
 * events compact), the ref strings, and one event metadata per op. */
static void gpu_meta(GpuCtx *c, Arena *a)
{
    StatTab st = {0};
    EmTab em = {0};
    GpuStats *s = &c->s;
    int tf = c->o->shape == SHAPE_TF_GPU;
    s->corr = st_id(&st, a, "correlation_id");
    s->kdet = st_id(&st, a, "kernel_details");
    if (tf) {
        s->annotation = st_id(&st, a, "annotation");
        s->context = st_id(&st, a, "context_id");
        s->shape = st_id(&st, a, "shape");
        s->level0 = st_id(&st, a, "level 0");
        s->group = st_id(&st, a, "group_id");
        s->eager = st_id(&st, a, "is_eager");
    } else {
        s->tfop = st_id(&st, a, "tf_op");
        s->name = st_id(&st, a, "name");
        s->hlo_op = st_id(&st, a, "hlo_op");
        s->hlo_module = st_id(&st, a, "hlo_module");
        s->program_id = st_id(&st, a, "program_id");
    }
    for (int i = 0; i < N_KERNEL_DETAILS; i++)
        c->kdet_ref[i] = st_id(&st, a, kernel_details[i]);
    c->ops = ANEWN(a, GpuOp *, c->n_mods);
    c->mod_ref = ANEWN(a, int64_t, c->n_mods);
    int64_t id = 1;
    for (size_t p = 0; p < c->n_mods; p++) {
        const ModuleInfo *m = &c->mods[p];
        c->mod_ref[p] = tf ? 0 : st_id(&st, a, m->name);
        c->ops[p] = ANEWN(a, GpuOp, m->n_ops);
        for (size_t k = 0; k < m->n_ops; k++) {
            const TimedOp *op = &m->ops[k];
            GpuOp *g = &c->ops[p][k];
            g->meta = id;
            em_add(&em, a, id++, op->name, NULL);
            if (tf) {
                const char *name = tf_op_name(a, op);
                g->tf_meta = id;
                em_add(&em, a, id++, name, tf_type(name));
                g->annot_ref = st_id(&st, a, op->tf_op);
                g->level_ref = st_id(&st, a, op->tf_op);
            } else {
                g->hlo_ref = st_id(&st, a, op->name);
                g->tfop_ref = st_id(&st, a, op->tf_op);
            }
        }
    }
    PlaneSpec proto;
    memset(&proto, 0, sizeof proto);
    plane_pack(&proto, a, 0, "", &st, &em, NULL, 0);
    c->tail = proto.tail;
    c->tail_len = proto.tail_len;
}

typedef struct {
    Tensorflow__Profiler__XEvent ev;
    Tensorflow__Profiler__XStat st[8];
    Tensorflow__Profiler__XStat *sp[8];
} GpuEv;

static void gpuev_init(GpuEv *b)
{
    static const Tensorflow__Profiler__XEvent init = TENSORFLOW__PROFILER__XEVENT__INIT;
    static const Tensorflow__Profiler__XStat sinit = TENSORFLOW__PROFILER__XSTAT__INIT;
    b->ev = init;
    b->ev.data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
    for (size_t i = 0; i < 8; i++) {
        b->st[i] = sinit;
        b->sp[i] = &b->st[i];
    }
    b->ev.stats = b->sp;
}

static void put(GpuEv *b, size_t i, int64_t mid, int kind, uint64_t v)
{
    Tensorflow__Profiler__XStat *x = &b->st[i];
    x->metadata_id = mid;
    x->value_case = kind;
    x->uint64_value = v; /* the same union slot as int64 and ref */
}

#define U64 TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE
#define I64 TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE
#define REF TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE

/* The kernel event k of op (p, i): JAX's seven stats, or TF's eight. */
static void kernel_event(const GpuCtx *c, GpuEv *b, size_t p, size_t i, uint64_t k,
                         uint64_t exec)
{
    const GpuStats *s = &c->s;
    const GpuOp *g = &c->ops[p][i];
    b->ev.metadata_id = g->meta;
    put(b, 0, s->corr, U64, k + 1);
    put(b, 1, s->kdet, REF, (uint64_t)c->kdet_ref[(p + i) % N_KERNEL_DETAILS]);
    if (c->o->shape == SHAPE_TF_GPU) {
        const char *shape = c->mods[p].ops[i].shape;
        b->st[1].metadata_id = s->annotation;
        b->st[1].uint64_value = (uint64_t)g->annot_ref;
        b->st[2].metadata_id = s->context;
        b->st[2].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE;
        b->st[2].str_value = (char *)"$$5";
        put(b, 3, s->kdet, REF, (uint64_t)c->kdet_ref[(p + i) % N_KERNEL_DETAILS]);
        b->st[4].metadata_id = s->shape;
        b->st[4].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE;
        b->st[4].str_value = (char *)(shape ? shape : "()");
        put(b, 5, s->level0, REF, (uint64_t)g->level_ref);
        put(b, 6, s->group, I64, exec);
        put(b, 7, s->eager, I64, 0);
        b->ev.n_stats = 8;
        return;
    }
    put(b, 2, s->tfop, REF, (uint64_t)g->tfop_ref);
    put(b, 3, s->name, REF, (uint64_t)g->hlo_ref);
    put(b, 4, s->hlo_op, REF, (uint64_t)g->hlo_ref);
    put(b, 5, s->hlo_module, REF, (uint64_t)c->mod_ref[p]);
    put(b, 6, s->program_id, I64, c->mods[p].program_id);
    b->ev.n_stats = 7;
}

/* The TensorFlow Ops twin of a kernel: the TF op, its group_id. */
static void tf_op_event(const GpuCtx *c, GpuEv *b, size_t p, size_t i, uint64_t exec)
{
    b->ev.metadata_id = c->ops[p][i].tf_meta;
    put(b, 0, c->s.group, I64, exec);
    b->ev.n_stats = 1;
}

/* Walks the kernels of one GPU: the kernel line, or (twin) its
 * TensorFlow Ops line. The kernel line's sizing pass plans the count. */
static void kernel_walk(GpuCtx *c, Emitter *em, int twin)
{
    const Options *o = c->o;
    int planning = !twin && !em->writing;
    int tf = o->shape == SHAPE_TF_GPU;
    Rng rng = c->rng0;
    uint64_t t = c->t0, k = 0, twin_bytes = 0;
    GpuEv b, tb;
    gpuev_init(&b);
    gpuev_init(&tb);
    if (planning)
        c->n_ex = 0;
    for (uint64_t e = 0; c->n_mods; e++) {
        size_t p = (size_t)(e % c->n_mods);
        const ModuleInfo *m = &c->mods[p];
        for (size_t i = 0; i < m->n_ops; i++, k++) {
            if (planning ? (c->budget ? em->bytes + twin_bytes >= c->budget
                                      : k >= o->events_per_line)
                         : k >= c->n_kernels)
                goto done;
            int64_t dur = m->ops[i].base_ps * rng_range(&rng, 900, 1100) / 1000;
            if (i > 0 && i + 1 == m->n_ops && c->gpu == o->cores - 1)
                t += o->straggler_ps;
            if (planning && i == 0) {
                if (c->n_ex == c->cap_ex) {
                    c->cap_ex = c->cap_ex ? 2 * c->cap_ex : 16;
                    c->ex = xrealloc(c->ex, 3 * c->cap_ex * sizeof *c->ex);
                }
                c->ex[3 * c->n_ex] = t;
                c->ex[3 * c->n_ex + 2] = 0;
                c->n_ex++;
            }
            if (planning) {
                c->ex[3 * c->n_ex - 2] = t + (uint64_t)dur;
                c->ex[3 * c->n_ex - 1] += (uint64_t)dur;
            }
            GpuEv *x = twin ? &tb : &b;
            if (twin)
                tf_op_event(c, &tb, p, i, e);
            else
                kernel_event(c, &b, p, i, k, e);
            x->ev.offset_ps = (int64_t)t;
            x->ev.duration_ps = dur;
            emit(em, &x->ev);
            if (planning && tf) {
                tf_op_event(c, &tb, p, i, e);
                tb.ev.offset_ps = (int64_t)t;
                tb.ev.duration_ps = dur;
                twin_bytes += pb_len_field_size(
                    tensorflow__profiler__xevent__get_packed_size(&tb.ev));
            }
            t += (uint64_t)dur + (uint64_t)rng_range(&rng, 2000, 40000);
        }
        t += (uint64_t)rng_range(&rng, 1000000, 4000000); /* between executions */
    }
done:
    if (planning) {
        c->n_kernels = k;
        c->end_ps = t;
    }
}

static void kernel_gen(void *ctx, Emitter *em)
{
    kernel_walk(ctx, em, 0);
}

static void tf_ops_gen(void *ctx, Emitter *em)
{
    kernel_walk(ctx, em, 1);
}

void gpu_planes_write(const Options *o, const ModuleInfo *mods, size_t n_mods, int host,
                      uint64_t budget, Sink *s, FileSum *fs, Arena *a, Arena *keep,
                      uint64_t *expect, uint64_t *max_end_ps)
{
    static const Tensorflow__Profiler__XPlane init = TENSORFLOW__PROFILER__XPLANE__INIT;
    GpuCtx c;
    int tf = o->shape == SHAPE_TF_GPU;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.mods = mods;
    c.n_mods = n_mods;
    gpu_meta(&c, a);
    for (int gpu = 0; gpu < o->cores; gpu++) {
        PlaneSpec p;
        LineSpec lines[2];
        Tensorflow__Profiler__XPlane h = init;
        memset(&p, 0, sizeof p);
        memset(lines, 0, sizeof lines);
        h.id = gpu;
        h.name = arena_printf(a, "/device:GPU:%d", gpu);
        p.id = h.id;
        p.name = h.name;
        p.head_len = tensorflow__profiler__xplane__get_packed_size(&h);
        p.head = arena_alloc(a, p.head_len);
        tensorflow__profiler__xplane__pack(&h, p.head);
        p.tail = c.tail;
        p.tail_len = c.tail_len;
        c.rng0 = rng_make(o->seed, 2000000 + (uint64_t)host * 1000 + (uint64_t)gpu);
        c.t0 = 500000000ull + (uint64_t)gpu * 1250000ull;
        c.gpu = gpu;
        c.budget = budget > p.head_len + p.tail_len + 64
                       ? budget - p.head_len - p.tail_len - 64 : (budget ? 1 : 0);
        int stream = tf ? 134 + 2 * gpu : 16 + gpu;
        line_head(&lines[0], a, stream,
                  arena_printf(a, "Stream #%d(%s)", stream, tf ? "Compute" : "Kernel"), NULL,
                  GPU_LINE_TS_NS);
        lines[0].gen = kernel_gen;
        lines[0].ctx = &c;
        if (tf) {
            line_head(&lines[1], a, TF_OPS_LINE_ID, "TensorFlow Ops", NULL, GPU_LINE_TS_NS);
            lines[1].gen = tf_ops_gen;
            lines[1].ctx = &c;
        }
        p.lines = lines;
        p.n_lines = tf ? 2 : 1;
        line_size(&lines[0], o->split_line); /* plans the kernels */
        *expect += full_plane_bytes(&p, o->split_line);
        plane_write(&p, o->split_line, s, fs, keep);
        if (o->summary_steps) {
            PlaneSum *ps = &fs->planes[fs->n_planes - 1];
            size_t n3 = 3 * c.n_ex;
            ps->n_execs = c.n_ex;
            ps->execs = ANEWN(keep, uint64_t, n3);
            memcpy(ps->execs, c.ex, 3 * c.n_ex * sizeof *c.ex);
        }
        fs->xla_ops += lines[0].n_events;
        if (c.end_ps > *max_end_ps)
            *max_end_ps = c.end_ps;
    }
    free(c.ex);
}
