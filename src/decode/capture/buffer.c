/*
 * buffer.c - getting a file's bytes into memory: mmap for regular files
 * (the pages are the page cache's, so a 1 GB capture costs no copy),
 * read() for pipes and stdin, zlib for gzip. Every path that grows a
 * buffer checks the caller's byte limit, so a gzip bomb or an endless
 * stream ends with an error instead of exhausting memory.
 */
#include "tpuprof/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define CHUNK (1u << 20)

uint64_t tp_default_max_input(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t phys;

	if (pages <= 0 || size <= 0)
		return TP_DEFAULT_MAX_INPUT;
	phys = (uint64_t)pages * (uint64_t)size / 4 * 3;
	return phys < TP_DEFAULT_MAX_INPUT ? phys : TP_DEFAULT_MAX_INPUT;
}

void tp_buffer_release(struct tp_buffer *buf)
{
	if (buf->map)
		munmap(buf->map, buf->map_len);
	free(buf->heap);
	memset(buf, 0, sizeof(*buf));
}

static enum tp_err read_stream(int fd, const char *path, uint64_t max,
			       struct tp_buffer *buf, struct tp_error *err)
{
	size_t cap = 0, len = 0;
	uint8_t *data = NULL;

	for (;;) {
		ssize_t n;

		data = tp_xgrow(data, &cap, len + CHUNK, 1);
		n = read(fd, data + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(data);
			return tp_error_set(err, TP_ERR_INPUT,
					    "%s: cannot read: %s", path,
					    strerror(errno));
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			free(data);
			return tp_error_set(err, TP_ERR_INPUT,
					    "%s: input larger than the limit of %llu bytes (see --max-input)",
					    path, (unsigned long long)max);
		}
	}
	buf->heap = data;
	buf->data = data;
	buf->size = len;
	return TP_OK;
}

static enum tp_err map_file(int fd, const char *path, size_t size,
			    struct tp_buffer *buf, struct tp_error *err)
{
	void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);

	if (p == MAP_FAILED)
		return tp_error_set(err, TP_ERR_INPUT, "%s: cannot map: %s",
				    path, strerror(errno));
	/* One sequential decode pass, then analyses in line order. */
	madvise(p, size, MADV_SEQUENTIAL);
	buf->map = p;
	buf->map_len = size;
	buf->data = p;
	buf->size = size;
	return TP_OK;
}

/* Any XSpace or HloProto starts with a tag: field >= 1, wire type
 * varint, fixed64, length-delimited or fixed32. */
static bool plausible_first_tag(uint8_t b)
{
	unsigned type = b & 7;

	return (b >> 3) != 0 && (type == 0 || type == 1 || type == 2 || type == 5);
}

/* Inflates gzip members back to back (as gzip -d does) up to max bytes. */
static enum tp_err inflate_all(const struct tp_buffer *in, const char *path,
			       uint64_t max, struct tp_buffer *out,
			       struct tp_error *err)
{
	z_stream z;
	size_t cap = 0, len = 0;
	uint8_t *data = NULL;
	int zrc = Z_OK;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return tp_error_set(err, TP_ERR_INTERNAL,
				    "%s: cannot start zlib", path);
	z.next_in = (Bytef *)in->data;
	z.avail_in = 0;
	size_t consumed = 0;
	for (;;) {
		if (z.avail_in == 0 && consumed < in->size) {
			size_t n = in->size - consumed;

			z.avail_in = n > CHUNK ? CHUNK : (uInt)n;
			z.next_in = (Bytef *)in->data + consumed;
			consumed += z.avail_in;
		}
		data = tp_xgrow(data, &cap, len + CHUNK, 1);
		z.next_out = data + len;
		z.avail_out = (uInt)(cap - len > CHUNK ? CHUNK : cap - len);
		size_t before = z.avail_out;
		zrc = inflate(&z, Z_NO_FLUSH);
		len += before - z.avail_out;
		if (len > max) {
			inflateEnd(&z);
			free(data);
			return tp_error_set(err, TP_ERR_INPUT,
					    "%s: gzip data inflates past the limit of %llu bytes (see --max-input)",
					    path, (unsigned long long)max);
		}
		if (len > 0 && !plausible_first_tag(data[0])) {
			/* Not protobuf from the first byte on (a bomb of
			 * zeros, text): stop now, not at the size limit. */
			unsigned first = data[0];

			inflateEnd(&z);
			free(data);
			return tp_error_set(err, TP_ERR_INPUT,
					    "%s: gzip content is not a profile capture (first byte 0x%02x is no protobuf tag)",
					    path, first);
		}
		if (zrc == Z_STREAM_END) {
			size_t left = z.avail_in + (in->size - consumed);

			if (left == 0 || in->data[in->size - left] != 0x1f)
				break; /* trailing garbage is ignored, as gzip does */
			inflateReset(&z);
			continue;
		}
		if (zrc == Z_BUF_ERROR && z.avail_in == 0 && consumed == in->size)
			break;
		if (zrc != Z_OK && zrc != Z_BUF_ERROR) {
			size_t at = consumed - z.avail_in;

			inflateEnd(&z);
			free(data);
			return tp_error_set(err, TP_ERR_INPUT,
					    "%s: corrupt gzip data at compressed byte %zu: %s",
					    path, at, z.msg ? z.msg : "inflate failed");
		}
	}
	inflateEnd(&z);
	if (zrc != Z_STREAM_END) {
		free(data);
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: truncated gzip data (%zu bytes inflated before the end)",
				    path, len);
	}
	out->heap = data;
	out->data = data;
	out->size = len;
	return TP_OK;
}

static enum tp_err open_raw(struct tp_buffer *buf, const char *path,
			    uint64_t max, uint64_t *file_bytes,
			    struct tp_error *err)
{
	struct stat st;
	int fd;
	enum tp_err rc;

	if (strcmp(path, "-") == 0) {
		rc = read_stream(STDIN_FILENO, "<stdin>", max, buf, err);
		*file_bytes = buf->size;
		return rc;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tp_error_set(err, TP_ERR_INPUT, "%s: cannot open: %s",
				    path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		rc = tp_error_set(err, TP_ERR_INPUT, "%s: cannot stat: %s",
				  path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		rc = tp_error_set(err, TP_ERR_INPUT, "%s: is a directory",
				  path);
	} else if (S_ISREG(st.st_mode) && st.st_size == 0) {
		rc = tp_error_set(err, TP_ERR_INPUT,
				  "%s: empty file, not a capture", path);
	} else if (S_ISREG(st.st_mode)) {
		*file_bytes = (uint64_t)st.st_size;
		rc = map_file(fd, path, (size_t)st.st_size, buf, err);
	} else {
		rc = read_stream(fd, path, max, buf, err);
		*file_bytes = buf->size;
	}
	close(fd);
	return rc;
}

enum tp_err tp_buffer_load(struct tp_buffer *buf, const char *path,
			   uint64_t max, bool *gzip, uint64_t *file_bytes,
			   struct tp_error *err)
{
	struct tp_buffer raw = { 0 };
	const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
	enum tp_err rc;

	memset(buf, 0, sizeof(*buf));
	*gzip = false;
	rc = open_raw(&raw, path, max, file_bytes, err);
	if (rc != TP_OK)
		return rc;
	if (raw.size == 0) {
		tp_buffer_release(&raw);
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: empty input, not a capture", shown);
	}
	if (raw.size < 2 || raw.data[0] != 0x1f || raw.data[1] != 0x8b) {
		*buf = raw;
		return TP_OK;
	}
	*gzip = true;
	rc = inflate_all(&raw, shown, max, buf, err);
	tp_buffer_release(&raw);
	if (rc == TP_OK && buf->size == 0) {
		tp_buffer_release(buf);
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: gzip data inflates to nothing, not a capture",
				    shown);
	}
	return rc;
}
