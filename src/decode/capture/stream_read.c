/*
 * stream_read.c - reading inputs that are not regular files (standard
 * input, pipes, FIFOs, character devices, sockets) and inflating gzip,
 * from a mapped file or from such a stream as it is read. Streams are
 * checked as they arrive (stream_check.c), so /dev/zero, /dev/urandom or
 * a stream of text is refused after its first bytes, not after
 * --max-input of them; inflated bytes are checked too, so a gzip bomb
 * piped in costs what its first megabyte costs.
 */
#include "stream_read.h"

#include "tpuprof/decode/riegeli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tpuprof/util/util.h"

#define CHUNK (1u << 20)

/* Any XSpace or HloProto starts with a tag: field >= 1, wire type
 * varint, fixed64, length-delimited or fixed32. */
static bool plausible_first_tag(uint8_t b)
{
	unsigned type = b & 7;

	return (b >> 3) != 0 && (type == 0 || type == 1 || type == 2 || type == 5);
}

/* Reads into p[0..want) what the stream gives in one read(). */
static ssize_t read_some(int fd, uint8_t *p, size_t want)
{
	ssize_t n;

	do
		n = read(fd, p, want);
	while (n < 0 && errno == EINTR);
	return n;
}

static enum tp_err read_error(const char *shown, struct tp_error *err)
{
	return tp_error_set(err, TP_ERR_INPUT, "%s: cannot read: %s", shown, strerror(errno));
}

/* Up to want bytes into p (*got 0 at the end), or the read error. */
static enum tp_err read_into(int fd, uint8_t *p, size_t want, const char *shown,
			     size_t *got, struct tp_error *err)
{
	ssize_t n = read_some(fd, p, want);

	*got = n > 0 ? (size_t)n : 0;
	return n < 0 ? read_error(shown, err) : TP_OK;
}

/* The next piece of compressed input: > 0 bytes, 0 at the end, -1 on a
 * read error (errno). */
static ssize_t pull(struct tp_gz_source *s, const uint8_t **p)
{
	if (s->mem_pos < s->mem_len) {
		size_t n = s->mem_len - s->mem_pos;

		*p = s->mem + s->mem_pos;
		n = n > CHUNK ? CHUNK : n;
		s->mem_pos += n;
		s->total += n;
		return (ssize_t)n;
	}
	if (s->fd < 0)
		return 0;
	if (!s->chunk)
		s->chunk = tp_xmalloc(CHUNK);
	ssize_t n = read_some(s->fd, s->chunk, CHUNK);
	if (n > 0) {
		*p = s->chunk;
		s->total += (uint64_t)n;
	}
	return n;
}

struct inflater {
	z_stream z;
	struct tp_gz_source *src;
	bool eof;
	uint8_t *data;
	size_t len, cap;
};

/* Gives zlib more input when it has none; false on a read error. */
static bool refill(struct inflater *f)
{
	const uint8_t *p = NULL;
	ssize_t n;

	if (f->z.avail_in || f->eof)
		return true;
	n = pull(f->src, &p);
	if (n < 0)
		return false;
	if (n == 0)
		f->eof = true;
	f->z.next_in = (Bytef *)p;
	f->z.avail_in = (uInt)n;
	return true;
}

/* The schema a tpuprof document names near its start ("schema":
 * "tpuprof.report/2"), copied into out; false when none is there. */
static bool tpuprof_schema(const uint8_t *d, size_t len, char *out, size_t size)
{
	static const char key[] = "\"schema\"";
	size_t n = len < 4096 ? len : 4096, i = 0, k = 0;

	while (i + sizeof(key) - 1 <= n && memcmp(d + i, key, sizeof(key) - 1))
		i++;
	if (i + sizeof(key) - 1 > n)
		return false;
	for (i += sizeof(key) - 1; i < n && strchr(" \t\r\n:", d[i]) && d[i]; i++)
		;
	if (i >= n || d[i++] != '"' || n - i < 8 || memcmp(d + i, "tpuprof.", 8))
		return false;
	while (i < n && d[i] != '"' && d[i] >= 0x20 && d[i] < 0x7f && k + 1 < size)
		out[k++] = (char)d[i++];
	out[k] = '\0';
	return true;
}

/* What the inflated bytes so far say: TP_OK to go on, *stop when the
 * check says no capture can go on from here. */
static enum tp_err check_out(struct inflater *f, const char *shown, uint64_t max,
			     struct tp_stream_check *chk, bool *stop,
			     struct tp_error *err)
{
	enum tp_stream_verdict v;

	if (f->len > max)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: gzip data inflates past the limit of %llu bytes (see --max-input)",
				    shown, (unsigned long long)max);
	if (f->len > 0 && !plausible_first_tag(f->data[0]) &&
	    !tp_riegeli_maybe(f->data, f->len)) {
		char schema[48];

		/* Not protobuf from the first byte on (a bomb of zeros,
		 * text): stop now, not at the size limit. tpuprof's own
		 * report, gzipped (a CI artifact), is said to be one. */
		if (tpuprof_schema(f->data, f->len, schema, sizeof(schema)))
			return tp_error_set(err, TP_ERR_INPUT,
					    "%s: a gzipped tpuprof report (schema %s), not a capture: "
					    "gunzip it first (tpuprof reads saved reports as plain JSON)",
					    shown, schema);
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: gzip content is not a profile capture (first byte 0x%02x is no protobuf tag)%s",
				    shown, (unsigned)f->data[0], f->data[0] == '{' || f->data[0] == '[' ?
				    ": JSON, as XProf's tool outputs are; tpuprof reads the *.xplane.pb "
				    "they are made from (the logdir's plugins/profile/RUN/)" : "");
	}
	if (!chk)
		return TP_OK;
	v = tp_stream_check_feed(chk, f->data, f->len);
	if (v == TP_STREAM_BAD)
		*stop = true;
	else if (v != TP_STREAM_MORE)
		return tp_stream_check_error(chk, v, shown, err);
	return TP_OK;
}

/* After the end of a member: another one follows (gzip -d reads them
 * back to back), or the input ends; trailing garbage is ignored. */
static bool next_member(struct inflater *f)
{
	if (!refill(f) || f->z.avail_in == 0 || f->z.next_in[0] != 0x1f)
		return false;
	inflateReset(&f->z);
	return true;
}

static enum tp_err inflate_loop(struct inflater *f, const char *shown, uint64_t max,
				struct tp_stream_check *chk, struct tp_error *err)
{
	bool stop = false;
	int zrc = Z_OK;

	for (;;) {
		if (!refill(f))
			return read_error(shown, err);
		f->data = tp_xgrow(f->data, &f->cap, f->len + CHUNK, 1);
		f->z.next_out = f->data + f->len;
		f->z.avail_out = (uInt)(f->cap - f->len > CHUNK ? CHUNK : f->cap - f->len);
		size_t before = f->z.avail_out;
		zrc = inflate(&f->z, Z_NO_FLUSH);
		f->len += before - f->z.avail_out;
		if (check_out(f, shown, max, chk, &stop, err) != TP_OK)
			return err->code;
		if (stop)
			return TP_OK;   /* the decoder reports what was read */
		if (zrc == Z_STREAM_END) {
			if (next_member(f))
				continue;
			return TP_OK;
		}
		if (zrc == Z_BUF_ERROR && f->z.avail_in == 0 && f->eof)
			break;
		if (zrc != Z_OK && zrc != Z_BUF_ERROR)
			return tp_error_set(err, TP_ERR_INPUT,
					    "%s: corrupt gzip data at compressed byte %llu: %s",
					    shown, (unsigned long long)(f->src->total - f->z.avail_in),
					    f->z.msg ? f->z.msg : "inflate failed");
	}
	return tp_error_set(err, TP_ERR_INPUT,
			    "%s: truncated gzip data (%zu bytes inflated before the end)",
			    shown, f->len);
}

enum tp_err tp_gz_inflate(struct tp_gz_source *src, const char *shown, uint64_t max,
			  struct tp_stream_check *chk, struct tp_buffer *out,
			  struct tp_error *err)
{
	struct inflater f;
	enum tp_err rc;

	memset(&f, 0, sizeof(f));
	f.src = src;
	if (inflateInit2(&f.z, 16 + MAX_WBITS) != Z_OK)
		return tp_error_set(err, TP_ERR_INTERNAL, "%s: cannot start zlib", shown);
	rc = inflate_loop(&f, shown, max, chk, err);
	inflateEnd(&f.z);
	free(src->chunk);
	src->chunk = NULL;
	if (rc != TP_OK) {
		free(f.data);
		return rc;
	}
	out->heap = f.data;
	out->data = f.data;
	out->size = f.len;
	return TP_OK;
}

/* Reads a raw stream, checked as it comes; head holds its first bytes. */
static enum tp_err read_raw(int fd, const char *shown, uint64_t max,
			    struct tp_stream_check *chk, uint8_t *data, size_t len,
			    size_t cap, struct tp_buffer *buf, struct tp_error *err)
{
	for (;;) {
		enum tp_stream_verdict v = tp_stream_check_feed(chk, data, len);
		size_t n;

		if (v == TP_STREAM_BAD)
			break;          /* the decoder reports what was read */
		if (v != TP_STREAM_MORE) {
			free(data);
			return tp_stream_check_error(chk, v, shown, err);
		}
		data = tp_xgrow(data, &cap, len + CHUNK, 1);
		if (read_into(fd, data + len, cap - len, shown, &n, err) != TP_OK) {
			free(data);
			return err->code;
		}
		if (n == 0)
			break;
		len += n;
		if (len > max) {
			free(data);
			return tp_error_set(err, TP_ERR_INPUT,
					    "%s: input larger than the limit of %llu bytes (see --max-input)",
					    shown, (unsigned long long)max);
		}
	}
	buf->heap = data;
	buf->data = data;
	buf->size = len;
	return TP_OK;
}

enum tp_err tp_stream_load(int fd, const char *shown, bool named, uint64_t max,
			   const struct tp_stream_head *head,
			   struct tp_buffer *buf, bool *gzip, uint64_t *stream_bytes,
			   struct tp_error *err)
{
	struct tp_stream_check chk;
	size_t cap = 0, len = head ? head->len : 0;
	uint8_t *data = NULL;
	enum tp_err rc;

	tp_stream_check_init(&chk, max, named);
	if (len > SIZE_MAX - CHUNK)   /* a sniffed head is a few bytes */
		tp_out_of_memory(SIZE_MAX);
	data = tp_xgrow(data, &cap, len + CHUNK, 1);
	if (len)
		memcpy(data, head->bytes, len);
	/* two bytes tell gzip from a raw capture */
	while (len < 2) {
		size_t n;

		if (read_into(fd, data + len, cap - len, shown, &n, err) != TP_OK) {
			free(data);
			return err->code;
		}
		if (n == 0)
			break;
		len += n;
	}
	if (len < 2 || data[0] != 0x1f || data[1] != 0x8b) {
		rc = read_raw(fd, shown, max, &chk, data, len, cap, buf, err);
		*stream_bytes = buf->size;
		return rc;
	}
	struct tp_gz_source src = { .mem = data, .mem_len = len, .fd = fd };

	*gzip = true;
	rc = tp_gz_inflate(&src, shown, max, &chk, buf, err);
	*stream_bytes = src.total;
	free(data);
	return rc;
}
