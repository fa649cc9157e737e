/*
 * write.c - each command's output in the format asked for: the one place
 * that knows every format. A writer folder (text/, json/, svg/ ...) holds
 * one format's writers and never calls another's; adding a format is a
 * new folder and a case in each function here.
 */
#include "tpuprof/check_report.h"
#include "tpuprof/diff_report.h"
#include "tpuprof/memory_report.h"
#include "tpuprof/ops_report.h"
#include "tpuprof/report.h"
#include "tpuprof/report_doc.h"

/* A streamed JSON document: put writes it into the writer. */
#define STREAM_JSON(out, err, put)                                           \
	do {                                                                  \
		struct tp_jw w_;                                              \
		tp_jw_init(&w_, (out));                                       \
		put;                                                          \
		return tp_jw_finish(&w_, (err));                              \
	} while (0)

enum tp_err tp_report_info(FILE *out, enum tp_format fmt,
			   const struct tp_capture *cap,
			   const struct tp_info *info, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_info_json(&w_, NULL, cap, info));
	return tp_info_text(out, cap, info, err);
}

enum tp_err tp_report_memory(FILE *out, enum tp_format fmt,
			     const struct tp_capture *cap,
			     const struct tp_memory *mem,
			     const struct tp_memory_text_opts *topt,
			     struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_memory_json(&w_, NULL, cap, mem));
	return tp_memory_text(out, cap, mem, topt, err);
}

enum tp_err tp_report_memory_why(FILE *out, enum tp_format fmt, const struct tp_memory *mem,
				 const char *name, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		return tp_memory_why_json(out, mem, name, err);
	return tp_memory_why_text(out, mem, name, err);
}

enum tp_err tp_report_ops(FILE *out, enum tp_format fmt,
			  const struct tp_capture *cap, struct tp_ops *ops,
			  const struct tp_ops_view *view, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_ops_json(&w_, NULL, cap, ops, view));
	return tp_ops_text(out, cap, ops, view, err);
}

enum tp_err tp_report_fusions(FILE *out, enum tp_format fmt,
			      const struct tp_capture *cap,
			      const struct tp_fusions *f, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_fusions_json(&w_, NULL, cap, f));
	return tp_fusions_text(out, cap, f, err);
}

enum tp_err tp_report_collectives(FILE *out, enum tp_format fmt,
				  const struct tp_capture *cap,
				  const struct tp_collectives *c, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_collectives_json(&w_, NULL, cap, c));
	return tp_collectives_text(out, cap, c, err);
}

enum tp_err tp_report_write(FILE *out, enum tp_format fmt,
			    const struct tp_capture *cap, const struct tp_report *r,
			    struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_report_json(&w_, cap, r));
	return tp_report_text(out, cap, r, err);
}

enum tp_err tp_check_write(FILE *out, enum tp_format fmt, const struct tp_check *c,
			   const struct tp_check_opts *o, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON) {
		json_t *doc = tp_check_json(c, o);
		enum tp_err rc = tp_json_write(out, doc, err);

		json_decref(doc);
		return rc;
	}
	return tp_check_text(out, c, err);
}

enum tp_err tp_diff_write(FILE *out, enum tp_format fmt, json_t *diff, size_t limit,
			  struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		return tp_json_write(out, diff, err);
	return tp_diff_write_text(out, diff, limit, err);
}
