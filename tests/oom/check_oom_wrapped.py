#!/usr/bin/env python3
"""`make oom-test`, part 3: headlines a terminal hard-wrapped. Every shared
report's headline line (the first line holding a headline phrase) is cut
into lines of N characters, as `fold -w N` and a terminal do (inside a
word, at a space, over 2, 3 or more lines), for N = 70, 72, 79 and 80; the
rest of the report is left as it is. The wrapped report must read as the
whole one: the same reports, figures, verdict, allocations and missing
(docs/oom.md "Whatever surrounds the report").
Usage: check_oom_wrapped.py TPUPROF"""
import glob
import os
import sys

from oom_lib import D, differ, fail, failures, run, strip

WIDTHS = (70, 72, 79, 80)
PHRASES = ("Ran out of memory", "Attempting to", "Out of memory while",
           "Failed to allocate", "ran out of memory")


def fold(line, n):
    """`fold -w N`: pieces of N characters (the last one shorter)."""
    return [line[i:i + n] for i in range(0, len(line), n)] or [line]


def main():
    checked = 0
    for path in sorted(glob.glob(D + "*.log")):
        name = os.path.basename(path)
        text = open(path).read()
        whole, rc = run(path)
        if rc != 0 or not whole:
            fail(f"{name}: exit {rc}")
            continue
        lines = text.split("\n")
        head = next(i for i, l in enumerate(lines) if any(p in l for p in PHRASES))
        want = strip(whole)
        for n in WIDTHS:
            if len(lines[head]) <= n:
                continue
            wrapped = "\n".join(lines[:head] + fold(lines[head], n) + lines[head + 1:])
            doc, rc = run(wrapped, stdin=True)
            where = f"{name} headline folded at {n}"
            checked += 1
            if rc != 0 or not doc:
                fail(f"{where}: exit {rc}")
                continue
            got = strip(doc)
            if len(got) != len(want):
                fail(f"{where}: {len(got)} reports, the whole log {len(want)}")
                continue
            # the report starts on a line the headline was folded into, or
            # on the line before when that holds its wrapper and is as wide
            # (28 at 72: `RuntimeError: ... task:0:` is 72 characters)
            rows = len(fold(lines[head], n))
            for g, w in zip(doc["reports"], whole["reports"]):
                if not w["line"] - 1 <= g["line"] < w["line"] + rows:
                    fail(f"{where}: starts at line {g['line']}, the headline at {w['line']}")
            differ(where, got, want)
    if failures:
        print(f"oom wrapped headlines: {len(failures)} failures")
        sys.exit(1)
    print(f"oom wrapped headlines: {checked} headlines folded at {WIDTHS} read as the whole ones")


main()
