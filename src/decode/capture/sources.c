/*
 * sources.c - one CAPTURE file loaded as a source: its bytes read, what it
 * holds decided (sniff.c, else the file name), its XSpace queued and
 * decoded with the others of its run into hosts, its HloProto handed to
 * modules.c. capture.c and paths.c call here; nothing here calls back.
 */
#include "capture_internal.h"

#include "tpuprof/decode/riegeli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The host name when the XSpace has none: the file name without its
 * .xplane.pb[.gz] suffix, as TensorBoard names hosts. */
static const char *host_name_from_path(struct tp_arena *a, const char *path)
{
	const char *base = strrchr(path, '/');
	static const char *const suffixes[] = { ".xplane.pb.gz", ".xplane.pb",
						".xplane.riegeli.gz",
						".xplane.riegeli", ".pb.gz", ".pb" };
	size_t n;

	base = base ? base + 1 : path;
	if (strcmp(path, "-") == 0)
		return "stdin";
	n = strlen(base);
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (tp_has_suffix(base, suffixes[i]) &&
		    n > strlen(suffixes[i])) {
			n -= strlen(suffixes[i]);
			break;
		}
	return tp_arena_strndup(a, base, n);
}

/* One XSpace decoded on a worker thread. */
struct host_job {
	size_t source;
	struct tp_xspace xs;
	struct tp_arena *arena;
	struct tp_decode_opts opts;
	bool partial;                   /* tp_open_opts.partial           */
	uint64_t max_input;             /* tp_open_opts.max_input         */
	struct tp_damage_list damage;   /* parts skipped (damage.c)       */
	struct tp_error err;
	enum tp_err rc;
};

struct host_pool {
	struct tp_capture *cap;
	struct host_job *jobs;
};

/* A chunked capture: its chunks merged into one XSpace that replaces
 * the file's bytes; damaged regions noted as damage. */
static enum tp_err merge_chunks(struct tp_source *src, const char *shown,
				struct host_job *job)
{
	struct tp_riegeli_opts o = {
		.shown = shown, .max_chunk = job->max_input,
		.drop_pages = src->buf.map != NULL,
		.fd = tp_buffer_reopen(&src->buf, src->path),
	};
	struct tp_riegeli_xspace xs;
	struct tp_riegeli_info info;
	char *first = NULL;   /* the first damaged region, when nothing is read */
	enum tp_err rc;

	/* the file itself, opened again only for the merge (its mappings
	 * hold it after): no descriptor kept per host */
	o.in_place = o.fd >= 0;
	rc = tp_riegeli_merge(src->buf.data, src->buf.size, &o, &xs, &info,
			      &job->err);
	if (o.fd >= 0)
		close(o.fd);
	if (rc != TP_OK)
		return rc;
	src->chunks = info.chunks;
	src->records = info.records;
	src->damaged_regions = info.n_damaged;
	if (!xs.size && info.n_damaged)   /* what went wrong, in the one line */
		first = tp_xasprintf("damaged at byte %llu: %s",
				     (unsigned long long)info.damaged[0].start,
				     info.damaged[0].what);
	for (size_t i = 0; i < info.n_damaged; i++)
		tp_damage_push(&job->damage, shown,
			       tp_xasprintf("Riegeli bytes %llu-%llu",
					    (unsigned long long)info.damaged[i].start,
					    (unsigned long long)info.damaged[i].end),
			       info.damaged[i].start, info.damaged[i].what);
	tp_riegeli_info_release(&info);
	tp_buffer_release(&src->buf);
	src->buf.data = xs.data;
	src->buf.size = xs.size;
	src->buf.map = xs.map;
	src->buf.map_len = xs.map_len;
	src->buf.gaps = xs.gaps;
	src->buf.n_gaps = xs.n_gaps;
	src->buf.gap_fields = xs.gap_fields;
	src->buf.seg_maps = xs.seg_maps;
	src->buf.n_seg_maps = xs.n_seg_maps;
	job->opts.segment_shifts = xs.segment_shifts;
	job->opts.gaps = xs.gaps;
	job->opts.n_gaps = xs.n_gaps;
	job->opts.seg_maps = xs.seg_maps;
	job->opts.n_seg_maps = xs.n_seg_maps;
	if (!xs.size) {
		if (!first)
			return tp_error_set(&job->err, TP_ERR_INPUT,
					    "%s: chunked capture with no XSpace data (%llu chunks, 0 damaged regions)",
					    shown, (unsigned long long)src->chunks);
		if (!src->chunks)
			rc = tp_error_set(&job->err, TP_ERR_INPUT,
					  "%s: chunked capture with no XSpace data: no readable chunk: %s",
					  shown, first);
		else
			rc = tp_error_set(&job->err, TP_ERR_INPUT,
					  "%s: chunked capture with no XSpace data (%llu chunks, %llu damaged regions; the first %s)",
					  shown, (unsigned long long)src->chunks,
					  (unsigned long long)src->damaged_regions, first);
		free(first);
		return rc;
	}
	return TP_OK;
}

static void decode_host(void *ctx, size_t i, unsigned worker)
{
	struct host_pool *pool = ctx;
	struct host_job *job = &pool->jobs[i];
	struct tp_source *src = &pool->cap->sources[job->source];
	const char *shown = strcmp(src->path, "-") ? src->path : "<stdin>";

	(void)worker;
	job->arena = tp_xmalloc(sizeof(*job->arena));
	tp_arena_init(job->arena);
	if (src->chunked && !src->records) {
		job->rc = merge_chunks(src, shown, job);
		if (job->rc != TP_OK)
			return;
	}
	job->rc = tp_xspace_decode_ex(&job->xs, job->arena, src->buf.data,
				      src->buf.size, shown, &job->opts, &job->err);
	if (job->rc != TP_OK) /* a damaged part goes, the rest is read */
		job->rc = tp_damage_salvage(src, shown, &job->xs, job->arena,
					    &job->opts, job->partial, &job->damage,
					    &job->err);
}

static void push_host(struct tp_capture *cap, struct host_job *job)
{
	const struct tp_source *src = &cap->sources[job->source];
	struct tp_host *h;

	cap->hosts = tp_xgrow(cap->hosts, &cap->cap_hosts, cap->n_hosts + 1,
			      sizeof(*cap->hosts));
	h = &cap->hosts[cap->n_hosts];
	memset(h, 0, sizeof(*h));
	h->source = job->source;
	h->xs = job->xs;
	h->arena = job->arena;
	job->arena = NULL;
	if (h->xs.n_hostnames && h->xs.hostnames[0].len)
		h->name = tp_arena_strndup(&cap->arena, h->xs.hostnames[0].ptr,
					   h->xs.hostnames[0].len);
	else
		h->name = host_name_from_path(&cap->arena, src->path);
	cap->n_hosts++;
	for (size_t i = 0; i < job->damage.n; i++) {
		cap->damage = tp_xgrow(cap->damage, &cap->cap_damage, cap->n_damage + 1,
				       sizeof(*cap->damage));
		cap->damage[cap->n_damage++] = job->damage.v[i];
	}
	job->damage.n = 0;   /* moved */
	tp_capture_add_embedded_modules(cap, cap->n_hosts - 1);
}

static void free_job_arena(struct host_job *job)
{
	if (job->arena) {
		tp_arena_release(job->arena);
		free(job->arena);
		job->arena = NULL;
	}
}

enum tp_err tp_capture_flush_hosts(struct tp_capture *cap,
				   const struct tp_open_opts *opts,
				   struct tp_error *err)
{
	struct host_pool pool = { .cap = cap };
	size_t n = cap->n_pending;
	enum tp_err rc = TP_OK;

	if (!n)
		return TP_OK;
	pool.jobs = tp_xcalloc(n, sizeof(*pool.jobs));
	for (size_t i = 0; i < n; i++) {
		struct host_job *job = &pool.jobs[i];

		job->source = cap->pending[i];
		job->opts.defer_min_bytes = opts ? opts->defer_min_bytes : 0;
		job->partial = opts && opts->partial;
		job->max_input = opts ? opts->max_input : TP_DEFAULT_MAX_INPUT;
		/* a mapped file reads back the same; a heap copy would not */
		job->opts.drop_pages = cap->sources[job->source].buf.map != NULL;
		/* several hosts: one thread each, not threads of threads */
		job->opts.threads = n > 1 ? 1 : 0;
	}
	cap->n_pending = 0;
	tp_parallel_for(n, 0, decode_host, &pool);
	for (size_t i = 0; i < n; i++) {
		struct host_job *job = &pool.jobs[i];

		if (rc == TP_OK && job->rc != TP_OK) {
			rc = job->rc;
			*err = job->err;
		}
		if (rc == TP_OK)
			push_host(cap, job);
		free_job_arena(job);
		tp_damage_list_release(&job->damage);
	}
	free(pool.jobs);
	return rc;
}

/* An XSpace waits for the others of its run: see tp_capture_flush_hosts. */
static enum tp_err add_host(struct tp_capture *cap, size_t source)
{
	cap->pending = tp_xgrow(cap->pending, &cap->cap_pending,
				cap->n_pending + 1, sizeof(*cap->pending));
	cap->pending[cap->n_pending++] = source;
	return TP_OK;
}

/* Kind from the file name, for bytes that could be either message. */
/* A failure at this source comes after the hosts before it: one of them
 * failing to decode is the error to report, as if decoded one by one. */
static enum tp_err flush_then(struct tp_capture *cap,
			      const struct tp_open_opts *opts, enum tp_err rc,
			      struct tp_error *err)
{
	struct tp_error saved = *err;

	if (tp_capture_flush_hosts(cap, opts, err) != TP_OK)
		return err->code;
	*err = saved;
	return rc;
}

/* The stream of path a reader began already, or NULL. */
static const struct tp_stream_head *stream_head(const struct tp_open_opts *o, const char *path)
{
	for (size_t i = 0; i < o->n_heads; i++)
		if (strcmp(o->heads[i].path, path) == 0)
			return &o->heads[i];
	return NULL;
}

/* A file that is a Riegeli file damaged or cut in its first 64 bytes
 * (most of what is there is the signature's, or it is named so and its
 * bytes are no capture): TP_ERR_INPUT saying so, not decoded as an
 * XSpace (whose messages about planes would not apply); else TP_OK. */
static enum tp_err riegeli_head(const struct tp_source *src, const char *path,
				const char *shown, int kind, struct tp_error *err)
{
	size_t n = src->buf.size < TP_RIEGELI_SIGNATURE_BYTES ? src->buf.size
							       : TP_RIEGELI_SIGNATURE_BYTES;
	size_t diff, m = tp_riegeli_signature_match(src->buf.data, src->buf.size, &diff);
	bool near = n >= 8 && m * 4 >= n * 3;
	bool named = strcmp(path, "-") && strstr(path, ".riegeli") && !kind;

	if (src->chunked || !n || (!near && !named))
		return TP_OK;
	if (diff == n)   /* every byte there is the signature's */
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: Riegeli file cut short in its signature (%zu of its %d fixed first bytes; a writer that just started?)",
				    shown, n, TP_RIEGELI_SIGNATURE_BYTES);
	if (near)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: damaged Riegeli file: its %d-byte signature differs at byte %zu (%zu of its first %zu bytes are the signature's)",
				    shown, TP_RIEGELI_SIGNATURE_BYTES, diff, m, n);
	return tp_error_set(err, TP_ERR_INPUT,
			    "%s: not a Riegeli file: its %d-byte signature differs at byte %zu (the name says .riegeli; the bytes are no capture)",
			    shown, TP_RIEGELI_SIGNATURE_BYTES, diff);
}

enum tp_err tp_capture_add_file(struct tp_capture *cap, const char *path,
				const struct tp_open_opts *opts, bool in_dump,
				struct tp_error *err)
{
	struct tp_source *src;
	const char *shown = strcmp(path, "-") ? path : "<stdin>";
	enum tp_err rc;
	int kind;

	cap->sources = tp_xgrow(cap->sources, &cap->cap_sources,
				cap->n_sources + 1, sizeof(*cap->sources));
	src = &cap->sources[cap->n_sources];
	memset(src, 0, sizeof(*src));
	src->path = tp_arena_strdup(&cap->arena, path);
	tp_file_ids_add(opts->read, path);
	rc = tp_buffer_load_head(&src->buf, path, stream_head(opts, path), opts->max_input,
				 &src->gzip,
			    &src->file_bytes, err);
	if (rc != TP_OK)
		return flush_then(cap, opts, rc, err);
	cap->n_sources++;
	src->chunked = tp_riegeli_sniff(src->buf.data, src->buf.size);
	kind = src->chunked ? 'X' : tp_sniff(src->buf.data, src->buf.size);
	if (riegeli_head(src, path, shown, kind, err) != TP_OK)
		return flush_then(cap, opts, TP_ERR_INPUT, err);
	if (!kind) {
		kind = tp_capture_kind_from_name(path);
		src->kind_from_name = true;
	}
	if (!kind) {
		struct tp_wire w;
		struct tp_field f;

		struct tp_error bad = { 0 };

		tp_wire_init(&w, src->buf.data, src->buf.data, src->buf.size);
		while (tp_wire_next(&w, &f) > 0)
			;
		if (w.error)
			tp_error_set(&bad, TP_ERR_INPUT,
				     "%s: not a profile capture (not protobuf: %s at byte %zu)",
				     shown, w.error, w.error_offset);
		else
			tp_error_set(&bad, TP_ERR_INPUT,
				     "%s: not a profile capture (neither an XSpace nor an HloProto)",
				     shown);
		*err = bad;
		return flush_then(cap, opts, TP_ERR_INPUT, err);
	}
	if (kind == 'X') {
		src->kind = TP_SOURCE_XSPACE;
		return add_host(cap, cap->n_sources - 1);
	}
	src->kind = in_dump || strstr(path, ".hlo.pb") ? TP_SOURCE_XLA_DUMP
							: TP_SOURCE_HLO_PROTO;
	/* modules come after the hosts before them, as given */
	rc = tp_capture_flush_hosts(cap, opts, err);
	if (rc != TP_OK)
		return rc;
	return tp_capture_add_file_module(cap, cap->n_sources - 1, err);
}
