/*
 * redirect.c - redirects a transfer follows or refuses (http.c): where a
 * failed one pointed, and, for a request with the caller's headers (-H,
 * a token), the redirects followed here, to the same origin only: libcurl
 * would send those headers to any host a redirect names.
 */
#include "http_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

/* Where the last answer pointed, when it was a redirect (libcurl's): a
 * redirect libcurl took and then failed on (a scheme it refuses) is its
 * effective URL; one it did not take, the answer's Location. */
const char *tp_http_redirected_to(struct xfer *x)
{
	char *to = NULL;
	long n = 0;

	if (curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_COUNT, &n) == CURLE_OK && n > 0 &&
	    curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &to) == CURLE_OK)
		return to;
	if (curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_URL, &to) == CURLE_OK)
		return to;
	return NULL;
}

/* The scheme, host and port of url, lower case, the port said even
 * where it is the scheme's default: "http://h:80". */
static void origin_of(const char *url, char *out, size_t n)
{
	const char *p = strstr(url, "://"), *host, *end, *at;
	size_t scheme = p ? (size_t)(p - url) : 0, k = 0;
	bool port = false;

	if (!p) {
		snprintf(out, n, "%s", url);
		return;
	}
	host = p + 3;
	end = host + strcspn(host, "/?#");
	at = memchr(host, '@', (size_t)(end - host));
	if (at)
		host = at + 1;
	for (size_t i = 0; i < scheme + 3 && k + 1 < n; i++)
		out[k++] = (char)tolower((unsigned char)url[i]);
	for (const char *q = host; q < end && k + 1 < n; q++) {
		port |= *q == ':' && (q == host || host[0] != '[' || q[-1] == ']');
		out[k++] = (char)tolower((unsigned char)*q);
	}
	out[k] = '\0';
	if (!port)
		snprintf(out + k, n - k, ":%s", scheme == 5 ? "443" : "80");
}

/* A redirect of a request that carries the caller's headers: followed
 * to the same origin, else refused with where it pointed. True when the
 * attempt was one. */
bool tp_http_own_redirect(struct xfer *x)
{
	char *to = NULL, a[256], b[256];

	if (!x->req->n_headers || x->status < 300 || x->status > 308 ||
	    curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_URL, &to) != CURLE_OK || !to)
		return false;
	origin_of(x->location ? x->location : x->req->url, a, sizeof(a));
	origin_of(to, b, sizeof(b));
	if (strcmp(a, b) != 0)
		tp_error_set(&x->fail, TP_ERR_NETWORK,
			     "redirected to another host (%.200s): not followed, since the headers "
			     "it carries (-H, a token) are for the source's host only", b);
	else if (x->hops >= TP_HTTP_MAX_HOPS)
		tp_error_set(&x->fail, TP_ERR_NETWORK, "more than %ld redirects", TP_HTTP_MAX_HOPS);
	else {
		free(x->location);
		x->location = tp_xstrdup(to);
		x->hops++;
		x->redirect = true;
	}
	return true;
}
