/*
 * check_fetch_http.c - issue 5: the pieces of the transfer engine that do
 * not need a network: backoff, which failures are retried, content-type
 * and first-byte checks, and the gzip decoder (truncation, several
 * members, size limit). The engine itself runs against the test server
 * in tests/fetch/run.sh; here only a file:// copy exercises it.
 */
#include "testutil.h"

#include <curl/curl.h>
#include <sys/stat.h>
#include <zlib.h>

#include "tpuprof/fetch/http.h"

static const struct {
	unsigned attempt;
	long base, max, retry_after;
	double jitter;
	long want;
} backoff_cases[] = {
	{ 1, 1000, 30000, -1, 1.0, 1000 },
	{ 2, 1000, 30000, -1, 1.0, 2000 },
	{ 3, 1000, 30000, -1, 1.0, 4000 },
	{ 3, 1000, 30000, -1, 0.0, 2000 },     /* jitter halves at most */
	{ 10, 1000, 30000, -1, 1.0, 30000 },   /* capped */
	{ 60, 1000, 30000, -1, 1.0, 30000 },   /* no overflow */
	{ 1, 0, 30000, -1, 1.0, 0 },
	{ 4, 1000, 30000, 0, 1.0, 0 },         /* Retry-After: 0 */
	{ 1, 1000, 30000, 5000, 0.3, 5000 },   /* Retry-After wins */
	{ 1, 1000, 30000, 120000, 1.0, 30000 },/* ... but is capped */
	{ 2, 50, 30000, -1, 7.0, 100 },        /* jitter clamped to 1 */
};

START_TEST(test_backoff)
{
	ck_assert_int_eq(tp_http_backoff_ms(backoff_cases[_i].attempt, backoff_cases[_i].base,
					    backoff_cases[_i].max, backoff_cases[_i].retry_after,
					    backoff_cases[_i].jitter),
			 backoff_cases[_i].want);
}
END_TEST

static const struct {
	const char *value;
	long ms;
} retry_after_cases[] = {
	{ "0", 0 }, { " 3", 3000 }, { "120\r\n", 120000 },
	{ "Wed, 21 Oct 2015 07:28:00 GMT", -1 }, { "-1", -1 }, { "1x", -1 },
	{ "999999", -1 },
};

START_TEST(test_retry_after)
{
	ck_assert_int_eq(tp_http_parse_retry_after(retry_after_cases[_i].value),
			 retry_after_cases[_i].ms);
}
END_TEST

static const struct {
	long status;
	bool retry;
} status_cases[] = {
	{ 200, false }, { 404, false }, { 401, false }, { 403, false },
	{ 408, true }, { 429, true }, { 500, true }, { 502, true },
	{ 503, true }, { 504, true }, { 599, true }, { 600, false },
};

START_TEST(test_status_retry)
{
	ck_assert_int_eq(tp_http_status_retryable(status_cases[_i].status),
			 status_cases[_i].retry);
}
END_TEST

static const struct {
	int code;
	bool retry;
} curl_cases[] = {
	{ CURLE_RECV_ERROR, true }, { CURLE_PARTIAL_FILE, true },
	{ CURLE_GOT_NOTHING, true }, { CURLE_SEND_ERROR, true },
	{ CURLE_OPERATION_TIMEDOUT, true }, { CURLE_COULDNT_CONNECT, false },
	{ CURLE_COULDNT_RESOLVE_HOST, false }, { CURLE_PEER_FAILED_VERIFICATION, false },
	{ CURLE_WRITE_ERROR, false }, { CURLE_OK, false },
};

START_TEST(test_curl_retry)
{
	ck_assert_int_eq(tp_http_curl_retryable(curl_cases[_i].code), curl_cases[_i].retry);
}
END_TEST

static const struct {
	enum tp_http_expect expect;
	const char *ctype;
	const char *why;   /* NULL = fits; else a part of the reason */
} type_cases[] = {
	{ TP_EXPECT_JSON, "application/json", NULL },
	{ TP_EXPECT_JSON, "application/vnd.api+json", NULL },
	{ TP_EXPECT_JSON, "text/html", "an HTML page (text/html), not JSON" },
	{ TP_EXPECT_JSON, "text/plain", "content type text/plain, not JSON" },
	{ TP_EXPECT_JSON, NULL, "content type (none), not JSON" },
	{ TP_EXPECT_TEXT, "text/plain", NULL },
	{ TP_EXPECT_TEXT, "application/json", "not text/plain" },
	{ TP_EXPECT_HTML, "text/html", NULL },
	{ TP_EXPECT_XSPACE, "application/octet-stream", NULL },
	{ TP_EXPECT_XSPACE, "application/x-protobuf", NULL },
	{ TP_EXPECT_XSPACE, NULL, NULL },
	{ TP_EXPECT_XSPACE, "text/html", "an HTML page (text/html), not an XSpace" },
	{ TP_EXPECT_XSPACE, "application/json", "not an XSpace" },
	{ TP_EXPECT_HLO, "text/plain", "not an HloProto" },
	{ TP_EXPECT_ANY, "text/html", NULL },
};

START_TEST(test_type)
{
	const char *why = tp_http_type_mismatch(type_cases[_i].expect, type_cases[_i].ctype);

	if (!type_cases[_i].why)
		ck_assert_ptr_null(why);
	else
		ck_assert_msg(why && strstr(why, type_cases[_i].why), "%s", why ? why : "(fits)");
}
END_TEST

static const struct {
	enum tp_http_expect expect;
	const char *bytes;
	size_t n;
	const char *why;
} content_cases[] = {
	{ TP_EXPECT_XSPACE, "\x0a\x05", 2, NULL },
	{ TP_EXPECT_XSPACE, "\x22\x01", 2, NULL },
	{ TP_EXPECT_XSPACE, "\x1f\x8b", 2, NULL },
	{ TP_EXPECT_XSPACE, "", 0, NULL },
	{ TP_EXPECT_XSPACE, "<html>", 6, "(first byte 0x3c '<')" },
	{ TP_EXPECT_XSPACE, "\x08\x01", 2, "(first byte 0x08)" },
	{ TP_EXPECT_HLO, "\x0a\x00", 2, NULL },
	{ TP_EXPECT_HLO, "\x12\x00", 2, "does not start like an HloProto" },
	{ TP_EXPECT_JSON, "<", 1, NULL },
};

START_TEST(test_content)
{
	const char *why = tp_http_content_mismatch(content_cases[_i].expect,
						   (const unsigned char *)content_cases[_i].bytes,
						   content_cases[_i].n);

	if (!content_cases[_i].why)
		ck_assert_ptr_null(why);
	else
		ck_assert_msg(why && strstr(why, content_cases[_i].why), "%s", why ? why : "(fits)");
}
END_TEST

struct sink_buf {
	char data[4096];
	size_t n;
};

static int to_buf(void *ctx, const void *p, size_t n)
{
	struct sink_buf *b = ctx;

	ck_assert_uint_le(b->n + n, sizeof(b->data));
	memcpy(b->data + b->n, p, n);
	b->n += n;
	return TP_OK;
}

static size_t gzip_of(const char *text, unsigned char *out, size_t cap)
{
	z_stream z;
	size_t n;

	memset(&z, 0, sizeof(z));
	ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (unsigned char *)(uintptr_t)text;
	z.avail_in = (uInt)strlen(text);
	z.next_out = out;
	z.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	n = cap - z.avail_out;
	deflateEnd(&z);
	return n;
}

/* Feeds `n` bytes in pieces of `step`, then finishes. */
static enum tp_err decode(const char *enc, const unsigned char *p, size_t n,
			  size_t step, uint64_t max, struct sink_buf *b,
			  struct tp_error *err)
{
	struct tp_body_decoder d;
	enum tp_err rc = tp_body_decoder_init(&d, enc, max, to_buf, b, err);

	for (size_t i = 0; rc == TP_OK && i < n; i += step)
		rc = tp_body_decoder_feed(&d, p + i, n - i < step ? n - i : step, err);
	if (rc == TP_OK)
		rc = tp_body_decoder_finish(&d, err);
	tp_body_decoder_release(&d);
	return rc;
}

static const size_t steps[] = { 1, 7, 4096 };

START_TEST(test_gzip_ok)
{
	static const char text[] = "{\"runs\": [\"2024_06_01_10_00_00\"]}";
	unsigned char gz[512], two[1024];
	struct sink_buf b = { .n = 0 };
	size_t n = gzip_of(text, gz, sizeof(gz));

	ck_assert_int_eq(decode("gzip", gz, n, steps[_i], 1 << 20, &b, NULL), TP_OK);
	ck_assert_uint_eq(b.n, strlen(text));
	ck_assert(memcmp(b.data, text, b.n) == 0);
	/* Two members in a row are one body. */
	memcpy(two, gz, n);
	memcpy(two + n, gz, n);
	b.n = 0;
	ck_assert_int_eq(decode("x-gzip", two, 2 * n, steps[_i], 1 << 20, &b, NULL), TP_OK);
	ck_assert_uint_eq(b.n, 2 * strlen(text));
}
END_TEST

START_TEST(test_gzip_bad)
{
	unsigned char gz[512];
	struct sink_buf b = { .n = 0 };
	struct tp_error err = { 0 };
	size_t n = gzip_of("hello, hello, hello, truncated world", gz, sizeof(gz));

	ck_assert_int_eq(decode("gzip", gz, n - 6, steps[_i], 1 << 20, &b, &err), TP_ERR_NETWORK);
	ck_assert_msg(strstr(err.msg, "truncated gzip data"), "%s", err.msg);
	gz[n / 2] ^= 0xff;
	ck_assert_int_eq(decode("gzip", gz, n, steps[_i], 1 << 20, &b, &err), TP_ERR_NETWORK);
	ck_assert_msg(strstr(err.msg, "gzip"), "%s", err.msg);
	/* Junk after a complete member is no second member. */
	n = gzip_of("ok", gz, sizeof(gz));
	memcpy(gz + n, "junk", 4);
	ck_assert_int_eq(decode("gzip", gz, n + 4, steps[_i], 1 << 20, &b, &err), TP_ERR_NETWORK);
}
END_TEST

START_TEST(test_decoder_limits)
{
	static const char text[] = "0123456789";
	unsigned char gz[128];
	struct sink_buf b = { .n = 0 };
	struct tp_error err = { 0 };
	size_t n = gzip_of(text, gz, sizeof(gz));

	ck_assert_int_eq(decode(NULL, (const unsigned char *)text, 10, 3, 10, &b, NULL), TP_OK);
	b.n = 0;
	ck_assert_int_eq(decode("identity", (const unsigned char *)text, 10, 3, 9, &b, &err),
			 TP_ERR_NETWORK);
	ck_assert_str_eq(err.msg, "the answer is larger than the limit of 9 bytes (see --max-size)");
	b.n = 0;
	ck_assert_int_eq(decode("gzip", gz, n, 5, 9, &b, &err), TP_ERR_NETWORK);
	ck_assert(strstr(err.msg, "limit of 9 bytes") != NULL);
	ck_assert_int_eq(decode("br", gz, n, 5, 9, &b, &err), TP_ERR_NETWORK);
	ck_assert_str_eq(err.msg, "unsupported Content-Encoding 'br' (only gzip was asked for)");
	/* An empty gzip body is empty, not truncated. */
	b.n = 0;
	ck_assert_int_eq(decode("gzip", gz, 0, 1, 9, &b, NULL), TP_OK);
	ck_assert_uint_eq(b.n, 0);
}
END_TEST

/* The engine on a local copy: atomic rename, content check, no .part. */
START_TEST(test_engine_file)
{
	static const unsigned char xspace[] = { 0x0a, 0x02, 0x08, 0x01 };
	char *src = write_temp(".xplane.pb", xspace, sizeof(xspace));
	char *bad = write_temp(".xplane.pb", "<html>", 6);
	char *dest = tp_xasprintf("%s.copy", src), *part = tp_xasprintf("%s.part", dest);
	char *url = tp_xasprintf("file://%s", src), *bad_url = tp_xasprintf("file://%s", bad);
	struct tp_http_config cfg;
	struct tp_http_req q;
	struct tp_error err = { 0 };
	struct stat st;

	tp_http_global_init();
	tp_http_config_init(&cfg);
	memset(&q, 0, sizeof(q));
	q.url = url;
	q.dest = dest;
	q.local_file = true;
	q.expect = TP_EXPECT_XSPACE;
	ck_assert_int_eq(tp_http_run(&cfg, &q, 1, &err), TP_OK);
	ck_assert_int_eq(stat(dest, &st), 0);
	ck_assert_int_eq(st.st_size, sizeof(xspace));
	ck_assert_uint_eq(q.bytes, sizeof(xspace));
	ck_assert_int_ne(stat(part, &st), 0);
	tp_http_req_clear(&q);
	unlink(dest);
	q.url = bad_url;
	ck_assert_int_eq(tp_http_run(&cfg, &q, 1, &err), TP_ERR_NETWORK);
	ck_assert_msg(strstr(err.msg, "does not start like an XSpace (.xplane.pb) (first byte 0x3c '<')"),
		      "%s", err.msg);
	ck_assert_int_ne(stat(dest, &st), 0);
	ck_assert_int_ne(stat(part, &st), 0);
	tp_http_req_clear(&q);
	tp_http_global_cleanup();
	unlink(src);
	unlink(bad);
	free(src);
	free(bad);
	free(dest);
	free(part);
	free(url);
	free(bad_url);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fetch_http");
	TCase *tc = tcase_create("http");

	tcase_add_loop_test(tc, test_backoff, 0, sizeof(backoff_cases) / sizeof(backoff_cases[0]));
	tcase_add_loop_test(tc, test_retry_after, 0,
			    sizeof(retry_after_cases) / sizeof(retry_after_cases[0]));
	tcase_add_loop_test(tc, test_status_retry, 0, sizeof(status_cases) / sizeof(status_cases[0]));
	tcase_add_loop_test(tc, test_curl_retry, 0, sizeof(curl_cases) / sizeof(curl_cases[0]));
	tcase_add_loop_test(tc, test_type, 0, sizeof(type_cases) / sizeof(type_cases[0]));
	tcase_add_loop_test(tc, test_content, 0, sizeof(content_cases) / sizeof(content_cases[0]));
	tcase_add_loop_test(tc, test_gzip_ok, 0, sizeof(steps) / sizeof(steps[0]));
	tcase_add_loop_test(tc, test_gzip_bad, 0, sizeof(steps) / sizeof(steps[0]));
	tcase_add_test(tc, test_decoder_limits);
	tcase_add_test(tc, test_engine_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
