/*
 * sink.c - the trace writers' output (trace_out.h): bytes gathered in
 * 256 KiB buffers, which a second thread writes out (and deflates, for
 * gzip) while the walk fills the next one. Writing a trace is bound by
 * its size (a few times the capture's): the kernel's copy into the page
 * cache, or deflate, then runs beside the encoding instead of after it.
 *
 * Full buffers wait in the root's queue, in the order they were handed
 * over, whichever sink (the root or a lane) filled them; written ones go
 * back to a free list. At most max_bufs buffers of SINK_BUF exist, so
 * memory stays bounded; a lane's buffer grown past SINK_BUF for one big
 * packet is freed once written.
 *
 * Once as many lanes feed the output as there are CPUs, no core is left
 * for the second thread: it would only take turns with the lanes, woken
 * for every buffer (thousands of context switches and wake-up interrupts
 * a trace). Then the lane that hands a buffer over writes the queue out
 * itself when nobody is writing (combine), and the thread only finishes
 * the stream. One writer at a time (writing) keeps the queue's order.
 */
#include "trace_out.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "tpuprof/util/parallel.h"
#include "tpuprof/util/util.h"

#define SINK_BUF ((size_t)1 << 18)
#define QUEUE_MAX (4 * SINK_BUFS + 2 * 64) /* room for 64 lanes */

struct queued {
	uint8_t *p;
	size_t len, cap;
};

struct tp_sink_queue {
	FILE *fp;
	bool gz;
	z_stream z;
	uint8_t *zbuf;
	struct queued q[QUEUE_MAX];   /* ring: n queued from head          */
	size_t head, n;
	uint8_t **free_bufs;          /* written, to fill again            */
	size_t n_free, n_bufs, max_bufs;
	bool running, done, finishing;
	bool combine;                 /* lanes write the queue themselves  */
	bool writing;                 /* someone is writing the queue out  */
	bool write_failed;            /* set by the writer; read after a join */
	int write_errno;              /* why                               */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work;          /* the writer thread waits here      */
	pthread_cond_t room;          /* lanes wait here for a buffer      */
};

/* The writer thread's side: one buffer out, deflated or as it is. */
static void deflate_out(struct tp_sink_queue *s, const uint8_t *p, size_t n, int flush)
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

static void put_out(struct tp_sink_queue *s, const uint8_t *p, size_t n, int flush)
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

/* A written buffer back to the free list (lock held). */
static void recycle(struct tp_sink_queue *s, uint8_t *p, size_t cap)
{
	if (cap != SINK_BUF) { /* grown for one packet */
		free(p);
		s->n_bufs--;
		return;
	}
	s->free_bufs[s->n_free++] = p;
}

/* Every queued buffer out, in order, by whoever holds `writing` (lock
 * held, released while each is written). */
static void drain(struct tp_sink_queue *s)
{
	s->writing = true;
	while (s->n) {
		struct queued b = s->q[s->head];

		pthread_mutex_unlock(&s->lock);
		put_out(s, b.p, b.len, Z_NO_FLUSH);
		pthread_mutex_lock(&s->lock);
		s->head = (s->head + 1) % QUEUE_MAX;
		s->n--;
		recycle(s, b.p, b.cap);
		pthread_cond_broadcast(&s->room);
	}
	s->writing = false;
	if (s->done)
		pthread_cond_signal(&s->work);
}

static void *writer_main(void *arg)
{
	struct tp_sink_queue *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (s->writing || (!s->n && !s->done))
			pthread_cond_wait(&s->work, &s->lock);
		if (!s->n)
			break; /* done, and nothing left */
		drain(s);
	}
	pthread_mutex_unlock(&s->lock);
	if (s->finishing)
		put_out(s, NULL, 0, Z_FINISH);
	return NULL;
}

/* A buffer to fill (lock held): a free one, a new one while there may
 * be more, else the next one written. */
static uint8_t *take_buffer(struct tp_sink_queue *s)
{
	while (!s->n_free && s->n_bufs >= s->max_bufs && s->running)
		pthread_cond_wait(&s->room, &s->lock);
	if (s->n_free)
		return s->free_bufs[--s->n_free];
	s->n_bufs++;
	return tp_xmalloc(SINK_BUF);
}

static void queue_init(struct tp_sink_queue *s, FILE *fp, bool gz)
{
	s->fp = fp;
	s->gz = gz;
	s->max_bufs = SINK_BUFS;
	s->free_bufs = tp_xcalloc(QUEUE_MAX + 2, sizeof(*s->free_bufs));
	if (gz) {
		s->zbuf = tp_xmalloc(SINK_BUF);
		/* level 1, as XProf writes its traces: the deflate would
		 * otherwise cost more than the whole walk (31 = gzip header) */
		if (deflateInit2(&s->z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			s->write_failed = true;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->work, NULL);
	pthread_cond_init(&s->room, NULL);
	s->running = pthread_create(&s->thread, NULL, writer_main, s) == 0;
}

void tp_sink_init(struct tp_sink *s, FILE *fp, bool gz)
{
	memset(s, 0, sizeof(*s));
	s->q = tp_xcalloc(1, sizeof(*s->q));
	queue_init(s->q, fp, gz);
	pthread_mutex_lock(&s->q->lock);
	s->buf = take_buffer(s->q);
	pthread_mutex_unlock(&s->q->lock);
	s->cap = SINK_BUF;
}

void tp_sink_expect_lanes(struct tp_sink *s, unsigned lanes)
{
	if (lanes > 64)
		lanes = 64;
	pthread_mutex_lock(&s->q->lock);
	s->q->max_bufs = SINK_BUFS + (size_t)lanes; /* one filling per lane */
	s->q->combine = lanes >= tp_cpus();
	pthread_mutex_unlock(&s->q->lock);
}

void tp_sink_lane_init(struct tp_sink *lane, struct tp_sink *root)
{
	memset(lane, 0, sizeof(*lane));
	lane->q = root->q;
	lane->lane = true;
	pthread_mutex_lock(&lane->q->lock);
	lane->buf = take_buffer(lane->q);
	pthread_mutex_unlock(&lane->q->lock);
	lane->cap = SINK_BUF;
}

/* Queues the buffer being filled; takes the next one unless last. */
static void hand_over(struct tp_sink *s, bool last)
{
	struct tp_sink_queue *q = s->q;

	pthread_mutex_lock(&q->lock);
	if (q->running) {
		while (q->n == QUEUE_MAX)
			pthread_cond_wait(&q->room, &q->lock);
		q->q[(q->head + q->n) % QUEUE_MAX] = (struct queued){ s->buf, s->len, s->cap };
		q->n++;
		if (!q->combine)
			pthread_cond_signal(&q->work);
		else if (!q->writing)
			drain(q);
	} else { /* no thread: written here, in turn */
		put_out(q, s->buf, s->len, Z_NO_FLUSH);
		recycle(q, s->buf, s->cap);
	}
	s->buf = last ? NULL : take_buffer(q);
	s->cap = last ? 0 : SINK_BUF;
	pthread_mutex_unlock(&q->lock);
	s->len = 0;
}

void tp_sink_lane_close(struct tp_sink *lane)
{
	if (lane->len)
		hand_over(lane, true);
	if (lane->buf) { /* empty */
		pthread_mutex_lock(&lane->q->lock);
		recycle(lane->q, lane->buf, lane->cap);
		pthread_cond_broadcast(&lane->q->room);
		pthread_mutex_unlock(&lane->q->lock);
	}
	lane->buf = NULL;
	lane->len = lane->cap = 0;
}

/* A lane's packet does not fit: its buffer grows (it ends a packet). */
static void grow(struct tp_sink *s, size_t need)
{
	size_t cap = s->cap;

	while (cap < need)
		cap *= 2;
	if (s->cap == SINK_BUF) { /* the pool's: copy out, give it back */
		uint8_t *p = tp_xmalloc(cap);

		memcpy(p, s->buf, s->len);
		pthread_mutex_lock(&s->q->lock);
		recycle(s->q, s->buf, SINK_BUF);
		s->q->n_bufs++; /* the grown one counts until written */
		pthread_cond_broadcast(&s->q->room);
		pthread_mutex_unlock(&s->q->lock);
		s->buf = p;
	} else {
		s->buf = tp_xrealloc(s->buf, cap);
	}
	s->cap = cap;
}

void tp_sink_write(struct tp_sink *s, const void *p, size_t n)
{
	const uint8_t *b = p;

	s->total += n;
	if (s->len + n < s->cap) { /* the usual case: a few bytes */
		if (n)
			memcpy(s->buf + s->len, p, n);
		s->len += n;
		return;
	}
	if (s->lane) {
		grow(s, s->len + n + 1);
		memcpy(s->buf + s->len, p, n);
		s->len += n;
		return;
	}
	while (n) {
		size_t room = s->cap - s->len, take = n < room ? n : room;

		memcpy(s->buf + s->len, b, take);
		s->len += take;
		b += take;
		n -= take;
		if (s->len == s->cap)
			hand_over(s, false);
	}
}

void tp_sink_next(struct tp_sink *s)
{
	hand_over(s, false);
}

void tp_sink_queue_now(struct tp_sink *s)
{
	if (s->len)
		hand_over(s, false);
}

void tp_sink_packet_end(struct tp_sink *s)
{
	if (s->lane && s->len >= SINK_BUF)
		hand_over(s, false);
}

void tp_sink_puts(struct tp_sink *s, const char *str)
{
	tp_sink_write(s, str, strlen(str));
}

/* Ends the writer thread once everything queued is out; finish: and the
 * gzip stream with it. */
static void stop(struct tp_sink_queue *q, bool finish)
{
	if (!q->running)
		return;
	pthread_mutex_lock(&q->lock);
	q->done = true;
	q->finishing = finish;
	pthread_cond_signal(&q->work);
	pthread_cond_broadcast(&q->room);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	q->running = false;
}

enum tp_err tp_sink_finish(struct tp_sink *s, struct tp_error *err)
{
	struct tp_sink_queue *q = s->q;

	if (s->buf)
		hand_over(s, true);
	if (q->running)
		stop(q, true);
	else
		put_out(q, NULL, 0, Z_FINISH);
	if (!q->write_failed && fflush(q->fp) != 0) {
		q->write_failed = true;
		q->write_errno = errno;
	}
	if (q->write_failed || ferror(q->fp)) {
		/* errno is the writer thread's: the caller reports it */
		errno = q->write_errno ? q->write_errno : EIO;
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write the trace");
	}
	return TP_OK;
}

void tp_sink_release(struct tp_sink *s)
{
	struct tp_sink_queue *q = s->q;

	if (!q)
		return;
	stop(q, false); /* a failed walk: what is queued goes, no more */
	for (size_t i = 0; i < q->n; i++) { /* left by a writer that stopped */
		struct queued *b = &q->q[(q->head + i) % QUEUE_MAX];

		free(b->p);
	}
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->room);
	if (q->gz)
		deflateEnd(&q->z);
	for (size_t i = 0; i < q->n_free; i++)
		free(q->free_bufs[i]);
	free(q->free_bufs);
	free(s->buf);
	free(q->zbuf);
	free(q);
	memset(s, 0, sizeof(*s));
}
