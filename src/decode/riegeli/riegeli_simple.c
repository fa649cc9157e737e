/*
 * riegeli_simple.c - a simple chunk's two buffers decoded and its
 * records handed out. The buffers are decompressed whole, or, for Brotli
 * and Zstd, as the chunk's data is read: a run between block headers at
 * a time, straight from the input, hashed as it goes, so that the
 * compressed bytes are never gathered into memory (the gathered copy was
 * a fifth of a compressed capture's peak, docs/performance.md). Only
 * what reads cleanly is taken this way: anything else (a hash that
 * disagrees, a buffer that does not decompress, framing out of bounds)
 * is left to the gathering reader, which says what is wrong as it always
 * has. The decoders allocate through riegeli_buf.c's rg_codec_alloc.
 * It calls nothing else of the folder but riegeli_buf.c's helpers and
 * riegeli_hash.c.
 */
#include "riegeli_internal.h"
#include "tpuprof/decode/wire.h"

#include <brotli/decode.h>
#include <stdlib.h>
#include <snappy-c.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_createDCtx_advanced: exported by
				    * the shared library too */
#include <zstd.h>

static const ZSTD_customMem zstd_mem = { rg_codec_alloc, rg_codec_free, NULL };

/* A Zstd context on the decoders' allocator, made on first use. */
static ZSTD_DCtx *zstd_of(ZSTD_DCtx **z)
{
	if (!*z)
		*z = ZSTD_createDCtx_advanced(zstd_mem);
	return *z;
}

void rg_zstd_free(ZSTD_DCtx *z)
{
	ZSTD_freeDCtx(z);
}

/* n bytes of Brotli into out, exactly want of them (bytes after the end
 * of the stream left, as BrotliDecoderDecompress leaves them); the
 * decoder on the decoders' allocator. */
static bool brotli_whole(const uint8_t *p, size_t n, uint8_t *out, size_t want)
{
	BrotliDecoderState *b = BrotliDecoderCreateInstance(rg_codec_alloc,
							   rg_codec_free, NULL);
	BrotliDecoderResult r;
	size_t room = want;

	if (!b)
		return false;
	r = BrotliDecoderDecompressStream(b, &n, &p, &room, &out, NULL);
	BrotliDecoderDestroyInstance(b);
	return r == BROTLI_DECODER_RESULT_SUCCESS && room == 0;
}

const char *rg_decompress(uint8_t type, const uint8_t *p, size_t n,
			  uint64_t want, const uint8_t **view,
			  struct rg_big *own, ZSTD_DCtx **zstd)
{
	const uint8_t *q = p;
	uint64_t size = n;
	uint8_t *out;

	*view = p;
	if (type != 0 && !tp_wire_varint(&q, p + n, &size))
		return "bad decompressed size";
	n -= (size_t)(q - p);
	if (size != want)
		return "decompressed size disagrees with the chunk header";
	if (type == 0)
		return n == want ? NULL : "buffer size disagrees with the chunk header";
	rg_big_reserve(own, (size_t)want);
	out = own->p;
	*view = out;
	if (type == 'b')
		return brotli_whole(q, n, out, (size_t)want) ? NULL :
		       "Brotli data does not decompress";
	if (type == 'z') {
		size_t got;

		if (!zstd_of(zstd))
			return "Zstd data does not decompress";
		ZSTD_DCtx_reset(*zstd, ZSTD_reset_session_and_parameters);
		got = ZSTD_decompressDCtx(*zstd, out, want, q, n);

		if (ZSTD_isError(got) || got != want)
			return "Zstd data does not decompress";
		return NULL;
	}
	if (type == 's') {
		size_t got = want;

		if (snappy_uncompress((const char *)q, n, (char *)out, &got) !=
		    SNAPPY_OK || got != want)
			return "Snappy data does not decompress";
		return NULL;
	}
	return "unknown compression type";
}

const char *rg_decode_sizes(uint8_t type, const uint8_t *p, size_t n,
			    uint64_t num_records, uint64_t max,
			    const uint8_t **sizes, uint64_t *sizes_len,
			    struct rg_big *own, ZSTD_DCtx **zstd)
{
	/* a compressed buffer's decoded length is only known by decoding it */
	if (type != 0) {
		const uint8_t *q = p;

		if (!tp_wire_varint(&q, p + n, sizes_len))
			return "bad sizes buffer";
	} else {
		*sizes_len = n;
	}
	/* every record's size takes 1 to 10 bytes: nothing is allocated
	 * for more records, or a longer sizes buffer, than that allows */
	if (*sizes_len > num_records * 10 + 10 || *sizes_len > max)
		return "sizes buffer too long for its records";
	if (num_records > *sizes_len)
		return "more records than record sizes";
	return rg_decompress(type, p, n, *sizes_len, sizes, own, zstd);
}

/* The chunk's data as pieces: the runs between block headers, read
 * through the window (or where they lie in the mapping), each hashed
 * when taken; the input's pages dropped behind. A piece is used up
 * before the next is taken, a block on: the window keeps it. */
struct source {
	const struct rg_stream_in *in;
	uint64_t pos, left, dropped;   /* file position; data bytes to come */
	const uint8_t *p;              /* the piece's bytes not yet used    */
	size_t n;
	struct rg_hash hash;
};

/* Pages dropped every this many bytes read (a chunk's compressed bytes
 * are then resident a megabyte at a time). */
#define DROP_EVERY ((uint64_t)1 << 20)

/* The next piece, once the current one is used up; false at the data's
 * end (or a run past the file's: chunk_header has ruled that out). */
static bool fill(struct source *s)
{
	uint64_t take;

	if (s->n)
		return true;
	if (!s->left)
		return false;
	if (s->in->drop && s->pos - s->dropped >= DROP_EVERY) {
		rg_drop(s->in->file, s->dropped, s->pos);
		s->dropped = s->pos;
	}
	take = rg_data_run(&s->pos, s->left);
	if (s->pos > s->in->size || take > s->in->size - s->pos)
		return false;
	s->p = s->in->window ? rg_window_at(s->in->window, s->pos) :
			       s->in->file + s->pos;
	s->n = (size_t)take;
	rg_hash_add(&s->hash, s->p, s->n);
	s->pos += take;
	s->left -= take;
	return true;
}

static bool take_byte(struct source *s, uint8_t *b)
{
	if (!fill(s))
		return false;
	*b = *s->p++;
	s->n--;
	return true;
}

/* A varint of at most ten bytes, across pieces. */
static bool take_varint(struct source *s, uint64_t *v)
{
	uint8_t b;

	*v = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (!take_byte(s, &b))
			return false;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return shift < 63 || b <= 1;
	}
	return false;
}

/* n bytes into dst, across pieces. */
static bool take_bytes(struct source *s, uint8_t *dst, uint64_t n)
{
	while (n) {
		size_t k;

		if (!fill(s))
			return false;
		k = s->n < n ? s->n : (size_t)n;
		memcpy(dst, s->p, k);
		s->p += k;
		s->n -= k;
		dst += k;
		n -= k;
	}
	return true;
}

/* The rest of the data, Zstd, into out (exactly want bytes): decoded
 * straight into out (a stable output buffer: no window copy). */
static bool stream_zstd(struct source *s, ZSTD_DCtx *z, uint8_t *out,
			uint64_t want)
{
	ZSTD_outBuffer o = { out, (size_t)want, 0 };
	size_t ret = 1;

	ZSTD_DCtx_reset(z, ZSTD_reset_session_only);
	if (ZSTD_isError(ZSTD_DCtx_setParameter(z, ZSTD_d_experimentalParam2, 1)))
		return false;   /* ZSTD_d_stableOutBuffer */
	while (fill(s)) {
		ZSTD_inBuffer i = { s->p, s->n, 0 };
		size_t before = o.pos;

		ret = ZSTD_decompressStream(z, &o, &i);
		if (ZSTD_isError(ret) || (!i.pos && o.pos == before))
			return false;   /* damage, or no way on: more than want */
		s->p += i.pos;
		s->n -= i.pos;
	}
	return ret == 0 && o.pos == want;
}

/* The rest of the data, Brotli, into out (exactly want bytes). */
static bool stream_brotli(struct source *s, uint8_t *out, uint64_t want)
{
	BrotliDecoderState *b = BrotliDecoderCreateInstance(rg_codec_alloc,
							   rg_codec_free, NULL);
	BrotliDecoderResult r = BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT;
	size_t room = (size_t)want;
	uint8_t *next_out = out;

	if (!b)
		return false;
	while (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT && fill(s)) {
		const uint8_t *next_in = s->p;
		size_t avail = s->n;

		r = BrotliDecoderDecompressStream(b, &avail, &next_in, &room,
						  &next_out, NULL);
		s->p = next_in;
		s->n = avail;
	}
	BrotliDecoderDestroyInstance(b);
	return r == BROTLI_DECODER_RESULT_SUCCESS && room == 0;
}

bool rg_stream_chunk(const struct rg_stream_in *in, struct rg_stream_out *out)
{
	struct source s = { .in = in, .pos = in->begin, .left = in->n,
			    .dropped = in->begin };
	uint64_t sizes_size, size;
	uint8_t type;
	bool ok;

	rg_hash_init(&s.hash);
	if (!take_byte(&s, &type) || (type != 'b' && type != 'z') ||
	    !take_varint(&s, &sizes_size) || sizes_size > s.left + s.n ||
	    sizes_size > in->max)
		return false;
	/* the sizes, small: gathered, then decompressed whole */
	rg_big_reserve(out->packed, (size_t)sizes_size);
	if (!take_bytes(&s, out->packed->p, sizes_size) ||
	    rg_decode_sizes(type, out->packed->p, (size_t)sizes_size,
			    in->num_records, in->max, &out->sizes,
			    &out->sizes_len, out->sizes_own, out->zstd))
		return false;
	/* the records, as they are read */
	if (!take_varint(&s, &size) || size != in->decoded_size)
		return false;
	rg_big_reserve(out->values_own, (size_t)size);
	out->values = out->values_own->p;
	if (type == 'z') {
		if (!zstd_of(out->zstd))
			return false;
		ok = stream_zstd(&s, *out->zstd, out->values_own->p, size);
	} else {
		ok = stream_brotli(&s, out->values_own->p, size);
	}
	/* every byte used, and the data as its header hashed it */
	return ok && !s.n && !s.left && rg_hash_end(&s.hash) == in->hash;
}

const char *rg_hand_records(const struct rg_decoded *d, tp_riegeli_record_fn fn,
			    void *ctx, enum tp_err *rc, struct tp_error *err)
{
	const char *bad = NULL;
	uint64_t at = 0;
	uint64_t *lens = tp_xcalloc(d->num_records ? d->num_records : 1,
				    sizeof(*lens));

	for (uint64_t i = 0, total = 0; !bad && i < d->num_records; i++) {
		const uint8_t *s = d->sizes + at;

		if (!tp_wire_varint(&s, d->sizes + d->sizes_len, &lens[i]) ||
		    lens[i] > d->decoded_size - total)
			bad = "record sizes run past the chunk's records";
		else
			total += lens[i];
		at = (uint64_t)(s - d->sizes);
		if (!bad && i + 1 == d->num_records &&
		    (total != d->decoded_size || at != d->sizes_len))
			bad = "record sizes disagree with the chunk header";
	}
	if (!bad && d->num_records == 0 && (d->sizes_len || d->decoded_size))
		bad = "record sizes disagree with the chunk header";
	at = 0;
	for (uint64_t i = 0; !bad && *rc == TP_OK && i < d->num_records; i++) {
		*rc = fn(ctx, d->values + at, (size_t)lens[i], d->begin, err);
		at += lens[i];
	}
	free(lens);
	return bad;
}
