/*
 * check_trace.c - the trace writers' encoding, byte for byte: protobuf
 * varints, lengths and fixed64 (trace-facts §1.14), the packets of a small
 * Perfetto sequence, JSON strings that stay valid for any input, and a
 * gzip'd sink that inflates to what was written.
 */
#include "testutil.h"
#include "riegeli_testutil.h"

#include <pthread.h>
#include <zlib.h>

#include "../src/report/trace/trace_out.h"
#include "tpuprof/decode/capture.h"
#include "tpuprof/report/trace_write.h"
#include "tpuprof/util/parallel.h"

static const struct {
	uint64_t v;
	const char *hex;
} varints[] = {
	{ 0, "00" },
	{ 1, "01" },
	{ 127, "7f" },
	{ 128, "8001" },
	{ 300, "ac02" },
	{ UINT64_MAX, "ffffffffffffffffff01" },
};

static char *hex(const uint8_t *p, size_t n)
{
	char *s = tp_xmalloc(2 * n + 1);

	for (size_t i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", p[i]);
	s[2 * n] = 0;
	return s;
}

START_TEST(test_varint)
{
	struct tp_pb b = { 0 };
	char *h;

	tp_pb_varint(&b, varints[_i].v);
	h = hex(b.p, b.len);
	ck_assert_str_eq(h, varints[_i].hex);
	ck_assert_uint_eq(tp_pb_varint_size(varints[_i].v), b.len);
	free(h);
	tp_pb_release(&b);
}
END_TEST

/* Tags from trace-facts §1.14; a nested body over 127 bytes gets a
 * two-byte length; int64 -1 is ten bytes; doubles are little-endian. */
START_TEST(test_fields)
{
	struct tp_pb b = { 0 };
	char body[200], *h;

	tp_pb_uint(&b, 60, 1);                 /* field 60 as a varint: e0 03 */
	tp_pb_int(&b, 4, -1);
	tp_pb_double(&b, 5, 1.0);
	h = hex(b.p, b.len);
	ck_assert_str_eq(h, "e00301" "20ffffffffffffffffff01" "29000000000000f03f");
	free(h);
	tp_pb_reset(&b);
	memset(body, 'x', sizeof(body));
	tp_pb_open(&b, 11);
	tp_pb_open(&b, 4);
	tp_pb_bytes(&b, 6, body, 150);
	tp_pb_close(&b);
	tp_pb_close(&b);
	/* 5a <len 156> 22 <len 153> 32 <len 150> x*150 */
	ck_assert_uint_eq(b.len, 2 + 2 + 2 + 2 + 150 + 1);
	h = hex(b.p, 13);
	ck_assert_str_eq(h, "5a9c0122990132960178787878");
	free(h);
	tp_pb_release(&b);
}
END_TEST

static char *read_file_big(FILE *f, size_t *n)
{
	long size;
	char *buf;

	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	buf = tp_xmalloc((size_t)size + 1);
	*n = fread(buf, 1, (size_t)size, f);
	buf[*n] = 0;
	return buf;
}

static char *read_file(FILE *f, size_t *n)
{
	char *buf = tp_xmalloc(1 << 16);

	rewind(f);
	*n = fread(buf, 1, 1 << 16, f);
	return buf;
}

/* A process, a BEGIN with an interned name and an argument, an END:
 * the packets of trace-facts §1.11 written out by hand. Each track is
 * its own sequence (id = uuid), started by a packet that clears it and
 * sets its defaults (clock 64, its track) and the incremental clock 64
 * beside BOOTTIME at 0; a track used before it is declared gets that
 * packet on first use. Timestamps are deltas; ids count per kind. */
START_TEST(test_perfetto_packets)
{
	FILE *f = tmpfile();
	struct tp_trace_writer w;
	struct tp_trace_arg arg = { .name = { "a", 1 }, .kind = TP_ARG_INT, .v.i = -1 };
	struct tp_trace_slice s = { .name = { "n", 1 }, .args = &arg, .n_args = 1 };
	struct tp_error err = { 0 };
	uint64_t bytes;
	size_t n;
	char *got, *h;

	tp_trace_perfetto_writer(&w, f, false);
	w.process(w.ctx, 1, 1, "p", 0);
	w.begin(w.ctx, 2, 7, 3, &s);
	w.end(w.ctx, 2, 10, NULL, 0);
	ck_assert_int_eq(w.finish(w.ctx, &bytes, &err), TP_OK);
	w.release(w.ctx);
	got = read_file(f, &n);
	ck_assert_uint_eq(bytes, n);
	h = hex((uint8_t *)got, n);
	ck_assert_str_eq(h,
		/* the root descriptor, first: seq 1, flags 1 (CLEARED),
		 * track_descriptor{uuid 0, process_ordering 1 EXPLICIT} */
		"0a0c" "5001" "6801" "e20305" "0800" "980101"
		/* sequence 1 starts: seq 1, flags 3, trace_packet_defaults{
		 * timestamp_clock_id 64, track_event_defaults{track_uuid 1}},
		 * clock_snapshot{clocks{6, 0}, clocks{64, 0, incremental}} */
		"0a1e" "5001" "6803" "da0307" "d00340" "5a025801"
		"320e" "0a04" "0806" "1000" "0a06" "0840" "1000" "1801"
		/* seq 1, flags 2, track_descriptor{uuid 1, process{pid 1,
		 * name "p"}, rank 0} */
		"0a12" "5001" "6802" "e2030b" "0801" "1a05" "0801" "320170" "6000"
		/* its tracks' parent on its sequence: track_descriptor{uuid
		 * 2^63 | 1, name "Lines", parent 1, child_ordering 3} */
		"0a1d" "5001" "6802" "e20316" "0881808080808080808001" "12054c696e6573"
		"2801" "5803"
		/* sequence 2 starts (track 2, first used by the BEGIN) */
		"0a1e" "5002" "6803" "da0307" "d00340" "5a025802"
		"320e" "0a04" "0806" "1000" "0a06" "0840" "1000" "1801"
		/* ts +7, seq 2, flags 2, interned{event_names{1,"n"},
		 * debug_annotation_names{1,"a"}}, track_event{BEGIN,
		 * name_iid 1, debug_annotations{name_iid 1, int_value -1}} */
		"0a2b" "4007" "5002" "6802" "620e" "1205" "0801" "12016e" "1a05" "0801" "120161"
		"5a13" "4801" "5001" "220d" "0801" "20ffffffffffffffffff01"
		/* ts +3 (10), END: 12 bytes */
		"0a0a" "4003" "5002" "6802" "5a02" "4802");
	free(h);
	free(got);
	fclose(f);
}
END_TEST

/* A keyed slice on a second track: its cached name and fixed argument
 * are copied, and the second sequence gets their interned entries
 * (name, argument name, string value) in its first packet that uses
 * them. An event before the track's last one says its absolute time on
 * BOOTTIME (clock 6) and leaves the incremental clock as it was. */
START_TEST(test_perfetto_sequences)
{
	FILE *f = tmpfile();
	struct tp_trace_writer w;
	static const char key = 0;
	struct tp_trace_arg arg = { .name = { "k", 1 }, .kind = TP_ARG_STR, .stable = true,
				    .v.s = { "v", 1 } };
	struct tp_trace_slice s = { .name = { "n", 1 }, .args = &arg, .n_args = 1,
				    .key = &key, .n_fixed = 1 };
	struct tp_error err = { 0 };
	uint64_t bytes;
	size_t n;
	char *got, *h, *at;

	tp_trace_perfetto_writer(&w, f, false);
	w.track(w.ctx, 2, 1, 1, 1, "a", 0, false);
	w.track(w.ctx, 3, 1, 1, 2, "b", 1, false);
	w.begin(w.ctx, 2, 5, 3, &s);
	w.end(w.ctx, 2, 8, NULL, 0);
	ck_assert(w.has_fixed(w.ctx, &key));
	s.fixed_omitted = true;
	s.n_args = 0;
	w.begin(w.ctx, 3, 6, 3, &s);
	w.end(w.ctx, 3, 9, NULL, 0);
	w.instant(w.ctx, 3, 4, &(struct tp_trace_slice){ .name = { "n", 1 } });
	w.end(w.ctx, 3, 12, NULL, 0);
	ck_assert_int_eq(w.finish(w.ctx, &bytes, &err), TP_OK);
	w.release(w.ctx);
	got = read_file(f, &n);
	h = hex((uint8_t *)got, n);
	/* the BEGIN on track 3: ts +6, seq 3, interned{event_names{1,"n"},
	 * debug_annotation_names{1,"k"}, debug_annotation_string_values{
	 * 1,"v"}}, track_event{BEGIN, name_iid 1, {name_iid 1,
	 * string_value_iid 1}} */
	at = strstr(h, "4006" "5003" "6802" "6216" "1205" "0801" "12016e" "1a05" "0801" "12016b"
		       "ea0105" "0801" "120176" "5a0b" "4801" "5001" "2205" "0801" "880101");
	ck_assert_ptr_nonnull(at);
	/* END +3 (9); the instant at 4, absolute on clock 6, names only
	 * what the sequence has; END at 12 is +3 from 9 */
	ck_assert_ptr_nonnull(strstr(at, "0a0a" "4003" "5003" "6802" "5a02" "4802"
					 "0a0f" "4004" "d00306" "5003" "6802" "5a04" "4803" "5001"
					 "0a0a" "4003" "5003" "6802" "5a02" "4802"));
	free(h);
	free(got);
	fclose(f);
}
END_TEST

/* Interning starts again with each process (its packets all come
 * before the next one's): the key cached in the first process is not
 * known in the second, whose BEGIN defines name 1, argument name 1 and
 * string value 1 again; a second BEGIN of the key on that sequence is
 * written whole from the cache (the fast way): no interned data, the
 * same fields. A name-scope slice (a name, no args) likewise once its
 * sequence has the name. */
/* What w wrote to f, finished and released, as hex (malloc'd). */
static char *finished_hex(struct tp_trace_writer *w, FILE *f)
{
	struct tp_error err = { 0 };
	uint64_t bytes;
	size_t n;
	char *got, *h;

	ck_assert_int_eq(w->finish(w->ctx, &bytes, &err), TP_OK);
	w->release(w->ctx);
	got = read_file(f, &n);
	ck_assert_uint_eq(bytes, n);
	h = hex((uint8_t *)got, n);
	free(got);
	fclose(f);
	return h;
}

START_TEST(test_perfetto_processes)
{
	static const char key = 0;
	const struct tp_trace_arg kv = { .name = { "k", 1 }, .kind = TP_ARG_STR, .stable = true,
					 .v.s = { "v", 1 } };
	struct tp_trace_slice op = { .name = { "n", 1 }, .args = &kv, .n_args = 1,
				     .key = &key, .n_fixed = 1 };
	const struct tp_trace_slice scope = { .name = { "s", 1 } };
	struct tp_trace_writer w;
	FILE *f = tmpfile();
	char *h, *at;

	tp_trace_perfetto_writer(&w, f, false);
	for (uint64_t p = 1; p <= 10; p += 9) { /* processes 1 and 10 */
		w.process(w.ctx, p, (uint32_t)p, "p", (int)p);
		ck_assert(!w.has_fixed(w.ctx, &key)); /* the key is new to each */
		w.track(w.ctx, p + 1, p, (uint32_t)p, 1, "a", 0, false);
		w.begin(w.ctx, p + 1, 5, 3, &op);
		w.end(w.ctx, p + 1, 8, NULL, 0);
		ck_assert(w.has_fixed(w.ctx, &key));
	}
	op.fixed_omitted = true;
	op.n_args = 0;
	w.begin(w.ctx, 11, 9, 1, &op);
	w.end(w.ctx, 11, 10, NULL, 0);
	for (int64_t t = 10; t < 12; t++) {
		w.begin(w.ctx, 11, t, -1, &scope);
		w.end(w.ctx, 11, t + 1, &scope, t);
	}
	h = finished_hex(&w, f);
	/* the first BEGIN of the key on track 11 (sequence 11) defines its
	 * entries afresh, ids from 1 */
	at = strstr(h, "4005" "500b" "6802" "6216" "1205" "0801" "12016e" "1a05" "0801" "12016b"
		       "ea0105" "0801" "120176" "5a0b" "4801" "5001" "2205" "0801" "880101");
	ck_assert_ptr_nonnull(at);
	/* END +3 (8); BEGIN +1 (9) from the cache: no interned data; END
	 * +1; the scope BEGIN +0 defines "s" (name 2); END +1; the second
	 * scope BEGIN +0 has it; END +1 */
	ck_assert_ptr_nonnull(strstr(at, "0a0a" "4003" "500b" "6802" "5a02" "4802"
					 "0a13" "4001" "500b" "6802" "5a0b" "4801" "5001" "2205" "0801" "880101"
					 "0a0a" "4001" "500b" "6802" "5a02" "4802"
					 "0a15" "4000" "500b" "6802" "6207" "1205" "0802" "120173"
					 "5a04" "4801" "5002"
					 "0a0a" "4001" "500b" "6802" "5a02" "4802"
					 "0a0c" "4000" "500b" "6802" "5a04" "4801" "5002"
					 "0a0a" "4001" "500b" "6802" "5a02" "4802"));
	free(h);
}
END_TEST

/* Quotes, control characters and invalid UTF-8 in names stay JSON. */
START_TEST(test_json_strings)
{
	FILE *f = tmpfile();
	struct tp_trace_writer w;
	struct tp_trace_slice s = { .name = { "a\"b\\c\n\x01\xff\xc3\xa9", 10 } };
	struct tp_error err = { 0 };
	uint64_t bytes;
	size_t n;
	char *got;

	tp_trace_json_writer(&w, f, false);
	w.process(w.ctx, 1, 1, "p", 0);
	w.track(w.ctx, 2, 1, 1, 1, "t", 0, false);
	w.begin(w.ctx, 2, 1234567, 1001, &s);
	ck_assert_int_eq(w.finish(w.ctx, &bytes, &err), TP_OK);
	w.release(w.ctx);
	got = read_file(f, &n);
	got[n] = 0;
	ck_assert_ptr_nonnull(strstr(got,
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1234.567,\"name\":"
		"\"a\\\"b\\\\c\\u000a\\u0001\xef\xbf\xbd\xc3\xa9\",\"dur\":1.001}\n]}\n"));
	free(got);
	fclose(f);
}
END_TEST

START_TEST(test_gzip_sink)
{
	FILE *f = tmpfile();
	struct tp_sink s;
	struct tp_error err = { 0 };
	char *packed, out[5000];
	size_t n;
	uLongf len = sizeof(out);
	z_stream z = { 0 };

	tp_sink_init(&s, f, true);
	for (int i = 0; i < 400; i++)
		tp_sink_puts(&s, "0123456789");
	ck_assert_int_eq(tp_sink_finish(&s, &err), TP_OK);
	tp_sink_release(&s);
	packed = read_file(f, &n);
	ck_assert_uint_eq((uint8_t)packed[0], 0x1f);
	ck_assert_uint_eq((uint8_t)packed[1], 0x8b);
	ck_assert_int_eq(inflateInit2(&z, 31), Z_OK);
	z.next_in = (Bytef *)packed;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)len;
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	ck_assert_uint_eq(z.total_out, 4000);
	ck_assert_int_eq(memcmp(out + 3990, "0123456789", 10), 0);
	inflateEnd(&z);
	free(packed);
	fclose(f);
}
END_TEST

/* Lanes: two threads feed one root sink at once, records of 10 bytes to 3 MiB
 * bytes (in place, or written in pieces as a packet that outgrows a
 * buffer); each lane's records come out whole and in order. */
#define LANE_RECORDS 3000
struct lane_arg {
	struct tp_sink *root;
	uint8_t id;
};

static size_t record_len(uint8_t lane, uint32_t k)
{
	return k == 1000u + lane ? (size_t)3 << 20 : 10 + (k * 7919u + lane) % 2000;
}

static void *lane_main(void *p)
{
	struct lane_arg *a = p;
	struct tp_sink lane;

	tp_sink_lane_init(&lane, a->root);
	for (uint32_t k = 0; k < LANE_RECORDS; k++) {
		size_t n = record_len(a->id, k);
		uint8_t head[9] = { a->id, (uint8_t)k, (uint8_t)(k >> 8), (uint8_t)(k >> 16),
				    (uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16),
				    (uint8_t)(n >> 24), 0 };

		if (n <= TP_SINK_ROOM_MAX) {
			uint8_t *o = tp_sink_room(&lane, n);

			memcpy(o, head, 9);
			memset(o + 9, a->id + (uint8_t)k, n - 9);
			tp_sink_commit(&lane, n);
		} else {
			uint8_t *body = tp_xmalloc(n - 9);

			memset(body, a->id + (uint8_t)k, n - 9);
			tp_sink_write(&lane, head, 9);
			tp_sink_write(&lane, body, n - 9);
			tp_sink_packet_end(&lane);
			free(body);
		}
	}
	tp_sink_lane_close(&lane);
	return NULL;
}

/* The ways lanes' buffers reach the output: the second thread writes
 * them (fewer lanes declared than CPUs), or the lanes write the queue
 * themselves (as many lanes as CPUs: combine), plain or gzipped. The
 * thread's case declares one lane for the two that feed it, so that it
 * runs on any machine of two CPUs or more (the SINK_BUFS spare buffers
 * are room enough). */
static const struct {
	bool all_cpus;   /* expect as many lanes as CPUs: combine */
	bool gz;
} lane_cases[] = {
	{ false, false },
	{ true, false },
	{ true, true },
};

/* The whole output, inflated when gz. */
static char *sink_output(FILE *f, bool gz, size_t *n)
{
	size_t packed_n, cap = 0;
	char *packed = read_file_big(f, &packed_n), *out;
	z_stream z = { 0 };

	if (!gz) {
		*n = packed_n;
		return packed;
	}
	for (uint8_t id = 1; id <= 2; id++)
		for (uint32_t k = 0; k < LANE_RECORDS; k++)
			cap += record_len(id, k);
	out = tp_xmalloc(cap + 1);
	ck_assert_int_eq(inflateInit2(&z, 31), Z_OK);
	z.next_in = (Bytef *)packed;
	z.avail_in = (uInt)packed_n;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)(cap + 1);
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	*n = z.total_out;
	inflateEnd(&z);
	free(packed);
	return out;
}

START_TEST(test_sink_lanes)
{
	FILE *f = tmpfile();
	struct tp_sink root;
	struct tp_error err = { 0 };
	struct lane_arg args[2];
	pthread_t th[2];
	uint32_t next[2] = { 0, 0 };
	size_t n, at = 0;
	unsigned lanes = !lane_cases[_i].all_cpus ? 1 : tp_cpus() > 2 ? tp_cpus() : 2;
	char *got;

	tp_sink_init(&root, f, lane_cases[_i].gz);
	tp_sink_expect_lanes(&root, lanes);
	for (int i = 0; i < 2; i++) {
		args[i] = (struct lane_arg){ &root, (uint8_t)(i + 1) };
		ck_assert_int_eq(pthread_create(&th[i], NULL, lane_main, &args[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ck_assert_int_eq(tp_sink_finish(&root, &err), TP_OK);
	tp_sink_release(&root);
	got = sink_output(f, lane_cases[_i].gz, &n);
	while (at + 9 <= n) {
		const uint8_t *r = (const uint8_t *)got + at;
		uint8_t id = r[0];
		uint32_t k = r[1] | (uint32_t)r[2] << 8 | (uint32_t)r[3] << 16;
		size_t len = r[4] | (size_t)r[5] << 8 | (size_t)r[6] << 16 | (size_t)r[7] << 24;

		ck_assert(id == 1 || id == 2);
		ck_assert_uint_eq(k, next[id - 1]);
		ck_assert_uint_eq(len, record_len(id, k));
		ck_assert_uint_le(at + len, n);
		ck_assert_uint_eq(r[len - 1], (uint8_t)(id + k));
		next[id - 1]++;
		at += len;
	}
	ck_assert_uint_eq(at, n);
	ck_assert_uint_eq(next[0], LANE_RECORDS);
	ck_assert_uint_eq(next[1], LANE_RECORDS);
	free(got);
	fclose(f);
}
END_TEST

/* Ids survive the table's growth; same pointer, other kind: other id. */
START_TEST(test_intern)
{
	struct tp_intern t;
	static char text[5000];

	tp_intern_init(&t);
	for (size_t i = 0; i < 5000; i++)
		tp_intern_put(&t, 2, text + i, 1, i + 1);
	for (size_t i = 0; i < 5000; i++)
		ck_assert_uint_eq(tp_intern_get(&t, 2, text + i, 1), i + 1);
	ck_assert_uint_eq(tp_intern_get(&t, 3, text, 1), 0);
	ck_assert_uint_eq(tp_intern_get(&t, 2, text, 2), 0);
	tp_intern_release(&t);
}
END_TEST

/* The model: one XLA Ops line in any order, on any path (in order, a
 * reorder window, sorted whole), gives the same trace: a holds b and the
 * instant e; c overlaps a without nesting and goes to "XLA Ops (2)"; d
 * follows a on the line's own track. */
struct line_event { const char *name; int64_t start, dur; }; /* ps */

static const struct line_event line_events[] = {
	{ "a", 0, 10000 }, { "b", 1000, 2000 }, { "e", 3000, 0 },
	{ "c", 5000, 10000 }, { "d", 12000, 1000 },
};

static const struct {
	int order[5];
	size_t window;
} line_cases[] = {
	{ { 0, 1, 2, 3, 4 }, 4096 },   /* in order                       */
	{ { 4, 3, 2, 1, 0 }, 4096 },   /* reversed: the window sorts it  */
	{ { 1, 0, 3, 2, 4 }, 1 },      /* a window of 1 cannot: sorted   */
	{ { 4, 3, 2, 1, 0 }, 2 },
};

/* The JSON trace (no derived tracks) of the open capture, malloc'd. */
static char *json_trace(struct tp_capture *cap, struct tp_trace_stats *st)
{
	struct tp_trace_opts opts = { .format = TP_TRACE_JSON, .no_derived = true };
	struct tp_error err = { 0 };
	FILE *f = tmpfile();
	size_t n;
	char *got;

	ck_assert_int_eq(tp_trace_write(f, cap, &opts, st, &err), TP_OK);
	got = read_file_big(f, &n);
	fclose(f);
	return got;
}

static void open_one(struct tp_capture *cap, const char *path)
{
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_error err = { 0 };
	const char *paths[1] = { path };

	ck_assert_int_eq(tp_capture_open(cap, paths, 1, &o, &err), TP_OK);
}

/* The XSpace of events order[from, to) on a line starting at ts_ns
 * (their offsets from it; every event's metadata). */
static struct pb line_space(const int *order, int from, int to, int64_t ts_ns)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, ev = { 0 }, em = { 0 }, entry = { 0 };

	pb_str(&plane, 2, "/device:TPU:0");
	pb_str(&line, 2, "XLA Ops");
	if (ts_ns)
		pb_int(&line, 3, ts_ns);
	for (int i = from; i < to; i++) {
		const struct line_event *e = &line_events[order[i]];

		pb_int(&ev, 1, order[i] + 1);
		pb_int(&ev, 2, e->start - ts_ns * 1000);
		pb_int(&ev, 3, e->dur);
		pb_msg(&line, 4, &ev);
	}
	pb_msg(&plane, 3, &line);
	for (int i = 0; i < 5; i++) {
		pb_int(&em, 1, i + 1);
		pb_str(&em, 2, line_events[i].name);
		pb_int(&entry, 1, i + 1);
		pb_msg(&entry, 2, &em);
		pb_msg(&plane, 4, &entry);
	}
	pb_msg(&space, 1, &plane);
	pb_str(&space, 4, "h");
	return space;
}

/* The line as one .xplane.pb, or (chunked) as a .xplane.riegeli of two
 * chunks: the first two events on a line from 0 ns, the rest on the same
 * line from 1 ns (their offsets 1,000 ps less), which the merge's view
 * reads through a segment marker. */
static char *line_capture(const int *order, bool chunked)
{
	struct pb recs[2];
	struct pb file;
	char *path;

	if (!chunked) {
		recs[0] = line_space(order, 0, 5, 0);
		path = write_temp(".xplane.pb", recs[0].data, recs[0].len);
		pb_free(&recs[0]);
		return path;
	}
	recs[0] = line_space(order, 0, 2, 0);
	recs[1] = line_space(order, 2, 5, 1);
	file = riegeli_of(recs, 2);
	path = write_temp(".xplane.riegeli", file.data, file.len);
	pb_free(&file);
	pb_free(&recs[0]);
	pb_free(&recs[1]);
	return path;
}

/* Cases 0-3 as one .xplane.pb, 4-7 the same as a .xplane.riegeli: the
 * same trace (an event read again from the middle of its line, when the
 * window or the sort puts it out, keeps its chunk's time base). */
START_TEST(test_line_orders)
{
	size_t c = (size_t)_i % 4;
	char *path = line_capture(line_cases[c].order, _i >= 4);
	struct tp_trace_stats st;
	struct tp_capture cap;
	size_t saved = tp_trace_window;
	char *got;

	open_one(&cap, path);
	/* the scan at open tells whether the line needs ordering at all */
	ck_assert(cap.hosts[0].xs.planes[0].lines[0].scanned);
	ck_assert(cap.hosts[0].xs.planes[0].lines[0].in_order == (c == 0));
	tp_trace_window = line_cases[c].window;
	got = json_trace(&cap, &st);
	tp_trace_window = saved;
	ck_assert_uint_eq(st.slices, 4);
	ck_assert_uint_eq(st.instants, 1);
	ck_assert_uint_eq(st.tracks, 2);
	ck_assert_uint_eq(st.overlap_tracks, 1);
	ck_assert_str_eq(got,
		"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"h /device:TPU:0\"}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":0}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"XLA Ops\"}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":0}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0.000,\"name\":\"a\",\"dur\":0.010},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0.001,\"name\":\"b\",\"dur\":0.002},\n"
		"{\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":0.003,\"name\":\"e\",\"s\":\"t\"},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"XLA Ops (2)\"}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":1}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":0.005,\"name\":\"c\",\"dur\":0.010},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0.012,\"name\":\"d\",\"dur\":0.001}\n"
		"]}\n");
	free(got);
	tp_capture_release(&cap);
	unlink(path);
	free(path);
}
END_TEST

/* Perfetto keeps 512 levels per track: 600 events each inside the one
 * before make 512 on the line's track and 88 on "XLA Ops (2)". */
START_TEST(test_depth_limit)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, ev = { 0 }, em = { 0 }, entry = { 0 };
	struct tp_trace_stats st;
	struct tp_capture cap;
	char *path, *got;
	size_t on_second = 0;

	pb_str(&plane, 2, "/device:TPU:0");
	pb_str(&line, 2, "XLA Ops");
	for (int i = 0; i < 600; i++) {
		pb_int(&ev, 1, 1);
		pb_int(&ev, 2, i * 1000);
		pb_int(&ev, 3, (600 - i) * 2000);
		pb_msg(&line, 4, &ev);
	}
	pb_msg(&plane, 3, &line);
	pb_int(&em, 1, 1);
	pb_str(&em, 2, "op");
	pb_int(&entry, 1, 1);
	pb_msg(&entry, 2, &em);
	pb_msg(&plane, 4, &entry);
	pb_msg(&space, 1, &plane);
	path = write_temp(".xplane.pb", space.data, space.len);
	pb_free(&space);
	open_one(&cap, path);
	got = json_trace(&cap, &st);
	ck_assert_uint_eq(st.slices, 600);
	ck_assert_uint_eq(st.tracks, 2);
	ck_assert_uint_eq(st.overlap_tracks, 1);
	for (char *p = got; (p = strstr(p, "\"tid\":2,\"ts\"")); p++)
		on_second++;
	ck_assert_uint_eq(on_second, 88);
	free(got);
	tp_capture_release(&cap);
	unlink(path);
	free(path);
}
END_TEST


/* Regression: a zero-length event inside 512 open slices went on the
 * line's track at level 513, which Perfetto drops; it goes on the next
 * track, as a slice that deep would. */
START_TEST(test_deep_instant)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, ev = { 0 }, em = { 0 }, entry = { 0 };
	struct tp_trace_stats st;
	struct tp_capture cap;
	char *path, *got;

	pb_str(&plane, 2, "/device:TPU:0");
	pb_str(&line, 2, "XLA Ops");
	for (int i = 0; i < 512; i++) {
		pb_int(&ev, 1, 1);
		pb_int(&ev, 2, i * 1000);
		pb_int(&ev, 3, (600 - i) * 2000);
		pb_msg(&line, 4, &ev);
	}
	pb_int(&ev, 1, 2);
	pb_int(&ev, 2, 512 * 1000);
	pb_int(&ev, 3, 0);
	pb_msg(&line, 4, &ev);
	pb_msg(&plane, 3, &line);
	for (int k = 1; k <= 2; k++) {
		pb_int(&em, 1, k);
		pb_str(&em, 2, k == 1 ? "op" : "mark");
		pb_int(&entry, 1, k);
		pb_msg(&entry, 2, &em);
		pb_msg(&plane, 4, &entry);
	}
	pb_msg(&space, 1, &plane);
	path = write_temp(".xplane.pb", space.data, space.len);
	pb_free(&space);
	open_one(&cap, path);
	got = json_trace(&cap, &st);
	ck_assert_uint_eq(st.slices, 512);
	ck_assert_uint_eq(st.instants, 1);
	ck_assert_uint_eq(st.tracks, 2);
	ck_assert_ptr_nonnull(strstr(got, "{\"ph\":\"i\",\"pid\":1,\"tid\":2,\"ts\":0.512,\"name\":\"mark\""));
	free(got);
	tp_capture_release(&cap);
	unlink(path);
	free(path);
}
END_TEST

/* Regression: 600 zero-length events at one nanosecond all went on the
 * line's track, where Perfetto may stack them past its 512 levels; 512
 * stay there and 88 go on "XLA Ops (2)", as nested slices do. */
START_TEST(test_many_instants_at_once)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 }, ev = { 0 }, em = { 0 }, entry = { 0 };
	struct tp_trace_stats st;
	struct tp_capture cap;
	char *path, *got;
	size_t on_first = 0, on_second = 0;

	pb_str(&plane, 2, "/device:TPU:0");
	pb_str(&line, 2, "XLA Ops");
	for (int i = 0; i < 600; i++) {
		pb_int(&ev, 1, 1);
		pb_int(&ev, 2, 5000 + i % 7); /* within one ns: 5.000-5.006 */
		pb_int(&ev, 3, 0);
		pb_msg(&line, 4, &ev);
	}
	pb_msg(&plane, 3, &line);
	pb_int(&em, 1, 1);
	pb_str(&em, 2, "mark");
	pb_int(&entry, 1, 1);
	pb_msg(&entry, 2, &em);
	pb_msg(&plane, 4, &entry);
	pb_msg(&space, 1, &plane);
	path = write_temp(".xplane.pb", space.data, space.len);
	pb_free(&space);
	open_one(&cap, path);
	got = json_trace(&cap, &st);
	ck_assert_uint_eq(st.instants, 600);
	ck_assert_uint_eq(st.slices, 0);
	ck_assert_uint_eq(st.tracks, 2);
	ck_assert_uint_eq(st.overlap_tracks, 1);
	for (char *p = got; (p = strstr(p, "\"tid\":1,\"ts\":0.000,")); p++)
		on_first++;
	for (char *p = got; (p = strstr(p, "\"tid\":2,\"ts\":0.000,")); p++)
		on_second++;
	ck_assert_uint_eq(on_first, 512);
	ck_assert_uint_eq(on_second, 88);
	free(got);
	tp_capture_release(&cap);
	unlink(path);
	free(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_varint, 0, sizeof(varints) / sizeof(varints[0]));
	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_perfetto_packets);
	tcase_add_test(tc, test_perfetto_sequences);
	tcase_add_test(tc, test_perfetto_processes);
	tcase_add_test(tc, test_json_strings);
	tcase_add_test(tc, test_gzip_sink);
	tcase_add_loop_test(tc, test_sink_lanes, 0,
			    (int)(sizeof(lane_cases) / sizeof(lane_cases[0])));
	tcase_add_test(tc, test_intern);
	tcase_add_test(tc, test_depth_limit);
	tcase_add_test(tc, test_deep_instant);
	tcase_add_test(tc, test_many_instants_at_once);
	tcase_add_loop_test(tc, test_line_orders, 0, 2 * sizeof(line_cases) / sizeof(line_cases[0]));
	suite_add_tcase(s, tc);
	return run_suite(s);
}
