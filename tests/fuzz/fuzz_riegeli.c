/*
 * fuzz_riegeli.c - libFuzzer target for the Riegeli records reader and
 * the chunk merge (src/decode/riegeli/): the input, behind the fixed
 * signature when it lacks one (so that mutations reach the chunks), is
 * read record by record, then merged into one XSpace, which the XSpace
 * decoder must take or refuse cleanly. Any input must end in TP_OK or a
 * clean error, and the merged XSpace must decode when every record did.
 * Inputs of size 2 mod 4 are merged in place, from a file in memory
 * (memfd), and their events read twice, dropping pages between.
 */
#define _GNU_SOURCE   /* memfd_create */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tpuprof/decode/capture.h"
#include "tpuprof/decode/riegeli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t signature[TP_RIEGELI_SIGNATURE_BYTES] = {
	0x83, 0xaf, 0x70, 0xd1, 0x0d, 0x88, 0x4a, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0,
	0x40, 0, 0, 0, 0, 0, 0, 0, 0x91, 0xba, 0xc2, 0x3c, 0x92, 0x87, 0xe1, 0xa9,
	0, 0, 0, 0, 0, 0, 0, 0, 0xe1, 0x9f, 0x13, 0xc0, 0xe9, 0xb1, 0xc3, 0x72,
	0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* Touches every byte of a record (ASan checks the bounds). */
static enum tp_err touch(void *ctx, const uint8_t *rec, size_t len,
			 uint64_t chunk_begin, struct tp_error *err)
{
	uint64_t *sum = ctx;

	(void)chunk_begin;
	(void)err;
	for (size_t i = 0; i < len; i++)
		*sum += rec[i];
	return TP_OK;
}

/* data as a file mapped whole (*fd open on it), or NULL. */
static uint8_t *as_file(const uint8_t *data, size_t size, int *fd)
{
	uint8_t *map;

	*fd = memfd_create("fuzz-riegeli", MFD_CLOEXEC);
	if (*fd < 0)
		return NULL;
	if (write(*fd, data, size) != (ssize_t)size ||
	    (map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, *fd, 0)) ==
	    MAP_FAILED) {
		close(*fd);
		*fd = -1;
		return NULL;
	}
	return map;
}

/* Every event of every line, segment markers applied. */
static uint64_t read_events(const struct tp_xspace *xs)
{
	uint64_t sum = 0;

	for (size_t p = 0; p < xs->n_planes; p++)
		for (size_t l = 0; l < xs->planes[p].n_lines; l++) {
			struct tp_event_iter it;
			struct tp_event ev;

			tp_event_iter_init(&it, xs, &xs->planes[p],
					   &xs->planes[p].lines[l]);
			while (tp_event_iter_next(&it, &ev) > 0)
				sum += (uint64_t)ev.start_ps;
		}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_riegeli_opts o = { .shown = "fuzz.riegeli", .max_chunk = 64u << 20 };
	struct tp_riegeli_info info;
	struct tp_riegeli_xspace xs;
	struct tp_error err = { 0 };
	uint8_t *buf = NULL, *file = NULL;
	uint64_t sum = 0;
	int fd = -1;

	/* every line long enough to be mapped into the view, or a flat
	 * XSpace written out: both ways of merging, on small inputs */
	tp_riegeli_map_min_bytes = 16;
	o.flat = size % 2 == 1;
	if (!tp_riegeli_sniff(data, size)) {
		buf = malloc(sizeof(signature) + size + 1);
		memcpy(buf, signature, sizeof(signature));
		memcpy(buf + sizeof(signature), data, size);
		data = buf;
		size += sizeof(signature);
	}
	if (tp_riegeli_read(data, size, &o, touch, &sum, &info, &err) == TP_OK)
		tp_riegeli_info_release(&info);
	if (size % 4 == 2 && (file = as_file(data, size, &fd))) {
		data = file;
		o.in_place = o.drop_pages = true;
		o.fd = fd;
	}
	if (tp_riegeli_merge(data, size, &o, &xs, &info, &err) == TP_OK) {
		struct tp_arena arena;
		struct tp_xspace space;

		struct tp_decode_opts dopts = {
			.segment_shifts = xs.segment_shifts,
			.drop_pages = o.in_place,
			.gaps = xs.gaps,
			.n_gaps = xs.n_gaps,
			.seg_maps = xs.seg_maps,
			.n_seg_maps = xs.n_seg_maps,
		};

		tp_riegeli_info_release(&info);
		tp_arena_init(&arena);
		if (xs.size &&
		    tp_xspace_decode_ex(&space, &arena, xs.data, xs.size,
					"merged", &dopts, &err) == TP_OK) {
			uint64_t once = read_events(&space);

			/* the same again: kept pages were not dropped */
			if (o.in_place && read_events(&space) != once)
				abort();
			sum += once;
		}
		tp_arena_release(&arena);
		tp_riegeli_xspace_release(&xs);
	}
	if (file) {
		munmap(file, size);
		close(fd);
	}
	free(buf);
	return 0;
}
