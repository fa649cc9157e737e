/*
 * check_stream.c - inputs that are not regular files: FIFOs, pipes on
 * standard input, character devices. A stream is checked as it arrives
 * and refused at the first byte that cannot start or continue a capture,
 * so an endless writer is cut off after a few megabytes instead of
 * --max-input; legitimate captures, raw or gzip, still read whole.
 *
 * Each case forks a writer that feeds a FIFO (or a pipe) until the reader
 * goes away, then tells the test through a second pipe how many bytes it
 * got written.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <zlib.h>

#include "tpuprof/decode/capture.h"

#define MIB (UINT64_C(1) << 20)
/* Before streams were checked the reader took all of --max-input. */
#define TEST_MAX_INPUT (256 * MIB)
#define WRITTEN_AT_MOST (64 * MIB)

enum feed {
	FEED_ZEROS,        /* /dev/zero                                  */
	FEED_RANDOM,       /* an LCG's bytes, endless                     */
	FEED_GZIP_ZEROS,   /* a gzip stream of zeros that never ends      */
	FEED_HEAD_ZEROS,   /* head (below), then zeros                    */
	FEED_FILE,         /* testdata/small.xplane.pb, then EOF           */
	FEED_GZIP_FILE,    /* it gzip-compressed, then EOF                */
};

static const uint8_t *head_bytes;
static size_t head_len;

/* Writes all of p unless the reader left; false when it did. */
static bool put(int fd, const void *p, size_t n, uint64_t *written)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		b += w;
		n -= (size_t)w;
		*written += (uint64_t)w;
	}
	return true;
}

static uint8_t *file_bytes(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long len;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	p = tp_xmalloc((size_t)len);
	ck_assert_uint_eq(fread(p, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return p;
}

static void feed_gzip(int fd, const uint8_t *p, size_t n, bool endless,
		      uint64_t *written)
{
	static uint8_t in[1 << 16], out[1 << 16];
	z_stream z = { 0 };
	int flush = endless ? Z_NO_FLUSH : Z_FINISH;

	ck_assert_int_eq(deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	do {
		z.next_in = endless ? in : (Bytef *)p;
		z.avail_in = endless ? sizeof(in) : (uInt)n;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			deflate(&z, flush);
			if (!put(fd, out, sizeof(out) - z.avail_out, written))
				endless = false;
		} while (z.avail_out == 0);
	} while (endless);
	deflateEnd(&z);
}

static void feed(int fd, enum feed what, uint64_t *written)
{
	static uint8_t block[1 << 16];
	uint32_t lcg = 12345;
	uint8_t *p;
	size_t n;

	switch (what) {
	case FEED_FILE:
	case FEED_GZIP_FILE:
		p = file_bytes("testdata/small.xplane.pb", &n);
		if (what == FEED_FILE)
			put(fd, p, n, written);
		else
			feed_gzip(fd, p, n, false, written);
		free(p);
		return;
	case FEED_GZIP_ZEROS:
		feed_gzip(fd, NULL, 0, true, written);
		return;
	case FEED_HEAD_ZEROS:
		if (!put(fd, head_bytes, head_len, written))
			return;
		/* fall through */
	case FEED_ZEROS:
	case FEED_RANDOM:
		for (;;) {
			for (size_t i = 0; what == FEED_RANDOM && i < sizeof(block); i++) {
				lcg = lcg * 1103515245u + 12345u;
				block[i] = (uint8_t)(lcg >> 16);
			}
			if (!put(fd, block, sizeof(block), written))
				return;
		}
	}
}

/* Starts the writer on path (a FIFO) or on *pipe_read; returns its pid,
 * *report is where it tells how much it wrote. */
static pid_t start_writer(const char *fifo, int *pipe_read, enum feed what,
			  int *report)
{
	int rep[2], data[2] = { -1, -1 };
	pid_t pid;

	ck_assert_int_eq(pipe(rep), 0);
	if (!fifo)
		ck_assert_int_eq(pipe(data), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		uint64_t written = 0;
		int fd = fifo ? open(fifo, O_WRONLY) : data[1];

		signal(SIGPIPE, SIG_IGN);
		close(rep[0]);
		if (!fifo)
			close(data[0]);
		if (fd >= 0)
			feed(fd, what, &written);
		if (fd >= 0)
			close(fd);
		if (write(rep[1], &written, sizeof(written)) != sizeof(written))
			_exit(1);
		_exit(0);
	}
	close(rep[1]);
	if (!fifo) {
		close(data[1]);
		*pipe_read = data[0];
	}
	*report = rep[0];
	return pid;
}

static uint64_t writer_done(pid_t pid, int report)
{
	uint64_t written = 0;
	int status;

	ck_assert_int_eq(read(report, &written, sizeof(written)), (ssize_t)sizeof(written));
	close(report);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return written;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct outcome {
	enum tp_err rc;
	char msg[sizeof(((struct tp_error *)0)->msg)];
	uint64_t written;
	double seconds;
	size_t n_hosts;
};

/* Opens path (through a FIFO the writer feeds), with TEST_MAX_INPUT. */
static void open_fifo(const char *name, enum feed what, struct outcome *o)
{
	char *path = tp_xasprintf("/tmp/tpuprof-fifo-%d-%s", (int)getpid(), name);
	const char *paths[1] = { path };
	struct tp_open_opts opts = { .max_input = TEST_MAX_INPUT };
	struct tp_capture cap;
	struct tp_error err = { 0 };
	int report;
	pid_t pid;
	double t0;

	unlink(path);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	pid = start_writer(path, NULL, what, &report);
	t0 = now_s();
	o->rc = tp_capture_open(&cap, paths, 1, &opts, &err);
	o->seconds = now_s() - t0;
	snprintf(o->msg, sizeof(o->msg), "%s", err.msg);
	o->n_hosts = o->rc == TP_OK ? cap.n_hosts : 0;
	if (o->rc == TP_OK)
		tp_capture_release(&cap);
	/* the writer may still wait for a reader: be one, briefly */
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd >= 0)
		close(fd);
	o->written = writer_done(pid, report);
	unlink(path);
	free(path);
}

START_TEST(test_fifo_of_zeros)
{
	struct outcome o;
	char want[256];

	open_fifo("zeros", FEED_ZEROS, &o);
	snprintf(want, sizeof(want),
		 "/tmp/tpuprof-fifo-%d-zeros: not a profile capture (not protobuf: invalid field number at byte 0)",
		 (int)getpid());
	ck_assert_int_eq(o.rc, TP_ERR_INPUT);
	ck_assert_str_eq(o.msg, want);
	ck_assert_uint_lt(o.written, WRITTEN_AT_MOST);
	ck_assert_double_lt(o.seconds, 2.0);
}
END_TEST

START_TEST(test_fifo_of_random_bytes)
{
	struct outcome o;

	open_fifo("random", FEED_RANDOM, &o);
	ck_assert_int_eq(o.rc, TP_ERR_INPUT);
	ck_assert_ptr_nonnull(strstr(o.msg, ": not a profile capture (not protobuf: "));
	ck_assert_uint_lt(o.written, WRITTEN_AT_MOST);
}
END_TEST

START_TEST(test_fifo_of_gzip_zeros)
{
	struct outcome o;
	char want[256];

	open_fifo("gz", FEED_GZIP_ZEROS, &o);
	snprintf(want, sizeof(want),
		 "/tmp/tpuprof-fifo-%d-gz: gzip content is not a profile capture (first byte 0x00 is no protobuf tag)",
		 (int)getpid());
	ck_assert_int_eq(o.rc, TP_ERR_INPUT);
	ck_assert_str_eq(o.msg, want);
	ck_assert_uint_lt(o.written, WRITTEN_AT_MOST);
}
END_TEST

/* Damage inside the first plane: refused at its byte, not at the end. */
START_TEST(test_fifo_bad_first_plane)
{
	static const uint8_t head[] = { 0x0a, 0x7f, 0x08, 0x01, 0x1f };
	struct outcome o;
	char want[256];

	head_bytes = head;
	head_len = sizeof(head);
	open_fifo("plane", FEED_HEAD_ZEROS, &o);
	snprintf(want, sizeof(want),
		 "/tmp/tpuprof-fifo-%d-plane: not a profile capture (not protobuf: invalid wire type at byte 4, in the field at byte 0)",
		 (int)getpid());
	ck_assert_str_eq(o.msg, want);
	ck_assert_uint_lt(o.written, WRITTEN_AT_MOST);
}
END_TEST

/* A plane longer than --max-input is refused when its length is read,
 * with the message of a stream that reaches the limit. */
START_TEST(test_fifo_field_past_limit)
{
	/* field 1, length 2^29 (512 MiB > TEST_MAX_INPUT) */
	static const uint8_t head[] = { 0x0a, 0x80, 0x80, 0x80, 0x80, 0x02 };
	struct outcome o;
	char want[256];

	head_bytes = head;
	head_len = sizeof(head);
	open_fifo("big", FEED_HEAD_ZEROS, &o);
	snprintf(want, sizeof(want),
		 "/tmp/tpuprof-fifo-%d-big: input larger than the limit of 268435456 bytes (see --max-input)",
		 (int)getpid());
	ck_assert_str_eq(o.msg, want);
	ck_assert_uint_lt(o.written, WRITTEN_AT_MOST);
}
END_TEST

START_TEST(test_fifo_of_a_capture)
{
	struct outcome o;

	open_fifo("small", FEED_FILE, &o);
	ck_assert_msg(o.rc == TP_OK, "%s", o.msg);
	ck_assert_uint_eq(o.n_hosts, 1);
	ck_assert_uint_eq(o.written, 71004);
	open_fifo("small-gz", FEED_GZIP_FILE, &o);
	ck_assert_msg(o.rc == TP_OK, "%s", o.msg);
	ck_assert_uint_eq(o.n_hosts, 1);
}
END_TEST

/* "-" reads standard input: a pipe here. */
static void open_stdin(enum feed what, struct outcome *o, struct tp_capture *cap)
{
	const char *paths[1] = { "-" };
	struct tp_open_opts opts = { .max_input = TEST_MAX_INPUT };
	struct tp_error err = { 0 };
	int saved = dup(STDIN_FILENO), rd, report;
	pid_t pid = start_writer(NULL, &rd, what, &report);

	dup2(rd, STDIN_FILENO);
	close(rd);
	o->rc = tp_capture_open(cap, paths, 1, &opts, &err);
	snprintf(o->msg, sizeof(o->msg), "%s", err.msg);
	dup2(saved, STDIN_FILENO);   /* the pipe's last reader goes */
	close(saved);
	o->written = writer_done(pid, report);
}

START_TEST(test_stdin_pipe)
{
	struct tp_capture cap;
	struct outcome o;

	open_stdin(FEED_ZEROS, &o, &cap);
	ck_assert_str_eq(o.msg, "<stdin>: not a profile capture (not protobuf: invalid field number at byte 0)");
	ck_assert_uint_lt(o.written, WRITTEN_AT_MOST);
	open_stdin(FEED_GZIP_FILE, &o, &cap);
	ck_assert_msg(o.rc == TP_OK, "%s", o.msg);
	ck_assert_uint_eq(cap.n_hosts, 1);
	ck_assert(cap.sources[0].gzip);
	ck_assert_uint_eq(cap.sources[0].buf.size, 71004);
	tp_capture_release(&cap);
}
END_TEST

START_TEST(test_dev_zero)
{
	const char *paths[1] = { "/dev/zero" };
	struct tp_open_opts opts = { .max_input = TEST_MAX_INPUT };
	struct tp_capture cap;
	struct tp_error err = { 0 };
	double t0 = now_s();

	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &opts, &err), TP_ERR_INPUT);
	ck_assert_str_eq(err.msg, "/dev/zero: not a profile capture (not protobuf: invalid field number at byte 0)");
	ck_assert_double_lt(now_s() - t0, 2.0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stream");
	TCase *tc = tcase_create("stream");

	signal(SIGPIPE, SIG_IGN);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_fifo_of_zeros);
	tcase_add_test(tc, test_fifo_of_random_bytes);
	tcase_add_test(tc, test_fifo_of_gzip_zeros);
	tcase_add_test(tc, test_fifo_bad_first_plane);
	tcase_add_test(tc, test_fifo_field_past_limit);
	tcase_add_test(tc, test_fifo_of_a_capture);
	tcase_add_test(tc, test_stdin_pipe);
	tcase_add_test(tc, test_dev_zero);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
