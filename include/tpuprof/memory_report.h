/*
 * memory_report.h - rendering memory results (text, JSON, SVG). The
 * reporters only format what the analysis computed.
 */
#ifndef TPUPROF_MEMORY_REPORT_H
#define TPUPROF_MEMORY_REPORT_H

#include "tpuprof/json_stream.h"
#include "tpuprof/memory.h"
#include "tpuprof/report.h"

/* A shape spelled out; a new reference. */
json_t *tp_shape_json(const Xla__ShapeProto *s);
/* One element of modules[], put into the open array of w. */
void tp_mem_module_json(struct tp_jw *w, const struct tp_mem_module *m);
/* The whole `tpuprof.memory/1` document, under key in the open object of
 * w (NULL: as an element, or as the document). */
void tp_memory_json(struct tp_jw *w, const char *key, const struct tp_capture *cap,
		    const struct tp_memory *mem);

/* The SVG of the module with the highest peak (see memory_svg.c). */
enum tp_err tp_memory_svg(FILE *out, const struct tp_memory *mem, struct tp_error *err);

struct tp_memory_text_opts {
	size_t limit;     /* buffers shown per module; 0 = all          */
	int depth;        /* scope tree depth shown                     */
};
enum tp_err tp_report_memory(FILE *out, enum tp_format fmt,
			     const struct tp_capture *cap,
			     const struct tp_memory *mem,
			     const struct tp_memory_text_opts *topt,
			     struct tp_error *err);
enum tp_err tp_memory_text(FILE *out, const struct tp_capture *cap,
			   const struct tp_memory *mem,
			   const struct tp_memory_text_opts *topt,
			   struct tp_error *err);

#endif
