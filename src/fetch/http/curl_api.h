/*
 * curl_api.h - the libcurl functions the transfer engine calls, loaded
 * from libcurl.so.4 with dlopen when the first transfer starts, not
 * linked: libcurl and the 30 libraries it brings (TLS, Kerberos, LDAP,
 * SSH) cost every tpuprof process about 3 ms of dynamic linking before
 * main, and only `fetch` and URL inputs use them (docs/performance.md,
 * "Start-up"). Private to src/fetch/http/.
 *
 * Files that call libcurl include this header instead of <curl/curl.h>:
 * the names below stand for the loaded functions. tp_curl_load() must
 * have succeeded before any of them is called.
 */
#ifndef TPUPROF_CURL_API_H
#define TPUPROF_CURL_API_H

/* calls go through pointers: curl.h's type-checking macros would name
 * the functions themselves */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <stdbool.h>

#include "tpuprof/util/error.h"

struct tp_curl_api {
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
	CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode code);
	void (*easy_cleanup)(CURL *h);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_add_handle)(CURLM *m, CURL *h);
	CURLMcode (*multi_remove_handle)(CURLM *m, CURL *h);
	CURLMcode (*multi_perform)(CURLM *m, int *running);
	CURLMcode (*multi_poll)(CURLM *m, struct curl_waitfd extra[], unsigned int n,
				int timeout_ms, int *ret);
	CURLMsg *(*multi_info_read)(CURLM *m, int *left);
	CURLMcode (*multi_cleanup)(CURLM *m);
};

/* Filled by tp_curl_load; all NULL before. */
extern struct tp_curl_api tp_curl;

/* Loads libcurl once (later calls return the first answer). False, with
 * err set (TP_ERR_NETWORK: "cannot load libcurl ..."), when the library
 * or one of its functions is missing. */
bool tp_curl_load(struct tp_error *err);

#ifndef TPUPROF_CURL_API_SELF
/* curl.h may define these two as macros of themselves */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init (*tp_curl.global_init)
#define curl_global_cleanup (*tp_curl.global_cleanup)
#define curl_easy_init (*tp_curl.easy_init)
#define curl_easy_setopt (*tp_curl.easy_setopt)
#define curl_easy_getinfo (*tp_curl.easy_getinfo)
#define curl_easy_strerror (*tp_curl.easy_strerror)
#define curl_easy_cleanup (*tp_curl.easy_cleanup)
#define curl_slist_append (*tp_curl.slist_append)
#define curl_slist_free_all (*tp_curl.slist_free_all)
#define curl_multi_init (*tp_curl.multi_init)
#define curl_multi_add_handle (*tp_curl.multi_add_handle)
#define curl_multi_remove_handle (*tp_curl.multi_remove_handle)
#define curl_multi_perform (*tp_curl.multi_perform)
#define curl_multi_poll (*tp_curl.multi_poll)
#define curl_multi_info_read (*tp_curl.multi_info_read)
#define curl_multi_cleanup (*tp_curl.multi_cleanup)
#endif

#endif
