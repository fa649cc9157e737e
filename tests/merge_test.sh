#!/bin/sh
# `tpuprof merge`: reports made per host and merged must equal, byte for
# byte, the report over all the files at once. Usage: merge_test.sh TPUPROF
set -u
cd "$(dirname "$0")/.."
tpuprof=${1:-build/tpuprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
case_() { # name, report options, files...
	name=$1 opts=$2
	shift 2
	parts=""
	i=0
	for f in "$@"; do
		# shellcheck disable=SC2086
		$tpuprof report -q --format json $opts -o "$tmp/$name.$i.json" "$f" || { fail=$((fail + 1)); return; }
		parts="$parts $tmp/$name.$i.json"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	$tpuprof report -q --format json $opts -o "$tmp/$name.all.json" "$@" &&
	$tpuprof merge -o "$tmp/$name.merged.json" $parts &&
	if cmp -s "$tmp/$name.merged.json" "$tmp/$name.all.json"; then
		pass=$((pass + 1))
	else
		echo "FAIL merge $name: merged report differs from the report over all files"
		diff "$tmp/$name.merged.json" "$tmp/$name.all.json" | head -10
		fail=$((fail + 1))
	fi
}
case_ run-3hosts "" testdata/run-3hosts/host0.xplane.pb testdata/run-3hosts/host1.xplane.pb testdata/run-3hosts/host2.xplane.pb
# steps across the hosts: each host's report compares its own 2 cores;
# the merge compares all 6 again (the slowest on host1, the fastest on
# host2, as the report over all three files says), not host0's 2
want='        "n_cores": 6,
        "slowest_host": "host1",
        "slowest_plane": "/device:TPU:0",
        "slowest_ps": 24914608,
        "fastest_host": "host2",
        "fastest_plane": "/device:TPU:1",
        "fastest_ps": 23565675,
        "spread_ps": 1348933,'
got=$(grep -A10 '"steps_across": \[' "$tmp/run-3hosts.merged.json" | sed -n 4,11p)
if [ "$got" = "$want" ]; then
	pass=$((pass + 1))
else
	echo "FAIL merge run-3hosts: steps_across not recomputed over the merged cores: $got"
	fail=$((fail + 1))
fi
# debug-print re-judged over the hosts of the merged files: host1's own
# report does not fire (1.5%), the merge with host0 (6%) does, as the
# report over both files, with both hosts' figures
case_ debug-print "" testdata/debug-print/host0.xplane.pb testdata/debug-print/host1.xplane.pb
got=$(python3 -c '
import json, sys
for f in sys.argv[1:]:
    a = [a for a in json.load(open(f))["advice"] if a["rule"] == "debug-print"][0]
    print(a["verdict"], a["host"], a["measured"], [(h["host"], h["share"], h["steps"]) for h in a["hosts"]])
' "$tmp/debug-print.1.json" "$tmp/debug-print.merged.json")
want="not_fired host1 0.015 [('host1', 0.015, 4)]
fired host0 0.06 [('host0', 0.06, 4), ('host1', 0.015, 4)]"
if [ "$got" = "$want" ]; then
	pass=$((pass + 1))
else
	echo "FAIL merge debug-print: not re-judged over the merged hosts: $got"
	fail=$((fail + 1))
fi
# a report made before steps carried debug_print_ps: the merge cannot judge
# debug-print (it said "not fired" on a figure never measured)
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["ops"]["cores"]:
    for st in c["steps"] or []:
        del st["debug_print_ps"]
json.dump(d, open(sys.argv[2], "w"))
' "$tmp/debug-print.1.json" "$tmp/debug-print.old.json"
$tpuprof merge -o "$tmp/debug-print.old-merged.json" "$tmp/debug-print.0.json" "$tmp/debug-print.old.json"
got=$(python3 -c '
import json, sys
a = [a for a in json.load(open(sys.argv[1]))["advice"] if a["rule"] == "debug-print"][0]
print(a["verdict"], a["measured"], a["hosts"])
' "$tmp/debug-print.old-merged.json")
if [ "$got" = "not_judged None None" ]; then
	pass=$((pass + 1))
else
	echo "FAIL merge debug-print: a report without debug_print_ps judged: $got"
	fail=$((fail + 1))
fi
# steps across the hosts keep each side's parts of the step (spread_from:
# where the slowest core spent its extra time); a report made before steps
# carried input_ps has no parts to give: null, not a part made up
got=$(python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["ops"]["steps_across"][0]
d = [a["slowest_parts"][k] - a["fastest_parts"][k] for k in a["slowest_parts"]]
print(a["spread_from"], sum(d) == a["spread_ps"], d)
d = json.load(open(sys.argv[2]))
for c in d["ops"]["cores"]:
    for st in c["steps"] or []:
        del st["input_ps"]
json.dump(d, open(sys.argv[3], "w"))
' "$tmp/run-3hosts.merged.json" "$tmp/run-3hosts.1.json" "$tmp/run-3hosts.old.json")
$tpuprof merge -o "$tmp/run-3hosts.old-merged.json" "$tmp/run-3hosts.0.json" "$tmp/run-3hosts.old.json" "$tmp/run-3hosts.2.json"
got="$got $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a = d["ops"]["steps_across"][0]
s = [x for x in d["advice"] if x["rule"] == "straggler"][0]["text"]
print(a["slowest_parts"], a["fastest_parts"], a["spread_from"], ", by " in s)
' "$tmp/run-3hosts.old-merged.json")"
want="compute True [1956899, -723951, -3730, 0, 119715] None None None False"
if [ "$got" = "$want" ]; then
	pass=$((pass + 1))
else
	echo "FAIL merge run-3hosts: steps across parts: $got"
	fail=$((fail + 1))
fi
case_ debug-print-inferred "" testdata/debug-print-inferred/host0.xplane.pb testdata/debug-print-inferred/host1.xplane.pb
case_ near-capacity "--hbm 20MiB" testdata/run-3hosts/host0.xplane.pb testdata/run-3hosts/host1.xplane.pb testdata/run-3hosts/host2.xplane.pb
case_ two-captures "" testdata/small.xplane.pb testdata/layout-b.xplane.pb.gz
case_ with-hlo-file "" testdata/small.xplane.pb testdata/jit_train_step.hlo_proto.pb
[ -d ../shared/captures ] && case_ shared "" ../shared/captures/gpu-mi300x-jax-gemm/tw003.xplane.pb ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb
# GPU steps (inferred, and from group_id) with their compute by category
[ -d ../shared/captures ] && case_ gpu-steps "" testdata/tf-gpu-steps.xplane.pb ../shared/captures/gpu-mi300x-jax-gemm/tw003.xplane.pb
[ -d ../shared/captures ] && case_ shared-tf "" ../shared/captures/gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb ../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb
# --expect N with hosts missing: named, the merge written, exit 1 (it was
# 0); -q silences the names, not the status; all there: exit 0
expect_case() { # what, want exit, want stderr, merge args...
	what=$1 want_rc=$2 want_err=$3
	shift 3
	rm -f "$tmp/expect.json"
	$tpuprof merge -o "$tmp/expect.json" "$@" 2>"$tmp/expect.err"
	rc=$?
	if [ $rc = "$want_rc" ] && [ "$(cat "$tmp/expect.err")" = "$want_err" ] && [ -s "$tmp/expect.json" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL merge $what: exit $rc, stderr: $(cat "$tmp/expect.err")"
		fail=$((fail + 1))
	fi
}
r=$tmp/run-3hosts
expect_case "--expect 3, host1 missing" 1 "tpuprof: merge: 2 hosts of 3 expected
tpuprof: merge: 1 host missing from the hosts' numbering: host1" --expect 3 "$r.0.json" "$r.2.json"
expect_case "--expect 3 -q, host1 missing" 1 "" -q --expect 3 "$r.0.json" "$r.2.json"
# host0..host2 leave no gap: the fourth host is not named from the count
expect_case "--expect 4, one more than the numbering" 1 "tpuprof: merge: 3 hosts of 4 expected (the host names show no gap in a numbered series: which are missing is not known)" --expect 4 "$r.0.json" "$r.1.json" "$r.2.json"
expect_case "--expect 3, all there" 0 "" --expect 3 "$r.0.json" "$r.1.json" "$r.2.json"
expect_case "a gap without --expect" 0 "tpuprof: merge: 1 host missing from the hosts' numbering: host1" "$r.0.json" "$r.2.json"
# two merges that overlap (host0 in both): the second held host2 too, and
# was left out whole in silence but for host0's line; now an error naming
# both hosts, exit 3, no document
$tpuprof merge -q -o "$tmp/m01.json" "$r.0.json" "$r.1.json"
$tpuprof merge -q -o "$tmp/m02.json" "$r.0.json" "$r.2.json"
rm -f "$tmp/overlap.json"
$tpuprof merge -o "$tmp/overlap.json" "$tmp/m01.json" "$tmp/m02.json" 2>"$tmp/overlap.err"
rc=$?
if [ $rc = 3 ] && [ ! -e "$tmp/overlap.json" ] && [ "$(cat "$tmp/overlap.err")" = "tpuprof: $tmp/m02.json: host host0 was merged already (from $tmp/m01.json) and host host2 was not: a document is merged whole or not at all (merge the hosts' own reports, or reports that do not overlap)" ]; then
	pass=$((pass + 1))
else
	echo "FAIL merge of overlapping merges: exit $rc, stderr: $(cat "$tmp/overlap.err")"
	fail=$((fail + 1))
fi
# the same merge given twice: left out whole, as a host given twice is
expect_case "a merge given twice" 0 "tpuprof: merge: host0: $tmp/m01.json is the same capture as $tmp/m01.json, left out" "$tmp/m01.json" "$tmp/m01.json" "$r.2.json"
# --max-input holds merge's inputs as every other reader's, and a byte
# that cannot start a report is refused at once: before, merge read
# /dev/zero or an endless stream into memory without bound (gigabytes in
# seconds, then the OOM killer), and a 3 GB file of NULs whole
bounded() { # WHAT MESSAGE SH-COMMAND: exit 3 within 20 s, the message
	timeout 20 sh -c "$3" >/dev/null 2>"$tmp/bounded.err"
	rc=$?
	if [ $rc = 3 ] && [ "$(cat "$tmp/bounded.err")" = "$2" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL merge bounded: $1: exit $rc, stderr: $(head -c 300 "$tmp/bounded.err")"
		fail=$((fail + 1))
	fi
}
bounded "/dev/zero" "tpuprof: /dev/zero: not a JSON report (byte 0x00 at byte 0: a report starts with '{')" \
	"$tpuprof merge --max-input 10MB /dev/zero"
bounded "stdin of NULs" "tpuprof: stdin, report 1: not a JSON report (byte 0x00 at byte 0: a report starts with '{')" \
	"$tpuprof merge --max-input 100MB - </dev/zero"
bounded "a capture" "tpuprof: testdata/small.xplane.pb: a profile capture, not a report: merge reads saved reports (make one with 'tpuprof report --format json CAPTURE'; check and diff read captures too)" \
	"$tpuprof merge testdata/small.xplane.pb"
# on stdin too: a capture (its first byte 0x0a reads as a blank) and a
# gzipped report are named for what they are
bounded "a capture on stdin" "tpuprof: stdin, report 1: a profile capture, not a report: merge reads saved reports (make one with 'tpuprof report --format json CAPTURE'; check and diff read captures too)" \
	"$tpuprof merge - <testdata/small.xplane.pb"
gzip -c $r.0.json >"$tmp/report.json.gz"
bounded "a gzipped report on stdin" "tpuprof: stdin, report 1: gzip data, not a JSON report: merge reads saved reports as plain JSON (a gzipped report: gunzip it first)" \
	"$tpuprof merge - <$tmp/report.json.gz"
bounded "endless stream" "tpuprof: stdin, report 1: input larger than the limit of 1000000 bytes (see --max-input)" \
	"(printf '{\"schema\":\"'; yes aaaaaaa | tr -d '\\n') | $tpuprof merge --max-input 1MB -"
bounded "stream's second report" "tpuprof: stdin, report 2: input larger than the limit of 10000000 bytes (see --max-input)" \
	"(cat $r.0.json; printf ' {\"schema\":\"'; yes aaaaaaa | tr -d '\\n') | $tpuprof merge --max-input 10MB -"
bounded "a file over the limit" "tpuprof: $r.0.json: input larger than the limit of 1000 bytes (see --max-input)" \
	"$tpuprof merge --max-input 1KB $r.0.json"
bounded "a FIFO over the limit" "tpuprof: $tmp/fifo: input larger than the limit of 1000 bytes (see --max-input)" \
	"rm -f $tmp/fifo; mkfifo $tmp/fifo; (cat $r.0.json >$tmp/fifo 2>/dev/null &); $tpuprof merge --max-input 1KB $tmp/fifo"
truncate -s 3G "$tmp/sparse.json"
bounded "3 GB of NULs" "tpuprof: $tmp/sparse.json: not a JSON report (byte 0x00 at byte 0: a report starts with '{')" \
	"$tpuprof merge $tmp/sparse.json"
rm -f "$tmp/sparse.json"
# a figure of the wrong type is no absent figure: the document is refused
sed 's/"runtime_peak_bytes": [0-9]*/"runtime_peak_bytes": "abc"/' $r.0.json >"$tmp/bad-figure.json"
bounded "a size as a string" "tpuprof: $tmp/bad-figure.json: not a valid tpuprof report (memory.cores[0].runtime_peak_bytes is a string; it holds a whole number of bytes or ps)" \
	"$tpuprof merge $tmp/bad-figure.json $r.1.json"
# one host whose name ends in digits is one host, not host 2 of 0..2
if [ -f ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb ]; then
	$tpuprof report --format json -o "$tmp/v6e.json" ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb
	$tpuprof report --format json -o "$tmp/tw003.json" ../shared/captures/gpu-mi300x-jax-gemm/tw003.xplane.pb
	expect_case "v6e tpu_inference_2, --expect 1" 0 "" --expect 1 "$tmp/v6e.json"
	expect_case "v6e tpu_inference_2, --expect 2" 1 "tpuprof: merge: 1 host of 2 expected (the host names show no gap in a numbered series: which are missing is not known)" --expect 2 "$tmp/v6e.json"
	expect_case "tw003, --expect 1" 0 "" --expect 1 "$tmp/tw003.json"
fi
echo "merge: $pass passed, $fail failed"
[ $fail = 0 ]
