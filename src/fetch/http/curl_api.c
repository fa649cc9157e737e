/*
 * curl_api.c - libcurl loaded on first use (curl_api.h says why).
 */
#define TPUPROF_CURL_API_SELF
#include "curl_api.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tp_curl_api tp_curl;

/* Each pointer of tp_curl and the symbol that fills it. */
#define SYM(field, name) { offsetof(struct tp_curl_api, field), name }
static const struct { size_t offset; const char *name; } symbols[] = {
	SYM(global_init, "curl_global_init"),
	SYM(global_cleanup, "curl_global_cleanup"),
	SYM(easy_init, "curl_easy_init"),
	SYM(easy_setopt, "curl_easy_setopt"),
	SYM(easy_getinfo, "curl_easy_getinfo"),
	SYM(easy_strerror, "curl_easy_strerror"),
	SYM(easy_cleanup, "curl_easy_cleanup"),
	SYM(slist_append, "curl_slist_append"),
	SYM(slist_free_all, "curl_slist_free_all"),
	SYM(multi_init, "curl_multi_init"),
	SYM(multi_add_handle, "curl_multi_add_handle"),
	SYM(multi_remove_handle, "curl_multi_remove_handle"),
	SYM(multi_perform, "curl_multi_perform"),
	SYM(multi_poll, "curl_multi_poll"),
	SYM(multi_info_read, "curl_multi_info_read"),
	SYM(multi_cleanup, "curl_multi_cleanup"),
};

/* The sonames libcurl 7 and 8 install under (Debian: libcurl4t64, the
 * OpenSSL build; libcurl3t64-gnutls) */
static const char *const sonames[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };

static bool loaded, failed;
static char why[200];

/* TPUPROF_LIBCURL names another build to load (a path or a soname),
 * and only that one. */
static void *open_library(void)
{
	const char *own = getenv("TPUPROF_LIBCURL");
	void *lib = NULL;
	const char *e = NULL;

	if (own && *own) {
		if (!(lib = dlopen(own, RTLD_NOW | RTLD_LOCAL)))
			e = dlerror();
	}
	for (size_t i = 0; !(own && *own) && !lib && i < sizeof(sonames) / sizeof(sonames[0]); i++)
		if (!(lib = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL)) && !e)
			e = dlerror();
	if (!lib)
		snprintf(why, sizeof(why), "%s", e ? e : "libcurl.so.4 not found");
	return lib;
}

static bool load(void)
{
	void *lib = open_library();

	if (!lib)
		return false;
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		void *f = dlsym(lib, symbols[i].name);

		if (!f) {
			snprintf(why, sizeof(why), "libcurl has no %s (libcurl 7.66 or later needed)",
				 symbols[i].name);
			return false;
		}
		/* POSIX: a dlsym result converts to a function pointer */
		memcpy((char *)&tp_curl + symbols[i].offset, &f, sizeof(f));
	}
	return true;   /* never closed: its handles live until exit */
}

bool tp_curl_load(struct tp_error *err)
{
	if (!loaded && !failed) {
		loaded = load();
		failed = !loaded;
	}
	if (failed)
		tp_error_set(err, TP_ERR_NETWORK,
			     "cannot load libcurl, which fetching needs: %s (Debian: apt-get install libcurl4)",
			     why);
	return loaded;
}
