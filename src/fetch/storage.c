/*
 * storage.c - the raw files of a run in a logdir this machine can read
 * (a TensorBoard's data_location on a shared disk). They are copied
 * through the same transfer engine as downloads (file:// URLs), so they
 * get the same checks, size limit, progress and atomic rename.
 */
#include "fetch_internal.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_local(struct fetch_ctx *c, const char *dir, const char *name)
{
	size_t slen;
	int kind = tp_fetch_file_kind(name, &slen);
	char *path = tp_xasprintf("%s/%s", dir, name);
	char *esc = tp_url_escape(path, true);
	char *url = tp_xasprintf("file://%s", esc);
	char *stem = tp_xasprintf("%.*s", (int)(strlen(name) - slen), name);

	tp_fetch_plan_add(c, (enum tp_fetch_kind)kind, "file", stem,
			  name + strlen(name) - slen, NULL, url, AUTH_NONE);
	free(stem);
	free(url);
	free(esc);
	free(path);
}

size_t tp_fetch_local_run(struct fetch_ctx *c, const char *dir)
{
	DIR *d = opendir(dir);
	struct tp_strlist names = { 0 };
	struct dirent *e;
	size_t slen, found;

	if (!d)
		return 0;           /* the caller says it was not readable */
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && tp_fetch_file_kind(e->d_name, &slen) >= 0)
			tp_strlist_push(&names, e->d_name);
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.n; i++)
		add_local(c, dir, names.v[i]);
	found = names.n;
	tp_strlist_release(&names);
	return found;
}
