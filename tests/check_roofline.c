/*
 * check_roofline.c - ops against the device: each op's FLOP utilization,
 * HBM share, arithmetic intensity and bound; each core's duty cycle and
 * overall FLOP utilization; each module's; with the values worked out by
 * hand from the op sums (tests/check_ops.c checks those against the raw
 * events) and the v6e plane stats (918.0 TFLOP/s, 1637.993152512 GB/s);
 * and the check rules on them, --min-headroom and --min-flops-utilization.
 */
#include "testutil.h"

#include <math.h>

#include "tpuprof/analyze/check.h"
#include "tpuprof/analyze/collectives.h"
#include "tpuprof/analyze/diff.h"
#include "tpuprof/analyze/ops.h"
#include "tpuprof/report/report_doc.h"

#define TPU "../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb"
#define MI300X "../shared/captures/gpu-mi300x-jax-gemm/tw003.xplane.pb"

#define PEAK 918e12
#define HBM 1637.993152512e9

static void build(struct tp_capture *cap, struct tp_ops *ops, const char *path,
		  const char *core, const char *device)
{
	struct tp_error err = { 0 };
	const char *paths[] = { path };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_ops_filter f = { .core = core, .device = tp_device_lookup(device) };

	ck_assert_msg(tp_capture_open(cap, paths, 1, &o, &err) == TP_OK, "%s", err.msg);
	ck_assert_msg(tp_ops_build(ops, cap, &f, &err) == TP_OK, "%s", err.msg);
}

static const struct tp_op *find_op(const struct tp_ops *ops, const char *name)
{
	for (size_t i = 0; i < ops->n_ops; i++)
		if (tp_str_eq(ops->ops[i].name, name))
			return &ops->ops[i];
	ck_abort_msg("no op %s", name);
	return NULL;
}

#define NEAR(a, b) ck_assert_msg(fabs((a) - (b)) <= 1e-9 * fabs(b), "%.17g != %.17g", (double)(a), (double)(b))

static const struct {
	const char *op;
	int64_t flops, bytes, total_ps;
	enum tp_bound bound;
} tpu_ops[] = {
	{ "broadcast_add_fusion.1", INT64_C(134217728000), INT64_C(1073741824000), INT64_C(815343591250), TP_BOUND_MEMORY },
	{ "all-reduce", INT64_C(4026531840), INT64_C(32212254720), INT64_C(365061093750), TP_BOUND_COLLECTIVE },
};

START_TEST(test_tpu_ops)
{
	NEED_SHARED();
	struct tp_capture cap;
	struct tp_ops ops;
	const struct tp_op *o;
	struct tp_work w;
	struct tp_roofline r;
	double s;

	build(&cap, &ops, TPU, "0", NULL);
	o = find_op(&ops, tpu_ops[_i].op);
	ck_assert_int_eq(o->flops, tpu_ops[_i].flops);
	ck_assert_int_eq(o->bytes_accessed, tpu_ops[_i].bytes);
	ck_assert_int_eq(o->total_ps, tpu_ops[_i].total_ps);
	ck_assert_int_eq(o->precision, TP_PREC_F32);   /* f32[5,1024,1024,256] */
	tp_op_work(&ops, o, &w);
	tp_roofline_of(&w, &ops.cores[o->core].device, &r);
	s = (double)tpu_ops[_i].total_ps * 1e-12;
	ck_assert(r.has_flop_util && r.has_hbm_util && r.has_intensity);
	NEAR(r.flops_per_s, (double)tpu_ops[_i].flops / s);
	NEAR(r.flop_utilization + 1, (double)tpu_ops[_i].flops / s / PEAK + 1);
	NEAR(r.hbm_utilization, (double)tpu_ops[_i].bytes / s / HBM);
	NEAR(r.intensity + 1, (double)tpu_ops[_i].flops / (double)tpu_ops[_i].bytes + 1);
	ck_assert_int_eq(r.bound, tpu_ops[_i].bound);
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

/* The host-offload copies of jit_f: six copy-start/copy-done pairs, each
 * 5 GiB x 100 on both halves in the capture's cost model. The pair carries
 * its bytes once, on its -start; neither half is rated over its own time
 * (copy-start.4 was at 55,435,330% of HBM bandwidth); a copy to or from
 * host memory S(5) is a host transfer, not HBM-bound. */
START_TEST(test_tpu_async_pairs)
{
	NEED_SHARED();
	static const char *const starts[] = { "copy-start", "copy-start.1", "copy-start.2",
					      "copy-start.3", "copy-start.4", "copy-start.5" };
	static const char *const dones[] = { "copy-done", "copy-done.1", "copy-done.2",
					     "copy-done.3", "copy-done.4", "copy-done.5" };
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_work w;
	struct tp_roofline r;

	build(&cap, &ops, TPU, "0", NULL);
	for (size_t i = 0; i < 6; i++) {
		const struct tp_op *s = find_op(&ops, starts[i]), *d = find_op(&ops, dones[i]);

		ck_assert_int_eq(s->async, TP_ASYNC_START);
		ck_assert_int_eq(d->async, TP_ASYNC_DONE);
		ck_assert(s->has_bytes);
		ck_assert_int_eq(s->bytes_accessed, INT64_C(536870912000));
		ck_assert(!d->has_bytes);
		ck_assert(d->bytes_on_start);
		ck_assert(s->host_transfer && d->host_transfer);
		ck_assert_int_eq(s->cost_source, TP_COST_MODEL);
		tp_op_work(&ops, s, &w);
		tp_roofline_of(&w, &ops.cores[0].device, &r);
		ck_assert(!r.has_hbm_util && !r.has_bytes_rate);
		ck_assert_ptr_eq(r.hbm_util_na, TP_NA_ASYNC_HALF);
		ck_assert_str_eq(tp_share_na_code(r.hbm_util_na), "async_half");
		ck_assert(r.has_flop_util);              /* no FLOPs: 0 in any time */
		ck_assert(r.flop_utilization == 0);
		ck_assert_int_eq(r.bound, TP_BOUND_HOST_TRANSFER);
		tp_op_work(&ops, d, &w);
		tp_roofline_of(&w, &ops.cores[0].device, &r);
		ck_assert(!r.has_hbm_util);
		ck_assert_ptr_eq(r.hbm_util_na, TP_NA_BYTES_ON_START);
		ck_assert_str_eq(tp_share_na_code(r.hbm_util_na), "bytes_on_start");
		ck_assert_int_eq(r.bound, TP_BOUND_HOST_TRANSFER);
	}
	/* a plain fusion stays as it was */
	ck_assert_int_eq(find_op(&ops, "broadcast_add_fusion.1")->async, TP_ASYNC_NONE);
	ck_assert(!find_op(&ops, "broadcast_add_fusion.1")->host_transfer);
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

/* No share of a device peak over 100%: n/a and why. */
START_TEST(test_share_capped)
{
	struct tp_device_figures f;
	struct tp_work w;
	struct tp_roofline r;

	memset(&f, 0, sizeof(f));
	f.hbm_bw = (struct tp_figure){ 1e9, TP_FIG_TABLE };
	f.peak_flops[TP_PREC_BF16] = (struct tp_figure){ 1e9, TP_FIG_TABLE };
	memset(&w, 0, sizeof(w));
	tp_work_add(&w, &f, TP_PREC_BF16, true, 2000, true, 3000);
	w.ps = 1000;            /* 1 ns: 2e12 FLOP/s, 3e12 B/s */
	tp_roofline_of(&w, &f, &r);
	ck_assert(!r.has_flop_util && !r.has_hbm_util);
	ck_assert_ptr_eq(r.flop_util_na, TP_NA_ABOVE_PEAK_FLOPS);
	ck_assert_ptr_eq(r.hbm_util_na, TP_NA_ABOVE_PEAK_BYTES);
	ck_assert_str_eq(tp_share_na_code(r.hbm_util_na), "above_peak");
	w.ps = 3000000;         /* 3 us: within both peaks */
	tp_roofline_of(&w, &f, &r);
	ck_assert(r.has_flop_util && r.has_hbm_util);
	ck_assert_ptr_null(r.flop_util_na);
	ck_assert_ptr_null(r.hbm_util_na);
}
END_TEST

/* TPU:0: 406679715840 FLOPs (jit_f 3 × 134217728000, the all-reduce
 * 4026531840) and 6480031907840 bytes (each of the six copy pairs' 5 GiB
 * x 100 once, not on both halves: 9701257379840 before) over
 * 92475685460000 ps, busy 78783723903750 ps. */
START_TEST(test_tpu_core)
{
	NEED_SHARED();
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_module_work *mods;
	struct tp_work w;
	struct tp_roofline r;
	const struct tp_ops_core *c;
	double s = 92.47568546;
	size_t n, k;

	build(&cap, &ops, TPU, "0", NULL);
	c = &ops.cores[0];
	ck_assert_int_eq(c->device_ps, INT64_C(92475685460000));
	ck_assert_int_eq(c->self_ps, INT64_C(78783723903750));
	ck_assert_ptr_null(tp_core_roofline_gap(&ops, c));
	tp_core_work(&ops, c, &w);
	tp_roofline_of(&w, &c->device, &r);
	NEAR(w.flops, 406679715840.0);
	NEAR(w.bytes, 6480031907840.0);
	NEAR(r.flop_utilization, 406679715840.0 / s / PEAK);
	NEAR(r.hbm_utilization, 6480031907840.0 / s / HBM);
	n = tp_core_modules(&ops, c, &mods);
	ck_assert_uint_eq(n, 3);
	for (k = 0; k < n && mods[k].program_id != UINT64_C(12190760917235803885); k++)
		;
	ck_assert_uint_lt(k, n);                  /* jit_f */
	ck_assert_uint_eq(mods[k].n_ops, 15);
	ck_assert_int_eq(mods[k].work.ps, INT64_C(78414219043750));
	NEAR(mods[k].work.flops, 402653184000.0);
	tp_roofline_of(&mods[k].work, &c->device, &r);
	NEAR(r.flop_utilization, 402653184000.0 / 78.41421904375 / PEAK);
	NEAR(r.intensity, 402653184000.0 / 6442450944000.0); /* the copies once */
	free(mods);
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

/* What if on a v5e: its table peak (197 TFLOP/s) and bandwidth (819 GB/s). */
START_TEST(test_tpu_whatif)
{
	NEED_SHARED();
	struct tp_capture cap;
	struct tp_ops ops;
	const struct tp_op *o;
	struct tp_work w;
	struct tp_roofline r;
	double s = 0.81534359125;

	build(&cap, &ops, TPU, "0", "v5e");
	o = find_op(&ops, "broadcast_add_fusion.1");
	ck_assert_int_eq(ops.cores[0].device.peak_flops[TP_PREC_BF16].source, TP_FIG_TABLE);
	tp_op_work(&ops, o, &w);
	tp_roofline_of(&w, &ops.cores[0].device, &r);
	NEAR(r.flop_utilization, 134217728000.0 / s / 197e12);
	NEAR(r.hbm_utilization, 1073741824000.0 / s / 819e9);
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

/* MI300X captures carry no FLOPs or bytes: every figure missing, said. */
START_TEST(test_gpu_gap)
{
	NEED_SHARED();
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_work w;
	struct tp_roofline r;

	build(&cap, &ops, MI300X, NULL, NULL);
	ck_assert_str_eq(tp_core_roofline_gap(&ops, &ops.cores[0]),
			 "the capture has no FLOPs or bytes for these ops: no utilization or bound");
	for (size_t i = 0; i < ops.n_ops; i++) {
		tp_op_work(&ops, &ops.ops[i], &w);
		tp_roofline_of(&w, &ops.cores[0].device, &r);
		ck_assert(!r.has_flop_util && !r.has_hbm_util && !r.has_intensity);
		ck_assert_int_eq(r.bound, TP_BOUND_UNKNOWN);
	}
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

/* The rule itself, on made-up work: the ridge of a v6e is 918e12 /
 * 1638e9 = 560.4 FLOPs per byte. */
START_TEST(test_ridge)
{
	struct tp_device_hints h = { tp_device_lookup("v6e"), 0, 0 };
	struct tp_device_figures f;
	struct tp_work w;
	struct tp_roofline r;

	tp_device_resolve(NULL, &h, &f);
	memset(&w, 0, sizeof(w));
	tp_work_add(&w, &f, TP_PREC_BF16, true, 561000, true, 1000);
	w.ps = 1000000;
	tp_roofline_of(&w, &f, &r);
	ck_assert_int_eq(r.bound, TP_BOUND_COMPUTE);
	NEAR(r.flop_utilization, 561000.0 / 1e-6 / 918e12);
	memset(&w, 0, sizeof(w));
	tp_work_add(&w, &f, TP_PREC_BF16, true, 560000, true, 1000);
	w.ps = 1000000;
	tp_roofline_of(&w, &f, &r);
	ck_assert_int_eq(r.bound, TP_BOUND_MEMORY);
	/* int8 work against the int8 peak (1836) */
	memset(&w, 0, sizeof(w));
	tp_work_add(&w, &f, TP_PREC_INT8, true, 1836, false, 0);
	w.ps = 1000;
	tp_roofline_of(&w, &f, &r);
	NEAR(r.flop_utilization, 1836.0 / 1e-9 / 1836e12);
	ck_assert_int_eq(r.bound, TP_BOUND_UNKNOWN);    /* no bytes */
	/* FLOPs at a precision without a peak: no utilization */
	memset(&w, 0, sizeof(w));
	tp_work_add(&w, &f, TP_PREC_UNKNOWN, true, 10, true, 10);
	w.ps = 1000;
	tp_roofline_of(&w, &f, &r);
	ck_assert(!r.has_flop_util);
	ck_assert_int_eq(r.bound, TP_BOUND_UNKNOWN);
}
END_TEST

/* The all-reduce: 5368709120 ring bytes per device (all-reduce over
 * groups of 2: 2 (G-1)/G S = S), 12 executions, 1460345258750 ps on the
 * four cores; v6e ICI 800 GB/s both ways, so 400 GB/s one way. */
START_TEST(test_collective_link)
{
	NEED_SHARED();
	struct tp_capture cap;
	struct tp_collectives c;
	struct tp_error err = { 0 };
	const char *paths[] = { TPU };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };
	double bw, share, want = 5368709120.0 * 12 / 1.46034525875;
	const char *why;

	ck_assert_msg(tp_capture_open(&cap, paths, 1, &o, &err) == TP_OK, "%s", err.msg);
	ck_assert_msg(tp_collectives_build(&c, &cap, NULL, &err) == TP_OK, "%s", err.msg);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.v[0].ring_bytes, UINT64_C(5368709120));
	ck_assert_uint_eq(c.v[0].occurrences, 12);
	ck_assert_int_eq(c.v[0].time_ps, INT64_C(1460345258750));
	ck_assert(tp_collective_rate(&c.v[0], &bw));
	NEAR(bw, want);
	ck_assert_int_eq(tp_collective_link(&c, &c.v[0]).source, TP_FIG_TABLE);
	NEAR(tp_collective_link(&c, &c.v[0]).value, 800e9);
	ck_assert(tp_collective_link_share(&c, &c.v[0], &share, &why));
	ck_assert_ptr_null(why);
	/* per device is per device: each of the 4 devices sent 3 x 5 GiB;
	 * 60 GiB is the total, not a device's figure */
	ck_assert_int_eq(c.v[0].span_ps, c.v[0].time_ps);   /* synchronous */
	ck_assert_uint_eq(c.n_modules, 1);
	ck_assert_uint_eq(c.modules[0].ring_bytes_per_device, UINT64_C(16106127360));
	ck_assert_uint_eq(c.modules[0].ring_bytes_total, UINT64_C(64424509440));
	ck_assert_uint_eq(c.ops.n_cores, 4);
	for (size_t i = 0; i < c.ops.n_cores; i++)
		ck_assert_uint_eq(c.core_ring_bytes[i], UINT64_C(16106127360));
	ck_assert_uint_eq(tp_collective_max_device_bytes(&c.v[0]), UINT64_C(16106127360));
	NEAR(share, want / 400e9);
	tp_collectives_release(&c);
	tp_capture_release(&cap);
}
END_TEST

static json_t *load(const char *path)
{
	json_t *doc = NULL;
	struct tp_error err = { 0 };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_report_filter f = { 0 };

	ck_assert_msg(tp_report_doc_load(&doc, &path, 1, &o, &f, &err) == TP_OK, "%s", err.msg);
	return doc;
}

/* v6e TPU:0: capacity 33550237696 (allocator), runtime peak 21492569216,
 * headroom 12057668480 bytes; FLOP utilization as in test_tpu_core.
 * MI300X gemm GPU:0: 206141652992 - 482345216 = 205659307776. */
static const struct {
	const char *path;
	struct tp_check_opts o;
	enum tp_err rc;
	size_t rows, failed;
	int64_t measured, limit;     /* row 0; limit -1: a fraction rule */
	double fraction, limit_fraction;
} rules[] = {
	{ TPU, { .has_min_headroom = true, .min_headroom_is_pct = true, .min_headroom_pct = 40 },
	  TP_OK, 4, 4, INT64_C(12057668480), INT64_C(13420095079), 12057668480.0 / 33550237696.0, 0.4 },
	{ TPU, { .has_min_headroom = true, .min_headroom_is_pct = true, .min_headroom_pct = 30 },
	  TP_OK, 4, 0, INT64_C(12057668480), INT64_C(10065071309), 12057668480.0 / 33550237696.0, 0.3 },
	{ TPU, { .has_min_headroom = true, .min_headroom = UINT64_C(12884901888) },
	  TP_OK, 4, 4, INT64_C(12057668480), INT64_C(12884901888), 12057668480.0 / 33550237696.0, 0 },
	{ TPU, { .has_min_headroom = true, .min_headroom = UINT64_C(11811160064) },
	  TP_OK, 4, 0, INT64_C(12057668480), INT64_C(11811160064), 12057668480.0 / 33550237696.0, 0 },
	{ TPU, { .has_min_headroom = true, .min_headroom = 1, .hbm = UINT64_C(17179869184) },
	  TP_OK, 4, 4, INT64_C(17179869184) - INT64_C(21492569216), 1,
	  (17179869184.0 - 21492569216.0) / 17179869184.0, 0 },
	{ TPU, { .has_min_flops_utilization = true, .min_flops_utilization = 0.3 },
	  TP_OK, 4, 4, 0, -1, 406679715840.0 / 92.47568546 / PEAK, 0.3 },
	{ TPU, { .has_min_flops_utilization = true, .min_flops_utilization = 0 },
	  TP_OK, 4, 0, 0, -1, 406679715840.0 / 92.47568546 / PEAK, 0 },
	{ TPU, { .has_min_flops_utilization = true, .min_flops_utilization = 0.3, .module = "jit_f" },
	  TP_OK, 4, 4, 0, -1, 402653184000.0 / 78.41421904375 / PEAK, 0.3 },
	{ TPU, { .has_min_flops_utilization = true, .min_flops_utilization = 0.3,
		 .scope = "jit(f)" }, TP_ERR_USAGE, 0, 0, 0, 0, 0, 0 },
	{ MI300X, { .has_min_headroom = true, .min_headroom_is_pct = true, .min_headroom_pct = 99.9 },
	  TP_OK, 1, 1, INT64_C(205659307776), INT64_C(205935511340), 205659307776.0 / 206141652992.0, 0.999 },
	{ MI300X, { .has_min_flops_utilization = true, .min_flops_utilization = 0.1 },
	  TP_ERR_INPUT, 0, 0, 0, 0, 0, 0 },
};

START_TEST(test_check_rules)
{
	NEED_SHARED();
	json_t *doc = load(rules[_i].path);
	struct tp_error err = { 0 };
	struct tp_check c;
	enum tp_err rc = tp_check_run(&c, doc, &rules[_i].o, &err);

	ck_assert_msg(rc == rules[_i].rc, "case %d: rc %d (%s)", _i, rc, err.msg);
	if (rc == TP_OK) {
		const struct tp_check_row *r = &c.rows[0];

		ck_assert_uint_eq(c.n_rows, rules[_i].rows);
		ck_assert_uint_eq(c.n_failed, rules[_i].failed);
		if (rules[_i].limit >= 0) {
			ck_assert_int_eq(r->measured, rules[_i].measured);
			ck_assert_int_eq(r->limit, rules[_i].limit);
		}
		NEAR(r->fraction, rules[_i].fraction);
		ck_assert(fabs(r->limit_fraction - rules[_i].limit_fraction) < 1e-12);
		tp_check_release(&c);
	}
	json_decref(doc);
}
END_TEST

static json_t *load_as(const char *path, const char *device)
{
	json_t *doc = NULL;
	struct tp_error err = { 0 };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_report_filter f = { .device = tp_device_lookup(device) };

	ck_assert_msg(tp_report_doc_load(&doc, &path, 1, &o, &f, &err) == TP_OK, "%s", err.msg);
	return doc;
}

static const json_t *row_of(const json_t *diff, const char *section, const char *plane)
{
	const json_t *rows = json_object_get(json_object_get(json_object_get(diff, "sections"),
							     section), "rows");
	const json_t *r;
	size_t i;

	json_array_foreach(rows, i, r)
		if (strcmp(json_string_value(json_object_get(r, "plane")), plane) == 0)
			return r;
	ck_abort_msg("no row %s in %s", plane, section);
	return NULL;
}

/* diff A (the capture as it is) and B (what if on a v5e): TPU:0's
 * headroom goes from 33550237696 - 21492569216 to 16 GiB - 21492569216,
 * its utilization from the 918 to the 197 TFLOP/s peak. */
START_TEST(test_diff_device)
{
	NEED_SHARED();
	json_t *a = load_as(TPU, NULL), *b = load_as(TPU, "v5e");
	json_t *d = tp_diff_reports(a, b, "a", "b");
	const json_t *r = row_of(d, "memory_cores_headroom", "/device:TPU:0");
	int64_t ua = llround(406679715840.0 / 92.47568546 / PEAK * 1e9);
	int64_t ub = llround(406679715840.0 / 92.47568546 / 197e12 * 1e9);

	ck_assert_int_eq(json_integer_value(json_object_get(r, "a")), INT64_C(12057668480));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "b")), INT64_C(-4312700032));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "delta")), INT64_C(-16370368512));
	ck_assert_str_eq(json_string_value(json_object_get(r, "change")), "shrank");
	r = row_of(d, "cores_flop_utilization", "/device:TPU:0");
	ck_assert_int_eq(json_integer_value(json_object_get(r, "a")), ua);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "b")), ub);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
		json_object_get(d, "sections"), "cores_flop_utilization"), "unit")), "ppb");
	json_decref(d);
	json_decref(a);
	json_decref(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("roofline");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_tpu_ops, 0, sizeof(tpu_ops) / sizeof(tpu_ops[0]));
	tcase_add_test(tc, test_tpu_core);
	tcase_add_test(tc, test_tpu_async_pairs);
	tcase_add_test(tc, test_share_capped);
	tcase_add_test(tc, test_tpu_whatif);
	tcase_add_test(tc, test_gpu_gap);
	tcase_add_test(tc, test_ridge);
	tcase_add_test(tc, test_collective_link);
	tcase_add_test(tc, test_diff_device);
	tcase_add_loop_test(tc, test_check_rules, 0, sizeof(rules) / sizeof(rules[0]));
	suite_add_tcase(s, tc);
	return run_suite(s);
}
