/*
 * html.c - the page around the data (html.h): style, data block, script.
 * The data go through jansson's compact dump into an escaping sink, so a
 * document of any size is never held twice as text.
 */
#include "tpuprof/report/html.h"

#include <string.h>

#include "tpuprof/report/report.h"

/* The assets, compiled from src/report/html/assets/ by embed.sh. */
extern const char tp_html_css[];
extern const char tp_html_js[];

struct sink {
	FILE *out;
	bool failed;
};

/* JSON text to the page: '<', '>' and '&' occur only inside strings
 * (JSON has no such token), where \u escapes mean the same character;
 * non-ASCII is already escaped (JSON_ENSURE_ASCII). */
static int escaped_chunk(const char *buf, size_t size, void *data)
{
	struct sink *s = data;
	size_t run = 0;

	for (size_t i = 0; i < size; i++) {
		const char *esc = buf[i] == '<' ? "\\u003c" : buf[i] == '>' ? "\\u003e" :
				  buf[i] == '&' ? "\\u0026" : NULL;

		if (!esc)
			continue;
		if (fwrite(buf + run, 1, i - run, s->out) != i - run || fputs(esc, s->out) < 0)
			s->failed = true;
		run = i + 1;
	}
	if (fwrite(buf + run, 1, size - run, s->out) != size - run)
		s->failed = true;
	return s->failed ? -1 : 0;
}

static void text_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

/* The page may run inline script and style and show data: images; it
 * may load nothing at all (connect, img, font, frame: 'none'). */
static const char page_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	"script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	"<meta name=\"generator\" content=\"tpuprof\">\n<title>";

enum tp_err tp_html_write(FILE *out, const char *title, json_t *data,
			  struct tp_error *err)
{
	struct sink s = { out, false };
	json_t *packed = tp_html_pack(data);

	fputs(page_head, out);
	text_escaped(out, title);
	fputs("</title>\n<style>\n", out);
	fputs(tp_html_css, out);
	fputs("</style>\n</head>\n<body>\n<div id=\"app\"><noscript>This page needs "
	      "JavaScript.</noscript></div>\n"
	      "<script type=\"application/json\" id=\"tp-data\">", out);
	/* shares and rates are shown to 3 digits: 9 keep them exact enough
	 * and save a third of each */
	if (json_dump_callback(packed, escaped_chunk, &s,
			       JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(9)) != 0)
		s.failed = true;
	json_decref(packed);
	fputs("</script>\n<script>\n", out);
	fputs(tp_html_js, out);
	fputs("</script>\n</body>\n</html>\n", out);
	if (s.failed || ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write HTML output");
	return TP_OK;
}
