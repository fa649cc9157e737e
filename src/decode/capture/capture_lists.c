/*
 * capture_lists.c - appending to a capture's lists (notes for the user,
 * modules), shared by the files that fill a capture; the files an open
 * read (tp_file_ids).
 */
#include "capture_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void tp_capture_note(struct tp_capture *cap, const char *fmt, ...)
{
	va_list ap;
	char line[1024];

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	cap->notes = tp_xgrow(cap->notes, &cap->cap_notes, cap->n_notes + 1,
			      sizeof(*cap->notes));
	cap->notes[cap->n_notes++] = tp_xstrdup(line);
}

void tp_capture_push_module(struct tp_capture *cap, const struct tp_module *m)
{
	cap->modules = tp_xgrow(cap->modules, &cap->cap_modules,
				cap->n_modules + 1, sizeof(*cap->modules));
	cap->modules[cap->n_modules++] = *m;
}

void tp_file_ids_add(struct tp_file_ids *ids, const char *path)
{
	struct stat st;

	if (!ids || strcmp(path, "-") == 0 || stat(path, &st) != 0 ||
	    tp_file_ids_has_path(ids, path))
		return;
	ids->ids = tp_xgrow(ids->ids, &ids->cap, ids->n + 1, sizeof(*ids->ids));
	ids->ids[ids->n].dev = (uint64_t)st.st_dev;
	ids->ids[ids->n++].ino = (uint64_t)st.st_ino;
}

bool tp_file_ids_has_path(const struct tp_file_ids *ids, const char *path)
{
	struct stat st;

	if (!ids || stat(path, &st) != 0)
		return false;
	for (size_t i = 0; i < ids->n; i++)
		if (ids->ids[i].dev == (uint64_t)st.st_dev && ids->ids[i].ino == (uint64_t)st.st_ino)
			return true;
	return false;
}

void tp_file_ids_release(struct tp_file_ids *ids)
{
	free(ids->ids);
	memset(ids, 0, sizeof(*ids));
}
