/*
 * fuzz_analyses.c - libFuzzer target for everything a hostile capture
 * reaches after decoding: tp_capture_open on the bytes as a file (gzip
 * inflation, sniffing, XSpace or standalone HloProto), then the info,
 * memory (buffer assignment, heap-simulator replay, split suggestions),
 * ops (with scopes), fusions and collectives analyses, each rendered as
 * text and as JSON (and memory as SVG) into /dev/null. Any input must end
 * in TP_OK or a clean error, with no crash, leak or sanitizer report.
 *
 * The capture is then opened a second time the way report, ops and check
 * open it, with device lines deferred to the threaded ops pass.
 *
 * The bytes are written to a memfd and opened as /proc/self/fd/N, so the
 * capture goes through the same mmap path as a file on disk (and through
 * the salvage of damaged parts, src/decode/capture/damage.c). The stream
 * check (stream_check.c) must refuse the bytes as a stream only when the
 * file is refused too, and give the same verdict fed whole or in pieces.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tpuprof/decode/capture.h"
#include "tpuprof/analyze/collectives.h"
#include "tpuprof/analyze/fusions.h"
#include "tpuprof/analyze/info.h"
#include "tpuprof/analyze/memory.h"
#include "tpuprof/report/memory_report.h"
#include "tpuprof/analyze/ops.h"
#include "tpuprof/report/ops_report.h"
#include "tpuprof/report/report.h"

#include "../../src/decode/capture/stream_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT (4u << 20)

static FILE *devnull;
static int fd = -1;
static char path[64];

static void setup(void)
{
	if (devnull)
		return;
	devnull = fopen("/dev/null", "w");
	fd = memfd_create("fuzz-capture", 0);
	if (!devnull || fd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
}

static void run_info(struct tp_capture *cap)
{
	struct tp_info info;
	struct tp_error err = { 0 };

	if (tp_info_build(&info, cap, &err) != TP_OK)
		return;
	(void)tp_report_info(devnull, TP_FORMAT_TEXT, cap, &info, &err);
	(void)tp_report_info(devnull, TP_FORMAT_JSON, cap, &info, &err);
	tp_info_release(&info);
}

static void run_memory(struct tp_capture *cap)
{
	struct tp_mem_options opt = { .max_suggestions = 5 };
	struct tp_memory_filter filter = { 0 };
	struct tp_memory_text_opts text = { .limit = 20, .depth = 3 };
	struct tp_memory mem;
	struct tp_error err = { 0 };

	if (tp_memory_build(&mem, cap, &opt, &filter, &err) != TP_OK)
		return;
	(void)tp_report_memory(devnull, TP_FORMAT_TEXT, cap, &mem, &text, &err);
	(void)tp_report_memory(devnull, TP_FORMAT_JSON, cap, &mem, &text, &err);
	(void)tp_memory_svg(devnull, &mem, &err);
	tp_memory_release(&mem);
}

static void run_ops(struct tp_capture *cap)
{
	struct tp_ops_filter filter = { 0 };
	struct tp_ops_view view = { .limit = 20, .sort = TP_SORT_TOTAL };
	struct tp_op_scopes scopes;
	struct tp_ops ops;
	struct tp_error err = { 0 };

	if (tp_ops_build(&ops, cap, &filter, &err) != TP_OK)
		return;
	tp_ops_sort(&ops, view.sort);
	view.filter = &filter;
	(void)tp_report_ops(devnull, TP_FORMAT_TEXT, cap, &ops, &view, &err);
	tp_op_scopes_build(&scopes, &ops, cap);
	view.scopes = &scopes;
	(void)tp_report_ops(devnull, TP_FORMAT_JSON, cap, &ops, &view, &err);
	(void)tp_report_ops(devnull, TP_FORMAT_TEXT, cap, &ops, &view, &err);
	tp_op_scopes_release(&scopes);
	tp_ops_release(&ops);
}

static void run_fusions(struct tp_capture *cap)
{
	struct tp_fusions f;
	struct tp_error err = { 0 };

	if (tp_fusions_build(&f, cap, NULL, &err) != TP_OK)
		return;
	(void)tp_report_fusions(devnull, TP_FORMAT_TEXT, cap, &f, &err);
	(void)tp_report_fusions(devnull, TP_FORMAT_JSON, cap, &f, &err);
	tp_fusions_release(&f);
}

static void run_collectives(struct tp_capture *cap)
{
	struct tp_ops_filter filter = { 0 };
	struct tp_collectives c;
	struct tp_error err = { 0 };

	if (tp_collectives_build(&c, cap, &filter, &err) != TP_OK)
		return;
	(void)tp_report_collectives(devnull, TP_FORMAT_TEXT, cap, &c, &err);
	(void)tp_report_collectives(devnull, TP_FORMAT_JSON, cap, &c, &err);
	tp_collectives_release(&c);
}

/* What the stream check says of these bytes as an unnamed stream: the
 * same fed at once and fed 7 bytes at a time. */
static enum tp_stream_verdict stream_verdict(const uint8_t *data, size_t size)
{
	struct tp_stream_check whole, bits;
	enum tp_stream_verdict v, w = TP_STREAM_MORE;

	tp_stream_check_init(&whole, 64u << 20, false);
	tp_stream_check_init(&bits, 64u << 20, false);
	v = tp_stream_check_feed(&whole, data, size);
	for (size_t n = 0; n < size && w == TP_STREAM_MORE;) {
		n = n + 7 < size ? n + 7 : size;
		w = tp_stream_check_feed(&bits, data, n);
	}
	if (v != w || (v != TP_STREAM_MORE && (whole.error_at != bits.error_at ||
					       whole.error != bits.error)))
		abort();   /* the verdict depends on how the bytes arrived */
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_open_opts opts = { .max_input = 64u << 20 };
	struct tp_capture cap;
	struct tp_error err = { 0 };
	const char *paths[1];
	enum tp_stream_verdict v;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	setup();
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	paths[0] = path;
	v = size >= 2 && data[0] == 0x1f && data[1] == 0x8b ? TP_STREAM_MORE :
	    stream_verdict(data, size);
	if (tp_capture_open(&cap, paths, 1, &opts, &err) != TP_OK)
		return 0;
	/* a stream is refused only where the same bytes as a file are; but
	 * a damaged first plane is refused as a stream even when later
	 * fields (2, 4) make the file an XSpace read without that plane */
	if (v != TP_STREAM_MORE && !(v == TP_STREAM_BAD_INNER && tp_sniff(data, size)))
		abort();
	run_info(&cap);
	run_memory(&cap);
	run_ops(&cap);
	run_fusions(&cap);
	run_collectives(&cap);
	tp_capture_release(&cap);
	/* Again as report, ops and check open captures: device lines left
	 * to the ops pass (two threads), which scans them as it reads. */
	opts.defer_min_bytes = 1;
	tp_xspace_framing_min_bytes = 0; /* their tails too */
	tp_set_threads(2);
	if (tp_capture_open(&cap, paths, 1, &opts, &err) == TP_OK) {
		run_memory(&cap);
		run_collectives(&cap);
		run_info(&cap);
		run_ops(&cap);
		tp_capture_release(&cap);
	}
	tp_set_threads(0);
	tp_xspace_framing_min_bytes = (size_t)1 << 20;
	return 0;
}
