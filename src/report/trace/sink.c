/*
 * sink.c - the trace writers' output (trace_out.h): bytes gathered in
 * 1 MiB buffers, which a second thread writes out (and deflates, for
 * gzip) while the walk fills the next one. Writing a trace is bound by
 * its size (a few times the capture's): the kernel's copy into the page
 * cache, or deflate, then runs beside the encoding instead of after it.
 * At most SINK_BUFS buffers exist, so memory stays bounded.
 */
#include "trace_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util.h"

#define SINK_BUF ((size_t)1 << 20)

/* The writer thread's side: one buffer out, deflated or as it is. */
static void deflate_out(struct tp_sink *s, const uint8_t *p, size_t n, int flush)
{
	s->z.next_in = (Bytef *)p;
	s->z.avail_in = (uInt)n;
	do {
		s->z.next_out = s->zbuf;
		s->z.avail_out = (uInt)SINK_BUF;
		if (deflate(&s->z, flush) == Z_STREAM_ERROR) {
			s->write_failed = true;
			return;
		}
		size_t have = SINK_BUF - s->z.avail_out;
		if (have && fwrite(s->zbuf, 1, have, s->fp) != have) {
			s->write_failed = true;
			s->write_errno = errno;
			return;
		}
	} while (s->z.avail_out == 0 || (flush == Z_FINISH && s->z.avail_in));
}

static void put_out(struct tp_sink *s, const uint8_t *p, size_t n, int flush)
{
	if (s->write_failed)
		return;
	if (s->gz)
		deflate_out(s, p, n, flush);
	else if (n && fwrite(p, 1, n, s->fp) != n) {
		s->write_failed = true;
		s->write_errno = errno;
	}
}

static void *writer_main(void *arg)
{
	struct tp_sink *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->queued && !s->done)
			pthread_cond_wait(&s->cond, &s->lock);
		if (!s->queued)
			break; /* done, and nothing left */
		size_t k = s->next_out;

		pthread_mutex_unlock(&s->lock);
		put_out(s, s->bufs[k], s->lens[k], Z_NO_FLUSH);
		pthread_mutex_lock(&s->lock);
		s->next_out = (k + 1) % SINK_BUFS;
		s->queued--;
		pthread_cond_broadcast(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
	if (s->finishing)
		put_out(s, NULL, 0, Z_FINISH);
	return NULL;
}

void tp_sink_init(struct tp_sink *s, FILE *fp, bool gz)
{
	memset(s, 0, sizeof(*s));
	s->fp = fp;
	s->gz = gz;
	for (size_t i = 0; i < SINK_BUFS; i++)
		s->bufs[i] = tp_xmalloc(SINK_BUF);
	s->buf = s->bufs[0];
	if (gz) {
		s->zbuf = tp_xmalloc(SINK_BUF);
		/* level 1, as XProf writes its traces: the deflate would
		 * otherwise cost more than the whole walk (31 = gzip header) */
		if (deflateInit2(&s->z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			s->write_failed = true;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->running = pthread_create(&s->thread, NULL, writer_main, s) == 0;
}

/* Hands the full buffer to the writer and takes the next free one. */
static void hand_over(struct tp_sink *s)
{
	if (!s->running) { /* no thread: write it here */
		put_out(s, s->buf, s->len, Z_NO_FLUSH);
		s->len = 0;
		return;
	}
	pthread_mutex_lock(&s->lock);
	s->lens[s->fill] = s->len;
	s->queued++;
	pthread_cond_broadcast(&s->cond);
	s->fill = (s->fill + 1) % SINK_BUFS;
	while (s->queued == SINK_BUFS) /* the next one is still queued */
		pthread_cond_wait(&s->cond, &s->lock);
	pthread_mutex_unlock(&s->lock);
	s->buf = s->bufs[s->fill];
	s->len = 0;
}

void tp_sink_write(struct tp_sink *s, const void *p, size_t n)
{
	const uint8_t *b = p;

	s->total += n;
	if (s->len + n < SINK_BUF) { /* the usual case: a few bytes */
		if (n)
			memcpy(s->buf + s->len, p, n);
		s->len += n;
		return;
	}
	while (n) {
		size_t room = SINK_BUF - s->len, take = n < room ? n : room;

		memcpy(s->buf + s->len, b, take);
		s->len += take;
		b += take;
		n -= take;
		if (s->len == SINK_BUF)
			hand_over(s);
	}
}

uint8_t *tp_sink_room(struct tp_sink *s, size_t n)
{
	if (s->len + n > SINK_BUF)
		hand_over(s);
	return s->buf + s->len;
}

void tp_sink_commit(struct tp_sink *s, size_t n)
{
	s->len += n;
	s->total += n;
	if (s->len == SINK_BUF)
		hand_over(s);
}

void tp_sink_puts(struct tp_sink *s, const char *str)
{
	tp_sink_write(s, str, strlen(str));
}

/* Ends the writer thread once everything queued is out; finish: and the
 * gzip stream with it. */
static void stop(struct tp_sink *s, bool finish)
{
	if (!s->running)
		return;
	pthread_mutex_lock(&s->lock);
	s->done = true;
	s->finishing = finish;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	s->running = false;
}

enum tp_err tp_sink_finish(struct tp_sink *s, struct tp_error *err)
{
	if (s->len)
		hand_over(s);
	if (s->running)
		stop(s, true);
	else
		put_out(s, NULL, 0, Z_FINISH);
	if (!s->write_failed && fflush(s->fp) != 0) {
		s->write_failed = true;
		s->write_errno = errno;
	}
	if (s->write_failed || ferror(s->fp)) {
		/* errno is the writer thread's: the caller reports it */
		errno = s->write_errno ? s->write_errno : EIO;
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write the trace");
	}
	return TP_OK;
}

void tp_sink_release(struct tp_sink *s)
{
	stop(s, false); /* a failed walk: what is queued goes, no more */
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	if (s->gz)
		deflateEnd(&s->z);
	for (size_t i = 0; i < SINK_BUFS; i++)
		free(s->bufs[i]);
	free(s->zbuf);
	memset(s->bufs, 0, sizeof(s->bufs));
	s->buf = s->zbuf = NULL;
}
