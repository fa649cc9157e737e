/*
 * strbuf.h - a growable, always NUL-terminated string (git's strbuf idea).
 *
 * Invariant: buf is never NULL after tp_strbuf_init and always ends in
 * '\0'. The memory is malloc'd and owned by the strbuf until
 * tp_strbuf_detach() hands it to the caller. Growth never fails (OOM
 * aborts, see util.h).
 */
#ifndef TPUPROF_STRBUF_H
#define TPUPROF_STRBUF_H

#include <stddef.h>

struct tp_strbuf {
	char *buf;   /* malloc'd, NUL-terminated */
	size_t len;  /* bytes before the NUL     */
	size_t cap;  /* bytes allocated          */
};

void tp_strbuf_init(struct tp_strbuf *sb);
void tp_strbuf_release(struct tp_strbuf *sb);
void tp_strbuf_reset(struct tp_strbuf *sb);
void tp_strbuf_add(struct tp_strbuf *sb, const char *p, size_t n);
void tp_strbuf_adds(struct tp_strbuf *sb, const char *s);
void tp_strbuf_addf(struct tp_strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Returns the string (the caller frees it) and resets sb. */
char *tp_strbuf_detach(struct tp_strbuf *sb);

#endif
