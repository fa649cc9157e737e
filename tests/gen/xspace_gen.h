/* xspace_gen.h - the streaming XSpace writer's pieces shared by the
 * files that write planes: xspace_gen.c (TPU planes, host planes, the
 * file) and gpu_gen.c (GPU planes, --shape jax-gpu|tf-gpu). */
#ifndef TPUPROF_TESTS_XSPACE_GEN_H
#define TPUPROF_TESTS_XSPACE_GEN_H

#include "gen.h"

/* XStatMetadata of one plane; id = index + 1. Also the interning table for
 * ref_value strings (a ref names the XStatMetadata whose name is the value). */
typedef struct {
    char **names;
    size_t n, cap;
} StatTab;

typedef struct {
    Tensorflow__Profiler__XPlane__EventMetadataEntry **e;
    size_t n, cap;
} EmTab;

#define MAX_MD_STATS 16

typedef struct Emitter Emitter;
typedef void (*GenFn)(void *ctx, Emitter *em);

typedef struct {
    const char *name;
    int64_t id;
    uint8_t *head; /* packed XLine without events */
    size_t head_len;
    GenFn gen;
    void *ctx;
    uint64_t n_events;
    size_t *chunks; /* packed size of each XLine message (split lines) */
    size_t n_chunks, cap_chunks;
    uint64_t bytes; /* all XLine fields of this line, keys and lengths included */
} LineSpec;

struct Emitter {
    int writing;
    LineSpec *line;
    uint64_t split;
    uint64_t count;
    size_t cur;       /* sizing: bytes of the XLine message being filled */
    size_t chunk_idx; /* writing: next XLine message */
    uint64_t bytes;   /* event bytes so far (keys and lengths included) */
    Sink *sink;
};

typedef struct {
    const char *name;
    int64_t id;
    uint8_t *head, *tail;
    size_t head_len, tail_len;
    LineSpec *lines;
    size_t n_lines;
} PlaneSpec;

Tensorflow__Profiler__XStat *stat_u64(Arena *a, int64_t mid, uint64_t v);
Tensorflow__Profiler__XStat *stat_i64(Arena *a, int64_t mid, int64_t v);
Tensorflow__Profiler__XStat *stat_dbl(Arena *a, int64_t mid, double v);
Tensorflow__Profiler__XStat *stat_str(Arena *a, int64_t mid, const char *v);

/* The id of name in t, added when new (stat metadata and ref strings). */
int64_t st_id(StatTab *t, Arena *a, const char *name);
Tensorflow__Profiler__XEventMetadata *em_add(EmTab *t, Arena *a, int64_t id,
                                            const char *name, const char *display);
void md_stat(Tensorflow__Profiler__XEventMetadata *m, Tensorflow__Profiler__XStat *s);

/* One XEvent into the line being sized or written. */
void emit(Emitter *em, const Tensorflow__Profiler__XEvent *ev);
/* The sizing pass of a line: its bytes inside the plane. */
uint64_t line_size(LineSpec *l, uint64_t split);
void line_head(LineSpec *l, Arena *a, int64_t id, const char *name, const char *display,
               int64_t ts_ns);
/* Packs the plane's head (id, name) and tail (metadata maps, stats); frees
 * the tables' arrays. */
void plane_pack(PlaneSpec *p, Arena *a, int64_t id, const char *name, StatTab *st,
                EmTab *em, Tensorflow__Profiler__XStat **stats, size_t n_stats);
uint64_t plane_size(PlaneSpec *p, uint64_t split);
uint64_t full_plane_bytes(PlaneSpec *p, uint64_t split);
void plane_write(PlaneSpec *p, uint64_t split, Sink *s, FileSum *fs, Arena *a);

/* GPU device planes of one host (gpu_gen.c): o->cores planes
 * /device:GPU:N in o->shape's form, each given budget bytes of kernel
 * events in --target-bytes mode (0: o->events_per_line kernels). Adds
 * their packed bytes to *expect and the last event end to *max_end_ps. */
void gpu_planes_write(const Options *o, const ModuleInfo *mods, size_t n_mods, int host,
                      uint64_t budget, Sink *s, FileSum *fs, Arena *a, Arena *keep,
                      uint64_t *expect, uint64_t *max_end_ps);

#endif
