/*
 * retry.c - when a failed request is worth another attempt, and how long
 * to wait first.
 *
 * Retried: 408, 429 and 5xx answers, and connections that dropped or
 * stalled (reset mid-body, empty reply, idle timeout). Not retried: a
 * refused connection, DNS and TLS failures, other 4xx, and answers that
 * arrived whole but were wrong (content type, size, corrupt gzip), since
 * asking again would get the same. The wait doubles per attempt from a
 * base, with jitter so parallel transfers do not retry in lockstep; a
 * server's Retry-After (in seconds) takes its place.
 */
#include "tpuprof/fetch/http.h"

#include "curl_api.h"
#include <errno.h>
#include <stdlib.h>

long tp_http_backoff_ms(unsigned attempt, long base_ms, long max_ms,
			long retry_after_ms, double jitter01)
{
	double d = (double)base_ms;

	if (retry_after_ms >= 0)
		return retry_after_ms < max_ms ? retry_after_ms : max_ms;
	for (unsigned i = 1; i < attempt && d < (double)max_ms; i++)
		d *= 2;
	if (d > (double)max_ms)
		d = (double)max_ms;
	if (jitter01 < 0)
		jitter01 = 0;
	if (jitter01 > 1)
		jitter01 = 1;
	return (long)(d * (0.5 + jitter01 / 2));
}

long tp_http_parse_retry_after(const char *value)
{
	char *end;
	long s;

	while (*value == ' ' || *value == '\t')
		value++;
	if (*value < '0' || *value > '9')
		return -1;          /* an HTTP date: use our own backoff */
	errno = 0;
	s = strtol(value, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
		end++;
	if (errno || *end || s > 86400)
		return -1;
	return s * 1000;
}

bool tp_http_status_retryable(long status)
{
	return status == 408 || status == 429 || (status >= 500 && status <= 599);
}

bool tp_http_curl_retryable(int curl_code)
{
	switch ((CURLcode)curl_code) {
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_PARTIAL_FILE:
	case CURLE_GOT_NOTHING:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}
