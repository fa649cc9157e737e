#!/bin/sh
# `make oom-stream`: a report inside 100 MB of other log lines, read from a
# pipe: found with its figures, and the peak memory stays that of the
# report, not of the log (limit 32 MB RSS). Nothing is kept on disk.
# Then the same with every newline collapsed into a space: one line of
# 100 MB, of which only the report and a little before it are kept.
# The limit is OOM_RSS_MB (default 32; sanitizer builds need more).
# Usage: stream_test.sh TPUPROF
set -eu
TPUPROF=$1
# the repository's synthetic report (tests/oom/make_oom_report.py), so the
# test runs on a clone without ../shared
report=testdata/oom/tpu-hbm-compile.log
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for collapse in 0 1; do
python3 - "$report" "$collapse" <<'PY' | /usr/bin/time -f '%M' -o "$out.rss" "$TPUPROF" oom --format json - > "$out"
import sys
filler = ("I1203 10:00:00.000000 12345 train.py:42] step 1000 loss 2.345 "
          "tokens/s 123456 " + "x" * 60 + "\n").encode()
half = 50 * 1024 * 1024 // len(filler)
out = sys.stdout.buffer
report = open(sys.argv[1], "rb").read()
if sys.argv[2] == "1":
    filler = filler.replace(b"\n", b" ")
    report = report.replace(b"\n", b" ")
block = filler * 1000
for _ in range(half // 1000):
    out.write(block)
out.write(report)
for _ in range(half // 1000):
    out.write(block)
PY
rss=$(cat "$out.rss"); rm -f "$out.rss"
python3 - "$out" "$rss" "$collapse" "${OOM_RSS_MB:-32}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rss_kb = int(sys.argv[2])
collapsed = sys.argv[3] == "1"
r = d["reports"]
assert len(r) == 1, len(r)
assert r[0]["figures"]["used"]["text"] == "18.75G", r[0]["figures"]["used"]
assert d["inputs"][0]["lines"] == 1 if collapsed else d["inputs"][0]["lines"] > 700000, d["inputs"][0]["lines"]
assert len(r[0]["allocations"]) == 3, len(r[0]["allocations"])
assert rss_kb < int(sys.argv[4]) * 1024, f"peak RSS {rss_kb} KB for a 100 MB log"
print(f"oom-stream: one report in {d['inputs'][0]['lines']} line(s) (100 MB{', newlines collapsed' if collapsed else ''}), peak RSS {rss_kb // 1024} MB")
PY
done
