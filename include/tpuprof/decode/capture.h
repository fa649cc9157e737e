/*
 * capture.h - turning CAPTURE arguments into a decoded capture set.
 *
 * A CAPTURE may be an *.xplane.pb (plain or gzip, told apart by magic
 * bytes), a chunked *.xplane.riegeli (by its signature; plain or gzip;
 * its chunks merged into one XSpace, docs/riegeli.md), a standalone *.hlo_proto.pb, an XLA dump file or directory
 * (module_NNNN.*.hlo.pb), a run directory (every host in it), a TensorBoard
 * logdir (…/plugins/profile/<run>/, the newest run unless a run is named),
 * or "-" for standard input. Whether a file holds an XSpace or an HloProto
 * is decided from its bytes, with the file name only as a tie-breaker; the
 * decision is kept in tp_source.kind so commands can say what they took
 * each file for.
 *
 * Ownership: tp_capture owns everything: the file buffers (mapped or
 * malloc'd), the arena holding decoded records, and the arrays below.
 * tp_capture_release() frees it all, after which no pointer into it is
 * valid. Consecutive XSpace files (a run directory's hosts) are decoded
 * in parallel, tp_threads() at a time, each into its own arena; every
 * other step happens in argument order, so the result and the first
 * error reported do not depend on the threads. An opened capture is not thread-safe; different captures are
 * independent.
 */
#ifndef TPUPROF_CAPTURE_H
#define TPUPROF_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/util/arena.h"
#include "tpuprof/util/error.h"
#include "tpuprof/decode/hlo.h"
#include "tpuprof/decode/xspace.h"

enum tp_source_kind {
	TP_SOURCE_XSPACE,     /* an XSpace: one host                 */
	TP_SOURCE_HLO_PROTO,  /* a serialized xla.HloProto           */
	TP_SOURCE_XLA_DUMP,   /* an HloProto from an XLA dump        */
};

/* Bytes of one input file; owned by the capture. */
struct tp_buffer {
	const uint8_t *data;
	size_t size;
	void *map;            /* mmap'd region, or NULL               */
	size_t map_len;
	void *heap;           /* malloc'd copy (gzip, stdin), or NULL */
	/* map: which file it maps (tp_buffer_reopen) */
	uint64_t file_dev, file_ino, file_mtime_ns;
	/* the bytes of map that are not the file's and the fields they cut
	 * (a chunked capture's view, tp_riegeli_xspace.gaps): malloc'd */
	struct tp_gap *gaps;
	size_t n_gaps;
	uint8_t *gap_fields;
	/* the id maps its segment markers name (tp_riegeli_xspace.seg_maps):
	 * malloc'd, tp_riegeli_seg_maps_free */
	struct tp_seg_map *seg_maps;
	size_t n_seg_maps;
};

struct tp_source {
	const char *path;     /* as given or found, arena; "-" = stdin */
	enum tp_source_kind kind;
	bool gzip;            /* the file was gzip-compressed          */
	bool kind_from_name;  /* bytes were ambiguous; name decided     */
	uint64_t file_bytes;  /* size on disk (compressed)             */
	struct tp_buffer buf; /* decoded-from bytes (inflated; for a
			       * chunked capture, its merged XSpace)   */
	/* A chunked capture (*.xplane.riegeli, docs/riegeli.md): chunks
	 * and records read whole, and byte ranges skipped as damaged. */
	bool chunked;
	uint64_t chunks, records, damaged_regions;
	/* Damaged parts cut out of buf (damage.c): where, in the original
	 * bytes, sorted; malloc'd, NULL when none. */
	struct tp_source_cut {
		size_t start, len;
	} *cuts;
	size_t n_cuts;
};

struct tp_host {
	const char *name;     /* XSpace hostname, else from file name  */
	size_t source;        /* index into tp_capture.sources         */
	struct tp_xspace xs;  /* records in arena                      */
	struct tp_arena *arena; /* malloc'd: hosts decode in parallel  */
};

/* A damaged part of a capture that was left out so that the rest could
 * be analysed (src/decode/capture/damage.c, docs/exit-codes.md): one HLO
 * module, a line, a stat of a plane, a whole plane, or the incomplete end
 * of a file cut short (with tp_open_opts.partial). */
struct tp_damage {
	const char *path;            /* the file as given, arena         */
	char *part;                  /* malloc'd: "line 'XLA Ops' of plane
				      * '/device:TPU:0'", "HLO module 'M'" */
	uint64_t offset;             /* the byte where the damage was found
				      * (of the inflated bytes for gzip) */
	char *what;                  /* malloc'd: what is wrong there     */
};

struct tp_capture {
	struct tp_arena arena;       /* decoded records; do not move     */
	struct tp_source *sources;   /* malloc'd, in argument order      */
	size_t n_sources, cap_sources;
	struct tp_host *hosts;       /* malloc'd                         */
	size_t n_hosts, cap_hosts;
	struct tp_module *modules;   /* malloc'd                         */
	size_t n_modules, cap_modules;
	const char *run;             /* logdir run chosen, arena, or NULL */
	char **notes;                /* malloc'd lines for the user       */
	size_t n_notes, cap_notes;
	/* 1 + the index in notes of the note that says which of several
	 * logdir runs was taken (shown even under -q: what was measured
	 * depends on it); 0 when no choice was made */
	size_t run_note;
	struct tp_damage *damage;    /* malloc'd: parts skipped, in the
				      * order found                       */
	size_t n_damage, cap_damage;
	/* internal: XSpace sources loaded, not decoded yet (capture.c) */
	size_t *pending;
	size_t n_pending, cap_pending;
};

/* Bytes a reader took from a stream input (standard input "-", a pipe, a
 * FIFO) to see what it holds (src/report/json/report_input.c): the
 * capture is read from them first, then from fd, so no byte is lost.
 * Borrowed: the bytes and fd stay the reader's. */
struct tp_stream_head {
	const char *path;        /* the argument as given ("-" for stdin)   */
	int fd;                  /* where the rest of the stream comes from */
	const uint8_t *bytes;
	size_t len;
};

/* Files an open read, by device and inode (tp_open_opts.read): an
 * output renamed over one of them would replace an input, which the CLI
 * refuses (a directory, logdir or pattern names them only by expanding). */
struct tp_file_ids {
	struct tp_file_id {
		uint64_t dev, ino;
	} *ids;                  /* malloc'd                                 */
	size_t n, cap;
};

/* Adds the file at path (nothing for "-" or a path stat cannot see). */
void tp_file_ids_add(struct tp_file_ids *ids, const char *path);
/* Whether the file at path is one of ids (false when stat fails). */
bool tp_file_ids_has_path(const struct tp_file_ids *ids, const char *path);
void tp_file_ids_release(struct tp_file_ids *ids);

struct tp_open_opts {
	const char *run;         /* logdir run to take; NULL = newest        */
	uint64_t max_input;      /* most bytes to inflate or read from stdin */
	/* Device lines at least this long are not scanned at open (0: all
	 * are): for commands whose analysis reads them anyway (ops), which
	 * then reads each event once. See struct tp_decode_opts. */
	size_t defer_min_bytes;
	/* A file cut short (its last plane runs past its end) is read up
	 * to its last complete plane, the rest noted as damage, instead of
	 * refused (--partial). */
	bool partial;
	/* stream inputs already begun (borrowed), by path; NULL: none */
	const struct tp_stream_head *heads;
	size_t n_heads;
	/* every file opened is added to it (borrowed); NULL: not kept */
	struct tp_file_ids *read;
};

/* What commands that run the ops analysis pass as defer_min_bytes. */
#define TP_DEFER_MIN_BYTES ((size_t)1 << 20)

#define TP_DEFAULT_MAX_INPUT (UINT64_C(64) << 30)

/* The default for max_input: three quarters of physical memory, at most
 * TP_DEFAULT_MAX_INPUT, so a gzip bomb fails with a message rather than
 * driving the machine out of memory. */
uint64_t tp_default_max_input(void);

/* Opens and decodes every capture named in paths. On failure the capture
 * is left released (nothing to free) and err names the file and problem. */
enum tp_err tp_capture_open(struct tp_capture *cap, const char *const *paths,
			    size_t n_paths, const struct tp_open_opts *opts,
			    struct tp_error *err);
void tp_capture_release(struct tp_capture *cap);

/* An analysis of a capture opened with defer_min_bytes failed with err:
 * when that is damage in a line left to the analysis, opens the capture
 * again (released first) with every line read at open, where a damaged
 * part is left out (src/decode/capture/damage.c), and returns true: run
 * the analysis again. False, with cap and err untouched, for any other
 * failure; false with cap released and err set when the reopening fails.
 * o->defer_min_bytes is set to 0. */
bool tp_capture_reopen_whole(struct tp_capture *cap, const char *const *paths,
			     size_t n_paths, struct tp_open_opts *o,
			     struct tp_error *err);

/* The line shown for a damaged part: "FILE: skipped PART, damaged at
 * byte N: WHAT". Into buf (always NUL-terminated). */
void tp_damage_format(const struct tp_damage *d, char *buf, size_t size);

/* Decodes a module of cap (tp_module_decode), sharing the HLO of an
 * identical module decoded before. */
enum tp_err tp_capture_decode_module(struct tp_capture *cap, struct tp_module *m,
				     struct tp_error *err);
/* Decodes every module of cap (want: those with want[i] true; NULL:
 * all) as tp_capture_decode_module would one after another, with the
 * same answer, the distinct ones unpacked on every thread. */
enum tp_err tp_capture_decode_modules(struct tp_capture *cap, const bool *want,
				      struct tp_error *err);

/* Scans the lines of every host that opening deferred; fails on the
 * first corrupt one (see tp_xspace_finish_scan). Analyses call it before
 * reading lines other than through a scanning iterator. */
enum tp_err tp_capture_finish_scan(struct tp_capture *cap, struct tp_error *err);

/* Drops the resident pages of a host's mapped file (tp_xspace_drop): for
 * writers that have read what they print of a host (names and stats all
 * over its file, each read mapping a block of pages around it), so that
 * a pod's hosts do not stay resident to the end. */
void tp_capture_drop_host(const struct tp_capture *cap, size_t host);

/* Decides what bytes hold: 'X' XSpace, 'H' HloProto, 0 undecidable. Bytes
 * cut short (not otherwise damaged) are judged by their whole fields: a
 * capture cut anywhere, even in its first plane, is 'X'. */
int tp_sniff(const uint8_t *data, size_t size);

/* Reads a whole file or stream into buf: regular files are mapped, others
 * read; gzip is inflated up to max bytes. */
enum tp_err tp_buffer_load(struct tp_buffer *buf, const char *path,
			   uint64_t max, bool *gzip, uint64_t *file_bytes,
			   struct tp_error *err);
/* The same for a stream whose first bytes were read already (head, or
 * NULL: none). */
enum tp_err tp_buffer_load_head(struct tp_buffer *buf, const char *path,
				const struct tp_stream_head *head, uint64_t max, bool *gzip,
				uint64_t *file_bytes, struct tp_error *err);
void tp_buffer_release(struct tp_buffer *buf);

/* The file buf maps, opened again for reading when path still names it
 * (same device, inode, size and modification time); -1 otherwise. The
 * caller closes it. */
int tp_buffer_reopen(const struct tp_buffer *buf, const char *path);

const char *tp_source_kind_name(enum tp_source_kind kind);

#endif
