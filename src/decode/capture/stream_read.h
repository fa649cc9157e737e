/*
 * stream_read.h - streams and gzip (stream_read.c): the bytes of an input
 * that is not a regular file, checked as they arrive, and gzip inflation
 * from memory or from a stream, with --max-input as the limit.
 *
 * Ownership: a filled tp_buffer owns a malloc'd copy (buf->heap), freed by
 * tp_buffer_release(). A tp_gz_source borrows its memory and fd.
 */
#ifndef TPUPROF_STREAM_READ_H
#define TPUPROF_STREAM_READ_H

#include "stream_check.h"
#include "tpuprof/decode/capture.h"

/* Where compressed bytes come from: mem[0..mem_len) first, then fd (-1:
 * none). total counts the bytes handed to zlib (for error offsets and
 * the size of a stream). */
struct tp_gz_source {
	const uint8_t *mem;
	size_t mem_len, mem_pos;
	int fd;
	uint8_t *chunk;          /* internal: malloc'd while inflating */
	uint64_t total;
};

/* Inflates gzip members back to back (as gzip -d does) into out, at most
 * max bytes. chk (NULL for a regular file, whose messages stay those of
 * the decoder) checks the inflated bytes as they come: inflation stops at
 * the first that cannot continue a capture. */
enum tp_err tp_gz_inflate(struct tp_gz_source *src, const char *shown, uint64_t max,
			  struct tp_stream_check *chk, struct tp_buffer *out,
			  struct tp_error *err);

/* Reads fd to its end (or to the first byte no capture can hold), raw or
 * gzip (then inflated, *gzip set). named: the path's name says what kind
 * of capture it is. head (or NULL): the stream's first bytes, read
 * already. *stream_bytes: bytes read from fd, head included. */
enum tp_err tp_stream_load(int fd, const char *shown, bool named, uint64_t max,
			   const struct tp_stream_head *head,
			   struct tp_buffer *buf, bool *gzip, uint64_t *stream_bytes,
			   struct tp_error *err);

#endif
