/*
 * check_selection.c - one reading of --host, --core and --module for every
 * command (selection.h): the names a core goes by, the hosts and modules
 * kept, and one message for an option that matches nothing.
 */
#include "testutil.h"

#include "tpuprof/analyze/common/selection.h"
#include "tpuprof/decode/capture.h"

struct core_case {
	const char *plane;
	int ordinal;
	const char *want;
	bool match;
};

static const struct core_case cores[] = {
	{ "/device:TPU:0", 0, NULL, true },
	{ "/device:TPU:0", 0, "/device:TPU:0", true },
	{ "/device:TPU:0", 0, "TPU:0", true },  /* ops refused this before */
	{ "/device:TPU:0", 0, "0", true },
	{ "/device:TPU:0", 0, "1", false },
	{ "/device:TPU:10", 10, "TPU:1", false },
	{ "/device:TPU:10", 10, "10", true },
	{ "/device:GPU:3", 3, "GPU:3", true },
	/* memory took any 8 characters off a name before */
	{ "/xxxxxx:TPU:0", -1, "TPU:0", false },
	{ "/device:TPU:0", -1, "-1", false },   /* no ordinal known */
};

START_TEST(test_core_names)
{
	const struct core_case *c = &cores[_i];
	struct tp_plane pl;

	memset(&pl, 0, sizeof(pl));
	pl.name = tp_str_make(c->plane, strlen(c->plane));
	pl.device_ordinal = c->ordinal;
	pl.kind = TP_PLANE_TPU;
	ck_assert_msg(tp_core_matches(&pl, c->want) == c->match, "%s ~ %s",
		      c->plane, c->want ? c->want : "(none)");
}
END_TEST

struct select_case {
	const char *host, *core, *module;
	enum tp_err rc;
	const char *message;          /* NULL: no error */
	size_t hosts_kept, cores_kept, modules_kept;
};

static const struct select_case selects[] = {
	{ NULL, NULL, NULL, TP_OK, NULL, 3, 6, 6 },
	{ "host1", NULL, NULL, TP_OK, NULL, 1, 2, 2 },
	{ "host1", "TPU:1", NULL, TP_OK, NULL, 1, 1, 2 },
	{ NULL, "0", NULL, TP_OK, NULL, 3, 3, 6 },
	{ "nohost", NULL, NULL, TP_ERR_USAGE, "no host 'nohost' in the capture", 0, 0, 0 },
	{ NULL, "TPU:7", NULL, TP_ERR_USAGE,
	  "no core 'TPU:7' in the capture (6 cores; give a device plane: /device:TPU:0, TPU:0, its number, or host and device plane as printed; a host plane such as /host:CPU is no core)",
	  0, 0, 0 },
	/* a core as ops' and memory's text print it, "HOST PLANE": exit 2
	 * before (no core of that name) */
	{ NULL, "host1 /device:TPU:1", NULL, TP_OK, NULL, 1, 1, 2 },
	{ "host1", "host1 TPU:1", NULL, TP_OK, NULL, 1, 1, 2 },
	{ "host0", "host1 /device:TPU:1", NULL, TP_ERR_USAGE,
	  "no core 'host1 /device:TPU:1' in the capture (2 cores; give a device plane: /device:TPU:0, TPU:0, its number, or host and device plane as printed; a host plane such as /host:CPU is no core)",
	  0, 0, 0 },
	{ NULL, "host9 /device:TPU:1", NULL, TP_ERR_USAGE,
	  "no core 'host9 /device:TPU:1' in the capture (6 cores; give a device plane: /device:TPU:0, TPU:0, its number, or host and device plane as printed; a host plane such as /host:CPU is no core)",
	  0, 0, 0 },
	{ NULL, NULL, "nope", TP_ERR_USAGE,
	  "no module 'nope' in the capture (give a module name or program id)", 0, 0, 0 },
};

static size_t count(const bool *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += v[i];
	return k;
}

/* A host as its capture file names it, the name fetch lists: the
 * profiler writes host "34.83.195.179:6003" as 34.83.195.179_6003.
 * xplane.pb. Refused before (exit 2, "no host"). */
START_TEST(test_host_as_file_names_it)
{
	const char *paths[] = {
		"../shared/captures/gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb" };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_capture cap;
	struct tp_selection sel;
	struct tp_error err = { 0 };

	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &o, &err), TP_OK);
	ck_assert_str_eq(cap.hosts[0].name, "34.83.195.179:6003");
	ck_assert_int_eq(tp_selection_make(&sel, &cap, "34.83.195.179_6003", NULL, NULL, &err),
			 TP_OK);
	ck_assert(sel.host_kept[0]);
	tp_selection_release(&sel);
	ck_assert_int_eq(tp_selection_make(&sel, &cap, "34.83.195.179_6004", NULL, NULL, &err),
			 TP_ERR_USAGE);
	ck_assert_str_eq(err.msg, "no host '34.83.195.179_6004' in the capture");
	tp_capture_release(&cap);
}
END_TEST

START_TEST(test_select_run)
{
	const struct select_case *c = &selects[_i];
	const char *paths[] = { "testdata/run-3hosts" };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_capture cap;
	struct tp_selection sel;
	struct tp_error err = { 0 };
	enum tp_err rc;

	ck_assert_int_eq(tp_capture_open(&cap, paths, 1, &o, &err), TP_OK);
	ck_assert_uint_eq(cap.n_hosts, 3);
	rc = tp_selection_make(&sel, &cap, c->host, c->core, c->module, &err);
	ck_assert_int_eq(rc, c->rc);
	if (c->message) {
		ck_assert_str_eq(err.msg, c->message);
		ck_assert_ptr_null(sel.host_kept);
	} else {
		size_t planes = 0;

		ck_assert_uint_eq(count(sel.host_kept, sel.n_hosts), c->hosts_kept);
		ck_assert_uint_eq(sel.n_cores_kept, c->cores_kept);
		ck_assert_uint_eq(count(sel.module_kept, sel.n_modules), c->modules_kept);
		for (size_t h = 0; h < cap.n_hosts; h++)
			for (size_t p = 0; p < cap.hosts[h].xs.n_planes; p++)
				planes += tp_selection_plane(&sel, h, &cap.hosts[h].xs.planes[p]) &&
					  tp_plane_is_core(&cap.hosts[h].xs.planes[p]);
		ck_assert_uint_eq(planes, c->cores_kept);
		tp_selection_release(&sel);
	}
	tp_capture_release(&cap);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("selection");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_core_names, 0, sizeof(cores) / sizeof(cores[0]));
	tcase_add_loop_test(tc, test_select_run, 0, sizeof(selects) / sizeof(selects[0]));
	tcase_add_test(tc, test_host_as_file_names_it);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
