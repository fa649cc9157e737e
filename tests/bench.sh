#!/bin/sh
# make bench: generates (once, into bench/, which git ignores) TPU-training
# shaped captures of about 100 MB and 1 GB with the capture generator, then
# reports wall time, CPU time, throughput and peak RSS of tpuprof (report,
# info, memory, ops) on each, and side by side on the same files:
# `protoc --decode_raw` and a Python script that parses the XSpace with
# python3-protobuf and sums time per op (what users write today), with the
# ratios. Then GPU-shaped captures of 200 MB (JAX and TF), a run
# directory of 16 hosts x 100 MB with `report -j 2`, and `trace` on
# 200 MB against `report`, and last a block with one line per target of
# issues 7, 16 and 19: measured, limit, PASS/FAIL. Figures go into
# docs/performance.md.
# Then a chunked capture (.xplane.riegeli, issue 27) of at least 3 GiB of
# XSpace, written from generated 128 MB XSpaces (one record each, the
# same programs later in time each, kept in bench/) by the tests'
# writer, measured and deleted. Before it, the like-for-like pair: the
# same merged capture (12 of those records, about 1.5 GB, under
# protobuf's 2 GiB) once as one .xplane.pb (written by the tests'
# riegeli_merged: the XSpace tpuprof merges the chunks into) and once as
# the .xplane.riegeli a profiler writes, CPU per MB and peak RSS side by
# side; after it, the 3 GiB capture merged into one .xplane.pb too (past
# protobuf's 2 GiB, which tpuprof reads) for its peak RSS side by side.
# Issue 38's rows, each shape beside the one-thread decode floor
# (../shared/tools/pbwalk.c) in the same run: tests/bench_floor.sh.
# Usage: tests/bench.sh TPUPROF GEN_CAPTURE [RIEGELI_PACK [RIEGELI_MERGED]]
#   BENCH_SIZES="100" skips the 1 GB capture (default "100 1000", in MB;
#   "" none)
#   BENCH_HOSTS=0 skips the run directory (default 16 hosts)
#   BENCH_RUNS=N runs each tpuprof command N times, keeps the median (3)
#   BENCH_GPU="" skips the GPU-shaped captures (default "jax-gpu tf-gpu",
#   BENCH_GPU_MB=200 MB each), whose targets are issue 19's
#   BENCH_TRACE=0 skips `trace` on a 200 MB capture (issues 16 and 38)
#   BENCH_MERGE=0 skips merging 1,024 host reports (docs/scale.md)
#   BENCH_FLOOR=0 skips issue 38's rows beside the floor;
#   BENCH_FLOOR_SIZES="20 200 2000" their TPU-shaped sizes in MB
#   BENCH_RIEGELI_MB=N the chunked capture's size (default 3300 MB, at
#   least 3 GiB; 0 skips it)
#   BENCH_RIEGELI_PAIR=N records of 128 MB in the like-for-like pair
#   (default 12; 0 skips it; at most 16, under 2 GiB as .pb)
#   BENCH_CHUNKED=0 skips issue 38's chunked layouts of a 200 MB capture
#   (tests/bench_chunked.sh); BENCH_COUNT=0 skips their instruction
#   counts (valgrind, about a minute)
#   BENCH_STEPS=N the many-step capture's --steps (issue 38; default
#   16000: 4,000 runs of the step program a core, 8 cores, about 150 MB
#   with BENCH_STEPS_EVENTS=520000 op events a core; "" skips it),
#   measured beside the one-thread floor (../shared/tools/pbwalk.c)
set -eu
tpuprof=$1 gen=$2 pack=${3:-} merged=${4:-}
dir=bench
sizes=${BENCH_SIZES-100 1000}
hosts=${BENCH_HOSTS:-16}
# GPU-shaped captures (issue 19): JAX kernels with seven stats each, and
# TF-era GPU with a TensorFlow Ops line
gpu_shapes=${BENCH_GPU-jax-gpu tf-gpu}
gpu_mb=${BENCH_GPU_MB:-200}
mkdir -p "$dir/py"
protoc -Iproto --python_out="$dir/py" proto/xplane.proto
py=/usr/bin/python3
command -v "$py" >/dev/null || py=python3
# the timer: tests/bench_time.py (wall to the microsecond), else GNU time
# (centiseconds: a 5% step at the floor's 0.2 s)
bench_timer=''
"$py" -c 'import os; os.wait4' 2>/dev/null && bench_timer=1

# timed OUT COMMAND...: one run of COMMAND, standard output discarded;
# "WALL RSS_KIB USER SYS" into OUT, as GNU time's -f "%e %M %U %S"
timed() {
	timed_out=$1
	shift
	if [ -n "$bench_timer" ]; then
		"$py" tests/bench_time.py "$timed_out" "$@"
	else
		/usr/bin/time -f "%e %M %U %S" -o "$timed_out" "$@" >/dev/null
	fi
}
# the shape of a training step: 8 cores, XLA Ops events dominating, HLO with
# buffer assignment, runtime memory events; --target-bytes is per file
gen_opts="--seed 1 --cores 8 --programs 4 --instructions 400 --fusions 60
	--heap-events 2000 --memory-events 5000"

# generate OUT BYTES [OPTION...]: once; into OUT.tmp first, so that an
# interrupted run leaves no half-written capture to be measured next time
generate() {
	out=$1 target=$2
	shift 2
	[ -s "$out" ] && return 0
	echo "generating $out ..." >&2
	rm -rf "$out.tmp"
	# shellcheck disable=SC2086 # gen_opts is a list of options
	"$gen" $gen_opts --target-bytes "$target" "$@" -o "$out.tmp"
	mv "$out.tmp" "$out"
}

# measure LABEL BYTES RSS_REF COMMAND...: runs COMMAND (timed) and
# prints a row (throughput over BYTES, peak RSS against RSS_REF, which is
# the file, or for a run directory its largest host). Leaves wall (s) and
# rss (KiB) in globals for ratios and targets; both empty if it failed.
# tpuprof's rows and the decode floor's are the median of $runs runs
# (wall, with that run's CPU; the highest peak RSS): on a shared VM one
# run can be off by 20%.
runs=${BENCH_RUNS:-3}
measure() {
	label=$1 bytes=$2 ref=$3
	shift 3
	wall='' rss='' rc=0 n=1
	case $1 in "$tpuprof" | "${floor_bin:-}") n=$runs ;; esac
	: >"$dir/times.txt"
	while [ "$n" -gt 0 ]; do
		timed "$dir/time.txt" "$@" 2>"$dir/stderr.txt" || rc=$?
		if [ "$rc" -ne 0 ]; then
			echo "  $label: failed (exit $rc): $(tail -1 "$dir/stderr.txt")"
			return 0
		fi
		cat "$dir/time.txt" >>"$dir/times.txt"
		n=$((n - 1))
	done
	summarize "$label" "$bytes" "$ref" "$dir/times.txt"
}

# summarize LABEL BYTES RSS_REF TIMES: the row of the runs in TIMES (a
# "wall rss user sys" line each): the median wall with its run's CPU, the
# highest peak RSS; sets wall, rss, user and sys as measure does
summarize() {
	label=$1 bytes=$2 ref=$3
	sort -n "$4" | awk '{ w[NR] = $0; if ($2 > m) m = $2 }
		END { split(w[int((NR + 1) / 2)], x, " "); print x[1], m, x[3], x[4] }' >"$dir/time.txt"
	read -r wall rss user sys <"$dir/time.txt"
	what="file"
	[ "$ref" = "$bytes" ] || what="largest host"
	awk -v l="$label" -v w="$wall" -v r="$rss" -v b="$bytes" -v f="$ref" \
		-v c="$user" -v s="$sys" -v what="$what" 'BEGIN {
		mbs = (w > 0) ? b / 1e6 / w : 0;
		printf "  %-34s %7.3f s wall %7.2f s cpu %8.1f MB/s %8.1f MB peak RSS (%.2fx %s)\n",
			l, w, c + s, mbs, r / 1024, r * 1024 / f, what }'
}

# warm FILE...: each read once into the page cache before its rows: this
# VM reclaims page cache on its own (DAMON), minutes after a file was
# read, and a row whose first run reads the disk measures the disk
# (docs/performance.md, eighth session). Each is let go from the page
# cache first and read back as a file is read from disk: one just
# written by the generator (stdio's 4 KiB writes) sits there in 4 KiB
# folios, one read ahead in folios of up to 2 MiB, which Linux 6.11 and
# later maps whole; the same capture then takes other CPU and peaks
# otherwise, and a row must compare like with like (seventeenth session)
warm() {
	for f in "$@"; do
		"$py" -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$f" 2>/dev/null || :
		cat "$f" >/dev/null
	done
}

# div A B: A / B with two decimals; empty if either is missing
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b }'; }

# per_file RSS_KIB BYTES: peak RSS as a multiple of BYTES; empty if missing
per_file() { awk -v r="$1" -v b="$2" 'BEGIN { if (r != "" && b > 0) printf "%.2f", r * 1024 / b }'; }

# mbs BYTES WALL: throughput in MB/s; empty if either is missing
mbs() { awk -v b="$1" -v w="$2" 'BEGIN { if (b != "" && w > 0) printf "%.1f", b / 1e6 / w }'; }

# get NAME: the value of the variable NAME, empty if unset (set -u)
get() { eval "printf '%s' \"\${$1:-}\""; }

# issue 38's chunked layouts: bench_chunked, chunked_targets
. tests/bench_chunked.sh

# bench_size MB [SHAPE]: one capture (TPU-training shaped, or the
# generator's --shape SHAPE); keeps report's, ops' and info's figures in
# variables named after the size, or the shape (rep_wall_100,
# ops_wall_jax_gpu, ...) for the targets
bench_size() {
	mb=$1 shape=${2:-}
	if [ -n "$shape" ]; then
		cap=$dir/${shape}-${mb}mb.xplane.pb
		key=$(echo "$shape" | tr - _)
		generate "$cap" "${mb}000000" --shape "$shape"
	else
		cap=$dir/train-${mb}mb.xplane.pb
		key=$mb
		generate "$cap" "${mb}000000"
	fi
	b=$(wc -c <"$cap")
	echo "capture: $cap ($b bytes)"
	measure "tpuprof report --format json" "$b" "$b" "$tpuprof" report -q --format json "$cap"
	rw=$wall
	eval "rep_wall_$key=\$wall rep_rss_$key=\$rss bytes_$key=\$b"
	measure "tpuprof info --format json" "$b" "$b" "$tpuprof" info --format json "$cap"
	iw=$wall
	measure "tpuprof memory --format json" "$b" "$b" "$tpuprof" memory -q --format json "$cap"
	measure "tpuprof ops --format json" "$b" "$b" "$tpuprof" ops -q --format json "$cap"
	eval "ops_wall_$key=\$wall ops_rss_$key=\$rss"
	# shellcheck disable=SC2016 # $1 is expanded by the inner sh
	measure "protoc --decode_raw" "$b" "$b" sh -c 'protoc --decode_raw <"$1"' sh "$cap"
	pw=$wall
	measure "python3-protobuf, time per op" "$b" "$b" "$py" tests/bench_python.py "$dir/py" "$cap"
	yw=$wall
	yr=$(div "$yw" "$rw") pr=$(div "$pw" "$rw")
	eval "py_ratio_$key=\$yr protoc_ratio_$key=\$pr"
	echo "  ratios: python / report = ${yr}x, protoc / report = ${pr}x;" \
		"python / info = $(div "$yw" "$iw")x, protoc / info = $(div "$pw" "$iw")x"
}

# -j is new: a tpuprof without it rejects the option as a usage error
# (exit 2) before reading anything, so an empty input is enough to ask
supports_j() {
	rc=0
	"$tpuprof" report -q -j 2 --format json /dev/null >/dev/null 2>&1 || rc=$?
	[ "$rc" -ne 2 ]
}

# bench_hosts N: a run directory of N hosts x 100 MB; the generator seeds
# each host's events from its own stream, so the hosts differ. Without -j
# as a reference (every host at once), then with -j 2 (the target).
bench_hosts() {
	n=$1
	hd=$dir/train-${n}x100mb
	generate "$hd" 100000000 --hosts "$n"
	tl=$(wc -c "$hd"/*.xplane.pb | awk '$2 != "total" { s += $1; if ($1 > m) m = $1 }
		END { print s, m }')
	total=${tl% *} largest=${tl#* }
	echo "run directory: $hd ($n hosts, $total bytes, largest host $largest bytes)"
	measure "tpuprof report (all hosts)" "$total" "$largest" \
		"$tpuprof" report -q --format json "$hd"
	if supports_j; then
		measure "tpuprof report -j 2" "$total" "$largest" \
			"$tpuprof" report -q -j 2 --format json "$hd"
		hosts_rss=$(per_file "$rss" "$largest")
	else
		hosts_why="-j not supported"
		echo "  tpuprof report -j 2: $hosts_why"
	fi
}

# bench_trace: issue 16's rows: `trace` on a 200 MB capture against
# `report` on the same file (wall), and its peak RSS against the file;
# issue 38's: in each of $runs rounds, side by side, the floor's two
# parts (the one-thread decode walk of ../shared/tools/pbwalk.c, and
# writing as many bytes as the trace holds, zeros 256 KiB at a time (as
# the trace writes: 1 MiB blocks cost dd 2-3x the kernel time here, its
# buffer out of cache), into the page cache without fsync, after a sync)
# and the trace to a file, medians; and
# `--format json` for the record. A trace is deleted after each run.
bench_trace() {
	cap=$dir/train-200mb.xplane.pb
	generate "$cap" 200000000
	pf=$dir/trace-200mb.pftrace # not "out": generate sets that
	b=$(wc -c <"$cap")
	echo "capture: $cap ($b bytes), load $(cut -d ' ' -f 1-3 /proc/loadavg)"
	measure "tpuprof report --format json" "$b" "$b" "$tpuprof" report -q --format json "$cap"
	trace_rep_wall=$wall
	measure "tpuprof trace -o FILE.pftrace" "$b" "$b" \
		sh -c '"$1" trace -q "$2" -o "$3"; rc=$?; wc -c <"$3" >"$3.size"; rm -f "$3"; exit $rc' sh \
		"$tpuprof" "$cap" "$pf"
	trace_wall=$wall trace_rss=$(per_file "$rss" "$b")
	tb=$(cat "$pf.size" 2>/dev/null || echo 0)
	rm -f "$pf.size"
	measure "tpuprof trace --no-derived" "$b" "$b" \
		sh -c '"$1" trace -q --no-derived "$2" -o "$3"; rc=$?; rm -f "$3"; exit $rc' sh \
		"$tpuprof" "$cap" "$pf"
	# the floor: writing the trace's bytes (zeros, 1 MiB at a time) to a
	# file on the same disk, with nothing to encode
	echo "trace: $tb bytes ($(div "$tb" "$b")x the capture)"
	measure "write floor: trace's bytes to a file" "$tb" "$tb" \
		sh -c 'dd if=/dev/zero of="$2" bs=1M count="$1" iflag=count_bytes status=none; rc=$?; rm -f "$2"; exit $rc' sh "$tb" "$pf"
	trace_floor_wall=$wall
	trace_floor38 "$cap" "$b" "$tb"
}

# trace_once NAME COMMAND...: one run (timed); appends
# "wall cpu rss_kib" to $dir/trace38-NAME.txt (nothing when it fails)
trace_once() {
	name=$1
	shift
	timed "$dir/time.txt" "$@" 2>/dev/null || return 0
	awk '{ printf "%s %.2f %s\n", $1, $3 + $4, $2 }' "$dir/time.txt" >>"$dir/trace38-$name.txt"
}

# trace_median NAME: "wall cpu rss" of the run with the median wall
trace_median() {
	[ -s "$dir/trace38-$1.txt" ] || return 0
	sort -n "$dir/trace38-$1.txt" | awk '{ w[NR] = $0 } END { print w[int((NR + 1) / 2)] }'
}

# trace_floor38 CAPTURE BYTES TRACE_BYTES: issue 38's rounds (above)
trace_floor38() {
	cap=$1 b=$2 tb=$3 walk=$dir/pbwalk
	if [ ! -x "$walk" ] && [ -f ../shared/tools/pbwalk.c ]; then
		cc -O2 -o "$walk" ../shared/tools/pbwalk.c || true
	fi
	[ -x "$walk" ] || { echo "  issue 38's floor: no ../shared/tools/pbwalk.c"; return 0; }
	rm -f "$dir"/trace38-*.txt
	# shellcheck disable=SC2016 # $1.. are expanded by the inner sh
	for _ in $(seq "$runs"); do
		trace_once walk "$walk" "$cap"
		rm -f "$pf"
		sync
		trace_once trace sh -c '"$1" trace -q "$2" -o "$3"; rc=$?; rm -f "$3"; exit $rc' sh \
			"$tpuprof" "$cap" "$pf"
		sync
		trace_once write sh -c 'dd if=/dev/zero of="$2" bs=256K count="$1" iflag=count_bytes status=none; rc=$?; rm -f "$2"; exit $rc' sh "$tb" "$pf"
	done
	rm -f "$pf.json"
	sync
	# shellcheck disable=SC2016
	trace_once json sh -c '"$1" trace -q --format json "$2" -o "$3"; rc=$?; wc -c <"$3" >"$3.size"; rm -f "$3"; exit $rc' sh \
		"$tpuprof" "$cap" "$pf.json"
	jb=$(cat "$pf.json.size" 2>/dev/null || echo 0)
	rm -f "$pf.json.size"
	sync
	# shellcheck disable=SC2016
	trace_once jwrite sh -c 'dd if=/dev/zero of="$2" bs=256K count="$1" iflag=count_bytes status=none; rc=$?; rm -f "$2"; exit $rc' sh "$jb" "$pf.json"
	echo "  issue 38 ($runs rounds side by side, medians; load $(cut -d ' ' -f 1-3 /proc/loadavg)):"
	for k in walk:"floor: pbwalk (decode walk, 1 thread)" write:"floor: write the trace's $tb bytes" \
		 trace:"tpuprof trace -o FILE.pftrace" json:"trace --format json (1 run)" \
		 jwrite:"floor: write the JSON's $jb bytes (1 run)"; do
		trace_median "${k%%:*}" | awk -v l="${k#*:}" -v b="$b" '{
			printf "  %-40s %7.2f s wall %7.2f s cpu %8.1f MB peak RSS (%.2fx the capture)\n",
				l, $1, $2, $3 / 1024, $3 * 1024 / b }'
	done
	# t38_NAME, t38_NAME_cpu, t38_NAME_rss: each run's median
	for k in walk write trace json jwrite; do
		# shellcheck disable=SC2034 # read here, used by the eval
		read -r w c r <<EOF_T38
$(trace_median "$k")
EOF_T38
		eval "t38_$k=\${w:-} t38_${k}_cpu=\${c:-} t38_${k}_rss=\${r:-}"
	done
	t38_floor=$(awk -v a="${t38_walk:-}" -v b="${t38_write:-}" 'BEGIN { if (a != "" && b != "") print a + b }')
	t38_floor_cpu=$(awk -v a="${t38_walk_cpu:-}" -v b="${t38_write_cpu:-}" 'BEGIN { if (a != "" && b != "") print a + b }')
	t38_jfloor=$(awk -v a="${t38_walk:-}" -v b="${t38_jwrite:-}" 'BEGIN { if (a != "" && b != "") print a + b }')
	t38_rss=$(per_file "${t38_trace_rss:-}" "$b")
}

# bench_merge: `merge` of 1,024 host reports (one small host's report,
# host names rewritten, as tests/scale_test.sh makes them), CPU seconds
bench_merge() {
	m=$dir/merge
	if [ ! -s "$m/pod/host1023.json" ]; then
		rm -rf "$m"
		mkdir -p "$m"
		"$gen" --hosts 4 --cores 2 --programs 1 --instructions 8 --fusions 1 \
			--heap-events 10 --events-per-line 40 --memory-events 10 -o "$m/run" >/dev/null
		"$tpuprof" report -q --format json -o "$m/one.json" "$m/run/host0.xplane.pb"
		sh tests/pod_reports.sh "$m/one.json" "$m/pod"
	fi
	b=$(cat "$m"/pod/*.json | wc -c)
	echo "1,024 host reports: $m/pod ($b bytes)"
	measure "tpuprof merge (1,024 reports)" "$b" "$b" \
		"$tpuprof" merge -q --expect 1024 -o /dev/null "$m/pod"
	merge_cpu=$(awk -v u="${user:-}" -v s="${sys:-}" 'BEGIN { if (u != "") printf "%.2f", u + s }')
	[ -n "$wall" ] || merge_cpu=''
}

# bench_riegeli: issue 27's row: report on a chunked capture of
# BENCH_RIEGELI_MB, against report on one of its 128 MB records as .pb
# (speed per byte of XSpace), and its peak RSS against the file. Every
# chunk is merged into the same planes and lines, its events moved to
# the merged lines' start. The .riegeli is deleted.
bench_riegeli() {
	mb=$1
	[ -n "$pack" ] || { echo "chunked capture: skipped (no riegeli_pack)"; return 0; }
	n=$(( (mb + 127) / 128 ))
	set --
	i=1
	while [ $i -le $n ]; do
		# each record a later stretch of the same programs' lines
		# (100 s apart), as a profiler writes a long capture
		generate "$dir/chunk128-t$i.xplane.pb" 128000000 --seed 1 \
			--device-line-ns $(( (i - 1) * 100000000000 ))
		set -- "$@" "$dir/chunk128-t$i.xplane.pb"
		i=$((i + 1))
	done
	rg=$dir/chunked.xplane.riegeli
	records=$n # measure counts its runs in n
	bench_riegeli_pair "$@"
	"$pack" -f "$rg" "$@"
	b=$(wc -c <"$rg")
	pb=$(wc -c <"$1")
	echo "chunked capture: $rg ($b bytes, $records records of about 128 MB; Riegeli, uncompressed)"
	measure "tpuprof report on one record as .pb" "$pb" "$pb" "$tpuprof" report -q --format json "$1"
	riegeli_pb_mbs=$(mbs "$pb" "$wall")
	measure "tpuprof report --format json" "$b" "$b" "$tpuprof" report -q --format json "$rg"
	riegeli_mbs=$(mbs "$b" "$wall")
	riegeli_cpu_s=$(awk -v u="${user:-}" -v s="${sys:-}" 'BEGIN { if (u != "") print u + s }')
	riegeli_rss=$(per_file "$rss" "$b")
	riegeli_rss_kb=$rss
	riegeli_bytes=$b
	bench_riegeli_merged "$rg"
	rm -f "$rg"
}

# bench_riegeli_merged RIEGELI: the chunked capture's like for like: the
# XSpace tpuprof merges it into, written out as one .xplane.pb past
# protobuf's 2 GiB (tpuprof's reader has no such limit; no profiler could
# write it), and report's CPU and peak RSS on it, which the .riegeli's
# are held to. The .pb is deleted.
bench_riegeli_merged() {
	[ -n "$merged" ] || return 0
	mp=$dir/chunked-merged.xplane.pb
	"$merged" "$1" "$mp" 2>/dev/null || { rm -f "$mp"; return 0; }
	merged_bytes=$(wc -c <"$mp")
	echo "like for like: the chunked capture merged: $mp ($merged_bytes bytes)"
	measure "tpuprof report on the merged .pb" "$merged_bytes" "$merged_bytes" "$tpuprof" report -q --format json "$mp"
	riegeli_merged_rss=$(per_file "$rss" "$merged_bytes")
	riegeli_rss_x=$(div "${riegeli_rss_kb:-}" "$rss")
	# the same XSpace: CPU seconds in the ratio of CPU per MB of it
	riegeli_cpu_x=$(div "${riegeli_cpu_s:-}" "$(awk -v u="${user:-}" -v s="${sys:-}" 'BEGIN { if (u != "") print u + s }')")
	echo "    the .riegeli's CPU $riegeli_cpu_x x the merged .pb's, peak RSS $riegeli_rss_x x ($riegeli_merged_rss x its file)"
	rm -f "$mp"
}

# cpu_mb BYTES: CPU seconds (user + sys of the last measure) per MB of
# BYTES, in ms; empty if it failed
cpu_mb() { awk -v b="$1" -v w="${wall:-}" -v u="${user:-}" -v s="${sys:-}" 'BEGIN {
	if (w != "" && b > 0) printf "%.2f", (u + s) * 1000 / (b / 1e6) }'; }

# bench_riegeli_pair RECORD...: issue 27's like-for-like rows: the first
# BENCH_RIEGELI_PAIR records as one .xplane.riegeli, and the XSpace
# tpuprof merges them into written out as one .xplane.pb; report on
# each: CPU per MB of XSpace and peak RSS. Both files are deleted.
bench_riegeli_pair() {
	k=${BENCH_RIEGELI_PAIR:-12}
	[ "$k" -gt 0 ] && [ -n "$merged" ] || return 0
	[ "$k" -le $# ] || k=$#
	rp=$dir/pair.xplane.riegeli pp=$dir/pair.xplane.pb
	set --
	i=1
	while [ $i -le "$k" ]; do
		set -- "$@" "$dir/chunk128-t$i.xplane.pb"
		i=$((i + 1))
	done
	"$pack" -f "$rp" "$@"
	"$merged" "$rp" "$pp" 2>/dev/null
	pb=$(wc -c <"$pp") b=$(wc -c <"$rp")
	echo "like for like: $k records of 128 MB merged: $pp ($pb bytes) and $rp ($b bytes, uncompressed)"
	measure "tpuprof report on the merged .pb" "$pb" "$pb" "$tpuprof" report -q --format json "$pp"
	pair_pb_cpu=$(cpu_mb "$pb") pair_pb_rss=$(per_file "$rss" "$pb")
	pair_pb_rss_kb=$rss
	pair_pb_user=$(user_mb "$pb")
	echo "    CPU per MB: $pair_pb_cpu ms (user $user s, sys $sys s)"
	measure "tpuprof report on the .riegeli" "$b" "$b" "$tpuprof" report -q --format json "$rp"
	pair_rg_cpu=$(cpu_mb "$pb") pair_rg_rss=$(per_file "$rss" "$pb")
	pair_rg_rss_kb=$rss
	pair_rg_user=$(user_mb "$pb")
	echo "    CPU per MB of XSpace: $pair_rg_cpu ms (user $user s, sys $sys s); peak RSS $pair_rg_rss x the .pb (.pb: $pair_pb_rss x)"
	# for the record: the same records as Zstd chunks, which a reader
	# decompresses into fresh memory (the spill) where uncompressed
	# chunks are read in place (docs/riegeli.md)
	rz=$dir/pair-zstd.xplane.riegeli
	"$pack" -c zstd -f "$rz" "$@"
	bz=$(wc -c <"$rz")
	measure "tpuprof report on the .riegeli, Zstd ($bz bytes)" "$bz" "$bz" "$tpuprof" report -q --format json "$rz"
	pair_zstd_cpu=$(cpu_mb "$pb") pair_zstd_rss=$(per_file "$rss" "$pb")
	echo "    CPU per MB of XSpace: $pair_zstd_cpu ms (user $user s, sys $sys s); peak RSS $pair_zstd_rss x the .pb"
	rm -f "$rz"
	rm -f "$rp" "$pp"
}

# user_mb BYTES: user CPU seconds of the last measure per MB of BYTES, in
# ms; empty if it failed
user_mb() { awk -v b="$1" -v w="${wall:-}" -v u="${user:-}" 'BEGIN {
	if (w != "" && b > 0) printf "%.2f", u * 1000 / (b / 1e6) }'; }

# target TEXT VALUE OP LIMIT [WHY]: one line of the targets block; VALUE
# empty means the run was skipped or failed (WHY, if known)
target() {
	if [ -z "$2" ]; then
		printf "  %-58s %s\n" "$1" "not measured${5:+ ($5)}"
		return 0
	fi
	awk -v t="$1" -v v="$2" -v op="$3" -v lim="$4" 'BEGIN {
		ok = (op == "<=") ? v <= lim : (op == ">=") ? v >= lim : v < lim;
		printf "  %-58s %8.2f  limit %s %-5s %s\n", t, v, op, lim, ok ? "PASS" : "FAIL" }'
}

# record NAME VALUE: a figure shown beside the targets, held to none
record() {
	if [ -z "$2" ]; then
		printf "  %-58s %s\n" "$1" "not measured"
		return 0
	fi
	awk -v t="$1" -v v="$2" 'BEGIN { printf "  %-58s %8.2f  (for the record)\n", t, v }'
}

# targets: issue 7's, measured on the 1 GB capture; the speed ratios on the
# largest capture this run measured (the same file for all three programs)
targets() {
	big=0
	for mb in $sizes; do
		if [ "$mb" -gt "$big" ]; then big=$mb; fi
	done
	rw=$(get rep_wall_1000) rr=$(get rep_rss_1000) b=$(get bytes_1000)
	echo "targets (issue 7):"
	target "report on 1 GB: wall (s)" "$rw" "<=" 1.5
	target "report on 1 GB: peak RSS / file" "$(per_file "$rr" "$b")" "<=" 1.25
	target "python / report on ${big} MB (x)" "$(get "py_ratio_$big")" ">=" 20
	target "protoc --decode_raw / report on ${big} MB (x)" "$(get "protoc_ratio_$big")" ">=" 5
	target "report wall: 1 GB / 100 MB (x)" "$(div "$rw" "$(get rep_wall_100)")" "<=" 11
	target "run directory, -j 2: peak RSS / largest host file" "${hosts_rss:-}" "<" 2 "${hosts_why:-}"
	echo "targets (issue 16):"
	target "trace on 200 MB: wall / report wall (x)" "$(div "${trace_wall:-}" "${trace_rep_wall:-}")" "<=" 1
	target "trace on 200 MB: peak RSS / file" "${trace_rss:-}" "<=" 0.3
	target "(write floor / report wall (x), for the record)" "$(div "${trace_floor_wall:-}" "${trace_rep_wall:-}")" "<=" 1
	echo "targets (issue 38, trace on 200 MB against the floor: decode walk + writing its bytes):"
	target "trace: wall / floor wall (x)" "$(div "${t38_trace:-}" "${t38_floor:-}")" "<=" 2
	target "trace: peak RSS / file" "${t38_rss:-}" "<=" 0.25
	target "(trace: CPU / floor CPU (x), for the record)" "$(div "${t38_trace_cpu:-}" "${t38_floor_cpu:-}")" "<=" 2
	target "(trace --format json: wall / its floor (x), for the record)" "$(div "${t38_json:-}" "${t38_jfloor:-}")" "<=" 2
	echo "targets (docs/scale.md):"
	target "merge 1,024 host reports: CPU (s)" "${merge_cpu:-}" "<" 2
	if [ -n "${riegeli_bytes:-}" ]; then
		echo "targets (issue 27, a chunked capture of $riegeli_bytes bytes):"
		target "chunked: report CPU per MB / the merged .pb's (x)" "${riegeli_cpu_x:-}" "<=" 1.25
		target "chunked: report peak RSS / the merged .pb's (x)" "${riegeli_rss_x:-}" "<=" 1.1
		# for the record: against other captures (one record as .pb,
		# the file's size), which the merged .pb itself does not meet
		# (docs/performance.md, "Chunked captures")
		target "(chunked: report peak RSS / file, for the record)" "${riegeli_rss:-}" "<=" 0.25
		target "(the merged .pb: report peak RSS / file, for the record)" "${riegeli_merged_rss:-}" "<=" 0.25
		target "(chunked: report MB/s / one record's as .pb (x), for the record)" "$(div "${riegeli_mbs:-}" "${riegeli_pb_mbs:-}")" ">=" 0.5
	fi
	if [ -n "${pair_rg_cpu:-}" ]; then
		echo "targets (issue 27, like for like: the same merged capture as .pb and .riegeli):"
		target "chunked: report CPU per MB / .pb's (x)" "$(div "$pair_rg_cpu" "${pair_pb_cpu:-}")" "<=" 1.25
		target "chunked: report user CPU per MB / .pb's (x)" "$(div "${pair_rg_user:-}" "${pair_pb_user:-}")" "<=" 1.25
		target "(chunked, Zstd: report CPU per MB / .pb's (x), for the record)" "$(div "${pair_zstd_cpu:-}" "${pair_pb_cpu:-}")" "<=" 1.25
		target "chunked: report peak RSS / .pb's (x)" "$(div "${pair_rg_rss_kb:-}" "${pair_pb_rss_kb:-}")" "<=" 1.1
	fi
	chunked_targets
	[ -n "$gpu_shapes" ] || return 0
	echo "targets (issue 19, ${gpu_mb} MB GPU-shaped captures):"
	for shape in $gpu_shapes; do
		k=$(echo "$shape" | tr - _)
		b=$(get "bytes_$k")
		target "$shape: report (MB/s)" "$(mbs "$b" "$(get "rep_wall_$k")")" ">=" 600
		target "$shape: ops (MB/s)" "$(mbs "$b" "$(get "ops_wall_$k")")" ">=" 600
		target "$shape: protoc --decode_raw / report (x)" "$(get "protoc_ratio_$k")" ">=" 15
		target "$shape: python / report (x)" "$(get "py_ratio_$k")" ">=" 25
		target "$shape: report peak RSS / file" "$(per_file "$(get "rep_rss_$k")" "$b")" "<=" 0.25
		target "$shape: ops peak RSS / file" "$(per_file "$(get "ops_rss_$k")" "$b")" "<=" 0.25
	done
}

. tests/bench_floor.sh
# bench_steps STEPS: a capture of thousands of short steps a core (issue
# 38): report and ops (JSON) beside the floor, one thread walking every
# field of the file (../shared/tools/pbwalk.c, built here with cc -O2),
# run in the same moment; and the JSON document's size against the
# capture's (a summary of steps, the rows only with --per-step).
bench_steps() {
	st=$1 ev=${BENCH_STEPS_EVENTS:-520000}
	cap=$dir/steps-${st}.xplane.pb
	if [ ! -s "$cap" ]; then
		echo "generating $cap ..." >&2
		# shellcheck disable=SC2086 # gen_opts is a list of options
		"$gen" $gen_opts --events-per-line "$ev" --steps "$st" -o "$cap.tmp"
		mv "$cap.tmp" "$cap"
	fi
	echo "many-step capture (issue 38): --steps $st"
	if ! floor_build; then
		echo "  skipped: no floor to hold it to (../shared/tools/pbwalk.c)"
		return 0
	fi
	# beside the floor, with its targets (floor_targets, bench_floor.sh)
	floor_row "many_steps_$st" "$cap"
	echo "  with --per-step: report $("$tpuprof" report -q --per-step --format json "$cap" | wc -c) bytes"
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -m)"
for mb in $sizes; do
	bench_size "$mb"
done
for shape in $gpu_shapes; do
	bench_size "$gpu_mb" "$shape"
done
if [ "$hosts" -gt 0 ]; then bench_hosts "$hosts"; fi
if [ "${BENCH_TRACE:-1}" != 0 ]; then bench_trace; fi
if [ "${BENCH_MERGE:-1}" != 0 ]; then bench_merge; fi
riegeli_mb=${BENCH_RIEGELI_MB:-3300}
if [ "$riegeli_mb" -gt 0 ]; then bench_riegeli "$riegeli_mb"; fi
if [ "${BENCH_CHUNKED:-1}" != 0 ]; then bench_chunked; fi
if [ "${BENCH_FLOOR:-1}" != 0 ]; then bench_floor; fi
steps=${BENCH_STEPS-16000}
if [ -n "$steps" ]; then bench_steps "$steps"; fi
targets
floor_targets
