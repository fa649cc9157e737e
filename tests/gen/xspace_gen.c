/* xspace_gen.c - writes one XSpace (*.xplane.pb) in a single streaming pass.
 *
 * Why streaming: a 1 GB capture cannot be built as one protobuf-c message
 * tree. Instead every XEvent is packed by protobuf-c straight into the output
 * buffer, and the enclosing XLine / XPlane length prefixes are written by hand.
 * Those prefixes must be known before their content, so each line is run
 * twice through the same deterministic generator: a sizing pass (packed sizes
 * only) and a writing pass. A generator restarts from a saved PRNG state, so
 * both passes see identical events; the writing pass checks that counts and
 * byte totals match what the sizing pass promised.
 *
 * Small messages (metadata maps, plane stats, line headers, host lines) are
 * built as protobuf-c structs in an arena and packed whole.
 *
 * Field order inside a plane follows what real producers write (field-number
 * order): id, name, lines, event_metadata, stat_metadata, stats - so readers
 * see the lines before the metadata they refer to.
 */
#include "xspace_gen.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ constructors */

static Tensorflow__Profiler__XStat *new_stat(Arena *a, int64_t mid)
{
    static const Tensorflow__Profiler__XStat init = TENSORFLOW__PROFILER__XSTAT__INIT;
    Tensorflow__Profiler__XStat *s = ANEW(a, Tensorflow__Profiler__XStat);
    *s = init;
    s->metadata_id = mid;
    return s;
}

Tensorflow__Profiler__XStat *stat_u64(Arena *a, int64_t mid, uint64_t v)
{
    Tensorflow__Profiler__XStat *s = new_stat(a, mid);
    s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
    s->uint64_value = v;
    return s;
}

Tensorflow__Profiler__XStat *stat_i64(Arena *a, int64_t mid, int64_t v)
{
    Tensorflow__Profiler__XStat *s = new_stat(a, mid);
    s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE;
    s->int64_value = v;
    return s;
}

Tensorflow__Profiler__XStat *stat_dbl(Arena *a, int64_t mid, double v)
{
    Tensorflow__Profiler__XStat *s = new_stat(a, mid);
    s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE;
    s->double_value = v;
    return s;
}

Tensorflow__Profiler__XStat *stat_str(Arena *a, int64_t mid, const char *v)
{
    Tensorflow__Profiler__XStat *s = new_stat(a, mid);
    s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE;
    s->str_value = (char *)v;
    return s;
}

static Tensorflow__Profiler__XStat *stat_ref(Arena *a, int64_t mid, int64_t ref)
{
    Tensorflow__Profiler__XStat *s = new_stat(a, mid);
    s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE;
    s->ref_value = (uint64_t)ref;
    return s;
}

static Tensorflow__Profiler__XStat *stat_bytes(Arena *a, int64_t mid, const void *p, size_t n)
{
    Tensorflow__Profiler__XStat *s = new_stat(a, mid);
    s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE;
    s->bytes_value.data = (uint8_t *)(uintptr_t)p;
    s->bytes_value.len = n;
    return s;
}

/* ------------------------------------------------------------ tables */


int64_t st_id(StatTab *t, Arena *a, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->names[i], name))
            return (int64_t)i + 1;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->names = xrealloc(t->names, t->cap * sizeof *t->names);
    }
    t->names[t->n++] = arena_strdup(a, name);
    return (int64_t)t->n;
}


Tensorflow__Profiler__XEventMetadata *em_add(EmTab *t, Arena *a, int64_t id,
                                                   const char *name, const char *display)
{
    static const Tensorflow__Profiler__XEventMetadata init =
        TENSORFLOW__PROFILER__XEVENT_METADATA__INIT;
    static const Tensorflow__Profiler__XPlane__EventMetadataEntry einit =
        TENSORFLOW__PROFILER__XPLANE__EVENT_METADATA_ENTRY__INIT;
    Tensorflow__Profiler__XEventMetadata *m = ANEW(a, Tensorflow__Profiler__XEventMetadata);
    *m = init;
    m->id = id;
    m->name = (char *)name;
    if (display)
        m->display_name = (char *)display;
    m->stats = ANEWN(a, Tensorflow__Profiler__XStat *, MAX_MD_STATS);
    Tensorflow__Profiler__XPlane__EventMetadataEntry *e =
        ANEW(a, Tensorflow__Profiler__XPlane__EventMetadataEntry);
    *e = einit;
    e->key = id; /* map key == XEventMetadata.id, negative for big fingerprints */
    e->value = m;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->e = xrealloc(t->e, t->cap * sizeof *t->e);
    }
    t->e[t->n++] = e;
    return m;
}

void md_stat(Tensorflow__Profiler__XEventMetadata *m, Tensorflow__Profiler__XStat *s)
{
    if (m->n_stats >= MAX_MD_STATS)
        die("internal: too many metadata stats");
    m->stats[m->n_stats++] = s;
}

/* ------------------------------------------------------------ planes */


static void push_chunk(Emitter *em)
{
    LineSpec *l = em->line;
    if (l->n_chunks == l->cap_chunks) {
        l->cap_chunks = l->cap_chunks ? 2 * l->cap_chunks : 4;
        l->chunks = xrealloc(l->chunks, l->cap_chunks * sizeof *l->chunks);
    }
    l->chunks[l->n_chunks++] = em->cur;
}

static void write_chunk_header(Emitter *em)
{
    LineSpec *l = em->line;
    if (em->chunk_idx >= l->n_chunks)
        die("internal: line %s has more XLine messages than sized", l->name);
    sink_len_header(em->sink, 3, l->chunks[em->chunk_idx++]);
    sink_write(em->sink, l->head, l->head_len);
}

/* The hot path: one XEvent, packed by protobuf-c directly into the sink. */
void emit(Emitter *em, const Tensorflow__Profiler__XEvent *ev)
{
    size_t sz = tensorflow__profiler__xevent__get_packed_size(ev);
    size_t fs = 1 + pb_varint_size(sz) + sz;
    int new_chunk = em->split && em->count && em->count % em->split == 0;
    if (!em->writing) {
        if (new_chunk) {
            push_chunk(em);
            em->cur = em->line->head_len;
        }
        em->cur += fs;
    } else {
        if (em->count == 0 || new_chunk)
            write_chunk_header(em);
        uint8_t *p = sink_reserve(em->sink, fs);
        p[0] = (4u << 3) | 2u; /* XLine.events */
        size_t h = 1 + pb_put_varint(p + 1, sz);
        if (tensorflow__profiler__xevent__pack(ev, p + h) != sz)
            die("internal: XEvent packed size mismatch");
        sink_commit(em->sink, fs);
    }
    em->count++;
    em->bytes += fs;
}

static void emitter_init(Emitter *em, LineSpec *l, int writing, uint64_t split, Sink *s)
{
    memset(em, 0, sizeof *em);
    em->line = l;
    em->writing = writing;
    em->split = split;
    em->sink = s;
    em->cur = l->head_len;
}

/* Sizing pass for a line; returns its byte count inside the plane. */
uint64_t line_size(LineSpec *l, uint64_t split)
{
    Emitter em;
    l->n_chunks = 0;
    emitter_init(&em, l, 0, split, NULL);
    l->gen(l->ctx, &em);
    push_chunk(&em); /* the last (or only) XLine message */
    uint64_t total = 0;
    for (size_t i = 0; i < l->n_chunks; i++)
        total += pb_len_field_size(l->chunks[i]);
    l->n_events = em.count;
    l->bytes = total;
    return total;
}

static void line_write(LineSpec *l, uint64_t split, Sink *s)
{
    Emitter em;
    uint64_t before = s->total;
    emitter_init(&em, l, 1, split, s);
    l->gen(l->ctx, &em);
    if (em.count == 0)
        write_chunk_header(&em);
    if (em.count != l->n_events || em.chunk_idx != l->n_chunks ||
        s->total - before != l->bytes)
        die("internal: line %s: sizing and writing passes differ", l->name);
    free(l->chunks);
    l->chunks = NULL;
}

void line_head(LineSpec *l, Arena *a, int64_t id, const char *name,
                      const char *display, int64_t ts_ns)
{
    static const Tensorflow__Profiler__XLine init = TENSORFLOW__PROFILER__XLINE__INIT;
    Tensorflow__Profiler__XLine x = init;
    x.id = id;
    x.name = (char *)name;
    if (display)
        x.display_name = (char *)display;
    x.timestamp_ns = ts_ns;
    l->id = id;
    l->name = name;
    l->head_len = tensorflow__profiler__xline__get_packed_size(&x);
    l->head = arena_alloc(a, l->head_len);
    tensorflow__profiler__xline__pack(&x, l->head);
}

/* Plane head (id, name) and tail (metadata maps + plane stats) as bytes. */
void plane_pack(PlaneSpec *p, Arena *a, int64_t id, const char *name, StatTab *st,
                       EmTab *em, Tensorflow__Profiler__XStat **stats, size_t n_stats)
{
    static const Tensorflow__Profiler__XPlane init = TENSORFLOW__PROFILER__XPLANE__INIT;
    static const Tensorflow__Profiler__XStatMetadata sminit =
        TENSORFLOW__PROFILER__XSTAT_METADATA__INIT;
    static const Tensorflow__Profiler__XPlane__StatMetadataEntry seinit =
        TENSORFLOW__PROFILER__XPLANE__STAT_METADATA_ENTRY__INIT;
    Tensorflow__Profiler__XPlane h = init, t = init;
    h.id = id;
    h.name = (char *)name;
    p->id = id;
    p->name = name;
    p->head_len = tensorflow__profiler__xplane__get_packed_size(&h);
    p->head = arena_alloc(a, p->head_len);
    tensorflow__profiler__xplane__pack(&h, p->head);

    t.n_event_metadata = em ? em->n : 0;
    t.event_metadata = em ? em->e : NULL;
    t.n_stat_metadata = st->n;
    t.stat_metadata = ANEWN(a, Tensorflow__Profiler__XPlane__StatMetadataEntry *, st->n);
    for (size_t i = 0; i < st->n; i++) {
        Tensorflow__Profiler__XStatMetadata *m = ANEW(a, Tensorflow__Profiler__XStatMetadata);
        *m = sminit;
        m->id = (int64_t)i + 1;
        m->name = st->names[i];
        Tensorflow__Profiler__XPlane__StatMetadataEntry *e =
            ANEW(a, Tensorflow__Profiler__XPlane__StatMetadataEntry);
        *e = seinit;
        e->key = m->id;
        e->value = m;
        t.stat_metadata[i] = e;
    }
    t.n_stats = n_stats;
    t.stats = stats;
    p->tail_len = tensorflow__profiler__xplane__get_packed_size(&t);
    p->tail = arena_alloc(a, p->tail_len);
    tensorflow__profiler__xplane__pack(&t, p->tail);
    free(st->names);
    st->names = NULL;
    st->n = st->cap = 0;
    if (em) {
        free(em->e);
        em->e = NULL;
        em->n = em->cap = 0;
    }
}

/* Size passes for all lines; returns the XPlane message size. */
uint64_t plane_size(PlaneSpec *p, uint64_t split)
{
    uint64_t n = p->head_len + p->tail_len;
    for (size_t i = 0; i < p->n_lines; i++)
        n += p->lines[i].n_chunks ? p->lines[i].bytes : line_size(&p->lines[i], split);
    return n;
}

void plane_write(PlaneSpec *p, uint64_t split, Sink *s, FileSum *fs, Arena *a)
{
    uint64_t size = plane_size(p, split);
    uint64_t before = s->total;
    sink_len_header(s, 1, size);
    sink_write(s, p->head, p->head_len);
    PlaneSum *ps = &fs->planes[fs->n_planes++];
    ps->name = arena_strdup(a, p->name);
    ps->id = p->id;
    ps->n_lines = p->n_lines;
    ps->lines = ANEWN(a, LineSum, p->n_lines);
    for (size_t i = 0; i < p->n_lines; i++) {
        LineSpec *l = &p->lines[i];
        ps->lines[i].name = arena_strdup(a, l->name);
        ps->lines[i].id = l->id;
        ps->lines[i].events = l->n_events;
        ps->lines[i].messages = l->n_chunks;
        line_write(l, split, s);
    }
    sink_write(s, p->tail, p->tail_len);
    if (s->total - before != pb_len_field_size(size))
        die("internal: plane %s size mismatch", p->name);
}

/* ------------------------------------------------------------ TPU planes */

/* Stat metadata ids used on the hot path of a TPU plane. */
typedef struct {
    int64_t run_id, replica_id, queue_id, dev_off, dev_dur, ar_uid, group_id;
} TpuStats;

typedef struct {
    uint8_t *tail;
    size_t tail_len;
    int64_t *module_meta; /* per program: metadata of "<module>(<pid>)" */
    int64_t *op_meta;     /* per program: metadata id of its first timed op */
    int64_t step_meta;    /* metadata id of step "0" (Steps line) */
    int64_t debug_print_meta; /* --debug-print-ps: "debug_print"; 0 = none */
    TpuStats s;
} TpuMeta;

typedef struct {
    uint64_t start, end;
    uint32_t n_ops, prog;
    uint64_t busy; /* its ops' device durations */
} ExecRec;

typedef struct {
    const Options *o;
    const ModuleInfo *mods;
    size_t n_mods;
    const TpuMeta *tm;
    int core;
    int host;
    Rng rng0;
    uint64_t t0;
    uint64_t budget; /* target mode: bytes of ops + modules events; 0 = off */
    ExecRec *ex;
    size_t n_ex, cap_ex;
} CoreCtx;

#define MODULE_PAD_PS 1000000ull
#define JITTER_PS 400

static const char *modname(Arena *a, const ModuleInfo *m)
{
    return arena_printf(a, "%s(%llu)", m->name, (unsigned long long)m->program_id);
}

/* Metadata shared by all TPU planes of a file (same programs everywhere). */
static void tpu_meta(const Options *o, const ModuleInfo *mods, size_t n_mods, Arena *a,
                     TpuMeta *tm, PlaneSpec *proto)
{
    StatTab st = {0};
    EmTab em = {0};
    /* hot stat ids first: small ids keep events compact */
    tm->s.run_id = st_id(&st, a, "run_id");
    tm->s.replica_id = st_id(&st, a, "replica_id");
    tm->s.queue_id = st_id(&st, a, "queue_id");
    tm->s.dev_off = st_id(&st, a, "device_offset_ps");
    tm->s.dev_dur = st_id(&st, a, "device_duration_ps");
    tm->s.ar_uid = st_id(&st, a, "all_reduce_unique_id");
    tm->s.group_id = st_id(&st, a, "group_id");
    int64_t s_type = st_id(&st, a, "device_type_string");
    int64_t s_tflops = st_id(&st, a, "peak_teraflops_per_second");
    int64_t s_hbm = st_id(&st, a, "peak_hbm_bw_gigabytes_per_second");
    int64_t s_mem = st_id(&st, a, "memory_size");
    int64_t s_mega = st_id(&st, a, "has_megacore");
    int64_t s_pid = st_id(&st, a, "program_id");
    int64_t s_sym = st_id(&st, a, "symbol_id");
    int64_t s_cat = st_id(&st, a, "hlo_category");
    int64_t s_tfop = st_id(&st, a, "tf_op");
    int64_t s_flops = st_id(&st, a, "flops");
    int64_t s_mflops = st_id(&st, a, "model_flops");
    int64_t s_bytes = st_id(&st, a, "bytes_accessed");
    int64_t s_shape = st_id(&st, a, "shape_with_layout");
    int64_t s_src = st_id(&st, a, "source");

    int64_t id = 1;
    tm->module_meta = ANEWN(a, int64_t, n_mods);
    tm->op_meta = ANEWN(a, int64_t, n_mods);
    for (size_t p = 0; p < n_mods; p++) {
        tm->module_meta[p] = id;
        em_add(&em, a, id++, modname(a, &mods[p]), NULL);
    }
    for (size_t p = 0; p < n_mods; p++) {
        tm->op_meta[p] = id;
        for (size_t k = 0; k < mods[p].n_ops; k++) {
            const TimedOp *op = &mods[p].ops[k];
            Tensorflow__Profiler__XEventMetadata *m = em_add(&em, a, id++, op->text, op->name);
            md_stat(m, stat_u64(a, s_pid, mods[p].program_id));
            md_stat(m, stat_u64(a, s_sym, op->symbol_id));
            md_stat(m, stat_str(a, s_cat, op->category));
            /* some strings interned through ref_value, as producers do */
            if (k % 3 == 0)
                md_stat(m, stat_ref(a, s_tfop, st_id(&st, a, op->tf_op)));
            else
                md_stat(m, stat_str(a, s_tfop, op->tf_op));
            md_stat(m, stat_i64(a, s_flops, op->flops));
            md_stat(m, stat_i64(a, s_mflops, op->flops));
            md_stat(m, stat_i64(a, s_bytes, op->bytes_accessed));
            if (k % 4 == 1)
                md_stat(m, stat_ref(a, s_shape, st_id(&st, a, op->shape)));
            else
                md_stat(m, stat_str(a, s_shape, op->shape));
            if (op->source)
                md_stat(m, stat_str(a, s_src, op->source));
        }
    }
    tm->step_meta = id;
    if (o->steps_line && !o->target_bytes)
        for (int s = 0; s < o->steps; s++)
            em_add(&em, a, id++, arena_printf(a, "%d", s), NULL);
    if (o->n_debug_print) {
        tm->debug_print_meta = id;
        em_add(&em, a, id++, "debug_print", "debug_print");
    }

    Tensorflow__Profiler__XStat **ps = ANEWN(a, Tensorflow__Profiler__XStat *, 5);
    ps[0] = stat_str(a, s_type, "TPU v6 lite");
    ps[1] = stat_dbl(a, s_tflops, 918.0);
    ps[2] = stat_dbl(a, s_hbm, 1638.4);
    ps[3] = stat_u64(a, s_mem, 34359738368ull);
    ps[4] = stat_i64(a, s_mega, 0);
    plane_pack(proto, a, 0, "", &st, &em, ps, 5);
    tm->tail = proto->tail;
    tm->tail_len = proto->tail_len;
}

static uint64_t ops_in_exec(const Options *o, uint64_t e)
{
    uint64_t steps = (uint64_t)o->steps;
    return o->events_per_line / steps + (e < o->events_per_line % steps);
}

static void fill_module_event(const CoreCtx *c, size_t e, Tensorflow__Profiler__XEvent *ev,
                              Tensorflow__Profiler__XStat *st)
{
    const ExecRec *x = &c->ex[e];
    const TpuStats *s = &c->tm->s;
    ev->metadata_id = c->tm->module_meta[x->prog];
    ev->offset_ps = (int64_t)x->start;
    ev->duration_ps = (int64_t)(x->end - x->start);
    st[0].metadata_id = s->run_id;
    st[0].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
    st[0].uint64_value = e + 1;
    st[1].metadata_id = s->replica_id;
    st[1].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE;
    st[1].int64_value = 0;
    st[2].metadata_id = s->queue_id;
    st[2].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
    st[2].uint64_value = 0;
    st[3].metadata_id = s->dev_off;
    st[3].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
    st[3].uint64_value = x->start;
    st[4].metadata_id = s->dev_dur;
    st[4].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
    st[4].uint64_value = x->end - x->start;
}

typedef struct {
    Tensorflow__Profiler__XEvent ev;
    Tensorflow__Profiler__XStat st[5];
    Tensorflow__Profiler__XStat *sp[5];
} EvBuf;

static void evbuf_init(EvBuf *b, size_t n_stats)
{
    static const Tensorflow__Profiler__XEvent init = TENSORFLOW__PROFILER__XEVENT__INIT;
    static const Tensorflow__Profiler__XStat sinit = TENSORFLOW__PROFILER__XSTAT__INIT;
    b->ev = init;
    b->ev.data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
    for (size_t i = 0; i < 5; i++) {
        b->st[i] = sinit;
        b->sp[i] = &b->st[i];
    }
    b->ev.stats = b->sp;
    b->ev.n_stats = n_stats;
}

static void push_exec(CoreCtx *c, uint64_t start, uint64_t end, uint64_t n_ops, uint32_t prog,
                      uint64_t busy)
{
    if (c->n_ex == c->cap_ex) {
        c->cap_ex = c->cap_ex ? 2 * c->cap_ex : 64;
        c->ex = xrealloc(c->ex, c->cap_ex * sizeof *c->ex);
    }
    ExecRec *x = &c->ex[c->n_ex++];
    x->start = start;
    x->end = end;
    x->n_ops = (uint32_t)n_ops;
    x->prog = prog;
    x->busy = busy;
}

/* "XLA Ops" of one core. The sizing pass also decides the executions (how
 * many, where they start and end) and records them for the "XLA Modules" and
 * "Steps" lines; the writing pass replays the same PRNG stream and checks
 * that it lands on the recorded times. */
static void ops_gen(void *vctx, Emitter *em)
{
    CoreCtx *c = vctx;
    const Options *o = c->o;
    const TpuStats *s = &c->tm->s;
    int planning = !em->writing;
    Rng rng = c->rng0;
    uint64_t t = c->t0;
    uint64_t ar_uid = ((uint64_t)c->core << 16) + 1;
    EvBuf b, mb;
    evbuf_init(&b, 2);
    evbuf_init(&mb, 5);
    b.st[0].metadata_id = s->dev_off;
    b.st[0].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
    b.st[1].metadata_id = s->dev_dur;
    b.st[1].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
    b.st[2].metadata_id = s->ar_uid;
    b.st[2].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
    uint64_t module_bytes = 0;
    if (planning)
        c->n_ex = 0;
    for (uint64_t e = 0;; e++) {
        if (planning) {
            if (c->budget ? em->bytes + module_bytes >= c->budget
                          : e >= (uint64_t)o->steps)
                break;
        } else if (e >= c->n_ex) {
            break;
        }
        if (c->n_mods == 0)
            break;
        uint32_t p = (uint32_t)(e % c->n_mods);
        const ModuleInfo *m = &c->mods[p];
        uint64_t n_ops = m->n_ops == 0 ? 0
                         : planning ? (c->budget ? m->n_ops : ops_in_exec(o, e))
                                    : c->ex[e].n_ops;
        uint64_t start = t, cur = t + MODULE_PAD_PS, busy = 0;
        uint64_t dp = c->host < o->n_debug_print
                      ? o->debug_print_ps[c->host] * (uint64_t)(c->core + 1) : 0;
        if (dp) {
            /* device time as the ops carry it: exact, no jitter */
            b.ev.metadata_id = c->tm->debug_print_meta;
            b.ev.offset_ps = (int64_t)cur;
            b.ev.duration_ps = (int64_t)dp;
            b.st[0].uint64_value = cur;
            b.st[1].uint64_value = dp;
            b.ev.n_stats = 2;
            emit(em, &b.ev);
            cur += dp + 10000;
        }
        for (uint64_t k = 0; k < n_ops; k++) {
            const TimedOp *op = &m->ops[k % m->n_ops];
            int64_t dur = op->base_ps * rng_range(&rng, 900, 1100) / 1000;
            int64_t doff = (int64_t)cur, ddur = dur;
            /* device timestamps sometimes differ slightly (format-facts §11.5) */
            if (rng_below(&rng, 4) == 0) {
                doff += rng_range(&rng, -JITTER_PS, JITTER_PS);
                ddur += rng_range(&rng, -JITTER_PS, JITTER_PS);
            }
            b.ev.metadata_id = c->tm->op_meta[p] + (int64_t)(k % m->n_ops);
            b.ev.offset_ps = (int64_t)cur;
            b.ev.duration_ps = dur;
            b.st[0].uint64_value = (uint64_t)doff;
            b.st[1].uint64_value = (uint64_t)ddur;
            b.ev.n_stats = 2;
            if (op->is_all_reduce) {
                b.st[2].uint64_value = ar_uid++;
                b.ev.n_stats = 3;
            }
            emit(em, &b.ev);
            busy += ddur > 0 ? (uint64_t)ddur : 0;
            cur += (uint64_t)dur + (uint64_t)rng_range(&rng, 2000, 40000);
        }
        uint64_t end = cur + MODULE_PAD_PS +
                       (c->core == o->cores - 1 ? o->straggler_ps : 0);
        if (o->step_ps) {
            if (end - start > o->step_ps)
                die("--step-ps %llu: an execution needs %llu ps", (unsigned long long)o->step_ps,
                    (unsigned long long)(end - start));
            end = start + o->step_ps;
        }
        if (planning) {
            push_exec(c, start, end, n_ops, p, busy);
            fill_module_event(c, c->n_ex - 1, &mb.ev, mb.st);
            module_bytes += pb_len_field_size(tensorflow__profiler__xevent__get_packed_size(&mb.ev));
        } else if (c->ex[e].start != start || c->ex[e].end != end) {
            die("internal: replayed execution %llu differs", (unsigned long long)e);
        }
        {
            /* drawn even when --gap-ps is given: the rest of the capture
             * stays what the seed makes it */
            uint64_t gap = (uint64_t)rng_range(&rng, 20000000, 60000000);

            t = end + (o->gap_set ? o->gap_ps : gap);
        }
    }
}

static void modules_gen(void *vctx, Emitter *em)
{
    CoreCtx *c = vctx;
    EvBuf b;
    evbuf_init(&b, 5);
    for (size_t e = 0; e < c->n_ex; e++) {
        fill_module_event(c, e, &b.ev, b.st);
        emit(em, &b.ev);
    }
}

static void steps_gen(void *vctx, Emitter *em)
{
    CoreCtx *c = vctx;
    EvBuf b;
    evbuf_init(&b, 1);
    b.st[0].metadata_id = c->tm->s.group_id;
    b.st[0].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE;
    for (size_t e = 0; e < c->n_ex && e < (size_t)c->o->steps; e++) {
        b.ev.metadata_id = c->tm->step_meta + (int64_t)e;
        b.ev.offset_ps = (int64_t)c->ex[e].start;
        b.ev.duration_ps = (int64_t)(c->ex[e].end - c->ex[e].start);
        b.st[0].int64_value = (int64_t)e;
        emit(em, &b.ev);
    }
}

/* ------------------------------------------------------------ host planes */

typedef struct {
    int64_t idx, res, inuse, avail, frag, peak, addr, req, albytes, step, region, dtype, tfop,
        shape;
} MemStats;

/* The allocator's MemoryAllocation / MemoryDeallocation events (format-facts
 * §6), generated on the fly like the TPU op lines so that millions of them
 * need no memory: alloc and dealloc of the same address alternate, spread
 * over the devices (index_on_host), with running in-use / peak counters. */
typedef struct {
    const Options *o;
    Rng rng0;
    MemStats s;
    int64_t m_alloc, m_free;
    int64_t *tfop_ref, *shape_ref; /* per program: interned strings */
    int64_t dummy_ref;
    size_t n_mods;
    uint64_t n_alloc, n_dealloc;  /* counted by the sizing pass */
} MemCtx;

/* TraceMe events of the main and python threads, per step: generated on
 * the fly too, since --steps can be large. */
typedef struct {
    const Options *o;
    size_t n_mods;
    const ModuleInfo *mods;
    int64_t m_parse, m_train, m_exec, m_pjit; /* event metadata ids */
    int64_t s_run, s_stepnum, s_pid;          /* stat metadata ids */
} TraceCtx;

typedef struct {
    PlaneSpec plane;
    LineSpec lines[3];
    TraceCtx tr;
    MemCtx mem;
} HostPlane;

/* main thread: one jitted call per step, with nested TraceMes */
static void main_thread_gen(void *vctx, Emitter *em)
{
    TraceCtx *t = vctx;
    EvBuf b;
    evbuf_init(&b, 2);
    b.st[0].metadata_id = t->s_run;
    b.st[0].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE; /* uint64 on TPU */
    b.st[1].metadata_id = t->s_pid;
    b.st[1].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE; /* GPU-style */
    for (int s = 0; s < t->o->steps && t->n_mods; s++) {
        int64_t off = 1000000 + (int64_t)s * 90000000;
        size_t p = (size_t)s % t->n_mods;
        b.ev.metadata_id = t->m_pjit + (int64_t)p;
        b.ev.offset_ps = off;
        b.ev.duration_ps = 60000000;
        b.ev.n_stats = 2;
        b.st[0].int64_value = s + 1;
        b.st[1].int64_value = (int64_t)t->mods[p].program_id;
        emit(em, &b.ev);
        b.ev.n_stats = 0;
        b.ev.metadata_id = t->m_parse;
        b.ev.offset_ps = off + 1000000;
        b.ev.duration_ps = 2500000;
        emit(em, &b.ev);
        b.ev.metadata_id = t->m_exec;
        b.ev.offset_ps = off + 5000000;
        b.ev.duration_ps = 40000000;
        emit(em, &b.ev);
    }
}

/* python thread (negative line id): JAX "train" step annotations */
static void python_thread_gen(void *vctx, Emitter *em)
{
    TraceCtx *t = vctx;
    EvBuf b;
    evbuf_init(&b, 1);
    b.st[0].metadata_id = t->s_stepnum;
    b.st[0].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE;
    for (int s = 0; s < t->o->steps; s++) {
        b.ev.metadata_id = t->m_train;
        b.ev.offset_ps = 500000 + (int64_t)s * 90000000;
        b.ev.duration_ps = 80000000;
        b.st[0].int64_value = s;
        emit(em, &b.ev);
    }
}

#define MEM_STATS 14

static void mem_setup(const Options *o, const ModuleInfo *mods, size_t n_mods, int host,
                      Arena *a, StatTab *st, MemCtx *mc)
{
    MemStats *s = &mc->s;
    mc->o = o;
    mc->rng0 = rng_make(o->seed, 8000 + (uint64_t)host);
    mc->n_mods = n_mods;
    s->idx = st_id(st, a, "index_on_host");
    s->res = st_id(st, a, "bytes_reserved");
    s->inuse = st_id(st, a, "bytes_allocated");
    s->avail = st_id(st, a, "bytes_available");
    s->frag = st_id(st, a, "fragmentation");
    s->peak = st_id(st, a, "peak_bytes_in_use");
    s->addr = st_id(st, a, "addr");
    s->req = st_id(st, a, "requested_bytes");
    s->albytes = st_id(st, a, "allocation_bytes");
    s->step = st_id(st, a, "id");
    s->region = st_id(st, a, "region_type");
    s->dtype = st_id(st, a, "data_type");
    s->tfop = st_id(st, a, "tf_op");
    s->shape = st_id(st, a, "shape");
    mc->dummy_ref = st_id(st, a, "dummy");
    mc->tfop_ref = ANEWN(a, int64_t, n_mods);
    mc->shape_ref = ANEWN(a, int64_t, n_mods);
    for (size_t m = 0; m < n_mods; m++) {
        mc->tfop_ref[m] = st_id(st, a, mods[m].sample_tf_op);
        mc->shape_ref[m] = st_id(st, a, mods[m].sample_shape);
    }
}

static void set_i64(Tensorflow__Profiler__XStat *x, int64_t mid, int64_t v)
{
    x->metadata_id = mid;
    x->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE;
    x->int64_value = v;
}

static void set_u64(Tensorflow__Profiler__XStat *x, int64_t mid, uint64_t v, int ref)
{
    x->metadata_id = mid;
    x->value_case = ref ? TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE
                        : TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
    x->uint64_value = v; /* same union slot as ref_value */
}

static void mem_gen(void *vctx, Emitter *em)
{
    static const Tensorflow__Profiler__XEvent init = TENSORFLOW__PROFILER__XEVENT__INIT;
    static const Tensorflow__Profiler__XStat sinit = TENSORFLOW__PROFILER__XSTAT__INIT;
    static const int64_t sizes[] = {4096, 65536, 524288, 4194304, 16777216, 2048};
    static const int64_t capacity = 34359738368ll;
    MemCtx *mc = vctx;
    const MemStats *S = &mc->s;
    const Options *o = mc->o;
    Rng rng = mc->rng0;
    Tensorflow__Profiler__XStat st[MEM_STATS], *sp[MEM_STATS];
    for (int i = 0; i < MEM_STATS; i++) {
        st[i] = sinit;
        sp[i] = &st[i];
    }
    Tensorflow__Profiler__XEvent ev = init;
    ev.data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
    ev.stats = sp;
    int cores = o->cores;
    int64_t inuse[64] = {0}, peak[64] = {0}; /* per device, modulo 64 */
    int64_t size = 0, addr = 0;
    int d = 0;
    uint64_t steps = o->steps > 0 ? (uint64_t)o->steps : 1;
    if (!em->writing)
        mc->n_alloc = mc->n_dealloc = 0;
    for (uint64_t k = 0; k < o->memory_events; k++) {
        int alloc = k % 2 == 0;
        uint64_t j = k / 2;
        if (alloc) {
            d = (int)(j % (uint64_t)cores) % 64;
            size = sizes[rng_below(&rng, 6)];
            addr = 0x200000000ll + (int64_t)d * 0x40000000ll + (int64_t)(j % 4096) * 0x100000ll;
            inuse[d] += size;
            if (inuse[d] > peak[d])
                peak[d] = inuse[d];
        } else {
            inuse[d] -= size;
        }
        int64_t reserved = d % 2 ? 0 : 1960673280ll;
        size_t n = 0;
        ev.metadata_id = alloc ? mc->m_alloc : mc->m_free;
        ev.offset_ps = 5000000 + (int64_t)k * 1500000; /* instant: duration 0 */
        set_i64(&st[n++], S->idx, d);
        set_i64(&st[n++], S->res, reserved);
        /* a damaged capture: the allocator's count below zero */
        set_i64(&st[n++], S->inuse,
                alloc && j < o->damaged_memory_events ? -inuse[d] : inuse[d]);
        set_i64(&st[n++], S->avail, capacity - reserved - inuse[d]);
        st[n].metadata_id = S->frag;
        st[n].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE;
        st[n++].double_value = inuse[d] ? 0.05 * (double)(j % 7) : 0.0;
        set_i64(&st[n++], S->peak, peak[d]);
        /* addr: int64 on allocations, uint64 on deallocations (accept both) */
        if (alloc)
            set_i64(&st[n++], S->addr, addr);
        else
            set_u64(&st[n++], S->addr, (uint64_t)addr, 0);
        if (alloc) { /* deallocations carry no requested/allocation bytes */
            set_i64(&st[n++], S->req, size - (int64_t)(j % 3) * 16);
            set_i64(&st[n++], S->albytes, size);
        }
        set_i64(&st[n++], S->step, (int64_t)(j % steps));
        st[n].metadata_id = S->region;
        st[n].value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE;
        st[n++].str_value = (char *)(j % 2 ? "temp" : "output");
        set_i64(&st[n++], S->dtype, j % 3 ? 1 : 14);
        size_t m = mc->n_mods ? (size_t)(j % mc->n_mods) : 0;
        set_u64(&st[n++], S->tfop,
                (uint64_t)(mc->n_mods && j % 4 ? mc->tfop_ref[m] : mc->dummy_ref), 1);
        set_u64(&st[n++], S->shape, (uint64_t)(mc->n_mods ? mc->shape_ref[m] : mc->dummy_ref), 1);
        ev.n_stats = n;
        emit(em, &ev);
        if (!em->writing) {
            mc->n_alloc += alloc;
            mc->n_dealloc += !alloc;
        }
    }
}

static void host_plane(const Options *o, const ModuleInfo *mods, size_t n_mods, int host,
                       Arena *a, HostPlane *hp)
{
    StatTab st = {0};
    EmTab em = {0};
    Rng rng = rng_make(o->seed, 9000 + (uint64_t)host);
    int64_t tid = 3116000 + (int64_t)rng_below(&rng, 1000);
    em_add(&em, a, 1, "MemoryAllocation", NULL);
    em_add(&em, a, 2, "MemoryDeallocation", NULL);
    TraceCtx *t = &hp->tr;
    t->o = o;
    t->mods = mods;
    t->n_mods = n_mods;
    t->m_parse = 3;
    t->m_train = 4;
    t->m_exec = 5;
    t->m_pjit = 6;
    em_add(&em, a, t->m_parse, "ParseArguments", NULL);
    em_add(&em, a, t->m_train, "train", NULL);
    em_add(&em, a, t->m_exec, "ExecuteHelper", NULL);
    for (size_t p = 0; p < n_mods; p++)
        em_add(&em, a, t->m_pjit + (int64_t)p,
               arena_printf(a, "PjitFunction(%s)", mods[p].name + 4), NULL);
    t->s_run = st_id(&st, a, "run_id");
    t->s_stepnum = st_id(&st, a, "step_num");
    t->s_pid = st_id(&st, a, "program_id");
    /* memory events on the runtime thread */
    mem_setup(o, mods, n_mods, host, a, &st, &hp->mem);
    hp->mem.m_alloc = 1;
    hp->mem.m_free = 2;

    static const char *const names[3] = {"main", "pjrt-tpu-tasks", "python"};
    int64_t ids[3] = {tid, tid + 561, -(int64_t)(1 + rng_below(&rng, 100))};
    /* host lines carry normalized nonzero timestamps (format-facts §1) */
    int64_t ts[3] = {81445045, 81445060, 81440000};
    for (int i = 0; i < 3; i++) {
        const char *nm = i == 2 ? names[i] : arena_printf(a, "%s/%lld", names[i], (long long)ids[i]);
        line_head(&hp->lines[i], a, ids[i], nm, i == 0 ? "main" : NULL, ts[i]);
        hp->lines[i].gen = i == 0 ? main_thread_gen : i == 1 ? mem_gen : python_thread_gen;
        hp->lines[i].ctx = i == 1 ? (void *)&hp->mem : (void *)&hp->tr;
    }
    hp->plane.lines = hp->lines;
    hp->plane.n_lines = 3;
    plane_pack(&hp->plane, a, 0, "/host:CPU", &st, &em, NULL, 0);
}

/* /host:metadata: embedded HloProtos (layout A or B) plus entries a reader
 * must ignore (format-facts §3). */
static void metadata_plane(const Options *o, const ModuleInfo *mods, size_t n_mods, Arena *a,
                           PlaneSpec *p)
{
    StatTab st = {0};
    EmTab em = {0};
    int64_t s_sym = st_id(&st, a, "symbol_id");
    int64_t s_symt = st_id(&st, a, "symbol_type");
    int64_t s_hlo = o->no_hlo ? 0 : st_id(&st, a, "Hlo Proto");
    int64_t s_pid = o->layout == 'B' && !o->no_hlo ? st_id(&st, a, "program_id") : 0;
    int64_t s_llo = st_id(&st, a, "llo_proto");
    int64_t s_jax = st_id(&st, a, "jax_version");
    int64_t s_jaxlib = st_id(&st, a, "jaxlib_version");
    int64_t next = 1;
    if (!o->no_hlo) {
        for (size_t m = 0; m < n_mods; m++) {
            const char *nm = modname(a, &mods[m]);
            Tensorflow__Profiler__XEventMetadata *md;
            if (o->layout == 'A') {
                /* id == program id, stored as (possibly negative) int64 */
                md = em_add(&em, a, (int64_t)mods[m].program_id, nm, NULL);
            } else {
                md = em_add(&em, a, next++, nm, nm);
            }
            md_stat(md, stat_bytes(a, s_hlo, mods[m].hlo_bytes, mods[m].hlo_len));
            if (o->layout == 'B')
                md_stat(md, stat_u64(a, s_pid, mods[m].program_id));
        }
    }
    uint64_t pid0 = n_mods ? mods[0].program_id : 29;
    Tensorflow__Profiler__XEventMetadata *md = em_add(
        &em, a, next++, arena_printf(a, "XLA_HLO_MODULE_ID_MAP:%llu", (unsigned long long)pid0), NULL);
    md_stat(md, stat_str(a, s_sym, arena_printf(a, "%llu", (unsigned long long)pid0)));
    md_stat(md, stat_str(a, s_symt, "XLA_HLO_MODULE_ID_MAP"));
    /* llo_proto bytes: not an HloProto, must not be parsed as one */
    static const uint8_t llo[] = {0x0a, 0x05, 'b', 'u', 'n', 'd', 'l', 0x10, 0x2a, 0xff, 0xff};
    md = em_add(&em, a, next++, "jit_f(29)::fusion.28", NULL);
    md_stat(md, stat_bytes(a, s_llo, llo, sizeof llo));
    em_add(&em, a, next++, "ThreadpoolListener::Region", NULL);
    Tensorflow__Profiler__XStat **ps = ANEWN(a, Tensorflow__Profiler__XStat *, 2);
    ps[0] = stat_str(a, s_jax, "0.4.38");
    ps[1] = stat_str(a, s_jaxlib, "0.4.38");
    plane_pack(p, a, 0, "/host:metadata", &st, &em, ps, 2);
}

static void task_env_plane(uint64_t start_ns, uint64_t stop_ns, Arena *a, PlaneSpec *p)
{
    StatTab st = {0};
    int64_t s_start = st_id(&st, a, "profile_start_time");
    int64_t s_stop = st_id(&st, a, "profile_stop_time");
    int64_t s_opts = st_id(&st, a, "profile_options");
    static const uint8_t opts[] = {0x28, 0x01, 0x30, 0x02}; /* opaque ProfileOptions */
    Tensorflow__Profiler__XStat **ps = ANEWN(a, Tensorflow__Profiler__XStat *, 3);
    ps[0] = stat_u64(a, s_start, start_ns);
    ps[1] = stat_u64(a, s_stop, stop_ns);
    ps[2] = stat_bytes(a, s_opts, opts, sizeof opts);
    plane_pack(p, a, 0, "Task Environment", &st, NULL, ps, 3);
}

/* ------------------------------------------------------------ the file */

uint64_t full_plane_bytes(PlaneSpec *p, uint64_t split)
{
    return pb_len_field_size(plane_size(p, split));
}

static void tpu_plane_setup(const Options *o, const TpuMeta *tm, int core, Arena *a,
                            PlaneSpec *p, LineSpec *lines, CoreCtx *c)
{
    memset(p, 0, sizeof *p);
    memset(lines, 0, 3 * sizeof *lines);
    char *name = arena_printf(a, "/device:TPU:%d", core);
    /* plane ids 2, 10, 18, ... are not the ordinal (format-facts §1) */
    static const Tensorflow__Profiler__XPlane init = TENSORFLOW__PROFILER__XPLANE__INIT;
    Tensorflow__Profiler__XPlane h = init;
    h.id = 2 + 8 * (int64_t)core;
    h.name = name;
    p->id = h.id;
    p->name = name;
    p->head_len = tensorflow__profiler__xplane__get_packed_size(&h);
    p->head = arena_alloc(a, p->head_len);
    tensorflow__profiler__xplane__pack(&h, p->head);
    p->tail = tm->tail;
    p->tail_len = tm->tail_len;
    /* device lines have timestamp_ns 0 and offsets of ~8e10 ps */
    line_head(&lines[0], a, 2, "XLA Modules", NULL, o->device_line_ns);
    lines[0].gen = modules_gen;
    line_head(&lines[1], a, 3, "XLA Ops", NULL, o->device_line_ns);
    lines[1].gen = ops_gen;
    line_head(&lines[2], a, 1, "Steps", NULL, 0);
    lines[2].gen = steps_gen;
    for (int i = 0; i < 3; i++)
        lines[i].ctx = c;
    p->lines = lines;
    p->n_lines = o->steps_line && !o->target_bytes ? 3 : 2;
}

void xspace_write_file(const Options *o, const ModuleInfo *mods, size_t n_mods, int host,
                       const char *path, Arena *a, Arena *keep, FileSum *fs)
{
    uint64_t split = o->split_line;
    memset(fs, 0, sizeof *fs);
    fs->path = arena_strdup(keep, path);
    fs->hostname = o->no_hostnames ? NULL : arena_printf(keep, "host%d", host);
    fs->planes = ANEWN(keep, PlaneSum, (size_t)o->cores + 3);
    fs->n_hlo_modules = o->no_hlo ? 0 : n_mods;

    PlaneSpec proto;
    TpuMeta tm;
    memset(&proto, 0, sizeof proto);
    memset(&tm, 0, sizeof tm);
    if (o->shape == SHAPE_TPU)
        tpu_meta(o, mods, n_mods, a, &tm, &proto);
    PlaneSpec meta;
    memset(&meta, 0, sizeof meta);
    metadata_plane(o, mods, n_mods, a, &meta);
    HostPlane *hp = ANEW(a, HostPlane);
    host_plane(o, mods, n_mods, host, a, hp);
    Rng trng = rng_make(o->seed, 7000 + (uint64_t)host);
    uint64_t start_ns = 1741722099081044120ull + rng_below(&trng, 1000000000ull);
    PlaneSpec env;
    memset(&env, 0, sizeof env);
    task_env_plane(start_ns, start_ns + 1000000000ull, a, &env);

    uint64_t host_bytes = fs->hostname ? pb_len_field_size(strlen(fs->hostname)) : 0;
    uint64_t fixed = host_bytes + full_plane_bytes(&meta, split) +
                     full_plane_bytes(&hp->plane, split) + full_plane_bytes(&env, split);

    Sink sink;
    sink_open(&sink, path, o->gzip, o->gzip_level);
    uint64_t expect = 0, max_end_ps = 0;
    if (o->shape != SHAPE_TPU) {
        /* per-GPU share of what the other planes leave */
        uint64_t rest = o->target_bytes > fixed ? o->target_bytes - fixed : 0;
        uint64_t budget = o->target_bytes ? rest / (uint64_t)o->cores + 1 : 0;
        gpu_planes_write(o, mods, n_mods, host, budget, &sink, fs, a, keep, &expect,
                         &max_end_ps);
    }
    for (int core = 0; o->shape == SHAPE_TPU && core < o->cores; core++) {
        PlaneSpec p;
        LineSpec lines[3];
        CoreCtx c;
        memset(&c, 0, sizeof c);
        c.o = o;
        c.mods = mods;
        c.n_mods = n_mods;
        c.tm = &tm;
        c.core = core;
        c.host = host;
        c.rng0 = rng_make(o->seed, 1000000 + (uint64_t)host * 1000 + (uint64_t)core);
        c.t0 = 81500000000ull + (uint64_t)core * 1250000ull;
        tpu_plane_setup(o, &tm, core, a, &p, lines, &c);
        if (o->target_bytes) {
            /* per-core share of what the other planes leave */
            uint64_t overhead = fixed + (uint64_t)o->cores * (p.head_len + tm.tail_len + 16 +
                                                           lines[0].head_len + lines[1].head_len);
            uint64_t rest = o->target_bytes > overhead ? o->target_bytes - overhead : 0;
            c.budget = rest / (uint64_t)o->cores;
            if (c.budget == 0)
                c.budget = 1;
        }
        line_size(&lines[1], split); /* plans the executions */
        uint64_t size = plane_size(&p, split);
        expect += pb_len_field_size(size);
        plane_write(&p, split, &sink, fs, keep);
        if (o->summary_steps) {
            PlaneSum *ps = &fs->planes[fs->n_planes - 1];
            size_t n3 = 3 * c.n_ex;
            ps->n_execs = c.n_ex;
            ps->execs = ANEWN(keep, uint64_t, n3);
            for (size_t e = 0; e < c.n_ex; e++) {
                ps->execs[3 * e] = c.ex[e].start;
                ps->execs[3 * e + 1] = c.ex[e].end;
                ps->execs[3 * e + 2] = c.ex[e].busy;
            }
        }
        fs->xla_ops += lines[1].n_events;
        fs->xla_modules += lines[0].n_events;
        if (c.n_ex && c.ex[c.n_ex - 1].end > max_end_ps)
            max_end_ps = c.ex[c.n_ex - 1].end;
        free(c.ex);
    }
    expect += full_plane_bytes(&meta, split);
    plane_write(&meta, split, &sink, fs, keep);
    expect += full_plane_bytes(&hp->plane, split);
    plane_write(&hp->plane, split, &sink, fs, keep);
    fs->mem_alloc = hp->mem.n_alloc;
    fs->mem_dealloc = hp->mem.n_dealloc;
    /* the real stop time is only known now that the timelines are done */
    task_env_plane(start_ns, start_ns + max_end_ps / 1000 + 1000000, a, &env);
    expect += full_plane_bytes(&env, split);
    plane_write(&env, split, &sink, fs, keep);
    if (fs->hostname) {
        size_t n = strlen(fs->hostname);
        sink_len_header(&sink, 4, n);
        sink_write(&sink, fs->hostname, n);
        expect += host_bytes;
    }
    if (sink.total != expect)
        die("internal: wrote %llu bytes, expected %llu", (unsigned long long)sink.total,
            (unsigned long long)expect);
    fs->bytes = sink.total;
    sink_close(&sink);
}
