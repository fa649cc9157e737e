/*
 * memory_internal.h - shared by the memory_*.c files only.
 */
#ifndef TPUPROF_MEMORY_INTERNAL_H
#define TPUPROF_MEMORY_INTERNAL_H

#include "tpuprof/i64map.h"
#include "tpuprof/memory.h"
#include "tpuprof/shape.h"

void tp_mem_build_buffers(struct tp_mem_module *m);
void tp_mem_choose_trace(struct tp_mem_module *m);
bool tp_mem_check_trace(struct tp_mem_module *m);
void tp_mem_suggest(struct tp_mem_module *m, const struct tp_mem_options *opt);

#endif
