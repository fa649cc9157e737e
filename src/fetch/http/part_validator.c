/*
 * part_validator.c - which object a FILE.part holds the start of. A .part
 * left by another run (kept with --keep-partial, or by a killed fetch)
 * may hold the start of another object of the same name, or of this one
 * before it changed: continued with a range, it would be spliced to the
 * new object's end into a file of neither. So the answer that starts a
 * .part leaves beside it, in FILE.part.validator, the object's strong
 * ETag or else its Last-Modified date, and a later run continues the
 * .part only with that validator in If-Range: a server whose object
 * changed answers with the whole object, and the download starts over.
 * A .part without a validator from before this run is started over.
 */
#include "http_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tpuprof/util/util.h"

/* A validator longer than this is no server's (ETags are short). */
#define VALIDATOR_MAX 512

static char *sidecar(const char *part)
{
	return tp_xasprintf("%s.validator", part);
}

/* The value If-Range may carry: a strong ETag, else a date. */
static const char *validator_of(const struct xfer *x)
{
	if (x->etag && *x->etag && strncmp(x->etag, "W/", 2) != 0)
		return x->etag;
	return x->last_modified && *x->last_modified ? x->last_modified : NULL;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return false;
	return true;
}

void tp_http_part_validator_save(const struct xfer *x)
{
	const char *v = validator_of(x);
	char *path = sidecar(x->part);
	int fd;

	unlink(path);
	if (v && strlen(v) <= VALIDATOR_MAX && printable(v)) {
		/* never through a link someone left in the run directory */
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0) {
			size_t n = strlen(v);

			if (write(fd, v, n) != (ssize_t)n)
				unlink(path);   /* half a validator is none */
			close(fd);
		}
	}
	free(path);
}

char *tp_http_part_validator_load(const char *part)
{
	char *path = sidecar(part), buf[VALIDATOR_MAX + 1];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

	if (fd >= 0)
		close(fd);
	free(path);
	if (n <= 0 || n > VALIDATOR_MAX)
		return NULL;
	buf[n] = '\0';
	return printable(buf) && strlen(buf) == (size_t)n ? tp_xstrdup(buf) : NULL;
}

void tp_http_part_validator_remove(const char *part)
{
	char *path = sidecar(part);

	unlink(path);
	free(path);
}
