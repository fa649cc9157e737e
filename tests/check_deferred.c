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
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
