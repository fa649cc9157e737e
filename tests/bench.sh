#!/bin/sh
# make bench: generates (once, into bench/, which git ignores) a
# TPU-training-shaped capture of about 100 MB with the capture generator,
# then reports wall time, throughput and peak RSS of tpuprof on it, and of
# `protoc --decode_raw` on the same file for comparison when protoc exists.
# Usage: tests/bench.sh TPUPROF GEN_CAPTURE
set -eu
tpuprof=$1 gen=$2
dir=bench
mkdir -p "$dir"
cap=$dir/train-100mb.xplane.pb
if [ ! -s "$cap" ]; then
	echo "generating $cap ..." >&2
	"$gen" --seed 1 --cores 8 --programs 4 --instructions 400 --fusions 60 \
		--heap-events 2000 --memory-events 5000 --target-bytes 100000000 -o "$cap"
fi
bytes=$(wc -c <"$cap")
measure() { # label, command...
	label=$1
	shift
	/usr/bin/time -f "%e %M" -o "$dir/time.txt" "$@" >/dev/null
	read -r wall rss_kb <"$dir/time.txt"
	awk -v l="$label" -v w="$wall" -v r="$rss_kb" -v b="$bytes" 'BEGIN {
		mbs = (w > 0) ? b / 1e6 / w : 0;
		printf "%-34s %8.2f s %9.1f MB/s %9.1f MB peak RSS (%.2fx file)\n",
			l, w, mbs, r / 1024, r * 1024 / b }'
}
echo "capture: $cap ($bytes bytes), $(nproc) cores"
measure "tpuprof info --format json" "$tpuprof" info --format json "$cap"
if command -v protoc >/dev/null 2>&1; then
	measure "protoc --decode_raw" sh -c "protoc --decode_raw < '$cap'"
fi
