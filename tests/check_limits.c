/*
 * check_limits.c - sizes past 32 bits and hostile extreme values, without
 * needing gigabytes of disk or memory: lengths near 2^31, 2^32 and 2^63
 * in the wire reader, an XSpace over 4 GiB in a sparse virtual mapping
 * (MAP_NORESERVE: only the pages written are ever backed), sparse files
 * over 2 and 4 GiB through tp_capture_open, HloProtos over protobuf's
 * 2 GiB limit, and the regressions found by fuzzing (docs/fuzzing.md).
 *
 * Where the machine refuses a 5 GiB virtual mapping or a sparse file (a
 * ulimit -v, valgrind), those cases say so and pass: they test tpuprof,
 * not the machine.
 */
#include "testutil.h"

#include <fcntl.h>
#include <sys/mman.h>

#include "tpuprof/decode/capture.h"
#include "tpuprof/analyze/info.h"
#include "tpuprof/decode/wire.h"
#include "tpuprof/decode/xspace.h"

#define GIB (UINT64_C(1) << 30)

/* ---- wire reader: claimed lengths past a small buffer ---- */

static const struct {
	const char *what;
	uint64_t len;
} huge_lengths[] = {
	{ "2^31 - 1", (UINT64_C(1) << 31) - 1 },
	{ "2^31", UINT64_C(1) << 31 },
	{ "2^32 - 1", (UINT64_C(1) << 32) - 1 },
	{ "2^32", UINT64_C(1) << 32 },
	{ "2^32 + 1 (5 after a 32-bit truncation)", (UINT64_C(1) << 32) + 1 },
	{ "2^63 - 1", (UINT64_C(1) << 63) - 1 },
	{ "2^63", UINT64_C(1) << 63 },
	{ "2^64 - 1", UINT64_MAX },
};

/* Both the one-byte-tag fast path (field 1) and the slow path (field 16,
 * a two-byte tag) must refuse the length and point at its first byte. */
START_TEST(test_wire_huge_length_small_buffer)
{
	for (uint32_t field = 1; field <= 16; field += 15) {
		struct pb b = { 0 };
		struct tp_wire w;
		struct tp_field f;
		size_t tag_len;

		pb_tag(&b, field, 2);
		tag_len = b.len;
		pb_varint(&b, huge_lengths[_i].len);
		pb_bytes(&b, "abcdefgh", 8);
		tp_wire_init(&w, b.data, b.data, b.len);
		ck_assert_msg(tp_wire_next(&w, &f) == -1, "%s", huge_lengths[_i].what);
		ck_assert_str_eq(w.error, "length runs past the end of its message");
		ck_assert_uint_eq(w.error_offset, tag_len);
		ck_assert_int_eq(tp_wire_next(&w, &f), -1); /* sticky */
		pb_free(&b);
	}
}
END_TEST

/* A packed field claiming 2^32 + 1 bytes over 3 real ones. */
START_TEST(test_wire_packed_huge_length)
{
	const uint8_t bytes[] = { 0x32, 0x81, 0x80, 0x80, 0x80, 0x10, 1, 2, 3 };
	struct tp_wire w;
	struct tp_field f;

	tp_wire_init(&w, bytes, bytes, sizeof(bytes));
	ck_assert_int_eq(tp_wire_next(&w, &f), -1);
	ck_assert_uint_eq(w.error_offset, 1);
}
END_TEST

/* ---- a sparse virtual region over 4 GiB ---- */

#define REGION ((size_t)(4 * GIB + (UINT64_C(1) << 20)))

static uint8_t *region;

static uint8_t *big_region(void)
{
	void *p;

	if (region)
		return region;
	p = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "check_limits: no 4 GiB virtual mapping here; "
				"sparse-region cases skipped\n");
		return NULL;
	}
	region = p;
	return region;
}

/* Writes a tag and a length at p; returns the bytes written. */
static size_t put_len_header(uint8_t *p, uint32_t field, uint64_t len)
{
	struct pb b = { 0 };
	size_t n;

	pb_tag(&b, field, 2);
	pb_varint(&b, len);
	memcpy(p, b.data, b.len);
	n = b.len;
	pb_free(&b);
	return n;
}

static const uint64_t real_lengths[] = {
	(UINT64_C(1) << 31) - 1, UINT64_C(1) << 31, (UINT64_C(1) << 32) - 1,
	UINT64_C(1) << 32, (UINT64_C(1) << 32) + 1,
};

/* Lengths that really are that long are accepted, and the field after
 * them is read at the right 64-bit offset. */
START_TEST(test_wire_real_length_past_4gib)
{
	uint8_t *r = big_region();
	uint64_t len = real_lengths[_i];
	struct tp_wire w;
	struct tp_field f;
	size_t h;

	if (!r)
		return;
	h = put_len_header(r, 1, len);
	r[h + len] = 0x10; /* field 2, varint 7 */
	r[h + len + 1] = 7;
	tp_wire_init(&w, r, r, h + len + 2);
	ck_assert_int_eq(tp_wire_next(&w, &f), 1);
	ck_assert_uint_eq(f.number, 1);
	ck_assert_uint_eq(f.len, len);
	ck_assert_ptr_eq(f.data, r + h);
	ck_assert_int_eq(tp_wire_next(&w, &f), 1);
	ck_assert_uint_eq(f.number, 2);
	ck_assert_uint_eq(f.value, 7);
	ck_assert_uint_eq(f.offset, h + len);
	ck_assert_int_eq(tp_wire_next(&w, &f), 0);
	/* One byte short: refused. */
	tp_wire_init(&w, r, r, h + len - 1);
	ck_assert_int_eq(tp_wire_next(&w, &f), -1);
	ck_assert_uint_eq(w.error_offset, 1);
	r[h + len] = r[h + len + 1] = 0;
}
END_TEST

/* Builds, at r + at, a plane "/device:TPU:0" with one line holding one
 * event; returns its size. */
static size_t put_small_plane(uint8_t *r, size_t at)
{
	struct pb plane = { 0 }, line = { 0 }, ev = { 0 }, top = { 0 };

	pb_int(&ev, 1, 1);
	pb_int(&ev, 2, 5);
	pb_int(&ev, 3, 7);
	pb_int(&line, 1, 1);
	pb_str(&line, 2, "XLA Ops");
	pb_msg(&line, 4, &ev);
	pb_int(&plane, 1, 1);
	pb_str(&plane, 2, "/device:TPU:0");
	pb_msg(&plane, 3, &line);
	pb_msg(&top, 1, &plane);
	memcpy(r + at, top.data, top.len);
	at = top.len;
	pb_free(&top);
	return at;
}

/* An XSpace of 4 GiB + 1 MiB: an unknown field of about 4 GiB, then a
 * plane. It decodes, and offsets past 2^32 are kept exactly. */
START_TEST(test_xspace_past_4gib)
{
	uint8_t *r = big_region();
	struct tp_arena a;
	struct tp_xspace xs;
	struct tp_error err = { 0 };
	uint64_t skip = 4 * GIB;
	size_t h, plane_at, n;

	if (!r)
		return;
	h = put_len_header(r, 15, skip);
	plane_at = h + skip;
	n = put_small_plane(r, plane_at);
	tp_arena_init(&a);
	ck_assert_int_eq(tp_xspace_decode(&xs, &a, r, plane_at + n, "big", &err), TP_OK);
	ck_assert_uint_eq(xs.n_planes, 1);
	ck_assert_uint_eq(xs.planes[0].offset, plane_at);
	ck_assert_uint_eq(xs.planes[0].n_lines, 1);
	ck_assert_uint_eq(xs.planes[0].lines[0].n_events, 1);
	ck_assert_uint_gt(xs.planes[0].lines[0].body_offset, 4 * GIB);
	tp_arena_release(&a);

	/* The same with a zero byte (field number 0) after the big field:
	 * the message names the byte past 2^32. */
	r[plane_at] = 0;
	tp_arena_init(&a);
	ck_assert_int_eq(tp_xspace_decode(&xs, &a, r, plane_at + n, "big", &err),
			 TP_ERR_INPUT);
	ck_assert_str_eq(err.msg, "big: corrupt capture at byte 4294967302: invalid field number (in the top-level XSpace message)");
	tp_arena_release(&a);
	memset(r + plane_at, 0, n);
}
END_TEST

/* ---- sparse files through tp_capture_open ---- */

/* Creates a sparse file of `size` bytes holding `head` at 0 and `tail` at
 * tail_at; NULL (skipped) where the file system will not. */
static char *sparse_file(const char *suffix, uint64_t size, const void *head,
			 size_t n_head, const void *tail, size_t n_tail,
			 uint64_t tail_at)
{
	char *path = tp_xasprintf("/tmp/tpuprof-test-XXXXXX%s", suffix);
	int fd = mkstemps(path, (int)strlen(suffix));

	ck_assert_int_ge(fd, 0);
	if (ftruncate(fd, (off_t)size) < 0 ||
	    pwrite(fd, head, n_head, 0) != (ssize_t)n_head ||
	    (n_tail && pwrite(fd, tail, n_tail, (off_t)tail_at) != (ssize_t)n_tail)) {
		fprintf(stderr, "check_limits: no sparse file of %llu bytes here; case skipped\n",
			(unsigned long long)size);
		close(fd);
		unlink(path);
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

/* A 4 GiB + 4 KiB capture file: mapped, sniffed and decoded like any. */
START_TEST(test_capture_file_past_4gib)
{
	uint8_t head[16], tail[256];
	uint64_t skip = 4 * GIB;
	size_t h = put_len_header(head, 15, skip), n;
	struct tp_open_opts opts = { .max_input = 1 << 20 };
	struct tp_capture cap;
	struct tp_error err = { 0 };
	struct tp_info info;
	const char *paths[1];
	char *path;

	n = put_small_plane(tail, 0);
	path = sparse_file(".xplane.pb", h + skip + n, head, h, tail, n, h + skip);
	if (!path)
		return;
	paths[0] = path;
	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &opts, &err), TP_OK);
	ck_assert_uint_eq(cap.n_hosts, 1);
	ck_assert_uint_eq(cap.sources[0].file_bytes, h + skip + n);
	ck_assert_uint_eq(cap.hosts[0].xs.planes[0].offset, h + skip);
	ck_assert_int_eq(tp_info_build(&info, &cap, &err), TP_OK);
	tp_info_release(&info);
	tp_capture_release(&cap);
	unlink(path);
	free(path);
}
END_TEST

/* A standalone HloProto of 2 GiB + 4 KiB: refused with the limit named,
 * before protobuf-c (which would reject or mis-count it) sees it. */
START_TEST(test_hlo_file_past_2gib)
{
	uint8_t head[16];
	uint64_t size = 2 * GIB + 4096;
	size_t h = put_len_header(head, 1, size - 6);
	struct tp_open_opts opts = { .max_input = 1 << 20 };
	struct tp_capture cap;
	struct tp_error err = { 0 };
	const char *paths[1];
	char *path, *want, *base;

	ck_assert_uint_eq(h, 6);
	path = sparse_file(".hlo_proto.pb", size, head, h, NULL, 0, 0);
	if (!path)
		return;
	paths[0] = path;
	base = tp_xstrdup(strrchr(path, '/') + 1);
	base[strlen(base) - strlen(".hlo_proto.pb")] = '\0';
	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &opts, &err), TP_ERR_INPUT);
	want = tp_xasprintf("%s: HLO module '%s' at byte 0 is too large for protobuf (2147487744 bytes; the limit is 2 GiB)",
			    path, base);
	ck_assert_str_eq(err.msg, want);
	free(want);
	free(base);
	unlink(path);
	free(path);
}
END_TEST

/* Pieces of a message whose middle is a hole of `hole` bytes. */
struct holed {
	struct pb head, tail;
	uint64_t hole;
};

/* Wraps h as LEN field `field` of a new message: head gets the tag and
 * the total length (head + hole + tail). */
static void holed_wrap(struct holed *h, uint32_t field)
{
	struct pb head = { 0 };

	pb_tag(&head, field, 2);
	pb_varint(&head, h->head.len + h->hole + h->tail.len);
	pb_bytes(&head, h->head.data, h->head.len);
	pb_free(&h->head);
	h->head = head;
}

/* An XSpace whose /host:metadata embeds an "Hlo Proto" bytes stat of
 * 2 GiB + 8: it decodes (the bytes are skipped), and the module is refused
 * when an analysis asks for it. */
START_TEST(test_embedded_hlo_past_2gib)
{
	struct holed x = { .hole = 2 * GIB + 8 };
	struct pb sm = { 0 }, entry = { 0 }, pre = { 0 };
	struct tp_open_opts opts = { .max_input = 1 << 20 };
	struct tp_capture cap;
	struct tp_error err = { 0 };
	struct tp_info info;
	const char *paths[1];
	char *path, *want;
	uint64_t size;
	size_t stat_at;

	/* XStat { metadata_id 1, bytes_value (6): hole } */
	pb_int(&x.head, 1, 1);
	pb_tag(&x.head, 6, 2);
	pb_varint(&x.head, x.hole);
	holed_wrap(&x, 5);      /* XEventMetadata.stats    */
	pb_int(&pre, 1, 1);     /* XEventMetadata.id, name */
	pb_str(&pre, 2, "jit_f(1)");
	pb_bytes(&pre, x.head.data, x.head.len);
	pb_free(&x.head);
	x.head = pre;
	holed_wrap(&x, 2);      /* map entry value         */
	memset(&pre, 0, sizeof(pre));
	pb_int(&pre, 1, 1);     /* map entry key           */
	pb_bytes(&pre, x.head.data, x.head.len);
	pb_free(&x.head);
	x.head = pre;
	holed_wrap(&x, 4);      /* XPlane.event_metadata   */
	/* then XPlane.stat_metadata {1: {id 1, name "Hlo Proto"}} */
	pb_int(&sm, 1, 1);
	pb_str(&sm, 2, "Hlo Proto");
	pb_int(&entry, 1, 1);
	pb_msg(&entry, 2, &sm);
	pb_msg(&x.tail, 5, &entry);
	memset(&pre, 0, sizeof(pre));
	pb_int(&pre, 1, 7);
	pb_str(&pre, 2, "/host:metadata");
	pb_bytes(&pre, x.head.data, x.head.len);
	pb_free(&x.head);
	x.head = pre;
	holed_wrap(&x, 1);      /* XSpace.planes           */
	size = x.head.len + x.hole + x.tail.len;
	stat_at = x.head.len;
	path = sparse_file(".xplane.pb", size, x.head.data, x.head.len,
			   x.tail.data, x.tail.len, x.head.len + x.hole);
	pb_free(&x.head);
	pb_free(&x.tail);
	if (!path)
		return;
	paths[0] = path;
	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &opts, &err), TP_OK);
	ck_assert_uint_eq(cap.n_modules, 1);
	ck_assert_uint_eq(cap.modules[0].raw.len, x.hole);
	ck_assert_uint_eq(cap.modules[0].raw_offset, stat_at);
	ck_assert_int_eq(tp_info_build(&info, &cap, &err), TP_ERR_INPUT);
	want = tp_xasprintf("%s: HLO module 'jit_f' at byte %zu is too large for protobuf (2147483656 bytes; the limit is 2 GiB)",
			    path, stat_at);
	ck_assert_str_eq(err.msg, want);
	free(want);
	tp_capture_release(&cap);
	unlink(path);
	free(path);
}
END_TEST

/* ---- fuzzing and review regressions ---- */

/* A line at INT64_MIN ns next to a wall-clock one: the origin
 * subtraction used to overflow (UBSan: signed integer overflow in
 * tp_event_iter_init) and wrap the start to +INT64_MAX; it saturates. */
START_TEST(test_timestamp_int64_min)
{
	struct pb plane = { 0 }, l1 = { 0 }, l2 = { 0 }, ev = { 0 }, top = { 0 };
	struct tp_arena a;
	struct tp_xspace xs;
	struct tp_error err = { 0 };
	struct tp_event_iter it;
	struct tp_event e;

	pb_int(&ev, 1, 1);
	pb_int(&ev, 2, 0);
	pb_int(&ev, 3, 10);
	pb_int(&l1, 1, 1);
	pb_int(&l1, 3, INT64_C(5000000000000000));
	pb_lenfield(&l1, 4, ev.data, ev.len);
	pb_int(&l2, 1, 2);
	pb_int(&l2, 3, INT64_MIN);
	pb_lenfield(&l2, 4, ev.data, ev.len);
	pb_free(&ev);
	pb_str(&plane, 2, "/device:TPU:0");
	pb_msg(&plane, 3, &l1);
	pb_msg(&plane, 3, &l2);
	pb_msg(&top, 1, &plane);
	tp_arena_init(&a);
	ck_assert_int_eq(tp_xspace_decode(&xs, &a, top.data, top.len, "t", &err), TP_OK);
	ck_assert_int_eq(xs.time_origin_ns, INT64_C(5000000000000000));
	tp_event_iter_init(&it, &xs, &xs.planes[0], &xs.planes[0].lines[1]);
	ck_assert_int_eq(it.line_base_ps, INT64_MIN);
	ck_assert_int_eq(tp_event_iter_next(&it, &e), 1);
	ck_assert_int_eq(e.start_ps, INT64_MIN);
	ck_assert_int_eq(xs.planes[0].lines[1].first_start_ps, INT64_MIN);
	tp_arena_release(&a);
	pb_free(&top);
}
END_TEST

/* The span of a line that starts at INT64_MIN used to be computed as
 * tp_sat_add(end, -start): negating INT64_MIN (UBSan in info_text.c and
 * info_json.c; testdata/corrupt/line-timestamp-int64-min.xplane.pb). */
START_TEST(test_sat_sub)
{
	ck_assert_int_eq(tp_sat_sub(5, 3), 2);
	ck_assert_int_eq(tp_sat_sub(INT64_MIN + 10, INT64_MIN), 10);
	ck_assert_int_eq(tp_sat_sub(10, INT64_MIN), INT64_MAX);
	ck_assert_int_eq(tp_sat_sub(INT64_MIN, 1), INT64_MIN);
	ck_assert_int_eq(tp_sat_sub(INT64_MAX, -1), INT64_MAX);
	ck_assert_int_eq(tp_sat_sub(-1, INT64_MAX), INT64_MIN);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("limits");
	TCase *tc = tcase_create("limits");
	int rc;

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_wire_huge_length_small_buffer, 0,
			    sizeof(huge_lengths) / sizeof(huge_lengths[0]));
	tcase_add_test(tc, test_wire_packed_huge_length);
	tcase_add_loop_test(tc, test_wire_real_length_past_4gib, 0,
			    sizeof(real_lengths) / sizeof(real_lengths[0]));
	tcase_add_test(tc, test_xspace_past_4gib);
	tcase_add_test(tc, test_capture_file_past_4gib);
	tcase_add_test(tc, test_hlo_file_past_2gib);
	tcase_add_test(tc, test_embedded_hlo_past_2gib);
	tcase_add_test(tc, test_timestamp_int64_min);
	tcase_add_test(tc, test_sat_sub);
	suite_add_tcase(s, tc);
	rc = run_suite(s);
	if (region)
		munmap(region, REGION);
	return rc;
}
