/*
 * fuzz_oom.c - libFuzzer target for `tpuprof oom`'s report reader: the
 * bytes fed to the stream reader in pieces (the first byte sets their
 * size, so a line, a headline or a size can be split anywhere), every
 * report found parsed and explained (with no device and with --device
 * v3), and written as text and tpuprof.oom/1 JSON into /dev/null. No
 * crash, leak or sanitizer report; and no invented figure: every printed
 * figure's text (white space dropped) must occur in the input with white
 * space and the marks the reader removes (`*`, backquotes, backslashes,
 * NUL) dropped too.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/report/oom_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

/* s without white space and the reader's removed marks, into a new string */
static char *squeeze(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' ||
		    c == '*' || c == '`' || c == '\\' || c == '\0')
			continue;
		*o++ = c;
	}
	*o = '\0';
	return out;
}

static void no_invented_figure(const struct tp_oom_report *r, const char *input)
{
	for (int f = 0; f < TP_OOM_FIG_N; f++) {
		char *t;

		if (!r->fig[f].present)
			continue;
		t = squeeze(r->fig[f].text, strlen(r->fig[f].text));
		if (!strstr(input, t)) {
			fprintf(stderr, "figure %s '%s' is not in the input\n", tp_oom_fig_name(f), t);
			abort();
		}
		free(t);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_oom_file file = { "fuzz.log", { 0 } };
	struct tp_oom_explain *ex;
	struct tp_oom_result res;
	size_t piece, *ex_file;
	char *input;
	struct tp_jw w;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (size == 0)
		return 0;
	piece = (size_t)data[0] % 64 + 1;
	data++;
	size--;
	input = squeeze((const char *)data, size);
	tp_oom_log_init(&file.log);
	for (size_t at = 0; at < size; at += piece)
		tp_oom_feed(&file.log, (const char *)data + at, size - at < piece ? size - at : piece);
	tp_oom_finish(&file.log);
	ex = calloc(file.log.n + 1, sizeof(*ex));
	ex_file = calloc(file.log.n + 1, sizeof(*ex_file));
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < file.log.n; i++) {
			no_invented_figure(&file.log.reports[i], input);
			tp_oom_explain(&ex[i], &file.log.reports[i], pass ? tp_device_lookup("v3") : NULL);
		}
		res = (struct tp_oom_result){ &file, 1, ex, ex_file, file.log.n };
		tp_oom_text(devnull, &res, NULL);
		tp_jw_init(&w, devnull);
		tp_oom_json(&w, NULL, &res);
		tp_jw_finish(&w, NULL);
		if (file.log.n >= 2)
			tp_oom_diff_text(devnull, &ex[0], "a", &ex[1], "b", NULL);
		for (size_t i = 0; i < file.log.n; i++)
			tp_oom_explain_release(&ex[i]);
	}
	free(ex);
	free(ex_file);
	free(input);
	tp_oom_log_release(&file.log);
	return 0;
}
