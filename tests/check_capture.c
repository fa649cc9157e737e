/*
 * check_capture.c - turning CAPTURE arguments into a capture: telling an
 * XSpace from an HloProto by content, gzip (including a bomb and a cut
 * stream), run directories, logdirs and their runs, XLA dump directories,
 * embedded module layouts A and B, and the errors for bad inputs.
 */
#include "testutil.h"

#include <sys/stat.h>
#include <zlib.h>

#include "tpuprof/decode/capture.h"
#include "tpuprof/analyze/info.h"
#include "tpuprof/util/json_stream.h"
#include "tpuprof/analyze/memory.h"
#include "tpuprof/report/memory_report.h"
#include "tpuprof/report/report.h"

#define PID_A UINT64_C(17342868964687645945)

/* A serialized HloProto: one module with one computation. */
static struct pb hlo_bytes(const char *name, int64_t module_id, bool with_ba)
{
	Xla__HloProto hlo = XLA__HLO_PROTO__INIT;
	Xla__HloModuleProto mod = XLA__HLO_MODULE_PROTO__INIT;
	Xla__HloComputationProto comp = XLA__HLO_COMPUTATION_PROTO__INIT;
	Xla__HloComputationProto *comps[] = { &comp };
	Xla__HloInstructionProto ins[2] = { XLA__HLO_INSTRUCTION_PROTO__INIT,
					    XLA__HLO_INSTRUCTION_PROTO__INIT };
	Xla__HloInstructionProto *insp[] = { &ins[0], &ins[1] };
	Xla__BufferAssignmentProto ba = XLA__BUFFER_ASSIGNMENT_PROTO__INIT;
	struct pb b = { 0 };

	ins[0].name = (char *)"p0";
	ins[0].opcode = (char *)"parameter";
	ins[0].id = 1;
	ins[1].name = (char *)"all-reduce.1";
	ins[1].opcode = (char *)"all-reduce";
	ins[1].id = 2;
	comp.name = (char *)"main";
	comp.n_instructions = 2;
	comp.instructions = insp;
	mod.name = (char *)name;
	mod.id = module_id;
	mod.n_computations = 1;
	mod.computations = comps;
	hlo.hlo_module = &mod;
	if (with_ba)
		hlo.buffer_assignment = &ba;
	b.len = xla__hlo_proto__get_packed_size(&hlo);
	b.cap = b.len + 1;
	b.data = tp_xmalloc(b.cap);
	xla__hlo_proto__pack(&hlo, b.data);
	return b;
}

/* An XSpace whose /host:metadata embeds one module, layout A or B. */
static struct pb space_bytes(char layout, const char *hostname)
{
	struct pb space = { 0 }, plane = { 0 }, entry = { 0 }, em = { 0 };
	struct pb st = { 0 }, sm = { 0 }, sme = { 0 }, dev = { 0 };
	struct pb hlo = hlo_bytes("jit_f", 35, true);
	int64_t key = layout == 'A' ? (int64_t)PID_A : 7;

	pb_str(&dev, 2, "/device:TPU:0");
	pb_msg(&space, 1, &dev);
	pb_str(&plane, 2, "/host:metadata");
	pb_int(&em, 1, key);
	pb_str(&em, 2, "jit_f(17342868964687645945)");
	pb_int(&st, 1, 1);
	pb_lenfield(&st, 6, hlo.data, hlo.len);
	pb_msg(&em, 5, &st);
	if (layout == 'B') {
		pb_str(&em, 4, "jit_f(17342868964687645945)");
		pb_int(&st, 1, 2);
		pb_int(&st, 3, (int64_t)PID_A);
		pb_msg(&em, 5, &st);
	}
	pb_int(&entry, 1, key);
	pb_msg(&entry, 2, &em);
	pb_msg(&plane, 4, &entry);
	for (int id = 1; id <= 2; id++) {
		pb_int(&sm, 1, id);
		pb_str(&sm, 2, id == 1 ? "Hlo Proto" : "program_id");
		pb_int(&sme, 1, id);
		pb_msg(&sme, 2, &sm);
		pb_msg(&plane, 5, &sme);
	}
	pb_msg(&space, 1, &plane);
	if (hostname)
		pb_str(&space, 4, hostname);
	pb_free(&hlo);
	return space;
}

static struct pb gzip_bytes(const void *p, size_t n)
{
	struct pb out = { 0 };
	z_stream z = { 0 };

	out.cap = n + 1024;
	out.data = tp_xmalloc(out.cap);
	ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)p;
	z.avail_in = (uInt)n;
	z.next_out = out.data;
	z.avail_out = (uInt)out.cap;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	out.len = z.total_out;
	deflateEnd(&z);
	return out;
}

static const struct tp_open_opts defaults = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };

START_TEST(test_sniff)
{
	struct pb x = space_bytes('A', NULL), h = hlo_bytes("m", 1, false);

	ck_assert_int_eq(tp_sniff(x.data, x.len), 'X');
	ck_assert_int_eq(tp_sniff(h.data, h.len), 'H');
	ck_assert_int_eq(tp_sniff((const uint8_t *)"{\"json\": 1}", 11), 0);
	pb_free(&x);
	pb_free(&h);
}
END_TEST

static void open_one(const char *path, struct tp_capture *cap)
{
	struct tp_error err = { 0 };
	const char *paths[] = { path };

	ck_assert_msg(tp_capture_open(cap, paths, 1, &defaults, &err) == TP_OK, "%s", err.msg);
}

START_TEST(test_layouts)
{
	for (int i = 0; i < 2; i++) {
		char layout = i ? 'B' : 'A';
		struct pb x = space_bytes(layout, i ? "worker-1" : NULL);
		char *path = write_temp(".xplane.pb", x.data, x.len);
		struct tp_capture cap;
		struct tp_error err = { 0 };

		open_one(path, &cap);
		ck_assert_uint_eq(cap.n_hosts, 1);
		ck_assert_uint_eq(cap.n_modules, 1);
		ck_assert_uint_eq(cap.modules[0].program_id, PID_A);
		ck_assert_int_eq(cap.modules[0].embed_layout, layout);
		ck_assert_int_eq(tp_module_decode(&cap.modules[0], &cap.arena, &err), TP_OK);
		ck_assert_str_eq(cap.modules[0].hlo->hlo_module->name, "jit_f");
		if (i)
			ck_assert_str_eq(cap.hosts[0].name, "worker-1");
		else
			ck_assert(strstr(path, cap.hosts[0].name) != NULL);
		tp_capture_release(&cap);
		unlink(path);
		free(path);
		pb_free(&x);
	}
}
END_TEST

START_TEST(test_gzip_and_hlo_file)
{
	struct pb x = space_bytes('A', NULL), gz = gzip_bytes(x.data, x.len);
	struct pb h = hlo_bytes("jit_g", 42, true);
	char *gzpath = write_temp(".bin", gz.data, gz.len);
	char *hpath = write_temp(".pb", h.data, h.len);
	struct tp_capture cap;
	struct tp_error err = { 0 };
	const char *paths[] = { gzpath, hpath };

	ck_assert_int_eq(tp_capture_open(&cap, paths, 2, &defaults, &err), TP_OK);
	ck_assert_uint_eq(cap.n_sources, 2);
	ck_assert(cap.sources[0].gzip);
	ck_assert_int_eq(cap.sources[0].kind, TP_SOURCE_XSPACE);
	ck_assert_uint_eq(cap.sources[0].buf.size, x.len);
	ck_assert_int_eq(cap.sources[1].kind, TP_SOURCE_HLO_PROTO);
	ck_assert(!cap.sources[1].kind_from_name);
	ck_assert_uint_eq(cap.n_modules, 2);
	ck_assert_uint_eq(cap.modules[1].program_id, 42); /* module id */
	ck_assert_int_eq(cap.modules[1].host, -1);
	tp_capture_release(&cap);
	unlink(gzpath);
	unlink(hpath);
	free(gzpath);
	free(hpath);
	pb_free(&x);
	pb_free(&gz);
	pb_free(&h);
}
END_TEST

static void expect_error(const char *path, uint64_t max, const char *fragment)
{
	struct tp_capture cap;
	struct tp_error err = { 0 };
	const char *paths[] = { path };
	struct tp_open_opts o = { .run = NULL, .max_input = max };

	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &o, &err), TP_ERR_INPUT);
	ck_assert_msg(strstr(err.msg, fragment) != NULL, "'%s' lacks '%s'", err.msg, fragment);
	ck_assert_msg(strstr(err.msg, path) != NULL, "'%s' does not name the file", err.msg);
}

/* A capture cut short is a capture whatever its name: judged by its
 * whole fields, or, cut inside its first plane, by the whole fields of
 * that. Before, such bytes sniffed as nothing, so an unnamed copy (a
 * .pb, no suffix, standard input) read as "not a profile capture" and
 * --partial could not read it. Bytes that are damaged, not cut, and a
 * cut HloProto, still sniff as nothing. */
START_TEST(test_sniff_cut_short)
{
	struct tp_buffer small = { 0 };
	struct tp_error err = { 0 };
	struct pb h = hlo_bytes("m", 1, false), bad = { 0 };
	uint64_t file_bytes;
	bool gz;
	char *path, *partial;
	const char *paths[1];
	struct tp_capture cap;
	struct tp_open_opts o = defaults;

	ck_assert_int_eq(tp_buffer_load(&small, "testdata/small.xplane.pb", 1 << 24, &gz,
					&file_bytes, &err), TP_OK);
	/* in the first plane once its id is whole (byte 6: its tag, a
	 * three-byte length, then id 2), in its name, in its lines; between
	 * planes, inside a later one, one byte short */
	static const size_t cuts[] = { 6, 12, 1000, 22717, 22718, 30000 };
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		ck_assert_msg(tp_sniff(small.data, cuts[i]) == 'X', "cut at %zu", cuts[i]);
	ck_assert_int_eq(tp_sniff(small.data, small.size - 1), 'X');
	ck_assert_int_eq(tp_sniff(small.data, 5), 0);   /* no whole field of it: nothing */
	ck_assert_int_eq(tp_sniff(h.data, h.len - 1), 0);
	pb_bytes(&bad, small.data, 22717);
	pb_bytes(&bad, "\x0f\x0f\x0f", 3);            /* wire type 7: damage */
	ck_assert_int_eq(tp_sniff(bad.data, bad.len), 0);

	path = write_temp(".pb", small.data, 35502);
	expect_error(path, TP_DEFAULT_MAX_INPUT,
		     "capture cut short (still being written?) at byte 22718");
	paths[0] = path;
	o.partial = true;
	ck_assert_msg(tp_capture_open(&cap, paths, 1, &o, &err) == TP_OK, "%s", err.msg);
	ck_assert_uint_eq(cap.n_hosts, 1);
	tp_capture_release(&cap);
	partial = write_temp("", small.data, 100);
	expect_error(partial, TP_DEFAULT_MAX_INPUT, "its first plane runs past its end");
	/* --partial keeps it cut short (not corrupt): no plane is complete */
	paths[0] = partial;
	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &o, &err), TP_ERR_INPUT);
	ck_assert_msg(strstr(err.msg, "capture cut short (still being written?) at byte 1: ") &&
		      strstr(err.msg, "; its first plane runs past its end: no plane is complete, "
				      "so --partial has nothing to read: try again once it is complete") &&
		      !strstr(err.msg, "corrupt"), "%s", err.msg);
	unlink(path);
	unlink(partial);
	free(path);
	free(partial);
	pb_free(&bad);
	pb_free(&h);
	tp_buffer_release(&small);
}
END_TEST

START_TEST(test_bad_gzip)
{
	uint8_t *zeros = tp_xcalloc(1 << 20, 1);
	struct pb bomb = gzip_bytes(zeros, 1 << 20);
	struct pb x = space_bytes('A', NULL), gz = gzip_bytes(x.data, x.len);
	char *bomb_path = write_temp(".xplane.pb", bomb.data, bomb.len);
	char *cut_path = write_temp(".xplane.pb", gz.data, gz.len / 2);
	char *ok_path = write_temp(".xplane.pb", gz.data, gz.len);

	expect_error(bomb_path, TP_DEFAULT_MAX_INPUT, "gzip content is not a profile capture");
	expect_error(cut_path, TP_DEFAULT_MAX_INPUT, "truncated gzip data");
	expect_error(ok_path, 16, "inflates past the limit of 16 bytes");
	unlink(bomb_path);
	unlink(cut_path);
	unlink(ok_path);
	free(bomb_path);
	free(cut_path);
	free(ok_path);
	free(zeros);
	pb_free(&bomb);
	pb_free(&x);
	pb_free(&gz);
}
END_TEST

static char *make_dir(void)
{
	char tmpl[] = "/tmp/tpuprof-dir-XXXXXX";

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	return tp_xstrdup(tmpl);
}

static void put_file(const char *dir, const char *name, const struct pb *b)
{
	char *path = tp_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	if (b && b->len)
		ck_assert_uint_eq(fwrite(b->data, 1, b->len, f), b->len);
	fclose(f);
	free(path);
}

static void remove_tree(const char *dir)
{
	char *cmd = tp_xasprintf("rm -rf '%s'", dir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

START_TEST(test_logdir_runs)
{
	char *root = make_dir();
	struct pb x = space_bytes('A', NULL), h = hlo_bytes("jit_f", 35, true);
	const char *runs[] = { "2026_01_01_00_00_00", "2026_02_01_00_00_00" };
	struct tp_capture cap;
	struct tp_error err = { 0 };
	const char *paths[] = { root };
	struct tp_open_opts named = { .run = "2026_01_01_00_00_00", .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_open_opts missing = { .run = "nope", .max_input = TP_DEFAULT_MAX_INPUT };

	for (int i = 0; i < 2; i++) {
		char *run = tp_xasprintf("%s/plugins/profile/%s", root, runs[i]);
		char *cmd = tp_xasprintf("mkdir -p '%s'", run);

		ck_assert_int_eq(system(cmd), 0);
		put_file(run, "host0.xplane.pb", &x);
		put_file(run, "host1.xplane.pb", &x);
		/* XProf's cache of an embedded module, and the empty marker */
		put_file(run, "jit_f(17342868964687645945).hlo_proto.pb", &h);
		put_file(run, "NO_MODULE.hlo_proto.pb", NULL);
		free(run);
		free(cmd);
	}
	open_one(root, &cap);
	ck_assert_str_eq(cap.run, runs[1]);
	ck_assert_uint_eq(cap.n_hosts, 2);
	ck_assert_str_eq(cap.hosts[0].name, "host0");
	ck_assert_str_eq(cap.hosts[1].name, "host1");
	ck_assert_uint_eq(cap.n_modules, 2);   /* one per host, cache skipped */
	ck_assert_uint_eq(cap.n_notes, 1);     /* which run was taken */
	tp_capture_release(&cap);
	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &named, &err), TP_OK);
	ck_assert_str_eq(cap.run, runs[0]);
	tp_capture_release(&cap);
	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &missing, &err), TP_ERR_INPUT);
	ck_assert(strstr(err.msg, "no run named 'nope' (2 runs here)") != NULL);
	{
		/* a nested run as the server names it, and fetch prints it:
		 * "train/2023_..." is the folder train_2023_... (refused before) */
		struct tp_open_opts nested = { .run = "train/2023_01_01_00_00_00",
					       .max_input = TP_DEFAULT_MAX_INPUT };
		char *run = tp_xasprintf("%s/plugins/profile/train_2023_01_01_00_00_00", root);
		char *cmd = tp_xasprintf("mkdir -p '%s'", run);

		ck_assert_int_eq(system(cmd), 0);
		put_file(run, "host0.xplane.pb", &x);
		ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &nested, &err), TP_OK);
		ck_assert_str_eq(cap.run, "train_2023_01_01_00_00_00");
		tp_capture_release(&cap);
		free(run);
		free(cmd);
	}
	remove_tree(root);
	free(root);
	pb_free(&x);
	pb_free(&h);
}
END_TEST

START_TEST(test_dump_dir)
{
	char *dir = make_dir();
	struct pb before = hlo_bytes("jit_f", 3, false), after = hlo_bytes("jit_f", 3, true);
	struct tp_capture cap;

	put_file(dir, "module_0003.jit_f.before_optimizations.hlo.pb", &before);
	put_file(dir, "module_0003.jit_f.cpu_after_optimizations.hlo.pb", &after);
	put_file(dir, "module_0003.jit_f.cpu_after_optimizations-buffer-assignment.txt", &after);
	open_one(dir, &cap);
	ck_assert_uint_eq(cap.n_sources, 1);
	ck_assert_int_eq(cap.sources[0].kind, TP_SOURCE_XLA_DUMP);
	ck_assert_int_eq(cap.modules[0].origin, TP_MODULE_XLA_DUMP);
	ck_assert_uint_eq(cap.modules[0].program_id, 3);
	ck_assert_ptr_nonnull(cap.modules[0].hlo->buffer_assignment);
	tp_capture_release(&cap);
	remove_tree(dir);
	free(dir);
	pb_free(&before);
	pb_free(&after);
}
END_TEST

/* Three hosts embed the same two programs: six modules, two HLOs. */
START_TEST(test_shared_hlo)
{
	const char *path = "testdata/run-3hosts";
	struct tp_capture cap;
	struct tp_error err = { 0 };
	size_t distinct = 0;

	ck_assert_int_eq(tp_capture_open(&cap, &path, 1, &defaults, &err), TP_OK);
	ck_assert_uint_eq(cap.n_modules, 6);
	for (size_t i = 0; i < cap.n_modules; i++)
		ck_assert_int_eq(tp_capture_decode_module(&cap, &cap.modules[i], &err), TP_OK);
	for (size_t i = 0; i < cap.n_modules; i++) {
		bool first = true;

		for (size_t j = 0; j < i; j++)
			if (cap.modules[j].hlo == cap.modules[i].hlo) {
				first = false;
				ck_assert_uint_eq(cap.modules[j].program_id,
						  cap.modules[i].program_id);
			}
		distinct += first;
	}
	ck_assert_uint_eq(distinct, 2);
	tp_capture_release(&cap);
}
END_TEST

/* The same, decoded at once (tp_capture_decode_modules, on threads):
 * two unpacked, the copies sharing them, as one by one. */
START_TEST(test_shared_hlo_at_once)
{
	const char *path = "testdata/run-3hosts";
	struct tp_capture cap;
	struct tp_error err = { 0 };

	ck_assert_int_eq(tp_capture_open(&cap, &path, 1, &defaults, &err), TP_OK);
	ck_assert_uint_eq(cap.n_modules, 6);
	ck_assert_int_eq(tp_capture_decode_modules(&cap, NULL, &err), TP_OK);
	for (size_t i = 0; i < cap.n_modules; i++) {
		ck_assert_ptr_nonnull(cap.modules[i].hlo);
		ck_assert_ptr_eq(cap.modules[i].hlo, cap.modules[i % 2].hlo);
		ck_assert_uint_eq(cap.modules[i].program_id, cap.modules[i % 2].program_id);
	}
	ck_assert_ptr_ne(cap.modules[0].hlo, cap.modules[1].hlo);
	tp_capture_release(&cap);
}
END_TEST

/* Resident kB of the mapping that holds p: the Rss line of its entry in
 * /proc/self/smaps; -1 when not found. */
static long mapping_rss_kb(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	uintptr_t a = (uintptr_t)p;
	char line[512];
	bool in = false;
	long kb = -1;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = a >= lo && a < hi;
		else if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

static bool in_file(const struct tp_xspace *xs, struct tp_str s)
{
	return s.len && (const uint8_t *)s.ptr >= xs->base &&
	       (const uint8_t *)s.ptr < xs->base + xs->size;
}

/* Every page of every host's mapped file read, as analyses do. */
static void touch_hosts(const struct tp_capture *cap)
{
	volatile uint8_t sum = 0;

	for (size_t h = 0; h < cap->n_hosts; h++) {
		const struct tp_xspace *xs = &cap->hosts[h].xs;

		for (size_t i = 0; i < xs->size; i += 4096)
			sum += xs->base[i];
		ck_assert_int_gt(mapping_rss_kb(xs->base), 16);
	}
	(void)sum;
}

/* No host's mapping holds more than the file's last, partial page. */
static void assert_dropped(const struct tp_capture *cap)
{
	for (size_t h = 0; h < cap->n_hosts; h++)
		ck_assert_int_le(mapping_rss_kb(cap->hosts[h].xs.base), 4);
}

/* The analyses copy out what the writers print (plane and line names at
 * decode, info's plane stats and versions, runtime snapshots' strings)
 * and drop each host's pages once they have read it, or a pod's run
 * directory keeps a few MB per host resident to the end (at most the
 * file's last, partial page stays). The writers only write: they fault
 * none of those pages back in. */
START_TEST(test_pages_dropped)
{
	const char *path = "testdata/run-3hosts";
	struct tp_capture cap;
	struct tp_error err = { 0 };
	struct tp_info info;
	struct tp_memory mem;
	struct tp_mem_options mopt = { .max_suggestions = 5 };
	struct tp_memory_filter mf = { 0 };
	FILE *null = fopen("/dev/null", "w");
	struct tp_jw w;

	ck_assert_ptr_nonnull(null);
	ck_assert_int_eq(tp_capture_open(&cap, &path, 1, &defaults, &err), TP_OK);
	ck_assert(cap.hosts[0].xs.drop_pages); /* mapped files */
	for (size_t h = 0; h < cap.n_hosts; h++) {
		const struct tp_xspace *xs = &cap.hosts[h].xs;

		/* plane and line names, printed everywhere, are copies */
		for (size_t p = 0; p < xs->n_planes; p++) {
			const struct tp_plane *pl = &xs->planes[p];

			ck_assert(!in_file(xs, pl->name));
			for (size_t l = 0; l < pl->n_lines; l++)
				ck_assert(!in_file(xs, pl->lines[l].name));
		}
	}
	touch_hosts(&cap);
	ck_assert_int_eq(tp_memory_build(&mem, &cap, &mopt, &mf, &err), TP_OK);
	ck_assert_uint_eq(mem.runtime.n_devices, 6); /* two per host */
	assert_dropped(&cap); /* not kept for the ops pass */
	touch_hosts(&cap);
	ck_assert_int_eq(tp_info_build(&info, &cap, &err), TP_OK);
	assert_dropped(&cap); /* info too, host by host */

	tp_jw_init(&w, null);
	tp_info_json(&w, NULL, &cap, &info);
	ck_assert_int_eq(tp_jw_finish(&w, &err), TP_OK);
	assert_dropped(&cap);

	tp_jw_init(&w, null);
	tp_memory_json(&w, NULL, &cap, &mem);
	ck_assert_int_eq(tp_jw_finish(&w, &err), TP_OK);
	assert_dropped(&cap);

	ck_assert_int_eq(tp_report_info(null, TP_FORMAT_TEXT, &cap, &info, &err), TP_OK);
	assert_dropped(&cap);

	tp_memory_release(&mem);
	tp_info_release(&info);
	tp_capture_release(&cap);
	fclose(null);
}
END_TEST

/* A plane whose line of events (about 2.5 MiB) ends in the middle of a
 * MiB, its event metadata after it. */
static struct pb long_line_capture(void)
{
	struct pb space = { 0 }, plane = { 0 }, line = { 0 };

	pb_int(&plane, 1, 1);
	pb_str(&plane, 2, "/device:TPU:0");
	pb_int(&line, 1, 1);
	pb_str(&line, 2, "XLA Ops");
	pb_int(&line, 3, 1000);
	for (int64_t i = 0; line.len < ((size_t)5 << 19); i++) {
		struct pb ev = { 0 };

		pb_int(&ev, 1, 1 + i % 50);
		pb_int(&ev, 2, i * 1000);
		pb_int(&ev, 3, 900);
		pb_msg(&line, 4, &ev);
	}
	pb_msg(&plane, 3, &line);
	for (int64_t id = 1; id <= 50; id++) {
		char name[32];

		snprintf(name, sizeof(name), "fusion.%d", (int)id);
		pb_metadata(&plane, 4, id, name);
	}
	pb_msg(&space, 1, &plane);
	pb_free(&plane);
	pb_free(&line);
	return space;
}

/* The area of the process's mappings that holds p: [*lo, *hi). */
static void area_of(const void *p, uintptr_t *lo, uintptr_t *hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	uintptr_t a = (uintptr_t)p;
	char line[512];

	*lo = *hi = 0;
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long x, y;

		if (sscanf(line, "%lx-%lx ", &x, &y) == 2 && a >= x && a < y) {
			*lo = x;
			*hi = y;
			break;
		}
	}
	fclose(f);
}

/* A name read from a plane's metadata after the open (every writer reads
 * them) maps the metadata's pages, not the MiB of the line before it:
 * the kernel maps a whole large folio of the page cache on a read fault
 * (Linux 6.18), but never past the area of the mapping faulted in, and a
 * long line is an area of its own. The area is checked everywhere; what
 * a fault maps, where the file system keeps large folios (a file written
 * in one write of 1 MiB maps more than 128 KiB on a read of one byte,
 * which the kernel does as memory allows: elsewhere, and at times here,
 * a fault maps 64 KiB wherever it is and there is nothing to tell). */
START_TEST(test_metadata_maps_no_line)
{
	struct pb bytes = long_line_capture();
	char *path = write_temp_once(".xplane.pb", bytes.data, bytes.len);
	const char *paths[1] = { path };
	struct tp_capture cap;
	struct tp_error err = { 0 };
	const struct tp_xspace *xs;
	const struct tp_line *ln;
	uintptr_t lo, hi, page = (uintptr_t)sysconf(_SC_PAGESIZE);

	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &defaults, &err), TP_OK);
	xs = &cap.hosts[0].xs;
	ck_assert(xs->drop_pages);
	ln = &xs->planes[0].lines[0];
	ck_assert_uint_gt(ln->body.len, (size_t)5 << 19);
	area_of(ln->body.ptr + ln->body.len / 2, &lo, &hi);
	ck_assert_uint_eq(lo, ((uintptr_t)ln->body.ptr + page - 1) & ~(page - 1));
	ck_assert_uint_eq(hi, ((uintptr_t)ln->body.ptr + ln->body.len) & ~(page - 1));
	if (one_write_maps_kb() > 128) {
		long before = rss_file_kb(), kb;

		/* the metadata's first bytes, right after the line */
		(void)*(volatile const char *)(ln->body.ptr + ln->body.len + 64);
		kb = rss_file_kb() - before;
		ck_assert_msg(kb <= 128, "one byte of metadata mapped %ld KiB", kb);
	}
	tp_capture_release(&cap);
	unlink(path);
	free(path);
	pb_free(&bytes);
}
END_TEST

/* Hosts decode in parallel, but the error is the first bad host's in
 * argument order, whatever thread met which first: a good host, then a
 * truncated one, then one of random bytes, then a missing file. */
START_TEST(test_host_errors_in_order)
{
	struct tp_buffer good;
	struct tp_error err = { 0 };
	struct tp_capture cap;
	uint64_t file_bytes;
	bool gz;
	char junk[4096];
	const char *paths[4];
	char *tmp[3];

	ck_assert_int_eq(tp_buffer_load(&good, "testdata/small.xplane.pb", 1 << 24, &gz,
					&file_bytes, &err), TP_OK);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 7919 + 13);
	tmp[0] = write_temp(".xplane.pb", good.data, good.size);
	tmp[1] = write_temp(".xplane.pb", good.data, good.size - 1000);
	tmp[2] = write_temp(".xplane.pb", junk, sizeof(junk));
	paths[0] = tmp[0];
	paths[1] = tmp[1];
	paths[2] = tmp[2];
	paths[3] = "/nonexistent/host.xplane.pb";
	for (unsigned threads = 1; threads <= 4; threads += 3) {
		tp_set_threads(threads);
		ck_assert_int_eq(tp_capture_open(&cap, paths, 4, &defaults, &err), TP_ERR_INPUT);
		ck_assert_msg(strncmp(err.msg, tmp[1], strlen(tmp[1])) == 0, "%s", err.msg);
		ck_assert_int_eq(tp_capture_open(&cap, paths + 2, 2, &defaults, &err), TP_ERR_INPUT);
		ck_assert_msg(strncmp(err.msg, tmp[2], strlen(tmp[2])) == 0, "%s", err.msg);
		/* good hosts and then a missing file: the file's error */
		paths[1] = paths[3];
		ck_assert_int_ne(tp_capture_open(&cap, paths, 2, &defaults, &err), TP_OK);
		ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/host.xplane.pb"));
		paths[1] = tmp[1];
	}
	tp_set_threads(0);
	for (int i = 0; i < 3; i++) {
		unlink(tmp[i]);
		free(tmp[i]);
	}
	tp_buffer_release(&good);
}
END_TEST

START_TEST(test_bad_inputs)
{
	char *dir = make_dir();
	char *empty = write_temp(".xplane.pb", "", 0);
	char *text = write_temp(".txt", "hello, world\n", 13);
	char *named = write_temp(".xplane.pb", "hello, world\n", 13);

	expect_error(dir, TP_DEFAULT_MAX_INPUT, "no captures in this directory");
	expect_error(empty, TP_DEFAULT_MAX_INPUT, "empty file, not a capture");
	expect_error(text, TP_DEFAULT_MAX_INPUT, "not a profile capture (not protobuf: invalid wire type at byte 2)");
	expect_error(named, TP_DEFAULT_MAX_INPUT, "corrupt capture at byte 2: invalid wire type");
	expect_error("/nonexistent/x.xplane.pb", TP_DEFAULT_MAX_INPUT, "cannot open: No such file or directory");
	remove_tree(dir);
	unlink(empty);
	unlink(text);
	unlink(named);
	free(dir);
	free(empty);
	free(text);
	free(named);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_sniff);
	tcase_add_test(tc, test_sniff_cut_short);
	tcase_add_test(tc, test_layouts);
	tcase_add_test(tc, test_gzip_and_hlo_file);
	tcase_add_test(tc, test_bad_gzip);
	tcase_add_test(tc, test_logdir_runs);
	tcase_add_test(tc, test_dump_dir);
	tcase_add_test(tc, test_bad_inputs);
	tcase_add_test(tc, test_shared_hlo);
	tcase_add_test(tc, test_shared_hlo_at_once);
	tcase_add_test(tc, test_host_errors_in_order);
	tcase_add_test(tc, test_pages_dropped);
	tcase_add_test(tc, test_metadata_maps_no_line);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
