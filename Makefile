# tpuprof - a plain Makefile (GNU make).
#
#   make                 build build/tpuprof
#   make check           (without ../shared: all but the reference suites,
#                        said in one line) unit, golden and corrupt-input tests, chunked
#                        captures (make riegeli-test), the HTML page in
#                        headless Chromium (make html) and the figures
#                        contract (make figures)
#   make run             build and run `tpuprof report` on testdata/
#   make deps            install the Debian packages that are missing
#   make SANITIZE=address,undefined check
#   make valgrind        the test suite under valgrind
#   make tsan            the unit tests under ThreadSanitizer
#   make bench           speed and memory benchmark (docs/performance.md)
#   make install         PREFIX=/usr/local DESTDIR=
#   make clean

PREFIX    ?= /usr/local
DESTDIR   ?=
BUILD     ?= build
CC        ?= cc
PROTOC_C  ?= protoc-c
# -O3, and calls into the shared libraries through the GOT, not a PLT
# stub (-fno-plt: 1% of report's CPU). The tpuprof binary is also
# optimised across files at link time: the op pass's per-event calls
# cross them (op_lines.c into step_parts.c and op_duty.c, the decoder's
# readers into wire.c), 2-4% of report's CPU on the bench's capture
# (docs/performance.md). Fat objects: the tests link the same library
# without it. `make LTO=` builds without; sanitizer builds do.
OPT       ?= -O3 -g -fno-plt
LTO       ?= -flto=auto -ffat-lto-objects

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wpointer-arith -Wvla \
	-Wwrite-strings -Wold-style-definition -Wno-unused-parameter \
	-Wno-format-nonliteral -fno-common

# Brotli, Zstd and Snappy read .xplane.riegeli captures (docs/riegeli.md);
# HighwayHash is tpuprof's own, and Debian's libhighwayhash-dev (no .pc
# file) the reference its test holds it to (check_riegeli_hash).
# libcurl is loaded when a fetch starts (src/fetch/http/curl_api.h), not
# linked: its headers only, and dlopen.
PKGS    := libprotobuf-c jansson zlib libbrotlidec libzstd snappy
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) libcurl 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lprotobuf-c -ljansson -lz -lbrotlidec -lzstd -lsnappy) -lhighwayhash -ldl

ifneq ($(SANITIZE),)
SAN := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
BUILD := $(BUILD)-san
LTO :=
endif

CPPFLAGS += -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude -I$(BUILD)/proto
CFLAGS   += -std=c11 $(OPT) $(WARN) $(SAN) $(PKG_CFLAGS) -MMD -MP
# Generated protobuf-c code is not ours to warn about.
PROTO_CFLAGS := -std=c11 $(OPT) -w $(SAN) $(PKG_CFLAGS)
LDFLAGS  += $(SAN)
LDLIBS   += $(PKG_LIBS) -lm -lpthread

PROTOS     := $(wildcard proto/*.proto)
PROTO_C    := $(patsubst proto/%.proto,$(BUILD)/proto/%.pb-c.c,$(PROTOS))
PROTO_H    := $(PROTO_C:.c=.h)
PROTO_OBJ  := $(PROTO_C:.c=.o)

# Every C file under src/ except the CLI's belongs to the library; new
# folders need no Makefile edit.
LIB_SRC  := $(sort $(shell find src -name '*.c' ! -path 'src/cli/*'))
CLI_SRC  := $(sort $(shell find src/cli -name '*.c'))
LIB_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRC))
CLI_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(CLI_SRC))
LIB      := $(BUILD)/libtpuprof.a
BIN      := $(BUILD)/tpuprof

GEN_SRC  := $(wildcard tests/gen/*.c)
GEN_BIN  := $(BUILD)/gen_capture

TEST_SRC := $(wildcard tests/check_*.c)
TEST_BIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
# Brotli's encoder: tests write compressed chunks (check_riegeli_simple)
TEST_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm) \
	$(shell pkg-config --libs libbrotlienc 2>/dev/null || echo -lbrotlienc)

# The house rules (docs/design.md): file and folder sizes, calls and
# includes pointing down the layers, no loop between modules.
# -o FILE gets the mode a new file would, or keeps the old one.
output-mode: $(BIN)
	sh tests/output_mode_test.sh $(BIN)

# The CI gate as a job runs it: reports through pipes and FIFOs, one run
# writing text and JSON, the newest run of a logdir (tests/ci_gate_test.sh).
ci-gate-test: $(BIN)
	sh tests/ci_gate_test.sh $(BIN)

house: $(BIN)
	python3 tests/house/check_house.py $(BUILD)

.PHONY: all check names-test summary-test oom-stream oom-families unit golden reference oom-test svg html contract figures merge-test scale-test trace-test riegeli-test fetch-tests house output-mode ci-gate-test run deps bench clean install valgrind tsan fuzz testdata
.DEFAULT_GOAL := all

all: $(BIN)

$(BUILD)/proto/%.pb-c.c $(BUILD)/proto/%.pb-c.h: proto/%.proto
	@mkdir -p $(@D)
	$(PROTOC_C) -Iproto --c_out=$(BUILD)/proto $<

$(BUILD)/proto/%.pb-c.o: $(BUILD)/proto/%.pb-c.c $(PROTO_H)
	$(CC) $(CPPFLAGS) $(PROTO_CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.c $(PROTO_H)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LTO) -c $< -o $@

# The HTML page's script and style are real files, compiled in as C
# (src/report/html/embed.sh; docs/html.md).
HTML_CSS := $(sort $(wildcard src/report/html/assets/*.css))
HTML_JS  := $(sort $(wildcard src/report/html/assets/*.js))
HTML_GEN := $(BUILD)/gen/html_assets.c
HTML_OBJ := $(BUILD)/gen/html_assets.o

$(HTML_GEN): src/report/html/embed.sh $(HTML_CSS) $(HTML_JS)
	@mkdir -p $(@D)
	sh src/report/html/embed.sh $(HTML_CSS) -- $(HTML_JS) > $@.tmp && mv $@.tmp $@

$(HTML_OBJ): $(HTML_GEN)
	$(CC) $(CPPFLAGS) $(PROTO_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ) $(PROTO_OBJ) $(HTML_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(OPT) $(LTO) $(LDFLAGS) $(CLI_OBJ) $(LIB) $(LDLIBS) -o $@

$(GEN_BIN): $(GEN_SRC) $(PROTO_OBJ) $(PROTO_H)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/gen $(GEN_SRC) $(PROTO_OBJ) $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/%.c $(LIB) tests/testutil.h tests/hlo_build.h tests/oom_testutil.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests $< $(LIB) $(LDLIBS) $(TEST_LIBS) -o $@

# Small generated captures kept in testdata/ are rebuilt only on request;
# tests compare against the committed files.
testdata: $(GEN_BIN)
	sh tests/make_testdata.sh $(GEN_BIN)

unit: $(TEST_BIN)
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; $(TEST_WRAP) $$t; done

golden: $(BIN)
	TPUPROF=$(BIN) TEST_WRAP="$(TEST_WRAP)" sh tests/golden.sh

# Last users and chains checked against the HLO by an independent walk.
WHY_CAPTURES := $(addprefix ../shared/captures/,tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb \
	gpu-mi300x-jax-attention/tw003.xplane.pb gpu-mi300x-jax-elementwise/tw003.xplane.pb \
	gpu-mi300x-jax-gemm/tw003.xplane.pb gpu-mi300x8-jax-conv3d/tw003.xplane.pb) \
	testdata/small.xplane.pb testdata/jit_train_step.hlo_proto.pb testdata/multi-trace.hlo_proto.pb

# Independent cross-checks: a Python reader on the shared captures
# (../shared/captures) and the generator's ground truth for testdata/.
reference: $(BIN) summary-test
	python3 tests/reference/compare_info.py $(BIN) ../shared/captures
	python3 tests/reference/compare_memory.py $(BIN)
	/usr/bin/python3 tests/reference/memory/why_check.py $(BIN) $(WHY_CAPTURES)

# The generator's ground truth for testdata/ (needs only the repository).
summary-test: $(BIN)
	python3 tests/compare_summary.py $(BIN)

# Every buffer name check, report and memory print, in text and JSON,
# taken back as printed by memory --why and --split (issue 39).
names-test: $(BIN)
	python3 tests/names/names_back.py $(BIN)

svg: $(BIN)
	sh tests/svg_test.sh $(BIN)

# `--format html` pages in a headless Chromium (tests/html/): no console
# error, no request, deep links, every op; screenshots in $(BUILD)/html.
html: $(BIN) $(GEN_BIN)
	python3 tests/html/html_test.py $(BIN) $(GEN_BIN) $(BUILD)/html

# Per-host reports merged equal the report over all files.
merge-test: $(BIN)
	sh tests/merge_test.sh $(BIN)

# docs/scale.md's recipes, and merging 1,024 host reports.
scale-test: $(BIN) $(GEN_BIN)
	sh tests/scale_test.sh $(BIN) $(GEN_BIN)

# tpuprof trace read back by the test's own Perfetto reader (protoc-c
# code from tests/trace/perfetto_subset.proto) and held to the capture.
TRACE_DUMP := $(BUILD)/tests/trace/trace_dump
$(BUILD)/tests/trace/perfetto_subset.pb-c.c: tests/trace/perfetto_subset.proto
	@mkdir -p $(@D)
	$(PROTOC_C) -Itests/trace --c_out=$(BUILD)/tests/trace $<

$(TRACE_DUMP): tests/trace/trace_dump.c $(BUILD)/tests/trace/perfetto_subset.pb-c.c
	$(CC) $(CPPFLAGS) -I$(BUILD)/tests/trace -std=c11 -O1 -g -w $(PKG_CFLAGS) $^ $(PKG_LIBS) -o $@

trace-test: $(BIN) $(TRACE_DUMP) $(GEN_BIN)
	python3 tests/trace/check_trace.py $(BIN) $(TRACE_DUMP) $(GEN_BIN)

# `tpuprof oom` held to the shared reports' reference figures and their
# variants; then a report inside 100 MB of log read from a pipe.
oom-test: $(BIN) oom-stream
	python3 tests/oom/check_oom.py $(BIN)
	python3 tests/oom/check_oom_variants.py $(BIN)
	python3 tests/oom/check_oom_wrapped.py $(BIN)
	python3 tests/oom/check_oom_folded.py $(BIN)
	python3 tests/oom/check_oom_escaped.py $(BIN)

# Every family of report, made up but faithful (testdata/oom/): needs only
# the repository.
oom-families: $(BIN)
	python3 tests/oom/check_oom_families.py $(BIN)

# The repository's synthetic report inside 100 MB of log, from a pipe.
oom-stream: $(BIN)
	OOM_RSS_MB=$(if $(SANITIZE),128,32) sh tests/oom/stream_test.sh $(BIN)

# Every JSON key emitted is documented in docs/json.md, and vice versa.
contract: $(BIN)
	python3 tests/json_contract.py $(BIN)

# Chunked captures (docs/riegeli.md): the shared captures split as a
# profiler would and written as .xplane.riegeli by the tests' own writer
# (riegeli_pack, in each compression) give every command's JSON of the
# .xplane.pb (a generated capture's lines long enough to be mapped into
# the merged view in place); gzip, stdin, run dirs, damage.
RIEGELI_PACK := $(BUILD)/tests/riegeli/riegeli_pack
$(RIEGELI_PACK): tests/riegeli/riegeli_pack.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@ $(shell pkg-config --libs libbrotlienc 2>/dev/null || echo -lbrotlienc) $(PKG_LIBS) $(SAN)

riegeli-test: $(BIN) $(RIEGELI_PACK) $(GEN_BIN)
	sh tests/riegeli/run.sh $(BIN) $(RIEGELI_PACK) $(GEN_BIN)

# The figures contract (issue 23): every analysis command in text, JSON
# and HTML on every shared and test capture, held to the invariants of
# tests/figures/table.py, and docs/json.md giving every figure a unit.
figures: $(BIN)
	/usr/bin/python3 tests/figures/figures.py $(BIN)

# fetch and capture against a local test server (tests/fetch/server.py).
fetch-tests: $(BIN)
	TPUPROF=$(BIN) sh tests/fetch/run.sh

# ../shared (beside the project: the reference captures and OOM reports)
# feeds the reference suites; a clone without it runs every test that
# needs only the repository, and says which suites it skipped (.ci/run
# refuses to run without it, so CI never skips them).
HAVE_SHARED := $(wildcard ../shared/captures)
REFERENCE_SUITES := reference oom-test html contract riegeli-test fetch-tests
check:
	@sh tests/install_deps.sh
	@$(MAKE) --no-print-directory all unit golden summary-test names-test oom-stream oom-families svg figures merge-test scale-test trace-test house output-mode ci-gate-test $(if $(HAVE_SHARED),$(REFERENCE_SUITES))
	@$(if $(HAVE_SHARED),true,echo "make check: ../shared is absent: skipped the reference suites $(REFERENCE_SUITES), and in the others the tests that read it")
	@echo "make check: all test suites passed"

VALGRIND := valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --quiet
valgrind:
	CK_TIMEOUT_MULTIPLIER=10 $(MAKE) unit golden TEST_WRAP="$(VALGRIND)" OPT="-O0 -g" LTO= BUILD=build-vg

# The unit tests (threaded decoding, scans and ops among them) under
# ThreadSanitizer, then `trace -j 3` (a host's planes on three threads,
# each with a writer lane); any report fails the run.
TRACE_TSAN_INPUTS := testdata/run-3hosts testdata/small.xplane.pb \
	$(wildcard ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb \
	../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb)
tsan:
	TSAN_OPTIONS=halt_on_error=1 $(MAKE) unit SANITIZE=thread BUILD=build-tsan
	$(MAKE) SANITIZE=thread BUILD=build-tsan build-tsan/tpuprof
	@set -e; for c in $(TRACE_TSAN_INPUTS); do echo "== trace -j 3 $$c"; \
		TSAN_OPTIONS=halt_on_error=1 build-tsan/tpuprof trace -q -j 3 $$c -o /dev/null; done
	@# report and ops: memory beside the op pass, the JSON's halves and
	@# op rows on threads (docs/performance.md, issue 38)
	@set -e; for c in $(TRACE_TSAN_INPUTS) testdata/steps.xplane.pb; do \
		echo "== report, ops, memory -j 3 $$c"; \
		for cmd in report "ops --limit 0" memory; do \
		TSAN_OPTIONS=halt_on_error=1 build-tsan/tpuprof $$cmd -q -j 3 --format json $$c >/dev/null; \
		done; done

run: $(BIN)
	$(BIN) report testdata/small.xplane.pb

deps:
	sh tests/install_deps.sh

RIEGELI_MERGED := $(BUILD)/tests/riegeli/riegeli_merged
bench: $(BIN) $(GEN_BIN) $(RIEGELI_PACK) $(RIEGELI_MERGED)
	sh tests/install_deps.sh --bench
	sh tests/bench.sh $(BIN) $(GEN_BIN) $(RIEGELI_PACK) $(RIEGELI_MERGED)

# libFuzzer targets for the decoders; FUZZ_SECONDS each (default 60).
fuzz:
	sh tests/install_deps.sh --fuzz
	sh tests/fuzz/run.sh

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/tpuprof
	if [ -f docs/tpuprof.1 ]; then install -m 644 docs/tpuprof.1 $(DESTDIR)$(PREFIX)/share/man/man1/tpuprof.1; fi
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 644 completions/tpuprof.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/tpuprof
	install -m 644 completions/_tpuprof $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_tpuprof

clean:
	rm -rf build build-san build-vg build-tsan build-fuzz

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
