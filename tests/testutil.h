/*
 * testutil.h - helpers for the Check unit tests: a tiny protobuf writer to
 * build exact byte sequences by hand, and temporary files and folders.
 * Header-only so each test binary stays one file.
 */
#ifndef TPUPROF_TESTUTIL_H
#define TPUPROF_TESTUTIL_H

#include <check.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tpuprof/util/util.h"

struct pb {
	uint8_t *data;
	size_t len, cap;
};

static inline void pb_bytes(struct pb *b, const void *p, size_t n)
{
	b->data = tp_xgrow(b->data, &b->cap, b->len + n + 1, 1);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

static inline void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	pb_bytes(b, tmp, n);
}

static inline void pb_tag(struct pb *b, uint32_t field, unsigned type)
{
	pb_varint(b, ((uint64_t)field << 3) | type);
}

static inline void pb_int(struct pb *b, uint32_t field, int64_t v)
{
	pb_tag(b, field, 0);
	pb_varint(b, (uint64_t)v);
}

static inline void pb_fixed64(struct pb *b, uint32_t field, uint64_t v)
{
	uint8_t tmp[8];

	for (int i = 0; i < 8; i++)
		tmp[i] = (uint8_t)(v >> (8 * i));
	pb_tag(b, field, 1);
	pb_bytes(b, tmp, 8);
}

static inline void pb_lenfield(struct pb *b, uint32_t field, const void *p,
			       size_t n)
{
	pb_tag(b, field, 2);
	pb_varint(b, n);
	pb_bytes(b, p, n);
}

static inline void pb_str(struct pb *b, uint32_t field, const char *s)
{
	pb_lenfield(b, field, s, strlen(s));
}

/* Appends sub as a length-delimited field and frees it. */
static inline void pb_msg(struct pb *b, uint32_t field, struct pb *sub)
{
	pb_lenfield(b, field, sub->data, sub->len);
	free(sub->data);
	memset(sub, 0, sizeof(*sub));
}

static inline void pb_free(struct pb *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* An XPlane metadata map entry: field 4 (events) or 5 (stats) of plane,
 * the metadata holding its id and name. */
static inline void pb_metadata(struct pb *plane, uint32_t field, int64_t id,
			       const char *name)
{
	struct pb entry = { 0 }, value = { 0 };

	pb_int(&value, 1, id);
	pb_str(&value, 2, name);
	pb_int(&entry, 1, id);
	pb_msg(&entry, 2, &value);
	pb_msg(plane, field, &entry);
}

/* An XStat of an event: [08 meta][field v], field 3 uint64, 4 int64 or
 * 7 ref (all varints). */
static inline void pb_stat_int(struct pb *ev, int64_t meta, uint32_t field, int64_t v)
{
	struct pb st = { 0 };

	pb_int(&st, 1, meta);
	pb_int(&st, field, v);
	pb_msg(ev, 4, &st);
}

/* Writes n bytes to a new temporary file; the caller unlinks and frees. */
static inline char *write_temp(const char *suffix, const void *p, size_t n)
{
	char *path = tp_xasprintf("/tmp/tpuprof-test-XXXXXX%s", suffix);
	int fd = mkstemps(path, (int)strlen(suffix));
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	fclose(f);
	return path;
}

/* Writes n bytes to a new temporary file in one write: where the file
 * system keeps large folios, its page cache holds folios as large as the
 * write allows (write_temp's stdio writes a page first). The caller
 * unlinks and frees. */
static inline char *write_temp_once(const char *suffix, const void *p, size_t n)
{
	char *path = tp_xasprintf("/tmp/tpuprof-test-XXXXXX%s", suffix);
	int fd = mkstemps(path, (int)strlen(suffix));

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, p, n), (ssize_t)n);
	close(fd);
	return path;
}

/* The process's resident file pages, in KiB (RssFile). */
static inline long rss_file_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "RssFile:", 8) == 0)
			kb = atol(line + 8);
	if (f)
		fclose(f);
	return kb;
}

/* What one read of a byte maps, in KiB, in a file written in one write
 * of 1 MiB: the whole write where the file system keeps large folios
 * (Linux 6.11 and later, as memory allows), a fault-around (64 KiB)
 * elsewhere. Tests of what a fault maps tell only where it is large. */
static inline long one_write_maps_kb(void)
{
	size_t n = (size_t)1 << 20;
	uint8_t *b = calloc(1, n);
	char *path = write_temp_once(".bin", b, n);
	int fd = open(path, O_RDONLY);
	volatile const uint8_t *p;
	long before, after;

	ck_assert_int_ge(fd, 0);
	p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert(p != MAP_FAILED);
	before = rss_file_kb();
	(void)p[n / 2];
	after = rss_file_kb();
	munmap((void *)p, n);
	close(fd);
	unlink(path);
	free(path);
	free(b);
	return after - before;
}

/* The reference material beside the project (../shared: real captures
 * and OOM reports). A clone without it runs every other test; a test on
 * it returns at once there, passing (the Makefile says in one line which
 * suites it skipped; .ci/run refuses to run without it). */
#define NEED_SHARED()                                          \
	do {                                                   \
		if (access("../shared/captures", R_OK) != 0)   \
			return;                                \
	} while (0)

static inline int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
