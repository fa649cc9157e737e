/*
 * capture_lists.c - appending to a capture's lists (notes for the user,
 * modules), shared by the files that fill a capture.
 */
#include "capture_internal.h"

#include <stdarg.h>
#include <stdio.h>

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
