/*
 * riegeli_merged.c - a chunked capture's merged XSpace written out as one
 * .xplane.pb: what tpuprof reads a .xplane.riegeli as (the library's own
 * merge, tp_riegeli_merge), so `make bench` can measure the same
 * capture's events as .pb beside the .riegeli, like for like.
 *
 *   riegeli_merged IN.xplane.riegeli OUT.xplane.pb
 */
#include "tpuprof/decode/riegeli.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct tp_riegeli_opts opts = { .max_chunk = (uint64_t)1 << 40 };
	struct tp_riegeli_xspace xs;
	struct tp_riegeli_info info;
	struct tp_error err = { 0 };
	struct stat st;
	void *in;
	FILE *out;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: riegeli_merged IN.xplane.riegeli OUT.xplane.pb\n");
		return 2;
	}
	opts.shown = argv[1];
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
		perror(argv[1]);
		return 1;
	}
	in = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (in == MAP_FAILED) {
		perror(argv[1]);
		return 1;
	}
	opts.drop_pages = true;
	opts.flat = true;   /* a standard XSpace, as a profiler writes */
	if (tp_riegeli_merge(in, (size_t)st.st_size, &opts, &xs, &info,
			     &err) != TP_OK) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	out = fopen(argv[2], "wb");
	if (!out || fwrite(xs.data, 1, xs.size, out) != xs.size ||
	    fclose(out) != 0) {
		perror(argv[2]);
		return 1;
	}
	fprintf(stderr, "%s: %llu chunks, %llu records, %zu damaged regions, %zu bytes of XSpace\n",
		argv[2], (unsigned long long)info.chunks,
		(unsigned long long)info.records, info.n_damaged, xs.size);
	tp_riegeli_xspace_release(&xs);
	tp_riegeli_info_release(&info);
	munmap(in, (size_t)st.st_size);
	return info.n_damaged ? 1 : 0;
}
