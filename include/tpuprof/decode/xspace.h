/*
 * xspace.h - the decoded form of one XSpace (one host's *.xplane.pb).
 *
 * Decoding reads planes, lines and the metadata maps into compact records;
 * events are never unpacked into structs: they stay in the file's bytes and
 * are read with tp_event_iter, one at a time, as often as an analysis needs.
 * This is what keeps a multi-GB capture within about its own size in memory.
 *
 * Ownership: every record and array below lives in the arena passed to
 * tp_xspace_decode(); every struct tp_str points into the file's bytes
 * (struct tp_buffer in capture.h), which must outlive the records. Both are
 * released by tp_capture_release().
 *
 * Decoding validates the whole structure (every tag, length and event), so
 * later iteration over a decoded XSpace cannot meet corrupt bytes.
 */
#ifndef TPUPROF_XSPACE_H
#define TPUPROF_XSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpuprof/util/arena.h"
#include "tpuprof/util/error.h"
#include "tpuprof/util/parallel.h"
#include "tpuprof/util/util.h"
#include "tpuprof/decode/wire.h"

/* Which member of XStat's value oneof was set (last one wins). */
enum tp_stat_kind {
	TP_STAT_NONE = 0,
	TP_STAT_DOUBLE,
	TP_STAT_UINT64,
	TP_STAT_INT64,
	TP_STAT_STR,
	TP_STAT_BYTES,
	TP_STAT_REF,
};

struct tp_stat {
	int64_t metadata_id;    /* key into the plane's stat metadata */
	enum tp_stat_kind kind;
	union {
		double d;
		uint64_t u;          /* UINT64 and REF                */
		int64_t i;
		struct tp_str s;     /* STR and BYTES, borrowed        */
	} v;
};  /* 32 bytes: a pod's metadata holds millions of these */

/* Stat names tpuprof looks for. Resolved per plane to stat-metadata ids at
 * decode time, so hot loops compare integers, not strings. */
enum tp_stat_name {
	TP_SN_DEVICE_OFFSET_PS,
	TP_SN_DEVICE_DURATION_PS,
	TP_SN_PROGRAM_ID,
	TP_SN_SYMBOL_ID,
	TP_SN_HLO_PROTO,
	TP_SN_HLO_PROTO_OLD,    /* "HLO Proto", an older spelling      */
	TP_SN_HLO_CATEGORY,
	TP_SN_HLO_OP,
	TP_SN_HLO_MODULE,
	TP_SN_TF_OP,
	TP_SN_FLOPS,
	TP_SN_BYTES_ACCESSED,
	TP_SN_SOURCE,
	TP_SN_COUNT
};

struct tp_stat_meta {
	int64_t id;
	struct tp_str name;     /* stat name, or an interned string   */
};

struct tp_event_meta {
	int64_t id;
	struct tp_str name;          /* on TPU op lines: the HLO text   */
	struct tp_str display_name;  /* on TPU op lines: the HLO name   */
	struct tp_stat *stats;       /* arena                           */
	uint32_t n_stats;
	uint32_t n_children;         /* child_id entries (fused ops)    */
	size_t offset;               /* file offset of the message      */
};

struct tp_line {
	int64_t id;
	int64_t display_id;
	struct tp_str name;
	struct tp_str display_name;
	int64_t timestamp_ns;
	int64_t duration_ps;
	struct tp_str body;     /* the XLine message bytes, borrowed   */
	size_t body_offset;     /* file offset of body                 */
	uint64_t n_event_fields; /* events framed in the message: known
				  * at decode, before any event is read;
				  * on a line with tail_unread, 1 until
				  * its scan ends (the line has events) */
	/* A long line's fields after its first event (display_id,
	 * display_name, duration_ps, the events' framing) are read by its
	 * scan, not by a walk at decode, which would read every event twice:
	 * by the scan at open, or for a deferred line by the analysis that
	 * reads it (tp_decode_opts.defer_min_bytes); true until then. id,
	 * name and timestamp_ns are those written before the first event,
	 * in every line (where producers write them; repeats after it are
	 * ignored). */
	bool tail_unread;
	/* Set by the scan of the line's events (see tp_xspace_decode_ex):
	 * until `scanned`, these are zero. */
	bool scanned;           /* every event read and validated      */
	uint64_t n_events;      /* all events                          */
	uint64_t n_aggregated;  /* events with num_occurrences, no time */
	bool has_span;          /* at least one timed event            */
	int64_t first_start_ps; /* earliest event start (absolute ps)  */
	int64_t last_end_ps;    /* latest event end (absolute ps)      */
	/* timed events in (start ascending, duration descending) order,
	 * as a trace needs them (tpuprof trace skips its order pass);
	 * last_key_* is the scan's previous timed event */
	bool in_order;
	int64_t last_key_start_ps, last_key_dur_ps;
	uint32_t *meta_counts;  /* arena: events per event_meta index
				 * (saturating), on lines with many more
				 * events than metadata; else NULL      */
	const char *scan_error; /* static text when the scan met corrupt
				 * bytes, at file offset scan_error_offset */
	size_t scan_error_offset;
	bool framing_error;     /* scan_error is in the line's framing
				 * (tail_unread lines only): the decoder
				 * would have met it at open            */
};

enum tp_plane_kind {
	TP_PLANE_OTHER = 0,
	TP_PLANE_TPU,           /* /device:TPU:N (TensorCore)          */
	TP_PLANE_TPU_SPARSECORE,
	TP_PLANE_GPU,
	TP_PLANE_CUSTOM,        /* /device:CUSTOM:...                  */
	TP_PLANE_HOST,          /* /host:CPU and other /host: planes   */
	TP_PLANE_METADATA,      /* /host:metadata                      */
	TP_PLANE_TASK_ENV,      /* Task Environment                    */
};

struct tp_idmap {
	int64_t *keys;          /* arena, open addressing              */
	uint32_t *values;       /* index + 1; 0 marks an empty slot    */
	size_t cap;             /* power of two                        */
	uint32_t *direct;       /* arena: index + 1 by id, when every id
				 * is small (producers number from 1)  */
	size_t n_direct;        /* ids below this are in direct        */
};

struct tp_plane {
	int64_t id;
	struct tp_str name;
	enum tp_plane_kind kind;
	int device_ordinal;             /* N of /device:XXX:N, else -1     */
	struct tp_line *lines;          /* arena, file order               */
	size_t n_lines;
	struct tp_event_meta *event_meta; /* arena, file order             */
	size_t n_event_meta;
	struct tp_stat_meta *stat_meta; /* arena, file order               */
	size_t n_stat_meta;
	struct tp_stat *stats;          /* plane stats, arena              */
	size_t n_stats;
	struct tp_idmap event_meta_index; /* id -> event_meta index        */
	struct tp_idmap stat_meta_index;  /* id -> stat_meta index         */
	int64_t known_stat_id[TP_SN_COUNT]; /* valid when known_stat[i]    */
	bool known_stat[TP_SN_COUNT];
	size_t offset;                  /* file offset of the message      */
	struct tp_str bytes;            /* the XPlane message, borrowed    */
};

/* A chunk's ids, where a merged chunked capture's segment keeps them
 * (tp_riegeli_xspace.seg_maps): the merged id of each of the chunk's
 * ids that differs, from[i] -> to[i], from ascending; any other id is
 * its own. direct[id] is the same for every id below n_direct (there,
 * the id itself where it is its own), so that small ids take one load. */
struct tp_id_remap {
	const int64_t *from, *to;
	size_t n;
	const int64_t *direct;
	size_t n_direct;
};

/* A segment's ids: its events' metadata ids, and its stats' metadata
 * ids and reference values (tp_decode_opts.seg_maps). */
struct tp_seg_map {
	struct tp_id_remap events, stats;
	void *block;            /* the arrays, one block of their maker's
				 * (tp_riegeli_seg_maps_free)            */
};

/* The merged id of a chunk's id under m. */
int64_t tp_id_remap_slow(const struct tp_id_remap *m, int64_t id);
static inline int64_t tp_id_remap_get(const struct tp_id_remap *m, int64_t id)
{
	if ((uint64_t)id < m->n_direct)
		return m->direct[id];
	return tp_id_remap_slow(m, id);
}

/* Where the bytes decoded hold a few that are not the capture's: a
 * chunked capture's block header inside a line read where it lies in the
 * file (tp_riegeli_xspace.gaps). A reader of the line stops at offset
 * `from`, where the field that the header cuts in two begins (or the
 * header itself, when none does), takes that field whole from `field`
 * (len bytes, 16 more readable after them), and goes on at `resume`.
 * Offsets into the bytes decoded, ascending by `from`; every gap lies
 * inside one line's run of events. */
struct tp_gap {
	size_t from, resume;
	const uint8_t *field;   /* NULL: no field is cut, only the header */
	size_t len;
};

struct tp_xspace {
	struct tp_plane *planes;        /* arena, file order               */
	size_t n_planes;
	struct tp_str *hostnames;       /* arena                           */
	size_t n_hostnames;
	size_t n_errors, n_warnings;
	struct tp_str *errors;          /* arena                           */
	struct tp_str *warnings;        /* arena                           */
	int64_t time_origin_ns;         /* subtracted from line timestamps */
	const uint8_t *base;            /* the file bytes                  */
	size_t size;
	const char *name;               /* file name for messages, borrowed */
	bool drop_pages;                /* base maps a file: resident pages
					 * of scanned lines may be dropped */
	bool segment_shifts;            /* lines hold segment markers
					 * (TP_XLINE_SEGMENT_FIELD)       */
	const struct tp_gap *gaps;      /* borrowed (tp_decode_opts.gaps) */
	size_t n_gaps;
	const struct tp_seg_map *seg_maps; /* borrowed: a segment marker's
					    * map index - 1 (xspace.h)   */
	size_t n_seg_maps;
};

/* A merged chunked capture (riegeli.h) keeps each chunk's events of a
 * line as they were written, relative to the chunk's own line start: a
 * segment marker, an XLine field of this number holding a varint (the
 * picoseconds from the line's timestamp_ns to that start) and padding,
 * comes before each chunk's events, and the event iterator adds it to
 * the offset_ps of the events that follow (and to start_ps where it
 * comes from offset_ps), so they read as if XProf's merge had moved
 * them: it moves offset_ps only, never the device_offset_ps stat. A
 * second varint, when not 0, is 1 + the index of the segment's id map
 * in tp_decode_opts.seg_maps: the events after it keep their chunk's
 * ids, which the iterator gives as the merged ones (tp_event.metadata_id,
 * tp_stat_iter's metadata ids and reference values; the batch readers
 * too). Read only in XSpaces decoded with
 * tp_decode_opts.segment_shifts: in any other file the field is an
 * unknown field, skipped. TP_XLINE_PADDING_FIELD is padding, skipped
 * everywhere. Neither number is used by XLine (xplane.proto). */
#define TP_XLINE_SEGMENT_FIELD 2047
#define TP_XLINE_PADDING_FIELD 2046

/* Decodes an XSpace from data[0..size), which stays borrowed. name is the
 * file name used in error messages. On failure the arena may hold partial
 * records; they die with it. */
enum tp_err tp_xspace_decode(struct tp_xspace *xs, struct tp_arena *arena,
			     const uint8_t *data, size_t size, const char *name,
			     struct tp_error *err);

/* Captures with at least this many bytes of events are validated by one
 * thread per core (default 8 MiB); tests lower it. */
extern size_t tp_xspace_parallel_min_bytes;
/* Lines of at least this many bytes (default 1 MiB) leave their tail to
 * their scan (tp_line.tail_unread); tests lower it. */
extern size_t tp_xspace_framing_min_bytes;

struct tp_decode_opts {
	/* Lines of device planes (TPU, GPU) at least this long are left
	 * unscanned (0: scan everything): an analysis that reads them anyway
	 * scans them as it goes (tp_event_iter_init_scan), so their events
	 * are read once, not twice (their framing too: tp_line.tail_unread).
	 * tp_xspace_finish_scan() scans whatever is left; until then those
	 * lines' counts are zero. Errors are those of a full decode: a
	 * damaged framing is reported as the decoder reports it, before any
	 * damaged event (see tp_xspace_finish_scan). */
	size_t defer_min_bytes;
	/* The bytes map a file: pages of a line may be dropped from memory
	 * once it is scanned (they fault back in if read again). Never set
	 * for heap copies, where dropping would lose the data. */
	bool drop_pages;
	/* Threads for the scan (0: tp_threads()); 1 when several captures
	 * are decoded at once, each on its own thread. */
	unsigned threads;
	/* The bytes are a merged chunked capture whose lines hold segment
	 * markers (TP_XLINE_SEGMENT_FIELD, tp_riegeli_xspace). */
	bool segment_shifts;
	/* The bytes' gaps (struct tp_gap), which every reader of a line
	 * steps over: borrowed, outlive xs. */
	const struct tp_gap *gaps;
	size_t n_gaps;
	/* The id maps segment markers name (segment_shifts only): borrowed,
	 * outlive xs. */
	const struct tp_seg_map *seg_maps;
	size_t n_seg_maps;
};

/* tp_xspace_decode with options; opts NULL = scan everything. name must
 * outlive xs (it is used in messages of tp_xspace_finish_scan). */
enum tp_err tp_xspace_decode_ex(struct tp_xspace *xs, struct tp_arena *arena,
				const uint8_t *data, size_t size,
				const char *name,
				const struct tp_decode_opts *opts,
				struct tp_error *err);

/* Scans every line not scanned yet, then fails with the first corrupt
 * line in file order (scanned here or by an analysis), with the message
 * the decoder gives. Cheap when nothing is left. */
enum tp_err tp_xspace_finish_scan(struct tp_xspace *xs, struct tp_error *err);


/* Drops the resident pages wholly inside [p, p+len) of a mapped file
 * (xs->drop_pages); a no-op otherwise. Safe at any time: the bytes read
 * the same afterwards. */
void tp_xspace_drop(const struct tp_xspace *xs, const void *p, size_t len);

/* Looks up metadata by id; NULL when absent. */
const struct tp_event_meta *tp_plane_event_meta(const struct tp_plane *pl,
						int64_t id);
const struct tp_stat_meta *tp_plane_stat_meta(const struct tp_plane *pl,
					      int64_t id);
/* The name of a stat (its metadata's name), or an empty slice. */
struct tp_str tp_stat_name(const struct tp_plane *pl, const struct tp_stat *st);
/* A stat's string value: str_value, or the name behind ref_value. */
bool tp_stat_str(const struct tp_plane *pl, const struct tp_stat *st,
		 struct tp_str *out);
/* A stat's integer value from any integer case (uint64 wins, as in XProf);
 * doubles are truncated. False for strings and bytes. */
bool tp_stat_int(const struct tp_stat *st, int64_t *out);
/* Finds a stat in a list by well-known name; NULL when absent. */
const struct tp_stat *tp_stats_find(const struct tp_plane *pl,
				    const struct tp_stat *stats, size_t n,
				    enum tp_stat_name which);
/* Finds a stat in a list by any name; NULL when absent. */
const struct tp_stat *tp_stats_find_name(const struct tp_plane *pl,
					 const struct tp_stat *stats, size_t n,
					 const char *name);

/* One event, read from the file by tp_event_iter_next(). */
struct tp_event {
	int64_t metadata_id;
	const struct tp_event_meta *meta; /* NULL when the id is unknown   */
	bool timed;            /* false for aggregated events           */
	int64_t num_occurrences; /* 1 for timed events                  */
	int64_t offset_ps;     /* raw offset_ps                         */
	int64_t duration_ps;   /* raw duration_ps                       */
	int64_t start_ps;      /* absolute start, device time preferred */
	int64_t dur_ps;        /* duration, device time preferred       */
	int64_t line_start_ps; /* absolute start on the timeline (offset_ps,
				* moved as start_ps is), whatever clock
				* start_ps is on                        */
	bool device_clock;     /* start_ps and dur_ps are device time   */
	struct tp_str stats;   /* the event's stats, as raw fields       */
	bool other_stats;      /* stats besides device offset/duration: the
				* only ones read while decoding; when false,
				* a stat_iter over the event finds nothing
				* else (lets hot loops skip the walk) */
	size_t offset;         /* file offset of the event message      */
	const struct tp_seg_map *ids; /* the segment's ids, which the
				* stats keep (tp_stat_iter maps them);
				* NULL: they are the plane's            */
};

/* Where a segment marker leaves an iterator (xspace.h): its shift, and
 * the map of its events' ids (NULL: the plane's own). */
struct tp_event_seg {
	int64_t shift_ps;
	const struct tp_seg_map *ids;
};

struct tp_event_iter {
	const struct tp_plane *plane;
	const struct tp_line *line;
	int64_t line_base_ps;  /* (timestamp_ns - origin) * 1000, plus
				* the segment's shift_ps                */
	int64_t line_origin_ps; /* line_base_ps before any segment      */
	struct tp_event_seg seg; /* the last segment marker's, else 0s  */
	bool validate;         /* decode every stat (set by the decoder) */
	bool raw_times;        /* skip device_offset_ps lookups: for passes
				* that only count, the stats need no decoding */
	const uint8_t *slack;  /* end of the file bytes: varints may be read
				* up to here unchecked, then bounds-tested */
	struct tp_line *scan;  /* set by tp_event_iter_init_scan        */
	const struct tp_xspace *xs;
	const uint8_t *dropped; /* pages before this may be dropped     */
	const uint8_t *event_end; /* end of the event being decoded      */
	bool framing_failed;   /* the error is in the line's framing    */
	const uint8_t *line_end; /* w.end stops short of it at a gap      */
	const struct tp_gap *gap; /* the next gap in the line, or NULL    */
	struct tp_wire w;
};

void tp_event_iter_init(struct tp_event_iter *it, const struct tp_xspace *xs,
			const struct tp_plane *pl, const struct tp_line *ln);
/* Iterates a line that is not scanned yet, validating every event and
 * filling the line's scan results (counts, span, meta_counts, and
 * scanned or scan_error at the end). Only one scan of a line at a time. */
void tp_event_iter_init_scan(struct tp_event_iter *it,
			     const struct tp_xspace *xs,
			     const struct tp_plane *pl, struct tp_line *ln);
/* For readers of any line: a line opening deferred is scanned by this
 * first read (tp_event_iter_init_scan), others are only read. A scan
 * writes the line's counts, hence the cast: only one thread may read a
 * deferred line at a time. */
void tp_event_iter_init_read(struct tp_event_iter *it,
			     const struct tp_xspace *xs,
			     const struct tp_plane *pl, const struct tp_line *ln);
/* 1 when ev was filled, 0 at the end, -1 on corrupt bytes (only possible
 * on lines not scanned yet). */
int tp_event_iter_next(struct tp_event_iter *it, struct tp_event *ev);

/* Moves an iterator of a scanned line to the event whose tag is at file
 * offset off (a tp_event.offset it gave before), under the segment it
 * was read under then (tp_event_iter.seg
 * after that read): read from the middle of a line, a view's events have
 * no marker before them. Zeros for every event of a .pb. */
void tp_event_iter_seek(struct tp_event_iter *it, size_t off,
			struct tp_event_seg seg);

/* Plain events in bulk, for the hot loops over op lines: timed events of
 * the usual shape whose metadata is known and whose only stats are
 * device time (when the plane has device time, both are present). They
 * decode without a struct tp_event each, into arrays. */
#define TP_EVENT_BATCH 256
#define TP_BATCH_KEYS 4
#define TP_BATCH_REJECTS 2
struct tp_event_batch {
	uint32_t meta[TP_EVENT_BATCH];     /* index into plane->event_meta  */
	int64_t start_ps[TP_EVENT_BATCH];  /* as tp_event.start_ps         */
	int64_t dur_ps[TP_EVENT_BATCH];    /* as tp_event.dur_ps           */
	int64_t line_ps[TP_EVENT_BATCH];   /* as tp_event.line_start_ps    */
	bool device_clock;                 /* as tp_event.device_clock, for
					    * every event of the batch     */
	/* keyed reading only: per kept stat (struct tp_batch_keys), its
	 * kind on each event (TP_STAT_NONE: absent) and its value's bits */
	uint8_t kind[TP_BATCH_KEYS][TP_EVENT_BATCH];
	uint64_t value[TP_BATCH_KEYS][TP_EVENT_BATCH];
};
/* Reads the plain events that come next (at most TP_EVENT_BATCH) into
 * b, scanning them as tp_event_iter_next would, and returns how many.
 * 0 when the next event is not plain, or the line ended: read it with
 * tp_event_iter_next, which also reports the end and corrupt bytes.
 * Mixing the two calls reads every event once, in file order. */
size_t tp_event_iter_batch(struct tp_event_iter *it, struct tp_event_batch *b);

/* Keyed reading: plain events may carry other stats too, of the shapes
 * producers write ([08 id] and one value: varint, double, string or
 * bytes). The values of up to TP_BATCH_KEYS of them, by stat id, are
 * kept (kind and value in the batch); an event where a kept stat is
 * not an integer (uint64, int64, ref) or comes twice, or with a
 * rejected stat, is not plain. All zeros: nothing kept, none rejected. */
struct tp_batch_keys {
	bool keep_on[TP_BATCH_KEYS];
	int64_t keep[TP_BATCH_KEYS];       /* stat metadata ids            */
	bool reject_on[TP_BATCH_REJECTS];
	int64_t reject[TP_BATCH_REJECTS];
};
size_t tp_event_iter_batch_keyed(struct tp_event_iter *it,
				 const struct tp_batch_keys *keys,
				 struct tp_event_batch *b);

/* Iterates the stats stored with an event (not its metadata's). */
struct tp_stat_iter {
	struct tp_wire w;
	const struct tp_seg_map *ids;   /* tp_event.ids                  */
};
void tp_stat_iter_init(struct tp_stat_iter *it, const struct tp_xspace *xs,
		       const struct tp_event *ev);
int tp_stat_iter_next(struct tp_stat_iter *it, struct tp_stat *st);

/* Finds a well-known stat on the event, then on its metadata. */
bool tp_event_stat(const struct tp_xspace *xs, const struct tp_plane *pl,
		   const struct tp_event *ev, enum tp_stat_name which,
		   struct tp_stat *out);

const char *tp_plane_kind_name(enum tp_plane_kind kind);

#endif
