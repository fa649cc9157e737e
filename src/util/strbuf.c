/*
 * strbuf.c - growable strings (see strbuf.h).
 */
#include "tpuprof/util/strbuf.h"
#include "tpuprof/util/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tp_strbuf_init(struct tp_strbuf *sb)
{
	sb->cap = 64;
	sb->len = 0;
	sb->buf = tp_xmalloc(sb->cap);
	sb->buf[0] = '\0';
}

void tp_strbuf_release(struct tp_strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void tp_strbuf_reset(struct tp_strbuf *sb)
{
	sb->len = 0;
	sb->buf[0] = '\0';
}

void tp_strbuf_add(struct tp_strbuf *sb, const char *p, size_t n)
{
	sb->buf = tp_xgrow(sb->buf, &sb->cap, sb->len + n + 1, 1);
	memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void tp_strbuf_adds(struct tp_strbuf *sb, const char *s)
{
	tp_strbuf_add(sb, s, strlen(s));
}

void tp_strbuf_addf(struct tp_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sb->cap - sb->len) {
		sb->buf = tp_xgrow(sb->buf, &sb->cap, sb->len + (size_t)n + 1, 1);
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

char *tp_strbuf_detach(struct tp_strbuf *sb)
{
	char *s = sb->buf;

	tp_strbuf_init(sb);
	return s;
}
