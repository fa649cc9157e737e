#!/bin/sh
# docs/scale.md's recipes and `tpuprof merge` at pod scale.
#  - every "# recipe: NAME" block of docs/scale.md runs as written, with RUN
#    a generated run directory and tpuprof on the PATH: its pod.json must
#    equal `tpuprof report --format json "$RUN"` byte for byte;
#  - every "# recipe (cloud): NAME" block passes `sh -n`; the Job manifest
#    parses as YAML and is an Indexed Job whose pod script passes `sh -n`;
#  - 1,024 host reports (one report, host names rewritten) merge into
#    1,024 hosts; missing and repeated hosts are named; the same report
#    1,024 times merges in the memory of one. How fast the merge is, is
#    `make bench`'s to say (its "merge 1,024 host reports" row): a CPU
#    limit here failed on a slower machine with nothing wrong.
# Usage: scale_test.sh TPUPROF GEN_CAPTURE
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
tpuprof=$root/${1:-build/tpuprof}
gen=$root/${2:-build/gen_capture}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
# a sanitized build (build-san/): ASan's quarantine keeps freed memory,
# so memory is not compared
sanitized=no
case $tpuprof in *-san/*) sanitized=yes ;; esac
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL scale: $*"; fail=$((fail + 1)); }

mkdir -p "$tmp/bin"
ln -s "$tpuprof" "$tmp/bin/tpuprof"
PATH=$tmp/bin:$PATH
export PATH

# blocks KIND: writes each fenced block of docs/scale.md whose first line
# is "# recipe: NAME" (KIND local) or "# recipe (cloud): NAME" (cloud) to
# $tmp/KIND.NAME.sh, and the yaml blocks to $tmp/manifest.N.yaml
awk -v dir="$tmp" '
	/^```/ {
		if (inside) { inside = 0; if (out) close(out); out = ""; next }
		inside = 1; lang = substr($0, 4); first = 1; out = ""
		if (lang == "yaml") out = sprintf("%s/manifest.%d.yaml", dir, ++nyaml)
		next
	}
	inside && first && lang == "sh" {
		first = 0
		if ($0 ~ /^# recipe: /) out = dir "/local." substr($0, 11) ".sh"
		else if ($0 ~ /^# recipe \(cloud\): /) out = dir "/cloud." substr($0, 19) ".sh"
	}
	inside && out { print > out }
' docs/scale.md

# a small run directory of 4 hosts, and its report over all files
"$gen" --hosts 4 --cores 2 --programs 1 --instructions 8 --fusions 1 \
	--heap-events 10 --events-per-line 40 --memory-events 10 -o "$tmp/run" >/dev/null
tpuprof report -q --format json -o "$tmp/all.json" "$tmp/run"

n_local=0
for r in "$tmp"/local.*.sh; do
	[ -f "$r" ] || continue
	n_local=$((n_local + 1))
	name=$(basename "$r" .sh)
	d=$tmp/$name.d
	mkdir -p "$d"
	if (cd "$d" && RUN=$tmp/run sh -e "$r") >"$d.log" 2>&1 &&
		cmp -s "$d/pod.json" "$tmp/all.json"; then
		ok
	else
		bad "docs/scale.md recipe ${name#local.}: pod.json differs from the report over the run directory"
		tail -5 "$d.log"
	fi
done
[ "$n_local" -ge 4 ] && ok || bad "docs/scale.md: $n_local local recipes, expected 4"

n_cloud=0
for r in "$tmp"/cloud.*.sh; do
	[ -f "$r" ] || continue
	n_cloud=$((n_cloud + 1))
	if sh -n "$r"; then ok; else bad "docs/scale.md recipe $(basename "$r"): sh -n"; fi
done
[ "$n_cloud" -ge 4 ] && ok || bad "docs/scale.md: $n_cloud cloud recipes, expected 4"

# the manifest: an Indexed Job, its pod script valid shell
if python3 - "$tmp"/manifest.*.yaml >"$tmp/pod.sh" <<'EOF'
import sys
import yaml

docs = [d for f in sys.argv[1:] for d in yaml.safe_load_all(open(f))]
jobs = [d for d in docs if d and d.get("kind") == "Job"]
assert len(jobs) == 1, "one Job"
spec = jobs[0]["spec"]
assert jobs[0]["apiVersion"] == "batch/v1"
assert spec["completionMode"] == "Indexed"
assert int(spec["completions"]) > 0 and int(spec["parallelism"]) > 0
pod = spec["template"]["spec"]
assert pod["restartPolicy"] == "Never"
(c,) = pod["containers"]
assert c["command"][:2] == ["sh", "-c"]
mounts = {m["mountPath"] for m in c["volumeMounts"]}
assert "/config" in mounts and "/work" in mounts
script = c["command"][2]
assert "JOB_COMPLETION_INDEX" in script and "tpuprof report" in script
print(script)
EOF
then
	if sh -n "$tmp/pod.sh"; then ok; else bad "the Job's pod script: sh -n"; fi
else
	bad "docs/scale.md: the Job manifest is not an Indexed Job"
fi

# 1,024 host reports from one, host names rewritten (one awk process)
tpuprof report -q --format json -o "$tmp/one.json" "$tmp/run/host0.xplane.pb"
sh tests/pod_reports.sh "$tmp/one.json" "$tmp/pod"

# runs "$@" and prints "CPU_SECONDS MAX_RSS_KB EXIT" (children's rusage)
measure() {
	python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.2f %d %d" % (u.ru_utime + u.ru_stime, u.ru_maxrss, rc))' "$@"
}

set -- $(measure tpuprof merge --expect 1024 -o "$tmp/pod.json" "$tmp/pod" 2>"$tmp/pod.err")
cpu=$1 rc=$3
hosts=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["info"]["hosts"]))' "$tmp/pod.json" 2>/dev/null)
if [ "$rc" = 0 ] && [ "$hosts" = 1024 ] && [ ! -s "$tmp/pod.err" ]; then
	ok
else
	bad "1,024 host reports: exit $rc, $hosts hosts: $(head -c 200 "$tmp/pod.err")"
fi
echo "scale: 1,024 host reports merged in $cpu s of CPU"

# two missing, one given twice
rm "$tmp/pod/host0017.json" "$tmp/pod/host1023.json"
tpuprof merge --expect 1024 -o "$tmp/pod2.json" "$tmp/pod" "$tmp/pod/host0005.json" 2>"$tmp/pod2.err"
rc=$?
# missing hosts under --expect: exit 1, the merge still written
if [ $rc = 1 ] && [ -s "$tmp/pod2.json" ]; then ok; else bad "hosts missing under --expect: exit $rc"; fi
# host1023 was the last: the names' series (host0000..host1022) names only
# host0017; the count says two are missing
want="tpuprof: merge: host0005: $tmp/pod/host0005.json is the same capture as $tmp/pod/host0005.json, left out
tpuprof: merge: 1022 hosts of 1024 expected
tpuprof: merge: 1 host missing from the hosts' numbering: host0017"
if [ "$(cat "$tmp/pod2.err")" = "$want" ]; then ok; else bad "missing and repeated hosts: $(cat "$tmp/pod2.err")"; fi

# the same report 1,024 times: the result is one host, and so is memory
for i in $(seq 1 1024); do echo "$tmp/one.json"; done >"$tmp/same.list"
set -- $(measure sh -c 'tpuprof merge -q -o "$1" $(cat "$2")' sh "$tmp/same.json" "$tmp/same.list")
same_rss=$2
set -- $(measure tpuprof merge -q -o "$tmp/one-merged.json" "$tmp/one.json")
one_rss=$2
if cmp -s "$tmp/same.json" "$tmp/one-merged.json" && { [ $sanitized = yes ] ||
	awk -v a="$same_rss" -v b="$one_rss" 'BEGIN { exit !(a < 2 * b + 8192) }'; }; then
	ok
else
	bad "the same report 1,024 times: $same_rss KB peak against $one_rss KB for one"
fi

# cores of over 512 ops: their rows are written in blocks on several
# threads (op_rows_json.c) and spliced in order; the document is the same
# byte for byte on one thread and on three, indented and compact
"$gen" --seed 3 --cores 2 --programs 2 --instructions 700 --fusions 20 \
	--target-bytes 3000000 -o "$tmp/wide.xplane.pb" >/dev/null 2>&1
for fmt in "--format json" "--format json --compact"; do
	# shellcheck disable=SC2086 # fmt is a list of options
	tpuprof report -j 1 $fmt "$tmp/wide.xplane.pb" >"$tmp/wide1.json" 2>/dev/null
	# shellcheck disable=SC2086
	tpuprof report -j 3 $fmt "$tmp/wide.xplane.pb" >"$tmp/wide3.json" 2>/dev/null
	n=$(grep -o '"occurrences"' "$tmp/wide1.json" | wc -l)
	if [ "$n" -gt 1024 ] && cmp -s "$tmp/wide1.json" "$tmp/wide3.json"; then
		ok
	else
		bad "report $fmt on 1 and 3 threads differ, or too few op rows ($n)"
	fi
done

echo "scale: $pass passed, $fail failed"
[ "$fail" = 0 ]
