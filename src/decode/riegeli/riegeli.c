/*
 * riegeli.c - the Riegeli records container, read chunk by chunk (see
 * riegeli.h and docs/riegeli.md for the format and what is checked).
 *
 * Positions are the file's own bytes, block headers included: a chunk's
 * header and data are gathered around the block headers that interrupt
 * them into one buffer (rg_big, kept for the next chunk), decompressed,
 * handed out record by record, so memory holds one chunk; for the merge
 * (an origin), riegeli_compact.c reads uncompressed chunks in place, and
 * riegeli_simple.c decodes Brotli and Zstd chunks as they are read.
 */
#include "tpuprof/decode/riegeli.h"
#include "tpuprof/util/util.h"
#include "tpuprof/decode/wire.h"

#include "riegeli_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHUNK_HEADER 40u

static const uint8_t signature[TP_RIEGELI_SIGNATURE_BYTES] = {
	0x83, 0xaf, 0x70, 0xd1, 0x0d, 0x88, 0x4a, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0,
	0x40, 0, 0, 0, 0, 0, 0, 0, 0x91, 0xba, 0xc2, 0x3c, 0x92, 0x87, 0xe1, 0xa9,
	0, 0, 0, 0, 0, 0, 0, 0, 0xe1, 0x9f, 0x13, 0xc0, 0xe9, 0xb1, 0xc3, 0x72,
	0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

bool tp_riegeli_sniff(const uint8_t *data, size_t size)
{
	return size >= sizeof(signature) &&
	       memcmp(data, signature, sizeof(signature)) == 0;
}

bool tp_riegeli_maybe(const uint8_t *data, size_t n)
{
	if (n > sizeof(signature))
		n = sizeof(signature);
	return memcmp(data, signature, n) == 0;
}

size_t tp_riegeli_signature_match(const uint8_t *data, size_t size,
				  size_t *first_diff)
{
	size_t n = size < sizeof(signature) ? size : sizeof(signature), m = 0;

	*first_diff = n;
	for (size_t i = 0; i < n; i++) {
		if (data[i] == signature[i])
			m++;
		else if (*first_diff == n)
			*first_diff = i;
	}
	return m;
}

void tp_riegeli_info_release(struct tp_riegeli_info *info)
{
	free(info->damaged);
	memset(info, 0, sizeof(*info));
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* pos plus n bytes of chunk, counting the block headers crossed. */
static uint64_t add_with_overhead(uint64_t pos, uint64_t n)
{
	return pos + n + ((n + (pos + RG_USABLE - 1) % RG_BLOCK) / RG_USABLE) *
			 RG_BLOCK_HEADER;
}

static uint64_t round_up_chunk_boundary(uint64_t pos)
{
	uint64_t remaining = RG_BLOCK - 1 - (pos + RG_BLOCK - 1) % RG_BLOCK;

	return pos + (remaining > RG_USABLE - 1 ? remaining - (RG_USABLE - 1) : 0);
}

/* Copies n bytes of chunk from file position *pos, skipping block
 * headers; false when the file ends first. With drop (a file mapping),
 * the pages copied are dropped every few MB as it goes: a chunk's bytes
 * are then resident once (the copy), not twice. */
static bool gather(const uint8_t *data, uint64_t size, uint64_t *pos,
		   uint8_t *dst, uint64_t n, bool drop)
{
	uint64_t p = *pos, dropped = *pos;

	while (n) {
		if (drop && p - dropped >= ((uint64_t)4 << 20)) {
			rg_drop(data, dropped, p);
			dropped = p;
		}
		uint64_t take = rg_data_run(&p, n);

		if (p > size || take > size - p)
			return false;
		memcpy(dst, data + p, take);
		dst += take;
		p += take;
		n -= take;
	}
	if (drop)
		rg_drop(data, dropped, p);
	*pos = p;
	return true;
}

/* gather's work done by the kernel from the file open as fd (the one
 * data maps): the chunk's runs read into dst, the block headers between
 * them into a scratch buffer, up to 1,024 runs a call. The file's pages
 * are then never mapped into the process during the merge, so there is
 * nothing to fault in or drop (docs/riegeli.md). False when a read
 * falls short: gather from the mapping then. */
static bool gather_read(int fd, uint64_t size, uint64_t pos, uint8_t *dst,
			uint64_t n)
{
	enum { MAX_IOV = 1024 };
	struct iovec iov[MAX_IOV];
	uint8_t headers[RG_BLOCK_HEADER];

	while (n) {
		uint64_t at = pos, want = 0;
		int k = 0;
		ssize_t got;

		while (n && k < MAX_IOV - 1) {
			uint64_t p = pos, take = rg_data_run(&p, n);

			if (p > size || take > size - p)
				return false;
			if (p > pos) {     /* a block header first */
				iov[k++] = (struct iovec){ headers, (size_t)(p - pos) };
				want += p - pos;
			}
			iov[k++] = (struct iovec){ dst, (size_t)take };
			want += take;
			dst += take;
			pos = p + take;
			n -= take;
		}
		got = preadv(fd, iov, k, (off_t)at);
		if (got < 0 || (uint64_t)got != want)
			return false;
	}
	return true;
}

static void add_damage(struct tp_riegeli_info *info, uint64_t start,
		       uint64_t end, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add_damage(struct tp_riegeli_info *info, uint64_t start,
		       uint64_t end, const char *fmt, ...)
{
	struct tp_riegeli_damage *d;
	va_list ap;

	info->damaged = tp_xgrow(info->damaged, &info->cap_damaged,
				 info->n_damaged + 1, sizeof(*info->damaged));
	d = &info->damaged[info->n_damaged++];
	d->start = start;
	d->end = end;
	va_start(ap, fmt);
	vsnprintf(d->what, sizeof(d->what), fmt, ap);
	va_end(ap);
}

/* After a chunk header that cannot be trusted: the next chunk, found
 * through the first valid block header after begin; size when none. */
static uint64_t recover(const uint8_t *data, uint64_t size, uint64_t begin)
{
	for (uint64_t b = (begin / RG_BLOCK + 1) * RG_BLOCK;
	     b + RG_BLOCK_HEADER <= size; b += RG_BLOCK) {
		uint64_t prev = le64(data + b + 8), next = le64(data + b + 16);

		if (le64(data + b) != rg_hash_bytes(data + b + 8, 16))
			continue;
		if (prev == 0)
			return b;
		if (next > RG_BLOCK_HEADER && b + next > begin)
			return b + next;
	}
	return size;
}

struct chunk {
	uint64_t begin, end, data_begin, data_size, data_hash;
	uint64_t num_records, decoded_size;
	uint8_t type;
};

/* The reader's buffers, kept from chunk to chunk, each grown to the
 * largest: a chunk's data as read (or, streamed, its compressed sizes),
 * and its two buffers decompressed; Zstd's context. */
struct rg_buffers {
	struct rg_big data, sizes, values;
	struct ZSTD_DCtx_s *zstd;
	struct rg_window window;           /* uncompressed chunks' blocks */
	struct rg_compact compact;         /* and their records          */
};

static void buffers_free(struct rg_buffers *b)
{
	rg_big_free(&b->data);
	rg_big_free(&b->sizes);
	rg_big_free(&b->values);
	rg_zstd_free(b->zstd);
	b->zstd = NULL;
	rg_window_free(&b->window);
	rg_compact_release(&b->compact);
	rg_codec_release();
}

/* A simple chunk's decoded buffers handed out (riegeli_simple.c), the
 * merge told none of it lies in place. */
static const char *hand_records(const struct chunk *c, const uint8_t *sizes,
				uint64_t sizes_len, const uint8_t *values,
				tp_riegeli_record_fn fn, void *ctx,
				struct rg_origin *origin, enum tp_err *rc,
				struct tp_error *err)
{
	struct rg_decoded d = { sizes, values, sizes_len, c->num_records,
				c->decoded_size, c->begin };

	if (origin)
		*origin = (struct rg_origin){ .data_begin = c->data_begin };
	return rg_hand_records(&d, fn, ctx, rc, err);
}

/* A simple chunk's records, handed to fn; a message for damage, or
 * NULL with *rc the callback's verdict. */
static const char *simple_chunk(const struct chunk *c, const uint8_t *d,
				uint64_t max, tp_riegeli_record_fn fn, void *ctx,
				struct rg_origin *origin, struct rg_buffers *bufs,
				enum tp_err *rc, struct tp_error *err)
{
	const uint8_t *q = d + 1, *end = d + c->data_size;
	uint64_t sizes_size, sizes_len;
	const uint8_t *sizes = NULL, *values = NULL;
	const char *bad;

	*rc = TP_OK;
	if (c->data_size < 1 || !tp_wire_varint(&q, end, &sizes_size) ||
	    sizes_size > (uint64_t)(end - q))
		return "bad simple chunk framing";
	bad = rg_decode_sizes(d[0], q, (size_t)sizes_size, c->num_records, max,
			      &sizes, &sizes_len, &bufs->sizes, &bufs->zstd);
	if (!bad)
		bad = rg_decompress(d[0], q + sizes_size,
				    (size_t)(end - q - sizes_size), c->decoded_size,
				    &values, &bufs->values, &bufs->zstd);
	return bad ? bad : hand_records(c, sizes, sizes_len, values, fn, ctx,
					origin, rc, err);
}

/* An uncompressed chunk of a mapped input merged without gathering it
 * (riegeli_compact.c): false when it is not one (compressed, or not
 * what the compactor reads), to be gathered then. Else its records
 * handed to fn with *origin naming the runs left in place; a message
 * for damage, or NULL with *rc the callback's verdict. */
static bool compacted(const uint8_t *data, uint64_t size,
		      const struct tp_riegeli_opts *opts, const struct chunk *c,
		      tp_riegeli_record_fn fn, void *ctx,
		      struct rg_origin *origin, struct rg_buffers *bufs,
		      const char **bad, enum tp_err *rc, struct tp_error *err)
{
	uint64_t first = rg_past_header(c->data_begin), hash, at = 0;
	struct rg_compact_in in = {
		.file = data, .begin = c->data_begin, .n = c->data_size,
		.num_records = c->num_records, .decoded_size = c->decoded_size,
		.page = (uint64_t)sysconf(_SC_PAGESIZE), .drop = opts->drop_pages,
		.window = &bufs->window };
	struct rg_compact *out = &bufs->compact;
	bool ok;

	*bad = NULL;
	*rc = TP_OK;
	if (!origin || !opts->in_place || c->type != 'r' || !c->data_size ||
	    first >= size || data[first] != 0)
		return false;
	/* the file read, not mapped: the view maps its pages later, once */
	rg_window_open(&bufs->window, data, size, opts->fd);
	ok = rg_compact_chunk(&in, out, &hash);
	if (ok && hash != c->data_hash)
		*bad = "chunk data hash mismatch";
	*origin = (struct rg_origin){ c->data_begin, out->placed, out->n_placed };
	for (size_t i = 0; ok && !*bad && *rc == TP_OK && i < out->n_recs; i++) {
		/* records all empty: nothing was written, recs.p is NULL */
		*rc = fn(ctx, out->recs.p ? out->recs.p + at : (const uint8_t *)"",
			 (size_t)out->lens[i], c->begin, err);
		at += out->lens[i];
	}
	*origin = (struct rg_origin){ 0 };
	return ok;
}

/* A Brotli or Zstd simple chunk decoded as its data is read, never
 * gathered (riegeli_simple.c): false when it is not one, or does not
 * read cleanly (to be gathered then, which says what is wrong). Else its
 * records handed to fn; a message for damage in the record sizes, or
 * NULL with *rc the callback's verdict. */
static bool streamed(const uint8_t *data, uint64_t size,
		     const struct tp_riegeli_opts *opts, const struct chunk *c,
		     tp_riegeli_record_fn fn, void *ctx, struct rg_origin *origin,
		     struct rg_buffers *bufs, const char **bad, enum tp_err *rc,
		     struct tp_error *err)
{
	uint64_t first = rg_past_header(c->data_begin);
	struct rg_stream_in in = {
		.file = data, .size = size, .begin = c->data_begin,
		.n = c->data_size, .num_records = c->num_records,
		.decoded_size = c->decoded_size, .hash = c->data_hash,
		.max = opts->max_chunk, .drop = opts->drop_pages,
		.window = opts->in_place ? &bufs->window : NULL };
	struct rg_stream_out out = { .packed = &bufs->data,
				     .sizes_own = &bufs->sizes,
				     .values_own = &bufs->values,
				     .zstd = &bufs->zstd };

	*bad = NULL;
	*rc = TP_OK;
	if (c->type != 'r' || !c->data_size || first >= size ||
	    (data[first] != 'b' && data[first] != 'z'))
		return false;
	if (in.window)   /* read, not mapped, as an uncompressed chunk is */
		rg_window_open(in.window, data, size, opts->fd);
	if (!rg_stream_chunk(&in, &out))
		return false;
	*bad = hand_records(c, out.sizes, out.sizes_len, out.values, fn, ctx,
			    origin, rc, err);
	return true;
}

/* A chunk's data gathered into the reader's buffer (every block header
 * taken out), its hash checked and, a simple chunk, its records handed
 * to fn; a message for damage, or NULL with *rc the callback's verdict. */
static const char *gathered(const uint8_t *data, uint64_t size,
			    const struct tp_riegeli_opts *opts,
			    const struct chunk *c, tp_riegeli_record_fn fn,
			    void *ctx, struct rg_origin *origin,
			    struct rg_buffers *bufs, enum tp_err *rc,
			    struct tp_error *err)
{
	uint64_t pos = c->data_begin;
	uint8_t *d;

	*rc = TP_OK;
	/* one buffer for every chunk's data, grown to the largest: fresh
	 * pages for each chunk cost more than the copy */
	rg_big_reserve(&bufs->data, (size_t)c->data_size);
	d = bufs->data.p;
	if (!(opts->in_place &&
	      gather_read(opts->fd, size, pos, d, c->data_size)) &&
	    !gather(data, size, &pos, d, c->data_size, opts->drop_pages))
		return "file cut short inside chunk data";
	if (rg_hash_bytes(d, c->data_size) != c->data_hash)
		return "chunk data hash mismatch";
	if (c->type == 'r')
		return simple_chunk(c, d, opts->max_chunk, fn, ctx, origin, bufs,
				    rc, err);
	if (c->type != 's' && c->type != 'm' && c->type != 'p')
		return "chunk of unknown type";
	return NULL;
}

/* Reads the chunk at c->begin: header checked, end computed. A message
 * when the header cannot be trusted (*cut: the file ends first). */
static const char *chunk_header(const uint8_t *data, uint64_t size,
				struct chunk *c, bool *cut)
{
	uint8_t h[CHUNK_HEADER];
	uint64_t pos = c->begin, a, b;

	*cut = false;
	if (!gather(data, size, &pos, h, CHUNK_HEADER, false)) {
		*cut = true;
		return "file cut short inside a chunk header";
	}
	if (le64(h) != rg_hash_bytes(h + 8, 32))
		return "chunk header hash mismatch";
	c->data_begin = pos;
	c->data_size = le64(h + 8);
	c->data_hash = le64(h + 16);
	c->type = h[24];
	c->num_records = le64(h + 24) >> 8;
	c->decoded_size = le64(h + 32);
	if (c->data_size > size) {
		*cut = true;
		return "file cut short: the chunk runs past its end";
	}
	a = add_with_overhead(c->begin, CHUNK_HEADER + c->data_size);
	b = round_up_chunk_boundary(c->begin + c->num_records);
	c->end = a > b ? a : b;
	if (c->num_records > size || c->end > size) {
		*cut = true;
		return "file cut short: the chunk runs past its end";
	}
	return NULL;
}

enum tp_err tp_riegeli_read(const uint8_t *data, size_t size,
			    const struct tp_riegeli_opts *opts,
			    tp_riegeli_record_fn fn, void *ctx,
			    struct tp_riegeli_info *info, struct tp_error *err)
{
	return rg_read(data, size, opts, fn, ctx, info, NULL, err);
}

enum tp_err rg_read(const uint8_t *data, size_t size,
		    const struct tp_riegeli_opts *opts,
		    tp_riegeli_record_fn fn, void *ctx,
		    struct tp_riegeli_info *info, struct rg_origin *origin,
		    struct tp_error *err)
{
	uint64_t pos = 0;
	struct rg_buffers bufs = { 0 };

	memset(info, 0, sizeof(*info));
	if (!tp_riegeli_sniff(data, size))
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: not a Riegeli file (no signature)",
				    opts->shown);
	while (pos < size) {
		struct chunk c = { .begin = pos };
		const char *bad;
		bool cut;
		enum tp_err rc = TP_OK;

		bad = chunk_header(data, size, &c, &cut);
		if (bad && cut) {
			add_damage(info, pos, size, "%s", bad);
			break;
		}
		if (bad) {
			pos = recover(data, size, c.begin);
			add_damage(info, c.begin, pos, "%s", bad);
			continue;
		}
		if (c.type == 't' || (c.type == 'r' &&
				      c.decoded_size > opts->max_chunk))
			buffers_free(&bufs);
		if (c.type == 't')
			return tp_error_set(err, TP_ERR_INPUT,
					    "%s: transposed Riegeli chunk at byte %llu: not supported (captures are written in simple chunks)",
					    opts->shown,
					    (unsigned long long)c.begin);
		if (c.type == 'r' && c.decoded_size > opts->max_chunk)
			return tp_error_set(err, TP_ERR_INPUT,
					    "%s: Riegeli chunk at byte %llu decodes to %llu bytes, over the input limit of %llu (--max-input)",
					    opts->shown,
					    (unsigned long long)c.begin,
					    (unsigned long long)c.decoded_size,
					    (unsigned long long)opts->max_chunk);
		if (!compacted(data, size, opts, &c, fn, ctx, origin,
			       &bufs, &bad, &rc, err) &&
		    !streamed(data, size, opts, &c, fn, ctx, origin, &bufs, &bad,
			      &rc, err))
			bad = gathered(data, size, opts, &c, fn, ctx, origin,
				       &bufs, &rc, err);
		if (!bad && rc == TP_OK && c.type == 'r') {
			info->chunks++;
			info->records += c.num_records;
		}
		if (rc != TP_OK) {
			buffers_free(&bufs);
			return rc;
		}
		if (bad)
			add_damage(info, c.begin, c.end, "%s", bad);
		if (opts->drop_pages)
			rg_drop(data, c.begin, c.end);
		pos = c.end;
	}
	buffers_free(&bufs);
	return TP_OK;
}
