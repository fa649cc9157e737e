#!/bin/sh
# Builds the libFuzzer targets with clang and runs each for FUZZ_SECONDS
# (default 60), one after the other, seeded from testdata/ and
# ../shared/captures/. FUZZ_TARGETS picks targets (default: all three:
# xspace hlo analyses); FUZZ_FLAGS adds libFuzzer flags (default
# -timeout=10, so a hang of 10 s counts as a finding). Crashes are left in
# build-fuzz/ as crash-TARGET-*, leak-*, timeout-*; copy each into
# testdata/corrupt/ as a regression case (docs/fuzzing.md). Needs clang and
# its runtime (Debian: clang, libclang-rt-14-dev).
set -eu
cd "$(dirname "$0")/../.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-xspace hlo analyses}
EXTRA=${FUZZ_FLAGS:--timeout=10}
out=build-fuzz
mkdir -p "$out/proto"
protoc-c -Iproto --c_out="$out/proto" proto/xplane.proto proto/hlo.proto
# -fno-sanitize-recover: an UBSan report stops the run like a crash.
FLAGS="-std=c11 -g -O1 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude -I$out/proto -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"
LIBSRC="$(find src/util src/decode -name '*.c' | sort) $out/proto/hlo.pb-c.c $out/proto/xplane.pb-c.c"
for t in $TARGETS; do
	src=$LIBSRC
	libs="-lprotobuf-c -lz -lpthread"
	# The analyses target also links the analyses and the JSON writers.
	if [ "$t" = analyses ]; then
		src="$src $(find src/analyze src/report -name '*.c' | sort | grep -v fetch_report)"
		libs="$libs -ljansson -lm"
	fi
	# shellcheck disable=SC2086
	clang $FLAGS tests/fuzz/fuzz_$t.c $src $libs -o "$out/fuzz_$t"
	mkdir -p "$out/corpus-$t"
	seeds="testdata testdata/corrupt"
	[ -d ../shared/captures ] && seeds="$seeds $(ls -d ../shared/captures/*/)"
	# shellcheck disable=SC2086
	(cd "$out" && ./fuzz_$t -max_total_time="$SECONDS_EACH" -max_len=4194304 \
		-rss_limit_mb=4096 $EXTRA -artifact_prefix=crash-$t- corpus-$t \
		$(for s in $seeds; do echo "../$s"; done))
done
