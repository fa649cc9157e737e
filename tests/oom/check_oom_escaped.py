#!/usr/bin/env python3
"""`make oom-test`, part 5: reports escaped into one string. Every shared
report is written as structured loggers and tracebacks carry it, on one
line: a JSON log entry (`{"severity": "ERROR", "message": "..."}`, as
Python's json writes it), the same as Go's encoding/json writes it (GKE and
Kubernetes: `<`, `>` and `&` as \\u003c, \\u003e, \\u0026), an exception's
repr (`RuntimeError('...')`, Python's escapes), and a JSON entry inside
another's string (a collector that wraps each line it forwards). Each must
read as the whole report: the same reports, figures, verdict, entries,
names and missing (docs/oom.md "Whatever surrounds the report"), its line
the entry's. And a log of three such entries, one report each among other
entries, gives the three reports.
Usage: check_oom_escaped.py TPUPROF"""
import glob
import json
import os
import sys

from oom_lib import D, differ, fail, failures, run, strip

SKIP = ("input", "line", "log_prefixes")


def as_json(text):
    return json.dumps({"severity": "ERROR", "message": text})


def as_go_json(text):
    return as_json(text).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def as_repr(text):
    return "RuntimeError(%r)" % text


def as_nested(text):
    return json.dumps({"log": as_json(text) + "\n", "stream": "stderr"})


WAYS = {"json": as_json, "go json": as_go_json, "repr": as_repr, "json in json": as_nested}


def main():
    checked = 0
    texts = []
    for path in sorted(glob.glob(D + "*.log")):
        name = os.path.basename(path)
        text = open(path).read()
        whole, rc = run(path)
        if rc not in (0, 1) or not whole:
            fail(f"{name}: exit {rc}")
            continue
        want = strip(whole, SKIP)
        texts.append((name, text, want))
        for way, escape in WAYS.items():
            doc, rc = run(escape(text) + "\n", stdin=True)
            where = f"{name} as {way}"
            checked += 1
            if not doc:
                fail(f"{where}: exit {rc}")
                continue
            got = strip(doc, SKIP)
            if len(got) != len(want):
                fail(f"{where}: {len(got)} reports, the whole log {len(want)}")
                continue
            differ(where, got, want)
            if any(r["line"] != 1 for r in doc["reports"]):
                fail(f"{where}: lines {[r['line'] for r in doc['reports']]}, not the entry's 1")
    # three entries among others: each report at its entry's line
    picks = [t for t in texts if len(t[2]) == 1][:3]
    log = []
    for i, (name, text, _) in enumerate(picks):
        log.append(json.dumps({"severity": "INFO", "message": "step %d\nloss 1.0\nok" % i}))
        log.append(as_json(text))
    doc, rc = run("\n".join(log) + "\n", stdin=True)
    checked += 1
    if not doc or [r["line"] for r in doc["reports"]] != [2, 4, 6]:
        fail(f"three entries: {doc and [r['line'] for r in doc['reports']]}, not [2, 4, 6]")
    else:
        for r, (name, _, want) in zip(strip(doc, SKIP), picks):
            if r != want[0]:
                fail(f"three entries: {name} reads otherwise than alone")
    if failures:
        print(f"oom escaped reports: {len(failures)} failures")
        sys.exit(1)
    print(f"oom escaped reports: {checked} logs of reports escaped {len(WAYS)} ways "
          f"read as the whole ones")


main()
