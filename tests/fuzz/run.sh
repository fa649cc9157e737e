#!/bin/sh
# Builds the libFuzzer targets with clang and runs each for FUZZ_SECONDS
# (default 60), seeded from testdata/ and ../shared/captures/. Crashes are
# left in build-fuzz/; copy each into testdata/corrupt/ as a regression
# case. Needs clang and its runtime (Debian: clang, libclang-rt-14-dev).
set -eu
cd "$(dirname "$0")/../.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
out=build-fuzz
mkdir -p "$out/proto"
protoc-c -Iproto --c_out="$out/proto" proto/xplane.proto proto/hlo.proto
FLAGS="-std=c11 -g -O1 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude -I$out/proto -fsanitize=fuzzer,address,undefined"
LIBSRC="$(ls src/util/*.c src/decode/*.c) $out/proto/hlo.pb-c.c $out/proto/xplane.pb-c.c"
for t in xspace hlo; do
	# shellcheck disable=SC2086
	clang $FLAGS tests/fuzz/fuzz_$t.c $LIBSRC -lprotobuf-c -lz -lpthread -o "$out/fuzz_$t"
	mkdir -p "$out/corpus-$t"
	seeds="testdata testdata/corrupt"
	[ -d ../shared/captures ] && seeds="$seeds $(ls -d ../shared/captures/*/)"
	# shellcheck disable=SC2086
	(cd "$out" && ./fuzz_$t -max_total_time="$SECONDS_EACH" -max_len=4194304 \
		-rss_limit_mb=4096 -artifact_prefix=crash-$t- corpus-$t $(for s in $seeds; do echo "../$s"; done))
done
