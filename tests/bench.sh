#!/bin/sh
# make bench: generates (once, into bench/, which git ignores) TPU-training
# shaped captures of about 100 MB and 1 GB with the capture generator, then
# reports wall time, throughput and peak RSS of tpuprof on each, and side
# by side on the same files: `protoc --decode_raw` and a Python script that
# parses the XSpace with python3-protobuf and sums time per op (what users
# write today), with the ratios. Figures go into docs/performance.md.
# Usage: tests/bench.sh TPUPROF GEN_CAPTURE   (BENCH_SIZES="100" to skip 1 GB)
set -eu
tpuprof=$1 gen=$2
dir=bench
sizes=${BENCH_SIZES:-100 1000}
mkdir -p "$dir/py"
protoc -Iproto --python_out="$dir/py" proto/xplane.proto
py=/usr/bin/python3
command -v "$py" >/dev/null || py=python3

measure() { # label, file, command... ; prints a row, leaves seconds in $dir/last
	label=$1 file=$2
	shift 2
	/usr/bin/time -f "%e %M" -o "$dir/time.txt" "$@" >/dev/null 2>"$dir/stderr.txt" || {
		echo "$label: failed: $(tail -1 "$dir/stderr.txt")"
		return 0
	}
	read -r wall rss_kb <"$dir/time.txt"
	bytes=$(wc -c <"$file")
	echo "$wall" >"$dir/last"
	awk -v l="$label" -v w="$wall" -v r="$rss_kb" -v b="$bytes" 'BEGIN {
		mbs = (w > 0) ? b / 1e6 / w : 0;
		printf "  %-36s %8.2f s %9.1f MB/s %9.1f MB peak RSS (%.2fx file)\n",
			l, w, mbs, r / 1024, r * 1024 / b }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'; }

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -m)"
for mb in $sizes; do
	cap=$dir/train-${mb}mb.xplane.pb
	if [ ! -s "$cap" ]; then
		echo "generating $cap ..." >&2
		"$gen" --seed 1 --cores 8 --programs 4 --instructions 400 --fusions 60 \
			--heap-events 2000 --memory-events 5000 \
			--target-bytes "${mb}000000" -o "$cap"
	fi
	echo "capture: $cap ($(wc -c <"$cap") bytes)"
	measure "tpuprof info --format json" "$cap" "$tpuprof" info --format json "$cap"
	t_info=$(cat "$dir/last")
	measure "tpuprof memory --format json" "$cap" "$tpuprof" memory -q --format json "$cap"
	if "$tpuprof" help ops >/dev/null 2>&1; then
		measure "tpuprof ops --format json" "$cap" "$tpuprof" ops -q --format json "$cap"
	fi
	measure "protoc --decode_raw" "$cap" sh -c "protoc --decode_raw < '$cap'"
	t_protoc=$(cat "$dir/last")
	measure "python3-protobuf, time per op" "$cap" "$py" tests/bench_python.py "$dir/py" "$cap"
	t_py=$(cat "$dir/last")
	echo "  ratios: protoc / tpuprof info = $(ratio "$t_protoc" "$t_info"), python / tpuprof info = $(ratio "$t_py" "$t_info")"
done
