/*
 * riegeli_buf.c - what the rest of the folder builds on: protobuf
 * written into growable buffers, the temporary files a merge spills to
 * and writes its XSpace into, and dropping a mapping's pages once read.
 * It calls nothing else of the folder.
 */
#include "riegeli_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

FILE *rg_tmpfile(void)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	int fd;
	FILE *f;

	if (!dir || !*dir)
		dir = "/tmp";
	path = tp_xasprintf("%s/tpuprof-riegeli-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	free(path);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w+b");
	if (!f)
		close(fd);
	return f;
}

void rg_drop(const uint8_t *base, uint64_t from, uint64_t to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)(base + from) + page - 1) / page * page;
	uintptr_t b = (uintptr_t)(base + to) / page * page;

	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

struct rg_span rg_spill(struct rg_model *m, const void *p, size_t n)
{
	struct rg_span s = { m->spill_size, n };

	if (n && fwrite(p, 1, n, m->spill) != n)
		m->io_failed = true;
	m->spill_size += n;
	return s;
}

void rg_put(struct rg_buf *b, const void *p, size_t n)
{
	if (!n)
		return;
	b->p = tp_xgrow(b->p, &b->cap, b->n + n, 1);
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

void rg_put_varint(struct rg_buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	do {
		t[n++] = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	rg_put(b, t, n);
}

void rg_put_tag(struct rg_buf *b, uint32_t field, unsigned type)
{
	rg_put_varint(b, (uint64_t)field << 3 | type);
}

#define LEN_ROOM 5   /* lengths under 32 GiB: every field here */

size_t rg_open_field(struct rg_buf *b, uint32_t field)
{
	size_t at;

	rg_put_tag(b, field, TP_WIRE_LEN);
	at = b->n;
	b->p = tp_xgrow(b->p, &b->cap, b->n + LEN_ROOM, 1);
	b->n += LEN_ROOM;
	return at;
}

void rg_close_field(struct rg_buf *b, size_t at)
{
	size_t len = b->n - at - LEN_ROOM, k;
	struct rg_buf t = { 0 };
	uint8_t room[10];

	t.p = room;
	t.cap = sizeof(room);
	rg_put_varint(&t, len);
	k = t.n;
	memmove(b->p + at + k, b->p + at + LEN_ROOM, len);
	memcpy(b->p + at, room, k);
	b->n = at + k + len;
}

size_t rg_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v > 0x7f) {
		v >>= 7;
		n++;
	}
	return n;
}
