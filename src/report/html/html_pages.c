/*
 * html_pages.c - a command's page (html.h): its documents, which
 * src/report/write.c builds with the JSON writers, under one envelope
 * with the capture's files, around which html.c writes the page.
 */
#include "tpuprof/report/html.h"

#include <stdio.h>

#include "tpuprof/report/report.h"

/* The envelope, with the capture's files for the page's title. */
static json_t *envelope(const char *page, const struct tp_capture *cap)
{
	json_t *d = json_object(), *files = json_array();

	json_object_set_new(d, "schema", json_string(TP_HTML_SCHEMA));
	json_object_set_new(d, "page", json_string(page));
	for (size_t i = 0; cap && i < cap->n_sources; i++)
		json_array_append_new(files, tp_json_cstr(cap->sources[i].path));
	json_object_set_new(d, "sources", files);
	return d;
}

enum tp_err tp_html_page(FILE *out, const char *page, const struct tp_capture *cap,
			 const struct tp_html_part *parts, size_t n, struct tp_error *err)
{
	json_t *d = envelope(page, cap);
	char title[64];
	enum tp_err rc;

	for (size_t i = 0; i < n; i++)
		if (parts[i].doc)
			json_object_set(d, parts[i].key, parts[i].doc);
	snprintf(title, sizeof(title), "tpuprof %s", page);
	rc = tp_html_write(out, title, d, err);
	json_decref(d);
	return rc;
}
