#!/bin/sh
# `make oom-stream`: a report inside 100 MB of other log lines, read from a
# pipe: found with its figures, and the peak memory stays that of the
# report, not of the log (limit 32 MB RSS). Nothing is kept on disk.
# Usage: stream_test.sh TPUPROF
set -eu
TPUPROF=$1
report=../shared/oom-reports/14-tpu-v3-jax-easydel-gemma-arguments.log
out=$(mktemp)
trap 'rm -f "$out"' EXIT
python3 - "$report" <<'PY' | /usr/bin/time -f '%M' -o "$out.rss" "$TPUPROF" oom --format json - > "$out"
import sys
filler = ("I1203 10:00:00.000000 12345 train.py:42] step 1000 loss 2.345 "
          "tokens/s 123456 " + "x" * 60 + "\n").encode()
half = 50 * 1024 * 1024 // len(filler)
out = sys.stdout.buffer
block = filler * 1000
for _ in range(half // 1000):
    out.write(block)
out.write(open(sys.argv[1], "rb").read())
for _ in range(half // 1000):
    out.write(block)
PY
rss=$(cat "$out.rss"); rm -f "$out.rss"
python3 - "$out" "$rss" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rss_kb = int(sys.argv[2])
r = d["reports"]
assert len(r) == 1, len(r)
assert r[0]["figures"]["used"]["text"] == "30.21G", r[0]["figures"]["used"]
assert d["inputs"][0]["lines"] > 700000, d["inputs"][0]["lines"]
assert rss_kb < 32 * 1024, f"peak RSS {rss_kb} KB for a 100 MB log"
print(f"oom-stream: one report in {d['inputs'][0]['lines']} lines (100 MB), peak RSS {rss_kb // 1024} MB")
PY
