#!/bin/sh
# Builds the libFuzzer targets with clang and runs each for FUZZ_SECONDS
# (default 60), one after the other. FUZZ_TARGETS picks targets (default:
# all eight: xspace riegeli hlo analyses reports fetch args oom); FUZZ_FLAGS adds
# libFuzzer flags (default -timeout=10, so a hang of 10 s counts as a
# finding). Seeds: captures from testdata/ and ../shared/captures/ for the
# decoders; for reports, the report documents build/tpuprof makes of them
# (build it first) and testdata/*.json; for fetch, tests/fuzz/seeds/fetch/,
# the shared XProf JSON answers and testdata/*.json; for args, every
# tests/golden/*.cmd as an argv. Crashes are left in build-fuzz/ as
# crash-TARGET-*, leak-*, timeout-*; each becomes a regression test
# (docs/fuzzing.md). Needs clang and its runtime (Debian: clang,
# libclang-rt-14-dev).
set -eu
cd "$(dirname "$0")/../.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-xspace riegeli hlo analyses reports fetch args oom}
EXTRA=${FUZZ_FLAGS:--timeout=10}
out=build-fuzz
mkdir -p "$out/proto"
protoc-c -Iproto --c_out="$out/proto" proto/xplane.proto proto/hlo.proto
# -fno-sanitize-recover: an UBSan report stops the run like a crash.
FLAGS="-std=c11 -g -O1 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude -I$out/proto -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"
LIBSRC="$(find src/util src/decode -name '*.c' | sort) $out/proto/hlo.pb-c.c $out/proto/xplane.pb-c.c"
# Seeds made once per run into build-fuzz/seeds-*/ (never into the project).
make_seeds() {
	rm -rf "$out/seeds-reports" "$out/seeds-fetch" "$out/seeds-args"
	mkdir -p "$out/seeds-reports" "$out/seeds-fetch" "$out/seeds-args"
	cp testdata/*.json "$out/seeds-reports/"
	cp testdata/*.json tests/fuzz/seeds/fetch/* "$out/seeds-fetch/"
	if [ -x build/tpuprof ]; then
		i=0
		for c in testdata/*.xplane.pb* testdata/*.hlo_proto.pb testdata/run-3hosts \
			$(ls ../shared/captures/*/*.xplane.pb 2>/dev/null); do
			i=$((i + 1))
			build/tpuprof report -q --format json "$c" \
				>"$out/seeds-reports/report-$i.json" 2>/dev/null ||
				rm -f "$out/seeds-reports/report-$i.json"
		done
	fi
	for g in ../shared/captures/*/*.json.gz; do
		[ -f "$g" ] && gzip -dc "$g" >"$out/seeds-fetch/$(basename "$g" .gz)"
	done
	python3 - "$out/seeds-args" tests/golden/*.cmd <<'PY'
import shlex, sys
# fuzz_args.c's input: a byte choosing the command, then NUL-separated words
names = ["capture", "check", "collectives", "diff", "fetch", "fusions",
         "info", "memory", "merge", "ops", "report", "oom"]
for i, path in enumerate(sys.argv[2:]):
    words = shlex.split(open(path).read().split(">")[0])
    if not words or words[0] not in names:
        continue
    blob = bytes([names.index(words[0])]) + b"\0".join(w.encode() for w in words[1:])
    open("%s/%d" % (sys.argv[1], i), "wb").write(blob)
PY
}
make_seeds
ALL="$(find src -name '*.c' | grep -v 'src/cli/main.c' | sort)"
# the page's embedded assets the HTML writer links in (analyses, reports,
# args)
sh src/report/html/embed.sh $(ls src/report/html/assets/*.css | sort) -- \
	$(ls src/report/html/assets/*.js | sort) >"$out/html_assets.c"
for t in $TARGETS; do
	src=$LIBSRC
	# the decoder reads .xplane.riegeli: Brotli, Zstd, Snappy, HighwayHash
	libs="-lprotobuf-c -ljansson -lm -lz -lpthread -lbrotlidec -lzstd -lsnappy -lhighwayhash"
	flags=
	seeds="testdata testdata/corrupt"
	[ -d ../shared/captures ] && seeds="$seeds $(ls -d ../shared/captures/*/)"
	maxlen=4194304
	case $t in
	analyses|reports)
		# the analyses, the JSON writers and the JSON readers, with the
		# device table they resolve cores against and the page's
		# embedded assets the HTML writer links in
		src="$src $(find src/analyze src/report src/device -name '*.c' | sort | grep -v fetch_report) $out/html_assets.c"
		libs="$libs -ljansson -lm"
		[ "$t" = reports ] && seeds="$out/seeds-reports" ;;
	riegeli)
		# Riegeli's golden files and chunked captures of testdata/
		seeds="../shared/captures/riegeli-golden testdata/riegeli"
		maxlen=262144 ;;
	fetch)
		src="$(find src/util src/fetch -name '*.c' | sort)"
		libs="-ljansson -lcurl -lz -lm -lpthread"
		# server answers are small; megabyte seeds would make each
		# mutation cost a quarter of a second
		maxlen=65536
		seeds="$out/seeds-fetch" ;;
	oom)
		# the report reader, its explanation and writers: text in,
		# seeded from the shared reports and the BFC sample
		src="$(find src/util src/device src/analyze/oom src/report/oom -name '*.c' | sort) src/analyze/common/scopes.c"
		libs="-ljansson -lm -lpthread"
		maxlen=65536
		seeds="tests/oom"
		[ -d ../shared/oom-reports ] && seeds="$seeds ../shared/oom-reports" ;;
	args)
		src="$ALL $out/proto/hlo.pb-c.c $out/proto/xplane.pb-c.c $out/html_assets.c"
		libs="$libs -ljansson -lcurl -lm"
		flags="-close_fd_mask=3"   # help and usage errors are printed
		seeds="$out/seeds-args" ;;
	esac
	# shellcheck disable=SC2086
	clang $FLAGS tests/fuzz/fuzz_$t.c $src $libs -o "$out/fuzz_$t"
	mkdir -p "$out/corpus-$t"
	# shellcheck disable=SC2086
	(cd "$out" && ./fuzz_$t -max_total_time="$SECONDS_EACH" -max_len=$maxlen \
		-rss_limit_mb=4096 $EXTRA $flags -artifact_prefix=crash-$t- corpus-$t \
		$(for s in $seeds; do case $s in /*|build-fuzz/*) echo "${s#build-fuzz/}";; *) echo "../$s";; esac; done))
done
