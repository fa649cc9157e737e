/*
 * check_json_stream.c - the piecewise JSON writer: for every document in
 * the table and every split depth (how many levels are opened and closed
 * by the writer before values are put whole), the streamed text equals
 * json_dumps() of the whole tree with TP_JSON_FLAGS, byte for byte, and
 * tree mode builds an equal tree. Then write errors and misuse.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "tpuprof/util/json_stream.h"
#include "tpuprof/util/parallel.h"

static const struct {
	const char *what;
	const char *json;
} docs[] = {
	{ "empty object", "{}" },
	{ "empty array", "[]" },
	{ "scalar document", "\"just a string\"" },
	{ "flat object", "{\"schema\": \"x/1\", \"n\": 3, \"r\": 0.1, \"t\": true, \"f\": false, \"z\": null}" },
	{ "nested", "{\"a\": {\"b\": {\"c\": [1, [2, [3, {\"d\": []}]]]}}, \"e\": [{}, [], {\"f\": {}}]}" },
	{ "empty containers everywhere",
	  "[[], {}, [[]], [{}], {\"a\": []}, {\"b\": {}}, [[], []], {\"c\": [], \"d\": {}}]" },
	{ "array of objects, as the reports have",
	  "{\"cores\": [{\"host\": \"h\", \"ops\": [{\"name\": \"x\", \"ps\": 5}, {\"name\": \"y\", \"ps\": 6}],"
	  " \"steps\": null}, {\"host\": \"i\", \"ops\": [], \"steps\": [{\"s\": 1}]}], \"w\": [\"a\", \"b\"]}" },
	{ "strings needing escapes",
	  "{\"q\": \"say \\\"hi\\\"\", \"bs\": \"a\\\\b\", \"nl\": \"line\\nnext\\r\\t\", "
	  "\"ctl\": \"\\u0001\\u001f\\u007f\", \"utf8\": \"caf\\u00e9 \\u2192 \\ud83d\\ude00\", "
	  "\"slash\": \"a/b\", \"nested\": [\"\\n\", {\"x\": \"\\n\\n\"}]}" },
	{ "keys needing escapes",
	  "{\"a\\\"b\": 1, \"back\\\\slash\": {\"tab\\tkey\": [1]}, \"\\u00e9t\\u00e9\": [], "
	  "\"nl\\nkey\": {}, \"\": \"empty key\", \"del\\u007f\": 2}" },
	{ "numbers", "[0, -1, 9007199254740991, -9007199254740992, 9223372036854775807, -9223372036854775808, 10, -10, 1.5, -0.0, 1e+300, 3.14159265358979, 1e-07]" },
	{ "deep", "[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]" },
};

/* Writes v: containers down to `split` levels by the writer, deeper
 * values whole. */
static void emit(struct tp_jw *w, const char *key, json_t *v, int split)
{
	const char *k;
	json_t *x;
	size_t i;

	if (split <= 0 || !(json_is_object(v) || json_is_array(v))) {
		tp_jw_put(w, key, json_incref(v));
		return;
	}
	if (json_is_object(v)) {
		tp_jw_object(w, key);
		json_object_foreach(v, k, x)
			emit(w, k, x, split - 1);
	} else {
		tp_jw_array(w, key);
		json_array_foreach(v, i, x)
			emit(w, NULL, x, split - 1);
	}
	tp_jw_end(w);
}

static char *expected(json_t *doc)
{
	char *s = json_dumps(doc, TP_JSON_FLAGS | JSON_ENCODE_ANY), *t;

	ck_assert_ptr_nonnull(s);
	t = tp_xasprintf("%s\n", s);
	free(s);
	return t;
}

START_TEST(test_same_bytes)
{
	json_error_t je;
	json_t *doc = json_loads(docs[_i].json, JSON_DECODE_ANY, &je);
	char *want;

	ck_assert_msg(doc != NULL, "%s: %s", docs[_i].what, je.text);
	want = expected(doc);
	for (int split = 0; split <= TP_JW_MAX_DEPTH; split++) {
		struct tp_jw w;
		struct tp_error err = { 0 };
		char *got = NULL;
		size_t n = 0;
		FILE *f = open_memstream(&got, &n);
		json_t *tree;
		char *again;

		ck_assert_ptr_nonnull(f);
		tp_jw_init(&w, f);
		emit(&w, NULL, doc, split);
		ck_assert_int_eq(tp_jw_finish(&w, &err), TP_OK);
		fclose(f);
		ck_assert_msg(strcmp(got, want) == 0, "%s, split %d:\n%s\nwanted:\n%s",
			      docs[_i].what, split, got, want);
		free(got);

		tp_jw_init(&w, NULL);
		emit(&w, NULL, doc, split);
		ck_assert_int_eq(tp_jw_finish(&w, &err), TP_OK);
		tree = tp_jw_take(&w);
		ck_assert_msg(json_equal(tree, doc), "%s, split %d: tree differs", docs[_i].what, split);
		again = expected(tree);
		ck_assert_str_eq(again, want);
		free(again);
		json_decref(tree);
	}
	free(want);
	json_decref(doc);
}
END_TEST

/* Forked parts (tp_jw_fork, tp_jw_splice): an array of objects inside an
 * object, its elements cut into three parts at every pair of points
 * (empty parts too), each written into its own fork and spliced in order,
 * in both layouts, each part in memory or spooled to a temporary file
 * (tp_jw_fork_spooled; bit p of spooled): the text is json_dumps' of the
 * whole, byte for byte. A tree-mode writer refuses to fork. */
static void write_forked(struct tp_jw *w, json_t *doc, size_t a, size_t b, unsigned spooled)
{
	json_t *rows = json_object_get(doc, "rows");
	size_t n = json_array_size(rows), cut[4] = { 0, a, b, n };
	struct tp_jw part[3];

	tp_jw_object(w, NULL);
	tp_jw_put(w, "before", json_string("x"));
	tp_jw_array(w, "rows");
	/* all forked before any is spliced, as threads write them */
	for (int p = 0; p < 3; p++) {
		if (spooled & (1u << p))
			ck_assert(tp_jw_fork_spooled(&part[p], w, cut[p] > 0));
		else
			ck_assert(tp_jw_fork(&part[p], w, cut[p] > 0));
		for (size_t i = cut[p]; i < cut[p + 1]; i++)
			tp_jw_put(&part[p], NULL, json_incref(json_array_get(rows, i)));
	}
	for (int p = 0; p < 3; p++)
		ck_assert(tp_jw_splice(w, &part[p]));
	tp_jw_end(w);
	tp_jw_put(w, "after", json_real(0.25));
	tp_jw_end(w);
}

/* A spooled part whose file failed is not spliced: tp_jw_splice says so
 * and leaves the writer as it was, so the caller writes the run itself
 * and the document is whole (report's second half, report_load.c). */
START_TEST(test_spool_failure_left_to_caller)
{
	struct tp_jw w, part;
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	tp_jw_init(&w, f);
	tp_jw_object(&w, NULL);
	tp_jw_put_int(&w, "a", 1);
	ck_assert(tp_jw_fork_spooled(&part, &w, true));
	tp_jw_put_int(&part, "b", 2);
	part.failed = true;             /* as a full disk leaves it */
	ck_assert(!tp_jw_splice(&w, &part));
	ck_assert(tp_jw_ok(&w));
	tp_jw_put_int(&w, "b", 2);
	tp_jw_end(&w);
	ck_assert_int_eq(tp_jw_finish(&w, NULL), TP_OK);
	fclose(f);
	ck_assert_str_eq(got, "{\n  \"a\": 1,\n  \"b\": 2\n}\n");
	free(got);
}
END_TEST

/* A part forked after the first member waits while w puts more members,
 * nested containers among them, then is spliced: the text is the
 * document's as one writer writes it (ops_json.c's core_groups beside
 * cores[]), in both layouts and either kind of part. */
START_TEST(test_fork_waits_for_members)
{
	json_t *doc = json_pack("{s:s,s:[{s:i},[]],s:{s:[i]},s:f}", "schema", "x", "cores",
				"a", 1, "steps", "n", 2, "groups", 0.5);

	for (int compact = 0; compact <= 1; compact++)
		for (int spooled = 0; spooled <= 1; spooled++) {
			struct tp_jw w, part;
			char *got = NULL, *want;
			size_t len = 0;
			FILE *f = open_memstream(&got, &len);

			tp_json_set_compact(compact);
			want = expected(doc);
			tp_jw_init(&w, f);
			tp_jw_object(&w, NULL);
			tp_jw_put(&w, "schema", json_string("x"));
			ck_assert(spooled ? tp_jw_fork_spooled(&part, &w, true)
					  : tp_jw_fork(&part, &w, true));
			tp_jw_put_real(&part, "groups", 0.5);
			tp_jw_array(&w, "cores");
			tp_jw_put(&w, NULL, json_pack("{s:i}", "a", 1));
			tp_jw_array(&w, NULL);
			tp_jw_end(&w);
			tp_jw_end(&w);
			tp_jw_object(&w, "steps");
			tp_jw_put(&w, "n", json_pack("[i]", 2));
			tp_jw_end(&w);
			ck_assert(tp_jw_splice(&w, &part));
			tp_jw_end(&w);
			ck_assert_int_eq(tp_jw_finish(&w, NULL), TP_OK);
			fclose(f);
			ck_assert_str_eq(got, want);
			free(got);
			free(want);
		}
	tp_json_set_compact(false);
	json_decref(doc);
}
END_TEST

/* tp_jw_two_runs: two runs of an object's members written at once (the
 * second on another thread, spooled), or one after the other on one
 * thread and in tree mode: the same document every way. */
static void run_b(struct tp_jw *w, void *ctx)
{
	(void)ctx;
	tp_jw_array(w, "b");
	for (int i = 0; i < 3000; i++)   /* past the buffer: flushed on the way */
		tp_jw_put_int(w, NULL, i);
	tp_jw_end(w);
}

static void run_c(struct tp_jw *w, void *ctx)
{
	(void)ctx;
	tp_jw_object(w, "c");
	tp_jw_put(w, "d", json_string("x"));
	tp_jw_end(w);
	tp_jw_put_real(w, "e", 0.5);
}

static void two_runs_doc(struct tp_jw *w)
{
	tp_jw_object(w, NULL);
	tp_jw_put_int(w, "a", 1);
	tp_jw_two_runs(w, run_b, run_c, NULL);
	tp_jw_put_int(w, "f", 2);
	tp_jw_end(w);
}

/* The document two_runs_doc writes, as a tree. */
static json_t *two_runs_tree(void)
{
	json_t *b = json_array();

	for (int i = 0; i < 3000; i++)
		json_array_append_new(b, json_integer(i));
	return json_pack("{s:i,s:o,s:{s:s},s:f,s:i}", "a", 1, "b", b, "c", "d", "x", "e", 0.5,
			 "f", 2);
}

START_TEST(test_two_runs)
{
	json_t *doc = two_runs_tree();
	struct tp_jw tree;
	char *want;

	want = expected(doc);
	for (unsigned threads = 1; threads <= 2; threads++) {
		struct tp_jw w;
		char *got = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&got, &len);

		tp_set_threads(threads);
		tp_jw_init(&w, f);
		two_runs_doc(&w);
		ck_assert_int_eq(tp_jw_finish(&w, NULL), TP_OK);
		fclose(f);
		ck_assert_msg(strcmp(got, want) == 0, "%u threads:\n%s", threads, got);
		free(got);
	}
	tp_set_threads(0);
	/* no temporary file to spool to ($TMPDIR gone): no part, the runs
	 * one after the other, the same text */
	{
		const char *old = getenv("TMPDIR");
		char *keep = old ? strdup(old) : NULL;
		struct tp_jw w, part;
		char *got = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&got, &len);

		setenv("TMPDIR", "/nonexistent/tpuprof-check", 1);
		tp_set_threads(2);
		tp_jw_init(&w, f);
		tp_jw_array(&w, NULL);
		ck_assert(!tp_jw_fork_spooled(&part, &w, false));
		tp_jw_end(&w);
		ck_assert_int_eq(tp_jw_finish(&w, NULL), TP_OK);
		fclose(f);
		free(got);
		got = NULL;
		f = open_memstream(&got, &len);
		tp_jw_init(&w, f);
		two_runs_doc(&w);
		ck_assert_int_eq(tp_jw_finish(&w, NULL), TP_OK);
		fclose(f);
		ck_assert_str_eq(got, want);
		free(got);
		tp_set_threads(0);
		if (keep)
			setenv("TMPDIR", keep, 1);
		else
			unsetenv("TMPDIR");
		free(keep);
	}
	tp_jw_init(&tree, NULL);
	two_runs_doc(&tree);
	{
		json_t *t = tp_jw_take(&tree);

		ck_assert(json_equal(t, doc));
		json_decref(t);
	}
	free(want);
	json_decref(doc);
}
END_TEST

/* The spooled run's text reaches a file, a file opened to append (the
 * kernel will not send into one: read back instead) and a pipe, after
 * text already written through the same FILE: the same document each
 * way. */
static char *two_runs_through(FILE *f, int read_fd)
{
	struct tp_jw w;
	char *got;
	size_t len = 0;
	ssize_t k;

	fputs("before\n", f);
	tp_set_threads(2);
	tp_jw_init(&w, f);
	two_runs_doc(&w);
	ck_assert_int_eq(tp_jw_finish(&w, NULL), TP_OK);
	tp_set_threads(0);
	ck_assert_int_eq(fflush(f), 0);
	got = calloc(1, 1 << 17);
	ck_assert_int_eq(lseek(read_fd, 0, SEEK_SET), 0);
	while ((k = read(read_fd, got + len, (1 << 17) - 1 - len)) > 0)
		len += (size_t)k;
	ck_assert_uint_gt(len, 7);
	ck_assert_mem_eq(got, "before\n", 7);
	memmove(got, got + 7, len - 6);
	return got;
}

START_TEST(test_two_runs_into_files)
{
	json_t *doc = two_runs_tree();
	char path[] = "/tmp/tpuprof-check-XXXXXX", *want, *got;
	int fd, pipe_fd[2];
	FILE *f;

	want = expected(doc);
	ck_assert_int_ge(fd = mkstemp(path), 0);
	unlink(path);
	f = fdopen(dup(fd), "w");
	got = two_runs_through(f, fd);
	ck_assert_str_eq(got, want);
	free(got);
	fclose(f);
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	f = fdopen(dup(fd), "a");
	ck_assert_int_ne(fcntl(fileno(f), F_GETFL) & O_APPEND, 0);
	got = two_runs_through(f, fd);
	ck_assert_str_eq(got, want);
	free(got);
	fclose(f);
	close(fd);
	/* a pipe holds the whole document (64 KiB): no reader needed */
	ck_assert_int_eq(pipe(pipe_fd), 0);
	f = fdopen(pipe_fd[1], "w");
	fputs("before\n", f);
	{
		struct tp_jw w;
		char *text = calloc(1, 1 << 17);
		size_t len = 0;
		ssize_t k;

		tp_set_threads(2);
		tp_jw_init(&w, f);
		two_runs_doc(&w);
		ck_assert_int_eq(tp_jw_finish(&w, NULL), TP_OK);
		tp_set_threads(0);
		fclose(f);
		while ((k = read(pipe_fd[0], text + len, (1 << 17) - 1 - len)) > 0)
			len += (size_t)k;
		ck_assert_str_eq(text + 7, want);
		free(text);
	}
	close(pipe_fd[0]);
	free(want);
	json_decref(doc);
}
END_TEST

START_TEST(test_fork_splice)
{
	json_t *doc = json_pack("{s:s,s:[{s:i,s:f},{s:s,s:[i,i]},{},{s:n}],s:f}", "before", "x",
				"rows", "a", 1, "r", 0.1, "b", "two", "c", 3, 4, "d",
				"after", 0.25);
	size_t n = json_array_size(json_object_get(doc, "rows"));
	struct tp_jw tree, part;

	for (int compact = 0; compact <= 1; compact++) {
		char *want;

		tp_json_set_compact(compact);
		want = expected(doc);
		for (size_t a = 0; a <= n; a++)
			for (size_t b = a; b <= n; b++)
				for (unsigned spooled = 0; spooled < 8; spooled++) {
					struct tp_jw w;
					char *got = NULL;
					size_t len = 0;
					FILE *f = open_memstream(&got, &len);

					tp_jw_init(&w, f);
					write_forked(&w, doc, a, b, spooled);
					ck_assert_int_eq(tp_jw_finish(&w, NULL), TP_OK);
					fclose(f);
					ck_assert_msg(strcmp(got, want) == 0,
						      "cut %zu %zu, spooled %u:\n%s\nwanted:\n%s",
						      a, b, spooled, got, want);
					free(got);
				}
		free(want);
	}
	tp_json_set_compact(false);
	tp_jw_init(&tree, NULL);
	tp_jw_array(&tree, NULL);
	ck_assert(!tp_jw_fork(&part, &tree, false));
	tp_jw_end(&tree);
	json_decref(tp_jw_take(&tree));
	json_decref(doc);
}
END_TEST

/* A NULL value is dropped, as json_object_set_new drops it. */
START_TEST(test_null_dropped)
{
	struct tp_jw w;
	char *got = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&got, &n);

	tp_jw_init(&w, f);
	tp_jw_object(&w, NULL);
	tp_jw_put(&w, "gone", NULL);
	tp_jw_array(&w, "a");
	tp_jw_put(&w, NULL, NULL);
	tp_jw_end(&w);
	tp_jw_end(&w);
	ck_assert_int_eq(tp_jw_finish(&w, NULL), TP_OK);
	fclose(f);
	ck_assert_str_eq(got, "{\n  \"a\": []\n}\n");
	free(got);
}
END_TEST

/* The shortcuts (tp_jw_put_int, tp_jw_put_plain) write what tp_jw_put
 * of the same values writes, in both modes; a string that needs escapes
 * is refused, and so is every string in tree mode. */
static void shortcuts(struct tp_jw *w, bool tree)
{
	static const int64_t ints[] = { 0, -1, 42, INT64_MAX, INT64_MIN };
	static const char *const plain[] = { "", "op.1", "a/b ~\x7f" };

	tp_jw_object(w, NULL);
	tp_jw_array(w, "ints");
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		tp_jw_put_int(w, NULL, ints[i]);
	tp_jw_end(w);
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		bool took = tp_jw_put_plain(w, plain[i], plain[i], strlen(plain[i]));

		ck_assert(took != tree);
		if (!took)
			tp_jw_put(w, plain[i], json_string(plain[i]));
	}
	ck_assert(!tp_jw_put_plain(w, "q", "say \"hi\"", 8));
	ck_assert(!tp_jw_put_plain(w, "e", "caf\xc3\xa9", 5));
	ck_assert(!tp_jw_put_plain(w, "n", "a\nb", 3));
	tp_jw_end(w);
}

START_TEST(test_shortcuts)
{
	struct tp_jw w;
	char *got = NULL, *want;
	size_t n = 0;
	FILE *f = open_memstream(&got, &n);
	json_t *tree;

	tp_jw_init(&w, NULL);
	shortcuts(&w, true);
	ck_assert_int_eq(tp_jw_finish(&w, NULL), TP_OK);
	tree = tp_jw_take(&w);
	want = expected(tree);
	tp_jw_init(&w, f);
	shortcuts(&w, false);
	ck_assert_int_eq(tp_jw_finish(&w, NULL), TP_OK);
	fclose(f);
	ck_assert_str_eq(got, want);
	ck_assert_ptr_nonnull(strstr(got, "-9223372036854775808"));
	free(got);
	free(want);
	json_decref(tree);
}
END_TEST

/* A full disk: the error sticks, big loops can stop, finish says so. */
START_TEST(test_write_error)
{
	FILE *f = fopen("/dev/full", "w");
	struct tp_jw w;
	struct tp_error err = { 0 };
	size_t i;

	if (!f)
		return; /* no /dev/full here */
	tp_jw_init(&w, f);
	tp_jw_array(&w, NULL);
	for (i = 0; i < 1000000 && tp_jw_ok(&w); i++)
		tp_jw_put(&w, NULL, json_string("a string to fill the buffer"));
	ck_assert(!tp_jw_ok(&w));
	ck_assert_uint_lt(i, 1000000);
	tp_jw_end(&w);
	ck_assert_int_eq(tp_jw_finish(&w, &err), TP_ERR_OUTPUT);
	ck_assert_str_eq(err.msg, "cannot write JSON output");
	fclose(f);
}
END_TEST

/* A write that fails on another thread (tp_jw_two_runs may run its
 * first run there): finish leaves that write's errno for the caller to
 * report, EPIPE for a closed pipe (before: whatever this thread had, and
 * `report -o /dev/stdout | head -c 1` now and then said "Input/output
 * error" and exited 5, not quietly with 141). */
static void *fill_on_a_thread(void *ctx)
{
	struct tp_jw *w = ctx;

	tp_jw_array(w, NULL);
	for (size_t i = 0; i < 1000000 && tp_jw_ok(w); i++)
		tp_jw_put_int(w, NULL, (int64_t)i);
	return NULL;
}

START_TEST(test_write_error_on_a_thread)
{
	int fds[2];
	FILE *f;
	struct tp_jw w;
	struct tp_error err = { 0 };
	pthread_t t;

	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(pipe(fds), 0);
	close(fds[0]);
	f = fdopen(fds[1], "w");
	tp_jw_init(&w, f);
	ck_assert_int_eq(pthread_create(&t, NULL, fill_on_a_thread, &w), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert(!tp_jw_ok(&w));
	errno = 0;
	ck_assert_int_eq(tp_jw_finish(&w, &err), TP_ERR_OUTPUT);
	ck_assert_int_eq(errno, EPIPE);
	fclose(f);
}
END_TEST

/* A small document fails only at finish, when the text reaches stdio. */
START_TEST(test_write_error_at_finish)
{
	int fds[2];
	FILE *f;
	struct tp_jw w;
	struct tp_error err = { 0 };

	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(pipe(fds), 0);
	close(fds[0]);
	f = fdopen(fds[1], "w");
	setvbuf(f, NULL, _IONBF, 0);
	tp_jw_init(&w, f);
	tp_jw_object(&w, NULL);
	tp_jw_put(&w, "k", json_integer(1));
	tp_jw_end(&w);
	ck_assert(tp_jw_ok(&w));
	ck_assert_int_eq(tp_jw_finish(&w, &err), TP_ERR_OUTPUT);
	fclose(f);
}
END_TEST

enum misuse { KEY_IN_ARRAY, NO_KEY_IN_OBJECT, END_UNOPENED, UNFINISHED, TWO_DOCUMENTS,
	      TOO_DEEP, NOTHING };

static const struct {
	const char *what;
	enum misuse how;
} misuses[] = {
	{ "a key inside an array", KEY_IN_ARRAY },
	{ "no key inside an object", NO_KEY_IN_OBJECT },
	{ "closing what is not open", END_UNOPENED },
	{ "a container left open", UNFINISHED },
	{ "two top-level values", TWO_DOCUMENTS },
	{ "nesting deeper than TP_JW_MAX_DEPTH", TOO_DEEP },
	{ "no document at all", NOTHING },
};

static void misuse(struct tp_jw *w, enum misuse how)
{
	switch (how) {
	case KEY_IN_ARRAY:
		tp_jw_array(w, NULL);
		tp_jw_put(w, "k", json_true());
		tp_jw_end(w);
		break;
	case NO_KEY_IN_OBJECT:
		tp_jw_object(w, NULL);
		tp_jw_array(w, NULL);
		tp_jw_end(w);
		tp_jw_end(w);
		break;
	case END_UNOPENED:
		tp_jw_put(w, NULL, json_true());
		tp_jw_end(w);
		break;
	case UNFINISHED:
		tp_jw_object(w, NULL);
		tp_jw_array(w, "a");
		tp_jw_end(w);
		break;
	case TWO_DOCUMENTS:
		tp_jw_array(w, NULL);
		tp_jw_end(w);
		tp_jw_object(w, NULL);
		tp_jw_end(w);
		break;
	case TOO_DEEP:
		for (int i = 0; i <= TP_JW_MAX_DEPTH; i++)
			tp_jw_array(w, NULL);
		for (int i = 0; i <= TP_JW_MAX_DEPTH; i++)
			tp_jw_end(w);
		break;
	case NOTHING:
		break;
	}
}

START_TEST(test_misuse)
{
	for (int tree = 0; tree < 2; tree++) {
		struct tp_jw w;
		struct tp_error err = { 0 };
		char *got = NULL;
		size_t n = 0;
		FILE *f = tree ? NULL : open_memstream(&got, &n);

		tp_jw_init(&w, f);
		misuse(&w, misuses[_i].how);
		ck_assert_msg(tp_jw_finish(&w, &err) == TP_ERR_INTERNAL, "%s", misuses[_i].what);
		ck_assert_str_eq(err.msg, "JSON document written out of order");
		json_decref(tp_jw_take(&w));
		if (f) {
			fclose(f);
			free(got);
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("json_stream");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_same_bytes, 0, sizeof(docs) / sizeof(docs[0]));
	tcase_add_test(tc, test_fork_splice);
	tcase_add_test(tc, test_two_runs);
	tcase_add_test(tc, test_two_runs_into_files);
	tcase_add_test(tc, test_fork_waits_for_members);
	tcase_add_test(tc, test_spool_failure_left_to_caller);
	tcase_add_test(tc, test_null_dropped);
	tcase_add_test(tc, test_shortcuts);
	tcase_add_test(tc, test_write_error);
	tcase_add_test(tc, test_write_error_at_finish);
	tcase_add_test(tc, test_write_error_on_a_thread);
	tcase_add_loop_test(tc, test_misuse, 0, sizeof(misuses) / sizeof(misuses[0]));
	suite_add_tcase(s, tc);
	return run_suite(s);
}
