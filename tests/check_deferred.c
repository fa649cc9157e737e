/*
 * check_deferred.c - the fast paths give the answers of the plain ones.
 *
 * Commands that run the ops analysis open captures with their large
 * device lines left unscanned (struct tp_decode_opts.defer_min_bytes) and
 * scan them inside the ops pass, one thread per core, reading the fields
 * after their first event there too (tp_line.tail_unread); pages behind
 * the readers are dropped. Here every capture is reported both ways, with
 * nothing deferred on one thread and everything deferred on three, and
 * the report documents must be equal byte for byte; corrupt bytes
 * anywhere must give the same error either way.
 */
#include "testutil.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tpuprof/decode/capture.h"
#include "tpuprof/util/json_stream.h"
#include "tpuprof/report/report_doc.h"
#include "tpuprof/util/util.h"

#define SHARED "../shared/captures/"

static const char *const captures[] = {
	"testdata/small.xplane.pb",
	"testdata/layout-b.xplane.pb.gz",
	"testdata/collectives.xplane.pb",
	"testdata/diff-b.xplane.pb",
	"testdata/run-3hosts",
	SHARED "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb",
	SHARED "gpu-mi300x-jax-attention/tw003.xplane.pb",
	SHARED "gpu-mi300x8-jax-conv3d/tw003.xplane.pb",
	SHARED "gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb",
};

/* The report document as text, or "error <code>: <message>". */
static char *report_of(const char *path, size_t defer, unsigned threads)
{
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT,
				  .defer_min_bytes = defer };
	struct tp_report_filter f = { 0 };
	struct tp_error err = { 0 };
	struct tp_capture cap;
	struct tp_report r;
	char *text;

	tp_set_threads(threads);
	/* deferred: every line's tail is left to its scan too */
	tp_xspace_framing_min_bytes = defer ? 0 : (size_t)1 << 20;
	if (tp_capture_open(&cap, &path, 1, &o, &err) != TP_OK) {
		tp_set_threads(0);
		tp_xspace_framing_min_bytes = (size_t)1 << 20;
		return tp_xasprintf("error %d: %s", (int)err.code, err.msg);
	}
	if (tp_report_build(&r, &cap, &f, &err) != TP_OK &&
	    !(tp_capture_reopen_whole(&cap, &path, 1, &o, &err) &&
	      tp_report_build(&r, &cap, &f, &err) == TP_OK)) {
		/* a damaged part in a deferred line: reopened whole, as every
		 * caller does (tp_capture_reopen_whole), or refused */
		text = tp_xasprintf("error %d: %s", (int)err.code, err.msg);
	} else {
		size_t len;
		FILE *fp = open_memstream(&text, &len);
		struct tp_jw w;

		ck_assert_ptr_nonnull(fp);
		tp_jw_init(&w, fp);
		tp_report_json(&w, &cap, &r, true);
		ck_assert_int_eq(tp_jw_finish(&w, &err), TP_OK);
		fclose(fp);
		tp_report_release(&r);
	}
	tp_capture_release(&cap);
	tp_set_threads(0);
	tp_xspace_framing_min_bytes = (size_t)1 << 20;
	return text;
}

START_TEST(test_same_report)
{
	NEED_SHARED();
	char *plain = report_of(captures[_i], 0, 1);
	char *fast = report_of(captures[_i], 1, 3);

	ck_assert_msg(strncmp(plain, "error", 5) != 0, "%s: %s", captures[_i], plain);
	ck_assert_msg(strcmp(plain, fast) == 0, "%s: deferred report differs",
		      captures[_i]);
	free(plain);
	free(fast);
}
END_TEST

/* Every byte of a capture set to 0xff in turn, at a stride: the deferred
 * path fails (or not) exactly as the plain one, with the same message. */
START_TEST(test_same_errors)
{
	const char *src = "testdata/collectives.xplane.pb";
	char path[] = "/tmp/tpuprof-deferred-XXXXXX";
	struct tp_buffer buf;
	struct tp_error err = { 0 };
	uint64_t file_bytes;
	bool gz;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(tp_buffer_load(&buf, src, 1 << 24, &gz, &file_bytes, &err), TP_OK);
	for (size_t i = 0; i < buf.size; i += 211) {
		uint8_t *copy = tp_xmalloc(buf.size);
		FILE *fp;
		char *plain, *fast;

		memcpy(copy, buf.data, buf.size);
		copy[i] = 0xff;
		fp = fopen(path, "wb");
		ck_assert_ptr_nonnull(fp);
		ck_assert_uint_eq(fwrite(copy, 1, buf.size, fp), buf.size);
		fclose(fp);
		plain = report_of(path, 0, 1);
		fast = report_of(path, 1, 2);
		ck_assert_msg(strcmp(plain, fast) == 0, "byte %zu: '%.200s' vs '%.200s'",
			      i, plain, fast);
		free(plain);
		free(fast);
		free(copy);
	}
	tp_buffer_release(&buf);
	close(fd);
	unlink(path);
}
END_TEST

/* An XLA op's metadata: its name, program 5 and symbol k + 1 as stats
 * (stat metadata 1 and 2, cores_capture). */
static void op_meta(struct pb *plane, size_t k)
{
	struct pb em = { 0 }, entry = { 0 }, st = { 0 };
	char name[32];

	snprintf(name, sizeof(name), "fusion.%zu", k);
	pb_int(&em, 1, (int64_t)k + 1);
	pb_str(&em, 4, name);
	pb_int(&st, 1, 1);
	pb_int(&st, 3, 5);
	pb_msg(&em, 5, &st);
	pb_int(&st, 1, 2);
	pb_int(&st, 3, (int64_t)k + 1);
	pb_msg(&em, 5, &st);
	pb_int(&entry, 1, (int64_t)k + 1);
	pb_msg(&entry, 2, &em);
	pb_msg(plane, 4, &entry);
}

/* Cores of n[i] ops each (an event each), on TPU planes. */
static struct pb cores_capture(const size_t *n, size_t cores)
{
	static const char *const stat_names[] = { "program_id", "symbol_id" };
	struct pb space = { 0 };

	for (size_t c = 0; c < cores; c++) {
		struct pb plane = { 0 }, line = { 0 };
		char name[32];

		pb_int(&plane, 1, (int64_t)c + 1);
		snprintf(name, sizeof(name), "/device:TPU:%zu", c);
		pb_str(&plane, 2, name);
		pb_int(&line, 1, 1);
		pb_str(&line, 2, "XLA Ops");
		pb_int(&line, 3, 1000);
		for (size_t k = 0; k < n[c]; k++) {
			struct pb ev = { 0 };

			pb_int(&ev, 1, (int64_t)k + 1);
			pb_int(&ev, 2, (int64_t)k * 1000);
			pb_int(&ev, 3, 500 + (int64_t)(k % 7));
			pb_msg(&line, 4, &ev);
		}
		pb_msg(&plane, 3, &line);
		for (size_t k = 0; k < n[c]; k++)
			op_meta(&plane, k);
		for (int64_t id = 1; id <= 2; id++)
			pb_metadata(&plane, 5, id, stat_names[id - 1]);
		pb_msg(&space, 1, &plane);
	}
	return space;
}

/* A core's op rows are written on threads of their own where it is
 * written alone or holds most of the ops, one after the other where the
 * other cores' run beside it balances it (ops_json.c): the text is the
 * same on any number of threads. Two cores that share the ops, then a
 * third that holds most of them; rows of 512 and more go in rounds. */
START_TEST(test_same_rows_on_threads)
{
	static const size_t shapes[2][3] = { { 600, 700, 0 }, { 600, 700, 2600 } };
	static const char *const n_ops[2][3] = {
		{ "\"n_ops\": 600", "\"n_ops\": 700", NULL },
		{ "\"n_ops\": 600", "\"n_ops\": 700", "\"n_ops\": 2600" },
	};

	for (int shape = 0; shape < 2; shape++) {
		size_t cores = shapes[shape][2] ? 3 : 2;
		struct pb bytes = cores_capture(shapes[shape], cores);
		char *path = write_temp(".xplane.pb", bytes.data, bytes.len);
		char *one = report_of(path, 0, 1);

		ck_assert_msg(strncmp(one, "error", 5) != 0, "%s", one);
		for (size_t c = 0; c < cores; c++)
			ck_assert_msg(strstr(one, n_ops[shape][c]), "%s", n_ops[shape][c]);
		for (unsigned threads = 2; threads <= 4; threads += 2) {
			char *more = report_of(path, 0, threads);

			ck_assert_msg(strcmp(one, more) == 0, "shape %d, %u threads",
				      shape, threads);
			free(more);
		}
		free(one);
		unlink(path);
		free(path);
		pb_free(&bytes);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("deferred");
	TCase *tc = tcase_create("same answers");
	SRunner *sr;
	int failed;

	/* every damaged copy is now salvaged and reported in full, both ways:
	 * slow under tsan and valgrind */
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, test_same_report, 0,
			    sizeof(captures) / sizeof(captures[0]));
	tcase_add_test(tc, test_same_errors);
	tcase_add_test(tc, test_same_rows_on_threads);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
