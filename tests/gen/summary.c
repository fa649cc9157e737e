/* summary.c - the JSON ground truth written with --summary. Everything in it
 * was counted while generating (never by re-reading the output). 64-bit ids
 * are JSON strings so that readers without exact 64-bit numbers keep them. */
#include "gen.h"

#include <errno.h>
#include <string.h>

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void write_options(FILE *f, const Options *o)
{
    fprintf(f, "  \"options\": {\"seed\": %llu, \"cores\": %d, \"programs\": %d, \"layout\": \"%c\", "
               "\"instructions\": %d, \"fusions\": %d, \"nested_fusions\": %d, "
               "\"collectives\": %d, \"heap_events\": %d, \"heap_traces\": %d, "
               "\"events_per_line\": %llu, \"memory_events\": %llu, \"steps\": %d, "
               "\"hosts\": %d, \"gzip\": %s, \"hlo_only\": %s, \"no_hlo\": %s, "
               "\"steps_line\": %s, \"target_bytes\": %llu, \"split_line\": %llu},\n",
            (unsigned long long)o->seed, o->cores, o->programs, o->layout, o->instructions,
            o->fusions, o->nested_fusions, o->collectives, o->heap_events, o->heap_traces,
            (unsigned long long)o->events_per_line, (unsigned long long)o->memory_events,
            o->steps, o->hosts, o->gzip ? "true" : "false", o->hlo_only ? "true" : "false",
            o->no_hlo ? "true" : "false", o->steps_line ? "true" : "false",
            (unsigned long long)o->target_bytes, (unsigned long long)o->split_line);
}

static void write_module(FILE *f, const Options *o, const ModuleInfo *m, int last)
{
    fputs("        {\"name\": ", f);
    json_str(f, m->name);
    int64_t key = o->layout == 'A' ? (int64_t)m->program_id : 0;
    fprintf(f, ", \"program_id\": \"%llu\", \"module_id\": %lld, ",
            (unsigned long long)m->program_id, (long long)m->module_id);
    if (o->layout == 'A')
        fprintf(f, "\"metadata_key\": \"%lld\", ", (long long)key);
    fprintf(f, "\"hlo_proto_bytes\": %zu, \"computations\": %zu, \"instructions\": %zu, "
               "\"entry_instructions\": %zu, \"fusions\": %zu, \"collectives\": %zu, "
               "\"timed_ops\": %zu, \"logical_buffers\": %zu, \"buffer_allocations\": %zu, "
               "\"heap_traces\": %zu, \"heap_events\": %zu, \"heap_alloc\": %zu, "
               "\"heap_free\": %zu, \"heap_share_live\": %zu, \"heap_share_freed\": %zu}%s\n",
            m->hlo_len, m->n_computations, m->n_instructions, m->n_entry_instructions,
            m->n_fusions, m->n_collectives, m->n_ops, m->n_logical_buffers, m->n_allocations,
            m->n_heap_traces, m->n_heap_events, m->n_heap_alloc, m->n_heap_free,
            m->n_share_live, m->n_share_freed, last ? "" : ",");
}

static void write_planes(FILE *f, const FileSum *fs)
{
    fputs("      \"planes\": [", f);
    for (size_t p = 0; p < fs->n_planes; p++) {
        const PlaneSum *ps = &fs->planes[p];
        fputs(p ? ",\n        {\"name\": " : "\n        {\"name\": ", f);
        json_str(f, ps->name);
        fprintf(f, ", \"id\": %lld, \"lines\": [", (long long)ps->id);
        for (size_t l = 0; l < ps->n_lines; l++) {
            const LineSum *ls = &ps->lines[l];
            fputs(l ? ", {\"name\": " : "{\"name\": ", f);
            json_str(f, ls->name);
            fprintf(f, ", \"id\": %lld, \"events\": %llu, \"messages\": %llu}", (long long)ls->id,
                    (unsigned long long)ls->events, (unsigned long long)ls->messages);
        }
        fputs("]", f);
        if (ps->execs) {
            fputs(", \"executions\": [", f);
            for (size_t e = 0; e < ps->n_execs; e++)
                fprintf(f, "%s[%llu, %llu, %llu]", e ? ", " : "",
                        (unsigned long long)ps->execs[3 * e], (unsigned long long)ps->execs[3 * e + 1],
                        (unsigned long long)ps->execs[3 * e + 2]);
            fputs("]", f);
        }
        fputs("}", f);
    }
    fputs(fs->n_planes ? "\n      ],\n" : "],\n", f);
}

void summary_write(const char *path, const Options *o, const ModuleInfo *mods, size_t n_mods,
                   const FileSum *files, size_t n_files)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot create %s: %s", path, strerror(errno));
    fputs("{\n  \"generator\": \"gen_capture\",\n", f);
    write_options(f, o);
    fprintf(f, "  \"files\": [\n");
    for (size_t i = 0; i < n_files; i++) {
        const FileSum *fs = &files[i];
        fputs("    {\n      \"path\": ", f);
        json_str(f, fs->path);
        fprintf(f, ",\n      \"kind\": \"%s\",\n      \"hostname\": ",
                fs->hlo_only ? "hlo_proto" : "xspace");
        if (fs->hostname)
            json_str(f, fs->hostname);
        else
            fputs("null", f);
        fprintf(f, ",\n      \"bytes\": %llu,\n      \"gzip\": %s,\n", (unsigned long long)fs->bytes,
                o->gzip ? "true" : "false");
        write_planes(f, fs);
        fprintf(f, "      \"hlo_module_count\": %zu,\n      \"hlo_modules\": [\n", fs->n_hlo_modules);
        for (size_t m = 0; m < fs->n_hlo_modules && m < n_mods; m++)
            write_module(f, o, &mods[m], m + 1 == fs->n_hlo_modules);
        fprintf(f, "      ],\n      \"memory_allocation_events\": %llu,\n"
                   "      \"memory_deallocation_events\": %llu,\n"
                   "      \"xla_modules_events\": %llu,\n      \"xla_ops_events\": %llu\n    }%s\n",
                (unsigned long long)fs->mem_alloc, (unsigned long long)fs->mem_dealloc,
                (unsigned long long)fs->xla_modules, (unsigned long long)fs->xla_ops,
                i + 1 == n_files ? "" : ",");
    }
    fputs("  ]\n}\n", f);
    if (ferror(f) | fclose(f))
        die("write error on %s", path);
}
