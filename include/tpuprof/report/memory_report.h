/*
 * memory_report.h - rendering memory results (text, JSON, SVG). The
 * reporters only format what the analysis computed.
 */
#ifndef TPUPROF_MEMORY_REPORT_H
#define TPUPROF_MEMORY_REPORT_H

#include "tpuprof/util/json_stream.h"
#include "tpuprof/analyze/memory.h"
#include "tpuprof/report/report.h"

/* A shape spelled out; a new reference. */
json_t *tp_shape_json(const Xla__ShapeProto *s);
/* "why is it live" (memory_why_json.c): the buffer's display name
 * ("fusion.3{1}"), one why_live object, the peak_by_last_user list. */
json_t *tp_mem_buffer_name_json(const struct tp_mem_module *m, long buffer);
json_t *tp_mem_why_json(const struct tp_mem_module *m, const struct tp_mem_why *w);
json_t *tp_mem_groups_json(const struct tp_mem_module *m);
json_t *tp_mem_user_scopes_json(const struct tp_mem_module *m);
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
/* `memory --why NAME`: the story of every buffer named NAME ("fusion.3",
 * or "fusion.3{1}" for one element of a tuple output) in the modules of
 * mem, as text or as a `tpuprof.memory_why/1` document. TP_ERR_USAGE
 * when there is none. */
enum tp_err tp_report_memory_why(FILE *out, enum tp_format fmt, const struct tp_memory *mem,
				 const char *name, struct tp_error *err);
/* Its two writers (memory_why_text.c, memory_why_json.c). */
enum tp_err tp_memory_why_text(FILE *out, const struct tp_memory *mem, const char *name,
			       struct tp_error *err);
enum tp_err tp_memory_why_json(FILE *out, const struct tp_memory *mem, const char *name,
			       struct tp_error *err);
/* Pieces of the memory text (memory_why_text.c): a live buffer's last
 * user line, and the peak grouped by last user (limit rows, 0 = all). */
void tp_mem_why_text_line(FILE *out, const struct tp_mem_module *m, size_t live);
void tp_mem_why_text_groups(FILE *out, const struct tp_mem_module *m, size_t limit);
/* One line for `report`: the bytes at the peak waiting for the largest
 * group's last user, and when it runs. */
void tp_mem_why_text_tower(FILE *out, const struct tp_mem_module *m);
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
