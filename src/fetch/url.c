/*
 * url.c - percent-encoding, query parameters, and the URL shapes of the
 * fetch sources: an http(s) base (with TensorBoard's --path_prefix kept),
 * gs://bucket/path, and the GCS endpoint (STORAGE_EMULATOR_HOST).
 *
 * Every query value is percent-encoded: run names hold '/', old tool
 * names end in '^', legacy ones in '#' (which would start a fragment).
 */
#include "tpuprof/fetch/fetch_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tpuprof/util/util.h"

static bool unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	       c == '~';
}

char *tp_url_escape(const char *s, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);
	char *out = tp_xmalloc(n * 3 + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (unreserved(c) || (keep_slash && c == '/')) {
			*o++ = (char)c;
		} else {
			*o++ = '%';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
		}
	}
	*o = '\0';
	return out;
}

char *tp_url_unescape(const char *s)
{
	char *out = tp_xmalloc(strlen(s) + 1), *o = out;

	while (*s) {
		int hi, lo;

		if (s[0] == '%' && (hi = tp_hex_digit(s[1])) >= 0 &&
		    (lo = tp_hex_digit(s[2])) >= 0) {
			*o++ = (char)(hi * 16 + lo);
			s += 3;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

void tp_url_add_param(char **url, const char *key, const char *value)
{
	char *v = tp_url_escape(value, false);
	char *next = tp_xasprintf("%s%c%s=%s", *url,
				  strchr(*url, '?') ? '&' : '?', key, v);

	free(v);
	free(*url);
	*url = next;
}

/* Where host[:port] starts and ends in url ("scheme://[userinfo@]host..."). */
static bool authority(const char *url, const char **host, const char **end)
{
	const char *a = strstr(url, "://"), *e, *at;

	if (!a)
		return false;
	a += 3;
	e = a + strcspn(a, "/?#");
	at = memchr(a, '@', (size_t)(e - a));
	/* The last '@' before the path ends the userinfo. */
	while (at) {
		a = at + 1;
		at = memchr(a, '@', (size_t)(e - a));
	}
	*host = a;
	*end = e;
	return true;
}

char *tp_url_shown(const char *url)
{
	const char *host, *end, *scheme_end = strstr(url, "://");

	if (!authority(url, &host, &end) || host == scheme_end + 3)
		return tp_xstrdup(url);
	return tp_xasprintf("%.*s%s", (int)(scheme_end + 3 - url), url, host);
}

/* Drops a trailing /data/plugin/profile[/anything] (a plugin route given
 * by mistake, or the UI's iframe URL) and trailing slashes. */
static void trim_plugin_path(char *path)
{
	char *p = strstr(path, "/data/plugin/profile");
	size_t n;

	if (p && (p[20] == '\0' || p[20] == '/'))
		*p = '\0';
	n = strlen(path);
	while (n > 0 && path[n - 1] == '/')
		path[--n] = '\0';
}

/* The run= of the query or the fragment after the path (XProf's browser
 * URL: `/?run=2024_05_01_09_00_00&tool=overview_page`), %XX decoded;
 * malloc'd, or NULL. */
static char *run_param(const char *rest)
{
	const char *p = rest;

	while ((p = strstr(p, "run=")) != NULL) {
		if (p > rest && (p[-1] == '?' || p[-1] == '&' || p[-1] == '#')) {
			char *raw = tp_xasprintf("%.*s", (int)strcspn(p + 4, "&#"), p + 4);
			char *out = tp_url_unescape(raw);

			free(raw);
			if (*out)
				return out;
			free(out);
		}
		p += 4;
	}
	return NULL;
}

/* What is wrong with a URL's host[:port], [v6][:port] included, or NULL:
 * caught here as a usage error (exit 2), not by libcurl as a network one. */
static const char *bad_host_port(const char *host, const char *end)
{
	const char *colon = NULL, *p;
	long port = 0;

	if (*host == '[') {
		const char *close = memchr(host, ']', (size_t)(end - host));

		if (!close)
			return "an IPv6 address without its closing ']'";
		if (close + 1 < end && close[1] != ':')
			return "characters after the IPv6 address";
		colon = close + 1 < end ? close + 1 : NULL;
	} else {
		colon = memchr(host, ':', (size_t)(end - host));
	}
	if (!colon)
		return NULL;
	if (colon + 1 == end)
		return NULL;                 /* "host:" : the scheme's port */
	for (p = colon + 1; p < end; p++) {
		if (*p < '0' || *p > '9')
			return "a port that is not a number";
		port = port * 10 + (*p - '0');
		if (port > 65535)
			break;
	}
	return port < 1 || port > 65535 ? "a port out of range (1 to 65535)" : NULL;
}

enum tp_err tp_url_split(const char *url, struct tp_url_parts *out,
			 struct tp_error *err)
{
	const char *host, *end, *why;
	char *path;

	memset(out, 0, sizeof(*out));
	if (strncasecmp(url, "http://", 7) == 0)
		out->https = false;
	else if (strncasecmp(url, "https://", 8) == 0)
		out->https = true;
	else
		return tp_error_set(err, TP_ERR_USAGE,
				    "'%s' is not an http:// or https:// URL", url);
	if (!authority(url, &host, &end) || host == end)
		return tp_error_set(err, TP_ERR_USAGE, "'%s': no host in URL", url);
	if ((why = bad_host_port(host, end)))
		return tp_error_set(err, TP_ERR_USAGE, "'%s': %s", url, why);
	/* userinfo stays in origin (curl sends it); messages use
	 * tp_url_shown(), which drops it. */
	out->origin = tp_xasprintf("%.*s", (int)(end - url), url);
	out->path = tp_xasprintf("%.*s", (int)strcspn(end, "?#"), end);
	out->run = run_param(end + strlen(out->path));
	path = tp_xstrdup(out->path);
	trim_plugin_path(path);
	out->base = tp_xasprintf("%s%s", out->origin, path);
	free(path);
	return TP_OK;
}

void tp_url_parts_release(struct tp_url_parts *p)
{
	free(p->base);
	free(p->path);
	free(p->origin);
	free(p->run);
	memset(p, 0, sizeof(*p));
}

enum tp_err tp_gs_split(const char *url, char **bucket, char **path,
			struct tp_error *err)
{
	const char *b, *slash;
	size_t n;

	*bucket = *path = NULL;
	if (strncmp(url, "gs://", 5) != 0)
		return tp_error_set(err, TP_ERR_USAGE, "'%s' is not a gs:// URL", url);
	b = url + 5;
	slash = strchr(b, '/');
	n = slash ? (size_t)(slash - b) : strlen(b);
	if (n == 0)
		return tp_error_set(err, TP_ERR_USAGE, "'%s': no bucket name", url);
	*bucket = tp_xasprintf("%.*s", (int)n, b);
	b = slash ? slash : b + n;
	while (*b == '/')
		b++;
	*path = tp_xstrdup(b);
	n = strlen(*path);
	while (n > 0 && (*path)[n - 1] == '/')
		(*path)[--n] = '\0';
	return TP_OK;
}

char *tp_gcs_endpoint(const char *emulator_host)
{
	char *ep;
	size_t n;

	if (!emulator_host || !*emulator_host)
		return tp_xstrdup("https://storage.googleapis.com");
	if (strstr(emulator_host, "://"))
		ep = tp_xstrdup(emulator_host);
	else
		ep = tp_xasprintf("http://%s", emulator_host);
	n = strlen(ep);
	while (n > 0 && ep[n - 1] == '/')
		ep[--n] = '\0';
	return ep;
}
