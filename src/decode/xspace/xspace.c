/*
 * xspace.c - decoding an XSpace into planes, lines and metadata tables
 * (see xspace.h for the shape of the result and who owns what).
 *
 * Each message is read twice: a counting pass sizes the arena arrays, a
 * second pass fills them. Protobuf writes fields in number order, so an
 * XPlane's lines (field 3) come before the metadata maps (4, 5) they refer
 * to: lines are recorded as byte ranges first and their events are walked
 * only once the plane's metadata is known.
 */
#include "xspace_internal.h"
#include "tpuprof/util/parallel.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Timestamps above this many ns are wall-clock (not normalized to the
 * session start) and would overflow int64 picoseconds. */
#define TP_WALLCLOCK_NS INT64_C(4000000000000000)

struct decode_ctx {
	struct tp_arena *arena;
	const char *name;        /* file name for messages */
	struct tp_error *err;
	const struct tp_xspace *xs;
	bool leave_tails;          /* long lines' tails to their scans  */
	unsigned threads;          /* for the planes (0: tp_threads())   */
};

static enum tp_err corrupt(struct decode_ctx *c, const struct tp_wire *w,
			   const char *where)
{
	char detail[200];

	tp_error_set(c->err, TP_ERR_INPUT, "%s: corrupt capture at byte %zu: %s (in %s)",
		     c->name, w->error_offset, w->error, where);
	snprintf(detail, sizeof(detail), "%s (in %s)", w->error, where);
	tp_error_corrupt_at(c->err, TP_CORRUPT_XSPACE, true, w->error_offset, detail);
	return TP_ERR_INPUT;
}

static struct tp_str field_str(const struct tp_field *f)
{
	return tp_str_make((const char *)f->data, f->len);
}

static bool is_len(const struct tp_field *f)
{
	return f->type == TP_WIRE_LEN;
}

/* Per-metadata event counts let analyses count events by kind without
 * reading them again; kept for lines with at least 8 events per metadata
 * entry (or, while the events are not counted yet, 256 bytes), so they
 * cost at most a small part of the line's bytes. */
static void alloc_meta_counts(struct decode_ctx *c, struct tp_plane *pl)
{
	for (size_t l = 0; l < pl->n_lines; l++) {
		struct tp_line *ln = &pl->lines[l];
		uint64_t per_meta = ln->tail_unread ? ln->body.len / 256 :
						      ln->n_event_fields / 8;

		if (pl->n_event_meta && per_meta >= (uint64_t)pl->n_event_meta)
			ln->meta_counts = tp_arena_calloc(c->arena, pl->n_event_meta,
							  sizeof(*ln->meta_counts));
	}
}

/* Plane and line names are printed by every writer (per core, per
 * collective execution): copied out of the file, so that reading them
 * does not map a block of the capture's pages back in for each plane.
 * Names of hostile length stay borrowed. */
static struct tp_str kept_name(struct decode_ctx *c, struct tp_str s)
{
	if (!s.len || s.len > 4096)
		return s;
	return tp_str_make(tp_arena_strndup(c->arena, s.ptr, s.len), s.len);
}

static void keep_names(struct decode_ctx *c, struct tp_plane *pl)
{
	pl->name = kept_name(c, pl->name);
	for (size_t l = 0; l < pl->n_lines; l++)
		pl->lines[l].name = kept_name(c, pl->lines[l].name);
}

static int decode_plane(struct decode_ctx *c, struct tp_wire *pw,
			struct tp_plane *pl)
{
	/* lines, event and stat metadata, plane stats: counted in one pass */
	static const uint32_t counted[] = { 3, 4, 5, 6 };
	struct tp_wire w = *pw;
	struct tp_field f;
	size_t il = 0, n[4];
	int rc;

	if (tp_count_fields_of(pw, counted, 4, n) < 0)
		return -1;
	pl->n_lines = n[0];
	pl->n_event_meta = n[1];
	pl->n_stat_meta = n[2];
	pl->lines = tp_arena_calloc(c->arena, pl->n_lines, sizeof(*pl->lines));
	while ((rc = tp_wire_next(&w, &f)) > 0) {
		if (f.number == 1 && f.type == TP_WIRE_VARINT) {
			pl->id = (int64_t)f.value;
		} else if (f.number == 2 && is_len(&f)) {
			pl->name = field_str(&f);
		} else if (f.number == 3 && is_len(&f)) {
			struct tp_wire lw;

			tp_wire_sub(&lw, &w, &f);
			if (tp_line_header(c->xs, &lw, &pl->lines[il++], c->leave_tails) < 0) {
				w = lw;
				break;
			}
		}
	}
	if (w.error) {
		*pw = w;
		return -1;
	}
	if (tp_stat_list_decode(c->arena, pw, 6, n[3], &pl->stats, &pl->n_stats) < 0 ||
	    tp_plane_maps_decode(c->arena, pw, pl) < 0)
		return -1;
	keep_names(c, pl);
	return 0;
}

/* Parses the N of "/device:XXX:N" (digits only), else -1. */
static int device_ordinal(struct tp_str name, const char *prefix)
{
	size_t n = strlen(prefix);
	long v = 0;

	if (!tp_str_has_prefix(name, prefix) || name.len == n ||
	    name.len > n + 6)
		return -1;
	for (size_t i = n; i < name.len; i++) {
		if (name.ptr[i] < '0' || name.ptr[i] > '9')
			return -1;
		v = v * 10 + (name.ptr[i] - '0');
	}
	return (int)v;
}

static void classify_plane(struct tp_plane *pl)
{
	pl->device_ordinal = -1;
	if ((pl->device_ordinal = device_ordinal(pl->name, "/device:TPU:")) >= 0)
		pl->kind = TP_PLANE_TPU;
	else if ((pl->device_ordinal =
			  device_ordinal(pl->name, "/device:GPU:")) >= 0)
		pl->kind = TP_PLANE_GPU;
	else if (tp_str_has_prefix(pl->name, "/device:TPU:") &&
		 tp_str_contains(pl->name, " SparseCore"))
		pl->kind = TP_PLANE_TPU_SPARSECORE;
	else if (tp_str_has_prefix(pl->name, "/device:CUSTOM:"))
		pl->kind = TP_PLANE_CUSTOM;
	else if (tp_str_eq(pl->name, "/host:metadata"))
		pl->kind = TP_PLANE_METADATA;
	else if (tp_str_has_prefix(pl->name, "/host:"))
		pl->kind = TP_PLANE_HOST;
	else if (tp_str_eq(pl->name, "Task Environment"))
		pl->kind = TP_PLANE_TASK_ENV;
	else
		pl->kind = TP_PLANE_OTHER;
}

const char *tp_plane_kind_name(enum tp_plane_kind kind)
{
	static const char *const names[] = {
		[TP_PLANE_OTHER] = "other",
		[TP_PLANE_TPU] = "tpu_core",
		[TP_PLANE_TPU_SPARSECORE] = "tpu_sparsecore",
		[TP_PLANE_GPU] = "gpu",
		[TP_PLANE_CUSTOM] = "custom",
		[TP_PLANE_HOST] = "host",
		[TP_PLANE_METADATA] = "metadata",
		[TP_PLANE_TASK_ENV] = "task_environment",
	};
	return names[kind];
}

/* Wall-clock timestamps would overflow picoseconds: measure from the
 * earliest line instead (see xspace.h, time_origin_ns). */
static void choose_time_origin(struct tp_xspace *xs)
{
	int64_t lo = INT64_MAX, hi = 0;

	for (size_t p = 0; p < xs->n_planes; p++)
		for (size_t l = 0; l < xs->planes[p].n_lines; l++) {
			int64_t ts = xs->planes[p].lines[l].timestamp_ns;

			if (ts > 0 && ts < lo)
				lo = ts;
			if (ts > hi)
				hi = ts;
		}
	xs->time_origin_ns = hi > TP_WALLCLOCK_NS ? lo : 0;
}

/* Planes decoded on any thread, a batch of consecutive ones at a time:
 * into an arena and an error of the batch's own (their metadata is most
 * of the opening of a capture of many cores). A plane of BATCH_BYTES or
 * more is a batch alone; smaller ones share one up to that many bytes,
 * so that a capture of many small or empty planes does not hold an arena
 * chunk (16 KiB) and an error (4.4 KiB) per plane: 100,000 empty planes
 * once took 620 MB. */
#define BATCH_BYTES (64u << 10)

struct plane_batch {
	size_t first, end;           /* planes [first, end)               */
	struct tp_arena arena;
	struct tp_error err;
	bool failed;
};

struct plane_slots {
	const struct decode_ctx *c;
	struct tp_xspace *xs;
	struct tp_wire *pw;          /* each plane's bytes                */
	struct plane_batch *batch;
	bool shared;                 /* one thread: into c's own arena    */
};

/* The planes of batch b in order, up to the first damaged one. */
static void decode_batch(void *ctx, size_t b, unsigned worker)
{
	const struct plane_slots *ps = ctx;
	struct plane_batch *s = &ps->batch[b];
	struct decode_ctx c = *ps->c;

	(void)worker;
	if (!ps->shared)
		c.arena = &s->arena;
	c.err = &s->err;
	for (size_t i = s->first; i < s->end; i++) {
		if (decode_plane(&c, &ps->pw[i], &ps->xs->planes[i]) < 0) {
			corrupt(&c, &ps->pw[i], "a plane");
			s->failed = true;
			return;
		}
		classify_plane(&ps->xs->planes[i]);
	}
}

/* The first n planes, in batches on threads; their arenas kept in c's,
 * in order. The first damaged one (in file order) is the answer. On one
 * thread (a pod's hosts are a thread each) they go into c's arena as
 * they come, not an arena each. */
static enum tp_err decode_planes(struct decode_ctx *c, struct tp_xspace *xs,
				 struct tp_wire *pw, size_t n)
{
	struct plane_slots ps = { c, xs, pw, NULL, false };
	unsigned threads = c->threads ? c->threads : tp_threads();
	size_t nb = 0, cap = 0;
	enum tp_err rc = TP_OK;

	if (threads < 2 || n < 2) {
		struct plane_batch one = { .first = 0, .end = n };

		ps.batch = &one;
		ps.shared = true;
		decode_batch(&ps, 0, 0);
		if (one.failed) {
			*c->err = one.err;
			rc = TP_ERR_INPUT;
		}
		return rc;
	}
	for (size_t i = 0; i < n; nb++) {
		size_t bytes = 0;

		ps.batch = tp_xgrow(ps.batch, &cap, nb + 1, sizeof(*ps.batch));
		memset(&ps.batch[nb], 0, sizeof(*ps.batch));
		ps.batch[nb].first = i;
		do
			bytes += (size_t)(pw[i].end - pw[i].p);
		while (++i < n && bytes < BATCH_BYTES &&
		       (size_t)(pw[i].end - pw[i].p) < BATCH_BYTES);
		ps.batch[nb].end = i;
		tp_arena_init(&ps.batch[nb].arena);
	}
	tp_parallel_for(nb, threads, decode_batch, &ps);
	for (size_t b = 0; b < nb; b++) {
		tp_arena_adopt(c->arena, &ps.batch[b].arena);
		if (rc == TP_OK && ps.batch[b].failed) {
			*c->err = ps.batch[b].err;
			rc = TP_ERR_INPUT;
		}
	}
	free(ps.batch);
	return rc;
}

static enum tp_err decode_space_fields(struct decode_ctx *c,
				       struct tp_wire *top, struct tp_xspace *xs)
{
	static const uint32_t counted[] = { 1, 2, 3, 4 };
	struct tp_wire w = *top;
	struct tp_field f;
	struct tp_wire *pw;
	size_t ip = 0, ih = 0, ie = 0, iw = 0, n[4];
	enum tp_err planes_rc;
	int rc;

	if (tp_count_fields_of(top, counted, 4, n) < 0)
		return corrupt(c, top, "the top-level XSpace message");
	xs->n_planes = n[0];
	xs->n_errors = n[1];
	xs->n_warnings = n[2];
	xs->n_hostnames = n[3];
	xs->planes = tp_arena_calloc(c->arena, xs->n_planes, sizeof(*xs->planes));
	xs->errors = tp_arena_calloc(c->arena, xs->n_errors, sizeof(struct tp_str));
	xs->warnings = tp_arena_calloc(c->arena, xs->n_warnings, sizeof(struct tp_str));
	xs->hostnames = tp_arena_calloc(c->arena, xs->n_hostnames, sizeof(struct tp_str));
	pw = tp_xcalloc(xs->n_planes + 1, sizeof(*pw));
	while ((rc = tp_wire_next(&w, &f)) > 0) {
		if (!is_len(&f))
			continue;
		if (f.number == 1) {
			struct tp_plane *pl = &xs->planes[ip];

			tp_wire_sub(&pw[ip++], &w, &f);
			pl->offset = f.offset;
			pl->bytes = field_str(&f);
		} else if (f.number == 2) {
			xs->errors[ie++] = field_str(&f);
		} else if (f.number == 3) {
			xs->warnings[iw++] = field_str(&f);
		} else if (f.number == 4) {
			xs->hostnames[ih++] = field_str(&f);
		}
	}
	/* the planes before a damaged field of the XSpace: a plane's own
	 * damage comes first in the file */
	planes_rc = decode_planes(c, xs, pw, ip);
	free(pw);
	if (planes_rc != TP_OK)
		return planes_rc;
	if (rc < 0)
		return corrupt(c, &w, "the top-level XSpace message");
	return TP_OK;
}

static enum tp_err scan_failed(struct decode_ctx *c, const struct tp_plane *pl,
				const struct tp_line *ln, const struct tp_wire *bad)
{
	char where[160];

	if (ln->framing_error) /* as the decoder says it at open */
		return corrupt(c, bad, "a plane");
	snprintf(where, sizeof(where), "an event of line '%.*s' of plane '%.*s'",
		 (int)(ln->name.len > 40 ? 40 : ln->name.len), ln->name.ptr,
		 (int)(pl->name.len > 60 ? 60 : pl->name.len), pl->name.ptr);
	return corrupt(c, bad, where);
}

/* Opening scanned the lines it does not defer and one is damaged: a
 * full decode reports a damaged framing of a deferred line, or an
 * earlier damaged event in one, first. So they are scanned too. */
static enum tp_err open_scan_failed(struct decode_ctx *c, struct tp_xspace *xs,
				    unsigned threads)
{
	const struct tp_plane *pl = NULL;
	const struct tp_line *ln = NULL;
	struct tp_wire bad = { 0 };

	tp_xspace_scan_lines(xs, 0, threads, &pl, &ln, &bad);
	return scan_failed(c, pl, ln, &bad);
}

/* The structure: planes, lines' heads, metadata, into an emptied xs;
 * long lines' tails are left to their scans when leave_tails. */
static enum tp_err decode_structure(struct decode_ctx *c, struct tp_xspace *xs,
				    const uint8_t *data, size_t size,
				    const struct tp_decode_opts *opts,
				    bool leave_tails)
{
	struct tp_wire top;

	memset(xs, 0, sizeof(*xs));
	xs->base = data;
	xs->size = size;
	xs->name = c->name;
	xs->drop_pages = opts && opts->drop_pages;
	xs->segment_shifts = opts && opts->segment_shifts;
	xs->gaps = opts ? opts->gaps : NULL;
	xs->n_gaps = opts ? opts->n_gaps : 0;
	xs->seg_maps = opts ? opts->seg_maps : NULL;
	xs->n_seg_maps = opts ? opts->n_seg_maps : 0;
	c->leave_tails = leave_tails;
	c->threads = opts ? opts->threads : 0;
	tp_wire_init(&top, data, data, size);
	return decode_space_fields(c, &top, xs);
}

enum tp_err tp_xspace_decode_ex(struct tp_xspace *xs, struct tp_arena *arena,
				const uint8_t *data, size_t size,
				const char *name,
				const struct tp_decode_opts *opts,
				struct tp_error *err)
{
	size_t defer = opts ? opts->defer_min_bytes : 0;
	struct decode_ctx c = { arena, name, err, xs, true, 0 };
	struct tp_wire bad = { 0 };
	const struct tp_plane *bad_plane = NULL;
	const struct tp_line *bad_line = NULL;

	if (decode_structure(&c, xs, data, size, opts, true) != TP_OK) {
		/* Damaged: decoded again walking every line where it stands,
		 * so that the message names what one pass meets first (a
		 * line's framing before the metadata after it in the plane,
		 * before anything later in the file). Errors only. */
		if (decode_structure(&c, xs, data, size, opts, false) == TP_OK)
			return tp_error_set(err, TP_ERR_INTERNAL,
					    "%s: a second pass decodes what the first refused",
					    name);
		return err->code;
	}
	for (size_t p = 0; p < xs->n_planes; p++)
		alloc_meta_counts(&c, &xs->planes[p]);
	choose_time_origin(xs);
	if (tp_xspace_scan_lines(xs, defer, opts ? opts->threads : 0, &bad_plane,
				 &bad_line, &bad) < 0)
		return open_scan_failed(&c, xs, opts ? opts->threads : 0);
	/* Decoding read the metadata too; what analyses need of it faults
	 * back in, so a run of many hosts keeps only what it uses. */
	tp_xspace_drop(xs, data, size);
	return TP_OK;
}

enum tp_err tp_xspace_decode(struct tp_xspace *xs, struct tp_arena *arena,
			     const uint8_t *data, size_t size, const char *name,
			     struct tp_error *err)
{
	return tp_xspace_decode_ex(xs, arena, data, size, name, NULL, err);
}

enum tp_err tp_xspace_finish_scan(struct tp_xspace *xs, struct tp_error *err)
{
	struct decode_ctx c = { NULL, xs->name ? xs->name : "capture", err, xs,
				false, 0 };
	struct tp_wire bad = { 0 };
	const struct tp_plane *bad_plane = NULL;
	const struct tp_line *bad_line = NULL;

	if (tp_xspace_scan_lines(xs, 0, 0, &bad_plane, &bad_line, &bad) < 0)
		return scan_failed(&c, bad_plane, bad_line, &bad);
	return TP_OK;
}
