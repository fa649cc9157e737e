/*
 * riegeli_buf.c - what the rest of the folder builds on: protobuf
 * written into growable buffers (and padding fields of a given size),
 * the temporary files a merge spills to and writes its XSpace into, and
 * dropping a mapping's pages once read.
 * It calls nothing else of the folder.
 */
#define _GNU_SOURCE   /* fallocate, copy_file_range: Linux only, and
			* optional (without them: plain writes) */
#include "riegeli_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* riegeli.h: a view's mapped segments */
size_t tp_riegeli_map_min_bytes = (size_t)512 << 10;
size_t tp_riegeli_max_mapped = 1024;
bool tp_riegeli_refuse_maps;
bool tp_riegeli_quick_remap = true;

uint64_t rg_past_header(uint64_t pos)
{
	uint64_t in_block = pos % RG_BLOCK;

	return in_block < RG_BLOCK_HEADER ? pos + RG_BLOCK_HEADER - in_block : pos;
}

uint64_t rg_data_run(uint64_t *pos, uint64_t n)
{
	uint64_t room;

	*pos = rg_past_header(*pos);
	room = RG_BLOCK - *pos % RG_BLOCK;
	return room < n ? room : n;
}

uint64_t rg_data_pos(uint64_t pos, uint64_t n)
{
	uint64_t room;

	pos = rg_past_header(pos);
	room = RG_BLOCK - pos % RG_BLOCK;
	if (n < room)
		return pos + n;
	n -= room;
	return (pos / RG_BLOCK + 1 + n / RG_USABLE) * RG_BLOCK +
	       RG_BLOCK_HEADER + n % RG_USABLE;
}

int64_t rg_segment_shift(const struct rg_line *l, const struct rg_segment *s)
{
	return tp_sat_mul(tp_sat_sub(s->base_ns, l->timestamp_ns), 1000);
}

FILE *rg_tmpfile(char **buf)
{
	FILE *f = tp_tmpfile();

	/* MBs are written in pieces of tens of bytes (runs of events,
	 * metadata entries): fewer, larger writes, each a piece the size
	 * RG_WRITE_PIECE says (what a read fault of the mapping maps) */
	if (buf)
		*buf = NULL;
	if (f && buf) {
		*buf = tp_xmalloc(RG_WRITE_PIECE);
		setvbuf(f, *buf, _IOFBF, RG_WRITE_PIECE);
	}
	return f;
}

void rg_note_io(int *io_errno)
{
	if (!*io_errno)
		*io_errno = errno ? errno : EIO;
}

enum tp_err rg_tmp_error(struct tp_error *err, const char *shown,
			 bool creating, int errnum)
{
	if (creating)
		return tp_error_set(err, TP_ERR_OUTPUT,
				    "%s: cannot create a temporary file in %s to merge its chunks: %s (TMPDIR names another directory)",
				    shown, tp_tmpdir(), strerror(errnum));
	return tp_error_set(err, TP_ERR_OUTPUT,
			    "%s: cannot write the temporary file in %s its chunks are merged into: %s (a compressed capture needs about its uncompressed size there; TMPDIR names another directory)",
			    shown, tp_tmpdir(), strerror(errnum));
}

void rg_forget(FILE *f, const uint8_t *map, uint64_t from, uint64_t to)
{
	rg_drop(map, from, to);
#if defined(FALLOC_FL_PUNCH_HOLE) && defined(FALLOC_FL_KEEP_SIZE)
	{
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
		uint64_t a = rg_round_up(from, page), b = to / page * page;

		/* best effort: a file system without holes keeps the bytes */
		if (b > a)
			(void)fallocate(fileno(f), FALLOC_FL_PUNCH_HOLE |
					FALLOC_FL_KEEP_SIZE, (off_t)a,
					(off_t)(b - a));
	}
#else
	(void)f;
#endif
}

uint64_t rg_copy(FILE *from, uint64_t off, uint64_t len, FILE *to,
		 int *io_errno)
{
	uint64_t done = 0;
#if defined(__linux__)
	loff_t in = (loff_t)off;

	if (fflush(to) != 0) {
		rg_note_io(io_errno);
		return 0;
	}
	while (done < len) {
		ssize_t n = copy_file_range(fileno(from), &in, fileno(to), NULL,
					    len - done, 0);

		if (n <= 0)
			break;
		done += (uint64_t)n;
	}
	/* the stream's idea of its position is the file's end again */
	if (done && fseeko(to, 0, SEEK_END) != 0)
		rg_note_io(io_errno);
#else
	(void)from; (void)off; (void)len; (void)to; (void)io_errno;
#endif
	return done;
}

void rg_big_alloc(struct rg_big *b, size_t n)
{
	void *p = n ? mmap(NULL, n, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;

	b->n = n;
	b->heap = p == MAP_FAILED;
	b->p = b->heap ? tp_xmalloc(n) : p;
}

void rg_big_reserve(struct rg_big *b, size_t n)
{
	if (!n)
		n = 1;
	if (b->p && b->n >= n)
		return;
	if (b->p && !b->heap) {
		void *p = mremap(b->p, b->n, n, MREMAP_MAYMOVE);

		if (p != MAP_FAILED) {
			b->p = p;
			b->n = n;
			return;
		}
	}
	if (b->p && b->heap) {
		b->p = tp_xrealloc(b->p, n);
		b->n = n;
		return;
	}
	{   /* none yet, or mremap refused: a new one, the bytes moved */
		struct rg_big fresh;

		rg_big_alloc(&fresh, n);
		if (b->p)
			memcpy(fresh.p, b->p, b->n);
		rg_big_free(b);
		*b = fresh;
	}
}

/* Before each block: its size and whether it is a mapping (16 bytes,
 * so the block keeps malloc's alignment). */
struct codec_head {
	size_t n;
	size_t mapped;
};

/* One freed mapping kept for the next block of about its size (Brotli's
 * window, chunk after chunk): a fresh mapping each time costs its page
 * faults and cleared pages again (17,000 more faults on the 200 MB
 * capture as Brotli). Per thread: hosts are merged on threads of their
 * own. */
static _Thread_local struct codec_head *spare;

void *rg_codec_alloc(void *opaque, size_t n)
{
	struct codec_head *h;

	(void)opaque;
	if (n > SIZE_MAX - sizeof(*h))
		return NULL;
	if (n >= RG_BUF_MAP_MIN && spare && spare->n >= n && spare->n / 2 <= n) {
		h = spare;
		spare = NULL;
		return h + 1;
	}
	if (n >= RG_BUF_MAP_MIN) {
		h = mmap(NULL, n + sizeof(*h), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (h != MAP_FAILED) {
			*h = (struct codec_head){ n, 1 };
			return h + 1;
		}
	}
	h = malloc(n + sizeof(*h));
	if (!h)
		return NULL;
	*h = (struct codec_head){ n, 0 };
	return h + 1;
}

void rg_codec_free(void *opaque, void *p)
{
	struct codec_head *h = p ? (struct codec_head *)p - 1 : NULL;

	(void)opaque;
	if (!h)
		return;
	if (!h->mapped) {
		free(h);
		return;
	}
	if (spare && spare->n > h->n) {   /* keep the larger */
		struct codec_head *t = spare;

		spare = h;
		h = t;
	}
	if (spare)
		munmap(spare, spare->n + sizeof(*spare));
	spare = h;
}

void rg_codec_release(void)
{
	if (spare)
		munmap(spare, spare->n + sizeof(*spare));
	spare = NULL;
}

void rg_big_free(struct rg_big *b)
{
	if (b->heap)
		free(b->p);
	else if (b->p)
		munmap(b->p, b->n);
	*b = (struct rg_big){ 0 };
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
		rg_note_io(&m->io_errno);
	m->spill_size += n;
	return s;
}

void rg_buf_reserve(struct rg_buf *b, size_t need)
{
	struct rg_big big = { 0 };
	size_t n;

	if (need <= b->cap)
		return;
	n = b->cap > RG_BUF_MAP_MIN / 2 ? b->cap : RG_BUF_MAP_MIN / 2;
	while (n < need && n <= SIZE_MAX / 2)
		n *= 2;
	if (n < need || n < RG_BUF_MAP_MIN) {   /* small: the heap's way */
		b->p = tp_xgrow(b->p, &b->cap, need, 1);
		return;
	}
	/* large: an rg_big (a mapping; malloc'd when none is had) */
	if (b->mapped) {
		big = (struct rg_big){ b->p, b->cap, false };
		rg_big_reserve(&big, n);
	} else {
		rg_big_alloc(&big, n);
		if (b->n)
			memcpy(big.p, b->p, b->n);
		free(b->p);
	}
	b->p = big.p;
	b->cap = big.n;
	b->mapped = !big.heap;
}

void rg_buf_free(struct rg_buf *b)
{
	struct rg_big big = { b->p, b->cap, !b->mapped };

	rg_big_free(&big);
	*b = (struct rg_buf){ 0 };
}

void rg_put(struct rg_buf *b, const void *p, size_t n)
{
	if (!n)
		return;
	if (b->n + n > b->cap)
		rg_buf_reserve(b, b->n + n);
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
	rg_buf_reserve(b, b->n + LEN_ROOM);
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

size_t rg_pad_head(uint8_t *dst, uint32_t number, uint64_t size,
		   const uint64_t *values, size_t n_values)
{
	size_t tag = rg_varint_size((uint64_t)number << 3 | TP_WIRE_LEN);
	size_t need = 0;

	for (size_t i = 0; i < n_values; i++)
		need += rg_varint_size(values[i]);
	for (size_t len_bytes = 1; len_bytes <= 4; len_bytes++) {
		uint64_t content;
		struct rg_buf b = { 0 };

		if (size < tag + len_bytes + need)
			return 0;
		content = size - tag - len_bytes;
		if (rg_varint_size(content) != len_bytes)
			continue;
		if (!dst)
			return tag + len_bytes + need;
		b.p = dst;
		b.cap = RG_PAD_HEAD_MAX;
		rg_put_tag(&b, number, TP_WIRE_LEN);
		rg_put_varint(&b, content);
		for (size_t i = 0; i < n_values; i++)
			rg_put_varint(&b, values[i]);
		return b.n;
	}
	return 0;
}

bool rg_pad_field(uint8_t *dst, uint32_t number, uint64_t size,
		  const uint64_t *values, size_t n_values)
{
	size_t head = rg_pad_head(dst, number, size, values, n_values);

	if (head && dst)
		memset(dst + head, 0, (size_t)size - head);
	return head != 0;
}
