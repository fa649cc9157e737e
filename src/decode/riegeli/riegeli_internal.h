/*
 * riegeli_internal.h - the merge model shared by riegeli_merge.c (chunks
 * folded in) and riegeli_emit.c (the merged XSpace written out).
 *
 * Everything of size proportional to events (event bytes, metadata
 * entries, plane stats) goes to the spill file as it is merged; the
 * model keeps names, ids, times and (offset, length) segments only.
 */
#ifndef TPUPROF_RIEGELI_INTERNAL_H
#define TPUPROF_RIEGELI_INTERNAL_H

#include "tpuprof/util/arena.h"
#include "tpuprof/util/error.h"
#include "tpuprof/util/i64map.h"
#include "tpuprof/util/util.h"
#include "tpuprof/decode/wire.h"
#include "tpuprof/decode/riegeli.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Protobuf writing into a growable byte buffer. One given memory of a
 * fixed size (p and cap set, mapped false) is written into, never grown
 * past it nor freed; otherwise rg_buf_free releases it. Past
 * RG_BUF_MAP_MIN bytes a buffer grows in its own mapping, not from malloc:
 * a merge's buffers of megabytes, freed, would raise glibc's dynamic
 * mmap threshold for the rest of the run, and the decoder's arrays after
 * them would come from the heap and stay resident once freed (1-2 MB
 * more peak than the same capture as .xplane.pb, docs/performance.md). */
struct rg_buf {
	uint8_t *p;
	size_t n, cap;
	bool mapped;                       /* p is its own mapping      */
};
#define RG_BUF_MAP_MIN ((size_t)128 << 10)
/* Room for at least need bytes in all (contents kept). */
void rg_buf_reserve(struct rg_buf *b, size_t need);
void rg_buf_free(struct rg_buf *b);

/* Bytes in the spill file. */
struct rg_span {
	uint64_t off, len;
};

/* One chunk's events of a line as the chunk wrote them (ids remapped
 * where the chunk's differ), their offsets relative to base_ns, the
 * chunk's line start. An aligned segment starts on a page of the spill
 * and ends with a padding field (TP_XLINE_PADDING_FIELD) at the end of
 * one, so that the merged view can map it in place (riegeli_view.c).
 *
 * A segment in_place was never spilled: its events are the input file's
 * own data bytes from file position `at` to `end` (an uncompressed
 * chunk, rg_origin), bytes.len of them, which the view maps from the
 * input, its whole pages mapped as they are, block headers and all: the
 * decoder steps over each header inside them (cuts, struct tp_gap). */
/* A block header inside an in-place segment's whole pages, which the
 * view leaves where it is (struct tp_gap): a reader stops `from` bytes
 * after the segment's first whole page (negative: before it, in the
 * glue), where the event the header cuts begins (or at the header, when
 * len is 0), takes that event from the segment's cut_bytes + at (len
 * bytes), and goes on `resume` bytes after that page. */
struct rg_cut {
	int64_t from;
	uint64_t resume, at;
	uint32_t len;
};

struct rg_segment {
	struct rg_span bytes;
	int64_t base_ns;
	bool aligned;
	bool in_place;
	uint64_t at, end;
	struct rg_cut *cuts;               /* malloc'd                */
	size_t n_cuts;
	uint8_t *cut_bytes;                /* malloc'd                */
	uint32_t map;                      /* 1 + the index of the id map
					    * its events keep (rg_model.
					    * seg_maps), or 0: merged ids */
};

struct rg_line {
	int64_t id, display_id, timestamp_ns, duration_ps;
	const char *name, *display_name;   /* arena                   */
	size_t name_len, display_name_len;
	struct rg_segment *segs;           /* malloc'd                */
	size_t n_segs, cap_segs;
	uint64_t events_size;              /* emit: re-encoded bytes  */
	uint64_t view_len;                 /* view: the line's length,
					    * measured, then written   */
};

/* A metadata entry (the whole map entry message, id remapped). */
struct rg_meta {
	int64_t id;
	uint64_t key;                      /* hash of what matches     */
	struct rg_span bytes;
};

struct rg_plane {
	int64_t id;
	const char *name;                  /* arena                    */
	size_t name_len;
	struct rg_line *lines;             /* malloc'd, in first order */
	size_t n_lines, cap_lines;
	struct tp_i64map line_by_id;       /* id -> index              */
	struct rg_meta *events, *stats;    /* malloc'd                 */
	size_t n_events, cap_events, n_stats, cap_stats;
	struct tp_i64map event_by_key, stat_by_key; /* key -> index     */
	struct tp_i64map event_ids, stat_ids;       /* id -> index      */
	int64_t max_event_id, max_stat_id;
	struct rg_span *plane_stats;       /* malloc'd XStat messages  */
	int64_t *plane_stat_ids;
	size_t n_plane_stats, cap_plane_stats;
};

/* The container's blocks: a header of 24 bytes starts every 64 KiB of
 * the file, wherever chunks are (riegeli.c). */
#define RG_BLOCK ((uint64_t)1 << 16)
#define RG_BLOCK_HEADER 24u
#define RG_USABLE (RG_BLOCK - RG_BLOCK_HEADER)

/* x rounded up to a multiple of unit. */
static inline uint64_t rg_round_up(uint64_t x, uint64_t unit)
{
	return (x + unit - 1) / unit * unit;
}

/* pos, or the end of the block header pos is in: a data position. */
uint64_t rg_past_header(uint64_t pos);

/* How many data bytes, at most n, lie together from *pos, moved past a
 * block header first (the chunk's bytes between two headers). */
uint64_t rg_data_run(uint64_t *pos, uint64_t n);

/* The file position of the data byte n bytes after file position pos,
 * block headers not counted (pos inside a header counts from its end). */
uint64_t rg_data_pos(uint64_t pos, uint64_t n);


/* HighwayHash-64 under Riegeli's key, taken piece by piece
 * (riegeli_hash.c): init, add pieces in order, end. The state is the
 * caller's; nothing is allocated. */
struct rg_hash {
	uint64_t v0[4], v1[4], mul0[4], mul1[4];
	uint8_t pending[32];
	size_t n_pending;
};
void rg_hash_init(struct rg_hash *h);
void rg_hash_add(struct rg_hash *h, const void *p, size_t n);
uint64_t rg_hash_end(struct rg_hash *h);
/* All three at once, over one piece. */
uint64_t rg_hash_bytes(const void *p, size_t n);
/* Tests: the portable path even where the CPU has AVX2. */
extern bool rg_hash_portable;

/* Where events start against the block headers of an uncompressed
 * chunk, noted by the walk over a line that may go in place: for the
 * chunk's header k0 + i, how far after its end the first event after it
 * starts (mark[i].off), and the event the header cuts in two, if any,
 * copied whole: cut_len bytes at cut.p + cut_at (0: none is cut;
 * RG_CUT_UNKNOWN: the walk met no event before it). An event that
 * several headers cut is copied once. Chunk data offsets (data bytes
 * from the chunk's data begin): header k ends at t0 + k * RG_USABLE. */
#define RG_CUT_UNKNOWN UINT32_MAX
struct rg_mark {
	uint32_t off, cut_len;
	uint64_t cut_at;
};
struct rg_marks {
	uint64_t t0, next;                 /* next: header k0 + n's end */
	uint64_t prev;                     /* the last event's start, or
					    * UINT64_MAX before one     */
	uint64_t copied, copied_at;        /* the last event copied, and
					    * where in cut               */
	size_t k0, n, cap;
	struct rg_mark *mark;              /* malloc'd                  */
	struct rg_buf cut;
};
/* Marks from data offset at on, for chunk data from file position
 * begin: the first header whose end is at or after it. */
void rg_marks_init(struct rg_marks *mk, uint64_t begin, uint64_t at);
void rg_marks_free(struct rg_marks *mk);
/* Each block header from file position first to last (whole pages of
 * segment s, whose first byte is the view's hole's first): where a
 * reader of the view stops before it and goes on after it, and the
 * field it cuts (s->cuts, s->cut_bytes). False when the walk did not
 * note one of them, or an event is 4 GiB or longer. */
bool rg_marks_cuts(const struct rg_marks *mk, uint64_t begin, uint64_t first,
		   uint64_t last, struct rg_segment *s);

/* The walk over a long line's events (riegeli_compact.c): the size of
 * the event at e (tag, length, content), its length read within lim;
 * and, from offset i of p, every event with a one-byte length that ends
 * at or before last stepped over (*prev: the last of them), where it
 * stopped returned. The second is the walk's whole cost, on its own so
 * that its few values stay in registers. */
bool rg_event_size(const uint8_t *e, const uint8_t *lim, uint64_t *size);
uint64_t rg_skip_short_events(const uint8_t *p, uint64_t i, uint64_t last,
			      uint64_t *prev);

/* A long line's run of events left where it lies in an uncompressed
 * chunk of the input (riegeli_compact.c): file positions [at, end), len
 * data bytes, where its events start against the block headers. */
struct rg_placed {
	uint64_t at, end, len;
	struct rg_marks marks;
};

/* A compacted line holds, where its events were, a field of this
 * number: a varint, the index of its struct rg_placed. Never in a view
 * or a file tpuprof writes; a chunk that uses the number itself is not
 * compacted. */
#define RG_PLACED_FIELD 2045

/* An uncompressed chunk's records, compacted (rg_compact_chunk): one
 * after another in recs, lens[i] bytes each, and the runs their
 * placeholders name. */
struct rg_compact {
	struct rg_buf recs;
	uint64_t *lens;
	size_t n_recs, cap_recs;
	struct rg_placed *placed;
	size_t n_placed, cap_placed;
};
struct rg_compact_in {
	const uint8_t *file;               /* the input's mapping       */
	uint64_t begin, n;                 /* data's file position; bytes */
	uint64_t num_records, decoded_size; /* the chunk header's       */
	uint64_t page;
	bool drop;                         /* pages let go behind it    */
	struct rg_window *window;          /* file read through it (opened
					    * by the caller); NULL: the
					    * mapping read               */
};
/* Reads an uncompressed simple chunk's data in place (its compression
 * byte already seen to be 0): *hash of all its bytes, and its records
 * compacted into out (all of it: every line's long run of events
 * replaced by a placeholder). False when the framing, a record or a
 * line is not what a writer writes: gather the chunk and merge it the
 * usual way then. out: zeroed, or as an earlier call left it, its
 * buffers then reused (a chunk's fresh pages cost a fault each); the
 * caller's to release (rg_compact_release) once done with chunks. */
bool rg_compact_chunk(const struct rg_compact_in *in, struct rg_compact *out,
		      uint64_t *hash);
void rg_compact_release(struct rg_compact *c);

/* Where the record being merged came from. tp_riegeli_read fills it
 * before each record when asked: a record compacted from an
 * uncompressed chunk read in place (riegeli_compact.c) has placeholders
 * for the runs placed[0..n_placed) of the chunk whose data starts at
 * file position data_begin; any other record has none. */
struct rg_origin {
	uint64_t data_begin;
	const struct rg_placed *placed;
	size_t n_placed;
};

/* tp_riegeli_read, filling *origin (or not, NULL) before each record. */
enum tp_err rg_read(const uint8_t *data, size_t size,
		    const struct tp_riegeli_opts *opts,
		    tp_riegeli_record_fn fn, void *ctx,
		    struct tp_riegeli_info *info, struct rg_origin *origin,
		    struct tp_error *err);

struct rg_model {
	struct tp_arena arena;
	/* the input, when it maps a file that long uncompressed lines can
	 * be mapped from in place (tp_riegeli_opts.in_place) */
	const uint8_t *input;
	int input_fd;
	struct rg_origin origin;
	FILE *spill;
	char *spill_buf;        /* its stdio buffer (rg_tmpfile)            */
	uint64_t spill_size;
	struct rg_plane *planes;           /* malloc'd                 */
	size_t n_planes, cap_planes;
	/* errors (2), warnings (3), hostnames (4): strings, arena     */
	struct rg_str {
		const char *p;
		size_t n;
	} *strs[5];
	size_t n_strs[5], cap_strs[5];
	const char *shown;
	int io_errno;                      /* first failed write: errno */
	bool align;                        /* long segments page-aligned */
	uint64_t page;                     /* the system's page size     */
	/* the id maps of a view's segments that keep their chunk's ids
	 * (tp_seg_map, riegeli_remap.c): malloc'd, each map's arrays one
	 * malloc'd block (tp_riegeli_seg_maps_free) */
	struct tp_seg_map *seg_maps;
	size_t n_seg_maps, cap_seg_maps;
	uint64_t *seg_map_keys;            /* malloc'd: each map's hash   */
	size_t seg_map_bytes;              /* the maps' arrays, in all    */
	struct rg_buf events_buf;          /* re-encoded events on their
					    * way to the spill, kept: a
					    * fresh MB for every line costs
					    * page faults */
	struct rg_buf meta_bodies;         /* a chunk plane's event
					    * metadata re-encoded while it
					    * is matched, kept likewise   */
};

/* Memory of a chunk's size (its data as gathered, its records
 * decompressed) taken from the kernel, not malloc: freeing a large
 * malloc'd block makes glibc raise its mmap threshold, after which the
 * decoder's large arrays come from the heap and stay resident once
 * freed (13 MB more peak on a 200 MB chunked capture, docs/riegeli.md).
 * n 0 gives p NULL; out of memory ends the process as tp_xmalloc does. */
struct rg_big {
	uint8_t *p;
	size_t n;
	bool heap;                         /* mmap refused: malloc'd   */
};
void rg_big_alloc(struct rg_big *b, size_t n);
void rg_big_free(struct rg_big *b);
/* At least n bytes (contents kept). A mapping grows with mremap, its
 * pages moved rather than dropped: a buffer reused from chunk to chunk
 * faults and clears each page once, not again at every growth. */
void rg_big_reserve(struct rg_big *b, size_t n);

/* An input file's 64 KiB blocks read into a buffer of
 * RG_WINDOW_BLOCKS (riegeli_window.c), for a walk that reads a chunk
 * in order without mapping the file's pages into the process. */
#define RG_WINDOW_BLOCKS 16
struct rg_window {
	struct rg_big buf;                 /* mapped at the first read   */
	uint64_t tag[RG_WINDOW_BLOCKS];    /* block number + 1 a slot
					    * holds; 0: none              */
	const uint8_t *file;               /* the input's mapping, size  */
	uint64_t size;                     /* bytes                      */
	int fd;                            /* the file it maps; -1: read
					    * the mapping                 */
};
/* Reads from the file open as fd, which file maps whole (size bytes),
 * or from the mapping when fd is -1. Blocks already read are kept when
 * it is the same file as before. A zeroed window is ready for it. */
void rg_window_open(struct rg_window *w, const uint8_t *file, uint64_t size,
		    int fd);
/* The bytes from file position pos (< size) to the end of its block:
 * in the buffer, or in the mapping when the file cannot be read (a
 * read that fails or falls short switches to the mapping for good).
 * Valid until a later call reads a block 12 or more blocks away (a
 * read fills up to four slots, RG_WINDOW_BLOCKS apart). */
const uint8_t *rg_window_at(struct rg_window *w, uint64_t pos);
void rg_window_free(struct rg_window *w);

/* The decoders' allocator (Brotli's and Zstd's custom allocation hooks,
 * opaque unused): a block of RG_BUF_MAP_MIN bytes or more is a mapping
 * of its own, for the reason rg_buf's are (Brotli's window of 4 MiB,
 * freed after each chunk, raised glibc's mmap threshold and kept the
 * decoder's arrays resident after it: 4 MB more peak on a Brotli
 * capture). NULL when out of memory, as the decoders expect. */
void *rg_codec_alloc(void *opaque, size_t n);
void rg_codec_free(void *opaque, void *p);
/* The calling thread's mapping kept for reuse (rg_codec_free keeps the
 * last one freed), unmapped: at the end of a read. */
void rg_codec_release(void);

struct ZSTD_DCtx_s;
/* riegeli_simple.c: one buffer of a simple chunk, want bytes
 * decompressed (type 0 none, 'b', 'z', 's'): *view points at them, in p
 * itself when not compressed, else in *own, kept from chunk to chunk and
 * grown to the largest; *zstd a Zstd context made on first use (the
 * caller frees it with rg_zstd_free). NULL on success, else what is
 * wrong. */
const char *rg_decompress(uint8_t type, const uint8_t *p, size_t n,
			  uint64_t want, const uint8_t **view,
			  struct rg_big *own, struct ZSTD_DCtx_s **zstd);
void rg_zstd_free(struct ZSTD_DCtx_s *zstd);
/* A simple chunk's sizes buffer (n bytes as the chunk holds them, of
 * compression type) decoded, its length held to num_records and max
 * (--max-input) first: NULL with *sizes and *sizes_len, else what is
 * wrong. own and zstd as rg_decompress's. */
const char *rg_decode_sizes(uint8_t type, const uint8_t *p, size_t n,
			    uint64_t num_records, uint64_t max,
			    const uint8_t **sizes, uint64_t *sizes_len,
			    struct rg_big *own, struct ZSTD_DCtx_s **zstd);

/* A simple chunk's data, where it lies in the input. */
struct rg_stream_in {
	const uint8_t *file;               /* the input, size bytes     */
	uint64_t size;
	uint64_t begin, n;                 /* data's file position, size */
	uint64_t num_records, decoded_size, hash, max;  /* its header's; max:
					    * --max-input          */
	bool drop;                         /* drop the input's pages     */
	struct rg_window *window;          /* file read through it (opened
					    * by the caller); NULL: the
					    * mapping read               */
};
/* Where rg_stream_chunk decodes: the caller's buffers, kept from chunk
 * to chunk (packed: the compressed sizes), a Zstd context made on first
 * use (the caller frees it); the views it fills. */
struct rg_stream_out {
	struct rg_big *packed, *sizes_own, *values_own;
	struct ZSTD_DCtx_s **zstd;
	const uint8_t *sizes, *values;     /* decoded buffers            */
	uint64_t sizes_len;
};
/* A Brotli or Zstd simple chunk's two buffers decoded as its data is
 * read, hashed as it goes: true when every part of it reads cleanly and
 * the hash agrees; false for anything else (another compression, any
 * damage: the caller gathers the chunk then, and says what is wrong). */
bool rg_stream_chunk(const struct rg_stream_in *in, struct rg_stream_out *out);

/* A simple chunk's decoded buffers, and what its header says of them. */
struct rg_decoded {
	const uint8_t *sizes, *values;
	uint64_t sizes_len, num_records, decoded_size;
	uint64_t begin;                    /* the chunk's position, for fn */
};
/* Its records handed to fn, one by one; a message when the record sizes
 * disagree with the rest, or NULL with *rc fn's verdict (the first not
 * TP_OK stops). */
const char *rg_hand_records(const struct rg_decoded *d, tp_riegeli_record_fn fn,
			    void *ctx, enum tp_err *rc, struct tp_error *err);

/* The most bytes written to a temporary file at once, within one
 * aligned piece of that size: the page cache of a file system with large
 * folios (ext4 since Linux 6.11) takes a write's size as its folio's,
 * and a read fault on a mapping of the file then maps the whole folio.
 * The glue's metadata, read a name here and there, was resident a MiB
 * at a time (docs/performance.md, "Issue 38, seventh session"); at
 * 64 KiB a fault maps what it maps in a file read from disk. */
#define RG_WRITE_PIECE ((size_t)64 << 10)

/* A temporary file, already unlinked: under $TMPDIR or /tmp. NULL
 * with errno set when it cannot be made. buf: where a file written
 * through stdio gets its buffer of RG_WRITE_PIECE bytes, the caller's to
 * free after fclose (glibc's setvbuf takes no size without a buffer: it
 * kept 4 KiB, a write(2) per 4 KiB of metadata); NULL for a file written
 * with pwrite only (the glue). */
FILE *rg_tmpfile(char **buf);

/* A write to a temporary file failed: the first failure's errno kept in
 * *io_errno (EIO where the call left none), later ones not. */
void rg_note_io(int *io_errno);

/* The merge's temporary files failed: a one-line error naming the
 * capture (shown), the directory and errnum's reason, TP_ERR_OUTPUT (a
 * full $TMPDIR is no fault of the capture). creating: the file could
 * not be made; else it could not be written or mapped. */
enum tp_err rg_tmp_error(struct tp_error *err, const char *shown,
			 bool creating, int errnum);

/* Drops the resident pages of a mapping's [from, to) (whole pages
 * inside it): read once, they come back from the file if read again. */
void rg_drop(const uint8_t *base, uint64_t from, uint64_t to);

/* Done with [from, to) of a temporary file f mapped at map: its pages
 * dropped from the mapping and, where the file system can, from the file
 * (a hole), so that the page cache and $TMPDIR hold them no longer. */
void rg_forget(FILE *f, const uint8_t *map, uint64_t from, uint64_t to);

/* Appends up to len bytes of from at off to to, in the kernel
 * (copy_file_range): no mapping of from is touched, no user copy made.
 * Returns how many were copied (0 where that cannot be done): the
 * caller writes the rest. */
uint64_t rg_copy(FILE *from, uint64_t off, uint64_t len, FILE *to,
		 int *io_errno);

/* Appends bytes to the spill file. */
struct rg_span rg_spill(struct rg_model *m, const void *p, size_t n);

void rg_put(struct rg_buf *b, const void *p, size_t n);
void rg_put_varint(struct rg_buf *b, uint64_t v);
void rg_put_tag(struct rg_buf *b, uint32_t field, unsigned type);
size_t rg_varint_size(uint64_t v);
/* A length-delimited field written in place, with no buffer of its own:
 * rg_open_field writes the tag and leaves room for the length, returning
 * where it goes; rg_close_field writes it and moves the content up. */
size_t rg_open_field(struct rg_buf *b, uint32_t field);
void rg_close_field(struct rg_buf *b, size_t at);

/* A chunk's ids mapped by a table over [lo, lo + n), when they lie
 * close together (riegeli_remap.c); an id outside it is kept. usable:
 * the table maps every id of the map it was built from. */
struct rg_idtab {
	int64_t lo;
	size_t n;
	int64_t *to;                       /* malloc'd                 */
	bool usable;
};

/* A chunk's view of one plane: where its parts are, and its id maps. */
struct chunk_plane {
	struct tp_field *lines, *events, *stats, *plane_stats;
	size_t n_lines, n_events, n_stats, n_plane_stats;
	size_t cap_lines, cap_events, cap_stats, cap_plane_stats;
	struct tp_i64map event_map, stat_map;   /* chunk id -> merged id */
	struct rg_idtab event_tab, stat_tab;    /* the same, as tables,
						 * when not identity    */
	bool identity;
	uint32_t map;                      /* a view's map of the ids, when
					    * not identity: 1 + its index
					    * (rg_segment.map), or 0   */
	int64_t id;
	struct tp_str name;
};

void rg_push_field(struct tp_field **v, size_t *n, size_t *cap,
		   const struct tp_field *f);
/* An XStat's content with its metadata id and reference value remapped;
 * *id the remapped metadata id. */
bool rg_put_stat(struct rg_buf *b, const uint8_t *base, const uint8_t *p,
		 size_t n, const struct tp_i64map *stat_map, int64_t *id);
/* An XEvent field (tag, length, message) with its ids remapped. */
bool rg_put_event(struct rg_buf *b, const uint8_t *base,
		  const struct tp_field *ev, const struct chunk_plane *cp);
/* The table of a map's ids (rg_idtab), and its release. */
void rg_idtab_build(struct rg_idtab *t, const struct tp_i64map *m);
void rg_idtab_release(struct rg_idtab *t);
/* How a renumbering chunk plane's events will be read: in a view they
 * keep the chunk's ids, which their markers map (cp->map, 1 + the index
 * of its map in m->seg_maps: one made for an earlier chunk that
 * renumbers the same way, or a new one within tp_riegeli_max_map_bytes);
 * written flat, or past that, each is re-encoded (the tables built). */
void rg_chunk_ids(struct rg_model *m, struct chunk_plane *cp);
/* rg_put_event for the usual event of n bytes at p (the message, not
 * its tag): the same bytes, written the quick way. False, with nothing
 * written, at a shape it does not handle or tables not usable. */
bool rg_put_event_fast(struct rg_buf *b, const uint8_t *p, size_t n,
		       const struct chunk_plane *cp);
/* The merged plane of that name, appended (*fresh) when new. */
struct rg_plane *rg_find_plane(struct rg_model *m, struct tp_str name,
			       bool *fresh);
/* A chunk's metadata into p, filling cp's id maps (riegeli_merge.c). */
bool rg_merge_stat_meta(struct rg_model *m, struct rg_plane *p,
			struct chunk_plane *cp, const uint8_t *base, bool fresh);
/* The chunk's plane stats into p: appended unless one with the same
 * (remapped) metadata id is there. */
bool rg_merge_plane_stats(struct rg_model *m, struct rg_plane *p,
			  const struct chunk_plane *cp, const uint8_t *base);
bool rg_merge_event_meta(struct rg_model *m, struct rg_plane *p,
			 struct chunk_plane *cp, const uint8_t *base, bool fresh);

/* Merges one record (one XSpace chunk) into m; TP_ERR_INPUT when it is
 * not an XSpace. */
enum tp_err rg_merge_record(struct rg_model *m, const uint8_t *rec, size_t len,
			    uint64_t chunk_begin, struct tp_error *err);

/* A field of `number` taking exactly `size` bytes (tag, length,
 * content): its content the varints values[0..n_values) and zeros, into
 * dst (room for size bytes). False when no field takes that size (too
 * small, or a length whose varint would not fit): try a page more. */
bool rg_pad_field(uint8_t *dst, uint32_t number, uint64_t size,
		  const uint64_t *values, size_t n_values);
/* rg_pad_field's bytes before its zeros (tag, length, values), into dst
 * (room for RG_PAD_HEAD_MAX) when not NULL: how many, or 0 when no field
 * takes that size. */
#define RG_PAD_HEAD_MAX 32
size_t rg_pad_head(uint8_t *dst, uint32_t number, uint64_t size,
		  const uint64_t *values, size_t n_values);

/* The picoseconds from a line's start to a segment's. */
int64_t rg_segment_shift(const struct rg_line *l, const struct rg_segment *s);

/* Writes the merged XSpace to out as a standard XSpace (events moved to
 * their line's start, no segment markers), to be written out whole. */
enum tp_err rg_emit(struct rg_model *m, const uint8_t *spill, FILE *out,
		    struct tp_error *err);

/* Lays the merged XSpace out as a view (riegeli_view.c): what is not
 * an aligned segment written to a temporary file, every aligned segment
 * mapped in place from the spill, segment markers before each line's
 * segments. out gets the mapping. */
enum tp_err rg_view(struct rg_model *m, const uint8_t *spill,
		    struct tp_riegeli_xspace *out, struct tp_error *err);


void rg_model_release(struct rg_model *m);

#endif
