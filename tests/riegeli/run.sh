#!/bin/sh
# make riegeli-test: chunked captures. Every shared capture (and the
# synthetic ones in testdata/) is split into chunks the way a profiler
# would (xspace_split.py) and written as .xplane.riegeli in each
# compression by the tests' own writer (riegeli_pack); every command's
# JSON on it must equal its JSON on the .xplane.pb (compare.py). Then
# damage and the ways a capture comes in: gzip, standard input, run
# directories.
#   sh tests/riegeli/run.sh TPUPROF RIEGELI_PACK [GEN_CAPTURE]
# With GEN_CAPTURE, a generated capture whose op lines (2.8 MB, split
# into chunks of about 1.4 MB) are long enough for the merge to map them
# into its view in place (tp_riegeli_map_min_bytes, 512 KiB), which the
# shared captures' lines mostly are not.
set -eu
TPUPROF=$1
PACK=$2
GEN=${3:-}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
protoc -Iproto --python_out="$DIR" proto/xplane.proto
fail=0
n=0
long=
if [ -n "$GEN" ]; then
	long="$DIR/long-lines.xplane.pb"
	"$GEN" --seed 3 --cores 2 --programs 2 --instructions 100 \
		--target-bytes 6000000 -o "$long"
fi
for pb in $long testdata/small.xplane.pb testdata/jax-gpu.xplane.pb testdata/tf-gpu.xplane.pb \
	testdata/collectives.xplane.pb $(find ../shared/captures -name '*.xplane.pb' \
	! -path '*bad-*' | sort); do
	n=$((n + 1))
	/usr/bin/python3 tests/riegeli/xspace_split.py "$DIR" "$pb" "$DIR/rec"
	for c in none brotli zstd snappy; do
		out="$DIR/$n-$c/$(basename "$pb" .xplane.pb).xplane.riegeli"
		mkdir -p "$(dirname "$out")"
		"$PACK" -c $c -p "$DIR/rec" "$out"
		if [ $c = brotli ]; then
			/usr/bin/python3 tests/riegeli/compare.py "$TPUPROF" "$pb" "$out" || fail=1
		else
			/usr/bin/python3 tests/riegeli/compare.py "$TPUPROF" "$pb" "$out" info report || fail=1
		fi
	done
done
[ $fail = 0 ] || { echo "riegeli: JSON differs between .pb and .riegeli" >&2; exit 1; }
[ -f tests/riegeli/inputs.sh ] && sh tests/riegeli/inputs.sh "$TPUPROF" "$PACK" "$DIR"
echo "riegeli-test: all passed"
