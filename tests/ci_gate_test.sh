#!/bin/sh
# The CI gate as a job runs it (issue 40): saved reports read from a pipe,
# a FIFO, '-' and process substitution by check, diff and merge, and
# several at once; a capture piped in; one check run writing its text to
# standard output and its JSON to --json-out; the newest run of a logdir
# by its time, and the note of that choice under -q.
#   sh tests/ci_gate_test.sh TPUPROF
set -u
tpuprof=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL ci gate: $*"; }
expect_rc() { # WHAT WANT GOT
	if [ "$2" = "$3" ]; then ok; else bad "$1: exit $3, expected $2 ($(head -c 300 "$tmp/err"))"; fi
}
"$tpuprof" report --format json -q -o "$tmp/w7.json" testdata/ci/worker7.xplane.pb
"$tpuprof" report --format json -q -o "$tmp/w8.json" testdata/ci/worker8.xplane.pb
"$tpuprof" report --format json -q -o "$tmp/h0.json" testdata/run-3hosts/host0.xplane.pb
"$tpuprof" report --format json -q -o "$tmp/h2.json" testdata/run-3hosts/host2.xplane.pb

# a saved report through a pipe, as '-'
cat "$tmp/w8.json" | "$tpuprof" check --max-peak 4GiB - >"$tmp/out" 2>"$tmp/err"
expect_rc "report piped to check -" 0 $?
grep -q "^check: ok, all 2 checks passed$" "$tmp/out" && ok || bad "check - said: $(cat "$tmp/out")"
# merge's output piped on
"$tpuprof" merge -q "$tmp/h0.json" "$tmp/h2.json" | "$tpuprof" check --max-peak 4GiB - >"$tmp/out" 2>"$tmp/err"
expect_rc "merge | check -" 0 $?
grep -q "^check: ok, all 4 checks passed$" "$tmp/out" && ok || bad "merge | check: $(cat "$tmp/out")"
# several reports, as the usage says
"$tpuprof" check --max-peak 4GiB "$tmp/h0.json" "$tmp/h2.json" >"$tmp/out" 2>"$tmp/err"
expect_rc "check A.json B.json" 0 $?
grep -c "^ok   max-peak core host[02]" "$tmp/out" | grep -qx 4 && ok || bad "two reports: $(cat "$tmp/out")"
# the drawing commands read the same inputs (issue 39's documents, issue
# 40's input layer): a report piped to `report -`, merge's output to
# `ops -`, an ops document through a FIFO to `ops`, a capture piped in
cat "$tmp/w8.json" | "$tpuprof" report - >"$tmp/out" 2>"$tmp/err"
expect_rc "report piped to report -" 0 $?
grep -q "^capture   saved report, worker8," "$tmp/out" && ok || bad "report -: $(head -3 "$tmp/out")"
"$tpuprof" merge -q "$tmp/h0.json" "$tmp/h2.json" | "$tpuprof" ops - --limit 1 >"$tmp/out" 2>"$tmp/err"
expect_rc "merge | ops -" 0 $?
grep -q "^all cores: host0 /device:TPU:0, /device:TPU:1, host2 .*(device clock)$" "$tmp/out" && ok ||
	bad "merge | ops -: $(head -3 "$tmp/out")"
"$tpuprof" ops --format json -q -o "$tmp/ops8.json" testdata/ci/worker8.xplane.pb
mkfifo "$tmp/opsfifo"
cat "$tmp/ops8.json" >"$tmp/opsfifo" &
"$tpuprof" ops --limit 1 "$tmp/opsfifo" >"$tmp/out" 2>"$tmp/err"
expect_rc "ops document through a FIFO" 0 $?
wait
grep -q "^all cores: worker8 /device:TPU:0, /device:TPU:1 " "$tmp/out" && ok || bad "ops FIFO: $(head -2 "$tmp/out")"
cat testdata/ci/worker8.xplane.pb | "$tpuprof" ops - --limit 1 >"$tmp/out2" 2>"$tmp/err"
expect_rc "capture piped to ops -" 0 $?
"$tpuprof" ops testdata/ci/worker8.xplane.pb --limit 1 >"$tmp/out3" 2>/dev/null
sed 's/ stdin \/device/ worker8 \/device/' "$tmp/out2" | cmp -s - "$tmp/out3" && ok ||
	bad "capture piped: $(diff "$tmp/out2" "$tmp/out3" | head -5)"
cat "$tmp/ops8.json" | "$tpuprof" memory - >"$tmp/out" 2>"$tmp/err"
expect_rc "an ops document to memory" 3 $?
grep -q "not a tpuprof report or a tpuprof.memory document (schema tpuprof.ops/1" "$tmp/err" && ok ||
	bad "memory of an ops document: $(cat "$tmp/err")"

# a FIFO
mkfifo "$tmp/fifo"
cat "$tmp/w8.json" >"$tmp/fifo" &
"$tpuprof" diff "$tmp/w7.json" "$tmp/fifo" >"$tmp/out" 2>"$tmp/err"
expect_rc "diff A FIFO" 0 $?
wait
# merge reads a FIFO too
cat "$tmp/h2.json" >"$tmp/fifo" &
"$tpuprof" merge -q "$tmp/h0.json" "$tmp/fifo" -o "$tmp/m.json" 2>"$tmp/err"
expect_rc "merge A FIFO" 0 $?
wait
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert [h['name'] for h in d['info']['hosts']] == ['host0', 'host2']" \
	"$tmp/m.json" && ok || bad "merge of a FIFO lost a host"
# a capture through a FIFO: the bytes sniffed are not lost
cat testdata/ci/worker8.xplane.pb >"$tmp/fifo" &
"$tpuprof" check --max-peak 4GiB "$tmp/fifo" >"$tmp/out" 2>"$tmp/err"
expect_rc "capture through a FIFO" 0 $?
wait
# a capture on standard input against a baseline of another host name
cat testdata/ci/worker8.xplane.pb | "$tpuprof" check --baseline "$tmp/w7.json" --max-growth 10% - \
	>"$tmp/out" 2>"$tmp/err"
expect_rc "stdin capture vs worker7 baseline" 0 $?
grep -q "^check: baseline paired by structure (hosts in order, cores by device): stdin = baseline worker7; time and traffic compared per step$" \
	"$tmp/out" && ok || bad "stdin pairing: $(head -1 "$tmp/out")"
# a report from a pipe as the baseline
cat testdata/ci/slow/worker8.xplane.pb | "$tpuprof" check --baseline /dev/stdin --max-growth 10% \
	testdata/ci/worker7.xplane.pb >"$tmp/out" 2>"$tmp/err"
expect_rc "capture as a piped baseline" 0 $?

# one run: text on stdout, the JSON document in --json-out
"$tpuprof" check --baseline "$tmp/w7.json" --max-growth 10% --json-out "$tmp/check.json" \
	testdata/ci/slow/worker8.xplane.pb >"$tmp/out" 2>"$tmp/err"
expect_rc "one run, both outputs" 1 $?
grep -q "^check: FAIL, 2 of 6 checks failed$" "$tmp/out" && ok || bad "text: $(tail -1 "$tmp/out")"
# the step grew 8 us while its ops did not: the host was slow (idle), as
# the step's parts say; its ops grew by nanoseconds
grep -q "^FAIL max-growth step time core worker8 /device:TPU:0: 48.00 us = +20.0% over baseline (host worker7) 40.00 us > limit 44.00 us; grew in: idle +8.175 us, copy +13 ps$" \
	"$tmp/out" && ok || bad "step growth by part: $(grep 'step time core worker8 /device:TPU:0' "$tmp/out")"
python3 - "$tmp/check.json" "$tmp/out" <<'PY' && ok || bad "--json-out rows do not carry the text lines"
import json, sys
doc = json.load(open(sys.argv[1]))
lines = [l for l in open(sys.argv[2]).read().splitlines() if l.startswith(("ok ", "FAIL "))]
assert doc["verdict"] == "fail" and doc["failed"] == 2, doc["verdict"]
assert [r["text"] for r in doc["results"]] == lines, lines
assert doc["baseline"]["match"] == "structure"
PY
# --json-out naming an input is refused, the input kept
cp testdata/ci/worker8.xplane.pb "$tmp/in.xplane.pb"
"$tpuprof" check --max-peak 4GiB --json-out "$tmp/in.xplane.pb" "$tmp/in.xplane.pb" >"$tmp/out" 2>"$tmp/err"
expect_rc "--json-out over an input" 2 $?
cmp -s "$tmp/in.xplane.pb" testdata/ci/worker8.xplane.pb && ok || bad "--json-out replaced its input"

# --compact: the same document without indentation, read back alike
"$tpuprof" report --format json --compact -q -o "$tmp/w8c.json" testdata/ci/worker8.xplane.pb
python3 - "$tmp/w8.json" "$tmp/w8c.json" <<'PY' && ok || bad "--compact is not the same document, on one line"
import json, sys
a, b = open(sys.argv[1]).read(), open(sys.argv[2]).read()
assert json.loads(a) == json.loads(b) and b.count("\n") == 1 and len(b) < len(a) * 0.7, (len(a), len(b))
assert json.loads(b)["tpuprof_version"]
PY
"$tpuprof" check --baseline "$tmp/w8c.json" --max-growth 0% testdata/ci/worker8.xplane.pb >"$tmp/out" 2>"$tmp/err"
expect_rc "a compact baseline" 0 $?

# the newest run of a logdir by time, not by name; -q keeps the note
ld=$tmp/logdir/plugins/profile
mkdir -p "$ld/zzz_old" "$ld/aaa_new"
cp testdata/ci/worker7.xplane.pb "$ld/zzz_old/"
cp testdata/ci/worker8.xplane.pb "$ld/aaa_new/"
touch -d 2020-01-01 "$ld/zzz_old/worker7.xplane.pb"
"$tpuprof" info -q "$tmp/logdir" >"$tmp/out" 2>"$tmp/err"
expect_rc "logdir of two runs" 0 $?
head -1 "$tmp/out" | grep -qx "host worker8" && ok || bad "logdir took $(head -1 "$tmp/out")"
grep -qx "tpuprof: note: $ld: using the newest of 2 runs, 'aaa_new' (by its newest file's time; choose with --run NAME)" \
	"$tmp/err" && ok || bad "-q hid the run note: $(cat "$tmp/err")"
"$tpuprof" check -q --max-peak 4GiB "$tmp/logdir" >"$tmp/out" 2>"$tmp/err"
grep -q "using the newest of 2 runs, 'aaa_new'" "$tmp/err" && ok || bad "check -q hid the run note: $(cat "$tmp/err")"
# a name that says its time (TensorBoard's) counts that time, not its files'
mkdir -p "$ld/2021_06_01_00_00_00"
cp testdata/ci/worker7.xplane.pb "$ld/2021_06_01_00_00_00/"
"$tpuprof" info -q "$tmp/logdir" >"$tmp/out" 2>"$tmp/err"
head -1 "$tmp/out" | grep -qx "host worker8" && ok || bad "a 2021 name beat today's files"
touch -d 2019-01-01 "$ld/aaa_new/worker8.xplane.pb"
"$tpuprof" info -q "$tmp/logdir" >"$tmp/out" 2>"$tmp/err"
grep -q "using the newest of 3 runs, '2021_06_01_00_00_00' (by the time its name says" "$tmp/err" &&
	ok || bad "2021 name vs 2019/2020 files: $(cat "$tmp/err")"

# a capture being copied: cut short at a clean boundary, said so, not corrupt
head -c 30000 testdata/ci/worker8.xplane.pb >"$tmp/copying.xplane.pb"
"$tpuprof" check --max-peak 4GiB "$tmp/copying.xplane.pb" >"$tmp/out" 2>"$tmp/err"
expect_rc "a capture being copied" 3 $?
grep -q "capture cut short (still being written?) at byte" "$tmp/err" && ok || bad "copy in progress: $(cat "$tmp/err")"
head -c 100 testdata/ci/worker8.xplane.pb >"$tmp/copying.xplane.pb"
"$tpuprof" info "$tmp/copying.xplane.pb" >"$tmp/out" 2>"$tmp/err"
grep -q "still being written?.*its first plane runs past its end: try again once it is complete" "$tmp/err" &&
	ok || bad "copy in progress, first plane: $(cat "$tmp/err")"
cat testdata/ci/worker8.xplane.pb >"$tmp/copying.xplane.pb"
"$tpuprof" check --max-peak 4GiB "$tmp/copying.xplane.pb" >"$tmp/out" 2>"$tmp/err"
expect_rc "the copy done" 0 $?
# ... and one still growing says so: a writer appends 4 bytes every 2 ms
head -c 30000 testdata/ci/worker8.xplane.pb >"$tmp/growing.xplane.pb"
python3 - testdata/ci/worker8.xplane.pb "$tmp/growing.xplane.pb" <<'PY' &
import sys, time
d = open(sys.argv[1], 'rb').read()
f = open(sys.argv[2], 'ab', buffering=0)
for i in range(30000, len(d), 4):
    f.write(d[i:i + 4])
    time.sleep(0.002)
PY
writer=$!
while [ "$(wc -c <"$tmp/growing.xplane.pb")" -le 30000 ]; do sleep 0.01; done
"$tpuprof" info "$tmp/growing.xplane.pb" >"$tmp/out" 2>"$tmp/err"
kill $writer 2>/dev/null
wait $writer 2>/dev/null
grep -q "still being written?.*: it grew from [0-9]* to [0-9]* bytes while read" "$tmp/err" &&
	ok || bad "a growing capture: $(cat "$tmp/err")"
"$tpuprof" info testdata/corrupt/hostile-length.xplane.pb >"$tmp/out" 2>"$tmp/err"
grep -q "corrupt capture at byte 1" "$tmp/err" && ok || bad "a hostile length said cut short: $(cat "$tmp/err")"

# the man page: every command in its SYNOPSIS, no troff warning
for c in $("$tpuprof" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p'); do
	grep -q "^\.B tpuprof $c\b" docs/tpuprof.1 && ok || bad "man SYNOPSIS lacks $c"
done
if command -v groff >/dev/null; then
	w=$(groff -man -ww -z docs/tpuprof.1 2>&1)
	[ -z "$w" ] && ok || bad "troff warnings: $w"
fi
# make install puts the completions where bash and zsh look
make -s install DESTDIR="$tmp/inst" PREFIX=/usr BIN="$tpuprof" >/dev/null 2>&1
[ -f "$tmp/inst/usr/share/bash-completion/completions/tpuprof" ] &&
	[ -f "$tmp/inst/usr/share/zsh/site-functions/_tpuprof" ] && ok || bad "completions not installed"
got=$(bash -c '. completions/tpuprof.bash; COMP_WORDS=(tpuprof che); COMP_CWORD=1; _tpuprof; echo "${COMPREPLY[*]}"')
[ "$got" = check ] && ok || bad "bash completion of 'che': $got"
got=$(bash -c '. completions/tpuprof.bash; COMP_WORDS=(tpuprof check --allow-u); COMP_CWORD=2; _tpuprof; echo "${COMPREPLY[*]}"')
[ "$got" = --allow-unmatched ] && ok || bad "bash completion of check --allow-u: $got"
echo "ci gate: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
