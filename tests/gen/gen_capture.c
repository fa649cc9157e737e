/* gen_capture.c - synthetic TPU profiler captures for tpuprof's tests and
 * benchmarks: command line and the per-file driver. See README.md. */
#include "gen.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char USAGE[] =
    "usage: gen_capture [options] -o OUT\n"
    "  --seed N             PRNG seed (default 1)\n"
    "  --cores N            TPU core planes /device:TPU:0..N-1 (default 2)\n"
    "  --shape S            tpu, jax-gpu (kernel events with 7 stats on\n"
    "                       /device:GPU:N) or tf-gpu (TF-era GPU: 8 stats per\n"
    "                       kernel, a TensorFlow Ops line); default tpu\n"
    "  --programs N         HLO modules (default 2)\n"
    "  --layout A|B         HLO embedding layout in /host:metadata (default A)\n"
    "  --instructions N     plain instructions per entry computation (default 20)\n"
    "  --fusions N          fusion instructions per module (default 3)\n"
    "  --nested-fusions N   fusions holding a nested fusion (default 1)\n"
    "  --collectives N      collective ops per module (default 1)\n"
    "  --heap-events N      approx. heap-simulator events per module (default 40)\n"
    "  --heap-traces N      heap-simulator traces per module (default 1)\n"
    "  --events-per-line N  XLA Ops events per core (default 200)\n"
    "  --memory-events N    MemoryAllocation/Deallocation events (default 50)\n"
    "  --damaged-memory-events N\n"
    "                       the first N allocations carry a negative bytes_allocated\n"
    "                       (a damaged capture)\n"
    "  --steps N            program executions per core (default 2)\n"
    "  --steps-line         also write a \"Steps\" line on TPU planes\n"
    "  --step-ps N          each execution lasts exactly N ps (dies if its ops need more)\n"
    "  --gap-ps N           N ps between a TPU core's executions (default: 20 to 60 us\n"
    "                       at random: the host's time between runs)\n"
    "  --debug-print-ps A,B,...  on host i, TPU core c starts each execution with a\n"
    "                       \"debug_print\" op of (c+1) x the i-th value ps (0 past the list)\n"
    "  --straggler-ps N     the last TPU core idles N ps more at the end of each\n"
    "                       execution (a straggling core); on GPU shapes the last\n"
    "                       GPU waits N ps before each execution's last kernel\n"
    "  --summary-steps      the summary lists each core's executions: start,\n"
    "                       end and busy ps (ground truth for steps)\n"
    "  --hosts N            N > 1: OUT is a directory of host<i>.xplane.pb files\n"
    "  --gzip               gzip the output; --gzip-level N (default 6)\n"
    "  --hlo-only           write the first module's serialized xla.HloProto\n"
    "  --no-hlo             no HloProtos in /host:metadata\n"
    "  --no-hostnames       leave XSpace.hostnames empty\n"
    "  --target-bytes N     add XLA Ops events until the file is about N bytes\n"
    "  --split-line N       at most N events per XLine message (default: no split)\n"
    "  --device-line-ns N   timestamp_ns of TPU device lines (default 0)\n"
    "  --summary FILE       write a JSON summary of what was generated\n";

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gen_capture: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n", stderr);
    fputs(USAGE, stderr);
    exit(2);
}

/* Accepts plain decimal plus K/M/G (powers of 1000) for sizes. */
static uint64_t parse_u64(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        usage_error("bad value for %s", opt);
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1000, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1000000, end++;
    else if (*end == 'G' || *end == 'g')
        mul = 1000000000, end++;
    if (errno || *end || (mul > 1 && v > UINT64_MAX / mul))
        usage_error("bad value for %s", opt);
    return (uint64_t)v * mul;
}

static int parse_int(const char *opt, const char *s, int lo, int hi)
{
    uint64_t v = parse_u64(opt, s);
    if (v < (uint64_t)lo || v > (uint64_t)hi)
        usage_error("value out of range for %s", opt);
    return (int)v;
}

static void defaults(Options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->cores = 2;
    o->programs = 2;
    o->layout = 'A';
    o->instructions = 20;
    o->fusions = 3;
    o->nested_fusions = 1;
    o->collectives = 1;
    o->heap_events = 40;
    o->heap_traces = 1;
    o->events_per_line = 200;
    o->memory_events = 50;
    o->steps = 2;
    o->hosts = 1;
    o->gzip_level = 6;
}

static void parse_args(int argc, char **argv, Options *o)
{
    defaults(o);
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        char *val = NULL;
        char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        if (eq) {
            *eq = 0; /* "--opt=value" */
            val = eq + 1;
        }
#define FLAG(name) (!strcmp(a, name))
#define VALUE() (val ? val : (i + 1 < argc ? argv[++i] : (usage_error("%s needs a value", a), "")))
        if (FLAG("-h") || FLAG("--help")) {
            fputs(USAGE, stdout);
            exit(0);
        } else if (FLAG("-o") || FLAG("--out")) {
            o->out = VALUE();
        } else if (FLAG("--seed")) {
            o->seed = parse_u64(a, VALUE());
        } else if (FLAG("--cores")) {
            o->cores = parse_int(a, VALUE(), 1, 4096);
        } else if (FLAG("--shape")) {
            const char *v = VALUE();
            if (!strcmp(v, "tpu"))
                o->shape = SHAPE_TPU;
            else if (!strcmp(v, "jax-gpu"))
                o->shape = SHAPE_JAX_GPU;
            else if (!strcmp(v, "tf-gpu"))
                o->shape = SHAPE_TF_GPU;
            else
                usage_error("--shape must be tpu, jax-gpu or tf-gpu, not %s", v);
        } else if (FLAG("--programs")) {
            o->programs = parse_int(a, VALUE(), 1, 100000);
        } else if (FLAG("--layout")) {
            const char *v = VALUE();
            if (strcmp(v, "A") && strcmp(v, "B") && strcmp(v, "a") && strcmp(v, "b"))
                usage_error("--layout must be A or B, not %s", v);
            o->layout = (char)(v[0] & ~0x20);
        } else if (FLAG("--instructions")) {
            o->instructions = parse_int(a, VALUE(), 0, 1000000);
        } else if (FLAG("--fusions")) {
            o->fusions = parse_int(a, VALUE(), 0, 1000000);
        } else if (FLAG("--nested-fusions")) {
            o->nested_fusions = parse_int(a, VALUE(), 0, 1000000);
        } else if (FLAG("--collectives")) {
            o->collectives = parse_int(a, VALUE(), 0, 1000000);
        } else if (FLAG("--heap-events")) {
            o->heap_events = parse_int(a, VALUE(), 0, 100000000);
        } else if (FLAG("--heap-traces")) {
            o->heap_traces = parse_int(a, VALUE(), 0, 1000);
        } else if (FLAG("--events-per-line")) {
            o->events_per_line = parse_u64(a, VALUE());
        } else if (FLAG("--memory-events")) {
            o->memory_events = parse_u64(a, VALUE());
        } else if (FLAG("--damaged-memory-events")) {
            o->damaged_memory_events = parse_u64(a, VALUE());
        } else if (FLAG("--steps")) {
            o->steps = parse_int(a, VALUE(), 0, 100000000);
        } else if (FLAG("--steps-line")) {
            o->steps_line = 1;
        } else if (FLAG("--straggler-ps")) {
            o->straggler_ps = parse_u64(a, VALUE());
        } else if (FLAG("--gap-ps")) {
            o->gap_set = 1;
            o->gap_ps = parse_u64(a, VALUE());
        } else if (FLAG("--step-ps")) {
            o->step_ps = parse_u64(a, VALUE());
        } else if (FLAG("--debug-print-ps")) {
            char *list = strdup(VALUE()), *save = NULL;
            o->n_debug_print = 0;
            for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (o->n_debug_print == 8)
                    usage_error("--debug-print-ps takes at most 8 values");
                o->debug_print_ps[o->n_debug_print++] = parse_u64(a, tok);
            }
            free(list);
        } else if (FLAG("--summary-steps")) {
            o->summary_steps = 1;
        } else if (FLAG("--hosts")) {
            o->hosts = parse_int(a, VALUE(), 1, 100000);
        } else if (FLAG("--gzip")) {
            o->gzip = 1;
        } else if (FLAG("--gzip-level")) {
            o->gzip_level = parse_int(a, VALUE(), 0, 9);
        } else if (FLAG("--hlo-only")) {
            o->hlo_only = 1;
        } else if (FLAG("--no-hlo")) {
            o->no_hlo = 1;
        } else if (FLAG("--no-hostnames")) {
            o->no_hostnames = 1;
        } else if (FLAG("--target-bytes")) {
            o->target_bytes = parse_u64(a, VALUE());
        } else if (FLAG("--device-line-ns")) {
            o->device_line_ns = (int64_t)parse_u64(a, VALUE());
        } else if (FLAG("--split-line")) {
            o->split_line = parse_u64(a, VALUE());
        } else if (FLAG("--summary")) {
            o->summary = VALUE();
        } else {
            usage_error("unknown option %s", a);
        }
#undef FLAG
#undef VALUE
    }
    if (!o->out)
        usage_error("missing -o OUT");
    if (o->hlo_only && o->hosts > 1)
        usage_error("--hlo-only writes one file; drop --hosts");
}

/* --hlo-only: the raw serialized HloProto of the first module, exactly what
 * XProf caches as "<module>(<program_id>).hlo_proto.pb". */
static void write_hlo_only(const Options *o, const ModuleInfo *m, Arena *a, FileSum *fs)
{
    Sink s;
    sink_open(&s, o->out, o->gzip, o->gzip_level);
    sink_write(&s, m->hlo_bytes, m->hlo_len);
    memset(fs, 0, sizeof *fs);
    fs->path = arena_strdup(a, o->out);
    fs->hlo_only = 1;
    fs->bytes = s.total;
    fs->n_hlo_modules = 1;
    sink_close(&s);
}

int main(int argc, char **argv)
{
    Options o;
    parse_args(argc, argv, &o);
    Arena arena = {0};
    ModuleInfo *mods = NULL;
    size_t n_mods = 0;
    hlo_build_modules(&o, &arena, &mods, &n_mods);

    size_t n_files = o.hlo_only ? 1 : (size_t)o.hosts;
    FileSum *files = ANEWN(&arena, FileSum, n_files);
    if (o.hlo_only) {
        write_hlo_only(&o, &mods[0], &arena, &files[0]);
    } else {
        if (o.hosts > 1 && mkdir(o.out, 0777) != 0 && errno != EEXIST)
            die("cannot create directory %s: %s", o.out, strerror(errno));
        for (int h = 0; h < o.hosts; h++) {
            /* a run directory: OUT/host<i>.xplane.pb (gzip'd content with
             * --gzip; the name stays what XProf globs for) */
            const char *path = o.hosts == 1 ? o.out
                               : arena_printf(&arena, "%s/host%d.xplane.pb", o.out, h);
            /* a scratch arena per file: a run directory of many hosts must
             * not keep every host's metadata in memory */
            Arena scratch = {0};
            xspace_write_file(&o, mods, n_mods, h, path, &scratch, &arena, &files[h]);
            arena_free(&scratch);
        }
    }
    if (o.summary)
        summary_write(o.summary, &o, mods, n_mods, files, n_files);
    arena_free(&arena);
    return 0;
}
