/* util.c - small infrastructure for the capture generator: PRNG, arena,
 * string buffer, buffered (optionally gzip'd) output sink, varints. */
#include "gen.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- errors */

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gen_capture: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory (%zu bytes)", n);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        die("out of memory (%zu bytes)", n);
    return q;
}

/* ---------------------------------------------------------------- PRNG */

uint64_t rng_next(Rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Independent streams from one seed: mixing the stream number in through
 * one splitmix step keeps e.g. host timing independent of HLO content. */
Rng rng_make(uint64_t seed, uint64_t stream)
{
    Rng r = {seed ^ (stream * 0xD1B54A32D192ED03ull)};
    (void)rng_next(&r);
    return r;
}

uint64_t rng_below(Rng *r, uint64_t n)
{
    if (n <= 1)
        return 0;
    /* modulo bias is irrelevant for test data */
    return rng_next(r) % n;
}

int64_t rng_range(Rng *r, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    return lo + (int64_t)rng_below(r, (uint64_t)(hi - lo) + 1u);
}

/* ---------------------------------------------------------------- arena */

struct ArenaBlock {
    ArenaBlock *next;
    size_t used, cap;
    max_align_t data[];
};

#define ARENA_BLOCK (256u * 1024u)

void *arena_alloc(Arena *a, size_t n)
{
    size_t align = sizeof(max_align_t);
    n = (n + align - 1) / align * align;
    if (n == 0)
        n = align;
    ArenaBlock *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        b = xmalloc(sizeof(ArenaBlock) + cap);
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

void *arena_memdup(Arena *a, const void *p, size_t n)
{
    void *q = arena_alloc(a, n);
    if (n)
        memcpy(q, p, n);
    return q;
}

char *arena_strdup(Arena *a, const char *s)
{
    return arena_memdup(a, s, strlen(s) + 1);
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        die("vsnprintf failed");
    char *p = arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void arena_free(Arena *a)
{
    ArenaBlock *b = a->head;
    while (b) {
        ArenaBlock *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
}

/* ---------------------------------------------------------------- StrBuf */

static void sb_grow(StrBuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    sb->p = xrealloc(sb->p, cap);
    sb->cap = cap;
}

void sb_printf(StrBuf *sb, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        die("vsnprintf failed");
    sb_grow(sb, (size_t)n);
    vsnprintf(sb->p + sb->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    sb->len += (size_t)n;
}

void sb_puts(StrBuf *sb, const char *s)
{
    size_t n = strlen(s);
    sb_grow(sb, n);
    memcpy(sb->p + sb->len, s, n + 1);
    sb->len += n;
}

void sb_free(StrBuf *sb)
{
    free(sb->p);
    sb->p = NULL;
    sb->len = sb->cap = 0;
}

char *sb_arena(StrBuf *sb, Arena *a)
{
    return arena_strdup(a, sb->p ? sb->p : "");
}

/* ---------------------------------------------------------------- varints */

size_t pb_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

size_t pb_put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

size_t pb_len_field_size(size_t payload)
{
    return 1 + pb_varint_size(payload) + payload;
}

/* ---------------------------------------------------------------- sink */

#define SINK_BUF (1u << 20)

void sink_open(Sink *s, const char *path, int gzip, int level)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    s->f = fopen(path, "wb");
    if (!s->f)
        die("cannot create %s: %s", path, strerror(errno));
    s->cap = SINK_BUF;
    s->buf = xmalloc(s->cap);
    s->gz = gzip;
    if (gzip) {
        s->zcap = SINK_BUF;
        s->zbuf = xmalloc(s->zcap);
        /* windowBits 15 + 16 selects the gzip wrapper */
        if (deflateInit2(&s->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            die("deflateInit2 failed");
    }
}

static void sink_raw(Sink *s, const uint8_t *p, size_t n)
{
    if (n && fwrite(p, 1, n, s->f) != n)
        s->err = errno ? errno : EIO;
}

static void sink_deflate(Sink *s, const uint8_t *p, size_t n, int flush)
{
    s->z.next_in = (Bytef *)(uintptr_t)p;
    s->z.avail_in = (uInt)n;
    for (;;) {
        s->z.next_out = s->zbuf;
        s->z.avail_out = (uInt)s->zcap;
        int rc = deflate(&s->z, flush);
        if (rc == Z_STREAM_ERROR)
            die("deflate failed");
        sink_raw(s, s->zbuf, s->zcap - s->z.avail_out);
        if (flush == Z_FINISH) {
            if (rc == Z_STREAM_END)
                break;
        } else if (s->z.avail_in == 0 && s->z.avail_out != 0) {
            break;
        }
    }
}

static void sink_flush(Sink *s)
{
    if (s->gz)
        sink_deflate(s, s->buf, s->len, Z_NO_FLUSH);
    else
        sink_raw(s, s->buf, s->len);
    s->len = 0;
}

uint8_t *sink_reserve(Sink *s, size_t n)
{
    if (s->cap - s->len < n) {
        sink_flush(s);
        if (s->cap < n) {
            s->cap = n;
            s->buf = xrealloc(s->buf, n);
        }
    }
    return s->buf + s->len;
}

void sink_commit(Sink *s, size_t n)
{
    s->len += n;
    s->total += n;
}

void sink_write(Sink *s, const void *p, size_t n)
{
    const uint8_t *q = p;
    while (n) {
        if (s->len == s->cap)
            sink_flush(s);
        size_t k = s->cap - s->len;
        if (k > n)
            k = n;
        memcpy(s->buf + s->len, q, k);
        s->len += k;
        s->total += k;
        q += k;
        n -= k;
    }
}

void sink_len_header(Sink *s, unsigned field, uint64_t len)
{
    uint8_t *p = sink_reserve(s, 11);
    p[0] = (uint8_t)((field << 3) | 2u);
    sink_commit(s, 1 + pb_put_varint(p + 1, len));
}

void sink_close(Sink *s)
{
    sink_flush(s);
    if (s->gz) {
        sink_deflate(s, NULL, 0, Z_FINISH);
        deflateEnd(&s->z);
    }
    if (fclose(s->f) != 0 && !s->err)
        s->err = errno ? errno : EIO;
    free(s->buf);
    free(s->zbuf);
    s->buf = s->zbuf = NULL;
    if (s->err)
        die("write error on %s: %s", s->path, strerror(s->err));
}
