/*
 * riegeli_window.c - an input file's 64 KiB blocks read with pread into
 * a buffer of a few blocks, for the walk over an uncompressed chunk
 * (riegeli_compact.c). Reading the blocks through the mapping instead
 * faults every page of the file into the process once for the walk and
 * once more for the view, which the walk cannot keep them for (the
 * peak): on a 200 MB capture that cost 0.12 s of CPU against the
 * pread's 0.03 s (docs/performance.md, "Issue 38, seventeenth
 * session"), and the merge's own faults besides.
 * It calls nothing else of the folder but the buffers of riegeli_buf.c.
 */
#include "riegeli_internal.h"

#include <string.h>
#include <unistd.h>

/* How many blocks one read fills at most: 256 KiB, the hash's reach
 * ahead of the walk. */
#define READ_BLOCKS 4

void rg_window_open(struct rg_window *w, const uint8_t *file, uint64_t size,
		    int fd)
{
	if (w->file != file || w->size != size || w->fd != fd)
		memset(w->tag, 0, sizeof(w->tag));
	w->file = file;
	w->size = size;
	w->fd = fd;
}

/* Blocks blk on (as many as fit before the buffer's end, READ_BLOCKS at
 * most, none past the file's end) read into their slots: false when the
 * read fails or falls short (the file changed under its mapping). */
static bool fill(struct rg_window *w, uint64_t blk)
{
	uint64_t slot = blk % RG_WINDOW_BLOCKS, at = blk * RG_BLOCK;
	uint64_t n = RG_WINDOW_BLOCKS - slot, want;
	ssize_t got;

	if (!w->buf.p)
		rg_big_alloc(&w->buf, (size_t)(RG_WINDOW_BLOCKS * RG_BLOCK));
	if (n > READ_BLOCKS)
		n = READ_BLOCKS;
	want = w->size - at < n * RG_BLOCK ? w->size - at : n * RG_BLOCK;
	got = pread(w->fd, w->buf.p + slot * RG_BLOCK, (size_t)want, (off_t)at);
	if (got < 0 || (uint64_t)got != want)
		return false;
	for (uint64_t i = 0; i * RG_BLOCK < want; i++)
		w->tag[slot + i] = blk + i + 1;
	return true;
}

const uint8_t *rg_window_at(struct rg_window *w, uint64_t pos)
{
	uint64_t blk = pos / RG_BLOCK, slot = blk % RG_WINDOW_BLOCKS;

	if (w->fd < 0 || pos >= w->size)
		return w->file + pos;
	if (w->tag[slot] != blk + 1 && !fill(w, blk)) {
		/* the mapping from here on: it says what the file holds */
		w->fd = -1;
		return w->file + pos;
	}
	return w->buf.p + slot * RG_BLOCK + pos % RG_BLOCK;
}

void rg_window_free(struct rg_window *w)
{
	rg_big_free(&w->buf);
	*w = (struct rg_window){ .fd = -1 };
}
