/*
 * riegeli.h - chunked captures: Riegeli records files (*.xplane.riegeli)
 * read chunk by chunk, and their XSpace chunks merged into one XSpace
 * (docs/riegeli.md).
 *
 * tp_riegeli_read walks the container: block headers skipped, every chunk
 * header and chunk's data checked with HighwayHash, simple chunks
 * decompressed (none, Brotli, Zstd, Snappy) one at a time and their
 * records handed to a callback; a chunk's buffers are freed before the
 * next one is read. A damaged chunk is skipped and listed in
 * tp_riegeli_info.damaged; a file cut short ends at its last whole chunk
 * (the rest listed the same way). Transposed chunks are refused.
 *
 * tp_riegeli_merge turns a capture's chunks into one serialized XSpace
 * as XProf merges them, kept in unlinked temporary files under $TMPDIR
 * (or /tmp) and mapped: the events stay page cache, not heap. Unless
 * flat, it is a view: each chunk's long lines are mapped where the merge
 * spilled them, and their events keep the chunk's own time base, read
 * through segment markers (xspace.h, TP_XLINE_SEGMENT_FIELD), so that
 * no event is rewritten or copied twice.
 *
 * Ownership: info->damaged is malloc'd (tp_riegeli_info_release); the
 * merged XSpace is a mapping the caller unmaps (munmap(map, map_len)).
 */
#ifndef TPUPROF_RIEGELI_H
#define TPUPROF_RIEGELI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/util/error.h"
#include "tpuprof/decode/xspace.h"

/* Every Riegeli file starts with the same 64 bytes (block header and
 * signature chunk). */
#define TP_RIEGELI_SIGNATURE_BYTES 64
bool tp_riegeli_sniff(const uint8_t *data, size_t size);
/* Whether data[0, n) could still be the start of a Riegeli file: its
 * first bytes (all 64 when n >= 64) are the signature's. */
bool tp_riegeli_maybe(const uint8_t *data, size_t n);
/* How many of data's first min(size, 64) bytes are the signature's; in
 * *first_diff the first that is not (min(size, 64) when all are). */
size_t tp_riegeli_signature_match(const uint8_t *data, size_t size,
				  size_t *first_diff);

/* A byte range of the file that was skipped, and why. */
struct tp_riegeli_damage {
	uint64_t start, end;         /* [start, end) in the file        */
	char what[120];
};

struct tp_riegeli_info {
	uint64_t chunks;             /* chunks of records read whole     */
	uint64_t records;            /* records in them                  */
	struct tp_riegeli_damage *damaged; /* malloc'd, in file order    */
	size_t n_damaged, cap_damaged;
};
void tp_riegeli_info_release(struct tp_riegeli_info *info);

/* Called once per record, in file order; rec is valid only during the
 * call. A failure stops the read and is returned as is. */
typedef enum tp_err (*tp_riegeli_record_fn)(void *ctx, const uint8_t *rec,
					    size_t len, uint64_t chunk_begin,
					    struct tp_error *err);

struct tp_riegeli_opts {
	const char *shown;       /* the file's name in messages           */
	uint64_t max_chunk;      /* most decoded bytes of one chunk       */
	bool drop_pages;         /* data is a file mapping: drop each
				  * chunk's pages once read                */
	bool flat;               /* merge into a standard XSpace, every
				  * event moved to its line's start, to be
				  * written out (slower: no view)          */
	bool in_place;           /* data maps all of the file open as fd
				  * (borrowed; only used during the merge):
				  * long lines of uncompressed chunks are
				  * mapped from it into the view, not
				  * copied (docs/riegeli.md)               */
	int fd;
};

/* Reads every record of data[0, size). Fails (TP_ERR_INPUT) when data
 * does not start with the signature, on a transposed chunk and on a
 * chunk over max_chunk; damage is not a failure. */
enum tp_err tp_riegeli_read(const uint8_t *data, size_t size,
			    const struct tp_riegeli_opts *opts,
			    tp_riegeli_record_fn fn, void *ctx,
			    struct tp_riegeli_info *info, struct tp_error *err);

/* The merged XSpace of a chunked capture. */
struct tp_riegeli_xspace {
	const uint8_t *data;
	size_t size;
	void *map;               /* munmap(map, map_len); NULL when size 0 */
	size_t map_len;
	bool segment_shifts;     /* decode with tp_decode_opts.segment_shifts
				  * (a view; false with tp_riegeli_opts.flat) */
	struct tp_gap *gaps;     /* malloc'd: the block headers inside the
				  * lines mapped in place, which readers
				  * step over (tp_decode_opts.gaps)        */
	size_t n_gaps;
	uint8_t *gap_fields;     /* malloc'd: the fields they cut, whole
				  * (tp_gap.field points here)             */
	struct tp_seg_map *seg_maps; /* malloc'd: the id maps of segments
				  * that keep their chunk's ids, which the
				  * view's markers name (tp_decode_opts.
				  * seg_maps; tp_riegeli_seg_maps_free)    */
	size_t n_seg_maps;
};

/* Frees maps[0..n) and their arrays. */
void tp_riegeli_seg_maps_free(struct tp_seg_map *maps, size_t n);

/* munmap and free out's parts; out zeroed. */
void tp_riegeli_xspace_release(struct tp_riegeli_xspace *out);

/* A chunk's line of at least this many bytes (default 512 KiB) is mapped
 * into the view in place; a view maps at most tp_riegeli_max_mapped
 * (default 1024) of them and copies the rest. Tests change both. */
extern size_t tp_riegeli_map_min_bytes;
extern size_t tp_riegeli_max_mapped;
/* A chunk that numbers a plane's metadata its own way keeps its events'
 * bytes in a view, read through an id map (tp_seg_map; one map for all
 * the chunks that renumber alike): at most tp_riegeli_max_map_bytes of
 * maps a capture (default 64 MiB); past it a chunk's events are
 * re-encoded with the merged ids, as a flat merge does. Tests lower it. */
extern size_t tp_riegeli_max_map_bytes;
/* Tests: every segment's mapping fails, as when the process has used up
 * its map count, and the segment is written into the glue instead. */
extern bool tp_riegeli_refuse_maps;
/* Events of a chunk whose ids are remapped are re-encoded the quick way
 * (ids through a table, the usual shape written directly) where they
 * can be (default true); tests turn it off to compare with the general
 * way, which writes the same bytes. */
extern bool tp_riegeli_quick_remap;

/* Reads data as a chunked capture (each record one XSpace) and merges
 * the records into out. A record that is not an XSpace fails the file
 * (TP_ERR_INPUT, naming the chunk's byte). */
enum tp_err tp_riegeli_merge(const uint8_t *data, size_t size,
			     const struct tp_riegeli_opts *opts,
			     struct tp_riegeli_xspace *out,
			     struct tp_riegeli_info *info, struct tp_error *err);

#endif
