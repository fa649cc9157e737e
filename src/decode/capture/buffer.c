/*
 * buffer.c - getting a file's bytes into memory: mmap for regular files
 * (the pages are the page cache's, so a 1 GB capture costs no copy),
 * streams and gzip in stream_read.c. Every path that grows a buffer
 * checks the caller's byte limit, so a gzip bomb or an endless stream
 * ends with an error instead of exhausting memory, and streams are
 * checked as they arrive (stream_check.c).
 */
#include "tpuprof/decode/capture.h"
#include "tpuprof/decode/riegeli.h"

#include "capture_internal.h"
#include "stream_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
	free(buf->gaps);
	free(buf->gap_fields);
	tp_riegeli_seg_maps_free(buf->seg_maps, buf->n_seg_maps);
	memset(buf, 0, sizeof(*buf));
}

static uint64_t mtime_ns(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000u +
	       (uint64_t)st->st_mtim.tv_nsec;
}

int tp_buffer_reopen(const struct tp_buffer *buf, const char *path)
{
	struct stat st;
	int fd;

	if (!buf->map || strcmp(path, "-") == 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_dev == buf->file_dev &&
	    (uint64_t)st.st_ino == buf->file_ino &&
	    mtime_ns(&st) == buf->file_mtime_ns && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size == buf->map_len)
		return fd;
	close(fd);
	return -1;
}

static enum tp_err map_file(int fd, const char *path, const struct stat *st,
			    struct tp_buffer *buf, struct tp_error *err)
{
	size_t size = (size_t)st->st_size;
	void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);

	if (p == MAP_FAILED)
		return tp_error_set(err, TP_ERR_INPUT, "%s: cannot map: %s",
				    path, strerror(errno));
	/* One sequential decode pass, then analyses in line order. */
	madvise(p, size, MADV_SEQUENTIAL);
	buf->map = p;
	buf->map_len = size;
	buf->file_dev = (uint64_t)st->st_dev;
	buf->file_ino = (uint64_t)st->st_ino;
	buf->file_mtime_ns = mtime_ns(st);
	buf->data = p;
	buf->size = size;
	return TP_OK;
}

/* A regular file is mapped; anything else (standard input, a pipe, a
 * FIFO, a device, a socket) is read as a stream, checked as it comes and
 * inflated as it comes when it is gzip (*streamed set). */
static enum tp_err open_raw(struct tp_buffer *buf, const char *path,
			    const struct tp_stream_head *head,
			    uint64_t max, uint64_t *file_bytes, bool *gzip,
			    bool *streamed, struct tp_error *err)
{
	bool named = tp_capture_kind_from_name(path) != 0;
	struct stat st;
	int fd;
	enum tp_err rc;

	if (head) {     /* begun by a reader that looked first */
		*streamed = true;
		return tp_stream_load(head->fd, strcmp(path, "-") ? path : "<stdin>", named, max,
				      head, buf, gzip, file_bytes, err);
	}
	if (strcmp(path, "-") == 0) {
		*streamed = true;
		return tp_stream_load(STDIN_FILENO, "<stdin>", false, max, NULL, buf, gzip,
				      file_bytes, err);
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
		rc = map_file(fd, path, &st, buf, err);
	} else {
		*streamed = true;
		rc = tp_stream_load(fd, path, named, max, NULL, buf, gzip, file_bytes, err);
	}
	close(fd);
	return rc;
}

enum tp_err tp_buffer_load(struct tp_buffer *buf, const char *path,
			   uint64_t max, bool *gzip, uint64_t *file_bytes,
			   struct tp_error *err)
{
	return tp_buffer_load_head(buf, path, NULL, max, gzip, file_bytes, err);
}

enum tp_err tp_buffer_load_head(struct tp_buffer *buf, const char *path,
				const struct tp_stream_head *head, uint64_t max, bool *gzip,
				uint64_t *file_bytes, struct tp_error *err)
{
	struct tp_buffer raw = { 0 };
	const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
	bool streamed = false;
	enum tp_err rc;

	memset(buf, 0, sizeof(*buf));
	*gzip = false;
	rc = open_raw(&raw, path, head, max, file_bytes, gzip, &streamed, err);
	if (rc != TP_OK)
		return rc;
	if (raw.size == 0 && *gzip) {
		tp_buffer_release(&raw);
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: gzip data inflates to nothing, not a capture",
				    shown);
	}
	if (raw.size == 0) {
		tp_buffer_release(&raw);
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: empty input, not a capture", shown);
	}
	if (streamed || raw.size < 2 || raw.data[0] != 0x1f || raw.data[1] != 0x8b) {
		*buf = raw;
		return TP_OK;
	}
	*gzip = true;
	struct tp_gz_source src = { .mem = raw.data, .mem_len = raw.size, .fd = -1 };
	rc = tp_gz_inflate(&src, shown, max, NULL, buf, err);
	tp_buffer_release(&raw);
	if (rc == TP_OK && buf->size == 0) {
		tp_buffer_release(buf);
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: gzip data inflates to nothing, not a capture",
				    shown);
	}
	return rc;
}
