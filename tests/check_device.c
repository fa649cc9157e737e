/*
 * check_device.c - the device table and a plane's figures: every key and
 * alias looks its row up (and nothing else does), the device each shared
 * capture's planes are detected as, every figure with its source against
 * values worked out by hand from the plane stats and docs/devices.md, and
 * the precedence flag > capture > table (with --device naming another
 * device dropping the capture's own figures).
 */
#include "testutil.h"

#include <ctype.h>
#include <math.h>

#include "tpuprof/analyze/common/device_plane.h"
#include "tpuprof/analyze/memory.h"

#define CAP "../shared/captures/"
#define TPU CAP "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb"
#define V100 CAP "gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb"
#define MI300X CAP "gpu-mi300x8-jax-conv3d/tw003.xplane.pb"
#define GIB 1073741824.0

/* Every key and every alias finds its own row, in any case and with
 * blanks around it; so no two rows share a name. */
START_TEST(test_every_name)
{
	const struct tp_device_row *r = tp_device_at((size_t)_i);
	const char *a = r->aliases;
	char buf[128];

	ck_assert_ptr_eq(tp_device_lookup(r->key), r);
	snprintf(buf, sizeof(buf), "  %s\t", r->key);
	for (char *p = buf; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	ck_assert_ptr_eq(tp_device_lookup(buf), r);
	while (a && *a) {
		const char *bar = strchr(a, '|');
		size_t n = bar ? (size_t)(bar - a) : strlen(a);

		ck_assert_msg(tp_device_lookup_n(a, n) == r, "alias %.*s of %s", (int)n, a, r->key);
		a = bar ? bar + 1 : NULL;
	}
	ck_assert_uint_ge(r->planes_per_chip, 1);
	ck_assert(r->hbm_gib > 0 && r->hbm_gbps > 0);
	ck_assert(r->sources && *r->sources);
}
END_TEST

/* The strings JAX and the captures use, and names that are no device. */
START_TEST(test_known_strings)
{
	static const struct { const char *name, *key; } cases[] = {
		{ "TPU v2", "TPU v2" },
		{ "TPU v3", "TPU v3" },
		{ "v3", "TPU v3" },
		{ "TPU v4", "TPU v4" },
		{ "TPU v5 lite", "TPU v5 lite" },
		{ "TPU v5 Lite", "TPU v5 lite" },      /* profile casing */
		{ "v5e", "TPU v5 lite" },
		{ "TPU v5", "TPU v5" },
		{ "TPU v5p", "TPU v5" },
		{ "v5p", "TPU v5" },
		{ "TPU v6 Lite", "TPU v6 lite" },      /* the v6e capture */
		{ "v6e", "TPU v6 lite" },
		{ "TPU7x", "TPU7x" },
		{ "TPU v7x", "TPU7x" },                /* profile string */
		{ "Tesla V100-SXM2-16GB", "Tesla V100-SXM2-16GB" },
		{ "Tesla V100-SXM2-32GB", "Tesla V100-SXM2-32GB" },
		{ "Tesla V100-PCIE-16GB", "Tesla V100-PCIE-16GB" },
		{ "Tesla T4", "Tesla T4" },
		{ "NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB" },
		{ "NVIDIA A100-PCIE-40GB", "NVIDIA A100-SXM4-40GB" },
		{ "NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB" },
		{ "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3" },
		{ "h100", "NVIDIA H100 80GB HBM3" },
		{ "NVIDIA H100 PCIe", "NVIDIA H100 PCIe" },
		{ "NVIDIA H200", "NVIDIA H200" },
		{ "NVIDIA B200", "NVIDIA B200" },
		{ "NVIDIA GeForce GTX 1080 Ti", "NVIDIA GeForce GTX 1080 Ti" },
		{ "GeForce GTX 1080 Ti", "NVIDIA GeForce GTX 1080 Ti" },
		{ "AMD Instinct MI250X", "AMD Instinct MI250X" },
		{ "AMD Instinct MI300X", "AMD Instinct MI300X" },
		{ "mi300x", "AMD Instinct MI300X" },
		{ "AMD Instinct MI325X", "AMD Instinct MI325X" },
		{ "AMD Instinct MI355X", "AMD Instinct MI355X" },
		{ "Cloud TPU", NULL },
		{ "TPU v4 Lite", NULL },               /* v4i: not in the table */
		{ "gfx942", NULL },                    /* an arch names no one device */
		{ "", NULL },
		{ "   ", NULL },
		{ "v6", NULL },
		{ "TPU v6 lite2", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct tp_device_row *r = tp_device_lookup(cases[i].name);

		if (!cases[i].key)
			ck_assert_msg(r == NULL, "'%s' found %s", cases[i].name, r ? r->key : "");
		else
			ck_assert_msg(r && strcmp(r->key, cases[i].key) == 0, "'%s'", cases[i].name);
	}
	ck_assert_ptr_null(tp_device_lookup(NULL));
	ck_assert_uint_eq(tp_device_count(), 22);
}
END_TEST

START_TEST(test_precision_types)
{
	static const struct { const char *t; enum tp_precision p; } cases[] = {
		{ "bf16", TP_PREC_BF16 }, { "f16", TP_PREC_F16 }, { "f32", TP_PREC_F32 },
		{ "s8", TP_PREC_INT8 }, { "u8", TP_PREC_INT8 }, { "s4", TP_PREC_INT8 },
		{ "f8e4m3fn", TP_PREC_FP8 }, { "f8e5m2", TP_PREC_FP8 },
		{ "f64", TP_PREC_UNKNOWN }, { "s32", TP_PREC_UNKNOWN }, { "pred", TP_PREC_UNKNOWN },
		{ "", TP_PREC_UNKNOWN },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_int_eq(tp_precision_of_type(cases[i].t, strlen(cases[i].t)), cases[i].p);
	ck_assert_str_eq(tp_precision_name(TP_PREC_INT8), "int8");
	ck_assert_str_eq(tp_precision_name(TP_PREC_UNKNOWN), "unknown");
}
END_TEST

static void open_capture(struct tp_capture *cap, const char *path)
{
	struct tp_error err = { 0 };
	const char *paths[] = { path };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };

	ck_assert_msg(tp_capture_open(cap, paths, 1, &o, &err) == TP_OK, "%s", err.msg);
}

static const struct tp_plane *plane(const struct tp_capture *cap, const char *name)
{
	for (size_t h = 0; h < cap->n_hosts; h++)
		for (size_t p = 0; p < cap->hosts[h].xs.n_planes; p++)
			if (tp_str_eq(cap->hosts[h].xs.planes[p].name, name))
				return &cap->hosts[h].xs.planes[p];
	ck_abort_msg("no plane %s", name);
	return NULL;
}

static void fig_eq(struct tp_figure f, double v, enum tp_fig_source src)
{
	ck_assert_int_eq(f.source, src);
	ck_assert_msg(fabs(f.value - v) <= 1e-9 * fabs(v), "%.17g != %.17g", f.value, v);
}

/* One case: a plane (or none), hints, and the figures expected. */
struct fig_case {
	const char *capture, *plane;    /* NULL plane: no capture           */
	const char *forced;             /* --device, or NULL                */
	uint64_t hbm, allocator;
	const char *row;                /* expected row key, NULL = unknown */
	enum tp_fig_source row_src;
	double capacity; enum tp_fig_source capacity_src;
	double bf16; enum tp_fig_source bf16_src;
	double f16, int8;               /* table figures (0 = none)         */
	double hbm_bw; enum tp_fig_source hbm_src;
	double link;                    /* table, 0 = none                  */
};

#define C TP_FIG_CAPTURE
#define T TP_FIG_TABLE
#define F TP_FIG_FLAG
#define N TP_FIG_NONE

static const struct fig_case fig_cases[] = {
	/* v6e: plane stats peak_teraflops_per_second 918.0 and
	 * peak_hbm_bw_gigabytes_per_second 1637.993152512, no memory_size;
	 * the runtime allocator of TPU:0 has 33550237696 bytes */
	{ TPU, "/device:TPU:0", NULL, 0, 33550237696u, "TPU v6 lite", C,
	  33550237696.0, C, 918e12, C, 0, 1836e12, 1637.993152512e9, C, 800e9 },
	{ TPU, "/device:TPU:3", NULL, 0, 0, "TPU v6 lite", C,
	  32 * GIB, T, 918e12, C, 0, 1836e12, 1637.993152512e9, C, 800e9 },
	/* --hbm wins over the capture and the table */
	{ TPU, "/device:TPU:0", NULL, 17179869184u, 33550237696u, "TPU v6 lite", C,
	  17179869184.0, F, 918e12, C, 0, 1836e12, 1637.993152512e9, C, 800e9 },
	/* --device naming the detected device keeps the capture's figures */
	{ TPU, "/device:TPU:0", "v6e", 0, 33550237696u, "TPU v6 lite", F,
	  33550237696.0, C, 918e12, C, 0, 1836e12, 1637.993152512e9, C, 800e9 },
	/* what if on a v5e: the table's v5e figures, none of the capture's */
	{ TPU, "/device:TPU:0", "v5e", 0, 33550237696u, "TPU v5 lite", F,
	  16 * GIB, T, 197e12, T, 0, 394e12, 819e9, T, 400e9 },
	/* V100: memory_size 16945512448, clock 1530 MHz, cc 7.0, 80 SMs:
	 * the SXM2 16 GB part; no bf16, fp16 tensor 125 */
	{ V100, "/device:GPU:4", NULL, 0, 0, "Tesla V100-SXM2-16GB", C,
	  16945512448.0, C, 0, N, 125e12, 0, 900e9, T, 300e9 },
	{ V100, "/device:GPU:4", "h100", 0, 0, "NVIDIA H100 80GB HBM3", F,
	  80 * GIB, T, 989.4e12, T, 989.4e12, 1978.9e12, 3350e9, T, 900e9 },
	/* MI300X: memory_size 206141652992, cc 9.4, 304 CUs; the capture's
	 * memory_bandwidth (2.6624e12, half the datasheet) is not used */
	{ MI300X, "/device:GPU:5", NULL, 0, 0, "AMD Instinct MI300X", C,
	  206141652992.0, C, 1307.4e12, T, 0, 2614.9e12, 5300e9, T, 896e9 },
	/* no capture: a plane is half a v3 chip, half an MI250X */
	{ NULL, NULL, "v3", 0, 0, "TPU v3", F,
	  16 * GIB, T, 61.5e12, T, 0, 0, 450e9, T, 0 },
	{ NULL, NULL, "mi250x", 0, 0, "AMD Instinct MI250X", F,
	  64 * GIB, T, 191.5e12, T, 0, 191.5e12, 1638.5e9, T, 400e9 },
	{ NULL, NULL, "TPU7x", 0, 0, "TPU7x", F,
	  96 * GIB, T, 1153.5e12, T, 0, 0, 3685e9, T, 600e9 },
	{ NULL, NULL, NULL, 0, 0, NULL, N, 0, N, 0, N, 0, 0, 0, N, 0 },
};

START_TEST(test_figures)
{
	NEED_SHARED();
	const struct fig_case *k = &fig_cases[_i];
	struct tp_capture cap;
	const struct tp_plane *pl = NULL;
	struct tp_device_hints h = { tp_device_lookup(k->forced), k->hbm, k->allocator };
	struct tp_device_figures f;

	if (k->capture) {
		open_capture(&cap, k->capture);
		pl = plane(&cap, k->plane);
	}
	tp_device_resolve_plane(pl, &h, &f);
	if (k->row)
		ck_assert_str_eq(f.row ? f.row->key : "(none)", k->row);
	else
		ck_assert_ptr_null(f.row);
	ck_assert_int_eq(f.row_source, k->row_src);
	fig_eq(f.capacity, k->capacity, k->capacity_src);
	fig_eq(f.peak_flops[TP_PREC_BF16], k->bf16, k->bf16_src);
	fig_eq(f.peak_flops[TP_PREC_F16], k->f16, k->f16 ? T : N);
	fig_eq(f.peak_flops[TP_PREC_INT8], k->int8, k->int8 ? T : N);
	fig_eq(f.hbm_bw, k->hbm_bw, k->hbm_src);
	fig_eq(f.interconnect_bw, k->link, k->link ? T : N);
	if (k->capture)
		tp_capture_release(&cap);
}
END_TEST

/* Every GPU plane of the shared captures is detected, and the peak an
 * op is measured against follows its precision. */
START_TEST(test_detect_and_peaks)
{
	NEED_SHARED();
	struct tp_capture cap;
	struct tp_device_hints none = { NULL, 0, 0 };
	struct tp_device_figures f;

	open_capture(&cap, MI300X);
	for (int i = 0; i < 8; i++) {
		char name[32];

		snprintf(name, sizeof(name), "/device:GPU:%d", i);
		ck_assert_str_eq(tp_device_detect_plane(plane(&cap, name))->key, "AMD Instinct MI300X");
	}
	tp_capture_release(&cap);
	open_capture(&cap, TPU);
	tp_device_resolve_plane(plane(&cap, "/device:TPU:1"), &none, &f);
	/* TPU: f32 and f16 ops against the one MXU peak */
	fig_eq(tp_device_peak_for(&f, TP_PREC_F32), 918e12, C);
	fig_eq(tp_device_peak_for(&f, TP_PREC_F16), 918e12, C);
	fig_eq(tp_device_peak_for(&f, TP_PREC_FP8), 918e12, T);
	ck_assert_int_eq(tp_device_peak_for(&f, TP_PREC_UNKNOWN).source, N);
	tp_capture_release(&cap);
	open_capture(&cap, V100);
	tp_device_resolve_plane(plane(&cap, "/device:GPU:6"), &none, &f);
	/* a V100 has no bf16 and the table no f32 figure for it */
	ck_assert_int_eq(tp_device_peak_for(&f, TP_PREC_BF16).source, N);
	ck_assert_int_eq(tp_device_peak_for(&f, TP_PREC_F32).source, N);
	fig_eq(tp_device_peak_for(&f, TP_PREC_F16), 125e12, T);
	tp_capture_release(&cap);
}
END_TEST

/* GPU planes told apart by their stats alone (no name), as the shared
 * captures show them: vendor, compute capability, cores, memory size
 * a little under the nominal HBM, boost clock. */
START_TEST(test_detect_gpus)
{
	static const struct {
		bool amd; int cc_major, cc_minor; double cores, mem_gib, clock_mhz;
		const char *gpu_name, *key;
	} cases[] = {
		{ false, 7, 0, 80, 15.78, 1530, NULL, "Tesla V100-SXM2-16GB" },
		{ false, 7, 0, 80, 31.7, 1530, NULL, "Tesla V100-SXM2-32GB" },
		{ false, 7, 0, 80, 15.78, 1380, NULL, "Tesla V100-PCIE-16GB" },
		{ false, 7, 0, 80, 15.78, 0, NULL, NULL },          /* SXM2 or PCIe? */
		{ false, 7, 5, 40, 14.7, 1590, NULL, "Tesla T4" },
		{ false, 8, 0, 108, 39.4, 1410, NULL, "NVIDIA A100-SXM4-40GB" },
		{ false, 8, 0, 108, 79.1, 1410, NULL, "NVIDIA A100-SXM4-80GB" },
		{ false, 9, 0, 132, 79.1, 1980, NULL, "NVIDIA H100 80GB HBM3" },
		{ false, 9, 0, 114, 79.1, 1755, NULL, "NVIDIA H100 PCIe" },
		{ false, 9, 0, 132, 139.8, 1980, NULL, "NVIDIA H200" },
		{ false, 9, 0, 132, 0, 1980, NULL, NULL },          /* H100 or H200? */
		{ false, 10, 0, 148, 178.4, 1965, NULL, "NVIDIA B200" },
		{ false, 6, 1, 28, 10.9, 1582, NULL, "NVIDIA GeForce GTX 1080 Ti" },
		{ false, 9, 0, 132, 200, 1980, NULL, NULL },        /* larger than any */
		{ true, 9, 0, 110, 63.98, 1700, NULL, "AMD Instinct MI250X" },
		{ true, 9, 4, 304, 191.98, 2100, NULL, "AMD Instinct MI300X" },
		{ true, 9, 4, 304, 255.98, 2100, NULL, "AMD Instinct MI325X" },
		{ true, 9, 5, 256, 287.98, 2400, NULL, "AMD Instinct MI355X" },
		{ true, 0, 0, 304, 191.98, 0, "gfx942", "AMD Instinct MI300X" },
		{ false, 0, 0, 0, 0, 0, "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3" },
		{ false, 8, 6, 84, 23.6, 1860, NULL, NULL },         /* RTX 3090: not in the table */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tp_plane_facts p = { .gpu = true, .amd = cases[i].amd,
					    .has_cc = cases[i].cc_major > 0,
					    .cc_major = cases[i].cc_major, .cc_minor = cases[i].cc_minor,
					    .cores = cases[i].cores, .memory_size = cases[i].mem_gib * GIB,
					    .clock_khz = cases[i].clock_mhz * 1000 };
		const struct tp_device_row *r;

		if (cases[i].gpu_name)
			p.gpu_name = tp_str_make(cases[i].gpu_name, strlen(cases[i].gpu_name));
		r = tp_device_detect(&p);
		if (cases[i].key)
			ck_assert_msg(r && strcmp(r->key, cases[i].key) == 0, "case %zu: %s", i,
				      r ? r->key : "(none)");
		else
			ck_assert_msg(!r, "case %zu: %s", i, r->key);
	}
}
END_TEST

/* Hostile plane stats give no figure and no crash (sanitizers watch
 * the casts); a GPU the table does not know keeps its own bandwidth
 * unless it is AMD's. */
START_TEST(test_hostile_facts)
{
	struct tp_device_hints none = { NULL, 0, 0 };
	struct tp_plane_facts p = { .tpu = true, .type_string = { "TPU v6 Lite", 11 },
				    .peak_tflops = INFINITY, .peak_hbm_gbps = NAN,
				    .memory_size = -5 };
	struct tp_device_figures f;

	tp_device_resolve(&p, &none, &f);
	ck_assert_str_eq(f.row->key, "TPU v6 lite");
	fig_eq(f.peak_flops[TP_PREC_BF16], 918e12, T);   /* the table's */
	fig_eq(f.hbm_bw, 1638e9, T);
	fig_eq(f.capacity, 32 * GIB, T);
	p = (struct tp_plane_facts){ .gpu = true, .has_cc = true, .cc_major = 9, .cc_minor = 0,
				     .cores = 1e300, .clock_khz = 1e300, .memory_size = 1e300,
				     .memory_bandwidth = 2e12 };
	tp_device_resolve(&p, &none, &f);
	ck_assert_ptr_null(f.row);
	fig_eq(f.hbm_bw, 2e12, C);
	ck_assert_int_eq(f.capacity.source, N);          /* 1e300 bytes: no */
	p.amd = true;
	tp_device_resolve(&p, &none, &f);
	ck_assert_int_eq(f.hbm_bw.source, N);
}
END_TEST

/* memory: the capacity and headroom of every v6e core (the allocator's
 * capacity, 33550237696 bytes, on each) and of every MI300X GPU. */
START_TEST(test_memory_headroom)
{
	NEED_SHARED();
	static const struct { const char *capture; size_t cores; uint64_t capacity; uint64_t peak[8]; } cases[] = {
		/* runtime peaks of EXPECTED.md exceed the compiler peaks */
		{ TPU, 4, UINT64_C(33550237696),
		  { UINT64_C(21492569216), UINT64_C(21492671104), UINT64_C(21492671104), UINT64_C(21492569216) } },
		{ MI300X, 8, UINT64_C(206141652992),
		  { 1730171904, 1732169984, 1732169984, 1732169984, 1732169984, 1732169984, 1732169984, 1732169984 } },
	};
	struct tp_mem_options opt = { .max_suggestions = 5 };
	struct tp_error err = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tp_memory_filter mf = { 0 };
		struct tp_capture cap;
		struct tp_memory mem;

		open_capture(&cap, cases[i].capture);
		ck_assert_msg(tp_memory_build(&mem, &cap, &opt, &mf, &err) == TP_OK, "%s", err.msg);
		ck_assert_uint_eq(mem.n_cores, cases[i].cores);
		for (size_t c = 0; c < mem.n_cores; c++) {
			struct tp_mem_headroom h;
			int64_t room = (int64_t)(cases[i].capacity - cases[i].peak[c]);

			ck_assert(tp_mem_core_headroom(&mem, &mem.cores[c], &h));
			ck_assert_uint_eq(mem.cores[c].capacity, cases[i].capacity);
			ck_assert_int_eq(mem.cores[c].device.capacity.source, C);
			ck_assert_uint_eq(h.peak, cases[i].peak[c]);
			ck_assert_int_eq(h.bytes, room);
			ck_assert_double_eq_tol(h.percent, 100.0 * (double)room / (double)cases[i].capacity, 1e-9);
		}
		tp_memory_release(&mem);
		tp_capture_release(&cap);
	}
}
END_TEST

/* --hbm below the peak: negative headroom and the > 90% warning. */
START_TEST(test_memory_over_capacity)
{
	NEED_SHARED();
	struct tp_mem_options opt = { .max_suggestions = 5 };
	struct tp_memory_filter mf = { .core = "0", .hbm = UINT64_C(21474836480) };
	struct tp_error err = { 0 };
	struct tp_capture cap;
	struct tp_memory mem;
	struct tp_mem_headroom h;

	open_capture(&cap, TPU);
	ck_assert_msg(tp_memory_build(&mem, &cap, &opt, &mf, &err) == TP_OK, "%s", err.msg);
	ck_assert(tp_mem_core_headroom(&mem, &mem.cores[0], &h));
	ck_assert_int_eq(mem.cores[0].device.capacity.source, F);
	ck_assert_int_eq(h.bytes, INT64_C(21474836480) - INT64_C(21492569216));
	ck_assert_uint_ge(mem.n_warnings, 1);
	ck_assert_str_eq(mem.warnings[0], "tpu_inference_2 /device:TPU:0: peak 21492569216 bytes is 100.1% of its 21474836480 bytes");
	tp_memory_release(&mem);
	tp_capture_release(&cap);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("device");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_every_name, 0, (int)tp_device_count());
	tcase_add_test(tc, test_known_strings);
	tcase_add_test(tc, test_precision_types);
	tcase_add_loop_test(tc, test_figures, 0, sizeof(fig_cases) / sizeof(fig_cases[0]));
	tcase_add_test(tc, test_detect_and_peaks);
	tcase_add_test(tc, test_hostile_facts);
	tcase_add_test(tc, test_detect_gpus);
	tcase_add_test(tc, test_memory_headroom);
	tcase_add_test(tc, test_memory_over_capacity);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
