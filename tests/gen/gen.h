/* gen.h - shared declarations of the synthetic capture generator.
 *
 * The generator is split in a few files:
 *   util.c        PRNG, arena allocator, string buffer, output sink, varints
 *   hlo_shape.c   XLA shapes: construction, text form, padded sizes
 *   hlo_gen.c     HLO modules + buffer assignment + heap-simulator traces
 *   xspace_gen.c  the streaming XSpace writer (planes, lines, events)
 *   gpu_gen.c     GPU device planes (--shape jax-gpu, tf-gpu)
 *   summary.c     the JSON ground-truth summary
 *   gen_capture.c command line and the per-file driver
 */
#ifndef TPUPROF_TESTS_GEN_H
#define TPUPROF_TESTS_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <zlib.h>

#include "hlo.pb-c.h"
#include "xplane.pb-c.h"

/* ---------------------------------------------------------------- options */

typedef struct {
    uint64_t seed;
    int cores;
    int programs;
    char layout;             /* 'A' or 'B' (format-facts §3) */
    int instructions;        /* plain (non-fusion, non-collective) entry instrs */
    int fusions;
    int nested_fusions;
    int collectives;
    int heap_events;
    int heap_traces;
    uint64_t events_per_line;
    uint64_t memory_events;
    uint64_t damaged_memory_events; /* the first N allocations: bytes_allocated < 0 */
    int steps;
    int hosts;
    int gzip;
    int gzip_level;
    int hlo_only;
    int no_hlo;
    int steps_line;          /* also write a "Steps" line on TPU planes */
    uint64_t straggler_ps;   /* the last TPU core idles this long at the
                              * end of each execution (a straggler) */
    int gap_set;             /* --gap-ps given                          */
    uint64_t gap_ps;         /* between two executions of a TPU core
                              * (default: 20 to 60 us at random)        */
    uint64_t step_ps;        /* each execution lasts exactly this long
                              * (0: as its ops make it) */
    uint64_t debug_print_ps[8]; /* per host: TPU core c starts each execution
                              * with a "debug_print" op of (c+1) times this */
    int n_debug_print;
    int summary_steps;       /* the summary lists each core's executions */
    int no_hostnames;        /* leave XSpace.hostnames empty */
    uint64_t target_bytes;   /* 0 = off */
    uint64_t split_line;     /* max events per XLine message; 0 = no split */
    int64_t device_line_ns;  /* TPU device lines' timestamp_ns (default 0):
                              * make bench's chunked capture, later chunks
                              * later in time */
    int shape;               /* SHAPE_TPU, SHAPE_JAX_GPU or SHAPE_TF_GPU */
    const char *out;
    const char *summary;
} Options;

/* --shape: what the device planes look like */
enum { SHAPE_TPU = 0, SHAPE_JAX_GPU, SHAPE_TF_GPU };

/* ---------------------------------------------------------------- PRNG */

/* splitmix64: one 64-bit word of state, so a generator position can be
 * saved and replayed by plain struct copy (the streaming writer runs each
 * big line twice: once to size it, once to write it). */
typedef struct {
    uint64_t s;
} Rng;

Rng rng_make(uint64_t seed, uint64_t stream);
uint64_t rng_next(Rng *r);
uint64_t rng_below(Rng *r, uint64_t n);            /* uniform in [0, n) */
int64_t rng_range(Rng *r, int64_t lo, int64_t hi); /* uniform in [lo, hi] */

/* ---------------------------------------------------------------- arena */

typedef struct ArenaBlock ArenaBlock;
typedef struct {
    ArenaBlock *head;
} Arena;

void *arena_alloc(Arena *a, size_t n); /* zeroed; exits on OOM */
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void *arena_memdup(Arena *a, const void *p, size_t n);
void arena_free(Arena *a);

#define ANEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ANEWN(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)((n) ? (n) : 1)))

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ---------------------------------------------------------------- strings */

typedef struct {
    char *p;
    size_t len, cap;
} StrBuf;

void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_puts(StrBuf *sb, const char *s);
void sb_free(StrBuf *sb);
char *sb_arena(StrBuf *sb, Arena *a); /* copy into the arena */

/* ---------------------------------------------------------------- sink */

/* Buffered output, optionally through zlib with a gzip header. `total`
 * counts uncompressed bytes so the writer can check its own size sums. */
typedef struct {
    FILE *f;
    int gz;
    z_stream z;
    uint8_t *buf;
    size_t len, cap;
    uint8_t *zbuf;
    size_t zcap;
    uint64_t total;
    int err;
    const char *path;
} Sink;

void sink_open(Sink *s, const char *path, int gzip, int level);
void sink_write(Sink *s, const void *p, size_t n);
uint8_t *sink_reserve(Sink *s, size_t n); /* n contiguous bytes; then sink_commit */
void sink_commit(Sink *s, size_t n);
void sink_close(Sink *s); /* exits on any I/O error */

/* protobuf wire helpers (field numbers used here are all < 16) */
size_t pb_varint_size(uint64_t v);
size_t pb_put_varint(uint8_t *p, uint64_t v);
size_t pb_len_field_size(size_t payload); /* key + length + payload */
void sink_len_header(Sink *s, unsigned field, uint64_t len);

/* ---------------------------------------------------------------- shapes */

enum {
    PT_PRED = 1,
    PT_S32 = 4,
    PT_F32 = 11,
    PT_TUPLE = 13,
    PT_BF16 = 16
};

Xla__ShapeProto *shape_array(Arena *a, int elem, int rank, const int64_t *dims,
                             int64_t memory_space);
Xla__ShapeProto *shape_tuple(Arena *a, Xla__ShapeProto **elems, size_t n);
Xla__ShapeProto *shape_clone(Arena *a, const Xla__ShapeProto *s, int elem);
int shape_same(const Xla__ShapeProto *x, const Xla__ShapeProto *y);
void shape_print(StrBuf *sb, const Xla__ShapeProto *s);
char *shape_string(Arena *a, const Xla__ShapeProto *s);
int64_t shape_elements(const Xla__ShapeProto *s);
int64_t shape_padded_bytes(const Xla__ShapeProto *s);
int64_t shape_unpadded_bytes(const Xla__ShapeProto *s);

/* ---------------------------------------------------------------- HLO */

/* One entry-computation instruction that gets "XLA Ops" events. */
typedef struct {
    const char *name;     /* display_name: HLO instruction name */
    const char *text;     /* name: full HLO text */
    const char *category; /* hlo_category */
    const char *shape;    /* shape_with_layout */
    const char *tf_op;    /* "<op_name>:<op_type>" */
    const char *source;   /* "file:line" or NULL */
    int64_t flops;
    int64_t bytes_accessed;
    uint64_t symbol_id;
    int64_t base_ps;      /* typical duration */
    int is_all_reduce;
} TimedOp;

typedef struct {
    char *name;
    uint64_t program_id;
    int64_t module_id;
    uint8_t *hlo_bytes;
    size_t hlo_len;
    TimedOp *ops;
    size_t n_ops;
    /* ground truth for the summary, counted on the built protos */
    size_t n_computations;
    size_t n_instructions;
    size_t n_entry_instructions;
    size_t n_fusions;
    size_t n_collectives;
    size_t n_logical_buffers;
    size_t n_allocations;
    size_t n_heap_traces;
    size_t n_heap_events;
    size_t n_heap_alloc, n_heap_free, n_share_live, n_share_freed;
    /* a few strings for host-side memory events */
    const char *sample_shape;
    const char *sample_tf_op;
} ModuleInfo;

void hlo_build_modules(const Options *o, Arena *a, ModuleInfo **mods, size_t *n);

/* ---------------------------------------------------------------- summary */

typedef struct {
    char *name;
    int64_t id;
    uint64_t events;
    uint64_t messages; /* XLine messages written for this line id */
} LineSum;

typedef struct {
    char *name;
    int64_t id;
    LineSum *lines;
    size_t n_lines;
    uint64_t *execs;   /* --summary-steps: per execution start, end (ps)
                        * and busy ps (its ops' device durations) */
    size_t n_execs;
} PlaneSum;

typedef struct {
    char *path;
    char *hostname;
    int hlo_only;
    uint64_t bytes; /* uncompressed */
    PlaneSum *planes;
    size_t n_planes;
    size_t n_hlo_modules; /* modules embedded in this file */
    uint64_t mem_alloc, mem_dealloc;
    uint64_t xla_ops, xla_modules;
} FileSum;

void summary_write(const char *path, const Options *o, const ModuleInfo *mods,
                   size_t n_mods, const FileSum *files, size_t n_files);

/* ---------------------------------------------------------------- XSpace */

/* Write one host's XSpace to `path`. Scratch data goes to `a` (free it after
 * the call); `fs` and its strings are allocated in `keep`. */
void xspace_write_file(const Options *o, const ModuleInfo *mods, size_t n_mods,
                       int host, const char *path, Arena *a, Arena *keep, FileSum *fs);

#endif
