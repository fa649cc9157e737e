/*
 * capture_internal.h - helpers shared by the files of src/decode/capture/.
 */
#ifndef TPUPROF_CAPTURE_INTERNAL_H
#define TPUPROF_CAPTURE_INTERNAL_H

#include "tpuprof/decode/capture.h"

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

/* Damaged parts found while decoding on a worker thread, moved into the
 * capture in order (damage.c). */
struct tp_damage_list {
	struct tp_damage *v;
	size_t n, cap;
};
/* Appends; part is taken over (malloc'd), what is copied. */
void tp_damage_push(struct tp_damage_list *l, const char *path, char *part,
		    uint64_t offset, const char *what);
void tp_damage_list_release(struct tp_damage_list *l);

/* After tp_xspace_decode_ex failed on src with err: cuts the damaged part
 * out of a copy of the bytes and decodes again, as long as the damage is
 * in a part that can go (a line, a plane's stat, a plane; the end of a
 * file cut short with partial). On success src->buf is the repaired copy,
 * xs its decode into arena (reset first) and found lists what was cut;
 * else err is as it came and nothing changed but the arena. */
enum tp_err tp_damage_salvage(struct tp_source *src, const char *shown,
			      struct tp_xspace *xs, struct tp_arena *arena,
			      const struct tp_decode_opts *opts, bool partial,
			      struct tp_damage_list *found, struct tp_error *err);

/* An offset in src->buf as an offset in the file's own bytes (they
 * differ once damaged parts were cut out). */
size_t tp_source_original_offset(const struct tp_source *src, size_t at);

/* An embedded module whose bytes do not decode (err from
 * tp_module_decode): noted as damage, m->damaged set, TP_OK. Other
 * modules (a standalone file is nothing but its module) keep err. */
enum tp_err tp_damage_module(struct tp_capture *cap, struct tp_module *m,
			     struct tp_error *err);

#endif
