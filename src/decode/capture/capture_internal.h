/*
 * capture_internal.h - helpers shared by capture.c, modules.c and paths.c.
 */
#ifndef TPUPROF_CAPTURE_INTERNAL_H
#define TPUPROF_CAPTURE_INTERNAL_H

#include "tpuprof/capture.h"

/* Appends a line for the user (e.g. a skipped duplicate). */
void tp_capture_note(struct tp_capture *cap, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tp_capture_push_module(struct tp_capture *cap, const struct tp_module *m);
void tp_capture_add_embedded_modules(struct tp_capture *cap, size_t host);
enum tp_err tp_capture_add_file_module(struct tp_capture *cap, size_t source,
				       struct tp_error *err);

/* 'X' or 'H' when the file name says XSpace or HloProto, else 0: the
 * tie-break when the bytes do not tell (docs/design.md). */
int tp_capture_kind_from_name(const char *path);

/* Loads one file as a source of the capture (sniffing what it holds). */
enum tp_err tp_capture_add_file(struct tp_capture *cap, const char *path,
				const struct tp_open_opts *opts, bool in_dump,
				struct tp_error *err);

/* Decodes the XSpace sources loaded since the last flush, in parallel,
 * and adds them as hosts in order. Before anything else is added (so
 * that order is kept) and at the end of opening. */
enum tp_err tp_capture_flush_hosts(struct tp_capture *cap,
				   const struct tp_open_opts *opts,
				   struct tp_error *err);

/* Expands a directory argument into files (run dir, logdir, XLA dump). */
enum tp_err tp_capture_add_dir(struct tp_capture *cap, const char *path,
			       const struct tp_open_opts *opts,
			       struct tp_error *err);

#endif
