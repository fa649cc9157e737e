/*
 * report_input.c - an input argument read once and recognised: a saved
 * report (JSON whose first non-blank byte is '{') or a capture. A
 * regular file is looked at and, when a capture, left to the capture
 * reader to map; a stream (standard input, a pipe, a FIFO) cannot be
 * read twice, so the bytes looked at are kept as its head and the
 * capture reader continues from them (tp_open_opts.heads). Whether a
 * document is a report tpuprof reads (tp_report_schema_ok) is said here
 * too, for the readers above: report_load.c, merge.c.
 */
#include "tpuprof/report/report_input.h"
#include "tpuprof/report/report_doc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tpuprof/util/util.h"

#define CHUNK (64u << 10)

static const char *shown(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

/* Appends what one read() gives; *got 0 at the end. */
static enum tp_err read_more(int fd, const char *path, uint8_t **buf, size_t *len,
			     size_t *cap, size_t *got, struct tp_error *err)
{
	ssize_t n;

	*buf = tp_xgrow(*buf, cap, *len + CHUNK, 1);
	do
		n = read(fd, *buf + *len, *cap - *len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return tp_error_set(err, TP_ERR_INPUT, "%s: cannot read: %s", shown(path),
				    strerror(errno));
	*got = (size_t)n;
	*len += *got;
	return TP_OK;
}

/* The first non-blank byte of buf[0..len), or -1 when all are blank. */
static int first_byte(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\r\n", buf[i]) || !buf[i])
			return buf[i];
	return -1;
}

const char *tp_report_part_of(const char *schema, const char *want)
{
	static const char *const parts[] = { "ops", "memory", "collectives" };
	char s[64];

	for (size_t i = 0; schema && i < 3; i++) {
		snprintf(s, sizeof(s), "tpuprof.%s/1", parts[i]);
		if (strcmp(schema, s) == 0 && (!want || strcmp(want, parts[i]) == 0))
			return parts[i];
	}
	return NULL;
}

static enum tp_err parse_doc(json_t **out, const char *name, const char *bytes, size_t len,
			     bool parts, struct tp_error *err)
{
	json_error_t je;
	json_t *doc = json_loadb(bytes, len, 0, &je);
	const char *schema;

	*out = NULL;
	if (!doc)
		return tp_error_set(err, TP_ERR_INPUT, "%s: not a valid JSON report (line %d: %s)",
				    name, je.line, je.text);
	schema = json_string_value(json_object_get(doc, "schema"));
	if (!tp_report_schema_ok(schema) && !(parts && tp_report_part_of(schema, NULL))) {
		/* the message first: schema points into doc */
		tp_error_set(err, TP_ERR_INPUT,
			     "%s: not a tpuprof report%s (schema %s; make one with 'tpuprof report --format json')",
			     name, parts ? " or a tpuprof.ops, memory or collectives document" : "",
			     schema ? schema : "missing");
		json_decref(doc);
		return TP_ERR_INPUT;
	}
	if (tp_report_doc_figures_ok(doc, name, err) != TP_OK) {
		json_decref(doc);
		return TP_ERR_INPUT;
	}
	*out = doc;
	return TP_OK;
}

enum tp_err tp_report_doc_parse(json_t **out, const char *name, const char *bytes, size_t len,
				struct tp_error *err)
{
	return parse_doc(out, name, bytes, len, false, err);
}

/* The rest of a JSON input, then the document. */
static enum tp_err read_report(struct tp_report_input *in, int fd, uint8_t *buf, size_t len,
			       size_t cap, uint64_t max, struct tp_error *err)
{
	enum tp_err rc = TP_OK;
	size_t got = 1;

	while (rc == TP_OK && got) {
		if (len > max) {
			rc = tp_error_set(err, TP_ERR_INPUT,
					  "%s: input larger than the limit of %llu bytes (see --max-input)",
					  shown(in->path), (unsigned long long)max);
			break;
		}
		rc = read_more(fd, in->path, &buf, &len, &cap, &got, err);
	}
	if (rc == TP_OK)
		rc = parse_doc(&in->doc, shown(in->path), (const char *)buf, len, in->parts, err);
	free(buf);
	return rc;
}

static enum tp_err input_open(struct tp_report_input *in, const char *path, uint64_t max,
			      bool parts, struct tp_error *err)
{
	bool stdin_ = strcmp(path, "-") == 0;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got = 1;
	struct stat st;
	enum tp_err rc = TP_OK;
	int fd, c = -1;

	memset(in, 0, sizeof(*in));
	in->path = path;
	in->parts = parts;
	in->head.fd = -1;
	if (!stdin_ && (stat(path, &st) != 0 || S_ISDIR(st.st_mode)))
		return TP_OK;   /* a run directory, a logdir: the capture reader's */
	fd = stdin_ ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return TP_OK;   /* the capture reader says why */
	/* a stream gives what it has: read until a byte tells */
	while (rc == TP_OK && got && (c = first_byte(buf, len)) < 0 && len < CHUNK * 16)
		rc = read_more(fd, path, &buf, &len, &cap, &got, err);
	if (rc == TP_OK && c == '{') {
		rc = read_report(in, fd, buf, len, cap, max, err);
		if (!stdin_)
			close(fd);
		return rc;
	}
	if (rc != TP_OK || (!stdin_ && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))) {
		free(buf);      /* a file: mapped by the capture reader */
		if (!stdin_)
			close(fd);
		return rc;
	}
	in->head = (struct tp_stream_head){ path, fd, buf, len };
	in->own_fd = !stdin_;
	return TP_OK;
}

enum tp_err tp_report_input_open(struct tp_report_input *in, const char *path, uint64_t max,
				 struct tp_error *err)
{
	return input_open(in, path, max, false, err);
}

enum tp_err tp_report_input_open_any(struct tp_report_input *in, const char *path,
				     uint64_t max, struct tp_error *err)
{
	return input_open(in, path, max, true, err);
}

void tp_report_input_release(struct tp_report_input *in)
{
	json_decref(in->doc);
	free((void *)in->head.bytes);
	if (in->own_fd && in->head.fd >= 0)
		close(in->head.fd);
	memset(in, 0, sizeof(*in));
}

bool tp_report_schema_ok(const char *schema)
{
	return schema && (strcmp(schema, TP_REPORT_SCHEMA) == 0 ||
			  strcmp(schema, "tpuprof.report/1") == 0);
}
