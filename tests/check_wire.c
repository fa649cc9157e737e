/*
 * check_wire.c - the protobuf wire reader: varints up to 10 bytes, negative
 * int64, packed and unpacked repeated fields, unknown fields, and
 * truncation at every byte of a small message.
 */
#include "testutil.h"

#include "tpuprof/decode/wire.h"

static const struct {
	const char *what;
	uint8_t bytes[11];
	size_t len;
	bool ok;
	uint64_t value;
} varint_cases[] = {
	{ "zero", { 0x00 }, 1, true, 0 },
	{ "one byte max", { 0x7f }, 1, true, 127 },
	{ "two bytes", { 0xac, 0x02 }, 2, true, 300 },
	{ "int64 -1 (ten bytes)", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10, true, UINT64_MAX },
	{ "INT64_MIN", { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 }, 10, true, UINT64_C(1) << 63 },
	{ "-559038737 (derived line id)", { 0xef, 0xfd, 0xb6, 0xf5, 0xfd, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10, true, (uint64_t)(int64_t)-559038737 },
	{ "tenth byte overflows", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 }, 10, false, 0 },
	{ "eleven bytes", { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 }, 11, false, 0 },
	{ "truncated", { 0x80 }, 1, false, 0 },
	{ "empty", { 0 }, 0, false, 0 },
};

START_TEST(test_varint)
{
	const uint8_t *p = varint_cases[_i].bytes;
	uint64_t v = 0;
	bool ok = tp_wire_varint(&p, p + varint_cases[_i].len, &v);

	ck_assert_msg(ok == varint_cases[_i].ok, "%s", varint_cases[_i].what);
	if (ok) {
		ck_assert_msg(v == varint_cases[_i].value, "%s", varint_cases[_i].what);
		ck_assert_ptr_eq(p, varint_cases[_i].bytes + varint_cases[_i].len);
	}
}
END_TEST

START_TEST(test_fields_and_unknown)
{
	struct pb b = { 0 };
	struct tp_wire w;
	struct tp_field f;

	pb_int(&b, 1, -5);                 /* negative int64           */
	pb_fixed64(&b, 2, 0x4000000000000000ULL); /* double 2.0        */
	pb_str(&b, 99, "unknown");          /* unknown field           */
	pb_tag(&b, 7, 5);                   /* fixed32                 */
	pb_bytes(&b, "\x01\x02\x03\x04", 4);
	pb_str(&b, 5, "hi");
	tp_wire_init(&w, b.data, b.data, b.len);
	ck_assert_int_eq(tp_wire_next(&w, &f), 1);
	ck_assert_uint_eq(f.number, 1);
	ck_assert_int_eq(tp_wire_int64(f.value), -5);
	ck_assert_int_eq(tp_wire_next(&w, &f), 1);
	ck_assert(tp_wire_double(f.value) == 2.0);
	ck_assert_int_eq(tp_wire_next(&w, &f), 1);
	ck_assert_uint_eq(f.number, 99);
	ck_assert_uint_eq(f.len, 7);
	ck_assert_int_eq(tp_wire_next(&w, &f), 1);
	ck_assert_uint_eq(f.type, TP_WIRE_FIXED32);
	ck_assert_uint_eq(f.value, 0x04030201u);
	ck_assert_int_eq(tp_wire_next(&w, &f), 1);
	ck_assert_uint_eq(f.number, 5);
	ck_assert_mem_eq(f.data, "hi", 2);
	ck_assert_uint_eq(f.offset, b.len - 4);
	ck_assert_int_eq(tp_wire_next(&w, &f), 0);
	pb_free(&b);
}
END_TEST

static int read_ints(const uint8_t *p, size_t n, uint64_t *out, size_t max)
{
	struct tp_wire w;
	struct tp_field f;
	size_t k = 0;
	int rc;

	tp_wire_init(&w, p, p, n);
	while ((rc = tp_wire_next(&w, &f)) > 0) {
		struct tp_packed_iter it;
		uint64_t v;

		tp_packed_init(&it, &f);
		while (tp_packed_next(&it, &v) > 0 && k < max)
			out[k++] = v;
	}
	return rc < 0 ? -1 : (int)k;
}

START_TEST(test_packed_and_unpacked)
{
	struct pb packed = { 0 }, body = { 0 }, unpacked = { 0 };
	uint64_t v[8];

	pb_varint(&body, 3);
	pb_varint(&body, 270);
	pb_varint(&body, (uint64_t)(int64_t)-2);
	pb_lenfield(&packed, 36, body.data, body.len);
	ck_assert_int_eq(read_ints(packed.data, packed.len, v, 8), 3);
	ck_assert_uint_eq(v[0], 3);
	ck_assert_uint_eq(v[1], 270);
	ck_assert_int_eq((int64_t)v[2], -2);
	pb_int(&unpacked, 36, 3);
	pb_int(&unpacked, 36, 270);
	ck_assert_int_eq(read_ints(unpacked.data, unpacked.len, v, 8), 2);
	ck_assert_uint_eq(v[1], 270);
	pb_free(&packed);
	pb_free(&body);
	pb_free(&unpacked);
}
END_TEST

/* A small nested message, cut at every byte: every cut either ends on a
 * field boundary (fewer fields) or is reported as an error, never read
 * out of bounds (ASan and valgrind watch this). */
START_TEST(test_truncation_every_byte)
{
	struct pb msg = { 0 }, sub = { 0 };
	size_t boundaries[8], nb = 0;

	pb_int(&sub, 1, 42);
	pb_str(&sub, 2, "/device:TPU:0");
	boundaries[nb++] = 0;
	pb_int(&msg, 1, -559038737);
	boundaries[nb++] = msg.len;
	pb_msg(&msg, 3, &sub);
	boundaries[nb++] = msg.len;
	pb_fixed64(&msg, 2, 7);
	boundaries[nb++] = msg.len;
	for (size_t cut = 0; cut <= msg.len; cut++) {
		uint8_t *copy = tp_xmalloc(cut ? cut : 1);
		struct tp_wire w;
		struct tp_field f;
		int rc, fields = 0;
		bool at_boundary = false;

		memcpy(copy, msg.data, cut);
		tp_wire_init(&w, copy, copy, cut);
		while ((rc = tp_wire_next(&w, &f)) > 0)
			fields++;
		for (size_t i = 0; i < nb; i++)
			at_boundary |= boundaries[i] == cut;
		if (at_boundary) {
			ck_assert_msg(rc == 0, "cut %zu at a boundary must end cleanly", cut);
		} else {
			ck_assert_msg(rc == -1, "cut %zu inside a field must fail", cut);
			ck_assert_ptr_nonnull(w.error);
			ck_assert_uint_le(w.error_offset, cut);
		}
		free(copy);
	}
	pb_free(&msg);
}
END_TEST

static const struct {
	const char *what;
	uint8_t bytes[4];
	size_t len;
	const char *error;
	size_t offset;
} bad_cases[] = {
	{ "field number 0", { 0x00, 0x01 }, 2, "invalid field number", 0 },
	{ "group start", { 0x0b }, 1, "invalid wire type", 0 },
	{ "wire type 7", { 0x0f }, 1, "invalid wire type", 0 },
	{ "length past end", { 0x0a, 0x05, 0x00 }, 3, "length runs past the end of its message", 1 },
	{ "fixed64 cut", { 0x09, 0x01, 0x02 }, 3, "truncated fixed-width field", 0 },
};

START_TEST(test_bad_input)
{
	struct tp_wire w;
	struct tp_field f;

	tp_wire_init(&w, bad_cases[_i].bytes, bad_cases[_i].bytes, bad_cases[_i].len);
	ck_assert_int_eq(tp_wire_next(&w, &f), -1);
	ck_assert_str_eq(w.error, bad_cases[_i].error);
	ck_assert_uint_eq(w.error_offset, bad_cases[_i].offset);
	ck_assert_int_eq(tp_wire_next(&w, &f), -1); /* sticky */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("wire");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_varint, 0, sizeof(varint_cases) / sizeof(varint_cases[0]));
	tcase_add_test(tc, test_fields_and_unknown);
	tcase_add_test(tc, test_packed_and_unpacked);
	tcase_add_test(tc, test_truncation_every_byte);
	tcase_add_loop_test(tc, test_bad_input, 0, sizeof(bad_cases) / sizeof(bad_cases[0]));
	suite_add_tcase(s, tc);
	return run_suite(s);
}
